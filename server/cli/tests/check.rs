//! `racelens check` end to end: the real binary on real git repositories.

use racelens_test_support as support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::*;

fn racelens(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_racelens")).args(args).current_dir(dir).output().expect("racelens runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn git_status(dir: &Path) -> String {
    let o = Command::new("git").args(["status", "--porcelain", "--ignored"]).current_dir(dir).output().unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn text_report_is_compiler_style_and_leaves_git_status_alone() {
    let repo = fixture_repo("object-pool");
    let before = git_status(repo.path());
    let out = racelens(repo.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    println!("{text}");
    assert!(
        text.lines().any(|l| l.starts_with("src/main/java/org/example/pool/ObjectPool.java:58:13: warning[RL001]: `numActive` is read in `ObjectPool.addObject()` without the lock `this`")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("    src/main/java/org/example/pool/ObjectPool.java:") && l.contains(": note: the ")), "{text}");
    assert!(text.lines().last().unwrap().starts_with("racelens: "), "{text}");
    assert_eq!(git_status(repo.path()), before, "racelens must not change git status");
}

#[test]
fn json_follows_the_contract() {
    let repo = fixture_repo("object-pool");
    let out = racelens(repo.path(), &["check", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let icps = v["icps"].as_array().unwrap();
    assert!(!icps.is_empty());
    for i in icps {
        for key in ["file", "class", "method", "line", "field", "reason"] {
            assert!(i.get(key).is_some(), "icp lacks {key}: {i}");
        }
    }
    let line_icp = icps.iter().find(|i| i["line"] == 58).unwrap();
    assert_eq!(line_icp["file"], "src/main/java/org/example/pool/ObjectPool.java");
    assert_eq!(line_icp["class"], "org.example.pool.ObjectPool");
    assert_eq!(line_icp["method"], "addObject");
    assert_eq!(line_icp["field"], Value::Null);
    let field_icp = icps.iter().find(|i| i["field"] == "numIdle").unwrap();
    assert_eq!(field_icp["class"], "org.example.pool.ObjectPool");
    assert_eq!(field_icp["line"], Value::Null);
    assert_eq!(field_icp["method"], Value::Null);

    let pairs = v["pairs"].as_array().unwrap();
    let p = pairs.iter().find(|p| p["field"]["name"] == "numActive" && p["kind"] == "RW").unwrap();
    assert_eq!(p["field"]["class"], "org.example.pool.ObjectPool");
    assert_eq!(p["impacted"], true);
    assert_eq!(p["protected"], false);
    for end in ["a", "b"] {
        for key in ["file", "line", "method", "access", "locks"] {
            assert!(p[end].get(key).is_some(), "pair end lacks {key}: {p}");
        }
    }
    assert_eq!(p["a"]["method"], "ObjectPool.addObject");
    assert_eq!(p["a"]["locks"].as_array().unwrap().len(), 0);
    assert_eq!(p["b"]["locks"][0]["lock"], "this");

    let d = v["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "RL001").unwrap();
    for key in ["file", "line", "column", "severity", "code", "message", "related"] {
        assert!(d.get(key).is_some(), "diagnostic lacks {key}: {d}");
    }
    assert_eq!(d["severity"], "warning");
    assert!(d["related"].as_array().unwrap().iter().all(|r| r["file"].is_string() && r["line"].is_u64()));
}

#[test]
fn outside_git_is_a_setup_error_unless_no_git() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures_dir().join("object-pool/base"), dir.path());
    let out = racelens(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not inside a git work tree") && stderr(&out).contains("--no-git"),
        "{}",
        stderr(&out)
    );
    let out = racelens(dir.path(), &["check", "--no-git"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn usage_and_configuration_errors_exit_2_and_unknown_keys_are_named() {
    let repo = fixture_repo("object-pool");
    assert_eq!(racelens(repo.path(), &["check", "--no-such-flag"]).status.code(), Some(2));
    assert_eq!(racelens(repo.path(), &["check", "--base", "no-such-rev"]).status.code(), Some(2));
    write(repo.path(), "racelens.toml", "[java]\nsource_root = [\"src\"]\n");
    let out = racelens(repo.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("unknown key `java.source_root`"), "{}", stderr(&out));
    write(repo.path(), "racelens.toml", "[java]\nsource_roots = \"src\"\n");
    let out = racelens(repo.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("list of strings"), "{}", stderr(&out));
}

#[test]
fn help_explains_the_terms() {
    let out = Command::new(env!("CARGO_BIN_EXE_racelens")).args(["check", "--help"]).output().unwrap();
    let text = stdout(&out);
    for term in [
        "impacted code point (ICP)",
        "shared variable",
        "impacted pair",
        "protected",
        "RW and WW",
        "RL001",
        "RL006",
        "RL007",
        "RL008",
        "RL009",
        "RL010",
    ] {
        assert!(text.contains(term), "--help lacks {term}:\n{text}");
    }
}

#[test]
fn configured_source_roots_and_excludes_are_used() {
    let repo = fixture_repo("object-pool");
    write(repo.path(), "racelens.toml", "[analysis]\nexclude = [\"**/pool/ObjectPool.java\"]\n");
    let out = racelens(repo.path(), &["check", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["icps"].as_array().unwrap().is_empty(), "{v}");
}
