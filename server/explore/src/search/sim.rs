//! A simulator of small concurrent programs that answers runs the way the agent does
//! (decision points, the default rule, a trace of effects), for testing the search without
//! a JVM: the reduced search must reach every outcome the unreduced one reaches.
//!
//! A program is thread 0, which starts the others, and their straight-line code of reads,
//! writes (of constants or of a value read before), atomic adds whose result is unused,
//! lock blocks, joins and branches on a value read, and, inside lock blocks, wait loops
//! (`while (v != value) lock.wait();`) and `notify`/`notifyAll`, with the agent's steps and
//! effects: the check reads, the wait releases the lock and writes the wait set and the
//! waiter's wait state, a notification writes the wait set and the state of each waiter it
//! wakes (a `notify` with several waiters is a decision of its own), and a woken thread
//! writes its state and re-takes the lock before it checks again. Every shared operation
//! is a scheduling point; branches are local and run in the step before them, as in the
//! agent. A thread waiting for a lock, a join or a notification is disabled at its point;
//! each started thread first takes a `BEGIN` step.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use crate::jvm::protocol::{Decision, Execution, Known, Outcome, Pending, ThreadId, Threads};
use crate::jvm::trace::{slot, Access, Effect, StepRec, Trace, Var};
use crate::search::part::Part;
use crate::search::tree::{Config, Coverage, Tree};
use crate::search::{Basic, Claim, Search, Strategy as Shape};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Read {
        var: u8,
        reg: u8,
    },
    /// Writes `value`, plus register `plus` if given.
    Write {
        var: u8,
        value: i32,
        plus: Option<u8>,
    },
    /// Adds `value` to the variable, atomically, the result unused (`incrementAndGet();`).
    Add {
        var: u8,
        value: i32,
    },
    Lock(u8),
    Unlock(u8),
    Start(ThreadId),
    Join(ThreadId),
    /// Skips the next `skip` operations when register `reg` holds `value` (local).
    Skip {
        reg: u8,
        value: i32,
        skip: u8,
    },
    /// `while (var != value) wait()` on `lock`, held (the value read is not kept).
    Await {
        lock: u8,
        var: u8,
        value: i32,
    },
    /// `notify()` (`all`: `notifyAll()`) on `lock`, held.
    Notify {
        lock: u8,
        all: bool,
    },
}

/// Where a thread is in an [`Op::Await`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waiting {
    /// About to read the condition.
    Check,
    /// Read it false: about to wait.
    Wait,
    /// In the wait set.
    Asleep,
    /// Woken: about to re-take the lock.
    Retake,
}

#[derive(Clone, Debug)]
pub struct Program {
    pub threads: Vec<Vec<Op>>,
}

/// What an execution ends with: memory, every thread's registers, and whether it
/// deadlocked.
pub type Observation = (Vec<i32>, Vec<Vec<i32>>, bool);

const VARS: usize = 3;
const REGS: usize = 2;

struct Machine<'p> {
    program: &'p Program,
    pc: Vec<usize>,
    regs: Vec<[i32; REGS]>,
    memory: [i32; VARS],
    owner: BTreeMap<u8, ThreadId>,
    started: Vec<bool>,
    begun: Vec<bool>,
    waiting: Vec<Waiting>,
    /// Per lock, its wait set in the order the threads entered it.
    wait_sets: BTreeMap<u8, Vec<usize>>,
}

fn var(v: u8) -> Var {
    Var { obj: 1, slot: i32::from(v) }
}

fn lock_obj(l: u8) -> i32 {
    100 + i32::from(l)
}

fn wait_set(l: u8) -> Var {
    Var { obj: lock_obj(l), slot: slot::WAITSET }
}

fn wait_state(t: usize) -> Var {
    Var { obj: -1 - t as i32, slot: slot::STATE }
}

