//! The concurrency consequences of a change: a pure function of the project index and
//! the changed files.
//!
//! - [`icp`]: impacted code points, the four steps of CAPP section 3.1;
//! - [`shared`]: which field accesses more than one thread may reach (SimRT section 3.2);
//! - [`svimpact`]: which of those the change impacts (SimRT section 3.3, rules 1 to 5);
//! - [`pairs`]: impacted shared-variable pairs (SimRT section 3.4) with their locks and
//!   kinds (RW/WW, MM, WN after the thesis, chapter 4);
//! - [`warnings`]: the few findings a developer should look at;
//! - [`sections`]: RL003, critical sections the change split in two;
//! - [`checkact`]: RL004, check-then-act on thread-safe collections and atomics;
//! - [`lockorder`]: RL007, cycles the change closed in the lock-order graph;
//! - [`wakeups`]: RL008, wake-ups the change made reach fewer waiters than need them.
//! - [`publication`]: RL009, releases the change moved before writes another thread reads
//!   after the matching acquire.
//! - [`fixes`]: quick fixes for the warnings whose fix is obvious from the code.
//! - [`undecided`]: changed state whose sharing the analysis could not decide.

mod checkact;
pub mod codes;
mod condwake;
mod discipline;
mod effects;
pub mod fixes;
mod holdwait;
mod icp;
mod lazycache;
mod lockorder;
mod matching;
mod pairs;
mod publication;
mod regions;
mod runner;
mod sections;
pub mod shared;
mod started;
mod svimpact;
mod undecided;
mod wakeups;
mod warnings;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::diff::FileDiff;
use crate::index::{FieldKey, FileId, Origin, ProjectIndex};
use crate::java::{AccessKind, FileFacts, Span};

pub use crate::index::LockId;
pub use effects::Effects;
pub use shared::Sharing;
pub use undecided::Undecided;

/// One file of the change: how it differs from the base, and the base's facts.
#[derive(Clone)]
pub struct ChangedFile {
    pub file: FileId,
    pub diff: FileDiff,
    /// `None` for a file the base does not have.
    pub old: Option<Arc<FileFacts>>,
}

#[derive(Clone, Default)]
pub struct ChangeSet {
    pub files: Vec<ChangedFile>,
    /// Base files that the working tree deleted (their facts, for what they held).
    pub deleted: Vec<(String, Arc<FileFacts>)>,
}

impl ChangeSet {
    pub fn get(&self, file: FileId) -> Option<&ChangedFile> {
        self.files.iter().find(|c| c.file == file)
    }
}

/// Why a code point is impacted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IcpReason {
    /// The line holds added or changed code.
    ChangedLine,
    /// The line stands where code was deleted.
    DeletedLine,
    /// The line is in a synchronized region the change touched (step 1).
    SyncRegion,
    /// The field is read or written on an impacted line (step 3).
    FieldAccess,
    /// The field is in the read/write set of a method called from an impacted line (step 4).
    CalleeEffect { callee: String },
}

impl IcpReason {
    pub fn describe(&self) -> String {
        match self {
            IcpReason::ChangedLine => "changed line".into(),
            IcpReason::DeletedLine => "line where code was deleted".into(),
            IcpReason::SyncRegion => "in a synchronized region the change touched".into(),
            IcpReason::FieldAccess => "accessed on an impacted line".into(),
            IcpReason::CalleeEffect { callee } => format!("read or written by {callee}, called from an impacted line"),
        }
    }
    pub fn code(&self) -> &'static str {
        match self {
            IcpReason::ChangedLine => "changed-line",
            IcpReason::DeletedLine => "deleted-line",
            IcpReason::SyncRegion => "sync-region",
            IcpReason::FieldAccess => "field-access",
            IcpReason::CalleeEffect { .. } => "callee-effect",
        }
    }
}

/// An impacted code point ⟨class, method, line, field⟩ (CAPP section 3.1); `None` is ⊥.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Icp {
    /// The file the line (or the field's declaration) is in; `None` outside the project.
    pub origin: Option<Origin>,
    pub class: Option<String>,
    pub method: Option<String>,
    pub line: Option<u32>,
    pub field: Option<String>,
    pub reason: IcpReason,
}

/// One end of a pair: an access (or a monitor operation) at a place in a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PairEnd {
    pub file: FileId,
    pub span: Span,
    /// `Pool.borrow`
    pub method: String,
    pub access: EndAccess,
    /// Canonical locks held here.
    pub locks: Vec<LockId>,
    pub impacted: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndAccess {
    Read,
    Write,
    /// `synchronized` entry or `lock()`.
    Acquire,
    Wait,
    Notify,
}

impl EndAccess {
    pub fn as_str(self) -> &'static str {
        match self {
            EndAccess::Read => "read",
            EndAccess::Write => "write",
            EndAccess::Acquire => "acquire",
            EndAccess::Wait => "wait",
            EndAccess::Notify => "notify",
        }
    }
    pub fn from_kind(kind: AccessKind) -> EndAccess {
        match kind {
            AccessKind::Read => EndAccess::Read,
            AccessKind::Write => EndAccess::Write,
        }
    }
}

