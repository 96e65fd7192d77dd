//! The incremental path (tree-sitter re-parse with the edited old tree, facts of the
//! edited file only, its diff against the base) gives the same result as analysing the
//! final text from scratch, for random sequences of edits: on one file, the impact; on a
//! generated workspace of a few hundred files, edited in bodies and declarations in
//! several files, with files deleted and created again, the index itself too (each
//! file's resolved sites and locks, the inverted index, the sharing), after every edit
//! against an index rebuilt from the same facts and at the end against a fresh host that
//! reads the files from disk.
//!
//! `PROPTEST_CASES=256` runs more cases than the default. The regressions file keeps
//! cases that caught stale-index bugs (injected to see that the test fails).

use racelens_test_support as support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::shared::Sharing;
use racelens_analysis::impact::Options;
use racelens_analysis::index::{FileId, Jdk, ProjectIndex};
use racelens_analysis::java::{facts_of, Document};
use support::*;

const POOL: &str = "tests/fixtures/object-pool/base/src/main/java/org/example/pool/ObjectPool.java";
const REL: &str = "src/main/java/org/example/pool/ObjectPool.java";

/// Fragments a developer types: Java that matters for the analysis, and junk.
const FRAGMENTS: &[&str] = &[
    "synchronized ",
    "volatile ",
    "numIdle++;",
    "numActive--;",
    "\n",
    "{",
    "}",
    "(",
    ";",
    "// note\n",
    "/* c */",
    "synchronized (this) {",
    "idle.push(null);",
    "notifyAll();",
    "wait();",
    "lock.lock();",
    "lock.unlock();",
    "private int extra;\n",
    "  ",
    "é",
    "return;",
    "if (closed) ",
    "x -> x",
    "new Runnable() { public void run() {} }",
];

#[derive(Clone, Debug)]
struct Edit {
    at: f64,
    delete: usize,
    insert: &'static str,
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        (0.0..1.0f64, 0usize..12, prop::sample::select(FRAGMENTS)).prop_map(|(at, delete, insert)| Edit {
            at,
            delete,
            insert,
        }),
        1..12,
    )
}

fn render(host: &Host, impact: &racelens_analysis::impact::Impact) -> String {
    format!("{:#?}\n{:#?}\n{:#?}", icps(impact), pairs(host, impact), warnings(host, impact))
}

/// `PROPTEST_CASES`, or `default` cases.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), ..ProptestConfig::default() })]

    #[test]
    fn incremental_equals_from_scratch(edits in edits()) {
        let base = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(POOL)).unwrap();
        let repo = repo_with(&[(REL, &base)], &[]);
        let mut host = Host::open(repo.path(), &HostOptions::default()).unwrap();
        host.load().unwrap();
        let mut doc = Document::new(Arc::from(base.as_str()));
        for e in &edits {
            let len = doc.text().len();
            let start = ((len as f64) * e.at) as usize;
            doc.edit(start, start + e.delete, e.insert);
            // What the language server does on each keystroke.
            host.set_overlay(REL, doc.text().clone(), Some(doc.facts().clone()));
            let _ = host.analyze(&Options::new());
        }
        let incremental = host.analyze(&Options::new());
        let final_text = doc.text().to_string();
        // The incremental parse gives the facts a fresh parse gives.
        let scratch = facts_of(&final_text);
        prop_assert_eq!(doc.facts().as_ref(), scratch.as_ref());

        std::fs::write(repo.path().join(REL), &final_text).unwrap();
        let (fresh_host, fresh) = analyze(repo.path());
        prop_assert_eq!(render(&host, &incremental), render(&fresh_host, &fresh));
    }
}

/// The generated workspace: classes `gen.p{k}.C{i}` in `PACKAGES` packages, each holding
/// the next (in the next package) and calling into it under its own lock, with a
/// superclass (its package's `Base`, the previous class, or none), wait and notify,
/// thread starts, every other one its package's registry's static field and lock, and by
/// turns a static counter, a `ReentrantLock`, an inner thread class, or a static nested
/// class and a field read two classes away. So fields, locks and method names are joined
/// across many files, and a file's resolution depends on other files' declarations.
/// Each package has its own `Base` and `Registry` so that no field has so many accesses
/// that its pairs are capped (which pairs are kept then follows the file ids).
const CLASSES: usize = 240;
const PACKAGES: usize = 8;
const FILES: usize = CLASSES + 2 * PACKAGES;

