//! RL008, lost wake-up: the change made a wake-up reach fewer waiters than need it.
//!
//! - a single wake-up (`notify()`, `signal()`) the change introduced, or changed from
//!   `notifyAll()`/`signalAll()`, on a monitor or `Condition` whose wait set mixes waiters
//!   for different conditions (SpotBugs NO_NOTIFY_NOT_NOTIFYALL, but only where the wait
//!   loops really differ): the one woken may be the wrong kind and swallow the signal;
//! - the same where the change added the second kind of waiter to a monitor that is
//!   woken one waiter at a time;
//! - the same where the waiters' condition reads their own arguments (`while
//!   (available(sku) < quantity) wait();`): one condition as written, a different
//!   predicate per thread, so the one woken may not be the one that can go on;
//! - a single wake-up the change introduced after something that lets several waiters
//!   through at once (`drainTo()`, `clear()`, a condition's field reset to a constant):
//!   one goes on, the others sleep with room to go on;
//! - a single wake-up the change introduced where every waiter waits for a state change
//!   that, once made, holds for all of them (a gate: the waiter neither consumes what it
//!   waited for nor wakes the next one): all but one wait forever. When the waking method
//!   sets fields the waiters' condition reads, the state is those fields: `close()` setting
//!   `closed` is such a change even where each waiter consumes a permit (`active++`);
//! - a `wait()`/`await()` the change left without a loop, under `if` or bare, where the
//!   base re-checked in a loop, or a new one under `if` (SpotBugs WA_NOT_IN_LOOP).
//!
//! Waiters are found project-wide by the monitor's identity (`locks::lock_of_expr`); the
//! kind of a waiter is the text of its loop condition.

use std::collections::{BTreeMap, BTreeSet};

use super::{ChangedFile, Cx, Diagnostic, Related, Severity};
use crate::index::{is_mutator, FileId, MonitorOp};
use crate::java::{expr_key, Call, CallKind, Expr, FileFacts, Span, UnitIdx};

/// How many waiters or wake-ups a diagnostic lists as related locations.
const MAX_RELATED: usize = 5;

const WAITS: &[&str] = &["wait", "await", "awaitNanos", "awaitUninterruptibly", "awaitUntil"];

/// A `wait()` or `await()` on some monitor.
struct Waiter {
    file: FileId,
    span: Span,
    /// `Queue.take`
    method: String,
    /// What it waits while (its loop or `if` condition), when it has one.
    cond: Option<String>,
    /// Once woken, it wakes another waiter itself, or calls a method of its own object
    /// that may (or its condition reads no field: nothing to tell).
    wakes_next: bool,
    /// The fields its condition reads that its method changes: what it consumes of what
    /// it waited for (`active++` after `while (active >= max)`).
    consumes: BTreeSet<String>,
    /// Added by the change: its method had no wait on this monitor in the base.
    new_kind: bool,
    /// Its condition reads its method's parameters (`available(sku) < quantity`): each
    /// waiter waits for its own thing, though the condition reads the same.
    own_args: bool,
}

impl Waiter {
    fn describe(&self) -> String {
        format!("`{}()` (line {}) waits while `{}`", self.method, self.span.line, self.cond.as_deref().unwrap_or("?"))
    }
}

/// A single wake-up: `notify()` or `signal()`.
struct Wakeup {
    file: FileId,
    span: Span,
    method: String,
    name: String,
}

