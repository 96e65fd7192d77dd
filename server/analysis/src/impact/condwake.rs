//! RL008, a wake-up the change made conditional: `if (entries.size() == 1) notifyAll();`
//! where the base woke the waiters every time.
//!
//! A conditional wake-up is an optimization that is right only when every waiter the
//! monitor has waits for the very state change the condition detects (Goetz et al., *Java
//! Concurrency in Practice*, §14.2.4 "conditional notification": "make it right first, and
//! then make it fast"). The waker changes some state, but tells only when the tested part of
//! it changed; a waiter whose condition also depends on something the test does not look at
//! can be waiting while the test stays false, and misses the change that ends its wait:
//! - another field of the state that the waker changes (`slots` is not `entries.size()`);
//! - the clock: a waiter that waits until a time derived from the state (`while (head.dueAt()
//!   > now) wait(head.dueAt() - now)`) must hear of every change of that time (an earlier
//!   job), not only of the transition the test detects (the queue filling up).
//!
//! Reported where the wake-up's `if` is on a changed line (or the wake-up is) and the base
//! version of the method woke on the same monitor with no `if` of that test right around it
//! (no `if`, or only the outer ones the change kept), for a waiter whose condition reads
//! state the waking method changes (else the change concerns it not), and reads besides
//! what the test reads either the clock or another field the waking method changes.
//! `final` fields of value types are constants and read as nothing; an element written
//! (`items[i] = x`) is not the array read (`items.length`). Not reported when the test
//! reads a field a waiter writes before it waits (`waiters > 0`, a count of the sleeping
//! threads kept by the waiters themselves: they say when they need waking).
//!
//! What a condition reads: the fields it names, and through each local it names (never
//! assigned again), what the local's initializer reads (`head = entries.peek()` reads
//! `entries`, `now = System.currentTimeMillis()` the clock).

use std::collections::BTreeSet;

use super::wakeups::{guard_of, has_word};
use super::{Cx, Diagnostic, Related, Severity};
use crate::index::{is_mutator, FileId, MonitorOp};
use crate::java::{AccessKind, Call, CallKind, Expr, FileFacts, MethodIdx, Span, UnitIdx};

/// How many waiters a diagnostic lists as related locations.
const MAX_RELATED: usize = 5;

/// What a condition reads; `CLOCK` stands for the time.
const CLOCK: &str = "the clock";

/// Calls that read the time.
const CLOCK_CALLS: &[&str] = &["currentTimeMillis", "nanoTime", "now", "millis", "instant"];

/// A waiter the conditional wake-up can miss.
struct Missed {
    file: FileId,
    span: Span,
    method: String,
    cond: String,
    /// What its condition reads that the test does not.
    untested: Vec<String>,
}

pub(crate) fn collect(cx: &Cx, out: &mut Vec<Diagnostic>) {
    let index = cx.index;
    for change in &cx.changes.files {
        // A new file made nothing conditional.
        let Some(old) = change.old.as_deref() else { continue };
        let Some(entry) = index.entry(change.file) else { continue };
        let facts = &entry.facts;
        let touched: BTreeSet<u32> = change.diff.touched_lines().collect();
        for m in entry.resolved.monitor_calls.iter().filter(|m| m.op == MonitorOp::Notify) {
            let call = &facts.calls[m.call as usize];
            let Some(guard) = guard_of(facts, m.call).filter(|g| !g.looped) else { continue };
            let Some(test) = guard.cond.as_deref() else { continue };
            if !(touched.contains(&call.span.line) || touched.contains(&guard.span.line)) {
                continue;
            }
            let method = facts.units[call.unit as usize].method;
            let display = facts.method_display(method);
            if !woke_otherwise(old, call, &display, test) {
                continue;
            }
            let tested = reads(facts, call.unit, guard.span, test);
            let changed = writes(facts, method);
            if let Some(missed) = missed_waiters(cx, &m.lock.key, &tested, &changed) {
                out.push(diagnostic(change.file, call, test, &display, &missed));
            }
        }
    }
}