fn package(i: usize) -> usize {
    match i < CLASSES {
        true => i % PACKAGES,
        false => (i - CLASSES) % PACKAGES,
    }
}

fn class_name(i: usize) -> String {
    format!("gen.p{}.C{i}", package(i))
}

fn generated_class(i: usize) -> String {
    let next = (i + 1) % CLASSES;
    let superclass = match i % 3 {
        0 => "Base".to_string(),
        1 => format!("C{}", i - 1),
        _ => "Object".to_string(),
    };
    let mut imports = vec![class_name(next)];
    if i % 3 == 1 {
        imports.push(class_name(i - 1));
    }
    let imports: String = imports.iter().map(|c| format!("import {c};\n")).collect();
    let publish = match i % 2 {
        0 => "        synchronized (Registry.class) {\n            Registry.total += count;\n        }\n",
        _ => "",
    };
    // Members a subclass reaches: `level` here, `shared` in `Base`.
    let inherited = match i % 3 {
        0 => "    protected int level;\n\n    public void inc() {\n        shared++;\n        touch();\n    }\n",
        1 => "    public void inc() {\n        level++;\n        shared--;\n        Base.instances++;\n    }\n",
        _ => "",
    };
    let shape = match i % 4 {
        0 => format!("    static int created;\n\n    public C{i}() {{\n        synchronized (C{i}.class) {{\n            created++;\n        }}\n    }}\n"),
        1 => "    private final ReentrantLock rl = new ReentrantLock();\n\n    public void locked() {\n        rl.lock();\n        try {\n            count++;\n        } finally {\n            rl.unlock();\n        }\n    }\n".to_string(),
        2 => "    class Worker extends Thread {\n        public void run() {\n            synchronized (lock) {\n                count++;\n                lock.notify();\n            }\n        }\n    }\n\n    public void spawn() {\n        new Worker().start();\n    }\n".to_string(),
        _ => "    static class Stats {\n        static int hits;\n    }\n\n    public int far() {\n        Stats.hits++;\n        return next.next.count;\n    }\n".to_string(),
    };
    format!(
        r#"package gen.p{package};

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
{imports}
public class C{i} extends {superclass} {{
    private final Object lock = new Object();
    private int count;
    private volatile boolean open = true;
    private final List<String> items = new ArrayList<>();
    private C{next} next;

{inherited}
{shape}
    public synchronized void add(String s) {{
        items.add(s);
        count++;
        next.bump();
    }}

    public void bump() {{
        synchronized (lock) {{
            count++;
            lock.notifyAll();
        }}
    }}

    public int read() {{
        return count + items.size() + next.count;
    }}

    public void drain() {{
        next.items.clear();
    }}

    public void await() throws InterruptedException {{
        synchronized (lock) {{
            while (count == 0) {{
                lock.wait();
            }}
        }}
    }}

    public void publish() {{
{publish}        open = false;
    }}

    public void start() {{
        new Thread(() -> next.add("x")).start();
    }}
}}
"#,
        package = package(i),
    )
}

const BASE_CLASS: &str = "\npublic class Base {\n    protected int shared;\n    protected static int instances;\n    protected final Object baseLock = new Object();\n\n    public void touch() {\n        synchronized (baseLock) {\n            shared++;\n        }\n    }\n}\n";

const REGISTRY_CLASS: &str = "\npublic class Registry {\n    static int total;\n\n    static synchronized int total() {\n        return total;\n    }\n}\n";

/// Files `0..CLASSES` are the classes, then come each package's `Base`, then each
/// package's `Registry`.
fn generated_path(i: usize) -> String {
    let name = match i {
        i if i < CLASSES => format!("C{i}"),
        i if i < CLASSES + PACKAGES => "Base".into(),
        _ => "Registry".into(),
    };
    format!("src/gen/p{}/{name}.java", package(i))
}

