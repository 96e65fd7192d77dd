//! RL007, lock-order inversion: the change made code that holds lock A take lock B (nested,
//! or in a method it calls while holding A) where other code takes A while holding B, or
//! made one method take two locks of the same class from two different objects that its
//! callers choose (`from.lock` then `to.lock`: two calls with swapped arguments deadlock).
//!
//! Locks are named by `locks::lock_of` (class and field), so the graph joins files. Only
//! the edges that matter are built: those from lock regions of the changed files, then,
//! for a cycle's way back, those from regions holding a lock the change takes. What a
//! callee acquires is followed a few calls deep and computed once per method, with the
//! lambdas it runs inline (`forEach`, `compute*`), which hold what it holds there.
//!
//! Callbacks: a call on a field holding a callback that no project class implements (or a
//! JDK functional interface) runs the code the project puts there: method references and
//! lambdas given to its initializer, its constructor or a setter (`new JobQueue(cap,
//! this::onRejected)`). A call on an element of a collection field of callbacks (a
//! for-each variable over `listeners`, the parameter of `listeners.forEach(l -> ...)`)
//! runs what its class adds to the collection (`listeners.add(l)` in `subscribe(l)`, from
//! each `bus.subscribe(this::onEvent)`). A lambda's own lock regions count as taken by the
//! call. A change that made both orders is reported at both ends. Waits made holding a
//! lock the waker needs are `holdwait`'s.

use std::collections::{BTreeSet, HashMap};

use super::{Cx, Diagnostic, Related, Severity};
use crate::index::{gives_to_keep, ClassRef, FileId, LockId, MethodRef, Origin, ProjectIndex, Resolver, Ty};
use crate::java::{
    expr_key, AccessKind, Call, CallKind, Expr, FileFacts, LockKind, LockRegion, MethodIdx, Span, UnitIdx,
};

/// How many calls deep an acquisition under a lock is looked for.
const MAX_CALL_DEPTH: u32 = 3;

/// Which object holds a lock, as the method that takes it sees it: two acquisitions of
/// one class's lock are two objects only when they name two different ones of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holder {
    This,
    Param(usize),
    /// One lock for the whole program (`X.class`, a static field).
    Global,
    Unknown,
}

/// A lock a method takes, directly or in a method it calls.
#[derive(Clone)]
pub(super) struct Acq {
    pub(super) lock: LockId,
    holder: Holder,
    pub(super) file: FileId,
    pub(super) span: Span,
    /// `Index.rebuild`: the method that takes it.
    pub(super) method: String,
    /// The lock as that method writes it.
    display: String,
    /// The acquisition, or a call on the way to it, is on a line the change added or modified.
    touched: bool,
}

/// Where a call's receiver, a callback, is kept: a field of `class`, or the elements of a
/// collection field (`elements`).
#[derive(Clone, Copy)]
struct Slot {
    class: ClassRef,
    field: u32,
    elements: bool,
}

/// Code a callback runs: a method (referenced, or called by a lambda), or a lambda's body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Callback {
    Method(MethodRef),
    Lambda(FileId, UnitIdx),
}

/// Code holding `outer` acquires `inner`.
#[derive(Clone)]
struct Edge {
    file: FileId,
    /// The method holding `outer`: `Bank.transfer`.
    method: String,
    method_idx: MethodIdx,
    class: String,
    outer: LockId,
    outer_holder: Holder,
    outer_span: Span,
    inner: Acq,
    inner_holder: Holder,
    /// The call made holding `outer` that leads to `inner`, and its callee.
    call: Option<(Span, String)>,
    /// Other locks held around the inner acquisition: a common one serializes the cycle.
    guards: Vec<LockId>,
    created: bool,
}

impl Edge {
    /// Where the inner lock is taken as the holding method reads: a line of its own.
    fn line(&self) -> u32 {
        self.call.as_ref().map_or(self.inner.span.line, |(s, _)| s.line)
    }
    /// The inner lock named for the holding method (`Index.this` for another class's).
    fn inner_display(&self) -> String {
        match self.call {
            Some(_) => qualified(&self.inner.method, &self.class, &self.inner.display),
            None => self.inner.display.clone(),
        }
    }
}

/// `display` prefixed with the class of `method` when that is not `class`.
fn qualified(method: &str, class: &str, display: &str) -> String {
    let owner = method.rsplit_once('.').map_or(method, |x| x.0);
    if owner == class || display.contains('.') && display != "this" && !display.starts_with("this.") {
        return display.to_string();
    }
    format!("{owner}.{}", display.trim_start_matches("this."))
}

