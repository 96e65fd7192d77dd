//! The agent's line protocol (`server/agent/PROTOCOL.md`): what one execution sends back,
//! parsed into plain data.

use std::collections::BTreeMap;

use crate::jvm::trace::Trace;
pub use crate::threads::{ThreadId, Threads};

/// What the agent announced so far: sites and stacks by id.
#[derive(Clone, Copy)]
pub struct Known<'a> {
    pub sites: &'a std::collections::HashMap<u32, Site>,
    pub stacks: &'a std::collections::HashMap<u32, Vec<Frame>>,
}

/// A place in the code where the scheduler may switch threads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Site {
    /// Binary class name: `pkg.Pool$Worker`.
    pub class: String,
    pub method: String,
    pub line: u32,
    pub op: SiteOp,
    /// The field (`Pool.count`), the callee, or `-`.
    pub target: String,
}

/// What a site does: the `op` of the agent's `SITE` line (PROTOCOL.md).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SiteOp {
    Read,
    Write,
    /// An array element read or written.
    ARead,
    AWrite,
    Lock,
    Wait,
    Notify,
    NotifyAll,
    Start,
    Join,
    Sleep,
    Yield,
    Interrupt,
    Interrupted,
    Alive,
    Park,
    Unpark,
    Call,
    /// Site 0: a thread that has not run yet.
    Begin,
    /// An allocation (never a scheduling point).
    New,
    /// An op this build does not know (a newer agent's), kept as the agent wrote it.
    Other(String),
}

impl SiteOp {
    const NAMES: [(&'static str, SiteOp); 20] = [
        ("READ", SiteOp::Read),
        ("WRITE", SiteOp::Write),
        ("AREAD", SiteOp::ARead),
        ("AWRITE", SiteOp::AWrite),
        ("LOCK", SiteOp::Lock),
        ("WAIT", SiteOp::Wait),
        ("NOTIFY", SiteOp::Notify),
        ("NOTIFYALL", SiteOp::NotifyAll),
        ("START", SiteOp::Start),
        ("JOIN", SiteOp::Join),
        ("SLEEP", SiteOp::Sleep),
        ("YIELD", SiteOp::Yield),
        ("INTERRUPT", SiteOp::Interrupt),
        ("INTERRUPTED", SiteOp::Interrupted),
        ("ALIVE", SiteOp::Alive),
        ("PARK", SiteOp::Park),
        ("UNPARK", SiteOp::Unpark),
        ("CALL", SiteOp::Call),
        ("BEGIN", SiteOp::Begin),
        ("NEW", SiteOp::New),
    ];

    pub fn parse(name: &str) -> SiteOp {
        SiteOp::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or_else(|| SiteOp::Other(name.to_string()), |(_, op)| op.clone())
    }

    /// The op as the agent writes it (`READ`).
    pub fn as_str(&self) -> &str {
        match self {
            SiteOp::Other(name) => name,
            known => {
                SiteOp::NAMES.iter().find(|(_, op)| op == known).map(|(n, _)| *n).expect("every known op has a name")
            }
        }
    }
}

impl std::fmt::Display for SiteOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Site {
    /// `Pool.java:42`-like short place: the class's simple name and the line.
    pub fn place(&self) -> String {
        if self.op == SiteOp::Begin {
            return "begin".into(); // site 0: a thread that has not run yet
        }
        let simple = self.class.rsplit('.').next().unwrap_or(&self.class);
        let outer = simple.split('$').next().unwrap_or(simple);
        format!("{outer}.java:{}", self.line)
    }

    /// The field's simple name for field accesses.
    pub fn field(&self) -> Option<&str> {
        matches!(self.op, SiteOp::Read | SiteOp::Write).then(|| self.target.rsplit('.').next().unwrap_or(&self.target))
    }
}

/// One decision point: two or more threads could run (or `notify` could wake one of
/// several waiters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub step: u32,
    /// The thread that ran (or, at a `notify` decision, the waiter woken).
    pub thread: ThreadId,
    pub site: u32,
    /// Enabled threads, bit `i` = thread `i`.
    pub enabled: Threads,
    /// At a `notify` decision, the waiters one of which is woken.
    pub waiters: Option<Threads>,
    /// The thread that ran the previous step.
    pub current: Option<ThreadId>,
    /// What each enabled thread is about to do: its site, and its stack when asked for.
    pub pending: Vec<Pending>,
}

