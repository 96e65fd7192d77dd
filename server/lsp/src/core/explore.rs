//! Explorations in the editor, the core's side: the commands (explore, cancel, show the
//! schedule, replay), the queue's progress in the editor, and what results add to code
//! lenses and diagnostics.
//!
//! Running project code is the user's decision: nothing here starts a JVM except a
//! command the user ran (a lens click) or `racelens.explore.onSave`, which they turn on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use racelens_analysis::index::{Origin, ProjectIndex};
use racelens_analysis::select::{self, EntryKind, ThreadTest};
use racelens_explore::exploration::{replay_command, ChangeInput, Places, RecordInput, Request, Settings};
use racelens_explore::history;
use racelens_explore::impact::HostVersions;
use racelens_explore::jvm::project::{self, Sources};
use racelens_explore::jvm::TestSpec;
use racelens_explore::reports::{produced_by, ImpactReport, Place, PreemptionPlace, ResultKind, TestResult};
use racelens_explore::search::change;
use racelens_explore::search::heuristics::Choice;
use serde_json::Value;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Cancellable, OngoingProgress, Unbounded};

use super::Core;
use crate::convert::file_uri;
use crate::explorations::{self, Job, JobKind};
use crate::jobs::{self, Running, TestKey};
use crate::lenses;
use crate::messages::JobEvent;
use crate::payloads::{
    self, Cancelled, CopyArgument, DocumentLink, Queued, ResultArgument, ScheduleLinks, ScheduleStep, ScheduleSteps,
    TestArgument,
};
use crate::positions::line_range;

pub type Progress = OngoingProgress<Unbounded, Cancellable>;

/// Scheduling points per execution before it counts as a livelock.
const MAX_STEPS: u32 = 100_000;

/// Priority change points of change-aware PCT when it is the editor's heuristic.
const PCT_DEPTH: u32 = 3;

/// `pkg.PoolTest#borrow`, or `pkg.Main` for a main program: the key of results.
pub(super) fn test_name(t: &ThreadTest) -> String {
    spec_of(t).display()
}

fn spec_of(t: &ThreadTest) -> TestSpec {
    TestSpec { class: t.class.clone(), method: (t.kind == EntryKind::Test).then(|| t.name.clone()) }
}

/// The content of the code a test reaches: its result holds while this does not change.
pub(super) fn fingerprint(index: &ProjectIndex, test: &ThreadTest, heuristic: &str) -> u64 {
    let files: BTreeSet<_> = test
        .reach
        .methods
        .iter()
        .filter_map(|m| if let Origin::Project(f) = m.origin { Some(f) } else { None })
        .collect();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(test_name(test).as_bytes());
    bytes.extend_from_slice(heuristic.as_bytes());
    for f in files {
        if let Some(e) = index.entry(f) {
            bytes.extend_from_slice(e.path.as_bytes());
            bytes.extend_from_slice(&racelens_explore::jvm::agent::stable_hash(e.facts.text.as_bytes()).to_le_bytes());
        }
    }
    racelens_explore::jvm::agent::stable_hash(&bytes)
}

pub(super) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn lens(range: Range, title: String, command: &str, argument: Value) -> CodeLens {
    CodeLens {
        range,
        command: Some(Command { title, command: command.to_string(), arguments: Some(vec![argument]) }),
        data: None,
    }
}

/// The priority above which selected tests queue (below a replay's), above any count of
/// impacted points.
const SELECTED: usize = usize::MAX / 2;

/// How to explore: the settings' heuristic and budget, or what `racelens.exploreTest`'s
/// argument asks for instead (`heuristic`, `seed`, `maxSchedules`).
struct Exploring {
    heuristic: String,
    choice: Choice,
    seed: Option<u64>,
    max_schedules: u64,
}

/// An optional field of a command's argument: absent or null is `None`, a wrong type an error
/// that names the field.
fn optional<T>(
    arg: &Value,
    field: &str,
    read: impl Fn(&Value) -> Option<T>,
    expected: &str,
) -> Result<Option<T>, String> {
    match &arg[field] {
        Value::Null => Ok(None),
        v => read(v).map(Some).ok_or_else(|| format!("`{field}` must be {expected}, not {v}")),
    }
}

