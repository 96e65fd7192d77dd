//! A selected test whose schedules were split over shards ([`super::shard::dealt`]): the
//! results of its parts joined into the test's result, the one `racelens merge` reports.
//!
//! The joined claim is [`Coverage::join`]'s; a failure in any part
//! is the test's failure; a part that could not be explored leaves the test not explored,
//! unless another part failed (the failure stands, and its coverage names its part).

use std::fmt::Write;

use crate::reports::{AffectedTest, ExploreOutcome, ExploreReport, SelectedTest, StatsReport};
use crate::results::coverage::Coverage;

/// The test's entry from its parts' entries (in part order): the budget they shared, the
/// joined result, and each part under `parts`.
pub fn join(test: &SelectedTest, parts: Vec<AffectedTest>) -> AffectedTest {
    let failing = parts.iter().filter_map(|p| p.result.as_ref()).find(|r| r.outcome == ExploreOutcome::Fail);
    let reports: Vec<&ExploreReport> = parts.iter().filter_map(|p| p.result.as_ref()).collect();
    let (result, error) = match (reports.len() == parts.len(), failing) {
        (true, _) => (Some(join_reports(&reports)), None),
        (false, Some(failed)) => (Some(failed.clone()), None),
        (false, None) => {
            let (i, why) =
                parts.iter().enumerate().find_map(|(i, p)| p.error.as_deref().map(|e| (i, e))).unwrap_or((0, ""));
            (None, Some(format!("part {}/{} not explored: {why}", i + 1, parts.len())))
        }
    };
    AffectedTest {
        test: test.test.clone(),
        rank: test.rank,
        pairs: test.pairs.clone(),
        budget: test.budget,
        result,
        error,
        parts,
    }
}

/// How bad an outcome is for the whole: a failure first, then what leaves schedules
/// unchecked (an error, no control, an unconfirmed failure or a limitation), then a budget
/// end, then a pass.
fn severity(outcome: ExploreOutcome) -> u8 {
    match outcome {
        ExploreOutcome::Fail => 5,
        ExploreOutcome::Error | ExploreOutcome::Uncontrolled => 4,
        ExploreOutcome::Unconfirmed | ExploreOutcome::Limitation => 3,
        ExploreOutcome::Limit => 2,
        ExploreOutcome::Pass => 1,
    }
}

/// One report from the parts' (none empty): the worst outcome, with its failure, checks and
/// error; the joined coverage; schedules and counts summed; the longest part's time (the
/// parts ran side by side).
fn join_reports(reports: &[&ExploreReport]) -> ExploreReport {
    let worst = *reports.iter().max_by_key(|r| severity(r.outcome)).expect("a part");
    let coverage = Coverage::join(&reports.iter().map(|r| r.coverage).collect::<Vec<_>>());
    // A part that ran out of budget costs nothing when another explored every schedule.
    let outcome = match worst.outcome {
        ExploreOutcome::Limit if coverage.all_schedules => ExploreOutcome::Pass,
        other => other,
    };
    let sum = |f: fn(&StatsReport) -> u64| reports.iter().map(|r| f(&r.stats)).sum::<u64>();
    let schedules: u64 = reports.iter().map(|r| r.schedules).sum();
    let elapsed_ms = reports.iter().map(|r| r.stats.elapsed_ms).max().unwrap_or(0);
    let stats = StatsReport {
        elapsed_ms,
        schedules_per_sec: (10.0 * schedules as f64 / (elapsed_ms.max(1) as f64 / 1000.0)).round() / 10.0,
        decision_points: sum(|s| s.decision_points),
        livelocks: sum(|s| s.livelocks),
        pruned: sum(|s| s.pruned),
        failing_schedules: sum(|s| s.failing_schedules),
        skipped: sum(|s| s.skipped),
        redundant: sum(|s| s.redundant),
    };
    let mut streams = Vec::new();
    for place in reports.iter().flat_map(|r| &r.sequential_streams) {
        if !streams.contains(place) {
            streams.push(place.clone());
        }
    }
    ExploreReport {
        matched_decision_points: reports.iter().map(|r| r.matched_decision_points).sum(),
        outcome,
        schedules,
        coverage,
        sequential_streams: streams,
        stats,
        ..worst.clone()
    }
}

