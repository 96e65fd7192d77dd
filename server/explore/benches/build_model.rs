//! How long racelens takes to learn a test's classpath from its build, and to compile the
//! test's module, on the multi-module fixture `tests/fixtures/build-shop` (Debian's `maven`
//! and `gradle`, offline against `/usr/share/maven-repo`):
//!
//! - Maven: the first read ever (the extension is compiled too), a cold read in a fresh work
//!   tree, and a cached one;
//! - Gradle: a cold read without a daemon, a read after a build file changed with a warm
//!   daemon, and a cached one;
//! - for each, `project::prepare` cold (read + javac) and again (cached, up to date).
//!
//! `cargo bench -p racelens-explore --bench build_model`. The cache, Gradle's user home and
//! daemon are the bench's own; the daemon is stopped at the end (`gradle --stop` with that
//! home ends only its daemons).

use racelens_test_support as support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use racelens_analysis::config::Config;
use racelens_analysis::host::{Host, HostOptions};
use racelens_explore::jvm::build;
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::project::{self, Sources};

const TEST_FILE: &str = "inventory/src/test/java/org/example/inventory/StockTest.java";

fn shop(tool: &str) -> tempfile::TempDir {
    let fixture = support::fixtures_dir().join("build-shop");
    let dir = tempfile::tempdir().unwrap();
    support::copy_tree(&fixture.join("sources"), dir.path());
    support::copy_tree(&fixture.join(tool), dir.path());
    support::git(dir.path(), &["init", "-q"]);
    support::git(dir.path(), &["add", "-A"]);
    support::git(dir.path(), &["commit", "-q", "-m", "shop"]);
    dir
}

fn config(gradle_home: &Path, daemon: bool) -> Config {
    let mut gradle_args = vec!["-g".to_string(), gradle_home.display().to_string()];
    if !daemon {
        gradle_args.push("--no-daemon".into());
    }
    Config { maven_args: vec!["-Dmaven.repo.local=/usr/share/maven-repo".into()], gradle_args, ..Config::default() }
}

fn read(dir: &Path, config: &Config, jdk: &Jdk) -> (Duration, String) {
    let root = dir.canonicalize().unwrap();
    let started = Instant::now();
    let read =
        build::read(&root, config, &root.join(TEST_FILE), jdk).unwrap_or_else(|e| panic!("{e}")).expect("a build");
    (started.elapsed(), read.line())
}

fn prepare(dir: &Path, config: &Config, jdk: &Jdk) -> (Duration, Duration, Duration, String) {
    let mut host = Host::open(dir, &HostOptions::default()).unwrap();
    host.load().unwrap();
    let mut sources = Sources::of(&host);
    sources.config = config.clone();
    let started = Instant::now();
    let p = project::prepare(&sources, jdk, Some(Path::new(TEST_FILE))).unwrap_or_else(|e| panic!("{e}"));
    (started.elapsed(), p.classpath_time, p.compile_time, p.summary)
}

fn row(what: &str, took: Duration, line: &str) {
    println!("| {what} | {:.2} s | {line} |", took.as_secs_f64());
}

fn main() {
    let scratch = tempfile::tempdir().unwrap();
    // Before any thread starts: the bench's own cache.
    std::env::set_var("XDG_CACHE_HOME", scratch.path().join("cache"));
    let gradle_home = scratch.path().join("gradle-home");
    let jdk = Jdk::locate().expect("a JDK");
    println!("| read | time | line |\n|---|---|---|");

    let first = shop("maven");
    let (t, line) = read(first.path(), &config(&gradle_home, false), &jdk);
    row("maven, first read ever (extension compiled)", t, &line);
    let fresh = shop("maven");
    let (t, line) = read(fresh.path(), &config(&gradle_home, false), &jdk);
    row("maven, cold", t, &line);
    let (t, line) = read(fresh.path(), &config(&gradle_home, false), &jdk);
    row("maven, cached", t, &line);

    let g = shop("gradle");
    let (t, line) = read(g.path(), &config(&gradle_home, false), &jdk);
    row("gradle, cold, no daemon", t, &line);
    // A daemon started, then a changed build file: what an edit costs with a warm daemon.
    let _ = read(shop("gradle").path(), &config(&gradle_home, true), &jdk);
    let build = g.path().join("build.gradle");
    std::fs::write(&build, std::fs::read_to_string(&build).unwrap() + "\n// edited\n").unwrap();
    let (t, line) = read(g.path(), &config(&gradle_home, true), &jdk);
    row("gradle, build file changed, warm daemon", t, &line);
    let (t, line) = read(g.path(), &config(&gradle_home, true), &jdk);
    row("gradle, cached", t, &line);

    println!("\n| prepare (read + compile) | total | classpath | compile | summary |\n|---|---|---|---|---|");
    for (tool, daemon) in [("maven", false), ("gradle", true)] {
        let repo = shop(tool);
        for run in ["cold", "again"] {
            let (total, cp, compile, summary) = prepare(repo.path(), &config(&gradle_home, daemon), &jdk);
            println!(
                "| {tool}, {run} | {:.2} s | {:.2} s | {:.2} s | {summary} |",
                total.as_secs_f64(),
                cp.as_secs_f64(),
                compile.as_secs_f64()
            );
        }
    }
    // Only the daemons of the bench's own Gradle user home.
    let _ = Command::new("gradle").args(["-q", "--stop", "-g"]).arg(&gradle_home).status();
}