/// Whether the base version of the method had this wake-up (same name and receiver) with
/// no `if` of this test right around it (none, or an outer one the change kept).
fn woke_otherwise(old: &FileFacts, call: &Call, method: &str, test: &str) -> bool {
    let receiver =
        |f: &FileFacts, c: &Call| c.receiver.as_ref().map(|r| crate::java::expr_key(f, r)).unwrap_or_default();
    let mine = receiver(old, call);
    old.calls.iter().enumerate().any(|(i, c)| {
        c.kind == CallKind::Method
            && c.name == call.name
            && c.args.is_empty()
            && old.method_display(old.units[c.unit as usize].method) == method
            && receiver(old, c) == mine
            && guard_of(old, i as u32).is_none_or(|g| g.cond.as_deref() != Some(test) || g.looped)
    })
}

/// The waiters on the monitor `key` that the conditional wake-up can miss, or `None` when
/// the test reads a waiter count (or no waiter is missed).
fn missed_waiters(cx: &Cx, key: &str, tested: &BTreeSet<String>, changed: &BTreeSet<String>) -> Option<Vec<Missed>> {
    let mut missed = Vec::new();
    for file in cx.index.files_locking(key) {
        let Some(entry) = cx.index.entry(file) else { continue };
        let f = &entry.facts;
        for w in entry.resolved.monitor_calls.iter().filter(|w| w.op == MonitorOp::Wait && w.lock.key == key) {
            let wait = &f.calls[w.call as usize];
            let method = f.units[wait.unit as usize].method;
            // The waiters keep what the test reads: they say themselves when they need waking.
            let counted = f.accesses.iter().any(|a| {
                a.kind == AccessKind::Write
                    && f.units[a.unit as usize].method == method
                    && a.span.start < wait.span.start
                    && tested.contains(&a.name)
            });
            if counted {
                return None;
            }
            let Some(guard) = guard_of(f, w.call) else { continue };
            let Some(cond) = guard.cond.as_deref() else { continue };
            let needs = reads(f, wait.unit, guard.span, cond);
            if needs.is_disjoint(changed) {
                continue;
            }
            // What the test does not watch and the waker changes (or the time, which
            // changes anyway): a change the waiter waits for that the test can miss.
            let untested: Vec<String> =
                needs.difference(tested).filter(|x| *x == CLOCK || changed.contains(*x)).cloned().collect();
            if !untested.is_empty() {
                missed.push(Missed {
                    file,
                    span: wait.span,
                    method: f.method_display(method),
                    cond: cond.to_string(),
                    untested,
                });
            }
        }
    }
    (!missed.is_empty()).then_some(missed)
}

/// What a condition (its text and bytes in `unit`) reads: fields, and the clock.
fn reads(facts: &FileFacts, unit: UnitIdx, span: Span, text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for a in
        facts.accesses.iter().filter(|a| a.unit == unit && a.kind == AccessKind::Read && span.contains(a.span.start))
    {
        add_field(facts, unit, &a.name, &mut out);
    }
    // A call's arguments are accesses and calls of the span themselves.
    for c in facts.calls.iter().filter(|c| c.unit == unit && span.contains(c.span.start)) {
        if CLOCK_CALLS.contains(&c.name.as_str()) {
            out.insert(CLOCK.to_string());
        }
        if let Some(r) = &c.receiver {
            expr_reads(facts, unit, r, &mut out, 1);
        }
    }
    for local in facts.locals.iter() {
        if local.scope.contains(span.start) && has_word(text, &local.name) && !local.reassigned {
            if let Some(init) = initializer(facts, local.scope.start) {
                if init.start < span.start {
                    out.extend(reads(facts, unit, init, facts.text_of(init)));
                }
            }
        }
    }
    out
}

