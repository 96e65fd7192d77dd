//! What the benches over the fault suite of `tests/bench/capp/` share: the faults, a fault's
//! repository with its analysis, change model and JVM session, one exploration to the first
//! failure, and the arithmetic of the tables.

#![allow(dead_code)]

pub use racelens_test_support as support;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::Options as AnalysisOptions;
use racelens_explore::explorer::{Options, Report, Verdict};
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::project::{self, Sources};
use racelens_explore::jvm::{agent, tests, Session};
use racelens_explore::search::change::{self, ChangeModel};
use racelens_explore::search::heuristics::Choice;

pub struct Fault {
    pub name: String,
    pub test: String,
    pub kind: String,
}

pub fn faults_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bench/capp")
}

/// The faults (`fault.toml` of each folder), by name; only those named in `only` when given.
/// A name in `only` that is no fault is an error (a typo must not shrink the bench silently).
pub fn faults(only: &Option<Vec<String>>) -> Vec<Fault> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(faults_dir())
        .expect("tests/bench/capp exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("fault.toml").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let text = std::fs::read_to_string(dir.join("fault.toml")).unwrap();
        let value = |key: &str| {
            text.lines()
                .find_map(|l| {
                    l.strip_prefix(key)
                        .and_then(|r| r.trim_start().strip_prefix('='))
                        .map(|v| v.trim().trim_matches('"').to_string())
                })
                .unwrap_or_default()
        };
        out.push(Fault { name, test: value("test"), kind: value("kind") });
    }
    if let Some(o) = only {
        for name in o.iter().filter(|n| !out.iter().any(|f| &f.name == *n)) {
            panic!("--faults: no fault `{name}` under {}", faults_dir().display());
        }
    }
    out
}

/// A fault's repository, its analysis host, the change model, and a JVM session of its test.
pub struct Prepared {
    pub repo: tempfile::TempDir,
    pub host: Host,
    pub session: Session,
    pub model: ChangeModel,
}

/// The fault's repository (`base/` committed, `change.patch` applied when `with_change`),
/// analyzed and compiled.
pub fn prepare(fault: &Fault, with_change: bool, jdk: &Jdk) -> Prepared {
    let repo = support::repo_from(&faults_dir().join(&fault.name), with_change);
    prepare_repo(repo, &fault.name, &fault.test, jdk)
}

/// A repository made from `dir` (`base/` committed, nothing changed), analyzed and compiled,
/// with a session of `test`: the literature's programs.
pub fn prepare_program(dir: &Path, test: &str, jdk: &Jdk) -> Prepared {
    prepare_repo(support::repo_from(dir, false), &dir.display().to_string(), test, jdk)
}

fn prepare_repo(repo: tempfile::TempDir, name: &str, test: &str, jdk: &Jdk) -> Prepared {
    let mut host = Host::open(repo.path(), &HostOptions::default()).expect("the repository opens");
    host.load().expect("it loads");
    let impact = host.analyze(&AnalysisOptions::new());
    let model = change::model(&host, &impact);
    let spec = tests::resolve(&host, test).unwrap_or_else(|e| panic!("{name}: {e}"));
    let project = project::prepare(&Sources::of(&host), jdk, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let session = Session::new(jdk.clone(), agent::agent_jar().expect("the agent"), project, spec);
    Prepared { repo, host, session, model }
}

/// One exploration of the session's test with the prioritization `heuristic` (PCT depth 3),
/// and its wall-clock time.
pub fn explore(
    session: &mut Session,
    model: &ChangeModel,
    heuristic: &str,
    options: &Options,
) -> (Result<Report, String>, Duration) {
    let choice = Choice::parse(heuristic).expect("a known heuristic");
    let started = Instant::now();
    let report = racelens_explore::exploration::explore_test(
        session,
        options,
        choice,
        Some(model),
        3,
        &mut |_| {},
        &AtomicBool::new(false),
    );
    (report, started.elapsed())
}

/// Schedules to the first failure: `Ok(None)` when none failed, an error when the
/// exploration could not run or stopped.
pub fn first_failure(report: &Result<Report, String>) -> Result<Option<u64>, String> {
    match report {
        Err(e) => Err(e.clone()),
        Ok(r) => match &r.verdict {
            Verdict::Failed(found) => Ok(Some(found.schedules)),
            Verdict::Stopped(why) => Err(format!("stopped: {why}")),
            Verdict::Uncontrolled(why) => Err(format!("uncontrolled thread: {why}")),
            Verdict::Unconfirmed(_, why) | Verdict::Limitation(_, why) => Err(why.clone()),
            Verdict::Passed | Verdict::Limit | Verdict::Cancelled => Ok(None),
        },
    }
}

pub fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

pub fn cell(n: Option<u64>) -> String {
    n.map_or("—".to_string(), |n| n.to_string())
}
