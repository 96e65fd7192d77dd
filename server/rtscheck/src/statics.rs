//! The rules checked without a JVM, on the analysis itself (`Host`, as `racelens select`
//! and the language server drive it):
//!
//! - **R5** (RTSCheck, Table I, a precision rule): a revision equal to the one before it
//!   selects no test. Here: the unchanged work tree, and every no-op evolution (a comment, a
//!   brace moved to its own line), yield no impacted code point, no impacted pair and no
//!   selected test.
//! - **R6** (Table I, a generality rule): on the first revision, with no history, the tool
//!   selects what RetestAll runs. racelens selects only tests that start threads, so here:
//!   every multithreaded test, when the whole program is the change: a repository without
//!   a commit (unborn `HEAD`), and one whose only commit is empty.
//! - **Incremental = from scratch** (ours, the invariant of ARCHITECTURE.md that
//!   `analysis/tests/incremental.rs` checks on one file): the evolution typed into a Host
//!   that has analysed the base (an incremental re-parse, `set_overlay`, as the language
//!   server does on each keystroke) gives the impacted points, pairs, diagnostics and
//!   ranking that a fresh Host gives on the evolved work tree; and undoing it gives those
//!   of the unchanged tree again.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::Options;
use racelens_analysis::java::Document;
use racelens_analysis::rank;

use crate::gen::Source;

/// What the analysis says about a work tree, rendered with paths, so that two hosts can be
/// compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// One line per item, by kind: `icp`, `pair`, `diagnostic`, and `selected` (the selected
    /// tests, best first).
    lines: BTreeMap<&'static str, Vec<String>>,
    /// `racelens select --json`'s object.
    pub ranking: String,
}

impl Snapshot {
    pub fn of(host: &mut Host) -> Snapshot {
        let impact = host.analyze(&Options::new());
        let sharing = host.sharing();
        let selection = rank::select(host.index(), &sharing, &impact);
        let path = |f| host.path_of(f).to_string();
        let icp = |i: &racelens_analysis::impact::Icp| {
            let file = match i.origin {
                Some(racelens_analysis::index::Origin::Project(f)) => path(f),
                _ => "-".into(),
            };
            let line = i.line.map_or("_".into(), |l| l.to_string());
            format!(
                "<{}, {}, {line}, {}> {} {file}",
                i.class.as_deref().unwrap_or("_"),
                i.method.as_deref().unwrap_or("_"),
                i.field.as_deref().unwrap_or("_"),
                i.reason.code()
            )
        };
        let end = |e: &racelens_analysis::impact::PairEnd| {
            let locks: Vec<&str> = e.locks.iter().map(|l| l.display.as_str()).collect();
            format!(
                "{} {}:{} {} [{}]{}",
                e.access.as_str(),
                path(e.file),
                e.span.line,
                e.method,
                locks.join(","),
                if e.impacted { "*" } else { "" }
            )
        };
        let mut lines = BTreeMap::new();
        lines.insert("icp", impact.icps.iter().map(icp).collect());
        lines.insert(
            "pair",
            impact
                .pairs
                .iter()
                .map(|p| {
                    format!(
                        "{} {}{}: {} <-> {}",
                        p.kind.as_str(),
                        p.field.display_name(),
                        if p.protected { " protected" } else { "" },
                        end(&p.a),
                        end(&p.b)
                    )
                })
                .collect(),
        );
        lines.insert(
            "diagnostic",
            impact
                .diagnostics
                .iter()
                .map(|d| format!("{}:{} {} {}", path(d.file), d.span.line, d.code, d.message))
                .collect(),
        );
        lines.insert("selected", selection.tests[..selection.selected].iter().map(|t| t.test.clone()).collect());
        let ranking = serde_json::to_string_pretty(&selection).expect("the selection serializes");
        Snapshot { lines, ranking }
    }

    fn get(&self, kind: &str) -> &[String] {
        self.lines.get(kind).map_or(&[], |v| v.as_slice())
    }

    pub fn icps(&self) -> &[String] {
        self.get("icp")
    }

    /// The selected tests, best first.
    pub fn selected(&self) -> &[String] {
        self.get("selected")
    }

    /// Impacted pairs (at least one end impacted).
    pub fn impacted_pairs(&self) -> usize {
        self.get("pair").iter().filter(|p| p.contains('*')).count()
    }

    /// Where an incremental snapshot (`self`) and one from scratch differ, a line per item.
    pub fn difference(&self, scratch: &Snapshot) -> String {
        let mut out = String::new();
        for (kind, mine) in &self.lines {
            let theirs = scratch.get(kind);
            out.extend(
                mine.iter().filter(|x| !theirs.contains(x)).map(|x| format!("  {kind} only incremental: {x}\n")),
            );
            out.extend(
                theirs.iter().filter(|x| !mine.contains(x)).map(|x| format!("  {kind} only from scratch: {x}\n")),
            );
        }
        if out.is_empty() && self.ranking != scratch.ranking {
            out += "  the rankings differ (the same tests selected)\n";
        }
        out
    }
}

/// A fresh host on the work tree at `dir`, as `racelens select` opens one.
pub fn fresh(dir: &Path) -> Result<Snapshot, String> {
    let mut host = Host::open(dir, &HostOptions::default())?;
    host.load()?;
    Ok(Snapshot::of(&mut host))
}

/// A host that analysed the base once and is fed each evolution as editor buffers.
pub struct Incremental {
    host: Host,
}

impl Incremental {
    pub fn open(dir: &Path) -> Result<Incremental, String> {
        let mut host = Host::open(dir, &HostOptions::default())?;
        host.load()?;
        let _ = host.analyze(&Options::new());
        Ok(Incremental { host })
    }

    /// Types the change from `base` to `evolved` into the open buffers, as one edit per file
    /// (the smallest range that covers it, re-parsed incrementally), and analyses.
    pub fn edit(&mut self, base: &[Source], evolved: &[Source]) -> Snapshot {
        for (old, new) in base.iter().zip(evolved) {
            debug_assert_eq!(old.path, new.path);
            if old.text == new.text {
                continue;
            }
            let mut doc = Document::new(Arc::from(old.text.as_str()));
            let (start, end, insert) = smallest_edit(&old.text, &new.text);
            doc.edit(start, end, insert);
            debug_assert_eq!(&**doc.text(), new.text.as_str());
            self.host.set_overlay(&new.path, doc.text().clone(), Some(doc.facts().clone()));
        }
        Snapshot::of(&mut self.host)
    }

    /// Closes the buffers without saving (the files on disk must hold the base again) and
    /// analyses.
    pub fn undo(&mut self, base: &[Source]) -> Snapshot {
        for s in base {
            self.host.remove_overlay(&s.path);
        }
        Snapshot::of(&mut self.host)
    }
}

/// The byte range of `old` to replace, and with what, to make `new`: the common prefix and
/// suffix kept (on character boundaries).
pub fn smallest_edit<'a>(old: &str, new: &'a str) -> (usize, usize, &'a str) {
    let mut prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old.bytes().rev().zip(new.bytes().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    (prefix, old.len() - suffix, &new[prefix..new.len() - suffix])
}
