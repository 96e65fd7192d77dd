//! `racelens explore` and `racelens replay`: run a test's schedules on a real JVM.

pub(crate) mod affected;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use racelens_analysis::git::GitRepo;
use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::{Impact, Options as AnalysisOptions};
use racelens_explore::exploration::{self, ChangeInput, Observer, Places, RecordInput, Request, Settings, Toolchain};
use racelens_explore::explorer::{self, Stats};
use racelens_explore::impact::IcpSource;
use racelens_explore::jvm::project::Sources;
use racelens_explore::jvm::TestSpec;
use racelens_explore::reports::Search;
use racelens_explore::results::swimlane::{self, Section};
use racelens_explore::search::heuristics;

use crate::{print_json, Format};
use racelens_explore::affected::shard::Shard;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearchKind {
    /// iterative context bounding (CHESS): all schedules with 0 preemptions, then 1, ...
    Icb,
    /// plain depth-first search over all schedules
    Dfs,
}

impl SearchKind {
    /// As the reports name it.
    pub(crate) fn report(self) -> Search {
        match self {
            SearchKind::Icb => Search::Icb,
            SearchKind::Dfs => Search::Dfs,
        }
    }
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
    /// `racelens merge` turns the N `--json` outputs into the unsharded report. With fewer
    /// tests than shards, the deal goes on round the table: a test's schedules are split
    /// into parts (subtrees of its search), each shard explores one part with its share of
    /// the test's budget, and `merge` joins the parts' claims into the test's.
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
    /// Stop after this many seconds of exploring (wall time; compiling the test and
    /// confirming a failure are not counted), as when the schedules run out: the report
    /// says what was covered until then. SIGINT (Ctrl-C) and SIGTERM end an exploration the
    /// same way. With `--affected`, the time of all the selected tests together: each test
    /// gets the time left divided by the tests left.
    #[arg(long, value_name = "SECONDS")]
    max_seconds: Option<u64>,
    /// The search.
    #[arg(long, value_enum, default_value_t = SearchKind::Icb)]
    search: SearchKind,
    /// Schedule prioritization: `basic` (none, change-unaware); CAPP's fourteen heuristics
    /// `CA CS COA COS MA MS MOA MOS LA LS LOA LOS FA FS` (match mode: Class, Class On stack,
    /// Method, Method On stack, Line, Line On stack, Field; then All or Some);
    /// `pair` (preempt right before accesses of impacted shared-variable pairs); `pct`
    /// (change-aware probabilistic concurrency testing); `pct+H` (10 schedules of `pct`,
    /// then CAPP's heuristic H, sharing the runs with POS once the test shows more than four
    /// threads: 1 in 4, from nine threads 1 in 2, so that a test with many threads is not
    /// stuck in bound 0); `pos` or `random` (partial-order sampling or a random walk alone:
    /// no claim). Any of them followed by `+pos`, `+random` or `+none` chooses its sampler.
    /// The default is the one that found every fault of racelens's CAPP benchmark in the
    /// fewest schedules (server/docs/evaluation.md).
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

/// The loaded host of the work tree at `path`, or of the folder when it is not in git.
pub(crate) fn open_host(path: &Path) -> Result<Host, String> {
    let no_git = !GitRepo::contains(path);
    let mut host = Host::open(path, &HostOptions { no_git, ..HostOptions::default() })?;
    host.load()?;
    Ok(host)
}

impl ExploreArgs {
    /// The settings of each test's exploration, with at most `max_schedules` schedules.
    pub(crate) fn settings(&self, max_schedules: u64) -> Result<Settings, String> {
        Ok(Settings {
            search: self.search.report(),
            bound: self.bound,
            max_schedules,
            max_seconds: self.max_seconds,
            max_steps: self.max_steps,
            seed: self.seed,
            all: self.all,
            select: self.select,
            pct_depth: self.pct_depth,
            ..Settings::new(&self.heuristic)?
        })
    }

    /// The change a change-aware prioritization steers by: the analysis' `impact`, and what
    /// the test's dynamic impact needs (`--icps`).
    pub(crate) fn change(&self, host: &mut Host, impact: &Impact) -> ChangeInput {
        ChangeInput::of(host, impact, self.icps.map(IcpsArg::source))
    }

    /// The request to explore `test` with `settings`.
    pub(crate) fn request(
        &self,
        host: &Host,
        test: TestSpec,
        settings: Settings,
        change: Option<ChangeInput>,
    ) -> Request {
        Request {
            test,
            settings,
            change,
            places: Places::of(host),
            root: self.path.display().to_string(),
            record: Some(RecordInput::of(host, &Sources::of(host))),
        }
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
        ProgressLine {
            started: now,
            last: now,
            tty: std::io::stderr().is_terminal(),
            shown: false,
            test: test.to_string(),
        }
    }