/// Pair kinds after the thesis, chapter 4, in priority order RW > WN > MM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairKind {
    /// A read and a write of the same variable (a data race when unprotected).
    RW,
    /// Two writes of the same variable.
    WW,
    /// A `wait` and a `notify` on the same monitor.
    WN,
    /// Two acquisitions of the same monitor or lock.
    MM,
}

impl PairKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PairKind::RW => "RW",
            PairKind::WW => "WW",
            PairKind::WN => "WN",
            PairKind::MM => "MM",
        }
    }
}

/// An impacted shared-variable pair (SimRT section 3.4).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pair {
    /// The variable; for MM and WN pairs, the monitor (`this` of a class, or a lock field).
    pub field: FieldKey,
    pub kind: PairKind,
    pub a: PairEnd,
    pub b: PairEnd,
    /// A common lock is held at both ends (and not both in shared mode), or the variable is
    /// the state of a thread-safe collection or an atomic, which its calls change
    /// atomically (no data race; the pair still matters for check-then-act).
    pub protected: bool,
}

impl Pair {
    pub fn impacted(&self) -> bool {
        self.a.impacted || self.b.impacted
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Related {
    pub file: FileId,
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Diagnostic {
    pub file: FileId,
    pub span: Span,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub related: Vec<Related>,
}

/// A zero-width place: a warning on a point of a line (the end of a region).
pub(super) fn point_span(offset: u32, line: u32) -> Span {
    Span { start: offset, end: offset, line, end_line: line }
}

/// A warning with what it is about (a field, an object), so that one method's many
/// warnings of one code about one subject become one (`warnings::one_per_subject`).
pub(super) struct About {
    subject: String,
    diagnostic: Diagnostic,
}

impl About {
    pub(super) fn new(subject: String, diagnostic: Diagnostic) -> About {
        About { subject, diagnostic }
    }
}

/// Everything the analysis says about a change.
#[derive(Clone, Debug, Default)]
pub struct Impact {
    pub icps: Vec<Icp>,
    pub pairs: Vec<Pair>,
    pub diagnostics: Vec<Diagnostic>,
    /// Fields with at least one impacted shared access.
    pub impacted_fields: Vec<FieldKey>,
    /// The impacted shared accesses: file and site index (into `ResolvedFile::sites`).
    pub impacted_accesses: std::collections::BTreeSet<(FileId, usize)>,
    /// Impacted lines per file (changed lines, expanded regions), for markers and lenses.
    pub impacted_lines: BTreeMap<FileId, Vec<u32>>,
    /// Changed state the analysis could not call shared or unshared (a field of a class no
    /// object of which is seen escaping, a collection a call returned).
    pub undecided: Vec<Undecided>,
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Also report pairs where neither end is impacted (for hovers and coverage).
    pub all_pairs: bool,
    /// How deep read/write sets follow callees (CAPP's side-effect analysis, bounded).
    pub effect_depth: u32,
    /// The build lets JUnit run test methods at the same time ([`crate::junit_parallel`]):
    /// JUnit's runner is then no single thread. [`crate::host::Host::analyze`] sets it.
    pub concurrent_tests: bool,
}

impl Options {
    pub fn new() -> Options {
        Options { all_pairs: false, effect_depth: 3, concurrent_tests: false }
    }
}

/// What every step of the analysis reads: the project, the change, the synchronized
/// regions the change touched, and which objects are shared.
pub(crate) struct Cx<'a> {
    pub index: &'a ProjectIndex,
    pub changes: &'a ChangeSet,
    pub regions: &'a regions::ChangedRegions,
    pub sharing: &'a Sharing,
}

/// Computes the impact of `changes` on the project in `index`.
pub fn analyze(index: &ProjectIndex, changes: &ChangeSet, options: &Options) -> Impact {
    analyze_with(index, changes, &Sharing::compute(index), options)
}

/// [`analyze`] with the project's sharing already computed (it changes only when a file's
/// escape evidence does, so a host keeps it across edits).
pub fn analyze_with(index: &ProjectIndex, changes: &ChangeSet, sharing: &Sharing, options: &Options) -> Impact {
    let regions = regions::changed_regions(index, changes);
    let cx = Cx { index, changes, regions: &regions, sharing };
    let (icps, impacted_lines) = icp::collect(&cx, options);
    let impacted_sites = svimpact::impacted_sites(&cx);
    let pairs = pairs::collect(&cx, &impacted_sites, options);
    let diagnostics = warnings::collect(&cx, &impacted_sites, &pairs);
    let mut impacted_fields: Vec<FieldKey> = impacted_sites.fields().cloned().collect();
    impacted_fields.sort();
    impacted_fields.dedup();
    let impacted_accesses = impacted_sites.iter().map(|(f, s, _)| (f, s)).collect();
    let undecided = undecided::collect(index, changes, sharing);
    Impact { icps, pairs, diagnostics, impacted_fields, impacted_accesses, impacted_lines, undecided }
}
