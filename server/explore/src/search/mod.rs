//! Which schedules to run, and in what order.
//!
//! Reduction decides *which* schedules are worth running, prioritization decides *when*:
//! - [`tree`] and [`dpor`]: the schedules explored so far and still to run, with bounded
//!   partial-order reduction and sleep sets, by increasing preemption count;
//! - [`capp`], [`directed`], [`change`]: the change-aware prioritizations and the change
//!   as they see it; [`heuristics`]: choosing one by name; [`pct`]: change-aware random
//!   schedules tried before the systematic search;
//! - [`simplify`]: fewer preemptions in a failing schedule found at random.
//!
//! [`Search`] is what the exploration loop ([`crate::explorer`]) drives: it asks for the
//! next run, runs it, and hands the execution back.

pub mod capp;
pub mod change;
pub mod directed;
pub mod dpor;
pub mod heuristics;
pub mod part;
pub mod pct;
pub mod rng;
pub mod sampling;
pub mod simplify;
pub mod tree;

#[cfg(test)]
mod sim;

use crate::jvm::protocol::{Execution, Known, ThreadId};
use crate::jvm::Mode;
use part::Part;
use pct::Pct;
use sampling::Sampler;
use tree::{Branch, Config, Tree};

/// Decides which alternatives of a decision point run in the current iteration and which
/// are postponed (CAPP's `partitionPrioritized`; the change-unaware search runs them all
/// now).
pub trait Prioritizer {
    /// `alternatives` are the other threads at decision `index` of `exec`. Returns the ones
    /// to explore first, best last, and the ones postponed.
    fn partition(
        &mut self,
        exec: &Execution,
        index: usize,
        alternatives: Vec<ThreadId>,
        known: Known,
    ) -> (Vec<ThreadId>, Vec<ThreadId>);

    /// Options for the agent's `RUN` request (`stacks` when the prioritizer needs them).
    fn run_options(&self) -> Vec<String> {
        Vec::new()
    }

    /// Decision points at which a thread was at impacted code (for reports).
    fn matched(&self) -> u64 {
        0
    }

    /// Whether the operation at `site` is impacted by the change (an impacted line or
    /// field): the selection keeps the reversals of races with such an access.
    fn impacted_site(&self, _site: u32, _known: Known) -> bool {
        false
    }
}

/// No prioritization: `basic`.
pub struct Basic;

impl Prioritizer for Basic {
    fn partition(
        &mut self,
        _: &Execution,
        _: usize,
        alternatives: Vec<ThreadId>,
        _: Known,
    ) -> (Vec<ThreadId>, Vec<ThreadId>) {
        (alternatives, Vec::new())
    }
}

/// What shapes a systematic search (of the exploration's options): its strategy, the seed
/// that randomizes the order of alternatives, and whether it drops what the prioritization
/// postpones (selection).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub strategy: Strategy,
    pub seed: Option<u64>,
    pub select: bool,
    /// The part of the test's schedules to explore ([`part`]; usually the whole).
    pub part: Part,
}

/// The shape of the systematic search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Iterative context bounding: every schedule of bound 0, then 1, ..., up to
    /// `max_bound` (`None`: as far as the budget goes).
    Icb { max_bound: Option<u32> },
    /// Depth-first over all schedules, unbounded.
    Dfs,
}

/// One execution to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub choices: Vec<ThreadId>,
    pub mode: Mode,
    pub options: Vec<String>,
    pub kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A schedule of the systematic search, and which of its trees asked for it.
    Branch { branch: Branch, bounded: bool },
    /// A random schedule of change-aware PCT.
    Pct,
    /// A random schedule of the portfolio's sampler ([`sampling`]).
    Sample,
}

impl Request {
    pub fn is_systematic(&self) -> bool {
        matches!(self.kind, Kind::Branch { .. })
    }
}

/// Systematic runs in which the two trees strictly take turns.
const ALTERNATE_FIRST: u64 = 64;

/// After those, one turn in this many goes to the tree with more branches waiting. Each
/// run of one tree is also taken in by the bounded tree, so the fewer the turns spent on
/// the far tree the better: on the CAPP bench's correct versions one in 64 reached every
/// claim in fewer runs than one in 16 or one in 8 (all 14 at bound 2, 13 of 14 at bound 3).
const OTHER_TREE_EVERY: u64 = 64;

