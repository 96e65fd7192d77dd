//! The agent's test harness on real JVMs, through `racelens explore` and `racelens replay`:
//! JUnit 3 tests (a `TestCase` run through `runBare()`, directly or found in a `suite()`),
//! what the harness refuses with a clear message, and test time limits (JUnit 4's
//! `@Test(timeout)`, JUnit 5's `@Timeout`) checked against the logical clock.

use racelens_test_support as support;
mod common;

use std::path::Path;

use common::*;
use support::*;

/// The 1-based line of the first line of `file` (in `dir`) that contains `text`, plus `offset`.
fn line_of(dir: &Path, file: &str, text: &str, offset: u64) -> u64 {
    let source = std::fs::read_to_string(dir.join(file)).unwrap();
    let index = source.lines().position(|l| l.contains(text)).unwrap_or_else(|| panic!("`{text}` not in {file}"));
    index as u64 + 1 + offset
}

const JUNIT3_TEST: &str = "org.example.ids.IdBlockAllocatorTest#testConcurrentWritersGetDisjointBlocks";
const JUNIT3_TEST_FILE: &str = "src/test/java/org/example/ids/IdBlockAllocatorTest.java";
const OVERLAP: &str = "junit.framework.AssertionFailedError: writers got overlapping blocks";

#[test]
fn a_junit3_regression_fails_under_exploration_and_replays() {
    let repo = fixture_repo("explore-junit3");
    let r = fails_and_replays(repo.path(), JUNIT3_TEST, OVERLAP);
    // Where the test's assertFalse threw, in the test's own source.
    let line = line_of(repo.path(), JUNIT3_TEST_FILE, "assertFalse(", 0);
    assert_eq!(
        (r["failure"]["file"].as_str(), r["failure"]["line"].as_u64()),
        (Some(JUNIT3_TEST_FILE), Some(line)),
        "{r:#}"
    );
    // setUp ran before the test and tearDown after it: the allocator's writes and its close.
    let trace = r["failure"]["trace"].as_array().unwrap();
    let target = |t: &str| trace.iter().position(|e| e["thread"] == 0 && e["target"] == t);
    let (set_up, torn_down) =
        (target("org.example.ids.IdBlockAllocatorTest.allocator"), target("org.example.ids.IdBlockAllocator.closed"));
    assert!(set_up.is_some() && torn_down.is_some() && set_up < torn_down, "setUp and tearDown in thread 0: {r:#}");
}

#[test]
fn the_correct_junit3_version_passes_every_schedule_directly_and_through_its_suite() {
    let repo = repo_from(&fixtures_dir().join("explore-junit3"), false);
    let direct = passes_every_schedule(repo.path(), JUNIT3_TEST, &[]);
    // The suite's TestCase of that name, from a fresh suite() in every execution: the same
    // test, so the same schedules.
    let through_suite =
        passes_every_schedule(repo.path(), "org.example.ids.AllIdTests#testConcurrentWritersGetDisjointBlocks", &[]);
    assert_eq!(direct["schedules"], through_suite["schedules"]);
}

#[test]
fn a_junit3_regression_is_found_through_the_suite_too() {
    let repo = fixture_repo("explore-junit3");
    fails_and_replays(repo.path(), "AllIdTests#testConcurrentWritersGetDisjointBlocks", OVERLAP);
}

/// A project with JUnit 3 tests the harness cannot run, each for a reason it must name, and
/// two it runs: made by the `(String name)` constructor, and by the implicit one and `setName`.
fn junit3_edge_cases() -> tempfile::TempDir {
    let pool = r#"
package demo;

public class Pool {
    private int free;
    public Pool(int free) { this.free = free; }
    public synchronized boolean borrow() { if (free == 0) return false; free--; return true; }
}
"#;
    let pool_test = r#"
package demo;

import junit.framework.TestCase;

public class PoolTest extends TestCase {
    public PoolTest(String name) { super(name); }

    public void testBorrowFromEmpty() { assertFalse(new Pool(0).borrow()); }

    @org.junit.Test
    public void borrowsOnce() { assertTrue(new Pool(1).borrow()); }
}
"#;
    let sized = r#"
package demo;

import junit.framework.TestCase;

public class SizedPoolTest extends TestCase {
    private final int size;
    public SizedPoolTest(int size) { this.size = size; }
    public void testBorrowAll() { Pool p = new Pool(size); for (int i = 0; i < size; i++) assertTrue(p.borrow()); }
}
"#;
    let named = r#"
package demo;

import junit.framework.TestCase;

public class NamedPoolTest extends TestCase {
    public void testPoolNamedAfterItsTest() {
        assertEquals("testPoolNamedAfterItsTest", getName());
        assertTrue(new Pool(1).borrow());
    }
}
"#;
    let suite = r#"
package demo;

import junit.extensions.RepeatedTest;
import junit.framework.Test;
import junit.framework.TestSuite;

public class PoolSuite {
    public static Test suite() {
        TestSuite suite = new TestSuite("pool");
        suite.addTest(new RepeatedTest(new PoolTest("testBorrowFromEmpty"), 10));
        return suite;
    }
}
"#;
    repo_with(
        &[
            ("src/main/java/demo/Pool.java", pool),
            ("src/test/java/demo/PoolTest.java", pool_test),
            ("src/test/java/demo/SizedPoolTest.java", sized),
            ("src/test/java/demo/NamedPoolTest.java", named),
            ("src/test/java/demo/PoolSuite.java", suite),
        ],
        &[],
    )
}

