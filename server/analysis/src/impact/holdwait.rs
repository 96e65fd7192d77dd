//! RL007, a wait made holding a lock that its waker needs (hold and wait): the change made
//! code wait for another thread while it holds a lock, and the code that would end the wait
//! takes that lock first on its way to the wake-up. The waker blocks on the lock, the waiter
//! on the wake-up: a deadlock, or, with a timed wait, a stall until the timeout.
//!
//! - The wait: a `wait()` on another monitor than a held one, or a call, made holding a
//!   lock, to a project method that waits on a monitor or `Condition` of its own
//!   (`gate.awaitDrained()`, `reaper.sweepAndWait()`). `await()` right in the changed method
//!   is not looked at: its condition's lock is usually the one held, which it releases.
//! - Or a wait on a synchronizer, made holding a lock: `join()`/`get()` on a future,
//!   `await()` on a `CountDownLatch`, `acquire()` on a `Semaphore`. It ends when another
//!   thread calls `complete…()`/`cancel()`, `countDown()` or `release()` on an object of
//!   the same *family*: the field that holds it, or the collection field it was taken from
//!   or stored in (`running = loading.putIfAbsent(key, mine)` joins a future of `loading`;
//!   `mine.complete(body)` completes one). The ending call may be in the waiting method
//!   itself: another thread runs it (the single-flight loader).
//! - Or a `join()` on a thread, made holding a lock, where the thread's code (the method
//!   reference or lambda it was made with, or its class's `run()`) takes that lock: the
//!   thread cannot end while the joiner holds it (`stop()` joins the reaper inside
//!   `synchronized (wakeLock)`, and the reaper needs `wakeLock` back to leave its `wait()`).
//!   The thread is found through the field that holds it, where its file creates it.
//! - Made by the change: the wait or the call is on a changed line, or the region holding
//!   the lock changed (a `synchronized` added to the method).
//! - The waker: a method with a `notify()`/`signal()` on the waited monitor that takes the
//!   held lock before it, itself or in a method it calls; or a method that calls such a
//!   waker after taking the lock (`handle()` destroys an expired session, which tells the
//!   synchronized listener, then calls `gate.release()`, which signals `drained`).
//!
//! What a method takes is followed as RL007's lock graph follows it (`lockorder::Graph`);
//! the lock named is the last acquisition before the wake-up, the one a waker that the
//! waiter could already be waiting for still has to pass.

use super::lockorder::{acquisition_span, Graph};
use super::{Cx, Diagnostic, Related, Severity};
use crate::index::{FieldKey, FileId, LockId, MethodRef, MonitorOp, Origin, Resolver};
use crate::java::{AccessKind, Call, CallKind, Expr, FileFacts, MethodIdx, Span, UnitIdx};

/// A synchronizer a thread blocks on until another thread ends the wait.
struct Synchronizer {
    /// Simple names of its types.
    types: &'static [&'static str],
    waits: &'static [&'static str],
    ends: &'static [&'static str],
}

const SYNCHRONIZERS: &[Synchronizer] = &[
    Synchronizer {
        types: &["CompletableFuture", "Future", "CompletionStage", "FutureTask", "ForkJoinTask"],
        waits: &["join", "get"],
        ends: &["complete", "completeExceptionally", "cancel", "obtrudeValue", "obtrudeException"],
    },
    Synchronizer { types: &["CountDownLatch"], waits: &["await"], ends: &["countDown"] },
    Synchronizer { types: &["Semaphore"], waits: &["acquire", "acquireUninterruptibly"], ends: &["release"] },
];

/// Calls that return an element of the collection they are called on.
const TAKES: &[&str] = &[
    "get",
    "getOrDefault",
    "putIfAbsent",
    "computeIfAbsent",
    "compute",
    "computeIfPresent",
    "remove",
    "poll",
    "peek",
    "take",
    "element",
    "pollFirst",
    "peekFirst",
    "getFirst",
];
/// Calls that store their last argument in the collection they are called on.
const STORES: &[&str] =
    &["put", "putIfAbsent", "add", "offer", "push", "addFirst", "addLast", "offerFirst", "offerLast", "set"];

