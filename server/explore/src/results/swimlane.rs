//! The failing schedule as a picture: a swimlane diagram, one column per thread and time
//! downwards, drawn as hand-written SVG inside a self-contained HTML page (inline CSS, a
//! few lines of inline JS, nothing loaded from elsewhere).
//!
//! The rows are the table's ([`report::rows`]): the same steps in the same words. On top of
//! the table, the picture marks each switch with an arrow to the thread that ran next (a
//! preemption in its own colour), ends with the failure itself in red, and links each row
//! to its source line: `data-file` (relative to the work tree) and `data-line` on the row,
//! and a `file:line` label beside it for a page read as a CI artifact. In the VS Code
//! webview, a click posts `{type: "open", file, line, root}` to the extension.
//!
//! Two steps: [`Lanes::of`] turns an execution into rows with project places (serializable:
//! the language server keeps them with its results), and [`html`] draws pages of them.
//! Every text is escaped (Java strings and exception messages end up here), and the output
//! depends only on its input, so that it can be tested and diffed.

use std::collections::HashMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::jvm::protocol::{Execution, Outcome, Site, ThreadId};
use crate::results::report::{self, RowKind};
use crate::results::Place;

/// The interleaving of one execution, ready to draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lanes {
    /// The columns, named as the table's header names them (`T1 (Thread-0)`), in its order.
    pub threads: Vec<String>,
    pub rows: Vec<LaneRow>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Step,
    /// The scheduler took the CPU from a thread that could go on.
    Preemption,
    /// A thread stopped on its own: blocked, waiting, finished.
    Switch,
    Elided,
    /// The failure: the exception, a thread of a deadlock, `System.exit`.
    Failure,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneRow {
    pub mark: Mark,
    /// The column (an index into `threads`); none for an elided stretch.
    pub lane: Option<usize>,
    /// For a switch, the column of the thread that ran next (the arrow's head).
    pub to: Option<usize>,
    /// The step's number in the execution (none for the rows that are not steps).
    pub step: Option<u32>,
    /// The table's words for the row.
    pub text: String,
    /// Where in the project, when the code is the project's.
    pub place: Option<Place>,
}

impl Lanes {
    /// The rows of a full-mode execution, with `file_of` giving the project file (relative
    /// to the work tree) of a binary class name, or none outside the project.
    pub fn of(exec: &Execution, sites: &HashMap<u32, Site>, file_of: &dyn Fn(&str) -> Option<String>) -> Lanes {
        let ids: Vec<ThreadId> = exec.threads.keys().copied().collect();
        let lane = |t: ThreadId| ids.iter().position(|&id| id == t);
        let place = |class: &str, line: u32| file_of(class).map(|file| Place { file, line });
        let mut rows: Vec<LaneRow> = report::rows(exec, sites)
            .into_iter()
            .map(|r| LaneRow {
                mark: match r.kind {
                    RowKind::Step => Mark::Step,
                    RowKind::Switch if r.reason == Some("preempted") => Mark::Preemption,
                    RowKind::Switch => Mark::Switch,
                    RowKind::Elided => Mark::Elided,
                },
                lane: r.thread.and_then(lane),
                to: None,
                step: (r.kind == RowKind::Step).then_some(r.step),
                place: r.site.and_then(|s| place(&s.class, s.line)),
                text: r.text,
            })
            .collect();
        // A switch's arrow goes to the thread of the next step shown.
        for i in 0..rows.len() {
            if matches!(rows[i].mark, Mark::Preemption | Mark::Switch) {
                rows[i].to = rows[i + 1..]
                    .iter()
                    .find(|r| r.mark == Mark::Step)
                    .and_then(|r| r.lane)
                    .filter(|&to| Some(to) != rows[i].lane);
            }
        }
        let last = exec.events.last().map(|e| e.thread);
        let failure = |thread: Option<ThreadId>, text: String, place: Option<Place>| LaneRow {
            mark: Mark::Failure,
            lane: thread.and_then(lane),
            to: None,
            step: None,
            text,
            place,
        };
        match &exec.outcome {
            Outcome::Fail(f) => {
                let at = f.frames.iter().find_map(|fr| place(&fr.class, fr.line));
                let msg = if f.message.is_empty() { String::new() } else { format!(": {}", f.message) };
                // The frame in the project the label links to, else the top one.
                let shown = f.frames.iter().find(|fr| file_of(&fr.class).is_some()).or(f.frames.first());
                let frame = shown.map(|fr| format!(" ({}:{})", fr.file, fr.line)).unwrap_or_default();
                rows.push(failure(Some(f.thread), format!("✗ {}{msg}{frame}", f.exception), at));
            }
            Outcome::Deadlock(waits) => {
                rows.extend(waits.iter().map(|(t, what)| failure(Some(*t), format!("✗ deadlock: {what}"), None)))
            }
            Outcome::Pass => {}
            _ => rows.push(failure(last, format!("✗ {}", report::headline(exec)), None)),
        }
        Lanes { threads: exec.threads.iter().map(|(id, name)| format!("T{id} ({name})")).collect(), rows }
    }
}

