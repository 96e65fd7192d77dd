//! Keystroke-to-diagnostics latency through the real protocol: `racelens lsp` (the
//! release binary, over stdio), a scripted client typing a statement character by
//! character into `java/util/Vector.java` (1,488 lines) of a ~50,000-line project (the
//! JDK's `java.util` sources in a git repository).
//!
//! Each keystroke is a `didChange` followed by a `textDocument/codeLens` request for the
//! same file; the server analyses (and publishes diagnostics) before it answers a
//! request, so the time to the answer is the time until the diagnostics of that keystroke
//! are out.
//!
//! Run: `cargo bench -p racelens --bench keystroke`

#[path = "../../analysis/benches/corpus.rs"]
mod corpus;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use racelens_analysis::index::Jdk;
use serde_json::{json, Value};

const FILE: &str = "src/java/util/Vector.java";
const TYPED: &str = "elementCount = elementCount + 1;";

fn main() {
    let Some(zip) = Jdk::locate() else {
        eprintln!("the JDK's src.zip was not found: install openjdk-17-source");
        std::process::exit(2);
    };
    let (repo, lines) = corpus::repository(&zip, Some(50_000), &["java/util/Vector.java"]);
    let root = repo.path().canonicalize().unwrap();
    let text = std::fs::read_to_string(root.join(FILE)).unwrap();
    println!("project: {lines} lines of java.util; typing `{TYPED}` into {FILE} ({} lines)", text.lines().count());

    let mut child = Command::new(env!("CARGO_BIN_EXE_racelens")).arg("lsp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = channel::<Value>();
    std::thread::spawn(move || loop {
        let mut len = 0;
        loop {
            let mut line = String::new();
            if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line.trim().is_empty() {
                break;
            }
            if let Some(n) = line.trim().strip_prefix("Content-Length: ") {
                len = n.parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        stdout.read_exact(&mut body).unwrap();
        let _ = tx.send(serde_json::from_slice(&body).unwrap());
    });
    let mut send = |v: Value| {
        let body = v.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    };
    let wait_id = |id: i64| loop {
        let m = rx.recv_timeout(Duration::from_secs(120)).expect("the server answers");
        if m["id"] == id && m.get("method").is_none() {
            return m;
        }
    };

    let uri = format!("file://{}", root.join(FILE).display());
    let started = Instant::now();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": format!("file://{}", root.display()), "capabilities": {}}}));
    wait_id(1);
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "java", "version": 1, "text": text}}}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}}));
    wait_id(2);
    println!("initial index and analysis: {} ms", started.elapsed().as_millis());

    // Type at the start of addElement's body, on a new line.
    let anchor = text.find("public synchronized void addElement(E obj) {").expect("Vector.addElement");
    let line = text[..anchor].lines().count() as u32; // 0-based line of the declaration
    send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": {"start": {"line": line + 1, "character": 0}, "end": {"line": line + 1, "character": 0}}, "text": "        \n"}]}}));
    let mut samples = Vec::new();
    let mut id = 10;
    for round in 0..6 {
        for (i, ch) in TYPED.chars().enumerate() {
            id += 1;
            let version = id;
            let at = 8 + i as u32;
            let start = Instant::now();
            send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": {"start": {"line": line + 1, "character": at}, "end": {"line": line + 1, "character": at}}, "text": ch.to_string()}]}}));
            send(json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}}));
            wait_id(id);
            samples.push(start.elapsed());
        }
        // Delete the statement again for the next round.
        id += 1;
        send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": id}, "contentChanges": [{"range": {"start": {"line": line + 1, "character": 8}, "end": {"line": line + 1, "character": 8 + TYPED.len() as u32}}, "text": ""}]}}));
        let _ = round;
    }
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    wait_id(3);
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let _ = child.wait();

    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p = |q: f64| ms(samples[((samples.len() as f64 - 1.0) * q).round() as usize]);
    println!(
        "keystroke to diagnostics: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} keystrokes)",
        p(0.5),
        p(0.95),
        p(0.99),
        p(1.0),
        samples.len()
    );
}
