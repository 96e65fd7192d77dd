//! `racelens explore` on tests that ask the JDK's API of the classes racelens models while
//! threads hold, queue and wait (fixture `tests/fixtures/explore-jdk-api`, real JVMs): the hold
//! counts, owners, queues and wait sets of `ReentrantLock`, `ReentrantReadWriteLock` and
//! `Semaphore` (and their subclasses' protected queries, and fairness), the project's own
//! synchronizers built on `AbstractQueuedSynchronizer`, `Thread.getState`, `Thread.holdsLock`
//! and an overridden `interrupt()`, the sizes, queue and hooks of `ThreadPoolExecutor`, and
//! `FutureTask` and `CompletableFuture` subclasses. Each test asserts the JDK's answers in Java
//! (it passes under plain JUnit too) and must pass every schedule: a model that answered from
//! the JDK's own, empty, state would fail it. Then the shape that broke every concurrent test of
//! commons-pool: a `ReentrantLock` subclass whose `close()` interrupts the waiters it finds with
//! `getWaitingThreads`; its buggy variant (a borrower that lets that interrupt through) is found
//! by exploring and replays.

use racelens_test_support as support;
mod common;

use std::collections::BTreeSet;

use common::*;
use support::*;

const FIXTURE: &str = "explore-jdk-api";

#[test]
fn every_family_answers_its_queries_from_the_model_on_every_schedule() {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    let tests = listed_tests(FIXTURE);
    let families: BTreeSet<&str> = tests.iter().map(|t| t.split('#').next().unwrap()).collect();
    assert_eq!(families.len(), 8, "a test class per family: {families:?}");
    for test in &tests {
        // Bound 2 keeps the pool's tests (two workers logging their hooks) to seconds; the
        // others end before it with every schedule explored.
        let r = passes_every_schedule(repo.path(), test, &["--bound", "2"]);
        assert!(
            claims_complete(&r, 2) && r["coverage"]["budget_exhausted"] == false,
            "{test}: no complete claim: {r:#}"
        );
    }
}

#[test]
fn closing_the_pool_interrupts_its_waiting_borrowers_and_a_borrower_that_lets_the_interrupt_through_is_found() {
    let repo = fixture_repo(FIXTURE);
    // With a borrower already waiting when close() comes, it sees an InterruptedException where
    // "pool closed" is promised: not on the first schedule (close() runs before they wait), but
    // the search finds it, and its schedule replays.
    let test = "org.example.api.BoundedPoolTest#closeTurnsAwayEveryBorrower";
    let r = fails_and_replays(repo.path(), test, "java.lang.AssertionError: java.lang.InterruptedException");
    assert!(r["schedules"].as_u64().unwrap() > 1, "the first schedule passes: {r:#}");
    // When the test waits until both borrowers wait, the first schedule fails already (as plain JUnit does).
    let test = "org.example.api.BoundedPoolTest#closeInterruptsTheWaitingBorrowers";
    let r = fails_and_replays(repo.path(), test, "java.lang.AssertionError: java.lang.InterruptedException");
    assert_eq!(r["schedules"], 1, "{r:#}");
}
