//! RL004, check-then-act on a thread-safe collection or an atomic: each call is atomic,
//! two calls are not. `isEmpty()`/`size()`/`peek()` then `poll()`/`remove()`/`take()` on a
//! queue or deque, `containsKey()`/`get()` then `put()`/`remove()` on a concurrent map, an
//! atomic's `get()` then `set()` (or an increment guarded by a `get()` in a condition):
//! another thread can act between the two, and the act works on a stale check.
//!
//! Not reported: both calls under one lock; an act whose result is checked, so that the
//! code notices the other thread (`T x = q.poll(); if (x != null)`, `if (set.remove(k))`,
//! `q.poll() != null`, a result returned to the caller); the single atomic operations
//! (`putIfAbsent`, `compute`, `merge`, `compareAndSet`), which are the fix. After SpotBugs'
//! AT_OPERATION_SEQUENCE_ON_CONCURRENT_ABSTRACTION, for the lines the change touched.

use std::collections::{BTreeMap, BTreeSet};

use super::matching::expr_key;
use super::shared::Sharing;
use super::About;
use super::{ChangedFile, Diagnostic, Related, Severity};
use crate::index::{
    collection_kind, field_collection, is_mutator, takes_key, Collection, Origin, ProjectIndex, Resolver,
};
use crate::java::{Call, CallKind, Expr, FileFacts, UnitIdx};

