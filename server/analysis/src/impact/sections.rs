//! RL003, a critical section split in two: what ran under one acquisition of a lock in the
//! base now runs under two, with the lock released in between, so another thread can run
//! between the check and the act, or between two writes that keep an invariant together.
//!
//! A method's *sections* are its acquisitions of each lock, in order: its own outermost
//! `synchronized` blocks and `lock()` regions (a `synchronized` method is one section), and
//! each call made without that lock to a method that takes it (a locked getter such as
//! `synchronized int size()`, or a helper that locks again). A section holds the fields it
//! reads and writes, with those its calls read and write (the read/write sets of CAPP
//! section 3.1, step 4, a few calls deep) and the contents of collections and atomics it
//! calls, so that `size()` on a list inside a locked getter is a read of the list, and calls
//! on a local taken from a collection field (`ids = byUser.get(user); ids.add(id)`) read
//! and write what the collection holds. Locks are
//! named by `locks::lock_of` and by the object the method names (`this`, `lock`, `from`),
//! so that `a.size()` and `synchronized (b)` are not one lock.
//!
//! The base and the working version of each changed method are compared lock by lock
//! (RacerD reasons about critical sections the same way, per method and lock): a split is
//! two accesses that one base section held together, now in an earlier and a later
//! section. Only the accesses that make an interleaving matter
//! count: the same field with a write, two writes (an invariant torn between them), or a
//! read then a write of another field that the later section does not re-check. A later
//! section that reads the field again before writing it (`if (cache == null) cache = v`)
//! re-checks, and a split that re-checks is how a lock is narrowed safely. A read and a
//! write count as a check and its act only when the base read first (`computeIfAbsent()`
//! then `size()` acted on no check); two sections the base already had apart, unchanged,
//! are not split by a third the change adds between them.
//!
//! A check still made under the lock whose act, which the base held with it, now runs
//! without the lock at all is the same fault ([`released`]; POOL-326's shape): the act is
//! then a call's (a thread-safe collection's contents, a callee's writes), since a plain
//! field written without its lock is RL001's data race.
//!
//! One warning per method and lock, at the first act, with the other split accesses as
//! related locations and counted.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::matching::{expr_key, method_map};
use super::shared::field_decl;
use super::{Cx, Diagnostic, Related, Severity};
use crate::index::{collection_kind, is_mutator, locks, FieldFlags, FieldKey, MethodRef, Origin, Resolver};
use crate::java::{AccessKind, CallKind, Expr, FileFacts, LockRegion, MethodIdx, Span, UnitIdx};

/// How many split accesses besides the reported one are listed as related locations.
const MAX_RELATED: usize = 4;
/// Calls that return an element a collection holds (the same object, not a copy).
const TAKES_ELEMENT: &[&str] = &["get", "getOrDefault", "computeIfAbsent", "computeIfPresent", "compute"];
/// How many calls deep a section's reads and writes are followed.
const MAX_CALL_DEPTH: u32 = 3;

/// One lock as a method sees it: its canonical key and the object the method names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Held {
    key: String,
    object: String,
}

/// A field read or written in a section, where, and through which call.
#[derive(Clone, Debug)]
struct Touch {
    field: FieldKey,
    kind: AccessKind,
    span: Span,
    via: Option<String>,
    /// For a touch made by a call: the call's name and its rank among the method's calls
    /// of that name, so that two calls of one helper stay two places across versions.
    call: Option<(String, usize)>,
}

/// How many calls of each name a method makes, in the base and in the working version.
struct Calls<'a> {
    base: HashMap<&'a str, usize>,
    now: HashMap<&'a str, usize>,
}

impl<'a> Calls<'a> {
    fn new(old: &'a FileFacts, old_m: MethodIdx, facts: &'a FileFacts, new_m: MethodIdx) -> Self {
        let count = |f: &'a FileFacts, m: MethodIdx| {
            let mut n: HashMap<&'a str, usize> = HashMap::new();
            for c in f.calls_of(m) {
                *n.entry(c.name.as_str()).or_default() += 1;
            }
            n
        };
        Calls { base: count(old, old_m), now: count(facts, new_m) }
    }

    /// The working version makes fewer calls of this name: one the base made is gone.
    fn dropped(&self, name: &str) -> bool {
        self.now.get(name).copied().unwrap_or(0) < self.base.get(name).copied().unwrap_or(0)
    }
}

