//! Explorations in the editor, the core's side: the commands (explore, cancel, show the
//! schedule, replay) and `racelens/schedule`, answered on the core thread; the jobs they
//! queue run in the background (`explorations::spawn`, a worker thread each), and their
//! events come back here as `Msg::Job`, with the queue's progress shown in the editor. What
//! results add to lenses, diagnostics and hovers is `results`.
//!
//! Running project code is the user's decision: nothing here starts a JVM except a
//! command the user ran (a lens click) or `racelens.explore.onSave`, which they turn on.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use racelens_analysis::index::{Origin, ProjectIndex};
use racelens_analysis::select::{self, EntryKind, ThreadTest};
use racelens_explore::exploration::{ChangeInput, Places, RecordInput, Request, Settings};
use racelens_explore::jvm::project::Sources;
use racelens_explore::jvm::TestSpec;
use racelens_explore::reports::{produced_by, ResultKind, TestResult};
use racelens_explore::search::heuristics::Choice;
use serde_json::Value;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Cancellable, OngoingProgress, Unbounded};

use super::Core;
use crate::explorations::{self, Job, JobKind};
use crate::jobs::{self, Running, TestKey};
use crate::messages::JobEvent;
use crate::payloads::{self, Cancelled, DocumentLink, Queued, ScheduleLinks, ScheduleStep, ScheduleSteps};

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

pub(super) fn lens(range: Range, title: String, command: &str, argument: Value) -> CodeLens {
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
        let change = (matches!(kind, JobKind::Explore) && choice.is_change_aware())
            .then(|| ChangeInput::of(&mut ws.host, &ws.impact, None));
        let sources = Sources::of(&ws.host);
        let record = RecordInput::of(&ws.host, &sources);
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
        let token = self.progress_token(token)?;
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
