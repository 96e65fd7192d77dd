//! Futile waits: an iteration of a wait loop that only read and went back to waiting is
//! not told apart from not having run (issue 22, item 3: "a thread that waits is not a
//! choice").
//!
//! `while (count == 0) wait();` makes every producer/consumer test a tree of failed
//! checks: a consumer that entered the monitor, found it empty and waited, and one that
//! came later, are two classes for the happens-before equivalence, and each failed check
//! races with the write that would have let it pass. Stateless model checkers turn such
//! loops into `assume`s, a loop that exits at its first iteration or blocks (the spin-assume
//! transformation; Kokologiannakis, Marmanis and Vafeiadis, "Unblocking Dynamic Partial Order
//! Reduction", CAV 2023, avoid the blocked executions it leaves for await loops); the
//! value-schedule thesis (§5.3) reaches the same end by counting only the reads whose value
//! decides what happens next. Here, the same idea on the traces the agent reports:
//!
//! An iteration of thread `T` is *futile* when
//! 1. it runs from taking a lock `L` (entering the monitor, or re-taking it after a
//!    wake-up) to a `wait`/`await` that releases `L`, and in between only reads;
//! 2. `T` was woken by another thread's `notifyAll`/`signalAll` (a step that writes the
//!    wait set and `T`'s wait state), not by a timeout or an interrupt, and no `notify`
//!    chose among waiters that included `T` while it waited (where `T`'s presence in the
//!    wait set changed who a single `notify` could wake, it is not futile);
//! 3. under a preemption bound, also: the iteration ran without a switch in its middle,
//!    and `T` did not reach it by a preemption (so the run without it costs no more).
//!
//! Such an iteration changed nothing another thread can see and ends where it began: `T`
//! back before the check, wanting `L`. So:
//! - its lock, wait-set and wait-state effects are left out of the analysis
//!   ([`Futile::erased`]): critical sections before and after it race with each other as
//!   if it had not run, and a `notifyAll` does not race with it;
//! - its reads still race with the writes *before* them (reversing such a race lets the
//!   check pass: another schedule);
//! - a write *after* one of its reads need not be reversed when it was made in the
//!   critical section that woke `T` ([`Futile::needs_reversal`]): the reversal would have
//!   `T` check right after that critical section, which is the schedule in which `T`,
//!   woken by it, re-takes `L` first, a branch of this very execution. A write elsewhere
//!   (one that did not wake `T`) is reversed as before.
//!
//! Sleep sets and the class fingerprint keep the full effects: they can only wake a
//! sleeping thread sooner, never later. The property test in [`crate::search::sim`] runs
//! programs with wait loops and `notifyAll` against the unreduced search.

use std::borrow::Cow;
use std::ops::RangeInclusive;

use crate::jvm::protocol::{Execution, ThreadId, Threads};
use crate::jvm::trace::{slot, Access, Effect, StepRec, Trace, Var};

/// The futile iterations of one execution.
#[derive(Debug, Default)]
pub struct Futile {
    /// Per step: the futile iteration it belongs to.
    iteration_of: Vec<Option<u32>>,
    iterations: Vec<Iteration>,
}

#[derive(Debug)]
struct Iteration {
    steps: RangeInclusive<usize>,
    /// The waker's thread and its critical section around the wake-up (step indices).
    waker: ThreadId,
    waking: RangeInclusive<usize>,
}

impl Futile {
    /// The futile iterations of `exec`. `enabled`: the threads enabled before each step,
    /// when a preemption bound is in force (condition 3); `None` for the unbounded tree.
    pub fn find(exec: &Execution, trace: &Trace, enabled: Option<&[Threads]>) -> Futile {
        // Most executions wait for nothing: no wait set, no futile check, nothing to allocate.
        if !trace.effects.iter().any(|e| e.var.slot == slot::WAITSET) {
            return Futile::default();
        }
        let mut out = Futile { iteration_of: vec![None; trace.steps.len()], iterations: Vec::new() };
        let threads = trace.steps.iter().map(|s| s.thread as usize + 1).max().unwrap_or(0);
        let mut steps_of: Vec<Vec<usize>> = vec![Vec::new(); threads];
        for (k, s) in trace.steps.iter().enumerate() {
            steps_of[s.thread as usize].push(k);
        }
        for (t, mine) in steps_of.iter().enumerate() {
            let t = t as ThreadId;
            let mut start: Option<(usize, Var)> = None;
            for (n, &k) in mine.iter().enumerate() {
                let effects = trace.step_effects(k);
                if let Some(lock) = takes_lock(effects, t) {
                    start = Some((n, lock));
                    continue;
                }
                let Some((first, lock)) = start else { continue };
                if effects.iter().all(|e| e.access == Access::Read) {
                    continue;
                }
                start = None;
                let Some(set) = waits(effects, t, lock) else { continue };
                let Some(&woken) = mine.get(n + 1) else { continue };
                let steps = mine[first]..=k;
                let Some((waker, waking)) = woken_by_all(exec, trace, t, set, lock, k, woken) else { continue };
                if enabled.is_some_and(|en| !without_preemption(trace, en, &mine[first..=n])) {
                    continue;
                }
                let id = out.iterations.len() as u32;
                for &s in &mine[first..=n] {
                    out.iteration_of[s] = Some(id);
                }
                out.iterations.push(Iteration { steps, waker, waking });
            }
        }
        out
    }

