//! `racelens explore` on Maven and Gradle projects without a racelens.toml, the way a
//! developer's IDE opens them: the classpath, the sibling modules' sources and the test
//! settings come from the build (Debian's `maven` and `gradle`, offline, against Debian's
//! repository `/usr/share/maven-repo`), a module elsewhere that does not compile does not
//! matter, and nothing in the work tree changes. Tests run with assertions enabled, as
//! Surefire and Gradle run them, also without a build. A missing build tool is a clear error.
//!
//! The fixture is `tests/fixtures/build-shop` (its README says what each module is for).

use racelens_test_support as support;
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::Value;
use tempfile::TempDir;

const STOCK_TEST: &str = "org.example.inventory.StockTest#concurrentReservationsTakeEveryItemOnce";

/// The fixture's sources with one tool's build files, committed to a fresh git repository.
fn shop(tool: &str) -> TempDir {
    let fixture = support::fixtures_dir().join("build-shop");
    let dir = tempfile::tempdir().unwrap();
    support::copy_tree(&fixture.join("sources"), dir.path());
    support::copy_tree(&fixture.join(tool), dir.path());
    commit(dir.path());
    dir
}

fn commit(dir: &Path) {
    support::git(dir, &["init", "-q"]);
    support::git(dir, &["add", "-A"]);
    support::git(dir, &["commit", "-q", "-m", "base"]);
}

fn explore(dir: &Path, test: &str, env: &[(&str, &Path)]) -> Output {
    let mut cmd = racelens_command(dir, &["explore", "--test", test, "--json"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The JSON report of an exploration that ran, checked against its schema.
fn report(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|_| panic!("not JSON ({:?}):\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr)));
    assert_follows_schema("explore", &json);
    json
}

fn passes(out: &Output) {
    let r = report(out);
    assert_eq!((out.status.code(), r["outcome"].as_str()), (Some(0), Some("pass")), "{r:#}");
    assert!(r["schedules"].as_u64().unwrap() > 1, "{r:#}");
}

fn status(dir: &Path) -> String {
    let out = Command::new("git").args(["status", "--porcelain", "--ignored"]).current_dir(dir).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_maven_multi_module_test_explores_with_the_builds_classpath() {
    let repo = shop("maven");
    // The user's settings.xml names the local repository (Debian's here) and offline mode.
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".m2")).unwrap();
    let settings = "<settings>\n  <localRepository>/usr/share/maven-repo</localRepository>\n  <offline>true</offline>\n</settings>\n";
    std::fs::write(home.path().join(".m2/settings.xml"), settings).unwrap();
    let opts = PathBuf::from(format!("-Duser.home={}", home.path().display()));
    // `StockTest` needs commons-lang3, slf4j (through `ids`, a sibling module compiled from
    // source), its test resource and Surefire's `stock.initial`; `reports` does not compile.
    passes(&explore(repo.path(), STOCK_TEST, &[("MAVEN_OPTS", &opts)]));
    assert_eq!(status(repo.path()), "");
}

#[test]
fn a_gradle_multi_project_test_explores_with_the_builds_classpath() {
    let repo = shop("gradle");
    let gradle_home = tempfile::tempdir().unwrap();
    let no_daemon = PathBuf::from("-Dorg.gradle.daemon=false");
    passes(&explore(repo.path(), STOCK_TEST, &[("GRADLE_USER_HOME", gradle_home.path()), ("GRADLE_OPTS", &no_daemon)]));
    assert_eq!(status(repo.path()), "");
}

#[test]
fn a_build_tool_that_is_not_there_is_named_with_the_keys_that_avoid_it() {
    let repo = shop("maven");
    let java = racelens_explore::jvm::java::Jdk::locate().unwrap().java.canonicalize().unwrap();
    let java_home = java.parent().and_then(Path::parent).unwrap().to_path_buf();
    let empty = tempfile::tempdir().unwrap();
    let out = explore(repo.path(), STOCK_TEST, &[("PATH", empty.path()), ("JAVA_HOME", &java_home)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "cannot read the Maven build in {}: `mvn` not found (not on PATH, and no `mvnw`",
            repo.path().display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("`[java] classpath = [") && stderr.contains("`[java] build_tool = \"none\"`"), "{stderr}");
}

const TALLY: &str = r#"package org.example.tally;

/** A running total. */
public class Tally {
    private int total;

    public void add(int n) {
        int before = total;
        total = before + n;
    }

    public int total() {
        return total;
    }
}
"#;

const TALLY_TEST: &str = r#"package org.example.tally;

import org.junit.Test;

public class TallyTest {
    @Test
    public void concurrentAddsAreAllCounted() throws InterruptedException {
        Tally tally = new Tally();
        Thread a = new Thread(() -> tally.add(1));
        Thread b = new Thread(() -> tally.add(2));
        a.start();
        b.start();
        a.join();
        b.join();
        assert tally.total() == 3 : "lost an add: total " + tally.total();
    }
}
"#;

#[test]
fn tests_run_with_assertions_enabled_as_the_build_runs_them() {
    // No build: JUnit from Debian, and still `-ea`.
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in [
        ("src/main/java/org/example/tally/Tally.java", TALLY),
        ("src/test/java/org/example/tally/TallyTest.java", TALLY_TEST),
    ] {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    commit(dir.path());
    fails_and_replays(
        dir.path(),
        "TallyTest#concurrentAddsAreAllCounted",
        "java.lang.AssertionError: lost an add: total ",
    );
    // `[java] assertions = false` runs it as `java` without `-ea` would: the assert is skipped.
    std::fs::write(dir.path().join("racelens.toml"), "[java]\nassertions = false\n").unwrap();
    passes(&explore(dir.path(), "TallyTest#concurrentAddsAreAllCounted", &[]));
}