pub(crate) fn collect(cx: &Cx, out: &mut Vec<Diagnostic>) {
    let index = cx.index;
    if !may_create_edges(cx) {
        return;
    }
    let mut graph = Graph::new(cx);
    let mut edges = Vec::new();
    let reaching = methods_reaching_changes(cx);
    let mut followed: HashMap<FileId, BTreeSet<usize>> = HashMap::new();
    for change in &cx.changes.files {
        let Some(entry) = index.entry(change.file) else { continue };
        let roots = roots_to_follow(cx, change, &entry.facts, &reaching);
        let base = Base::Changed(change.old.as_deref());
        graph.edges_of(change.file, |i, _| roots.contains(&i), base, &mut edges);
        followed.insert(change.file, roots);
    }
    if !edges.iter().any(|e| e.created) {
        return;
    }
    // The way back: the other regions holding a lock a created edge acquires.
    let wanted: BTreeSet<String> = edges
        .iter()
        .filter(|e| e.created && e.inner.lock.key != e.outer.key)
        .map(|e| e.inner.lock.key.clone())
        .collect();
    if !wanted.is_empty() {
        let none = BTreeSet::new();
        let files: BTreeSet<FileId> = wanted.iter().flat_map(|k| index.files_locking(k)).collect();
        for file in files {
            let done = followed.get(&file).unwrap_or(&none);
            graph.edges_of(file, |i, id| !done.contains(&i) && wanted.contains(&id.key), Base::Unchanged, &mut edges);
        }
    }
    let mut reported: BTreeSet<Vec<String>> = BTreeSet::new();
    for e in edges.iter().filter(|e| e.created) {
        if e.inner.lock.key == e.outer.key {
            // Both orders in one method is the fix (`if (a.id < b.id)`), not the bug.
            let ordered = edges.iter().any(|b| {
                b.file == e.file
                    && b.method_idx == e.method_idx
                    && b.outer.key == e.outer.key
                    && b.inner.lock.key == e.outer.key
                    && b.outer_holder == e.inner_holder
                    && b.inner_holder == e.outer_holder
            });
            if ordered {
                continue;
            }
            if let Some(d) = self_cycle(&graph, e) {
                if reported.insert(vec![e.outer.key.clone()]) {
                    out.push(d);
                }
            }
            continue;
        }
        let Some(back) = edges.iter().find(|b| {
            b.outer.key == e.inner.lock.key
                && b.inner.lock.key == e.outer.key
                && e.outer.excludes(&b.inner.lock)
                && b.outer.excludes(&e.inner.lock)
                && !e.guards.iter().any(|g| b.guards.iter().any(|h| g.excludes(h)))
        }) else {
            continue;
        };
        let mut cycle = vec![e.outer.key.clone(), e.inner.lock.key.clone()];
        cycle.sort();
        if reported.insert(cycle) {
            out.push(two_lock_cycle(e, back));
            // The change made both orders: either end is where it may be undone, and a
            // reader of either changed line should see the deadlock.
            if back.created && location(back) != location(e) {
                out.push(two_lock_cycle(back, e));
            }
        }
    }
}

/// Whether the change can have created an edge at all: a new file, a lock region it
/// changed, or a call on a changed line. Most keystrokes are none of these.
fn may_create_edges(cx: &Cx) -> bool {
    cx.changes.files.iter().any(|c| {
        let Some(entry) = cx.index.entry(c.file) else { return false };
        c.old.is_none()
            || !cx.regions.of(c.file).is_empty()
            || entry.facts.calls.iter().any(|call| c.diff.changed_lines.contains(&call.span.line))
    })
}

/// Names of the methods of the changed files whose changed lines call or lock, and of
/// those there that call them (as deep as callees are followed): a lock region that calls
/// none of these cannot have gained an edge through a call.
fn methods_reaching_changes(cx: &Cx) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for c in &cx.changes.files {
        let Some(entry) = cx.index.entry(c.file) else { continue };
        let f = &entry.facts;
        let lines = &c.diff.changed_lines;
        let changed_units = f.calls.iter().filter(|x| lines.contains(&x.span.line)).map(|x| x.unit);
        let changed_locks = f.locks.iter().filter(|l| l.markers.iter().any(|m| lines.contains(m))).map(|l| l.unit);
        let region_units = cx.regions.of(c.file).iter().filter_map(|r| r.unit);
        names.extend(changed_units.chain(changed_locks).chain(region_units).map(|u| f.unit_method(u).name.clone()));
    }
    for _ in 1..MAX_CALL_DEPTH {
        let mut callers = BTreeSet::new();
        for c in &cx.changes.files {
            let Some(entry) = cx.index.entry(c.file) else { continue };
            let f = &entry.facts;
            callers
                .extend(f.calls.iter().filter(|x| names.contains(&x.name)).map(|x| f.unit_method(x.unit).name.clone()));
        }
        if callers.is_subset(&names) {
            break;
        }
        names.extend(callers);
    }
    names
}

/// The lock regions of a changed file whose edges the change may have created: new or
/// changed regions, regions with a changed line, regions calling a changed method.
fn roots_to_follow(
    cx: &Cx,
    change: &super::ChangedFile,
    facts: &FileFacts,
    reaching: &BTreeSet<String>,
) -> BTreeSet<usize> {
    let lines = &change.diff.changed_lines;
    let changed: BTreeSet<usize> = cx.regions.of(change.file).iter().filter_map(|r| r.region).collect();
    (0..facts.locks.len())
        .filter(|&i| {
            let l = &facts.locks[i];
            change.old.is_none()
                || changed.contains(&i)
                || lines.range(l.span.line..=l.span.end_line).next().is_some()
                || facts
                    .calls
                    .iter()
                    .any(|c| c.unit == l.unit && l.span.contains(c.span.start) && reaching.contains(&c.name))
        })
        .collect()
}

