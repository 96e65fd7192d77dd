//! The coverage history: which shared accesses each test's threads executed when the test
//! last ran under the agent, and how that record speaks for the working tree's change.
//! SimRT's Selector (Yu et al., ICSE 2014, section 3.5) selects from such a history: "the
//! constructed test history indicates (1) whether a block is covered, and (2) the IDs of the
//! threads that cover this block".
//!
//! - **What is recorded** ([`History`], [`TestRun`]): per test, its latest run: the revision
//!   (HEAD's commit), the sources it ran on (a snapshot: the git blob id of every project
//!   source, kept once for all the tests recorded on the same sources), and each distinct
//!   scheduling point executed: file, line, operation, field (or other target), the method it
//!   is in, and the thread (0 the test's thread, then threads in start order). Lines stand in
//!   for SimRT's blocks. Recording runs project code, so it is done elsewhere, on request
//!   (`racelens record`, `racelens explore`); this module only reads what was recorded.
//! - **Mapping onto the working tree** ([`CoverageView::of`], SimRT section 3.3 maps old
//!   blocks to new ones the same way). For each file holding an end of an impacted pair:
//!   - recorded on the working tree's contents: lines are taken as they are;
//!   - recorded on the base's contents: each recorded line moves to the new line that stands
//!     for it ([`FileDiff::map_old_line`]: unchanged lines shift with what was inserted or
//!     deleted above them; a changed line keeps the recorded points of the line it replaced);
//!   - too changed to map ([`too_changed`]: the change touched more than half the base
//!     file's code lines), new or renamed since the recording (no recorded contents under its path), or
//!     stale (recorded on contents that are neither the base's nor the working tree's): the
//!     record does not speak for the file, and pairs with an end there fall back to static
//!     reachability, saying why ([`crate::rank`]).
//! - **Matching an end** ([`TestView::threads_at`]): a read or write end is executed by the
//!   threads that read or wrote a field of the same name on its line (for element ends: an
//!   array element, or a call, such as `List.add`, on a JDK collection's contents); a lock,
//!   wait or notify end by the threads with any scheduling point on its line. When no thread
//!   executed the end's line, the threads that executed its method stand for it: the method
//!   is the block (SimRT's unit of coverage is the basic block, and section 3.3 maps a
//!   changed block to the old block it replaced). For a method the recorded run never
//!   entered (new since), the nearest callers in its file that it did enter stand for it
//!   (section 3.3: "the method that most directly calls M' that also exists in P"). This
//!   covers new or changed lines, which the recorded run cannot have executed as they are;
//!   branches the one recorded schedule did not take but another may (a reader's fallback
//!   taken only when a writer interleaves: `explore-models`' `Position.snapshot`); and a
//!   `synchronized` method's monitor entry, which the agent places on the method's first
//!   line. It keeps what the history is for: which threads run the two ends.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::diff::FileDiff;
use crate::host::Host;
use crate::impact::{EndAccess, Impact, PairEnd};
use crate::index::{FieldKey, FileId, MethodRef, Origin, ProjectIndex};
use crate::java::MethodIdx;

/// The layout of the history file; a history of another version is not read.
pub const HISTORY_VERSION: u32 = 1;

/// Every test's latest recorded run, by test name (`pkg.PoolTest#borrow`, as `racelens
/// explore --test` takes it), and the sources they ran on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub version: u32,
    /// The sources runs were recorded on, by [`Snapshot::id`]: the git blob id
    /// ([`content_hash`]) of every project source, by path.
    pub snapshots: BTreeMap<String, BTreeMap<String, String>>,
    pub tests: BTreeMap<String, TestRun>,
}

/// The project's sources as a run saw them: the git blob id of every source, by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub files: BTreeMap<String, String>,
}

impl Snapshot {
    /// The git blob id of the snapshot's listing: equal sources, equal ids.
    pub fn id(&self) -> String {
        let listing: String = self.files.iter().map(|(path, hash)| format!("{hash} {path}\n")).collect();
        content_hash(listing.as_bytes())
    }
}

impl History {
    /// Adds runs recorded on `snapshot` (each replaces the test's earlier record), and drops
    /// the snapshots no record refers to any more.
    pub fn add(&mut self, snapshot: &Snapshot, runs: Vec<(String, TestRun)>) {
        self.snapshots.insert(snapshot.id(), snapshot.files.clone());
        self.tests.extend(runs);
        let used: BTreeSet<&String> = self.tests.values().map(|r| &r.snapshot).collect();
        self.snapshots.retain(|id, _| used.contains(id));
    }
}