/// One test on a page: its failing schedule as a picture, or what its exploration covered
/// (never a picture then: a picture means a failure).
#[derive(Clone, Debug)]
pub enum Section {
    Failure {
        test: String,
        /// `✗ java.lang.AssertionError: ... after 4 schedules (1 preemption)`.
        headline: String,
        lanes: Lanes,
        /// The command that replays the schedule.
        replay: Option<String>,
    },
    Outcome {
        test: String,
        /// What `explore` prints: `✓ no failure: every schedule with at most 3 preemptions ...`.
        words: String,
    },
}

/// What the page needs from where it is shown.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The nonce of the page's style and script (Content-Security-Policy). None: one
    /// derived from the content, so that equal input gives an equal file.
    pub nonce: Option<String>,
    /// The work tree the places are relative to (the editor resolves them against it).
    pub root: Option<String>,
    /// A `racelens:` URI of the same schedule as text: an "Open as text" button.
    pub text_uri: Option<String>,
}

/// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

// Geometry, in pixels: a 12px monospace font is about 7.2px per character.
const GUTTER: usize = 56;
const COLUMN: usize = 340;
const ROW: usize = 24;
const HEADER: usize = 36;
const CHARS: usize = 44;
const CHAR_PX: f64 = 7.3;

/// The text of a box: the table's words, cut to the column (the full text is the tooltip).
fn fit(text: &str) -> String {
    if text.chars().count() <= CHARS {
        return text.to_string();
    }
    let mut t: String = text.chars().take(CHARS - 1).collect();
    t.push('…');
    t
}

fn center(lane: usize) -> usize {
    GUTTER + lane * COLUMN + COLUMN / 2
}

