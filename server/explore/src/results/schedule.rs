//! A failing schedule as one short printable string, safe to paste into a shell:
//! `v1_0r14,1,0r3_14@ObjectPool.java:58`.
//!
//! - `0r14,1,0r3`: the choices at the first decision points, run-length encoded
//!   (`0r14` is thread 0 fourteen times); past them, the default rule;
//! - `14@ObjectPool.java:58`: at decision 14 (where the schedule departs from the default
//!   rule) the step is at that place; a replay that finds another place there diverged;
//! - `v1i2_...`: the schedule of invocation 2 of a test JUnit runs more than once (a
//!   parameterized or repeated test): a replay runs that invocation.

use crate::jvm::protocol::{Execution, Site, ThreadId};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleString {
    /// The invocation it belongs to (a parameterized or repeated test), by JUnit's number.
    pub invocation: Option<u32>,
    pub choices: Vec<ThreadId>,
    /// `(decision index, place)` where the choice departs from the default rule.
    pub checks: Vec<(usize, String)>,
}

/// The default rule's choice at a decision: keep the current thread, else the lowest.
fn default_choice(d: &crate::jvm::protocol::Decision) -> ThreadId {
    match d.current {
        Some(c) if d.waiters.is_none() && d.enabled.contains(c) => c,
        _ => d.choices().first().unwrap_or(0),
    }
}

impl ScheduleString {
    /// The schedule of an execution that followed `choices`: trimmed after the last point
    /// where it departs from the default rule.
    pub fn of(choices: &[ThreadId], exec: &Execution, site: impl Fn(u32) -> Option<Site>) -> ScheduleString {
        let departures: Vec<usize> = exec
            .decisions
            .iter()
            .enumerate()
            .take(choices.len())
            .filter(|(_, d)| d.thread != default_choice(d))
            .map(|(i, _)| i)
            .collect();
        let len = departures.last().map_or(0, |&i| i + 1);
        let checks = departures
            .iter()
            .map(|&i| (i, site(exec.decisions[i].site).map(|s| s.place()).unwrap_or_else(|| "?".into())))
            .collect();
        ScheduleString {
            invocation: exec.invocation.as_ref().map(|i| i.index),
            choices: choices[..len.min(choices.len())].to_vec(),
            checks,
        }
    }

    pub fn encode(&self) -> String {
        let mut runs: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.choices.len() {
            let t = self.choices[i];
            let n = self.choices[i..].iter().take_while(|&&c| c == t).count();
            runs.push(if n == 1 { t.to_string() } else { format!("{t}r{n}") });
            i += n;
        }
        let checks: Vec<String> = self.checks.iter().map(|(k, p)| format!("{k}@{p}")).collect();
        let invocation = self.invocation.map(|i| format!("i{i}")).unwrap_or_default();
        format!("v1{invocation}_{}_{}", runs.join(","), checks.join(","))
    }

    pub fn decode(s: &str) -> Result<ScheduleString, String> {
        let bad = || format!("`{s}` is not a racelens schedule (it looks like v1_0r14,1,0r3_14@Pool.java:58)");
        let rest = s.trim().strip_prefix("v1").ok_or_else(bad)?;
        let (invocation, rest) = match rest.strip_prefix('i') {
            Some(tail) => {
                let (n, rest) = tail.split_once('_').ok_or_else(bad)?;
                (Some(n.parse::<u32>().map_err(|_| bad())?), rest)
            }
            None => (None, rest.strip_prefix('_').ok_or_else(bad)?),
        };
        let (runs, checks) = rest.split_once('_').unwrap_or((rest, ""));
        let mut choices = Vec::new();
        for run in runs.split(',').filter(|r| !r.is_empty()) {
            let (t, n) = run.split_once('r').unwrap_or((run, "1"));
            let t: ThreadId = t.parse().map_err(|_| bad())?;
            let n: usize = n.parse().map_err(|_| bad())?;
            choices.extend(std::iter::repeat_n(t, n));
        }
        let mut parsed = Vec::new();
        for c in checks.split(',').filter(|c| !c.is_empty()) {
            let (k, place) = c.split_once('@').ok_or_else(bad)?;
            parsed.push((k.parse().map_err(|_| bad())?, place.to_string()));
        }
        Ok(ScheduleString { invocation, choices, checks: parsed })
    }

    /// Where a replay of this schedule went elsewhere: `(decision, expected, found)`.
    pub fn divergence(&self, exec: &Execution, site: impl Fn(u32) -> Option<Site>) -> Option<(usize, String, String)> {
        for (k, place) in &self.checks {
            let found = exec.decisions.get(*k).map(|d| site(d.site).map(|s| s.place()).unwrap_or_else(|| "?".into()));
            match found {
                Some(f) if &f == place => {}
                Some(f) => return Some((*k, place.clone(), f)),
                None => {
                    return Some((
                        *k,
                        place.clone(),
                        format!("the end of the execution after {} decision points", exec.decisions.len()),
                    ))
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_is_shell_safe() {
        let s = ScheduleString {
            invocation: None,
            choices: vec![0, 0, 0, 1, 0, 0, 2, 2],
            checks: vec![(3, "Pool.java:42".into()), (6, "Worker.java:7".into())],
        };
        let text = s.encode();
        assert_eq!(text, "v1_0r3,1,0r2,2r2_3@Pool.java:42,6@Worker.java:7");
        assert_eq!(ScheduleString::decode(&text).unwrap(), s);
        assert!(ScheduleString::decode("nonsense").is_err());
        assert_eq!(
            ScheduleString::decode("v1__").unwrap(),
            ScheduleString { invocation: None, choices: vec![], checks: vec![] }
        );
        // A parameterized test's schedule names its invocation.
        let of_invocation =
            ScheduleString { invocation: Some(2), choices: vec![0, 1], checks: vec![(1, "My_Test.java:9".into())] };
        assert_eq!(of_invocation.encode(), "v1i2_0,1_1@My_Test.java:9");
        assert_eq!(ScheduleString::decode(&of_invocation.encode()).unwrap(), of_invocation);
        assert!(ScheduleString::decode("v1ix_0_").is_err());
    }
}
