//! The server's core: one thread that owns all state (open documents, the analysis host of
//! each workspace, settings) and handles messages strictly in the order they arrived.
//!
//! Handlers of the LSP layer only forward messages here (without awaiting first, so
//! arrival order is kept). Edits are applied at once; analysis runs when no message is
//! waiting, or before a request that needs its result, so a burst of keystrokes costs
//! one analysis and stale states are never analysed.
//!
//! The edited file's diagnostics are published right after the analysis. The work that no
//! request waits for is deferred and runs only when no message is waiting, one piece at a
//! time: the other files' diagnostics ([`Core::publish_workspace`], due per workspace),
//! then the selection status (ranking every test of the project). The facade counts each
//! edit (didOpen, didChange, didClose, didSave, watched files; [`Edits`]) before queueing
//! it, and deferred work polls a [`Cancel`] token taken when it started: a newer edit stops
//! it at once, it stays due, and it starts again once that edit is analysed. Publication
//! records each file's list as it is sent and compares the current lists with what was
//! published, so a stopped publication loses nothing and sends nothing twice. Requests
//! never read a cancellable result: a lens that needs the ranking gets it complete
//! ([`Cancel::never`]). At shutdown, pending analysis and deferred work are dropped. A panic while handling one
//! message is caught: that request gets an error and the server goes on.