pub(crate) fn collect(cx: &Cx, out: &mut Vec<Diagnostic>) {
    let index = cx.index;
    let mut reported: BTreeSet<(String, String, &'static str)> = BTreeSet::new();
    for change in &cx.changes.files {
        let Some(entry) = index.entry(change.file) else { continue };
        let facts = &entry.facts;
        let touched: BTreeSet<u32> = change.diff.touched_lines().collect();
        let changed_monitor_call = entry.resolved.monitor_calls.iter().any(|m| {
            let c = &facts.calls[m.call as usize];
            touched.contains(&c.span.line) || guard_of(facts, m.call).is_some_and(|g| touched.contains(&g.span.line))
        });
        if !changed_monitor_call {
            continue;
        }
        for m in &entry.resolved.monitor_calls {
            let call = &facts.calls[m.call as usize];
            let method = facts.method_display(facts.units[call.unit as usize].method);
            match m.op {
                MonitorOp::Notify
                    if single_wakeup(call)
                        && touched.contains(&call.span.line)
                        && introduced_wakeup(change, facts, call, &method) =>
                {
                    let waiters = waiters(cx, &m.lock.key);
                    let pattern = if kinds(&waiters).len() >= 2 {
                        "mixed"
                    } else if waiters.iter().any(|w| w.own_args) {
                        "own"
                    } else if bulk_release(facts, call, &waiters).is_some() {
                        "bulk"
                    } else {
                        "gate"
                    };
                    if !reported.insert((m.lock.key.clone(), method.clone(), pattern)) {
                        continue;
                    }
                    let here = Wakeup { file: change.file, span: call.span, method, name: call.name.clone() };
                    let display = receiver_display(facts, call);
                    out.extend(match pattern {
                        "mixed" => mixed_wait_set(&here, &display, &waiters),
                        "own" => own_predicates(&here, &display, &waiters),
                        "bulk" => bulk_release(facts, call, &waiters)
                            .and_then(|what| several_let_through(&here, &display, &waiters, &what)),
                        _ => gate(facts, call, &here, &display, &waiters),
                    });
                }
                MonitorOp::Wait => {
                    let Some(guard) = guard_of(facts, m.call) else { continue };
                    let changed = touched.contains(&call.span.line) || touched.contains(&guard.span.line);
                    if !changed {
                        continue;
                    }
                    if !guard.looped && reported.insert((m.lock.key.clone(), method.clone(), "loop")) {
                        out.extend(not_in_loop(cx, change, facts, call, guard, &method, &m.lock.key));
                    }
                    let mine = waiter(change.file, facts, call, m.call, &method, Some(change));
                    if mine.new_kind
                        && mine.cond.is_some()
                        && reported.insert((m.lock.key.clone(), method.clone(), "second kind"))
                    {
                        out.extend(second_kind(cx, &mine, &receiver_display(facts, call), &m.lock.key));
                    }
                }
                _ => {}
            }
        }
    }
}

pub(super) fn guard_of(facts: &FileFacts, call: u32) -> Option<&crate::java::WaitGuard> {
    facts.wait_guards.iter().find(|g| g.call == call)
}

/// `notify()` or `signal()`: wakes one waiter.
fn single_wakeup(call: &Call) -> bool {
    call.args.is_empty() && matches!(call.name.as_str(), "notify" | "signal")
}

fn receiver_display(facts: &FileFacts, call: &Call) -> String {
    call.receiver.as_ref().map_or_else(|| "this".to_string(), |r| expr_key(facts, r))
}

/// Whether the base had fewer single wake-ups on this receiver in this method: the change
/// added this one or turned a `notifyAll()` into it.
fn introduced_wakeup(change: &ChangedFile, facts: &FileFacts, call: &Call, method: &str) -> bool {
    let Some(old) = change.old.as_deref() else { return true };
    let key = receiver_display(facts, call);
    let count = |f: &FileFacts| {
        f.calls
            .iter()
            .filter(|c| {
                c.kind == CallKind::Method
                    && c.name == call.name
                    && single_wakeup(c)
                    && receiver_display(f, c) == key
                    && f.method_display(f.units[c.unit as usize].method) == method
            })
            .count()
    };
    count(old) < count(facts)
}

/// Every wait on the monitor `key`, in the project.
fn waiters(cx: &Cx, key: &str) -> Vec<Waiter> {
    let mut out = Vec::new();
    for (file, entry) in cx.index.files_locking(key).filter_map(|f| cx.index.entry(f).map(|e| (f, e))) {
        let facts = &entry.facts;
        for m in entry.resolved.monitor_calls.iter().filter(|m| m.op == MonitorOp::Wait && m.lock.key == key) {
            let call = &facts.calls[m.call as usize];
            let method = facts.method_display(facts.units[call.unit as usize].method);
            out.push(waiter(file, facts, call, m.call, &method, cx.changes.get(file)));
        }
    }
    out.sort_by_key(|w| (w.file, w.span.start));
    out
}

fn waiter(
    file: FileId,
    facts: &FileFacts,
    call: &Call,
    idx: u32,
    method: &str,
    change: Option<&ChangedFile>,
) -> Waiter {
    let guard = guard_of(facts, idx);
    let cond = guard.and_then(|g| g.cond.clone());
    let (wakes_next, consumes) = guard.map_or((true, BTreeSet::new()), |g| passes_on(facts, call, g.span));
    let receiver = receiver_display(facts, call);
    // A new condition on an old wait is an edit of that waiter, not a second kind.
    let new_kind = change.is_some_and(|c| match c.old.as_deref() {
        None => true,
        Some(old) => !old.wait_guards.iter().any(|g| {
            let oc = &old.calls[g.call as usize];
            WAITS.contains(&oc.name.as_str())
                && receiver_display(old, oc) == receiver
                && old.method_display(old.units[oc.unit as usize].method) == method
        }),
    });
    let params = &facts.unit_method(call.unit).params;
    let own_args = cond.as_deref().is_some_and(|c| params.iter().any(|p| has_word(c, &p.name)));
    Waiter { file, span: call.span, method: method.to_string(), cond, wakes_next, consumes, new_kind, own_args }
}

/// `word` in `text` as a whole identifier.
pub(super) fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident) && !text[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// What a waiter does once woken that lets a single wake-up suffice: whether it wakes
/// another waiter itself or calls a method of its own object that may (the first), and
/// which fields its condition reads it changes, consuming what it waited for (the
/// second). A condition that reads no field tells nothing: it counts as passing on.
fn passes_on(facts: &FileFacts, wait: &Call, cond: Span) -> (bool, BTreeSet<String>) {
    let unit: UnitIdx = wait.unit;
    let read: BTreeSet<&str> = facts
        .accesses
        .iter()
        .filter(|a| a.unit == unit && cond.contains(a.span.start))
        .map(|a| a.name.as_str())
        .collect();
    if read.is_empty() {
        return (true, BTreeSet::new());
    }
    let mut consumes: BTreeSet<String> = facts
        .accesses
        .iter()
        .filter(|a| a.unit == unit && a.kind == crate::java::AccessKind::Write && read.contains(a.name.as_str()))
        .map(|a| a.name.clone())
        .collect();
    let mut wakes_next = false;
    for c in facts.calls.iter().filter(|c| c.unit == unit && c.kind == CallKind::Method && !cond.contains(c.span.start))
    {
        match &c.receiver {
            _ if matches!(c.name.as_str(), "notify" | "notifyAll" | "signal" | "signalAll") => wakes_next = true,
            _ if WAITS.contains(&c.name.as_str()) => {}
            None | Some(Expr::This) => wakes_next = true,
            Some(r) => {
                consumes.extend(field_name(r).filter(|f| read.contains(f) && is_mutator(&c.name)).map(str::to_string))
            }
        }
    }
    (wakes_next, consumes)
}

/// `name` or `this.name`: a field of the object itself.
fn field_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Name(n) => Some(n),
        Expr::Field(o, n) if matches!(**o, Expr::This) => Some(n),
        _ => None,
    }
}

