//! RL009, publication order: the change moved a *release* before a write that another
//! thread reads after the matching *acquire*, so that thread can read the old value, or
//! see an object before it is filled.
//!
//! One thread's write is ordered before another thread's read only by a chain of the
//! happens-before edges of JLS 17.4.5: program order within each thread, then an unlock
//! of a monitor before every later lock of it, a volatile write before every later read
//! of the field, `Thread.start()` before every action of the started thread, and the
//! edges `java.util.concurrent` documents as "memory consistency effects": `countDown()`
//! before a return from `await()`, `release()` before `acquire()`, `submit()`/`execute()`
//! before the task runs, `complete()`/`set()` on a future before a return from `get()` or
//! `join()` and before its dependent stages. A write that comes *after* the release in
//! program order is on no such chain: the reader released by it can read the old value.
//!
//! Reported, when the change made it (the base version of the method had no release of
//! the same object before a write of the same field, in one body and on one path):
//! - a `countDown()`, `release()`, `complete()`/`set()`, `start()`, `submit()`/`execute()`
//!   or volatile write followed, in the same body and on the same path, by a write of a
//!   field (or of the elements of an unsafe collection or array it holds) that another
//!   body reads after the matching acquire: `await()` on the same latch, `acquire()` on
//!   the same semaphore, `get()`/`join()` or a `then…` callback of the same future, a read
//!   of the same volatile field of the same object before it, or the started task's own
//!   code (its lambda, its `run()`/`call()` or method reference, and the methods of its
//!   class those call directly). A read with no acquire before it counts when a method of
//!   its class is a gate: it waits and returns reading nothing more (`awaitReady()`), so
//!   its callers read on after the acquire; and, for a future the class hands out through
//!   a public accessor (`outcome()`), in its public methods: callers join the future and
//!   then ask (`job.outcome().join(); job.state()`), a lock those methods take ordering
//!   nothing with a write that comes after the completion;
//! - the value handed to `complete()` changed after it (`future.complete(result);
//!   result.setTotal(…)`): whoever gets it from the future, in the project or not, can see
//!   it half-built;
//! - a write the change moved out of a `synchronized` block or `lock()`…`unlock()` region
//!   (itself, or a call there that made it) to after its end, after its
//!   `notify()`/`signal()` too, where other code reads the field holding that lock; the
//!   warning stands on the write, and replaces RL001/RL002 on it;
//! - a write (volatile too) the change moved past a wake-up: the base made it before the
//!   region's `notify()`/`signal()`, now it comes after; read by code woken from the
//!   matching wait, or by a caller of the waiting method after it returns (`sweepAndWait()
//!   ? reaper.lastReport() : null`), itself or through a method reading the field: the
//!   woken thread goes on at once, and volatile orders nothing it reads before the write;
//! - unsafe lazy publication: a volatile reference, or one assigned under a lock, assigned
//!   a new object that is then filled through the field (`map = new HashMap<>();
//!   map.put(…)`) where the base did not, read elsewhere without the writer's lock: such a
//!   reader can see the object empty or half-filled (volatile orders the assignment only).
//!
//! Not reported: writes to locals, to `final` or volatile fields (a volatile write
//! publishes itself, except past a wake-up), atomics and thread-safe collections (their own operations
//! publish); a volatile write of `null` (it publishes nothing); fields no other body
//! reads after the acquire; reads holding a lock the write holds (the lock orders them),
//! or, for lazy publication, made after the reader took the writer's lock itself; a write
//! a later release of the same object still precedes (for a started thread, any later
//! release: it may wait for that one); a write that may be on another path than the
//! release (a `return`, `throw`, `break`, `continue` ending the release's block, or an
//! `else`, `case` or `catch` between them); an order the base had already; a write newly
//! added after an `unlock()` (not moved out of it: RL001's); code that runs before the
//! object is shared (constructors, initializers, `readObject()`, `clone()`). An acquire
//! in a caller is seen only through a gate. Only releases in the changed bodies are
//! looked at; their readers are found through the index by the written field.

use std::cell::OnceCell;
use std::collections::{BTreeSet, HashMap};

use super::matching::method_map;
use super::{point_span, ChangedFile, Cx, Diagnostic, Related, Severity};
use crate::index::{
    collection_kind, is_mutator, locks, ClassRef, Collection, FieldKey, FileId, LockId, MethodRef, MonitorOp, Origin,
    Resolver, Site,
};
use crate::java::{
    expr_key, AccessKind, Call, CallKind, Expr, FileFacts, LockKind, LockRegion, MethodIdx, MethodKind, Span, UnitIdx,
};

/// How many writes and readers a diagnostic lists as related locations.
const MAX_RELATED: usize = 5;

/// Which acquire pairs with a release, so which reads it orders the writes before.
enum Edge {
    /// `countDown()`, paired with `await()` on the latch.
    Latch(String),
    /// `release()`, paired with `acquire()` on the semaphore.
    Permit(String),
    /// `complete()`/`set()`, paired with `get()`/`join()` or a dependent stage. `exposed`:
    /// the public accessor that hands the future to callers (`outcome()`), when it has one.
    Future { key: String, exposed: Option<String> },
    /// A volatile write, paired with a read of the field; it guards the fields of the
    /// object it is written on (`owner`, as `owner()` writes it).
    Volatile { field: FieldKey, owner: String },
    /// The end of a lock region (its `notify()`/`signal()` when it has one), paired with
    /// holding the lock.
    Lock { key: String, text: String, kind: LockKind, wakeup: Option<String> },
    /// `start()`/`submit()`: the started code reads after it.
    Task { code: Task, started: &'static str },
    /// A reference field assigned a new object, read elsewhere without the writer's locks.
    Publish { field: FieldKey, locks: Vec<LockId>, object: String },
    /// A value stored in a thread-safe collection or atomic reference a field holds
    /// (`jobs.put(id, job)`, `queue.offer(job)`, `current.set(batch)`): whoever takes it
    /// out is ordered after the store only.
    HandOff,
}

/// A local whose object a release hands to other threads (`lastReport = report;`,
/// `future.complete(result)`, `queue.offer(job)`), and where they take it from.
struct Handed {
    local: crate::java::LocalIdx,
    /// `the future (get(), join(), a dependent stage)`, `` `lastReport` ``, `` `jobs` ``
    from: String,
}

struct Release {
    edge: Edge,
    unit: UnitIdx,
    /// Writes after this offset follow the release.
    at: u32,
    span: Span,
    /// `ready.countDown()`
    display: String,
    base: BaseRelease,
    /// The object it hands over, when it is a local's.
    handed: Option<Handed>,
}

/// A release as the base version is searched for it, by what is written.
#[derive(Clone, PartialEq, Eq)]
enum BaseRelease {
    Call {
        name: String,
        recv: String,
    },
    Write {
        name: String,
        recv: String,
    },
    /// A lock region of this text; `waking`: one with a `notify()`/`signal()` in it.
    Region {
        text: String,
        waking: bool,
    },
}

/// A write as the base version is searched for it.
#[derive(Clone, PartialEq, Eq)]
enum BaseWrite {
    /// `name = …`, `recv.name = …`, `name[i] = …`.
    Field { name: String, element: bool },
    /// A mutator call on the collection a field holds (`recv.add(…)`).
    Mutator { recv: String },
    /// Anything that fills the object the field holds.
    Fill(String),
}

/// The code a thread or executor runs.
#[derive(Default)]
struct Task {
    /// Lambda bodies (the lambdas inside them too).
    units: BTreeSet<(FileId, UnitIdx)>,
    /// Methods that run as the task.
    methods: BTreeSet<(FileId, MethodIdx)>,
}

/// A write after a release, with what the message says of it.
struct Write {
    span: Span,
    field: FieldKey,
    /// `result`, `items[]`, `results.add()`
    label: String,
    via: Option<String>,
    base: BaseWrite,
}

/// A read of a written field that the release should have ordered the write before.
struct Reader {
    file: FileId,
    span: Span,
    method: String,
    field: String,
    /// The acquire before it, as written (`ready.await()`), when it has one.
    acquire: Option<String>,
    /// Woken from a `wait()`/`await()` on the notified monitor.
    woken: bool,
    /// The method of its class that makes the acquire for it (`awaitReady()`), when the
    /// read itself has none before it.
    gate: Option<String>,
    /// A public method a caller can call after it joined the future the class hands out
    /// (`job.outcome().join(); job.state()`): the acquire is the caller's.
    client: bool,
}

/// One changed file, with what the pass needs of it.
struct Here<'a> {
    cx: &'a Cx<'a>,
    change: &'a ChangedFile,
    facts: &'a FileFacts,
    sites: &'a [Site],
    /// The canonical lock of each lock region of the file.
    locks: &'a [LockId],
    r: Resolver<'a>,
    origin: Origin,
    touched: BTreeSet<u32>,
    /// New method -> base method, built when a candidate needs it.
    base_methods: OnceCell<HashMap<MethodIdx, MethodIdx>>,
}