/// A search: optionally a few change-aware PCT schedules, then the systematic search.
///
/// The systematic search keeps two trees ([`tree`] says why): an exhaustive one (DPOR with
/// sleep sets: when it runs out, every schedule is covered) and, under iterative context
/// bounding, a bounded one (BPOR: complete bounds). They take turns, each running its
/// cheapest branches first, the one with fewer branches waiting more often; the bounded
/// tree also learns from the exhaustive one's runs. The
/// search ends when either has made its claim: the exhaustive tree has nothing left, or
/// the bounded one has nothing left up to its largest bound.
pub struct Search {
    exhaustive: Option<Tree>,
    bounded: Option<Tree>,
    pct: Option<Pct>,
    /// The portfolio's random sampler: some runs alongside the systematic search, or every
    /// run without one.
    sampler: Option<Sampler>,
    /// Runs handed out, and the most threads an execution had (the sampler's share).
    runs: u64,
    threads: usize,
    prioritizer: Box<dyn Prioritizer>,
    /// Distinct equivalence classes among the runs.
    classes: std::collections::HashSet<u64>,
    /// Which tree's branch ran last, and how many turns were taken.
    last_bounded: bool,
    turns: u64,
    /// The preemption count of the last systematic schedule handed out.
    pub bound: u32,
    /// The part of the schedules the trees explore.
    part: Part,
}

/// What a search has covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Claim {
    /// Every schedule is equivalent to one that ran.
    pub exhausted: bool,
    /// Every schedule with at most this many preemptions is equivalent to one that ran.
    pub complete_bound: Option<u32>,
    /// The bound being explored when the search stopped: the runs made at it and the
    /// branches known to be waiting there.
    pub open: Option<(u32, u64, u64)>,
    /// Distinct equivalence classes among the runs (Mazurkiewicz traces).
    pub classes: u64,
    /// Runs whose tail was covered elsewhere.
    pub redundant: u64,
    /// Schedules beyond the largest bound asked for.
    pub deferred: u64,
    /// Schedules the selection left out.
    pub skipped: u64,
    /// What the claim is about: the whole space of schedules, or one part of it.
    pub part: Part,
}

impl Search {
    /// `pct` first (its own budget), then the systematic search of `strategy` if any.
    pub fn new(
        strategy: Option<(Strategy, Option<u64>, bool)>,
        pct: Option<Pct>,
        prioritizer: Box<dyn Prioritizer>,
    ) -> Search {
        let (exhaustive, bounded) = match strategy {
            None => (None, None),
            Some((Strategy::Dfs, seed, select)) => (Some(Tree::new(Config::exhaustive(false, select), seed)), None),
            Some((Strategy::Icb { max_bound }, seed, select)) => (
                Some(Tree::new(Config::exhaustive(true, select), seed)),
                Some(Tree::new(Config::bounded(max_bound, select), seed)),
            ),
        };
        Search {
            exhaustive,
            bounded,
            pct,
            sampler: None,
            runs: 0,
            threads: 0,
            prioritizer,
            classes: Default::default(),
            last_bounded: true,
            turns: 0,
            bound: 0,
            part: Part::WHOLE,
        }
    }

    /// The search of `part` of the schedules ([`part`]): the bounded tree deals the first
    /// run's branches among the parts; the exhaustive tree stays whole in every part.
    /// Without a bounded tree (`--search dfs`, or no systematic search) nothing is split:
    /// the part explores as the whole does, and its claim is said as the part's.
    pub fn in_part(mut self, part: Part) -> Search {
        self.bounded = self.bounded.map(|t| t.in_part(part));
        self.part = part;
        self
    }

    /// Whether the trees leave out what the prioritization postpones.
    fn selects(&self) -> bool {
        self.exhaustive.as_ref().or(self.bounded.as_ref()).is_some_and(|t| t.config().select)
    }

