//! The front door of an exploration: one typed [`Request`] in, one [`Exploration`] out,
//! with its renderers beside it (text, JSON, SARIF, the web page, and the result the
//! language server keeps), as ripgrep keeps its printers beside its searcher.
//!
//! `racelens explore` (one test, or each test of `--affected`) and the editor's lens run the
//! same [`explore`]: the change model (the analysis' impacted points, extended by the test's
//! dynamic impact when it can be recorded on both versions), the search of the requested
//! prioritization, the loop on one warm JVM, and the record of the default schedule in the
//! coverage history. A replay is [`replay`]. Callers build the request from what they have
//! (command-line arguments and a loaded host; the editor's settings and a snapshot) and
//! print or store what comes back; nothing here prints.
//!
//! - [`toolchain`]: the JDK, the agent and the compiled project, prepared once;
//! - [`places`]: runtime classes placed in the project's files;
//! - [`checks`]: a failing schedule checked before it is reported (a fresh JVM, plain runs);
//! - [`text`], [`json`], [`sarif`], [`html`], [`stored`]: the renderers.

pub mod checks;
pub mod html;
pub mod json;
pub mod places;
pub mod sarif;
pub mod stored;
pub mod text;
pub mod toolchain;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use racelens_analysis::coverage::Snapshot;
use racelens_analysis::host::Host;
use racelens_analysis::impact::Impact;

use crate::explorer::{self, Options, Report, Stats, Verdict};
use crate::history;
use crate::impact::{self, HostVersions, IcpSource};
use crate::jvm::project::{self, Sources};
use crate::jvm::protocol::{Execution, Outcome, Site};
use crate::jvm::{Session, TestSpec};
use crate::reports::{ImpactReport, ImpactSources, Search};
use crate::results::schedule::ScheduleString;
use crate::search::change::{self, ChangeModel};
use crate::search::heuristics::{self, Choice};
use crate::search::part::Part;
use crate::search::Strategy;

pub use places::Places;
pub use toolchain::Toolchain;

/// How to explore: the search, its bounds and budget, and the prioritization.
#[derive(Clone, Debug)]
pub struct Settings {
    pub search: Search,
    /// The largest preemption bound of iterative context bounding.
    pub bound: u32,
    pub max_schedules: u64,
    /// Wall time for the exploration (`--max-seconds`), if bounded.
    pub max_seconds: Option<u64>,
    /// Scheduling points per execution before it counts as a livelock.
    pub max_steps: u32,
    /// Randomize the search's order (and PCT's choices) with this seed.
    pub seed: Option<u64>,
    /// Keep exploring after the first failure, counting failing schedules.
    pub all: bool,
    /// ReConTest's selection: only schedules that reorder an impacted access.
    pub select: bool,
    /// The prioritization as named (`pct+LA`), and parsed.
    pub heuristic: String,
    pub choice: Choice,
    /// Priority change points of PCT.
    pub pct_depth: u32,
    /// The part of the test's schedules to explore (`--shard I/N` with fewer tests than
    /// shards; usually the whole).
    pub part: Part,
}

impl Settings {
    /// The defaults of `racelens explore`, with the prioritization `heuristic`.
    pub fn new(heuristic: &str) -> Result<Settings, String> {
        let defaults = Options::default();
        Ok(Settings {
            search: Search::Icb,
            bound: explorer::DEFAULT_MAX_BOUND,
            max_schedules: defaults.max_schedules,
            max_seconds: None,
            max_steps: defaults.max_steps,
            seed: None,
            all: false,
            select: false,
            heuristic: heuristic.to_string(),
            choice: Choice::parse(heuristic)?,
            pct_depth: 3,
            part: Part::WHOLE,
        })
    }

    /// The loop's options.
    pub fn options(&self) -> Options {
        let strategy = match self.search {
            Search::Icb => Strategy::Icb { max_bound: Some(self.bound) },
            Search::Dfs => Strategy::Dfs,
        };
        Options {
            strategy,
            seed: self.seed,
            max_schedules: self.max_schedules,
            max_time: self.max_seconds.map(std::time::Duration::from_secs),
            max_steps: self.max_steps,
            all: self.all,
            select: self.select,
            part: self.part,
        }
    }
}

/// The base revision's sources and commit (`None`: no base revision), or why they cannot be
/// had: what the test's dynamic impact is recorded on.
pub type BaseSources = Result<Option<(String, Sources)>, String>;

/// The change a change-aware prioritization steers by.
#[derive(Clone)]
pub struct ChangeInput {
    /// The analysis' impacted points and pairs.
    pub model: ChangeModel,
    /// Where the impacted points come from (`--icps`); `None`: the analysis' and the test's
    /// dynamic impact when it can be recorded on both versions.
    pub icps: Option<IcpSource>,
    /// The diff, per class.
    pub versions: Arc<HostVersions>,
    /// Read only when the dynamic impact may be computed ([`ChangeInput::needs_base`]).
    pub base: BaseSources,
}

