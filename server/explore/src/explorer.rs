//! Runs a search against a test: one warm JVM, schedules in the search's order, until a
//! failing schedule is found, the space is exhausted, the budget is spent, or the caller
//! cancels. A failing schedule is run once more in full mode for the report, which also
//! checks that it reproduces.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::jvm::{Mode, Session};
use crate::jvm::protocol::{Execution, Outcome, Site, ThreadId};
use crate::results::schedule::ScheduleString;
use crate::search::icb::{Known, Prioritizer, Schedule, Search, Strategy};

#[derive(Clone, Debug)]
pub struct Options {
    pub strategy: Strategy,
    /// Randomize the order of alternatives with this seed.
    pub seed: Option<u64>,
    pub max_schedules: u64,
    /// Scheduling points per execution before it counts as a livelock.
    pub max_steps: u32,
    /// Keep exploring after the first failure, counting failing schedules.
    pub all: bool,
    /// Stop after the prioritized iteration (selection, not prioritization).
    pub select: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { strategy: Strategy::Icb { bound: 2 }, seed: None, max_schedules: 10_000, max_steps: 100_000, all: false, select: false }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub schedules: u64,
    pub decision_points: u64,
    /// Scheduling points passed, over all schedules.
    pub steps: u64,
    pub elapsed: Duration,
    pub livelocks: u64,
    /// Schedules beyond the preemption bound, not explored.
    pub pruned: u64,
    /// The preemption count of the schedule running now (ICB's current bound).
    pub bound: u32,
    /// Failing schedules (with `all`).
    pub failures: u64,
    /// Schedules the selection left out (with `select`).
    pub skipped: u64,
}

impl Stats {
    /// Two explorations run one after the other, counted as one.
    pub fn then(&self, later: &Stats) -> Stats {
        Stats {
            schedules: self.schedules + later.schedules,
            decision_points: self.decision_points + later.decision_points,
            steps: self.steps + later.steps,
            elapsed: self.elapsed + later.elapsed,
            livelocks: self.livelocks + later.livelocks,
            pruned: later.pruned,
            bound: later.bound,
            failures: self.failures + later.failures,
            skipped: later.skipped,
        }
    }

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
    pub schedule: Schedule,
    pub string: ScheduleString,
    pub execution: Execution,
    /// The same schedule in full mode, for the report (it reproduced).
    pub full: Execution,
    pub preemptions: Vec<Preemption>,
}

#[derive(Clone, Debug)]
pub enum Verdict {
    Failed(Box<Found>),
    /// Every schedule within the bound passed.
    Passed,
    /// The budget ran out first.
    Limit,
    Cancelled,
    /// The exploration could not go on: divergence (a nondeterministic test), a timeout, an
    /// agent error.
    Stopped(String),
}

pub struct Report {
    pub verdict: Verdict,
    pub stats: Stats,
}

/// The preemptions of a full-mode execution, placed where the preempted thread stood.
pub fn preemptions(full: &Execution, session: &Session) -> Vec<Preemption> {
    // Every scheduling point is an event in full mode: a thread's next event after a
    // decision is the operation it performs next.
    let next_of = |t: ThreadId, step: u32| full.events.iter().find(|e| e.thread == t && e.step >= step && e.site != 0).and_then(|e| session.site(e.site));
    full.decisions
        .iter()
        .enumerate()
        .filter(|(_, d)| d.preempts(d.thread))
        .map(|(i, d)| {
            let from = d.current.unwrap_or(0);
            Preemption { decision: i, step: d.step, from, to: d.thread, site: next_of(from, d.step), next: next_of(d.thread, d.step) }
        })
        .collect()
}

/// Explores the test's schedules.
pub fn explore(
    session: &mut Session,
    options: &Options,
    prioritizer: &mut dyn Prioritizer,
    progress: &mut dyn FnMut(&Stats),
    cancel: &AtomicBool,
) -> Result<Report, String> {
    let started = Instant::now();
    let mut search = Search::new(options.strategy, options.seed);
    let mut stats = Stats::default();
    let mut first_failure: Option<Box<Found>> = None;
    let verdict = loop {
        if cancel.load(Ordering::Relaxed) {
            break Verdict::Cancelled;
        }
        if stats.schedules >= options.max_schedules {
            break Verdict::Limit;
        }
        if options.select && !search.has_current() && search.has_postponed() {
            stats.skipped = search.drop_postponed() as u64;
        }
        let Some(schedule) = search.next() else {
            break Verdict::Passed;
        };
        let exec = session.run_with(&schedule.choices, Mode::Fast, options.max_steps, &prioritizer.run_options())?;
        if cancel.load(Ordering::Relaxed) {
            break Verdict::Cancelled; // during the run (the first one starts the JVM): drop it
        }
        stats.schedules += 1;
        stats.decision_points += exec.decisions.len() as u64;
        stats.steps += exec.steps as u64;
        stats.bound = stats.bound.max(schedule.preemptions);
        stats.elapsed = started.elapsed();
        progress(&stats);
        match &exec.outcome {
            Outcome::Pass => {}
            Outcome::Livelock => stats.livelocks += 1,
            Outcome::Divergence { .. } => {
                break Verdict::Stopped(format!(
                    "{}: the test does not behave the same way under the same schedule (nondeterministic, e.g. it depends on input, files or real time that racelens does not control)",
                    crate::results::report::headline(&exec)
                ))
            }
            Outcome::Timeout => break Verdict::Stopped("an execution took too long (the test may block on something racelens does not control, such as I/O)".into()),
            Outcome::Error(e) => break Verdict::Stopped(format!("the agent failed: {e}")),
            Outcome::Fail(_) | Outcome::Deadlock(_) | Outcome::Exit(_) => {
                stats.failures += 1;
                if first_failure.is_none() {
                    first_failure = Some(Box::new(confirm(session, &schedule, exec.clone(), stats.schedules, options)?));
                }
                if !options.all {
                    break Verdict::Failed(first_failure.take().expect("set above"));
                }
            }
        }
        let empty = (std::collections::HashMap::new(), std::collections::HashMap::new());
        let known = session.known().unwrap_or(Known { sites: &empty.0, stacks: &empty.1 });
        search.expand(&schedule, &exec, prioritizer, known);
    };
    stats.pruned = search.pruned;
    stats.elapsed = started.elapsed();
    if options.select {
        stats.skipped += search.postponed_count() as u64;
    }
    let verdict = match (verdict, first_failure) {
        (Verdict::Failed(f), _) => Verdict::Failed(f),
        (v @ (Verdict::Stopped(_) | Verdict::Cancelled), _) => v,
        (_, Some(f)) => Verdict::Failed(f),
        (v, None) => v,
    };
    Ok(Report { verdict, stats })
}

