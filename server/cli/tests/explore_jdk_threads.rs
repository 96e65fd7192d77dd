//! `racelens explore` on tests whose second thread the JDK starts: a `java.util.Timer`'s, a
//! scheduled executor's, a fork/join pool's (real JVMs, the fixtures' real Java sources). Each
//! buggy version fails, its schedule replays and the report names the JDK's thread; each
//! correct version passes with a complete claim. The semantics of the models (logical time,
//! fixed rate and fixed delay, shutdown policies, fork/join, async stages, parallel streams)
//! are checked by the tests of `explore-jdk-threads`, which assert them in Java. A thread
//! racelens does not control that runs project code ends the run as `uncontrolled`: never a
//! pass.

use racelens_test_support as support;
mod common;

use std::path::Path;

use common::*;
use serde_json::Value;
use support::*;

/// Runs `racelens <args>` in `dir`; returns the exit code and what it printed on stdout.
fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = racelens_command(dir, args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        !stdout.is_empty(),
        "racelens {args:?} printed nothing ({:?}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), stdout)
}

/// The buggy version fails; the failing schedule replays to the same failure, and the replay's
/// table has a column for `jdk_thread`, the thread the JDK started and racelens controlled.
fn buggy_fails_and_replays(fixture: &str, test: &str, jdk_thread: &str) {
    let repo = fixture_repo(fixture);
    let (code, r) = racelens(repo.path(), &["explore", "--test", test]);
    assert_eq!((code, r["outcome"].as_str()), (1, Some("fail")), "{r:#}");
    let failure = &r["failure"];
    assert_eq!(failure["kind"], "fail", "{r:#}");
    assert!(!failure["trace"].as_array().unwrap().is_empty(), "{r:#}");
    let schedule = failure["schedule"].as_str().unwrap();
    let (code, replayed) = run(repo.path(), &["replay", "--test", test, "--schedule", schedule]);
    assert_eq!(code, 1, "{replayed}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        replayed.starts_with("✗ still fails: ") && replayed.contains(message),
        "the replay fails the same way ({message}):\n{replayed}"
    );
    let header =
        replayed.lines().find(|l| l.starts_with("| T0 (main)")).unwrap_or_else(|| panic!("no table:\n{replayed}"));
    assert!(header.contains(&format!("| T1 ({jdk_thread}")), "{header}");
    // The systematic search alone finds it too: its reduction sees what the models do (a model
    // that hid an effect would make it skip the failing schedules as equivalent to passing ones).
    let (code, basic) = racelens(repo.path(), &["explore", "--test", test, "--heuristic", "basic"]);
    assert_eq!((code, basic["outcome"].as_str()), (1, Some("fail")), "{basic:#}");
}

/// The correct version passes, and the claim is complete: every schedule, or every one up to
/// the default bound (2).
fn correct_passes_with_a_complete_claim(fixture: &str, test: &str) {
    let repo = repo_from(&fixtures_dir().join(fixture), false);
    let (code, r) = racelens(repo.path(), &["explore", "--test", test]);
    assert_complete_pass(code, &r, test);
}

fn assert_complete_pass(code: i32, r: &Value, test: &str) {
    assert_eq!((code, r["outcome"].as_str()), (0, Some("pass")), "{test}: {r:#}");
    let coverage = &r["coverage"];
    assert!(claims_complete(r, 2), "{test}: no complete claim: {coverage:#}");
    assert_eq!(coverage["livelocks"], 0, "{test}: {coverage:#}");
    assert!(coverage["runs"].as_u64().unwrap() > 1, "{test}: more than one run: {coverage:#}");
}

macro_rules! fixture_tests {
    ($($name:ident: $fixture:literal, $test:literal, $thread:literal;)*) => {
        $(
            mod $name {
                #[test]
                fn buggy_version_fails_and_replays() {
                    super::buggy_fails_and_replays($fixture, $test, $thread);
                }
                #[test]
                fn correct_version_passes_with_a_complete_claim() {
                    super::correct_passes_with_a_complete_claim($fixture, $test);
                }
            }
        )*
    };
}

fixture_tests! {
    // name: fixture, test, the JDK's thread (as the JDK names it)
    timer: "explore-timer-refresh", "org.example.rates.RateTableTest#aConversionDuringARefreshUsesOneTable", "Timer-0";
    scheduled_executor: "explore-scheduled-heartbeat", "org.example.cluster.HeartbeatSenderTest#aNodeThatStopsLeavesTheCluster", "pool-1-thread-1";
    fork_join: "explore-forkjoin-histogram", "org.example.stats.HistogramTest#parallelCountsMatchTheValues", "ForkJoinPool-1-worker-";
}

#[test]
fn timers_scheduled_executors_fork_join_and_async_stages_behave_as_in_the_jdk_in_logical_time() {
    // Each test asserts what the JDK does (when a periodic task runs, what shutdown keeps, which
    // thread runs a stage) and passes every schedule: the models keep to it on every schedule,
    // and periodic tasks nobody cancels end with the test instead of running to the step bound.
    let repo = repo_from(&fixtures_dir().join("explore-jdk-threads"), false);
    let tests = listed_tests("explore-jdk-threads");
    assert!(tests.len() >= 15, "{tests:?}");
    for test in &tests {
        let (code, r) = racelens(repo.path(), &["explore", "--test", test]);
        assert_complete_pass(code, &r, test);
    }
}