/// An enabled thread's pending operation at a decision point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    pub thread: ThreadId,
    pub site: u32,
    pub stack: Option<u32>,
}

impl Decision {
    /// What this decision chooses among: the waiters of a `notify`, else the enabled threads.
    pub fn choices(&self) -> &Threads {
        self.waiters.as_ref().unwrap_or(&self.enabled)
    }

    /// The alternatives at this point: enabled threads (or waiters) other than the one taken.
    pub fn alternatives(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.choices().iter().filter(move |&t| t != self.thread)
    }

    /// Whether running `t` here preempts the current thread.
    pub fn preempts(&self, t: ThreadId) -> bool {
        self.waiters.is_none() && self.current.is_some_and(|c| c != t && self.enabled.contains(c))
    }
}

/// A step of a full-mode execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub step: u32,
    pub thread: ThreadId,
    pub site: u32,
    pub object: Option<String>,
    pub value: Option<String>,
}

/// Why a thread stopped running (full mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Switch {
    pub step: u32,
    pub thread: ThreadId,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub class: String,
    pub method: String,
    pub file: String,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub thread: ThreadId,
    pub exception: String,
    pub message: String,
    pub frames: Vec<Frame>,
    /// The frame of racelens's runtime or models the exception was raised in, when it was
    /// (`MODEL` line): such a failure is checked against a plain run of the test.
    pub model: Option<Frame>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail(Failure),
    /// Who waits for what.
    Deadlock(Vec<(ThreadId, String)>),
    Livelock,
    Exit(i32),
    /// The schedule named a thread not enabled at a decision point.
    Divergence {
        index: u32,
        wanted: ThreadId,
        enabled: Threads,
    },
    Timeout,
    /// A thread racelens does not control ran project code (its name and where it was
    /// created): nothing about this execution's schedule can be claimed.
    Uncontrolled(String),
    /// The agent failed.
    Error(String),
}

impl Outcome {
    pub fn is_bug(&self) -> bool {
        matches!(self, Outcome::Fail(_) | Outcome::Deadlock(_) | Outcome::Exit(_))
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail(_) => "fail",
            Outcome::Deadlock(_) => "deadlock",
            Outcome::Livelock => "livelock",
            Outcome::Exit(_) => "exit",
            Outcome::Divergence { .. } => "divergence",
            Outcome::Timeout => "timeout",
            Outcome::Uncontrolled(_) => "uncontrolled",
            Outcome::Error(_) => "error",
        }
    }
}

/// Everything one execution sent back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Execution {
    pub run: u64,
    pub outcome: Outcome,
    pub steps: u32,
    pub decisions: Vec<Decision>,
    pub events: Vec<Event>,
    pub switches: Vec<Switch>,
    pub threads: BTreeMap<ThreadId, String>,
    pub millis: u64,
    /// Every step with its effects (RUN option `trace`).
    pub trace: Option<Trace>,
    /// Sites of parallel streams that ran sequentially (their own interleavings are not
    /// explored).
    pub sequential: Vec<u32>,
    /// RUN option `alloc`: every object the trace names, with its class and its `NEW` site
    /// (`None`: not allocated by application code in this execution).
    pub objects: BTreeMap<i32, ObjectInfo>,
    /// Which invocation of a test JUnit runs more than once this was (set by the session
    /// that asked for it), else `None`.
    pub invocation: Option<Invocation>,
}

