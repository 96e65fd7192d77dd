//! The coverage history on disk, and how one execution becomes a test's record in it.
//!
//! The history ([`racelens_analysis::coverage::History`]) is `coverage.json` in the work
//! tree's cache folder ([`project_cache`]), next to the compiled classes and the editor's
//! `explorations.json`: outside the work tree, kept across runs and restarts, pruned with the
//! folder when the work tree is gone. It is written aside and renamed, so a reader never sees
//! half of it; a history that does not parse, or of another version, reads as empty.
//!
//! A record ([`record`]) is one full-mode execution: every scheduling point the agent
//! reported (`E` lines, PROTOCOL.md), with the site's class, method, line, operation and
//! target, and the thread that executed it (SimRT section 3.5: "we also record the thread
//! IDs that cover each block"), kept once per distinct point. Points in classes that are not
//! the project's (none are instrumented) or in no project file are left out.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use racelens_analysis::coverage::{content_hash, Access, History, Snapshot, TestRun, HISTORY_VERSION};
use racelens_analysis::host::Host;

use crate::jvm::project::{project_cache, Sources};
use crate::jvm::protocol::{Execution, Outcome, Site, SiteOp};
use crate::jvm::{Mode, Session};

/// The commit HEAD was at (its full id), as records and shards name it; `None` outside git
/// or in a repository without commits.
pub fn revision(host: &Host) -> Option<String> {
    host.base().and_then(|b| b.commit).map(|c| c.to_string())
}

/// Where the history of the work tree at `root` lives.
pub fn path(root: &Path) -> PathBuf {
    project_cache(root).join("coverage.json")
}

/// The history in `file` ([`path`]; empty when there is none, or it cannot be read).
pub fn load(file: &Path) -> History {
    let read = std::fs::read_to_string(file).ok().and_then(|text| serde_json::from_str::<History>(&text).ok());
    read.filter(|h| h.version == HISTORY_VERSION).unwrap_or(History {
        version: HISTORY_VERSION,
        snapshots: BTreeMap::new(),
        tests: BTreeMap::new(),
    })
}

/// Adds `runs`, recorded on `snapshot`, to the history in `file` ([`path`]; each replaces the
/// test's earlier record), read again just before writing so that records written meanwhile
/// are kept (a record written between that read and the rename is lost: the last writer wins).
pub fn save(file: &Path, snapshot: &Snapshot, runs: Vec<(String, TestRun)>) -> Result<(), String> {
    let dir = file.parent().ok_or_else(|| format!("{} is not a file path", file.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut history = load(file);
    history.add(snapshot, runs);
    let text = serde_json::to_string(&history).expect("the history serializes");
    racelens_analysis::cache_dir::write_whole(file, text)
}

/// The sources a test runs on (those [`Sources::of`] a host takes), as its record names them.
pub fn snapshot(sources: &Sources) -> Snapshot {
    Snapshot {
        files: sources.files.iter().map(|(path, text, _)| (path.clone(), content_hash(text.as_bytes()))).collect(),
    }
}

/// Where a record is made: the sources' [`snapshot`], the commit HEAD was at, and the project
/// file of a class (`pkg.Pool$Worker` is in `.../pkg/Pool.java`; `None` outside the project).
pub struct Recording<'a> {
    pub snapshot: &'a Snapshot,
    pub revision: Option<String>,
    pub file_of: &'a dyn Fn(&str) -> Option<String>,
    /// `record` or `explore`.
    pub source: &'a str,
}

/// Runs the session's test once on the default schedule (the one an exploration runs first),
/// in full mode so that every scheduling point is reported, and returns what its threads
/// executed. A run the agent could not follow to its end (an agent error, a thread it does
/// not control, a timeout, a divergence) gives no record: what it reports may be partial.
pub fn record(session: &mut Session, recording: &Recording, max_steps: u32) -> Result<TestRun, String> {
    let exec = session.run(&[], Mode::Full, max_steps)?;
    match &exec.outcome {
        Outcome::Error(_) | Outcome::Uncontrolled(_) | Outcome::Timeout | Outcome::Divergence { .. } => {
            Err(format!("the run ended in `{}`: {}", exec.outcome.kind(), crate::results::report::headline(&exec)))
        }
        _ => Ok(run_of(recording, &exec, &session.sites())),
    }
}

/// The record of one full-mode execution `exec` of a test.
fn run_of(recording: &Recording, exec: &Execution, sites: &HashMap<u32, Site>) -> TestRun {
    let mut files_of: HashMap<&str, Option<String>> = HashMap::new();
    let mut accesses: BTreeSet<Access> = BTreeSet::new();
    for e in &exec.events {
        let Some(site) = sites.get(&e.site).filter(|s| s.op != SiteOp::Begin) else { continue };
        let file = files_of.entry(site.class.as_str()).or_insert_with(|| (recording.file_of)(&site.class));
        let Some(file) = file else { continue };
        accesses.insert(Access {
            file: file.clone(),
            line: site.line,
            op: site.op.as_str().to_string(),
            target: site.target.clone(),
            class: site.class.clone(),
            method: site.method.clone(),
            thread: e.thread,
        });
    }
    TestRun {
        revision: recording.revision.clone(),
        source: recording.source.to_string(),
        recorded_at: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        outcome: exec.outcome.kind().to_string(),
        snapshot: recording.snapshot.id(),
        threads: exec.threads.clone(),
        accesses: accesses.into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_history_reads_back_and_a_later_record_replaces_the_earlier() {
        let cache = tempfile::tempdir().unwrap();
        let file = cache.path().join("shop-1/coverage.json");
        assert!(load(&file).tests.is_empty());
        let snapshot = Snapshot::default();
        let run = |outcome: &str| TestRun {
            outcome: outcome.into(),
            source: "record".into(),
            snapshot: snapshot.id(),
            ..TestRun::default()
        };
        save(&file, &snapshot, vec![("a.T#x".into(), run("pass")), ("a.T#y".into(), run("fail"))]).unwrap();
        save(&file, &snapshot, vec![("a.T#x".into(), run("deadlock"))]).unwrap();
        let h = load(&file);
        assert_eq!(h.version, HISTORY_VERSION);
        let outcomes: Vec<(&str, &str)> = h.tests.iter().map(|(t, r)| (t.as_str(), r.outcome.as_str())).collect();
        assert_eq!(outcomes, [("a.T#x", "deadlock"), ("a.T#y", "fail")]);
        assert_eq!(h.snapshots.keys().collect::<Vec<_>>(), [&snapshot.id()]);
        // A file that does not parse reads as no history.
        std::fs::write(&file, "{not json").unwrap();
        assert!(load(&file).tests.is_empty());
    }
}
