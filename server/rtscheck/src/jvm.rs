//! The rules that need a JVM, and what runs the tests without racelens (RTSCheck's
//! RetestAll, section II-A): javac and JUnit 4's `JUnitCore`, plainly, on one schedule the
//! JVM picks; and `racelens explore`, the binary users run, under the agent.
//!
//! - **R7** (Table I, a generality rule: the tool never fails more tests than RetestAll):
//!   every test that passes plainly on the base passes every schedule racelens explores of
//!   it on the base (iterative context bounding up to the bound, no prioritization).
//! - **R1** (Table I, a safety rule: the tool never finds fewer newly failing tests than
//!   RetestAll): here RetestAll is the exhaustive exploration of every multithreaded test of
//!   the evolved revision up to the bound, with no prioritization (`--heuristic basic`);
//!   each test it finds failing that passed on the base must be selected by
//!   `racelens explore --affected` (selection plus prioritized exploration, the default
//!   heuristic) and found failing there too.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::gen::Source;

pub const JUNIT: &[&str] = &["/usr/share/java/junit4.jar", "/usr/share/java/hamcrest-core.jar"];

/// Compiles `files` (under `dir`) into `out` with javac; the error output when it fails.
pub fn javac(dir: &Path, files: &[Source], out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let output = Command::new("javac")
        .args(["-nowarn", "-encoding", "UTF-8", "-d"])
        .arg(out)
        .arg("-cp")
        .arg(JUNIT.join(":"))
        .args(files.iter().map(|f| dir.join(&f.path)))
        .output()
        .map_err(|e| format!("cannot run javac: {e}"))?;
    match output.status.success() {
        true => Ok(()),
        false => Err(format!("javac failed:\n{}", String::from_utf8_lossy(&output.stderr))),
    }
}

/// Runs the test classes with JUnitCore, without racelens; the names (`pkg.Class#method`) of
/// the tests that failed, or an error when JUnit did not report.
pub fn junit(classes: &Path, test_classes: &[String]) -> Result<Vec<String>, String> {
    let cp = std::iter::once(classes.to_string_lossy().to_string())
        .chain(JUNIT.iter().map(|s| s.to_string()))
        .collect::<Vec<_>>()
        .join(":");
    let mut command = Command::new("java");
    command.arg("-cp").arg(cp).arg("org.junit.runner.JUnitCore").args(test_classes);
    let output = run_with_timeout(command, std::time::Duration::from_secs(60))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !stdout.contains("OK (") && !stdout.contains("Tests run:") {
        return Err(format!("JUnit did not report:\n{stdout}{}", String::from_utf8_lossy(&output.stderr)));
    }
    // `1) concurrentUpdatesAddUp(app.TallyTest)`
    let failed = stdout
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.split_once(") ")?;
            n.parse::<u32>().ok()?;
            let (method, class) = rest.strip_suffix(')')?.split_once('(')?;
            Some(format!("{class}#{method}"))
        })
        .collect();
    Ok(failed)
}

fn run_with_timeout(mut command: Command, limit: std::time::Duration) -> Result<std::process::Output, String> {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run java: {e}"))?;
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            return child.wait_with_output().map_err(|e| e.to_string());
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "the plain JUnit run did not end within {} s (a deadlock on the schedule the JVM took?)",
                limit.as_secs()
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// How `racelens` is run: the binary, and the compile cache of this check.
#[derive(Clone)]
pub struct Racelens {
    pub binary: PathBuf,
    pub cache: PathBuf,
    pub bound: u32,
    pub budget: u64,
}

/// The end of one test's exploration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explored {
    /// `pass`, `fail`, `limit`, `uncontrolled` or `error` (`racelens explore --json`).
    pub outcome: String,
    /// The failure's message, or the error.
    pub detail: String,
    /// The schedule that fails, for `racelens replay`.
    pub schedule: Option<String>,
    pub schedules: u64,
}

impl Explored {
    fn of(result: &Value) -> Explored {
        let outcome = result["outcome"].as_str().unwrap_or("?").to_string();
        let failure = &result["failure"];
        let detail = match failure.is_null() {
            true => result["error"].as_str().unwrap_or("").to_string(),
            false => {
                format!("{} ({})", failure["message"].as_str().unwrap_or(""), failure["kind"].as_str().unwrap_or(""))
            }
        };
        Explored {
            outcome,
            detail,
            schedule: failure["schedule"].as_str().map(String::from),
            schedules: result["schedules"].as_u64().unwrap_or(0),
        }
    }
}

impl Racelens {
    fn run(&self, dir: &Path, args: &[&str]) -> Result<(i32, Value), String> {
        let out = Command::new(&self.binary)
            .args(args)
            .arg("--json")
            .current_dir(dir)
            .env("XDG_CACHE_HOME", &self.cache)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.binary.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let json = serde_json::from_str(&stdout).map_err(|_| {
            format!(
                "racelens {} printed no JSON (exit {:?}):\n{stdout}{}",
                args.join(" "),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
        Ok((out.status.code().unwrap_or(-1), json))
    }

    /// Every schedule of `test` up to the bound, without prioritization.
    pub fn explore(&self, dir: &Path, test: &str) -> Result<Explored, String> {
        let (bound, budget) = (self.bound.to_string(), self.budget.to_string());
        let (_, v) = self.run(
            dir,
            &["explore", "--test", test, "--bound", &bound, "--heuristic", "basic", "--max-schedules", &budget],
        )?;
        Ok(Explored::of(&v))
    }

    /// `explore --affected` with the default prioritization: each selected test's result.
    pub fn affected(&self, dir: &Path, tests: usize) -> Result<Vec<(String, Explored)>, String> {
        let bound = self.bound.to_string();
        let budget = (self.budget * tests.max(1) as u64).to_string();
        let (_, v) = self.run(dir, &["explore", "--affected", "--bound", &bound, "--max-schedules", &budget])?;
        let tests = v["tests"].as_array().ok_or_else(|| format!("explore --affected: no tests in {v}"))?;
        Ok(tests
            .iter()
            .map(|t| {
                let explored = match t["result"].is_null() {
                    true => Explored {
                        outcome: "not explored".into(),
                        detail: t["error"].as_str().unwrap_or("").into(),
                        schedule: None,
                        schedules: 0,
                    },
                    false => Explored::of(&t["result"]),
                };
                (t["test"].as_str().unwrap_or("?").to_string(), explored)
            })
            .collect())
    }
}
