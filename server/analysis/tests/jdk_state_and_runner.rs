//! Two facts of the JDK and of JUnit that decide whether accesses race:
//! - a `SimpleDateFormat` (like a `Calendar`, a `MessageDigest`, a `Matcher`) changes its own
//!   state in its work methods: `format()` and `parse()` on one shared formatter from two
//!   threads race (FindBugs' STCAL), so a change that shares one (mina's `DateUtil` before
//!   9e8b47739 kept it per thread) is RL001; a formatter per thread or under a lock is quiet;
//! - JUnit calls a test class's lifecycle and test methods one after another on one thread,
//!   so a field written in `@Before` and read in `@Test` is no race; a field a thread started
//!   by the test writes still is.

use racelens_test_support as support;

use support::warnings_after;

const STAMPS_BASE: &str = r#"package org.x.http;

import java.text.DateFormat;
import java.text.ParseException;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;
import java.util.TimeZone;

/** Dates in HTTP headers, for every connection's thread. */
public final class Stamps {
    private static final ThreadLocal<DateFormat> RFC_1123 = ThreadLocal.withInitial(() -> {
        DateFormat format = new SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss zzz", Locale.US);
        format.setTimeZone(TimeZone.getTimeZone("GMT"));
        return format;
    });

    private Stamps() {}

    public static String now() {
        return RFC_1123.get().format(new Date());
    }

    public static long parse(String header) throws ParseException {
        return RFC_1123.get().parse(header).getTime();
    }
}
"#;

const STAMPS_SHARED: &str = r#"package org.x.http;

import java.text.DateFormat;
import java.text.ParseException;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;
import java.util.TimeZone;

/** Dates in HTTP headers, for every connection's thread. */
public final class Stamps {
    private static final DateFormat RFC_1123 = new SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss zzz", Locale.US);

    static {
        RFC_1123.setTimeZone(TimeZone.getTimeZone("GMT"));
    }

    private Stamps() {}

    public static String now() {
        return RFC_1123.format(new Date());
    }

    public static long parse(String header) throws ParseException {
        return RFC_1123.parse(header).getTime();
    }
}
"#;

const PATH: &str = "src/main/java/org/x/http/Stamps.java";

#[test]
fn one_date_format_shared_by_threads_is_a_data_race() {
    let w: Vec<String> =
        warnings_after(PATH, STAMPS_BASE, STAMPS_SHARED).into_iter().filter(|w| w.contains("RL001")).collect();
    assert!(
        w.iter().any(|w| w.starts_with("Stamps.java:21 RL001 `RFC_1123` is modified by `format()` in `Stamps.now()`")),
        "{w:#?}"
    );
    assert!(w.iter().any(|w| w.contains("is modified by `parse()` in `Stamps.parse()`")), "{w:#?}");
    // Shared but used under one lock: quiet.
    let locked = STAMPS_SHARED
        .replace("    public static String now() {", "    public static synchronized String now() {")
        .replace("    public static long parse(", "    public static synchronized long parse(");
    let w: Vec<String> =
        warnings_after(PATH, STAMPS_BASE, &locked).into_iter().filter(|w| w.contains("RL001")).collect();
    assert_eq!(w, Vec::<String>::new());
}

#[test]
fn a_formatters_queries_are_reads() {
    // `toPattern()` only looks: two threads asking for the pattern do not race.
    let shared = STAMPS_SHARED.replace(
        "    public static long parse(String header) throws ParseException {\n        return RFC_1123.parse(header).getTime();\n    }\n",
        "    public static String pattern() {\n        return ((SimpleDateFormat) RFC_1123).toPattern();\n    }\n\n    public static String zone() {\n        return RFC_1123.getTimeZone().getID();\n    }\n",
    ).replace("        return RFC_1123.format(new Date());", "        return RFC_1123.getCalendar().toString();");
    let w: Vec<String> =
        warnings_after(PATH, STAMPS_BASE, &shared).into_iter().filter(|w| w.contains("RL001")).collect();
    assert_eq!(w, Vec::<String>::new());
}

const QUEUE_TEST_BASE: &str = r#"package org.x.work;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WorkQueueTest {
    private List<String> done;
    private int workers;

    @BeforeEach
    void setUp() {
        done = new ArrayList<>();
        workers = 2;
    }

    @Test
    void everyItemIsDoneOnce() throws Exception {
        Thread[] threads = new Thread[workers];
        for (int i = 0; i < workers; i++) {
            int id = i;
            threads[i] = new Thread(() -> record("item-" + id));
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(workers, size());
    }

    private synchronized void record(String item) {
        done.add(item);
    }

    private synchronized int size() {
        return done.size();
    }
}
"#;

const TEST_PATH: &str = "src/test/java/org/x/work/WorkQueueTest.java";

#[test]
fn fields_the_runner_writes_before_a_test_and_reads_in_it_do_not_race() {
    // The change reads `workers` again in the test and sets it in `@BeforeEach`: both on
    // JUnit's thread, one after the other.
    let changed = QUEUE_TEST_BASE
        .replace(
            "        workers = 2;\n",
            "        workers = Runtime.getRuntime().availableProcessors() > 1 ? 2 : 1;\n",
        )
        .replace(
            "        assertEquals(workers, size());",
            "        assertEquals(workers, size(), \"one per worker\");",
        );
    let w: Vec<String> =
        warnings_after(TEST_PATH, QUEUE_TEST_BASE, &changed).into_iter().filter(|w| w.contains("RL001")).collect();
    assert_eq!(w, Vec::<String>::new());
}

#[test]
fn a_field_a_started_thread_writes_still_races_with_the_test() {
    // The workers now count themselves in `workers`, unlocked, while the test reads it.
    let changed = QUEUE_TEST_BASE.replace(
        "            threads[i] = new Thread(() -> record(\"item-\" + id));",
        "            threads[i] = new Thread(() -> {\n                record(\"item-\" + id);\n                workers--;\n            });",
    );
    let w: Vec<String> =
        warnings_after(TEST_PATH, QUEUE_TEST_BASE, &changed).into_iter().filter(|w| w.contains("RL001")).collect();
    assert!(w.iter().any(|w| w.contains("`workers`")), "{w:#?}");
}
