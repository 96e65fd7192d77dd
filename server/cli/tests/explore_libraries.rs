//! Library code under control (fixture `tests/fixtures/explore-libraries`): a jar the test
//! builds from `library/` (a gate on a lock and a condition, a quiet sleep, a thread of the
//! library's own), on the classpath through racelens.toml. Its threads are controlled, its locks
//! are racelens's models and its sleeps run on the logical clock, so the project's tests pass
//! every schedule with a complete claim, as they pass under plain JUnit; `java.time`'s clocks
//! and `Calendar` read the same logical time the library's sleep advances.

use racelens_test_support as support;
mod common;

use std::path::Path;
use std::process::Command;

use support::*;

const FIXTURE: &str = "explore-libraries";

/// Compiles the fixture's library into `repo/lib/waiting.jar` with the JDK's javac and jar.
fn build_library(repo: &Path) {
    let sources = fixtures_dir().join(FIXTURE).join("library/src/org/acme/waiting");
    let classes = tempfile::tempdir().unwrap();
    let files: Vec<_> = std::fs::read_dir(&sources).unwrap().map(|e| e.unwrap().path()).collect();
    let javac = Command::new("javac").arg("-d").arg(classes.path()).args(&files).output().unwrap();
    assert!(javac.status.success(), "{}", String::from_utf8_lossy(&javac.stderr));
    std::fs::create_dir_all(repo.join("lib")).unwrap();
    let jar = Command::new("jar")
        .arg("cf")
        .arg(repo.join("lib/waiting.jar"))
        .arg("-C")
        .arg(classes.path())
        .arg(".")
        .output()
        .unwrap();
    assert!(jar.status.success(), "{}", String::from_utf8_lossy(&jar.stderr));
}

#[test]
fn a_librarys_threads_locks_and_sleeps_run_under_the_scheduler() {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    build_library(repo.path());
    for test in [
        "org.example.jobs.DispatcherTest#workersWaitAtTheGateUntilTheDispatcherIsReady",
        "org.example.jobs.DispatcherTest#aShortWaitEndsBeforeALongWarmUp",
        // java.time reads the same logical clock the library's sleep advances, and so does
        // Calendar.
        "org.example.jobs.DispatcherTest#aLeaseExpiresAfterTheWorkerSleptThroughIt",
        "org.example.jobs.StopwatchTest#aStopwatchMeasuresTheWorkersSleep",
    ] {
        let r = common::passes_every_schedule(repo.path(), test, &[]);
        assert!(common::claims_complete(&r, 2), "{test}: a complete claim: {r:#}");
    }
}
