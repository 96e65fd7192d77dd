//! The exploration loop: one warm JVM, the runs a [`Search`] asks for, until a run fails,
//! the search is over, the budget is spent or the caller cancels. The loop owns the order
//! of things; the search only says what to run next and learns from what ran.
//!
//! A failing schedule is run once more in full mode for the report's details; one found at
//! random (PCT) first loses the preemptions it does not need.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::jvm::protocol::{Execution, Known, Outcome, Site, ThreadId};
use crate::jvm::{Mode, Session};
use crate::results::schedule::ScheduleString;
use crate::search::part::Part;
use crate::search::{Claim, Kind, Request, Search, Strategy};

#[derive(Clone, Debug)]
pub struct Options {
    pub strategy: Strategy,
    /// Randomize the order of alternatives with this seed.
    pub seed: Option<u64>,
    pub max_schedules: u64,
    /// Wall time for the whole exploration (`--max-seconds`): a budget like the schedules.
    pub max_time: Option<Duration>,
    /// Scheduling points per execution before it counts as a livelock.
    pub max_steps: u32,
    /// Keep exploring after the first failure, counting failing schedules.
    pub all: bool,
    /// Drop what the prioritization postpones (selection, not prioritization).
    pub select: bool,
    /// The part of the test's schedules to explore (`--shard` of one test).
    pub part: Part,
}

/// The preemption bound iterative context bounding goes up to by default: far enough for
/// the faults that need three preemptions (CHESS found most with two), while the budget
/// keeps it from running forever.
pub const DEFAULT_MAX_BOUND: u32 = 3;

