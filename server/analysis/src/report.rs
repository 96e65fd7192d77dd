//! The JSON report of `racelens check --json`: typed, so that the output and its published
//! schema (`server/cli/schemas/check.schema.json`) are derived from one definition.
//!
//! These are plain data: places as project paths with 1-based lines and character
//! columns, names as the developer writes them. The CLI fills them from a `Host` and an
//! `Impact` (`cli/src/report.rs`); the field names and their order are a contract with
//! tools, so a change here is a change of the schema (a test in `cli/tests/schemas.rs`
//! fails until the committed schema is regenerated).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
