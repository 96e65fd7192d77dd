//! Which other schedules an execution calls for: dynamic partial-order reduction.
//!
//! Two steps of different threads *conflict* when they touch one variable and one of them
//! writes it (taking a lock counts as writing it; a timeout or an opaque JDK call conflicts
//! with everything; releasing a lock with nothing: the next acquirer was disabled until
//! it), except two commutative updates whose results no one reads ([`Access::Add`]: two
//! `incrementAndGet()`s with the value dropped), which end the same in either order and
//! tell no one the order: the thesis's value schedules do not tell them apart either.
//! Executions that order every pair of conflicting steps the same way are equivalent
//! (Mazurkiewicz traces): they read the same values, take the locks in the same order and
//! end the same way, so one of them stands for all. Plain iterative context bounding runs
//! them all; the reductions find, from each execution, only the schedules that reorder a
//! conflict:
//! - [`bpor`]: Bounded Partial-Order Reduction, for the tree that claims preemption
//!   bounds;
//! - [`source`]: Source-DPOR with sleep sets, for the tree that claims every schedule.

pub mod bpor;
pub mod source;

use std::collections::{HashMap, HashSet};

use crate::jvm::protocol::{Execution, ThreadId, Threads};
use crate::jvm::trace::{Access, Effect, Trace, Var};

/// Whether two steps of different threads conflict (the reduction's dependence relation).
pub fn conflicts(a: &[Effect], b: &[Effect]) -> bool {
    any_conflict(a, b, |x, y| x.var == y.var)
}

/// [`conflicts`] between steps of different executions (a sleep set kept from one run,
/// the steps of another): an object numbered by first use may be another object there, so
/// it stands for any object on the same slot.
pub fn conflicts_across_runs(a: &[Effect], b: &[Effect]) -> bool {
    any_conflict(a, b, |x, y| {
        x.var.slot == y.var.slot && (x.var.obj == y.var.obj || !x.var.is_named() || !y.var.is_named())
    })
}

fn any_conflict(a: &[Effect], b: &[Effect], same_var: impl Fn(&Effect, &Effect) -> bool) -> bool {
    a.iter().any(|x| {
        b.iter().any(|y| match (x.access, y.access) {
            (Access::Release, _) | (_, Access::Release) => false,
            (Access::Global, _) | (_, Access::Global) => true,
            (Access::Add, Access::Add) => false,
            _ => same_var(x, y) && (x.writes() || y.writes()),
        })
    })
}

/// A schedule an execution calls for: one of `threads` runs at the state before step
/// `step` (instead of the thread that ran step `step`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Backtrack {
    pub step: u32,
    /// BPOR: the thread to try (one bit). Source-DPOR: the initials of the reversing
    /// sequence, any one of which will do.
    pub threads: Threads,
    /// Added by BPOR's point (2), the last context switch before the race: tried even
    /// where a sleep set says it is covered.
    pub conservative: bool,
    /// One of the races that call for it has an impacted access on either side (the
    /// selection keeps it: ReConTest §IV, interleavings with an impacted access).
    pub impacted: bool,
}

/// Which steps of an execution are impacted accesses (by step index); `None`: no selection.
pub type ImpactedSteps<'a> = Option<&'a dyn Fn(u32) -> bool>;

/// The threads enabled before each step: at a decision, those the agent reported; at any
/// other step only the thread that ran it.
pub fn enabled_before(exec: &Execution, trace: &Trace) -> Vec<Threads> {
    let mut enabled: Vec<Threads> = trace.steps.iter().map(|s| Threads::single(s.thread)).collect();
    for d in exec.decisions.iter().filter(|d| d.waiters.is_none()) {
        if let Some(e) = enabled.get_mut(d.step as usize) {
            *e = d.enabled.clone();
        }
    }
    enabled
}

/// A fingerprint of the execution's equivalence class, equal for equivalent executions:
/// every step (thread, its number in that thread, its effects) with the steps it depends
/// on (the last write before a read; the last write and the reads since before a write),
/// summed so that the order of independent steps does not matter.
pub fn class_of(trace: &Trace) -> u64 {
    let limit = trace.steps.len();
    #[derive(Default)]
    struct VarState {
        last_write: Option<(ThreadId, u32)>,
        reads: Vec<(ThreadId, u32)>,
        /// Commutative updates since the last write: each read depends on all of them.
        adds: Vec<(ThreadId, u32)>,
    }
    let mut vars: HashMap<Var, VarState> = HashMap::new();
    let mut count: HashMap<ThreadId, u32> = HashMap::new();
    let mut last_global: Option<(ThreadId, u32)> = None;
    let mut all_since_global: HashSet<(ThreadId, u32)> = HashSet::new();
    let mut sum = 0u64;
    for k in 0..limit {
        let t = trace.steps[k].thread;
        let n = count.entry(t).or_default();
        *n += 1;
        let me = (t, *n);
        let mut preds: Vec<(ThreadId, u32)> = last_global.into_iter().collect();
        for e in trace.step_effects(k) {
            match e.access {
                Access::Release => {}
                Access::Global => preds.extend(all_since_global.iter().copied()),
                Access::Add => {
                    let s = vars.entry(e.var).or_default();
                    preds.extend(s.last_write);
                    preds.extend(s.reads.iter().copied());
                    s.adds.push(me);
                }
                _ => {
                    let s = vars.entry(e.var).or_default();
                    preds.extend(s.last_write);
                    preds.extend(s.adds.iter().copied());
                    if e.writes() {
                        preds.append(&mut s.reads);
                        s.adds.clear();
                        s.last_write = Some(me);
                    } else {
                        s.reads.push(me);
                    }
                }
            }
        }
        if trace.step_effects(k).iter().any(|e| e.access == Access::Global) {
            last_global = Some(me);
            all_since_global.clear();
        }
        all_since_global.insert(me);
        preds.retain(|p| p.0 != t);
        preds.sort();
        preds.dedup();
        sum = sum.wrapping_add(hash(&(me, trace.step_effects(k), &preds)));
    }
    sum
}

fn hash<T: std::hash::Hash>(t: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}
