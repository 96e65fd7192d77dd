//! Keystroke-to-diagnostics latency through the real protocol: `racelens lsp` (the
//! release binary, over stdio), a scripted client typing a statement character by
//! character into `java/util/Vector.java` (1,488 lines) of a ~50,000-line project (the
//! JDK's `java.util` sources in a git repository), or with `large` of the ~500,000 lines
//! of `java.util`, `java.lang`, `java.io`, `java.net`, `java.math` and `java.text`.
//!
//! Then it types a field declaration into the class body, the path where every keystroke
//! may change what other files see.
//!
//! Each keystroke is a `didChange` followed by a `textDocument/codeLens` request for the
//! same file; the server analyses (and publishes diagnostics) before it answers a
//! request, so the time to the answer is the time until the diagnostics of that keystroke
//! are out. The bench also reports the time from start to the first answer (with an empty
//! cache folder, `XDG_CACHE_HOME`, then a restart on the same tree with the folder the first
//! run left) and the server's resident memory after typing.
//!
//! Run: `cargo bench -p racelens --bench keystroke` (`-- large` for the 500k-line one)

use racelens_test_support::corpus;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use racelens_analysis::index::Jdk;
use serde_json::{json, Value};

const FILE: &str = "src/java/util/Vector.java";
const TYPED: &str = "elementCount = elementCount + 1;";
const DECLARED: &str = "private int pendingCount;";

const LARGE: &[&str] = &["java/util/", "java/lang/", "java/io/", "java/net/", "java/math/", "java/text/"];

fn main() {
    let Some(zip) = Jdk::locate() else {
        eprintln!("the JDK's src.zip was not found: install openjdk-17-source");
        std::process::exit(2);
    };
    let large = std::env::args().any(|a| a == "large");
    let (repo, lines, what) = match large {
        true => {
            let repo = tempfile::tempdir().unwrap();
            let lines = corpus::extract_packages(&zip, repo.path(), LARGE, None, &[]);
            corpus::git(repo.path(), &["init", "-q"]);
            corpus::git(repo.path(), &["add", "-A"]);
            corpus::git(repo.path(), &["commit", "-q", "-m", "the JDK"]);
            (repo, lines, LARGE.join(", "))
        }
        false => {
            let (repo, lines) = corpus::repository(&zip, Some(50_000), &["java/util/Vector.java"]);
            (repo, lines, "java/util/".to_string())
        }
    };
    let root = repo.path().canonicalize().unwrap();
    let text = std::fs::read_to_string(root.join(FILE)).unwrap();
    println!("project: {lines} lines of {what}; typing `{TYPED}` into {FILE} ({} lines)", text.lines().count());
    // The server's caches go to a folder of ours, empty at first.
    let cache = tempfile::tempdir().unwrap();
    let (statement, declaration) = session(&root, &text, cache.path(), true);
    session(&root, &text, cache.path(), false);
    report("keystroke to diagnostics", statement);
    report(&format!("keystroke to diagnostics, typing `{DECLARED}` into the class body"), declaration);
}

fn report(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p = |q: f64| ms(samples[((samples.len() as f64 - 1.0) * q).round() as usize]);
    println!(
        "{what}: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} keystrokes)",
        p(0.5),
        p(0.95),
        p(0.99),
        p(1.0),
        samples.len()
    );
}

/// One server from start to exit: the time to the first answer, then (when `typing`) the
/// keystrokes' latencies (a statement in a method body, then a field declaration) and the
/// resident memory after them.
fn session(root: &Path, text: &str, cache: &Path, typing: bool) -> (Vec<Duration>, Vec<Duration>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_racelens"))
        .arg("lsp")
        .env("XDG_CACHE_HOME", cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
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
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": format!("file://{}", root.display()), "capabilities": {}}}),
    );
    wait_id(1);
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "java", "version": 1, "text": text}}}),
    );
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}}),
    );
    wait_id(2);
    let label = if typing { "start to first diagnostics" } else { "restart with the same tree to first diagnostics" };
    println!("{label}: {} ms", started.elapsed().as_millis());
    let mut samples = (Vec::new(), Vec::new());
    if typing {
        samples = (type_statement(&mut send, &wait_id, &uri, text), type_declaration(&mut send, &wait_id, &uri, text));
        println!("resident memory after typing: {}", memory(child.id()));
    }
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    wait_id(3);
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let _ = child.wait();
    samples
}

/// `VmRSS` (now) and `VmHWM` (peak) of a process, from /proc.
fn memory(pid: u32) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().unwrap_or(0))
            .unwrap_or(0)
    };
    format!("{} MB (peak {} MB)", kb("VmRSS:") / 1024, kb("VmHWM:") / 1024)
}

/// Types a statement at the start of `addElement`'s body (only that method's body changes).
fn type_statement(
    send: &mut impl FnMut(Value),
    wait_id: &impl Fn(i64) -> Value,
    uri: &str,
    text: &str,
) -> Vec<Duration> {
    let anchor = text.find("public synchronized void addElement(E obj) {").expect("Vector.addElement");
    type_line(send, wait_id, uri, text[..anchor].lines().count() as u32 + 1, TYPED, 10)
}

/// Types a field declaration into `Vector`'s class body: every keystroke that completes a
/// declaration changes what other files can see, so the symbol table is rebuilt and the
/// files that depend on it are resolved again.
fn type_declaration(
    send: &mut impl FnMut(Value),
    wait_id: &impl Fn(i64) -> Value,
    uri: &str,
    text: &str,
) -> Vec<Duration> {
    let anchor = text.find("    protected int elementCount;").expect("Vector.elementCount");
    type_line(send, wait_id, uri, text[..anchor].lines().count() as u32, DECLARED, 10_000)
}

/// Types `typed` character by character on a new line inserted at 0-based `line`, six
/// times (deleting it again between rounds); request ids start at `first_id`.
fn type_line(
    send: &mut impl FnMut(Value),
    wait_id: &impl Fn(i64) -> Value,
    uri: &str,
    line: u32,
    typed: &str,
    first_id: i64,
) -> Vec<Duration> {
    let mut id = first_id;
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": id}, "contentChanges": [{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": "        \n"}]}}),
    );
    let mut samples = Vec::new();
    for _round in 0..6 {
        for (i, ch) in typed.chars().enumerate() {
            id += 1;
            let at = 8 + i as u32;
            let start = Instant::now();
            send(
                json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": id}, "contentChanges": [{"range": {"start": {"line": line, "character": at}, "end": {"line": line, "character": at}}, "text": ch.to_string()}]}}),
            );
            send(
                json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}}),
            );
            wait_id(id);
            samples.push(start.elapsed());
        }
        // Delete the line's text again for the next round.
        id += 1;
        send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": id}, "contentChanges": [{"range": {"start": {"line": line, "character": 8}, "end": {"line": line, "character": 8 + typed.len() as u32}}, "text": ""}]}}),
        );
    }
    // The blank line goes too, so that the file is as it was.
    id += 1;
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": id}, "contentChanges": [{"range": {"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}}, "text": ""}]}}),
    );
    samples
}
