//! RL007, a wait made holding a lock that its waker needs (hold and wait): the change made
//! code wait for another thread while it holds a lock, and the code that would end the wait
//! takes that lock first on its way to the wake-up. The waker blocks on the lock, the waiter
//! on the wake-up: a deadlock, or, with a timed wait, a stall until the timeout.
//!
//! - The wait: a `wait()` on another monitor than a held one, or a call, made holding a
//!   lock, to a project method that waits on a monitor or `Condition` of its own
//!   (`gate.awaitDrained()`, `reaper.sweepAndWait()`). `await()` right in the changed method
//!   is not looked at: its condition's lock is usually the one held, which it releases.
//! - Made by the change: the wait or the call is on a changed line, or the region holding
//!   the lock changed (a `synchronized` added to the method).
//! - The waker: a method with a `notify()`/`signal()` on the waited monitor that takes the
//!   held lock before it, itself or in a method it calls; or a method that calls such a
//!   waker after taking the lock (`handle()` destroys an expired session, which tells the
//!   synchronized listener, then calls `gate.release()`, which signals `drained`).
//!
//! What a method takes is followed as RL007's lock graph follows it (`lockorder::Graph`).

use super::lockorder::{acquisition_span, Graph};
use super::{Cx, Diagnostic, Related, Severity};
use crate::index::{FileId, LockId, MethodRef, MonitorOp, Origin};
use crate::java::{Call, CallKind, FileFacts, MethodIdx, Span};

/// A wait the change made while holding `held`.
struct HeldWait {
    file: FileId,
    /// The `wait()` call, or the call to the method that waits.
    span: Span,
    method: String,
    held: LockId,
    /// Where `held` is taken in the waiting method.
    held_at: Span,
    /// The waited monitor or condition's key, and how the wait reads (`drained`).
    waited: String,
    waited_display: String,
    /// The method that waits, when it is a callee (`RequestGate.awaitDrained`).
    via: Option<String>,
}

/// A thread that takes `held` before it wakes the waiter.
struct Waker {
    file: FileId,
    /// `SessionServer.handle`
    method: String,
    /// Where it takes the lock (the call that leads there, or the region).
    takes_at: Span,
    takes_via: Option<String>,
    /// The wake-up, or the call that leads to it.
    wakes_at: Span,
    wakes_via: Option<String>,
}

pub(crate) fn collect(cx: &Cx, out: &mut Vec<Diagnostic>) {
    let waits = held_waits(cx);
    if waits.is_empty() {
        return;
    }
    let mut graph = Graph::new(cx);
    for w in waits {
        if let Some(waker) = waker_taking(cx, &mut graph, &w) {
            out.push(diagnostic(&w, &waker));
        }
    }
}

/// The waits made holding a lock that the change made.
fn held_waits(cx: &Cx) -> Vec<HeldWait> {
    let index = cx.index;
    let r = index.resolver();
    let mut out = Vec::new();
    for change in &cx.changes.files {
        let Some(entry) = index.entry(change.file) else { continue };
        let facts = &entry.facts;
        let touched = |line: u32| change.old.is_none() || change.diff.changed_lines.contains(&line);
        for (i, call) in facts.calls.iter().enumerate().filter(|(_, c)| c.kind == CallKind::Method) {
            let held = index.locks_at(change.file, call.unit, call.span.start);
            if held.is_empty() {
                continue;
            }
            // What this call waits on: itself a `wait()`, or a project method that waits.
            let direct = entry.resolved.monitor_calls.iter().find(|m| m.call as usize == i && m.op == MonitorOp::Wait && call.name == "wait");
            let waits: Vec<(String, String, Option<(MethodRef, String)>)> = match direct {
                Some(m) => vec![(m.lock.key.clone(), m.lock.display.clone(), None)],
                None => r.callees(Origin::Project(change.file), facts, call).into_iter().filter_map(|callee| callee_wait(cx, callee).map(|(k, d, name)| (k, d, Some((callee, name))))).collect(),
            };
            for (waited, waited_display, via) in waits {
                for l in &held {
                    // The waited monitor itself is released by the wait; so is a lock the
                    // waiting callee takes itself (its condition's lock).
                    if l.key == waited || via.as_ref().is_some_and(|(m, _)| takes_itself(cx, *m, &l.key)) {
                        continue;
                    }
                    let Some(region) = holding_region(facts, &entry.resolved.locks, call, &l.key) else { continue };
                    if !(touched(call.span.line) || region.markers.iter().any(|&m| touched(m))) {
                        continue;
                    }
                    out.push(HeldWait {
                        file: change.file,
                        span: call.span,
                        method: facts.method_display(facts.units[call.unit as usize].method),
                        held: l.clone(),
                        held_at: acquisition_span(facts, region),
                        waited: waited.clone(),
                        waited_display: qualified(&waited, &waited_display),
                        via: via.as_ref().map(|(_, n)| n.clone()),
                    });
                }
            }
        }
    }
    out
}

