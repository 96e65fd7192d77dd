//! `racelens explore` and `racelens replay`: run a test's schedules on a real JVM.

pub(crate) mod affected;
mod sarif;

use std::fmt::Write;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use racelens_analysis::host::{Host, HostOptions};
use racelens_explore::explorer::{self, Found, Options, Report, Stats, Verdict};
use racelens_explore::history::file_of;
use racelens_explore::jvm::Session;
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::TestSpec;
use racelens_explore::jvm::protocol::{Execution, Outcome, Site};
use racelens_explore::results::schedule::ScheduleString;
use racelens_analysis::impact::Options as AnalysisOptions;
use racelens_explore::search::heuristics::{self, Choice};
use racelens_explore::results::coverage::Coverage;
use racelens_explore::search::Strategy;
use racelens_explore::jvm::{agent, project};
use racelens_explore::results::report;
use racelens_explore::results::swimlane::{self, Lanes, Section};
use racelens_explore::search::change::{self, ChangeModel};
use racelens_explore::impact::HostVersions;
use racelens_explore::reports::{Divergence, ExploreOutcome, ExploreReport, ImpactSources, FailureReport, PreemptionReport, ReplayReport, Search, StatsReport, StreamPlace, TraceStep};

use crate::impact::{model_for, sources_line, IcpsArg};
use crate::shard::Shard;
use crate::{print_json, Format};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearchKind {
    /// iterative context bounding (CHESS): all schedules with 0 preemptions, then 1, ...
    Icb,
    /// plain depth-first search over all schedules
    Dfs,
}