/// One lock of a class taken from two objects its callers choose, then the same lock of
/// the other: the swapped-argument deadlock. The same object twice is re-entrant.
fn self_cycle(graph: &Graph, e: &Edge) -> Option<Diagnostic> {
    let named = |h: Holder| matches!(h, Holder::This | Holder::Param(_));
    if !(named(e.outer_holder) && named(e.inner_holder))
        || e.outer_holder == e.inner_holder
        || !e.outer.excludes(&e.inner.lock)
    {
        return None;
    }
    // A lock held around both serializes the two calls.
    if !e.guards.is_empty() {
        return None;
    }
    let (a, b) = (holder_name(graph, e, e.outer_holder), holder_name(graph, e, e.inner_holder));
    let (class, field) = e.outer.key.split_once('#').unwrap_or((&e.outer.key, "this"));
    let class = class.rsplit('.').next().unwrap_or(class);
    let inner = match &e.call {
        // The callee's lock, named by the object the caller passes.
        Some((_, callee)) => {
            let named = match (b.as_str(), field) {
                (o, "this") => o.to_string(),
                ("this", f) => f.to_string(),
                (o, f) => format!("{o}.{f}"),
            };
            format!("`{named}` (in `{callee}()`, line {})", e.line())
        }
        None => format!("`{}`", e.inner.display),
    };
    let message = format!(
        "lock-order inversion: `{}()` takes `{}` then {inner}, the locks of two `{class}` objects; two calls with `{a}` and `{b}` swapped wait for each other (deadlock)",
        e.method, e.outer.display
    );
    Some(diagnostic(e, message, related(e)))
}

/// Two locks taken in both orders: by a created edge and by an edge anywhere.
fn two_lock_cycle(e: &Edge, back: &Edge) -> Diagnostic {
    let via = |x: &Edge| match &x.call {
        Some((_, callee)) => format!("line {}, in `{callee}()`", x.line()),
        None => format!("line {}", x.line()),
    };
    let message = format!(
        "lock-order inversion: `{}()` takes `{}` then `{}` ({}), while `{}()` takes them the other way round ({}): two threads can deadlock",
        e.method,
        e.outer.display,
        e.inner_display(),
        via(e),
        back.method,
        via(back)
    );
    let mut rel = related(e);
    rel.extend(related(back));
    let at = location(e);
    rel.retain(|r| !(r.file == e.file && r.span == at));
    diagnostic(e, message, rel)
}

fn holder_name(graph: &Graph, e: &Edge, h: Holder) -> String {
    match h {
        Holder::Param(i) => graph
            .index
            .entry(e.file)
            .and_then(|x| x.facts.methods[e.method_idx as usize].params.get(i).map(|p| p.name.clone()))
            .unwrap_or_default(),
        _ => "this".into(),
    }
}

/// The warning sits where the change is: the inner acquisition when the change made it,
/// else the call leading to it, else the outer acquisition.
fn location(e: &Edge) -> Span {
    match &e.call {
        Some((call, _)) if e.inner.file != e.file || !e.inner.touched => *call,
        _ if e.inner.touched || e.call.is_none() => e.inner.span,
        _ => e.outer_span,
    }
}

fn diagnostic(e: &Edge, message: String, related: Vec<Related>) -> Diagnostic {
    Diagnostic { file: e.file, span: location(e), severity: Severity::Warning, code: "RL007", message, related }
}

/// One acquisition path: the outer lock, the call made holding it, the inner lock.
fn related(e: &Edge) -> Vec<Related> {
    let mut out = vec![Related {
        file: e.file,
        span: e.outer_span,
        message: format!("`{}()` takes `{}` here", e.method, e.outer.display),
    }];
    if let Some((call, callee)) = &e.call {
        out.push(Related {
            file: e.file,
            span: *call,
            message: format!("holding `{}`, it calls `{callee}()`", e.outer.display),
        });
    }
    out.push(Related {
        file: e.inner.file,
        span: e.inner.span,
        message: format!("`{}()` takes `{}` here", e.inner.method, e.inner.display),
    });
    out
}

/// The version of a file's regions to compare with, to tell the edges the change created.
#[derive(Clone, Copy)]
enum Base<'f> {
    /// A changed file and its base facts (`None`: the base has no such file).
    Changed(Option<&'f FileFacts>),
    /// A file the change did not touch: only a changed callee creates an edge here.
    Unchanged,
}

/// Whether the base version nests the same acquisition (or the same call) in the same
/// lock of the same method: then the edge is not the change's doing.
fn had_edge(old: &FileFacts, facts: &FileFacts, region: &LockRegion, inner: &Acq, call: Option<&Call>) -> bool {
    let method = facts.method_display(facts.units[region.unit as usize].method);
    old.locks
        .iter()
        .filter(|o| {
            o.kind == region.kind
                && o.text == region.text
                && old.method_display(old.units[o.unit as usize].method) == method
        })
        .any(|o| match call {
            Some(c) => old.calls.iter().any(|oc| {
                let receiver = |f: &FileFacts, x: &Call| x.receiver.as_ref().map(|e| expr_key(f, e));
                oc.unit == o.unit
                    && o.span.contains(oc.span.start)
                    && oc.name == c.name
                    && oc.args.len() == c.args.len()
                    && receiver(old, oc) == receiver(facts, c)
            }),
            None => old.locks.iter().any(|q| {
                q.unit == o.unit
                    && q.span.start > o.span.start
                    && o.span.contains(q.span.start)
                    && q.text == inner.display
            }),
        })
}