impl ChangeInput {
    /// Whether the dynamic impact may be computed, and so the base revision is needed: not
    /// for `--icps static`, nor without a change (both runs would be the same).
    pub fn needs_base(icps: Option<IcpSource>, versions: &HostVersions) -> bool {
        icps != Some(IcpSource::Static) && !versions.is_unchanged()
    }

    /// The change of `host` as the analysis' `impact` has it: its model, the diff, and the base
    /// revision's sources when the dynamic impact may need them (`icps`: [`ChangeInput::icps`]).
    pub fn of(host: &mut Host, impact: &Impact, icps: Option<IcpSource>) -> ChangeInput {
        let model = change::model(host, impact);
        let versions = HostVersions::new(host);
        let base = if ChangeInput::needs_base(icps, &versions) { project::base_sources(host) } else { Ok(None) };
        ChangeInput { model, icps, versions: Arc::new(versions), base }
    }
}

/// The coverage history's record of the default schedule, added after the exploration.
pub struct RecordInput {
    /// The sources as the test runs on them, and the commit HEAD was at.
    pub snapshot: Snapshot,
    pub revision: Option<String>,
}

impl RecordInput {
    /// The record of an exploration on `host`: its `sources` (the host's) and the commit HEAD
    /// was at.
    pub fn of(host: &Host, sources: &Sources) -> RecordInput {
        RecordInput { snapshot: history::snapshot(sources), revision: history::revision(host) }
    }
}

/// One exploration (or, with [`replay`], one schedule) of one test.
pub struct Request {
    pub test: TestSpec,
    pub settings: Settings,
    /// Required for a change-aware prioritization; without it, it explores as `basic`.
    pub change: Option<ChangeInput>,
    pub places: Places,
    /// Where the replay command points (the folder as the user named it).
    pub root: String,
    /// Add the default schedule's record to the coverage history (not after a cancel).
    pub record: Option<RecordInput>,
}

/// What an exploration reports while it runs.
pub trait Observer {
    /// After each schedule.
    fn progress(&mut self, _stats: &Stats) {}
    /// The test's dynamic impact, once computed (before the exploration starts).
    fn impact(&mut self, _report: &ImpactReport) {}
}

/// An observer that reports nothing.
pub struct Quiet;

impl Observer for Quiet {}

/// What an exploration ran against: the build's classpath, and what preparing took.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// `classpath: maven 3.8.7, module inventory (+ ids as sources), 4 jars, cached`.
    pub classpath: String,
    /// What reading the build noted (a JVM option dropped, ...).
    pub notes: Vec<String>,
    /// Reading the build's classpath and compiling (zero when both were up to date).
    pub compile: Duration,
    /// The test's dynamic impact: the base revision compiled and the test run on both
    /// versions; `None` when it was not computed.
    pub impact: Option<Duration>,
}

/// An exploration's result: the loop's report with everything its renderers need.
pub struct Exploration {
    pub test: TestSpec,
    pub settings: Settings,
    pub report: Report,
    /// The impacted code points the prioritization knew, and where they came from (`None`
    /// for a change-unaware prioritization).
    pub impact: Option<(usize, ImpactSources)>,
    /// Impacted lines at which the exploration had a choice of thread.
    pub covered: usize,
    /// The sites the agent announced, by id (the trace's places).
    pub sites: HashMap<u32, Site>,
    pub places: Places,
    pub root: String,
    /// Why the coverage history did not get the test's record, when it did not.
    pub unrecorded: Option<String>,
    /// What checking a failing schedule found (a fresh JVM's replay, plain runs); `None`
    /// without a failure.
    pub checks: Option<checks::Checks>,
    pub setup: Setup,
}

/// Explores `request.test` on `toolchain`'s classes. `Err` only when the exploration could
/// not run at all (the JVM could not start); everything else is in the report's verdict.
pub fn explore(
    toolchain: &Toolchain,
    request: &Request,
    observer: &mut dyn Observer,
    cancel: &AtomicBool,
) -> Result<Exploration, String> {
    let settings = &request.settings;
    let mut session = toolchain.session(request.test.clone());
    let result = explore_in(toolchain, request, &mut session, observer, cancel);
    session.close();
    let Explored { report, impact, covered, sites, unrecorded, checks, impact_time } = result?;
    let project = &toolchain.project;
    let setup = Setup {
        classpath: project.classpath_line.clone(),
        notes: project.notes.clone(),
        compile: project.classpath_time + project.compile_time,
        impact: impact_time,
    };
    Ok(Exploration {
        test: request.test.clone(),
        settings: settings.clone(),
        report,
        impact,
        covered,
        sites,
        places: request.places.clone(),
        root: request.root.clone(),
        unrecorded,
        checks,
        setup,
    })
}