/// The monitor or condition a project method waits on in its own code, and its name.
fn callee_wait(cx: &Cx, m: MethodRef) -> Option<(String, String, String)> {
    let Origin::Project(file) = m.origin else { return None };
    let entry = cx.index.entry(file)?;
    let f = &entry.facts;
    entry
        .resolved
        .monitor_calls
        .iter()
        .filter(|w| w.op == MonitorOp::Wait && f.units[f.calls[w.call as usize].unit as usize].method == m.idx)
        .map(|w| (w.lock.key.clone(), w.lock.display.clone(), f.method_display(m.idx)))
        .next()
}

/// Whether method `m` takes the lock `key` in its own code (a `Condition`'s lock around
/// its `await()`).
fn takes_itself(cx: &Cx, m: MethodRef, key: &str) -> bool {
    let Origin::Project(file) = m.origin else { return false };
    let Some(entry) = cx.index.entry(file) else { return false };
    let f = &entry.facts;
    f.locks.iter().zip(&entry.resolved.locks).any(|(region, id)| id.key == key && f.units[region.unit as usize].method == m.idx)
}

/// The outermost region of `call`'s unit holding the lock `key` around the call.
fn holding_region<'f>(facts: &'f FileFacts, ids: &[LockId], call: &Call, key: &str) -> Option<&'f crate::java::LockRegion> {
    facts.locks.iter().zip(ids).filter(|(region, id)| id.key == key && region.unit == call.unit && region.span.contains(call.span.start)).map(|(region, _)| region).min_by_key(|region| region.span.start)
}

/// A method that takes the held lock before it wakes the waiter: a waker itself, or a
/// caller of one.
fn waker_taking(cx: &Cx, graph: &mut Graph, w: &HeldWait) -> Option<Waker> {
    let index = cx.index;
    let r = index.resolver();
    for file in index.files_locking(&w.waited).collect::<Vec<_>>() {
        let Some(entry) = index.entry(file) else { continue };
        let facts = entry.facts.clone();
        for m in entry.resolved.monitor_calls.iter().filter(|m| m.op == MonitorOp::Notify && m.lock.key == w.waited) {
            let notify = &facts.calls[m.call as usize];
            let waker = MethodRef { origin: Origin::Project(file), idx: facts.units[notify.unit as usize].method };
            if let Some((takes_at, takes_via)) = takes_before(graph, file, &facts, waker.idx, notify.span.start, &w.held.key) {
                let method = facts.method_display(waker.idx);
                return Some(Waker { file, method, takes_at, takes_via, wakes_at: notify.span, wakes_via: None });
            }
            // Its callers, where they take the lock before the call.
            let name = facts.methods[waker.idx as usize].name.clone();
            for caller_file in index.files_calling(&name).collect::<Vec<_>>() {
                let Some(ce) = index.entry(caller_file) else { continue };
                let cf = ce.facts.clone();
                for call in cf.calls.iter().filter(|c| c.kind == CallKind::Method && c.name == name) {
                    if !r.callees(Origin::Project(caller_file), &cf, call).contains(&waker) {
                        continue;
                    }
                    let caller = cf.units[call.unit as usize].method;
                    if caller_file == w.file && cf.method_display(caller) == w.method {
                        continue; // the waiting thread itself
                    }
                    if let Some((takes_at, takes_via)) = takes_before(graph, caller_file, &cf, caller, call.span.start, &w.held.key) {
                        let method = cf.method_display(caller);
                        return Some(Waker { file: caller_file, method, takes_at, takes_via, wakes_at: call.span, wakes_via: Some(facts.method_display(waker.idx)) });
                    }
                }
            }
        }
    }
    None
}

