//! Dynamic change impact (ReConTest, Terragni et al., ICSE 2015): which shared-memory
//! accesses of a test can take part in interleavings the change made possible, found from
//! two executions of the test — one on the base revision, one on the working tree — rather
//! than from the source alone.
//!
//! Static impacted code points over-approximate (a changed method impacts every access in
//! it) and miss changes that alter synchronization indirectly (a lock released earlier, a
//! `notify` added elsewhere). Here an access is impacted only when it is new or its
//! concurrency context changed ([`compare`], §III); the exploration then prioritizes or
//! selects schedules at those accesses (phase II, `--icps dynamic|both`).
//!
//! - [`recording`]: one execution as accesses with their concurrency contexts;
//! - [`compare`]: the two executions aligned, and the impacted accesses with their reasons;
//! - this module: running the test on both versions and the report.

pub mod compare;
pub mod recording;

use std::collections::{BTreeMap, HashMap};

use racelens_analysis::diff::FileDiff;
use racelens_analysis::host::Host;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::jvm::protocol::Outcome;
use crate::jvm::session::{Mode, Session};
use crate::reports::{ImpactCounts, ImpactReport, ImpactRun, ImpactSources, ImpactedAccess};
use crate::search::capp::IcpTuple;
use crate::search::change::ChangeModel;
use compare::{Reason, Versions};
use recording::Recording;

/// Where change-aware prioritization takes its impacted code points from (`--icps`, and
/// the `source` of a report's `impact`: `static`, `dynamic`, `both`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IcpSource {
    /// The analysis of the source (CAPP's impacted code points).
    Static,
    /// The test's runs on the base revision and the working tree.
    Dynamic,
    /// Both together.
    Both,
}

/// The test on the base revision: its session and the base commit, `None` when the work
/// tree has no base revision, or why it cannot be built.
pub type BaseSession = Result<Option<(String, Session)>, String>;

/// Phase I for the test of `new` (a session on the working tree): records it there (an
/// error when it cannot be recorded) and on the base revision (when that fails, the report
/// says why and every access counts as new), and compares. Two runs of the test.
pub fn dynamic_impact(
    new: &mut Session,
    base: BaseSession,
    versions: &dyn Versions,
    file_of: &dyn Fn(&str) -> Option<String>,
    max_steps: u32,
) -> Result<ImpactReport, String> {
    let test = new.spec.display();
    let recorded = record_run(new, max_steps).map_err(|e| format!("cannot record {test} on the working tree: {e}"))?;
    let (commit, base) = match base {
        Ok(Some((commit, mut session))) => {
            let r = record_run(&mut session, max_steps)
                .map_err(|e| format!("the test could not be recorded on the base revision: {e}"));
            session.close();
            (Some(commit), r)
        }
        Ok(None) => {
            (None, Err("the work tree has no base revision (not a git work tree, or no commit yet)".to_string()))
        }
        Err(e) => (None, Err(e)),
    };
    Ok(report(&test, commit.as_deref(), base.as_ref().map_err(String::as_str), &recorded, versions, file_of))
}

/// The change model one test's exploration prioritizes by: the analysis' `model`, extended
/// by the test's dynamic impact (`both`, the default when the test records on both
/// versions) or replaced by it (`dynamic`); what it was built from; and the dynamic impact
/// when one was computed.
///
impl IcpSource {
    /// As reports write it: `static`, `dynamic`, `both`.
    pub fn as_str(self) -> &'static str {
        match self {
            IcpSource::Static => "static",
            IcpSource::Dynamic => "dynamic",
            IcpSource::Both => "both",
        }
    }
}