impl Touch {
    /// Whether `self`, in the working version, is `base` of the base version: the same
    /// field and access, by the same call when the base made that call (a helper called
    /// twice is two places); else code moved, from the method's own code or from a call
    /// the working version no longer makes (code moved into or out of a helper; of a name
    /// called twice in the base and once now, either may be the one gone).
    fn is(&self, base: &Touch, calls: &Calls) -> bool {
        let same_place = match (&self.call, &base.call) {
            (Some((name, _)), _) if calls.base.contains_key(name.as_str()) => self.call == base.call,
            (_, Some((name, _))) => calls.dropped(name),
            (_, None) => true,
        };
        self.field == base.field && self.kind == base.kind && same_place
    }
}

/// One acquisition of a lock.
#[derive(Clone, Debug)]
struct Section {
    lock: Held,
    start: u32,
    touches: Vec<Touch>,
}

impl Section {
    fn has(&self, touch: &Touch, calls: &Calls) -> bool {
        self.touches.iter().any(|t| touch.is(t, calls))
    }

    /// The same accesses of the same lock, in the same order, by the same calls: a section
    /// the change left as it was.
    fn same_as(&self, other: &Section) -> bool {
        let shape =
            |s: &Section| s.touches.iter().map(|t| (t.field.clone(), t.kind, t.via.clone())).collect::<Vec<_>>();
        self.lock == other.lock && shape(self) == shape(other)
    }

    fn reads(&self, field: &FieldKey) -> bool {
        self.touches.iter().any(|t| t.field == *field && t.kind == AccessKind::Read)
    }

    /// Reads `field` before the write `act` (a re-check), not at the same place (`x -= n`
    /// reads and writes in one step).
    fn rechecks(&self, field: &FieldKey, act: &Touch) -> bool {
        self.touches.iter().any(|t| t.field == *field && t.kind == AccessKind::Read && t.span.start < act.span.start)
    }
}

pub(crate) fn collect(cx: &Cx, out: &mut Vec<Diagnostic>) {
    let index = cx.index;
    let mut builder = Builder { r: index.resolver(), callee_touches: HashMap::new(), cx, shared: HashMap::new() };
    for change in &cx.changes.files {
        let (Some(old), Some(entry)) = (&change.old, index.entry(change.file)) else { continue };
        let facts = &entry.facts;
        let origin = Origin::Project(change.file);
        let touched: BTreeSet<u32> = change.diff.touched_lines().collect();
        for (new_m, old_m) in method_map(old, facts) {
            let span = facts.methods[new_m as usize].span;
            if touched.range(span.line..=span.end_line).next().is_none() {
                continue;
            }
            let now = builder.sections(origin, facts, new_m);
            if now.is_empty() {
                continue;
            }
            let before = builder.sections(origin, old, old_m);
            // Nothing the base held together: nothing split or released.
            if before.is_empty() {
                continue;
            }
            let calls = Calls::new(old, old_m, facts, new_m);
            for split in splits(&before, &now, &calls) {
                out.push(diagnostic(change.file, facts, new_m, &split));
            }
            let outside = builder.outside(origin, facts, new_m, &now);
            for split in released(&before, &now, &outside, &calls) {
                out.push(diagnostic(change.file, facts, new_m, &split));
            }
        }
    }
}

/// Accesses of one lock that a base section held together and two working sections hold
/// apart: `(first, second)` with the second's section, per lock.
struct Split<'a> {
    display: String,
    pairs: Vec<(&'a Touch, &'a Touch)>,
    /// The act runs without the lock at all (not under a second acquisition).
    released: bool,
}

/// The working version's sections, by lock, in order.
fn by_lock(now: &[Section]) -> BTreeMap<&Held, Vec<&Section>> {
    let mut out: BTreeMap<&Held, Vec<&Section>> = BTreeMap::new();
    for s in now {
        out.entry(&s.lock).or_default().push(s);
    }
    out
}

