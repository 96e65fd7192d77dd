//! Explorations started from the editor: a queue of jobs (ordered by how much of the
//! change each test reaches), worker threads that run them on a JVM, and the results the
//! lenses, diagnostics and schedule documents show.
//!
//! The core owns the queue and the results; workers only run a job and report back
//! through the core's channel, so that state keeps a single owner. Results are kept on
//! disk next to the compiled classes (outside the work tree), keyed by test and by the
//! content of the code the test reaches: a result whose code changed since is *stale*.
//! The results' types live with the CLI's reports, in `racelens_explore::reports`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

use racelens_explore::search::change::ChangeModel;
use racelens_explore::explorer::{self, Options, Verdict};
use racelens_explore::history;
use racelens_explore::results::coverage::Coverage;
use racelens_explore::jvm::Session;
use racelens_explore::search::heuristics::{self, Choice};
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::TestSpec;
use racelens_explore::jvm::project::{self, Sources};
use racelens_explore::jvm::protocol::Outcome;
use racelens_explore::results::schedule::ScheduleString;
use racelens_explore::jvm::agent;
use racelens_explore::impact::{self, HostVersions};
use racelens_explore::reports::{Place, PreemptionPlace, ResultKind, TestResult};
use racelens_explore::results::report;
use racelens_explore::results::swimlane::Lanes;

use crate::messages::{JobEvent, Msg};

#[derive(Clone, Debug)]
pub enum JobKind {
    Explore,
    Replay { schedule: String },
}

/// One exploration (or replay) to run.
pub struct Job {
    pub id: u64,
    pub test: TestSpec,
    pub kind: JobKind,
    /// The queue runs the highest first: a replay, then the tests the change selects by
    /// rank, then the others by the impacted points they reach.
    pub priority: usize,
    pub fingerprint: u64,
    pub sources: Sources,
    /// Class binary name -> project file, to place runtime positions in the code.
    pub files: HashMap<String, String>,
    pub cancel: Arc<AtomicBool>,
    pub options: Options,
    pub heuristic: String,
    pub choice: Choice,
    /// The change the prioritization steers by (impacted points and pairs).
    pub change: ChangeModel,
    /// What the test's dynamic impact needs (a change-aware exploration): the base
    /// revision's sources and the diff. `None`: the analysis' impact alone.
    pub base: Option<BaseInput>,
    /// The commit HEAD was at, for the coverage record an exploration leaves.
    pub revision: Option<String>,
}

/// The base revision as a worker builds it for the dynamic impact: its commit and sources
/// (or why there are none), and the diff to the job's sources.
pub struct BaseInput {
    pub sources: Result<Option<(String, Sources)>, String>,
    pub versions: Arc<HostVersions>,
}

/// Priority change points of change-aware PCT when it is the editor's heuristic.
const PCT_DEPTH: u32 = 3;

/// Runs jobs on worker threads and reports to the core.
pub fn spawn(job: Job, tx: Sender<Msg>) {
    std::thread::Builder::new()
        .name(format!("racelens-explore-{}", job.id))
        .spawn(move || {
            let id = job.id;
            let replay = matches!(job.kind, JobKind::Replay { .. });
            let tx2 = tx.clone();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job, &tx2)))
                .unwrap_or_else(|_| Err("racelens failed while exploring (see the log)".into()));
            let _ = tx.send(Msg::Job(JobEvent::Finished { id, result, replay }));
        })
        .expect("a thread can be spawned");
}

fn run(job: Job, tx: &Sender<Msg>) -> Result<ResultKind, String> {
    let jdk = Jdk::locate()?;
    let project = project::prepare(&job.sources, &jdk, job.files.get(outer(&job.test.class)).map(Path::new))?;
    let agent = agent::agent_jar()?;
    let mut session = Session::new(jdk.clone(), agent.clone(), project, job.test.clone());
    let result = match &job.kind {
        JobKind::Explore => {
            let change = change_model(&job, &jdk, &agent, &mut session, tx);
            explore(&job, &change, &mut session, tx)
        }
        JobKind::Replay { schedule } => replay(&job, &mut session, schedule),
    };
    session.close();
    result
}

/// The change the exploration steers by: the analysis', and the test's dynamic impact
/// (ReConTest: the test run once on the base revision and once here) when it can be
/// recorded on both versions; the impact goes to the core for the editor's hints.
fn change_model(job: &Job, jdk: &Jdk, agent: &Path, session: &mut Session, tx: &Sender<Msg>) -> ChangeModel {
    let Some(base) = &job.base else { return job.change.clone() };
    let (model, _, report) = impact::model_for(&job.change, None, || {
        let base_session = match &base.sources {
            Ok(Some((commit, sources))) => project::build_base(commit, sources, jdk, &session.project).map(|p| Some((commit.clone(), Session::new(jdk.clone(), agent.to_path_buf(), p, job.test.clone())))),
            Ok(None) => Ok(None),
            Err(e) => Err(e.clone()),
        };
        impact::dynamic_impact(session, base_session, &*base.versions, &|class| job.files.get(outer(class)).cloned(), job.options.max_steps)
    });
    if let Some(report) = report.filter(|r| r.base_unavailable.is_none()) {
        let _ = tx.send(Msg::Job(JobEvent::Impact { id: job.id, report: Box::new(report) }));
    }
    model
}