/// One run of one test under the agent, one schedule (the default one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRun {
    /// The commit HEAD was at (its full id); `None` outside git or before the first commit.
    pub revision: Option<String>,
    /// What recorded it: `record` or `explore`.
    pub source: String,
    /// Seconds since the Unix epoch.
    pub recorded_at: u64,
    /// The run's outcome (`pass`, `fail`, `deadlock`, ...).
    pub outcome: String,
    /// The [`Snapshot::id`] of the sources it ran on (in [`History::snapshots`]).
    pub snapshot: String,
    /// The run's threads by number: 0 the test's thread, then threads in start order.
    pub threads: BTreeMap<u16, String>,
    /// Each distinct scheduling point a thread executed in a project file, sorted.
    pub accesses: Vec<Access>,
}

/// A scheduling point one thread executed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Access {
    /// Path relative to the work tree root.
    pub file: String,
    pub line: u32,
    /// The agent's operation: `READ`, `WRITE`, `AREAD`, `AWRITE`, `LOCK`, `WAIT`, `NOTIFY`, ...
    pub op: String,
    /// `pkg.Pool.count` for `READ` and `WRITE`; the agent's target otherwise (`-`, a callee).
    pub target: String,
    /// The binary name of the class and the JVM name of the method the point is in.
    pub class: String,
    pub method: String,
    pub thread: u16,
}

impl Access {
    /// The field's simple name, for `READ` and `WRITE`.
    fn field(&self) -> Option<&str> {
        matches!(self.op.as_str(), "READ" | "WRITE").then(|| self.target.rsplit('.').next().unwrap_or(&self.target))
    }
}

impl TestRun {
    /// `abc1234`, or `no commit`.
    pub fn short_revision(&self) -> String {
        self.revision.as_deref().map_or_else(|| "no commit".to_string(), |r| r.chars().take(7).collect())
    }
}

/// The id git gives these bytes as a blob (`git hash-object`): the same for a file's
/// working-tree text and its base version when they are equal, so a record can be matched
/// with either without reading the record's revision.
pub fn content_hash(bytes: &[u8]) -> String {
    git2::Oid::hash_object(git2::ObjectType::Blob, bytes).map_or_else(|_| String::new(), |o| o.to_string())
}

/// A base file changed too much for its recorded lines to stand for the new ones: the change
/// touched more than half of its code lines ([`FileDiff::old_lines_changed`]). SimRT (section 3.3) matches old and new blocks along
/// an unchanged control-flow graph; past this share, most blocks have no counterpart left and
/// a mapping would mostly guess.
pub fn too_changed(diff: &FileDiff) -> bool {
    let (changed, total) = diff.old_lines_changed();
    changed * 2 > total
}

/// How one test's record speaks for the working tree.
#[derive(Clone, Debug, Default)]
pub struct TestView {
    /// The record's revision, short (`abc1234`).
    pub revision: String,
    /// `record` or `explore`.
    pub source: String,
    /// How many threads the run had.
    pub threads: usize,
    /// How the run ended (`pass`, `fail`, ...).
    pub outcome: String,
    /// By working-tree file: the recorded points mapped onto its lines, as `(line, access)`.
    points: HashMap<FileId, Vec<(u32, Access)>>,
    /// Files the record does not speak for, and why.
    unusable: BTreeMap<FileId, String>,
}

impl TestView {
    /// The threads that executed `end` of a pair on `field` in the recorded run, or why the
    /// record cannot tell (the end's file is too changed, new, renamed or stale).
    pub fn threads_at(&self, index: &ProjectIndex, field: &FieldKey, end: &PairEnd) -> Result<BTreeSet<u16>, &str> {
        if let Some(why) = self.unusable.get(&end.file) {
            return Err(why);
        }
        let points = self.points.get(&end.file).map_or(&[][..], Vec::as_slice);
        let on_line = |a: &Access| match end.access {
            EndAccess::Read | EndAccess::Write => {
                let write = end.access == EndAccess::Write;
                match field.element {
                    // The contents of a JDK collection are elements too: `list.add(x)` runs as
                    // a `CALL` of `java.util.List.add`.
                    true => a.op == if write { "AWRITE" } else { "AREAD" } || a.op == "CALL",
                    false => a.op == if write { "WRITE" } else { "READ" } && a.field() == Some(&field.name),
                }
            }
            EndAccess::Acquire | EndAccess::Wait | EndAccess::Notify => true,
        };
        let threads: BTreeSet<u16> =
            points.iter().filter(|(line, a)| *line == end.span.line && on_line(a)).map(|(_, a)| a.thread).collect();
        if !threads.is_empty() {
            return Ok(threads);
        }
        let Some(method) = index.method_of_place(end.file, end.span) else { return Ok(threads) };
        let ran = |m: MethodRef| -> BTreeSet<u16> {
            let Some((class, name)) = method_names(index, m) else { return BTreeSet::new() };
            points
                .iter()
                .filter(|(_, a)| a.class == class && method_matches(&name, &a.method))
                .map(|(_, a)| a.thread)
                .collect()
        };
        let threads = ran(method);
        if !threads.is_empty() {
            return Ok(threads);
        }
        // SimRT section 3.3: for a method that does not exist in the old program, "the method
        // that most directly calls M' that also exists in P". Callers in the same file, nearest
        // first, up to three calls away.
        let (mut frontier, mut seen) = (vec![method], HashSet::from([method]));
        for _ in 0..3 {
            let callers: Vec<MethodRef> =
                frontier.iter().flat_map(|&m| callers_in_file(index, m)).filter(|c| seen.insert(*c)).collect();
            let threads: BTreeSet<u16> = callers.iter().flat_map(|&c| ran(c)).collect();
            if !threads.is_empty() || callers.is_empty() {
                return Ok(threads);
            }
            frontier = callers;
        }
        Ok(BTreeSet::new())
    }
}

