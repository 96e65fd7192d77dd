//! What the tests of `racelens explore` and `racelens replay` on real JVMs share: the binary
//! run in a test repository with a compile cache of the test process, and the checks of a
//! failure that replays and of a pass with a complete claim. Each test file uses a part.
//! Every JSON output these helpers read is checked against its published schema.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

/// Compiled classes go to a cache of this test process, not the user's. A static is never
/// dropped, so the folder is made under cargo's temporary folder for tests (in `target/`),
/// which goes with the build, not in the system's temporary folder.
pub fn cache() -> &'static Path {
    static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
    CACHE.get_or_init(|| tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()).path()
}

/// `racelens <args>` in `dir`, with the test process's cache.
pub fn racelens_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_racelens"));
    command.args(args).current_dir(dir).env("XDG_CACHE_HOME", cache());
    command
}

/// Runs `racelens <args> --json` in `dir`; returns the exit code and the JSON.
pub fn racelens(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = racelens_command(dir, args).arg("--json").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|_| panic!("not JSON ({:?}):\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr)));
    assert_follows_schema(schema_of(args), &json);
    (out.status.code().unwrap_or(-1), json)
}

/// The published schema that `racelens <args> --json` follows.
pub fn schema_of(args: &[&str]) -> &'static str {
    match args.first().copied() {
        Some("explore") if args.contains(&"--affected") => "explore-affected",
        Some("explore") => "explore",
        Some("merge") => "explore-affected",
        Some("replay") => "replay",
        Some("record") => "record",
        Some("impact") => "impact",
        Some("check") => "check",
        Some("select") => "select",
        other => panic!("no schema for `racelens {other:?}`"),
    }
}

/// The violations of `server/cli/schemas/<name>.schema.json` in `json`, one line each.
pub fn schema_errors(name: &str, json: &Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas").join(format!("{name}.schema.json"));
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
            .unwrap();
    let validator =
        jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{} is not a valid schema: {e}", path.display()));
    validator.iter_errors(json).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

/// Panics, naming every violation, unless `json` follows the published schema `name`.
pub fn assert_follows_schema(name: &str, json: &Value) {
    let errors = schema_errors(name, json);
    assert!(errors.is_empty(), "the output does not follow {name}.schema.json:\n{}\n{json:#}", errors.join("\n"));
}

/// Runs `racelens explore --test <test>` expecting a usage or setup error; returns its message.
pub fn setup_error(dir: &Path, test: &str) -> String {
    let out = racelens_command(dir, &["explore", "--test", test]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{test}: {stderr}{}", String::from_utf8_lossy(&out.stdout));
    stderr
}

/// Explores `test`; it fails with `message` (exception class and message) in thread 0, and
/// the failing schedule replays to the same failure. Returns the exploration's JSON.
pub fn fails_and_replays(dir: &Path, test: &str, message: &str) -> Value {
    let (code, r) = racelens(dir, &["explore", "--test", test]);
    assert_eq!((code, r["outcome"].as_str()), (1, Some("fail")), "{r:#}");
    let failure = &r["failure"];
    assert_eq!((failure["kind"].as_str(), failure["thread"].as_u64()), (Some("fail"), Some(0)), "{r:#}");
    assert!(failure["message"].as_str().unwrap().starts_with(message), "{r:#}");
    let schedule = failure["schedule"].as_str().unwrap();
    let (code, replayed) = racelens(dir, &["replay", "--test", test, "--schedule", schedule]);
    assert_eq!((code, replayed["outcome"].as_str()), (1, Some("fail")), "{replayed:#}");
    assert!(replayed["message"].as_str().unwrap().starts_with(message), "the replay fails the same way: {replayed:#}");
    r
}

/// Explores `test` (with the extra `options`): every schedule passes, more than one ran, and
/// none was a livelock. Returns the exploration's JSON.
pub fn passes_every_schedule(dir: &Path, test: &str, options: &[&str]) -> Value {
    let (code, r) = racelens(dir, &[&["explore", "--test", test][..], options].concat());
    assert_eq!((code, r["outcome"].as_str()), (0, Some("pass")), "{test}: {r:#}");
    assert_eq!(r["stats"]["livelocks"], 0, "{test}: {r:#}");
    assert!(r["schedules"].as_u64().unwrap() > 1, "{test}: more than one schedule: {r:#}");
    r
}

/// The tests `tests/fixtures/<fixture>/fixture.toml` lists under `tests = [...]`.
pub fn listed_tests(fixture: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(fixture).join("fixture.toml");
    let toml = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let list = toml.split("tests = [").nth(1).and_then(|rest| rest.split(']').next()).expect("a tests list");
    list.lines()
        .map(|l| l.trim().trim_end_matches(',').trim_matches('"'))
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// Whether the result `r` claims every schedule, or every one with up to `bound` preemptions.
pub fn claims_complete(r: &Value, bound: u64) -> bool {
    let coverage = &r["coverage"];
    coverage["all_schedules"] == true || coverage["complete_bound"].as_u64().is_some_and(|b| b >= bound)
}

/// A line without the times it ends with (`(compile 0.9 s, explore 0.2 s)`), which differ
/// from run to run.
pub fn timeless_line(line: &str) -> &str {
    match line.rfind(" (") {
        Some(i) if line.ends_with(" s)") => &line[..i],
        _ => line,
    }
}
