//! `racelens explore` and `racelens replay` on real JVMs: every fixture's buggy version
//! (its change applied) fails under exploration and its schedule replays; every correct
//! version passes every schedule within the preemption bound; the special cases (a
//! livelock, `System.exit`, a failure in another thread, deterministic hash codes and
//! clocks, logical sleeps, JUnit 5, `main`) come out as documented in their fixture.

use racelens_test_support as support;
mod common;

use std::path::Path;

use common::*;
use serde_json::Value;
use support::*;

/// The buggy version fails with `kind`; the failing schedule replays to the same failure.
fn buggy_fails_and_replays(fixture: &str, test: &str, kind: &str) {
    let repo = fixture_repo(fixture);
    let (code, r) = racelens(repo.path(), &["explore", "--test", test]);
    assert_eq!((code, r["outcome"].as_str()), (1, Some("fail")), "{r:#}");
    let failure = &r["failure"];
    assert_eq!(failure["kind"], kind, "{r:#}");
    assert!(r["schedules"].as_u64().unwrap() >= 1 && !failure["trace"].as_array().unwrap().is_empty());
    let schedule = failure["schedule"].as_str().unwrap();
    let (code, replayed) = racelens(repo.path(), &["replay", "--test", test, "--schedule", schedule]);
    assert_eq!((code, replayed["outcome"].as_str()), (1, Some(kind)), "{replayed:#}");
    // The same way, with objects named alike (`deadlock: T0 waiting on ReadWriteGate@1`).
    let same = replayed["message"].as_str().unwrap().starts_with(failure["message"].as_str().unwrap());
    assert!(same, "the replay fails the same way: {replayed:#}\nvs {failure:#}");
}

/// The correct version passes, and the result claims (truly, the search's property test
/// says) that every schedule with up to `bound` preemptions, or every schedule, ran.
fn correct_passes_every_schedule(fixture: &str, test: &str, bound: u32) {
    let repo = repo_from(&fixtures_dir().join(fixture), false);
    let r = passes_every_schedule(repo.path(), test, &["--bound", &bound.to_string()]);
    assert!(claims_complete(&r, u64::from(bound)) && r["coverage"]["budget_exhausted"] == false, "{r:#}");
}

macro_rules! fixture_tests {
    ($($name:ident: $fixture:literal, $test:literal, $kind:literal, $bound:literal;)*) => {
        $(
            mod $name {
                #[test]
                fn buggy_version_fails_and_replays() {
                    super::buggy_fails_and_replays($fixture, $test, $kind);
                }
                #[test]
                fn correct_version_passes_every_schedule() {
                    super::correct_passes_every_schedule($fixture, $test, $bound);
                }
            }
        )*
    };
}

fixture_tests! {
    // name: fixture, test, failure kind of the buggy version, bound completed on the correct one
    lost_update: "explore-lost-update", "org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted", "fail", 3;
    check_then_act: "explore-check-then-act", "org.example.cache.ConnectionCacheTest#racingClientsShareOneConnection", "fail", 3;
    lock_order_deadlock: "explore-deadlock", "org.example.bank.BankTest#oppositeTransfersKeepTheTotal", "deadlock", 3;
    lost_wakeup: "explore-lost-wakeup", "org.example.buffer.BoundedBufferTest#everyItemIsConsumedOnce", "deadlock", 3;
    lock_condition: "explore-lock-condition", "org.example.jobs.JobQueueTest#everyJobRunsOnce", "fail", 3;
    executor: "explore-executor", "org.example.words.WordCountTest#parallelCountMatchesSequential", "fail", 3;
    latch: "explore-latch", "org.example.registry.ServiceRegistryTest#allServicesVisibleAfterStartup", "fail", 3;
}

const READERS_WRITER: &str = "org.example.settings.EndpointTest#requestsNeverSeeAHalfReloadedEndpoint";