fn generated_text(i: usize) -> String {
    let text = match i {
        i if i < CLASSES => return generated_class(i),
        i if i < CLASSES + PACKAGES => BASE_CLASS,
        _ => REGISTRY_CLASS,
    };
    format!("package gen.p{};\n{text}", package(i))
}

/// Fragments that join files: other classes' fields, the registry's lock and field.
const CROSS_FRAGMENTS: &[&str] = &[
    "Registry.total++;",
    "next.count = 1;",
    "synchronized (Registry.class) {",
    "next.bump();",
    "lock.notify();",
    "count++;",
    "}",
    "synchronized ",
    "volatile ",
    "private int extra;\n",
    "\n",
    "int x = next.read();",
    "next.items.clear();",
];

/// Whole statements, typed at a statement boundary: the edits that keep declarations as
/// they are, so that only the edited file is resolved again.
const STATEMENTS: &[&str] = &[
    "Registry.total++;",
    "next.count = 1;",
    "next.bump();",
    "count++;",
    "int x = next.read();",
    "next.items.clear();",
    "synchronized (lock) { next.count--; }",
    "lock.notify();",
    "next.open = true;",
    "synchronized (Registry.class) { count = Registry.total; }",
    "shared++;",
    "level = 2;",
    "Base.instances--;",
    "next.level++;",
    "new Thread(this::bump).start();",
    "rl.lock();",
    "synchronized (baseLock) { baseLock.notifyAll(); }",
    "next.next.open = false;",
];

/// Declaration edits, `(from, to)` at the first `from` of a file: fields added,
/// removed, made volatile or not static, methods made synchronized or static or given a
/// parameter, superclasses changed. Other files' resolution depends on them.
const DECLARATIONS: &[(&str, &str)] = &[
    ("    private int count;\n", ""),
    ("private int count;", "private volatile int count;"),
    ("private volatile boolean open", "private boolean open"),
    ("    private int count;\n", "    private int count;\n    static int extra;\n"),
    ("    protected int level;\n", ""),
    ("protected int level;", "protected volatile int level;"),
    ("static int created;", "int created;"),
    ("public void bump()", "public synchronized void bump()"),
    ("public void bump()", "public static void bump()"),
    ("public int read()", "public int read(int n)"),
    (" extends Base {", " extends Object {"),
    (" extends Object {", " extends Base {"),
    (" extends C", " extends Base implements C"),
    ("protected int shared;", "protected volatile int shared;"),
    ("protected static int instances;", "protected int instances;"),
    ("static int total;", "static volatile int total;"),
    // An initializer: other files' resolution reads it (which list a field holds).
    ("items = new ArrayList<>();", "items = new java.util.concurrent.CopyOnWriteArrayList<>();"),
    ("items = new java.util.concurrent.CopyOnWriteArrayList<>();", "items = new ArrayList<>();"),
    ("private C", "private Base next2;\n    private C"),
];

