//! Source-DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014; JACM 2017, Algorithm 1): the
//! backtracking of the exhaustive tree, which uses sleep sets and claims every schedule.
//!
//! For every *race* of an execution `E` — two conflicting steps `e` (thread `q`) and `e'`
//! (thread `p`) of different threads, with nothing in between that happens after `e` and
//! before `e'` — the schedules that reverse it start, from the state before `e`, with the
//! steps that do not depend on `e` (`notdep(e, E)`), then `e'`. Any thread whose first step
//! in that sequence depends on nothing before it in the sequence (its *initials*) can start
//! such a schedule; if none of them is tried at that state yet, one is added.
//!
//! Why initials and not simply `p` (Flanagan & Godefroid's rule): with sleep sets, `p` can
//! be asleep there (its step first is covered by a sibling) while the reversal needs
//! another thread to run before it — the property test in [`crate::search::sim`] has such
//! a program (four threads, a lock, two variables).
//!
//! Happens-before is program order, conflicting accesses in trace order, thread start to
//! the new thread, and a lock's release to its next acquisition (a release enables the
//! acquirer, so their order is forced). Races between acquisitions of one lock are decided
//! without that last edge: the later acquirer could have taken the lock first.

use crate::jvm::protocol::{ThreadId, Threads};
use crate::jvm::trace::{Access, Effect, Trace, Var};
use crate::search::dpor::{Backtrack, ImpactedSteps};
use std::collections::HashMap;

/// A vector clock: per thread, how many of its steps happen before.
type Clock = Vec<u32>;

fn join(into: &mut Clock, other: &Clock) {
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}

#[derive(Default)]
struct VarState {
    last_write: Option<usize>,
    reads_since: Vec<usize>,
    /// Commutative updates ([`Access::Add`]) since the last write: a read depends on each.
    adds_since: Vec<usize>,
    /// The join of every access so far (what a write happens after).
    all: Option<Clock>,
    /// The join of every access but the commutative updates (what an update happens after).
    all_but_adds: Option<Clock>,
}

struct Events {
    thread: Vec<ThreadId>,
    /// The step's number within its thread, from 1.
    index: Vec<u32>,
    clock: Vec<Clock>,
}

impl Events {
    /// Whether event `i` happens before a point whose clock is `c`.
    fn before(&self, i: usize, c: &Clock) -> bool {
        c[self.thread[i] as usize] >= self.index[i]
    }
}

/// The races of `exec` (its first `limit` steps) and, for each, the initials of the
/// schedules that reverse it. `pending`: also the races of the operations live threads
/// were about to perform when the execution ended.
pub fn analyze(trace: &Trace, limit: usize, pending: bool, impacted: ImpactedSteps) -> Vec<Backtrack> {
    let impacted_race =
        |i: usize, k: Option<usize>| impacted.is_some_and(|f| f(i as u32) || k.is_some_and(|k| f(k as u32)));
    let limit = limit.min(trace.steps.len());
    let threads = trace.thread_count();
    let zero = vec![0u32; threads];
    let mut cur: Vec<Clock> = vec![zero.clone(); threads];
    let mut ev = Events {
        thread: Vec::with_capacity(limit),
        index: Vec::with_capacity(limit),
        clock: Vec::with_capacity(limit),
    };
    let mut vars: HashMap<Var, VarState> = HashMap::new();
    let mut released: HashMap<Var, Clock> = HashMap::new();
    let mut last_of: Vec<Option<usize>> = vec![None; threads];
    let mut last_global: Option<usize> = None;
    let mut everything = zero.clone();
    let mut out: Vec<(u32, Threads, bool)> = Vec::new();

    for k in 0..limit {
        let p = trace.steps[k].thread;
        let effects = trace.step_effects(k);
        let pre = cur[p as usize].clone();
        let candidates = candidates(p, effects, &vars, &last_of, last_global, &ev);
        for &i in &candidates {
            if is_race(i, &candidates, &pre, &ev) {
                out.push((
                    i as u32,
                    initials(i, k, p, &before_but(i, &pre, &candidates, &ev), &ev),
                    impacted_race(i, Some(k)),
                ));
            }
        }
        // This step's clock.
        let mut c = pre;
        c[p as usize] += 1;
        for e in effects {
            match e.access {
                Access::Read | Access::Join(_) => {
                    if let Some(s) = vars.get(&e.var) {
                        for w in s.last_write.iter().chain(&s.adds_since) {
                            let w = ev.clock[*w].clone();
                            join(&mut c, &w);
                        }
                    }
                }
                Access::Add => {
                    if let Some(before) = vars.get(&e.var).and_then(|s| s.all_but_adds.clone()) {
                        join(&mut c, &before);
                    }
                }
                Access::Write | Access::Start(_) | Access::Acquire => {
                    if let Some(all) = vars.get(&e.var).and_then(|s| s.all.clone()) {
                        join(&mut c, &all);
                    }
                    if e.access == Access::Acquire {
                        if let Some(r) = released.get(&e.var) {
                            join(&mut c, r);
                        }
                    }
                }
                Access::Global => join(&mut c, &everything),
                Access::Release => {}
            }
        }
        if let Some(g) = last_global {
            let g = ev.clock[g].clone();
            join(&mut c, &g);
        }
        // Record the step.
        ev.thread.push(p);
        ev.index.push(c[p as usize]);
        for e in effects {
            match e.access {
                Access::Read | Access::Join(_) => {
                    let s = vars.entry(e.var).or_default();
                    s.reads_since.push(k);
                    join(s.all.get_or_insert_with(|| zero.clone()), &c);
                    join(s.all_but_adds.get_or_insert_with(|| zero.clone()), &c);
                }
                Access::Add => {
                    let s = vars.entry(e.var).or_default();
                    s.adds_since.push(k);
                    join(s.all.get_or_insert_with(|| zero.clone()), &c);
                }
                Access::Write | Access::Start(_) | Access::Acquire => {
                    let s = vars.entry(e.var).or_default();
                    s.last_write = Some(k);
                    s.reads_since.clear();
                    s.adds_since.clear();
                    join(s.all.get_or_insert_with(|| zero.clone()), &c);
                    join(s.all_but_adds.get_or_insert_with(|| zero.clone()), &c);
                    if let Access::Start(t) = e.access {
                        // The new thread starts after everything its starter did.
                        let mut child = c.clone();
                        child[t as usize] = 0;
                        cur[t as usize] = child;
                    }
                }
                Access::Release => {
                    released.insert(e.var, c.clone());
                }
                Access::Global => last_global = Some(k),
            }
        }
        join(&mut everything, &c);
        cur[p as usize] = c.clone();
        ev.clock.push(c);
        last_of[p as usize] = Some(k);
    }
    if pending && limit == trace.steps.len() {
        // What live threads were about to do: races with steps that will never come.
        for (p, r) in &trace.pending {
            let effects = trace.effects_of(r);
            let pre = cur[*p as usize].clone();
            let candidates = candidates(*p, effects, &vars, &last_of, last_global, &ev);
            for &i in &candidates {
                if is_race(i, &candidates, &pre, &ev) {
                    out.push((
                        i as u32,
                        initials(i, limit, *p, &before_but(i, &pre, &candidates, &ev), &ev),
                        impacted_race(i, None),
                    ));
                }
            }
        }
    }
    // One entry per race: each race needs one of its own initials (impacted when one of the
    // races with those initials there is).
    out.sort_unstable();
    let mut merged: Vec<Backtrack> = Vec::new();
    for (step, threads, impacted) in out {
        match merged.last_mut() {
            Some(b) if b.step == step && b.threads == threads => b.impacted |= impacted,
            _ => merged.push(Backtrack { step, threads, conservative: false, impacted }),
        }
    }
    merged
}