fn splits<'a>(before: &[Section], now: &'a [Section], calls: &Calls) -> Vec<Split<'a>> {
    let mut out = Vec::new();
    for (lock, sections) in by_lock(now) {
        let old: Vec<&Section> = before.iter().filter(|s| s.lock == *lock).collect();
        let together = |set: &[&Section], a: &Touch, b: &Touch| held_together(set, a, b, calls);
        let mut pairs = Vec::new();
        for (i, first) in sections.iter().enumerate() {
            for (j, second) in sections.iter().enumerate().skip(i + 1) {
                // Two sections the base had apart already, as they are (a change that adds
                // a third between them splits neither).
                let apart = old
                    .iter()
                    .enumerate()
                    .any(|(k, b1)| b1.same_as(first) && old[k + 1..].iter().any(|b2| b2.same_as(second)));
                if apart {
                    continue;
                }
                for a in &first.touches {
                    // A section in between that reads the field again re-checks it.
                    if sections[i + 1..j].iter().any(|s| s.reads(&a.field)) {
                        continue;
                    }
                    for b in second.touches.iter().filter(|b| interleaving_matters(a, b, second)) {
                        if together(&old, a, b) {
                            pairs.push((a, b));
                        }
                    }
                }
            }
        }
        if pairs.is_empty() {
            continue;
        }
        // The same field read and written first: the plainest check-then-act.
        pairs.sort_by_key(|(a, b)| (a.field != b.field, b.span.start, a.span.start, a.kind == AccessKind::Read));
        pairs.dedup_by(|x, y| x.0.field == y.0.field && x.1.field == y.1.field && x.1.span == y.1.span);
        out.push(Split { display: lock.object.clone(), pairs, released: false });
    }
    out
}

/// Whether a base section of `set` held `a` and `b` together as a check and its act: the
/// base read before it wrote, or in one call (a write the base made before its check,
/// `computeIfAbsent` then `size()`, acted on no check).
fn held_together(set: &[&Section], a: &Touch, b: &Touch, calls: &Calls) -> bool {
    set.iter().any(|s| {
        if a.kind == AccessKind::Read && b.kind == AccessKind::Write {
            s.touches
                .iter()
                .filter(|ta| a.is(ta, calls))
                .any(|ta| s.touches.iter().any(|tb| b.is(tb, calls) && ta.span.start <= tb.span.start))
        } else {
            s.has(a, calls) && s.has(b, calls)
        }
    })
}

/// A check still made under a lock (its own section, often a locked getter: `entry.state()`
/// with `synchronized State state()`) whose act, which one base section of that lock held
/// with it, now runs without the lock at all (POOL-326: `synchronized (entry)` taken away
/// from around `entry.state() == IDLE` and `idle.remove(entry)`). Only acts by a call (a
/// thread-safe collection's or atomic's contents, a callee's writes): a plain field written
/// without its lock is a data race, RL001's. A later read of the same field under the lock
/// before the act (a re-check) keeps it quiet, as for a split.
fn released<'a>(before: &[Section], now: &'a [Section], outside: &'a [Touch], calls: &Calls) -> Vec<Split<'a>> {
    let mut out = Vec::new();
    for (lock, sections) in by_lock(now) {
        let old: Vec<&Section> = before.iter().filter(|s| s.lock == *lock).collect();
        let mut pairs = Vec::new();
        for a in sections.iter().flat_map(|s| &s.touches).filter(|a| a.kind == AccessKind::Read) {
            for b in outside.iter().filter(|b| b.kind == AccessKind::Write && b.via.is_some() && b.field != a.field) {
                let rechecked =
                    sections.iter().any(|s| s.start > a.span.start && s.start < b.span.start && s.reads(&a.field));
                if b.span.start > a.span.start && !rechecked && held_together(&old, a, b, calls) {
                    pairs.push((a, b));
                }
            }
        }
        if pairs.is_empty() {
            continue;
        }
        pairs.sort_by_key(|(a, b)| (b.span.start, a.span.start));
        pairs.dedup_by(|x, y| x.0.field == y.0.field && x.1.field == y.1.field && x.1.span == y.1.span);
        out.push(Split { display: lock.object.clone(), pairs, released: true });
    }
    out
}

/// Whether another thread running between `a` (earlier section) and `b` (in `later`) can
/// break what the method relies on.
fn interleaving_matters(a: &Touch, b: &Touch, later: &Section) -> bool {
    use AccessKind::*;
    match (a.kind, b.kind) {
        _ if a.field == b.field => {
            (a.kind == Write || b.kind == Write) && !(a.kind == Read && later.rechecks(&a.field, b))
        }
        (Write, Write) => true,
        (Read, Write) => !later.rechecks(&a.field, b),
        _ => false,
    }
}

