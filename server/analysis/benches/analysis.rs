//! Analysis benchmarks on a large real Java tree: the JDK's `java.util` sources (from
//! `openjdk-17-source`), copied into a temporary git repository.
//!
//! - cold: open the work tree, parse and index every file, ask git, analyse;
//! - keystroke: a one-line edit in a ~1,500-line file, re-parsed incrementally, then the
//!   whole impact recomputed (what the language server does on every change).
//!
//! Run: `cargo bench -p racelens-analysis --bench analysis`

use racelens_test_support::corpus;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::Options;
use racelens_analysis::index::Jdk;
use racelens_analysis::java::Document;

fn main() {
    let Some(zip_path) = Jdk::locate() else {
        eprintln!("the JDK's src.zip was not found: install openjdk-17-source");
        std::process::exit(2);
    };
    let (dir, lines) = corpus::repository(&zip_path, None, &[]);
    let files = count_files(dir.path());
    println!("corpus: java.util from {} ({files} files, {lines} lines)", zip_path.display());

    // Cold analysis (`RACELENS_BENCH=keystroke` skips it, for profiling the other part).
    let runs = if std::env::var("RACELENS_BENCH").is_ok_and(|v| v == "keystroke") { 1 } else { 5 };
    let mut cold = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        // From scratch: the index cache would make every run after the first a warm start.
        let mut host = Host::open(dir.path(), &HostOptions { index_cache: false, ..HostOptions::default() }).unwrap();
        host.load().unwrap();
        let _ = host.analyze(&Options::new());
        cold.push(start.elapsed());
    }
    cold.sort();
    let median = cold[cold.len() / 2];
    println!(
        "cold analysis: median {:.0} ms (min {:.0} ms) = {:.0} ms per 50k lines",
        ms(median),
        ms(cold[0]),
        ms(median) * 50_000.0 / lines as f64
    );

    // One-line edits in the file closest to 1,500 lines.
    let (rel, text) = file_near(dir.path(), 1500);
    let mut host = Host::open(dir.path(), &HostOptions::default()).unwrap();
    host.load().unwrap();
    let options = Options::new();
    let _ = host.analyze(&options);
    let mut doc = Document::new(Arc::from(text.as_str()));
    let line_start = edit_site(&text);
    let mut samples = Vec::new();
    let mut parse = Vec::new();
    for i in 0..200 {
        let start = Instant::now();
        // Replace the literal on the chosen line: `= 0;` -> `= 1;` -> `= 2;` ...
        let at = line_start + doc.text()[line_start..].find("= ").unwrap() + 2;
        let end = at + doc.text()[at..].find(';').unwrap();
        doc.edit(at, end, &(i % 10).to_string());
        parse.push(start.elapsed());
        host.set_overlay(&rel, doc.text().clone(), Some(doc.facts().clone()));
        let impact = host.analyze(&options);
        samples.push(start.elapsed());
        std::hint::black_box(impact);
    }
    let lines_in_file = text.lines().count();
    report(&format!("one-line edit in {rel} ({lines_in_file} lines), edit to impact"), &mut samples);
    report("  of which incremental re-parse and facts", &mut parse);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(what: &str, samples: &mut [Duration]) {
    samples.sort();
    let p = |q: f64| ms(samples[((samples.len() as f64 - 1.0) * q).round() as usize]);
    println!(
        "{what}: p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} runs)",
        p(0.5),
        p(0.95),
        p(0.99),
        p(1.0),
        samples.len()
    );
}

fn count_files(dir: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                if !p.ends_with(".git") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "java") {
                n += 1;
            }
        }
    }
    n
}

/// The file whose line count is closest to `target`, with an editable `= <literal>;` line.
fn file_near(dir: &Path, target: usize) -> (String, String) {
    let mut best: Option<(usize, String, String)> = None;
    let mut stack = vec![dir.join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let n = text.lines().count();
            let dist = n.abs_diff(target);
            if text.contains("int i = 0;") && best.as_ref().is_none_or(|b| dist < b.0) {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().to_string();
                best = Some((dist, rel, text));
            }
        }
    }
    let (_, rel, text) = best.unwrap();
    (rel, text)
}

/// Byte offset of a line `int i = 0;` in a method body.
fn edit_site(text: &str) -> usize {
    text.find("int i = 0;").unwrap()
}