impl<'p> Machine<'p> {
    fn new(program: &'p Program) -> Machine<'p> {
        let n = program.threads.len();
        let mut started = vec![false; n];
        started[0] = true;
        let mut begun = vec![false; n];
        begun[0] = true;
        let mut m = Machine {
            program,
            pc: vec![0; n],
            regs: vec![[0; REGS]; n],
            memory: [0; VARS],
            owner: BTreeMap::new(),
            started,
            begun,
            waiting: vec![Waiting::Check; n],
            wait_sets: BTreeMap::new(),
        };
        m.run_local(0);
        m
    }

    fn finished(&self, t: usize) -> bool {
        self.started[t] && self.begun[t] && self.pc[t] >= self.program.threads[t].len()
    }

    fn alive(&self, t: usize) -> bool {
        self.started[t] && !self.finished(t)
    }

    fn enabled(&self, t: usize) -> bool {
        if !self.alive(t) {
            return false;
        }
        if !self.begun[t] {
            return true;
        }
        match &self.program.threads[t][self.pc[t]] {
            Op::Lock(l) => self.owner.get(l).is_none_or(|&o| o as usize == t),
            Op::Join(u) => self.finished(*u as usize),
            Op::Await { lock, .. } => match self.waiting[t] {
                Waiting::Asleep => false,
                Waiting::Retake => !self.owner.contains_key(lock),
                Waiting::Check | Waiting::Wait => true,
            },
            _ => true,
        }
    }

    /// Runs the local operations (branches) at `t`'s pc.
    fn run_local(&mut self, t: usize) {
        while let Some(Op::Skip { reg, value, skip }) = self.program.threads[t].get(self.pc[t]) {
            let jump = self.regs[t][*reg as usize] == *value;
            self.pc[t] += 1 + if jump { *skip as usize } else { 0 };
        }
    }

    /// The effects `t`'s next step would have.
    fn next_effects(&self, t: usize) -> Vec<Effect> {
        if !self.begun[t] {
            return Vec::new();
        }
        let op = &self.program.threads[t][self.pc[t]];
        let mut out = match op {
            Op::Await { .. } | Op::Notify { .. } => self.wait_effects(t, op),
            _ => op_effects(op),
        };
        if self.pc[t] + 1 >= self.program.threads[t].len() {
            out.push(Effect { access: Access::Write, var: Var::life(t as ThreadId) });
        }
        out
    }

    /// The effects of `t`'s next step in a wait loop or a notification (a `notify` waking
    /// the first waiter).
    fn wait_effects(&self, t: usize, op: &Op) -> Vec<Effect> {
        match *op {
            Op::Await { lock, var: v, .. } => match self.waiting[t] {
                Waiting::Check => vec![Effect { access: Access::Read, var: var(v) }],
                Waiting::Wait => vec![
                    Effect { access: Access::Release, var: Var::lock(lock_obj(lock)) },
                    Effect { access: Access::Write, var: wait_set(lock) },
                    Effect { access: Access::Write, var: wait_state(t) },
                ],
                Waiting::Asleep | Waiting::Retake => vec![
                    Effect { access: Access::Write, var: wait_state(t) },
                    Effect { access: Access::Acquire, var: Var::lock(lock_obj(lock)) },
                ],
            },
            Op::Notify { lock, all } => {
                let set = self.wait_sets.get(&lock).map_or(&[][..], Vec::as_slice);
                let woken = if all { set } else { &set[..set.len().min(1)] };
                std::iter::once(Effect { access: Access::Write, var: wait_set(lock) })
                    .chain(woken.iter().map(|&w| Effect { access: Access::Write, var: wait_state(w) }))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Runs `t`'s step in a wait loop; whether it moved past the loop.
    fn step_await(&mut self, t: usize, lock: u8, v: u8, value: i32) -> bool {
        match self.waiting[t] {
            Waiting::Check if self.memory[v as usize] == value => return true,
            Waiting::Check => self.waiting[t] = Waiting::Wait,
            Waiting::Wait => {
                self.owner.remove(&lock);
                self.wait_sets.entry(lock).or_default().push(t);
                self.waiting[t] = Waiting::Asleep;
            }
            Waiting::Asleep | Waiting::Retake => {
                self.owner.insert(lock, t as ThreadId);
                self.waiting[t] = Waiting::Check;
            }
        }
        false
    }

    /// The waiters a `notify` on `lock` chooses among when there are several.
    fn notify_choice(&self, t: usize) -> Option<Threads> {
        match self.program.threads[t].get(self.pc[t]) {
            Some(Op::Notify { lock, all: false }) if self.begun[t] => {
                let set = self.wait_sets.get(lock)?;
                (set.len() > 1).then(|| set.iter().map(|&w| w as ThreadId).collect())
            }
            _ => None,
        }
    }

    /// Runs `t`'s notification, waking `chosen` for a `notify` (else its first waiter).
    fn step_notify(&mut self, lock: u8, all: bool, chosen: Option<ThreadId>) -> Vec<Effect> {
        let set = self.wait_sets.entry(lock).or_default();
        let woken: Vec<usize> = if all {
            std::mem::take(set)
        } else {
            let at = chosen.and_then(|c| set.iter().position(|&w| w as ThreadId == c)).unwrap_or(0);
            if set.is_empty() {
                Vec::new()
            } else {
                vec![set.remove(at)]
            }
        };
        for &w in &woken {
            self.waiting[w] = Waiting::Retake;
        }
        std::iter::once(Effect { access: Access::Write, var: wait_set(lock) })
            .chain(woken.iter().map(|&w| Effect { access: Access::Write, var: wait_state(w) }))
            .collect()
    }

    /// Runs `t`'s next step; returns its effects. `chosen`: the waiter a `notify` wakes.
    fn step(&mut self, t: usize, chosen: Option<ThreadId>) -> Vec<Effect> {
        if !self.begun[t] {
            self.begun[t] = true;
            self.run_local(t);
            return if self.finished(t) {
                vec![Effect { access: Access::Write, var: Var::life(t as ThreadId) }]
            } else {
                Vec::new()
            };
        }
        let op = self.program.threads[t][self.pc[t]].clone();
        let mut effects = op_effects(&op);
        match op {
            Op::Await { lock, var, value } => {
                effects = self.wait_effects(t, &op);
                if !self.step_await(t, lock, var, value) {
                    return effects;
                }
            }
            Op::Notify { lock, all } => effects = self.step_notify(lock, all, chosen),
            Op::Read { var, reg } => self.regs[t][reg as usize] = self.memory[var as usize],
            Op::Write { var, value, plus } => {
                self.memory[var as usize] = value + plus.map_or(0, |r| self.regs[t][r as usize])
            }
            Op::Add { var, value } => self.memory[var as usize] += value,
            Op::Lock(l) => {
                self.owner.insert(l, t as ThreadId);
            }
            Op::Unlock(l) => {
                self.owner.remove(&l);
            }
            Op::Start(u) => self.started[u as usize] = true,
            Op::Join(_) | Op::Skip { .. } => {}
        }
        self.pc[t] += 1;
        self.run_local(t);
        if self.finished(t) {
            effects.push(Effect { access: Access::Write, var: Var::life(t as ThreadId) });
        }
        effects
    }

    fn observe(&self, deadlock: bool) -> Observation {
        (self.memory.to_vec(), self.regs.iter().map(|r| r.to_vec()).collect(), deadlock)
    }
}

fn op_effects(op: &Op) -> Vec<Effect> {
    match op {
        Op::Read { var: v, .. } => vec![Effect { access: Access::Read, var: var(*v) }],
        Op::Write { var: v, .. } => vec![Effect { access: Access::Write, var: var(*v) }],
        Op::Add { var: v, .. } => vec![Effect { access: Access::Add, var: var(*v) }],
        Op::Lock(l) => vec![Effect { access: Access::Acquire, var: Var::lock(lock_obj(*l)) }],
        Op::Unlock(l) => vec![Effect { access: Access::Release, var: Var::lock(lock_obj(*l)) }],
        Op::Start(u) => vec![Effect { access: Access::Start(*u), var: Var::life(*u) }],
        Op::Join(u) => vec![Effect { access: Access::Join(*u), var: Var::life(*u) }],
        Op::Skip { .. } | Op::Await { .. } | Op::Notify { .. } => Vec::new(),
    }
}

/// Runs `program` following `choices` at its first decision points, then the default rule
/// (keep the current thread if it can run, else the lowest that can), like the agent.
pub fn run(program: &Program, choices: &[ThreadId]) -> (Execution, Observation) {
    let mut m = Machine::new(program);
    let n = program.threads.len();
    let mut trace = Trace::default();
    let mut decisions = Vec::new();
    let mut current: Option<ThreadId> = None;
    let mut step = 0u32;
    loop {
        let enabled: Threads = (0..n).filter(|&t| m.enabled(t)).map(|t| t as ThreadId).collect();
        let Some(lowest) = enabled.first() else { break };
        let t = if enabled.len() > 1 {
            let default = match current {
                Some(c) if enabled.contains(c) => c,
                _ => lowest,
            };
            let t = choices.get(decisions.len()).copied().unwrap_or(default);
            assert!(enabled.contains(t), "choice {t} not enabled at decision {}", decisions.len());
            let pending = enabled.iter().map(|u| Pending { thread: u, site: 0, stack: None }).collect();
            decisions.push(Decision { step, thread: t, site: 0, enabled, waiters: None, current, pending });
            t
        } else {
            lowest
        };
        // A `notify` with several waiters: which one wakes is a decision of its own.
        let chosen = m.notify_choice(t as usize).map(|waiters| {
            let first = waiters.first().expect("several waiters");
            let w = choices.get(decisions.len()).copied().unwrap_or(first);
            assert!(waiters.contains(w), "waiter {w} not waiting at decision {}", decisions.len());
            decisions.push(Decision {
                step,
                thread: w,
                site: 0,
                enabled: waiters.clone(),
                waiters: Some(waiters),
                current: Some(t),
                pending: Vec::new(),
            });
            w
        });
        let effects = m.step(t as usize, chosen);
        let start = trace.effects.len() as u32;
        trace.effects.extend(effects);
        trace.steps.push(StepRec { thread: t, effects: start..trace.effects.len() as u32 });
        current = Some(t);
        step += 1;
    }
    let deadlock = (0..n).any(|t| m.alive(t));
    for t in (0..n).filter(|&t| m.alive(t)) {
        let start = trace.effects.len() as u32;
        trace.effects.extend(m.next_effects(t));
        trace.pending.push((t as ThreadId, start..trace.effects.len() as u32));
    }
    let outcome = if deadlock { Outcome::Deadlock(Vec::new()) } else { Outcome::Pass };
    let exec = Execution {
        run: 0,
        outcome,
        steps: step,
        decisions,
        events: Vec::new(),
        switches: Vec::new(),
        threads: Default::default(),
        millis: 0,
        trace: Some(trace),
        sequential: Vec::new(),
        objects: Default::default(),
        invocation: None,
    };
    (exec, m.observe(deadlock))
}

/// Every schedule with at most `bound` preemptions (`None`: all), unreduced: the
/// observations and the number of executions; `None` past `cap` executions.
pub fn exhaustive(program: &Program, bound: Option<u32>, cap: u64) -> Option<(BTreeSet<Observation>, u64)> {
    let mut seen = BTreeSet::new();
    let mut runs = 0;
    let mut work: Vec<Vec<ThreadId>> = vec![Vec::new()];
    while let Some(prefix) = work.pop() {
        if runs >= cap {
            return None;
        }
        let (exec, obs) = run(program, &prefix);
        runs += 1;
        seen.insert(obs);
        let mut preemptions = 0;
        for (i, d) in exec.decisions.iter().enumerate() {
            if i >= prefix.len() {
                for alt in d.alternatives() {
                    let cost = preemptions + u32::from(d.preempts(alt));
                    if bound.is_none_or(|b| cost <= b) {
                        let mut p: Vec<ThreadId> = exec.decisions[..i].iter().map(|d| d.thread).collect();
                        p.push(alt);
                        work.push(p);
                    }
                }
            }
            preemptions += u32::from(d.preempts(d.thread));
        }
    }
    Some((seen, runs))
}

/// One reduced tree over `program`: the observations, the runs, and the tree's claim.
pub fn reduced(program: &Program, config: Config, seed: Option<u64>) -> (BTreeSet<Observation>, u64, Coverage) {
    reduced_part(program, config, seed, Part::WHOLE)
}

/// [`reduced`] over one part of the schedules.
pub fn reduced_part(
    program: &Program,
    config: Config,
    seed: Option<u64>,
    part: Part,
) -> (BTreeSet<Observation>, u64, Coverage) {
    let mut tree = Tree::new(config, seed).in_part(part);
    let mut seen = BTreeSet::new();
    let mut runs = 0;
    while let Some(branch) = tree.next() {
        let (exec, obs) = run(program, &tree.choices(branch));
        runs += 1;
        seen.insert(obs);
        tree.record(branch, &exec, &mut |_| Vec::new(), None).expect("the simulator is deterministic");
        assert!(runs < 1_000_000, "the reduced search does not end");
    }
    (seen, runs, tree.coverage())
}

/// The search an exploration runs (both trees taking turns) over `program`.
pub fn searched(program: &Program, strategy: Shape, seed: Option<u64>) -> (BTreeSet<Observation>, u64, Claim) {
    searched_part(program, strategy, seed, Part::WHOLE)
}

/// [`searched`] over one part of the schedules.
pub fn searched_part(
    program: &Program,
    strategy: Shape,
    seed: Option<u64>,
    part: Part,
) -> (BTreeSet<Observation>, u64, Claim) {
    let mut search = Search::new(Some((strategy, seed, false)), None, Box::new(Basic)).in_part(part);
    let mut seen = BTreeSet::new();
    let mut runs = 0;
    let empty = (std::collections::HashMap::new(), std::collections::HashMap::new());
    let known = Known { sites: &empty.0, stacks: &empty.1 };
    while let Some(req) = search.next() {
        let (exec, obs) = run(program, &req.choices);
        runs += 1;
        seen.insert(obs);
        search.record(&req, &exec, known).expect("the simulator is deterministic");
        assert!(runs < 1_000_000, "the search does not end");
    }
    (seen, runs, search.claim())
}

/// Straight-line code for one worker: operations on three variables, lock blocks on two
/// locks, branches on values read.
fn worker() -> impl Strategy<Value = Vec<Op>> {
    let plain =
        prop_oneof![
            (0..VARS as u8, 0..REGS as u8).prop_map(|(var, reg)| vec![Op::Read { var, reg }]),
            (0..VARS as u8, 1..4i32, proptest::option::of(0..REGS as u8))
                .prop_map(|(var, value, plus)| vec![Op::Write { var, value, plus }]),
            (0..VARS as u8, 1..3i32).prop_map(|(var, value)| vec![Op::Add { var, value }]),
            (0..REGS as u8, 0..3i32, 1..3u8).prop_map(|(reg, value, skip)| vec![Op::Skip { reg, value, skip }]),
        ];
    let block = (0..2u8, proptest::collection::vec(plain.clone(), 1..3)).prop_map(|(l, body)| {
        let mut v = vec![Op::Lock(l)];
        v.extend(body.into_iter().flatten());
        v.push(Op::Unlock(l));
        v
    });
    proptest::collection::vec(prop_oneof![3 => plain, 1 => block], 1..4).prop_map(|parts| {
        let mut ops: Vec<Op> = parts.into_iter().flatten().collect();
        // A branch must not jump into or out of a lock block: drop branches inside blocks
        // and those that would skip an `Unlock`.
        let mut depth = 0;
        let mut i = 0;
        while i < ops.len() {
            match ops[i] {
                Op::Lock(_) => depth += 1,
                Op::Unlock(_) => depth -= 1,
                Op::Skip { skip, .. }
                    if depth > 0
                        || ops[i + 1..]
                            .iter()
                            .take(skip as usize)
                            .any(|o| matches!(o, Op::Lock(_) | Op::Unlock(_))) =>
                {
                    ops.remove(i);
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        if ops.is_empty() || matches!(ops.last(), Some(Op::Skip { .. })) {
            ops.push(Op::Read { var: 0, reg: 0 });
        }
        ops
    })
}

/// Code for one worker of a program with wait loops: up to three guarded blocks
/// (`synchronized (l) { while (v != value) l.wait(); writes; notify or notifyAll }`, some
/// without the loop) and plain reads and writes.
fn waiting_worker() -> impl Strategy<Value = Vec<Op>> {
    // Two variables, values 1 and 2 (memory starts at 0): a loop waits at first, and
    // another thread's write lets it pass half of the time.
    let write = (0..2u8, 1..3i32).prop_map(|(var, value)| Op::Write { var, value, plus: None });
    // One monitor mostly; some blocks only write and notify (`waits: false`).
    let lock = prop_oneof![4 => Just(0u8), 1 => Just(1u8)];
    let guarded = (
        lock,
        0..2u8,
        1..3i32,
        proptest::collection::vec(write.clone(), 0..3),
        proptest::bool::weighted(0.7),
        proptest::bool::weighted(0.7),
    )
        .prop_map(|(lock, var, value, body, all, waits)| {
            let mut v = vec![Op::Lock(lock)];
            if waits {
                v.push(Op::Await { lock, var, value });
            }
            v.extend(body);
            v.push(Op::Notify { lock, all });
            v.push(Op::Unlock(lock));
            v
        });
    let plain = prop_oneof![
        write.prop_map(|w| vec![w]),
        (0..2u8, 0..REGS as u8).prop_map(|(var, reg)| vec![Op::Read { var, reg }])
    ];
    proptest::collection::vec(prop_oneof![guarded, plain], 1..4).prop_map(|parts| parts.into_iter().flatten().collect())
}

/// Thread 0 starts 2 (or 3) workers that wait for each other's writes.
pub fn waiting_program() -> impl Strategy<Value = Program> {
    // Three workers are mostly past the unreduced search's cap: two, and three now and then.
    prop_oneof![4 => proptest::collection::vec(waiting_worker(), 2..3), 1 => proptest::collection::vec(waiting_worker(), 3..4)].prop_map(|workers| {
        let main: Vec<Op> = (1..=workers.len() as ThreadId).map(Op::Start).collect();
        Program { threads: std::iter::once(main).chain(workers).collect() }
    })
}

/// Thread 0 starts 1 to 3 workers, may read shared variables itself, and joins some.
pub fn program() -> impl Strategy<Value = Program> {
    (proptest::collection::vec(worker(), 2..4), proptest::collection::vec(0..VARS as u8, 0..2), any::<bool>()).prop_map(
        |(workers, main_reads, join)| {
            let n = workers.len();
            let mut main: Vec<Op> = (1..=n as ThreadId).map(Op::Start).collect();
            main.extend(main_reads.iter().map(|&var| Op::Read { var, reg: 0 }));
            if join {
                main.extend((1..=n as ThreadId).map(Op::Join));
                main.push(Op::Read { var: 0, reg: 1 });
            }
            let mut threads = vec![main];
            threads.extend(workers);
            Program { threads }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unreduced runs the property test affords per program and bound.
    const CAP: u64 = 50_000;

    /// Each tree alone, and the two together, reach what the unreduced search reaches
    /// (`bound`: `None` for every schedule), and claim it. Programs whose unreduced space
    /// is too large are checked against the exhaustive tree (itself checked on the others).
    fn check(p: &Program, bound: Option<u32>) -> (u64, u64) {
        let (tree_all, _, coverage) = reduced(p, Config::exhaustive(true, false), None);
        assert!(coverage.exhausted, "{coverage:?}");
        let everything = match exhaustive(p, None, CAP) {
            Some((all, _)) => {
                assert_eq!(tree_all, all, "DPOR with sleep sets misses outcomes of {p:#?}");
                all
            }
            None => tree_all,
        };
        let Some((all, unreduced)) = (match bound {
            Some(b) => exhaustive(p, Some(b), CAP),
            None => Some((everything.clone(), 0)),
        }) else {
            return (0, 0);
        };
        if let Some(b) = bound {
            let (found, _, coverage) = reduced(p, Config::bounded(Some(b), false), None);
            assert_eq!(found, all, "BPOR, bound {b}, misses outcomes of {p:#?}");
            assert!(coverage.exhausted || coverage.complete_bound >= Some(b), "{coverage:?}");
        }
        let (found, runs, claim) = searched(p, Shape::Icb { max_bound: bound }, None);
        assert!(found.is_superset(&all), "the search, bound {bound:?}, misses outcomes of {p:#?}");
        if claim.exhausted {
            assert_eq!(found, everything, "the search claims every schedule of {p:#?}");
        } else {
            assert!(bound.is_some() && claim.complete_bound >= bound, "{claim:?}");
        }
        // Parts at one bound and unbounded (at every bound, the suite would take a minute more).
        if matches!(bound, Some(1) | None) {
            check_parts(p, bound, &all, &everything);
        }
        (unreduced, runs)
    }

    /// Split into parts ([`crate::search::part`]): the bounded trees together reach what the
    /// whole does, each completing the bound for its share, and what the searches claim
    /// together (`Coverage::join`'s rule) holds.
    fn check_parts(p: &Program, bound: Option<u32>, all: &BTreeSet<Observation>, everything: &BTreeSet<Observation>) {
        for count in [2, 5] {
            let parts = || (0..count).map(move |i| Part::new(i, count).unwrap());
            if let Some(b) = bound {
                let mut union = BTreeSet::new();
                for part in parts() {
                    let (found, _, coverage) = reduced_part(p, Config::bounded(Some(b), false), None, part);
                    assert!(coverage.exhausted || coverage.complete_bound >= Some(b), "{part}: {coverage:?}");
                    union.extend(found);
                }
                assert!(union.is_superset(all), "BPOR, bound {b}, in {count} parts misses outcomes of {p:#?}");
            }
            let mut union = BTreeSet::new();
            let mut claims = Vec::new();
            for part in parts() {
                let (found, _, claim) = searched_part(p, Shape::Icb { max_bound: bound }, None, part);
                assert!(claim.exhausted || claim.complete_bound >= bound.or(Some(u32::MAX)), "{part}: {claim:?}");
                assert_eq!(claim.part, part);
                if claim.exhausted {
                    assert_eq!(&found, everything, "{part} of {count} claims every schedule of {p:#?}");
                }
                union.extend(found);
                claims.push(claim);
            }
            if let Some(k) =
                claims.iter().map(|c| if c.exhausted { Some(u32::MAX) } else { c.complete_bound }).min().flatten()
            {
                if let Some((within, _)) = exhaustive(p, Some(k), CAP) {
                    assert!(union.is_superset(&within), "the search in {count} parts claims bound {k} of {p:#?}");
                }
            }
        }
    }

    /// Two threads increment a shared counter, once without and once with a lock.
    fn counter(locked: bool) -> Program {
        let inc = |l: bool| {
            let mut v = vec![Op::Read { var: 0, reg: 0 }, Op::Write { var: 0, value: 1, plus: Some(0) }];
            if l {
                v.insert(0, Op::Lock(0));
                v.push(Op::Unlock(0));
            }
            v
        };
        Program {
            threads: vec![
                vec![Op::Start(1), Op::Start(2), Op::Join(1), Op::Join(2), Op::Read { var: 0, reg: 1 }],
                inc(locked),
                inc(locked),
            ],
        }
    }

    #[test]
    fn a_lost_update_is_found_and_locks_make_it_go_away() {
        for bound in [Some(0), Some(1), Some(2), None] {
            check(&counter(false), bound);
            check(&counter(true), bound);
        }
        let (obs, _, _) = searched(&counter(false), Shape::Icb { max_bound: Some(2) }, None);
        assert!(
            obs.iter().any(|o| o.1[0][1] == 1) && obs.iter().any(|o| o.1[0][1] == 2),
            "both the lost update and the correct sum"
        );
        let (obs, _, claim) = searched(&counter(true), Shape::Icb { max_bound: Some(2) }, None);
        assert!(obs.iter().all(|o| o.1[0][1] == 2), "with the lock every schedule counts both");
        assert!(claim.exhausted, "{claim:?}");
    }

    #[test]
    fn independent_threads_need_one_execution() {
        let p = Program {
            threads: vec![
                vec![Op::Start(1), Op::Start(2)],
                vec![
                    Op::Write { var: 0, value: 1, plus: None },
                    Op::Read { var: 0, reg: 0 },
                    Op::Write { var: 0, value: 2, plus: None },
                ],
                vec![
                    Op::Write { var: 1, value: 1, plus: None },
                    Op::Read { var: 1, reg: 0 },
                    Op::Write { var: 1, value: 2, plus: None },
                ],
            ],
        };
        let (unreduced, runs) = check(&p, Some(2));
        assert_eq!(runs, 1, "nothing conflicts");
        assert!(unreduced > 10, "{unreduced}");
    }

    /// Counting threads (`hits.incrementAndGet();`, the value dropped) in any order end the
    /// same: one class, however many threads count. A read in between tells them apart.
    /// (No joins: a join races with the end of the thread it waits for, whatever it ran.)
    #[test]
    fn commutative_updates_need_one_execution_until_someone_reads_between() {
        let counting = |n: usize| Program {
            threads: std::iter::once((1..=n as ThreadId).map(Op::Start).collect())
                .chain((0..n).map(|_| vec![Op::Add { var: 0, value: 1 }, Op::Add { var: 0, value: 1 }]))
                .collect(),
        };
        for n in [2, 3] {
            let (unreduced, runs) = check(&counting(n), None);
            check(&counting(n), Some(2));
            assert_eq!(runs, 1, "{n} counting threads");
            let (_, bounded, _) = reduced(&counting(n), Config::bounded(Some(2), false), None);
            assert_eq!(bounded, 1, "{n} counting threads, BPOR");
            assert!(unreduced == 0 || unreduced > 5, "{unreduced}");
            let (obs, _, _) = searched(&counting(n), Shape::Icb { max_bound: None }, None);
            assert!(obs.iter().all(|o| o.0[0] == 2 * n as i32), "{obs:?}");
        }
        // One thread reads the counter between its two updates: the other's updates before,
        // between or after it are three outcomes.
        let mut p = counting(2);
        p.threads[1].insert(1, Op::Read { var: 0, reg: 0 });
        let (_, runs) = check(&p, None);
        let (obs, _, _) = searched(&p, Shape::Icb { max_bound: None }, None);
        let seen: BTreeSet<i32> = obs.iter().map(|o| o.1[1][0]).collect();
        assert_eq!(seen, BTreeSet::from([1, 2, 3]), "{obs:?}");
        assert!(runs >= 3, "{runs}");
    }

    /// A bounded search with sleep sets would miss this outcome: thread 0 reads the write of
    /// thread 2 while thread 1 read before it, with one preemption (found by the property
    /// test below when sleep sets were tried under the bound).
    #[test]
    fn sleep_sets_would_lose_a_schedule_within_the_bound() {
        let p = Program {
            threads: vec![
                vec![Op::Start(1), Op::Start(2), Op::Read { var: 2, reg: 0 }],
                vec![Op::Read { var: 2, reg: 0 }],
                vec![Op::Lock(0), Op::Write { var: 2, value: 1, plus: None }, Op::Unlock(0)],
            ],
        };
        for bound in [Some(0), Some(1), Some(2), None] {
            check(&p, bound);
        }
    }

    /// A lock's release and its next acquisition cannot be reordered, but under a bound the
    /// point before the release matters: preempting thread 2 there, while it holds lock 0,
    /// lets thread 3 run up to the lock and block, and thread 1 run, with one preemption.
    #[test]
    fn preempting_a_lock_holder_before_its_release() {
        let p = Program {
            threads: vec![
                vec![Op::Start(1), Op::Start(2), Op::Start(3)],
                vec![Op::Write { var: 0, value: 3, plus: None }],
                vec![
                    Op::Lock(0),
                    Op::Read { var: 0, reg: 0 },
                    Op::Unlock(0),
                    Op::Write { var: 0, value: 1, plus: None },
                    Op::Write { var: 2, value: 1, plus: None },
                ],
                vec![
                    Op::Lock(1),
                    Op::Write { var: 2, value: 2, plus: None },
                    Op::Unlock(1),
                    Op::Lock(0),
                    Op::Read { var: 0, reg: 0 },
                    Op::Unlock(0),
                ],
            ],
        };
        for bound in [Some(0), Some(1), Some(2), None] {
            check(&p, bound);
        }
    }

    /// With sleep sets, racing thread 2 is asleep where the race between the writes of
    /// variable 2 needs reversing, and the reversal must start with thread 1 (it writes
    /// variable 0 before thread 2 does): Flanagan & Godefroid's rule (add the racing thread)
    /// loses this outcome, Source-DPOR's initials do not.
    #[test]
    fn a_race_whose_reversal_starts_with_another_thread() {
        let p = Program {
            threads: vec![
                vec![Op::Start(1), Op::Start(2), Op::Start(3), Op::Read { var: 2, reg: 0 }],
                vec![Op::Write { var: 0, value: 3, plus: None }],
                vec![
                    Op::Lock(0),
                    Op::Read { var: 0, reg: 0 },
                    Op::Unlock(0),
                    Op::Write { var: 0, value: 1, plus: None },
                    Op::Write { var: 2, value: 1, plus: None },
                ],
                vec![
                    Op::Lock(0),
                    Op::Write { var: 2, value: 2, plus: None },
                    Op::Unlock(0),
                    Op::Lock(0),
                    Op::Read { var: 0, reg: 0 },
                    Op::Unlock(0),
                ],
            ],
        };
        for bound in [Some(0), Some(1), Some(2), None] {
            check(&p, bound);
        }
    }

    /// Two races at one step whose reversals start with different threads: each needs one
    /// of its own initials (one of them is asleep there, the other is not).
    #[test]
    fn each_race_needs_its_own_initial() {
        let p = Program {
            threads: vec![
                vec![Op::Start(1), Op::Start(2), Op::Read { var: 1, reg: 0 }],
                vec![
                    Op::Write { var: 1, value: 3, plus: None },
                    Op::Lock(0),
                    Op::Read { var: 1, reg: 0 },
                    Op::Unlock(0),
                    Op::Read { var: 1, reg: 1 },
                ],
                vec![Op::Write { var: 1, value: 1, plus: None }],
            ],
        };
        for bound in [Some(0), Some(1), Some(2), None] {
            check(&p, bound);
        }
    }

    /// A buffer of one slot (variable 0 counts its items, variable 1 holds the item) with
    /// `producers` threads that put once and `consumers` that take once, each in a wait
    /// loop; `all`: producers and consumers wake with `notifyAll`, else with `notify`.
    fn buffer(producers: usize, consumers: usize, all: bool) -> Program {
        let put = |item: i32| {
            vec![
                Op::Lock(0),
                Op::Await { lock: 0, var: 0, value: 0 },
                Op::Write { var: 1, value: item, plus: None },
                Op::Write { var: 0, value: 1, plus: None },
                Op::Notify { lock: 0, all },
                Op::Unlock(0),
            ]
        };
        let take = vec![
            Op::Lock(0),
            Op::Await { lock: 0, var: 0, value: 1 },
            Op::Read { var: 1, reg: 0 },
            Op::Write { var: 0, value: 0, plus: None },
            Op::Notify { lock: 0, all },
            Op::Unlock(0),
        ];
        let n = producers + consumers;
        let mut threads = vec![(1..=n as ThreadId).map(Op::Start).collect::<Vec<_>>()];
        threads.extend((0..producers).map(|p| put(p as i32 + 1)));
        threads.extend((0..consumers).map(|_| take.clone()));
        Program { threads }
    }

    /// A one-slot buffer's every outcome (who takes which item) is reached and claimed, with
    /// `notifyAll` and with `notify` (where a waiter in the wait set changes who can be
    /// woken, and a consumer can wake the other consumer: a lost wake-up).
    #[test]
    fn a_buffer_of_one_slot_reaches_every_outcome_and_its_lost_wakeup() {
        for all in [true, false] {
            for bound in [Some(0), Some(1), Some(2), None] {
                check(&buffer(2, 1, all), bound);
                check(&buffer(1, 2, all), bound);
            }
        }
        let (obs, _, claim) = searched(&buffer(2, 2, true), Shape::Icb { max_bound: None }, None);
        assert!(claim.exhausted, "{claim:?}");
        assert!(obs.iter().all(|o| !o.2), "notifyAll: no deadlock");
        let taken: BTreeSet<(i32, i32)> = obs.iter().map(|o| (o.1[3][0], o.1[4][0])).collect();
        assert_eq!(taken, BTreeSet::from([(1, 2), (2, 1)]), "either consumer takes either item");
        let (obs, _, _) = searched(&buffer(1, 2, false), Shape::Icb { max_bound: None }, None);
        assert!(
            obs.iter().any(|o| o.2),
            "notify: a consumer wakes the other, the producer's item is never taken twice"
        );
    }

    /// A wait-loop check that failed races with a write that did not wake it: thread 1 can
    /// only pass by reading variable 0 between thread 2's two writes, and the `notifyAll`
    /// that wakes it comes after both. (A reduction that took such a check for one that
    /// changed nothing would lose that outcome.)
    #[test]
    fn a_failed_check_still_races_with_a_write_that_did_not_wake_it() {
        let p = Program {
            threads: vec![
                vec![Op::Start(1), Op::Start(2)],
                vec![
                    Op::Lock(0),
                    Op::Await { lock: 0, var: 0, value: 1 },
                    Op::Write { var: 2, value: 1, plus: None },
                    Op::Unlock(0),
                ],
                vec![
                    Op::Write { var: 0, value: 1, plus: None },
                    Op::Write { var: 0, value: 2, plus: None },
                    Op::Lock(0),
                    Op::Notify { lock: 0, all: true },
                    Op::Unlock(0),
                ],
            ],
        };
        for bound in [Some(0), Some(1), Some(2), None] {
            check(&p, bound);
        }
        let (obs, _, _) = searched(&p, Shape::Icb { max_bound: None }, None);
        assert!(obs.iter().any(|o| o.0[2] == 1) && obs.iter().any(|o| o.2), "{obs:?}");
    }

    /// A readers-writer gate whose readers decrement their count outside the monitor (a lost
    /// decrement leaves the writer waiting forever): the writer's failed checks do not hide
    /// the readers' race.
    #[test]
    fn a_failed_check_does_not_hide_a_lost_decrement_that_strands_its_waiter() {
        // `startRead`: wait while writing (variable 1), count in; `endRead`, unsynchronized:
        // count out, and wake all when the count read was 1 (it falls to 0).
        let reader = vec![
            Op::Lock(0),
            Op::Await { lock: 0, var: 1, value: 0 },
            Op::Read { var: 0, reg: 0 },
            Op::Write { var: 0, value: 1, plus: Some(0) },
            Op::Unlock(0),
            Op::Read { var: 2, reg: 1 },
            Op::Read { var: 0, reg: 0 },
            Op::Write { var: 0, value: -1, plus: Some(0) },
            Op::Skip { reg: 0, value: 2, skip: 3 },
            Op::Lock(0),
            Op::Notify { lock: 0, all: true },
            Op::Unlock(0),
        ];
        // `startWrite`: wait while readers are in, then write.
        let writer = [
            Op::Lock(0),
            Op::Read { var: 1, reg: 1 },
            Op::Await { lock: 0, var: 0, value: 0 },
            Op::Write { var: 1, value: 1, plus: None },
            Op::Unlock(0),
            Op::Write { var: 2, value: 5, plus: None },
        ];
        let main: Vec<Op> = [Op::Start(1), Op::Start(2)].into_iter().chain(writer).collect();
        let p = Program { threads: vec![main, reader.clone(), reader] };
        for bound in [Some(0), Some(1), Some(2), None] {
            check(&p, bound);
        }
        let (obs, _, _) = searched(&p, Shape::Icb { max_bound: None }, None);
        assert!(obs.iter().any(|o| o.2), "the lost decrement strands the writer: {obs:?}");
    }

    proptest! {
        // A few dozen programs in the default suite (each is searched a dozen ways, unreduced
        // runs included); `PROPTEST_CASES=2000 cargo test --release` for a longer hunt.
        #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(48), .. ProptestConfig::default() })]

        /// Reduction never loses an outcome: at every bound and unbounded, each tree and
        /// the search reach every observation of the unreduced search.
        #[test]
        fn the_reduced_search_reaches_every_outcome(p in program()) {
            for bound in [Some(0), Some(1), Some(2), None] {
                check(&p, bound);
            }
        }

        /// The same on programs with wait loops and notifications (deadlocks included).
        #[test]
        fn wait_loops_lose_no_outcome(p in waiting_program()) {
            for bound in [Some(0), Some(1), Some(2), None] {
                check(&p, bound);
            }
        }
    }
}
