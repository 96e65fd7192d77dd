//! Which schedules to try first: the prioritizations by name (`--heuristic`, the editor's
//! `racelens.explore.heuristic`) and the search each makes. The exploration that runs one
//! is `exploration::explore_test`, so that the command line and the language server cannot
//! drift apart.

use crate::search::capp::{CappPrioritizer, Heuristic, HEURISTICS};
use crate::search::change::ChangeModel;
use crate::search::directed::PairPrioritizer;
use crate::search::pct::Pct;
use crate::search::sampling::{Sampler, Sampling};
use crate::search::{Basic, Prioritizer, Search, Shape};

/// The prioritization used when none is named. Its order was chosen from `cargo bench -p
/// racelens-explore --bench capp -- --seeds 7` over the 14 faults of the CAPP benchmark
/// (server/docs/evaluation.md, "Change-aware exploration"): it found every fault, with the largest geometric-mean
/// reduction of schedules to the first failure over `basic` (3.15× in the default order,
/// 2.16× over the medians of 7 randomized orders, with the reduction of issue 9 in both),
/// and no fault more than 2× slower than `basic` (the PCT phase adds at most
/// [`PCT_FIRST`] schedules). CAPP's best alone, LA, reached 1.56×. From five threads on it
/// shares the runs with POS (`cargo bench -p racelens-explore --bench literature`).
pub const DEFAULT: &str = "pct+LA";

/// A prioritization, parsed from its name: the order of the systematic search, and the
/// random sampler that shares the runs with it (the portfolio, issue 22 item 5), if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub order: Order,
    pub sampling: Option<Sampling>,
}

/// The systematic search's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
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
    /// No systematic search: every run is the sampler's (`random`, `pos`), and nothing is
    /// claimed.
    Unordered,
}

/// Schedules of change-aware PCT before the systematic search of `pct+<heuristic>`. At most
/// this many schedules are added to the systematic search's count, so it is bounded by the
/// fewest schedules a fault needs: with 10 it stays within 2× of `basic` on every fault of
/// the benchmark, the fastest of which need 10 to 17 schedules.
pub const PCT_FIRST: u64 = 10;

impl Choice {
    /// `basic`, `pair`, `pct`, a CAPP heuristic, `pct+H`, each optionally followed by `+pos`
    /// or `+random` (the portfolio) or `+none`; or `pos` or `random` alone. `pct+H` shares
    /// its runs with POS unless told otherwise: it is the default, and the default must not
    /// be stuck in bound 0 on a test with many threads ([`crate::search::sampling`]).
    pub fn parse(name: &str) -> Result<Choice, String> {
        for sampling in [Sampling::Pos, Sampling::Walk] {
            if name == sampling.name() {
                return Ok(Choice { order: Order::Unordered, sampling: Some(sampling) });
            }
            if let Some(order) = name.strip_suffix(&format!("+{}", sampling.name())) {
                return Ok(Choice { order: Order::parse(order)?, sampling: Some(sampling) });
            }
        }
        if let Some(order) = name.strip_suffix("+none") {
            return Ok(Choice { order: Order::parse(order)?, sampling: None });
        }
        let order = Order::parse(name)?;
        let sampling = matches!(order, Order::PctThen(_)).then_some(Sampling::Pos);
        Ok(Choice { order, sampling })
    }

    /// Whether it needs the change (the analysis' impacted points and pairs).
    pub fn is_change_aware(self) -> bool {
        !matches!(self.order, Order::Basic | Order::Unordered)
    }
}

impl Order {
    fn parse(name: &str) -> Result<Order, String> {
        match name {
            "basic" => Ok(Order::Basic),
            "pair" => Ok(Order::Pair),
            "pct" => Ok(Order::Pct),
            other if other.starts_with("pct+") => Heuristic::parse(&other[4..])
                .map(Order::PctThen)
                .ok_or_else(|| format!("unknown heuristic `{other}`: after `pct+` comes one of CAPP's {}", HEURISTICS.join(" "))),
            other => Heuristic::parse(other)
                .map(Order::Capp)
                .ok_or_else(|| format!("unknown heuristic `{other}`: basic, pair, pct, pos, random, or one of CAPP's {}, optionally followed by +pos, +random or +none", HEURISTICS.join(" "))),
        }
    }
}

