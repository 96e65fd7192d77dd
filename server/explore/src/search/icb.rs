//! Stateless search over schedules: iterative context bounding (CHESS; CAPP's ReEx uses
//! it as the change-unaware baseline, section 4.1) and plain depth-first search.
//!
//! A schedule is the list of choices at the first decision points of an execution; past
//! its end the default rule applies (keep the current thread, else the lowest-numbered
//! enabled one). Each execution's trace shows the alternatives at every decision point it
//! passed on its own (beyond its prefix); each alternative is a new schedule: the prefix up
//! to that point, then the alternative. Every schedule is generated once (a tree).
//!
//! ICB explores every schedule with 0 preemptions, then 1, up to the bound; a preemption is
//! running another thread at a point where the current one could have continued. Within a
//! bound the order is depth-first; with a seed, the schedules branching off each execution
//! are shuffled (the randomized orders of CAPP section 4.6).

use std::collections::HashMap;

use crate::jvm::protocol::{Execution, Frame, Site, ThreadId};

/// What the agent announced so far: sites and stacks by id.
#[derive(Clone, Copy)]
pub struct Known<'a> {
    pub sites: &'a HashMap<u32, Site>,
    pub stacks: &'a HashMap<u32, Vec<Frame>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Iterative context bounding with this preemption bound.
    Icb { bound: u32 },
    /// Depth-first over all schedules, unbounded.
    Dfs,
}

/// A schedule to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub choices: Vec<ThreadId>,
    pub preemptions: u32,
}

/// Decides which alternatives of a decision point are explored now and which later (CAPP's
/// `partitionPrioritized`; the change-unaware search explores them all now).
pub trait Prioritizer {
    /// `alternatives` are the other threads at decision `index` of `exec`. Returns the ones
    /// to explore in the current iteration; the others are postponed to the next.
    fn partition(&mut self, exec: &Execution, index: usize, alternatives: Vec<ThreadId>, known: Known) -> (Vec<ThreadId>, Vec<ThreadId>);

    /// Options for the agent's `RUN` request (`stacks` when the prioritizer needs them).
    fn run_options(&self) -> Vec<String> {
        Vec::new()
    }
}

/// No prioritization: `basic`.
pub struct Basic;

impl Prioritizer for Basic {
    fn partition(&mut self, _: &Execution, _: usize, alternatives: Vec<ThreadId>, _: Known) -> (Vec<ThreadId>, Vec<ThreadId>) {
        (alternatives, Vec::new())
    }
}

pub struct Search {
    strategy: Strategy,
    /// Pending schedules per preemption count (ICB) or one stack (DFS).
    levels: Vec<Vec<Schedule>>,
    /// Schedules postponed by the prioritizer to the next iteration.
    postponed: Vec<Schedule>,
    rng: Option<XorShift>,
    /// Schedules that were beyond the bound.
    pub pruned: u64,
    started: bool,
}

impl Search {
    pub fn new(strategy: Strategy, seed: Option<u64>) -> Search {
        Search { strategy, levels: vec![Vec::new()], postponed: Vec::new(), rng: seed.map(XorShift::new), pruned: 0, started: false }
    }

    /// The next schedule to run; `None` when the search space (within the bound) is done.
    pub fn next(&mut self) -> Option<Schedule> {
        if !self.started {
            self.started = true;
            return Some(Schedule { choices: Vec::new(), preemptions: 0 });
        }
        loop {
            for level in self.levels.iter_mut() {
                if let Some(s) = level.pop() {
                    return Some(s);
                }
            }
            // The current iteration is exhausted: move to what was postponed (CAPP's
            // `toExplore = nextToExplore`).
            if self.postponed.is_empty() {
                return None;
            }
            let next = std::mem::take(&mut self.postponed);
            for s in next.into_iter().rev() {
                self.push(s);
            }
        }
    }

    /// Whether the current iteration still has schedules to run.
    pub fn has_current(&self) -> bool {
        !self.started || self.levels.iter().any(|l| !l.is_empty())
    }

    /// Whether anything was postponed for a later iteration.
    pub fn has_postponed(&self) -> bool {
        !self.postponed.is_empty()
    }

    /// How many schedules were postponed and not explored (for selection mode).
    pub fn postponed_count(&self) -> usize {
        self.postponed.len()
    }

    /// Drops every postponed schedule (selection: only the prioritized iteration).
    pub fn drop_postponed(&mut self) -> usize {
        std::mem::take(&mut self.postponed).len()
    }

    fn push(&mut self, s: Schedule) {
        let level = match self.strategy {
            Strategy::Icb { bound } => {
                if s.preemptions > bound {
                    self.pruned += 1;
                    return;
                }
                s.preemptions as usize
            }
            Strategy::Dfs => 0,
        };
        while self.levels.len() <= level {
            self.levels.push(Vec::new());
        }
        self.levels[level].push(s);
    }

