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
//!
//! This file holds the state and the loop; [`Core::handle`] is the dispatch table, one line
//! a message, to the module of its family. Every message is answered on this thread; only
//! explorations run in the background:
//! - `workspaces`: `initialize`/`initialized`, settings, file watching, reloads;
//! - `text_sync`: the buffers (`didOpen`, `didChange`, `didClose`, `didSave`) and files
//!   changed on disk;
//! - `diagnostics`: the analysis and what is published from it (never a request's answer);
//! - `features`: hover, code lenses, code actions, `racelens/document`, the tests' ranking
//!   and the selection status;
//! - `commands`: `workspace/executeCommand`;
//! - `explore`: the exploration commands and `racelens/schedule`, and the jobs' events from
//!   the background workers; `results`: what their results add to lenses, diagnostics and
//!   hovers; `test_states`: `racelens/testStates`.

use std::collections::{BTreeSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use racelens_analysis::cancel::Edits;
use racelens_analysis::host::Host;
use racelens_analysis::impact::Impact;
use racelens_analysis::rank::Selection;
use tokio::runtime::Handle;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;

use crate::documents::Documents;
use crate::jobs::Jobs;
use crate::messages::{ClientCaps, Msg};
use crate::payloads::{self, SelectionStatus};
use crate::positions::Encoding;
use crate::settings::Settings;
use crate::watch::Watcher;

mod commands;
mod diagnostics;
mod explore;
mod features;
mod results;
mod test_states;
mod text_sync;
mod workspaces;

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

    /// A work-done progress token the client created (`window/workDoneProgress/create`),
    /// where it shows progress; `None` where it does not, or did not answer within 5 s.
    fn progress_token(&self, token: &str) -> Option<NumberOrString> {
        if !self.caps.progress {
            return None;
        }
        let token = NumberOrString::String(token.to_string());
        let client = self.client.clone();
        let created = self.rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(5), client.create_work_done_progress(token.clone())).await
        });
        matches!(created, Ok(Ok(()))).then_some(token)
    }

    fn log(&self, typ: MessageType, text: String) {
        let client = self.client.clone();
        self.rt.block_on(client.log_message(typ, text));
    }

    fn show(&self, typ: MessageType, text: String) {
        let client = self.client.clone();
        self.rt.block_on(client.show_message(typ, text));
    }

    /// The dispatch table: each message to the handler of its family, all on this thread.
    /// Requests are answered here from the current state; explorations answer at once and
    /// run in the background ([`explore`]), their events coming back as [`Msg::Job`].
    fn handle(&mut self, msg: Msg) {
        match msg {
            // Lifecycle and workspaces (`workspaces`).
            Msg::Initialize { roots, caps, settings } => self.initialize(roots, caps, settings),
            Msg::Initialized => self.initialized(),
            Msg::Configuration(value) => self.configuration(value),
            Msg::Shutdown => {}
            // Text synchronization and files on disk (`text_sync`).
            Msg::Open { uri, version, text } => self.did_open(uri, version, text),
            Msg::Change { uri, version, changes } => self.did_change(uri, version, changes),
            Msg::Close { uri } => self.did_close(uri),
            Msg::Save { uri } => self.did_save(uri),
            Msg::Watched(paths) => self.watched(paths),
            // Requests on the current analysis (`features`).
            Msg::Hover { uri, position, reply } => answer(reply, Ok(self.hover(&uri, position))),
            Msg::CodeLens { uri, reply } => answer(reply, Ok(self.code_lens(&uri))),
            Msg::CodeAction { params, reply } => answer(reply, Ok(self.code_action(&params))),
            Msg::Document { uri, reply } => answer(reply, self.document(&uri)),
            // Commands, and the explorations they start (`commands`, `explore`).
            Msg::Execute { command, arguments, reply } => answer(reply, self.execute(&command, &arguments)),
            Msg::Schedule { arg, reply } => answer(reply, self.schedule_steps(&arg)),
            Msg::Job(event) => self.job_event(event),
            Msg::CancelProgress(token) => self.cancel_progress(&token),
        }
    }
}

/// Sends a request's answer; a client that stopped waiting is no error.
fn answer<T>(reply: crate::messages::Reply<T>, result: Result<T, String>) {
    let _ = reply.send(result);
}