impl Core {
    /// The test a command names: `{uri, class, method}` as the lens sends it.
    fn find_test(&self, arg: &Value) -> Result<(usize, ThreadTest), String> {
        let uri: Uri = arg["uri"].as_str().and_then(|u| u.parse().ok()).ok_or("the command needs the test's `uri`")?;
        let class = arg["class"].as_str().ok_or("the command needs the test's `class`")?;
        let method = arg["method"].as_str().ok_or("the command needs the test's `method`")?;
        let (w, rel) = self.locate(&uri).ok_or_else(|| format!("{} is not in an open workspace", uri.as_str()))?;
        let index = self.workspaces[w].host.index();
        let file = index.file_id(&rel).ok_or_else(|| format!("{rel} is not a Java source of the workspace"))?;
        let test = select::thread_tests_in(index, file)
            .into_iter()
            .find(|t| t.class == class && t.name == method)
            .ok_or_else(|| format!("no test `{class}#{method}` that starts threads in {rel}"))?;
        Ok((w, test))
    }

    /// The settings' way to explore.
    fn exploring(&self) -> Result<Exploring, String> {
        let e = &self.settings.explore;
        let choice = Choice::parse(&e.heuristic).map_err(|e| format!("racelens.explore.heuristic: {e}"))?;
        Ok(Exploring { heuristic: e.heuristic.clone(), choice, seed: None, max_schedules: e.max_schedules })
    }

    /// The way `racelens.exploreTest`'s argument asks for: the settings' where it says nothing.
    fn exploring_as_asked(&self, arg: &Value) -> Result<Exploring, String> {
        let heuristic =
            optional(arg, "heuristic", |v| v.as_str().map(str::to_string), "a heuristic's name such as `pct+LA`")?;
        let seed = optional(arg, "seed", Value::as_u64, "a whole number (0 or more)")?;
        let max_schedules =
            optional(arg, "maxSchedules", |v| v.as_u64().filter(|&n| n >= 1), "a whole number (1 or more)")?;
        let mut how = match heuristic {
            Some(h) => Exploring {
                choice: Choice::parse(&h)?,
                heuristic: h,
                seed: None,
                max_schedules: self.settings.explore.max_schedules,
            },
            None => self.exploring()?,
        };
        how.seed = seed;
        how.max_schedules = max_schedules.unwrap_or(how.max_schedules);
        Ok(how)
    }

    /// A job for a test, on the workspace's current state (unsaved buffers included).
    fn job(&mut self, w: usize, test: &ThreadTest, kind: JobKind, how: Exploring) -> Result<(Job, TestKey), String> {
        let Exploring { heuristic, choice, seed, max_schedules } = how;
        let settings = Settings {
            bound: self.settings.explore.bound,
            max_schedules,
            max_steps: MAX_STEPS,
            seed,
            heuristic: heuristic.clone(),
            choice,
            pct_depth: PCT_DEPTH,
            ..Settings::new(&heuristic)?
        };
        let id = self.jobs.next_id();
        let selection = self.selection(w);
        let ws = &mut self.workspaces[w];
        let index = ws.host.index();
        let ranked = selection.get(&test_name(test)).filter(|r| r.selected);
        let priority = match (&kind, ranked) {
            // A replay is one execution the user waits for: before every exploration.
            (JobKind::Replay { .. }, _) => usize::MAX,
            // The tests the change selects, in SimRT's order (`racelens select`), then the
            // others by the impacted points they reach.
            (JobKind::Explore, Some(r)) => SELECTED + (selection.total - r.rank),
            (JobKind::Explore, None) => select::impacted_points(index, &test.reach, &ws.impact),
        };
        let fingerprint = fingerprint(index, test, &heuristic);
        // The change a change-aware exploration steers by; the test's dynamic impact needs the
        // base revision, read here (the worker compiles it).
        let change = (matches!(kind, JobKind::Explore) && choice.is_change_aware()).then(|| {
            let model = change::model(&ws.host, &ws.impact);
            let versions = HostVersions::new(&mut ws.host);
            let base =
                if ChangeInput::needs_base(None, &versions) { project::base_sources(&ws.host) } else { Ok(None) };
            ChangeInput { model, icps: None, versions: Arc::new(versions), base }
        });
        let sources = Sources::of(&ws.host);
        let record = RecordInput {
            snapshot: history::snapshot(&sources),
            revision: ws.host.base().and_then(|b| b.commit).map(|c| c.to_string()),
        };
        let request = Request {
            test: spec_of(test),
            settings,
            change,
            places: Places::of(&ws.host),
            root: ws.root.display().to_string(),
            record: Some(record),
        };
        let job = Job { id, kind, priority, fingerprint, sources, cancel: Arc::new(AtomicBool::new(false)), request };
        Ok((job, (ws.root.clone(), test_name(test))))
    }

