//! An exploration as the typed JSON reports of `crate::reports` (`explore --json`,
//! `replay --json`): the same facts the text shows, placed in the project's files.

use std::collections::HashMap;

use crate::explorer::{Found, Report, Stats, Verdict};
use crate::jvm::plain::PlainRun;
use crate::jvm::protocol::{Execution, Outcome, Site};
use crate::reports::{
    ChecksReport, Divergence, ExploreOutcome, ExploreReport, FailureReport, InvocationReport, PreemptionReport,
    ReplayReport, SetupReport, StatsReport, StreamPlace, TraceStep,
};
use crate::results::coverage::Coverage;
use crate::results::report;
use crate::search::Claim;

use super::{Exploration, Places, Replayed};

impl Exploration {
    /// What `explore --json` prints for the test.
    pub fn json(&self) -> ExploreReport {
        let Report { verdict, stats, claim, matched, sequential, .. } = &self.report;
        ExploreReport {
            test: self.test.display(),
            search: self.settings.search,
            heuristic: self.settings.heuristic.clone(),
            icps: self.impact.as_ref().map_or(0, |(icps, _)| *icps),
            impact: self.impact.as_ref().map(|(_, used)| used.clone()),
            matched_decision_points: *matched,
            bound: self.settings.bound,
            outcome: outcome(verdict),
            schedules: self.schedules_run(),
            coverage: Coverage::of(&self.report),
            sequential_streams: sequential
                .iter()
                .map(|site| StreamPlace {
                    file: self.places.file_of(&site.class),
                    line: site.line,
                    call: site.target.clone(),
                })
                .collect(),
            failure: match verdict {
                Verdict::Failed(f) | Verdict::Unconfirmed(f, _) | Verdict::Limitation(f, _) => {
                    Some(self.failure_report(f))
                }
                _ => None,
            },
            checks: self.checks.as_ref().map(|c| ChecksReport {
                fresh_jvm: c.fresh_jvm.clone().unwrap_or_else(|| "same failure".into()),
                plain_runs: c.plain.iter().map(PlainRun::describe).collect(),
                model: c.model.as_ref().map(|f| format!("{}.{}:{}", f.class, f.method, f.line)),
            }),
            error: match verdict {
                Verdict::Stopped(e)
                | Verdict::Uncontrolled(e)
                | Verdict::Unconfirmed(_, e)
                | Verdict::Limitation(_, e) => Some(e.clone()),
                _ => None,
            },
            setup: SetupReport {
                classpath: self.setup.classpath.clone(),
                notes: self.setup.notes.clone(),
                compile_ms: self.setup.compile.as_millis() as u64,
                impact_ms: self.setup.impact.map(|d| d.as_millis() as u64),
            },
            stats: stats_report(stats, claim),
        }
    }

    fn failure_report(&self, found: &Found) -> FailureReport {
        let exec = &found.execution;
        let (file, line) = self.places.failure_place(&found.full);
        let (thread, message) = match &exec.outcome {
            Outcome::Fail(f) => (
                Some(f.thread),
                format!(
                    "{}{}",
                    f.exception,
                    if f.message.is_empty() { String::new() } else { format!(": {}", f.message) }
                ),
            ),
            other => (None, report::headline(&Execution { outcome: other.clone(), ..exec.clone() })),
        };
        let preemptions = found
            .preemptions
            .iter()
            .map(|p| {
                let (file, line) = self.places.place(p.site.as_ref());
                PreemptionReport { step: p.step, from: p.from, to: p.to, file, line }
            })
            .collect();
        FailureReport {
            kind: exec.outcome.kind().to_string(),
            message,
            thread,
            file,
            line,
            schedule: found.string.encode(),
            preemptions,
            trace: trace(&self.places, &found.full, &self.sites),
            invocation: exec.invocation.as_ref().map(InvocationReport::of),
        }
    }
}

impl Replayed {
    /// What `replay --json` prints.
    pub fn json(&self) -> ReplayReport {
        let (file, line) = self.places.failure_place(&self.exec);
        ReplayReport {
            test: self.test.display(),
            outcome: if self.diverged.is_some() { "divergence" } else { self.exec.outcome.kind() }.to_string(),
            message: report::headline(&self.exec),
            file,
            line,
            divergence: self.diverged.as_ref().map(|(k, want, got)| Divergence {
                decision: *k,
                expected: want.clone(),
                found: got.clone(),
            }),
            trace: trace(&self.places, &self.exec, &self.sites),
        }
    }
}

/// The report's `outcome` of a verdict.
pub fn outcome(verdict: &Verdict) -> ExploreOutcome {
    match verdict {
        Verdict::Failed(_) => ExploreOutcome::Fail,
        Verdict::Passed => ExploreOutcome::Pass,
        Verdict::Limit => ExploreOutcome::Limit,
        Verdict::Cancelled => ExploreOutcome::Limit,
        Verdict::Uncontrolled(_) => ExploreOutcome::Uncontrolled,
        Verdict::Stopped(_) => ExploreOutcome::Error,
        Verdict::Unconfirmed(..) => ExploreOutcome::Unconfirmed,
        Verdict::Limitation(..) => ExploreOutcome::Limitation,
    }
}

/// Every scheduling point of a run, placed in the project.
fn trace(places: &Places, exec: &Execution, sites: &HashMap<u32, Site>) -> Vec<TraceStep> {
    exec.events
        .iter()
        .map(|e| {
            let site = sites.get(&e.site);
            let (file, line) = places.place(site);
            TraceStep {
                step: e.step,
                thread: e.thread,
                op: site.map(|s| s.op.as_str().to_string()),
                target: site.map(|s| s.target.clone()),
                file,
                line,
                object: e.object.clone(),
                value: e.value.clone(),
            }
        })
        .collect()
}

fn stats_report(stats: &Stats, claim: &Claim) -> StatsReport {
    StatsReport {
        elapsed_ms: stats.elapsed.as_millis() as u64,
        schedules_per_sec: (stats.per_second() * 10.0).round() / 10.0,
        decision_points: stats.decision_points,
        livelocks: stats.livelocks,
        pruned: claim.deferred,
        failing_schedules: stats.failures,
        skipped: claim.skipped,
        redundant: claim.redundant,
    }
}