/// Explore the thread schedules of a test on a real JVM until one fails.
///
/// Every shared-memory and synchronization operation of the project's classes is a point
/// where racelens decides which thread runs; schedules are explored systematically, in
/// order of preemptions (iterative context bounding). A failing schedule replays exactly
/// with `racelens replay`.
///
/// Tests: JUnit 3 (`public void test*()` of a `junit.framework.TestCase`, run through
/// `runBare()`, or a test of a class's `suite()`), JUnit 4 and JUnit 5 `@Test` methods, and
/// `static main`. A time limit (`@Test(timeout = N)`, JUnit 5's `@Timeout`) counts racelens's
/// logical time (sleeps and timed waits advance it): a test method that returns later fails
/// with JUnit's timeout failure; one that never returns stays a livelock or deadlock.
///
/// Threads the JDK starts for the test (`java.util.Timer`, scheduled executors, fork/join
/// pools, `CompletableFuture`'s async stages) run under the scheduler, delays in logical time;
/// parallel streams run sequentially in the calling thread.
///
/// `--affected` explores, instead of one test, the tests `racelens select` selects for the
/// working-tree change (compared with HEAD), best first, within one budget of schedules:
/// each gets an equal share, fixed up front (the remainder one each to the best ranked). A
/// failure does not stop the run (`--fail-fast` does); every other option applies to each
/// test. Each test's result follows its rank, then a summary line.
///
/// `--affected --shard I/N` explores only shard I's part, on one of N machines, and
/// `racelens merge` combines the N shards' `--json` outputs into the report one run prints.
/// The selected tests are dealt round-robin by rank (shard I takes #I, #I+N, ...), each with
/// the budget it has in the unsharded run. Not split: the schedules of one test. When fewer
/// tests are selected than there are shards, the extra shards report "no work for this
/// shard" and the tests are not explored any faster. Splitting one test's search is not
/// built. The way it could go: at the first decision point where more than one thread can
/// run, every such thread is tried (DPOR alone adds a branch there only from races seen in
/// runs through the other branches, which would run on other shards), and shard I keeps the
/// branches whose index is I modulo N, sleep sets counting only its own. It needs the search
/// trees to leave the other shards' subtrees out (the very first run may fall into one),
/// the default heuristic's first PCT schedules to respect the split, the property test to
/// show that the parts together cover what one search covers, and merge rules for one
/// test's parts: a bound is complete only where every part completed it, and the schedules
/// to the first failure would not be those of one run, so the merge could not equal it.
///
/// `--format sarif` prints one SARIF 2.1.0 log (GitHub code scanning, IDEs): a failing
/// schedule is an error result `RL200` where the test failed, with the preemptions as
/// related locations and the schedule's steps as a code flow of one thread flow per thread;
/// a test not explored, or stopped, is a note `RL201`, and an exploration that ended without
/// a complete claim (the budget ran out) a note `RL202`. A pass with a complete claim is no
/// result: the run's `properties` say what was covered (`coverage`, `claim`), with the
/// schedules and the bound, and its `invocations` the exit status.
///
/// `--html FILE` also writes the result as a self-contained web page (for CI artifacts and
/// for readers without the editor extension): a failing schedule as a swimlane picture,
/// one column per thread and time downwards, the steps in the table's words, preemptions
/// marked `⇄` with an arrow to the thread that ran next, the failure in red, and each row
/// labelled and tagged (`data-file`, `data-line`) with its source line, relative to the
/// work tree. A test without a failure gets a line saying what was covered, never a
/// picture. With `--affected`, one page for the whole run: a section per test explored,
/// in rank order, then the summary.
///
/// Exit status: 0 no failing schedule within the budget, 1 a failing schedule found, 2 a
/// usage or setup error (a `--html` file that cannot be written included), or a thread
/// racelens does not control ran project code (`! not explored`: never a pass). With `--affected`: 1 when a test failed, else 2 when a test
/// could not be explored or its exploration stopped, else 0 (also when nothing is selected).
#[derive(Args)]
pub struct ExploreArgs {
    /// A folder of the work tree.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// The test: `CLASS#METHOD` (a JUnit 3, 4 or 5 test), or `CLASS` for its `static main`
    /// or its only test method.
    #[arg(long, value_name = "CLASS#METHOD", required_unless_present = "affected")]
    test: Option<String>,
    /// Explore the tests the working-tree change selects (`racelens select`), best first,
    /// within the `--max-schedules` budget in total.
    #[arg(long, conflicts_with = "test")]
    affected: bool,
    /// With `--affected`: stop at the first test that fails.
    #[arg(long, conflicts_with = "test")]
    fail_fast: bool,
    /// With `--affected`: explore only shard I of N (1-based), for CI over N machines: the
    /// selected tests are dealt round-robin by rank, each with its unsharded budget, and
    /// `racelens merge` turns the N `--json` outputs into the unsharded report. One test's
    /// schedules are not split: a shard left without a test says "no work for this shard".
    #[arg(long, value_name = "I/N", conflicts_with = "test")]
    shard: Option<Shard>,
    /// The largest preemption bound: iterative context bounding explores every schedule
    /// with 0 preemptions, then 1, ... up to this one, and stops there (or earlier, when
    /// every schedule whatever its preemptions is covered).
    #[arg(long, default_value_t = explorer::DEFAULT_MAX_BOUND)]
    bound: u32,
    /// Stop after this many schedules. With `--affected`, the budget of all the selected
    /// tests together: each test gets an equal share, fixed up front, the remainder one each
    /// to the best ranked. What a test does not use (it fails, or its claim completes early)
    /// is not passed on: a test's budget never depends on how the others ended, so that
    /// shards (`--shard`) run exactly the schedules one run does.
    #[arg(long, default_value_t = 10_000)]
    max_schedules: u64,
    /// The search.
    #[arg(long, value_enum, default_value_t = SearchKind::Icb)]
    search: SearchKind,
    /// Schedule prioritization: `basic` (none, change-unaware); CAPP's fourteen heuristics
    /// `CA CS COA COS MA MS MOA MOS LA LS LOA LOS FA FS` (match mode: Class, Class On stack,
    /// Method, Method On stack, Line, Line On stack, Field; then All or Some);
    /// `pair` (preempt right before accesses of impacted shared-variable pairs); `pct`
    /// (change-aware probabilistic concurrency testing); `pct+H` (10 schedules of `pct`,
    /// then CAPP's heuristic H). The default is the one that found every fault of
    /// racelens's CAPP benchmark in the fewest schedules (README).
    #[arg(long, default_value = heuristics::DEFAULT)]
    heuristic: String,
    /// Priority change points of `--heuristic pct` (its depth).
    #[arg(long, default_value_t = 3)]
    pct_depth: u32,
    /// Selection instead of prioritization (ReConTest phase II): explore only the schedules
    /// that reorder an impacted access (a line or field of the impacted code points,
    /// `--icps`) against another thread — the reversals of races in which a thread that
    /// makes an impacted access from there on takes part, and whatever lies below one —
    /// and report how many schedules were left out. Nothing is claimed about those.
    #[arg(long)]
    select: bool,
    /// Where a change-aware prioritization takes its impacted code points from: `static`
    /// (the analysis), `dynamic` (the test run once on the base revision and once on the
    /// working tree: accesses that are new or whose locks, happens-before events or lock
    /// releases changed; `racelens impact`), or `both`. Default: `both` when the test can
    /// be recorded on both versions (the base revision compiles and has the test), else
    /// `static`, with a note saying why. The dynamic impact costs two runs of the test and
    /// compiling the base revision once per base commit.
    #[arg(long, value_enum, value_name = "SOURCE")]
    icps: Option<IcpsArg>,
    /// Randomize the order of the search (which decision point branches first, and to which
    /// thread), reproducibly; also PCT's random choices.
    #[arg(long)]
    seed: Option<u64>,
    /// Scheduling points per execution before it counts as a livelock.
    #[arg(long, default_value_t = 100_000)]
    max_steps: u32,
    /// Keep exploring after the first failure and count failing schedules.
    #[arg(long)]
    all: bool,
    /// Print one JSON object: `test`, `search`, `heuristic`, `icps`,
    /// `matched_decision_points`, `bound`, `outcome` (fail, pass, limit, uncontrolled,
    /// error), `schedules` (up to and including the first failing one), `coverage`
    /// (`complete_bound`: every schedule with at most that many preemptions is equivalent to
    /// one that ran, or null; `all_schedules`: every schedule is; `classes`; `runs`;
    /// `budget_exhausted`; `open`: the bound being explored when the budget ran out, with
    /// the schedules of it run and known to be waiting; `livelocks`; `sequential_streams`:
    /// how many places ran a parallel stream sequentially), `sequential_streams` (those
    /// places: `file`, `line`, `call`), `failure` (`kind`,
    /// `message`, `thread`, `file`, `line`, `schedule`, `preemptions`, `trace`), `error`,
    /// `stats` (`elapsed_ms`, `schedules_per_sec`, `decision_points`, `livelocks`, `pruned`,
    /// `failing_schedules`, `skipped`, `redundant`). With `--affected`: `tests` (each:
    /// `test`, `rank`, `pairs`, `result`: the object above, or null with `error` when the
    /// test could not be run; `budget`: its share), `selected`, `budget`, `schedules` (run,
    /// in all), `failed`; with `--shard`, also `shard` (what `racelens merge` needs: `index`,
    /// `count`, `selection`, `base`, `options`, `texts`, `notes`), and `tests` holds this
    /// shard's. The same as `--format json`. The schemas: server/cli/schemas/explore.schema.json,
    /// and with `--affected` explore-affected.schema.json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// How to print the result (the SARIF log: above).
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<Format>,
    /// Also write the result as a web page with the failing schedule as a swimlane picture
    /// (above); what is printed does not change.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// Run exactly one schedule of a test (a string from `racelens explore`) and say whether
/// it still fails.
///
/// Exit status: 0 the schedule passes now, 1 it fails, 2 a usage or setup error, or the
/// execution diverged from the schedule (the code changed where the schedule switches).
#[derive(Args)]
pub struct ReplayArgs {
    #[arg(default_value = ".")]
    path: PathBuf,
    #[arg(long, value_name = "CLASS#METHOD")]
    test: String,
    /// The schedule, as `racelens explore` printed it.
    #[arg(long)]
    schedule: String,
    #[arg(long, default_value_t = 100_000)]
    max_steps: u32,
    /// Print one JSON object (`test`, `outcome`, `message`, `file`, `line`, `divergence`,
    /// `trace`) instead of text. Its schema: server/cli/schemas/replay.schema.json.
    #[arg(long)]
    json: bool,
    /// Also write the run as a web page: a failure as a swimlane picture (see `racelens
    /// explore --help`), else a line saying how the run ended.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// Everything an exploration needs: the host (sources and index), the test, a JVM session.
struct Prepared {
    host: Host,
    session: Session,
    toolchain: Toolchain,
}

/// The loaded host of the work tree at `path`, or of the folder when it is not in git.
pub(crate) fn open_host(path: &Path) -> Result<Host, String> {
    let mut host = Host::open(path, &HostOptions::default()).or_else(|e| {
        if e.contains("not inside a git work tree") {
            Host::open(path, &HostOptions { no_git: true, ..HostOptions::default() })
        } else {
            Err(e)
        }
    })?;
    host.load()?;
    Ok(host)
}

fn prepare(path: &Path, test: &str) -> Result<Prepared, String> {
    let host = open_host(path)?;
    let spec = racelens_explore::jvm::tests::resolve(&host, test)?;
    let file = racelens_explore::jvm::tests::source_file(&host, &spec);
    let toolchain = Toolchain::prepare(&host, file.as_deref().map(Path::new))?;
    let session = toolchain.session(spec);
    Ok(Prepared { session, host, toolchain })
}

/// What the sessions of a project's tests share: the JDK, the agent, the compiled classes.
pub(crate) struct Toolchain {
    jdk: Jdk,
    agent: PathBuf,
    project: project::Project,
}

impl Toolchain {
    /// Locates the JDK and compiles the host's project (a setup error otherwise): the
    /// module of `test_file` when given, else every source.
    pub(crate) fn prepare(host: &Host, test_file: Option<&Path>) -> Result<Toolchain, String> {
        let jdk = Jdk::locate()?;
        let project = project::prepare(&project::Sources::of(host), &jdk, test_file)?;
        let agent = agent::agent_jar()?;
        Ok(Toolchain { jdk, agent, project })
    }

