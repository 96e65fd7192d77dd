//! A fake LSP client for in-process tests: drives the real service, answers the server's
//! requests (configuration, registrations, progress) and records everything the server
//! sends; a test fails if the server sent diagnostics or messages the test did not look at.

#![allow(dead_code)]

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use racelens_lsp::{Backend, ServerOptions};
use serde_json::{json, Value};
use tower::{Service, ServiceExt};
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_lsp_server::LspService;

pub const POOL: &str = "src/main/java/org/example/pool/ObjectPool.java";
pub const POOL_TEST: &str = "src/test/java/org/example/pool/ObjectPoolTest.java";

/// Messages the server may send without a test looking at them.
pub const IGNORABLE: &[&str] = &[
    "workspace/configuration",
    "window/logMessage",
    "$/progress",
    "window/workDoneProgress/create",
    "client/registerCapability",
    "workspace/codeLens/refresh",
    "racelens/codeLensRefresh",
];

pub struct Client {
    service: LspService<Backend>,
    inbox: tokio::sync::mpsc::UnboundedReceiver<(String, Value)>,
    /// What the client answers to `workspace/configuration`.
    pub config: Arc<Mutex<Value>>,
    shutdown: Arc<std::sync::atomic::AtomicBool>,
    next_id: i64,
    pub root: std::path::PathBuf,
    /// How long `expect` waits.
    pub patience: Duration,
}

pub fn uri(root: &Path, rel: &str) -> String {
    format!("file://{}", root.join(rel).display())
}

impl Client {
    pub fn start(root: &Path, options: ServerOptions) -> Client {
        let (service, socket, shutdown) = racelens_lsp::service(options);
        let (mut requests, mut responses) = socket.split();
        let (tx, inbox) = tokio::sync::mpsc::unbounded_channel();
        let config = Arc::new(Mutex::new(json!({})));
        let answers = config.clone();
        tokio::spawn(async move {
            while let Some(req) = requests.next().await {
                let (method, id, params) = req.into_parts();
                if let Some(id) = id {
                    let result = if method == "workspace/configuration" {
                        json!([answers.lock().unwrap().clone()])
                    } else {
                        Value::Null
                    };
                    let _ = responses.send(Response::from_ok(id, result)).await;
                }
                let _ = tx.send((method.to_string(), params.unwrap_or(Value::Null)));
            }
        });
        Client {
            service,
            inbox,
            config,
            shutdown,
            next_id: 1,
            root: root.canonicalize().unwrap(),
            patience: Duration::from_secs(30),
        }
    }

    pub async fn call(&mut self, method: &'static str, params: Value) -> Response {
        let id = self.next_id;
        self.next_id += 1;
        let req = Request::build(method).id(id).params(params).finish();
        self.service.ready().await.unwrap().call(req).await.unwrap().expect("a request gets a response")
    }

    pub async fn request(&mut self, method: &'static str, params: Value) -> Value {
        let (_, result) = self.call(method, params).await.into_parts();
        result.unwrap_or_else(|e| panic!("{method} failed: {e:?}"))
    }

    pub async fn notify(&mut self, method: &'static str, params: Value) {
        let req = Request::build(method).params(params).finish();
        assert!(self.service.ready().await.unwrap().call(req).await.unwrap().is_none());
    }

    pub async fn initialize(&mut self, capabilities: Value, options: Value) -> Value {
        let root = format!("file://{}", self.root.display());
        let result = self
            .request(
                "initialize",
                json!({"rootUri": root, "capabilities": capabilities, "initializationOptions": options}),
            )
            .await;
        self.notify("initialized", json!({})).await;
        result
    }

    pub async fn open(&mut self, rel: &str) {
        let text = std::fs::read_to_string(self.root.join(rel)).unwrap();
        let uri = uri(&self.root, rel);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "java", "version": 1, "text": text}}),
        )
        .await;
    }

    /// Waits for a message of `method` whose params satisfy `pred`, consuming the others
    /// that may come before (earlier diagnostics are superseded); fails on anything else.
    pub async fn expect(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.expect_ignoring(method, &[], pred).await
    }

    /// [`Client::expect`], also consuming the messages of the methods `ignoring`.
    pub async fn expect_ignoring(&mut self, method: &str, ignoring: &[&str], pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + self.patience;
        loop {
            let next = tokio::time::timeout_at(deadline, self.inbox.recv()).await;
            let Ok(Some((m, params))) = next else { panic!("no {method} as expected arrived") };
            if m == method && pred(&params) {
                return params;
            }
            if std::env::var_os("RACELENS_TEST_TRACE").is_some() {
                eprintln!("skipped {m}: {params}");
            }
            assert!(
                m == method
                    || IGNORABLE.contains(&m.as_str())
                    || ignoring.contains(&m.as_str())
                    || m == "textDocument/publishDiagnostics",
                "unexpected {m}: {params}"
            );
        }
    }

    pub async fn diagnostics(&mut self, rel: &str, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let uri = uri(&self.root, rel);
        let params = self
            .expect("textDocument/publishDiagnostics", |p| {
                p["uri"] == uri.as_str() && pred(p["diagnostics"].as_array().unwrap())
            })
            .await;
        params["diagnostics"].as_array().unwrap().clone()
    }

    /// Shuts down and checks that nothing the server sent was left unseen.
    pub async fn finish(mut self) {
        self.request("shutdown", Value::Null).await;
        assert!(self.shutdown.load(Ordering::SeqCst));
        tokio::time::sleep(Duration::from_millis(200)).await;
        while let Ok((m, params)) = self.inbox.try_recv() {
            assert!(
                IGNORABLE.contains(&m.as_str()) || m == "textDocument/publishDiagnostics",
                "unconsumed {m}: {params}"
            );
        }
    }
}