use std::collections::{BTreeSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use std::sync::Arc;

use racelens_analysis::cancel::{Cancel, Cancelled, Edits};
use racelens_analysis::git::GitRepo;
use racelens_analysis::host::{Host, HostOptions, MAX_FILE_BYTES};
use racelens_analysis::impact::{self, Impact, Options};
use racelens_analysis::rank::{self, Selection};
use racelens_analysis::select;
use serde_json::Value;
use tokio::runtime::Handle;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;

use crate::actions;
use crate::convert;
use crate::documents::{ChangeOutcome, Documents};
use crate::hover;
use crate::jobs::Jobs;
use crate::lenses;
use crate::messages::{ClientCaps, Msg};
use crate::payloads::{self, DocumentText, SelectionStatus};
use crate::positions::{self, Encoding};
use crate::settings::Settings;
use crate::status::SelectionStatusNotification;
use crate::watch::Watcher;

mod explore;
mod test_states;

struct Workspace {
    root: PathBuf,
    host: Host,
    impact: Impact,
    /// What we last published (analysis and explorations), per file (files without
    /// diagnostics are left out).
    published: std::collections::BTreeMap<Uri, Vec<Diagnostic>>,
    /// What the lenses depend on, to refresh them only when it changes.
    lens_key: u64,
    /// The tests the change selects, ranked: made when a lens asks, dropped by every analysis.
    selection: Option<Arc<Selection>>,
    /// The selection status last sent to the client.
    status: Option<SelectionStatus>,
    /// The tests and their states last sent to the client (`racelens/testStates`).
    tests_sent: Option<payloads::TestStates>,
}

pub struct Core {
    client: Client,
    rt: Handle,
    tx: Sender<Msg>,
    /// Edits counted as they arrive, to cancel deferred work.
    edits: Edits,
    caps: ClientCaps,
    settings: Settings,
    roots: Vec<PathBuf>,
    docs: Documents,
    workspaces: Vec<Workspace>,
    dirty: BTreeSet<usize>,
    /// Workspaces whose other files' diagnostics may have changed: published when nothing
    /// else waits.
    publish_due: BTreeSet<usize>,
    /// Workspaces whose selection status may have changed: sent when nothing else waits.
    status_due: BTreeSet<usize>,
    /// Workspaces whose tests' states may have changed: sent when nothing else waits.
    tests_due: BTreeSet<usize>,
    /// The document edited last: its diagnostics are published first.
    edited: Option<Uri>,
    /// When the oldest unanalysed change arrived.
    dirty_since: Option<Instant>,
    watcher: Option<Watcher>,
    /// Commands for tests (`racelens.internal.panic`), enabled by an environment variable.
    test_commands: bool,
    told_outside: BTreeSet<PathBuf>,
    /// Explorations: queued, running, and their results.
    jobs: Jobs,
    /// The editor's progress of each running job.
    progress: std::collections::HashMap<u64, explore::Progress>,
}

/// Environment variable that enables the internal commands the tests use (`racelens lsp`).
pub const TEST_COMMANDS_ENV: &str = "RACELENS_TEST_COMMANDS";
pub const PANIC_COMMAND: &str = "racelens.internal.panic";

impl Core {
    pub fn new(client: Client, rt: Handle, tx: Sender<Msg>, edits: Edits, test_commands: bool) -> Core {
        Core {
            client,
            rt,
            tx,
            edits,
            caps: ClientCaps::default(),
            settings: Settings::default(),
            roots: Vec::new(),
            docs: Documents::default(),
            workspaces: Vec::new(),
            dirty: BTreeSet::new(),
            publish_due: BTreeSet::new(),
            status_due: BTreeSet::new(),
            tests_due: BTreeSet::new(),
            edited: None,
            dirty_since: None,
            watcher: None,
            test_commands,
            told_outside: BTreeSet::new(),
            jobs: Jobs::default(),
            progress: Default::default(),
        }
    }

    fn encoding(&self) -> Encoding {
        self.caps.encoding.unwrap_or(Encoding::Utf16)
    }

    /// The message loop; returns when every sender is gone or after `Shutdown`.
    pub fn run(mut self, rx: Receiver<Msg>) {
        let mut queue: VecDeque<Msg> = VecDeque::new();
        loop {
            // Taken before looking for messages: an edit counted after it cancels the
            // deferred work started below, whether or not this look found the edit.
            let cancel = self.edits.token();
            while let Ok(m) = rx.try_recv() {
                queue.push_back(m);
            }
            let Some(msg) = queue.pop_front() else {
                if !self.dirty.is_empty() {
                    self.guarded("analysis", |core| core.analyze_dirty());
                    continue;
                }
                // Deferred work, each piece due again when a newer edit stops it.
                if let Some(w) = self.publish_due.pop_first() {
                    self.guarded("diagnostics", |core| {
                        if core.publish_workspace(w, &cancel).is_err() {
                            core.publish_due.insert(w);
                        }
                    });
                    continue;
                }
                if let Some(w) = self.status_due.pop_first() {
                    self.guarded("the selection status", |core| {
                        if core.send_selection_status(w, &cancel).is_err() {
                            core.status_due.insert(w);
                        }
                    });
                    continue;
                }
                if let Some(w) = self.tests_due.pop_first() {
                    self.guarded("the tests' states", |core| {
                        if core.send_test_states(w, &cancel).is_err() {
                            core.tests_due.insert(w);
                        }
                    });
                    continue;
                }
                match rx.recv() {
                    Ok(m) => {
                        queue.push_back(m);
                        continue;
                    }
                    Err(_) => break,
                }
            };
            // Analyse before a request that reads the result, and never let a steady stream
            // of messages postpone the analysis for long.
            let overdue = self.dirty_since.is_some_and(|t| t.elapsed() > Duration::from_millis(300));
            if !self.dirty.is_empty() && (msg.needs_analysis() || overdue) {
                self.guarded("analysis", |core| core.analyze_dirty());
            }
            if matches!(msg, Msg::Shutdown) {
                self.watcher = None;
                self.jobs.cancel(None);
                // The client no longer listens.
                self.dirty.clear();
                self.publish_due.clear();
                self.status_due.clear();
                self.tests_due.clear();
                continue;
            }
            self.guarded("a message", |core| core.handle(msg));
            if self.dirty.is_empty() {
                self.dirty_since = None;
            } else if self.dirty_since.is_none() {
                self.dirty_since = Some(Instant::now());
            }
        }
    }

    /// Runs `f`; a panic is reported to the client and does not end the server.
    fn guarded(&mut self, what: &str, f: impl FnOnce(&mut Core)) {
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| f(self))) {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            self.log(MessageType::ERROR, format!("racelens: internal error while handling {what}: {text}"));
        }
    }

    fn log(&self, typ: MessageType, text: String) {
        let client = self.client.clone();
        self.rt.block_on(client.log_message(typ, text));
    }

    fn show(&self, typ: MessageType, text: String) {
        let client = self.client.clone();
        self.rt.block_on(client.show_message(typ, text));
    }

    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Initialize { roots, caps, settings } => {
                self.roots = roots;
                self.caps = caps;
                self.settings = settings;
            }
            Msg::Initialized => self.initialized(),
            Msg::Open { uri, version, text } => {
                self.docs.open(uri.clone(), version, &text);
                self.overlay(&uri);
            }
            Msg::Change { uri, version, changes } => match self.docs.change(&uri, version, changes, self.encoding()) {
                ChangeOutcome::Applied => {
                    self.overlay(&uri);
                    self.edited = Some(uri);
                }
                ChangeOutcome::Stale { current, got } => self.log(
                    MessageType::WARNING,
                    format!(
                        "racelens: ignored a change to {} with version {got}, not newer than {current}",
                        uri.as_str()
                    ),
                ),
                ChangeOutcome::NotOpen => {}
            },
            Msg::Close { uri } => {
                self.docs.close(&uri);
                if let Some((w, rel)) = self.locate(&uri) {
                    self.workspaces[w].host.remove_overlay(&rel);
                    self.dirty.insert(w);
                }
            }
            Msg::Save { uri } => {
                if let Some((w, _)) = self.locate(&uri) {
                    self.refresh_git(w);
                    if self.settings.explore.on_save {
                        // Queue what the saved change reaches, on the analysis of it.
                        self.analyze_dirty();
                        self.explore_on_save(w);
                    }
                }
            }
            Msg::Watched(paths) => self.watched(paths),
            Msg::Configuration(value) => self.configuration(value),
            Msg::Hover { uri, position, reply } => {
                let _ = reply.send(Ok(self.hover(&uri, position)));
            }
            Msg::CodeLens { uri, reply } => {
                let _ = reply.send(Ok(self.code_lens(&uri)));
            }
            Msg::CodeAction { params, reply } => {
                let _ = reply.send(Ok(self.code_action(&params)));
            }
            Msg::Document { uri, reply } => {
                let _ = reply.send(self.document(&uri));
            }
            Msg::Schedule { arg, reply } => {
                let _ = reply.send(self.schedule_steps(&arg));
            }
            Msg::Execute { command, arguments, reply } => {
                let result = self.execute(&command, &arguments);
                let _ = reply.send(result);
            }
            Msg::Job(event) => self.job_event(event),
            Msg::CancelProgress(token) => self.cancel_progress(&token),
            Msg::Shutdown => {}
        }
    }

    // ----- workspaces -------------------------------------------------------------------

    fn initialized(&mut self) {
        if self.caps.configuration {
            if let Some(v) = self.pull_configuration() {
                self.settings = Settings::from_json(&v);
            }
        }
        self.watch();
        let roots = self.roots.clone();
        let started = Instant::now();
        let progress = self.begin_progress("racelens: indexing Java sources");
        for root in roots {
            self.open_workspace(&root);
        }
        let files: usize = self.workspaces.iter().map(|w| w.host.index().len()).sum();
        self.end_progress(progress, format!("{files} Java files in {} ms", started.elapsed().as_millis()));
    }

    fn pull_configuration(&self) -> Option<Value> {
        let client = self.client.clone();
        let items = vec![ConfigurationItem { scope_uri: None, section: Some("racelens".into()) }];
        let answer = self
            .rt
            .block_on(async move { tokio::time::timeout(Duration::from_secs(5), client.configuration(items)).await });
        match answer {
            Ok(Ok(mut values)) if !values.is_empty() => Some(values.remove(0)),
            _ => None,
        }
    }

    fn begin_progress(
        &self,
        title: &str,
    ) -> Option<tower_lsp_server::OngoingProgress<tower_lsp_server::Unbounded, tower_lsp_server::NotCancellable>> {
        if !self.caps.progress {
            return None;
        }
        let token = NumberOrString::String("racelens/index".into());
        let client = self.client.clone();
        let created = self.rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(5), client.create_work_done_progress(token.clone())).await
        });
        if !matches!(created, Ok(Ok(()))) {
            return None;
        }
        let client = self.client.clone();
        let title = title.to_string();
        Some(self.rt.block_on(async move { client.progress(token, title).begin().await }))
    }

    fn end_progress(
        &self,
        progress: Option<
            tower_lsp_server::OngoingProgress<tower_lsp_server::Unbounded, tower_lsp_server::NotCancellable>,
        >,
        message: String,
    ) {
        if let Some(p) = progress {
            self.rt.block_on(p.finish_with_message(message));
        }
    }

    /// Watches the workspace: through the client when it can register file watchers,
    /// else with our own watcher (Neovim 0.7 cannot).
    fn watch(&mut self) {
        if self.caps.watch_dynamic {
            let patterns = ["**/*.java", "**/.git/HEAD", "**/.git/index", "**/.git/refs/**", "**/racelens.toml"];
            let watchers = patterns
                .iter()
                .map(|p| FileSystemWatcher { glob_pattern: GlobPattern::String(p.to_string()), kind: None })
                .collect();
            let options = serde_json::to_value(DidChangeWatchedFilesRegistrationOptions { watchers }).ok();
            let registration = Registration {
                id: "racelens-watch".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: options,
            };
            let client = self.client.clone();
            let _ = self.rt.block_on(async move {
                tokio::time::timeout(Duration::from_secs(5), client.register_capability(vec![registration])).await
            });
        } else {
            match Watcher::start(&self.roots, self.tx.clone(), self.edits.clone()) {
                Ok(w) => self.watcher = Some(w),
                Err(e) => self.log(
                    MessageType::WARNING,
                    format!("racelens: cannot watch the workspace for changes made outside the editor: {e}"),
                ),
            }
        }
    }

    fn host_options(&self) -> HostOptions {
        HostOptions {
            base: self.settings.base.clone(),
            no_git: false,
            overrides: self.settings.overrides.clone(),
            ..HostOptions::default()
        }
    }

    /// Opens (or finds) the workspace holding `dir`; returns its index.
    fn open_workspace(&mut self, dir: &Path) -> Option<usize> {
        // A folder outside git is read as a plain folder (and the user is told below).
        let outside_git = !GitRepo::contains(dir);
        let host = match Host::open(dir, &HostOptions { no_git: outside_git, ..self.host_options() }) {
            Ok(h) => h,
            Err(e) => {
                self.show(
                    if outside_git { MessageType::WARNING } else { MessageType::ERROR },
                    format!("racelens: {e}"),
                );
                return None;
            }
        };
        if let Some(i) = self.workspaces.iter().position(|w| w.root == host.root()) {
            return Some(i);
        }
        if outside_git {
            self.show(
                MessageType::INFO,
                format!("racelens: {} is not in a git work tree, so there is no change to compare with: warnings cover every file", dir.display()),
            );
        }
        let mut host = host;
        if let Err(e) = host.load() {
            self.show(MessageType::ERROR, format!("racelens: {e}"));
        }
        self.log(MessageType::INFO, format!("racelens: {}: {}", host.root().display(), host.index_cache().describe()));
        for note in host.notes() {
            let where_ = note.path.map(|p| format!("{p}: ")).unwrap_or_default();
            self.log(MessageType::WARNING, format!("racelens: {where_}{}", note.message));
        }
        let root = host.root().to_path_buf();
        self.workspaces.push(Workspace {
            root,
            host,
            impact: Impact::default(),
            published: Default::default(),
            lens_key: 0,
            selection: None,
            status: None,
            tests_sent: None,
        });
        let w = self.workspaces.len() - 1;
        // Buffers already open there count as overlays.
        let uris: Vec<Uri> = self.docs.uris().cloned().collect();
        for uri in uris {
            self.overlay(&uri);
        }
        self.dirty.insert(w);
        Some(w)
    }

    /// The workspace a file belongs to and its path relative to the workspace root.
    fn locate(&self, uri: &Uri) -> Option<(usize, String)> {
        let path = uri.to_file_path()?.into_owned();
        let path = path.canonicalize().unwrap_or(path);
        self.workspaces
            .iter()
            .enumerate()
            .filter(|(_, w)| path.starts_with(&w.root))
            .max_by_key(|(_, w)| w.root.as_os_str().len())
            .map(|(i, w)| (i, path.strip_prefix(&w.root).unwrap_or(&path).to_string_lossy().replace('\\', "/")))
    }

    /// Lays an open document over its file in its workspace (opening the workspace of a
    /// file outside every known one).
    fn overlay(&mut self, uri: &Uri) {
        let found = self.locate(uri).or_else(|| {
            let path = uri.to_file_path()?.into_owned();
            let dir = path.parent()?.to_path_buf();
            if self.told_outside.contains(&dir) {
                return None;
            }
            self.told_outside.insert(dir.clone());
            self.open_workspace(&dir)?;
            self.locate(uri)
        });
        let Some((w, rel)) = found else { return };
        let Some(open) = self.docs.get(uri) else { return };
        let ws = &mut self.workspaces[w];
        if !ws.host.is_source(&rel) {
            return;
        }
        match &open.doc {
            Some(doc) => ws.host.set_overlay(&rel, doc.text().clone(), Some(doc.facts().clone())),
            None => {
                ws.host.set_overlay(&rel, Arc::from(open.rope.to_string()), None);
                self.log(
                    MessageType::WARNING,
                    format!("racelens: {rel} is too large to analyse ({} MB at most)", MAX_FILE_BYTES >> 20),
                );
            }
        }
        self.dirty.insert(w);
    }

    fn refresh_git(&mut self, w: usize) {
        if let Err(e) = self.workspaces[w].host.refresh_git() {
            self.log(MessageType::WARNING, format!("racelens: {e}"));
        }
        self.dirty.insert(w);
    }

    /// Files changed on disk: re-read sources, re-base on git changes, reload on a new
    /// configuration file.
    fn watched(&mut self, paths: Vec<PathBuf>) {
        let mut reload = BTreeSet::new();
        let mut git = BTreeSet::new();
        for path in paths {
            let Some(uri) = Uri::from_file_path(&path) else { continue };
            let Some((w, rel)) = self.locate(&uri) else { continue };
            if rel == racelens_analysis::config::FILE_NAME {
                reload.insert(w);
            } else if rel.starts_with(".git/") {
                git.insert(w);
            } else if rel.ends_with(".java") {
                self.workspaces[w].host.reload_file(&rel);
                git.insert(w);
            }
        }
        for w in git {
            self.workspaces[w].host.commit();
            self.refresh_git(w);
        }
        for w in reload.into_iter().rev() {
            self.reload_workspace(w);
        }
    }

    /// Opens a workspace again (new settings or configuration file), keeping its buffers.
    fn reload_workspace(&mut self, w: usize) {
        let ws = self.workspaces.remove(w);
        let shift =
            |set: &BTreeSet<usize>| set.iter().filter(|&&d| d != w).map(|&d| if d > w { d - 1 } else { d }).collect();
        self.dirty = shift(&self.dirty);
        self.publish_due = shift(&self.publish_due);
        self.status_due = shift(&self.status_due);
        self.tests_due = shift(&self.tests_due);
        // Clear what it published; the reloaded workspace publishes again.
        for uri in ws.published.keys() {
            self.publish(uri.clone(), Vec::new());
        }
        self.open_workspace(&ws.root);
    }

    fn configuration(&mut self, value: Option<Value>) {
        let value = match value.filter(|v| !v.is_null()) {
            // Some clients send the settings in the notification (under `racelens`, or bare).
            Some(v) => Some(v.get("racelens").cloned().unwrap_or(v)),
            None if self.caps.configuration => self.pull_configuration(),
            None => None,
        };
        let Some(value) = value else { return };
        let new = Settings::from_json(&value);
        let old = std::mem::replace(&mut self.settings, new.clone());
        if old.needs_reload(&new) {
            for w in (0..self.workspaces.len()).rev() {
                self.reload_workspace(w);
            }
        } else if old != new {
            self.dirty.extend(0..self.workspaces.len());
            self.refresh_lenses();
        }
    }

    // ----- analysis and publishing --------------------------------------------------------

    fn analyze_dirty(&mut self) {
        let dirty = std::mem::take(&mut self.dirty);
        self.dirty_since = None;
        for w in dirty {
            if w >= self.workspaces.len() {
                continue;
            }
            let impact = self.workspaces[w].host.analyze(&Options::new());
            let ws = &mut self.workspaces[w];
            ws.impact = impact;
            ws.selection = None;
            let key = lens_key(&ws.impact);
            let lens_changed = std::mem::replace(&mut ws.lens_key, key) != key;
            self.publish_edited(w);
            self.publish_due.insert(w);
            // Tests come and go, and a result goes stale, with edits that keep the lenses' key.
            if self.caps.test_states {
                self.tests_due.insert(w);
            }
            if lens_changed {
                self.refresh_lenses();
                if self.caps.selection_status {
                    self.status_due.insert(w);
                }
            }
        }
    }

    /// Publishes the diagnostics (the analysis' and the explorations') of the document edited
    /// last, if it is in workspace `w` and they changed: the user looks at it, and the other
    /// files' wait for [`Core::publish_workspace`].
    fn publish_edited(&mut self, w: usize) {
        let Some((_, rel)) = self.edited.as_ref().and_then(|uri| self.locate(uri)).filter(|(at, _)| *at == w) else {
            return;
        };
        let ws = &self.workspaces[w];
        let (Some(file), Some(uri)) = (ws.host.index().file_id(&rel), convert::file_uri(&ws.root, &rel)) else {
            return;
        };
        let mut list = convert::file_diagnostics(
            ws.host.index(),
            &ws.root,
            &ws.impact,
            file,
            self.encoding(),
            self.settings.hints,
        );
        list.extend(self.exploration_diagnostics(w).remove(&uri).unwrap_or_default());
        if !published(&self.workspaces[w].published, &uri, &list) {
            self.publish_file(w, uri, list);
        }
    }

    /// Publishes a workspace's diagnostics (the analysis' and the explorations') where they
    /// differ from what was published: new or different lists, and empty ones for files whose
    /// diagnostics went away. Stops between two files once `cancel` is; the next call sends
    /// what is left, as it then stands.
    fn publish_workspace(&mut self, w: usize, cancel: &Cancel) -> Result<(), Cancelled> {
        if w >= self.workspaces.len() {
            return Ok(());
        }
        let ws = &self.workspaces[w];
        let mut diagnostics =
            convert::diagnostics(ws.host.index(), &ws.root, &ws.impact, self.encoding(), self.settings.hints);
        for (uri, list) in self.exploration_diagnostics(w) {
            diagnostics.entry(uri).or_default().extend(list);
        }
        let ws = &self.workspaces[w];
        let mut changed: Vec<(Uri, Vec<Diagnostic>)> =
            ws.published.keys().filter(|u| !diagnostics.contains_key(*u)).map(|u| (u.clone(), Vec::new())).collect();
        changed.extend(diagnostics.into_iter().filter(|(u, d)| !published(&ws.published, u, d)));
        for (uri, list) in changed {
            cancel.check()?;
            self.publish_file(w, uri, list);
        }
        Ok(())
    }

    /// Publishes one file's list and records it as published.
    fn publish_file(&mut self, w: usize, uri: Uri, list: Vec<Diagnostic>) {
        let published = &mut self.workspaces[w].published;
        match list.is_empty() {
            true => published.remove(&uri),
            false => published.insert(uri.clone(), list.clone()),
        };
        self.publish(uri, list);
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<Diagnostic>) {
        let version = self.docs.get(&uri).map(|d| d.version);
        let client = self.client.clone();
        self.rt.block_on(client.publish_diagnostics(uri, diagnostics, version));
    }

    /// Asks the client for the lenses again (and marks the tests' states due: whatever
    /// changed a lens may have changed a state).
    fn refresh_lenses(&mut self) {
        self.test_states_due();
        if !self.settings.code_lens {
            return;
        }
        let client = self.client.clone();
        if self.caps.lens_refresh {
            // A request: do not wait for the answer (the client may be busy asking us).
            self.rt.spawn(async move {
                let _ = client.code_lens_refresh().await;
            });
        } else {
            self.rt.block_on(client.send_notification::<LensRefresh>(()));
        }
    }

    // ----- requests -----------------------------------------------------------------------

    fn document(&self, uri: &str) -> Result<Value, String> {
        document(uri, &self.jobs)
    }

    fn hover(&mut self, uri: &Uri, position: Position) -> Option<Hover> {
        let (w, rel) = self.locate(uri)?;
        let encoding = self.encoding();
        let ws = &mut self.workspaces[w];
        let sharing = ws.host.sharing();
        let index = ws.host.index();
        let file = index.file_id(&rel)?;
        let facts = &index.entry(file)?.facts;
        let offset = positions::offset(facts, position, encoding);
        let field = hover::field_at(index, file, offset)
            .map(|field| hover::hover_markdown(index, &ws.root, &sharing, &ws.impact, &field));
        // What the tests' runs say of this line (dynamic impact), after the field's verdict.
        let dynamic = self.dynamic_hover(w, &rel, position.line);
        let text = match (field, dynamic) {
            (Some(f), Some(d)) => format!("{f}\n\n---\n\n{d}"),
            (f, d) => f.or(d)?,
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: text }),
            range: None,
        })
    }

    fn code_lens(&mut self, uri: &Uri) -> Vec<CodeLens> {
        if !self.settings.code_lens {
            return Vec::new();
        }
        let Some((w, rel)) = self.locate(uri) else { return Vec::new() };
        let Some(file) = self.workspaces[w].host.index().file_id(&rel) else { return Vec::new() };
        // Lenses stand on tests: a file without any needs no ranking of the project's tests.
        let selection = match select::thread_tests_in(self.workspaces[w].host.index(), file).is_empty() {
            true => Arc::new(Selection::default()),
            false => self.selection(w),
        };
        let ws = &self.workspaces[w];
        let mut out = lenses::lenses(ws.host.index(), &ws.root, file, uri, &ws.impact, &selection, self.encoding());
        self.exploration_lenses(w, &rel, &mut out);
        lenses::name_inherited(self.workspaces[w].host.index(), file, &mut out);
        out
    }

    /// The workspace's tests ranked for the change, complete: a request waits for it.
    fn selection(&mut self, w: usize) -> Arc<Selection> {
        self.selection_cancellable(w, &Cancel::never()).expect("no edit cancels Cancel::never()")
    }

    /// The workspace's tests ranked for the change (SimRT's selection, from the coverage
    /// history that `racelens record` and explorations keep, else from static reach; reading
    /// the history runs nothing), kept until the next analysis. Without an impacted pair, a
    /// warning or undecided state nothing is selected, and the lenses need no ranking. Given up, and nothing kept, once
    /// `cancel` is.
    fn selection_cancellable(&mut self, w: usize, cancel: &Cancel) -> Result<Arc<Selection>, Cancelled> {
        let ws = &mut self.workspaces[w];
        if let Some(s) = &ws.selection {
            return Ok(s.clone());
        }
        let something_to_select = ws.impact.pairs.iter().any(|p| p.impacted())
            || !ws.impact.diagnostics.is_empty()
            || !ws.impact.undecided.is_empty();
        let selection = match something_to_select {
            true => {
                let history = racelens_explore::history::load(&racelens_explore::history::path(ws.host.root()));
                cancel.check()?;
                rank::select_for(&mut ws.host, &ws.impact, &history, cancel)?
            }
            false => Selection::default(),
        };
        let selection = Arc::new(selection);
        ws.selection = Some(selection.clone());
        Ok(selection)
    }

    /// Tells the client how many tests the change selects, when that changed; gives way to a
    /// newer edit (`cancel`), since no request waits for it.
    fn send_selection_status(&mut self, w: usize, cancel: &Cancel) -> Result<(), Cancelled> {
        if !self.caps.selection_status || w >= self.workspaces.len() {
            return Ok(());
        }
        let selection = self.selection_cancellable(w, cancel)?;
        let ws = &mut self.workspaces[w];
        let impacted = ws.impact.pairs.iter().filter(|p| p.impacted()).count();
        let Some(status) = SelectionStatus::new(ws.host.index(), &ws.root, &selection, impacted) else { return Ok(()) };
        if ws.status.as_ref() == Some(&status) {
            return Ok(());
        }
        ws.status = Some(status.clone());
        let client = self.client.clone();
        self.rt.block_on(client.send_notification::<SelectionStatusNotification>(status));
        Ok(())
    }

    /// Quick fixes for the diagnostics the request selects; none for a document we do not
    /// analyse or a range where no current diagnostic has one.
    fn code_action(&mut self, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let Some((w, rel)) = self.locate(&params.text_document.uri) else { return Vec::new() };
        let (encoding, hints) = (self.encoding(), self.settings.hints);
        let ws = &mut self.workspaces[w];
        let Some(file) = ws.host.index().file_id(&rel) else { return Vec::new() };
        let published = ws.impact.diagnostics.iter().filter(|d| d.file == file && convert::shown(d, hints));
        let selected = actions::selected(ws.host.index(), &ws.root, published, params, encoding);
        if selected.is_empty() {
            return Vec::new();
        }
        let changes = ws.host.change_set();
        actions::quick_fixes(ws.host.index(), &changes, &selected, &params.text_document.uri, encoding)
    }

    fn execute(&mut self, command: &str, arguments: &[Value]) -> Result<Option<Value>, String> {
        let arg = arguments.first().cloned().unwrap_or(Value::Null);
        match command {
            lenses::EXPLORE_COMMAND => self.explore_command(&arg),
            lenses::CANCEL_COMMAND => Ok(Some(self.cancel_command(&arg))),
            lenses::SHOW_COMMAND => self.show_schedule_command(&arg),
            lenses::REPLAY_COMMAND => self.replay_command(&arg),
            lenses::STEP_COMMAND => Err(format!("`{command}` is the editor's own command (its stepper); run it in the editor, or ask for the steps with the `racelens/schedule` request")),
            lenses::COPY_COMMAND => {
                // Clients copy to their clipboard themselves; one that sends this to us gets
                // the text to copy, and sees it.
                let text = arg["text"].as_str().unwrap_or_default().to_string();
                self.show(MessageType::INFO, text.clone());
                Ok(Some(Value::String(text)))
            }
            PANIC_COMMAND if self.test_commands => panic!("{PANIC_COMMAND} was run"),
            _ => Err(format!("unknown command `{command}`")),
        }
    }
}

