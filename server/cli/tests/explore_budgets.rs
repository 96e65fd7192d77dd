//! Issue 22, item 4: any number of threads, and every way an exploration can be cut short
//! ends with its report and claim. A test with a hundred threads is explored (the agent's
//! thread masks are wider than 64 bits); `--max-seconds` ends an exploration as a budget
//! does; SIGTERM ends it the same way, with the JSON report printed.

use racelens_test_support as support;
mod common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use common::*;
use serde_json::Value;
use support::*;

const TEST: &str = "org.many.TallyTest#aHundredThreadsEachAddOne";

/// A hundred threads each add one to a shared tally through an `AtomicInteger`: correct in
/// every schedule, and far more schedules than any budget here.
const TALLY_TEST: &str = r#"package org.many;

import static org.junit.Assert.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

public class TallyTest {
    @Test
    public void aHundredThreadsEachAddOne() throws Exception {
        AtomicInteger tally = new AtomicInteger();
        Thread[] adders = new Thread[100];
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new Thread(tally::incrementAndGet);
            adders[i].start();
        }
        for (Thread adder : adders) {
            adder.join();
        }
        assertEquals(100, tally.get());
    }
}
"#;

fn tally_repo() -> tempfile::TempDir {
    repo_with(&[("src/test/java/org/many/TallyTest.java", TALLY_TEST)], &[])
}

#[test]
fn a_test_with_a_hundred_threads_is_explored() {
    let repo = tally_repo();
    let (code, r) = racelens(repo.path(), &["explore", "--test", TEST, "--max-schedules", "3"]);
    assert_eq!((code, r["outcome"].as_str()), (0, Some("limit")), "{r:#}");
    assert_eq!(
        (r["coverage"]["runs"].as_u64(), &r["coverage"]["budget"]),
        (Some(3), &Value::from("schedules")),
        "{r:#}"
    );
}

#[test]
fn max_seconds_ends_the_exploration_as_a_budget_with_its_claim() {
    let repo = tally_repo();
    let (code, r) =
        racelens(repo.path(), &["explore", "--test", TEST, "--max-seconds", "3", "--max-schedules", "1000000"]);
    assert_eq!((code, r["outcome"].as_str()), (0, Some("limit")), "{r:#}");
    assert_eq!(r["coverage"]["budget"], serde_json::json!({"seconds": 3}), "{r:#}");
    assert!(r["coverage"]["runs"].as_u64().unwrap() >= 1, "{r:#}");
    let out =
        racelens_command(repo.path(), &["explore", "--test", TEST, "--max-seconds", "2", "--max-schedules", "1000000"])
            .output()
            .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("… no failure yet: time budget (2 s) reached after ")
            && text.contains("raise --max-seconds to go on"),
        "{text}"
    );
}

#[test]
fn sigterm_ends_the_exploration_with_its_report() {
    let repo = tally_repo();
    let mut child = racelens_command(repo.path(), &["explore", "--test", TEST, "--max-schedules", "1000000", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first progress line: the JVM runs schedules.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 && !line.contains("exploring") {
        line.clear();
    }
    assert!(line.contains("exploring"), "no progress before the end of stderr");
    // SAFETY: sends a signal to the child this test started and still owns.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let out = child.wait_with_output().unwrap();
    let r: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&out.stdout)));
    assert_follows_schema(schema_of(&["explore"]), &r);
    assert_eq!(
        (out.status.code(), r["outcome"].as_str(), &r["coverage"]["budget"]),
        (Some(0), Some("limit"), &Value::from("interrupted")),
        "{r:#}"
    );
}