/// The distinct kinds of waiter: a kind is what one method's waits wait while (the set of
/// their conditions). The waits of one method are one role: `for (;;) { if (head == null)
/// wait(); else if (head.due > now) wait(head.due - now); ... }` is one kind of waiter.
fn kinds(waiters: &[Waiter]) -> BTreeSet<BTreeSet<&str>> {
    let mut by_method: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for w in waiters {
        if let Some(cond) = w.cond.as_deref() {
            by_method.entry(&w.method).or_default().insert(cond);
        }
    }
    by_method.into_values().collect()
}

/// Whether two waiters are of different kinds: in different methods, waiting while
/// different conditions.
fn differ(a: &Waiter, b: &Waiter) -> bool {
    b.cond.is_some() && b.cond != a.cond && b.method != a.method
}

fn all_of(name: &str) -> &'static str {
    if name == "signal" {
        "signalAll"
    } else {
        "notifyAll"
    }
}

/// Two waiters of different kinds, the first of them `first` when given.
fn two_kinds<'w>(waiters: &'w [Waiter], first: Option<&'w Waiter>) -> Option<(&'w Waiter, &'w Waiter)> {
    let a = first.or_else(|| waiters.iter().find(|w| w.cond.is_some()))?;
    let b = waiters.iter().find(|w| differ(a, w))?;
    Some((a, b))
}