    /// Adds the schedules branching off `exec`, which ran `schedule`.
    pub fn expand(&mut self, schedule: &Schedule, exec: &Execution, prioritizer: &mut dyn Prioritizer, known: Known) {
        let from = schedule.choices.len();
        let (mut now_all, mut later_all) = (Vec::new(), Vec::new());
        // Preemptions of the execution up to each decision point.
        let mut preemptions = 0;
        for (i, d) in exec.decisions.iter().enumerate() {
            if i >= from {
                let mut alternatives: Vec<ThreadId> = d.alternatives().collect();
                if self.rng.is_none() {
                    // Depth-first pops the last pushed first: push in reverse so that lower
                    // thread numbers are explored first.
                    alternatives.reverse();
                }
                let (now, later) = prioritizer.partition(exec, i, alternatives, known);
                let prefix: Vec<ThreadId> = exec.decisions[..i].iter().map(|d| d.thread).collect();
                let make = |t: ThreadId| {
                    let mut choices = prefix.clone();
                    choices.push(t);
                    Schedule { choices, preemptions: preemptions + u32::from(d.preempts(t)) }
                };
                now_all.extend(now.into_iter().map(make));
                later_all.extend(later.into_iter().map(make));
            }
            preemptions += u32::from(d.preempts(d.thread));
        }
        // With a seed, which decision point branches first and which thread it branches to
        // are both random (CAPP section 4.6's randomized orders); the prioritization's split
        // into this iteration and the next is kept.
        if let Some(rng) = &mut self.rng {
            rng.shuffle(&mut now_all);
            rng.shuffle(&mut later_all);
        }
        for s in now_all {
            self.push(s);
        }
        for s in later_all {
            if matches!(self.strategy, Strategy::Icb { bound } if s.preemptions > bound) {
                self.pruned += 1;
            } else {
                self.postponed.push(s);
            }
        }
    }
}

/// A small, seeded, reproducible random number generator (xorshift64*).
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545F4914F6CDD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvm::protocol::{Decision, Outcome};

    /// A fake program: two threads, each with `n` steps; every step is a decision point
    /// while both are alive. Returns the trace the agent would send for `choices`.
    fn simulate(n: u32, choices: &[ThreadId]) -> Execution {
        let mut left = [n, n];
        let mut current: Option<ThreadId> = None;
        let mut decisions = Vec::new();
        let mut step = 0;
        while left[0] + left[1] > 0 {
            let enabled: u64 = (0..2).filter(|&t| left[t] > 0).fold(0, |m, t| m | 1 << t);
            let runner = if enabled.count_ones() == 2 {
                let k = decisions.len();
                let t = choices.get(k).copied().unwrap_or_else(|| match current {
                    Some(c) if enabled & (1 << c) != 0 => c,
                    _ => enabled.trailing_zeros() as u8,
                });
                decisions.push(Decision { step, thread: t, site: 0, enabled, waiters: None, current, pending: vec![] });
                t
            } else {
                enabled.trailing_zeros() as u8
            };
            left[runner as usize] -= 1;
            current = Some(runner);
            step += 1;
        }
        Execution { run: 0, outcome: Outcome::Pass, steps: step, decisions, events: vec![], switches: vec![], threads: Default::default(), millis: 0 }
    }

    fn all(strategy: Strategy, seed: Option<u64>) -> Vec<(Vec<ThreadId>, u32)> {
        let mut search = Search::new(strategy, seed);
        let mut out = Vec::new();
        while let Some(s) = search.next() {
            let exec = simulate(2, &s.choices);
            let order: Vec<ThreadId> = exec.decisions.iter().map(|d| d.thread).collect();
            out.push((order, s.preemptions));
            let (sites, stacks) = (HashMap::new(), HashMap::new());
            search.expand(&s, &exec, &mut Basic, Known { sites: &sites, stacks: &stacks });
        }
        out
    }

    #[test]
    fn icb_explores_in_order_of_preemptions_and_respects_the_bound() {
        let runs = all(Strategy::Icb { bound: 1 }, None);
        let counts: Vec<u32> = runs.iter().map(|(_, p)| *p).collect();
        assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{runs:?}");
        // Two threads of two steps: 0 preemptions: run T0 then T1 (the default order, and
        // T1 first as a non-preempting first choice); 1 preemption: two more.
        assert_eq!(counts.iter().filter(|&&p| p == 0).count(), 2, "{runs:?}");
        assert!(counts.iter().all(|&p| p <= 1));
        let unbounded = all(Strategy::Dfs, None);
        // All interleavings of two threads of two steps: C(4, 2) = 6.
        assert_eq!(unbounded.len(), 6, "{unbounded:?}");
        let mut distinct: Vec<_> = unbounded.iter().map(|(o, _)| o.clone()).collect();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 6);
    }

    #[test]
    fn a_seed_changes_the_order_but_not_the_set() {
        let a: Vec<_> = all(Strategy::Dfs, Some(1)).into_iter().map(|(o, _)| o).collect();
        let b: Vec<_> = all(Strategy::Dfs, Some(2)).into_iter().map(|(o, _)| o).collect();
        assert_eq!(a, all(Strategy::Dfs, Some(1)).into_iter().map(|(o, _)| o).collect::<Vec<_>>(), "deterministic per seed");
        let (mut sa, mut sb) = (a.clone(), b.clone());
        sa.sort();
        sb.sort();
        assert_eq!(sa, sb);
    }
}
