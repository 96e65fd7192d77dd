//! The persistent index cache: a restart on an unchanged tree reuses every file's facts;
//! a file changed since is parsed again; a damaged, truncated, foreign or stale cache file
//! is detected, never used, and written again. In every case the index holds exactly the
//! facts a fresh parse gives.

use racelens_test_support as support;

use std::path::Path;
use std::sync::OnceLock;

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::index_cache::{cache_file, CacheState, CacheUse};
use racelens_analysis::java::facts_of;
use support::*;

/// The tests' cache folder: one for the whole binary (each repository gets its own file
/// in it), set before any host opens.
fn isolated_cache() {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    // Never dropped (a static): under cargo's temporary folder for tests, not the system's.
    let dir = DIR.get_or_init(|| tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap());
    std::env::set_var("XDG_CACHE_HOME", dir.path());
}

const COUNTER: &str = "package p;\n\npublic class Counter {\n    private int count;\n\n    public synchronized void add() {\n        count++;\n    }\n\n    public int get() {\n        return count;\n    }\n}\n";
const WORKER: &str = "package p;\n\npublic class Worker implements Runnable {\n    private final Counter counter = new Counter();\n\n    public void run() {\n        counter.add();\n    }\n}\n";
const MAIN: &str = "package p;\n\npublic class Main {\n    public static void main(String[] args) {\n        new Thread(new Worker()).start();\n    }\n}\n";

fn project() -> tempfile::TempDir {
    repo_with(&[("src/p/Counter.java", COUNTER), ("src/p/Worker.java", WORKER), ("src/p/Main.java", MAIN)], &[])
}

/// The project, loaded once so that its index cache is on disk.
fn cached_project() -> tempfile::TempDir {
    isolated_cache();
    let repo = project();
    load(repo.path());
    repo
}

/// Opens and loads a host, waits until its cache is written, and checks that every file's
/// facts are those of a fresh parse of the file on disk.
fn load(root: &Path) -> CacheUse {
    let mut host = Host::open(root, &HostOptions::default()).unwrap();
    host.load().unwrap();
    host.wait_for_index_cache().unwrap();
    for (_, entry) in host.index().entries() {
        let text = std::fs::read_to_string(root.join(&entry.path)).unwrap();
        assert_eq!(entry.facts.as_ref(), facts_of(&text).as_ref(), "facts of {}", entry.path);
    }
    host.index_cache().clone()
}

fn used(state: CacheState, reused: usize, parsed: usize) -> CacheUse {
    CacheUse { state, reused, parsed }
}

#[test]
fn a_restart_on_an_unchanged_tree_parses_nothing() {
    isolated_cache();
    let repo = project();
    assert_eq!(load(repo.path()), used(CacheState::Absent, 0, 3));
    assert!(cache_file(&repo.path().canonicalize().unwrap()).is_file(), "the cache lives in the cache folder");
    assert_eq!(load(repo.path()), used(CacheState::Read, 3, 0));
    assert!(
        !repo.path().join(".racelens").exists() && git_status(repo.path()).is_empty(),
        "nothing is written into the work tree"
    );
}

#[test]
fn a_file_changed_since_is_parsed_again_and_the_cache_follows() {
    let repo = cached_project();
    std::fs::write(
        repo.path().join("src/p/Counter.java"),
        COUNTER.replace("public int get()", "public synchronized int get()"),
    )
    .unwrap();
    assert_eq!(load(repo.path()), used(CacheState::Read, 2, 1));
    assert_eq!(load(repo.path()), used(CacheState::Read, 3, 0));
    // A deleted file drops out of the cache; a new one comes in.
    std::fs::remove_file(repo.path().join("src/p/Main.java")).unwrap();
    std::fs::write(repo.path().join("src/p/Extra.java"), "package p;\n\nclass Extra {\n}\n").unwrap();
    assert_eq!(load(repo.path()), used(CacheState::Read, 2, 1));
    assert_eq!(load(repo.path()), used(CacheState::Read, 3, 0));
}

/// Damages the cache file with `damage`, then checks that the next load rejects it with a
/// reason containing `why`, parses every file, and writes a good cache again.
fn rejected_after(damage: impl Fn(&mut Vec<u8>), why: &str) {
    let repo = cached_project();
    let file = cache_file(&repo.path().canonicalize().unwrap());
    let mut bytes = std::fs::read(&file).unwrap();
    damage(&mut bytes);
    std::fs::write(&file, &bytes).unwrap();
    let second = load(repo.path());
    match &second.state {
        CacheState::Rejected(reason) => assert!(reason.contains(why), "rejected because {reason:?}, expected {why:?}"),
        other => panic!("a damaged cache was not rejected: {other:?}"),
    }
    assert_eq!((second.reused, second.parsed), (0, 3));
    assert_eq!(load(repo.path()), used(CacheState::Read, 3, 0), "the cache is written again");
}

#[test]
fn a_flipped_byte_in_the_facts_is_detected() {
    rejected_after(
        |b| {
            let last = b.len() - 5;
            b[last] ^= 0x40;
        },
        "checksum",
    );
}

#[test]
fn a_truncated_cache_is_detected() {
    rejected_after(|b| b.truncate(b.len() / 2), "truncated");
}

#[test]
fn a_cache_written_by_another_build_is_not_used() {
    // The build identity follows the magic (8 bytes), the format (4) and its length (4).
    rejected_after(|b| b[16] ^= 0x01, "another racelens build");
}

#[test]
fn a_file_that_is_not_a_cache_is_not_used() {
    rejected_after(|b| *b = b"not a cache at all, just text someone left here".to_vec(), "not a racelens index cache");
}

#[test]
fn an_entry_for_other_text_is_never_used() {
    let repo = cached_project();
    // Same length, other content: only the content hash tells them apart.
    std::fs::write(repo.path().join("src/p/Worker.java"), WORKER.replace("counter.add()", "counter.get()")).unwrap();
    assert_eq!(load(repo.path()), used(CacheState::Read, 2, 1));
}

#[test]
fn the_cache_can_be_turned_off() {
    isolated_cache();
    let repo = project();
    let mut host = Host::open(repo.path(), &HostOptions { index_cache: false, ..HostOptions::default() }).unwrap();
    host.load().unwrap();
    host.wait_for_index_cache().unwrap();
    assert_eq!(host.index_cache(), &used(CacheState::Disabled, 0, 3));
    assert!(!cache_file(&repo.path().canonicalize().unwrap()).exists());
}

fn git_status(dir: &Path) -> String {
    let out = std::process::Command::new("git")
        .args(["status", "--porcelain", "--ignored"])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}
