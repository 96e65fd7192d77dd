//! What an exploration covered, in words a result may claim: every schedule, every
//! schedule up to a preemption bound, or where the budget ran out, and what no claim
//! covers (runs cut at the step bound, parallel streams run sequentially). One place, so that the
//! command line, its JSON and the editor never claim more than the search checked.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::explorer::{Budget, Report, Verdict};
use crate::search::part::Part;

/// The bound being explored when the budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OpenBound {
    pub bound: u32,
    /// Schedules of that bound run so far.
    pub run: u64,
    /// Schedules of that bound known to be still waiting (more may come).
    pub waiting: u64,
}

impl OpenBound {
    /// An estimate of the share of the bound done: of the schedules known so far. It can
    /// only be too high (new ones turn up as the bound is explored).
    pub fn percent(&self) -> u64 {
        (100 * self.run / (self.run + self.waiting).max(1)).min(99)
    }
}

/// What an exploration covered, and so what its result may claim.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Coverage {
    /// Every schedule with at most this many preemptions is equivalent to one that ran.
    pub complete_bound: Option<u32>,
    /// Every schedule, whatever its preemptions, is equivalent to one that ran.
    pub all_schedules: bool,
    /// Distinct equivalence classes among the runs (executions that order every pair of
    /// conflicting steps the same way are one class).
    pub classes: u64,
    /// Runs of the test.
    pub runs: u64,
    /// The budget ran out before the search did.
    pub budget_exhausted: bool,
    /// Which budget: schedules, time, or an interrupt (results cached before it was
    /// recorded read as schedules).
    #[serde(default)]
    pub budget: Budget,
    /// The bound being explored when the budget ran out.
    pub open: Option<OpenBound>,
    /// Runs that reached the step bound (spin loops under an unfair schedule): cut there.
    pub livelocks: u64,
    /// Places where a parallel stream ran sequentially: its own interleavings were not
    /// explored, whatever the claim. (Results cached before it was counted read as 0.)
    #[serde(default)]
    pub sequential_streams: u64,
    /// The invocations of a test JUnit runs more than once (parameterized, repeated), each
    /// explored on its own with a share of the budget: the claim holds for each of them. 0
    /// for a test JUnit runs once.
    #[serde(default)]
    pub invocations: u64,
    /// The part of the test's schedules explored, when they were split over shards
    /// (`--shard I/N` with fewer tests than shards): then the claim is about that part
    /// only, and `racelens merge` joins the parts' claims into the test's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<PartOf>,
}

/// Part `index` of `count` (1-based, as the shards are named).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PartOf {
    pub index: u32,
    pub count: u32,
}

impl PartOf {
    /// How `part` is reported: nothing for the whole.
    pub fn of(part: Part) -> Option<PartOf> {
        (!part.is_whole()).then(|| PartOf { index: part.index() + 1, count: part.count() })
    }
}

impl Coverage {
    /// What `report` covered (nothing but its runs when it had no systematic search, when
    /// it stopped on a failure, a cancel or an error, or when runs were cut at the step
    /// bound: what they did not reach was not explored).
    pub fn of(report: &Report) -> Coverage {
        let claim = &report.claim;
        let ended = matches!(report.verdict, Verdict::Passed | Verdict::Limit | Verdict::Failed(_));
        let systematic = report.systematic && ended && report.stats.livelocks == 0;
        Coverage {
            complete_bound: claim.complete_bound.filter(|_| systematic),
            all_schedules: systematic && claim.exhausted,
            classes: claim.classes,
            runs: report.stats.schedules,
            budget_exhausted: matches!(report.verdict, Verdict::Limit),
            budget: report.stats.budget,
            open: claim.open.filter(|_| systematic).map(|(bound, run, waiting)| OpenBound { bound, run, waiting }),
            livelocks: report.stats.livelocks,
            sequential_streams: report.sequential.len() as u64,
            invocations: u64::from(report.invocations),
            part: PartOf::of(claim.part),
        }
    }

