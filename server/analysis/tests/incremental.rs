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
