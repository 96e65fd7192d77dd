//! Test support, shared by the tests and benchmarks of every crate (a crate of its own, so
//! that none includes another's files by path): real git repositories made from the fixture
//! projects under `tests/`, the subsystems project ([`subsystems`]) and the JDK benchmark
//! corpus ([`corpus`]).
//!
//! A fixture `tests/fixtures/<name>/` has `base/` (committed) and `change.patch` (applied
//! to the work tree afterwards with `git apply`, not committed).

pub mod corpus;
pub mod subsystems;

use std::path::{Path, PathBuf};
use std::process::Command;

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::{Impact, Options};
use tempfile::TempDir;

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=racelens tests",
            "-c",
            "user.email=tests@racelens.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} failed");
}

pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walk(from) {
        let rel = entry.strip_prefix(from).unwrap();
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &dest).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(read) = std::fs::read_dir(dir) {
        for e in read.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A git repository with the fixture's base committed and its change applied.
pub fn fixture_repo(name: &str) -> TempDir {
    repo_from(&fixtures_dir().join(name), true)
}

/// A git repository made from a fixture directory (`base/`, `change.patch`): the base
/// committed, and the change applied to the work tree when `with_change`.
pub fn repo_from(src: &Path, with_change: bool) -> TempDir {
    assert!(src.is_dir(), "no fixture {}", src.display());
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&src.join("base"), dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    if with_change {
        git(dir.path(), &["apply", src.join("change.patch").to_str().unwrap()]);
    }
    dir
}

pub fn analyze(dir: &Path) -> (Host, Impact) {
    analyze_with(dir, &HostOptions::default())
}

pub fn analyze_with(dir: &Path, options: &HostOptions) -> (Host, Impact) {
    let mut host = Host::open(dir, options).expect("host opens");
    host.load().expect("host loads");
    let impact = host.analyze(&Options::new());
    (host, impact)
}

/// ICPs as `<class, method, line, field> reason` lines.
pub fn icps(impact: &Impact) -> Vec<String> {
    impact
        .icps
        .iter()
        .map(|i| {
            format!(
                "<{}, {}, {}, {}> {}",
                i.class.as_deref().unwrap_or("_"),
                i.method.as_deref().unwrap_or("_"),
                i.line.map_or("_".to_string(), |l| l.to_string()),
                i.field.as_deref().unwrap_or("_"),
                i.reason.code()
            )
        })
        .collect()
}

/// Pairs as `KIND Class.field: access line method [locks]* <-> ...` lines.
pub fn pairs(host: &Host, impact: &Impact) -> Vec<String> {
    let end = |e: &racelens_analysis::impact::PairEnd| {
        let locks: Vec<&str> = e.locks.iter().map(|l| l.display.as_str()).collect();
        format!(
            "{} {}:{} {} [{}]{}",
            e.access.as_str(),
            host.path_of(e.file).rsplit('/').next().unwrap(),
            e.span.line,
            e.method,
            locks.join(","),
            if e.impacted { "*" } else { "" }
        )
    };
    impact
        .pairs
        .iter()
        .map(|p| {
            format!(
                "{} {}.{}{}: {} <-> {}",
                p.kind.as_str(),
                p.field.short_class(),
                p.field.display_name(),
                if p.protected { " protected" } else { "" },
                end(&p.a),
                end(&p.b)
            )
        })
        .collect()
}

/// Diagnostics as `file:line CODE message` lines (hints left out).
pub fn warnings(host: &Host, impact: &Impact) -> Vec<String> {
    impact
        .diagnostics
        .iter()
        .filter(|d| d.code != "RL100")
        .map(|d| {
            format!("{}:{} {} {}", host.path_of(d.file).rsplit('/').next().unwrap(), d.span.line, d.code, d.message)
        })
        .collect()
}

/// The warnings (hints left out) when one file changes from `base` to `changed` in a
/// fresh repository.
pub fn warnings_after(path: &str, base: &str, changed: &str) -> Vec<String> {
    let repo = repo_with(&[(path, base)], &[(path, changed)]);
    let (host, impact) = analyze(repo.path());
    warnings(&host, &impact)
}

/// A git repository with `base` committed and `change` written over it (a file whose
/// text is empty in `change` is deleted).
pub fn repo_with(base: &[(&str, &str)], change: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in base {
        write(dir.path(), path, text);
    }
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "--allow-empty", "-m", "base"]);
    for (path, text) in change {
        if text.is_empty() {
            std::fs::remove_file(dir.path().join(path)).unwrap();
        } else {
            write(dir.path(), path, text);
        }
    }
    dir
}

/// The racelens cache of this test process (`XDG_CACHE_HOME`), made once under `tmpdir`
/// (the test crate's `CARGO_TARGET_TMPDIR`: cargo's temporary folder for tests, not the
/// system's) and never dropped. Call it first in every test of the process, so that the
/// environment is set before any thread reads it.
pub fn process_cache(tmpdir: &str) -> &'static Path {
    static DIR: std::sync::OnceLock<TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir_in(tmpdir).unwrap();
        std::env::set_var("XDG_CACHE_HOME", dir.path().join("cache"));
        dir
    })
    .path()
}

pub fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}
