//! Which schedules to try first: the prioritizations by name (`--heuristic`, the editor's
//! `racelens.explore.heuristic`), and one entry point that runs an exploration with any of
//! them, so that the command line and the language server cannot drift apart.

use std::sync::atomic::AtomicBool;

use crate::capp::{CappPrioritizer, Heuristic, HEURISTICS};
use crate::change::ChangeModel;
use crate::directed::PairPrioritizer;
use crate::explorer::{self, Options, Report, Session, Stats};
use crate::search::Basic;

/// The prioritization used when none is named. Chosen from `cargo bench -p
/// racelens-explore --bench capp` over the CAPP benchmark faults (README, "Change-aware
/// exploration"): the fewest schedules to the first failure, summed over the faults.
pub const DEFAULT: &str = "LOS";

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
}

impl Choice {
    pub fn parse(name: &str) -> Result<Choice, String> {
        match name {
            "basic" => Ok(Choice::Basic),
            "pair" => Ok(Choice::Pair),
            "pct" => Ok(Choice::Pct),
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

/// What an exploration found, and how often the change steered it.
pub struct Outcome {
    pub report: Report,
    /// Decision points at which a thread was at an impacted point (CAPP and `pair`).
    pub matched: u64,
}

/// Explores `session`'s test with the prioritization `choice`; `change` is required for the
/// change-aware ones (without it they fall back to `basic`). `pct_depth` is PCT's `d`.
pub fn explore(
    session: &mut Session,
    options: &Options,
    choice: Choice,
    change: Option<&ChangeModel>,
    pct_depth: u32,
    progress: &mut dyn FnMut(&Stats),
    cancel: &AtomicBool,
) -> Result<Outcome, String> {
    let Some(model) = change.filter(|_| choice.is_change_aware()) else {
        let report = explorer::explore(session, options, &mut Basic, progress, cancel)?;
        return Ok(Outcome { report, matched: 0 });
    };
    match choice {
        Choice::Capp(h) => {
            let icps = model.icps.clone().with_callees(model.effect_callees.clone());
            let mut p = CappPrioritizer::new(Some(h), icps, model.site_map(), options.seed);
            let report = explorer::explore(session, options, &mut p, progress, cancel)?;
            Ok(Outcome { report, matched: p.stats.matched })
        }
        Choice::Pair => {
            let mut p = PairPrioritizer::new(model.pairs.clone(), model.site_map());
            let report = explorer::explore(session, options, &mut p, progress, cancel)?;
            Ok(Outcome { report, matched: p.matched })
        }
        Choice::Pct => {
            let report = explorer::explore_pct(session, options, pct_depth, &model.pct_sites, progress, cancel)?;
            Ok(Outcome { report, matched: 0 })
        }
        Choice::Basic => unreachable!("handled above"),
    }
}