/// What methods acquire, followed through calls and memoised; shared with `holdwait`.
pub(super) struct Graph<'a> {
    index: &'a ProjectIndex,
    r: Resolver<'a>,
    changed: HashMap<FileId, &'a BTreeSet<u32>>,
    /// What each method acquires, its own holders (`This`, `Param`) unmapped.
    memo: HashMap<MethodRef, Vec<Acq>>,
    /// The code each slot holding callbacks was given (`handler_targets`), by class, field
    /// and whether the slot is the field's elements.
    handlers: HashMap<(Origin, u32, u32, bool), Vec<Callback>>,
}

impl<'a> Graph<'a> {
    /// A graph over the index, with the changed lines of `cx`.
    pub(super) fn new(cx: &Cx<'a>) -> Graph<'a> {
        let changed: HashMap<FileId, &'a BTreeSet<u32>> =
            cx.changes.files.iter().map(|c| (c.file, &c.diff.changed_lines)).collect();
        Graph { index: cx.index, r: cx.index.resolver(), changed, memo: HashMap::new(), handlers: HashMap::new() }
    }

    pub(super) fn index(&self) -> &'a ProjectIndex {
        self.index
    }

    fn touched(&self, file: FileId, line: u32) -> bool {
        self.changed.get(&file).is_some_and(|l| l.contains(&line))
    }

    /// The edges from the lock regions of `file` whose lock `want` accepts; `base` says
    /// which of them the change created.
    fn edges_of(&mut self, file: FileId, want: impl Fn(usize, &LockId) -> bool, base: Base, out: &mut Vec<Edge>) {
        let Some(entry) = self.index.entry(file) else { return };
        let (facts, resolved) = (entry.facts.clone(), entry.resolved.clone());
        let origin = Origin::Project(file);
        for (i, (region, outer)) in facts.locks.iter().zip(&resolved.locks).enumerate() {
            if !want(i, outer) {
                continue;
            }
            let unit = region.unit;
            let method = facts.units[unit as usize].method;
            let name = facts.method_display(method);
            let class = name.rsplit_once('.').map_or(name.clone(), |x| x.0.to_string());
            let outer_holder = holder(&self.r, origin, &facts, unit, outer, &region.lock, 0);
            let outer_span = acquisition_span(&facts, region);
            // Whether the base had this nesting, compared as written (the same lock regions,
            // the same call, in the method of the same name).
            let created = |inner: &Acq, call: Option<&Call>| match base {
                Base::Changed(None) => true,
                Base::Changed(Some(old)) => {
                    (call.is_some() && inner.touched) || !had_edge(old, &facts, region, inner, call)
                }
                Base::Unchanged => inner.touched,
            };
            // Locks held when the outer one is taken: one held on both sides serializes a cycle.
            let guards: Vec<LockId> = facts
                .locks
                .iter()
                .zip(&resolved.locks)
                .enumerate()
                .filter(|(j, (l, id))| {
                    *j != i && l.unit == unit && l.span.contains(region.span.start) && id.key != outer.key
                })
                .map(|(_, (_, id))| id.clone())
                .collect();
            let edge = |inner: Acq, inner_holder: Holder, call: Option<(Span, String)>, created: bool| Edge {
                file,
                method: name.clone(),
                method_idx: method,
                class: class.clone(),
                outer: outer.clone(),
                outer_holder,
                outer_span,
                created,
                guards: guards.iter().filter(|g| g.key != inner.lock.key).cloned().collect(),
                inner,
                inner_holder,
                call,
            };
            // Code of the region's unit inside it, or of a lambda run inline there (`forEach`),
            // runs holding it.
            let holds =
                |u: UnitIdx, at: u32| region.span.contains(at) && (u == unit || facts.held_regions(u, at).contains(&i));
            let mut found = Vec::new();
            for (j, (q, id)) in facts.locks.iter().zip(&resolved.locks).enumerate() {
                if j == i || q.span.start <= region.span.start || !holds(q.unit, q.span.start) || try_lock(&facts, q) {
                    continue;
                }
                let h = holder(&self.r, origin, &facts, unit, id, &q.lock, 0);
                let inner = self.acquisition(file, &facts, q, id, name.clone(), h);
                let new = created(&inner, None);
                found.push(edge(inner, h, None, new));
            }
            for call in facts.calls.iter().filter(|c| holds(c.unit, c.span.start)) {
                for (callee_name, acq) in self.call_acquisitions(origin, &facts, call, 1) {
                    let h = map_holder(&facts, call, acq.holder);
                    let new = created(&acq, Some(call));
                    found.push(edge(acq, h, Some((call.span, callee_name)), new));
                }
            }
            // Taking the same lock of the same object again is re-entrant, not an edge; so is
            // one an enclosing region already holds (`this` inside `synchronized (this) {
            // synchronized (other) { ... } }` is no `other` -> `this` order).
            let enclosing: Vec<(String, Holder)> = facts
                .locks
                .iter()
                .zip(&resolved.locks)
                .enumerate()
                .filter(|(j, (l, _))| *j != i && l.unit == unit && l.span.contains(region.span.start))
                .map(|(_, (l, id))| (id.key.clone(), holder(&self.r, origin, &facts, unit, id, &l.lock, 0)))
                .collect();
            let reentrant = |e: &Edge| {
                (e.inner.lock.key == e.outer.key
                    && (e.inner_holder == e.outer_holder || e.outer_holder == Holder::Global))
                    || enclosing.iter().any(|(k, h)| {
                        *k == e.inner.lock.key
                            && (*h == e.inner_holder || *h == Holder::Global)
                            && *h != Holder::Unknown
                    })
            };
            out.extend(found.into_iter().filter(|e| !reentrant(e)));
        }
    }

