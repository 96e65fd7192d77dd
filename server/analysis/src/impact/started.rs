//! Code that runs only in a task a method starts, and what that method did before starting
//! it: JLS 17.4.5, "a call to `start()` on a thread happens-before any action in the started
//! thread", and `java.util.concurrent`'s memory consistency effects ("actions in a thread
//! prior to the submission of a `Runnable` to an `Executor` happen-before its execution
//! begins"). `port = requested; new Thread(() -> serve()).start();` orders the write before
//! every read of `serve()`'s thread: the two never race.
//!
//! The task is a lambda or an anonymous class's method handed to a thread or an executor
//! where it is written (`new Thread(() -> …).start()`, `executor.submit(() -> …)`, or through
//! a local read only there), or a private method that only such a task calls. The earlier access is in the code that starts it,
//! before the start, and not in a loop with the start (a write of the next turn comes after
//! this turn's thread started). Assumed: the starting method does not run on two threads at
//! once (a write there racing with the thread a concurrent call started); its accesses
//! after the start still pair as before.

use crate::index::SPAWN_METHODS;
use crate::java::{CallKind, ClassKind, Expr, FileFacts, UnitIdx};

/// Where a task starts: the unit that starts it, and the offset of the start there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TaskStart {
    pub unit: UnitIdx,
    pub at: u32,
}

/// The start of the task that code of `unit` runs in only, if it is one.
pub(crate) fn task_start(facts: &FileFacts, unit: UnitIdx) -> Option<TaskStart> {
    let u = &facts.units[unit as usize];
    if u.inline_at.is_some() {
        return task_start(facts, facts.runs_at(unit, 0).0);
    }
    if u.is_lambda {
        return lambda_start(facts, unit);
    }
    let method = &facts.methods[u.method as usize];
    let class = &facts.classes[method.class as usize];
    if class.kind == ClassKind::Anonymous {
        return anonymous_start(facts, method.class);
    }
    if !method.is_private {
        return None;
    }
    // A private helper that one task alone calls (by name; a reference lets it out).
    let mut start = None;
    for c in facts.calls.iter().filter(|c| c.name == method.name && matches!(c.receiver, None | Some(Expr::This))) {
        if c.kind == CallKind::Reference {
            return None;
        }
        if c.args.len() != method.params.len() {
            continue;
        }
        let caller = facts.runs_at(c.unit, 0).0;
        let task = &facts.units[caller as usize];
        if !task.is_lambda || task.inline_at.is_some() {
            return None;
        }
        let s = lambda_start(facts, caller)?;
        if start.is_some_and(|x| x != s) {
            return None;
        }
        start = Some(s);
    }
    start
}

/// A lambda handed, where it is written, to a call that runs it on another thread, directly
/// or through a local that holds it and is read once, by that call (`Runnable task = () ->
/// …; new Thread(task).start();`).
fn lambda_start(facts: &FileFacts, lambda: UnitIdx) -> Option<TaskStart> {
    let parent = facts.units[lambda as usize].parent?;
    let given = |arg: &Expr| matches!(arg, Expr::Lambda(l) if *l == lambda);
    let direct = facts.calls.iter().find(|c| c.unit == parent && c.args.iter().any(given));
    let call = direct.or_else(|| {
        let (l, _) =
            facts.locals.iter().enumerate().find(|(_, v)| !v.reassigned && v.init.as_ref().is_some_and(given))?;
        let reads = facts.local_uses.iter().filter(|u| u.local as usize == l && !u.write).count();
        let holds = |arg: &Expr| matches!(arg, Expr::Local(x) if *x as usize == l);
        let mut calls = facts.calls.iter().filter(|c| c.unit == parent && c.args.iter().any(holds));
        let call = calls.next()?;
        (reads == 1 && calls.next().is_none()).then_some(call)
    })?;
    start_of(facts, parent, call)
}

/// An anonymous class instantiated as a task (`new Thread() { … }.start()`, or given to a
/// thread or an executor).
fn anonymous_start(facts: &FileFacts, class: u32) -> Option<TaskStart> {
    let new =
        facts.calls.iter().find(|c| matches!(&c.kind, CallKind::New { anonymous: Some(a), .. } if *a == class))?;
    if let CallKind::New { ty, .. } = &new.kind {
        if ty.name.rsplit('.').next() == Some("Thread") {
            return first_start_after(facts, new.unit, new.full.end);
        }
    }
    let call =
        facts.calls.iter().find(|c| c.unit == new.unit && c.full.contains_span(&new.full) && c.full != new.full)?;
    start_of(facts, new.unit, call)
}

/// Where `call`, given the task, starts it: at a spawning call itself, or, for `new
/// Thread(task)`, at the first `start()` after it in the same code.
fn start_of(facts: &FileFacts, unit: UnitIdx, call: &crate::java::Call) -> Option<TaskStart> {
    match &call.kind {
        CallKind::Method if SPAWN_METHODS.contains(&call.name.as_str()) => {
            Some(TaskStart { unit, at: call.full.start })
        }
        CallKind::New { ty, .. } if ty.name.rsplit('.').next() == Some("Thread") => {
            first_start_after(facts, unit, call.full.end)
        }
        _ => None,
    }
}

fn first_start_after(facts: &FileFacts, unit: UnitIdx, offset: u32) -> Option<TaskStart> {
    facts
        .calls
        .iter()
        .filter(|c| c.unit == unit && c.kind == CallKind::Method && c.name == "start" && c.args.is_empty())
        .map(|c| c.full.start)
        .filter(|&at| at >= offset)
        .min()
        .map(|at| TaskStart { unit, at })
}

/// Whether an access at `offset` of `unit` comes before the task started at `start`: in the
/// code that starts it (or a lambda that code runs inline), before the start, and in no
/// loop that also holds the start.
pub(crate) fn before_start(facts: &FileFacts, unit: UnitIdx, offset: u32, start: TaskStart) -> bool {
    let (u, at) = facts.runs_at(unit, offset);
    u == start.unit && at < start.at && !loop_holds_both(facts, start.unit, at, start.at)
}

/// Whether a `for`, `while` or `do` loop of the unit has both offsets in its body.
fn loop_holds_both(facts: &FileFacts, unit: UnitIdx, a: u32, b: u32) -> bool {
    let span = facts.units[unit as usize].span;
    let from = facts.tokens.partition_point(|t| t.start < span.start);
    let to = facts.tokens.partition_point(|t| t.start < span.end);
    let tokens = &facts.tokens[from..to];
    let text = |i: usize| facts.token_text(&tokens[i]);
    // The index of the token that closes the bracket opened at `i`.
    let close = |i: usize, open: &str, shut: &str| -> Option<usize> {
        let mut depth = 0usize;
        for j in i..tokens.len() {
            if text(j) == open {
                depth += 1;
            } else if text(j) == shut {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
        }
        None
    };
    for i in 0..tokens.len() {
        let body_start = match text(i) {
            "for" | "while" if i + 1 < tokens.len() && text(i + 1) == "(" => close(i + 1, "(", ")").map(|j| j + 1),
            "do" => Some(i + 1),
            _ => None,
        };
        let Some(s) = body_start.filter(|&s| s < tokens.len()) else { continue };
        let end = if text(s) == "{" { close(s, "{", "}") } else { (s..tokens.len()).find(|&j| text(j) == ";") };
        let Some(e) = end else { continue };
        let (lo, hi) = (tokens[s].start, tokens[e].end);
        if (lo..hi).contains(&a) && (lo..hi).contains(&b) {
            return true;
        }
    }
    false
}