fn diagnostic(file: crate::index::FileId, facts: &FileFacts, method: MethodIdx, split: &Split) -> Diagnostic {
    let (a, b) = split.pairs[0];
    let describe = |t: &Touch| match &t.via {
        Some(callee) => format!("{} of `{}` by `{callee}()`", noun(t.kind), t.field.display_name()),
        None => format!("{} of `{}`", noun(t.kind), t.field.display_name()),
    };
    let more = match split.pairs.len() - 1 {
        0 => String::new(),
        1 => " (1 more access is split the same way)".to_string(),
        n => format!(" ({n} more accesses are split the same way)"),
    };
    let first = match split.released {
        false => format!("the first acquisition of `{}` covers this {}", split.display, noun(a.kind)),
        true => format!("this {} still takes `{}`", noun(a.kind), split.display),
    };
    let mut related = vec![Related { file, span: a.span, message: first }];
    for (x, y) in split.pairs[1..].iter().take(MAX_RELATED) {
        related.push(Related {
            file,
            span: y.span,
            message: format!("also split from the {} (line {}): this {}", describe(x), x.span.line, describe(y)),
        });
    }
    Diagnostic {
        file,
        span: b.span,
        severity: Severity::Warning,
        code: "RL003",
        message: match split.released {
            false => format!(
                "the change split a critical section of `{}()`: the {} (line {}) and this {} now run under two separate acquisitions of `{}`, so another thread can run between them{more}",
                facts.method_display(method),
                describe(a),
                a.span.line,
                describe(b),
                split.display,
            ),
            true => format!(
                "the change took `{}` away from this {} in `{}()`, which the base made under it after the {} (line {}): the read still takes the lock, this no longer does, so another thread can change `{}` between them{more}",
                split.display,
                describe(b),
                facts.method_display(method),
                describe(a),
                a.span.line,
                a.field.display_name(),
            ),
        },
        related,
    }
}

fn noun(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Read => "read",
        AccessKind::Write => "write",
    }
}

/// Computes sections of methods, with read/write sets and sharing cached across methods.
struct Builder<'a> {
    r: Resolver<'a>,
    callee_touches: HashMap<MethodRef, Vec<(FieldKey, AccessKind)>>,
    cx: &'a Cx<'a>,
    shared: HashMap<FieldKey, bool>,
}