/// One invocation of a test JUnit runs more than once (a parameterized or repeated test),
/// as the agent announced it (`INVOCATION <index> <display>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// As JUnit numbers them: from 1 for JUnit 5, from 0 for JUnit 4's `Parameterized`.
    pub index: u32,
    /// What JUnit shows of it: the arguments (`5, "x"`), or `repetition 2 of 3`.
    pub display: String,
}

impl Invocation {
    /// `[2] (5, x)`: how a result names it.
    pub fn text(&self) -> String {
        format!("[{}] ({})", self.index, self.display)
    }
}

/// Where an object of the trace comes from (`N` lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectInfo {
    pub class: String,
    pub site: Option<u32>,
}

/// Reassembles the lines of one execution's response.
#[derive(Default)]
pub struct ResponseParser {
    pub new_sites: Vec<(u32, Site)>,
    pub new_stacks: Vec<(u32, Vec<Frame>)>,
    decisions: Vec<Decision>,
    events: Vec<Event>,
    switches: Vec<Switch>,
    threads: BTreeMap<ThreadId, String>,
    failure: Option<Failure>,
    waits: Vec<(ThreadId, String)>,
    exit: Option<i32>,
    diverged: Option<(u32, ThreadId, Threads)>,
    trace: Option<Trace>,
    sequential: Vec<u32>,
    objects: BTreeMap<i32, ObjectInfo>,
}

fn parse_pending(entry: &str) -> Result<Pending, String> {
    let mut f = entry.split(':');
    let thread = num(f.next().unwrap_or(""))?;
    let site = num(f.next().ok_or_else(|| format!("bad pending entry `{entry}`"))?)?;
    let stack = f.next().map(num).transpose()?;
    Ok(Pending { thread, site, stack })
}

fn num<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("bad number `{s}`"))
}

fn opt(s: &str) -> Option<String> {
    (s != "-").then(|| unescape(s))
}

