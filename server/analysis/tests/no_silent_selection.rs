//! Never "no test" silently (issue 21, item 2): a change with a warning but no impacted pair
//! (a check-then-act on a queue a session attribute returned) selects the test that runs the
//! warned method in two threads; a change to state whose sharing the analysis cannot decide
//! (a hash cached in a field of a class no object of which is seen escaping) selects nothing
//! but says which state and through what; a single-threaded change says neither.

use racelens_test_support as support;

use racelens_analysis::rank::{self, Selection};
use support::*;

const SESSION: &str = r#"package org.x.net;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class Session {
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();

    public Object getAttribute(String key) {
        return attributes.get(key);
    }

    public void setAttribute(String key, Object value) {
        attributes.put(key, value);
    }
}
"#;

const FLUSHER: &str = r#"package org.x.net;

import java.util.Queue;

public class Flusher {
    static final String QUEUE = "writeQueue";

    @SuppressWarnings("unchecked")
    public int flush(Session session) {
        Queue<String> queue = (Queue<String>) session.getAttribute(QUEUE);
        int written = 0;
        String message;
        while ((message = queue.poll()) != null) {
            written += message.length();
        }
        return written;
    }
}
"#;

const FLUSHER_TEST: &str = r#"package org.x.net;

import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.Test;

public class FlusherTest {
    @Test
    public void twoFlushersDrainOneSession() throws Exception {
        Session session = new Session();
        ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>();
        queue.add("a");
        session.setAttribute(Flusher.QUEUE, queue);
        Flusher flusher = new Flusher();
        Thread other = new Thread(() -> flusher.flush(session));
        other.start();
        flusher.flush(session);
        other.join();
    }

    @Test
    public void flushAnEmptySession() {
        Session session = new Session();
        session.setAttribute(Flusher.QUEUE, new ConcurrentLinkedQueue<String>());
        new Flusher().flush(session);
    }
}
"#;

fn selection_after(base: &[(&str, &str)], change: &[(&str, &str)]) -> (Selection, Vec<String>) {
    selection_in(repo_with(base, change).path())
}

fn selection_in(repo: &std::path::Path) -> (Selection, Vec<String>) {
    let (mut host, impact) = analyze(repo);
    let sharing = host.sharing();
    let selection = rank::select(host.index(), &sharing, &impact);
    (selection, warnings(&host, &impact))
}

fn selected(selection: &Selection) -> Vec<&str> {
    selection.tests[..selection.selected].iter().map(|t| t.test.as_str()).collect()
}

fn reason<'s>(selection: &'s Selection, test: &str) -> &'s str {
    &selection.get(test).unwrap_or_else(|| panic!("{test} is ranked")).reason
}

#[test]
fn a_warning_without_a_pair_selects_the_test_that_runs_its_method_in_two_threads() {
    let base = [
        ("src/main/java/org/x/net/Session.java", SESSION),
        ("src/main/java/org/x/net/Flusher.java", FLUSHER),
        ("src/test/java/org/x/net/FlusherTest.java", FLUSHER_TEST),
    ];
    let drained_by_check = FLUSHER.replace(
        "        while ((message = queue.poll()) != null) {\n            written += message.length();\n        }",
        "        while (!queue.isEmpty()) {\n            message = queue.poll();\n            written += message.length();\n        }",
    );
    let (selection, warnings) = selection_after(&base, &[("src/main/java/org/x/net/Flusher.java", &drained_by_check)]);
    assert!(warnings.iter().any(|w| w.contains("RL004")), "the check-then-act is warned: {warnings:?}");
    assert_eq!(selected(&selection), ["org.x.net.FlusherTest#twoFlushersDrainOneSession"], "{selection:#?}");
    let first = &selection.tests[0];
    assert!(
        first.pairs.iter().any(|p| p.starts_with("RL004 Flusher.java:") && p.ends_with("(Flusher.flush)")),
        "{:?}",
        first.pairs
    );
    assert!(first.reason.contains("reaches 1 method with a warning of the change"), "{}", first.reason);
    assert_eq!(selection.warned_methods, 1);
    assert!(
        reason(&selection, "org.x.net.FlusherTest#flushAnEmptySession").starts_with("not selected: starts no thread")
    );
}