/// A method's JVM name against the name of the method a recorded point is in: a lambda
/// written in `borrow` runs as `lambda$borrow$0`.
fn method_matches(name: &str, recorded: &str) -> bool {
    recorded == name
        || recorded.strip_prefix("lambda$").and_then(|r| r.rsplit_once('$')).is_some_and(|(m, _)| m == name)
}

/// The methods of `m`'s file that call it.
fn callers_in_file(index: &ProjectIndex, m: MethodRef) -> Vec<MethodRef> {
    let Origin::Project(file) = m.origin else { return Vec::new() };
    let Some(entry) = index.entry(file) else { return Vec::new() };
    let (r, facts) = (index.resolver(), &entry.facts);
    (0..facts.methods.len() as MethodIdx)
        .filter(|&caller| facts.calls_of(caller).any(|call| r.callees(m.origin, facts, call).contains(&m)))
        .map(|idx| MethodRef { origin: m.origin, idx })
        .collect()
}

/// The binary class and JVM name of a project method.
fn method_names(index: &ProjectIndex, m: MethodRef) -> Option<(String, String)> {
    let Origin::Project(file) = m.origin else { return None };
    let facts = &index.entry(file)?.facts;
    let method = &facts.methods[m.idx as usize];
    Some((facts.classes[method.class as usize].binary_name.clone(), method.name.clone()))
}

/// The history as it speaks for the working tree: one [`TestView`] per recorded test.
#[derive(Clone, Debug, Default)]
pub struct CoverageView {
    tests: HashMap<String, TestView>,
}

/// How the recorded lines of one file stand for the working tree's, whatever the test.
enum FileMap<'a> {
    /// Recorded on the working tree's contents.
    Same,
    /// Recorded on the base's contents: lines move through the diff.
    Base(&'a FileDiff),
}

impl CoverageView {
    /// Maps the history onto the working tree for the files holding an end of one of
    /// `impact`'s impacted pairs (see the module documentation).
    pub fn of(host: &mut Host, history: &History, impact: &Impact) -> CoverageView {
        let files: BTreeSet<FileId> =
            impact.pairs.iter().filter(|p| p.impacted()).flat_map(|p| [p.a.file, p.b.file]).collect();
        // By file: its path, the id of its working-tree text, and its base id and diff.
        type Known = (String, String, Option<(String, FileDiff)>);
        let mut known: HashMap<FileId, Known> = HashMap::new();
        for &file in &files {
            let Some(entry) = host.index().entry(file) else { continue };
            let (path, working) = (entry.path.clone(), content_hash(entry.facts.text.as_bytes()));
            let base = host.diff_from_base(&path);
            known.insert(file, (path, working, base));
        }
        let mut tests = HashMap::new();
        let no_files = BTreeMap::new();
        for (name, run) in &history.tests {
            let files = history.snapshots.get(&run.snapshot).unwrap_or(&no_files);
            let mut view = TestView {
                revision: run.short_revision(),
                source: run.source.clone(),
                threads: run.threads.len(),
                outcome: run.outcome.clone(),
                ..TestView::default()
            };
            let mut maps: HashMap<&str, (FileId, FileMap)> = HashMap::new();
            for (&file, (path, working, base)) in &known {
                let short = path.rsplit('/').next().unwrap_or(path);
                let map = match (files.get(path), base) {
                    (None, _) => Err(format!("{short} is new or renamed since the recording")),
                    (Some(h), _) if h == working => Ok(FileMap::Same),
                    (Some(h), Some((b, diff))) if h == b => match too_changed(diff) {
                        false => Ok(FileMap::Base(diff)),
                        true => {
                            let (changed, total) = diff.old_lines_changed();
                            Err(format!("{short} changed too much to map the recording ({changed} of its {total} code lines changed)"))
                        }
                    },
                    (Some(_), _) => Err(format!("the recording of {short} is stale (made on contents that are neither the base's nor the working tree's)")),
                };
                match map {
                    Ok(m) => {
                        maps.insert(path.as_str(), (file, m));
                    }
                    Err(why) => {
                        view.unusable.insert(file, why);
                    }
                }
            }
            for a in &run.accesses {
                let Some((file, map)) = maps.get(a.file.as_str()) else { continue };
                let line = match map {
                    FileMap::Same => a.line,
                    FileMap::Base(diff) => diff.map_old_line(a.line),
                };
                view.points.entry(*file).or_default().push((line, a.clone()));
            }
            tests.insert(name.clone(), view);
        }
        CoverageView { tests }
    }

