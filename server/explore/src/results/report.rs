//! The human report of a failing schedule, in the manner of Lincheck's: one column per
//! thread, one row per step that matters (a shared access, a lock operation, a switch),
//! each switch with its reason, then the command that replays it.

use std::collections::HashMap;

use crate::jvm::protocol::{Event, Execution, Outcome, Site, ThreadId};

/// Rows shown at most; longer executions keep their beginning and their end.
const MAX_ROWS: usize = 120;
const WIDTH: usize = 44;

fn describe(site: &Site, object: Option<&str>, value: Option<&str>, threads: &HashMap<String, ThreadId>) -> String {
    let field = site.target.rsplit('.').take(2).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(".");
    let obj = object.unwrap_or("?");
    let what = match site.op.as_str() {
        "READ" => format!("read {field}{}", value.map(|v| format!(" = {v}")).unwrap_or_default()),
        "WRITE" => format!("write {field}{}", value.map(|v| format!(" := {v}")).unwrap_or_default()),
        "AREAD" => format!("read {obj}[]{}", value.map(|v| format!(" = {v}")).unwrap_or_default()),
        "AWRITE" => format!("write {obj}[]{}", value.map(|v| format!(" := {v}")).unwrap_or_default()),
        "LOCK" | "MONITORENTER" => format!("lock {obj}"),
        "UNLOCK" | "MONITOREXIT" => format!("unlock {obj}"),
        "WAIT" => format!("wait on {obj}"),
        "NOTIFY" | "NOTIFYALL" => format!("{} {obj}", site.op.as_str().to_lowercase()),
        "START" | "JOIN" => {
            let t = object.and_then(|o| threads.get(o)).map(|t| format!("T{t}")).unwrap_or_else(|| obj.to_string());
            format!("{} {t}", site.op.as_str().to_lowercase())
        }
        "CALL" => format!(
            "call {}()",
            site.target.rsplit('.').take(2).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(".")
        ),
        other => format!("{} {}", other.to_lowercase(), if site.target == "-" { obj } else { &site.target }),
    };
    format!("{what} ({})", site.place())
}

/// One step of `exec` as a row of [`table`] says it: `write Stats.count := 2 (Stats.java:14)`
/// (for the steps of a SARIF thread flow).
pub fn step(exec: &Execution, event: &Event, site: &Site) -> String {
    let by_name: HashMap<String, ThreadId> = exec.threads.iter().map(|(t, n)| (n.clone(), *t)).collect();
    describe(site, event.object.as_deref(), event.value.as_deref(), &by_name)
}

/// What a thread does at a site, as a verb phrase: `writes count`, `reads items[]`,
/// `locks`, `calls Map.put()` (for "preempted here before T1 writes count").
pub fn action(site: &Site) -> String {
    let name = site.target.rsplit('.').next().unwrap_or(&site.target);
    let member = site.target.rsplit('.').take(2).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(".");
    match site.op.as_str() {
        "READ" => format!("reads {name}"),
        "WRITE" => format!("writes {name}"),
        "AREAD" => "reads an array element".into(),
        "AWRITE" => "writes an array element".into(),
        "LOCK" | "MONITORENTER" => "takes a lock".into(),
        "UNLOCK" | "MONITOREXIT" => "releases a lock".into(),
        "CALL" => format!("calls {member}()"),
        "START" => "starts a thread".into(),
        "JOIN" => "joins a thread".into(),
        "BEGIN" => "starts".into(),
        other if site.target == "-" => other.to_lowercase(),
        other => format!("{} {member}", other.to_lowercase()),
    }
}

fn cell(text: &str) -> String {
    let mut t: String = text.chars().take(WIDTH).collect();
    if text.chars().count() > WIDTH {
        t.pop();
        t.push('…');
    }
    format!("{t:<WIDTH$}")
}

/// What a row of the interleaving shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A shared access or synchronization operation at a site.
    Step,
    /// The thread stopped running (`⇄ preempted`, `⇄ blocked on lock ...`, `⇄ finished`).
    Switch,
    /// Steps left out of a long execution.
    Elided,
}

/// One row of the interleaving: the thread it belongs to (none for [`RowKind::Elided`]),
/// its words, and the site of a step. The table and the swimlane picture
/// (`swimlane.rs`) both draw these rows, so they show the same steps in the same words.
#[derive(Clone, Debug)]
pub struct Row<'a> {
    pub kind: RowKind,
    pub thread: Option<ThreadId>,
    pub step: u32,
    pub text: String,
    pub site: Option<&'a Site>,
    /// A switch's reason (`preempted`).
    pub reason: Option<&'a str>,
}