pub(crate) fn collect(cx: &Cx, out: &mut Vec<Diagnostic>) {
    for change in &cx.changes.files {
        let Some(entry) = cx.index.entry(change.file) else { continue };
        let touched: BTreeSet<u32> = change.diff.touched_lines().collect();
        if touched.is_empty() && change.old.is_some() {
            continue;
        }
        let facts = &entry.facts;
        let units: BTreeSet<UnitIdx> = (0..facts.units.len() as UnitIdx)
            .filter(|&u| {
                let s = facts.units[u as usize].span;
                change.old.is_none() || touched.range(s.line..=s.end_line).next().is_some()
            })
            .collect();
        if units.is_empty() {
            continue;
        }
        let here = Here {
            cx,
            change,
            facts,
            sites: &entry.resolved.sites,
            locks: &entry.resolved.locks,
            r: cx.index.resolver(),
            origin: Origin::Project(change.file),
            touched,
            base_methods: OnceCell::new(),
        };
        let releases = releases(&here, &units);
        for rel in &releases {
            let d = match &rel.edge {
                Edge::Publish { .. } => publish(&here, rel),
                Edge::HandOff => handed_over(&here, rel),
                _ => release_then_write(&here, rel, &releases).or_else(|| handed_over(&here, rel)),
            };
            if let Some(d) = d {
                // Two hand-overs before one setter (`map.put(k, job); queue.offer(job);
                // job.setId(…)`) name the same changed line: one warning is enough.
                if out.iter().any(|o| o.code == "RL009" && o.file == d.file && o.span == d.span) {
                    continue;
                }
                // The same write as a data race (RL001) or as moved out of its lock (RL002):
                // this says why it is one, and where the reader is; one warning is enough.
                out.retain(|o| !(matches!(o.code, "RL001" | "RL002") && o.file == d.file && o.span == d.span));
                out.push(d);
            }
        }
    }
}

impl Here<'_> {
    fn touches(&self, span: Span) -> bool {
        self.change.old.is_none() || self.touched.contains(&span.line)
    }

    fn method_of(&self, unit: UnitIdx) -> MethodIdx {
        self.facts.units[unit as usize].method
    }

    /// The base version of a method of this file, if it had one.
    fn base_method(&self, unit: UnitIdx) -> Option<(&FileFacts, MethodIdx)> {
        let old = self.change.old.as_deref()?;
        let map = self.base_methods.get_or_init(|| method_map(old, self.facts));
        let m = *map.get(&self.facts.units[unit as usize].method)?;
        Some((old, m))
    }

    fn key_of(&self, unit: UnitIdx, e: &Expr) -> String {
        locks::lock_of_expr(&self.r, self.origin, self.facts, unit, e, "").key
    }

    /// The simple name of an expression's type, when it is known.
    fn type_simple(&self, unit: UnitIdx, e: &Expr) -> Option<String> {
        let ty = self.r.type_of(self.origin, self.facts, unit, e)?;
        let q = self.r.qualified_name(&ty.name)?;
        Some(q.rsplit(['.', '$']).next().unwrap_or(&q).to_string())
    }

    fn is_type(&self, unit: UnitIdx, e: &Expr, names: &[&str]) -> bool {
        self.r.is_of_type(self.origin, self.facts, unit, e, names)
    }
}

/// The releases in the changed bodies of a file.
fn releases(here: &Here, units: &BTreeSet<UnitIdx>) -> Vec<Release> {
    let facts = here.facts;
    let mut out = Vec::new();
    for c in &facts.calls {
        if c.kind != CallKind::Method || !units.contains(&c.unit) {
            continue;
        }
        let recv = c.receiver.clone().unwrap_or(Expr::This);
        let local_arg = |i: usize| single_object_local(facts, c.args.get(i));
        let mut handed = None;
        let edge = match (c.name.as_str(), c.args.len()) {
            ("countDown", 0) if here.type_simple(c.unit, &recv).is_none_or(|t| t == "CountDownLatch") => {
                Edge::Latch(here.key_of(c.unit, &recv))
            }
            ("release", 0 | 1) if here.is_type(c.unit, &recv, &["Semaphore"]) => {
                Edge::Permit(here.key_of(c.unit, &recv))
            }
            ("complete" | "completeExceptionally" | "set" | "setException" | "obtrudeValue", 1)
                if is_future(here, c.unit, &recv) =>
            {
                handed = local_arg(0)
                    .map(|local| Handed { local, from: "the future (`get()`, `join()`, a dependent stage)".into() });
                Edge::Future { key: here.key_of(c.unit, &recv), exposed: future_accessor(facts, c.unit, &recv) }
            }
            (name, n @ 1..=2)
                if HAND_OFFS.contains(&name)
                    && local_arg(n - 1).is_some()
                    && thread_safe_field(here, c.unit, &recv) =>
            {
                handed =
                    local_arg(n - 1).map(|local| Handed { local, from: format!("`{}`", recv_key(facts, Some(&recv))) });
                Edge::HandOff
            }
            ("start", 0) if here.is_type(c.unit, &recv, &["Thread"]) => {
                Edge::Task { code: close_over_calls(here, thread_code(here, c, &recv)), started: "the started thread" }
            }
            ("submit" | "execute", 1) if is_executor(here, c.unit, &recv) => {
                Edge::Task { code: close_over_calls(here, task_code(here, &c.args[0], c)), started: "the task" }
            }
            ("runAsync" | "supplyAsync", 1 | 2)
                if here.type_simple(c.unit, &recv).as_deref() == Some("CompletableFuture") =>
            {
                Edge::Task { code: close_over_calls(here, task_code(here, &c.args[0], c)), started: "the task" }
            }
            _ => continue,
        };
        if matches!(&edge, Edge::Task { code, .. } if code.units.is_empty() && code.methods.is_empty()) {
            continue;
        }
        out.push(Release {
            edge,
            unit: c.unit,
            at: c.full.end,
            span: c.span,
            display: call_display(facts, c),
            base: BaseRelease::Call { name: c.name.clone(), recv: recv_key(facts, c.receiver.as_ref()) },
            handed,
        });
    }
    for site in here
        .sites
        .iter()
        .filter(|s| s.via.is_none() && !s.field.element && s.kind == AccessKind::Write && units.contains(&s.unit))
    {
        if constructing(here.facts, site.unit) || site.decl.is_final {
            continue; // constructors and initializers publish nothing yet
        }
        let a = &facts.accesses[site.item as usize];
        let base = BaseRelease::Write { name: a.name.clone(), recv: recv_key(facts, a.receiver.as_ref()) };
        // Writing `null` unlinks or clears: it publishes nothing.
        if site.decl.is_volatile && !facts.assigns_null(site.span) {
            let handed = single_object_local(facts, a.value.as_ref())
                .map(|local| Handed { local, from: format!("`{}`", site.field.name) });
            out.push(Release {
                edge: Edge::Volatile { field: site.field.clone(), owner: owner(facts, site) },
                unit: site.unit,
                at: statement_end(facts, site.span.end),
                span: site.span,
                display: statement_display(facts, site.span)
                    .unwrap_or_else(|| format!("the volatile write of `{}`", site.field.name)),
                base: base.clone(),
                handed,
            });
        }
        if let Some(Expr::New(t)) = &a.value {
            let ty = here.r.ty(here.origin, Some(Resolver::unit_class(facts, site.unit)), t);
            let qualified = here.r.qualified_name(&ty.name).unwrap_or_default();
            if qualified.starts_with("java.util.concurrent")
                || collection_kind(&qualified) == Some(Collection::ThreadSafe)
            {
                continue;
            }
            // A publication idiom: a volatile reference, or one assigned under a lock that
            // its readers skip. A plain field no lock guards was no safer before.
            let locks = here.cx.index.locks_at(here.change.file, site.unit, site.span.start);
            let idiom = site.decl.is_volatile || !locks.is_empty();
            if !idiom || !here.cx.sharing.is_shared(here.cx.index, here.change.file, site) {
                continue;
            }
            let simple =
                format!("{}{}", t.name.rsplit('.').next().unwrap_or(&t.name), "[]".repeat(t.array_dims as usize));
            out.push(Release {
                edge: Edge::Publish { field: site.field.clone(), locks, object: simple },
                unit: site.unit,
                at: statement_end(facts, site.span.end),
                span: site.span,
                display: statement_display(facts, site.span)
                    .unwrap_or_else(|| assignment_display(facts, site.span, a.unit)),
                base,
                handed: None,
            });
        }
    }
    for (region, id) in facts.locks.iter().zip(here.locks) {
        if region.kind == LockKind::SynchronizedMethod || !units.contains(&region.unit) {
            continue;
        }
        // The last wake-up in the region, if any: the waiters it wakes read next.
        let wakeup = last_wakeup(facts, region);
        let (span, display) = match (wakeup, region.kind) {
            (Some(w), _) => (w.span, call_display(facts, w)),
            (None, LockKind::Explicit) => {
                let unlock = facts
                    .calls
                    .iter()
                    .find(|c| c.unit == region.unit && c.full.start == region.span.end && c.name == "unlock");
                (
                    unlock.map_or(point_span(region.span.end, region.span.end_line), |c| c.span),
                    format!("`{}.unlock()`", region.text),
                )
            }
            (None, _) => (
                point_span(region.span.end.saturating_sub(1), region.span.end_line),
                format!("the end of `synchronized ({})`", region.text),
            ),
        };
        let waking = wakeup.is_some();
        let wakeup = wakeup.map(|w| here.key_of(w.unit, w.receiver.as_ref().unwrap_or(&Expr::This)));
        out.push(Release {
            edge: Edge::Lock { key: id.key.clone(), text: region.text.clone(), kind: region.kind, wakeup },
            unit: region.unit,
            at: region.span.end,
            span,
            display,
            base: BaseRelease::Region { text: region.text.clone(), waking },
            handed: None,
        });
    }
    out
}