impl Builder<'_> {
    /// The sections of `method` in `facts` (the working file or its base), in order.
    fn sections(&mut self, origin: Origin, facts: &FileFacts, method: MethodIdx) -> Vec<Section> {
        let own = self.own_regions(origin, facts, method);
        let mut out: Vec<Section> = Vec::new();
        for (region, lock) in &own {
            let touches = self.touches(origin, facts, region.unit, region.span);
            out.push(Section { lock: lock.clone(), start: region.span.start, touches });
        }
        // Calls that take a lock the caller does not hold there: a section of their own.
        for (i, call) in
            facts.calls.iter().enumerate().filter(|(_, c)| c.kind == CallKind::Method && in_body(facts, c.unit, method))
        {
            for callee in self.r.callees(origin, facts, call) {
                let Some((cf, ci)) = self.r.method(callee) else { continue };
                for (region, lock) in self.own_regions(callee.origin, &cf, ci) {
                    // The callee's `this` is the receiver: its monitor as the caller names it
                    // (`synchronized (entry)` on an interface type and the implementation's
                    // synchronized method lock one object).
                    let key = match (&region.lock, call.receiver.as_ref()) {
                        (Expr::This, Some(recv)) if *recv != Expr::This => {
                            locks::lock_of_expr(&self.r, origin, facts, call.unit, recv, "").key
                        }
                        _ => lock.key,
                    };
                    let lock = Held { key, object: callee_object(facts, call.receiver.as_ref(), &region.lock) };
                    if own.iter().any(|(r, l)| *l == lock && r.unit == call.unit && r.span.contains(call.span.start)) {
                        continue; // re-entered: part of the caller's section
                    }
                    let name = cf.methods[ci as usize].name.clone();
                    let at = Some(call_rank(facts, i));
                    let touches = self
                        .touches(callee.origin, &cf, region.unit, region.span)
                        .into_iter()
                        .map(|t| Touch { span: call.span, via: Some(name.clone()), call: at.clone(), ..t })
                        .collect();
                    out.push(Section { lock, start: call.span.start, touches });
                }
            }
        }
        out.sort_by_key(|s| s.start);
        out
    }

    /// The touches of `method`'s own code that no section of `now` holds, whatever the lock.
    fn outside(&mut self, origin: Origin, facts: &FileFacts, method: MethodIdx, now: &[Section]) -> Vec<Touch> {
        let mut out = Vec::new();
        for unit in (0..facts.units.len() as UnitIdx).filter(|&u| in_body(facts, u, method)) {
            let span = facts.units[unit as usize].span;
            out.extend(self.touches(origin, facts, unit, span).into_iter().filter(|t| {
                !now.iter()
                    .any(|s| s.touches.iter().any(|h| h.field == t.field && h.kind == t.kind && h.span == t.span))
            }));
        }
        out
    }

    /// The outermost lock regions of a method's own code (not of its lambdas, which run
    /// later), with the lock each holds.
    fn own_regions<'f>(&self, origin: Origin, facts: &'f FileFacts, method: MethodIdx) -> Vec<(&'f LockRegion, Held)> {
        let regions: Vec<(&LockRegion, Held)> = facts
            .locks
            .iter()
            .filter(|l| in_body(facts, l.unit, method))
            .map(|l| {
                (l, Held { key: locks::lock_of(&self.r, origin, facts, l).key, object: own_object(facts, &l.lock) })
            })
            .collect();
        regions
            .iter()
            .filter(|(l, h)| !regions.iter().any(|(o, g)| g == h && o.span != l.span && o.span.contains_span(&l.span)))
            .cloned()
            .collect()
    }

    /// The shared fields read and written in `span` of `unit`, directly and by calls.
    fn touches(&mut self, origin: Origin, facts: &FileFacts, unit: UnitIdx, span: Span) -> Vec<Touch> {
        self.touches_at(origin, facts, unit, span, 0)
    }

    fn touches_at(&mut self, origin: Origin, facts: &FileFacts, unit: UnitIdx, span: Span, depth: u32) -> Vec<Touch> {
        let mut out = Vec::new();
        for a in facts.accesses.iter().filter(|a| a.unit == unit && span.contains(a.span.start)) {
            let Some(field) = crate::index::resolve_access(&self.r, origin, facts, a) else { continue };
            let Some(key) = self.r.field_key(field, a.element) else { continue };
            if self.is_shared(&key) {
                out.push(Touch { field: key, kind: a.kind, span: a.span, via: None, call: None });
            }
        }
        for (i, call) in facts
            .calls
            .iter()
            .enumerate()
            .filter(|(_, c)| c.unit == unit && c.kind == CallKind::Method && span.contains(c.span.start))
        {
            let at = Some(call_rank(facts, i));
            if let Some(key) = self.container(origin, facts, unit, call.receiver.as_ref()) {
                let kind = if is_mutator(&call.name) { AccessKind::Write } else { AccessKind::Read };
                if self.is_shared(&key) {
                    out.push(Touch { field: key, kind, span: call.span, via: Some(call.name.clone()), call: at });
                }
                continue;
            }
            if depth >= MAX_CALL_DEPTH {
                continue;
            }
            for callee in self.r.callees(origin, facts, call) {
                for (field, kind) in self.method_touches(callee, depth + 1) {
                    out.push(Touch { field, kind, span: call.span, via: Some(call.name.clone()), call: at.clone() });
                }
            }
        }
        out
    }

    /// What a project method's own code reads and writes, with its callees', computed
    /// once: the read/write set of CAPP section 3.1 step 4, with collection contents.
    fn method_touches(&mut self, m: MethodRef, depth: u32) -> Vec<(FieldKey, AccessKind)> {
        if let Some(known) = self.callee_touches.get(&m) {
            return known.clone();
        }
        self.callee_touches.insert(m, Vec::new()); // recursion ends here
        let mut all = BTreeSet::new();
        if let (Origin::Project(_), Some((facts, idx))) = (m.origin, self.r.method(m)) {
            for unit in (0..facts.units.len() as UnitIdx).filter(|&u| in_body(&facts, u, idx)) {
                let span = facts.units[unit as usize].span;
                all.extend(self.touches_at(m.origin, &facts, unit, span, depth).into_iter().map(|t| (t.field, t.kind)));
            }
        }
        let all: Vec<(FieldKey, AccessKind)> = all.into_iter().collect();
        self.callee_touches.insert(m, all.clone());
        all
    }

    /// The contents of a field holding a JDK collection or an atomic, when `receiver` is
    /// that field, or a local naming an element taken from it (`Set<String> ids =
    /// byUser.get(user)`: `ids.size()` reads what the map holds, `ids.add(id)` changes it):
    /// what calls on it read and write.
    fn container(&self, origin: Origin, facts: &FileFacts, unit: UnitIdx, receiver: Option<&Expr>) -> Option<FieldKey> {
        let receiver = receiver?;
        if let Expr::Local(l) = receiver {
            let local = &facts.locals[*l as usize];
            return match &local.init {
                Some(Expr::Call { receiver: Some(from), name, .. })
                    if !local.reassigned && TAKES_ELEMENT.contains(&name.as_str()) =>
                {
                    self.container(origin, facts, unit, Some(from))
                }
                _ => None,
            };
        }
        let field = self.r.field_of_expr(origin, facts, unit, receiver)?;
        let ty = self.r.field_type(field)?;
        let qualified = self.r.qualified_name(&ty.name)?;
        let simple = qualified.rsplit('.').next().unwrap_or(&qualified);
        let container = qualified.starts_with("java.util.concurrent.atomic.")
            || collection_kind(&qualified).is_some()
            || matches!(
                simple,
                "Queue"
                    | "Deque"
                    | "Map"
                    | "Set"
                    | "List"
                    | "Collection"
                    | "BlockingQueue"
                    | "BlockingDeque"
                    | "ConcurrentMap"
            );
        (ty.dims == 0 && container).then(|| self.r.field_key(field, true)).flatten()
    }

    /// A shared variable of the project (`Sharing::is_shared_variable`).
    fn is_shared(&mut self, key: &FieldKey) -> bool {
        if let Some(&known) = self.shared.get(key) {
            return known;
        }
        let shared = field_decl(self.cx.index, key).is_some_and(|(origin, facts, i)| {
            let decl = &facts.fields[i as usize];
            let flags =
                FieldFlags { is_static: decl.is_static, is_final: decl.is_final, is_volatile: decl.is_volatile };
            matches!(origin, Origin::Project(_)) && self.cx.sharing.is_shared_variable(key, flags)
        });
        self.shared.insert(key.clone(), shared);
        shared
    }
}

