//! `racelens record` and selection from its coverage history, end to end: the real binary,
//! a real git repository and a real JVM. Two tests reach both ends of the change's impacted
//! pairs and start threads, so static reachability selects both; only one of them runs the
//! two ends in different threads, and the history says so (SimRT Figure 4).

use racelens_test_support as support;
mod common;

use std::path::Path;

use common::*;
use serde_json::Value;
use support::*;

const COUNTER_PATH: &str = "src/main/java/org/c/Counter.java";

const COUNTER: &str = r#"package org.c;

public class Counter {
    private int count;

    public synchronized void add() {
        count++;
    }

    public synchronized int get() {
        return count;
    }
}
"#;

/// `twoThreads` adds in a thread of its own and reads in the test's thread; `oneThread` starts
/// a thread that touches nothing and both adds and reads in the test's thread.
const COUNTER_TEST: (&str, &str) = (
    "src/test/java/org/c/CounterTest.java",
    r#"package org.c;

import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class CounterTest {
    @Test
    public void twoThreads() throws Exception {
        Counter c = new Counter();
        Thread t = new Thread(() -> c.add());
        t.start();
        int seen = c.get();
        t.join();
        assertTrue(seen >= 0);
    }

    @Test
    public void oneThread() throws Exception {
        Counter c = new Counter();
        Thread t = new Thread(() -> { });
        t.start();
        c.add();
        int seen = c.get();
        t.join();
        assertTrue(seen == 1);
    }
}
"#,
);

const TWO: &str = "org.c.CounterTest#twoThreads";
const ONE: &str = "org.c.CounterTest#oneThread";

/// The change: `add()` without the counter's monitor.
fn unlocked() -> String {
    COUNTER.replace("public synchronized void add()", "public void add()")
}

/// `(test, selected, evidence, pairs)`.
type Row = (String, bool, String, Vec<String>);

/// The row of every test `select --json` lists, the summary, and the JSON.
fn selection(dir: &Path) -> (Vec<Row>, String, Value) {
    let (code, v) = racelens(dir, &["select"]);
    assert_eq!(code, 0, "{v:#}");
    let mut tests: Vec<Row> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let pairs = t["pairs"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect();
            (
                t["test"].as_str().unwrap().to_string(),
                t["selected"] == true,
                t["evidence"].as_str().unwrap().to_string(),
                pairs,
            )
        })
        .collect();
    tests.sort();
    (tests, v["evidence"].as_str().unwrap().to_string(), v)
}

fn reason<'a>(v: &'a Value, test: &str) -> &'a str {
    v["tests"].as_array().unwrap().iter().find(|t| t["test"] == test).unwrap()["reason"].as_str().unwrap()
}

fn row(test: &str, selected: bool, evidence: &str, pairs: &[&str]) -> Row {
    (test.to_string(), selected, evidence.to_string(), pairs.iter().map(|p| p.to_string()).collect())
}

const ALL_THREE: [&str; 3] = [
    "RW Counter.count: read Counter.java:7 <-> write Counter.java:7",
    "RW Counter.count: write Counter.java:7 <-> read Counter.java:11",
    "WW Counter.count: write Counter.java:7 <-> write Counter.java:7",
];

