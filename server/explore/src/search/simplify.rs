//! Fewer preemptions in a failing schedule found at random (change-aware PCT).
//!
//! A random schedule switches threads at many points where it does not matter, and every
//! preemption becomes a `⇄` lens and a row of the report. CHESS reports schedules with few
//! preemptions for the same reason. This removes the preemptions the failure does not need,
//! one at a time, keeping a removal when the test still fails the same way.
//!
//! A schedule is positional (the choice at the n-th decision point), so removing one switch
//! shifts every later decision. The switches are therefore kept as *where* they happen: the
//! thread that was running, the operation it was about to perform, and how many times it
//! had been there at a decision point; a candidate schedule is rebuilt by running the test
//! and placing each remaining switch at its place in the new execution.

use std::collections::HashMap;

use crate::jvm::protocol::{Decision, Execution, Outcome, ThreadId};

/// Where a switch happens: the running thread (if any), its pending operation (`None` when
/// it cannot go on: blocked or finished), and the occurrence of that pair among the decision
/// points of the execution, from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Place {
    running: Option<ThreadId>,
    site: Option<u32>,
    nth: u32,
}

/// A decision of the failing schedule: at `place`, run (or, at a `notify`, wake) `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Switch {
    place: Place,
    to: ThreadId,
    preemption: bool,
}

/// The place of every decision point of `exec`, in order.
fn places(exec: &Execution) -> Vec<Place> {
    let mut seen: HashMap<(Option<ThreadId>, Option<u32>), u32> = HashMap::new();
    exec.decisions
        .iter()
        .map(|d| {
            let site = d.current.and_then(|c| d.pending.iter().find(|p| p.thread == c)).map(|p| p.site);
            let nth = seen.entry((d.current, site)).or_default();
            *nth += 1;
            Place { running: d.current, site, nth: *nth }
        })
        .collect()
}

fn switches(exec: &Execution) -> Vec<Switch> {
    exec.decisions
        .iter()
        .zip(places(exec))
        .map(|(d, place)| Switch { place, to: d.thread, preemption: d.preempts(d.thread) })
        .collect()
}

fn allowed(d: &Decision, t: ThreadId) -> bool {
    d.choices().contains(t)
}

/// Runs the test with each of `wanted` made where its place comes up in the new execution; a
/// switch whose place does not come (or whose thread cannot run there) is left out. One run
/// per switch made.
/// `run` answers `None` when no more runs may be made (out of budget, or cancelled).
type Run<'a> = dyn FnMut(&[ThreadId]) -> Result<Option<Execution>, String> + 'a;

fn rebuild(wanted: &[Switch], run: &mut Run) -> Result<Option<Execution>, String> {
    let mut at: HashMap<Place, ThreadId> = wanted.iter().map(|w| (w.place, w.to)).collect();
    let mut choices: Vec<ThreadId> = Vec::new();
    loop {
        let Some(exec) = run(&choices)? else {
            return Ok(None);
        };
        let places = places(&exec);
        let switch = exec.decisions.iter().zip(&places).enumerate().skip(choices.len()).find_map(|(j, (d, place))| {
            let to = at.remove(place)?;
            (d.thread != to && allowed(d, to)).then_some((j, to))
        });
        let Some((j, to)) = switch else {
            return Ok(Some(exec));
        };
        choices = exec.decisions[..j].iter().map(|d| d.thread).collect();
        choices.push(to);
    }
}

fn same_failure(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Fail(x), Outcome::Fail(y)) => x.exception == y.exception && x.message == y.message,
        (Outcome::Deadlock(_), Outcome::Deadlock(_)) => true,
        _ => a == b,
    }
}

/// The failing execution with as few preemptions as this finds, within `budget` extra runs;
/// `run` executes the test with a list of choices, or answers `None` to stop early (a
/// cancelled exploration), keeping the best so far.
pub fn fewer_preemptions(failing: Execution, budget: u32, run: &mut Run) -> Result<Execution, String> {
    let mut runs = 0u32;
    let mut counted = |choices: &[ThreadId]| {
        runs += 1;
        if runs > budget {
            return Ok(None);
        }
        run(choices)
    };
    let mut best = failing;
    // Each preemption alone, then each with the next one: a random schedule often makes an
    // excursion (switch to a thread, switch back) that only goes away as a whole.
    'improve: loop {
        let kept = switches(&best);
        let at: Vec<usize> = (0..kept.len()).filter(|&i| kept[i].preemption).collect();
        let singles = at.iter().map(|&i| vec![i]);
        let pairs = at.windows(2).map(|w| w.to_vec());
        for drop in singles.chain(pairs) {
            let trial: Vec<Switch> =
                kept.iter().enumerate().filter(|(i, _)| !drop.contains(i)).map(|(_, s)| *s).collect();
            match rebuild(&trial, &mut counted)? {
                Some(exec) if same_failure(&exec.outcome, &best.outcome) && preemptions(&exec) < preemptions(&best) => {
                    best = exec;
                    continue 'improve;
                }
                Some(_) => {}
                None => break 'improve,
            }
        }
        break;
    }
    Ok(best)
}