/// A call's name and how many calls of that name its method makes before it.
fn call_rank(facts: &FileFacts, call: usize) -> (String, usize) {
    let c = &facts.calls[call];
    let method = facts.units[c.unit as usize].method;
    let before = facts.calls[..call]
        .iter()
        .filter(|o| o.name == c.name && facts.units[o.unit as usize].method == method)
        .count();
    (c.name.clone(), before)
}

/// Whether code of `unit` runs as `method`'s own body (not in one of its lambdas).
fn in_body(facts: &FileFacts, unit: UnitIdx, method: MethodIdx) -> bool {
    let u = &facts.units[unit as usize];
    u.method == method && !u.is_lambda
}

/// The object a method's own lock region locks, as the method names it.
fn own_object(facts: &FileFacts, lock: &Expr) -> String {
    match lock {
        Expr::This => "this".into(),
        Expr::Field(recv, name) if **recv == Expr::This => name.clone(),
        Expr::Call { receiver: Some(recv), name, .. } if name == "readLock" || name == "writeLock" => {
            own_object(facts, recv)
        }
        other => expr_key(facts, other),
    }
}

/// The object a callee's lock region locks, as the caller names it: the callee's `this`
/// is the call's receiver, its field `lock` is the receiver's.
fn callee_object(facts: &FileFacts, receiver: Option<&Expr>, lock: &Expr) -> String {
    let recv = match receiver {
        None | Some(Expr::This) => None,
        Some(e) => Some(expr_key(facts, e)),
    };
    let field = |name: &str| recv.as_ref().map_or(name.to_string(), |r| format!("{r}.{name}"));
    match lock {
        Expr::This => recv.unwrap_or_else(|| "this".into()),
        Expr::Name(name) => field(name),
        Expr::Field(r, name) if **r == Expr::This => field(name),
        Expr::Call { receiver: Some(r), name, .. } if name == "readLock" || name == "writeLock" => {
            callee_object(facts, receiver, r)
        }
        Expr::ClassLiteral(t) => format!("{}.class", t.name),
        _ => "?".into(),
    }
}