/// What [`explore_in`] hands to the [`Exploration`].
struct Explored {
    report: Report,
    impact: Option<(usize, ImpactSources)>,
    covered: usize,
    sites: HashMap<u32, Site>,
    unrecorded: Option<String>,
    checks: Option<checks::Checks>,
    impact_time: Option<Duration>,
}

fn explore_in(
    toolchain: &Toolchain,
    request: &Request,
    session: &mut Session,
    observer: &mut dyn Observer,
    cancel: &AtomicBool,
) -> Result<Explored, String> {
    let settings = &request.settings;
    let change = request.change.as_ref().filter(|_| settings.choice.is_change_aware());
    let started = Instant::now();
    let model = change.map(|c| change_model(toolchain, request, c, session, observer));
    let impact_time = model
        .as_ref()
        .filter(|(_, used)| used.dynamic_statements.is_some() || used.note.is_some())
        .map(|_| started.elapsed());
    let mut progress = |s: &Stats| observer.progress(s);
    let mut report = explore_test(
        session,
        &settings.options(),
        settings.choice,
        model.as_ref().map(|(m, _)| m),
        settings.pct_depth,
        &mut progress,
        cancel,
    )?;
    let covered = model.as_ref().map_or(0, |(m, _)| covered(session, m));
    // The sites of the runs explored; the record's run below adds nothing the report shows.
    let sites = session.sites();
    let checks = match std::mem::replace(&mut report.verdict, Verdict::Cancelled) {
        Verdict::Failed(found) if !cancel.load(Ordering::Relaxed) => {
            let (verdict, checks) = checks::check(toolchain, &request.test, found, settings.max_steps)?;
            report.verdict = verdict;
            Some(checks)
        }
        verdict => {
            report.verdict = verdict;
            None
        }
    };
    let unrecorded = match (&request.record, &report.verdict) {
        (_, Verdict::Cancelled) => None,
        (Some(record), _) if !cancel.load(Ordering::Relaxed) => remember(request, record, session).err(),
        _ => None,
    };
    let impact = model.map(|(m, used)| (m.icps.len(), used));
    Ok(Explored { report, impact, covered, sites, unrecorded, checks, impact_time })
}

/// The change model of the exploration, with the test's dynamic impact (`--icps`), and what
/// it was built from; the impact goes to the observer.
fn change_model(
    toolchain: &Toolchain,
    request: &Request,
    change: &ChangeInput,
    session: &mut Session,
    observer: &mut dyn Observer,
) -> (ChangeModel, ImpactSources) {
    // No change: both runs would be the same, and the impact empty.
    let asked = if change.versions.is_unchanged() { Some(IcpSource::Static) } else { change.icps };
    let (model, used, report) = impact::model_for(&change.model, asked, || {
        dynamic_impact(toolchain, &change.base, &change.versions, &request.places, session, request.settings.max_steps)
    });
    if let Some(report) = report.filter(|r| r.base_unavailable.is_none()) {
        observer.impact(&report);
    }
    (model, used)
}

/// The test's dynamic impact (ReConTest phase I): its runs on the working tree (`session`)
/// and on the base revision (`base`, compiled by `toolchain`), compared through `versions`.
/// Explores `session`'s test with the prioritization `choice` (`heuristics::search`), each
/// of its invocations in turn when it has several: the loop that drives the JVM, for every
/// front door.
pub fn explore_test(
    session: &mut Session,
    options: &Options,
    choice: Choice,
    change: Option<&ChangeModel>,
    pct_depth: u32,
    progress: &mut dyn FnMut(&Stats),
    cancel: &AtomicBool,
) -> Result<Report, String> {
    let invocations = session.invocations()?;
    if invocations.is_empty() {
        let mut search = heuristics::search(&options.shape(), choice, change, pct_depth);
        return explorer::explore(session, options, &mut search, progress, cancel);
    }
    crate::invocations::explore_each(
        session,
        &invocations,
        options,
        progress,
        cancel,
        &mut |session, options, progress| {
            let mut search = heuristics::search(&options.shape(), choice, change, pct_depth);
            explorer::explore(session, options, &mut search, progress, cancel)
        },
    )
}