/// What `merge` prints for a split test: each part's lines, then what they claim together.
pub fn text(texts: &[&str], joined: &AffectedTest) -> String {
    let mut out = String::new();
    for (i, t) in texts.iter().enumerate() {
        let _ = write!(out, "part {}/{}: {t}", i + 1, texts.len());
    }
    let together = format!("the {} parts together", joined.parts.len());
    let line = match &joined.result {
        None => format!("! {together}: not explored ({})", joined.error.as_deref().unwrap_or("")),
        Some(r) => match r.outcome {
            ExploreOutcome::Fail => format!("✗ {together}: a failure (above)"),
            ExploreOutcome::Pass if r.coverage.is_complete() => {
                format!("✓ {together}: no failure: {}", r.coverage.text())
            }
            ExploreOutcome::Pass => {
                format!("{together}: no failure: {} (nothing is claimed about other schedules)", r.coverage.text())
            }
            ExploreOutcome::Limit => format!("… {together}: no failure yet: {}", r.coverage.text()),
            _ => {
                format!("! {together}: nothing claimed, a part ended with {}", r.error.as_deref().unwrap_or("an error"))
            }
        },
    };
    let _ = writeln!(out, "{line}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::affected::ended::{bare_result, Ended};
    use crate::results::coverage::PartOf;
    use ExploreOutcome::*;

    fn part(i: u32, n: u32, outcome: Option<ExploreOutcome>, all: bool, bound: Option<u32>) -> AffectedTest {
        let coverage = Coverage {
            all_schedules: all,
            complete_bound: bound,
            classes: 2,
            runs: 5,
            budget_exhausted: outcome == Some(Limit),
            part: Some(PartOf { index: i, count: n }),
            ..Coverage::default()
        };
        let result = outcome.map(|o| bare_result("T#t", o, coverage, 5));
        AffectedTest {
            test: "T#t".into(),
            rank: 1,
            pairs: Vec::new(),
            budget: 5,
            result,
            error: outcome.is_none().then(|| "no JDK".into()),
            parts: Vec::new(),
        }
    }

    fn selected() -> SelectedTest {
        SelectedTest { test: "T#t".into(), rank: 1, pairs: Vec::new(), budget: 10 }
    }

    #[test]
    fn the_parts_claim_together_the_weakest_of_their_claims() {
        let joined = join(&selected(), vec![part(1, 2, Some(Pass), true, None), part(2, 2, Some(Pass), true, None)]);
        assert_eq!(Ended::of_entry(&joined), Ended::EverySchedule);
        let r = joined.result.as_ref().unwrap();
        assert_eq!(
            (r.schedules, r.coverage.runs, r.coverage.part, joined.budget, joined.parts.len()),
            (10, 10, None, 10, 2)
        );
        assert_eq!(text(&["a\n", "b\n"], &joined), "part 1/2: a\npart 2/2: b\n✓ the 2 parts together: no failure: every schedule explored (4 classes, 10 runs)\n");
        // One part explored every schedule of the test: the other's budget end costs nothing.
        let joined =
            join(&selected(), vec![part(1, 2, Some(Pass), true, None), part(2, 2, Some(Limit), false, Some(1))]);
        assert_eq!(Ended::of_entry(&joined), Ended::EverySchedule);
        let joined =
            join(&selected(), vec![part(1, 2, Some(Pass), false, Some(3)), part(2, 2, Some(Limit), false, Some(1))]);
        assert_eq!(Ended::of_entry(&joined), Ended::BudgetAfter(1));
        let joined =
            join(&selected(), vec![part(1, 2, Some(Pass), false, Some(2)), part(2, 2, Some(Limit), false, None)]);
        assert_eq!(Ended::of_entry(&joined), Ended::Budget);
    }

    #[test]
    fn a_failure_in_a_part_fails_the_test_and_a_part_not_explored_leaves_it_unexplored() {
        let joined = join(
            &selected(),
            vec![
                part(1, 3, Some(Pass), true, None),
                part(2, 3, None, false, None),
                part(3, 3, Some(Fail), false, None),
            ],
        );
        assert_eq!(Ended::of_entry(&joined), Ended::Failed);
        assert!(text(&[], &joined).ends_with("✗ the 3 parts together: a failure (above)\n"));
        let joined = join(&selected(), vec![part(1, 2, Some(Pass), true, None), part(2, 2, None, false, None)]);
        assert_eq!(
            (Ended::of_entry(&joined), joined.error.as_deref()),
            (Ended::NotExplored, Some("part 2/2 not explored: no JDK"))
        );
        let joined = join(&selected(), vec![part(1, 2, Some(Error), false, None), part(2, 2, Some(Pass), true, None)]);
        assert_eq!(Ended::of_entry(&joined), Ended::Stopped);
    }
}
