//! A tree of schedules: the ones explored so far, and the ones still to run.
//!
//! A node is a decision point reached by a prefix of choices; its children are the
//! threads (or, at a `notify`, the waiters) tried there. Every execution adds the nodes of
//! the decisions it passed beyond its prefix, and the analysis of its trace
//! ([`crate::search::dpor`]) adds *branches*: a thread to try at a node of its path. A
//! branch is a schedule: the node's prefix, then that thread, then the default rule. A
//! branch costs the preemptions of its schedule; branches run cheapest first (the order of
//! iterative context bounding, CHESS), and a prioritization (CAPP, `pair`) ranks the
//! branches of one cost: those it postpones run after the others of that cost (CAPP's
//! next iteration, section 3.2), before any of the next cost.
//!
//! A tree is one of two kinds ([`Config`]), and an exploration keeps both
//! ([`crate::search::Search`]), because each claims something the other cannot:
//!
//! - **Bounded** (BPOR, Coons et al. OOPSLA 2013): with its conservative branches and
//!   without sleep sets. Bound `k` is *complete* when no branch of cost `<= k` is left:
//!   then every schedule with at most `k` preemptions is equivalent to one that ran.
//! - **Exhaustive** (Source-DPOR with sleep sets, Abdulla et al. POPL 2014, Algorithm 1):
//!   every schedule, whatever its preemptions. When nothing is left, *every* schedule is
//!   equivalent to one that ran. When a node's child `q` was tried before child `p`, a
//!   schedule from `p` in which `q`'s step comes next while it is still independent of all
//!   that ran since is equivalent to one from `q`: `q` is *asleep* in `p`'s subtree until a
//!   step that conflicts with its own runs, and a schedule that would run a sleeping thread
//!   is covered elsewhere (a *redundant* run: its tail is not added). Sound for any order
//!   of the branches, because only siblings created earlier put a branch to sleep.
//!
//! A sleep set outlives the run it was computed from: a thread's next step at a node is
//! kept from the run that created the node and compared with the steps of later runs. That
//! is sound because objects are named by birth (PROTOCOL.md, "Effects"), the same in every
//! run through the node; an object the agent could only number by first use stands for any
//! object on its slot ([`dpor::conflicts_across_runs`]). The run is told its sleep set
//! ([`Tree::sleep_option`]) so that, past its choices, it prefers threads that are awake
//! instead of running into a sleeping one (which would make the rest of it redundant).
//!
//! Why not both in one tree: sleep sets are unsound under a preemption bound. The schedule
//! they rely on can cost more preemptions than the one they skip (a thread put to sleep by
//! a sibling tried first must then be preempted to let the others run before it), so a
//! bounded search with sleep sets misses schedules within the bound — the property test in
//! [`crate::search::sim`] finds such a program in a fraction of a second. BPOR's
//! conservative branches compensate for the bound in the backtracking, not in sleep sets.
//!
//! The bounded tree also takes in the runs the exhaustive one asked for ([`Tree::adopt`]):
//! exploring more than BPOR asked for never loses anything. The other way round it would
//! cost: sleep sets follow the order in which their own tree explores, so a foreign run
//! entered as a branch is mostly a class explored again, and its races add more.
//!
//! A tree may explore one [`Part`] of a test's schedules: every part makes the same first
//! run, then the branches it called for are dealt among the parts, and those dealt to
//! another are left to it (`Elsewhere`); every branch found later is the finder's
//! ([`crate::search::part`] says why the parts together claim what the whole tree would).

use std::collections::BTreeMap;
use std::ops::Range;

use crate::jvm::protocol::{Decision, Execution, ThreadId, Threads};
use crate::jvm::trace::{Effect, Trace};
use crate::search::dpor::{self, conflicts_across_runs, Backtrack, ImpactedSteps};
use crate::search::part::Part;
use crate::search::rng::XorShift;

pub type NodeId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting in the queue.
    Queued,
    /// Beyond the largest bound asked for: not run.
    Deferred,
    /// Postponed by the prioritization and left out (selection mode).
    Skipped,
    Running,
    Explored,
    /// Covered by an earlier sibling (its thread is asleep here).
    Asleep,
    /// Dealt to another part of the schedules ([`crate::search::part`]).
    Elsewhere,
}