/// A wait the change made while holding `held`.
struct HeldWait {
    file: FileId,
    /// The `wait()` call, or the call to the method that waits.
    span: Span,
    method: String,
    held: LockId,
    /// Where `held` is taken in the waiting method.
    held_at: Span,
    /// The bytes that hold it around the wait.
    held_region: Span,
    /// The waited monitor or condition's key, and how the wait reads (`drained`).
    waited: String,
    waited_display: String,
    /// The method that waits, when it is a callee (`RequestGate.awaitDrained`).
    via: Option<String>,
    /// For a wait on a synchronizer: the calls that end it.
    ends: Option<&'static [&'static str]>,
    /// For a `join()`: the field holding the thread.
    joined: Option<FieldKey>,
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
    /// The ending call as written, for a synchronizer (`mine.complete()`).
    ends_with: Option<String>,
    /// For a joined thread: the file where it is made (`wakes_at` is its creation).
    made_in: Option<FileId>,
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
            // What this call waits on: itself a `wait()`, a synchronizer, or a project
            // method that waits.
            let origin = Origin::Project(change.file);
            let direct = entry
                .resolved
                .monitor_calls
                .iter()
                .find(|m| m.call as usize == i && m.op == MonitorOp::Wait && call.name == "wait");
            let sync = synchronizer_wait(&r, origin, facts, call);
            let joined = thread_join(&r, origin, facts, call);
            let waits: Vec<(String, String, Option<(MethodRef, String)>)> = match (direct, &sync, &joined) {
                (Some(m), _, _) => vec![(m.lock.key.clone(), m.lock.display.clone(), None)],
                (None, Some((_, family)), _) | (None, None, Some(family)) => {
                    vec![(family_key(family), call_text(facts, call), None)]
                }
                (None, None, None) => r
                    .callees(origin, facts, call)
                    .into_iter()
                    .filter_map(|callee| callee_wait(cx, callee).map(|(k, d, name)| (k, d, Some((callee, name)))))
                    .collect(),
            };
            for (waited, waited_display, via) in waits {
                for l in &held {
                    // The waited monitor itself is released by the wait; so is a lock the
                    // waiting callee takes itself (its condition's lock).
                    if l.key == waited || via.as_ref().is_some_and(|(m, _)| takes_itself(cx, *m, &l.key)) {
                        continue;
                    }
                    let Some(region) = holding_region(facts, &entry.resolved.locks, call, &l.key) else { continue };
                    if !(touched(call.span.line)
                        || region.defining.iter().any(|s| change.diff.changes_within(s))
                        || newly_held(change.old.as_deref(), facts, call, &region.text))
                    {
                        continue;
                    }
                    out.push(HeldWait {
                        file: change.file,
                        span: call.span,
                        method: facts.method_display(facts.units[call.unit as usize].method),
                        held: l.clone(),
                        held_at: acquisition_span(facts, region),
                        held_region: region.span,
                        waited: waited.clone(),
                        waited_display: if sync.is_some() || joined.is_some() {
                            waited_display.clone()
                        } else {
                            qualified(&waited, &waited_display)
                        },
                        via: via.as_ref().map(|(_, n)| n.clone()),
                        ends: sync.as_ref().map(|(s, _)| s.ends),
                        joined: joined.clone(),
                    });
                }
            }
        }
    }
    out
}

/// The synchronizer a call waits on, with its family, when it is one.
fn synchronizer_wait(
    r: &Resolver,
    origin: Origin,
    facts: &FileFacts,
    call: &Call,
) -> Option<(&'static Synchronizer, FieldKey)> {
    let recv = call.receiver.as_ref()?;
    let sync = SYNCHRONIZERS
        .iter()
        .find(|s| s.waits.contains(&call.name.as_str()) && r.is_of_type(origin, facts, call.unit, recv, s.types))?;
    Some((sync, family(r, origin, facts, call.unit, recv)?))
}

