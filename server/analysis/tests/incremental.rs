//! The incremental path (tree-sitter re-parse with the edited old tree, facts of the
//! edited file only, its diff against the base) gives the same result as analysing the
//! final text from scratch, for random sequences of edits.

mod support;

use std::sync::Arc;

use proptest::prelude::*;
use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::Options;
use racelens_analysis::java::{facts_of, Document};
use support::*;

const POOL: &str = "tests/fixtures/object-pool/base/src/main/java/org/example/pool/ObjectPool.java";
const REL: &str = "src/main/java/org/example/pool/ObjectPool.java";

/// Fragments a developer types: Java that matters for the analysis, and junk.
const FRAGMENTS: &[&str] = &[
    "synchronized ", "volatile ", "numIdle++;", "numActive--;", "\n", "{", "}", "(", ";", "// note\n", "/* c */",
    "synchronized (this) {", "idle.push(null);", "notifyAll();", "wait();", "lock.lock();", "lock.unlock();",
    "private int extra;\n", "  ", "é", "return;", "if (closed) ", "x -> x", "new Runnable() { public void run() {} }",
];

#[derive(Clone, Debug)]
struct Edit {
    at: f64,
    delete: usize,
    insert: &'static str,
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((0.0..1.0f64, 0usize..12, prop::sample::select(FRAGMENTS)).prop_map(|(at, delete, insert)| Edit { at, delete, insert }), 1..12)
}

fn render(host: &Host, impact: &racelens_analysis::impact::Impact) -> String {
    format!("{:#?}\n{:#?}\n{:#?}", icps(impact), pairs(host, impact), warnings(host, impact))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

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

/// Classes of the generated workspace: each holds the next, calls into it under its own
/// lock, shares a registry's static field and lock, waits and notifies; so fields, locks
/// and method names are joined across many files.
const CLASSES: usize = 48;

fn generated_class(i: usize) -> String {
    let next = (i + 1) % CLASSES;
    format!(
        r#"package gen;

import java.util.ArrayList;
import java.util.List;

public class C{i} {{
    private final Object lock = new Object();
    private int count;
    private volatile boolean open = true;
    private final List<String> items = new ArrayList<>();
    private C{next} next;

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
        return count + items.size();
    }}

    public void await() throws InterruptedException {{
        synchronized (lock) {{
            while (count == 0) {{
                lock.wait();
            }}
        }}
    }}

    public void publish() {{
        synchronized (Registry.class) {{
            Registry.total += count;
        }}
        open = false;
    }}

    public void start() {{
        new Thread(() -> next.add("x")).start();
    }}
}}
"#
    )
}

const REGISTRY: &str = "package gen;\n\npublic class Registry {\n    static int total;\n\n    static synchronized int total() {\n        return total;\n    }\n}\n";

/// Fragments that join files: other classes' fields, the registry's lock and field.
const CROSS_FRAGMENTS: &[&str] = &[
    "Registry.total++;", "next.count = 1;", "synchronized (Registry.class) {", "next.bump();", "lock.notify();",
    "count++;", "}", "synchronized ", "volatile ", "private int extra;\n", "\n", "int x = next.read();", "next.items.clear();",
];

/// Whole statements, typed at a statement boundary: the edits that keep declarations as
/// they are, so that only the edited file is resolved again.
const STATEMENTS: &[&str] = &[
    "Registry.total++;", "next.count = 1;", "next.bump();", "count++;", "int x = next.read();", "next.items.clear();",
    "synchronized (lock) { next.count--; }", "lock.notify();", "next.open = true;", "synchronized (Registry.class) { count = Registry.total; }",
];

#[derive(Clone, Debug)]
struct FileEdit {
    file: usize,
    at: f64,
    delete: usize,
    insert: &'static str,
    /// Insert a line after one that ends with `;` (deleting nothing), rather than anywhere.
    statement: bool,
}

fn file_edits() -> impl Strategy<Value = Vec<FileEdit>> {
    let junk = (0..CLASSES + 1, 0.0..1.0f64, 0usize..12, prop::sample::select([FRAGMENTS, CROSS_FRAGMENTS].concat()))
        .prop_map(|(file, at, delete, insert)| FileEdit { file, at, delete, insert, statement: false });
    let statement = (0..CLASSES + 1, 0.0..1.0f64, prop::sample::select(STATEMENTS))
        .prop_map(|(file, at, insert)| FileEdit { file, at, delete: 0, insert, statement: true });
    prop::collection::vec(prop_oneof![junk, statement.clone(), statement], 1..16)
}

/// Where an edit goes in `text`: anywhere, or on a new line after a statement's `;`.
fn edit_offset(text: &str, e: &FileEdit) -> usize {
    if !e.statement {
        return ((text.len() as f64) * e.at) as usize;
    }
    let ends: Vec<usize> = text.match_indices(";\n").map(|(i, _)| i + 2).collect();
    match ends.is_empty() {
        true => text.len(),
        false => ends[((ends.len() as f64) * e.at) as usize % ends.len()],
    }
}

fn generated_path(i: usize) -> String {
    match i {
        CLASSES => "src/gen/Registry.java".into(),
        i => format!("src/gen/C{i}.java"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The same on a workspace of many files joined by fields, locks and calls, editing
    /// several of them: what the inverted index and the other per-file caches keep must
    /// be what a fresh analysis finds.
    #[test]
    fn incremental_equals_from_scratch_in_a_large_workspace(edits in file_edits()) {
        let texts: Vec<String> = (0..CLASSES).map(generated_class).chain([REGISTRY.to_string()]).collect();
        let paths: Vec<String> = (0..=CLASSES).map(generated_path).collect();
        let base: Vec<(&str, &str)> = paths.iter().map(String::as_str).zip(texts.iter().map(String::as_str)).collect();
        let repo = repo_with(&base, &[]);
        let mut host = Host::open(repo.path(), &HostOptions::default()).unwrap();
        host.load().unwrap();
        let mut docs: Vec<Option<Document>> = (0..=CLASSES).map(|_| None).collect();
        let all = Options { all_pairs: true, ..Options::new() };
        for e in &edits {
            let doc = docs[e.file].get_or_insert_with(|| Document::new(Arc::from(texts[e.file].as_str())));
            let start = edit_offset(doc.text(), e);
            let insert = if e.statement { format!("{}\n", e.insert) } else { e.insert.to_string() };
            doc.edit(start, start + e.delete, &insert);
            host.set_overlay(&paths[e.file], doc.text().clone(), Some(doc.facts().clone()));
            let _ = host.analyze(&Options::new());
        }
        let incremental = host.analyze(&Options::new());
        let incremental_all = host.analyze(&all);
        for (i, doc) in docs.iter().enumerate() {
            if let Some(doc) = doc {
                std::fs::write(repo.path().join(&paths[i]), doc.text().as_bytes()).unwrap();
            }
        }
        let (mut fresh_host, fresh) = analyze(repo.path());
        let fresh_all = fresh_host.analyze(&all);
        prop_assert_eq!(render(&host, &incremental), render(&fresh_host, &fresh));
        prop_assert_eq!(render(&host, &incremental_all), render(&fresh_host, &fresh_all));
    }
}