/// Why a branch is added: BPOR's conservative point, and whether a race it reverses has an
/// impacted access (selection).
#[derive(Clone, Copy, Debug, Default)]
struct Reversal {
    conservative: bool,
    impacted: bool,
}

#[derive(Clone, Debug)]
struct Child {
    thread: ThreadId,
    state: State,
    cost: u32,
    conservative: bool,
    /// Added to reverse a race with an impacted access (selection).
    impacted: bool,
    order: u64,
    /// The node of the next decision point after this choice, once a run passed it.
    next: Option<NodeId>,
}

#[derive(Clone, Debug)]
struct Node {
    parent: Option<(NodeId, ThreadId)>,
    /// The decision's index in executions through this node.
    depth: u32,
    step: u32,
    /// Enabled threads (a scheduling decision) or the waiters (a `notify`).
    choices: Threads,
    current: Option<ThreadId>,
    notify: bool,
    /// Preemptions of the prefix before this decision.
    preemptions: u32,
    /// Whether the prefix reverses a race with an impacted access: under selection, a
    /// schedule with one such reversal is selected whatever else it reorders (ReConTest
    /// §IV: an interleaving with at least one impacted access).
    selected_prefix: bool,
    /// Threads asleep here, with the effects of the step each would take.
    sleep: Vec<(ThreadId, Range<u32>)>,
    /// The effects of each enabled thread's next step here (in the effects arena).
    next_ops: Vec<(ThreadId, Range<u32>)>,
    /// The prioritization's rank of each alternative (lower runs first); `None`:
    /// postponed.
    ranks: Ranks,
    children: Vec<Child>,
}

/// A prioritization's verdict on the alternatives of a decision point: the rank of each
/// thread (lower runs first), `None` for the postponed.
pub type Ranks = Vec<(ThreadId, Option<u32>)>;

impl Node {
    fn preempts(&self, t: ThreadId) -> bool {
        !self.notify && self.current.is_some_and(|c| c != t && self.choices.contains(c))
    }

    fn child(&self, t: ThreadId) -> Option<&Child> {
        self.children.iter().find(|c| c.thread == t)
    }

    fn child_mut(&mut self, t: ThreadId) -> Option<&mut Child> {
        self.children.iter_mut().find(|c| c.thread == t)
    }

    fn next_op(&self, t: ThreadId) -> Option<Range<u32>> {
        self.next_ops.iter().find(|(x, _)| *x == t).map(|(_, r)| r.clone())
    }

    fn rank(&self, t: ThreadId) -> Option<u32> {
        self.ranks.iter().find(|(x, _)| *x == t).and_then(|(_, r)| *r)
    }
}

/// The kind of tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// BPOR's conservative branches: the tree claims complete bounds.
    pub conservative: bool,
    /// Sleep sets: the tree claims only exhaustion.
    pub sleep_sets: bool,
    /// Cheapest branches first (iterative context bounding); `false`: plain depth-first.
    pub by_cost: bool,
    /// Branches of a larger cost are not run (`None`: no limit).
    pub max_bound: Option<u32>,
    /// Drop what the prioritization postpones instead of running it later.
    pub select: bool,
}

impl Config {
    /// BPOR up to `max_bound`.
    pub fn bounded(max_bound: Option<u32>, select: bool) -> Config {
        Config { conservative: true, sleep_sets: false, by_cost: true, max_bound, select }
    }

    /// DPOR with sleep sets over every schedule, cheapest first or depth-first.
    pub fn exhaustive(by_cost: bool, select: bool) -> Config {
        Config { conservative: false, sleep_sets: true, by_cost, max_bound: None, select }
    }
}

/// A schedule to run: a node and a thread (no node: the very first run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branch {
    pub node: Option<NodeId>,
    pub thread: ThreadId,
}

/// What incorporating an execution did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// A sleeping thread would have run: the rest of this execution repeats schedules
    /// covered elsewhere.
    pub redundant: bool,
    pub branches: usize,
}

