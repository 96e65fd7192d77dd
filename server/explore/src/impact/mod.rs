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

use racelens_analysis::host::Host;
use racelens_analysis::diff::FileDiff;

use crate::jvm::protocol::Outcome;
use crate::jvm::session::{Mode, Session};
use crate::reports::{ImpactCounts, ImpactReport, ImpactRun, ImpactedAccess};
use compare::{Reason, Versions};
use recording::Recording;

/// Records one execution of the session's test under the default schedule (the agent's
/// `trace` and `alloc` options, full mode).
pub fn record_run(session: &mut Session, max_steps: u32) -> Result<Recording, String> {
    let exec = session.run_with(&[], Mode::Full, max_steps, &["trace".to_string(), "alloc".to_string()])?;
    match &exec.outcome {
        Outcome::Error(m) => return Err(format!("the recorded run failed in racelens's agent: {m}")),
        Outcome::Uncontrolled(m) => return Err(format!("a thread racelens does not control ran project code ({m}): its accesses cannot be recorded")),
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
pub fn report(test: &str, commit: Option<&str>, base: Result<&Recording, &str>, new: &Recording, versions: &dyn Versions, file_of: &dyn Fn(&str) -> Option<String>) -> ImpactReport {
    let empty = Recording::default();
    let impacted = compare::impacted(base.unwrap_or(&empty), new, versions);
    // One entry per statement, kind and target: its occurrences, threads and reasons.
    let mut grouped: BTreeMap<(String, u32, bool, String), ImpactedAccess> = BTreeMap::new();
    for i in &impacted {
        let a = i.access;
        let file = file_of(&a.at.class);
        let entry = grouped.entry((file.clone().unwrap_or_default(), a.at.line, a.write, a.target.clone())).or_insert_with(|| ImpactedAccess {
            file,
            line: a.at.line,
            class: a.at.class.clone(),
            method: a.method.clone(),
            access: if a.write { "write".into() } else { "read".into() },
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
    let statements = impacted_accesses.iter().map(|a| (&a.file, a.line)).collect::<std::collections::BTreeSet<_>>().len();
    let run = |r: &Recording| ImpactRun { outcome: r.outcome.clone(), steps: r.steps, threads: r.threads, accesses: r.accesses.len() };
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
pub fn icps(report: &ImpactReport) -> Vec<(Option<String>, Option<String>, Option<u32>, Option<String>, Option<(String, u32, u32)>)> {
    let mut out = Vec::new();
    for a in &report.impacted {
        out.push((Some(a.class.clone()), a.file.clone(), Some(a.line), None, None));
        if a.target != "[]" && !a.target.starts_with("java.") {
            if let Some((class, field)) = a.target.rsplit_once('.') {
                out.push((Some(class.to_string()), None, None, Some(field.to_string()), None));
            }
        }
    }
    out
}