    /// The portfolio: `sampler` takes a share of the runs ([`sampling::sample_every`]), or all
    /// of them when there is no systematic search.
    pub fn with_sampler(mut self, sampler: Sampler) -> Search {
        self.sampler = Some(sampler);
        self
    }

    /// The next execution to run; `None` when the search is over.
    pub fn next(&mut self) -> Option<Request> {
        if self.is_over() && self.pct.as_ref().is_none_or(|p| !p.has_next()) {
            return None;
        }
        self.runs += 1;
        let systematic = self.is_systematic();
        if let Some(s) = &mut self.sampler {
            if !systematic || sampling::takes_turn(self.runs, self.threads) {
                return Some(s.next());
            }
        }
        if let Some(p) = &mut self.pct {
            if let Some(req) = p.next() {
                return Some(req);
            }
        }
        if self.is_over() {
            return None;
        }
        let waiting = |t: &Option<Tree>| t.as_ref().filter(|t| t.has_next()).map(Tree::waiting);
        let use_bounded = match (waiting(&self.exhaustive), waiting(&self.bounded)) {
            (None, None) => return None,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            // Early on they alternate: most failures turn up within a few dozen runs, and
            // which tree finds one first is anybody's guess. Then the tree with fewer
            // branches waiting, likely the nearer to its claim, runs; one turn in
            // OTHER_TREE_EVERY goes to the other one, so that neither starves.
            (Some(e), Some(b)) => {
                self.turns += 1;
                if self.turns <= ALTERNATE_FIRST || self.turns % OTHER_TREE_EVERY == 0 {
                    !self.last_bounded
                } else {
                    b <= e
                }
            }
        };
        self.last_bounded = use_bounded;
        let tree = if use_bounded { self.bounded.as_mut() } else { self.exhaustive.as_mut() }.expect("it has a branch");
        let branch = tree.next()?;
        self.bound = tree.cost(branch);
        let mut options = self.prioritizer.run_options();
        options.push("trace".into());
        if tree.config().select {
            // The selection needs every step's site: which races have an impacted access.
            options.push("stepsites".into());
        }
        options.extend(tree.sleep_option(branch));
        Some(Request {
            choices: tree.choices(branch),
            mode: Mode::Fast,
            options,
            kind: Kind::Branch { branch, bounded: use_bounded },
        })
    }

    /// Whether a claim is made: the exhaustive tree has nothing left, or the bounded one
    /// nothing up to its largest bound.
    ///
    /// Under selection a tree that has nothing left but left schedules out claims nothing:
    /// the search goes on until neither tree has a selected schedule left (the two select
    /// differently: the exhaustive tree's reduction never reverses a race that starts at
    /// code the selection leaves out). An exhaustive tree that left nothing out has run
    /// every class of schedules: then a selection costs no more than exploring everything.
    fn is_over(&self) -> bool {
        let done = |t: &Option<Tree>| t.as_ref().is_none_or(|t| !t.has_next());
        if self.selects() {
            self.exhaustive.as_ref().is_some_and(Tree::ran_everything)
                || (done(&self.exhaustive) && done(&self.bounded))
        } else {
            (self.exhaustive.is_some() && done(&self.exhaustive)) || (self.bounded.is_some() && done(&self.bounded))
        }
    }

