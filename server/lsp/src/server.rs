//! The LSP facade: each handler forwards its message to the core without awaiting first
//! (so messages keep their order of arrival), and requests wait for the core's answer.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;

use racelens_analysis::cancel::Edits;
use serde_json::Value;
use tokio::sync::oneshot;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::core;
use crate::lenses::SERVER_COMMANDS;
use crate::messages::{ClientCaps, Msg, Reply};
use crate::positions::Encoding;
use crate::settings::Settings;

pub struct Backend {
    _client: Client,
    core: Sender<Msg>,
    /// Counted here, before the edit waits in the core's queue: the core's background work
    /// sees it at once and gives way.
    edits: Edits,
    shutdown: Arc<AtomicBool>,
    test_commands: bool,
}

impl Backend {
    pub(crate) fn new(
        client: Client,
        core: Sender<Msg>,
        edits: Edits,
        shutdown: Arc<AtomicBool>,
        test_commands: bool,
    ) -> Backend {
        Backend { _client: client, core, edits, shutdown, test_commands }
    }

    fn send(&self, msg: Msg) {
        // The core only stops when the process ends.
        let _ = self.core.send(msg);
    }

    /// A change to the files: it cancels the core's background work for older contents.
    fn send_edit(&self, msg: Msg) {
        self.edits.bump();
        self.send(msg);
    }

    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Msg) -> Result<T> {
        let (tx, rx) = oneshot::channel();
        self.send(make(tx));
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(message)) => Err(Error {
                code: tower_lsp_server::jsonrpc::ErrorCode::InvalidParams,
                message: message.into(),
                data: None,
            }),
            // The core dropped the reply: it panicked on this request.
            Err(_) => Err(Error {
                code: tower_lsp_server::jsonrpc::ErrorCode::InternalError,
                message: "racelens failed on this request (see the log)".into(),
                data: None,
            }),
        }
    }

    /// A malformed message (replaced by the framing guard): a parse error for it.
    pub async fn malformed(&self, params: Value) -> Result<Value> {
        let reason = params.get("reason").and_then(Value::as_str).unwrap_or("malformed message").to_string();
        Err(Error { code: tower_lsp_server::jsonrpc::ErrorCode::ParseError, message: reason.into(), data: None })
    }

    /// `window/workDoneProgress/cancel`: the user cancelled an exploration's progress.
    pub async fn cancel_progress(&self, params: WorkDoneProgressCancelParams) {
        let token = match params.token {
            NumberOrString::String(s) => s,
            NumberOrString::Number(n) => n.to_string(),
        };
        self.send(Msg::CancelProgress(token));
    }

    /// `racelens/document`: the text of a `racelens:` URI.
    pub async fn document(&self, params: Value) -> Result<Value> {
        let uri = params.get("uri").and_then(Value::as_str).unwrap_or_default().to_string();
        self.ask(|reply| Msg::Document { uri, reply }).await
    }

    /// `racelens/schedule {root, test}`: the steps of a failing schedule, for a stepper.
    pub async fn schedule(&self, params: Value) -> Result<Value> {
        self.ask(|reply| Msg::Schedule { arg: params, reply }).await
    }
}

fn client_caps(params: &InitializeParams) -> ClientCaps {
    let c = &params.capabilities;
    let utf8 = c
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
    ClientCaps {
        encoding: Some(if utf8 { Encoding::Utf8 } else { Encoding::Utf16 }),
        progress: c.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
        lens_refresh: c
            .workspace
            .as_ref()
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|l| l.refresh_support)
            .unwrap_or(false),
        watch_dynamic: c
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        configuration: c.workspace.as_ref().and_then(|w| w.configuration).unwrap_or(false),
        show_document: c.window.as_ref().and_then(|w| w.show_document.as_ref()).is_some_and(|s| s.support),
        selection_status: c
            .experimental
            .as_ref()
            .and_then(|e| e.pointer("/racelens/selectionStatus"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
        schedule_html: c
            .experimental
            .as_ref()
            .and_then(|e| e.pointer("/racelens/scheduleHtml"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
        test_states: c
            .experimental
            .as_ref()
            .and_then(|e| e.pointer("/racelens/testStates"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
        step_schedule: c
            .experimental
            .as_ref()
            .and_then(|e| e.pointer("/racelens/stepSchedule"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

fn roots(params: &InitializeParams) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
        .collect();
    #[allow(deprecated)]
    if out.is_empty() {
        if let Some(p) = params.root_uri.as_ref().and_then(|u| u.to_file_path()) {
            out.push(p.into_owned());
        }
    }
    out
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let caps = client_caps(&params);
        let settings = params.initialization_options.as_ref().map(Settings::from_json).unwrap_or_default();
        let encoding = match caps.encoding {
            Some(Encoding::Utf8) => PositionEncodingKind::UTF8,
            _ => PositionEncodingKind::UTF16,
        };
        self.send(Msg::Initialize { roots: roots(&params), caps, settings });
        let mut commands: Vec<String> = SERVER_COMMANDS.iter().map(|c| c.to_string()).collect();
        if self.test_commands {
            commands.push(core::PANIC_COMMAND.to_string());
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(encoding),
                text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..TextDocumentSyncOptions::default()
                })),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
                code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                    code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                    ..CodeActionOptions::default()
                })),
                execute_command_provider: Some(ExecuteCommandOptions { commands, ..ExecuteCommandOptions::default() }),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo { name: "racelens".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.send(Msg::Initialized);
    }

    async fn shutdown(&self) -> Result<()> {
        self.shutdown.store(true, Ordering::SeqCst);
        self.send(Msg::Shutdown);
        Ok(())
    }

    async fn did_open(&self, p: DidOpenTextDocumentParams) {
        self.send_edit(Msg::Open {
            uri: p.text_document.uri,
            version: p.text_document.version,
            text: p.text_document.text,
        });
    }

    async fn did_change(&self, p: DidChangeTextDocumentParams) {
        self.send_edit(Msg::Change {
            uri: p.text_document.uri,
            version: p.text_document.version,
            changes: p.content_changes,
        });
    }

    async fn did_save(&self, p: DidSaveTextDocumentParams) {
        self.send_edit(Msg::Save { uri: p.text_document.uri });
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        self.send_edit(Msg::Close { uri: p.text_document.uri });
    }

    async fn did_change_watched_files(&self, p: DidChangeWatchedFilesParams) {
        let paths = p.changes.into_iter().filter_map(|c| c.uri.to_file_path().map(|p| p.into_owned())).collect();
        self.send_edit(Msg::Watched(paths));
    }

    async fn did_change_configuration(&self, p: DidChangeConfigurationParams) {
        self.send(Msg::Configuration(Some(p.settings)));
    }

    async fn hover(&self, p: HoverParams) -> Result<Option<Hover>> {
        let uri = p.text_document_position_params.text_document.uri;
        let position = p.text_document_position_params.position;
        self.ask(|reply| Msg::Hover { uri, position, reply }).await
    }

    async fn code_lens(&self, p: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = p.text_document.uri;
        self.ask(|reply| Msg::CodeLens { uri, reply }).await.map(Some)
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.ask(|reply| Msg::CodeAction { params, reply }).await.map(Some)
    }

    async fn execute_command(&self, p: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let (command, arguments) = (p.command, p.arguments);
        self.ask(|reply| Msg::Execute { command, arguments, reply }).await
    }
}
