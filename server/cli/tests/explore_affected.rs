//! `racelens explore --affected` on a real JVM and a real git repository: the fixture
//! `explore-models` with its change applied, where `racelens select` selects five tests (four
//! of them fail under exploration, one passes every schedule). The tests it selects are
//! explored in `select`'s order, each result is `explore --test`'s own, and the schedules run
//! stay within the one budget, split over the tests up front.

use racelens_test_support as support;
mod common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};
use support::*;

const FIXTURE: &str = "explore-models";

/// `(test, rank)` of the tests `racelens select --json` selects, best first.
fn selected_by_select(dir: &Path) -> Vec<(String, u64)> {
    let (code, v) = racelens(dir, &["select"]);
    assert_eq!(code, 0, "{v:#}");
    let tests = v["tests"].as_array().unwrap().iter().filter(|t| t["selected"] == true);
    tests.map(|t| (t["test"].as_str().unwrap().to_string(), t["rank"].as_u64().unwrap())).collect()
}

fn explored(v: &Value) -> Vec<(String, u64)> {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["test"].as_str().unwrap().to_string(), t["rank"].as_u64().unwrap()))
        .collect()
}

/// Each test's `(outcome, schedules)`.
fn outcomes(v: &Value) -> Vec<(String, u64)> {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["result"]["outcome"].as_str().unwrap().to_string(), t["result"]["schedules"].as_u64().unwrap()))
        .collect()
}

/// The schedules of every test add up to the total, within the budget.
fn assert_within_budget(v: &Value) {
    let sum: u64 = v["tests"].as_array().unwrap().iter().map(|t| t["result"]["schedules"].as_u64().unwrap()).sum();
    assert_eq!(v["schedules"], sum, "{v:#}");
    assert!(sum <= v["budget"].as_u64().unwrap(), "{v:#}");
}

/// A result without what differs from run to run: the time it took (and what preparing took),
/// and what plain runs of a failing test did (the JVM's own interleavings).
fn timeless(result: &Value) -> Value {
    let mut r = result.clone();
    let stats = r["stats"].as_object_mut().unwrap();
    stats.remove("elapsed_ms");
    stats.remove("schedules_per_sec");
    r["setup"]["compile_ms"] = Value::Null;
    r["setup"]["impact_ms"] = Value::Null;
    if let Some(checks) = r["checks"].as_object_mut() {
        checks.remove("plain_runs");
    }
    r
}

#[test]
fn the_selected_tests_are_explored_in_select_order_and_a_failure_does_not_hide_the_next() {
    let repo = fixture_repo(FIXTURE);
    let order = selected_by_select(repo.path());
    assert_eq!(
        order,
        [
            ("org.example.sync.PositionTest#snapshotsAreNeverTorn".to_string(), 1),
            ("org.example.sync.PositionTest#onlyOneCallerClaimsTheOrigin".to_string(), 2),
            ("org.example.sync.CourierTest#everyParcelIsDeliveredOnce".to_string(), 3),
            ("org.example.sync.LogShipperTest#everyLineIsShippedOnceInOrder".to_string(), 4),
            ("org.example.sync.CourierTest#anInterruptedCourierStopsWaiting".to_string(), 5),
        ]
    );
    let (code, v) = racelens(repo.path(), &["explore", "--affected"]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(explored(&v), order, "{v:#}");
    assert_eq!((&v["selected"], &v["budget"], &v["failed"]), (&json!(5), &json!(10_000), &json!(4)), "{v:#}");
    let kinds: Vec<String> = outcomes(&v).into_iter().map(|(outcome, _)| outcome).collect();
    assert_eq!(kinds, ["fail", "pass", "fail", "fail", "fail"], "{v:#}");
    assert_within_budget(&v);
    for t in v["tests"].as_array().unwrap() {
        assert_eq!((&t["result"]["test"], &t["error"]), (&t["test"], &Value::Null), "{t:#}");
        assert!(!t["pairs"].as_array().unwrap().is_empty(), "{t:#}");
    }
    // Each result is the object `explore --test --json` prints for the test.
    let passing = &v["tests"][1];
    let (code, alone) = racelens(repo.path(), &["explore", "--test", passing["test"].as_str().unwrap()]);
    assert_eq!(code, 0, "{alone:#}");
    assert_eq!(timeless(&passing["result"]), timeless(&alone));
    assert!(claims_complete(&alone, 3), "{alone:#}");

    // `--fail-fast` stops at the first failure.
    let (code, v) = racelens(repo.path(), &["explore", "--affected", "--fail-fast"]);
    assert_eq!((code, explored(&v), &v["failed"]), (1, order[..1].to_vec(), &json!(1)), "{v:#}");
    assert_within_budget(&v);

    // Each exploration recorded the coverage of one full run, and selection now rests on it
    // for the two Position tests and the courier's delivery test. The recorded runs of
    // LogShipperTest and of the interrupted courier failed: a failing run is no reason to leave
    // a test out, so static reach decides them, and they stay selected. (From coverage alone
    // LogShipperTest would be dropped: its impacted pairs are all in `log()`, which only the
    // application thread runs; the failure comes from the writer clearing the same list
    // through the `Exchanger`, an alias the pairs do not name.)
    let (code, v) = racelens(repo.path(), &["select"]);
    assert_eq!(code, 0, "{v:#}");
    assert!(v["evidence"].as_str().unwrap().starts_with("coverage of 3 tests recorded at "), "{v:#}");
    let now: Vec<(&str, &str)> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["selected"] == true)
        .map(|t| (t["test"].as_str().unwrap(), t["evidence"].as_str().unwrap()))
        .collect();
    assert_eq!(
        now,
        [
            (order[0].0.as_str(), "coverage"),
            (order[1].0.as_str(), "coverage"),
            (order[4].0.as_str(), "static"),
            (order[3].0.as_str(), "static"),
            (order[2].0.as_str(), "coverage")
        ],
        "{v:#}"
    );
    for failed_run in [2, 3] {
        assert!(
            v["tests"][failed_run]["reason"].as_str().unwrap().ends_with("ended with `fail`: static reach decides"),
            "{v:#}"
        );
    }
}

