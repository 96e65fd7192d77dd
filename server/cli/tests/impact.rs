//! `racelens impact`, end to end: the real binary, a real git repository and a real JVM.
//! The fixture `impact-bin`'s change holds each way ReConTest (§III, Figure 1) says an access becomes impacted:
//! a lock removed by a change elsewhere (its accesses are unchanged), a branch taken only
//! now (a new path), a `notifyAll` added before an unchanged access (happens-before), and a
//! critical section split in two (a lock released earlier) — next to unchanged accesses
//! with the same lockset and history, which must not be marked.

use racelens_test_support as support;
mod common;

use std::collections::BTreeSet;

use common::*;
use serde_json::Value;
use support::*;

const BIN_PATH: &str = "src/main/java/org/w/Bin.java";
const TEST: &str = "org.w.BinTest#pickerCloserAuditorReader";

/// The fixture `impact-bin` (its fixture.toml says what the change does) with its change.
fn changed_repo() -> tempfile::TempDir {
    fixture_repo("impact-bin")
}

/// The working tree's `Bin.java`.
fn changed() -> String {
    let base = std::fs::read_to_string(fixtures_dir().join("impact-bin/base").join(BIN_PATH)).unwrap();
    let dir = repo_with(&[(BIN_PATH, &base)], &[]);
    git(dir.path(), &["apply", fixtures_dir().join("impact-bin/change.patch").to_str().unwrap()]);
    std::fs::read_to_string(dir.path().join(BIN_PATH)).unwrap()
}

/// The base version's files.
fn base_files() -> Vec<(&'static str, String)> {
    ["src/main/java/org/w/Bin.java", "src/test/java/org/w/BinTest.java"]
        .into_iter()
        .map(|p| (p, std::fs::read_to_string(fixtures_dir().join("impact-bin/base").join(p)).unwrap()))
        .collect()
}