/// The last `notify()`/`signal()` in a lock region: the waiters it wakes read next.
fn last_wakeup<'f>(facts: &'f FileFacts, region: &LockRegion) -> Option<&'f Call> {
    facts.calls.iter().rfind(|c| {
        c.unit == region.unit
            && region.span.contains(c.span.start)
            && c.kind == CallKind::Method
            && c.args.is_empty()
            && matches!(c.name.as_str(), "notify" | "notifyAll" | "signal" | "signalAll")
    })
}

fn is_executor(here: &Here, unit: UnitIdx, recv: &Expr) -> bool {
    match here.r.type_of(here.origin, here.facts, unit, recv) {
        Some(ty) => match ty.class() {
            Some(c) => here.r.is_subtype_of(c, &["Executor", "ExecutorService"]),
            None => here.r.qualified_name(&ty.name).is_some_and(|q| {
                let simple = q.rsplit(['.', '$']).next().unwrap_or(&q);
                simple.contains("Executor") || simple == "ForkJoinPool"
            }),
        },
        None => false,
    }
}

/// A local never assigned again: it names one object all along, so what is done through it
/// after a hand-over is done to the object handed over.
fn single_object_local(facts: &FileFacts, e: Option<&Expr>) -> Option<crate::java::LocalIdx> {
    match e {
        Some(Expr::Local(l)) if !facts.locals[*l as usize].reassigned => Some(*l),
        _ => None,
    }
}

/// The calls that store their last argument in a thread-safe collection or an atomic
/// reference, where another thread can take it out.
const HAND_OFFS: &[&str] = &[
    "put",
    "putIfAbsent",
    "offer",
    "offerFirst",
    "offerLast",
    "add",
    "addFirst",
    "addLast",
    "push",
    "transfer",
    "tryTransfer",
    "set",
    "lazySet",
    "setRelease",
    "getAndSet",
];

/// `recv` is a field holding a thread-safe collection or an atomic reference
/// (`java.util.concurrent…`, `Collections.synchronized…`, `CopyOnWrite…`).
fn thread_safe_field(here: &Here, unit: UnitIdx, recv: &Expr) -> bool {
    if here.r.field_of_expr(here.origin, here.facts, unit, recv).is_none() {
        return false;
    }
    let Some(ty) = here.r.type_of(here.origin, here.facts, unit, recv) else { return false };
    let q = here.r.qualified_name(&ty.name).unwrap_or_default();
    q.starts_with("java.util.concurrent") || collection_kind(&q) == Some(Collection::ThreadSafe)
}

fn is_future(here: &Here, unit: UnitIdx, recv: &Expr) -> bool {
    let futures = ["CompletableFuture", "FutureTask", "SettableFuture", "AbstractFuture", "Promise", "CompletionStage"];
    match recv {
        Expr::This => here
            .r
            .is_subtype_of(ClassRef { origin: here.origin, idx: Resolver::unit_class(here.facts, unit) }, &futures),
        _ => here.type_simple(unit, recv).is_some_and(|t| t.contains("Future") || t.contains("Promise")),
    }
}

/// `ready.countDown()` as written, arguments left out.
fn call_display(facts: &FileFacts, c: &Call) -> String {
    let prefix: String =
        facts.text_of(Span { start: c.full.start, end: c.span.start, ..c.full }).split_whitespace().collect();
    let prefix = if prefix.chars().count() > 40 { "…".to_string() } else { prefix };
    let prefix = if c.receiver.is_some() && !prefix.ends_with('.') && !prefix.is_empty() {
        format!("{prefix}.")
    } else {
        prefix
    };
    format!("`{prefix}{}()`", c.name)
}

/// `byCode = new HashMap<>()` as written, when short.
fn assignment_display(facts: &FileFacts, name: Span, unit: UnitIdx) -> String {
    let new = facts
        .calls
        .iter()
        .find(|c| c.unit == unit && matches!(c.kind, CallKind::New { .. }) && c.full.start > name.start);
    let end = new.map_or(name.end, |c| c.full.end);
    let text: Vec<&str> = facts.text_of(Span { start: name.start, end, ..name }).split_whitespace().collect();
    let text = text.join(" ");
    if text.chars().count() <= 60 {
        format!("`{text}`")
    } else {
        format!("`{} = new …`", facts.text_of(name))
    }
}

/// `ready = true` as written, when the statement is one short line.
fn statement_display(facts: &FileFacts, name: Span) -> Option<String> {
    let start = facts.first_code_offset(name.line);
    let end = facts.lines.line_end(name.line, &facts.text);
    // The statement starts with the field (`this.ready`, `cfg.ready`), not in an `if`.
    let before = facts.text.get(start as usize..name.start as usize)?;
    if !before.chars().all(|c| c.is_alphanumeric() || c == '.' || c == '_') {
        return None;
    }
    let line = facts.text.get(start as usize..end as usize)?;
    // A comment after the statement (`ready = true; // accept requests`) is not shown.
    let line = match line.find("//") {
        Some(i) if !line[..i].contains('"') => &line[..i],
        _ => line,
    };
    let statement = line.trim_end().strip_suffix(';')?;
    (statement.contains('=') && !statement.contains(';') && statement.chars().count() <= 60)
        .then(|| format!("`{statement}`"))
}

/// Where the statement around `from` ends (its `;`, or the end of its block): writes in
/// the value assigned (`a = b = x`) run before the assignment.
fn statement_end(facts: &FileFacts, from: u32) -> u32 {
    let first = facts.tokens.partition_point(|t| t.start < from);
    let mut depth = 0i32;
    for t in &facts.tokens[first..] {
        match facts.token_text(t) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" if depth == 0 => return t.start,
            ")" | "]" | "}" => depth -= 1,
            ";" | "," if depth == 0 => return t.end,
            _ => {}
        }
    }
    from
}

/// Whether code of `unit` took the lock `key` before `offset` in a region that is no
/// branch's (a `synchronized` statement or `lock()` right in the body): whatever it reads
/// after that is ordered after the writes made holding the lock.
fn locked_before(index: &crate::index::ProjectIndex, file: FileId, unit: UnitIdx, offset: u32, key: &str) -> bool {
    let Some(e) = index.entry(file) else { return false };
    let facts = &e.facts;
    let body = facts.units[unit as usize].span.start;
    facts.locks.iter().zip(e.resolved.locks.iter()).any(|(region, id)| {
        region.unit == unit && region.span.end <= offset && id.key == key && {
            let first = facts.tokens.partition_point(|t| t.start < body);
            let depth: i32 = facts.tokens[first..]
                .iter()
                .take_while(|t| t.start < region.span.start)
                .map(|t| match facts.token_text(t) {
                    "{" => 1,
                    "}" => -1,
                    _ => 0,
                })
                .sum();
            depth <= 1
        }
    })
}

/// Code that runs before the object can be shared: constructors, initializers, and
/// deserialization and cloning hooks.
fn constructing(facts: &FileFacts, unit: UnitIdx) -> bool {
    let m = facts.unit_method(unit);
    m.kind != MethodKind::Method
        || matches!(m.name.as_str(), "readObject" | "readObjectNoData" | "readResolve" | "clone")
}

/// The object a site's field belongs to, as its method writes it (`` for `this`): for a
/// collection call, the object holding the collection.
fn owner(facts: &FileFacts, site: &Site) -> String {
    let receiver = match site.via {
        None => facts.accesses[site.item as usize].receiver.as_ref(),
        Some(_) => match &facts.calls[site.item as usize].receiver {
            Some(Expr::Field(o, _)) => Some(&**o),
            Some(Expr::Name(_)) | None => None,
            Some(_) => return "?".into(),
        },
    };
    recv_key(facts, receiver)
}

/// A receiver as the base version is searched for it: `this.x` is `x`.
fn recv_key(facts: &FileFacts, e: Option<&Expr>) -> String {
    match e {
        None | Some(Expr::This) => String::new(),
        Some(e) => {
            let k = expr_key(facts, e);
            k.strip_prefix("this.").map(str::to_string).unwrap_or(k)
        }
    }
}

// ----- a release, then a write another thread reads after the acquire ---------------------