#[test]
fn coverage_selects_only_the_test_whose_threads_run_both_ends_and_falls_back_to_static_when_it_cannot_map() {
    let repo = repo_with(&[(COUNTER_PATH, COUNTER), COUNTER_TEST], &[]);
    let dir = repo.path();

    // Without a history: both tests start threads and reach add() and get().
    write(dir, COUNTER_PATH, &unlocked());
    let (tests, evidence, _) = selection(dir);
    assert_eq!(tests, [row(ONE, true, "static", &ALL_THREE), row(TWO, true, "static", &ALL_THREE)]);
    assert_eq!(evidence, "static reachability; no coverage history");

    // Record on the base revision (the change undone), then make the change again.
    write(dir, COUNTER_PATH, COUNTER);
    let (code, rec) = racelens(dir, &["record", "--all"]);
    assert_eq!(code, 0, "{rec:#}");
    let recorded: Vec<(String, u64, String)> = rec["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["test"].as_str().unwrap().to_string(),
                t["threads"].as_u64().unwrap(),
                t["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        recorded,
        [(ONE.to_string(), 2, "pass".to_string()), (TWO.to_string(), 2, "pass".to_string())],
        "{rec:#}"
    );
    let history = Path::new(rec["history"].as_str().unwrap());
    assert!(history.is_file() && !history.starts_with(dir), "the history is kept outside the work tree: {rec:#}");
    let revision = rec["revision"].as_str().unwrap()[..7].to_string();

    write(dir, COUNTER_PATH, &unlocked());
    let (tests, evidence, v) = selection(dir);
    // Only the read in get() (thread 0) and the write in add() (thread 1) ran in different
    // threads; add()'s own read and write ran in one thread.
    assert_eq!(tests, [row(ONE, false, "coverage", &[]), row(TWO, true, "coverage", &ALL_THREE[1..2])]);
    assert_eq!(evidence, format!("coverage of 2 tests recorded at {revision}, static for 0"));
    assert_eq!(
        reason(&v, TWO),
        format!("selected: its recorded run (at {revision}) executed both ends of 1 impacted pair in different threads; 1 new (not covered by a test ranked before it)")
    );
    assert!(
        reason(&v, ONE).starts_with(&format!(
            "not selected: its recorded run (at {revision}) executed both ends of 3 impacted pairs in one thread only"
        )),
        "{v:#}"
    );

    // The text says each test's evidence and what the selection rests on.
    let out = racelens_command(dir, &["select"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("#1 selected {TWO} — covers 1 impacted pair"))
            && text.contains(&format!("[coverage at {revision}]\n")),
        "{text}"
    );
    assert!(text.ends_with(&format!("racelens: 1 of 2 tests selected for this change (coverage of 2 tests recorded at {revision}, static for 0)\n")), "{text}");

    // Lines inserted above the recorded accesses: the record still maps, onto the new lines.
    let shifted = unlocked().replace(
        "    private int count;\n",
        "    private int count;\n\n    private int other;\n\n    public int other() {\n        return other;\n    }\n",
    );
    write(dir, COUNTER_PATH, &shifted);
    let (tests, _, _) = selection(dir);
    assert_eq!(
        tests,
        [
            row(ONE, false, "coverage", &[]),
            row(TWO, true, "coverage", &["RW Counter.count: write Counter.java:13 <-> read Counter.java:17"])
        ]
    );

    // The write moved into a new method the recorded run never entered: the threads that ran
    // its caller stand for it (SimRT section 3.3).
    let extracted = unlocked()
        .replace(
            "    public void add() {\n        count++;\n    }\n",
            "    public void add() {\n        bump();\n    }\n",
        )
        .replace(
            "        return count;\n    }\n",
            "        return count;\n    }\n\n    private void bump() {\n        count++;\n    }\n",
        );
    write(dir, COUNTER_PATH, &extracted);
    let (tests, _, v) = selection(dir);
    assert_eq!(
        tests,
        [
            row(ONE, false, "coverage", &[]),
            row(TWO, true, "coverage", &["RW Counter.count: write Counter.java:15 <-> read Counter.java:11"])
        ],
        "{v:#}"
    );

    // Rewritten in most of its lines: the record does not map, and static reachability decides.
    let rewritten = "package org.c;\n\npublic final class Counter {\n    private long count = 0L;\n\n    public void add() {\n        count = count + 1;\n    }\n\n    public int get() {\n        return (int) count;\n    }\n}\n";
    write(dir, COUNTER_PATH, rewritten);
    let (tests, evidence, v) = selection(dir);
    assert!(tests.iter().all(|(_, selected, evidence, _)| *selected && evidence == "static"), "{v:#}");
    assert_eq!(evidence, "static reachability; the coverage history of 2 tests was not usable");
    assert!(reason(&v, ONE).ends_with(&format!("its coverage (record at {revision}) was not used: Counter.java changed too much to map the recording (6 of its 10 code lines changed)")), "{v:#}");

    // A new base: the record was made on contents that are neither the base's nor the
    // working tree's, so it is stale for Counter.java.
    write(dir, COUNTER_PATH, &unlocked());
    git(dir, &["commit", "-q", "-am", "add() unlocked"]);
    write(dir, COUNTER_PATH, &unlocked().replace("public synchronized int get()", "public int get()"));
    let (tests, _, v) = selection(dir);
    assert!(tests.iter().all(|(_, selected, evidence, _)| *selected && evidence == "static"), "{v:#}");
    assert!(reason(&v, TWO).ends_with("was not used: the recording of Counter.java is stale (made on contents that are neither the base's nor the working tree's)"), "{v:#}");

    // An exploration records the schedule it runs first, on the working tree as it is.
    let (code, explored) = racelens(dir, &["explore", "--test", TWO, "--max-schedules", "3"]);
    assert!(code == 0 || code == 1, "{explored:#}");
    let (tests, evidence, v) = selection(dir);
    let two = tests.iter().find(|t| t.0 == TWO).unwrap();
    assert_eq!((two.1, two.2.as_str()), (true, "coverage"), "{v:#}");
    assert!(reason(&v, TWO).contains("executed both ends of"), "{v:#}");
    assert!(
        evidence.starts_with("coverage of 1 test recorded at ") && evidence.ends_with(", static for 1"),
        "{evidence}"
    );
}

#[test]
fn record_needs_tests_to_run() {
    let repo = repo_with(&[(COUNTER_PATH, COUNTER)], &[]);
    let out = racelens_command(repo.path(), &["record", "--all"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no test that starts threads"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = racelens_command(repo.path(), &["record"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "neither --all nor --test is a usage error");
    let help = racelens_command(repo.path(), &["record", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for words in ["default one", "outside the work tree", "coverage.json", "racelens select --help", "Exit status"] {
        assert!(help.contains(words), "{words}: {help}");
    }
}
