//! How each selected test's exploration ended, and the summary line of a run of the
//! selected tests (`racelens explore --affected`, and `racelens merge` of its shards): one
//! rule for a report and for its JSON, so that the merge sums up shards as the run does.

use std::collections::BTreeMap;

use crate::exploration::json::outcome;
use crate::explorer::Report;
use crate::reports::{AffectedTest, ExploreOutcome};
use crate::results::coverage::Coverage;

/// How a test's exploration ended, for the summary: a failure, no failure with what its
/// coverage claims, or no exploration. Only a complete claim clears a test: a budget that
/// ran out before any bound was complete, or a search without a systematic part, is said as
/// such, never counted as passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ended {
    Failed,
    EverySchedule,
    Bound(u32),
    /// The budget ran out after every schedule up to this bound was explored.
    BudgetAfter(u32),
    /// The budget ran out before any bound was complete.
    Budget,
    /// The search ended without a complete claim (PCT alone, runs cut at the step bound).
    NoBound,
    NotExplored,
    Stopped,
    /// A failing schedule that did not fail again in a fresh JVM.
    Unconfirmed,
    /// A failure raised in racelens's model of the JDK while the test passes plainly.
    Limitation,
}

impl Ended {
    pub fn of(report: &Report) -> Ended {
        Ended::judge(outcome(&report.verdict), &Coverage::of(report))
    }

    /// From a result's `outcome` and `coverage`: one rule for a report and for its JSON,
    /// so that `racelens merge` sums up shards as the run itself does.
    pub fn judge(outcome: ExploreOutcome, coverage: &Coverage) -> Ended {
        match outcome {
            ExploreOutcome::Fail => Ended::Failed,
            ExploreOutcome::Pass if coverage.all_schedules => Ended::EverySchedule,
            ExploreOutcome::Pass => coverage.complete_bound.map_or(Ended::NoBound, Ended::Bound),
            ExploreOutcome::Limit => coverage.complete_bound.map_or(Ended::Budget, Ended::BudgetAfter),
            ExploreOutcome::Uncontrolled => Ended::NotExplored,
            ExploreOutcome::Error => Ended::Stopped,
            ExploreOutcome::Unconfirmed => Ended::Unconfirmed,
            ExploreOutcome::Limitation => Ended::Limitation,
        }
    }

    /// Whether the exploration claims every schedule of some bound without a failure.
    pub fn cleared(self) -> bool {
        matches!(self, Ended::EverySchedule | Ended::Bound(_) | Ended::BudgetAfter(_))
    }

    /// From one entry of `tests` (`result` null: the test could not be run).
    pub fn of_entry(entry: &AffectedTest) -> Ended {
        match &entry.result {
            Some(result) => Ended::judge(result.outcome, &result.coverage),
            None => Ended::NotExplored,
        }
    }
}

/// The exit status of a run of the selected tests: 1 when a test failed, else 2 when a test
/// could not be explored or its exploration stopped, else 0 (`racelens merge` applies it to
/// the merged tests).
pub fn exit_status(ended: &[Ended]) -> u8 {
    match ended.contains(&Ended::Failed) {
        false
            if ended
                .iter()
                .any(|e| matches!(e, Ended::NotExplored | Ended::Stopped | Ended::Unconfirmed | Ended::Limitation)) =>
        {
            2
        }
        false => 0,
        true => 1,
    }
}

/// `racelens: 3 selected tests explored: 1 failed, 1 cleared (bound 2 on 1), 1 budget end with
/// no bound complete, 4,512 of 10,000 schedules`: what each ended with claims, never more.
pub fn summary(ended: &[Ended], selected: usize, schedules: u64, budget: u64) -> String {
    let explored = match ended.len() == selected {
        true => format!("{} explored", count(selected, "selected test")),
        false => format!(
            "{} of {} explored (--fail-fast: stopped at the first failure)",
            ended.len(),
            count(selected, "selected test")
        ),
    };
    format!("racelens: {explored}: {}, {} of {} schedules", outcomes(ended), thousands(schedules), thousands(budget))
}

/// `1 failed, 2 cleared (bound 2 on 1, bound 1 then the budget on 1), 3 budget ends with no
/// bound complete`: a test counts as cleared only with a complete claim.
pub fn outcomes(ended: &[Ended]) -> String {
    let mut by_end: BTreeMap<Ended, usize> = BTreeMap::new();
    for &e in ended {
        *by_end.entry(e).or_default() += 1;
    }
    let failed = by_end.get(&Ended::Failed).copied().unwrap_or(0);
    let (mut cleared, mut claims, mut rest) = (0, Vec::new(), Vec::new());
    for (&end, &n) in &by_end {
        match end {
            Ended::Failed => {}
            Ended::EverySchedule => claims.push(format!("every schedule on {n}")),
            Ended::Bound(b) => claims.push(format!("bound {b} on {n}")),
            Ended::BudgetAfter(b) => claims.push(format!("bound {b} then the budget on {n}")),
            Ended::Budget => {
                rest.push(format!("{n} budget end{} with no bound complete", if n == 1 { "" } else { "s" }))
            }
            Ended::NoBound => rest.push(format!("{n} without a complete bound")),
            Ended::NotExplored => rest.push(format!("{n} not explored")),
            Ended::Stopped => rest.push(format!("{n} stopped by an error")),
            Ended::Unconfirmed => rest.push(format!("{n} not confirmed in a fresh JVM")),
            Ended::Limitation => rest.push(format!("{n} beyond racelens's models")),
        }
        if end.cleared() {
            cleared += n;
        }
    }
    let cleared = match claims.is_empty() {
        true => format!("{cleared} cleared"),
        false => format!("{cleared} cleared ({})", claims.join(", ")),
    };
    [format!("{failed} failed"), cleared].into_iter().chain(rest).collect::<Vec<_>>().join(", ")
}