/// RL004 in the changed lines of one file.
pub(super) fn collect(index: &ProjectIndex, sharing: &Sharing, change: &ChangedFile, out: &mut Vec<About>) {
    let Some(entry) = index.entry(change.file) else { return };
    let facts = &entry.facts;
    let origin = Origin::Project(change.file);
    let r = index.resolver();
    let touched: BTreeSet<u32> = change.diff.touched_lines().collect();
    let mut groups: BTreeMap<(UnitIdx, String), Vec<usize>> = BTreeMap::new();
    for (i, c) in facts.calls.iter().enumerate() {
        if let (CallKind::Method, Some(recv)) = (&c.kind, &c.receiver) {
            groups.entry((c.unit, expr_key(facts, recv))).or_default().push(i);
        }
    }
    for ((unit, recv_key), calls) in groups {
        let recv = facts.calls[calls[0]].receiver.clone().expect("grouped by receiver");
        let Some(kind) = receiver_kind(&r, origin, facts, unit, &recv, sharing, index) else { continue };
        for (x, &i) in calls.iter().enumerate() {
            let check = &facts.calls[i];
            if !is_check(kind, &check.name) {
                continue;
            }
            let same_entry = |act: &Call| same_key(facts, kind, check, act);
            let Some(&j) = calls[x + 1..].iter().find(|&&j| {
                (is_act(kind, check, &facts.calls[j]) && same_entry(&facts.calls[j]))
                    || is_compound_act(kind, &facts.calls[j].name)
            }) else {
                continue;
            };
            let act = &facts.calls[j];
            // The change touches the check, the act, a line between them, or the lines between
            // the act and the first use of its result (where a deleted null check was).
            if touched.range(check.span.line.min(act.span.line)..=result_first_use_line(facts, act)).next().is_none() {
                continue;
            }
            // An increment is an act on the check only when the check is a condition.
            if is_compound_act(kind, &act.name) && !in_condition(facts, check) {
                continue;
            }
            if result_checked(facts, act) {
                continue;
            }
            let l1 = index.locks_at(change.file, unit, check.span.start);
            let l2 = index.locks_at(change.file, unit, act.span.start);
            if l1.iter().any(|a| l2.iter().any(|b| a.excludes(b))) {
                continue;
            }
            let consequence = match kind {
                Receiver::Atomic => "another thread can update it in between and its update is lost".to_string(),
                Receiver::Collection if act.name == "get" => {
                    "another thread can remove the key in between, so `get()` may return null".to_string()
                }
                Receiver::Collection
                    if matches!(
                        act.name.as_str(),
                        "poll" | "pop" | "remove" | "removeFirst" | "removeLast" | "pollFirst" | "pollLast" | "take"
                    ) && check.name != "size" =>
                {
                    format!("another thread can take the element in between, so `{}()` may find nothing", act.name)
                }
                Receiver::Collection => "another thread can change it in between".to_string(),
            };
            out.push(About::new(recv_key.clone(), Diagnostic {
                file: change.file,
                span: act.span,
                severity: Severity::Warning,
                code: "RL004",
                message: format!(
                    "check-then-act on `{recv_key}`: `{}()` (line {}) and `{}()` here are two separate atomic steps; {consequence}",
                    check.name, check.span.line, act.name
                ),
                related: vec![Related { file: change.file, span: check.span, message: format!("the check `{}()`", check.name) }],
            }));
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Receiver {
    Collection,
    Atomic,
}

/// A thread-safe collection or an atomic that other threads can reach.
fn receiver_kind(
    r: &Resolver,
    origin: Origin,
    facts: &FileFacts,
    unit: UnitIdx,
    recv: &Expr,
    sharing: &Sharing,
    index: &ProjectIndex,
) -> Option<Receiver> {
    let ty = r.type_of(origin, facts, unit, recv)?;
    if ty.dims > 0 {
        return None;
    }
    let qualified = r.qualified_name(&ty.name)?;
    let simple = qualified.rsplit('.').next().unwrap_or(&qualified);
    let kind = if qualified.starts_with("java.util.concurrent.atomic.") || simple.starts_with("Atomic") {
        Receiver::Atomic
    } else {
        let declared = collection_kind(&qualified);
        let is_interface = matches!(
            simple,
            "Queue" | "Deque" | "Map" | "Set" | "List" | "Collection" | "BlockingQueue" | "ConcurrentMap"
        );
        let field = r.field_of_expr(origin, facts, unit, recv);
        let actual = field.and_then(|f| field_collection(r, f));
        match (declared, actual) {
            (_, Some(Collection::Unsafe)) => return None, // an unsafe collection races outright (RL001)
            (Some(Collection::ThreadSafe), _) | (_, Some(Collection::ThreadSafe)) => Receiver::Collection,
            _ if is_interface => Receiver::Collection,
            _ => return None,
        }
    };
    // Other threads must be able to reach it: a shared field, or whatever a method returned.
    let reachable = match r.field_of_expr(origin, facts, unit, recv) {
        Some(field) => {
            let key = r.field_key(field, false)?;
            let decl_static = r.field_decl(field).is_some_and(|(f, i)| f.fields[i as usize].is_static);
            decl_static || sharing.escapes(&key.class).is_some()
        }
        None => match recv {
            Expr::Local(l) => {
                facts.locals[*l as usize].init.as_ref().and_then(super::undecided::produced_by_call).is_some()
            }
            Expr::Call { .. } => true,
            _ => false,
        },
    };
    let _ = index;
    reachable.then_some(kind)
}

fn is_check(kind: Receiver, method: &str) -> bool {
    match kind {
        Receiver::Collection => matches!(
            method,
            "isEmpty"
                | "size"
                | "contains"
                | "containsKey"
                | "containsValue"
                | "peek"
                | "peekFirst"
                | "peekLast"
                | "element"
                | "getFirst"
                | "getLast"
                | "get"
                | "remainingCapacity"
        ),
        Receiver::Atomic => matches!(method, "get" | "getPlain" | "getAcquire" | "intValue" | "longValue"),
    }
}

/// A call that acts on what `check` found: a mutation (not one of the conditional atomic
/// ones, `remove(key, value)` and `replace(key, old, new)` included), or a `get()` that
/// relies on `containsKey()` having found the key.
fn is_act(kind: Receiver, check: &Call, act: &Call) -> bool {
    let method = act.name.as_str();
    match kind {
        Receiver::Collection if method == "get" => check.name == "containsKey",
        Receiver::Collection => {
            let conditional =
                (method == "remove" && act.args.len() == 2) || (method == "replace" && act.args.len() == 3);
            is_mutator(method)
                && !conditional
                && !matches!(
                    method,
                    "putIfAbsent" | "computeIfAbsent" | "computeIfPresent" | "compute" | "merge" | "replace"
                )
        }
        Receiver::Atomic => matches!(method, "set" | "lazySet" | "setPlain" | "setRelease"),
    }
}

/// Whether a keyed check and a keyed act work on the same entry, as far as the code says:
/// `containsKey(k)` then `remove(k)` do, `containsKey("a")` then `remove("b")` do not (each
/// key is its own state, issue 21 item 1). A check or an act on the whole collection
/// (`isEmpty()`, `poll()`) goes with any.
fn same_key(facts: &FileFacts, kind: Receiver, check: &Call, act: &Call) -> bool {
    if kind != Receiver::Collection || !takes_key(&check.name) || !takes_key(&act.name) {
        return true;
    }
    match (check.args.first(), act.args.first()) {
        (Some(a), Some(b)) => expr_key(facts, a) == expr_key(facts, b),
        _ => true,
    }
}

/// Atomic updates that act on a value checked before: `if (n.get() < max) n.incrementAndGet()`.
fn is_compound_act(kind: Receiver, method: &str) -> bool {
    kind == Receiver::Atomic
        && matches!(
            method,
            "incrementAndGet" | "getAndIncrement" | "addAndGet" | "getAndAdd" | "decrementAndGet" | "getAndDecrement"
        )
}

/// Whether a call is (part of) the condition of an `if`, `while` or `?:`.
fn in_condition(facts: &FileFacts, call: &Call) -> bool {
    let prefix = statement_prefix(facts, call);
    prefix.contains("if (")
        || prefix.contains("if(")
        || prefix.contains("while (")
        || prefix.contains("while(")
        || facts
            .text_of(following(facts, call, 40))
            .trim_start()
            .starts_with(|c| matches!(c, '<' | '>' | '=' | '!' | '?'))
}

/// Whether the code looks at the act's result, and so notices when another thread acted
/// first: the call in a condition or compared at once, returned, or assigned to a local
/// that is later compared with `null` or tested; never when the result is dereferenced at
/// once.
fn result_checked(facts: &FileFacts, act: &Call) -> bool {
    let prefix = statement_prefix(facts, act);
    let after = facts.text_of(following(facts, act, 40)).trim_start();
    // `map.get(k).charge()`: dereferenced at once, whatever the statement does with it, so
    // another thread's removal is a NullPointerException, not something the code notices.
    if after.starts_with('.') {
        return false;
    }
    if after.starts_with("!=")
        || after.starts_with("==")
        || prefix.trim_start().starts_with("return")
        || in_condition(facts, act)
    {
        return true;
    }
    // `T x = q.poll();` or `x = q.poll();`: then `x != null`, `x == null`, `if (x)`, `!x`.
    let Some(local) = result_local(facts, act) else { return false };
    let Some(rest) = rest_of_method(facts, act) else { return false };
    [
        format!("{local} != null"),
        format!("{local} == null"),
        format!("null != {local}"),
        format!("null == {local}"),
        format!("if ({local})"),
        format!("!{local}"),
        format!("isNull({local})"),
        format!("nonNull({local})"),
        format!("ofNullable({local})"),
    ]
    .iter()
    .any(|pattern| contains_word(rest, pattern))
}

/// The local the act's result is assigned to: `x` in `T x = q.poll();` or `x = q.poll();`.
fn result_local<'f>(facts: &'f FileFacts, act: &Call) -> Option<&'f str> {
    let prefix = statement_prefix(facts, act);
    let local =
        prefix.trim_end().strip_suffix('=')?.trim_end().rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next()?;
    (!local.is_empty()).then_some(local)
}

/// The text of the act's method after the act.
fn rest_of_method<'f>(facts: &'f FileFacts, act: &Call) -> Option<&'f str> {
    let method = facts.method_at(act.full.start)?;
    let body_end = facts.methods[method as usize].span.end;
    Some(facts.text_of(crate::java::Span { start: act.full.end, end: body_end, ..act.full }))
}