/// What a tree covers now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Every schedule with at most this many preemptions is equivalent to one that ran
    /// (a bounded tree; `None`: not even bound 0).
    pub complete_bound: Option<u32>,
    /// Nothing is left: every schedule is equivalent to one that ran.
    pub exhausted: bool,
    /// The cheapest cost still open, with the runs made and the branches waiting at it.
    pub open: Option<(u32, u64, u64)>,
    /// Branches beyond the largest bound asked for.
    pub deferred: u64,
    /// Branches the selection left out.
    pub skipped: u64,
    /// Runs whose tail was covered elsewhere (sleep sets).
    pub redundant: u64,
}

/// A queued branch's place: its cost (0 without iterative context bounding), whether the
/// prioritization postponed it, its rank.
type Key = (u32, bool, u32);

pub struct Tree {
    config: Config,
    nodes: Vec<Node>,
    /// Effects of nodes' next steps, shared by all nodes.
    arena: Vec<Effect>,
    queue: BTreeMap<Key, Vec<(NodeId, ThreadId)>>,
    /// Branches in the queue still waiting (the queue also holds some another tree's run took).
    waiting: u64,
    started: bool,
    order: u64,
    rng: Option<XorShift>,
    redundant: u64,
    /// Branches the selection left out now (kept as they change: the search asks after
    /// every run, and counting them walks the whole tree).
    skipped: u64,
    /// Runs so far per cost.
    runs: BTreeMap<u32, u64>,
    /// The part of the schedules this tree explores.
    part: Part,
}

impl Tree {
    pub fn new(config: Config, seed: Option<u64>) -> Tree {
        Tree {
            config,
            nodes: Vec::new(),
            arena: Vec::new(),
            queue: BTreeMap::new(),
            waiting: 0,
            started: false,
            order: 0,
            rng: seed.map(XorShift::new),
            redundant: 0,
            skipped: 0,
            runs: BTreeMap::new(),
            part: Part::WHOLE,
        }
    }

    /// The tree of `part` of the schedules only.
    pub fn in_part(mut self, part: Part) -> Tree {
        self.part = part;
        self
    }

    pub fn config(&self) -> Config {
        self.config
    }

    /// The next branch to run, cheapest first; `None` when nothing is left.
    pub fn next(&mut self) -> Option<Branch> {
        if !self.started {
            self.started = true;
            *self.runs.entry(0).or_default() += 1;
            return Some(Branch { node: None, thread: 0 });
        }
        loop {
            let key = *self.queue.keys().next()?;
            let bucket = self.queue.get_mut(&key).expect("a key of the map");
            let (node, thread) = match &mut self.rng {
                Some(rng) => {
                    let i = rng.below(bucket.len());
                    bucket.swap_remove(i)
                }
                None => bucket.pop().expect("buckets are never left empty"),
            };
            if bucket.is_empty() {
                self.queue.remove(&key);
            }
            // A branch another tree's run already took is no longer queued.
            let Some(c) = self.nodes[node as usize].child_mut(thread).filter(|c| c.state == State::Queued) else {
                continue;
            };
            c.state = State::Running;
            self.waiting -= 1;
            let cost = c.cost;
            *self.runs.entry(cost).or_default() += 1;
            return Some(Branch { node: Some(node), thread });
        }
    }

    /// Whether a branch is left to run.
    pub fn has_next(&self) -> bool {
        !self.started || self.waiting > 0
    }

    /// How many branches wait to run.
    pub fn waiting(&self) -> u64 {
        self.waiting
    }

    /// The choices that run `branch`: the threads chosen from the root to its node, then
    /// its thread.
    pub fn choices(&self, branch: Branch) -> Vec<ThreadId> {
        let Some(node) = branch.node else { return Vec::new() };
        let mut out = vec![branch.thread];
        let mut at = node;
        while let Some((parent, t)) = self.nodes[at as usize].parent {
            out.push(t);
            at = parent;
        }
        out.reverse();
        out
    }