#[test]
fn state_of_undecided_sharing_is_named_instead_of_no_pair() {
    // The hash is built in the field step by step, so another thread can read a partial
    // one; the key reaches the other thread as an element of an `Object[]`, so no `Key` is
    // seen reaching it. The key's label can be set, so it is no value class: no RL010 (below).
    let repo = fixture_repo("undecided-hash");
    let (selection, _) = selection_in(repo.path());
    assert_eq!(selection.selected, 0, "{selection:#?}");
    assert_eq!(
        selection.undecided,
        ["`Key.hash` in `Key.hash` is not known to be shared: no `Key` object is seen reaching another thread; reached only through `Hasher.of`"]
    );
    let two = reason(&selection, "org.x.cache.KeyTest#hashedByTwoThreads");
    assert!(two.contains("but it runs `Key.hash`, where `Key.hash` is not known to be shared"), "{two}");
    assert_eq!(
        selection.tests[0].test, "org.x.cache.KeyTest#hashedByTwoThreads",
        "the test that runs it in two threads ranks first"
    );
    assert!(!reason(&selection, "org.x.cache.KeyTest#hashedOnce").contains("not known to be shared"));
}

#[test]
fn a_change_no_threaded_test_reaches_names_nothing_undecided() {
    // Undecided state in any single-threaded edit would make every such edit "no evidence":
    // without a warning in its method, state no threaded test runs is not named.
    let repo = fixture_repo("undecided-hash");
    std::fs::remove_file(repo.path().join("src/test/java/org/x/cache/KeyTest.java")).unwrap();
    let (selection, warnings) = selection_in(repo.path());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(selection.undecided.is_empty(), "{:?}", selection.undecided);
}

const RANGE: &str = r#"package org.x.range;

public final class Range {
    private final int min;
    private final int max;
    private int hashCode;

    public Range(int min, int max) {
        this.min = min;
        this.max = max;
    }

    @Override
    public int hashCode() {
        int h = hashCode;
        if (h == 0) {
            h = 17;
            h = 37 * h + min;
            h = 37 * h + max;
            hashCode = h;
        }
        return h;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Range && ((Range) o).min == min && ((Range) o).max == max;
    }
}
"#;

const RANGE_TEST: &str = r#"package org.x.range;

import static org.junit.Assert.assertEquals;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.Test;

public class RangeTest {
    @Test
    public void hashedByTwoThreads() throws Exception {
        Range range = new Range(1, 5);
        Map<Range, String> seen = new ConcurrentHashMap<>();
        Thread other = new Thread(() -> seen.put(range, "other"));
        other.start();
        seen.put(range, "main");
        other.join();
        assertEquals(1, seen.size());
    }

    @Test
    public void equalRangesHashAlike() {
        assertEquals(new Range(1, 2).hashCode(), new Range(1, 2).hashCode());
    }
}
"#;

