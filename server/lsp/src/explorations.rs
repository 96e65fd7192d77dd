//! Explorations started from the editor: a queue of jobs (ordered by how much of the
//! change each test reaches), worker threads that run them on a JVM, and the results the
//! lenses, diagnostics and schedule documents show.
//!
//! The core owns the queue and the results; workers only run a job and report back
//! through the core's channel, so that state keeps a single owner. Results are kept on
//! disk next to the compiled classes (outside the work tree), keyed by test and by the
//! content of the code the test reaches: a result whose code changed since is *stale*.
//! The results' types live with the CLI's reports, in `racelens_explore::reports`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

use racelens_explore::exploration::{self, Observer, Request, Toolchain};
use racelens_explore::explorer::Stats;
use racelens_explore::jvm::project::{self, Sources};
use racelens_explore::reports::{ImpactReport, ResultKind, TestResult};

use crate::messages::{JobEvent, Msg};

#[derive(Clone, Debug)]
pub enum JobKind {
    Explore,
    Replay { schedule: String },
}

/// One exploration (or replay) to run: the front door's request, with what the queue needs.
pub struct Job {
    pub id: u64,
    pub kind: JobKind,
    /// The queue runs the highest first: a replay, then the tests the change selects by
    /// rank, then the others by the impacted points they reach.
    pub priority: usize,
    pub fingerprint: u64,
    /// The sources to compile (unsaved buffers included), taken with the request.
    pub sources: Sources,
    pub cancel: Arc<AtomicBool>,
    pub request: Request,
}

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
    let request = &job.request;
    let toolchain = Toolchain::for_test(&job.sources, &request.places, &request.test)?;
    let _ = tx.send(Msg::Job(JobEvent::Prepared {
        id: job.id,
        classpath: toolchain.project.classpath_line.clone(),
        notes: toolchain.project.notes.clone(),
    }));
    match &job.kind {
        JobKind::Explore => {
            let mut reporter = Reporter { id: job.id, tx, last: Instant::now() };
            let explored = exploration::explore(&toolchain, request, &mut reporter, &job.cancel)?;
            if let Some(e) = &explored.unrecorded {
                eprintln!("racelens: the coverage of {} was not recorded: {e}", request.test.display());
            }
            explored.stored()
        }
        JobKind::Replay { schedule } => Ok(exploration::replay(
            &toolchain,
            request.test.clone(),
            schedule,
            request.settings.max_steps,
            request.places.clone(),
        )?
        .stored()),
    }
}

/// Sends a job's progress (at most every 250 ms) and its dynamic impact to the core.
struct Reporter<'a> {
    id: u64,
    tx: &'a Sender<Msg>,
    last: Instant,
}

impl Observer for Reporter<'_> {
    fn progress(&mut self, s: &Stats) {
        if self.last.elapsed() >= Duration::from_millis(250) {
            self.last = Instant::now();
            let _ = self.tx.send(Msg::Job(JobEvent::Progress {
                id: self.id,
                schedules: s.schedules,
                bound: s.bound,
                rate: s.per_second(),
            }));
        }
    }

    fn impact(&mut self, report: &ImpactReport) {
        let _ = self.tx.send(Msg::Job(JobEvent::Impact { id: self.id, report: Box::new(report.clone()) }));
    }
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