#[test]
fn parallel_streams_run_sequentially_and_the_result_says_where() {
    // Their own interleavings are not explored: the claim says so, and names each place.
    let repo = repo_from(&fixtures_dir().join("explore-jdk-threads"), false);
    let test = "org.example.jdk.AsyncTest#parallelStreamsRunInTheCallingThread";
    let (code, r) = racelens(repo.path(), &["explore", "--test", test]);
    assert_complete_pass(code, &r, test);
    assert_eq!(r["coverage"]["sequential_streams"], 3, "{r:#}");
    let places: Vec<(String, u64)> = r["sequential_streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["file"].as_str().unwrap().to_string(), p["line"].as_u64().unwrap()))
        .collect();
    let file = "src/test/java/org/example/jdk/AsyncTest.java".to_string();
    assert_eq!(places, vec![(file.clone(), 59), (file.clone(), 61), (file, 62)], "{r:#}");
    let (code, text) = run(repo.path(), &["explore", "--test", test]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.starts_with("✓ no failure: ")
            && text.contains("; 3 parallel streams ran sequentially, their own interleavings not explored"),
        "{text}"
    );
    assert!(text.contains("note: parallel streams ran sequentially, their own interleavings not explored: src/test/java/org/example/jdk/AsyncTest.java:59, "), "{text}");
    // A test without one claims without the remark.
    let (code, r) = racelens(repo.path(), &["explore", "--test", "org.example.jdk.ForkJoinTest#forkAndJoinOnAPool"]);
    assert_complete_pass(code, &r, "ForkJoinTest#forkAndJoinOnAPool");
    assert_eq!(
        (r["coverage"]["sequential_streams"].as_u64(), r["sequential_streams"].as_array().map(Vec::len)),
        (Some(0), Some(0)),
        "{r:#}"
    );
}

#[test]
fn an_exception_in_a_timer_task_fails_the_test_in_the_timer_thread() {
    // The JDK's timer thread dies of it (and prints it); racelens reports it as a failure of
    // thread Timer-0, on the first schedule.
    let repo = repo_from(&fixtures_dir().join("explore-jdk-threads"), false);
    let (code, r) =
        racelens(repo.path(), &["explore", "--test", "org.example.jdk.TimerTest#anExceptionInATaskIsReported"]);
    assert_eq!((code, r["outcome"].as_str()), (1, Some("fail")), "{r:#}");
    assert_eq!(r["failure"]["thread"], 1, "{r:#}");
    assert_eq!(r["failure"]["message"], "java.lang.IllegalStateException: the refresh failed", "{r:#}");
    assert_eq!(r["schedules"], 1, "{r:#}");
}

/// `racelens explore` of a test of `explore-uncontrolled`: not explored, exit status 2.
fn uncontrolled(test: &str) -> String {
    let repo = repo_from(&fixtures_dir().join("explore-uncontrolled"), false);
    let (code, r) = racelens(repo.path(), &["explore", "--test", test]);
    assert_eq!((code, r["outcome"].as_str()), (2, Some("uncontrolled")), "{r:#}");
    assert_eq!(r["failure"], Value::Null, "{r:#}");
    let (code, text) = run(repo.path(), &["explore", "--test", test]);
    assert_eq!(code, 2, "{text}");
    assert!(text.starts_with("! not explored: thread "), "{text}");
    r["error"].as_str().unwrap().to_string()
}

#[test]
fn threads_that_wait_for_each_other_over_a_socket_stop_the_exploration_with_the_reason() {
    // The server thread starts in @BeforeClass, which runs in every execution, so it is
    // controlled; but the test reads its answer from a socket, a real wait racelens cannot see
    // end, while the server needs its turn to answer. Never a pass: the exploration stops and
    // says why.
    let repo = repo_from(&fixtures_dir().join("explore-uncontrolled"), false);
    let test = "org.example.quotes.QuoteServerTest#aQuoteDuringAnUpdateIsOneOfThePrices";
    let (code, r) = racelens(repo.path(), &["explore", "--test", test]);
    assert_eq!((code, r["outcome"].as_str(), r["failure"].clone()), (2, Some("error"), Value::Null), "{r:#}");
    assert!(
        r["error"].as_str().unwrap().contains("may block on something racelens does not control, such as I/O"),
        "{r:#}"
    );
}

#[test]
fn a_jdk_thread_racelens_does_not_model_that_runs_project_code_is_reported_not_passed() {
    // Process.onExit()'s stage runs on a thread the JDK starts for it (from its process reaper).
    let error = uncontrolled("org.example.jobs.ExternalJobTest#twoJobsAreBothLogged");
    assert!(error.starts_with("thread \""), "{error}");
    assert!(
        error.contains("(started by ") && error.contains("ran project code at org.example.jobs.JobLog.finished:11"),
        "{error}"
    );
}
