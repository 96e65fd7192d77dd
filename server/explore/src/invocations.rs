//! A test JUnit runs more than once (a JUnit 5 `@ParameterizedTest` or `@RepeatedTest`, a
//! test of a JUnit 4 `Parameterized` class): each invocation is a test of its own, with its
//! own schedules, so each is explored on its own, in JUnit's order.
//!
//! - **The budget is split, not shared.** Each invocation gets an equal share of the
//!   schedules, fixed up front (the remainder one each to the first invocations), as
//!   `explore --affected` splits its budget between tests: a large first invocation cannot
//!   starve the later ones, and what an invocation leaves unused is not passed on, so one
//!   invocation's search never depends on how another ended. With fewer schedules than
//!   invocations, the last ones get none and the claim says nothing about them.
//! - **The first failure ends the test** (unless `all`): the report is that invocation's
//!   failure, its schedule counted from the test's first run, and the execution names the
//!   invocation (`Execution::invocation`), so the headline and the schedule string do too.
//! - **The claim covers every invocation or none of a bound**: a bound is complete only when
//!   it is complete for each invocation; the counts add up.

use std::sync::atomic::AtomicBool;

use crate::explorer::{Budget, Options, Report, Stats, Verdict};
use crate::jvm::protocol::Invocation;
use crate::jvm::Session;

/// What explores one invocation: the session (its invocation chosen), its share of the budget,
/// the progress callback.
pub type ExploreOne<'a> = dyn FnMut(&mut Session, &Options, &mut dyn FnMut(&Stats)) -> Result<Report, String> + 'a;

/// The share of `total` schedules invocation `i` of `n` gets.
pub fn share(total: u64, n: usize, i: usize) -> u64 {
    let n = n.max(1) as u64;
    total / n + u64::from((i as u64) < total % n)
}

/// Explores each invocation of the session's test in turn (see the module documentation), and
/// the report for them all. The session runs the test's first invocation again afterwards.
pub fn explore_each(
    session: &mut Session,
    invocations: &[Invocation],
    options: &Options,
    progress: &mut dyn FnMut(&Stats),
    cancel: &AtomicBool,
    one: &mut ExploreOne,
) -> Result<Report, String> {
    let mut reports: Vec<Report> = Vec::new();
    let mut before = Stats::default();
    for (i, inv) in invocations.iter().enumerate() {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        session.select_invocation(Some(inv.clone()));
        // The time left is shared among the invocations left, as the schedules are.
        let left = (invocations.len() - i) as u32;
        let max_time = options.max_time.map(|t| t.saturating_sub(before.elapsed) / left);
        let options =
            Options { max_schedules: share(options.max_schedules, invocations.len(), i), max_time, ..options.clone() };
        let mut offset = |s: &Stats| progress(&add(&before, s));
        let result = one(session, &options, &mut offset);
        let report = match result {
            Ok(r) => r,
            Err(e) => {
                session.select_invocation(None);
                return Err(format!("invocation {}: {e}", inv.text()));
            }
        };
        before = add(&before, &report.stats);
        let ends = match &report.verdict {
            Verdict::Failed(_) => !options.all,
            Verdict::Stopped(_)
            | Verdict::Uncontrolled(_)
            | Verdict::Cancelled
            | Verdict::Unconfirmed(..)
            | Verdict::Limitation(..) => true,
            Verdict::Limit => report.stats.budget != Budget::Schedules,
            Verdict::Passed => false,
        };
        reports.push(report);
        if ends {
            break;
        }
    }
    session.select_invocation(None);
    Ok(combine(reports, invocations.len()))
}

fn add(a: &Stats, b: &Stats) -> Stats {
    Stats {
        schedules: a.schedules + b.schedules,
        decision_points: a.decision_points + b.decision_points,
        steps: a.steps + b.steps,
        elapsed: a.elapsed + b.elapsed,
        livelocks: a.livelocks + b.livelocks,
        bound: b.bound,
        failures: a.failures + b.failures,
        searching: a.searching + b.searching,
        budget: b.budget,
    }
}

/// One report for the invocations of `reports` (in order; fewer than `total` when the
/// exploration ended early).
fn combine(reports: Vec<Report>, total: usize) -> Report {
    let complete = reports.len() == total;
    let mut stats = Stats::default();
    let mut claim = crate::search::Claim { exhausted: complete, complete_bound: None, ..Default::default() };
    let mut bound: Option<Option<u32>> = None;
    let (mut systematic, mut matched, mut sequential) = (true, 0, Vec::new());
    let mut first_failure = None;
    let mut verdict = Verdict::Passed;
    for r in reports {
        let schedules_before = stats.schedules;
        stats = add(&stats, &r.stats);
        claim.exhausted &= r.claim.exhausted;
        // A bound is complete when it is for every invocation: the smallest one.
        bound = Some(match bound {
            None => r.claim.complete_bound,
            Some(b) => b.zip(r.claim.complete_bound).map(|(x, y)| x.min(y)),
        });
        claim.open = claim.open.or(r.claim.open);
        claim.classes += r.claim.classes;
        claim.redundant += r.claim.redundant;
        claim.deferred += r.claim.deferred;
        claim.skipped += r.claim.skipped;
        systematic &= r.systematic;
        matched += r.matched;
        for s in r.sequential {
            if !sequential.contains(&s) {
                sequential.push(s);
            }
        }
        verdict = match (verdict, r.verdict) {
            (v, _) if v.ends_the_claim() => v,
            (_, Verdict::Failed(mut f)) => {
                f.schedules += schedules_before;
                if first_failure.is_none() {
                    first_failure = Some(f);
                }
                Verdict::Passed
            }
            (_, v @ Verdict::Limit) => v,
            (_, v) if v.ends_the_claim() => v,
            (v, _) => v,
        };
    }
    claim.complete_bound = if complete { bound.flatten() } else { None };
    let verdict = match (verdict, first_failure) {
        (v, _) if v.ends_the_claim() => v,
        (_, Some(f)) => Verdict::Failed(f),
        (v, None) => v,
    };
    Report { verdict, stats, claim, systematic, matched, sequential, invocations: total as u32 }
}

#[cfg(test)]
mod tests {
    use super::share;

    #[test]
    fn the_budget_is_split_equally_with_the_remainder_to_the_first() {
        let shares: Vec<u64> = (0..3).map(|i| share(10, 3, i)).collect();
        assert_eq!(shares, [4, 3, 3]);
        assert_eq!((0..4).map(|i| share(2, 4, i)).collect::<Vec<_>>(), [1, 1, 0, 0]);
        assert_eq!((0..3).map(|i| share(10_000, 3, i)).sum::<u64>(), 10_000);
    }
}