    /// A test's coverage from the coverage of every part of its schedules (`racelens
    /// merge`): every schedule when a part explored every schedule (its exhaustive search
    /// is of the whole test), else every schedule up to the smallest bound every part
    /// completed for its share, else no claim ([`crate::search::part`] says why). Runs and
    /// classes are summed (a class may have run in two parts).
    pub fn join(parts: &[Coverage]) -> Coverage {
        let all_schedules = parts.iter().any(|p| p.all_schedules);
        let complete_bound = match all_schedules {
            true => None,
            false => parts.iter().map(|p| p.complete_bound).min().flatten(),
        };
        let open = parts.iter().filter(|_| !all_schedules).filter_map(|p| p.open).min_by_key(|o| o.bound);
        // A budget end matters only when it leaves the claim short.
        let exhausted = parts.iter().find(|p| p.budget_exhausted).filter(|_| !all_schedules);
        Coverage {
            complete_bound,
            all_schedules,
            classes: parts.iter().map(|p| p.classes).sum(),
            runs: parts.iter().map(|p| p.runs).sum(),
            budget_exhausted: exhausted.is_some(),
            budget: exhausted.map_or(Budget::default(), |p| p.budget),
            open,
            livelocks: parts.iter().map(|p| p.livelocks).sum(),
            sequential_streams: parts.iter().map(|p| p.sequential_streams).max().unwrap_or(0),
            invocations: parts.iter().map(|p| p.invocations).max().unwrap_or(0),
            part: None,
        }
    }

    /// Whether a claim about every schedule of a bound (or of all) can be made.
    pub fn is_complete(&self) -> bool {
        self.all_schedules || self.complete_bound.is_some()
    }

    /// `every schedule explored (12 classes, 23 runs)`; `all schedules up to 2 preemptions
    /// explored (...)`; `budget reached after 10000 runs (900 classes) at bound 3 (an
    /// estimate: 40% of the bound-3 schedules known so far); all schedules up to 2
    /// preemptions explored`.
    pub fn text(&self) -> String {
        self.words(false)
    }

    /// [`Coverage::text`] short enough for a code lens: `bound 2 complete (40 classes, 61
    /// runs)`; `budget reached after 50 runs at bound 1 (~83% of it); bound 0 complete`.
    pub fn brief(&self) -> String {
        self.words(true)
    }