    /// Whether step `k` is part of a futile iteration.
    pub fn in_iteration(&self, k: usize) -> bool {
        self.iteration_of.get(k).is_some_and(Option::is_some)
    }

    pub fn is_empty(&self) -> bool {
        self.iterations.is_empty()
    }

    /// Whether a race between step `earlier` (a read) and a later write at step `later`
    /// (`None`: an operation pending at the end) must be reversed.
    pub fn needs_reversal(&self, trace: &Trace, earlier: usize, later: Option<usize>) -> bool {
        let Some(id) = self.iteration_of.get(earlier).copied().flatten() else { return true };
        let it = &self.iterations[id as usize];
        !later.is_some_and(|k| it.waking.contains(&k) && trace.steps[k].thread == it.waker)
    }

    /// The trace with the futile iterations' lock, wait-set and wait-state effects left
    /// out (their reads stay).
    pub fn erased<'t>(&self, trace: &'t Trace) -> Cow<'t, Trace> {
        if self.is_empty() {
            return Cow::Borrowed(trace);
        }
        let mut out = Trace { steps: Vec::with_capacity(trace.steps.len()), effects: Vec::with_capacity(trace.effects.len()), pending: Vec::new(), step_sites: trace.step_sites.clone() };
        for (k, s) in trace.steps.iter().enumerate() {
            let start = out.effects.len() as u32;
            let first = self.iteration_of[k].is_some_and(|id| *self.iterations[id as usize].steps.start() == k);
            for e in trace.step_effects(k) {
                // The wait state written by re-taking the lock is the wake-up's edge: kept.
                let kept = match self.iteration_of[k] {
                    None => true,
                    Some(_) => e.access == Access::Read || (first && e.access == Access::Write && e.var == state(s.thread)),
                };
                if kept {
                    out.effects.push(*e);
                }
            }
            out.steps.push(StepRec { thread: s.thread, effects: start..out.effects.len() as u32 });
        }
        for (t, r) in &trace.pending {
            let start = out.effects.len() as u32;
            out.effects.extend_from_slice(trace.effects_of(r));
            out.pending.push((*t, start..out.effects.len() as u32));
        }
        Cow::Owned(out)
    }
}

/// The variable a thread's wait state lives in (PROTOCOL.md, "Effects": slot 3).
fn state(t: ThreadId) -> Var {
    Var { obj: -1 - i32::from(t), slot: slot::STATE }
}

/// The lock a step takes, when taking it (after a wake-up, with the wait state written
/// first) is all the step does besides reading.
fn takes_lock(effects: &[Effect], t: ThreadId) -> Option<Var> {
    let mut lock = None;
    for e in effects {
        match e.access {
            Access::Acquire if lock.is_none() => lock = Some(e.var),
            Access::Read => {}
            Access::Write if e.var == state(t) && lock.is_none() => {}
            _ => return None,
        }
    }
    lock
}

/// The wait set a step waits in, when the step is a wait that releases `lock` (and reads,
/// at most, before it).
fn waits(effects: &[Effect], t: ThreadId, lock: Var) -> Option<Var> {
    let mut released = false;
    let mut set = None;
    for e in effects {
        match e.access {
            Access::Read => {}
            Access::Release if e.var == lock => released = true,
            Access::Write if e.var.slot == slot::WAITSET => set = Some(e.var),
            Access::Write if e.var == state(t) => {}
            _ => return None,
        }
    }
    set.filter(|_| released)
}

/// Who woke `t` from its wait at step `wait` (it ran again at step `woken`), and the
/// waker's critical section on `lock` around the wake-up, when the wake-up was a
/// `notifyAll`/`signalAll` (or a `notify` with no one else to choose).
fn woken_by_all(exec: &Execution, trace: &Trace, t: ThreadId, set: Var, lock: Var, wait: usize, woken: usize) -> Option<(ThreadId, RangeInclusive<usize>)> {
    let me = state(t);
    let wake = (wait + 1..woken).find(|&j| trace.steps[j].thread != t && trace.step_effects(j).iter().any(|e| e.access == Access::Write && e.var == me))?;
    let effects = trace.step_effects(wake);
    if !effects.iter().any(|e| e.access == Access::Write && e.var == set) {
        return None; // not a notify: an interrupt, a timeout
    }
    let chosen = exec.decisions.iter().any(|d| (wait as u32) < d.step && d.step <= wake as u32 && d.waiters.as_ref().is_some_and(|w| w.contains(t)));
    if chosen {
        return None;
    }
    let u = trace.steps[wake].thread;
    let has = |k: usize, access: Access| trace.steps[k].thread == u && trace.step_effects(k).iter().any(|e| e.access == access && e.var == lock);
    let from = (0..=wake).rev().find(|&k| has(k, Access::Acquire)).unwrap_or(wake);
    let to = (wake..trace.steps.len()).find(|&k| has(k, Access::Release)).unwrap_or(trace.steps.len() - 1);
    Some((u, from..=to))
}