/// LANG-481's shape: the cached hash built step by step in its field, so that another
/// thread hashing the same range can read a partial one. The JDK's map calls `hashCode()`,
/// where the call graph does not go: the test that puts the range from two threads reaches
/// it through the map's `put`, and is selected; the single-threaded test is not.
#[test]
fn a_hash_a_shared_map_computes_is_reached_through_the_map() {
    let base =
        [("src/main/java/org/x/range/Range.java", RANGE), ("src/test/java/org/x/range/RangeTest.java", RANGE_TEST)];
    let step_by_step = RANGE.replace(
        "        int h = hashCode;\n        if (h == 0) {\n            h = 17;\n            h = 37 * h + min;\n            h = 37 * h + max;\n            hashCode = h;\n        }\n        return h;",
        "        if (hashCode == 0) {\n            hashCode = 17;\n            hashCode = 37 * hashCode + min;\n            hashCode = 37 * hashCode + max;\n        }\n        return hashCode;",
    );
    assert_ne!(step_by_step, RANGE);
    let (selection, warnings) = selection_after(&base, &[("src/main/java/org/x/range/Range.java", &step_by_step)]);
    assert_eq!(selected(&selection), ["org.x.range.RangeTest#hashedByTwoThreads"], "{selection:#?}");
    assert!(
        reason(&selection, "org.x.range.RangeTest#equalRangesHashAlike").starts_with("not selected: starts no thread")
    );
    assert!(
        warnings.iter().any(|w| w.contains(" RL010 ")
            && w.contains(
                "`hashCode` is built in steps in `hashCode()`: `Range` is immutable apart from its cached fields"
            )),
        "{warnings:?}"
    );

    // Without the test that hashes from two threads (LANG-481 as committed: commons-lang had
    // none), nothing can be selected, and `select` says why instead of a bare "0 tests".
    let threaded = RANGE_TEST.find("    @Test\n    public void hashedByTwoThreads()").unwrap();
    let next = threaded + RANGE_TEST[threaded + 1..].find("    @Test").unwrap() + 1;
    let single = format!("{}{}", &RANGE_TEST[..threaded], &RANGE_TEST[next..]);
    assert_ne!(single, RANGE_TEST);
    let base = [
        ("src/main/java/org/x/range/Range.java", RANGE),
        ("src/test/java/org/x/range/RangeTest.java", single.as_str()),
    ];
    let (selection, warnings) = selection_after(&base, &[("src/main/java/org/x/range/Range.java", &step_by_step)]);
    assert_eq!(selection.selected, 0, "{selection:#?}");
    assert!(warnings.iter().any(|w| w.contains(" RL010 ")), "{warnings:?}");
    assert_eq!(
        selection.undecided,
        ["`Range.hashCode` in `Range.hashCode` is not known to be shared, and no test that starts threads runs `Range.hashCode` (1 test run it in one thread, which cannot reveal a race): a test that calls it on one object from two threads would tell"]
    );
}

/// The racy single-check idiom done right is quiet: the value is built in a local and
/// written once, even where the change rewrote the method; so is a mutable class's cache.
#[test]
fn a_hash_cached_once_from_a_local_gets_no_rl010() {
    let base =
        [("src/main/java/org/x/range/Range.java", RANGE), ("src/test/java/org/x/range/RangeTest.java", RANGE_TEST)];
    let renamed = RANGE
        .replace("int h = hashCode;", "int cached = hashCode;")
        .replace("if (h == 0) {", "if (cached == 0) {")
        .replace("            h = 17;", "            int h = 17;")
        .replace(
            "            hashCode = h;\n        }\n        return h;",
            "            hashCode = h;\n            cached = h;\n        }\n        return cached;",
        );
    assert_ne!(renamed, RANGE);
    let (_, warnings) = selection_after(&base, &[("src/main/java/org/x/range/Range.java", &renamed)]);
    assert!(!warnings.iter().any(|w| w.contains(" RL010 ")), "{warnings:?}");
    let mutable = RANGE.replace("private final int max;", "private int max;").replace("    @Override\n    public int hashCode() {", "    public void setMax(int max) {\n        this.max = max;\n        hashCode = 0;\n    }\n\n    @Override\n    public int hashCode() {");
    let steps = mutable.replace(
        "        int h = hashCode;\n        if (h == 0) {\n            h = 17;\n            h = 37 * h + min;\n            h = 37 * h + max;\n            hashCode = h;\n        }\n        return h;",
        "        if (hashCode == 0) {\n            hashCode = 17;\n            hashCode = 37 * hashCode + min;\n        }\n        return hashCode;",
    );
    assert_ne!(steps, mutable);
    let base = [
        ("src/main/java/org/x/range/Range.java", mutable.as_str()),
        ("src/test/java/org/x/range/RangeTest.java", RANGE_TEST),
    ];
    let (_, warnings) = selection_after(&base, &[("src/main/java/org/x/range/Range.java", &steps)]);
    assert!(!warnings.iter().any(|w| w.contains(" RL010 ")), "a mutable class is no value class: {warnings:?}");
}

const POOL: &str = r#"package org.x.pool;

import java.util.ArrayDeque;
import java.util.Timer;
import java.util.TimerTask;

public class Pool {
    private static final Timer EVICTION = new Timer("pool-evictor", true);
    private final ArrayDeque<Object> idle = new ArrayDeque<>();
    private int created;
    private TimerTask evictor;

    public synchronized Object borrow() {
        Object o = idle.poll();
        if (o == null) {
            created++;
            o = new Object();
        }
        return o;
    }

    public synchronized void giveBack(Object o) {
        idle.push(o);
    }