impl std::fmt::Display for IcpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Without an explicit source, a dynamic impact that cannot be computed (no base revision,
/// a base that does not compile, a test the base lacks, an uncontrolled thread) falls back
/// to the analysis, and the note says why. With `Dynamic` the dynamic impact is used
/// whatever it is (a base that cannot run the test makes every access new).
pub fn model_for(
    model: &ChangeModel,
    asked: Option<IcpSource>,
    dynamic: impl FnOnce() -> Result<ImpactReport, String>,
) -> (ChangeModel, ImpactSources, Option<ImpactReport>) {
    let static_icps = model.icps.len();
    let static_only = |note: Option<String>| {
        (model.clone(), ImpactSources { source: IcpSource::Static, static_icps, dynamic_statements: None, note })
    };
    let source = asked.unwrap_or(IcpSource::Both);
    if source == IcpSource::Static {
        let (m, s) = static_only(None);
        return (m, s, None);
    }
    let report = match dynamic() {
        Ok(r) => r,
        Err(e) if asked == Some(IcpSource::Dynamic) => {
            let (m, s) = static_only(Some(format!(
                "the dynamic impact was asked for, but {e}; the analysis' impacted code points are used"
            )));
            return (m, s, None);
        }
        Err(e) => {
            let (m, s) = static_only(Some(format!("dynamic impact not used: {e}")));
            return (m, s, None);
        }
    };
    if let (Some(why), None | Some(IcpSource::Both)) = (&report.base_unavailable, asked) {
        let (m, s) = static_only(Some(format!("dynamic impact not used: {why}")));
        return (m, s, Some(report));
    }
    let keep_static = source == IcpSource::Both;
    let used = ImpactSources {
        source: if keep_static { IcpSource::Both } else { IcpSource::Dynamic },
        static_icps: if keep_static { static_icps } else { 0 },
        dynamic_statements: Some(report.counts.statements),
        note: report.base_unavailable.as_ref().map(|why| format!("{why}: every access of the test counts as new")),
    };
    (model.clone().with_dynamic(icps(&report), keep_static), used, Some(report))
}

/// Records one execution of the session's test under the default schedule (the agent's
/// `trace` and `alloc` options, full mode).
pub fn record_run(session: &mut Session, max_steps: u32) -> Result<Recording, String> {
    let exec = session.run_with(&[], Mode::Full, max_steps, &["trace".to_string(), "alloc".to_string()])?;
    match &exec.outcome {
        Outcome::Error(m) => return Err(format!("the recorded run failed in racelens's agent: {m}")),
        Outcome::Uncontrolled(m) => {
            return Err(format!(
                "a thread racelens does not control ran project code ({m}): its accesses cannot be recorded"
            ))
        }
        Outcome::Timeout => return Err("the recorded run timed out".into()),
        _ => {}
    }
    recording::record(&exec, &session.sites())
}

/// The diff as [`Versions`] needs it: per class, its file's diff (`None`: unchanged).
pub struct HostVersions {
    classes: HashMap<String, Option<FileDiff>>,
}

impl HostVersions {
    pub fn new(host: &mut Host) -> HostVersions {
        let changes = host.change_set();
        let mut classes = HashMap::new();
        for (id, e) in host.index().entries() {
            let diff = changes.get(id).map(|c| c.diff.clone());
            for c in e.facts.classes.iter().filter(|c| c.outer.is_none()) {
                classes.insert(c.binary_name.clone(), diff.clone());
            }
        }
        HostVersions { classes }
    }

    /// Whether the working tree's classes are the base's: then both runs would be the same,
    /// and the dynamic impact is empty without running anything.
    pub fn is_unchanged(&self) -> bool {
        self.classes.values().all(|d| d.as_ref().is_none_or(FileDiff::is_empty))
    }

    fn diff(&self, class: &str) -> Option<&Option<FileDiff>> {
        self.classes.get(class.split('$').next().unwrap_or(class))
    }
}

impl Versions for HostVersions {
    fn is_changed(&self, class: &str, line: u32) -> bool {
        matches!(self.diff(class), Some(Some(d)) if d.changed_lines.contains(&line))
    }

    fn base_to_new(&self, class: &str, line: u32) -> Option<u32> {
        match self.diff(class)? {
            None => Some(line),
            Some(d) if d.is_new_file || d.removed_old_lines.contains(&line) => None,
            Some(d) => {
                let now = d.map_old_line(line);
                (!d.changed_lines.contains(&now)).then_some(now)
            }
        }
    }
}

/// Phase I for one test: `base` is the recording on the base revision, or why there is
/// none (then every access of the working tree counts as new).
pub fn report(
    test: &str,
    commit: Option<&str>,
    base: Result<&Recording, &str>,
    new: &Recording,
    versions: &dyn Versions,
    file_of: &dyn Fn(&str) -> Option<String>,
) -> ImpactReport {
    let empty = Recording::default();
    let impacted = compare::impacted(base.unwrap_or(&empty), new, versions);
    // One entry per statement, kind and target: its occurrences, threads and reasons.
    let mut grouped: BTreeMap<(String, u32, &str, String), ImpactedAccess> = BTreeMap::new();
    for i in &impacted {
        let a = i.access;
        let file = file_of(&a.at.class);
        let entry = grouped
            .entry((file.clone().unwrap_or_default(), a.at.line, a.op.name(), a.target.clone()))
            .or_insert_with(|| ImpactedAccess {
                file,
                line: a.at.line,
                class: a.at.class.clone(),
                method: a.method.clone(),
                access: a.op.name().into(),
                target: a.target.clone(),
                threads: Vec::new(),
                occurrences: 0,
                reasons: Vec::new(),
            });
        entry.occurrences += 1;
        if !entry.threads.contains(&a.thread_name) {
            entry.threads.push(a.thread_name.clone());
        }
        for r in &i.reasons {
            if !entry.reasons.iter().any(|e: &Reason| e.kind() == r.kind()) {
                entry.reasons.push(r.clone());
            }
        }
    }
    let impacted_accesses: Vec<ImpactedAccess> = grouped.into_values().collect();
    let statements =
        impacted_accesses.iter().map(|a| (&a.file, a.line)).collect::<std::collections::BTreeSet<_>>().len();
    let run = |r: &Recording| ImpactRun {
        outcome: r.outcome.clone(),
        steps: r.steps,
        threads: r.threads,
        accesses: r.accesses.len(),
    };
    ImpactReport {
        test: test.to_string(),
        base: commit.map(str::to_string),
        base_run: base.ok().map(run),
        base_unavailable: base.err().map(str::to_string),
        working_tree_run: run(new),
        counts: ImpactCounts { impacted_accesses: impacted.len(), statements },
        impacted: impacted_accesses,
    }
}

/// The report's impacted statements as impacted code points for the prioritization, as
/// [`crate::search::capp::IcpIndex::new`] takes them (`class, file, line, field, method
/// range`): each statement, and each field accessed there (by its declaring class).
pub fn icps(report: &ImpactReport) -> Vec<IcpTuple> {
    let mut out = Vec::new();
    for a in &report.impacted {
        out.push((Some(a.class.clone()), a.file.clone(), Some(a.line), None, None));
        if matches!(a.access.as_str(), "read" | "write") && a.target != "[]" && !a.target.starts_with("java.") {
            if let Some((class, field)) = a.target.rsplit_once('.') {
                out.push((Some(class.to_string()), None, None, Some(field.to_string()), None));
            }
        }
    }
    out
}
