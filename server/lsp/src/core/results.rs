//! What exploration results add to the editor, on the core thread: diagnostics (the
//! failures, `RL2xx`, with their preemptions related; the dynamic impact's hints), the lenses
//! on tests (the state of each test's exploration, show and replay), and hovers (what the
//! tests' runs did at a line). Only results whose reached code is unchanged count: a result
//! older than the change it was made on is not shown as the code's.

use std::collections::BTreeMap;

use racelens_analysis::select::{self, ThreadTest};
use racelens_explore::exploration::replay_command;
use racelens_explore::reports::{produced_by, ImpactReport, Place, PreemptionPlace, ResultKind, TestResult};
use tower_lsp_server::ls_types::*;

use super::explore::{fingerprint, lens, plural, test_name};
use super::Core;
use crate::convert::file_uri;
use crate::lenses;
use crate::payloads::{self, CopyArgument, ResultArgument, TestArgument};
use crate::positions::line_range;

impl Core {
    /// Results whose reached code is unchanged, with the test they belong to.
    pub(super) fn fresh_results(&mut self, w: usize) -> Vec<(ThreadTest, TestResult)> {
        let root = self.workspaces[w].root.clone();
        let results = self.jobs.results(&root).clone();
        if results.is_empty() {
            return Vec::new();
        }
        let index = self.workspaces[w].host.index();
        let mut out = Vec::new();
        for (f, _) in index.entries() {
            for t in select::thread_tests_in(index, f) {
                if let Some(r) = results.get(&test_name(&t)) {
                    if r.fingerprint == fingerprint(index, &t, &r.heuristic) {
                        out.push((t, r.clone()));
                    }
                }
            }
        }
        out
    }

    /// An `Error` diagnostic where each fresh failing schedule failed, with its preemption
    /// points as related locations.
    pub(super) fn exploration_diagnostics(&mut self, w: usize) -> BTreeMap<Uri, Vec<Diagnostic>> {
        let mut out: BTreeMap<Uri, Vec<Diagnostic>> = BTreeMap::new();
        for (_, result) in self.fresh_results(w) {
            let ResultKind::Failed { headline, schedules, preemptions, place: Some(place), .. } = &result.kind else {
                continue;
            };
            let Some(at) = self.place_location(w, place) else { continue };
            let related = self.preemptions_related(w, preemptions);
            let message = format!(
                "{}: {headline} (a schedule racelens found after {} by {}; Replay on the test's lens)",
                result.test,
                plural(*schedules, "schedule", "schedules"),
                result.produced_by()
            );
            out.entry(at.uri).or_default().push(exploration_diagnostic(
                at.range,
                DiagnosticSeverity::ERROR,
                "RL200",
                message,
                related,
            ));
        }
        self.dynamic_hints(w, &mut out);
        out
    }

    /// The dynamic impacts (ReConTest) of the workspace's tests that still hold: of running
    /// explorations, and of fresh results measured against the current base commit.
    pub(super) fn dynamic_impacts(&mut self, w: usize) -> Vec<ImpactReport> {
        let root = self.workspaces[w].root.clone();
        let base = self.workspaces[w].host.base().and_then(|b| b.commit).map(|c| c.to_string());
        let running = self.jobs.running.values().filter(|r| r.key.0 == root).filter_map(|r| r.impact.clone());
        let mut out: Vec<ImpactReport> = running.collect();
        let finished = self.fresh_results(w).into_iter().filter_map(|(_, r)| r.impact).filter(|i| i.base == base);
        for report in finished {
            if !out.iter().any(|o| o.test == report.test) {
                out.push(report);
            }
        }
        out
    }

    /// A `Hint` on every line where a test's run made an access the change impacts
    /// (ReConTest), the reasons in its message.
    pub(super) fn dynamic_hints(&mut self, w: usize, out: &mut BTreeMap<Uri, Vec<Diagnostic>>) {
        for report in self.dynamic_impacts(w) {
            for a in &report.impacted {
                let Some(file) = &a.file else { continue };
                let Some(at) = self.place_location(w, &Place { file: file.clone(), line: a.line }) else { continue };
                let reasons: Vec<String> = a.reasons.iter().map(|r| r.describe()).collect();
                let field = a.target.rsplit('.').next().unwrap_or(&a.target);
                let message = format!(
                    "{} of `{field}` impacted by the change in {}'s run: {}",
                    a.access,
                    report.test,
                    reasons.join("; ")
                );
                out.entry(at.uri).or_default().push(exploration_diagnostic(
                    at.range,
                    DiagnosticSeverity::HINT,
                    "RL210",
                    message,
                    Vec::new(),
                ));
            }
        }
    }