fn waiter_related(waiters: &[Waiter], skip: Option<&Waiter>) -> Vec<Related> {
    waiters
        .iter()
        .filter(|w| w.cond.is_some() && !skip.is_some_and(|s| s.file == w.file && s.span == w.span))
        .take(MAX_RELATED)
        .map(|w| Related {
            file: w.file,
            span: w.span,
            message: format!("`{}()` waits here while `{}`", w.method, w.cond.as_deref().unwrap_or_default()),
        })
        .collect()
}

/// A single wake-up on a wait set with two kinds of waiter.
fn mixed_wait_set(here: &Wakeup, display: &str, waiters: &[Waiter]) -> Option<Diagnostic> {
    let (a, b) = two_kinds(waiters, None)?;
    Some(wakes_one(
        here,
        display,
        waiters,
        format!("{} and {}: the one woken may be the wrong kind and the signal is lost", a.describe(), b.describe()),
    ))
}

/// "`notify()` on `x` wakes one waiter, but {why} (use `notifyAll()`)", with the waiters
/// as related locations.
fn wakes_one(here: &Wakeup, display: &str, waiters: &[Waiter], why: String) -> Diagnostic {
    let message =
        format!("`{}()` on `{display}` wakes one waiter, but {why} (use `{}()`)", here.name, all_of(&here.name));
    Diagnostic {
        file: here.file,
        span: here.span,
        severity: Severity::Warning,
        code: "RL008",
        message,
        related: waiter_related(waiters, None),
    }
}

/// A single wake-up where the waiters wait for conditions on their own arguments: one
/// condition as written, many predicates (each thread waits for its own item).
fn own_predicates(here: &Wakeup, display: &str, waiters: &[Waiter]) -> Option<Diagnostic> {
    let w = waiters.iter().find(|w| w.own_args)?;
    let why = format!(
        "{}, a condition on its own arguments: the waiters wait for different things, and the one woken may not be one this wake-up lets through while another that could go on sleeps",
        w.describe()
    );
    Some(wakes_one(here, display, waiters, why))
}

/// What in the wake-up's method lets several waiters through at once, before the wake-up:
/// a bulk call (`clear()`, `drainTo()`, `addAll()`), or a field the waiters' conditions
/// read reset to a constant (`count = 0`).
fn bulk_release(facts: &FileFacts, wake: &Call, waiters: &[Waiter]) -> Option<String> {
    const BULK: &[&str] = &["clear", "drainTo", "addAll", "removeAll", "removeIf", "retainAll", "putAll"];
    let method = facts.units[wake.unit as usize].method;
    let before =
        |unit: UnitIdx, span: Span| facts.units[unit as usize].method == method && span.start < wake.span.start;
    if let Some(c) = facts
        .calls
        .iter()
        .find(|c| c.kind == CallKind::Method && BULK.contains(&c.name.as_str()) && before(c.unit, c.span))
    {
        return Some(format!("`{}()`", c.name));
    }
    cond_writes_before(facts, wake, waiters).find_map(|a| {
        let rest = facts.text.get(a.span.end as usize..facts.lines.line_end(a.span.line, &facts.text) as usize)?;
        let value = rest.trim_start().strip_prefix('=')?.trim().trim_end_matches(';').trim();
        (value.parse::<i64>().is_ok() || value == "null").then(|| format!("`{} = {value}`", a.name))
    })
}