pub fn dynamic_impact(
    toolchain: &Toolchain,
    base: &BaseSources,
    versions: &HostVersions,
    places: &Places,
    session: &mut Session,
    max_steps: u32,
) -> Result<ImpactReport, String> {
    let base = match base {
        Ok(Some((commit, sources))) => {
            toolchain.base_session(commit, sources, session.spec.clone()).map(|s| Some((commit.clone(), s)))
        }
        Ok(None) => Ok(None),
        Err(e) => Err(e.clone()),
    };
    impact::dynamic_impact(session, base, versions, &|class| places.file_of(class), max_steps)
}

/// Impacted lines at which the exploration had a choice of thread (the sites the agent
/// announced are those of decision points).
fn covered(session: &Session, change: &ChangeModel) -> usize {
    let mut places: Vec<String> = session
        .sites()
        .values()
        .map(|s| format!("{}:{}", s.class, s.line))
        .filter(|p| change.pct_sites.binary_search(p).is_ok())
        .collect();
    places.sort();
    places.dedup();
    places.len()
}

/// Adds the record of the test's default schedule (the one the exploration ran first) to the
/// coverage history `racelens select` and the editor's ranking read: one more run, part of
/// the exploration asked for.
fn remember(request: &Request, record: &RecordInput, session: &mut Session) -> Result<(), String> {
    let file_of = |class: &str| request.places.file_of(class);
    let recording = history::Recording {
        snapshot: &record.snapshot,
        revision: record.revision.clone(),
        file_of: &file_of,
        source: "explore",
    };
    let run = history::record(session, &recording, request.settings.max_steps)?;
    history::save(&history::path(&session.project.root), &record.snapshot, vec![(request.test.display(), run)])
}

/// One schedule run again, and whether it still fails.
pub struct Replayed {
    pub test: TestSpec,
    pub schedule: String,
    pub exec: Execution,
    /// Where the run left the schedule: the decision, what the schedule switches at there,
    /// and what the run reached instead.
    pub diverged: Option<(usize, String, String)>,
    pub sites: HashMap<u32, Site>,
    pub places: Places,
}

/// Runs exactly `schedule` (a string from an exploration) of `test`.
pub fn replay(
    toolchain: &Toolchain,
    test: TestSpec,
    schedule: &str,
    max_steps: u32,
    places: Places,
) -> Result<Replayed, String> {
    let string = ScheduleString::decode(schedule)?;
    let mut session = toolchain.session(test.clone());
    let ran = explorer::replay(&mut session, &string, max_steps);
    let sites = session.sites();
    session.close();
    let (exec, diverged) = ran?;
    Ok(Replayed { test, schedule: schedule.to_string(), exec, diverged, sites, places })
}

impl Replayed {
    /// 0 the schedule passes now, 1 it fails, 2 it diverged or racelens failed.
    pub fn exit_status(&self) -> u8 {
        if self.diverged.is_some() || matches!(self.exec.outcome, Outcome::Divergence { .. } | Outcome::Error(_)) {
            2
        } else if self.exec.outcome.is_bug() {
            1
        } else {
            0
        }
    }
}

impl Exploration {
    /// 1 a failing schedule, 2 the exploration stopped or did not control the test, 0
    /// otherwise.
    pub fn exit_status(&self) -> u8 {
        match &self.report.verdict {
            Verdict::Failed(_) => 1,
            Verdict::Stopped(_) | Verdict::Uncontrolled(_) | Verdict::Unconfirmed(..) | Verdict::Limitation(..) => 2,
            _ => 0,
        }
    }

    /// Schedules run: up to and including the first failing one, unless `all` went on.
    pub fn schedules_run(&self) -> u64 {
        match &self.report.verdict {
            Verdict::Failed(f) if !self.settings.all => f.schedules,
            _ => self.report.stats.schedules,
        }
    }
}

/// The command that replays `schedule` of `test` in the work tree at `root`: one form for
/// the command line, the editor's lenses and documents, and the web page.
pub fn replay_command(root: &str, test: &str, schedule: &str) -> String {
    format!("racelens replay {root} --test {test} --schedule {schedule}")
}

/// Runs the test `name` once (its module of the build compiled first) and returns its name as
/// `select` writes it, and its record.
pub fn record_test(
    host: &Host,
    (sources, places, snapshot): (&Sources, &Places, &racelens_analysis::coverage::Snapshot),
    name: &str,
    max_steps: u32,
) -> Result<(String, racelens_analysis::coverage::TestRun), String> {
    let spec = crate::jvm::tests::resolve(host, name)?;
    let toolchain = Toolchain::for_test(sources, places, &spec)?;
    let mut session = toolchain.session(spec);
    let files = |class: &str| places.file_of(class);
    let recording =
        history::Recording { snapshot, revision: history::revision(host), file_of: &files, source: "record" };
    let run = history::record(&mut session, &recording, max_steps);
    session.close();
    Ok((session.spec.display(), run?))
}