/// The picture of `lanes`; `id` keeps the arrows' markers apart when a page has several.
pub fn svg(lanes: &Lanes, id: usize) -> String {
    let n = lanes.threads.len().max(1);
    let label = |r: &LaneRow| r.place.as_ref().map(|p| format!("{}:{}", p.file, p.line));
    let widest = lanes.rows.iter().filter_map(label).map(|l| l.chars().count()).max().unwrap_or(0);
    let labels_x = GUTTER + n * COLUMN + 12;
    let width = labels_x + (widest as f64 * CHAR_PX) as usize + 12;
    let height = HEADER + lanes.rows.len() * ROW + 12;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg class="lanes" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="the failing schedule, one column per thread">"#
    );
    let _ = writeln!(
        out,
        r#"<defs><marker id="head-{id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="head"/></marker></defs>"#
    );
    // One line per thread and per row: a diff of two pages reads row by row.
    for (i, title) in lanes.threads.iter().enumerate() {
        let (x, c) = (GUTTER + i * COLUMN, center(i));
        let _ = writeln!(
            out,
            r#"<line class="lane" x1="{c}" y1="{HEADER}" x2="{c}" y2="{height}"/><rect class="thread" x="{}" y="4" width="{}" height="24" rx="4"/><text class="thread" x="{c}" y="21" text-anchor="middle">{}</text>"#,
            x + 4,
            COLUMN - 8,
            escape(&fit(title))
        );
    }
    for (k, row) in lanes.rows.iter().enumerate() {
        let y = HEADER + k * ROW;
        let class = match row.mark {
            Mark::Step => "step",
            Mark::Preemption => "preemption",
            Mark::Switch => "switch",
            Mark::Elided => "elided",
            Mark::Failure => "failure",
        };
        let link = match &row.place {
            Some(p) => format!(r#" data-file="{}" data-line="{}" tabindex="0" role="link""#, escape(&p.file), p.line),
            None => String::new(),
        };
        let _ = write!(out, r#"<g class="row {class}"{link}><title>{}</title>"#, escape(&row.text));
        if let Some(step) = row.step {
            let _ = write!(
                out,
                r#"<text class="step-no" x="{}" y="{}" text-anchor="end">{step}</text>"#,
                GUTTER - 8,
                y + 16
            );
        }
        match row.lane {
            Some(lane) => {
                let x = GUTTER + lane * COLUMN;
                let _ = write!(
                    out,
                    r#"<rect class="box" x="{}" y="{}" width="{}" height="{}" rx="3"/><text x="{}" y="{}">{}</text>"#,
                    x + 8,
                    y + 2,
                    COLUMN - 16,
                    ROW - 4,
                    x + 14,
                    y + 16,
                    escape(&fit(&row.text))
                );
            }
            None => {
                let _ = write!(
                    out,
                    r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
                    GUTTER + n * COLUMN / 2,
                    y + 16,
                    escape(&row.text)
                );
            }
        }
        if let (Some(from), Some(to)) = (row.lane, row.to) {
            // From the edge of the stopped thread's box to the next thread's lane.
            let (x1, x2) = if to > from {
                (GUTTER + from * COLUMN + COLUMN - 8, center(to) - 6)
            } else {
                (GUTTER + from * COLUMN + 8, center(to) + 6)
            };
            let _ = write!(
                out,
                r#"<line class="arrow" x1="{x1}" y1="{yy}" x2="{x2}" y2="{yy}" marker-end="url(#head-{id})"/>"#,
                yy = y + ROW / 2
            );
        }
        if let Some(l) = label(row) {
            let _ = write!(out, r#"<text class="src" x="{labels_x}" y="{}">{}</text>"#, y + 16, escape(&l));
        }
        out += "</g>\n";
    }
    out += "</svg>\n";
    out
}

const STYLE: &str = "
body { font: 13px/1.4 var(--vscode-font-family, system-ui, sans-serif); color: var(--vscode-foreground, #1f2328); background: var(--vscode-editor-background, #fff); margin: 16px; }
h1 { font-size: 16px; } h2 { font-size: 14px; margin-top: 28px; }
code, svg text { font-family: var(--vscode-editor-font-family, ui-monospace, monospace); }
.headline { color: #c62828; } .outcome { margin: 4px 0; }
.picture { overflow-x: auto; }
svg text { font-size: 12px; fill: currentColor; }
svg .lane { stroke: #9aa4ae; stroke-dasharray: 4 4; }
svg rect.thread { fill: #e8eef5; stroke: #6b7c8f; } svg text.thread { font-weight: bold; fill: #1f2328; }
svg .row rect.box { fill: #f4f6f8; stroke: #c9d1d9; }
svg .row text { fill: #1f2328; } svg text.src, svg text.step-no { fill: #6b7c8f; }
svg .preemption rect.box { fill: #fff3e0; stroke: #ef6c00; } svg .preemption line.arrow { stroke: #ef6c00; stroke-width: 2; }
svg .switch rect.box { fill: #eef1f4; stroke: #9aa4ae; stroke-dasharray: 3 2; } svg .switch line.arrow { stroke: #9aa4ae; stroke-dasharray: 4 3; }
svg .failure rect.box { fill: #ffebee; stroke: #c62828; stroke-width: 2; } svg .failure text { fill: #b71c1c; font-weight: bold; }
svg .elided text { fill: #6b7c8f; font-style: italic; }
svg path.head { fill: #6b7c8f; }
svg [data-file] { cursor: pointer; } svg [data-file]:hover rect.box, svg [data-file]:focus rect.box, svg .chosen rect.box { stroke: #0969da; stroke-width: 2; }
";

// Inside the VS Code webview a click opens the source; in a browser it marks the row.
const SCRIPT: &str = "
const vscode = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;
const root = document.body.dataset.root || '';
function open(row) {
  document.querySelectorAll('.chosen').forEach((r) => r.classList.remove('chosen'));
  row.classList.add('chosen');
  if (vscode) vscode.postMessage({ type: 'open', file: row.dataset.file, line: Number(row.dataset.line), root });
}
document.querySelectorAll('[data-file]').forEach((row) => {
  row.addEventListener('click', () => open(row));
  row.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(row); });
});
document.querySelectorAll('[data-action=text]').forEach((b) => b.addEventListener('click', () => { if (vscode) vscode.postMessage({ type: 'text', uri: b.dataset.uri }); }));
document.querySelectorAll('[data-action=step]').forEach((b) => b.addEventListener('click', () => { if (vscode) vscode.postMessage({ type: 'step', test: b.dataset.test, root }); }));
";

/// A self-contained page of `sections` under `title`.
pub fn html(title: &str, sections: &[Section], options: &Options) -> String {
    let mut body = String::new();
    let _ = writeln!(body, "<h1>{}</h1>", escape(title));
    if let Some(uri) = &options.text_uri {
        let _ = writeln!(
            body,
            r#"<p><button type="button" data-action="text" data-uri="{}">Open as text</button></p>"#,
            escape(uri)
        );
    }
    for (i, section) in sections.iter().enumerate() {
        match section {
            Section::Failure { test, headline, lanes, replay } => {
                let _ = writeln!(body, r#"<section class="failure"><h2>{}</h2>"#, escape(test));
                // In the editor (a page with its text beside it), the schedule can be stepped.
                if options.text_uri.is_some() {
                    let _ = writeln!(
                        body,
                        r#"<p><button type="button" data-action="step" data-test="{}">Step through</button></p>"#,
                        escape(test)
                    );
                }
                let _ = writeln!(body, r#"<p class="headline">{}</p>"#, escape(headline));
                let _ = writeln!(body, r#"<div class="picture">{}</div>"#, svg(lanes, i));
                if let Some(r) = replay {
                    let _ = writeln!(body, "<p>Replay: <code>{}</code></p>", escape(r));
                }
                body += "</section>\n";
            }
            Section::Outcome { test, words } => {
                let _ = writeln!(
                    body,
                    r#"<section class="passed"><h2>{}</h2><p class="outcome">{}</p></section>"#,
                    escape(test),
                    escape(words)
                );
            }
        }
    }
    // The nonce only has to be unguessable to content that could not be escaped, which
    // there is none of; derived from the content, the page stays reproducible.
    let nonce =
        options.nonce.clone().unwrap_or_else(|| format!("{:016x}", crate::jvm::agent::stable_hash(body.as_bytes())));
    let nonce: String = nonce.chars().filter(char::is_ascii_alphanumeric).collect();
    let root = options.root.as_deref().map(|r| format!(r#" data-root="{}""#, escape(r))).unwrap_or_default();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}'\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style nonce=\"{nonce}\">{STYLE}</style>\n</head>\n<body{root}>\n{body}<script nonce=\"{nonce}\">{SCRIPT}</script>\n</body>\n</html>\n",
        escape(title)
    )
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::jvm::protocol::ResponseParser;

    /// The shape of a lost update (`explore-lost-update`): two workers increment
    /// `count` without the lock, the second is preempted between its read and its write,
    /// and the test's assertion fails.
    const LOST_UPDATE: &str = "\
SITE 1 org.example.metrics.LatencyStatsTest lambda$0 12 CALL org.example.metrics.LatencyStats.record
SITE 2 org.example.metrics.LatencyStats record 22 READ org.example.metrics.LatencyStats.count
SITE 3 org.example.metrics.LatencyStats record 22 WRITE org.example.metrics.LatencyStats.count
SITE 4 org.example.metrics.LatencyStatsTest concurrentRecordsAreAllCounted 19 START -
SITE 5 org.example.metrics.LatencyStatsTest concurrentRecordsAreAllCounted 21 JOIN -
SITE 6 org.example.metrics.LatencyStats count 30 MONITORENTER LatencyStats
THREAD 0 main
THREAD 1 Thread-0
THREAD 2 Thread-1
E 1 0 4 Thread-0 -
E 2 0 4 Thread-1 -
E 3 0 5 Thread-0 -
B 3 0 waiting for T1 to finish
E 4 1 2 LatencyStats@1 0
B 5 1 preempted
E 5 2 2 LatencyStats@1 0
E 6 2 3 LatencyStats@1 1
B 7 2 finished
E 7 1 3 LatencyStats@1 1
B 8 1 finished
E 8 0 5 Thread-1 -
E 9 0 6 LatencyStats@1 -
FAIL 0 java.lang.AssertionError expected:<2> but was:<1>
FRAME org.junit.Assert fail Assert.java 89
FRAME org.example.metrics.LatencyStatsTest concurrentRecordsAreAllCounted LatencyStatsTest.java 23
END 1 fail 10 3 5";

    fn parse(lines: &str) -> (Execution, HashMap<u32, Site>) {
        let mut p = ResponseParser::default();
        let mut exec = None;
        for l in lines.lines() {
            exec = p.line(l).unwrap();
        }
        (exec.expect("an END line"), p.new_sites.into_iter().collect())
    }

    /// The project's files: `src/main/java/...`, tests under `src/test/java/...`.
    fn file_of(class: &str) -> Option<String> {
        let outer = class.split('$').next()?;
        let dir = if outer.ends_with("Test") { "test" } else { "main" };
        outer.starts_with("org.example.").then(|| format!("src/{dir}/java/{}.java", outer.replace('.', "/")))
    }

    fn lanes(lines: &str) -> Lanes {
        let (exec, sites) = parse(lines);
        Lanes::of(&exec, &sites, &file_of)
    }

    #[test]
    fn the_table_and_the_picture_show_the_same_rows() {
        let (exec, sites) = parse(LOST_UPDATE);
        expect![[r#"
            | T0 (main)                                    | T1 (Thread-0)                                | T2 (Thread-1)                                |
            |----------------------------------------------|----------------------------------------------|----------------------------------------------|
            | start T1 (LatencyStatsTest.java:19)          |                                              |                                              |
            | start T2 (LatencyStatsTest.java:19)          |                                              |                                              |
            | ⇄ waiting for T1 to finish                   |                                              |                                              |
            | join T1 (LatencyStatsTest.java:21)           |                                              |                                              |
            |                                              | read LatencyStats.count = 0 (LatencyStats.j… |                                              |
            |                                              | ⇄ preempted                                  |                                              |
            |                                              |                                              | read LatencyStats.count = 0 (LatencyStats.j… |
            |                                              |                                              | write LatencyStats.count := 1 (LatencyStats… |
            |                                              |                                              | ⇄ finished                                   |
            |                                              | write LatencyStats.count := 1 (LatencyStats… |                                              |
            |                                              | ⇄ finished                                   |                                              |
            | join T2 (LatencyStatsTest.java:21)           |                                              |                                              |
            | lock LatencyStats@1 (LatencyStats.java:30)   |                                              |                                              |
        "#]]
        .assert_eq(&report::table(&exec, &sites));
        let lanes = Lanes::of(&exec, &sites, &file_of);
        let texts: Vec<&str> = lanes.rows.iter().filter(|r| r.mark != Mark::Failure).map(|r| r.text.as_str()).collect();
        let table: Vec<String> = report::rows(&exec, &sites).into_iter().map(|r| r.text).collect();
        assert_eq!(texts, table);
    }

    #[test]
    fn a_lost_update_as_a_picture() {
        expect![[r#"
            <svg class="lanes" xmlns="http://www.w3.org/2000/svg" width="1523" height="384" viewBox="0 0 1523 384" role="img" aria-label="the failing schedule, one column per thread">
            <defs><marker id="head-0" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="head"/></marker></defs>
            <line class="lane" x1="226" y1="36" x2="226" y2="384"/><rect class="thread" x="60" y="4" width="332" height="24" rx="4"/><text class="thread" x="226" y="21" text-anchor="middle">T0 (main)</text>
            <line class="lane" x1="566" y1="36" x2="566" y2="384"/><rect class="thread" x="400" y="4" width="332" height="24" rx="4"/><text class="thread" x="566" y="21" text-anchor="middle">T1 (Thread-0)</text>
            <line class="lane" x1="906" y1="36" x2="906" y2="384"/><rect class="thread" x="740" y="4" width="332" height="24" rx="4"/><text class="thread" x="906" y="21" text-anchor="middle">T2 (Thread-1)</text>
            <g class="row step" data-file="src/test/java/org/example/metrics/LatencyStatsTest.java" data-line="19" tabindex="0" role="link"><title>start T1 (LatencyStatsTest.java:19)</title><text class="step-no" x="48" y="52" text-anchor="end">1</text><rect class="box" x="64" y="38" width="324" height="20" rx="3"/><text x="70" y="52">start T1 (LatencyStatsTest.java:19)</text><text class="src" x="1088" y="52">src/test/java/org/example/metrics/LatencyStatsTest.java:19</text></g>
            <g class="row step" data-file="src/test/java/org/example/metrics/LatencyStatsTest.java" data-line="19" tabindex="0" role="link"><title>start T2 (LatencyStatsTest.java:19)</title><text class="step-no" x="48" y="76" text-anchor="end">2</text><rect class="box" x="64" y="62" width="324" height="20" rx="3"/><text x="70" y="76">start T2 (LatencyStatsTest.java:19)</text><text class="src" x="1088" y="76">src/test/java/org/example/metrics/LatencyStatsTest.java:19</text></g>
            <g class="row switch"><title>⇄ waiting for T1 to finish</title><rect class="box" x="64" y="86" width="324" height="20" rx="3"/><text x="70" y="100">⇄ waiting for T1 to finish</text></g>
            <g class="row step" data-file="src/test/java/org/example/metrics/LatencyStatsTest.java" data-line="21" tabindex="0" role="link"><title>join T1 (LatencyStatsTest.java:21)</title><text class="step-no" x="48" y="124" text-anchor="end">3</text><rect class="box" x="64" y="110" width="324" height="20" rx="3"/><text x="70" y="124">join T1 (LatencyStatsTest.java:21)</text><text class="src" x="1088" y="124">src/test/java/org/example/metrics/LatencyStatsTest.java:21</text></g>
            <g class="row step" data-file="src/main/java/org/example/metrics/LatencyStats.java" data-line="22" tabindex="0" role="link"><title>read LatencyStats.count = 0 (LatencyStats.java:22)</title><text class="step-no" x="48" y="148" text-anchor="end">4</text><rect class="box" x="404" y="134" width="324" height="20" rx="3"/><text x="410" y="148">read LatencyStats.count = 0 (LatencyStats.j…</text><text class="src" x="1088" y="148">src/main/java/org/example/metrics/LatencyStats.java:22</text></g>
            <g class="row preemption"><title>⇄ preempted</title><rect class="box" x="404" y="158" width="324" height="20" rx="3"/><text x="410" y="172">⇄ preempted</text><line class="arrow" x1="728" y1="168" x2="900" y2="168" marker-end="url(#head-0)"/></g>
            <g class="row step" data-file="src/main/java/org/example/metrics/LatencyStats.java" data-line="22" tabindex="0" role="link"><title>read LatencyStats.count = 0 (LatencyStats.java:22)</title><text class="step-no" x="48" y="196" text-anchor="end">5</text><rect class="box" x="744" y="182" width="324" height="20" rx="3"/><text x="750" y="196">read LatencyStats.count = 0 (LatencyStats.j…</text><text class="src" x="1088" y="196">src/main/java/org/example/metrics/LatencyStats.java:22</text></g>
            <g class="row step" data-file="src/main/java/org/example/metrics/LatencyStats.java" data-line="22" tabindex="0" role="link"><title>write LatencyStats.count := 1 (LatencyStats.java:22)</title><text class="step-no" x="48" y="220" text-anchor="end">6</text><rect class="box" x="744" y="206" width="324" height="20" rx="3"/><text x="750" y="220">write LatencyStats.count := 1 (LatencyStats…</text><text class="src" x="1088" y="220">src/main/java/org/example/metrics/LatencyStats.java:22</text></g>
            <g class="row switch"><title>⇄ finished</title><rect class="box" x="744" y="230" width="324" height="20" rx="3"/><text x="750" y="244">⇄ finished</text><line class="arrow" x1="744" y1="240" x2="572" y2="240" marker-end="url(#head-0)"/></g>
            <g class="row step" data-file="src/main/java/org/example/metrics/LatencyStats.java" data-line="22" tabindex="0" role="link"><title>write LatencyStats.count := 1 (LatencyStats.java:22)</title><text class="step-no" x="48" y="268" text-anchor="end">7</text><rect class="box" x="404" y="254" width="324" height="20" rx="3"/><text x="410" y="268">write LatencyStats.count := 1 (LatencyStats…</text><text class="src" x="1088" y="268">src/main/java/org/example/metrics/LatencyStats.java:22</text></g>
            <g class="row switch"><title>⇄ finished</title><rect class="box" x="404" y="278" width="324" height="20" rx="3"/><text x="410" y="292">⇄ finished</text><line class="arrow" x1="404" y1="288" x2="232" y2="288" marker-end="url(#head-0)"/></g>
            <g class="row step" data-file="src/test/java/org/example/metrics/LatencyStatsTest.java" data-line="21" tabindex="0" role="link"><title>join T2 (LatencyStatsTest.java:21)</title><text class="step-no" x="48" y="316" text-anchor="end">8</text><rect class="box" x="64" y="302" width="324" height="20" rx="3"/><text x="70" y="316">join T2 (LatencyStatsTest.java:21)</text><text class="src" x="1088" y="316">src/test/java/org/example/metrics/LatencyStatsTest.java:21</text></g>
            <g class="row step" data-file="src/main/java/org/example/metrics/LatencyStats.java" data-line="30" tabindex="0" role="link"><title>lock LatencyStats@1 (LatencyStats.java:30)</title><text class="step-no" x="48" y="340" text-anchor="end">9</text><rect class="box" x="64" y="326" width="324" height="20" rx="3"/><text x="70" y="340">lock LatencyStats@1 (LatencyStats.java:30)</text><text class="src" x="1088" y="340">src/main/java/org/example/metrics/LatencyStats.java:30</text></g>
            <g class="row failure" data-file="src/test/java/org/example/metrics/LatencyStatsTest.java" data-line="23" tabindex="0" role="link"><title>✗ java.lang.AssertionError: expected:&lt;2&gt; but was:&lt;1&gt; (LatencyStatsTest.java:23)</title><rect class="box" x="64" y="350" width="324" height="20" rx="3"/><text x="70" y="364">✗ java.lang.AssertionError: expected:&lt;2&gt; bu…</text><text class="src" x="1088" y="364">src/test/java/org/example/metrics/LatencyStatsTest.java:23</text></g>
            </svg>
        "#]].assert_eq(&svg(&lanes(LOST_UPDATE), 0));
    }

    #[test]
    fn one_column_per_thread_the_preemption_and_the_failure_marked_each_row_linked() {
        let lanes = lanes(LOST_UPDATE);
        let picture = svg(&lanes, 0);
        assert_eq!(picture.matches(r#"<rect class="thread""#).count(), 3);
        for title in ["T0 (main)", "T1 (Thread-0)", "T2 (Thread-1)"] {
            assert!(picture.contains(&format!(">{title}</text>")), "{title}: {picture}");
        }
        // The preemption: T1 stops, an arrow goes to T2 (column 2).
        let pre = lanes.rows.iter().find(|r| r.mark == Mark::Preemption).unwrap();
        assert_eq!((pre.text.as_str(), pre.lane, pre.to), ("⇄ preempted", Some(1), Some(2)));
        assert_eq!(picture.matches(r#"<g class="row preemption">"#).count(), 1);
        assert!(picture.contains(r#"marker-end="url(#head-0)""#));
        // The failure, last, in the failing thread's column, linked to the test's line.
        let last = lanes.rows.last().unwrap();
        assert_eq!(last.mark, Mark::Failure);
        assert_eq!(
            (last.lane, last.text.as_str()),
            (Some(0), "✗ java.lang.AssertionError: expected:<2> but was:<1> (LatencyStatsTest.java:23)")
        );
        assert!(picture.contains(r#"<g class="row failure" data-file="src/test/java/org/example/metrics/LatencyStatsTest.java" data-line="23""#), "{picture}");
        // Every step is in the project here, so every step links to its line.
        let steps = lanes.rows.iter().filter(|r| r.mark == Mark::Step).count();
        assert_eq!(picture.matches(r#"<g class="row step" data-file=""#).count(), steps);
        assert!(picture.contains(r#"data-file="src/main/java/org/example/metrics/LatencyStats.java" data-line="22""#));
        assert!(picture.contains(">src/main/java/org/example/metrics/LatencyStats.java:22</text>"));
    }

    #[test]
    fn java_strings_cannot_inject_markup() {
        // A thread's name, an exception's message and a value read, as Java could make them.
        let injected = [
            ("THREAD 1 Thread-0", "THREAD 1 \"><script>alert(1)</script>"),
            ("expected:<2> but was:<1>", "<script>alert('x')</script> & <img src=x onerror=alert(2)>"),
            ("E 4 1 2 LatencyStats@1 0", "E 4 1 2 LatencyStats@1 </text><script>"),
        ];
        let evil = injected.iter().fold(LOST_UPDATE.to_string(), |trace, (from, to)| trace.replace(from, to));
        let lanes = lanes(&evil);
        let sections = [Section::Failure {
            test: "T#<b>".into(),
            headline: "✗ <script>".into(),
            lanes,
            replay: Some("racelens replay . --test 'T#m'".into()),
        }];
        let page = html(
            "<title>",
            &sections,
            &Options { text_uri: Some("racelens:/x\"><script>".into()), ..Options::default() },
        );
        // One script element: the page's own, with its nonce.
        assert_eq!(page.matches("<script").count(), 1, "{page}");
        assert!(page.contains("<script nonce="));
        assert!(!page.contains("<img") && !page.contains("<b>") && !page.contains("</text><script>"), "{page}");
        assert!(
            page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(2)&gt;"),
            "{page}"
        );
        assert!(page.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), "{page}");
    }

    #[test]
    fn the_page_is_reproducible_and_its_policy_allows_only_its_own_style_and_script() {
        let sections = [Section::Failure {
            test: "LatencyStatsTest#concurrentRecordsAreAllCounted".into(),
            headline: "✗ failed".into(),
            lanes: lanes(LOST_UPDATE),
            replay: None,
        }];
        let page = html("racelens", &sections, &Options::default());
        assert_eq!(page, html("racelens", &sections, &Options::default()));
        let nonce = page.split("script-src 'nonce-").nth(1).and_then(|s| s.split('\'').next()).unwrap();
        assert!(nonce.len() >= 16 && nonce.chars().all(|c| c.is_ascii_alphanumeric()), "{nonce}");
        assert!(page.contains(&format!("default-src 'none'; style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}'")));
        assert!(
            page.contains(&format!("<style nonce=\"{nonce}\">"))
                && page.contains(&format!("<script nonce=\"{nonce}\">"))
        );
        // No inline style attribute (the policy would block it), no timestamp.
        assert!(!page.contains(" style=\""), "{page}");
        let given = html(
            "racelens",
            &sections,
            &Options {
                nonce: Some("abc123".into()),
                root: Some("/w".into()),
                text_uri: Some("racelens:/schedule/1/T.m.md".into()),
            },
        );
        assert!(given.contains("script-src 'nonce-abc123'") && given.contains(r#"<body data-root="/w">"#));
        assert!(given.contains(
            r#"<button type="button" data-action="text" data-uri="racelens:/schedule/1/T.m.md">Open as text</button>"#
        ));
        // The editor's page can be stepped through; a page written for CI cannot.
        assert!(given.contains(r#"<button type="button" data-action="step" data-test="LatencyStatsTest#concurrentRecordsAreAllCounted">Step through</button>"#));
        assert!(!page.contains(r#"data-action="step""#), "{page}");
    }

    #[test]
    fn a_passing_test_gets_words_and_no_picture() {
        let sections = [Section::Outcome {
            test: "p.T#m".into(),
            words: "✓ no failure: every schedule with at most 3 preemptions explored".into(),
        }];
        let page = html("racelens", &sections, &Options::default());
        assert!(
            page.contains("<p class=\"outcome\">✓ no failure: every schedule with at most 3 preemptions explored</p>")
        );
        assert!(!page.contains("<svg") && !page.contains("class=\"row"), "{page}");
    }

    #[test]
    fn a_deadlock_marks_every_waiting_thread() {
        let deadlock = LOST_UPDATE
            .replace(
                "FAIL 0 java.lang.AssertionError expected:<2> but was:<1>\n",
                "WAIT 1 waiting for lock Account@2 held by T2\nWAIT 2 waiting for lock Account@1 held by T1\n",
            )
            .replace("END 1 fail", "END 1 deadlock");
        let lanes = lanes(&deadlock);
        let failures: Vec<(Option<usize>, &str)> =
            lanes.rows.iter().filter(|r| r.mark == Mark::Failure).map(|r| (r.lane, r.text.as_str())).collect();
        assert_eq!(
            failures,
            vec![
                (Some(1), "✗ deadlock: waiting for lock Account@2 held by T2"),
                (Some(2), "✗ deadlock: waiting for lock Account@1 held by T1")
            ]
        );
    }
}