    /// A call's project callees with the methods its callbacks run: the referenced ones,
    /// and what a lambda's body calls (the locks a lambda takes itself are
    /// `call_acquisitions`').
    fn callees_with(&self, mut out: Vec<MethodRef>, callbacks: &[Callback]) -> Vec<MethodRef> {
        for code in callbacks {
            match *code {
                Callback::Method(m) => out.push(m),
                Callback::Lambda(file, unit) => out.extend(self.lambda_callees(file, unit)),
            }
        }
        out.sort_by_key(|m| (m.origin, m.idx));
        out.dedup();
        out
    }

    /// The project methods a call resolves to, as declared (no callback followed).
    fn direct_callees(&self, origin: Origin, facts: &FileFacts, call: &Call) -> Vec<MethodRef> {
        if matches!(call.kind, CallKind::Reference) {
            return Vec::new();
        }
        self.r.callees(origin, facts, call).into_iter().filter(|m| matches!(m.origin, Origin::Project(_))).collect()
    }

    /// What a call runs: its project callees as declared, and the callbacks it runs when it
    /// is a call on a callback: the callback is a field, or the element of a collection
    /// field, declared as a project interface no project class implements (only its
    /// abstract method is found) or as a JDK functional interface; the code is what the
    /// project puts there ([`Graph::handler_targets`]).
    fn resolve_call(&mut self, origin: Origin, facts: &FileFacts, call: &Call) -> (Vec<MethodRef>, Vec<Callback>) {
        let direct = self.direct_callees(origin, facts, call);
        if matches!(call.kind, CallKind::Reference) {
            return (direct, Vec::new());
        }
        let Some(slot) = self.callback_slot(origin, facts, call) else { return (direct, Vec::new()) };
        // Only a project interface's abstract method: the callback runs what it was given.
        // (No project callee at all, as for a JDK collection's method, is no callback.)
        let abstract_only = !direct.is_empty()
            && direct.iter().all(|m| self.index.facts(m.origin).is_some_and(|f| f.methods[m.idx as usize].is_abstract));
        let callbacks = if abstract_only || (direct.is_empty() && self.holds_functional(origin, facts, call, slot)) {
            self.handler_targets(slot)
        } else {
            Vec::new()
        };
        (direct, callbacks)
    }

    /// Every lock the code a call runs takes, with the name of the callee on the way
    /// (`depth` calls down already): its project callees', and the locks a lambda handed
    /// to it as a callback takes in its own body.
    pub(super) fn call_acquisitions(
        &mut self,
        origin: Origin,
        facts: &FileFacts,
        call: &Call,
        depth: u32,
    ) -> Vec<(String, Acq)> {
        let (direct, callbacks) = self.resolve_call(origin, facts, call);
        let mut out = Vec::new();
        for callee in self.callees_with(direct, &callbacks) {
            let name = callee_name(self.index, callee);
            out.extend(self.acquisitions(callee, depth).into_iter().map(|a| (name.clone(), a)));
        }
        for code in callbacks {
            if let Callback::Lambda(file, unit) = code {
                // The callee is the callback's method as the call names it (`accept`).
                let acquired = self.lambda_locks(file, unit);
                out.extend(acquired.into_iter().map(|a| (call.name.clone(), a)));
            }
        }
        out
    }

    /// Where the receiver of a call is kept: a field (`onIdle.run()`), or an element of a
    /// collection field, through a for-each variable (`for (Listener l : listeners)`, also
    /// over `listeners.values()`) or the parameter of a lambda given to the field's
    /// `forEach` (`listeners.forEach(l -> l.onEvent(e))`).
    fn callback_slot(&self, origin: Origin, facts: &FileFacts, call: &Call) -> Option<Slot> {
        let recv = call.receiver.as_ref()?;
        if let Some((class, field)) = self.r.field_of_expr(origin, facts, call.unit, recv) {
            return Some(Slot { class, field, elements: false });
        }
        let Expr::Local(l) = recv else { return None };
        let local = &facts.locals[*l as usize];
        let walked = match &local.walks {
            Some(w) => w.clone(),
            None => {
                // A lambda's parameter: the lambda whose span is its scope, given to `forEach`.
                let lambda = (0..facts.units.len() as UnitIdx).find(|&u| {
                    let unit = &facts.units[u as usize];
                    unit.is_lambda && unit.span == local.scope
                })?;
                let each = facts.calls.iter().find(|c| {
                    c.name == "forEach" && c.args.first() == Some(&Expr::Lambda(lambda)) && c.receiver.is_some()
                })?;
                each.receiver.clone()?
            }
        };
        // `listeners.values()`: the values of a map of listeners.
        let collection = match walked {
            Expr::Call { receiver: Some(r), name, args } if args.is_empty() && name == "values" => *r,
            other => other,
        };
        let (class, field) = self.r.field_of_expr(origin, facts, call.unit, &collection)?;
        Some(Slot { class, field, elements: true })
    }