    /// The hover section of line `line` (0-based) of `rel`: the accesses the change impacts
    /// there in the tests' runs, with why; `None` when there are none.
    pub(super) fn dynamic_hover(&mut self, w: usize, rel: &str, line: u32) -> Option<String> {
        let mut out = String::new();
        for report in self.dynamic_impacts(w) {
            let here: Vec<_> =
                report.impacted.iter().filter(|a| a.file.as_deref() == Some(rel) && a.line == line + 1).collect();
            if here.is_empty() {
                continue;
            }
            let base = report.base.as_deref().map(|c| &c[..c.len().min(10)]).unwrap_or("-");
            out +=
                &format!("**Impacted by the change** in `{}`'s run (dynamic impact, base `{base}`)\n\n", report.test);
            for a in here {
                let threads = a.threads.join(", ");
                out += &format!("- {} `{}` ({threads}; {}×)\n", a.access, a.target, a.occurrences);
                for r in &a.reasons {
                    out += &format!("  - {}\n", r.describe());
                }
            }
            out.push('\n');
        }
        (!out.is_empty()).then_some(out)
    }

    /// A failing schedule's preemptions as related locations (`⇄ T1 preempted here ...`):
    /// of its RL200 diagnostic and of its test's state.
    pub(super) fn preemptions_related(
        &self,
        w: usize,
        preemptions: &[PreemptionPlace],
    ) -> Vec<DiagnosticRelatedInformation> {
        preemptions
            .iter()
            .filter_map(|p| {
                Some(DiagnosticRelatedInformation {
                    location: self.place_location(w, p.place.as_ref()?)?,
                    message: format!("⇄ {}", p.text),
                })
            })
            .collect()
    }

    pub(super) fn place_location(&self, w: usize, place: &Place) -> Option<Location> {
        let ws = &self.workspaces[w];
        let index = ws.host.index();
        let entry = index.entry(index.file_id(&place.file)?)?;
        Some(Location {
            uri: file_uri(&ws.root, &place.file)?,
            range: line_range(&entry.facts, place.line, self.encoding()),
        })
    }