/// The bytes of a local's declarator up to the end of its statement (`wasEmpty = count ==
/// 0`): its initializer, whatever its shape.
fn initializer(facts: &FileFacts, start: u32) -> Option<Span> {
    let first = facts.tokens.partition_point(|t| t.start < start);
    let mut depth = 0i32;
    for t in &facts.tokens[first..] {
        match facts.token_text(t) {
            "(" | "{" | "[" => depth += 1,
            ")" | "}" | "]" => depth -= 1,
            ";" | "," if depth == 0 => {
                return Some(Span { start, end: t.start, line: facts.tokens[first].line, end_line: t.line })
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    None
}

fn expr_reads(facts: &FileFacts, unit: UnitIdx, e: &Expr, out: &mut BTreeSet<String>, depth: u32) {
    if depth > 4 {
        return;
    }
    match e {
        Expr::Name(n) => add_field(facts, unit, n, out),
        Expr::Field(o, n) => {
            add_field(facts, unit, n, out);
            expr_reads(facts, unit, o, out, depth + 1);
        }
        Expr::Local(l) => {
            let local = &facts.locals[*l as usize];
            if let (Some(init), false) = (&local.init, local.reassigned) {
                expr_reads(facts, unit, init, out, depth + 1);
            }
        }
        Expr::Call { receiver, name, args } => {
            if CLOCK_CALLS.contains(&name.as_str()) {
                out.insert(CLOCK.to_string());
            }
            for x in receiver.iter().map(|r| &**r).chain(args) {
                expr_reads(facts, unit, x, out, depth + 1);
            }
        }
        Expr::Cast(_, x) | Expr::Element(x) => expr_reads(facts, unit, x, out, depth + 1),
        _ => {}
    }
}

/// A field, unless it is a constant: a `final` field of a value type in the unit's class.
/// A `final` collection still changes: its contents are what waiters wait on.
fn add_field(facts: &FileFacts, unit: UnitIdx, name: &str, out: &mut BTreeSet<String>) {
    // Type names (`System`) and constants are written upper-case.
    if name.starts_with(|c: char| c.is_uppercase()) {
        return;
    }
    const VALUES: &[&str] = &[
        "int", "long", "short", "byte", "char", "boolean", "double", "float", "String", "Integer", "Long", "Boolean",
        "Duration",
    ];
    let class = facts.unit_method(unit).class;
    let constant = facts.fields.iter().any(|f| {
        f.class == class && f.name == name && f.is_final && f.ty.array_dims == 0 && VALUES.contains(&f.ty.name.as_str())
    });
    if !constant {
        out.insert(name.to_string());
    }
}

/// The fields a method changes: written, or changed through a mutator (`entries.add(…)`),
/// final collections included (their contents change).
fn writes(facts: &FileFacts, method: MethodIdx) -> BTreeSet<String> {
    // An element written (`items[i] = x`) is not the array (`items.length`).
    let mut out: BTreeSet<String> = facts
        .accesses_of(method)
        .filter(|(_, a)| a.kind == AccessKind::Write)
        .map(|(_, a)| if a.element { format!("{}[]", a.name) } else { a.name.clone() })
        .collect();
    for c in facts.calls_of(method).filter(|c| c.kind == CallKind::Method && is_mutator(&c.name)) {
        if let Some(Expr::Name(n) | Expr::Field(_, n)) = &c.receiver {
            out.insert(n.clone());
        }
    }
    out
}

fn diagnostic(file: FileId, call: &Call, test: &str, method: &str, missed: &[Missed]) -> Diagnostic {
    let w = &missed[0];
    let what: Vec<String> = w.untested.iter().map(|u| if u == CLOCK { u.clone() } else { format!("`{u}`") }).collect();
    let message = format!(
        "`{}()` in `{method}()` now wakes the waiters only when `{test}`, but `{}()` (line {}) waits while `{}`, which also depends on {}: a change here that leaves `{test}` false can end its wait, and nobody tells it (a lost wake-up: it sleeps until its timeout, or for ever)",
        call.name,
        w.method,
        w.span.line,
        w.cond,
        what.join(" and ")
    );
    let related = missed
        .iter()
        .take(MAX_RELATED)
        .map(|m| Related {
            file: m.file,
            span: m.span,
            message: format!("`{}()` waits here while `{}`", m.method, m.cond),
        })
        .collect();
    Diagnostic { file, span: call.span, severity: Severity::Warning, code: "RL008", message, related }
}