    pub(crate) fn session(&self, spec: TestSpec) -> Session {
        Session::new(self.jdk.clone(), self.agent.clone(), self.project.clone(), spec)
    }

    /// A session of the test on the base revision (compiled once per base commit), with
    /// the commit; `None` when the work tree has no base revision.
    pub(crate) fn base_session(&self, host: &Host, spec: TestSpec) -> Result<Option<(String, Session)>, String> {
        let Some((commit, sources)) = project::base_sources(host)? else { return Ok(None) };
        let project = project::build_base(&commit, &sources, &self.jdk, &self.project)?;
        Ok(Some((commit, Session::new(self.jdk.clone(), self.agent.clone(), project, spec))))
    }
}


/// The project file (if the class is the project's) and line of a site.
fn place(host: &Host, site: Option<&Site>) -> (Option<String>, Option<u32>) {
    match site {
        Some(s) => (file_of(host, &s.class), Some(s.line)),
        None => (None, None),
    }
}

/// The project file and line of the failure's first frame that is in the project.
fn failure_site(host: &Host, exec: &Execution) -> Option<(String, u32)> {
    let Outcome::Fail(f) = &exec.outcome else { return None };
    f.frames.iter().find_map(|fr| Some((file_of(host, &fr.class)?, fr.line)))
}

/// [`failure_site`] as the report's `file` and `line` (null when unknown).
fn failure_place(host: &Host, exec: &Execution) -> (Option<String>, Option<u32>) {
    failure_site(host, exec).map_or((None, None), |(file, line)| (Some(file), Some(line)))
}

fn trace(host: &Host, exec: &Execution, session: &Session) -> Vec<TraceStep> {
    exec.events
        .iter()
        .map(|e| {
            let site = session.site(e.site);
            let (file, line) = place(host, site.as_ref());
            TraceStep {
                step: e.step,
                thread: e.thread,
                op: site.as_ref().map(|s| s.op.clone()),
                target: site.as_ref().map(|s| s.target.clone()),
                file,
                line,
                object: e.object.clone(),
                value: e.value.clone(),
            }
        })
        .collect()
}

fn failure_report(host: &Host, found: &Found, session: &Session) -> FailureReport {
    let exec = &found.execution;
    let (file, line) = failure_place(host, &found.full);
    let (thread, message) = match &exec.outcome {
        Outcome::Fail(f) => (Some(f.thread), format!("{}{}", f.exception, if f.message.is_empty() { String::new() } else { format!(": {}", f.message) })),
        other => (None, report::headline(&Execution { outcome: other.clone(), ..exec.clone() })),
    };
    let preemptions = found
        .preemptions
        .iter()
        .map(|p| {
            let (file, line) = place(host, p.site.as_ref());
            PreemptionReport { step: p.step, from: p.from, to: p.to, file, line }
        })
        .collect();
    FailureReport {
        kind: exec.outcome.kind().to_string(),
        message,
        thread,
        file,
        line,
        schedule: found.string.encode(),
        preemptions,
        trace: trace(host, &found.full, session),
    }
}

fn stats_report(stats: &Stats, claim: &racelens_explore::search::Claim) -> StatsReport {
    StatsReport {
        elapsed_ms: stats.elapsed.as_millis() as u64,
        schedules_per_sec: (stats.per_second() * 10.0).round() / 10.0,
        decision_points: stats.decision_points,
        livelocks: stats.livelocks,
        pruned: claim.deferred,
        failing_schedules: stats.failures,
        skipped: claim.skipped,
        redundant: claim.redundant,
    }
}

/// A progress line on stderr once an exploration runs longer than a second.
struct ProgressLine {
    started: Instant,
    last: Instant,
    tty: bool,
    shown: bool,
    test: String,
}

impl ProgressLine {
    fn new(test: &str) -> ProgressLine {
        let now = Instant::now();
        ProgressLine { started: now, last: now, tty: std::io::stderr().is_terminal(), shown: false, test: test.to_string() }
    }