/// The field holding the thread a `join()` waits for, when the call is one.
fn thread_join(r: &Resolver, origin: Origin, facts: &FileFacts, call: &Call) -> Option<FieldKey> {
    let recv = call.receiver.as_ref()?;
    if call.name != "join" || call.args.len() > 2 || !r.is_of_type(origin, facts, call.unit, recv, &["Thread"]) {
        return None;
    }
    family(r, origin, facts, call.unit, recv)
}

/// The field a synchronizer is reached through: the field that holds it, or the collection
/// field a local holding it was taken from or stored in.
fn family(r: &Resolver, origin: Origin, facts: &FileFacts, unit: UnitIdx, e: &Expr) -> Option<FieldKey> {
    let field = |e: &Expr| r.field_of_expr(origin, facts, unit, e).and_then(|f| r.field_key(f, false));
    match e {
        Expr::Local(l) => {
            let local = &facts.locals[*l as usize];
            if local.reassigned {
                return None;
            }
            match &local.init {
                Some(Expr::Call { receiver: Some(from), name, .. }) if TAKES.contains(&name.as_str()) => field(from),
                Some(init @ (Expr::Name(_) | Expr::Field(..))) => field(init),
                _ => facts
                    .calls
                    .iter()
                    .filter(|c| {
                        local.scope.contains(c.span.start)
                            && STORES.contains(&c.name.as_str())
                            && c.args.last() == Some(&Expr::Local(*l))
                    })
                    .find_map(|c| field(c.receiver.as_ref()?)),
            }
        }
        Expr::Call { receiver: Some(from), name, .. } if TAKES.contains(&name.as_str()) => field(from),
        _ => field(e),
    }
}

fn family_key(f: &FieldKey) -> String {
    format!("sync:{}#{}", f.class, f.name)
}

/// `running.join()` as written, arguments left out.
fn call_text(facts: &FileFacts, c: &Call) -> String {
    let recv: String =
        facts.text_of(Span { start: c.full.start, end: c.span.start, ..c.full }).split_whitespace().collect();
    format!("{recv}{}()", c.name)
}

/// Whether the base version of the call's method made the same call (name and receiver as
/// written) only outside a region of the lock `text`: a brace moved over the call reads as
/// no changed line, yet the change put the wait under the lock.
fn newly_held(old: Option<&FileFacts>, facts: &FileFacts, call: &Call, text: &str) -> bool {
    let Some(old) = old else { return true };
    let method = facts.method_display(facts.units[call.unit as usize].method);
    let same: Vec<&Call> = old
        .calls
        .iter()
        .filter(|c| {
            c.name == call.name
                && call_text(old, c) == call_text(facts, call)
                && old.method_display(old.units[c.unit as usize].method) == method
        })
        .collect();
    !same.is_empty() && same.iter().all(|c| !old.locks_held(c.unit, c.span.start).any(|l| l.text == text))
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
    f.locks
        .iter()
        .zip(&entry.resolved.locks)
        .any(|(region, id)| id.key == key && f.units[region.unit as usize].method == m.idx)
}

/// The outermost region of `call`'s unit holding the lock `key` around the call.
fn holding_region<'f>(
    facts: &'f FileFacts,
    ids: &[LockId],
    call: &Call,
    key: &str,
) -> Option<&'f crate::java::LockRegion> {
    facts
        .locks
        .iter()
        .zip(ids)
        .filter(|(region, id)| id.key == key && region.unit == call.unit && region.span.contains(call.span.start))
        .map(|(region, _)| region)
        .min_by_key(|region| region.span.start)
}