/// Whether `list` is what was published for `uri` (nothing published is an empty list).
fn published(published: &std::collections::BTreeMap<Uri, Vec<Diagnostic>>, uri: &Uri, list: &[Diagnostic]) -> bool {
    published.get(uri).map_or(list.is_empty(), |p| p == list)
}

/// What code lenses show depends on the impacted lines and fields, and on the methods of
/// the impacted pairs' ends (the tests' ranks).
fn lens_key(impact: &Impact) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    impact.impacted_lines.hash(&mut h);
    impact.impacted_fields.hash(&mut h);
    for p in impact.pairs.iter().filter(|p| p.impacted()) {
        (p.kind, &p.field, p.a.file, &p.a.method, p.b.file, &p.b.method).hash(&mut h);
    }
    h.finish()
}

/// `racelens:` documents: `racelens:/codes/RL001`, and schedules
/// (`racelens:/schedule/<run>-3/PoolTest.borrow.md`: the name after the id is for people;
/// the same with `.html`: the swimlane page).
fn document(uri: &str, jobs: &Jobs) -> Result<Value, String> {
    let path = uri.strip_prefix("racelens:").ok_or_else(|| format!("not a racelens: document: {uri}"))?;
    let path = path.trim_start_matches('/');
    if let Some(n) = path.strip_prefix("schedule/") {
        let name = n.split('/').next().unwrap_or_default();
        if n.ends_with(".html") {
            let page = jobs
                .document_page(name)
                .ok_or_else(|| format!("no schedule page at {uri} (schedules are kept while the server runs)"))?;
            return Ok(payloads::value(&DocumentText { text: page.clone(), language_id: "html".into() }));
        }
        let text = jobs.document_text(name);
        let text =
            text.ok_or_else(|| format!("no schedule document at {uri} (schedules are kept while the server runs)"))?;
        return Ok(payloads::value(&DocumentText::markdown(text.clone())));
    }
    if let Some(code) = path.strip_prefix("codes/") {
        let code = impact::codes::find(code).ok_or_else(|| format!("no racelens code `{code}`"))?;
        return Ok(payloads::value(&DocumentText::markdown(impact::codes::markdown(code))));
    }
    if path == "codes" || path.is_empty() {
        let text: String = impact::codes::CODES.iter().map(|c| format!("- **{}** {}\n", c.code, c.title)).collect();
        return Ok(payloads::value(&DocumentText::markdown(format!("# racelens diagnostic codes\n\n{text}"))));
    }
    Err(format!("no racelens document at {uri}"))
}

/// `racelens/codeLensRefresh`: for clients without `workspace/codeLens/refresh`.
pub enum LensRefresh {}

impl notification::Notification for LensRefresh {
    type Params = ();
    const METHOD: &'static str = "racelens/codeLensRefresh";
}
