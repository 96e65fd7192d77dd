//! The racelens language server: live race warnings with quick fixes, field hovers and
//! test lenses over LSP (stdio), driving the same analysis host as `racelens check`.
//!
//! - [`server`]: the LSP facade (tower-lsp-server); handlers forward to the core;
//! - [`core`]: one thread that owns all state and handles messages in arrival order;
//! - [`messages`]: what the core handles (from the facade, the watcher, workers);
//! - [`documents`]: open buffers (rope + incrementally parsed document);
//! - [`positions`]: UTF-16/UTF-8 positions <-> byte offsets;
//! - [`convert`], [`hover`], [`lenses`], [`actions`]: analysis results as LSP answers
//!   (diagnostics, hovers, lenses, quick fixes);
//! - [`jobs`], [`explorations`]: explorations started from the editor (a queue, workers
//!   running them on a JVM, results kept on disk); `core::explore` shows them;
//! - [`payloads`]: the JSON of the server's commands and `racelens/*` extensions, typed;
//! - [`settings`], [`watch`]: editor settings, and our own file watcher where the client
//!   cannot watch for us.

mod actions;
mod convert;
pub mod core;
mod documents;
mod explorations;
mod framing;
mod hover;
mod jobs;
mod lenses;
mod messages;
mod payloads;
mod positions;
mod server;
mod settings;
mod status;
mod watch;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tower_lsp_server::{ClientSocket, LspService, Server};

pub use server::Backend;

/// How a server instance behaves beyond the protocol.
#[derive(Clone, Debug, Default)]
pub struct ServerOptions {
    /// Offer `racelens.internal.panic` (for tests of crash isolation).
    pub test_commands: bool,
}

/// A server instance: the service to feed client messages to, the socket its messages
/// to the client come out of, and whether `shutdown` was received. Must be called
/// inside a tokio runtime (the core thread uses its handle).
pub fn service(options: ServerOptions) -> (LspService<Backend>, ClientSocket, Arc<AtomicBool>) {
    let shutdown = Arc::new(AtomicBool::new(false));
    let handle = tokio::runtime::Handle::current();
    let flag = shutdown.clone();
    let (service, socket) = LspService::build(move |client| {
        let (tx, rx) = std::sync::mpsc::channel();
        let edits = racelens_analysis::cancel::Edits::default();
        let core = core::Core::new(client.clone(), handle, tx.clone(), edits.clone(), options.test_commands);
        std::thread::Builder::new()
            .name("racelens-core".into())
            .spawn(move || core.run(rx))
            .expect("a thread can be spawned");
        server::Backend::new(client, tx, edits, flag, options.test_commands)
    })
    .custom_method("racelens/document", server::Backend::document)
    .custom_method("racelens/schedule", server::Backend::schedule)
    .custom_method("window/workDoneProgress/cancel", server::Backend::cancel_progress)
    .custom_method(framing::MALFORMED_METHOD, server::Backend::malformed)
    .finish();
    (service, socket, shutdown)
}

/// Serves LSP on stdin/stdout until `exit` (or stdin closes). Returns the process exit
/// code: 0 after `shutdown` then `exit`, 1 otherwise (as the protocol asks).
pub fn run_stdio() -> i32 {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let options = ServerOptions { test_commands: std::env::var_os(core::TEST_COMMANDS_ENV).is_some() };
    let shutdown = runtime.block_on(async {
        let (service, socket, shutdown) = service(options);
        let (to_server, from_guard) = tokio::io::duplex(1 << 16);
        tokio::spawn(framing::guard(tokio::io::stdin(), to_server));
        Server::new(from_guard, tokio::io::stdout(), socket).serve(service).await;
        shutdown
    });
    // Do not wait for blocking reads of stdin to end.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    if shutdown.load(Ordering::SeqCst) {
        0
    } else {
        1
    }
}