    fn done(&self) {
        if self.shown && self.tty {
            eprint!("\r\x1b[K");
        }
    }
}

impl Observer for ProgressLine {
    fn progress(&mut self, stats: &Stats) {
        let every = if self.tty { Duration::from_millis(200) } else { Duration::from_secs(5) };
        if self.started.elapsed() < Duration::from_secs(1) || self.last.elapsed() < every {
            return;
        }
        self.last = Instant::now();
        self.shown = true;
        let line = format!(
            "racelens: exploring {}: {} schedules, preemption bound {}, {:.0}/s",
            self.test,
            stats.schedules,
            stats.bound,
            stats.per_second()
        );
        if self.tty {
            eprint!("\r{line}\x1b[K");
        } else {
            eprintln!("{line}");
        }
    }
}

/// Explores `request` with a progress line on stderr; a coverage record that could not be
/// made is a note there.
pub(crate) fn explore_with_progress(
    toolchain: &Toolchain,
    request: &Request,
) -> Result<exploration::Exploration, String> {
    let mut progress = ProgressLine::new(&request.test.display());
    let explored = exploration::explore(toolchain, request, &mut progress, &AtomicBool::new(false));
    progress.done();
    let explored = explored?;
    if let Some(e) = &explored.unrecorded {
        eprintln!("racelens: note: the coverage of {} was not recorded: {e}", explored.test.display());
    }
    Ok(explored)
}

pub fn run_explore(args: ExploreArgs) -> Result<ExitCode, String> {
    // An unknown heuristic is a usage error before anything else.
    args.settings(args.max_schedules)?;
    end_explorations_on_signals();
    match &args.test {
        Some(test) => explore_one(&args, test),
        None => affected::run(&args),
    }
}

/// SIGINT and SIGTERM end the explorations as a budget does, so that the report and its
/// claim are printed (issue 22, item 4); a second signal ends the process at once.
fn end_explorations_on_signals() {
    let installed = ctrlc::set_handler(|| {
        if explorer::interrupted() {
            std::process::exit(130);
        }
        eprintln!(
            "racelens: interrupted: ending the exploration after the schedule running now (again to quit at once)"
        );
        explorer::interrupt();
    });
    if let Err(e) = installed {
        eprintln!("racelens: note: SIGINT and SIGTERM will end the process without a report: {e}");
    }
}

/// `explore --test`: one test, the whole budget.
fn explore_one(args: &ExploreArgs, test: &str) -> Result<ExitCode, String> {
    let mut host = open_host(&args.path)?;
    let spec = racelens_explore::jvm::tests::resolve(&host, test)?;
    let toolchain = Toolchain::for_test(&Sources::of(&host), &Places::of(&host), &spec)?;
    let settings = args.settings(args.max_schedules)?;
    let change = settings.choice.is_change_aware().then(|| {
        let impact = host.analyze(&AnalysisOptions::new());
        args.change(&mut host, &impact)
    });
    let explored = explore_with_progress(&toolchain, &args.request(&host, spec, settings, change))?;
    match Format::of(args.json, args.format) {
        Format::Json => print_json(&explored.json()),
        Format::Sarif => explored.sarif_log(&host).print(),
        Format::Text => print!("{}", explored.text()),
    }
    if let Some(path) = &args.html {
        let title = explored.test.display();
        write_html(path, &format!("racelens explore --test {title}"), &[explored.html_section(title.clone())])?;
    }
    Ok(ExitCode::from(explored.exit_status()))
}

/// Writes the `--html` page; a file that cannot be written is an error of the command.
pub(crate) fn write_html(path: &Path, title: &str, sections: &[Section]) -> Result<(), String> {
    std::fs::write(path, swimlane::html(title, sections, &swimlane::Options::default()))
        .map_err(|e| format!("cannot write the page {}: {e}", path.display()))
}

pub fn run_replay(args: ReplayArgs) -> Result<ExitCode, String> {
    racelens_explore::results::schedule::ScheduleString::decode(&args.schedule)?;
    let host = open_host(&args.path)?;
    let spec = racelens_explore::jvm::tests::resolve(&host, &args.test)?;
    let toolchain = Toolchain::for_test(&Sources::of(&host), &Places::of(&host), &spec)?;
    let replayed = exploration::replay(&toolchain, spec, &args.schedule, args.max_steps, Places::of(&host))?;
    if let Some(path) = &args.html {
        write_html(
            path,
            &format!("racelens replay --test {} --schedule {}", replayed.test.display(), args.schedule),
            &[replayed.html_section()],
        )?;
    }
    if args.json {
        print_json(&replayed.json());
    } else {
        print!("{}", replayed.text());
    }
    Ok(ExitCode::from(replayed.exit_status()))
}

/// Where change-aware prioritization takes its impacted code points from (`explore --icps`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IcpsArg {
    /// the analysis of the source (CAPP's impacted code points)
    Static,
    /// the test's runs on the base revision and the working tree (`racelens impact`)
    Dynamic,
    /// both together
    Both,
}

impl IcpsArg {
    pub(crate) fn source(self) -> IcpSource {
        match self {
            IcpsArg::Static => IcpSource::Static,
            IcpsArg::Dynamic => IcpSource::Dynamic,
            IcpsArg::Both => IcpSource::Both,
        }
    }
}