/// `3 tests`, `1 test`.
pub fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `10,000`
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A result with its outcome, coverage and schedules and nothing else of interest, for
/// the tests of the summary and of `merge`.
#[cfg(test)]
pub(crate) fn bare_result(
    test: &str,
    outcome: ExploreOutcome,
    coverage: Coverage,
    schedules: u64,
) -> crate::reports::ExploreReport {
    use crate::reports::{ExploreReport, Search, StatsReport};
    let stats = StatsReport {
        elapsed_ms: 1,
        schedules_per_sec: 2.5,
        decision_points: 0,
        livelocks: 0,
        pruned: 0,
        failing_schedules: 0,
        skipped: 0,
        redundant: 0,
    };
    ExploreReport {
        test: test.into(),
        search: Search::Icb,
        heuristic: "pct+LA".into(),
        icps: 0,
        impact: None,
        matched_decision_points: 0,
        bound: 2,
        outcome,
        schedules,
        coverage,
        sequential_streams: Vec::new(),
        failure: None,
        checks: None,
        error: None,
        stats,
        setup: crate::reports::SetupReport {
            classpath: String::new(),
            notes: Vec::new(),
            compile_ms: 0,
            impact_ms: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_says_what_each_test_ended_with_and_no_more() {
        let ended = [Ended::Failed, Ended::Bound(2), Ended::Budget];
        assert_eq!(summary(&ended, 3, 4_512, 10_000), "racelens: 3 selected tests explored: 1 failed, 1 cleared (bound 2 on 1), 1 budget end with no bound complete, 4,512 of 10,000 schedules");
        let ended = [
            Ended::EverySchedule,
            Ended::NotExplored,
            Ended::Stopped,
            Ended::NoBound,
            Ended::BudgetAfter(1),
            Ended::BudgetAfter(1),
        ];
        assert_eq!(summary(&ended, 6, 999, 1_000), "racelens: 6 selected tests explored: 0 failed, 3 cleared (every schedule on 1, bound 1 then the budget on 2), 1 without a complete bound, 1 not explored, 1 stopped by an error, 999 of 1,000 schedules");
        // A budget too small for any bound clears nothing, however many tests ran out of it.
        assert_eq!(summary(&[Ended::Budget; 22], 22, 220, 220), "racelens: 22 selected tests explored: 0 failed, 0 cleared, 22 budget ends with no bound complete, 220 of 220 schedules");
        assert_eq!(summary(&[Ended::Failed], 2, 34, 100), "racelens: 1 of 2 selected tests explored (--fail-fast: stopped at the first failure): 1 failed, 0 cleared, 34 of 100 schedules");
        assert_eq!(
            (thousands(0), thousands(999), thousands(1_000), thousands(1_234_567)),
            ("0".into(), "999".into(), "1,000".into(), "1,234,567".into())
        );
    }

    #[test]
    fn a_json_entry_ends_as_its_report_did() {
        use ExploreOutcome::*;
        let entry = |outcome, all_schedules, complete_bound| {
            let coverage = Coverage { complete_bound, all_schedules, classes: 1, runs: 2, ..Coverage::default() };
            AffectedTest {
                test: "T".into(),
                rank: 1,
                pairs: Vec::new(),
                budget: 2,
                result: Some(bare_result("T", outcome, coverage, 2)),
                error: None,
                parts: Vec::new(),
            }
        };
        let ended = |e: AffectedTest| Ended::of_entry(&e);
        assert_eq!(ended(entry(Fail, false, None)), Ended::Failed);
        assert_eq!(ended(entry(Pass, true, None)), Ended::EverySchedule);
        assert_eq!(ended(entry(Pass, false, Some(2))), Ended::Bound(2));
        assert_eq!(ended(entry(Pass, false, None)), Ended::NoBound);
        assert_eq!(ended(entry(Limit, false, Some(1))), Ended::BudgetAfter(1));
        assert_eq!(ended(entry(Limit, false, None)), Ended::Budget);
        assert_eq!(ended(entry(Uncontrolled, false, None)), Ended::NotExplored);
        assert_eq!(ended(entry(Error, false, None)), Ended::Stopped);
        assert_eq!(
            ended(AffectedTest { result: None, error: Some("no such test".into()), ..entry(Pass, false, None) }),
            Ended::NotExplored
        );
        // The exit status of the run and of the merge.
        assert_eq!(exit_status(&[Ended::Stopped, Ended::Failed]), 1);
        assert_eq!(exit_status(&[Ended::Stopped, Ended::Budget]), 2);
        assert_eq!(exit_status(&[Ended::EverySchedule, Ended::Budget]), 0);
        assert_eq!(exit_status(&[Ended::NotExplored]), 2);
        assert_eq!(exit_status(&[Ended::Failed]), 1);
    }
}