    /// The view of a test's record, if it has one.
    pub fn get(&self, test: &str) -> Option<&TestView> {
        self.tests.get(test)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::facts_of;

    fn diff(old: &str, new: &str) -> FileDiff {
        FileDiff::between(&facts_of(old), &facts_of(new))
    }

    const COUNTER: &str =
        "class C {\n  int n;\n  synchronized void inc() {\n    n++;\n  }\n  int get() {\n    return n;\n  }\n}\n";

    #[test]
    fn recorded_lines_shift_with_lines_inserted_above_them() {
        let new = "class C {\n  int n;\n  int unused;\n  int other;\n  synchronized void inc() {\n    n++;\n  }\n  int get() {\n    return n;\n  }\n}\n";
        let d = diff(COUNTER, new);
        // `n++` was on line 4 and `return n` on line 7; two fields were inserted above them.
        assert_eq!((d.map_old_line(4), d.map_old_line(7)), (6, 9));
        assert_eq!(d.touched_lines().collect::<Vec<_>>(), vec![3, 4]);
        assert!(!too_changed(&d));
    }

    #[test]
    fn a_changed_line_maps_onto_its_new_hunk_and_comments_shift_without_changing() {
        // `synchronized` removed from line 3 and the write changed on line 4: both lines keep
        // their place; a comment inserted above shifts everything without touching a line.
        let new = "class C {\n  // a comment\n  int n;\n  void inc() {\n    n += 2;\n  }\n  int get() {\n    return n;\n  }\n}\n";
        let d = diff(COUNTER, new);
        assert_eq!((d.map_old_line(3), d.map_old_line(4), d.map_old_line(7)), (4, 5, 8));
        assert_eq!(d.touched_lines().collect::<Vec<_>>(), vec![4, 5]);
        let comment_only = "class C {\n  // a comment\n  int n;\n  synchronized void inc() {\n    n++;\n  }\n  int get() {\n    return n;\n  }\n}\n";
        let d = diff(COUNTER, comment_only);
        assert!(d.is_empty());
        assert_eq!(d.map_old_line(7), 8);
    }

    #[test]
    fn a_file_rewritten_in_more_than_half_its_code_lines_is_too_changed() {
        // 9 code lines; the rewrite changes 5 of them: the field, and both methods but their
        // closing braces.
        let new = "class C {\n  long total;\n  void add(long k) {\n    total += k;\n  }\n  long sum() {\n    return total;\n  }\n}\n";
        let d = diff(COUNTER, new);
        assert_eq!(d.old_lines_changed(), (5, 9));
        assert!(too_changed(&d));
        // One line of nine is far from half.
        let one = COUNTER.replace("return n;", "return n + 0;");
        let d = diff(COUNTER, &one);
        assert_eq!(d.old_lines_changed(), (1, 9));
        assert!(!too_changed(&d));
    }

    #[test]
    fn lambdas_run_as_methods_named_after_the_method_they_are_written_in() {
        assert!(method_matches("borrow", "borrow"));
        assert!(method_matches("borrow", "lambda$borrow$0"));
        assert!(method_matches("borrow", "lambda$borrow$12"));
        assert!(!method_matches("borrow", "lambda$give$0"));
        assert!(!method_matches("borrow", "borrowed"));
    }

    #[test]
    fn records_on_the_same_sources_share_one_snapshot_and_unused_ones_are_dropped() {
        let snap = |hash: &str| Snapshot { files: BTreeMap::from([("A.java".to_string(), hash.to_string())]) };
        let (old, new) = (snap("1111"), snap("2222"));
        let run = |s: &Snapshot| TestRun { snapshot: s.id(), ..TestRun::default() };
        let mut h = History::default();
        h.add(&old, vec![("T#a".into(), run(&old)), ("T#b".into(), run(&old))]);
        assert_eq!(h.snapshots.len(), 1);
        h.add(&new, vec![("T#a".into(), run(&new))]);
        assert_eq!(h.snapshots.len(), 2);
        h.add(&new, vec![("T#b".into(), run(&new))]);
        assert_eq!(h.snapshots.keys().collect::<Vec<_>>(), [&new.id()]);
        assert_ne!(old.id(), new.id());
    }

    #[test]
    fn content_hash_is_gits_blob_id() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(content_hash(b"hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
    }
}