/// Where method `m` takes the lock `key` before `offset`: a region of its own, or a call
/// (with its callee's name) that takes it.
fn takes_before(graph: &mut Graph, file: FileId, facts: &FileFacts, m: MethodIdx, offset: u32, key: &str) -> Option<(Span, Option<String>)> {
    let origin = Origin::Project(file);
    let entry = graph.index().entry(file)?;
    let own = facts.locks.iter().zip(&entry.resolved.locks).find(|(region, id)| id.key == key && facts.units[region.unit as usize].method == m && region.span.start < offset);
    if let Some((region, _)) = own {
        return Some((acquisition_span(facts, region), None));
    }
    for call in facts.calls.iter().filter(|c| facts.units[c.unit as usize].method == m && c.span.start < offset) {
        for callee in graph.callees(origin, facts, call) {
            if graph.acquisitions(callee, 0).iter().any(|a| a.lock.key == key) {
                return Some((call.span, Some(graph.index().facts(callee.origin).map(|f| f.method_display(callee.idx)).unwrap_or_default())));
            }
        }
    }
    None
}

fn diagnostic(w: &HeldWait, k: &Waker) -> Diagnostic {
    let waits = match &w.via {
        Some(callee) => format!("waits for `{}` (in `{callee}()`)", w.waited_display),
        None => format!("waits on `{}`", w.waited_display),
    };
    let lock = qualified(&w.held.key, &w.held.display);
    let takes = match &k.takes_via {
        Some(callee) => format!("takes `{lock}` (in `{callee}()`, line {})", k.takes_at.line),
        None => format!("takes `{lock}` (line {})", k.takes_at.line),
    };
    let wakes = match &k.wakes_via {
        Some(callee) => format!("before it calls `{callee}()`, which wakes it"),
        None => "before it wakes it".to_string(),
    };
    let message = format!(
        "`{}()` {waits} holding `{lock}`, but `{}()` {takes} {wakes}: the waker blocks on the lock and the waiter on the wake-up (a deadlock, or a stall until the wait times out)",
        w.method, k.method
    );
    let in_callee = k.takes_via.as_ref().map(|c| format!(", in `{c}()`")).unwrap_or_default();
    let related = vec![
        Related { file: w.file, span: w.held_at, message: format!("`{}()` takes `{lock}` here", w.method) },
        Related { file: k.file, span: k.takes_at, message: format!("`{}()` takes `{lock}` here{in_callee}", k.method) },
        Related { file: k.file, span: k.wakes_at, message: "and wakes the waiter here, after it".to_string() },
    ];
    Diagnostic { file: w.file, span: w.span, severity: Severity::Warning, code: "RL007", message, related }
}

/// A lock as a reader of another class's code needs it: `SessionServer.this`,
/// `RequestGate.drained`.
fn qualified(key: &str, display: &str) -> String {
    match key.split_once('#') {
        Some((class, field)) if !display.contains('.') => format!("{}.{field}", class.rsplit(['.', '$']).next().unwrap_or(class)),
        _ => display.to_string(),
    }
}