#[derive(Clone, Debug)]
enum FileEdit {
    /// Text typed anywhere, replacing `delete` bytes.
    Type { file: usize, at: f64, delete: usize, insert: &'static str },
    /// A line typed after one that ends with `;`.
    Statement { file: usize, at: f64, insert: &'static str },
    /// A line that ends with `;` deleted: the edit that leaves stale entries behind.
    Erase { file: usize, at: f64 },
    /// One of the `DECLARATIONS` that apply to the file, picked by `at`, made.
    Declaration { file: usize, at: f64 },
    /// The file deleted on disk; a later edit creates it again with its base text.
    Delete { file: usize },
}

/// Edits mostly of a few files, as a developer makes them (so that a file is edited again
/// after its diff was cached), three classes and a package's `Base` or `Registry` (many
/// files depend on their declarations), and now and then of any file.
fn file_edits() -> impl Strategy<Value = Vec<FileEdit>> {
    (prop::collection::vec(0..CLASSES, 3), CLASSES..FILES).prop_flat_map(|(classes, hub)| {
        let focus: Vec<usize> = classes.into_iter().chain([hub]).collect();
        let file = prop_oneof![3 => prop::sample::select(focus), 1 => 0..FILES].boxed();
        let typed =
            (file.clone(), 0.0..1.0f64, 0usize..12, prop::sample::select([FRAGMENTS, CROSS_FRAGMENTS].concat()))
                .prop_map(|(file, at, delete, insert)| FileEdit::Type { file, at, delete, insert });
        let statement = (file.clone(), 0.0..1.0f64, prop::sample::select(STATEMENTS))
            .prop_map(|(file, at, insert)| FileEdit::Statement { file, at, insert });
        let erase = (file.clone(), 0.0..1.0f64).prop_map(|(file, at)| FileEdit::Erase { file, at });
        let declaration = (file.clone(), 0.0..1.0f64).prop_map(|(file, at)| FileEdit::Declaration { file, at });
        let delete = file.prop_map(|file| FileEdit::Delete { file });
        prop::collection::vec(prop_oneof![2 => typed, 3 => statement, 2 => erase, 2 => declaration, 1 => delete], 1..16)
    })
}

impl FileEdit {
    fn file(&self) -> usize {
        match *self {
            FileEdit::Type { file, .. }
            | FileEdit::Statement { file, .. }
            | FileEdit::Erase { file, .. }
            | FileEdit::Declaration { file, .. }
            | FileEdit::Delete { file } => file,
        }
    }

    /// The range of `text` the edit replaces, and with what.
    fn change(&self, text: &str) -> Option<(usize, usize, String)> {
        match *self {
            FileEdit::Type { at, delete, insert, .. } => {
                let start = ((text.len() as f64) * at) as usize;
                Some((start, start + delete, insert.to_string()))
            }
            FileEdit::Statement { at, insert, .. } => {
                let start = statement_end(text, at).unwrap_or(text.len());
                Some((start, start, format!("{insert}\n")))
            }
            FileEdit::Erase { at, .. } => {
                let end = statement_end(text, at)?;
                let start = text[..end - 1].rfind('\n').map_or(0, |i| i + 1);
                Some((start, end, String::new()))
            }
            FileEdit::Declaration { at, .. } => {
                let applicable: Vec<&(&str, &str)> =
                    DECLARATIONS.iter().filter(|(from, _)| text.contains(from)).collect();
                let (from, to) = applicable.get(((applicable.len() as f64) * at) as usize)?;
                let start = text.find(from)?;
                Some((start, start + from.len(), to.to_string()))
            }
            FileEdit::Delete { .. } => None,
        }
    }
}

/// The end of the line of one of the lines of `text` that end with `;`, picked by `at`.
fn statement_end(text: &str, at: f64) -> Option<usize> {
    let ends: Vec<usize> = text.match_indices(";\n").map(|(i, _)| i + 2).collect();
    (!ends.is_empty()).then(|| ends[((ends.len() as f64) * at) as usize % ends.len()])
}

/// What the editor holds of a generated file.
enum Buffer {
    /// The text on disk, as committed.
    Committed,
    Open(Document),
    Deleted,
}

/// Applies an edit to the files and tells `host`, as the language server does: an open
/// buffer's text on each keystroke, a deleted file from the file watcher.
fn apply(host: &mut Host, root: &std::path::Path, buffers: &mut [Buffer], e: &FileEdit) {
    let i = e.file();
    let path = generated_path(i);
    if let FileEdit::Delete { .. } = e {
        if !matches!(buffers[i], Buffer::Deleted) {
            let _ = std::fs::remove_file(root.join(&path));
            match buffers[i] {
                Buffer::Open(_) => host.remove_overlay(&path),
                _ => host.reload_file(&path),
            }
            host.refresh_git().unwrap();
            buffers[i] = Buffer::Deleted;
        }
        return;
    }
    if !matches!(buffers[i], Buffer::Open(_)) {
        buffers[i] = Buffer::Open(Document::new(Arc::from(generated_text(i))));
    }
    let Buffer::Open(doc) = &mut buffers[i] else { unreachable!() };
    if let Some((start, end, insert)) = e.change(doc.text()) {
        doc.edit(start, end, &insert);
    }
    host.set_overlay(&path, doc.text().clone(), Some(doc.facts().clone()));
}

/// The JDK the hosts find, opened once.
fn jdk() -> Option<Arc<Jdk>> {
    static JDK: OnceLock<Option<Arc<Jdk>>> = OnceLock::new();
    JDK.get_or_init(|| Jdk::locate().and_then(|p| Jdk::open(&p).ok()).map(Arc::new)).clone()
}

/// An index built from scratch from `index`'s files (their facts are the same either way:
/// see `incremental_equals_from_scratch`); cheap enough to check every edit against.
fn rebuilt(index: &ProjectIndex) -> ProjectIndex {
    let mut scratch = ProjectIndex::new(jdk());
    for (_, e) in index.entries() {
        scratch.upsert(&e.path, e.facts.clone());
    }
    scratch.commit();
    scratch
}

/// What is compared, by path, key or class: lines that say it.
type Lines = BTreeMap<String, Vec<String>>;

/// The index `ours` keeps (each file's resolution, the inverted index, the sharing) is
/// the one `theirs` built from scratch.
fn same_index(
    ours: &ProjectIndex,
    our_sharing: &Sharing,
    theirs: &ProjectIndex,
    their_sharing: &Sharing,
) -> Result<(), TestCaseError> {
    first_difference("resolution", &resolution(ours), &resolution(theirs))?;
    first_difference("inverted index", &inverted(ours, theirs), &inverted(theirs, ours))?;
    first_difference("sharing", &sharing(our_sharing, ours, theirs), &sharing(their_sharing, theirs, ours))
}

/// Everything the index keeps of each file: its resolution, its maps ordered.
fn resolution(index: &ProjectIndex) -> Lines {
    fn lines<T: std::fmt::Debug>(what: &str, items: impl IntoIterator<Item = T>) -> Vec<String> {
        items.into_iter().map(|i| format!("{what} {i:?}")).collect()
    }
    index
        .entries()
        .map(|(_, e)| {
            let r = &e.resolved;
            let caller_locks: BTreeMap<_, _> = r.caller_locks.iter().collect();
            let all = [
                lines("site", &r.sites),
                lines("lock", &r.locks),
                lines("caller locks", caller_locks),
                lines("monitor call", &r.monitor_calls),
                lines("escape seed", &r.escape_seeds),
                lines("holds", &r.holds),
                lines("supertype", &r.supertypes),
                lines("starts threads", &r.starts_threads),
                lines("evidence", [r.evidence]),
            ];
            (e.path.clone(), all.concat())
        })
        .collect()
}

/// The inverted index's answers as paths, for every key either index holds.
fn inverted(index: &ProjectIndex, other: &ProjectIndex) -> Lines {
    // A file the index no longer holds is named by its id.
    let paths = |ids: &mut dyn Iterator<Item = FileId>| -> Vec<String> {
        ids.map(|id| index.entry(id).map_or(format!("{id:?}"), |e| e.path.clone())).collect()
    };
    let mut out = BTreeMap::new();
    for i in [index, other] {
        let (fields, locks, calls) = i.indexed_keys();
        for f in fields {
            out.insert(format!("field {f:?}"), paths(&mut index.files_accessing(f)));
        }
        for l in locks {
            out.insert(format!("lock {l}"), paths(&mut index.files_locking(l)));
        }
        for c in calls {
            out.insert(format!("call {c}"), paths(&mut index.files_calling(c)));
        }
    }
    for files in out.values_mut() {
        files.sort();
    }
    out
}

/// Which classes escape and why, for every class either index names.
fn sharing(shared: &Sharing, index: &ProjectIndex, other: &ProjectIndex) -> Lines {
    let mut classes = BTreeSet::new();
    for (_, e) in index.entries().chain(other.entries()) {
        classes.extend(e.facts.classes.iter().map(|c| c.binary_name.to_string()));
        classes.extend(e.resolved.holds.iter().flat_map(|(a, b)| [a.to_string(), b.to_string()]));
        classes.extend(e.resolved.escape_seeds.iter().map(|(c, _)| c.to_string()));
    }
    classes
        .into_iter()
        .map(|c| {
            (
                c.clone(),
                vec![format!("escapes {:?}, not thread-safe {}", shared.escapes(&c), shared.is_not_thread_safe(&c))],
            )
        })
        .collect()
}

/// The impact as lines: ICPs, pairs, warnings. What is ordered by file follows the file
/// ids, and a file deleted and created again has a new one: so the lines are sorted, and
/// so are the two ends of a pair (the end that comes first when neither or both are
/// impacted is the one of the lower id).
fn impact(host: &Host, impact: &racelens_analysis::impact::Impact) -> Lines {
    let unordered =
        |pair: String| match pair.split_once(": ").and_then(|(head, ends)| Some((head, ends.split_once(" <-> ")?))) {
            Some((head, (a, b))) if a > b => format!("{head}: {b} <-> {a}"),
            _ => pair,
        };
    let pairs = pairs(host, impact).into_iter().map(unordered).collect();
    let mut out = BTreeMap::from([
        ("ICPs".into(), icps(impact)),
        ("pairs".into(), pairs),
        ("warnings".into(), warnings(host, impact)),
    ]);
    out.values_mut().for_each(|lines| lines.sort());
    out
}

/// Fails on the first key whose lines differ, saying which lines each side has alone.
fn first_difference(what: &str, ours: &Lines, theirs: &Lines) -> Result<(), TestCaseError> {
    let Some(key) = ours.keys().chain(theirs.keys()).find(|k| ours.get(*k) != theirs.get(*k)) else { return Ok(()) };
    let (a, b) = (ours.get(key).map_or(&[][..], Vec::as_slice), theirs.get(key).map_or(&[][..], Vec::as_slice));
    let alone =
        |x: &[String], y: &[String]| -> Vec<String> { x.iter().filter(|l| !y.contains(l)).take(8).cloned().collect() };
    let count = |l: Option<&Vec<String>>| l.map_or("none".to_string(), |l| l.len().to_string());
    let (only_ours, only_theirs) = (alone(a, b), alone(b, a));
    let how = match only_ours.is_empty() && only_theirs.is_empty() {
        true => "the same lines in another order or number".to_string(),
        false => format!("only incremental {only_ours:#?}, only from scratch {only_theirs:#?}"),
    };
    Err(TestCaseError::fail(format!(
        "{what} of {key} differs (lines: incremental {}, from scratch {}): {how}",
        count(ours.get(key)),
        count(theirs.get(key))
    )))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(8), ..ProptestConfig::default() })]

    /// The same on a workspace of many files joined by fields, locks, calls and
    /// inheritance, editing several of them: what the index keeps (resolutions, inverted
    /// index, sharing) and the impact must be what a fresh analysis finds.
    #[test]
    fn incremental_equals_from_scratch_in_a_large_workspace(edits in file_edits()) {
        let texts: Vec<String> = (0..FILES).map(generated_text).collect();
        let paths: Vec<String> = (0..FILES).map(generated_path).collect();
        let base: Vec<(&str, &str)> = paths.iter().map(String::as_str).zip(texts.iter().map(String::as_str)).collect();
        let repo = repo_with(&base, &[]);
        let mut host = Host::open(repo.path(), &HostOptions::default()).unwrap();
        host.load().unwrap();
        let mut buffers: Vec<Buffer> = (0..FILES).map(|_| Buffer::Committed).collect();
        for e in &edits {
            apply(&mut host, repo.path(), &mut buffers, e);
            let _ = host.analyze(&Options::new());
            // After every edit: a later edit (a declaration's) may mend a stale entry.
            let sharing = host.sharing();
            let scratch = rebuilt(host.index());
            same_index(host.index(), &sharing, &scratch, &Sharing::compute(&scratch))?;
        }
        let all = Options { all_pairs: true, ..Options::new() };
        let incremental = host.analyze(&Options::new());
        let incremental_all = host.analyze(&all);
        for (path, buffer) in paths.iter().zip(&buffers) {
            if let Buffer::Open(doc) = buffer {
                std::fs::write(repo.path().join(path), doc.text().as_bytes()).unwrap();
            }
        }
        let (mut fresh_host, fresh) = analyze(repo.path());
        let fresh_all = fresh_host.analyze(&all);
        let (our_sharing, their_sharing) = (host.sharing(), fresh_host.sharing());
        same_index(host.index(), &our_sharing, fresh_host.index(), &their_sharing)?;
        first_difference("impact", &impact(&host, &incremental), &impact(&fresh_host, &fresh))?;
        first_difference("impact with all pairs", &impact(&host, &incremental_all), &impact(&fresh_host, &fresh_all))?;
    }
}