/// The writes the wake-up's method makes before it of fields the waiters' conditions read.
fn cond_writes_before<'f>(
    facts: &'f FileFacts,
    wake: &Call,
    waiters: &[Waiter],
) -> impl Iterator<Item = &'f crate::java::Access> {
    let method = facts.units[wake.unit as usize].method;
    let start = wake.span.start;
    let conds: Vec<String> = waiters.iter().filter_map(|w| w.cond.clone()).collect();
    facts.accesses.iter().filter(move |a| {
        a.kind == crate::java::AccessKind::Write
            && facts.units[a.unit as usize].method == method
            && a.span.start < start
            && conds.iter().any(|c| has_word(c, &a.name))
    })
}

/// The fields the waiters' conditions read that the wake-up's method writes before it.
fn set_before(facts: &FileFacts, wake: &Call, waiters: &[Waiter]) -> BTreeSet<String> {
    cond_writes_before(facts, wake, waiters).map(|a| a.name.clone()).collect()
}

/// A single wake-up after a change that lets several waiters through at once.
fn several_let_through(here: &Wakeup, display: &str, waiters: &[Waiter], what: &str) -> Option<Diagnostic> {
    let w = waiters.iter().find(|w| w.cond.is_some())?;
    let why = format!(
        "`{}()` lets several through at once ({what}), and {}: the others stay asleep though they could go on",
        here.method,
        w.describe()
    );
    Some(wakes_one(here, display, waiters, why))
}

/// A single wake-up where every waiter waits for a state that, once reached, lets all of
/// them through, and none wakes the next. When the wake-up's method sets fields the
/// waiters' condition reads, the state is those fields: a waiter that consumes another
/// field of its condition (`active++` after `while (!closed && active >= max)`) does not
/// consume `closed = true`, so a `close()` that wakes one of them leaves the others asleep.
fn gate(facts: &FileFacts, wake: &Call, here: &Wakeup, display: &str, waiters: &[Waiter]) -> Option<Diagnostic> {
    let first = waiters.first()?;
    if first.cond.is_none() || waiters.iter().any(|w| w.cond != first.cond) {
        return None;
    }
    let set = set_before(facts, wake, waiters);
    let passes_on = |w: &Waiter| {
        w.wakes_next || if set.is_empty() { !w.consumes.is_empty() } else { !w.consumes.is_disjoint(&set) }
    };
    if waiters.iter().any(passes_on) {
        return None;
    }
    let why = if set.is_empty() {
        format!("every waiter waits for the same change ({}) and none consumes it or wakes the next: the others are never woken", first.describe())
    } else {
        let fields: Vec<String> = set.iter().map(|f| format!("`{f}`")).collect();
        format!(
            "`{}()` changes {}, which lets every waiter through ({}), and none consumes it or wakes the next: the others are never woken",
            here.method,
            fields.join(" and "),
            first.describe()
        )
    };
    Some(wakes_one(here, display, waiters, why))
}

