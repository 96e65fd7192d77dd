//! The published JSON Schemas of the `--json` outputs (`server/cli/schemas/*.schema.json`):
//! each is exactly what `racelens schema NAME` derives from the report's type, real outputs
//! follow them, and they reject reports that break the contract.
//!
//! After changing a report type, regenerate the files with
//! `UPDATE_SCHEMAS=1 cargo test -p racelens --test schemas`. The outputs of explorations
//! (which need a JVM) are checked where the explore tests run them: every JSON that
//! `common::racelens` reads is validated against its schema.

use racelens_test_support as support;
mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};
use support::subsystems::*;
use support::*;

/// One per `--json` output; `merge --json` prints `explore --affected`'s report.
const NAMES: [&str; 7] = ["check", "select", "explore", "explore-affected", "replay", "record", "impact"];

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

#[test]
fn committed_schemas_are_the_generated_ones() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for name in NAMES {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_racelens")).args(["schema", name]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let generated = String::from_utf8(out.stdout).unwrap();
        let path = schemas_dir().join(format!("{name}.schema.json"));
        if update {
            std::fs::create_dir_all(schemas_dir()).unwrap();
            std::fs::write(&path, &generated).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(generated.as_str()) {
            stale.push(path.display().to_string());
        }
        // Each is a schema the validator accepts, of a report object.
        let schema: Value = serde_json::from_str(&generated).unwrap();
        assert!(jsonschema::validator_for(&schema).is_ok(), "{name}");
        assert_eq!(
            (&schema["$schema"], &schema["type"]),
            (&json!("https://json-schema.org/draft/2020-12/schema"), &json!("object")),
            "{name}"
        );
    }
    assert!(stale.is_empty(), "these schemas differ from the report types (run `UPDATE_SCHEMAS=1 cargo test -p racelens --test schemas`):\n{}", stale.join("\n"));
    // No schema of a report that no longer exists.
    let mut files: Vec<String> = std::fs::read_dir(schemas_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = NAMES.iter().map(|n| format!("{n}.schema.json")).collect();
    expected.sort();
    assert_eq!(files, expected);
}

/// `racelens <args> --json` in `dir`, exit status 0, checked against its schema.
fn valid_output(dir: &Path, args: &[&str]) -> Value {
    let (code, json) = racelens(dir, args);
    assert_eq!(code, 0, "{args:?}: {json:#}");
    json
}

#[test]
fn check_and_select_outputs_follow_their_schemas() {
    let repo = fixture_repo("object-pool");
    let v = valid_output(repo.path(), &["check"]);
    // The parts that the schema describes are really there, not empty.
    assert!(["icps", "pairs", "diagnostics"].iter().all(|k| !v[k].as_array().unwrap().is_empty()), "{v:#}");
    assert!(v["diagnostics"].as_array().unwrap().iter().any(|d| !d["related"].as_array().unwrap().is_empty()), "{v:#}");
    // Keys come sorted, as they always did (the CLI prints reports through `Value`s).
    let raw = String::from_utf8(racelens_command(repo.path(), &["check", "--json"]).output().unwrap().stdout).unwrap();
    let top: Vec<&str> = raw.lines().filter_map(|l| l.strip_prefix("  \"")?.split('"').next()).collect();
    assert_eq!(top, ["base", "changed_files", "diagnostics", "files", "icps", "notes", "pairs", "root"], "{raw}");
    valid_output(repo.path(), &["check", "--all-pairs"]);
    // Outside git: no base revision.
    let plain = tempfile::tempdir().unwrap();
    copy_tree(&fixtures_dir().join("object-pool/base"), plain.path());
    let v = valid_output(plain.path(), &["check", "--no-git"]);
    assert_eq!(v["base"], Value::Null);

    let unlocked = pool_unlocked();
    let subsystems = repo_with(&subsystems(), &[(POOL_PATH, unlocked.as_str())]);
    let v = valid_output(subsystems.path(), &["select"]);
    assert!(v["selected"].as_u64().unwrap() > 0, "{v:#}");
}

#[test]
fn explore_affected_and_merge_outputs_without_work_follow_their_schema() {
    // Nothing selected: no JVM runs, but the reports (and a shard's data) are complete.
    let repo = repo_with(&subsystems(), &[]);
    let v = valid_output(repo.path(), &["explore", "--affected"]);
    assert_eq!(v, json!({"tests": [], "selected": 0, "budget": 10_000, "schedules": 0, "failed": 0}));
    let out = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let v = valid_output(repo.path(), &["explore", "--affected", "--shard", &shard]);
        assert_eq!((&v["shard"]["index"], &v["shard"]["options"]["search"]), (&json!(i), &json!("icb")), "{v:#}");
        let file = out.path().join(format!("shard-{i}.json"));
        std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
        files.push(file.display().to_string());
    }
    let args: Vec<&str> = ["merge"].into_iter().chain(files.iter().map(String::as_str)).collect();
    let merged = valid_output(repo.path(), &args);
    assert_eq!(merged, json!({"tests": [], "selected": 0, "budget": 10_000, "schedules": 0, "failed": 0}));
}

#[test]
fn the_schemas_reject_reports_that_break_the_contract() {
    let repo = fixture_repo("object-pool");
    let (_, check) = racelens(repo.path(), &["check"]);
    let broken = |path: &str, value: Option<Value>| {
        let mut v = check.clone();
        let (parent, key) = path.rsplit_once('/').unwrap();
        let parent = v.pointer_mut(parent).unwrap();
        match value {
            Some(value) => parent[key] = value,
            None => drop(parent.as_object_mut().unwrap().remove(key)),
        }
        schema_errors("check", &v)
    };
    assert!(!broken("/diagnostics/0/line", Some(json!("58"))).is_empty());
    assert!(!broken("/diagnostics/0/severity", Some(json!("fatal"))).is_empty());
    assert!(!broken("/pairs/0/a/locks", Some(json!("this"))).is_empty());
    assert!(!broken("/notes", None).is_empty());
    assert!(!broken("/icps/0/reason", None).is_empty());
    assert!(broken("/diagnostics/0/line", Some(json!(58))).is_empty(), "a line is a number");

    let affected = json!({"tests": [], "selected": 0, "budget": 10, "schedules": 0, "failed": 0});
    assert!(schema_errors("explore-affected", &affected).is_empty());
    let with = |key: &str, value: Value| {
        let mut v = affected.clone();
        v[key] = value;
        schema_errors("explore-affected", &v)
    };
    // A shard's data is all there or not there; a test's result is a whole report.
    assert!(!with("shard", json!({"index": 1, "count": 2})).is_empty());
    assert!(!with("shard", Value::Null).is_empty(), "`shard` is absent or whole");
    let entry =
        json!({"test": "A#a", "rank": 1, "pairs": [], "budget": 10, "result": {"outcome": "pass"}, "error": null});
    assert!(!with("tests", json!([entry])).is_empty());
    assert!(!with("failed", json!(-1)).is_empty());
    let no_result =
        json!({"test": "A#a", "rank": 1, "pairs": [], "budget": 10, "result": null, "error": "no such test"});
    assert!(with("tests", json!([no_result])).is_empty());

    let replay = json!({"test": "A#a", "outcome": "pass", "message": "passed", "file": null, "line": null, "divergence": null, "trace": []});
    assert!(schema_errors("replay", &replay).is_empty());
    let mut bad = replay.clone();
    bad["trace"] = json!([{"step": 1, "thread": 70000}]);
    assert!(!schema_errors("replay", &bad).is_empty(), "thread ids fit in 16 bits, and a step has every field");
    assert!(!schema_errors("explore", &replay).is_empty());
}