fn release_then_write(here: &Here, rel: &Release, all: &[Release]) -> Option<Diagnostic> {
    let facts = here.facts;
    let mut writes: Vec<Write> = Vec::new();
    // A wake-up orders nothing a volatile write makes after it: the woken thread reads on
    // at once.
    let woken_read = matches!(rel.edge, Edge::Lock { wakeup: Some(_), .. });
    for site in
        here.sites.iter().filter(|s| s.unit == rel.unit && s.kind == AccessKind::Write && s.span.start >= rel.at)
    {
        // A volatile or final field publishes itself (or cannot change); atomics and
        // thread-safe collections have no write sites.
        if !site.field.element && (site.decl.is_final || (site.decl.is_volatile && !woken_read)) {
            continue;
        }
        if writes.iter().any(|w| w.field == site.field) {
            continue;
        }
        if let Edge::Volatile { field: v, owner: of } = &rel.edge {
            if (v.class == site.field.class && v.name == site.field.name) || owner(facts, site) != *of {
                continue;
            }
        }
        if let Edge::Lock { text, .. } = &rel.edge {
            if facts.locks_held(rel.unit, site.span.start).any(|l| &l.text == text) {
                continue;
            }
        }
        if !(here.touches(rel.span) || here.touches(site.span)) || on_another_path(facts, rel.at, site.span.start) {
            continue;
        }
        // A later release of the same object still comes after the write. A started
        // thread reads the write safely when it waits for any later release (or for a
        // lock the write holds: see `readers`).
        let later = |o: &&Release| o.unit == rel.unit && o.at > site.span.start;
        if all.iter().filter(later).any(|o| o.base == rel.base) {
            continue;
        }
        if matches!(rel.edge, Edge::Task { .. }) && all.iter().any(|o| later(&o)) {
            continue;
        }
        let write = describe_write(facts, site);
        let Some((old, m)) = here.base_method(rel.unit) else {
            // A new body: all its orders are the change's, but a write that never was in
            // the region was not moved out of it (an unprotected write is RL001's).
            if !matches!(rel.edge, Edge::Lock { .. }) {
                writes.push(write);
            }
            continue;
        };
        let made_by_change = match &rel.edge {
            // Moved past a wake-up: the base made the write in this method before the
            // waiters were woken (before the region or inside it), now it comes after.
            Edge::Lock { wakeup: Some(_), .. } if !base_writes(old, m, &write.base).is_empty() => {
                !base_had(old, m, &rel.base, &write.base)
            }
            // Moved out of the region: inside it in the base, and not after it there.
            Edge::Lock { text, .. } => {
                base_inside(old, m, text, &write.base) && !base_had(old, m, &rel.base, &write.base)
            }
            _ => !base_had(old, m, &rel.base, &write.base),
        };
        if made_by_change {
            writes.push(write);
        }
    }
    let mut ordered: Vec<(Write, Vec<Reader>)> = Vec::new();
    for w in writes {
        let readers = readers(here, rel, &w);
        if !readers.is_empty() {
            ordered.push((w, readers));
        }
    }
    if ordered.is_empty() {
        return None;
    }
    Some(diagnostic(here, rel, &ordered))
}

fn describe_write(facts: &FileFacts, site: &Site) -> Write {
    match &site.via {
        Some(m) => {
            let c = &facts.calls[site.item as usize];
            let recv = recv_key(facts, c.receiver.as_ref());
            let recv_text = if recv.is_empty() { site.field.name.to_string() } else { recv.clone() };
            Write {
                span: site.span,
                field: site.field.clone(),
                label: format!("`{recv_text}.{m}()`"),
                via: Some(m.to_string()),
                base: BaseWrite::Mutator { recv },
            }
        }
        None => Write {
            span: site.span,
            field: site.field.clone(),
            label: format!("`{}`", site.field.display_name()),
            via: None,
            base: BaseWrite::Field { name: site.field.name.to_string(), element: site.field.element },
        },
    }
}

/// Whether a write at `to` may be on another path than a release at `from`: the
/// release's block ends in a jump before the write, or the write sits in an `else`,
/// `case` or `catch` of a statement the release is in.
fn on_another_path(facts: &FileFacts, from: u32, to: u32) -> bool {
    let first = facts.tokens.partition_point(|t| t.start < from);
    let (mut depth, mut min, mut jumped, mut alternative) = (0i32, 0i32, false, false);
    for t in facts.tokens[first..].iter().take_while(|t| t.start < to) {
        match facts.token_text(t) {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                min = min.min(depth);
                if depth < 0 && jumped {
                    return true;
                }
            }
            "return" | "throw" | "break" | "continue" | "yield" if depth == 0 && min == 0 => jumped = true,
            "case" | "default" if depth == 0 && jumped => return true,
            "else" | "case" | "default" | "catch" if depth < 0 => alternative = true,
            _ => {}
        }
    }
    alternative && depth > min
}

/// Where the base version of method `m` has a release like `r` (unit, offset).
fn base_releases(old: &FileFacts, m: MethodIdx, r: &BaseRelease) -> Vec<(UnitIdx, u32)> {
    match r {
        BaseRelease::Call { name, recv } => old
            .calls_of(m)
            .filter(|c| c.kind == CallKind::Method && &c.name == name && recv_key(old, c.receiver.as_ref()) == *recv)
            .map(|c| (c.unit, c.full.end))
            .collect(),
        BaseRelease::Write { name, recv } => old
            .accesses_of(m)
            .filter(|(_, a)| {
                a.kind == AccessKind::Write
                    && !a.element
                    && &a.name == name
                    && recv_key(old, a.receiver.as_ref()) == *recv
            })
            .map(|(_, a)| (a.unit, a.span.start))
            .collect(),
        BaseRelease::Region { text, waking } => old
            .locks
            .iter()
            .filter(|l| {
                l.kind != LockKind::SynchronizedMethod && &l.text == text && old.units[l.unit as usize].method == m
            })
            .filter(|l| !waking || last_wakeup(old, l).is_some())
            .map(|l| (l.unit, l.span.end))
            .collect(),
    }
}

/// Where the base version of method `m` has a write like `w`.
fn base_writes(old: &FileFacts, m: MethodIdx, w: &BaseWrite) -> Vec<(UnitIdx, u32)> {
    let mut out: Vec<(UnitIdx, u32)> = Vec::new();
    let on = |e: Option<&Expr>, f: &str| e.is_some() && recv_key(old, e) == f;
    for (_, a) in old.accesses_of(m).filter(|(_, a)| a.kind == AccessKind::Write) {
        let hit = match w {
            BaseWrite::Field { name, element } => &a.name == name && a.element == *element,
            BaseWrite::Mutator { .. } => false,
            BaseWrite::Fill(f) => on(a.receiver.as_ref(), f) || (a.element && &a.name == f),
        };
        if hit {
            out.push((a.unit, a.span.start));
        }
    }
    for c in old.calls_of(m).filter(|c| c.kind == CallKind::Method) {
        let hit = match w {
            BaseWrite::Field { .. } => false,
            BaseWrite::Mutator { recv } => recv_key(old, c.receiver.as_ref()) == *recv && is_mutator(&c.name),
            BaseWrite::Fill(f) => on(c.receiver.as_ref(), f) && fills(&c.name),
        };
        if hit {
            out.push((c.unit, c.span.start));
        }
    }
    out
}

/// Whether the base version of method `m` already had the release before the write, in
/// one body (after a region's end and outside another region of the same lock).
fn base_had(old: &FileFacts, m: MethodIdx, r: &BaseRelease, w: &BaseWrite) -> bool {
    let releases = base_releases(old, m, r);
    let writes = base_writes(old, m, w);
    let outside = |unit: UnitIdx, at: u32| match r {
        BaseRelease::Region { text, .. } => !old.locks_held(unit, at).any(|l| &l.text == text),
        _ => true,
    };
    writes.iter().any(|&(wu, wat)| {
        outside(wu, wat) && releases.iter().any(|&(u, at)| u == wu && at <= wat && !on_another_path(old, at, wat))
    })
}

/// Whether the base version of method `m` made the write holding the lock `text`, itself
/// or in a method of its class it called there (`enqueue(item)`).
fn base_inside(old: &FileFacts, m: MethodIdx, text: &str, w: &BaseWrite) -> bool {
    if base_writes(old, m, w).iter().any(|&(u, at)| old.locks_held(u, at).any(|l| l.text == text)) {
        return true;
    }
    let class = old.methods[m as usize].class;
    old.calls_of(m)
        .filter(|c| {
            c.kind == CallKind::Method
                && matches!(c.receiver, None | Some(Expr::This))
                && old.locks_held(c.unit, c.span.start).any(|l| l.text == text)
        })
        .any(|c| {
            old.methods_named(class, &c.name)
                .iter()
                .any(|&callee| callee != m && !base_writes(old, callee, w).is_empty())
        })
}

/// Methods that fill the object they are called on.
fn fills(name: &str) -> bool {
    is_mutator(name)
        || ["set", "add", "put", "load", "init", "register", "append", "fill", "insert"]
            .iter()
            .any(|p| name.starts_with(p))
}

// ----- who reads after the acquire ---------------------------------------------------------

