//! `racelens select` end to end: the real binary on a real git repository of independent
//! subsystems (`support::subsystems`), a change in one of them.

use racelens_test_support as support;

mod common;

use std::path::Path;
use std::process::Output;

use common::racelens_command;
use serde_json::{json, Value};
use support::subsystems::*;
use support::*;

fn repo(changed: bool) -> tempfile::TempDir {
    let unlocked = pool_unlocked();
    let change = [(POOL_PATH, unlocked.as_str())];
    repo_with(&subsystems(), if changed { &change[..] } else { &[] })
}

fn select(dir: &Path, args: &[&str]) -> Output {
    racelens_command(dir, &[&["select"], args].concat()).output().expect("racelens runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn json_lists_every_test_best_first_with_the_pairs_it_covers() {
    let repo = repo(true);
    let out = select(repo.path(), &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    // Keys in the documented order: the list first, and each test's name first.
    let raw = text(&out.stdout);
    let at = |key: &str| raw.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("no {key}: {raw}"));
    let keys = ["tests", "test", "selected", "rank", "pairs", "reason", "evidence"];
    assert!(keys.windows(2).all(|w| at(w[0]) < at(w[1])), "{raw}");
    assert!(at("evidence") < raw.rfind("\"total\":").unwrap(), "{raw}");

    assert_eq!(
        (&v["selected"], &v["total"], &v["evidence"]),
        (&json!(4), &json!(10), &json!("static reachability; no coverage history"))
    );
    let tests = v["tests"].as_array().unwrap();
    for t in tests {
        assert_eq!(t.as_object().unwrap().len(), 6, "{t}");
        assert_eq!(t["evidence"], "static");
        assert_eq!(t["pairs"].as_array().unwrap().is_empty(), t["selected"] == false, "{t}");
    }
    let order: Vec<String> =
        tests.iter().map(|t| format!("#{} {} {}", t["rank"], t["selected"], t["test"].as_str().unwrap())).collect();
    assert_eq!(
        order,
        [
            "#1 true org.x.pool.PoolTest#borrowersAndReturners",
            "#2 true org.x.EndToEndTest#borrowAndCount",
            "#3 true org.x.pool.PoolTest#threeReturners",
            "#4 true org.x.pool.PoolTest#twoReturners",
            "#5 false org.x.pool.PoolTest#idleWatcher",
            "#6 false org.x.registry.RegistryTest#testConcurrentRegistrations",
            "#7 false org.x.metrics.CounterTest#concurrentIncrements",
            "#8 false org.x.pool.PoolTest#borrowThenGiveBackAlone",
            "#9 false org.x.text.SlugsTest#keepsDigits",
            "#10 false org.x.text.SlugsTest#lowercases",
        ]
    );
    assert_eq!(tests[0]["pairs"].as_array().unwrap().len(), 14);
    assert_eq!(tests[0]["pairs"][0], "RW Pool.numActive: read Pool.java:28 <-> write Pool.java:24");
    assert_eq!(tests[0]["pairs"][13], "WN Pool.this: notify Pool.java:30 <-> wait Pool.java:15");
    assert_eq!(tests[3]["reason"], "selected: starts threads and reaches both ends of 4 impacted pairs; none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 4 not covered since");
    // A single-threaded test ranks below every multithreaded one with evidence (issue 21, item 4).
    assert_eq!(tests[7]["reason"], "not selected: starts no thread (it reaches both ends of 14 impacted pairs); touches 2 impacted shared variables (Pool.numActive, Pool.numIdle)");
}

#[test]
fn text_is_one_line_per_test_and_a_summary() {
    let repo = repo(true);
    let out = select(repo.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "\
#1 selected org.x.pool.PoolTest#borrowersAndReturners — covers 14 impacted pairs (RW Pool.numActive: read Pool.java:28 <-> write Pool.java:24, RW Pool.numActive: read Pool.java:28 <-> write Pool.java:28, and 12 more); 14 new (not covered by a test ranked before it) [static]
#2 selected org.x.EndToEndTest#borrowAndCount — covers 13 impacted pairs (RW Pool.numActive: read Pool.java:28 <-> write Pool.java:24, RW Pool.numActive: read Pool.java:28 <-> write Pool.java:28, and 11 more); none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 13 not covered since [static]
#3 selected org.x.pool.PoolTest#threeReturners — covers 4 impacted pairs (RW Pool.numActive: read Pool.java:28 <-> write Pool.java:28, RW Pool.numIdle: read Pool.java:29 <-> write Pool.java:29, and 2 more); none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 4 not covered since; tied with org.x.pool.PoolTest#twoReturners (both reach 4 methods), first by name [static]
#4 selected org.x.pool.PoolTest#twoReturners — covers 4 impacted pairs (RW Pool.numActive: read Pool.java:28 <-> write Pool.java:28, RW Pool.numIdle: read Pool.java:29 <-> write Pool.java:29, and 2 more); none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 4 not covered since [static]
#5 org.x.pool.PoolTest#idleWatcher — not selected: reaches both ends of no impacted pair; touches 1 impacted shared variable (Pool.numIdle) [static]
#6 org.x.registry.RegistryTest#testConcurrentRegistrations — not selected: reaches both ends of no impacted pair; touches no impacted shared variable and 2 other shared variables (Registry.names[], Registry.registrations) [static]
#7 org.x.metrics.CounterTest#concurrentIncrements — not selected: reaches both ends of no impacted pair; touches no impacted shared variable and 1 other shared variable (Counter.count) [static]
#8 org.x.pool.PoolTest#borrowThenGiveBackAlone — not selected: starts no thread (it reaches both ends of 14 impacted pairs); touches 2 impacted shared variables (Pool.numActive, Pool.numIdle) [static]
#9 org.x.text.SlugsTest#keepsDigits — not selected: starts no thread; touches no shared variable [static]
#10 org.x.text.SlugsTest#lowercases — not selected: starts no thread; touches no shared variable [static]
racelens: 4 of 10 tests selected for this change (static reachability; no coverage history)
"
    );
}

#[test]
fn an_unchanged_tree_selects_nothing() {
    let repo = repo(false);
    let out = select(repo.path(), &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((&v["selected"], &v["total"]), (&json!(0), &json!(10)));
    assert!(v["tests"].as_array().unwrap().iter().all(|t| t["selected"] == false && t["pairs"] == json!([])), "{v:#}");
}

#[test]
fn help_explains_selection_and_ranking_and_errors_exit_2() {
    let outside = tempfile::tempdir().unwrap();
    let help = text(&select(outside.path(), &["--help"]).stdout);
    for words in [
        "Selection (SimRT",
        "static reachability",
        "Ranking (SimRT section 3.6)",
        "coverage is reset",
        "fewer methods",
        "Evidence `coverage`",
        "changed\n  too much to map",
        "Exit status",
    ] {
        assert!(help.contains(words), "{words}: {help}");
    }
    let out = select(outside.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not inside a git work tree"), "{}", text(&out.stderr));
    let repo = repo(true);
    assert_eq!(select(repo.path(), &["--base", "no-such-rev"]).status.code(), Some(2));
    assert_eq!(select(repo.path(), &["--no-such-flag"]).status.code(), Some(2));
}

/// Never "no test" silently (issue 21, item 2): a hash cached step by step in a field of a
/// class no object of which is seen reaching another thread, run in two threads by a test.
/// `select` names the state and how the test reaches it, in the text and the JSON, and
/// `explore --affected` says there is no evidence either way; neither runs a JVM.
#[test]
fn undecided_sharing_is_named_not_passed_over() {
    let repo = fixture_repo("undecided-hash");
    let state = "`Key.hash` in `Key.hash` is not known to be shared: no `Key` object is seen reaching another thread; reached only through `Hasher.of`";
    let out = select(repo.path(), &[]);
    let shown = text(&out.stdout);
    assert!(shown.contains(&format!("racelens: {state}\nracelens: 0 of 2 tests selected")), "{shown}");
    assert!(shown.contains("racelens: no evidence either way:"), "{shown}");
    assert!(shown.contains("#1 org.x.cache.KeyTest#hashedByTwoThreads — not selected: the change impacts no shared-variable pair, but it runs `Key.hash`, where `Key.hash` is not known to be shared;"), "{shown}");
    let json: Value = serde_json::from_slice(&select(repo.path(), &["--json"]).stdout).unwrap();
    assert_eq!((&json["selected"], &json["undecided"]), (&json!(0), &json!([state])));
    let affected = racelens_command(repo.path(), &["explore", "--affected"]).output().unwrap();
    assert_eq!(affected.status.code(), Some(0), "{}", text(&affected.stderr));
    assert!(
        text(&affected.stdout).contains(&format!("racelens: no evidence either way: {state}")),
        "{}",
        text(&affected.stdout)
    );
}