/// A method that takes the held lock before it wakes the waiter: a waker itself, or a
/// caller of one.
fn waker_taking(cx: &Cx, graph: &mut Graph, w: &HeldWait) -> Option<Waker> {
    let index = cx.index;
    let r = index.resolver();
    if let Some(field) = &w.joined {
        return joined_thread_taking(cx, graph, field, &w.held.key);
    }
    // The wake-ups: `notify()`/`signal()` on the waited monitor, or the calls that end a
    // wait on a synchronizer of the family.
    let mut wakeups: Vec<(FileId, usize)> = Vec::new();
    match w.ends {
        None => {
            for file in index.files_locking(&w.waited) {
                let Some(entry) = index.entry(file) else { continue };
                wakeups.extend(
                    entry
                        .resolved
                        .monitor_calls
                        .iter()
                        .filter(|m| m.op == MonitorOp::Notify && m.lock.key == w.waited)
                        .map(|m| (file, m.call as usize)),
                );
            }
        }
        Some(ends) => {
            for name in ends {
                for file in index.files_calling(name) {
                    let Some(entry) = index.entry(file) else { continue };
                    let f = &entry.facts;
                    let origin = Origin::Project(file);
                    let same_family = |c: &Call| {
                        c.receiver
                            .as_ref()
                            .and_then(|recv| family(&r, origin, f, c.unit, recv))
                            .is_some_and(|k| family_key(&k) == w.waited)
                    };
                    wakeups.extend(
                        f.calls
                            .iter()
                            .enumerate()
                            .filter(|(_, c)| c.kind == CallKind::Method && c.name == *name && same_family(c))
                            .map(|(i, _)| (file, i)),
                    );
                }
            }
        }
    }
    for (file, call) in wakeups {
        let Some(entry) = index.entry(file) else { continue };
        let facts = entry.facts.clone();
        let notify = &facts.calls[call];
        let waker = MethodRef { origin: Origin::Project(file), idx: facts.units[notify.unit as usize].method };
        let ends_with = w.ends.map(|_| call_text(&facts, notify));
        // The waiting method on another thread passed the region it waits in before the
        // object it waits for was there to be found (a single-flight registers its
        // future there): only what it takes after that counts.
        let own_region = (file == w.file && facts.method_display(waker.idx) == w.method).then_some(w.held_region);
        if let Some((takes_at, takes_via)) =
            takes_before(graph, file, &facts, waker.idx, notify.span.start, &w.held.key, own_region)
        {
            let method = facts.method_display(waker.idx);
            return Some(Waker {
                file,
                method,
                takes_at,
                takes_via,
                wakes_at: notify.span,
                wakes_via: None,
                ends_with,
                made_in: None,
            });
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
                if let Some((takes_at, takes_via)) =
                    takes_before(graph, caller_file, &cf, caller, call.span.start, &w.held.key, None)
                {
                    let method = cf.method_display(caller);
                    return Some(Waker {
                        file: caller_file,
                        method,
                        takes_at,
                        takes_via,
                        wakes_at: call.span,
                        wakes_via: Some(facts.method_display(waker.idx)),
                        ends_with,
                        made_in: None,
                    });
                }
            }
        }
    }
    None
}