/// The reads of `field` that `rel` should order a write before: in another body, after
/// the acquire that pairs with it.
fn readers(here: &Here, rel: &Release, w: &Write) -> Vec<Reader> {
    let index = here.cx.index;
    let mut out = Vec::new();
    // A lock the write holds orders it before the reads that hold it too.
    let held = index.locks_at(here.change.file, rel.unit, w.span.start);
    for (file, s) in index.sites_of(&w.field) {
        if s.kind != AccessKind::Read || (file == here.change.file && s.unit == rel.unit) {
            continue;
        }
        let Some(e) = index.entry(file) else { continue };
        if constructing(&e.facts, s.unit) {
            continue;
        }
        if !matches!(rel.edge, Edge::Lock { .. })
            && index.locks_at(file, s.unit, s.span.start).iter().any(|l| held.iter().any(|h| h.excludes(l)))
        {
            continue;
        }
        let facts = &e.facts;
        let origin = Origin::Project(file);
        let key_of = |c: &Call| {
            locks::lock_of_expr(&here.r, origin, facts, c.unit, c.receiver.as_ref().unwrap_or(&Expr::This), "").key
        };
        let before = |names: &[&str], key: &str| -> Option<String> {
            facts
                .calls_of(facts.units[s.unit as usize].method)
                .filter(|c| {
                    c.unit == s.unit
                        && c.kind == CallKind::Method
                        && c.span.start < s.span.start
                        && names.contains(&c.name.as_str())
                })
                .find(|c| key_of(c) == key)
                .map(|c| call_display(facts, c))
        };
        let mut woken = false;
        let acquire = match &rel.edge {
            Edge::Latch(key) => before(&["await"], key),
            Edge::Permit(key) => before(&["acquire", "acquireUninterruptibly", "tryAcquire"], key),
            Edge::Future { key, .. } => before(&["get", "join", "getNow", "resultNow"], key)
                .or_else(|| callback_of(facts, s.unit, |c| key_of(c) == *key)),
            Edge::Volatile { field: v, .. } => {
                let mine = owner(facts, s);
                e.resolved
                    .sites
                    .iter()
                    .any(|o| {
                        o.unit == s.unit
                            && o.kind == AccessKind::Read
                            && o.field == *v
                            && o.span.start < s.span.start
                            && owner(facts, o) == mine
                    })
                    .then(|| format!("`{}`", v.name))
            }
            Edge::Lock { key, wakeup, .. } => {
                if !index.locks_at(file, s.unit, s.span.start).iter().any(|l| l.key == *key) {
                    continue;
                }
                let wait = wakeup.as_ref().and_then(|w| {
                    e.resolved.monitor_calls.iter().find(|m| {
                        m.op == MonitorOp::Wait && m.lock.key == *w && facts.calls[m.call as usize].unit == s.unit
                    })
                });
                woken = wait.is_some();
                wait.map(|m| call_display(facts, &facts.calls[m.call as usize]))
            }
            Edge::Task { code, .. } => {
                if !code.runs(facts, file, s.unit) {
                    continue;
                }
                None
            }
            Edge::Publish { .. } | Edge::HandOff => None,
        };
        if acquire.is_none() && !matches!(rel.edge, Edge::Lock { .. } | Edge::Task { .. }) {
            continue;
        }
        let method = facts.method_display(facts.units[s.unit as usize].method);
        out.push(Reader {
            file,
            span: s.span,
            method,
            field: s.field.display_name(),
            acquire,
            woken,
            gate: None,
            client: false,
        });
    }
    if out.is_empty() {
        out = gated_readers(here, rel, w, &held);
    }
    if out.is_empty() {
        out = readers_after_waiting(here, rel, w);
    }
    if out.is_empty() {
        out = client_readers(here, rel, w);
    }
    out.sort_by_key(|r| (r.file, r.span.start));
    out
}

/// The acquire names of a release's edge, with the object's key.
fn acquires(edge: &Edge) -> Option<(&'static [&'static str], &str)> {
    match edge {
        Edge::Latch(key) => Some((&["await"], key)),
        Edge::Permit(key) => Some((&["acquire", "acquireUninterruptibly", "tryAcquire"], key)),
        Edge::Future { key, .. } => Some((&["get", "join"], key)),
        _ => None,
    }
}

/// Reads behind a gate: a method of the reader's class waits for the release and returns
/// reading nothing after it (`awaitReady() { return ready.await(t, unit); }`), so its
/// caller reads on (`resolve()`) after it. Looked for only when no read has the acquire
/// in its own body.
fn gated_readers(here: &Here, rel: &Release, w: &Write, held: &[LockId]) -> Vec<Reader> {
    let Some((names, key)) = acquires(&rel.edge) else { return Vec::new() };
    let index = here.cx.index;
    // Per class: the gate's acquire and method, for the message, and its index.
    type Gate = Option<(String, String, MethodIdx)>;
    let mut gates: HashMap<(FileId, u32), Gate> = HashMap::new();
    let mut out = Vec::new();
    for (file, s) in index.sites_of(&w.field) {
        if s.kind != AccessKind::Read || (file == here.change.file && s.unit == rel.unit) {
            continue;
        }
        let Some(e) = index.entry(file) else { continue };
        let facts = &e.facts;
        if constructing(facts, s.unit)
            || index.locks_at(file, s.unit, s.span.start).iter().any(|l| held.iter().any(|h| h.excludes(l)))
        {
            continue;
        }
        let class = Resolver::unit_class(facts, s.unit);
        let gate = gates.entry((file, class)).or_insert_with(|| {
            let origin = Origin::Project(file);
            facts
                .calls
                .iter()
                .filter(|c| {
                    c.kind == CallKind::Method
                        && names.contains(&c.name.as_str())
                        && Resolver::unit_class(facts, c.unit) == class
                })
                // A gate waits and returns: it reads nothing after the acquire itself.
                .filter(|c| !facts.accesses.iter().any(|a| a.unit == c.unit && a.span.start >= c.full.end))
                .find(|c| {
                    locks::lock_of_expr(&here.r, origin, facts, c.unit, c.receiver.as_ref().unwrap_or(&Expr::This), "")
                        .key
                        == key
                })
                .map(|c| {
                    (
                        call_display(facts, c),
                        facts.method_display(facts.units[c.unit as usize].method),
                        facts.units[c.unit as usize].method,
                    )
                })
        });
        let Some((acquire, gate, gate_method)) = gate.clone() else { continue };
        if facts.units[s.unit as usize].method == gate_method {
            continue;
        }
        let method = facts.method_display(facts.units[s.unit as usize].method);
        out.push(Reader {
            file,
            span: s.span,
            method,
            field: s.field.display_name(),
            acquire: Some(acquire),
            woken: false,
            gate: Some(gate),
            client: false,
        });
    }
    out
}