    /// Whether the slot holds a JDK functional interface (`Runnable`, `Callable`,
    /// `java.util.function.*`): the field's type, or for a collection, the receiver's
    /// declared type or one of the field's type arguments.
    fn holds_functional(&self, origin: Origin, facts: &FileFacts, call: &Call, slot: Slot) -> bool {
        let functional = |t: &Ty| {
            t.dims == 0
                && self.r.qualified_name(&t.name).is_some_and(|q| {
                    q.starts_with("java.util.function.")
                        || q == "java.lang.Runnable"
                        || q == "java.util.concurrent.Callable"
                })
        };
        let Some(field) = self.r.field_type((slot.class, slot.field)) else { return false };
        if !slot.elements {
            return functional(&field);
        }
        let declared = call.receiver.as_ref().and_then(|r| self.r.type_of(origin, facts, call.unit, r));
        declared.as_ref().is_some_and(functional) || field.args.iter().any(functional)
    }

    /// What the project puts in a slot holding callbacks, when no project class implements
    /// its interface: the methods referenced, and the lambdas given,
    /// - in the field's initializer (`= this::onRejected`);
    /// - through a constructor parameter from each `new` of the class (`new JobQueue(cap,
    ///   this::onRejected)`), or through a setter's parameter from each call of the setter
    ///   (`gate.setOnIdle(server::markIdle)`);
    /// - for a collection field, in its class's calls that add to it (`listeners.add(l)`,
    ///   `put(k, l)`), directly or through the parameter of the method making the call,
    ///   from each call of that method (`bus.subscribe(this::onEvent)`).
    fn handler_targets(&mut self, slot: Slot) -> Vec<Callback> {
        let Slot { class, field, elements } = slot;
        let key = (class.origin, class.idx, field, elements);
        if let Some(known) = self.handlers.get(&key) {
            return known.clone();
        }
        self.handlers.insert(key, Vec::new());
        let Some(ff) = self.index.facts(class.origin) else { return Vec::new() };
        let decl = &ff.fields[field as usize];
        let mut out: Vec<Callback> = Vec::new();
        // Where the code was given: a method reference (the call that names it), or a lambda.
        let mut given = |origin: Origin, f: &FileFacts, arg: &Expr, reference: Option<usize>| match arg {
            Expr::Lambda(unit) => {
                if let Origin::Project(file) = origin {
                    out.push(Callback::Lambda(file, *unit));
                }
            }
            Expr::MethodReference => {
                if let Some(i) = reference {
                    out.extend(
                        self.r
                            .callees(origin, f, &f.calls[i])
                            .into_iter()
                            .filter(|m| matches!(m.origin, Origin::Project(_)))
                            .map(Callback::Method),
                    );
                }
            }
            _ => {}
        };
        // Parameters whose value is put in the slot: (method, arity, position).
        let mut params: Vec<(MethodIdx, usize, usize)> = Vec::new();
        let param_of = |unit: UnitIdx, value: &Expr| -> Option<(MethodIdx, usize, usize)> {
            let m = ff.unit_method(unit);
            let Expr::Local(l) = value else { return None };
            let k = m.params.iter().position(|p| p.name == ff.locals[*l as usize].name)?;
            (m.class == class.idx && !m.is_static).then_some((ff.units[unit as usize].method, m.params.len(), k))
        };
        if elements {
            let names_field = |e: &Expr| match e {
                Expr::Name(n) => *n == decl.name,
                Expr::Field(o, n) => **o == Expr::This && *n == decl.name,
                _ => false,
            };
            for (i, c) in ff.calls.iter().enumerate() {
                // A call that gives the collection an element to keep (`add`, `put`, `offer`, ...;
                // the element is its last argument).
                if !(gives_to_keep(&c.name) && c.receiver.as_ref().is_some_and(names_field)) {
                    continue;
                }
                let Some(value) = c.args.last() else { continue };
                // The element is the last argument: the last method reference inside the call.
                let reference =
                    ff.calls.iter().enumerate().skip(i + 1).rfind(|(_, r)| {
                        r.kind == CallKind::Reference && c.full.contains(r.span.start) && r.unit == c.unit
                    });
                given(class.origin, &ff, value, reference.map(|(j, _)| j));
                params.extend(param_of(c.unit, value));
            }
        } else {
            let reference =
                ff.calls.iter().position(|c| c.kind == CallKind::Reference && decl.decl_span.contains(c.span.start));
            if let Some(init) = &decl.init {
                given(class.origin, &ff, init, reference);
            }
            params.extend(
                ff.accesses
                    .iter()
                    .filter(|a| {
                        a.kind == AccessKind::Write
                            && a.name == decl.name
                            && matches!(a.receiver, None | Some(Expr::This))
                    })
                    .filter_map(|a| param_of(a.unit, a.value.as_ref()?)),
            );
        }
        let simple = ff.classes[class.idx as usize].simple_name.clone();
        for &(m, arity, k) in &params {
            let name = &ff.methods[m as usize].name;
            let target = MethodRef { origin: class.origin, idx: m };
            let files: Vec<FileId> = if name == "<init>" {
                self.index.entries().map(|(f, _)| f).collect()
            } else {
                self.index.files_calling(name).collect()
            };
            for file in files {
                let Some(entry) = self.index.entry(file) else { continue };
                let f = entry.facts.clone();
                let origin = Origin::Project(file);
                let gives = |c: &Call| {
                    c.args.len() == arity
                        && match &c.kind {
                            CallKind::New { ty, anonymous: None } => {
                                name == "<init>" && ty.name.rsplit('.').next() == Some(simple.as_str())
                            }
                            CallKind::Method => &c.name == name && self.r.callees(origin, &f, c).contains(&target),
                            _ => false,
                        }
                };
                for c in f.calls.iter().filter(|c| gives(c)) {
                    // The k-th argument is the j-th method reference inside the call.
                    let j = c.args[..k].iter().filter(|a| matches!(a, Expr::MethodReference)).count();
                    let inside = f.calls.iter().enumerate().filter(|(_, r)| {
                        r.kind == CallKind::Reference && c.full.contains(r.span.start) && r.unit == c.unit
                    });
                    let reference = inside.map(|(i, _)| i).nth(j);
                    given(origin, &f, &c.args[k], reference);
                }
            }
        }
        out.sort_by_key(|c| match c {
            Callback::Method(m) => (0, m.origin, m.idx),
            Callback::Lambda(file, unit) => (1, Origin::Project(*file), *unit),
        });
        out.dedup();
        self.handlers.insert(key, out.clone());
        out
    }