/// A thread kept in `field` whose code takes the lock `key`: it cannot end while the joiner
/// holds the lock. Its code is what the file declaring the field creates it with: a method
/// reference (`new Thread(this::run)`), the methods a lambda calls, or the `run()` of a
/// project subclass of `Thread`.
fn joined_thread_taking(cx: &Cx, graph: &mut Graph, field: &FieldKey, key: &str) -> Option<Waker> {
    let (origin, facts, decl) = super::shared::field_decl(cx.index, field)?;
    let Origin::Project(file) = origin else { return None };
    let r = cx.index.resolver();
    let class = facts.fields[decl as usize].class;
    for made in facts.calls.iter() {
        let CallKind::New { ty, .. } = &made.kind else { continue };
        // A `Thread`, or a project subclass of it (which runs its own `run()`).
        let made_ty = r.ty(origin, Some(Resolver::unit_class(&facts, made.unit)), ty);
        let subclass = made_ty.class().filter(|c| r.is_subtype_of(*c, &["Thread"]));
        if subclass.is_none() && ty.name.rsplit('.').next() != Some("Thread") {
            continue;
        }
        // Stored in the field: assigned to it, directly or through a local.
        let stored = facts.accesses.iter().any(|a| {
            a.kind == AccessKind::Write
                && *a.name == *field.name
                && facts.unit_method(a.unit).class == class
                && match &a.value {
                    Some(Expr::New(_)) => a.span.start < made.full.start && made.full.start - a.span.start < 200,
                    Some(Expr::Local(l)) => {
                        facts.locals[*l as usize].scope.start <= made.full.start
                            && facts.locals[*l as usize].scope.contains(made.full.start)
                            && matches!(facts.locals[*l as usize].init, Some(Expr::New(_)))
                    }
                    _ => false,
                }
        });
        if !stored {
            continue;
        }
        // What the thread runs: methods referenced or called in the creation's arguments.
        let mut runs: Vec<MethodRef> = subclass.map(|c| r.methods_named(c, "run", 0)).unwrap_or_default();
        runs.extend(
            facts
                .calls
                .iter()
                .filter(|c| {
                    (c.full.start > made.full.start && c.full.end <= made.full.end)
                        || made.args.contains(&Expr::Lambda(c.unit))
                })
                .filter(|c| matches!(c.kind, CallKind::Reference | CallKind::Method))
                .flat_map(|c| match c.kind {
                    CallKind::Reference => {
                        facts.methods_named(class, &c.name).into_iter().map(|&idx| MethodRef { origin, idx }).collect()
                    }
                    _ => r.callees(origin, &facts, c),
                }),
        );
        for m in runs {
            if let Some(a) = graph.acquisitions(m, 0).into_iter().find(|a| a.lock.key == key) {
                let method = facts.method_display(m.idx);
                let takes_via = (a.method != method).then(|| a.method.clone());
                return Some(Waker {
                    file: a.file,
                    method,
                    takes_at: a.span,
                    takes_via,
                    wakes_at: made.span,
                    wakes_via: None,
                    ends_with: None,
                    made_in: Some(file),
                });
            }
        }
    }
    None
}

/// Where method `m` takes the lock `key` last before `offset`, outside `skip`: a region of
/// its own, or a call (with its callee's name) that takes it.
fn takes_before(
    graph: &mut Graph,
    file: FileId,
    facts: &FileFacts,
    m: MethodIdx,
    offset: u32,
    key: &str,
    skip: Option<Span>,
) -> Option<(Span, Option<String>)> {
    let skipped = |at: u32| skip.is_some_and(|s| s.contains(at));
    let origin = Origin::Project(file);
    let entry = graph.index().entry(file)?;
    let own = facts
        .locks
        .iter()
        .zip(&entry.resolved.locks)
        .filter(|(region, id)| {
            id.key == key
                && facts.units[region.unit as usize].method == m
                && region.span.start < offset
                && !skipped(region.span.start)
        })
        .map(|(region, _)| (acquisition_span(facts, region), None))
        .max_by_key(|(span, _)| span.start);
    let mut last = own;
    for call in facts
        .calls
        .iter()
        .filter(|c| facts.units[c.unit as usize].method == m && c.span.start < offset && !skipped(c.span.start))
    {
        if last.as_ref().is_some_and(|(span, _): &(Span, Option<String>)| span.start > call.span.start) {
            continue;
        }
        if let Some((callee, _)) =
            graph.call_acquisitions(origin, facts, call, 0).into_iter().find(|(_, a)| a.lock.key == key)
        {
            last = Some((call.span, Some(callee)));
        }
    }
    last
}