/// A fault that needs three preemptions (the test thread before its reload, the first
/// request inside its read, the second inside its unsynchronized decrement): the default
/// settings find it, and so does plain iterative context bounding, at bound 3.
#[test]
fn a_three_preemption_fault_is_found_by_default() {
    buggy_fails_and_replays("explore-readers-writer", READERS_WRITER, "deadlock");
    let repo = fixture_repo("explore-readers-writer");
    let (code, r) = racelens(repo.path(), &["explore", "--test", READERS_WRITER, "--heuristic", "basic"]);
    assert_eq!((code, r["failure"]["kind"].as_str()), (1, Some("deadlock")), "{r:#}");
    assert_eq!(r["failure"]["preemptions"].as_array().unwrap().len(), 3, "{r:#}");
    assert!(r["schedules"].as_u64().unwrap() < 10_000, "{r:#}");
}

#[test]
fn the_readers_writer_gate_passes_every_schedule_up_to_three_preemptions() {
    correct_passes_every_schedule("explore-readers-writer", READERS_WRITER, 3);
}

fn special(test: &str, extra: &[&str]) -> (i32, Value) {
    let repo = repo_from(&fixtures_dir().join("explore-special"), false);
    let mut args = vec!["explore", "--test", test];
    args.extend_from_slice(extra);
    racelens(repo.path(), &args)
}

#[test]
fn a_thread_that_spins_forever_is_a_livelock_not_a_bug() {
    for test in ["SpecialCasesTest#spinsForever", "SpecialCasesTest#loopsWithoutSharedState"] {
        let (code, r) = special(test, &["--max-steps", "5000", "--max-schedules", "3"]);
        assert_eq!(code, 0, "{r:#}");
        assert!(r["stats"]["livelocks"].as_u64().unwrap() >= 1, "{test}: {r:#}");
        assert_ne!(r["outcome"], "fail", "{r:#}");
    }
}

#[test]
fn system_exit_is_intercepted_and_reported() {
    let (code, r) = special("SpecialCasesTest#exitsTheJvm", &[]);
    assert_eq!((code, r["failure"]["kind"].as_str()), (1, Some("exit")), "{r:#}");
    assert!(r["failure"]["message"].as_str().unwrap().contains("System.exit(3)"), "{r:#}");
}

#[test]
fn an_exception_in_another_thread_fails_the_test() {
    let (code, r) = special("SpecialCasesTest#failsInWorkerThread", &[]);
    assert_eq!((code, r["failure"]["thread"].as_u64()), (1, Some(1)), "{r:#}");
    assert!(
        r["failure"]["message"]
            .as_str()
            .unwrap()
            .starts_with("java.lang.IllegalStateException: worker lost its connection"),
        "{r:#}"
    );
}

#[test]
fn hash_codes_clocks_and_sleeps_are_deterministic() {
    // Every schedule replays the prefix it extends: a nondeterministic execution would stop
    // the exploration with a divergence (outcome `error`).
    for test in ["SpecialCasesTest#hashCodesAndClockReplay", "SpecialCasesTest#sleepsAreLogical"] {
        let (code, r) = special(test, &[]);
        assert_eq!((code, r["outcome"].as_str()), (0, Some("pass")), "{test}: {r:#}");
    }
}

#[test]
fn junit5_tests_and_main_programs_run_too() {
    for test in ["JupiterCounterTest#concurrentIncrementsAreAtomic", "org.example.special.PipelineMain"] {
        let (code, r) = special(test, &[]);
        assert_eq!((code, r["outcome"].as_str()), (0, Some("pass")), "{test}: {r:#}");
        assert!(r["schedules"].as_u64().unwrap() > 1, "{test}: {r:#}");
    }
}

#[test]
fn blocking_queues_deques_and_read_write_locks_wait_in_the_model() {
    // A blocking call that waited in the JDK would hang the execution (outcome `error`);
    // a timed poll that nobody feeds times out in logical time.
    let (code, r) = special("RelayTest#everyPriceAndNoticeArrives", &[]);
    assert_eq!((code, r["outcome"].as_str()), (0, Some("pass")), "{r:#}");
    assert!(r["schedules"].as_u64().unwrap() > 10, "{r:#}");
}