/// Undoes the agent's escaping of free text (`\n`, `\\`).
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl ResponseParser {
    /// Feeds one line; returns the finished execution at `END`.
    pub fn line(&mut self, line: &str) -> Result<Option<Execution>, String> {
        let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
        match tag {
            "SITE" => {
                let f: Vec<&str> = rest.splitn(6, ' ').collect();
                if f.len() < 6 {
                    return Err(format!("bad SITE line: {line}"));
                }
                let site = Site {
                    class: f[1].into(),
                    method: f[2].into(),
                    line: num(f[3])?,
                    op: SiteOp::parse(f[4]),
                    target: f[5].into(),
                };
                self.new_sites.push((num(f[0])?, site));
            }
            "K" => {
                let (id, frames) = rest.split_once(' ').unwrap_or((rest, ""));
                let frames = frames
                    .split('|')
                    .filter(|f| !f.is_empty())
                    .map(|f| {
                        let mut p = f.rsplitn(3, ':');
                        let line = p.next().and_then(|l| l.parse().ok()).unwrap_or(0);
                        let method = p.next().unwrap_or("").to_string();
                        let class = p.next().unwrap_or("").to_string();
                        Frame { class, method, file: String::new(), line }
                    })
                    .collect();
                self.new_stacks.push((num(id)?, frames));
            }
            "THREAD" => {
                let (t, name) = rest.split_once(' ').unwrap_or((rest, ""));
                self.threads.insert(num(t)?, unescape(name));
            }
            "D" => {
                let f: Vec<&str> = rest.split(' ').collect();
                if f.len() < 5 {
                    return Err(format!("bad D line: {line}"));
                }
                self.decisions.push(Decision {
                    step: num(f[0])?,
                    thread: num(f[1])?,
                    site: num(f[2])?,
                    enabled: Threads::from_hex(f[3])?,
                    waiters: if f[4] == "-" { None } else { Some(Threads::from_hex(f[4])?) },
                    current: match f.get(5) {
                        Some(&"-") | None => None,
                        Some(c) => Some(num(c)?),
                    },
                    pending: match f.get(6) {
                        Some(&"-") | None => Vec::new(),
                        Some(list) => list.split(',').map(parse_pending).collect::<Result<_, _>>()?,
                    },
                });
            }
            "E" => {
                let f: Vec<&str> = rest.splitn(5, ' ').collect();
                if f.len() < 5 {
                    return Err(format!("bad E line: {line}"));
                }
                self.events.push(Event {
                    step: num(f[0])?,
                    thread: num(f[1])?,
                    site: num(f[2])?,
                    object: opt(f[3]),
                    value: opt(f[4]),
                });
            }
            "B" => {
                let f: Vec<&str> = rest.splitn(3, ' ').collect();
                if f.len() < 3 {
                    return Err(format!("bad B line: {line}"));
                }
                self.switches.push(Switch { step: num(f[0])?, thread: num(f[1])?, reason: unescape(f[2]) });
            }
            "FAIL" => {
                let f: Vec<&str> = rest.splitn(3, ' ').collect();
                self.failure = Some(Failure {
                    thread: num(f.first().copied().unwrap_or("0"))?,
                    exception: f.get(1).copied().unwrap_or("?").to_string(),
                    message: f.get(2).map(|m| unescape(m)).unwrap_or_default(),
                    frames: Vec::new(),
                    model: None,
                });
            }
            "MODEL" => {
                let f: Vec<&str> = rest.splitn(4, ' ').collect();
                if let (Some(failure), 4) = (self.failure.as_mut(), f.len()) {
                    failure.model = Some(Frame {
                        class: f[0].into(),
                        method: f[1].into(),
                        file: f[2].into(),
                        line: num(f[3]).unwrap_or(0),
                    });
                }
            }
            "FRAME" => {
                let f: Vec<&str> = rest.splitn(4, ' ').collect();
                if let (Some(failure), 4) = (self.failure.as_mut(), f.len()) {
                    failure.frames.push(Frame {
                        class: f[0].into(),
                        method: f[1].into(),
                        file: f[2].into(),
                        line: num(f[3]).unwrap_or(0),
                    });
                }
            }
            "WAIT" => {
                let (t, what) = rest.split_once(' ').unwrap_or((rest, ""));
                self.waits.push((num(t)?, unescape(what)));
            }
            "EXIT" => self.exit = Some(num(rest.trim())?),
            "SEQUENTIAL" => self.sequential.push(num(rest.trim())?),
            "X" => self.trace.get_or_insert_with(Trace::default).push_steps(rest)?,
            "P" => self.trace.get_or_insert_with(Trace::default).push_pending(rest)?,
            "S" => self.trace.get_or_insert_with(Trace::default).push_step_sites(rest)?,
            "N" => {
                let f: Vec<&str> = rest.splitn(3, ' ').collect();
                if f.len() < 3 {
                    return Err(format!("bad N line: {line}"));
                }
                let site = if f[1] == "-" { None } else { Some(num(f[1])?) };
                self.objects.insert(num(f[0])?, ObjectInfo { class: f[2].to_string(), site });
            }
            "DIVERGED" => {
                let f: Vec<&str> = rest.split(' ').collect();
                if f.len() >= 3 {
                    self.diverged = Some((num(f[0])?, num(f[1])?, Threads::from_hex(f[2])?));
                }
            }
            "END" => {
                let f: Vec<&str> = rest.splitn(6, ' ').collect();
                if f.len() < 5 {
                    return Err(format!("bad END line: {line}"));
                }
                let outcome = match f[1] {
                    "pass" => Outcome::Pass,
                    "fail" => Outcome::Fail(self.failure.take().unwrap_or(Failure {
                        thread: 0,
                        exception: "?".into(),
                        message: String::new(),
                        frames: Vec::new(),
                        model: None,
                    })),
                    "deadlock" => Outcome::Deadlock(std::mem::take(&mut self.waits)),
                    "livelock" => Outcome::Livelock,
                    "exit" => Outcome::Exit(self.exit.unwrap_or(0)),
                    "divergence" => {
                        let (index, wanted, enabled) = self.diverged.take().unwrap_or_default();
                        Outcome::Divergence { index, wanted, enabled }
                    }
                    "timeout" => Outcome::Timeout,
                    "uncontrolled" => Outcome::Uncontrolled(f.get(5).map(|m| unescape(m)).unwrap_or_default()),
                    other => Outcome::Error(
                        f.get(5).map(|m| unescape(m)).unwrap_or_else(|| format!("the agent reported `{other}`")),
                    ),
                };
                let exec = Execution {
                    run: num(f[0])?,
                    outcome,
                    steps: num(f[2])?,
                    decisions: std::mem::take(&mut self.decisions),
                    events: std::mem::take(&mut self.events),
                    switches: std::mem::take(&mut self.switches),
                    threads: std::mem::take(&mut self.threads),
                    millis: num(f[4])?,
                    trace: self.trace.take(),
                    sequential: std::mem::take(&mut self.sequential),
                    objects: std::mem::take(&mut self.objects),
                    invocation: None,
                };
                *self = ResponseParser {
                    new_sites: std::mem::take(&mut self.new_sites),
                    new_stacks: std::mem::take(&mut self.new_stacks),
                    ..ResponseParser::default()
                };
                return Ok(Some(exec));
            }
            "" => {}
            _ => return Err(format!("unexpected line from the agent: {line}")),
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_ops_read_and_print_as_the_agent_writes_them() {
        for (name, op) in SiteOp::NAMES {
            assert_eq!(SiteOp::parse(name), op);
            assert_eq!(op.as_str(), name);
        }
        // An op a newer agent sends is kept as sent.
        assert_eq!(SiteOp::parse("FENCE"), SiteOp::Other("FENCE".into()));
        assert_eq!(SiteOp::parse("FENCE").to_string(), "FENCE");
    }

    #[test]
    fn an_execution_is_reassembled_from_its_lines() {
        let mut p = ResponseParser::default();
        for l in [
            "SITE 3 demo.Pool borrow 42 READ demo.Pool.count",
            "THREAD 0 test",
            "THREAD 1 worker\\nA",
            "D 5 1 3 3 - 0",
            "K 4 demo.Pool:borrow:42|demo.PoolTest:run:20",
            "D 6 1 3 3 - 1 0:3:4,1:3",
            "FAIL 1 java.lang.AssertionError expected:<2> but was:<1>",
            "FRAME demo.PoolTest run PoolTest.java 20",
            "SEQUENTIAL 3",
            "N 2097153 9 demo.Pool",
            "N 1 - java.lang.Class<demo.Pool>",
        ] {
            assert_eq!(p.line(l).unwrap(), None);
        }
        let e = p.line("END 7 fail 120 1 4").unwrap().unwrap();
        assert_eq!(
            e.decisions[1].pending,
            vec![Pending { thread: 0, site: 3, stack: Some(4) }, Pending { thread: 1, site: 3, stack: None }]
        );
        assert_eq!(p.new_stacks[0].1[1].method, "run");
        assert_eq!(p.new_sites[0].1.field(), Some("count"));
        assert_eq!(p.new_sites[0].1.place(), "Pool.java:42");
        assert_eq!(
            e.decisions[0],
            Decision {
                step: 5,
                thread: 1,
                site: 3,
                enabled: Threads::from_iter([0, 1]),
                waiters: None,
                current: Some(0),
                pending: vec![]
            }
        );
        assert!(e.decisions[0].preempts(1));
        assert_eq!(e.decisions[0].alternatives().collect::<Vec<_>>(), vec![0]);
        assert_eq!(e.threads[&1], "worker\nA");
        assert_eq!(e.sequential, vec![3]);
        assert_eq!(e.objects[&2097153], ObjectInfo { class: "demo.Pool".into(), site: Some(9) });
        assert_eq!(e.objects[&1].site, None);
        let Outcome::Fail(f) = &e.outcome else { panic!() };
        assert_eq!(f.message, "expected:<2> but was:<1>");
        assert_eq!(f.frames[0].line, 20);
    }
}