    /// `racelens.exploreTest {uri, class, method, heuristic?, seed?, maxSchedules?, again?}`:
    /// queue an exploration of the test; `again` replaces one queued or running.
    pub(super) fn explore_command(&mut self, arg: &Value) -> Result<Option<Value>, String> {
        let (w, test) = self.find_test(arg)?;
        let how = self.exploring_as_asked(arg).map_err(|e| format!("cannot explore {}: {e}", test_name(&test)))?;
        let (job, key) = self.job(w, &test, JobKind::Explore, how)?;
        if arg["again"].as_bool() == Some(true) {
            self.jobs.replace(&key);
        }
        let queued = self.jobs.enqueue(job, key.clone());
        if !queued {
            self.show(MessageType::INFO, format!("racelens: {} is already being explored", key.1));
        }
        self.start_ready();
        self.refresh_lenses();
        Ok(Some(payloads::value(&Queued { queued, test: Some(key.1) })))
    }

    /// `racelens.cancel {root?, test?}`: cancel one test's jobs, or every job.
    pub(super) fn cancel_command(&mut self, arg: &Value) -> Value {
        let key = match (arg["root"].as_str(), arg["test"].as_str()) {
            (Some(root), Some(test)) => Some((Path::new(root).to_path_buf(), test.to_string())),
            _ => None,
        };
        let n = self.jobs.cancel(key.as_ref());
        self.refresh_lenses();
        payloads::value(&Cancelled { cancelled: n })
    }

    pub(super) fn cancel_progress(&mut self, token: &str) {
        self.jobs.cancel_token(token);
    }

    fn result_of(&mut self, arg: &Value) -> Result<(std::path::PathBuf, String, TestResult), String> {
        let root = arg["root"].as_str().ok_or("the command needs the workspace `root`")?;
        let test = arg["test"].as_str().ok_or("the command needs the `test`")?;
        let root = Path::new(root).to_path_buf();
        let result =
            self.jobs.results(&root).get(test).cloned().ok_or_else(|| format!("no exploration result for {test}"))?;
        Ok((root, test.to_string(), result))
    }

    /// `racelens.showSchedule {root, test}`: registers the failing schedule's documents (the
    /// markdown table, and the swimlane page when the result has its rows) and shows the
    /// page to a client that asked for it (`experimental.racelens.scheduleHtml`), the
    /// markdown to others.
    pub(super) fn show_schedule_command(&mut self, arg: &Value) -> Result<Option<Value>, String> {
        let (root, test, result) = self.result_of(arg)?;
        let uri = self.jobs.document(&test, jobs::schedule_document(&test, &root, &result));
        let html = jobs::schedule_page(&test, &root, &result, &uri).and_then(|page| self.jobs.attach_page(&uri, page));
        match &html {
            Some(page) if self.caps.schedule_html => self.show_document(page),
            _ => self.show_document(&uri),
        }
        Ok(Some(payloads::value(&ScheduleLinks { uri, html })))
    }

    /// `racelens/schedule {root, test}`: the steps of the test's failing schedule, each with
    /// its thread and its place as a location, for the editors' steppers and lists.
    pub(super) fn schedule_steps(&mut self, arg: &Value) -> Result<Value, String> {
        let (root, test, result) = self.result_of(arg)?;
        let ResultKind::Failed { headline, lanes, .. } = &result.kind else {
            return Err(format!("no failing schedule of {test}: its exploration did not fail"));
        };
        let lanes = lanes.as_ref().ok_or_else(|| {
            format!(
                "the failing schedule of {test} was kept by an earlier racelens without its steps: explore it again"
            )
        })?;
        let w = self
            .workspaces
            .iter()
            .position(|ws| ws.root == root)
            .ok_or_else(|| format!("{} is not an open workspace", root.display()))?;
        let steps = lanes
            .rows
            .iter()
            .map(|r| ScheduleStep {
                mark: r.mark,
                thread: r.lane,
                text: r.text.clone(),
                location: r.place.as_ref().and_then(|p| self.place_location(w, p)),
            })
            .collect();
        Ok(payloads::value(&ScheduleSteps { test, headline: headline.clone(), threads: lanes.threads.clone(), steps }))
    }

    /// Asks the editor to show a `racelens:` document: `window/showDocument` where it can,
    /// else our notification (the Neovim plugin). Not awaited: the editor asks us for the
    /// text while it handles the request.
    fn show_document(&self, uri: &str) {
        let client = self.client.clone();
        if self.caps.show_document {
            let Ok(parsed) = uri.parse::<Uri>() else { return };
            self.rt.spawn(async move {
                let params =
                    ShowDocumentParams { uri: parsed, external: Some(false), take_focus: Some(true), selection: None };
                let _ = client.show_document(params).await;
            });
        } else {
            let uri = uri.to_string();
            self.rt
                .spawn(async move { client.send_notification::<ShowDocumentNotification>(DocumentLink { uri }).await });
        }
    }