#[test]
fn a_schedule_that_no_longer_fits_the_code_is_reported_as_a_divergence() {
    let repo = fixture_repo("explore-lost-update");
    let test = "org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted";
    let (_, r) = racelens(repo.path(), &["explore", "--test", test]);
    let schedule = r["failure"]["schedule"].as_str().unwrap().to_string();
    // The fix: `record` is synchronized again. The schedule's switch points moved.
    git(repo.path(), &["checkout", "--", "."]);
    let (code, replayed) = racelens(repo.path(), &["replay", "--test", test, "--schedule", &schedule]);
    assert!(
        matches!((code, replayed["outcome"].as_str()), (0, Some("pass")) | (2, Some("divergence"))),
        "{replayed:#}"
    );
}

#[test]
fn setup_errors_are_clear() {
    let repo = fixture_repo("explore-lost-update");
    let err = setup_error(repo.path(), "NoSuchTest#x");
    assert!(err.contains("no class `NoSuchTest`"), "{err}");
    // Not compilable: the compiler's message, not a crash.
    let file = repo.path().join("src/main/java/org/example/metrics/LatencyStats.java");
    std::fs::write(
        &file,
        std::fs::read_to_string(&file).unwrap().replace("public void record(", "public void record(int,"),
    )
    .unwrap();
    let err = setup_error(repo.path(), "LatencyStatsTest#concurrentRecordsAreAllCounted");
    assert!(err.contains("LatencyStats.java") && err.contains("error"), "{err}");
}

/// A fault of the CAPP benchmark (`tests/bench/capp/`) with its change applied, and its test.
fn capp_fault(name: &str) -> (tempfile::TempDir, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bench/capp").join(name);
    let toml = std::fs::read_to_string(dir.join("fault.toml")).unwrap();
    let test = toml.lines().find_map(|l| l.strip_prefix("test = ")).unwrap().trim_matches('"').to_string();
    (repo_from(&dir, true), test)
}

#[test]
fn the_default_heuristic_finds_a_regression_in_fewer_schedules_than_basic() {
    let default = racelens_explore::search::heuristics::DEFAULT;
    let (repo, test) = capp_fault("inventory-reserve");
    for seed in ["1", "2"] {
        let run = |heuristic: &str| {
            racelens(repo.path(), &["explore", "--test", &test, "--heuristic", heuristic, "--seed", seed])
        };
        let (code, basic) = run("basic");
        assert_eq!((code, basic["outcome"].as_str()), (1, Some("fail")), "{basic:#}");
        let (code, prioritized) = run(default);
        assert_eq!((code, prioritized["outcome"].as_str()), (1, Some("fail")), "{prioritized:#}");
        assert_eq!(prioritized["heuristic"], default);
        assert!(prioritized["icps"].as_u64().unwrap() > 0, "{prioritized:#}");
        let (b, p) = (basic["schedules"].as_u64().unwrap(), prioritized["schedules"].as_u64().unwrap());
        assert!(p < b, "seed {seed}: {default} needed {p} schedules, basic {b}");
    }
}