/// Runs a failing schedule again in full mode: the report's details, and a check that it
/// reproduces.
fn confirm(session: &mut Session, schedule: &Schedule, exec: Execution, schedules: u64, options: &Options) -> Result<Found, String> {
    let full = session.run(&exec.decisions.iter().map(|d| d.thread).collect::<Vec<_>>(), Mode::Full, options.max_steps)?;
    let string = ScheduleString::of(&schedule.choices, &exec, |s| session.site(s));
    let preemptions = preemptions(&full, session);
    Ok(Found { schedules, schedule: schedule.clone(), string, execution: exec, full, preemptions })
}

/// Runs one schedule (a replay): the fast execution checked against the string's places,
/// then the full one for the report.
pub fn replay(session: &mut Session, string: &ScheduleString, max_steps: u32) -> Result<(Execution, Option<(usize, String, String)>), String> {
    let exec = session.run(&string.choices, Mode::Full, max_steps)?;
    let diverged = string.divergence(&exec, |s| session.site(s));
    Ok((exec, diverged))
}

/// Change-aware PCT: random schedules from the agent's PCT scheduler, priority change
/// points only at impacted points (`sites`: `class:line`), `depth - 1` of them.
pub fn explore_pct(
    session: &mut Session,
    options: &Options,
    depth: u32,
    sites: &[String],
    progress: &mut dyn FnMut(&Stats),
    cancel: &AtomicBool,
) -> Result<Report, String> {
    let started = Instant::now();
    let mut stats = Stats::default();
    // How many impacted points an execution passes: the horizon change points are drawn in.
    // It is the default schedule, and counts as one.
    let probe = session.run(&[], Mode::Full, options.max_steps)?;
    if cancel.load(Ordering::Relaxed) {
        return Ok(Report { verdict: Verdict::Cancelled, stats });
    }
    stats.schedules += 1;
    stats.decision_points += probe.decisions.len() as u64;
    stats.steps += probe.steps as u64;
    if probe.outcome.is_bug() {
        // The default schedule: its decisions are the same in either mode.
        let found = confirm(session, &Schedule { choices: Vec::new(), preemptions: 0 }, probe, 1, options)?;
        stats.elapsed = started.elapsed();
        return Ok(Report { verdict: Verdict::Failed(Box::new(found)), stats });
    }
    let known = session.sites();
    let impacted = |id: u32| known.get(&id).is_some_and(|s| sites.iter().any(|x| x == &format!("{}:{}", s.class, s.line)));
    let horizon = probe.events.iter().filter(|e| sites.is_empty() || impacted(e.site)).count().max(1);
    let list = if sites.is_empty() { "*".to_string() } else { sites.join("+") };
    let mut rng = crate::search::icb::XorShift::new(options.seed.unwrap_or(1));
    let verdict = loop {
        if cancel.load(Ordering::Relaxed) {
            break Verdict::Cancelled;
        }
        if stats.schedules >= options.max_schedules {
            break Verdict::Limit;
        }
        let seed = rng.next_u64() >> 1;
        let pct = format!("pct={seed}/{depth}/{horizon}/{list}");
        let exec = session.run_with(&[], Mode::Fast, options.max_steps, &[pct])?;
        if cancel.load(Ordering::Relaxed) {
            break Verdict::Cancelled;
        }
        stats.schedules += 1;
        stats.decision_points += exec.decisions.len() as u64;
        stats.steps += exec.steps as u64;
        stats.elapsed = started.elapsed();
        progress(&stats);
        match &exec.outcome {
            Outcome::Pass => {}
            Outcome::Livelock => stats.livelocks += 1,
            Outcome::Fail(_) | Outcome::Deadlock(_) | Outcome::Exit(_) => {
                // Replays as a plain schedule: the choices it made, without the preemptions
                // the failure does not need (at most 40 more executions, not counted as
                // schedules explored: they are the report's, not the search's).
                let exec = crate::search::simplify::fewer_preemptions(exec, 40, &mut |c| {
                    if cancel.load(Ordering::Relaxed) {
                        return Ok(None); // stop simplifying: report what we have
                    }
                    session.run(c, Mode::Fast, options.max_steps).map(Some)
                })?;
                let schedule = Schedule { choices: exec.decisions.iter().map(|d| d.thread).collect(), preemptions: crate::search::simplify::preemptions(&exec) as u32 };
                break Verdict::Failed(Box::new(confirm(session, &schedule, exec, stats.schedules, options)?));
            }
            other => break Verdict::Stopped(format!("PCT stopped: {}", other.kind())),
        }
    };
    stats.elapsed = started.elapsed();
    Ok(Report { verdict, stats })
}
