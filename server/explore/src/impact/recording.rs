//! One execution of a test as ReConTest's trace model sees it (Terragni et al., ICSE 2015,
//! §II): the shared-memory accesses of every thread, each with its *concurrency context* —
//! the locks its thread holds (lockset), the start/join/wait/notify events its thread took
//! part in since it was created (happens-before, encoded as that sequence, §II "CC
//! encoding"), and the locks its thread released since its previous access (lock-release
//! history).
//!
//! Objects are named by a heap abstraction that means the same object in an execution of
//! another program version (§III.B): the statement that allocated it and how many objects
//! that statement allocated before it, never an address or a per-run number. Threads are
//! named the same way: by the chain of statements that started them.
//!
//! Built from one full-mode execution with the agent's `trace` and `alloc` options (the
//! `E` lines say which site each step ran, the `X` line what it did, the `N` lines where each
//! object was allocated).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::jvm::protocol::{Execution, ObjectInfo, Site, SiteOp, ThreadId};
use crate::jvm::trace::{slot, Access as Effect, BORN};

/// A statement of the program: the class that declares the code and a source line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Statement {
    /// Binary name (`pkg.Shop$1`).
    pub class: String,
    pub line: u32,
}

impl Statement {
    /// `Shop.java:12`.
    pub fn place(&self) -> String {
        let simple = self.class.rsplit('.').next().unwrap_or(&self.class);
        format!("{}.java:{}", simple.split('$').next().unwrap_or(simple), self.line)
    }
}

/// A thread, named by the statements that started it: the test's thread is the empty chain;
/// a thread started by `parent` is `parent`'s chain plus the start statement and how many
/// threads `parent` started there before.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThreadKey(pub Vec<(Statement, u32)>);

/// An object, named so that executions of two program versions can be compared (§III.B).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AbsObj {
    /// Allocated by application code: its class, the allocating statement, and how many
    /// objects that statement allocated before it in this execution.
    Alloc { class: String, at: Statement, occurrence: u32 },
    /// A class's static fields, or its `Class` object (a static lock).
    Class(String),
    /// Not allocated by application code (by the JDK, by reflection, before the test): its
    /// class and how many objects of that class were met before it.
    Other { class: String, occurrence: u32 },
    /// A thread (started, joined).
    Thread(ThreadKey),
}

impl AbsObj {
    /// `Counter@Shop.java:12`, `Shop.class`, `HashMap#2`.
    pub fn display(&self) -> String {
        let simple = |c: &str| c.rsplit('.').next().unwrap_or(c).to_string();
        match self {
            AbsObj::Alloc { class, at, occurrence } => {
                let n = if *occurrence > 0 { format!("#{}", occurrence + 1) } else { String::new() };
                format!("{}@{}{n}", simple(class), at.place())
            }
            AbsObj::Class(c) => format!("{}.class", simple(c)),
            AbsObj::Other { class, occurrence } => format!("{}#{}", simple(class), occurrence + 1),
            AbsObj::Thread(k) => match k.0.last() {
                None => "the test thread".to_string(),
                Some((at, n)) => format!(
                    "thread started at {}{}",
                    at.place(),
                    if *n > 0 { format!(" (#{})", n + 1) } else { String::new() }
                ),
            },
        }
    }
}

/// How a thread takes part in a happens-before edge (§II: `snd`/`rcv` at `start`, `join`,
/// `wait`, `notify`, `notifyAll`; racelens adds the hand-offs of `java.util.concurrent`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SyncKind {
    /// Started the thread (parent), or was started (the child's first event).
    Start,
    Started,
    Join,
    Wait,
    Notify,
    NotifyAll,
    /// A synchronizing call of `java.util.concurrent` (`countDown`, `await`, `signal`,
    /// `put`, `take`, ...), by its method name.
    Call(String),
}

/// One `snd`/`rcv` event of a thread: the object and the kind (`(o, type)`, §II).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Message {
    pub obj: AbsObj,
    pub kind: SyncKind,
}

impl Message {
    pub fn display(&self) -> String {
        let kind = match &self.kind {
            SyncKind::Start => "start".to_string(),
            SyncKind::Started => "started".to_string(),
            SyncKind::Join => "join".to_string(),
            SyncKind::Wait => "wait".to_string(),
            SyncKind::Notify => "notify".to_string(),
            SyncKind::NotifyAll => "notifyAll".to_string(),
            SyncKind::Call(m) => m.clone(),
        };
        format!("{}.{kind}", self.obj.display())
    }
}