/// Reads behind a waiting method: a method waits on the woken monitor (`sweepAndWait()`
/// waits until the completed count moves), and its caller reads the field after the call
/// returns, itself or through a method that reads it (`reaper.lastReport()`). The wake-up
/// lets the caller go on before a write that comes after it.
fn readers_after_waiting(here: &Here, rel: &Release, w: &Write) -> Vec<Reader> {
    let Edge::Lock { wakeup: Some(woken), .. } = &rel.edge else { return Vec::new() };
    let index = here.cx.index;
    let mut out = Vec::new();
    for file in index.files_locking(woken).collect::<Vec<_>>() {
        let Some(e) = index.entry(file) else { continue };
        for wait in e.resolved.monitor_calls.iter().filter(|m| m.op == MonitorOp::Wait && m.lock.key == *woken) {
            let wait_call = &e.facts.calls[wait.call as usize];
            let waiter =
                MethodRef { origin: Origin::Project(file), idx: e.facts.units[wait_call.unit as usize].method };
            let gate = e.facts.method_display(waiter.idx);
            let acquire = call_display(&e.facts, wait_call);
            let name = &e.facts.methods[waiter.idx as usize].name;
            for caller_file in index.files_calling(name).collect::<Vec<_>>() {
                let Some(ce) = index.entry(caller_file) else { continue };
                let cf = &ce.facts;
                let origin = Origin::Project(caller_file);
                for call in cf.calls.iter().filter(|c| {
                    c.kind == CallKind::Method && c.name == *name && here.r.callees(origin, cf, c).contains(&waiter)
                }) {
                    let after = |unit: UnitIdx, at: u32| unit == call.unit && at >= call.full.end;
                    let method = cf.method_display(cf.units[call.unit as usize].method);
                    let reader = |span: Span| Reader {
                        file: caller_file,
                        span,
                        method: method.clone(),
                        field: w.field.display_name(),
                        acquire: Some(acquire.clone()),
                        woken: true,
                        gate: Some(gate.clone()),
                        client: false,
                    };
                    for s in ce
                        .resolved
                        .sites
                        .iter()
                        .filter(|s| s.kind == AccessKind::Read && s.field == w.field && after(s.unit, s.span.start))
                    {
                        out.push(reader(s.span));
                    }
                    for later in cf.calls.iter().filter(|c| c.kind == CallKind::Method && after(c.unit, c.span.start)) {
                        if here.r.callees(origin, cf, later).into_iter().any(|m| reads_in_body(index, m, &w.field)) {
                            out.push(reader(later.span));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether project method `m` reads `field` in its own body.
fn reads_in_body(index: &crate::index::ProjectIndex, m: MethodRef, field: &FieldKey) -> bool {
    let Origin::Project(file) = m.origin else { return false };
    let Some(e) = index.entry(file) else { return false };
    e.resolved
        .sites
        .iter()
        .any(|s| s.kind == AccessKind::Read && s.field == *field && e.facts.units[s.unit as usize].method == m.idx)
}

/// The public accessor `name()` of the class of `unit` that returns the field `recv`
/// names, and does nothing else: callers anywhere can get the future and wait on it.
fn future_accessor(facts: &FileFacts, unit: UnitIdx, recv: &Expr) -> Option<String> {
    let field = match recv {
        Expr::Name(n) => n,
        Expr::Field(o, n) if matches!(**o, Expr::This) => n,
        _ => return None,
    };
    let class = facts.unit_method(unit).class;
    facts.methods.iter().enumerate().find_map(|(i, m)| {
        let m_idx = i as MethodIdx;
        let only_returns_it = m.class == class
            && m.is_public
            && !m.is_static
            && m.kind == MethodKind::Method
            && m.params.is_empty()
            && facts.calls_of(m_idx).next().is_none()
            && facts.accesses_of(m_idx).map(|(_, a)| a).all(|a| {
                a.kind == AccessKind::Read && &a.name == field && matches!(a.receiver, None | Some(Expr::This))
            })
            && facts.accesses_of(m_idx).next().is_some();
        only_returns_it.then(|| m.name.clone())
    })
}

/// Reads by callers that joined a future the class hands out (`job.outcome().join();
/// job.state()`): the public methods of the written field's class that read it, other than
/// the releasing one. Code outside the project can do that, so they are looked for only
/// when no reader in the project waits for the future itself. A lock the reader takes
/// orders nothing here: it may take it before the writer does.
fn client_readers(here: &Here, rel: &Release, w: &Write) -> Vec<Reader> {
    let Edge::Future { exposed: Some(accessor), .. } = &rel.edge else { return Vec::new() };
    let facts = here.facts;
    let class = facts.unit_method(rel.unit).class;
    let releasing = here.method_of(rel.unit);
    let mut out = Vec::new();
    for s in here.sites.iter().filter(|s| s.kind == AccessKind::Read && s.field == w.field) {
        let m = facts.unit_method(s.unit);
        if here.method_of(s.unit) == releasing
            || m.class != class
            || !m.is_public
            || constructing(facts, s.unit)
            || facts.units[s.unit as usize].is_lambda
        {
            continue;
        }
        let method = facts.method_display(here.method_of(s.unit));
        out.push(Reader {
            file: here.change.file,
            span: s.span,
            method,
            field: s.field.display_name(),
            acquire: Some(format!("`{accessor}().join()`")),
            woken: false,
            gate: None,
            client: true,
        });
    }
    out
}

/// A lambda passed to a dependent stage (`thenAccept`, `whenComplete`, …) of the future.
fn callback_of(facts: &FileFacts, unit: UnitIdx, is_key: impl Fn(&Call) -> bool) -> Option<String> {
    let u = &facts.units[unit as usize];
    let parent = u.parent.filter(|_| u.is_lambda)?;
    facts
        .calls_of(u.method)
        .filter(|c| c.unit == parent && c.args.contains(&Expr::Lambda(unit)))
        .filter(|c| ["then", "when", "handle", "exceptionally"].iter().any(|p| c.name.starts_with(p)))
        .find(|c| is_key(c))
        .map(|c| call_display(facts, c))
}

impl Task {
    fn runs(&self, facts: &FileFacts, file: FileId, unit: UnitIdx) -> bool {
        if self.methods.contains(&(file, facts.units[unit as usize].method)) {
            return true;
        }
        let mut u = Some(unit);
        while let Some(x) = u {
            if self.units.contains(&(file, x)) {
                return true;
            }
            u = facts.units[x as usize].parent;
        }
        false
    }
}

/// The code a `start()` call runs: the thread's `run()`, or the task it was made with.
fn thread_code(here: &Here, start: &Call, recv: &Expr) -> Task {
    let facts = here.facts;
    let made = match recv {
        Expr::Local(l) => {
            let local = &facts.locals[*l as usize];
            match (&local.init, local.reassigned) {
                (Some(Expr::New(_)), false) => facts
                    .calls
                    .iter()
                    .find(|c| matches!(c.kind, CallKind::New { .. }) && c.full.start >= local.scope.start),
                _ => None,
            }
        }
        // `new Thread(task).start()`: the creation that ends right before `.start`.
        Expr::New(_) => facts
            .calls
            .iter()
            .filter(|c| {
                c.unit == start.unit && matches!(c.kind, CallKind::New { .. }) && c.full.end <= start.span.start
            })
            .max_by_key(|c| (c.full.end, std::cmp::Reverse(c.full.start))),
        // A field: its last assignment of a new object before `start()`, else its
        // initializer.
        Expr::Name(n) | Expr::Field(_, n)
            if matches!(recv, Expr::Name(_)) || matches!(recv, Expr::Field(o, _) if **o == Expr::This) =>
        {
            let assigned = facts
                .accesses
                .iter()
                .rfind(|a| {
                    a.unit == start.unit
                        && a.kind == AccessKind::Write
                        && &a.name == n
                        && a.span.start < start.span.start
                        && matches!(a.receiver, None | Some(Expr::This))
                        && matches!(a.value, Some(Expr::New(_)))
                })
                .and_then(|a| {
                    facts.calls.iter().find(|c| {
                        c.unit == start.unit && matches!(c.kind, CallKind::New { .. }) && c.full.start > a.span.start
                    })
                });
            assigned.or_else(|| {
                facts.fields.iter().find(|f| &f.name == n && matches!(f.init, Some(Expr::New(_)))).and_then(|f| {
                    facts
                        .calls
                        .iter()
                        .find(|c| matches!(c.kind, CallKind::New { .. }) && f.decl_span.contains(c.full.start))
                })
            })
        }
        _ => None,
    };
    match made {
        Some(c) => created_code(here, c),
        None => typed_code(here, start.unit, recv),
    }
}

/// The code an argument of `call` (an executor's `submit()`, a `new Thread(…)`) runs.
fn task_code(here: &Here, arg: &Expr, call: &Call) -> Task {
    let unit = call.unit;
    let facts = here.facts;
    let file = here.change.file;
    let mut task = Task::default();
    match arg {
        Expr::Lambda(u) => {
            task.units.insert((file, *u));
        }
        Expr::Local(l) => {
            let local = &facts.locals[*l as usize];
            match (&local.init, local.reassigned) {
                (Some(Expr::Lambda(u)), false) => {
                    task.units.insert((file, *u));
                }
                (Some(Expr::New(_)), false) => {
                    if let Some(c) = facts
                        .calls
                        .iter()
                        .find(|c| matches!(c.kind, CallKind::New { .. }) && c.full.start >= local.scope.start)
                    {
                        task = created_code(here, c);
                    }
                }
                _ => task = typed_code(here, unit, arg),
            }
        }
        Expr::New(_) => {
            let inner = facts.calls.iter().find(|c| {
                matches!(c.kind, CallKind::New { .. })
                    && c.full.start >= call.span.end
                    && c.full.end <= call.full.end
                    && c.full != call.full
            });
            if let Some(c) = inner {
                task = created_code(here, c);
            }
        }
        Expr::This | Expr::Name(_) | Expr::Field(..) => task = typed_code(here, unit, arg),
        // `this::run`: the method named, in the class of what it is taken on.
        Expr::MethodReference => {
            let reference = facts.calls.iter().find(|c| {
                c.kind == CallKind::Reference && c.full.start >= call.span.end && c.full.end <= call.full.end
            });
            if let Some(c) = reference {
                match &c.receiver {
                    None | Some(Expr::This) => {
                        let class = Resolver::unit_class(facts, c.unit);
                        task.methods.extend(facts.methods_named(class, &c.name).iter().map(|&m| (file, m)));
                    }
                    Some(r) => {
                        if let Some(class) = here.r.type_of(here.origin, facts, c.unit, r).and_then(|t| t.class()) {
                            for argc in 0..=1 {
                                task.methods.extend(here.r.methods_named(class, &c.name, argc).into_iter().filter_map(
                                    |m| match m.origin {
                                        Origin::Project(f) => Some((f, m.idx)),
                                        Origin::Jdk(_) => None,
                                    },
                                ));
                            }
                        }
                    }
                }
            }
        }
        _ => {}
    }
    task
}

/// The code an object made by `new …(…)` runs as a thread or task: its class's (or its
/// anonymous body's) `run()`/`call()`, or, for a plain `Thread`, the task it is given.
fn created_code(here: &Here, c: &Call) -> Task {
    let file = here.change.file;
    let CallKind::New { ty, anonymous } = &c.kind else { return Task::default() };
    let mut task = Task::default();
    if let Some(a) = anonymous {
        for name in ["run", "call"] {
            task.methods.extend(here.facts.methods_named(*a, name).iter().map(|&m| (file, m)));
        }
        return task;
    }
    let t = here.r.ty(here.origin, Some(Resolver::unit_class(here.facts, c.unit)), ty);
    if let Some(class) = t.class().filter(|c| matches!(c.origin, Origin::Project(_))) {
        return run_methods(here, class);
    }
    for arg in &c.args {
        let t = task_code(here, arg, c);
        if !t.units.is_empty() || !t.methods.is_empty() {
            return t;
        }
    }
    task
}

/// `run()`/`call()` of the project class of an expression's type.
fn typed_code(here: &Here, unit: UnitIdx, e: &Expr) -> Task {
    match here.r.type_of(here.origin, here.facts, unit, e).and_then(|t| t.class()) {
        Some(class) if matches!(class.origin, Origin::Project(_)) => run_methods(here, class),
        _ => Task::default(),
    }
}

fn run_methods(here: &Here, class: ClassRef) -> Task {
    let mut task = Task::default();
    for name in ["run", "call"] {
        for m in here.r.methods_named(class, name, 0) {
            if let Origin::Project(f) = m.origin {
                task.methods.insert((f, m.idx));
            }
        }
    }
    task
}

/// Adds the methods of its own class that the task's code calls directly (`run() {
/// process(); }`), one call deep.
fn close_over_calls(here: &Here, mut task: Task) -> Task {
    let index = here.cx.index;
    let mut more = Vec::new();
    for (file, entry) in task
        .units
        .iter()
        .map(|(f, _)| *f)
        .chain(task.methods.iter().map(|(f, _)| *f))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter_map(|f| index.entry(f).map(|e| (f, e)))
    {
        let facts = &entry.facts;
        for c in
            facts.calls.iter().filter(|c| c.kind == CallKind::Method && matches!(c.receiver, None | Some(Expr::This)))
        {
            if !task.runs(facts, file, c.unit) {
                continue;
            }
            let class = Resolver::unit_class(facts, c.unit);
            more.extend(facts.methods_named(class, &c.name).iter().map(|&m| (file, m)));
        }
    }
    task.methods.extend(more);
    task
}

// ----- a value changed after it is handed over ----------------------------------------------

/// `future.complete(result)`, then `result.setTotal(…)`; `lastReport = report`, then
/// `report.scanned++`; `jobs.put(id, job)`, then `job.traceId = …`: whoever takes the value
/// (from the future, in code outside the project too; by reading the volatile field; out of
/// the collection) is ordered after the hand-over only, and can see it half-built.
///
/// For a future, any filling call counts (its readers may be outside the project). For a
/// volatile field or a collection, only writes of the object's plain fields that some other
/// method reads: those are the reads the hand-over should have ordered the writes before.
fn handed_over(here: &Here, rel: &Release) -> Option<Diagnostic> {
    let Handed { local: l, from } = rel.handed.as_ref()?;
    let facts = here.facts;
    let name = facts.locals[*l as usize].name.clone();
    let method = here.method_of(rel.unit);
    let future = matches!(rel.edge, Edge::Future { .. });
    let on_value = |e: &Option<Expr>| matches!(e, Some(Expr::Local(x)) if x == l);
    let after = |unit: UnitIdx, span: Span| unit == rel.unit && span.start > rel.at;
    let mut changes: Vec<(Span, String)> = Vec::new();
    // A plain field (a final one cannot change, a volatile one publishes itself) that another
    // method reads: a read the hand-over should have ordered the write before.
    let plain_read_elsewhere = |site: &Site| {
        !site.decl.is_final
            && !site.decl.is_volatile
            && here.cx.index.sites_of(&site.field).any(|(file, s)| {
                s.kind == AccessKind::Read && (file != here.change.file || here.method_of(s.unit) != method)
            })
    };
    for c in facts
        .calls_of(method)
        .filter(|c| after(c.unit, c.span) && c.kind == CallKind::Method && on_value(&c.receiver) && fills(&c.name))
    {
        if future || unlocked_setter(here, c, &plain_read_elsewhere) {
            changes.push((c.span, call_display(facts, c)));
        }
    }
    for (i, a) in facts
        .accesses_of(method)
        .filter(|(_, a)| after(a.unit, a.span) && a.kind == AccessKind::Write && on_value(&a.receiver))
    {
        let plain_and_read =
            || here.sites.iter().find(|s| s.via.is_none() && s.item == i as u32).is_some_and(&plain_read_elsewhere);
        if future || plain_and_read() {
            changes.push((a.span, format!("`{name}.{}`", a.name)));
        }
    }
    changes.sort_by_key(|(s, _)| s.start);
    changes.retain(|(s, _)| !on_another_path(facts, rel.at, s.start));
    let (first, first_display) = changes.first()?.clone();
    if !(here.touches(rel.span) || changes.iter().any(|(s, _)| here.touches(*s))) {
        return None;
    }
    if let Some((old, m)) = here.base_method(rel.unit) {
        if base_had(old, m, &rel.base, &BaseWrite::Fill(name.clone())) {
            return None;
        }
    }
    let message = format!(
        "{} (line {}) now hands `{name}` over before {first_display} changes it (line {}): a thread that gets it from {from} can see it half-built",
        rel.display, rel.span.line, first.line
    );
    let (primary, related) = placed(here, rel, &changes, format!("{} hands `{name}` over here", rel.display), |d| {
        format!("{d} changes `{name}` here, after it is handed over")
    });
    Some(Diagnostic {
        file: here.change.file,
        span: primary,
        severity: Severity::Warning,
        code: "RL009",
        message,
        related,
    })
}

/// `job.setTraceId(id)`: a project method, neither synchronized nor taking a lock, that
/// writes a plain field of its object which some other method reads. A setter that locks
/// orders itself with readers that lock too, so it is not counted.
fn unlocked_setter(here: &Here, call: &Call, plain_read_elsewhere: &dyn Fn(&Site) -> bool) -> bool {
    let index = here.cx.index;
    here.r.callees(here.origin, here.facts, call).into_iter().any(|m| {
        let Origin::Project(file) = m.origin else { return false };
        let Some(entry) = index.entry(file) else { return false };
        let cf = &entry.facts;
        let Some(callee) = cf.methods.get(m.idx as usize) else { return false };
        let units: Vec<UnitIdx> = (0..cf.units.len() as UnitIdx)
            .filter(|&u| cf.units[u as usize].method == m.idx && !cf.units[u as usize].is_lambda)
            .collect();
        if callee.is_synchronized || cf.locks.iter().any(|l| units.contains(&l.unit)) {
            return false;
        }
        entry.resolved.sites.iter().any(|s| {
            units.contains(&s.unit)
                && s.kind == AccessKind::Write
                && s.via.is_none()
                && s.on_this
                && !s.decl.is_static
                && plain_read_elsewhere(s)
        })
    })
}

// ----- unsafe lazy publication ---------------------------------------------------------------

/// A reference field assigned a new object, then filled through the field.
fn publish(here: &Here, rel: &Release) -> Option<Diagnostic> {
    let Edge::Publish { field, locks, object } = &rel.edge else { return None };
    let facts = here.facts;
    let method = here.method_of(rel.unit);
    let is_field = |e: &Expr, unit: UnitIdx| {
        here.r
            .field_of_expr(here.origin, facts, unit, e)
            .and_then(|f| here.r.field_key(f, false))
            .is_some_and(|k| k == *field)
    };
    // The next assignment of the field ends what fills this object.
    let until = here
        .sites
        .iter()
        .filter(|s| {
            s.unit == rel.unit
                && s.kind == AccessKind::Write
                && !s.field.element
                && s.field == *field
                && s.span.start > rel.at
        })
        .map(|s| s.span.start)
        .min()
        .unwrap_or(u32::MAX);
    let mut fills_at: Vec<(Span, String)> = Vec::new();
    for c in facts
        .calls_of(method)
        .filter(|c| c.unit == rel.unit && c.kind == CallKind::Method && c.span.start > rel.at && c.span.start < until)
    {
        if fills(&c.name) && c.receiver.as_ref().is_some_and(|r| is_field(r, c.unit)) {
            fills_at.push((c.span, call_display(facts, c)));
        }
    }
    for (_, a) in facts.accesses_of(method).filter(|(_, a)| {
        a.unit == rel.unit && a.kind == AccessKind::Write && a.span.start > rel.at && a.span.start < until
    }) {
        let through = match &a.receiver {
            Some(r) if !a.element => is_field(r, a.unit),
            _ => a.element && a.name == *field.name && is_field(&Expr::Name(a.name.clone()), a.unit),
        };
        if through {
            let written = match &a.receiver {
                Some(r) if !a.element => format!("`{}.{}`", recv_key(facts, Some(r)), a.name),
                _ => format!("`{}[…]`", a.name),
            };
            fills_at.push((a.span, written));
        }
    }
    fills_at.sort_by_key(|(s, _)| s.start);
    fills_at.retain(|(s, _)| !on_another_path(facts, rel.at, s.start));
    let (first, first_display) = fills_at.first()?.clone();
    if !(here.touches(rel.span) || fills_at.iter().any(|(s, _)| here.touches(*s))) {
        return None;
    }
    let filled_local_first = match here.base_method(rel.unit) {
        Some((old, m)) => {
            if base_had(old, m, &rel.base, &BaseWrite::Fill(field.name.to_string())) {
                return None;
            }
            old.accesses_of(m).any(|(_, a)| {
                a.kind == AccessKind::Write && a.name == *field.name && matches!(a.value, Some(Expr::Local(_)))
            })
        }
        None => false,
    };
    let last = fills_at.last().map_or(first.end, |(s, _)| s.end);
    // Readers that can see the reference without the writer's lock.
    let index = here.cx.index;
    let mut readers: Vec<Reader> = Vec::new();
    for (file, s) in index.sites_of(field) {
        if s.kind != AccessKind::Read
            || (file == here.change.file && s.unit == rel.unit && s.span.start >= rel.at && s.span.start <= last)
        {
            continue;
        }
        let held = index.locks_at(file, s.unit, s.span.start);
        if held.iter().any(|h| locks.iter().any(|l| l.excludes(h)))
            || locks.iter().any(|l| !l.shared && locked_before(index, file, s.unit, s.span.start, &l.key))
        {
            continue;
        }
        let Some(e) = index.entry(file) else { continue };
        if constructing(&e.facts, s.unit) {
            continue;
        }
        let m = e.facts.method_display(e.facts.units[s.unit as usize].method);
        readers.push(Reader {
            file,
            span: s.span,
            method: m,
            field: field.name.to_string(),
            acquire: None,
            woken: false,
            gate: None,
            client: false,
        });
    }
    readers.sort_by_key(|r| (r.file, r.span.start));
    let reader = readers.first()?;
    let without = if locks.is_empty() { String::new() } else { " without the lock".to_string() };
    let base = if filled_local_first { "; the base filled a local first and assigned it after" } else { "" };
    let message = format!(
        "{} (line {}) now publishes the new `{object}` before {first_display} fills it (line {}): a thread that reads `{}`{without} in `{}()` can see it empty or half-filled{base}",
        rel.display, rel.span.line, first.line, field.name, reader.method
    );
    let (primary, mut related) = placed(here, rel, &fills_at, format!("{} publishes it here", rel.display), |d| {
        format!("{d} fills it here, after it is published")
    });
    related.extend(readers.iter().take(MAX_RELATED).map(|r| Related {
        file: r.file,
        span: r.span,
        message: format!("`{}()` reads `{}` here{without}", r.method, r.field),
    }));
    Some(Diagnostic {
        file: here.change.file,
        span: primary,
        severity: Severity::Warning,
        code: "RL009",
        message,
        related,
    })
}

/// Where an RL009 about a release followed by writes is reported, and its related places:
/// on the line the change touched, as the other RL009 warnings (the release when it moved,
/// else the first later write that moved, the release then related), with the other later
/// writes related (`later`: their spans and displays).
fn placed(
    here: &Here,
    rel: &Release,
    later: &[(Span, String)],
    release_says: String,
    later_says: impl Fn(&str) -> String,
) -> (Span, Vec<Related>) {
    let primary = if here.touches(rel.span) {
        rel.span
    } else {
        later.iter().map(|(s, _)| *s).find(|s| here.touches(*s)).unwrap_or(rel.span)
    };
    let mut related = Vec::new();
    if primary != rel.span {
        related.push(Related { file: here.change.file, span: rel.span, message: release_says });
    }
    related.extend(later.iter().filter(|(s, _)| *s != primary).take(MAX_RELATED).map(|(s, d)| Related {
        file: here.change.file,
        span: *s,
        message: later_says(d),
    }));
    (primary, related)
}

// ----- the message -------------------------------------------------------------------------

fn diagnostic(here: &Here, rel: &Release, ordered: &[(Write, Vec<Reader>)]) -> Diagnostic {
    let file = here.change.file;
    let lock = matches!(rel.edge, Edge::Lock { .. });
    let now = if lock { "now " } else { "" };
    let writes = match ordered {
        [(w, _)] => match &w.via {
            Some(m) => format!("`{}` is {now}modified by `{m}()` (line {})", w.field.name, w.span.line),
            None => format!("{} is {now}written (line {})", w.label, w.span.line),
        },
        _ => {
            let items: Vec<String> =
                ordered.iter().map(|(w, _)| format!("{} (line {})", w.label, w.span.line)).collect();
            let (last, rest) = items.split_last().expect("two writes or more");
            format!("{} and {last} are {now}written", rest.join(", "))
        }
    };
    let (w0, readers) = &ordered[0];
    let reader = &readers[0];
    let old = format!("can read the old `{}`", reader.field);
    let acquire = reader.acquire.clone().unwrap_or_default();
    let (subject, place) = match &reader.gate {
        Some(gate) => (format!("{acquire} in `{gate}()`"), format!(" in `{}()`", reader.method)),
        None => (format!("{acquire} in `{}()`", reader.method), String::new()),
    };
    let then = if reader.gate.is_some() { "then " } else { "" };
    let clause = match &rel.edge {
        Edge::Latch(_) => format!("a thread released by {subject} can {then}read the old `{}`{place}", reader.field),
        Edge::Permit(_) => format!("a thread that passes {subject} can {then}read the old `{}`{place}", reader.field),
        Edge::Future { .. }
            if acquire.contains(".then") || acquire.contains(".when") || acquire.contains(".handle") =>
        {
            format!("the callback of {subject} {old}")
        }
        Edge::Future { .. } if reader.client => format!(
            "a caller that returns from {acquire} and calls `{}()` can read the old `{}`",
            reader.method, reader.field
        ),
        Edge::Future { .. } => {
            format!("a thread that returns from {subject} can {then}read the old `{}`{place}", reader.field)
        }
        Edge::Volatile { field: v, .. } => format!(
            "a thread that reads `{}` in `{}()` can see the new `{}` and still read the old `{}`",
            v.name, reader.method, v.name, reader.field
        ),
        Edge::Lock { .. } if reader.woken => {
            format!("a thread woken from {subject} can {then}read the old `{}`{place}", reader.field)
        }
        Edge::Lock { text, .. } => format!("a thread that takes `{text}` in `{}()` {old}", reader.method),
        Edge::Task { started, .. } => {
            let call = match &rel.base {
                BaseRelease::Call { name, .. } => name.as_str(),
                _ => "start",
            };
            format!("{started} reads `{}` in `{}()` and can see the old value (a write after `{call}()` is not ordered before its reads)", reader.field, reader.method)
        }
        Edge::Publish { .. } | Edge::HandOff => old,
    };
    let message = match &rel.edge {
        // What moved is the write: it is the subject.
        Edge::Lock { text, kind, .. } => {
            let region = match kind {
                LockKind::Explicit => format!("the region holding `{text}`"),
                _ if rel.display.starts_with("the end of") => "the lock".to_string(),
                _ => format!("`synchronized ({text})`"),
            };
            // A write that was before the region in the base moved past the wake-up only.
            let moved_out =
                here.base_method(rel.unit).is_none_or(|(old, m)| base_inside(old, m, text, &ordered[0].0.base));
            let out_of = if moved_out { format!(", out of {region}") } else { ", which wakes the waiters".to_string() };
            format!("{writes} after {} (line {}){out_of}: {clause}", rel.display, rel.span.line)
        }
        _ => format!("{} (line {}) now runs before {writes}: {clause}", rel.display, rel.span.line),
    };
    // What moved out of a lock is the write: the warning stands there.
    let primary = match rel.edge {
        Edge::Lock { .. } => w0.span,
        _ if here.touches(rel.span) => rel.span,
        _ => ordered.iter().map(|(w, _)| w.span).find(|s| here.touches(*s)).unwrap_or(w0.span),
    };
    let mut related = Vec::new();
    if primary != rel.span {
        related.push(Related { file, span: rel.span, message: format!("{} is here, before the write", rel.display) });
    }
    for (w, _) in ordered.iter().filter(|(w, _)| w.span != primary) {
        let does = if w.via.is_some() { "modifies it" } else { "is written" };
        related.push(Related {
            file,
            span: w.span,
            message: format!("{} {does} here, after {}", w.label, rel.display),
        });
    }
    let mut seen = BTreeSet::new();
    for r in ordered.iter().flat_map(|(_, rs)| rs).filter(|r| seen.insert((r.file, r.span))).take(MAX_RELATED) {
        let how = match (&rel.edge, &r.acquire) {
            (Edge::Task { started, .. }, _) => format!(" in {started}"),
            (Edge::Lock { text, .. }, _) if !r.woken => format!(" holding `{text}`"),
            (Edge::Volatile { field: v, .. }, _) => format!(" after reading `{}`", v.name),
            (_, Some(a)) if r.gate.is_some() => format!(" after {a} in `{}()`", r.gate.as_deref().unwrap_or_default()),
            (_, Some(a)) if r.client => format!(", called after {a}"),
            (_, Some(a)) => format!(" after {a}"),
            (_, None) => String::new(),
        };
        related.push(Related {
            file: r.file,
            span: r.span,
            message: format!("`{}()` reads `{}` here{how}", r.method, r.field),
        });
    }
    Diagnostic { file, span: primary, severity: Severity::Warning, code: "RL009", message, related }
}