    /// What `req`'s execution adds to the search. Fails when the test turned out not to
    /// be deterministic.
    pub fn record(&mut self, req: &Request, exec: &Execution, known: Known) -> Result<(), String> {
        self.threads = self.threads.max(exec.threads.len());
        let Kind::Branch { branch, bounded } = req.kind else {
            if let (Kind::Pct, Some(p)) = (req.kind, &mut self.pct) {
                p.record(exec, known);
            }
            return Ok(());
        };
        if let Some(trace) = &exec.trace {
            self.classes.insert(dpor::class_of(trace));
        }
        // Under selection: which steps are impacted accesses (by their sites), and then, per
        // step, whether its thread makes an impacted access from that step on. A race is
        // selected when reversing it moves such a thread's impacted access against the
        // other thread: a new interleaving of an impacted access (ReConTest §IV), reached as
        // DPOR reaches any reordering, through the races before it.
        let impacted_steps: Vec<bool> = match &exec.trace {
            Some(t) if self.selects() => {
                let mut by_site: std::collections::HashMap<u32, bool> = std::collections::HashMap::new();
                let here: Vec<bool> = (0..t.steps.len())
                    .map(|k| {
                        t.site_of(k).is_some_and(|s| {
                            *by_site.entry(s).or_insert_with(|| self.prioritizer.impacted_site(s, known))
                        })
                    })
                    .collect();
                let mut later: std::collections::HashMap<ThreadId, bool> = std::collections::HashMap::new();
                let mut from = vec![false; here.len()];
                for k in (0..here.len()).rev() {
                    let seen = later.entry(t.steps[k].thread).or_insert(false);
                    *seen |= here[k];
                    from[k] = *seen;
                }
                from
            }
            _ => Vec::new(),
        };
        let is_impacted = |k: u32| impacted_steps.get(k as usize).copied().unwrap_or(false);
        let impacted: dpor::ImpactedSteps =
            (!impacted_steps.is_empty()).then_some(&is_impacted as &dyn Fn(u32) -> bool);
        // Each decision point's prioritization, asked once whichever tree needs it.
        let prioritizer = &mut self.prioritizer;
        let mut memo: std::collections::HashMap<usize, tree::Ranks> = std::collections::HashMap::new();
        let mut ranks = |d: usize| -> tree::Ranks {
            memo.entry(d)
                .or_insert_with(|| {
                    let alternatives: Vec<ThreadId> = exec.decisions[d].alternatives().collect();
                    let (now, later) = prioritizer.partition(exec, d, alternatives, known);
                    // The partition lists the best last.
                    let n = now.len() as u32;
                    now.iter()
                        .enumerate()
                        .map(|(i, &t)| (t, Some(n - 1 - i as u32)))
                        .chain(later.into_iter().map(|t| (t, None)))
                        .collect()
                })
                .clone()
        };
        if bounded {
            self.bounded.as_mut().expect("the tree that asked").record(branch, exec, &mut ranks, impacted)?;
            return Ok(());
        }
        self.exhaustive.as_mut().expect("the tree that asked").record(branch, exec, &mut ranks, impacted)?;
        // Only the bounded tree takes in the other's runs. Source-DPOR's sleep sets follow
        // the order in which the exhaustive tree explores; a foreign run entered there as a
        // branch is usually equivalent to one it explored or will, and the races it adds
        // are explored again (4 to 13 times the runs on the bench's correct versions).
        if let Some(t) = &mut self.bounded {
            t.adopt(exec, &mut ranks, impacted)?;
        }
        Ok(())
    }

    /// What the systematic search covers (nothing without one).
    pub fn claim(&self) -> Claim {
        let e = self.exhaustive.as_ref().map(Tree::coverage).unwrap_or_default();
        let b = self.bounded.as_ref().map(Tree::coverage);
        let bounded = b.unwrap_or_default();
        // A part's bounded tree claims its share ([`part`]): a share with nothing left has
        // every bound asked for complete; only the exhaustive tree, whole in every part,
        // claims every schedule of the test.
        let (exhausted, complete_bound) = match self.part.is_whole() {
            true => {
                let exhausted = e.exhausted || bounded.exhausted;
                (exhausted, if exhausted { None } else { bounded.complete_bound })
            }
            false => {
                let bound = match bounded.exhausted {
                    true => Some(self.bounded.as_ref().and_then(|t| t.config().max_bound).unwrap_or(u32::MAX)),
                    false => bounded.complete_bound,
                };
                (e.exhausted, if e.exhausted { None } else { bound })
            }
        };
        Claim {
            exhausted,
            complete_bound,
            open: if exhausted { None } else { b.map_or(e.open, |b| b.open) },
            classes: self.classes.len() as u64,
            redundant: e.redundant,
            deferred: bounded.deferred,
            skipped: bounded.skipped.max(e.skipped),
            part: self.part,
        }
    }

    /// Whether the systematic search ran: only it can claim coverage.
    pub fn is_systematic(&self) -> bool {
        self.exhaustive.is_some() || self.bounded.is_some()
    }

    pub fn matched(&self) -> u64 {
        self.prioritizer.matched()
    }
}