/// The rows of a full-mode execution: every step at a known site and every switch, in
/// order; longer executions keep their beginning and their end.
pub fn rows<'a>(exec: &'a Execution, sites: &'a HashMap<u32, Site>) -> Vec<Row<'a>> {
    let by_name: HashMap<String, ThreadId> = exec.threads.iter().map(|(t, n)| (n.clone(), *t)).collect();
    let switch = |s: &'a crate::jvm::protocol::Switch| Row {
        kind: RowKind::Switch,
        thread: Some(s.thread),
        step: s.step,
        text: format!("⇄ {}", s.reason),
        site: None,
        reason: Some(s.reason.as_str()),
    };
    let mut rows: Vec<Row<'a>> = Vec::new();
    let mut switches = exec.switches.iter().peekable();
    for e in &exec.events {
        while let Some(s) = switches.peek().filter(|s| s.step <= e.step) {
            rows.push(switch(s));
            switches.next();
        }
        let Some(site) = sites.get(&e.site) else { continue };
        let text = describe(site, e.object.as_deref(), e.value.as_deref(), &by_name);
        rows.push(Row {
            kind: RowKind::Step,
            thread: Some(e.thread),
            step: e.step,
            text,
            site: Some(site),
            reason: None,
        });
    }
    rows.extend(switches.map(switch));
    if rows.len() > MAX_ROWS {
        let skipped = rows.len() - MAX_ROWS;
        let tail = rows.split_off(rows.len() - MAX_ROWS / 2);
        rows.truncate(MAX_ROWS / 2);
        let step = rows.last().map_or(0, |r| r.step);
        rows.push(Row {
            kind: RowKind::Elided,
            thread: None,
            step,
            text: format!("… {skipped} steps not shown …"),
            site: None,
            reason: None,
        });
        rows.extend(tail);
    }
    rows
}

/// The interleaving of a full-mode execution as a table.
pub fn table(exec: &Execution, sites: &HashMap<u32, Site>) -> String {
    let ids: Vec<ThreadId> = exec.threads.keys().copied().collect();
    let col = |t: ThreadId| ids.iter().position(|&x| x == t).unwrap_or(0);
    let mut out = String::new();
    let header: Vec<String> = ids.iter().map(|t| cell(&format!("T{t} ({})", exec.threads[t]))).collect();
    out += &format!("| {} |\n", header.join(" | "));
    out += &format!("|{}|\n", ids.iter().map(|_| "-".repeat(WIDTH + 2)).collect::<Vec<_>>().join("|"));
    for row in rows(exec, sites) {
        // An elided row goes in the first column.
        let c = row.thread.map_or(0, col);
        let cells: Vec<String> = (0..ids.len()).map(|i| if i == c { cell(&row.text) } else { cell("") }).collect();
        out += &format!("| {} |\n", cells.join(" | "));
    }
    out
}

/// One line saying what went wrong.
pub fn headline(exec: &Execution) -> String {
    match &exec.invocation {
        Some(inv) => format!("{}, in invocation {}", outcome_headline(exec), inv.text()),
        None => outcome_headline(exec),
    }
}

fn outcome_headline(exec: &Execution) -> String {
    let thread = |t: ThreadId| format!("T{t} ({})", exec.threads.get(&t).map(String::as_str).unwrap_or("?"));
    match &exec.outcome {
        Outcome::Fail(f) => {
            let at = f
                .frames
                .first()
                .map(|fr| {
                    format!(
                        " at {}.{}({}:{})",
                        fr.class.rsplit('.').next().unwrap_or(&fr.class),
                        fr.method,
                        fr.file,
                        fr.line
                    )
                })
                .unwrap_or_default();
            let msg = if f.message.is_empty() { String::new() } else { format!(": {}", f.message) };
            format!("{}{msg} in {}{at}", f.exception, thread(f.thread))
        }
        Outcome::Deadlock(waits) => {
            let who: Vec<String> = waits.iter().map(|(t, what)| format!("{} {what}", thread(*t))).collect();
            format!("deadlock: {}", who.join("; "))
        }
        Outcome::Exit(status) => format!("System.exit({status}) was called"),
        Outcome::Livelock => "the step bound was reached (a livelock, or a very long test)".into(),
        Outcome::Divergence { index, wanted, enabled } => {
            format!("the execution diverged at decision {index}: T{wanted} was not enabled (enabled: {enabled:#x})")
        }
        Outcome::Timeout => "the execution timed out".into(),
        Outcome::Uncontrolled(what) => format!("not under racelens's control: {what}"),
        Outcome::Error(e) => format!("the agent failed: {e}"),
        Outcome::Pass => "passed".into(),
    }
}

/// One run for debugging: its choices and outcome, then every step with its thread and
/// effects, then its decision points (`s<step>:T<thread>/<enabled threads>`, `n` for a notify).
pub fn run_summary(choices: &[ThreadId], exec: &Execution) -> String {
    let steps: Vec<String> = exec
        .trace
        .as_ref()
        .map(|t| {
            t.steps
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    format!(
                        "{k}:T{}{}",
                        s.thread,
                        t.step_effects(k)
                            .iter()
                            .map(|e| format!(" {:?}{}.{}", e.access, e.var.obj, e.var.slot))
                            .collect::<String>()
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let decisions: Vec<String> = exec
        .decisions
        .iter()
        .map(|d| format!("s{}:T{}/{:b}{}", d.step, d.thread, d.choices(), if d.waiters.is_some() { "n" } else { "" }))
        .collect();
    format!(
        "run {choices:?} -> {}\n  steps: {}\n  decisions: {}",
        exec.outcome.kind(),
        steps.join(" | "),
        decisions.join(" ")
    )
}