impl Options {
    /// What of these options shapes the search.
    pub fn shape(&self) -> crate::search::Shape {
        crate::search::Shape { strategy: self.strategy, seed: self.seed, select: self.select, part: self.part }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            strategy: Strategy::Icb { max_bound: Some(DEFAULT_MAX_BOUND) },
            seed: None,
            max_schedules: 10_000,
            max_time: None,
            max_steps: 100_000,
            all: false,
            select: false,
            part: Part::WHOLE,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Runs of the test (schedules).
    pub schedules: u64,
    pub decision_points: u64,
    /// Scheduling points passed, over all schedules.
    pub steps: u64,
    pub elapsed: Duration,
    pub livelocks: u64,
    /// The preemption count of the schedule running now (ICB's current bound).
    pub bound: u32,
    /// Failing schedules (with `all`).
    pub failures: u64,
    /// Of `elapsed`, the time the search took to choose runs and take in their traces (the
    /// rest is the JVM's: executions, their reset and the protocol).
    pub searching: Duration,
    /// With [`Verdict::Limit`]: which budget ended the exploration.
    pub budget: Budget,
}

/// What ended an exploration that was not over: each is a budget end, and the report says
/// what was covered until then (issue 22, item 4: never nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// `--max-schedules` runs were made.
    #[default]
    Schedules,
    /// `--max-seconds` of wall time passed.
    Seconds(u64),
    /// SIGINT or SIGTERM asked the process to stop ([`interrupt`]).
    Interrupted,
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ends every exploration of this process at its next schedule, as a budget end with its
/// report and claim: what SIGINT and SIGTERM do to `racelens explore` (the editor's cancel
/// is [`Verdict::Cancelled`] instead, which drops the run).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether [`interrupt`] was called.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

impl Stats {
    pub fn per_second(&self) -> f64 {
        self.schedules as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A point where the failing schedule preempted a thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preemption {
    pub decision: usize,
    pub step: u32,
    /// The thread preempted, and the one run instead.
    pub from: ThreadId,
    pub to: ThreadId,
    /// Where `from` was stopped: the operation it was about to perform.
    pub site: Option<Site>,
    /// What `to` did first once it ran (its first operation after starting).
    pub next: Option<Site>,
}

impl Preemption {
    /// `T2 preempted here before T1 writes count`.
    pub fn text(&self) -> String {
        let what = self.next.as_ref().map(|s| format!(" {}", crate::results::report::action(s))).unwrap_or_default();
        format!("T{} preempted here before T{}{what}", self.from, self.to)
    }
}

#[derive(Clone, Debug)]
pub struct Found {
    /// Schedules run up to and including this one.
    pub schedules: u64,
    /// The choices that replay it, and its preemptions.
    pub choices: Vec<ThreadId>,
    pub string: ScheduleString,
    pub execution: Execution,
    /// The same schedule in full mode, for the report (it reproduced).
    pub full: Execution,
    pub preemptions: Vec<Preemption>,
}

#[derive(Clone, Debug)]
pub enum Verdict {
    Failed(Box<Found>),
    /// The search ran out of schedules without a failure: what that covers is in the
    /// report's [`Claim`].
    Passed,
    /// The budget ran out first.
    Limit,
    Cancelled,
    /// A thread racelens does not control ran project code: no claim about the schedules.
    Uncontrolled(String),
    /// The exploration could not go on: divergence (a nondeterministic test), a timeout, an
    /// agent error.
    Stopped(String),
    /// A failing schedule that does not fail the same way when it runs again in a fresh JVM
    /// (state leaking between executions, or nondeterminism racelens does not control), and
    /// why: never reported as a failure. Set by the front door's checks, not by the loop.
    Unconfirmed(Box<Found>, String),
    /// A failure raised inside racelens's runtime or models while the test passes plainly: a
    /// limitation of racelens (what was not modelled, where), not a failure of the program.
    /// Set by the front door's checks.
    Limitation(Box<Found>, String),
}

impl Verdict {
    /// A verdict that says the exploration did not run its course (stopped, uncontrolled,
    /// cancelled, or a failure that is not the program's): it stands over any failure found
    /// before it, when invocations' verdicts are joined.
    pub fn ends_the_claim(&self) -> bool {
        matches!(
            self,
            Verdict::Stopped(_)
                | Verdict::Uncontrolled(_)
                | Verdict::Cancelled
                | Verdict::Unconfirmed(..)
                | Verdict::Limitation(..)
        )
    }
}

pub struct Report {
    pub verdict: Verdict,
    pub stats: Stats,
    pub claim: Claim,
    /// Whether the systematic search ran (only it can claim coverage).
    pub systematic: bool,
    /// Decision points at which a thread was at an impacted point (CAPP and `pair`).
    pub matched: u64,
    /// Parallel streams that ran sequentially, by class and line: their own interleavings
    /// are in no claim.
    pub sequential: Vec<Site>,
    /// How many invocations of a test JUnit runs more than once the report speaks for, each
    /// explored on its own ([`crate::invocations`]); 0 for a test JUnit runs once.
    pub invocations: u32,
}

/// The preemptions of a full-mode execution, placed where the preempted thread stood.
pub fn preemptions(full: &Execution, session: &Session) -> Vec<Preemption> {
    // Every scheduling point is an event in full mode: a thread's next event after a
    // decision is the operation it performs next.
    let next_of = |t: ThreadId, step: u32| {
        full.events.iter().find(|e| e.thread == t && e.step >= step && e.site != 0).and_then(|e| session.site(e.site))
    };
    full.decisions
        .iter()
        .enumerate()
        .filter(|(_, d)| d.preempts(d.thread))
        .map(|(i, d)| {
            let from = d.current.unwrap_or(0);
            Preemption {
                decision: i,
                step: d.step,
                from,
                to: d.thread,
                site: next_of(from, d.step),
                next: next_of(d.thread, d.step),
            }
        })
        .collect()
}

/// Explores the test's schedules in the order `search` gives.
pub fn explore(
    session: &mut Session,
    options: &Options,
    search: &mut Search,
    progress: &mut dyn FnMut(&Stats),
    cancel: &AtomicBool,
) -> Result<Report, String> {
    let started = Instant::now();
    let mut stats = Stats::default();
    let mut first_failure: Option<Box<Found>> = None;
    let mut sequential: Vec<Site> = Vec::new();
    let cancelled = || cancel.load(Ordering::Relaxed);
    let verdict = loop {
        if cancelled() {
            break Verdict::Cancelled;
        }
        if let Some(budget) = budget_end(&stats, options, started) {
            stats.budget = budget;
            break Verdict::Limit;
        }
        let choosing = Instant::now();
        let next = search.next();
        stats.searching += choosing.elapsed();
        let Some(req) = next else {
            break Verdict::Passed;
        };
        let exec = session.run_with(&req.choices, req.mode, options.max_steps, &req.options)?;
        if debug_runs() {
            eprintln!("{}", crate::results::report::run_summary(&req.choices, &exec));
        }
        if cancelled() {
            break Verdict::Cancelled; // during the run (the first one starts the JVM): drop it
        }
        stats.schedules += 1;
        stats.decision_points += exec.decisions.len() as u64;
        stats.steps += exec.steps as u64;
        if req.is_systematic() {
            stats.bound = search.bound;
        }
        stats.elapsed = started.elapsed();
        progress(&stats);
        for site in exec.sequential.iter().filter_map(|&id| session.site(id)) {
            if !sequential.contains(&site) {
                sequential.push(site);
            }
        }
        match &exec.outcome {
            Outcome::Pass => {}
            Outcome::Livelock => stats.livelocks += 1,
            Outcome::Divergence { .. } => {
                break Verdict::Stopped(nondeterministic(&crate::results::report::headline(&exec)))
            }
            Outcome::Timeout => break Verdict::Stopped(
                "an execution took too long (the test may block on something racelens does not control, such as I/O)"
                    .into(),
            ),
            Outcome::Uncontrolled(what) => break Verdict::Uncontrolled(what.clone()),
            Outcome::Error(e) => break Verdict::Stopped(format!("the agent failed: {e}")),
            Outcome::Fail(_) | Outcome::Deadlock(_) | Outcome::Exit(_) => {
                stats.failures += 1;
                if first_failure.is_none() {
                    first_failure =
                        Some(Box::new(found(session, &req, exec.clone(), stats.schedules, options, cancel)?));
                }
                if !options.all {
                    break Verdict::Failed(first_failure.take().expect("set above"));
                }
            }
        }
        let empty = (std::collections::HashMap::new(), std::collections::HashMap::new());
        let known = session.known().unwrap_or(Known { sites: &empty.0, stacks: &empty.1 });
        let recording = Instant::now();
        let recorded = search.record(&req, &exec, known);
        stats.searching += recording.elapsed();
        if let Err(e) = recorded {
            break Verdict::Stopped(nondeterministic(&e));
        }
    };
    stats.elapsed = started.elapsed();
    let verdict = match (verdict, first_failure) {
        (Verdict::Failed(f), _) => Verdict::Failed(f),
        (
            v @ (Verdict::Stopped(_)
            | Verdict::Cancelled
            | Verdict::Uncontrolled(_)
            | Verdict::Unconfirmed(..)
            | Verdict::Limitation(..)),
            _,
        ) => v,
        (_, Some(f)) => Verdict::Failed(f),
        (v, None) => v,
    };
    sequential.sort_by(|a, b| (&a.class, a.line).cmp(&(&b.class, b.line)));
    Ok(Report {
        verdict,
        stats,
        claim: search.claim(),
        systematic: search.is_systematic(),
        matched: search.matched(),
        sequential,
        invocations: 0,
    })
}

/// The budget that is spent, if one is: schedules, wall time, or an interrupt.
fn budget_end(stats: &Stats, options: &Options, started: Instant) -> Option<Budget> {
    if interrupted() {
        return Some(Budget::Interrupted);
    }
    if stats.schedules >= options.max_schedules {
        return Some(Budget::Schedules);
    }
    options.max_time.filter(|&t| started.elapsed() >= t).map(|t| Budget::Seconds(t.as_secs()))
}

/// `RACELENS_DEBUG_RUNS=1`: every run's schedule, decisions and effects on stderr (for work
/// on the reduction: which schedules ran, and why the search thought each one was needed).
fn debug_runs() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("RACELENS_DEBUG_RUNS").is_some())
}

fn nondeterministic(what: &str) -> String {
    format!("{what}: the test does not behave the same way under the same schedule (nondeterministic, e.g. it depends on input, files or real time that racelens does not control)")
}

/// The failure `exec` of `req`, ready for the report: a schedule found at random loses the
/// preemptions it does not need first (at most 40 more runs, not counted as schedules
/// explored: they are the report's, not the search's).
fn found(
    session: &mut Session,
    req: &Request,
    exec: Execution,
    schedules: u64,
    options: &Options,
    cancel: &AtomicBool,
) -> Result<Found, String> {
    let (choices, exec) = match req.kind {
        Kind::Branch { .. } => (req.choices.clone(), exec),
        Kind::Pct | Kind::Sample => {
            let exec = crate::search::simplify::fewer_preemptions(exec, 40, &mut |c| {
                if cancel.load(Ordering::Relaxed) {
                    return Ok(None); // stop simplifying: report what we have
                }
                session.run(c, Mode::Fast, options.max_steps).map(Some)
            })?;
            (exec.decisions.iter().map(|d| d.thread).collect(), exec)
        }
    };
    confirm(session, choices, exec, schedules, options)
}

/// Runs a failing schedule again in full mode, for the report's details (events, stacks,
/// preemptions). The outcome reported is the fast run's; the two runs are not compared
/// here (a replay compares its run with the schedule string's places).
fn confirm(
    session: &mut Session,
    choices: Vec<ThreadId>,
    exec: Execution,
    schedules: u64,
    options: &Options,
) -> Result<Found, String> {
    let full =
        session.run(&exec.decisions.iter().map(|d| d.thread).collect::<Vec<_>>(), Mode::Full, options.max_steps)?;
    let string = ScheduleString::of(&choices, &exec, |s| session.site(s));
    let preemptions = preemptions(&full, session);
    Ok(Found { schedules, choices, string, execution: exec, full, preemptions })
}

/// Runs one schedule (a replay): the fast execution checked against the string's places,
/// then the full one for the report.
pub fn replay(
    session: &mut Session,
    string: &ScheduleString,
    max_steps: u32,
) -> Result<(Execution, Option<(usize, String, String)>), String> {
    // A parameterized or repeated test's schedule runs its own invocation.
    let invocation = string.invocation.map(|i| session.invocation_numbered(i)).transpose()?;
    session.select_invocation(invocation);
    let exec = session.run(&string.choices, Mode::Full, max_steps)?;
    let diverged = string.divergence(&exec, |s| session.site(s));
    Ok((exec, diverged))
}