#[test]
fn selection_explores_only_schedules_that_reorder_impacted_accesses() {
    // Threads that do plenty of unrelated shared work besides the changed flush loop.
    let (repo, test) = capp_fault("outbox-flush-cta");
    let test = test.as_str();
    let (code, selected) = racelens(
        repo.path(),
        &["explore", "--test", test, "--heuristic", "LA", "--select", "--all", "--max-schedules", "2000"],
    );
    assert_eq!((code, selected["outcome"].as_str()), (1, Some("fail")), "{selected:#}");
    // Races whose reversal moves no impacted access were left out, and nothing is claimed
    // about them.
    assert!(selected["stats"]["skipped"].as_u64().unwrap() > 0, "{selected:#}");
    assert!(
        !selected["coverage"]["all_schedules"].as_bool().unwrap(),
        "a selection claims nothing about what it left out: {selected:#}"
    );
    // Without selection the same search leaves nothing out.
    let (_, everything) =
        racelens(repo.path(), &["explore", "--test", test, "--heuristic", "LA", "--all", "--max-schedules", "2000"]);
    assert_eq!(everything["stats"]["skipped"], 0);
    // Without a change there is no impacted access: the selection runs the default
    // schedule (once per tree) and leaves out every reordering.
    let unchanged =
        repo_from(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bench/capp/outbox-flush-cta"), false);
    let (code, none) = racelens(unchanged.path(), &["explore", "--test", test, "--heuristic", "LA", "--select"]);
    assert_eq!((code, none["outcome"].as_str()), (0, Some("pass")), "{none:#}");
    assert!(none["schedules"].as_u64().unwrap() <= 2 && none["stats"]["skipped"].as_u64().unwrap() > 0, "{none:#}");
}

const COUNTERS_TEST: &str = r#"package org.x.stats;

import static org.junit.Assert.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.Test;

public class CountersTest {
    @Test
    public void everyIncrementIsCounted() throws Exception {
        AtomicInteger hits = new AtomicInteger();
        LongAdder bytes = new LongAdder();
        Thread[] workers = new Thread[3];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(() -> {
                for (int k = 0; k < 3; k++) {
                    hits.incrementAndGet();
                    bytes.add(512);
                }
            });
        }
        for (Thread t : workers) t.start();
        for (Thread t : workers) t.join();
        assertEquals(9, hits.get());
        assertEquals(9 * 512, bytes.sum());
    }

    @Test
    public void everyTicketIsUnique() throws Exception {
        AtomicInteger next = new AtomicInteger();
        int[] taken = new int[7];
        Thread[] workers = new Thread[3];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(() -> {
                for (int k = 0; k < 2; k++) {
                    taken[next.incrementAndGet()]++;
                }
            });
        }
        for (Thread t : workers) t.start();
        for (Thread t : workers) t.join();
        assertEquals(6, next.get());
    }
}
"#;

/// Additions to a counter whose result the code drops commute (issue 22, item 1): nine
/// `incrementAndGet()`s and nine `LongAdder.add()`s of three threads are a handful of
/// classes, every schedule explored (without the rule, 20,000 schedules did not complete
/// bound 3). Where the code uses the result (a ticket number), the order is observable and
/// the same three threads have hundreds of schedules.
#[test]
fn counters_whose_results_are_dropped_need_a_handful_of_schedules() {
    let repo = repo_with(&[("src/test/java/org/x/stats/CountersTest.java", COUNTERS_TEST)], &[]);
    let (code, r) = racelens(
        repo.path(),
        &["explore", "--test", "org.x.stats.CountersTest#everyIncrementIsCounted", "--heuristic", "basic"],
    );
    assert_eq!((code, r["coverage"]["all_schedules"].as_bool()), (0, Some(true)), "{r:#}");
    assert!(r["coverage"]["runs"].as_u64().unwrap() <= 20, "{r:#}");
    let (code, r) = racelens(
        repo.path(),
        &[
            "explore",
            "--test",
            "org.x.stats.CountersTest#everyTicketIsUnique",
            "--heuristic",
            "basic",
            "--max-schedules",
            "100",
        ],
    );
    assert_eq!((code, r["coverage"]["all_schedules"].as_bool()), (0, Some(false)), "{r:#}");
}

const HANDOFF_BUFFER: &str = r#"package org.x.handoff;

/** One slot handed from producers to consumers; everyone waits on the slot's monitor. */
public class Slot<T> {
    private T item;
    private boolean full;

    public synchronized void put(T value) throws InterruptedException {
        while (full) {
            wait();
        }
        item = value;
        full = true;
        notifyAll();
    }

    public synchronized T take() throws InterruptedException {
        while (!full) {
            wait();
        }
        T value = item;
        item = null;
        full = false;
        notifyAll();
        return value;
    }
}
"#;

const HANDOFF_TEST: &str = r#"package org.x.handoff;

import static org.junit.Assert.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

