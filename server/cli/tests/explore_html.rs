//! `racelens explore --html` and `racelens replay --html` on a real JVM (the fixture
//! `explore-lost-update`): the page of a failing schedule has one column per thread, the
//! failure in red where it was raised, the preemptions, and every step linked to its source
//! line; a replay writes the same picture, byte for byte each time; a pass is a line of
//! words and no picture; `--affected` writes one section per test, then the summary.

use racelens_test_support as support;
mod common;

use std::path::Path;

use common::*;
use support::*;

const TEST: &str = "org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted";
const THREADS: [&str; 3] = ["T0 (main)", "T1 (Thread-0)", "T2 (Thread-1)"];

fn read(page: &Path) -> String {
    std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()))
}

#[test]
fn a_failing_schedule_is_a_swimlane_page_with_its_source_lines() {
    let repo = fixture_repo("explore-lost-update");
    let out = tempfile::tempdir().unwrap();
    let page = out.path().join("schedule.html");
    let (code, r) = racelens(repo.path(), &["explore", "--test", TEST, "--html", page.to_str().unwrap()]);
    assert_eq!((code, r["outcome"].as_str()), (1, Some("fail")), "{r:#}");
    let html = read(&page);
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("default-src 'none'"), "{html}");

    // One column per thread, named as the table names them.
    assert_eq!(html.matches(r#"<rect class="thread""#).count(), THREADS.len(), "{html}");
    for t in THREADS {
        assert!(html.contains(&format!(">{t}</text>")), "no column {t}: {html}");
    }
    // The failure, red, in the thread that raised it, linked to where it was raised.
    let failure = &r["failure"];
    let (file, line) = (failure["file"].as_str().unwrap(), failure["line"].as_u64().unwrap());
    assert_eq!(file, "src/test/java/org/example/metrics/LatencyStatsTest.java");
    assert!(html.contains(&format!(r#"<g class="row failure" data-file="{file}" data-line="{line}""#)), "{html}");
    assert!(html.contains(r#"<text class="src" x="#) && html.contains(&format!(">{file}:{line}</text>")), "{html}");
    assert!(html.contains("✗ java.lang.AssertionError"), "{html}");
    // The preemptions the report lists are marked, with arrows.
    assert!(!failure["preemptions"].as_array().unwrap().is_empty(), "{r:#}");
    assert!(html.matches(r#"<g class="row preemption">"#).count() >= 1, "{html}");
    assert!(html.contains(r#"<line class="arrow""#), "{html}");
    // Every step of the trace in the project links to its file and line.
    let trace = failure["trace"].as_array().unwrap();
    let mut linked = 0;
    for step in trace.iter().filter(|s| s["file"].is_string() && s["op"] != "BEGIN") {
        let (f, l) = (step["file"].as_str().unwrap(), step["line"].as_u64().unwrap());
        assert!(html.contains(&format!(r#"data-file="{f}" data-line="{l}""#)), "step {step} not linked: {html}");
        linked += 1;
    }
    assert!(
        linked >= 4 && html.contains(r#"data-file="src/main/java/org/example/metrics/LatencyStats.java""#),
        "{html}"
    );
    // And the command that replays it.
    assert!(html.contains(&format!("--schedule {}", failure["schedule"].as_str().unwrap())), "{html}");

    // `replay --html`: the same failure as a picture, the same bytes every time.
    let schedule = failure["schedule"].as_str().unwrap();
    let replayed = |name: &str| {
        let page = out.path().join(name);
        let (code, _) = racelens(
            repo.path(),
            &["replay", "--test", TEST, "--schedule", schedule, "--html", page.to_str().unwrap()],
        );
        assert_eq!(code, 1);
        read(&page)
    };
    let (first, second) = (replayed("replay-1.html"), replayed("replay-2.html"));
    assert_eq!(first, second, "a replay's page depends only on the run");
    assert!(
        first.contains("✗ still fails: java.lang.AssertionError")
            && first.contains(&format!(r#"<g class="row failure" data-file="{file}" data-line="{line}""#)),
        "{first}"
    );
    assert_eq!(first.matches(r#"<rect class="thread""#).count(), THREADS.len());
}

#[test]
fn a_pass_is_words_and_no_picture() {
    let repo = repo_from(&fixtures_dir().join("explore-lost-update"), false);
    let out = tempfile::tempdir().unwrap();
    let page = out.path().join("pass.html");
    let (code, r) =
        racelens(repo.path(), &["explore", "--test", TEST, "--bound", "1", "--html", page.to_str().unwrap()]);
    assert_eq!((code, r["outcome"].as_str()), (0, Some("pass")), "{r:#}");
    let html = read(&page);
    assert!(html.contains(r#"<p class="outcome">✓ no failure: "#), "{html}");
    assert!(!html.contains("<svg") && !html.contains(r#"class="row"#) && !html.contains("✗"), "{html}");
}

#[test]
fn affected_writes_one_section_per_test_then_the_summary() {
    let repo = fixture_repo("explore-lost-update");
    let out = tempfile::tempdir().unwrap();
    let page = out.path().join("affected.html");
    let (code, r) = racelens(repo.path(), &["explore", "--affected", "--html", page.to_str().unwrap()]);
    assert_eq!(code, 1, "{r:#}");
    let html = read(&page);
    let tests = r["tests"].as_array().unwrap();
    assert_eq!(html.matches("<section").count(), tests.len() + 1, "{html}");
    assert!(html.contains(&format!("<h2>#1 {TEST} — covers ")), "{html}");
    assert!(html.contains(r#"<section class="failure">"#) && html.contains(r#"<g class="row failure""#), "{html}");
    assert!(
        html.contains("<h2>Summary</h2><p class=\"outcome\">racelens: 1 selected test explored: 1 failed"),
        "{html}"
    );
}