    fn update(&mut self, stats: &Stats) {
        let every = if self.tty { Duration::from_millis(200) } else { Duration::from_secs(5) };
        if self.started.elapsed() < Duration::from_secs(1) || self.last.elapsed() < every {
            return;
        }
        self.last = Instant::now();
        self.shown = true;
        let line = format!("racelens: exploring {}: {} schedules, preemption bound {}, {:.0}/s", self.test, stats.schedules, stats.bound, stats.per_second());
        if self.tty {
            eprint!("\r{line}\x1b[K");
        } else {
            eprintln!("{line}");
        }
    }

    fn done(&self) {
        if self.shown && self.tty {
            eprint!("\r\x1b[K");
        }
    }
}

/// `java.lang.AssertionError: ... in T0 (main) at ... after 4 schedules (1 preemption)`.
fn failure_headline(found: &Found) -> String {
    let p = found.preemptions.len();
    format!(
        "{} after {} schedule{} ({p} preemption{})",
        report::headline(&found.full),
        found.schedules,
        if found.schedules == 1 { "" } else { "s" },
        if p == 1 { "" } else { "s" }
    )
}

/// The command that replays a failing schedule.
fn replay_command(found: &Found, spec: &TestSpec, root: &str) -> String {
    format!("racelens replay {root} --test {} --schedule {}", spec.display(), found.string.encode())
}

/// The lines `explore` prints for a failure: headline, places, preemptions, table, replay.
fn render_failure(host: &Host, found: &Found, session: &Session, spec: &TestSpec, root: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "✗ {}", failure_headline(found));
    if let (Some(file), Some(line)) = failure_place(host, &found.full) {
        let _ = writeln!(out, "  at {file}:{line}");
    }
    for pre in &found.preemptions {
        let (file, line) = place(host, pre.site.as_ref());
        let line = line.map_or_else(|| "null".to_string(), |l| l.to_string());
        let _ = writeln!(out, "  ⇄ {} ({}:{line})", pre.text(), file.as_deref().unwrap_or("?"));
    }
    out.push('\n');
    out += &report::table(&found.full, &session.sites());
    out.push('\n');
    let _ = writeln!(out, "replay: {}", replay_command(found, spec, root));
    out
}

pub fn run_explore(args: ExploreArgs) -> Result<ExitCode, String> {
    let choice = Choice::parse(&args.heuristic)?;
    match &args.test {
        Some(test) => explore_one(&args, test, choice),
        None => affected::run(&args, choice),
    }
}

/// `explore --test`: one test, the whole budget.
fn explore_one(args: &ExploreArgs, test: &str, choice: Choice) -> Result<ExitCode, String> {
    let mut prepared = prepare(&args.path, test)?;
    // The change, for the change-aware prioritizations: the analysis', and the test's dynamic
    // impact (`--icps`).
    let model = choice.is_change_aware().then(|| {
        let impact = prepared.host.analyze(&AnalysisOptions::new());
        let model = change::model(&prepared.host, &impact);
        let versions = HostVersions::new(&mut prepared.host);
        model_for(&model, args.icps, &prepared.host, &versions, &prepared.toolchain, &mut prepared.session, args.max_steps)
    });
    let format = Format::of(args.json, args.format);
    let report = explore_session(&mut prepared.session, args, choice, model.as_ref().map(|(m, _)| m), args.max_schedules)?;
    let (icps, used) = (model.as_ref().map_or(0, |(m, _)| m.icps.len()), model.as_ref().map(|(_, u)| u));
    match format {
        Format::Json => print_json(&result_report(&prepared.host, &prepared.session, args, icps, used, &report)),
        Format::Sarif => sarif::one(&prepared.host, &prepared.session, args, &report).print(),
        Format::Text => {
            print!("{}", render_result(&prepared.host, &prepared.session, args, &report));
            if let Some((_, used)) = &model {
                println!("{}", sources_line(used));
            }
        }
    }
    if let Some(path) = &args.html {
        let section = html_section(&prepared.host, &prepared.session, args, &report, prepared.session.spec.display());
        write_html(path, &format!("racelens explore --test {}", prepared.session.spec.display()), &[section])?;
    }
    crate::record::remember_exploration(&prepared.host, &mut prepared.session, args.max_steps);
    prepared.session.close();
    Ok(ExitCode::from(exit_status(&report.verdict)))
}

/// Explores the session's test with the settings of `args` and at most `max_schedules`
/// schedules, with a progress line on stderr.
fn explore_session(session: &mut Session, args: &ExploreArgs, choice: Choice, model: Option<&ChangeModel>, max_schedules: u64) -> Result<Report, String> {
    let strategy = match args.search {
        SearchKind::Icb => Strategy::Icb { max_bound: Some(args.bound) },
        SearchKind::Dfs => Strategy::Dfs,
    };
    let options = Options { strategy, seed: args.seed, max_schedules, max_steps: args.max_steps, all: args.all, select: args.select };
    let mut progress = ProgressLine::new(&session.spec.display());
    let cancel = AtomicBool::new(false);
    let result = heuristics::explore(session, &options, choice, model, args.pct_depth, &mut |s| progress.update(s), &cancel);
    progress.done();
    result
}

/// The rows of a full-mode execution for the swimlane picture, placed in the project.
fn lanes(host: &Host, exec: &Execution, session: &Session) -> Lanes {
    Lanes::of(exec, &session.sites(), &|class| file_of(host, class))
}

/// The session's test on the `--html` page, under `title`: its failing schedule as a
/// picture, or what was covered in the words `explore` prints (no picture: a picture
/// means a failure).
fn html_section(host: &Host, session: &Session, args: &ExploreArgs, report: &Report, title: String) -> Section {
    match &report.verdict {
        Verdict::Failed(found) => Section::Failure {
            test: title,
            headline: format!("✗ {}", failure_headline(found)),
            lanes: lanes(host, &found.full, session),
            replay: Some(replay_command(found, &session.spec, &args.path.display().to_string())),
        },
        _ => {
            let (mark, words) = verdict_words(report);
            Section::Outcome { test: title, words: format!("{mark}{words}") }
        }
    }
}

/// Writes the `--html` page; a file that cannot be written is an error of the command.
fn write_html(path: &Path, title: &str, sections: &[Section]) -> Result<(), String> {
    std::fs::write(path, swimlane::html(title, sections, &swimlane::Options::default())).map_err(|e| format!("cannot write the page {}: {e}", path.display()))
}

/// The `outcome` of the report.
fn outcome(verdict: &Verdict) -> ExploreOutcome {
    match verdict {
        Verdict::Failed(_) => ExploreOutcome::Fail,
        Verdict::Passed => ExploreOutcome::Pass,
        Verdict::Limit => ExploreOutcome::Limit,
        Verdict::Cancelled => ExploreOutcome::Limit,
        Verdict::Uncontrolled(_) => ExploreOutcome::Uncontrolled,
        Verdict::Stopped(_) => ExploreOutcome::Error,
    }
}

fn search(search: SearchKind) -> Search {
    match search {
        SearchKind::Icb => Search::Icb,
        SearchKind::Dfs => Search::Dfs,
    }
}


/// Schedules run: up to and including the first failing one, unless `--all` went on.
fn schedules_run(args: &ExploreArgs, report: &Report) -> u64 {
    match &report.verdict {
        Verdict::Failed(f) if !args.all => f.schedules,
        _ => report.stats.schedules,
    }
}

/// What `explore --json` prints for the session's test (`icps`: the impacted code points
/// the prioritization knew).
fn result_report(host: &Host, session: &Session, args: &ExploreArgs, icps: usize, used: Option<&ImpactSources>, report: &Report) -> ExploreReport {
    let Report { verdict, stats, claim, matched, sequential, .. } = report;
    ExploreReport {
        test: session.spec.display(),
        search: search(args.search),
        heuristic: args.heuristic.clone(),
        icps,
        impact: used.cloned(),
        matched_decision_points: *matched,
        bound: args.bound,
        outcome: outcome(verdict),
        schedules: schedules_run(args, report),
        coverage: Coverage::of(report),
        sequential_streams: sequential.iter().map(|site| StreamPlace { file: file_of(host, &site.class), line: site.line, call: site.target.clone() }).collect(),
        failure: match verdict {
            Verdict::Failed(f) => Some(failure_report(host, f, session)),
            _ => None,
        },
        error: match verdict {
            Verdict::Stopped(e) | Verdict::Uncontrolled(e) => Some(e.clone()),
            _ => None,
        },
        stats: stats_report(stats, claim),
    }
}

/// The lines `explore` prints for the session's test: the failure, or what was covered.
/// `explore --affected --shard` keeps them in its JSON, for `racelens merge` to print.
fn render_result(host: &Host, session: &Session, args: &ExploreArgs, report: &Report) -> String {
    let Report { verdict, stats, claim, sequential, .. } = report;
    let mut out = String::new();
    match verdict {
        Verdict::Failed(found) => out += &render_failure(host, found, session, &session.spec, &args.path.display().to_string()),
        _ => {
            let (mark, words) = verdict_words(report);
            let _ = writeln!(out, "{mark}{words}");
        }
    }
    if !sequential.is_empty() {
        let places: Vec<String> = sequential.iter().map(|site| {
            format!("{}:{}", file_of(host, &site.class).unwrap_or_else(|| site.place()), site.line)
        }).collect();
        let _ = writeln!(out, "note: parallel streams ran sequentially, their own interleavings not explored: {}", places.join(", "));
    }
    if stats.livelocks > 0 {
        let _ = writeln!(out, "note: {} run{} reached the step bound ({}): a livelock or a very long test", stats.livelocks, if stats.livelocks == 1 { "" } else { "s" }, args.max_steps);
    }
    if args.select {
        let _ = writeln!(out, "selection: {} schedules that reorder no impacted access were left out", claim.skipped);
    }
    if args.all && stats.failures > 0 {
        let _ = writeln!(out, "{} failing schedules in {}", stats.failures, stats.schedules);
    }
    out
}

/// What an exploration that found no failure claims, in the words `explore` prints (the
/// mark before them apart: `✓ `, `… `, `! `); for a failure, its headline.
fn verdict_words(report: &Report) -> (&'static str, String) {
    let Report { verdict, stats, .. } = report;
    let coverage = Coverage::of(report);
    match verdict {
        Verdict::Failed(found) => ("✗ ", failure_headline(found)),
        Verdict::Passed if coverage.is_complete() => ("✓ ", format!("no failure: {} ({:.1} s)", coverage.text(), stats.elapsed.as_secs_f64())),
        Verdict::Passed => ("", format!("no failure: {} (nothing is claimed about other schedules)", coverage.text())),
        Verdict::Limit => ("… ", format!("no failure yet: {}; raise --max-schedules to go on", coverage.text())),
        Verdict::Cancelled => ("… ", format!("cancelled after {} runs", stats.schedules)),
        Verdict::Uncontrolled(e) => ("! ", format!("not explored: {e}")),
        Verdict::Stopped(e) => ("! ", format!("exploration stopped after {} schedules: {e}", stats.schedules)),
    }
}

/// 1 a failing schedule, 2 the exploration stopped or did not control the test, 0 otherwise.
fn exit_status(verdict: &Verdict) -> u8 {
    match verdict {
        Verdict::Failed(_) => 1,
        Verdict::Stopped(_) | Verdict::Uncontrolled(_) => 2,
        _ => 0,
    }
}

pub fn run_replay(args: ReplayArgs) -> Result<ExitCode, String> {
    let string = ScheduleString::decode(&args.schedule)?;
    let mut prepared = prepare(&args.path, &args.test)?;
    let (exec, diverged) = explorer::replay(&mut prepared.session, &string, args.max_steps)?;
    let host = &prepared.host;
    let session = &prepared.session;
    let (file, line) = failure_place(host, &exec);
    if let Some(path) = &args.html {
        let test = session.spec.display();
        let section = match &diverged {
            Some((k, want, got)) => Section::Outcome { test, words: format!("! the execution diverged from the schedule at decision {k}: the schedule switches at {want}, but this execution reached {got} there") },
            None if exec.outcome.is_bug() => Section::Failure { test, headline: format!("✗ still fails: {}", report::headline(&exec)), lanes: lanes(host, &exec, session), replay: None },
            None => Section::Outcome { test, words: format!("✓ the schedule does not fail: {}", report::headline(&exec)) },
        };
        write_html(path, &format!("racelens replay --test {} --schedule {}", session.spec.display(), args.schedule), &[section])?;
    }
    if args.json {
        print_json(&ReplayReport {
            test: session.spec.display(),
            outcome: if diverged.is_some() { "divergence" } else { exec.outcome.kind() }.to_string(),
            message: report::headline(&exec),
            file: file.clone(),
            line,
            divergence: diverged.as_ref().map(|(k, want, got)| Divergence { decision: *k, expected: want.clone(), found: got.clone() }),
            trace: trace(host, &exec, session),
        });
    } else if let Some((k, want, got)) = &diverged {
        println!("! the execution diverged from the schedule at decision {k}: the schedule switches at {want}, but this execution reached {got} there (the code changed there, or the test is nondeterministic)");
    } else if exec.outcome.is_bug() {
        println!("✗ still fails: {}", report::headline(&exec));
        if let (Some(f), Some(l)) = (&file, &line) {
            println!("  at {f}:{l}");
        }
        println!();
        print!("{}", report::table(&exec, &session.sites()));
    } else {
        println!("✓ the schedule {}: {}", if matches!(exec.outcome, Outcome::Pass) { "passes now" } else { "does not fail" }, report::headline(&exec));
    }
    prepared.session.close();
    Ok(if diverged.is_some() || matches!(exec.outcome, Outcome::Divergence { .. } | Outcome::Error(_)) {
        ExitCode::from(2)
    } else if exec.outcome.is_bug() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