pub fn preemptions(exec: &Execution) -> usize {
    exec.decisions.iter().filter(|d| d.preempts(d.thread)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvm::protocol::{Failure, Pending, Threads};

    /// A fake test: threads 0 and 1 each perform `n` operations (sites 10.. and 20..);
    /// decisions at every step while both are alive; default rule keeps the current thread.
    /// It fails when thread 1 runs its second operation between thread 0's operations 2 and 3
    /// (one preemption needed: thread 1 then runs to its end).
    fn fake(choices: &[ThreadId], n: u32) -> Execution {
        let mut done = [0u32; 2];
        let mut current: ThreadId = 0;
        let mut decisions = Vec::new();
        let mut order = Vec::new();
        while done[0] < n || done[1] < n {
            let enabled: Threads = (0..2).filter(|&t| done[t as usize] < n).collect();
            let cur_enabled = enabled.contains(current);
            let t = if enabled.len() > 1 {
                let idx = decisions.len();
                let default = if cur_enabled { current } else { enabled.first().unwrap() };
                let t = choices.get(idx).copied().unwrap_or(default);
                let pending = enabled
                    .iter()
                    .map(|t| Pending { thread: t, site: 10 * (u32::from(t) + 1) + done[t as usize], stack: None })
                    .collect();
                decisions.push(Decision {
                    step: order.len() as u32,
                    thread: t,
                    site: 0,
                    enabled,
                    waiters: None,
                    current: Some(current),
                    pending,
                });
                t
            } else {
                enabled.first().unwrap()
            };
            current = t;
            done[t as usize] += 1;
            order.push((t, done[t as usize]));
        }
        let pos = |t, k| order.iter().position(|&o| o == (t, k)).unwrap();
        let fails = pos(1, 2) > pos(0, 2) && pos(1, 2) < pos(0, 3);
        let outcome = if fails {
            Outcome::Fail(Failure {
                thread: 0,
                exception: "java.lang.AssertionError".into(),
                message: "lost".into(),
                frames: vec![],
                model: None,
            })
        } else {
            Outcome::Pass
        };
        Execution {
            run: 0,
            outcome,
            steps: order.len() as u32,
            decisions,
            events: vec![],
            switches: vec![],
            threads: Default::default(),
            millis: 0,
            trace: None,
            sequential: vec![],
            objects: Default::default(),
            invocation: None,
        }
    }

    #[test]
    fn needless_preemptions_of_a_random_schedule_are_removed() {
        // A noisy failing schedule: switches at almost every point.
        let noisy = [1, 0, 0, 1, 0, 1, 0, 1, 0];
        let failing = fake(&noisy, 5);
        assert!(matches!(failing.outcome, Outcome::Fail(_)) && preemptions(&failing) >= 4, "{}", preemptions(&failing));
        let simple = fewer_preemptions(failing, 100, &mut |c| Ok(Some(fake(c, 5)))).unwrap();
        assert!(matches!(simple.outcome, Outcome::Fail(_)));
        assert_eq!(preemptions(&simple), 1, "0 runs its first two operations, then 1 runs to its end");
    }

    #[test]
    fn the_budget_bounds_the_extra_runs_and_keeps_a_failing_schedule() {
        let failing = fake(&[1, 0, 0, 1, 0, 1, 0, 1, 0], 5);
        let before = preemptions(&failing);
        let mut runs = 0;
        let simple = fewer_preemptions(failing, 2, &mut |c| {
            runs += 1;
            Ok(Some(fake(c, 5)))
        })
        .unwrap();
        assert!(runs <= 2 && preemptions(&simple) <= before && matches!(simple.outcome, Outcome::Fail(_)));
    }
}