/// The line of the first use of the local holding the act's result (the act's own line
/// when there is none): a change between the act and that use (deleting `if (x == null)
/// break;`, as in DIRMINA-803) is a change to the check-then-act.
fn result_first_use_line(facts: &FileFacts, act: &Call) -> u32 {
    let (Some(local), Some(rest)) = (result_local(facts, act), rest_of_method(facts, act)) else {
        return act.span.line;
    };
    let name = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let first_use = rest
        .match_indices(local)
        .map(|(i, _)| i)
        .find(|&i| !name(rest[..i].chars().next_back()) && !name(rest[i + local.len()..].chars().next()));
    match first_use {
        Some(i) => act.full.end_line + rest[..i].matches('\n').count() as u32,
        None => act.span.line,
    }
}

/// `pattern` in `text`, not inside a longer name, nor followed by a member access
/// (`!order.isDone()` tests the order, not the result).
fn contains_word(text: &str, pattern: &str) -> bool {
    text.match_indices(pattern).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + pattern.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        !(word(before) && pattern.starts_with(|c: char| c.is_alphanumeric()))
            && !(word(after) && pattern.ends_with(|c: char| c.is_alphanumeric()))
    })
}

/// The text of the call's statement before the call: from the last `;`, `{` or `}`.
fn statement_prefix<'f>(facts: &'f FileFacts, call: &Call) -> &'f str {
    let before = facts.text.get(..call.full.start as usize).unwrap_or("");
    let start = before.rfind([';', '{', '}']).map_or(0, |i| i + 1);
    &before[start..]
}

/// Up to `len` bytes after the call.
fn following(facts: &FileFacts, call: &Call, len: u32) -> crate::java::Span {
    let end = (call.full.end + len).min(facts.text.len() as u32);
    crate::java::Span { start: call.full.end, end, ..call.full }
}