    /// The sleep set `branch`'s run starts with, as the agent's RUN option `sleep` spells it
    /// (`None`: no sleep sets in this tree, or nobody asleep): the step from which it
    /// holds, then each sleeping thread with the effects of its next step.
    pub fn sleep_option(&self, branch: Branch) -> Option<String> {
        let n = branch.node.filter(|_| self.config.sleep_sets)?;
        let sleep = self.sleep_of_branch(n, branch.thread);
        if sleep.is_empty() {
            return None;
        }
        let mut out = format!("sleep={}", self.nodes[n as usize].step);
        for (t, r) in &sleep {
            out.push_str(&format!("/{t}:"));
            for e in &self.arena[r.start as usize..r.end as usize] {
                out.push_str(&e.code());
            }
        }
        Some(out)
    }

    /// The preemptions of `branch`'s schedule.
    pub fn cost(&self, branch: Branch) -> u32 {
        branch.node.and_then(|n| self.nodes[n as usize].child(branch.thread)).map_or(0, |c| c.cost)
    }

    /// Takes in a run another tree asked for: where it leaves this tree's explored paths,
    /// it counts as a branch of this tree. Nothing happens when it follows them all the way
    /// or runs a thread asleep here.
    pub fn adopt(
        &mut self,
        exec: &Execution,
        ranks: &mut dyn FnMut(usize) -> Ranks,
        impacted: ImpactedSteps,
    ) -> Result<Recorded, String> {
        if !self.started {
            self.started = true;
            *self.runs.entry(0).or_default() += 1;
            return self.record(Branch { node: None, thread: 0 }, exec, ranks, impacted);
        }
        let Some(mut node) = self.root() else { return Ok(Recorded::default()) };
        for dec in &exec.decisions {
            let n = &self.nodes[node as usize];
            if n.step != dec.step || n.notify != dec.waiters.is_some() {
                return Err("a run of the same schedule passed other decision points: the test does not behave the same way under the same schedule".into());
            }
            match n.child(dec.thread).map(|c| (c.state, c.next)) {
                Some((State::Explored, Some(next))) => node = next,
                // This tree saw that much of the run, and it ended (or will) the same way.
                Some((State::Explored | State::Running, None)) => return Ok(Recorded::default()),
                Some((State::Asleep, _)) => return Ok(Recorded { redundant: true, branches: 0 }),
                // Dealt to another part: that part explores it.
                Some((State::Elsewhere, _)) => return Ok(Recorded::default()),
                Some(_) => {
                    let c = self.nodes[node as usize].child_mut(dec.thread).expect("just found");
                    if c.state == State::Queued {
                        self.waiting -= 1;
                    }
                    c.state = State::Running;
                    let cost = c.cost;
                    *self.runs.entry(cost).or_default() += 1;
                    return self.record(Branch { node: Some(node), thread: dec.thread }, exec, ranks, impacted);
                }
                // A part takes in only what it was dealt or found: every part runs the same
                // exhaustive tree, and a run that leaves the paths here would be taken in by
                // all of them, each exploring what it calls for ([`crate::search::part`]).
                None if !self.part.is_whole() => return Ok(Recorded::default()),
                None => {
                    let cost = n.preemptions + u32::from(n.preempts(dec.thread));
                    self.add_child(node, dec.thread, State::Running, cost, false);
                    *self.runs.entry(cost).or_default() += 1;
                    return self.record(Branch { node: Some(node), thread: dec.thread }, exec, ranks, impacted);
                }
            }
        }
        Ok(Recorded::default())
    }