public class SlotTest {
    @Test
    public void twoProducersTwoConsumersHandOverEveryItemOnce() throws Exception {
        Slot<Integer> slot = new Slot<>();
        AtomicInteger sum = new AtomicInteger();
        Thread[] threads = new Thread[4];
        for (int p = 0; p < 2; p++) {
            int base = 10 * p;
            threads[p] = new Thread(() -> {
                try {
                    slot.put(base + 1);
                    slot.put(base + 2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        for (int c = 2; c < 4; c++) {
            threads[c] = new Thread(() -> {
                try {
                    sum.addAndGet(slot.take());
                    sum.addAndGet(slot.take());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
        assertEquals(1 + 2 + 11 + 12, sum.get());
    }
}
"#;

/// Two producers and two consumers of a one-item slot, two items each: the correct version
/// (`notifyAll`) shows no failure and says where the budget ended, never more; with
/// `notify()`, a consumer can wake the other consumer and every thread ends up waiting: the
/// lost wake-up's deadlock is found.
#[test]
fn a_slot_handed_between_four_threads_passes_and_its_lost_wakeup_is_found() {
    let files = [
        ("src/main/java/org/x/handoff/Slot.java", HANDOFF_BUFFER),
        ("src/test/java/org/x/handoff/SlotTest.java", HANDOFF_TEST),
    ];
    let repo = repo_with(&files, &[]);
    let test = "org.x.handoff.SlotTest#twoProducersTwoConsumersHandOverEveryItemOnce";
    let (code, r) =
        racelens(repo.path(), &["explore", "--test", test, "--heuristic", "basic", "--max-schedules", "300"]);
    assert_eq!((code, r["failure"].is_null()), (0, true), "{r:#}");
    assert!(
        r["coverage"]["all_schedules"] == false && r["coverage"]["budget_exhausted"] == true,
        "a budget end is said as such: {r:#}"
    );
    let single = HANDOFF_BUFFER.replace("notifyAll();", "notify();");
    let repo = repo_with(&[(files[0].0, single.as_str()), files[1]], &[]);
    let (code, r) =
        racelens(repo.path(), &["explore", "--test", test, "--heuristic", "basic", "--max-schedules", "2000"]);
    assert_eq!(
        (code, r["outcome"].as_str(), r["failure"]["kind"].as_str()),
        (1, Some("fail"), Some("deadlock")),
        "{r:#}"
    );
}

const SPIN_TEST: &str = r#"package org.x.spin;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class HandshakeTest {
    private volatile boolean ready;
    private int payload;

    @Test
    public void theReaderSeesThePayloadOnceReady() throws Exception {
        Thread reader = new Thread(() -> {
            while (!ready) {
                Thread.onSpinWait();
            }
            assertEquals(42, payload);
        });
        Thread writer = new Thread(() -> {
            payload = 42;
            ready = true;
        });
        reader.start();
        writer.start();
        reader.join();
        writer.join();
    }
}
"#;

/// A spin loop on a volatile flag (`while (!ready) Thread.onSpinWait();`): a thread that
/// yields again before any other took a step waits until one does, so the first run is not
/// a step-bound livelock and the search does not try one more iteration per run: every
/// schedule in a handful of runs. With the flag set before the payload, the stale read is
/// found.
#[test]
fn a_spin_loop_on_a_volatile_flag_is_cleared_and_its_reordering_found() {
    let path = "src/test/java/org/x/spin/HandshakeTest.java";
    let repo = repo_with(&[(path, SPIN_TEST)], &[]);
    let test = "org.x.spin.HandshakeTest#theReaderSeesThePayloadOnceReady";
    let (code, r) =
        racelens(repo.path(), &["explore", "--test", test, "--heuristic", "basic", "--max-schedules", "500"]);
    assert_eq!((code, r["coverage"]["all_schedules"].as_bool()), (0, Some(true)), "{r:#}");
    assert!(r["coverage"]["runs"].as_u64().unwrap() <= 20 && r["coverage"]["livelocks"] == 0, "{r:#}");
    let reordered =
        SPIN_TEST.replace("payload = 42;\n            ready = true;", "ready = true;\n            payload = 42;");
    assert_ne!(reordered, SPIN_TEST);
    let repo = repo_with(&[(path, reordered.as_str())], &[]);
    let (code, r) = racelens(repo.path(), &["explore", "--test", test, "--max-schedules", "500"]);
    assert_eq!((code, r["outcome"].as_str()), (1, Some("fail")), "{r:#}");
}
