//! The messages the core handles, in arrival order: from the LSP facade (notifications,
//! and requests with the channel their answer goes back on), from our file watcher, and
//! from exploration workers. The senders depend on this module and the core on it, so
//! that none of them depends on the core.

use std::path::PathBuf;

use racelens_explore::reports::ResultKind;
use serde_json::Value;
use tokio::sync::oneshot;
use tower_lsp_server::ls_types::*;

use crate::positions::Encoding;
use crate::settings::Settings;

pub type Reply<T> = oneshot::Sender<Result<T, String>>;

/// What the client can do, from `initialize`.
#[derive(Clone, Debug, Default)]
pub struct ClientCaps {
    pub encoding: Option<Encoding>,
    pub progress: bool,
    pub lens_refresh: bool,
    pub watch_dynamic: bool,
    pub configuration: bool,
    /// `window/showDocument` (else our `racelens/showDocument` notification).
    pub show_document: bool,
    /// `experimental.racelens.selectionStatus`: the client shows `racelens/selectionStatus`.
    pub selection_status: bool,
    /// `experimental.racelens.scheduleHtml`: the client shows a schedule's swimlane page
    /// (`racelens:/schedule/.../*.html`) rather than its markdown.
    pub schedule_html: bool,
    /// `experimental.racelens.testStates`: the client shows `racelens/testStates` (a test view).
    pub test_states: bool,
    /// `experimental.racelens.stepSchedule`: the client steps through a failing schedule
    /// (`racelens.stepSchedule {root, test}`, its own command): failures get a lens for it.
    pub step_schedule: bool,
}

pub enum Msg {
    Initialize {
        roots: Vec<PathBuf>,
        caps: ClientCaps,
        settings: Settings,
    },
    Initialized,
    Open {
        uri: Uri,
        version: i32,
        text: String,
    },
    Change {
        uri: Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    },
    Close {
        uri: Uri,
    },
    Save {
        uri: Uri,
    },
    /// Files changed on disk (from the client's watcher or ours).
    Watched(Vec<PathBuf>),
    Configuration(Option<Value>),
    Hover {
        uri: Uri,
        position: Position,
        reply: Reply<Option<Hover>>,
    },
    CodeLens {
        uri: Uri,
        reply: Reply<Vec<CodeLens>>,
    },
    CodeAction {
        params: CodeActionParams,
        reply: Reply<Vec<CodeActionOrCommand>>,
    },
    Document {
        uri: String,
        reply: Reply<Value>,
    },
    /// `racelens/schedule {root, test}`: the steps of the test's failing schedule.
    Schedule {
        arg: Value,
        reply: Reply<Value>,
    },
    Execute {
        command: String,
        arguments: Vec<Value>,
        reply: Reply<Option<Value>>,
    },
    /// From an exploration's worker.
    Job(JobEvent),
    /// `window/workDoneProgress/cancel`: the user cancelled the progress with this token.
    CancelProgress(String),
    Shutdown,
}

impl Msg {
    /// Requests answer from the analysis, so it must be current first.
    pub(crate) fn needs_analysis(&self) -> bool {
        matches!(self, Msg::Hover { .. } | Msg::CodeLens { .. } | Msg::CodeAction { .. } | Msg::Execute { .. })
    }
}

/// What an exploration's worker reports.
pub enum JobEvent {
    /// The test's classes are compiled: where its classpath came from, and what reading the
    /// build noted (for the editor's output).
    Prepared {
        id: u64,
        classpath: String,
        notes: Vec<String>,
    },
    Progress {
        id: u64,
        schedules: u64,
        bound: u32,
        rate: f64,
    },
    /// The test's dynamic impact, computed before its exploration starts.
    Impact {
        id: u64,
        report: Box<racelens_explore::reports::ImpactReport>,
    },
    Finished {
        id: u64,
        result: Result<ResultKind, String>,
        replay: bool,
    },
}