/// What an access does. Besides ReConTest's reads and writes (its `mem` events), racelens
/// records the synchronization operations of the program as accesses of their lock or
/// monitor: a preemption right before a `synchronized` block that a change added or moved
/// is where the change's new interleavings start, and the prioritization needs its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Read,
    Write,
    Lock,
    Wait,
    Notify,
    NotifyAll,
}

impl Op {
    /// `read`, `write`, `lock`, `wait`, `notify`, `notifyAll`.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Lock => "lock",
            Op::Wait => "wait",
            Op::Notify => "notify",
            Op::NotifyAll => "notifyAll",
        }
    }

    /// The operation of a synchronization site (`LOCK`, `WAIT`, ...).
    fn of_sync_site(op: &SiteOp) -> Option<Op> {
        match op {
            SiteOp::Lock => Some(Op::Lock),
            SiteOp::Wait => Some(Op::Wait),
            SiteOp::Notify => Some(Op::Notify),
            SiteOp::NotifyAll => Some(Op::NotifyAll),
            _ => None,
        }
    }
}

/// A shared-memory access with its concurrency context `(LS, HB, LR)` (Definition 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub thread: ThreadKey,
    /// The thread's name in this execution, for people.
    pub thread_name: String,
    pub at: Statement,
    pub method: String,
    pub op: Op,
    /// `pkg.Shop.count` for a field, `[]` for an array element, the method for a call into
    /// a JDK object (`java.util.Map.put`); for a lock or monitor operation what the agent
    /// names (`this`, `pkg.Shop.class` for a synchronized method, else `-`).
    pub target: String,
    /// The object accessed.
    pub obj: AbsObj,
    /// How many accesses this thread made before at the same statement and target with the
    /// same kind: with the thread and statement, what aligns it across executions (§III).
    pub occurrence: u32,
    /// Locks held (LS).
    pub lockset: BTreeSet<AbsObj>,
    /// HB: the first `hb` messages of the thread's sequence ([`Recording::messages`]).
    pub hb: usize,
    /// LR: locks the thread released since its previous access, in order.
    pub released: Vec<AbsObj>,
    pub step: u32,
}

/// Every access of one execution, in execution order, and each thread's messages.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pub accesses: Vec<Access>,
    pub messages: HashMap<ThreadKey, Vec<Message>>,
    /// `pass`, `fail`, ...
    pub outcome: String,
    pub steps: u32,
    pub threads: usize,
}

/// Whether a call (`java.util.concurrent.CountDownLatch.countDown`) hands something from
/// one thread to another by blocking or releasing a blocked thread: a happens-before edge as
/// `wait`/`notify` are (its receiver is the message object). Non-blocking calls of
/// concurrent collections and atomics are accesses, not messages: counting them would make
/// every later access of a thread impacted once a change adds one `poll`.
fn is_sync_call(target: &str) -> bool {
    let Some((class, method)) = target.rsplit_once('.') else { return false };
    let class = class.rsplit('.').next().unwrap_or(class);
    match method {
        "await" | "signal" | "signalAll" | "awaitUninterruptibly" => {
            class.contains("Condition") || class == "CountDownLatch" || class == "CyclicBarrier"
        }
        "countDown" => class == "CountDownLatch",
        "acquire" | "release" | "acquireUninterruptibly" => class == "Semaphore",
        "arrive" | "arriveAndAwaitAdvance" | "arriveAndDeregister" | "awaitAdvance" => class == "Phaser",
        "exchange" => class == "Exchanger",
        "put" | "take" | "transfer" | "putFirst" | "putLast" | "takeFirst" | "takeLast" => {
            class.contains("BlockingQueue")
                || class.contains("BlockingDeque")
                || class.contains("TransferQueue")
                || class == "SynchronousQueue"
        }
        "get" | "join" => class.contains("Future") || class.contains("ForkJoinTask"),
        "submit" | "execute" | "invokeAll" | "invokeAny" | "schedule" => class.contains("Executor"),
        _ => false,
    }
}