/// Whether the iteration (steps `mine`, all of one thread) ran without a switch in its
/// middle and was not entered by preempting a thread that could have gone on.
fn without_preemption(trace: &Trace, enabled: &[Threads], mine: &[usize]) -> bool {
    let (first, last) = (mine[0], mine[mine.len() - 1]);
    if last - first + 1 != mine.len() {
        return false;
    }
    match first.checked_sub(1).map(|p| trace.steps[p].thread) {
        Some(prev) if prev != trace.steps[first].thread => !enabled[first].contains(prev),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvm::protocol::Outcome;

    fn exec() -> Execution {
        Execution { run: 0, outcome: Outcome::Pass, steps: 0, decisions: Vec::new(), events: Vec::new(), switches: Vec::new(), threads: Default::default(), millis: 0, trace: None, sequential: Vec::new(), objects: Default::default(), invocation: None }
    }

    /// A consumer (thread 1) checks an empty buffer and waits; a producer (thread 2) puts
    /// and wakes all; the consumer re-takes the monitor and takes.
    fn consumer_waits(notify_all: bool) -> Trace {
        let mut t = Trace::default();
        // 1: take monitor 7, read count (slot 0), wait. 2: take, write count, notify, release.
        let wake = if notify_all { "2w7.-4w-2.3u7" } else { "2w7.-4u7" };
        t.push_steps(&format!("0s1 0s2 1 1a7 1r7.0 1u7w7.-4w-2.3 2 2a7 2r7.0 2w7.0 {wake} 1w-2.3a7 1r7.0 1w7.0 1u7")).unwrap();
        t
    }

    #[test]
    fn a_check_that_waited_until_a_notify_all_is_futile() {
        let trace = consumer_waits(true);
        let futile = Futile::find(&exec(), &trace, None);
        assert_eq!(futile.iterations.len(), 1, "{futile:?}");
        assert_eq!(futile.iterations[0].steps, 3..=5);
        // The read of count at step 4 against the producer's write at step 9, in the
        // critical section that woke the consumer: no reversal needed.
        assert!(!futile.needs_reversal(&trace, 4, Some(9)));
        assert!(futile.needs_reversal(&trace, 4, None));
        assert!(futile.needs_reversal(&trace, 12, Some(9)), "the second check is not futile");
        let erased = futile.erased(&trace);
        assert_eq!(erased.step_effects(3), &[] as &[Effect], "the lock taken by the futile check");
        assert_eq!(erased.step_effects(4), trace.step_effects(4), "its read stays");
        assert!(erased.step_effects(5).is_empty(), "its wait");
        assert_eq!(erased.step_effects(11), trace.step_effects(11), "the re-take after the wake-up stays");
    }

    #[test]
    fn a_wait_ended_otherwise_than_by_a_notify_keeps_its_check() {
        // The producer's step writes the wait set but not the consumer's state: whatever
        // woke the consumer, it was not this notify.
        let trace = consumer_waits(false);
        assert!(Futile::find(&exec(), &trace, None).is_empty());
        // A check that writes before waiting (a waiter count) is not futile.
        let mut t = Trace::default();
        t.push_steps("0s1 0s2 1 1a7 1r7.0 1w7.5 1u7w7.-4w-2.3 2 2a7 2w7.0 2w7.-4w-2.3u7 1w-2.3a7 1r7.0 1u7").unwrap();
        assert!(Futile::find(&exec(), &t, None).is_empty());
    }

    #[test]
    fn under_a_bound_a_check_reached_by_preemption_is_kept() {
        let trace = consumer_waits(true);
        // Before step 3 (the consumer's first lock) thread 0 was still enabled: a preemption.
        let mut enabled: Vec<Threads> = trace.steps.iter().map(|s| Threads::single(s.thread)).collect();
        enabled[3] = Threads::from_iter([1, 0]);
        enabled[2] = Threads::from_iter([1, 0]);
        let mut t = trace.clone();
        t.steps[2].thread = 0; // the step before the check is thread 0's
        t.steps[2].effects = t.steps[2].effects.start..t.steps[2].effects.start;
        assert!(Futile::find(&exec(), &t, Some(&enabled)).is_empty());
        let none_enabled: Vec<Threads> = trace.steps.iter().map(|s| Threads::single(s.thread)).collect();
        assert!(!Futile::find(&exec(), &t, Some(&none_enabled)).is_empty());
    }
}
