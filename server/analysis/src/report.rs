//! The JSON report of `racelens check --json`: typed, so that the output and its published
//! schema (`server/cli/schemas/check.schema.json`) are derived from one definition.
//!
//! These are plain data: places as project paths with 1-based lines and character
//! columns, names as the developer writes them, filled from a `Host` and an `Impact` by
//! [`check_report`]; the field names and their order are a contract with
//! tools, so a change here is a change of the schema (a test in `cli/tests/schemas.rs`
//! fails until the committed schema is regenerated).

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::host::Host;
use crate::impact::{Diagnostic, Impact, Pair, PairEnd, Severity};
use crate::index::{FileId, Origin};
use crate::java::Span;

/// Everything `check` found for the working-tree change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckReport {
    /// The work tree analysed, as an absolute path.
    pub root: String,
    /// The revision compared with; null outside git (`--no-git`).
    pub base: Option<BaseRevision>,
    /// Java files analysed.
    pub files: usize,
    /// Project files with impacted lines, sorted.
    pub changed_files: Vec<String>,
    /// Impacted code points (CAPP §3.1): ⟨class, method, line, field⟩, null for ⊥.
    pub icps: Vec<IcpReport>,
    /// Shared-variable pairs (SimRT §3.4): impacted ones, or all with `--all-pairs`.
    pub pairs: Vec<PairReport>,
    /// Warnings RL001–RL009 and hints RL100, sorted.
    pub diagnostics: Vec<DiagnosticReport>,
    /// What the analysis noted while loading (skipped files, unknown configuration keys).
    pub notes: Vec<NoteReport>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BaseRevision {
    /// As given: `HEAD`, `origin/main`.
    pub rev: String,
    /// The commit it resolved to (hex); null in a repository without commits.
    pub commit: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IcpReport {
    /// The project file of the line, or of the field's declaration; null outside the
    /// project (a JDK field).
    pub file: Option<String>,
    pub class: Option<String>,
    pub method: Option<String>,
    pub line: Option<u32>,
    pub field: Option<String>,
    /// `changed-line`, `deleted-line`, `sync-region`, `field-access` or `callee-effect`.
    pub reason: String,
    /// The reason in words.
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PairReport {
    /// The variable; for WN and MM pairs, the monitor.
    pub field: FieldName,
    /// `RW`, `WW` (data-race candidates), `WN` (a wait and a notify) or `MM` (two
    /// acquisitions of one monitor or lock).
    pub kind: String,
    /// At least one end is impacted by the change.
    pub impacted: bool,
    /// Both ends hold a common lock (not both in shared mode).
    pub protected: bool,
    pub a: PairEndReport,
    pub b: PairEndReport,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FieldName {
    /// The declaring class's binary name.
    pub class: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PairEndReport {
    pub file: String,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
    /// `Pool.borrow`
    pub method: String,
    /// `read`, `write`, `acquire`, `wait` or `notify`.
    pub access: String,
    pub impacted: bool,
    /// The locks held here.
    pub locks: Vec<LockReport>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LockReport {
    /// As the developer writes it: `this`, `lock`, `Pool.class`, `rw.readLock()`.
    pub lock: String,
    /// Its canonical identity: `pkg.Pool#this`, `pkg.Pool#lock`.
    pub id: String,
    /// A read lock: two holders do not exclude each other.
    pub read: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiagnosticReport {
    pub file: String,
    /// Where it starts: 1-based line and character column.
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub severity: Level,
    /// `RL001` … `RL009`, `RL100` (`racelens check --help`).
    pub code: String,
    pub message: String,
    /// Other places the message refers to.
    pub related: Vec<RelatedReport>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Info,
    Hint,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RelatedReport {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NoteReport {
    /// The file it is about, if one.
    pub file: Option<String>,
    pub message: String,
}

/// 1-based line and character column of a span's start.
pub fn position(host: &Host, file: FileId, span: Span) -> (u32, u32) {
    match host.index().entry(file) {
        Some(e) => (span.line, e.facts.lines.char_column(span.start, &e.facts.text)),
        None => (span.line, 1),
    }
}

/// 1-based line and character column just past a span's end.
pub fn end_position(host: &Host, file: FileId, span: Span) -> (u32, u32) {
    match host.index().entry(file) {
        Some(e) => (span.end_line, e.facts.lines.char_column(span.end, &e.facts.text)),
        None => (span.end_line, 1),
    }
}

/// The project path of an origin; `None` outside the project (the JDK).
pub fn origin_path(host: &Host, origin: Option<Origin>) -> Option<String> {
    match origin {
        Some(Origin::Project(f)) => Some(host.path_of(f).to_string()),
        _ => None,
    }
}

fn level(s: Severity) -> Level {
    match s {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
        Severity::Information => Level::Info,
        Severity::Hint => Level::Hint,
    }
}

fn end_report(host: &Host, end: &PairEnd) -> PairEndReport {
    let (line, column) = position(host, end.file, end.span);
    PairEndReport {
        file: host.path_of(end.file).to_string(),
        line,
        column,
        method: end.method.clone(),
        access: end.access.as_str().to_string(),
        impacted: end.impacted,
        locks: end
            .locks
            .iter()
            .map(|l| LockReport { lock: l.display.clone(), id: l.key.clone(), read: l.shared })
            .collect(),
    }
}

fn pair_report(host: &Host, p: &Pair) -> PairReport {
    PairReport {
        field: FieldName { class: p.field.class.to_string(), name: p.field.display_name() },
        kind: p.kind.as_str().to_string(),
        impacted: p.impacted(),
        protected: p.protected,
        a: end_report(host, &p.a),
        b: end_report(host, &p.b),
    }
}

fn diagnostic_report(host: &Host, d: &Diagnostic) -> DiagnosticReport {
    let (line, column) = position(host, d.file, d.span);
    let related = d
        .related
        .iter()
        .map(|r| {
            let (line, column) = position(host, r.file, r.span);
            RelatedReport { file: host.path_of(r.file).to_string(), line, column, message: r.message.clone() }
        })
        .collect();
    DiagnosticReport {
        file: host.path_of(d.file).to_string(),
        line,
        column,
        end_line: d.span.end_line,
        severity: level(d.severity),
        code: d.code.to_string(),
        message: d.message.clone(),
        related,
    }
}

/// What `check --json` prints (`check.schema.json`): the report of `impact` on `host`.
pub fn check_report(host: &Host, impact: &Impact) -> CheckReport {
    let changed: BTreeSet<&str> = impact.impacted_lines.keys().map(|&f| host.path_of(f)).collect();
    CheckReport {
        root: host.root().display().to_string(),
        base: host.base().map(|b| BaseRevision { rev: b.rev.clone(), commit: b.commit.map(|c| c.to_string()) }),
        files: host.index().len(),
        changed_files: changed.into_iter().map(String::from).collect(),
        icps: impact
            .icps
            .iter()
            .map(|i| IcpReport {
                file: origin_path(host, i.origin),
                class: i.class.clone(),
                method: i.method.clone(),
                line: i.line,
                field: i.field.clone(),
                reason: i.reason.code().to_string(),
                detail: i.reason.describe(),
            })
            .collect(),
        pairs: impact.pairs.iter().map(|p| pair_report(host, p)).collect(),
        diagnostics: impact.diagnostics.iter().map(|d| diagnostic_report(host, d)).collect(),
        notes: host.notes().iter().map(|n| NoteReport { file: n.path.clone(), message: n.message.clone() }).collect(),
    }
}