/// Builds the recording of `exec` (run in full mode with `trace` and `alloc`); `sites` are
/// the sites the agent announced.
pub fn record(exec: &Execution, sites: &HashMap<u32, Site>) -> Result<Recording, String> {
    let trace = exec.trace.as_ref().ok_or("the execution has no trace (RUN option `trace`)")?;
    let objects = Objects::new(&exec.objects, sites);
    let site_at: HashMap<u32, u32> = exec.events.iter().map(|e| (e.step, e.site)).collect();
    let mut threads: BTreeMap<ThreadId, ThreadState> = BTreeMap::new();
    threads.insert(0, ThreadState::default());
    let mut keys: HashMap<ThreadId, ThreadKey> = HashMap::from([(0, ThreadKey::default())]);
    let mut starts: HashMap<(ThreadKey, Statement), u32> = HashMap::new();
    let mut last_statement: HashMap<ThreadId, Statement> = HashMap::new();
    let mut out = Recording {
        outcome: exec.outcome.kind().to_string(),
        steps: exec.steps,
        threads: exec.threads.len(),
        ..Recording::default()
    };
    let mut occurrences = Occurrences::new();

    for (k, step) in trace.steps.iter().enumerate() {
        let t = step.thread;
        let key = keys.get(&t).cloned().unwrap_or_default();
        let state = threads.entry(t).or_default();
        if !state.begun {
            state.begun = true;
            if t != 0 {
                state.messages.push(Message { obj: AbsObj::Thread(key.clone()), kind: SyncKind::Started });
            }
        }
        let site = site_at.get(&(k as u32)).and_then(|s| sites.get(s).map(|site| (*s, site)));
        if let Some((_, s)) = site {
            if s.line > 0 {
                last_statement.insert(t, Statement { class: s.class.clone(), line: s.line });
            }
        }
        let effects = trace.step_effects(k);
        for (i, e) in effects.iter().enumerate() {
            let state = threads.get_mut(&t).expect("inserted above");
            match e.access {
                Effect::Acquire => {
                    *state.held.entry(objects.abs(e.var.obj, &keys)).or_insert(0) += 1;
                }
                Effect::Release => {
                    let lock = objects.abs(e.var.obj, &keys);
                    state.held.remove(&lock);
                    state.released.push(lock);
                }
                Effect::Start(child) => {
                    let at = last_statement.get(&t).cloned().unwrap_or(Statement { class: "-".into(), line: 0 });
                    let n = starts.entry((key.clone(), at.clone())).or_insert(0);
                    let mut chain = key.0.clone();
                    chain.push((at, *n));
                    *n += 1;
                    let child_key = ThreadKey(chain);
                    keys.insert(child, child_key.clone());
                    threads
                        .get_mut(&t)
                        .expect("inserted above")
                        .messages
                        .push(Message { obj: AbsObj::Thread(child_key), kind: SyncKind::Start });
                }
                Effect::Join(target) => {
                    let obj = AbsObj::Thread(keys.get(&target).cloned().unwrap_or_default());
                    state.messages.push(Message { obj, kind: SyncKind::Join });
                }
                Effect::Read | Effect::Write | Effect::Add | Effect::Global => {}
            }
            // The point's own operation is the step's first effect.
            let Some((_, s)) = site.filter(|_| i == 0) else { continue };
            let state = threads.get_mut(&t).expect("inserted above");
            let message = match s.op {
                SiteOp::Wait => Some(SyncKind::Wait),
                SiteOp::Notify => Some(SyncKind::Notify),
                SiteOp::NotifyAll => Some(SyncKind::NotifyAll),
                SiteOp::Call => is_sync_call(&s.target)
                    .then(|| SyncKind::Call(s.target.rsplit('.').next().unwrap_or("").to_string())),
                _ => None,
            };
            if let Some(kind) = message {
                state.messages.push(Message { obj: objects.abs(e.var.obj, &keys), kind });
                if s.op != SiteOp::Call {
                    continue;
                }
            }
            let target = match (&s.op, e.var.slot) {
                (SiteOp::Read | SiteOp::Write, _) => s.target.clone(),
                (SiteOp::ARead | SiteOp::AWrite, slot::ARRAY) => "[]".to_string(),
                (SiteOp::Call, slot::CALL) => s.target.clone(),
                _ => continue,
            };
            let op = match e.access {
                Effect::Read => Op::Read,
                // A commutative update changes the object's state as a write does.
                Effect::Write | Effect::Add => Op::Write,
                _ => continue,
            };
            let access =
                Access::new(key.clone(), thread_name(exec, t), s, op, target, objects.abs(e.var.obj, &keys), state, k);
            out.push(access, &mut occurrences);
        }
        // A lock or monitor operation: one access per step, also when the thread blocked at
        // it (its effect then comes with a later step).
        if let Some((_, s)) = site {
            if let Some(op) = Op::of_sync_site(&s.op) {
                let obj = effects
                    .first()
                    .map_or(AbsObj::Other { class: "?".into(), occurrence: 0 }, |e| objects.abs(e.var.obj, &keys));
                let state = threads.get_mut(&t).expect("inserted above");
                let access = Access::new(key.clone(), thread_name(exec, t), s, op, s.target.clone(), obj, state, k);
                out.push(access, &mut occurrences);
            }
        }
    }
    for (t, state) in threads {
        out.messages.insert(keys.get(&t).cloned().unwrap_or_default(), state.messages);
    }
    Ok(out)
}