#[test]
fn junit3_tests_the_harness_cannot_run_are_refused_with_the_reason_and_the_others_run() {
    let repo = junit3_edge_cases();
    let decorated = setup_error(repo.path(), "PoolSuite#testBorrowFromEmpty");
    assert!(
        decorated.contains("demo.PoolSuite.suite() runs testBorrowFromEmpty only inside junit.extensions.RepeatedTest"),
        "{decorated}"
    );
    assert!(decorated.contains("name the test's own class instead"), "{decorated}");
    let missing = setup_error(repo.path(), "PoolSuite#testBorrowTwice");
    assert!(
        missing.contains("no test named testBorrowTwice in demo.PoolSuite.suite() (its tests: testBorrowFromEmpty)"),
        "{missing}"
    );
    // JUnit 4's runner runs a TestCase the JUnit 3 way: its @Test methods are not tests.
    let annotated = setup_error(repo.path(), "PoolTest#borrowsOnce");
    assert!(
        annotated.contains("demo.PoolTest extends junit.framework.TestCase, so JUnit runs it the JUnit 3 way"),
        "{annotated}"
    );
    let constructor = setup_error(repo.path(), "SizedPoolTest#testBorrowAll");
    assert!(
        constructor.contains(
            "demo.SizedPoolTest has neither a public constructor (String name) nor a public one without parameters"
        ),
        "{constructor}"
    );
    for runs in ["PoolTest#testBorrowFromEmpty", "NamedPoolTest#testPoolNamedAfterItsTest"] {
        let (code, r) = racelens(repo.path(), &["explore", "--test", runs]);
        assert_eq!((code, r["outcome"].as_str()), (0, Some("pass")), "{r:#}");
    }
}

const LEASE_TEST: &str = "org.example.lease.SegmentWriterTest";
const LEASE_TEST_FILE: &str = "src/test/java/org/example/lease/SegmentWriterTest.java";
const LEASE_JUPITER_TEST: &str = "org.example.lease.SegmentWriterJupiterTest";

fn timeouts() -> tempfile::TempDir {
    repo_from(&fixtures_dir().join("explore-timeouts"), false)
}

#[test]
fn a_junit4_test_that_sleeps_past_its_timeout_in_logical_time_fails_as_junit_fails_it() {
    let repo = timeouts();
    let test = format!("{LEASE_TEST}#aSnapshotDuringCompactionFitsItsBudget");
    let r = fails_and_replays(
        repo.path(),
        &test,
        "org.junit.runners.model.TestTimedOutException: test timed out after 60 milliseconds",
    );
    // Only the schedule where the compactor takes the lease first runs late: not the first one.
    assert!(r["schedules"].as_u64().unwrap() > 1, "{r:#}");
    assert_eq!(r["failure"]["preemptions"].as_array().unwrap().len(), 1, "{r:#}");
    // Reported at the test method (its first line): the test ran too long as a whole.
    let line = line_of(repo.path(), LEASE_TEST_FILE, "public void aSnapshotDuringCompactionFitsItsBudget", 1);
    assert_eq!(
        (r["failure"]["file"].as_str(), r["failure"]["line"].as_u64()),
        (Some(LEASE_TEST_FILE), Some(line)),
        "{r:#}"
    );
}

#[test]
fn a_test_that_stays_within_its_timeout_passes_every_schedule() {
    let repo = timeouts();
    passes_every_schedule(repo.path(), &format!("{LEASE_TEST}#aSnapshotDuringCompactionFitsAGenerousBudget"), &[]);
    passes_every_schedule(repo.path(), &format!("{LEASE_JUPITER_TEST}#aSnapshotDuringCompactionFitsASecond"), &[]);
}

#[test]
fn junit5_timeouts_of_the_method_and_of_the_class_fail_with_jupiters_message() {
    let repo = timeouts();
    let class_budget = format!("{LEASE_JUPITER_TEST}#aSnapshotDuringCompactionFitsTheClassBudget");
    fails_and_replays(repo.path(), &class_budget, "java.util.concurrent.TimeoutException: aSnapshotDuringCompactionFitsTheClassBudget() timed out after 60 milliseconds");
    let own_budget = format!("{LEASE_JUPITER_TEST}#aSnapshotDuringCompactionFitsItsOwnBudget");
    fails_and_replays(repo.path(), &own_budget, "java.util.concurrent.TimeoutException: aSnapshotDuringCompactionFitsItsOwnBudget() timed out after 65 milliseconds");
}

#[test]
fn a_test_with_a_timeout_that_never_returns_is_a_livelock_not_a_timeout() {
    let repo = timeouts();
    let test = format!("{LEASE_TEST}#aWriterSpinningOnALeaseNobodyReleasesNeverReturns");
    // `basic`: every schedule is a systematic one (the PCT phase begins with a probe run).
    let (code, r) = racelens(
        repo.path(),
        &["explore", "--test", &test, "--heuristic", "basic", "--max-steps", "5000", "--max-schedules", "3"],
    );
    assert_eq!(code, 0, "{r:#}");
    assert!(r["failure"].is_null(), "{r:#}");
    // Every run was cut at the step bound: nothing is claimed about what they did not reach.
    let runs = r["coverage"]["runs"].as_u64().unwrap();
    assert!(runs >= 1 && r["stats"]["livelocks"].as_u64() == Some(runs), "{r:#}");
    assert_eq!(
        (r["coverage"]["all_schedules"].as_bool(), r["coverage"]["complete_bound"].as_u64()),
        (Some(false), None),
        "{r:#}"
    );
}