/// The earlier steps of other threads that a step of `p` with `effects` conflicts with
/// directly: the last write and the commutative updates since before a read; the reads
/// since the last write, or the last write, before an update; the reads and updates since
/// the last write, or the last write, before a write; every thread's last step for a global
/// step.
fn candidates(
    p: ThreadId,
    effects: &[Effect],
    vars: &HashMap<Var, VarState>,
    last_of: &[Option<usize>],
    last_global: Option<usize>,
    ev: &Events,
) -> Vec<usize> {
    let mut out = Vec::new();
    for e in effects {
        match e.access {
            Access::Release => {}
            Access::Global => {
                out.extend(last_of.iter().enumerate().filter(|(t, _)| *t != p as usize).filter_map(|(_, l)| *l))
            }
            Access::Read | Access::Join(_) => {
                if let Some(s) = vars.get(&e.var) {
                    out.extend(s.last_write);
                    out.extend(&s.adds_since);
                }
            }
            Access::Write | Access::Start(_) | Access::Acquire | Access::Add => {
                if let Some(s) = vars.get(&e.var) {
                    let adds: &[usize] = if e.access == Access::Add { &[] } else { &s.adds_since };
                    let others: Vec<usize> =
                        s.reads_since.iter().chain(adds).copied().filter(|&r| ev.thread[r] != p).collect();
                    if others.is_empty() {
                        out.extend(s.last_write);
                    } else {
                        out.extend(others);
                    }
                }
            }
        }
    }
    out.extend(last_global);
    out.retain(|&i| ev.thread[i] != p);
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether candidate `i` is in a race with the step (whose thread's clock before it is
/// `pre`): it does not happen before the step through its thread's own past or through
/// another candidate.
fn is_race(i: usize, candidates: &[usize], pre: &Clock, ev: &Events) -> bool {
    if ev.before(i, pre) {
        return false;
    }
    !candidates.iter().any(|&k| k != i && k > i && ev.before(i, &ev.clock[k]))
}

/// What happens before the racing step other than through its race partner `i`: its
/// thread's past and its other direct dependencies.
fn before_but(i: usize, pre: &Clock, candidates: &[usize], ev: &Events) -> Clock {
    let mut c = pre.clone();
    for &k in candidates.iter().filter(|&&k| k != i) {
        join(&mut c, &ev.clock[k]);
    }
    c
}

/// The initials of `notdep(e_i, E).e_j` as a thread mask: the threads whose first step in
/// that sequence depends on nothing earlier in it. The sequence is the steps from `i + 1`
/// to `j - 1` that do not happen after `e_i`, then the racing step of `p`, which depends
/// on what `racing` (its clock without the race) has.
fn initials(i: usize, j: usize, p: ThreadId, racing: &Clock, ev: &Events) -> Threads {
    // The first step of each thread in the sequence.
    let mut first: Vec<(ThreadId, usize)> = Vec::new();
    for k in i + 1..j {
        let t = ev.thread[k];
        if !first.iter().any(|(x, _)| *x == t) && !ev.before(i, &ev.clock[k]) {
            first.push((t, k));
        }
    }
    let mut mask = Threads::new();
    for (n, &(t, k)) in first.iter().enumerate() {
        let c = &ev.clock[k];
        if !first[..n].iter().any(|&(_, f)| ev.before(f, c)) {
            mask.insert(t);
        }
    }
    // The racing step is `p`'s first in the sequence when `p` has no step before it there.
    if !first.iter().any(|(x, _)| *x == p) && !first.iter().any(|&(_, f)| ev.before(f, racing)) {
        mask.insert(p);
    }
    mask
}