    /// `racelens.replay {root, test, schedule}`: run exactly that schedule on the current code.
    pub(super) fn replay_command(&mut self, arg: &Value) -> Result<Option<Value>, String> {
        let (root, test, result) = self.result_of(arg)?;
        let schedule = match (arg["schedule"].as_str(), &result.kind) {
            (Some(s), _) => s.to_string(),
            (None, ResultKind::Failed { schedule, .. }) => schedule.clone(),
            _ => return Err(format!("no failing schedule of {test} to replay")),
        };
        let w = self
            .workspaces
            .iter()
            .position(|ws| ws.root == root)
            .ok_or_else(|| format!("{} is not an open workspace", root.display()))?;
        let index = self.workspaces[w].host.index();
        let found = index.entries().flat_map(|(f, _)| select::thread_tests_in(index, f)).find(|t| test_name(t) == test);
        let t = found.ok_or_else(|| format!("the test {test} is no longer in the workspace"))?;
        let (job, key) = self.job(w, &t, JobKind::Replay { schedule }, self.exploring()?)?;
        self.jobs.enqueue(job, key);
        self.start_ready();
        Ok(Some(payloads::value(&Queued { queued: true, test: None })))
    }

    /// `racelens.explore.onSave`: queue the tests that reach the change, those it selects
    /// first in rank order, then the others most impacted first.
    pub(super) fn explore_on_save(&mut self, w: usize) {
        let ws = &self.workspaces[w];
        let index = ws.host.index();
        let mut wanted = Vec::new();
        for (f, _) in index.entries() {
            for t in select::thread_tests_in(index, f) {
                if select::impacted_points(index, &t.reach, &ws.impact) == 0 {
                    continue;
                }
                let name = test_name(&t);
                let fresh = self
                    .jobs
                    .peek_result(&ws.root, &name)
                    .is_some_and(|r| r.fingerprint == fingerprint(index, &t, &r.heuristic));
                if !fresh {
                    wanted.push(t);
                }
            }
        }
        for t in wanted {
            match self.exploring().and_then(|how| self.job(w, &t, JobKind::Explore, how)) {
                Ok((job, key)) => {
                    self.jobs.enqueue(job, key);
                }
                Err(e) => {
                    self.show(MessageType::WARNING, format!("racelens: {e}"));
                    return;
                }
            }
        }
        self.start_ready();
        self.refresh_lenses();
    }

    /// Starts queued jobs while the workspaces have room (`racelens.explore.parallel`).
    fn start_ready(&mut self) {
        for (job, key) in self.jobs.ready(self.settings.explore.parallel) {
            let replay = matches!(job.kind, JobKind::Replay { .. });
            let verb = if replay { "replaying a schedule of" } else { "exploring" };
            let token = format!("racelens/explore/{}", job.id);
            if let Some(p) = self.begin_cancellable(&token, format!("racelens: {verb} {}", key.1)) {
                self.progress.insert(job.id, p);
            }
            self.jobs.running.insert(
                job.id,
                Running {
                    key,
                    cancel: job.cancel.clone(),
                    replay,
                    fingerprint: job.fingerprint,
                    heuristic: job.request.settings.heuristic.clone(),
                    seed: job.request.settings.seed,
                    schedules: 0,
                    bound: 0,
                    impact: None,
                    token: Some(token),
                },
            );
            explorations::spawn(job, self.tx.clone());
        }
    }