    /// The acquisition of the lock region `q` (lock `id`) of `file` by `method`.
    fn acquisition(
        &self,
        file: FileId,
        facts: &FileFacts,
        q: &LockRegion,
        id: &LockId,
        method: String,
        holder: Holder,
    ) -> Acq {
        let span = acquisition_span(facts, q);
        Acq {
            lock: id.clone(),
            holder,
            file,
            span,
            method,
            display: q.text.clone(),
            touched: self.touched(file, span.line),
        }
    }

    /// The project methods a lambda's own body calls.
    fn lambda_callees(&self, file: FileId, unit: UnitIdx) -> Vec<MethodRef> {
        let Some(entry) = self.index.entry(file) else { return Vec::new() };
        let f = &entry.facts;
        f.calls
            .iter()
            .filter(|c| c.unit == unit && c.kind == CallKind::Method)
            .flat_map(|c| self.direct_callees(Origin::Project(file), f, c))
            .collect()
    }

    /// The locks a lambda's own body takes (`e -> { synchronized (stats) { ... } }`).
    fn lambda_locks(&self, file: FileId, unit: UnitIdx) -> Vec<Acq> {
        let Some(entry) = self.index.entry(file) else { return Vec::new() };
        let (facts, resolved) = (&entry.facts, &entry.resolved);
        // Named by the method that wrote it (the span shows the lambda).
        let method = facts.method_display(facts.units[unit as usize].method);
        facts
            .locks
            .iter()
            .zip(&resolved.locks)
            .filter(|(q, _)| q.unit == unit && !try_lock(facts, q))
            .map(|(q, id)| {
                // Its `this` is the object that registered it, not the callee's receiver: only
                // a lock of the whole program keeps its holder through the call.
                let holder = match holder(&self.r, Origin::Project(file), facts, q.unit, id, &q.lock, 0) {
                    Holder::Global => Holder::Global,
                    _ => Holder::Unknown,
                };
                self.acquisition(file, facts, q, id, method.clone(), holder)
            })
            .collect()
    }

    /// Every lock `m` takes, itself or in what it calls (`depth` calls down already).
    pub(super) fn acquisitions(&mut self, m: MethodRef, depth: u32) -> Vec<Acq> {
        if let Some(known) = self.memo.get(&m) {
            return known.clone();
        }
        let Origin::Project(file) = m.origin else { return Vec::new() };
        let Some(entry) = self.index.entry(file) else { return Vec::new() };
        let (facts, resolved) = (entry.facts.clone(), entry.resolved.clone());
        // Recursion reaches this method again: it adds nothing new on the way.
        self.memo.insert(m, Vec::new());
        let name = facts.method_display(m.idx);
        // Its own code, and lambdas it runs inline (`forEach`, `compute*`): not a lambda it
        // hands on to run later.
        let units: Vec<UnitIdx> = (0..facts.units.len() as UnitIdx)
            .filter(|&u| facts.units[u as usize].method == m.idx && facts.holding_unit(u).is_some())
            .collect();
        let mut out = Vec::new();
        for (q, id) in facts.locks.iter().zip(&resolved.locks) {
            if !units.contains(&q.unit) || try_lock(&facts, q) {
                continue;
            }
            let holder = holder(&self.r, m.origin, &facts, q.unit, id, &q.lock, 0);
            out.push(self.acquisition(file, &facts, q, id, name.clone(), holder));
        }
        if depth < MAX_CALL_DEPTH {
            for call in facts.calls.iter().filter(|c| units.contains(&c.unit)) {
                let on_changed_line = self.touched(file, call.span.line);
                for (_, acq) in self.call_acquisitions(m.origin, &facts, call, depth + 1) {
                    let holder = map_holder(&facts, call, acq.holder);
                    out.push(Acq { holder, touched: acq.touched || on_changed_line, ..acq });
                }
            }
        }
        self.memo.insert(m, out.clone());
        out
    }
}