/// The change added a waiter of a second kind to a monitor that something wakes one
/// waiter at a time.
fn second_kind(cx: &Cx, mine: &Waiter, display: &str, key: &str) -> Option<Diagnostic> {
    let waiters = waiters(cx, key);
    let other = waiters.iter().find(|w| differ(mine, w))?;
    let mut wakeups = Vec::new();
    for (file, entry) in cx.index.files_locking(key).filter_map(|f| cx.index.entry(f).map(|e| (f, e))) {
        let facts = &entry.facts;
        for m in entry.resolved.monitor_calls.iter().filter(|m| m.op == MonitorOp::Notify && m.lock.key == key) {
            let call = &facts.calls[m.call as usize];
            if single_wakeup(call) {
                wakeups.push(Wakeup {
                    file,
                    span: call.span,
                    method: facts.method_display(facts.units[call.unit as usize].method),
                    name: call.name.clone(),
                });
            }
        }
    }
    wakeups.sort_by_key(|w| (w.file, w.span.start));
    let first = wakeups.first()?;
    let message = format!(
        "a second kind of waiter on `{display}`: {} and {}, but `{}()` in `{}()` (line {}) wakes only one of them: the one woken may be the wrong kind and the signal is lost (use `{}()`, or one condition per predicate)",
        mine.describe(),
        other.describe(),
        first.name,
        first.method,
        first.span.line,
        all_of(&first.name)
    );
    let mut related: Vec<Related> = wakeups
        .iter()
        .take(MAX_RELATED)
        .map(|w| Related {
            file: w.file,
            span: w.span,
            message: format!("`{}()` in `{}()` wakes one waiter here", w.name, w.method),
        })
        .collect();
    related.extend(waiter_related(&waiters, Some(mine)));
    Some(Diagnostic { file: mine.file, span: mine.span, severity: Severity::Warning, code: "RL008", message, related })
}

/// A wait the change left outside a loop: the base waited in a loop, or this wait under
/// `if` is new.
fn not_in_loop(
    cx: &Cx,
    change: &ChangedFile,
    facts: &FileFacts,
    call: &Call,
    guard: &crate::java::WaitGuard,
    method: &str,
    key: &str,
) -> Option<Diagnostic> {
    let receiver = receiver_display(facts, call);
    let old_guards: Vec<&crate::java::WaitGuard> = match change.old.as_deref() {
        None => Vec::new(),
        Some(old) => old
            .wait_guards
            .iter()
            .filter(|g| {
                let oc = &old.calls[g.call as usize];
                oc.name == call.name
                    && receiver_display(old, oc) == receiver
                    && old.method_display(old.units[oc.unit as usize].method) == method
            })
            .collect(),
    };
    let was_looped = old_guards.iter().find(|g| g.looped);
    // Already unlooped in the base: not the change's doing.
    if was_looped.is_none() && old_guards.iter().any(|g| g.cond == guard.cond) {
        return None;
    }
    // A new bare timed wait is a pause, not a wait for a condition.
    if was_looped.is_none() && guard.cond.is_none() {
        return None;
    }
    let because = match was_looped.and_then(|g| g.cond.as_deref()) {
        Some(c) => format!("; the base waited in `while ({c})`"),
        None if was_looped.is_some() => "; the base waited in a loop".to_string(),
        None => String::new(),
    };
    let message = match (&guard.cond, was_looped.and_then(|g| g.cond.as_deref())) {
        (Some(c), _) => format!(
            "`{}()` under `if`: a spurious wake-up, or a waiter another thread overtook, proceeds though `{c}` may hold again (use `while`){because}",
            call.name
        ),
        (None, Some(c)) => format!(
            "`{}()` outside a loop: a spurious wake-up, or a waiter another thread overtook, proceeds though `{c}` may hold again (wait in `while ({c})`){because}",
            call.name
        ),
        (None, None) => format!("`{}()` outside a loop: a spurious wake-up proceeds though what it waits for may not hold (wait in a `while` loop){because}", call.name),
    };
    let mut related = Vec::new();
    for (file, entry) in cx.index.files_locking(key).filter_map(|f| cx.index.entry(f).map(|e| (f, e))) {
        let f = &entry.facts;
        for m in entry.resolved.monitor_calls.iter().filter(|m| m.op == MonitorOp::Notify && m.lock.key == key) {
            let c = &f.calls[m.call as usize];
            related.push(Related {
                file,
                span: c.span,
                message: format!(
                    "`{}()` in `{}()` wakes waiters here",
                    c.name,
                    f.method_display(f.units[c.unit as usize].method)
                ),
            });
        }
    }
    related.sort_by_key(|r| (r.file, r.span.start));
    related.truncate(MAX_RELATED);
    Some(Diagnostic {
        file: change.file,
        span: call.span,
        severity: Severity::Warning,
        code: "RL008",
        message,
        related,
    })
}