/// How many accesses a thread made before at a statement, by kind and target.
type Occurrences = HashMap<(ThreadKey, Statement, Op, String), u32>;

fn thread_name(exec: &Execution, t: ThreadId) -> String {
    exec.threads.get(&t).cloned().unwrap_or_else(|| format!("T{t}"))
}

impl Access {
    /// The access `op` of thread `thread` at `site`, in the thread's context now. The
    /// releases since the thread's previous memory access are this access's; a memory
    /// access takes them (LR is over `mem` events, §II), a lock operation only sees them.
    #[allow(clippy::too_many_arguments)]
    fn new(
        thread: ThreadKey,
        thread_name: String,
        site: &Site,
        op: Op,
        target: String,
        obj: AbsObj,
        state: &mut ThreadState,
        step: usize,
    ) -> Access {
        Access {
            thread,
            thread_name,
            at: Statement { class: site.class.clone(), line: site.line },
            method: site.method.clone(),
            op,
            target,
            obj,
            occurrence: 0,
            lockset: state.held.keys().cloned().collect(),
            hb: state.messages.len(),
            released: match op {
                Op::Read | Op::Write => std::mem::take(&mut state.released),
                _ => state.released.clone(),
            },
            step: step as u32,
        }
    }
}

impl Recording {
    /// Appends `a`, numbered as the next occurrence of its kind at its statement.
    fn push(&mut self, mut a: Access, occurrences: &mut Occurrences) {
        let n = occurrences.entry((a.thread.clone(), a.at.clone(), a.op, a.target.clone())).or_insert(0);
        a.occurrence = *n;
        *n += 1;
        self.accesses.push(a);
    }
}

#[derive(Default)]
struct ThreadState {
    begun: bool,
    /// Locks held, with how many times taken (the agent reports re-entry as a take, and a
    /// release as releasing fully).
    held: BTreeMap<AbsObj, u32>,
    released: Vec<AbsObj>,
    messages: Vec<Message>,
}

/// The heap abstraction of one execution's object numbers.
struct Objects {
    named: HashMap<i32, AbsObj>,
}

impl Objects {
    fn new(objects: &BTreeMap<i32, ObjectInfo>, sites: &HashMap<u32, Site>) -> Objects {
        let mut named = HashMap::new();
        let mut per_site: HashMap<Statement, u32> = HashMap::new();
        let mut per_class: HashMap<String, u32> = HashMap::new();
        // Birth names sort by allocating thread, then by the thread's allocation count; first-use
        // numbers by first use: both orders are the same in every execution of the schedule.
        let mut ids: Vec<(&i32, &ObjectInfo)> = objects.iter().collect();
        ids.sort_by_key(|(id, _)| (**id < BORN, **id));
        for (&id, info) in ids {
            if let Some(c) = info.class.strip_prefix("java.lang.Class<").and_then(|c| c.strip_suffix('>')) {
                named.insert(id, AbsObj::Class(c.to_string()));
                continue;
            }
            let site = info.site.and_then(|s| sites.get(&s));
            let abs = match site {
                Some(s) => {
                    let at = Statement { class: s.class.clone(), line: s.line };
                    let n = per_site.entry(at.clone()).or_insert(0);
                    *n += 1;
                    AbsObj::Alloc { class: info.class.clone(), at, occurrence: *n - 1 }
                }
                None => {
                    let n = per_class.entry(info.class.clone()).or_insert(0);
                    *n += 1;
                    AbsObj::Other { class: info.class.clone(), occurrence: *n - 1 }
                }
            };
            named.insert(id, abs);
        }
        Objects { named }
    }

    /// The abstraction of object number `obj` (`0`: the static fields; negative: a thread's
    /// own variables or the model's).
    fn abs(&self, obj: i32, keys: &HashMap<ThreadId, ThreadKey>) -> AbsObj {
        if obj == 0 {
            return AbsObj::Class("<static>".into());
        }
        if (-1000 < obj) && obj < 0 {
            let t = ThreadId::try_from(-1 - obj).unwrap_or(0);
            return AbsObj::Thread(keys.get(&t).cloned().unwrap_or_default());
        }
        self.named.get(&obj).cloned().unwrap_or(AbsObj::Other { class: "?".into(), occurrence: obj.unsigned_abs() })
    }
}