    fn begin_cancellable(&self, token: &str, title: String) -> Option<Progress> {
        if !self.caps.progress {
            return None;
        }
        let token = NumberOrString::String(token.to_string());
        let client = self.client.clone();
        let created = self.rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(5), client.create_work_done_progress(token.clone())).await
        });
        if !matches!(created, Ok(Ok(()))) {
            return None;
        }
        let client = self.client.clone();
        Some(self.rt.block_on(async move {
            client.progress(token, title).with_cancel_button().with_message("starting the JVM").begin().await
        }))
    }

    pub(super) fn job_event(&mut self, event: JobEvent) {
        match event {
            JobEvent::Prepared { id, classpath, notes } => {
                let Some(r) = self.jobs.running.get(&id) else { return };
                let test = r.key.1.clone();
                self.log(MessageType::INFO, format!("racelens: {test}: {classpath}"));
                for note in notes {
                    self.log(MessageType::INFO, format!("racelens: {test}: note: {note}"));
                }
            }
            JobEvent::Progress { id, schedules, bound, rate } => {
                if let Some(r) = self.jobs.running.get_mut(&id) {
                    r.schedules = schedules;
                    r.bound = bound;
                }
                self.test_progressed(id);
                if let Some(p) = self.progress.get(&id) {
                    // The rate means something once a few schedules ran (the JVM's start counts).
                    let rate = if schedules >= 10 { format!(" · {rate:.0}/s") } else { String::new() };
                    let message =
                        format!("{} · preemption bound {bound}{rate}", plural(schedules, "schedule", "schedules"));
                    self.rt.block_on(p.report_with_message(message, Some(true)));
                }
            }
            JobEvent::Impact { id, report } => {
                let Some(r) = self.jobs.running.get_mut(&id) else { return };
                r.impact = Some(*report);
                let root = r.key.0.clone();
                if let Some(w) = self.workspaces.iter().position(|ws| ws.root == root) {
                    self.publish_due.insert(w);
                }
            }
            JobEvent::Finished { id, result, replay } => {
                let Some(running) = self.jobs.running.remove(&id) else { return };
                let summary = match &result {
                    Ok(kind) => summary(kind, replay),
                    Err(e) => e.clone(),
                };
                if let Some(p) = self.progress.remove(&id) {
                    self.rt.block_on(p.finish_with_message(summary.clone()));
                }
                let (root, test) = running.key;
                match result {
                    Ok(kind) if !replay => {
                        let failed = matches!(kind, ResultKind::Failed { .. });
                        let by = produced_by(&running.heuristic, running.seed);
                        self.jobs.store(
                            &root,
                            TestResult {
                                test: test.clone(),
                                fingerprint: running.fingerprint,
                                kind,
                                heuristic: running.heuristic,
                                seed: running.seed,
                                impact: running.impact,
                            },
                        );
                        if failed {
                            self.show(MessageType::WARNING, format!("racelens: {test}: {summary} · {by}"));
                        }
                    }
                    Ok(kind) => {
                        let typ = if matches!(kind, ResultKind::Failed { .. }) {
                            MessageType::WARNING
                        } else {
                            MessageType::INFO
                        };
                        self.show(typ, format!("racelens: replay of {test}: {summary}"));
                        if let ResultKind::Failed { table, .. } = &kind {
                            self.log(MessageType::INFO, format!("racelens: replay of {test}:\n{table}"));
                        }
                    }
                    Err(e) if e == "cancelled" => {}
                    Err(e) => self.show(MessageType::ERROR, format!("racelens: {test}: {e}")),
                }
                if let Some(w) = self.workspaces.iter().position(|ws| ws.root == root) {
                    self.publish_due.insert(w);
                }
                self.start_ready();
                self.refresh_lenses();
            }
        }
    }

    /// Results whose reached code is unchanged, with the test they belong to.
    fn fresh_results(&mut self, w: usize) -> Vec<(ThreadTest, TestResult)> {
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
    fn dynamic_hints(&mut self, w: usize, out: &mut BTreeMap<Uri, Vec<Diagnostic>>) {
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

/// One line for the progress's end and the messages.
fn summary(kind: &ResultKind, replay: bool) -> String {
    match (kind, replay) {
        (ResultKind::Failed { headline, .. }, true) => format!("still fails: {headline}"),
        (ResultKind::Failed { title, schedules, .. }, false) => {
            format!("✗ {title} after {}", plural(*schedules, "schedule", "schedules"))
        }
        (ResultKind::Passed { .. }, true) => "the schedule passes on the current code".into(),
        (ResultKind::Passed { coverage, .. }, false) if coverage.is_complete() => {
            format!("✓ no failure: {}", coverage.text())
        }
        (ResultKind::Passed { coverage, .. }, false) => format!("no failure: {}", coverage.text()),
        (ResultKind::Limit { coverage }, _) => format!("no failure yet: {}", coverage.text()),
        (ResultKind::Uncontrolled { message }, _) => format!("not explored: {message}"),
        (ResultKind::Stopped { message } | ResultKind::Unconfirmed { message }, _) => message.clone(),
    }
}

/// `racelens/showDocument`: for clients without `window/showDocument` (Neovim 0.7).
pub enum ShowDocumentNotification {}

impl notification::Notification for ShowDocumentNotification {
    type Params = DocumentLink;
    const METHOD: &'static str = "racelens/showDocument";
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
