//! Which schedules to try first: the prioritizations by name (`--heuristic`, the editor's
//! `racelens.explore.heuristic`), and one entry point that runs an exploration with any of
//! them, so that the command line and the language server cannot drift apart.

use std::sync::atomic::AtomicBool;

use crate::explorer::{self, Options, Report, Stats};
use crate::jvm::Session;
use crate::search::capp::{CappPrioritizer, Heuristic, HEURISTICS};
use crate::search::change::ChangeModel;
use crate::search::directed::PairPrioritizer;
use crate::search::pct::Pct;
use crate::search::{Basic, Prioritizer, Search};

/// The prioritization used when none is named. Chosen from `cargo bench -p
/// racelens-explore --bench capp -- --seeds 7` over the 14 faults of the CAPP benchmark
/// (README, "Change-aware exploration"): it found every fault, with the largest geometric-mean
/// reduction of schedules to the first failure over `basic` (3.15× in the default order,
/// 2.16× over the medians of 7 randomized orders, with the reduction of issue 9 in both),
/// and no fault more than 2× slower than `basic` (the PCT phase adds at most
/// [`PCT_FIRST`] schedules). CAPP's best alone, LA, reached 1.56×.
pub const DEFAULT: &str = "pct+LA";

/// A prioritization, parsed from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// No prioritization: iterative context bounding in plain depth-first order.
    Basic,
    /// One of CAPP's fourteen heuristics (section 3.2, Table 1).
    Capp(Heuristic),
    /// Preemptions right before accesses of impacted shared-variable pairs first.
    Pair,
    /// Change-aware probabilistic concurrency testing.
    Pct,
    /// A short run of change-aware PCT ([`PCT_FIRST`] schedules), then the systematic search
    /// with one of CAPP's heuristics: PCT's random priority changes at impacted points find
    /// most regressions within a few schedules, and the systematic search keeps ICB's
    /// guarantee (every schedule within the bound) for the rest, at most [`PCT_FIRST`] later.
    PctThen(Heuristic),
}

/// Schedules of change-aware PCT before the systematic search of `pct+<heuristic>`. At most
/// this many schedules are added to the systematic search's count, so it is bounded by the
/// fewest schedules a fault needs: with 10 it stays within 2× of `basic` on every fault of
/// the benchmark, the fastest of which need 10 to 17 schedules.
pub const PCT_FIRST: u64 = 10;

impl Choice {
    pub fn parse(name: &str) -> Result<Choice, String> {
        match name {
            "basic" => Ok(Choice::Basic),
            "pair" => Ok(Choice::Pair),
            "pct" => Ok(Choice::Pct),
            other if other.starts_with("pct+") => Heuristic::parse(&other[4..])
                .map(Choice::PctThen)
                .ok_or_else(|| format!("unknown heuristic `{other}`: after `pct+` comes one of CAPP's {}", HEURISTICS.join(" "))),
            other => Heuristic::parse(other)
                .map(Choice::Capp)
                .ok_or_else(|| format!("unknown heuristic `{other}`: basic, pair, pct, or one of CAPP's {}", HEURISTICS.join(" "))),
        }
    }

    /// Whether it needs the change (the analysis' impacted points and pairs).
    pub fn is_change_aware(self) -> bool {
        self != Choice::Basic
    }
}

/// The search for `choice`: the prioritization it names over the systematic search of
/// `options` (change-aware PCT first for `pct` and `pct+H`). `change` is required for the
/// change-aware ones; without it they fall back to `basic`. `pct_depth` is PCT's `d`.
pub fn search(options: &Options, choice: Choice, change: Option<&ChangeModel>, pct_depth: u32) -> Search {
    let tree = || Some((options.strategy, options.seed, options.select));
    let Some(model) = change.filter(|_| choice.is_change_aware()) else {
        return Search::new(tree(), None, Box::new(Basic));
    };
    let capp = |h: Heuristic| -> Box<dyn Prioritizer> {
        let icps = model.icps.clone().with_callees(model.effect_callees.clone());
        Box::new(CappPrioritizer::new(Some(h), icps, model.site_map(), options.seed))
    };
    let pct = |runs: u64| Some(Pct::new(pct_depth, model.pct_sites.clone(), runs, options.seed));
    match choice {
        Choice::Capp(h) => Search::new(tree(), None, capp(h)),
        Choice::Pair => Search::new(tree(), None, Box::new(PairPrioritizer::new(model.pairs.clone(), model.site_map()))),
        // PCT alone: random schedules while the budget lasts, no systematic part.
        Choice::Pct => Search::new(None, pct(u64::MAX), Box::new(Basic)),
        Choice::PctThen(h) => Search::new(tree(), pct(PCT_FIRST), capp(h)),
        Choice::Basic => unreachable!("handled above"),
    }
}

/// Explores `session`'s test with the prioritization `choice` (see [`search`]).
pub fn explore(session: &mut Session, options: &Options, choice: Choice, change: Option<&ChangeModel>, pct_depth: u32, progress: &mut dyn FnMut(&Stats), cancel: &AtomicBool) -> Result<Report, String> {
    let invocations = session.invocations()?;
    if invocations.is_empty() {
        let mut search = search(options, choice, change, pct_depth);
        return explorer::explore(session, options, &mut search, progress, cancel);
    }
    crate::invocations::explore_each(session, &invocations, options, progress, cancel, &mut |session, options, progress| {
        let mut search = search(options, choice, change, pct_depth);
        explorer::explore(session, options, &mut search, progress, cancel)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_name_parses_and_nothing_else_does() {
        assert_eq!(Choice::parse("basic"), Ok(Choice::Basic));
        assert_eq!(Choice::parse("pair"), Ok(Choice::Pair));
        assert_eq!(Choice::parse("pct"), Ok(Choice::Pct));
        for h in HEURISTICS {
            assert!(matches!(Choice::parse(h), Ok(Choice::Capp(_))), "{h}");
            assert!(matches!(Choice::parse(&format!("pct+{h}")), Ok(Choice::PctThen(_))), "pct+{h}");
        }
        assert!(Choice::parse(DEFAULT).is_ok());
        assert!(Choice::parse("pct+pair").unwrap_err().contains("after `pct+`"));
        assert!(Choice::parse("LOX").unwrap_err().contains("unknown heuristic `LOX`"));
        assert!(!Choice::Basic.is_change_aware() && Choice::parse("pct+LA").unwrap().is_change_aware());
    }
}