#[test]
fn the_budget_is_split_up_front_and_what_a_test_leaves_is_not_passed_on() {
    let repo = fixture_repo(FIXTURE);
    // 12 schedules for 5 tests: 3, 3, 2, 2 and 2, whatever each test uses. The first three
    // end at their budget; LogShipperTest fails on its first schedule, and the one it leaves
    // does not go to the last (a test's budget never depends on how the others ended: see
    // explore_shard.rs).
    let (code, v) = racelens(repo.path(), &["explore", "--affected", "--max-schedules", "12"]);
    assert_eq!(code, 1, "{v:#}");
    let expected =
        [("limit", 3), ("limit", 3), ("limit", 2), ("fail", 1), ("fail", 1)].map(|(o, s)| (o.to_string(), s));
    assert_eq!(outcomes(&v), expected, "{v:#}");
    let budgets: Vec<&Value> = v["tests"].as_array().unwrap().iter().map(|t| &t["budget"]).collect();
    assert_eq!(budgets, [&json!(3), &json!(3), &json!(2), &json!(2), &json!(2)], "{v:#}");
    assert_eq!((&v["schedules"], &v["failed"]), (&json!(10), &json!(2)), "{v:#}");
    assert_within_budget(&v);
    // A test stopped by the budget claims no more than `explore --test` does.
    assert_eq!(v["tests"][0]["result"]["coverage"]["budget_exhausted"], true, "{v:#}");

    // A fresh copy: the run above recorded the coverage of the tests it explored, from which
    // `select` would now select (tests/record.rs).
    let repo = fixture_repo(FIXTURE);
    let out = racelens_command(repo.path(), &["explore", "--affected", "--max-schedules", "12"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('#') || l.starts_with("racelens:") || l.starts_with('…'))
        .map(common::timeless_line)
        .collect();
    assert_eq!(
        lines,
        [
            "#1 org.example.sync.PositionTest#snapshotsAreNeverTorn — covers 11 impacted pairs; up to 3 schedules",
            "… no failure yet: budget reached after 3 runs (0 classes); no bound complete; raise --max-schedules to go on",
            "#2 org.example.sync.PositionTest#onlyOneCallerClaimsTheOrigin — covers 8 impacted pairs; up to 3 schedules",
            "… no failure yet: budget reached after 3 runs (0 classes); no bound complete; raise --max-schedules to go on",
            "#3 org.example.sync.CourierTest#everyParcelIsDeliveredOnce — covers 5 impacted pairs; up to 2 schedules",
            "… no failure yet: budget reached after 2 runs (0 classes); no bound complete; raise --max-schedules to go on",
            "#4 org.example.sync.LogShipperTest#everyLineIsShippedOnceInOrder — covers 3 impacted pairs; up to 2 schedules",
            "#5 org.example.sync.CourierTest#anInterruptedCourierStopsWaiting — covers 3 impacted pairs; up to 2 schedules",
            "racelens: 5 selected tests explored: 2 failed, 0 cleared, 3 budget ends with no bound complete, 10 of 12 schedules",
        ],
        "{text}"
    );
    assert!(text.contains("replay: racelens replay . --test org.example.sync.LogShipperTest#everyLineIsShippedOnceInOrder --schedule "), "{text}");
}

#[test]
fn an_unchanged_tree_selects_nothing_and_passes() {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    let (code, v) = racelens(repo.path(), &["explore", "--affected"]);
    assert_eq!((code, v), (0, json!({"tests": [], "selected": 0, "budget": 10_000, "schedules": 0, "failed": 0})));
    let out = racelens_command(repo.path(), &["explore", "--affected"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "racelens: the change selects no test (static reachability; no coverage history)\n"
    );
}

#[test]
fn affected_with_a_test_is_a_usage_error() {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    for args in [
        &["explore", "--affected", "--test", "PositionTest#snapshotsAreNeverTorn"][..],
        &["explore", "--fail-fast", "--test", "PositionTest#snapshotsAreNeverTorn"],
        &["explore"],
    ] {
        let out = racelens_command(repo.path(), args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(2), true), "{args:?}: {stderr}");
    }
    let help = racelens_command(repo.path(), &["explore", "--help"]).output().unwrap();
    // The words, whatever the terminal's width wraps.
    let help = String::from_utf8_lossy(&help.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("each test gets an equal share, fixed up front") && help.contains("is not passed on"),
        "{help}"
    );
}