fn explore(job: &Job, change: &ChangeModel, session: &mut Session, tx: &Sender<Msg>) -> Result<ResultKind, String> {
    let mut last = Instant::now();
    let id = job.id;
    let mut progress = |s: &explorer::Stats| {
        if last.elapsed() >= Duration::from_millis(250) {
            last = Instant::now();
            let _ = tx.send(Msg::Job(JobEvent::Progress { id, schedules: s.schedules, bound: s.bound, rate: s.per_second() }));
        }
    };
    let report = heuristics::explore(session, &job.options, job.choice, Some(change), PCT_DEPTH, &mut progress, &job.cancel)?;
    if !matches!(report.verdict, Verdict::Cancelled) {
        remember(job, session);
    }
    let coverage = Coverage::of(&report);
    Ok(match report.verdict {
        Verdict::Failed(found) => {
            let place = failure_place(&found.full, &job.files);
            let preemptions = found
                .preemptions
                .iter()
                .map(|p| PreemptionPlace {
                    place: p.site.as_ref().and_then(|s| job.files.get(outer(&s.class)).map(|f| Place { file: f.clone(), line: s.line })),
                    text: p.text(),
                })
                .collect();
            ResultKind::Failed {
                title: title(&found.full.outcome),
                headline: report::headline(&found.full),
                schedules: found.schedules,
                preemptions,
                schedule: found.string.encode(),
                place,
                table: report::table(&found.full, &session.sites()),
                lanes: Some(lanes(&found.full, session, &job.files)),
            }
        }
        Verdict::Passed => ResultKind::Passed { coverage, covered: covered(session, &job.change) },
        Verdict::Limit => ResultKind::Limit { coverage },
        Verdict::Uncontrolled(message) => ResultKind::Uncontrolled { message },
        Verdict::Cancelled => return Err("cancelled".into()),
        Verdict::Stopped(message) => ResultKind::Stopped { message },
    })
}

/// Adds the record of the test's default schedule (the one the exploration ran first) to the
/// coverage history `racelens select` and the lenses' ranking read, as `racelens explore`
/// does: one more run, part of the exploration the user asked for. A failure to record is
/// logged, never the exploration's result.
fn remember(job: &Job, session: &mut Session) {
    let snapshot = history::snapshot(&job.sources);
    let files = |class: &str| job.files.get(outer(class)).cloned();
    let recording = history::Recording { snapshot: &snapshot, revision: job.revision.clone(), file_of: &files, source: "explore" };
    let recorded = history::record(session, &recording, job.options.max_steps)
        .and_then(|run| history::save(&history::path(&job.sources.root), &snapshot, vec![(job.test.display(), run)]));
    if let Err(e) = recorded {
        eprintln!("racelens: the coverage of {} was not recorded: {e}", job.test.display());
    }
}

fn replay(job: &Job, session: &mut Session, schedule: &str) -> Result<ResultKind, String> {
    let string = ScheduleString::decode(schedule)?;
    let (exec, diverged) = explorer::replay(session, &string, job.options.max_steps)?;
    if let Some((k, want, got)) = diverged {
        return Ok(ResultKind::Stopped { message: format!("the replay diverged at decision {k}: the schedule switches at {want}, this execution reached {got} (the code changed there)") });
    }
    Ok(if exec.outcome.is_bug() {
        ResultKind::Failed {
            title: title(&exec.outcome),
            headline: report::headline(&exec),
            schedules: 1,
            preemptions: Vec::new(),
            schedule: schedule.to_string(),
            place: failure_place(&exec, &job.files),
            table: report::table(&exec, &session.sites()),
            lanes: Some(lanes(&exec, session, &job.files)),
        }
    } else {
        ResultKind::Passed { coverage: Coverage { runs: 1, ..Coverage::default() }, covered: 0 }
    })
}

/// Impacted lines at which the exploration had a choice of thread (the sites the agent
/// announced are those of decision points).
fn covered(session: &Session, change: &ChangeModel) -> usize {
    let mut places: Vec<String> = session.sites().values().map(|s| format!("{}:{}", s.class, s.line)).filter(|p| change.pct_sites.binary_search(p).is_ok()).collect();
    places.sort();
    places.dedup();
    places.len()
}

/// The rows of the swimlane picture, placed in the project's files.
fn lanes(exec: &racelens_explore::jvm::protocol::Execution, session: &Session, files: &HashMap<String, String>) -> Lanes {
    Lanes::of(exec, &session.sites(), &|class| files.get(outer(class)).cloned())
}

fn outer(class: &str) -> &str {
    class.split('$').next().unwrap_or(class)
}

/// `NullPointerException`, `deadlock`, `System.exit(3)`.
fn title(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Fail(f) => f.exception.rsplit('.').next().unwrap_or(&f.exception).to_string(),
        Outcome::Deadlock(_) => "deadlock".into(),
        Outcome::Exit(s) => format!("System.exit({s})"),
        other => other.kind().to_string(),
    }
}

fn failure_place(exec: &racelens_explore::jvm::protocol::Execution, files: &HashMap<String, String>) -> Option<Place> {
    let Outcome::Fail(f) = &exec.outcome else { return None };
    f.frames.iter().find_map(|fr| files.get(outer(&fr.class)).map(|file| Place { file: file.clone(), line: fr.line }))
}

// ----- results on disk -----------------------------------------------------------------------

fn results_path(root: &Path) -> PathBuf {
    project::project_cache(root).join("explorations.json")
}

pub fn load_results(root: &Path) -> BTreeMap<String, TestResult> {
    std::fs::read_to_string(results_path(root)).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

pub fn save_results(root: &Path, results: &BTreeMap<String, TestResult>) {
    let path = results_path(root);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(text) = serde_json::to_string_pretty(results) {
        let _ = std::fs::write(path, text);
    }
}