fn callee_name(index: &ProjectIndex, m: MethodRef) -> String {
    index.facts(m.origin).map(|f| f.method_display(m.idx)).unwrap_or_default()
}

/// `l.tryLock()` does not wait, so it cannot close a deadlock.
fn try_lock(facts: &FileFacts, q: &LockRegion) -> bool {
    q.kind == LockKind::Explicit
        && facts.calls.iter().any(|c| c.unit == q.unit && c.full.end == q.span.start && c.name == "tryLock")
}

/// Where a region takes its lock: the method's name, the `synchronized (...)` line, the
/// `lock()` call.
pub(super) fn acquisition_span(facts: &FileFacts, q: &LockRegion) -> Span {
    match q.kind {
        LockKind::SynchronizedMethod => facts.methods[facts.units[q.unit as usize].method as usize].name_span,
        LockKind::Explicit => match facts.calls.iter().find(|c| c.unit == q.unit && c.full.end == q.span.start) {
            Some(c) => c.full,
            None => line_span(facts, q.span.line),
        },
        LockKind::SynchronizedBlock => line_span(facts, q.markers.first().copied().unwrap_or(q.span.line)),
    }
}

/// The code of one line, without its indentation and trailing `{`.
fn line_span(facts: &FileFacts, line: u32) -> Span {
    let start = facts.first_code_offset(line);
    let end = facts.lines.line_end(line, &facts.text);
    let text = &facts.text[start as usize..end as usize];
    let trimmed = text.trim_end().trim_end_matches('{').trim_end();
    Span { start, end: start + trimmed.len() as u32, line, end_line: line }
}

/// Which object holds the lock `id` written as `e`.
fn holder(r: &Resolver, origin: Origin, facts: &FileFacts, unit: UnitIdx, id: &LockId, e: &Expr, depth: u32) -> Holder {
    if depth > 3 {
        return Holder::Unknown;
    }
    match e {
        Expr::ClassLiteral(_) => Holder::Global,
        Expr::Call { receiver: Some(recv), name, .. } if name == "readLock" || name == "writeLock" => {
            holder(r, origin, facts, unit, id, recv, depth + 1)
        }
        Expr::This => Holder::This,
        Expr::Local(_) => object(facts, unit, e, depth).unwrap_or_else(|| match local_init(facts, e) {
            Some(init) => holder(r, origin, facts, unit, id, init, depth + 1),
            None => Holder::Unknown,
        }),
        Expr::Name(_) | Expr::Field(..) => {
            let Some(field) = r.field_of_expr(origin, facts, unit, e) else { return Holder::Unknown };
            if r.field_decl(field).is_some_and(|(f, i)| f.fields[i as usize].is_static) {
                return Holder::Global;
            }
            // A field holding an object whose own monitor is the lock: which object is not known.
            if id.key.ends_with("#this") {
                return Holder::Unknown;
            }
            match e {
                Expr::Field(o, _) => object(facts, unit, o, depth).unwrap_or(Holder::Unknown),
                _ => Holder::This,
            }
        }
        _ => Holder::Unknown,
    }
}

/// `this` or a parameter of the unit's method (through a local alias of one).
fn object(facts: &FileFacts, unit: UnitIdx, e: &Expr, depth: u32) -> Option<Holder> {
    match e {
        Expr::This => Some(Holder::This),
        Expr::Local(l) => {
            let local = &facts.locals[*l as usize];
            if local.reassigned {
                return None;
            }
            let params = &facts.unit_method(unit).params;
            match params.iter().position(|p| p.name == local.name) {
                Some(i) if local.init.is_none() => Some(Holder::Param(i)),
                _ if depth < 3 => object(facts, unit, local_init(facts, e)?, depth + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

fn local_init<'f>(facts: &'f FileFacts, e: &Expr) -> Option<&'f Expr> {
    match e {
        Expr::Local(l) => facts.locals[*l as usize].init.as_ref().filter(|_| !facts.locals[*l as usize].reassigned),
        _ => None,
    }
}

/// A callee's holder as its caller sees it: the callee's `this` is the call's receiver,
/// its parameters are the call's arguments.
fn map_holder(facts: &FileFacts, call: &Call, h: Holder) -> Holder {
    match h {
        Holder::This => match &call.receiver {
            None | Some(Expr::This) => Holder::This,
            Some(e) => object(facts, call.unit, e, 0).unwrap_or(Holder::Unknown),
        },
        Holder::Param(i) => call.args.get(i).and_then(|a| object(facts, call.unit, a, 0)).unwrap_or(Holder::Unknown),
        other => other,
    }
}
