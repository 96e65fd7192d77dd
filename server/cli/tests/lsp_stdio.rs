//! `racelens lsp` over real stdio: what bad input, closed pipes and the end of a session
//! do to the process.

use racelens_test_support as support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_racelens"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        std::thread::spawn(move || loop {
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    len = n.parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            if stdout.read_exact(&mut body).is_err() {
                return;
            }
            let _ = tx.send(serde_json::from_slice(&body).unwrap());
        });
        Server { child, stdin, messages }
    }

    fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, msg: Value) {
        self.raw(&frame(&msg.to_string()));
    }

    /// The next message satisfying `pred`; answers the server's own requests with null.
    fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let m = self.messages.recv_timeout(Duration::from_secs(30)).expect("the server answers");
            if m.get("method").is_some() && m.get("id").is_some() {
                let id = m["id"].clone();
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}));
            }
            if pred(&m) {
                return m;
            }
        }
    }

    fn initialize(&mut self, root: &std::path::Path) {
        self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": format!("file://{}", root.display()), "capabilities": {}}}));
        self.wait(|m| m["id"] == 1);
        self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    }

    fn exit_code(mut self) -> Option<i32> {
        for _ in 0..100 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

#[test]
fn shutdown_then_exit_is_0_and_exit_alone_is_1() {
    let repo = support::fixture_repo("object-pool");
    let mut s = Server::start();
    s.initialize(repo.path());
    s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    assert_eq!(s.wait(|m| m["id"] == 2)["result"], Value::Null);
    s.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(s.exit_code(), Some(0));

    let mut s = Server::start();
    s.initialize(repo.path());
    s.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(s.exit_code(), Some(1));
}

#[test]
fn a_closed_stdin_ends_the_process() {
    let mut s = Server::start();
    s.stdin = None;
    assert_eq!(s.exit_code(), Some(1));
}

#[test]
fn malformed_messages_and_unknown_methods_get_errors_and_the_server_goes_on() {
    let repo = support::fixture_repo("object-pool");
    let mut s = Server::start();
    s.initialize(repo.path());
    // Not JSON at all.
    s.raw(&frame("{this is not json"));
    let e = s.wait(|m| m.get("error").is_some());
    assert_eq!(e["error"]["code"], -32700, "{e}");
    // JSON, but no JSON-RPC message.
    s.raw(&frame("[1, 2, 3]"));
    let e = s.wait(|m| m.get("error").is_some());
    assert!(e["error"]["code"] == -32700 || e["error"]["code"] == -32600, "{e}");
    // An unknown request.
    s.send(json!({"jsonrpc": "2.0", "id": 7, "method": "textDocument/noSuchThing", "params": {}}));
    assert_eq!(s.wait(|m| m["id"] == 7)["error"]["code"], -32601);
    // Bad params for a known request.
    s.send(json!({"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": {"nonsense": true}}));
    assert!(s.wait(|m| m["id"] == 8).get("error").is_some());
    // Still serving: a hover on a real field.
    let path = repo.path().canonicalize().unwrap().join("src/main/java/org/example/pool/ObjectPool.java");
    let uri = format!("file://{}", path.display());
    s.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "java", "version": 1, "text": std::fs::read_to_string(&path).unwrap()}}}));
    s.send(json!({"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": {"line": 57, "character": 14}}}));
    let hover = s.wait(|m| m["id"] == 9);
    assert!(hover["result"]["contents"]["value"].as_str().unwrap().contains("numActive"), "{hover}");
    s.send(json!({"jsonrpc": "2.0", "id": 10, "method": "shutdown"}));
    s.wait(|m| m["id"] == 10);
    s.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(s.exit_code(), Some(0));
}

#[test]
fn huge_and_binary_buffers_do_not_kill_the_server() {
    let repo = support::fixture_repo("object-pool");
    let mut s = Server::start();
    s.initialize(repo.path());
    let root = repo.path().canonicalize().unwrap();
    // A 3 MB Java file of generated methods (more than racelens analyses), and a "Java"
    // buffer of binary junk.
    let mut huge = String::from("package org.example.pool;\npublic class Huge {\n    static int n;\n");
    for i in 0..100_000 {
        huge.push_str(&format!("    static void m{i}() {{ n++; }}\n"));
    }
    huge.push_str("}\n");
    let junk: String = (0..5000u32).map(|i| char::from_u32(i % 0xD000 + 1).unwrap_or('?')).collect();
    for (name, text) in [("Huge.java", huge.as_str()), ("Junk.java", junk.as_str())] {
        let uri = format!("file://{}", root.join("src/main/java/org/example/pool").join(name).display());
        s.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "java", "version": 1, "text": text}}}));
    }
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": format!("file://{}", root.join("src/main/java/org/example/pool/Junk.java").display())}}}));
    assert!(s.wait(|m| m["id"] == 3).get("result").is_some());
    s.send(json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}));
    s.wait(|m| m["id"] == 4);
    s.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(s.exit_code(), Some(0));
}

#[test]
fn exploring_with_an_unknown_heuristic_is_an_error_response_and_the_server_goes_on() {
    let repo = support::fixture_repo("object-pool");
    let mut s = Server::start();
    s.initialize(repo.path());
    let path = repo.path().canonicalize().unwrap().join("src/test/java/org/example/pool/ObjectPoolTest.java");
    let uri = format!("file://{}", path.display());
    s.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "java", "version": 1, "text": std::fs::read_to_string(&path).unwrap()}}}));
    s.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}}),
    );
    let lenses = s.wait(|m| m["id"] == 2);
    let mut arg = lenses["result"][0]["command"]["arguments"][0].clone();
    assert_eq!(arg["method"], "addWhileBorrowingKeepsCountsConsistent", "{lenses}");
    // `↻ Explore again` as a client's picker sends it, with a heuristic racelens does not know.
    arg["heuristic"] = json!("LOX");
    arg["seed"] = json!(7);
    arg["again"] = json!(true);
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "workspace/executeCommand", "params": {"command": "racelens.exploreTest", "arguments": [arg]}}));
    let answer = s.wait(|m| m["id"] == 3);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("cannot explore org.example.pool.ObjectPoolTest#addWhileBorrowingKeepsCountsConsistent: unknown heuristic `LOX`"), "{answer}");
    // Still serving, and nothing was queued.
    s.send(json!({"jsonrpc": "2.0", "id": 4, "method": "workspace/executeCommand", "params": {"command": "racelens.cancel", "arguments": []}}));
    assert_eq!(s.wait(|m| m["id"] == 4)["result"], json!({"cancelled": 0}));
    s.send(json!({"jsonrpc": "2.0", "id": 5, "method": "shutdown"}));
    s.wait(|m| m["id"] == 5);
    s.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(s.exit_code(), Some(0));
}