/// The search for `choice`: the prioritization it names over the systematic search of
/// `options` (change-aware PCT first for `pct` and `pct+H`), with its sampler. `change` is
/// required for the change-aware orders; without it they fall back to `basic`. `pct_depth`
/// is PCT's `d`.
pub fn search(options: &Shape, choice: Choice, change: Option<&ChangeModel>, pct_depth: u32) -> Search {
    let ordered = ordered_search(options, choice.order, change, pct_depth).in_part(options.part);
    match choice.sampling {
        Some(sampling) => ordered.with_sampler(Sampler::new(sampling, options.part.seed(options.seed))),
        None => ordered,
    }
}

fn ordered_search(options: &Shape, order: Order, change: Option<&ChangeModel>, pct_depth: u32) -> Search {
    let tree = || Some((options.strategy, options.seed, options.select));
    if order == Order::Unordered {
        return Search::new(None, None, Box::new(Basic));
    }
    let Some(model) = change.filter(|_| order != Order::Basic) else {
        return Search::new(tree(), None, Box::new(Basic));
    };
    // With nothing impacted a change-aware order has nothing to put first, and postponing
    // every alternative only reorders the search for the worse: the systematic search is
    // `basic`'s. PCT still runs, its change points anywhere (a spin loop that the default
    // schedule never leaves is left by one of them).
    let capp = |h: Heuristic| -> Box<dyn Prioritizer> {
        if model.is_empty() {
            return Box::new(Basic);
        }
        let icps = model.icps.clone().with_callees(model.effect_callees.clone());
        Box::new(CappPrioritizer::new(Some(h), icps, model.site_map(), options.seed))
    };
    let pct = |runs: u64| Some(Pct::new(pct_depth, model.pct_sites.clone(), runs, options.part.seed(options.seed)));
    match order {
        Order::Capp(h) => Search::new(tree(), None, capp(h)),
        Order::Pair => Search::new(tree(), None, Box::new(PairPrioritizer::new(model.pairs.clone(), model.site_map()))),
        // PCT alone: random schedules while the budget lasts, no systematic part.
        Order::Pct => Search::new(None, pct(u64::MAX), Box::new(Basic)),
        Order::PctThen(h) => Search::new(tree(), pct(PCT_FIRST), capp(h)),
        Order::Basic | Order::Unordered => unreachable!("handled above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_name_parses_and_nothing_else_does() {
        let order = |name: &str| Choice::parse(name).map(|c| c.order);
        assert_eq!(order("basic"), Ok(Order::Basic));
        assert_eq!(order("pair"), Ok(Order::Pair));
        assert_eq!(order("pct"), Ok(Order::Pct));
        for h in HEURISTICS {
            assert!(matches!(order(h), Ok(Order::Capp(_))), "{h}");
            assert!(matches!(order(&format!("pct+{h}")), Ok(Order::PctThen(_))), "pct+{h}");
        }
        assert!(Choice::parse(DEFAULT).is_ok());
        assert!(Choice::parse("pct+pair").unwrap_err().contains("after `pct+`"));
        assert!(Choice::parse("LOX").unwrap_err().contains("unknown heuristic `LOX`"));
        assert!(
            !Choice::parse("basic").unwrap().is_change_aware() && Choice::parse("pct+LA").unwrap().is_change_aware()
        );
        assert_eq!(Choice::parse("pos"), Ok(Choice { order: Order::Unordered, sampling: Some(Sampling::Pos) }));
        assert_eq!(Choice::parse("random"), Ok(Choice { order: Order::Unordered, sampling: Some(Sampling::Walk) }));
        assert_eq!(Choice::parse("pct+LA+pos").map(|c| c.sampling), Ok(Some(Sampling::Pos)));
        assert_eq!(Choice::parse("pct+LA"), Choice::parse("pct+LA+pos"));
        assert_eq!(Choice::parse("pct+LA+none").map(|c| c.sampling), Ok(None));
        assert_eq!(Choice::parse("LA").map(|c| c.sampling), Ok(None));
        assert_eq!(
            Choice::parse("basic+random").map(|c| (c.order, c.sampling)),
            Ok((Order::Basic, Some(Sampling::Walk)))
        );
        assert!(Choice::parse("pos+pos").is_err() && !Choice::parse("pos").unwrap().is_change_aware());
    }
}