    public synchronized void addObject() {
        created++;
        idle.push(new Object());
    }

    public synchronized int created() {
        return created;
    }

    public synchronized int idleCount() {
        return idle.size();
    }

    public synchronized void setEvictionPeriod(long millis) {
        if (evictor != null) {
            evictor.cancel();
        }
        evictor = new TimerTask() {
            @Override
            public void run() {
                ensureIdle();
            }
        };
        EVICTION.schedule(evictor, millis, millis);
    }

    private void ensureIdle() {
        if (idleCount() == 0) {
            addObject();
        }
    }
}
"#;

const POOL_TEST: &str = r#"package org.x.pool;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class PoolTest {
    @Test
    public void settersAndGetters() {
        Pool pool = new Pool();
        pool.setEvictionPeriod(60_000);
        pool.giveBack(pool.borrow());
        pool.addObject();
        assertEquals(2, pool.idleCount());
        assertEquals(2, pool.created());
    }

    @Test
    public void addWhileBorrowing() throws Exception {
        Pool pool = new Pool();
        Thread adder = new Thread(pool::addObject);
        adder.start();
        pool.borrow();
        adder.join();
        assertEquals(2, pool.created() + pool.idleCount());
    }
}
"#;

/// POOL-120's shape: every test of a pool with a background evictor reaches a thread start,
/// but only one starts threads itself; it ranks first although a single-threaded test that
/// configures the evictor reaches more impacted pairs.
#[test]
fn a_test_that_starts_its_own_threads_ranks_above_one_whose_threads_start_in_project_code() {
    let base = [("src/main/java/org/x/pool/Pool.java", POOL), ("src/test/java/org/x/pool/PoolTest.java", POOL_TEST)];
    let unsynchronized = POOL.replace("public synchronized void addObject()", "public void addObject()");
    let (selection, _) = selection_after(&base, &[("src/main/java/org/x/pool/Pool.java", &unsynchronized)]);
    assert_eq!(
        selected(&selection),
        ["org.x.pool.PoolTest#addWhileBorrowing", "org.x.pool.PoolTest#settersAndGetters"],
        "{selection:#?}"
    );
    let own = &selection.tests[0];
    let other = &selection.tests[1];
    assert!(other.pairs.len() > own.pairs.len(), "the evictor's test reaches more pairs: {selection:#?}");
    assert!(
        reason(&selection, &other.test).contains("after the tests that start threads themselves"),
        "{}",
        other.reason
    );
}

/// The same, with the threads started by a helper of a shared harness module, outside any
/// test folder (`harness/src/main/java`): it imports JUnit, so its threads are the test's own
/// wherever the build keeps it.
#[test]
fn threads_started_by_a_test_harness_outside_the_test_folders_are_the_tests_own() {
    const HARNESS: &str = r#"package org.x.harness;

import static org.junit.Assert.assertTrue;

public final class Concurrently {
    private Concurrently() {
    }

    public static void run(Runnable a, Runnable b) throws InterruptedException {
        Thread t = new Thread(a);
        t.start();
        b.run();
        t.join(10_000);
        assertTrue("the other thread ended", !t.isAlive());
    }
}
"#;
    let test = POOL_TEST.replace("import org.junit.Test;", "import org.junit.Test;\nimport org.x.harness.Concurrently;").replace(
        "        Thread adder = new Thread(pool::addObject);\n        adder.start();\n        pool.borrow();\n        adder.join();",
        "        Concurrently.run(pool::addObject, pool::borrow);",
    );
    assert!(test.contains("Concurrently.run"), "the test was rewritten");
    let base = [
        ("src/main/java/org/x/pool/Pool.java", POOL),
        ("harness/src/main/java/org/x/harness/Concurrently.java", HARNESS),
        ("src/test/java/org/x/pool/PoolTest.java", test.as_str()),
    ];
    let unsynchronized = POOL.replace("public synchronized void addObject()", "public void addObject()");
    let (selection, _) = selection_after(&base, &[("src/main/java/org/x/pool/Pool.java", &unsynchronized)]);
    assert_eq!(
        selected(&selection),
        ["org.x.pool.PoolTest#addWhileBorrowing", "org.x.pool.PoolTest#settersAndGetters"],
        "{selection:#?}"
    );
}