    fn words(&self, brief: bool) -> String {
        let (classes, runs) = (plural(self.classes, "class", "classes"), plural(self.runs, "run", "runs"));
        // What is complete; the counts go with the runs, which are all the runs.
        // A part's bounds are of its share of the schedules; every schedule is every one.
        let of = self.part.map_or(String::new(), |p| format!(" of part {}/{}", p.index, p.count));
        let complete = match (self.all_schedules, self.complete_bound) {
            (true, _) => Some("every schedule explored".to_string()),
            (false, Some(k)) if brief => Some(format!("bound {k}{of} complete")),
            (false, Some(k)) => {
                Some(format!("all schedules{of} up to {} explored", plural(u64::from(k), "preemption", "preemptions")))
            }
            _ => None,
        };
        let mut text = if self.budget_exhausted {
            let at = match self.open {
                Some(o) if brief => format!(" at bound {} (~{}% of it)", o.bound, o.percent()),
                Some(o) => format!(
                    " at bound {} (an estimate: {}% of the bound-{} schedules known so far)",
                    o.bound,
                    o.percent(),
                    o.bound
                ),
                None => String::new(),
            };
            let after = if brief { runs } else { format!("{runs} ({classes})") };
            let ended = match self.budget {
                Budget::Schedules => "budget reached".to_string(),
                Budget::Seconds(s) => format!("time budget ({s} s) reached"),
                Budget::Interrupted => "interrupted".to_string(),
            };
            format!("{ended} after {after}{at}; {}", complete.unwrap_or_else(|| format!("no bound{of} complete")))
        } else {
            match complete {
                Some(c) => format!("{c} ({classes}, {runs})"),
                None => format!("{classes}, {runs}; no bound{of} complete"),
            }
        };
        if self.livelocks > 0 {
            text += &format!(
                "; {} reached the step bound and {} cut there",
                plural(self.livelocks, "run", "runs"),
                if self.livelocks == 1 { "was" } else { "were" }
            );
        }
        match self.invocations {
            0 => {}
            1 => text += "; of one invocation",
            n => text += &format!("; over {n} invocations, each explored on its own"),
        }
        match (self.sequential_streams, brief) {
            (0, _) => {}
            (n, true) => text += &format!("; {} run sequentially", plural(n, "parallel stream", "parallel streams")),
            (n, false) => {
                text += &format!(
                    "; {} ran sequentially, {} own interleavings not explored",
                    plural(n, "parallel stream", "parallel streams"),
                    if n == 1 { "its" } else { "their" }
                )
            }
        }
        text
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_claim_no_more_than_the_numbers() {
        let all = Coverage { all_schedules: true, classes: 12, runs: 23, ..Coverage::default() };
        assert_eq!(all.text(), "every schedule explored (12 classes, 23 runs)");
        let bound = Coverage { complete_bound: Some(2), classes: 40, runs: 61, ..Coverage::default() };
        assert_eq!(bound.text(), "all schedules up to 2 preemptions explored (40 classes, 61 runs)");
        assert_eq!(bound.brief(), "bound 2 complete (40 classes, 61 runs)");
        let budget = Coverage {
            complete_bound: Some(2),
            classes: 900,
            runs: 10_000,
            budget_exhausted: true,
            open: Some(OpenBound { bound: 3, run: 400, waiting: 600 }),
            ..Coverage::default()
        };
        assert_eq!(budget.text(), "budget reached after 10000 runs (900 classes) at bound 3 (an estimate: 40% of the bound-3 schedules known so far); all schedules up to 2 preemptions explored");
        assert_eq!(budget.brief(), "budget reached after 10000 runs at bound 3 (~40% of it); bound 2 complete");
        let nothing = Coverage {
            classes: 3,
            runs: 10,
            budget_exhausted: true,
            open: Some(OpenBound { bound: 0, run: 10, waiting: 0 }),
            ..Coverage::default()
        };
        assert!(nothing.text().ends_with("no bound complete") && !nothing.is_complete());
        assert_eq!(OpenBound { bound: 1, run: 5, waiting: 0 }.percent(), 99, "never 100% while the bound is open");
        let part = Coverage { part: Some(PartOf { index: 2, count: 3 }), ..all };
        assert_eq!(part.text(), "every schedule explored (12 classes, 23 runs)");
        assert_eq!(
            Coverage { part: part.part, ..bound }.text(),
            "all schedules of part 2/3 up to 2 preemptions explored (40 classes, 61 runs)"
        );
        assert_eq!(Coverage { part: part.part, ..bound }.brief(), "bound 2 of part 2/3 complete (40 classes, 61 runs)");
        let streams = Coverage { sequential_streams: 2, ..all };
        // The parts of a test's schedules: the weakest claim holds for the whole.
        let of = |i, c: Coverage| Coverage { part: Some(PartOf { index: i, count: 3 }), ..c };
        assert_eq!(
            Coverage::join(&[of(1, all), of(2, all), of(3, all)]).text(),
            "every schedule explored (36 classes, 69 runs)"
        );
        // One part that explored every schedule explored every one of the test.
        assert_eq!(
            Coverage::join(&[of(1, bound), of(2, all), of(3, bound)]).text(),
            "every schedule explored (92 classes, 145 runs)"
        );
        assert_eq!(Coverage::join(&[of(1, bound), of(2, bound), of(3, budget)]).text(), "budget reached after 10122 runs (980 classes) at bound 3 (an estimate: 40% of the bound-3 schedules known so far); all schedules up to 2 preemptions explored");
        let joined = Coverage::join(&[of(1, nothing), of(2, bound)]);
        assert!(!joined.is_complete() && joined.budget_exhausted && joined.part.is_none(), "{joined:?}");
        assert!(!Coverage::join(&[]).is_complete());
        assert_eq!(streams.text(), "every schedule explored (12 classes, 23 runs); 2 parallel streams ran sequentially, their own interleavings not explored");
        assert_eq!(
            streams.brief(),
            "every schedule explored (12 classes, 23 runs); 2 parallel streams run sequentially"
        );
    }
}