    /// The node of the first decision point (the root of the tree), once a run passed one.
    fn root(&self) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.parent.is_none()).map(|i| i as NodeId)
    }

    /// Adds what the execution of `branch` shows: its new decision points, and the
    /// branches its conflicts call for. `ranks` is the prioritization of a decision point
    /// of `exec`. Fails when the execution does not follow the tree (the test is not
    /// deterministic).
    pub fn record(
        &mut self,
        branch: Branch,
        exec: &Execution,
        ranks: &mut dyn FnMut(usize) -> Ranks,
        impacted: ImpactedSteps,
    ) -> Result<Recorded, String> {
        let trace = exec.trace.as_ref().ok_or("the agent sent no trace of the execution (RUN option `trace`)")?;
        let mut path = self.path_to(branch);
        self.check_prefix(&path, branch, exec)?;
        let start_depth = path.len();
        let (mut sleep, start_step) = match branch.node {
            None => (Vec::new(), 0),
            Some(n) => {
                let sleep = if self.config.sleep_sets { self.sleep_of_branch(n, branch.thread) } else { Vec::new() };
                if let Some(c) = self.nodes[n as usize].child_mut(branch.thread) {
                    c.state = State::Explored;
                }
                (sleep, self.nodes[n as usize].step as usize)
            }
        };
        let mut parent = branch.node.map(|n| (n, branch.thread));
        let preemptions = preemption_counts(&exec.decisions);
        let mut by_step: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (d, dec) in exec.decisions.iter().enumerate().skip(start_depth) {
            by_step.entry(dec.step).or_default().push(d);
        }
        let mut limit = trace.steps.len();
        let mut recorded = Recorded::default();
        for k in start_step..trace.steps.len() {
            let here = by_step.get(&(k as u32)).cloned().unwrap_or_default();
            // The branch's own step was decided at its node.
            if k > start_step || branch.node.is_none() {
                let runner = trace.steps[k].thread;
                let asleep = sleep.iter().any(|(t, _)| *t == runner);
                if let Some(d) = here.iter().copied().find(|&d| exec.decisions[d].waiters.is_none()) {
                    if exec.decisions[d].thread != runner {
                        return Err(format!(
                            "the agent's trace disagrees with its decision {d}: step {k} ran thread {runner}, not {}",
                            exec.decisions[d].thread
                        ));
                    }
                    let id = self.add_node(parent, d, exec, trace, &sleep, preemptions[d], ranks(d));
                    path.push(id);
                    if asleep {
                        self.sleep_blocked(id, &sleep);
                        limit = k;
                        recorded.redundant = true;
                        break;
                    }
                    let cost = preemptions[d] + u32::from(exec.decisions[d].preempts(runner));
                    self.add_child(id, runner, State::Explored, cost, false);
                    parent = Some((id, runner));
                } else if asleep {
                    limit = k;
                    recorded.redundant = true;
                    break;
                }
            }
            let effects = trace.step_effects(k);
            sleep.retain(|(_, r)| !conflicts_across_runs(&self.arena[r.start as usize..r.end as usize], effects));
            // `notify` decisions of this step: which waiter wakes.
            for d in here.iter().copied().filter(|&d| exec.decisions[d].waiters.is_some()) {
                let id = self.add_node(parent, d, exec, trace, &sleep, preemptions[d], Vec::new());
                path.push(id);
                let dec = &exec.decisions[d];
                self.add_child(id, dec.thread, State::Explored, preemptions[d], false);
                for w in dec.alternatives() {
                    recorded.branches += usize::from(self.add_branch(id, w, Reversal::default()));
                }
                parent = Some((id, dec.thread));
            }
        }
        if recorded.redundant {
            self.redundant += 1;
        }
        // The conflicts of what ran, as branches at the nodes of this execution's path.
        let node_at: std::collections::HashMap<u32, NodeId> = path
            .iter()
            .copied()
            .filter(|&n| !self.nodes[n as usize].notify)
            .map(|n| (self.nodes[n as usize].step, n))
            .collect();
        let impacted = impacted.filter(|_| self.config.select);
        let backtracks = if self.config.sleep_sets {
            dpor::source::analyze(trace, limit, !recorded.redundant, impacted)
        } else {
            dpor::bpor::analyze(exec, trace, limit, self.config.conservative, impacted)
        };
        let mut adds: Vec<(NodeId, &Backtrack)> =
            backtracks.iter().filter_map(|b| Some((*node_at.get(&b.step)?, b))).collect();
        // Depth-first: the deepest branches are popped first, lower threads first.
        adds.sort_by(|&(n, a), &(m, b)| {
            self.nodes[n as usize].depth.cmp(&self.nodes[m as usize].depth).then_with(|| b.threads.cmp(&a.threads))
        });
        for (n, b) in adds {
            let why = Reversal { conservative: b.conservative, impacted: b.impacted };
            recorded.branches += if self.config.sleep_sets {
                usize::from(self.add_initial(n, &b.threads, why))
            } else {
                usize::from(self.add_branch(n, b.threads.first().unwrap_or(0), why))
            };
        }
        if branch.node.is_none() && !self.part.is_whole() {
            self.deal();
        }
        Ok(recorded)
    }

    /// After the first run, which every part makes: the branches it called for dealt
    /// round-robin among the parts, in the order of their decision points (then threads),
    /// so that each part gets some at every depth; those dealt to another part are left to
    /// it. Every part computes the same deal from the same run. (Dealing later, once 4
    /// branches per part waited, was tried on the CAPP bench's correct versions in 4 parts:
    /// it evened out some tests and made others worse, the longest part of render-queue
    /// 11,068 runs instead of 6,692, of proxy-stats 1,302 instead of 835, since which part
    /// gets the large subtrees is then a matter of luck.)
    fn deal(&mut self) {
        let mut queued: Vec<(u32, NodeId, ThreadId)> = Vec::new();
        for (id, n) in self.nodes.iter().enumerate() {
            queued.extend(
                n.children.iter().filter(|c| c.state == State::Queued).map(|c| (n.depth, id as NodeId, c.thread)),
            );
        }
        queued.sort_unstable();
        for (i, (_, n, thread)) in queued.into_iter().enumerate() {
            if !self.part.deals_to_me(i) {
                self.nodes[n as usize].child_mut(thread).expect("just listed").state = State::Elsewhere;
                self.waiting -= 1;
            }
        }
    }

    /// The nodes from the root to `branch`'s node.
    fn path_to(&self, branch: Branch) -> Vec<NodeId> {
        let mut path = Vec::new();
        let mut at = branch.node;
        while let Some(n) = at {
            path.push(n);
            at = self.nodes[n as usize].parent.map(|(p, _)| p);
        }
        path.reverse();
        path
    }

    /// The execution passed the same decision points as the tree says its prefix does.
    fn check_prefix(&self, path: &[NodeId], branch: Branch, exec: &Execution) -> Result<(), String> {
        for (d, &n) in path.iter().enumerate() {
            let node = &self.nodes[n as usize];
            let Some(dec) = exec.decisions.get(d) else {
                return Err(format!("the run ended before decision point {d}, which the same schedule reached before"));
            };
            let same = dec.step == node.step
                && *dec.choices() == node.choices
                && dec.current == node.current
                && dec.waiters.is_some() == node.notify;
            let chosen =
                path.get(d + 1).map_or(branch.thread, |&next| self.nodes[next as usize].parent.map_or(0, |(_, t)| t));
            if !same || dec.thread != chosen {
                return Err(format!(
                    "decision point {d} differs from the same schedule's earlier run (step {} vs {}, threads {:#x} vs {:#x})",
                    dec.step,
                    node.step,
                    dec.choices(),
                    node.choices
                ));
            }
        }
        Ok(())
    }

    /// The sleep set `thread`'s branch at node `n` starts with: the node's own, and the
    /// siblings created before it, without those whose step conflicts with `thread`'s.
    /// Conservative siblings put nothing to sleep.
    fn sleep_of_branch(&self, n: NodeId, thread: ThreadId) -> Vec<(ThreadId, Range<u32>)> {
        let node = &self.nodes[n as usize];
        let mut sleep = node.sleep.clone();
        if node.notify {
            return sleep;
        }
        let (Some(me), Some(mine)) = (node.child(thread), node.next_op(thread)) else { return sleep };
        let mine = &self.arena[mine.start as usize..mine.end as usize];
        for c in &node.children {
            let earlier = c.order < me.order && !c.conservative && c.thread != thread;
            if earlier
                && matches!(c.state, State::Explored | State::Queued | State::Running)
                && !sleep.iter().any(|(t, _)| *t == c.thread)
            {
                if let Some(r) = node.next_op(c.thread) {
                    sleep.push((c.thread, r));
                }
            }
        }
        sleep.retain(|(t, r)| {
            *t != thread && !conflicts_across_runs(&self.arena[r.start as usize..r.end as usize], mine)
        });
        sleep
    }

    /// A run reached node `n` with its default thread asleep: its tail is covered
    /// elsewhere. DPOR goes on from such a state with any thread that is awake (Flanagan &
    /// Godefroid, section 4: the first backtracking point of a new state is an enabled thread
    /// outside its sleep set), whatever preemption that costs.
    fn sleep_blocked(&mut self, n: NodeId, sleep: &[(ThreadId, Range<u32>)]) {
        let node = &self.nodes[n as usize];
        let enabled: Vec<ThreadId> = node.choices.iter().collect();
        let (asleep, awake): (Vec<ThreadId>, Vec<ThreadId>) =
            enabled.into_iter().partition(|t| sleep.iter().any(|(s, _)| s == t));
        let cost = node.preemptions;
        for t in asleep {
            self.add_child(n, t, State::Asleep, cost, false);
        }
        if let Some(&t) = awake.first() {
            self.add_branch(n, t, Reversal::default());
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_node(
        &mut self,
        parent: Option<(NodeId, ThreadId)>,
        d: usize,
        exec: &Execution,
        trace: &Trace,
        sleep: &[(ThreadId, Range<u32>)],
        preemptions: u32,
        ranks: Ranks,
    ) -> NodeId {
        let dec = &exec.decisions[d];
        let notify = dec.waiters.is_some();
        let mut next_ops = Vec::new();
        if !notify {
            for t in dec.enabled.iter() {
                let effects = next_step_effects(trace, t, dec.step as usize);
                let start = self.arena.len() as u32;
                self.arena.extend_from_slice(effects);
                next_ops.push((t, start..self.arena.len() as u32));
            }
        }
        let ranks = if notify { dec.alternatives().map(|t| (t, Some(0))).collect() } else { ranks };
        let selected_prefix = parent.is_some_and(|(p, t)| {
            let p = &self.nodes[p as usize];
            p.selected_prefix || p.child(t).is_some_and(|c| c.impacted)
        });
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            parent,
            depth: d as u32,
            step: dec.step,
            choices: dec.choices().clone(),
            current: dec.current,
            notify,
            preemptions,
            selected_prefix,
            sleep: sleep.to_vec(),
            next_ops,
            ranks,
            children: Vec::new(),
        });
        if let Some((p, t)) = parent {
            if let Some(c) = self.nodes[p as usize].child_mut(t) {
                c.next = Some(id);
            }
        }
        id
    }

    fn add_child(&mut self, n: NodeId, thread: ThreadId, state: State, cost: u32, conservative: bool) {
        let order = self.order;
        self.order += 1;
        self.nodes[n as usize].children.push(Child {
            thread,
            state,
            cost,
            conservative,
            impacted: false,
            order,
            next: None,
        });
    }

    /// Adds the branch `thread` at node `n` unless it is there already or asleep; true if
    /// it was added (or woken up by a conservative request).
    fn add_branch(&mut self, n: NodeId, thread: ThreadId, why: Reversal) -> bool {
        let conservative = why.conservative;
        let node = &mut self.nodes[n as usize];
        if !node.choices.contains(thread) {
            return false;
        }
        if let Some(c) = node.child_mut(thread) {
            let wake = conservative && c.state == State::Asleep;
            c.conservative |= conservative;
            // A branch the selection skipped that an impacted race calls for after all.
            if why.impacted && c.state == State::Skipped {
                c.state = State::Queued;
                c.impacted = true;
                let cost = c.cost;
                self.skipped -= 1;
                self.enqueue(n, thread, cost);
                return true;
            }
            if wake {
                c.state = State::Queued;
                let cost = c.cost;
                self.enqueue(n, thread, cost);
            }
            return wake;
        }
        let cost = node.preemptions + u32::from(node.preempts(thread));
        // Which waiter a `notify` wakes is not a reordering: never asleep.
        if !conservative && !node.notify && node.sleep.iter().any(|(t, _)| *t == thread) {
            self.add_child(n, thread, State::Asleep, cost, false);
            return false;
        }
        let state = if self.config.max_bound.is_some_and(|b| cost > b) {
            State::Deferred
        } else if self.config.select && !conservative && !why.impacted && !node.selected_prefix {
            // Selection (ReConTest §IV): only the reversals of races with an impacted access
            // on either side, and everything below one.
            State::Skipped
        } else {
            State::Queued
        };
        self.add_child(n, thread, state, cost, conservative);
        if let Some(c) = self.nodes[n as usize].children.last_mut() {
            c.impacted = why.impacted;
        }
        match state {
            State::Queued => self.enqueue(n, thread, cost),
            State::Skipped => self.skipped += 1,
            _ => {}
        }
        true
    }

    /// Source-DPOR's rule at node `n` for a race whose reversal can start with any of
    /// `initials`: nothing if one of them is tried or asleep here already, else one of them
    /// (or, should none be able to run here, every thread that can).
    fn add_initial(&mut self, n: NodeId, initials: &Threads, why: Reversal) -> bool {
        let node = &self.nodes[n as usize];
        if node.notify {
            return false;
        }
        let has = |t: ThreadId| initials.contains(t);
        if node.children.iter().any(|c| has(c.thread)) || node.sleep.iter().any(|(t, _)| has(*t)) {
            return false;
        }
        let here = initials.intersection(&node.choices);
        if let Some(lowest) = here.first() {
            // Any initial will do: one the prioritization ranks, if there is one.
            let ranked = here.iter().find(|&t| node.rank(t).is_some());
            return self.add_branch(n, ranked.unwrap_or(lowest), why);
        }
        let mut added = false;
        for t in node.choices.iter().collect::<Vec<_>>() {
            added |= self.add_branch(n, t, why);
        }
        added
    }

    fn enqueue(&mut self, n: NodeId, thread: ThreadId, cost: u32) {
        let rank = self.nodes[n as usize].rank(thread);
        // CAPP's iterations within each bound: the prioritized branches of a cost, then the
        // postponed ones, then the next cost.
        let key = (if self.config.by_cost { cost } else { 0 }, rank.is_none(), rank.unwrap_or(0));
        self.queue.entry(key).or_default().push((n, thread));
        self.waiting += 1;
    }

    /// What the tree covers now.
    /// Whether the tree has nothing left to run and the selection left nothing out: it has
    /// run every class of schedules.
    pub fn ran_everything(&self) -> bool {
        !self.has_next() && self.skipped == 0
    }

    pub fn coverage(&self) -> Coverage {
        let mut min_open: Option<u32> = None;
        let mut waiting: BTreeMap<u32, u64> = BTreeMap::new();
        let (mut deferred, mut skipped) = (0, 0);
        for c in self.nodes.iter().flat_map(|n| n.children.iter()) {
            match c.state {
                State::Queued | State::Running => *waiting.entry(c.cost).or_default() += 1,
                State::Deferred => deferred += 1,
                State::Skipped => skipped += 1,
                State::Explored | State::Asleep | State::Elsewhere => continue,
            }
            min_open = Some(min_open.map_or(c.cost, |m| m.min(c.cost)));
        }
        let exhausted = self.started && min_open.is_none();
        let complete_bound = if self.config.conservative && !exhausted && self.started {
            min_open.and_then(|m| m.checked_sub(1))
        } else {
            None
        };
        let open =
            min_open.map(|m| (m, self.runs.get(&m).copied().unwrap_or(0), waiting.get(&m).copied().unwrap_or(0)));
        Coverage { complete_bound, exhausted, open, deferred, skipped, redundant: self.redundant }
    }
}

/// Preemptions before each decision of an execution.
fn preemption_counts(decisions: &[Decision]) -> Vec<u32> {
    let mut out = Vec::with_capacity(decisions.len());
    let mut n = 0;
    for d in decisions {
        out.push(n);
        n += u32::from(d.preempts(d.thread));
    }
    out
}

/// The effects of `t`'s first step from `from` on (or its pending operation at the end).
fn next_step_effects(trace: &Trace, t: ThreadId, from: usize) -> &[Effect] {
    match trace.steps[from.min(trace.steps.len())..].iter().position(|s| s.thread == t) {
        Some(i) => trace.step_effects(from + i),
        None => trace.pending.iter().find(|(x, _)| *x == t).map_or(&[], |(_, r)| trace.effects_of(r)),
    }
}