fn diagnostic(w: &HeldWait, k: &Waker) -> Diagnostic {
    if let Some(made_in) = k.made_in {
        return join_diagnostic(w, k, made_in);
    }
    let waits = match (&w.via, w.ends) {
        (Some(callee), _) => format!("waits for `{}` (in `{callee}()`)", w.waited_display),
        (None, Some(_)) => format!("waits in `{}`", w.waited_display),
        (None, None) => format!("waits on `{}`", w.waited_display),
    };
    let lock = qualified(&w.held.key, &w.held.display);
    let takes = match &k.takes_via {
        Some(callee) => format!("takes `{lock}` (in `{callee}()`, line {})", k.takes_at.line),
        None => format!("takes `{lock}` (line {})", k.takes_at.line),
    };
    let wakes = match (&k.wakes_via, &k.ends_with) {
        (Some(callee), _) => format!("before it calls `{callee}()`, which wakes it"),
        (None, Some(end)) => format!("before `{end}` ends the wait"),
        (None, None) => "before it wakes it".to_string(),
    };
    // The same method on another thread (a single-flight loader and its followers).
    let waker =
        if k.method == w.method { format!("another call of `{}()`", k.method) } else { format!("`{}()`", k.method) };
    let message = format!(
        "`{}()` {waits} holding `{lock}`, but {waker} {takes} {wakes}: the waker blocks on the lock and the waiter on the wake-up (a deadlock, or a stall until the wait times out)",
        w.method
    );
    let in_callee = k.takes_via.as_ref().map(|c| format!(", in `{c}()`")).unwrap_or_default();
    let related = vec![
        Related { file: w.file, span: w.held_at, message: format!("`{}()` takes `{lock}` here", w.method) },
        Related { file: k.file, span: k.takes_at, message: format!("`{}()` takes `{lock}` here{in_callee}", k.method) },
        Related { file: k.file, span: k.wakes_at, message: "and wakes the waiter here, after it".to_string() },
    ];
    Diagnostic { file: w.file, span: w.span, severity: Severity::Warning, code: "RL007", message, related }
}

/// A `join()` holding a lock the joined thread's code takes.
fn join_diagnostic(w: &HeldWait, k: &Waker, made_in: FileId) -> Diagnostic {
    let lock = qualified(&w.held.key, &w.held.display);
    let takes = match &k.takes_via {
        Some(callee) => format!("which takes `{lock}` (in `{callee}()`, line {})", k.takes_at.line),
        None => format!("which takes `{lock}` (line {})", k.takes_at.line),
    };
    let message = format!(
        "`{}()` waits in `{}` holding `{lock}`, but the thread it joins runs `{}()`, {takes}: that thread cannot end while the joiner holds the lock (a deadlock, or a stall until the join times out)",
        w.method, w.waited_display, k.method
    );
    let in_callee = k.takes_via.as_ref().map(|c| format!(", in `{c}()`")).unwrap_or_default();
    let related = vec![
        Related { file: w.file, span: w.held_at, message: format!("`{}()` takes `{lock}` here", w.method) },
        Related {
            file: k.file,
            span: k.takes_at,
            message: format!("the joined thread takes `{lock}` here{in_callee}"),
        },
        Related {
            file: made_in,
            span: k.wakes_at,
            message: format!("the thread is made here, to run `{}()`", k.method),
        },
    ];
    Diagnostic { file: w.file, span: w.span, severity: Severity::Warning, code: "RL007", message, related }
}

/// A lock as a reader of another class's code needs it: `SessionServer.this`,
/// `RequestGate.drained`.
fn qualified(key: &str, display: &str) -> String {
    match key.split_once('#') {
        Some((class, field)) if !display.contains('.') => {
            format!("{}.{field}", class.rsplit(['.', '$']).next().unwrap_or(class))
        }
        _ => display.to_string(),
    }
}