    /// Lenses of explorations in file `rel`: the state of each test's exploration on the
    /// test, always with `↻ Explore again`, and `⇄` lenses where fresh failing schedules
    /// preempted a thread.
    pub(super) fn exploration_lenses(&mut self, w: usize, rel: &str, out: &mut Vec<CodeLens>) {
        let root = self.workspaces[w].root.clone();
        let root_text = root.display().to_string();
        let results = self.jobs.results(&root).clone();
        let encoding = self.encoding();
        let index = self.workspaces[w].host.index();
        let Some(file) = index.file_id(rel) else { return };
        let Some(entry) = index.entry(file) else { return };
        for t in select::thread_tests_in(index, file) {
            let range = crate::positions::range(&entry.facts, t.span, encoding);
            let name = test_name(&t);
            let key = (root.clone(), name.clone());
            let id = payloads::value(&ResultArgument { root: root_text.clone(), test: name.clone(), schedule: None });
            let has_state =
                self.jobs.running_for(&key).is_some() || self.jobs.is_queued(&key) || results.contains_key(&name);
            if has_state {
                // The exploration's state takes the place of `▶ Explore schedules`.
                out.retain(|l| !(l.range == range && lenses::explores(l, &t.class, &t.name)));
            }
            let again = payloads::value(&TestArgument {
                again: true,
                ..TestArgument::new(file_uri(&root, rel).map(|u| u.as_str().to_string()), &t.class, &t.name)
            });
            let again_lens = || lens(range, "↻ Explore again".into(), lenses::EXPLORE_COMMAND, again.clone());
            if let Some(r) = self.jobs.running_for(&key) {
                let by = produced_by(&r.heuristic, r.seed);
                let title = if r.schedules == 0 {
                    format!("⏳ exploring… · {by}")
                } else {
                    format!("⏳ exploring… {} so far · {by}", plural(r.schedules, "schedule", "schedules"))
                };
                out.push(lens(range, title, lenses::CANCEL_COMMAND, id.clone()));
                out.push(lens(range, "Cancel".into(), lenses::CANCEL_COMMAND, id));
                out.push(again_lens());
                continue;
            }
            if self.jobs.is_queued(&key) {
                out.push(lens(range, "⏳ queued".into(), lenses::CANCEL_COMMAND, id.clone()));
                out.push(lens(range, "Cancel".into(), lenses::CANCEL_COMMAND, id));
                out.push(again_lens());
                continue;
            }
            let Some(result) = results.get(&name) else { continue };
            if result.fingerprint != fingerprint(index, &t, &result.heuristic) {
                out.push(lens(range, "stale — re-explore".into(), lenses::EXPLORE_COMMAND, again));
                continue;
            }
            // The result's own lens names what produced it (a result restored from the cache
            // too); `↻ Explore again` runs the test again, with the settings or, from a
            // client's picker, another heuristic or seed.
            let by = result.produced_by();
            match &result.kind {
                ResultKind::Failed { title, schedules, preemptions, schedule, .. } => {
                    out.push(lens(
                        range,
                        format!(
                            "✗ {title} after {} ({}) · {by}",
                            plural(*schedules, "schedule", "schedules"),
                            plural(preemptions.len() as u64, "preemption", "preemptions")
                        ),
                        lenses::SHOW_COMMAND,
                        id.clone(),
                    ));
                    out.push(lens(range, "Show schedule".into(), lenses::SHOW_COMMAND, id.clone()));
                    let replay = ResultArgument {
                        root: root_text.clone(),
                        test: name.clone(),
                        schedule: Some(schedule.clone()),
                    };
                    out.push(lens(range, "Replay".into(), lenses::REPLAY_COMMAND, payloads::value(&replay)));
                    let command = replay_command(&root_text, &name, schedule);
                    out.push(lens(
                        range,
                        "Copy".into(),
                        lenses::COPY_COMMAND,
                        payloads::value(&CopyArgument { text: command }),
                    ));
                    if self.caps.step_schedule {
                        out.push(lens(range, "Step through".into(), lenses::STEP_COMMAND, id.clone()));
                    }
                }
                // Without a failing schedule, clicking the result explores again too. A ✓ only
                // for a claim about every schedule of a bound.
                // Short titles (a lens does not wrap); the progress message has the long form.
                ResultKind::Passed { coverage, covered } if coverage.is_complete() => out.push(lens(
                    range,
                    format!(
                        "✓ no failure: {} · {} covered · {by}",
                        coverage.brief(),
                        plural(*covered as u64, "impacted point", "impacted points")
                    ),
                    lenses::EXPLORE_COMMAND,
                    again.clone(),
                )),
                ResultKind::Passed { coverage, .. } => out.push(lens(
                    range,
                    format!("no failure: {} · {by}", coverage.brief()),
                    lenses::EXPLORE_COMMAND,
                    again.clone(),
                )),
                ResultKind::Limit { coverage } => out.push(lens(
                    range,
                    format!("… no failure yet: {} · {by}", coverage.brief()),
                    lenses::EXPLORE_COMMAND,
                    again.clone(),
                )),
                ResultKind::Uncontrolled { message } => {
                    out.push(lens(range, format!("! not explored: {message}"), lenses::EXPLORE_COMMAND, again.clone()))
                }
                ResultKind::Stopped { message } => {
                    out.push(lens(range, format!("! stopped: {message}"), lenses::EXPLORE_COMMAND, again.clone()))
                }
                ResultKind::Unconfirmed { message } => {
                    out.push(lens(range, format!("! {message}"), lenses::EXPLORE_COMMAND, again.clone()))
                }
            }
            out.push(again_lens());
        }
        // Where fresh failing schedules (of tests anywhere) preempted a thread, in this file.
        for (_, result) in self.fresh_results(w) {
            let ResultKind::Failed { preemptions, .. } = &result.kind else { continue };
            let index = self.workspaces[w].host.index();
            let Some(entry) = index.file_id(rel).and_then(|f| index.entry(f)) else { return };
            for p in preemptions {
                let Some(place) = p.place.as_ref().filter(|pl| pl.file == rel) else { continue };
                let id = payloads::value(&ResultArgument {
                    root: root_text.clone(),
                    test: result.test.clone(),
                    schedule: None,
                });
                out.push(lens(
                    line_range(&entry.facts, place.line, encoding),
                    format!("⇄ {}", p.text),
                    lenses::SHOW_COMMAND,
                    id,
                ));
            }
        }
    }
}

/// A diagnostic of an exploration's result (`RL2xx`), with a link to its code's page.
fn exploration_diagnostic(
    range: Range,
    severity: DiagnosticSeverity,
    code: &str,
    message: String,
    related: Vec<DiagnosticRelatedInformation>,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(code.into())),
        code_description: crate::convert::code_uri(code).map(|href| CodeDescription { href }),
        source: Some("racelens".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}