/// The 1-based line of the working tree's `Bin.java` that holds `text` (the last such line).
fn line_of(text: &str) -> u64 {
    changed()
        .lines()
        .collect::<Vec<_>>()
        .iter()
        .rposition(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no line with `{text}`")) as u64
        + 1
}

/// `(line, access, field, reason kinds)` of every impacted entry.
fn entries(r: &Value) -> BTreeSet<(u64, String, String, Vec<String>)> {
    r["impacted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            assert_eq!(a["file"], BIN_PATH, "{a:#}");
            let reasons =
                a["reasons"].as_array().unwrap().iter().map(|k| k["kind"].as_str().unwrap().to_string()).collect();
            let field = a["target"].as_str().unwrap().trim_start_matches("org.w.Bin.").to_string();
            (a["line"].as_u64().unwrap(), a["access"].as_str().unwrap().to_string(), field, reasons)
        })
        .collect()
}

fn entry(text: &str, access: &str, field: &str, reasons: &[&str]) -> (u64, String, String, Vec<String>) {
    (line_of(text), access.into(), field.into(), reasons.iter().map(|r| r.to_string()).collect())
}

#[test]
fn each_way_an_access_becomes_impacted_and_no_other_access() {
    let dir = changed_repo();
    let (code, r) = racelens(dir.path(), &["impact", "--test", TEST]);
    assert_eq!(code, 0, "{r:#}");
    let expected: BTreeSet<_> = [
        // restock's monitor is gone: addUnits is unchanged, its lockset is not.
        entry("units += n;", "read", "units", &["lockset_changed"]),
        entry("units += n;", "write", "units", &["lockset_changed"]),
        entry("if (units > LIMIT)", "read", "units", &["lockset_changed"]),
        // Unchanged statements the base never reached.
        entry("overflows++;", "read", "overflows", &["new_path"]),
        entry("overflows++;", "write", "overflows", &["new_path"]),
        // New lock and monitor operations: the notifyAll, and the second critical section.
        entry("notifyAll();", "notifyAll", "-", &["new_statement"]),
        entry("synchronized (auditLock) {", "lock", "-", &["new_statement"]),
        // After the new notifyAll, in the same thread.
        entry("closings++;", "read", "closings", &["happens_before_changed"]),
        entry("closings++;", "write", "closings", &["happens_before_changed"]),
        // The lock is released (and taken again) between the two accesses now.
        entry("audits++;", "read", "audits", &["lock_released_earlier"]),
    ]
    .into_iter()
    .collect();
    assert_eq!(entries(&r), expected, "{r:#}");
    // Not marked: `closed = true` (before the notify), `lastAudit = units` (same lock, same
    // history), the reader's and the test thread's reads, the write of `audits` right after
    // its read.
    let reason =
        &r["impacted"].as_array().unwrap().iter().find(|a| a["line"] == line_of("units += n;")).unwrap()["reasons"][0];
    assert_eq!(reason["old"], serde_json::json!(["Bin@BinTest.java:10"]), "{reason:#}");
    assert_eq!(reason["new"], serde_json::json!([]), "{reason:#}");
    assert_eq!(
        (r["base_run"]["outcome"].as_str(), r["working_tree_run"]["outcome"].as_str()),
        (Some("pass"), Some("pass"))
    );
    assert_eq!(r["counts"]["statements"], 7);
    assert_eq!(r["base"].as_str().map(str::len), Some(40));

    // The text names each reason, and the base build is kept in the cache per commit.
    let out = racelens_command(dir.path(), &["impact", "--test", TEST]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("10 impacted accesses at 7 statements"), "{text}");
    assert!(
        text.contains(&format!("Bin.java:{}  lock  (Bin.audit; ", line_of("synchronized (auditLock) {"))),
        "{text}"
    );
    assert!(text.contains("lock released earlier: since its previous access the thread released no lock before, Object@Bin.java:6 now"), "{text}");
    assert!(text.contains("happens-before changed: nothing before, Bin@BinTest.java:10.notifyAll now"), "{text}");
    let commit = r["base"].as_str().unwrap();
    let projects = cache().join("racelens").join("projects");
    let classes: Vec<_> = std::fs::read_dir(&projects)
        .unwrap()
        .flatten()
        .map(|p| p.path().join("base").join(commit).join("classes/org/w/Bin.class"))
        .filter(|c| c.is_file())
        .collect();
    assert_eq!(classes.len(), 1, "the base build is cached per commit under {}", projects.display());
    // A third run compiles nothing for the base: its classes are the ones of the first.
    let built = std::fs::metadata(&classes[0]).unwrap().modified().unwrap();
    let (code, _) = racelens(dir.path(), &["impact", "--test", TEST]);
    assert_eq!((code, std::fs::metadata(&classes[0]).unwrap().modified().unwrap()), (0, built));
}

#[test]
fn exploration_prioritizes_by_the_static_and_the_dynamic_impact_and_says_so() {
    let dir = changed_repo();
    let explore = |icps: &[&str]| {
        let mut args = vec!["explore", "--test", TEST, "--max-schedules", "50"];
        args.extend(icps);
        let (code, r) = racelens(dir.path(), &args);
        assert_eq!(code, 0, "{r:#}");
        r
    };
    let both = explore(&[]);
    assert_eq!(
        (both["impact"]["source"].as_str(), both["impact"]["dynamic_statements"].as_u64()),
        (Some("both"), Some(7)),
        "{both:#}"
    );
    let static_icps = both["impact"]["static_icps"].as_u64().unwrap();
    assert!(static_icps > 0 && both["icps"].as_u64().unwrap() > static_icps, "{both:#}");
    let dynamic = explore(&["--icps", "dynamic"]);
    assert_eq!(
        (dynamic["impact"]["source"].as_str(), dynamic["impact"]["static_icps"].as_u64()),
        (Some("dynamic"), Some(0)),
        "{dynamic:#}"
    );
    let only_static = explore(&["--icps", "static"]);
    assert_eq!(
        only_static["impact"],
        serde_json::json!({"source": "static", "static_icps": static_icps, "dynamic_statements": null, "note": null})
    );
    // The text says it too, after the result.
    let out = racelens_command(dir.path(), &["explore", "--test", TEST, "--max-schedules", "50"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("… no failure yet: budget reached after 50 runs") && text.contains(&format!("\nimpact: both ({static_icps} impacted code points of the analysis, 7 statements of the test's dynamic impact)\n")), "{text}");
    // The time of the dynamic impact is part of what the result says it took.
    assert!(text.lines().next().is_some_and(|l| l.contains(", impact ") || l.contains("(impact ")), "{text}");
}

#[test]
fn without_a_base_run_the_default_falls_back_to_the_analysis_and_says_why() {
    let files = base_files();
    let dir = repo_with(&[(files[0].0, &files[0].1)], &[(files[1].0, &files[1].1), (BIN_PATH, &changed())]);
    let (code, r) = racelens(dir.path(), &["explore", "--test", TEST, "--max-schedules", "20"]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["impact"]["source"], "static", "{r:#}");
    assert!(
        r["impact"]["note"]
            .as_str()
            .unwrap()
            .starts_with("dynamic impact not used: the test could not be recorded on the base revision"),
        "{r:#}"
    );
    // Asked for, the dynamic impact is used as it is: every access counts as new.
    let (_, r) = racelens(dir.path(), &["explore", "--test", TEST, "--max-schedules", "20", "--icps", "dynamic"]);
    assert_eq!(r["impact"]["source"], "dynamic", "{r:#}");
    assert!(r["impact"]["note"].as_str().unwrap().ends_with("every access of the test counts as new"), "{r:#}");
}

#[test]
fn an_unchanged_tree_impacts_nothing() {
    let dir = repo_from(&fixtures_dir().join("impact-bin"), false);
    let (code, r) = racelens(dir.path(), &["impact", "--test", TEST]);
    assert_eq!((code, r["counts"]["impacted_accesses"].as_u64()), (0, Some(0)), "{r:#}");
    assert!(r["base_run"]["accesses"].as_u64().unwrap() > 10, "{r:#}");
    assert_eq!(r["base_run"]["accesses"], r["working_tree_run"]["accesses"]);
}

#[test]
fn a_test_the_base_revision_lacks_makes_every_access_new() {
    let files = base_files();
    let dir = repo_with(&[(files[0].0, &files[0].1)], &[(files[1].0, &files[1].1)]);
    let (code, r) = racelens(dir.path(), &["impact", "--test", TEST]);
    assert_eq!(code, 0, "{r:#}");
    assert!(r["base_run"].is_null(), "{r:#}");
    let why = r["base_unavailable"].as_str().unwrap();
    assert!(why.contains("could not be recorded on the base revision"), "{why}");
    assert_eq!(r["counts"]["impacted_accesses"], r["working_tree_run"]["accesses"], "{r:#}");
}

#[test]
fn a_base_that_does_not_compile_is_said_and_loses_nothing() {
    let files = base_files();
    let broken = files[0].1.replace("private int audits;", "private int audits");
    let dir = repo_with(&[(BIN_PATH, &broken), (files[1].0, &files[1].1)], &[(BIN_PATH, &files[0].1)]);
    let (code, r) = racelens(dir.path(), &["impact", "--test", TEST]);
    assert_eq!(code, 0, "{r:#}");
    let why = r["base_unavailable"].as_str().unwrap();
    assert!(why.contains("does not compile"), "{why}");
    assert!(r["counts"]["impacted_accesses"].as_u64().unwrap() > 0);
}
