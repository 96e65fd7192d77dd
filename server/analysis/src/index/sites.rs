//! One file's facts resolved against the project: which field each access touches, the
//! element accesses hidden in calls on non-thread-safe collections, and the evidence
//! that objects of a class are shared between threads (SimRT section 3.2).

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{ClassRef, FieldKey, FileId, LockId, Origin, ProjectIndex, Resolver, TypeName};
use crate::java::{
    Access, AccessKind, CallKind, ClassIdx, ClassKind, Expr, FieldDecl, FileFacts, MethodIdx, Span, TypeRef, UnitIdx,
};

/// A resolved access to a field (or to the elements it holds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub field: FieldKey,
    pub kind: AccessKind,
    /// The field name's token (the method name's for collection calls).
    pub span: Span,
    pub unit: UnitIdx,
    /// For element accesses made by a collection call: the method (`put`, `get`).
    pub via: Option<Arc<str>>,
    /// The receiver is `this` (or implicit): the object under construction in a constructor.
    pub on_this: bool,
    /// Index of the access in `FileFacts::accesses` (of the call in `calls` when `via`).
    pub item: u32,
    /// How the field is declared.
    pub decl: FieldFlags,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldFlags {
    pub is_static: bool,
    pub is_final: bool,
    pub is_volatile: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MonitorOp {
    Wait,
    Notify,
}

/// `wait`/`notify` (or `await`/`signal` on a condition) on a canonical monitor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonitorCall {
    pub call: u32,
    pub lock: LockId,
    pub op: MonitorOp,
}

#[derive(Clone, Debug, Default)]
pub struct ResolvedFile {
    pub sites: Vec<Site>,
    /// The canonical lock of each of the file's lock regions (parallel to `FileFacts::locks`).
    pub locks: Vec<LockId>,
    /// Locks that every caller holds when it calls a private method (a helper extracted
    /// from a critical section runs under its callers' lock).
    pub caller_locks: std::collections::HashMap<MethodIdx, Vec<LockId>>,
    pub monitor_calls: Vec<MonitorCall>,
    /// Classes whose objects this file shows to be shared, and why.
    pub escape_seeds: Vec<(Arc<str>, &'static str)>,
    /// `(a, b)`: an object of class `a` holds objects of class `b` (an instance field's
    /// type or type argument), or `a` is an inner class holding its outer instance `b`.
    pub holds: Vec<(Arc<str>, Arc<str>)>,
    /// `(sub, super)` for the file's classes.
    pub supertypes: Vec<(Arc<str>, Arc<str>)>,
    /// Methods that start threads or hand work to executors.
    pub starts_threads: BTreeSet<MethodIdx>,
    /// A hash of the escape evidence above.
    pub evidence: u64,
    /// What resolving the file read of other files: when their declarations change, the
    /// file is resolved again only if it depends on them.
    pub deps: super::resolve::Dependencies,
}

/// Classes whose subclasses are code another thread runs (`new` one and it may be started,
/// submitted or forked).
pub(crate) const THREAD_TYPES: &[&str] = &[
    "Thread",
    "Runnable",
    "Callable",
    "TimerTask",
    "RecursiveTask",
    "RecursiveAction",
    "CountedCompleter",
    "ForkJoinTask",
    "java.lang.Thread",
    "java.lang.Runnable",
];

/// Fork/join tasks: `fork()` on one runs it on a pool thread.
const FORK_JOIN_TASKS: &[&str] = &["ForkJoinTask", "RecursiveTask", "RecursiveAction", "CountedCompleter"];

/// Calls that run their arguments on another thread.
pub(crate) const SPAWN_METHODS: &[&str] = &[
    "submit",
    "execute",
    "invokeAll",
    "invokeAny",
    "schedule",
    "scheduleAtFixedRate",
    "scheduleWithFixedDelay",
    "runAsync",
    "supplyAsync",
    "thenRunAsync",
    "thenAcceptAsync",
    "thenApplyAsync",
    "thenComposeAsync",
    "startVirtualThread",
    "newThread",
    "unstarted",
];

/// Objects stored in, or taken from, another object (issue 21, item 3): a concurrent
/// collection's elements reach every thread that reaches the collection, and what a project
/// object is given to keep (`session.setAttribute(k, v)`, `registry.addListener(l)`) or hands
/// out under a cast (`(Queue) session.getAttribute(k)`) escapes with it. A concurrent
/// collection makes its elements escape at once (it is made to be shared); a project
/// object, through a "holds" edge, only when it escapes itself.
fn stored_and_taken(r: &Resolver, origin: Origin, facts: &FileFacts, out: &mut ResolvedFile) {
    // What keeps objects: a project object (a holds edge), or a concurrent collection (made
    // to be shared: what it keeps escapes at once). Anything else keeps nothing we follow.
    enum Holder {
        Project(Arc<str>),
        Concurrent,
    }
    let holder = |unit: UnitIdx, recv: &Expr| -> Option<Holder> {
        let t = r.type_of(origin, facts, unit, recv)?;
        match t.class() {
            Some(c) if matches!(c.origin, Origin::Project(_)) => Some(Holder::Project(Arc::from(r.class_name(c)))),
            _ => {
                let q = r.qualified_name(&t.name)?;
                (q.starts_with("java.util.concurrent.")
                    && !q.starts_with("java.util.concurrent.atomic.")
                    && collection_kind(&q).is_some())
                .then_some(Holder::Concurrent)
            }
        }
    };
    let keep = |holder: &Holder, held: &super::Ty, out: &mut ResolvedFile| {
        let mut classes = Vec::new();
        collect_classes(held, &mut classes, r);
        match holder {
            Holder::Project(h) => out.holds.extend(classes.into_iter().map(|c| (h.clone(), c))),
            Holder::Concurrent => {
                out.escape_seeds.extend(classes.into_iter().map(|c| (c, "it is kept in a concurrent collection")))
            }
        }
    };
    for call in &facts.calls {
        let (CallKind::Method, Some(recv)) = (&call.kind, &call.receiver) else { continue };
        if !gives_to_keep(&call.name) || call.args.is_empty() {
            continue;
        }
        let Some(h) = holder(call.unit, recv) else { continue };
        for arg in &call.args {
            if let Some(t) = r.type_of(origin, facts, call.unit, arg) {
                keep(&h, &t, out);
            }
        }
    }
    for local in &facts.locals {
        let Some((t, recv)) = local.init.as_ref().and_then(taken_under_cast) else { continue };
        let unit = facts.unit_at(local.scope.start).unwrap_or(0);
        let Some(h) = holder(unit, recv) else { continue };
        keep(&h, &r.ty(origin, Some(Resolver::unit_class(facts, unit)), t), out);
    }
}

/// `(T) holder.getX(…)`: the type and the holder.
fn taken_under_cast(e: &Expr) -> Option<(&crate::java::TypeRef, &Expr)> {
    let Expr::Cast(t, inner) = e else { return None };
    match inner.as_ref() {
        Expr::Call { receiver: Some(recv), name, .. } if TAKING_PREFIXES.iter().any(|p| name.starts_with(p)) => {
            Some((t, recv.as_ref()))
        }
        _ => None,
    }
}

/// Whether a call gives its receiver an object to keep (`add`, `put`, `offer`, `register`,
/// `subscribe`, ...).
pub(crate) fn gives_to_keep(method: &str) -> bool {
    STORING_PREFIXES.iter().any(|p| method.starts_with(p))
}

/// Calls that give the receiver an object to keep.
const STORING_PREFIXES: &[&str] =
    &["set", "put", "add", "offer", "push", "register", "attach", "subscribe", "store", "enqueue"];
/// Calls that hand out an object the receiver keeps.
const TAKING_PREFIXES: &[&str] = &["get", "take", "poll", "peek", "remove", "pop", "find", "lookup"];

/// The dependent stages of a `CompletionStage` whose code may run on another thread (their
/// `…Async` forms are in [`SPAWN_METHODS`] or start one themselves).
const COMPLETION_STAGES: &[&str] = &[
    "thenApply",
    "thenAccept",
    "thenRun",
    "thenCompose",
    "thenCombine",
    "thenAcceptBoth",
    "runAfterBoth",
    "applyToEither",
    "acceptEither",
    "runAfterEither",
    "whenComplete",
    "handle",
    "exceptionally",
];

/// A `CompletableFuture` or `CompletionStage`, by type or as the result of another stage.
fn is_completion_stage(r: &Resolver, origin: Origin, facts: &FileFacts, unit: UnitIdx, recv: &Expr) -> bool {
    if let Expr::Call { name, .. } = recv {
        if COMPLETION_STAGES.contains(&name.as_str())
            || SPAWN_METHODS.contains(&name.as_str())
            || name.ends_with("Async")
        {
            return true;
        }
    }
    r.type_of(origin, facts, unit, recv)
        .and_then(|t| r.qualified_name(&t.name))
        .is_some_and(|n| matches!(n.rsplit('.').next(), Some("CompletableFuture" | "CompletionStage")))
}

pub(super) fn resolve_file(index: &ProjectIndex, id: FileId) -> ResolvedFile {
    let Some(entry) = index.entry(id) else { return ResolvedFile::default() };
    let facts = &entry.facts;
    let origin = Origin::Project(id);
    let r = index.resolver();
    let mut out = ResolvedFile::default();
    out.locks = facts.locks.iter().map(|l| super::locks::lock_of(&r, origin, facts, l)).collect();
    out.caller_locks = caller_locks(facts, &out.locks, declared_caller_locks(&r, origin, facts));
    out.monitor_calls = monitor_calls(&r, origin, facts);
    field_sites(&r, origin, facts, &mut out);
    collection_sites(&r, origin, facts, &mut out);
    escape_evidence(&r, origin, facts, &mut out);
    out.evidence = {
        use std::hash::{Hash, Hasher};
        let mut h = crate::cache_dir::stable_hasher();
        (&out.escape_seeds, &out.holds, &out.supertypes).hash(&mut h);
        for c in &facts.classes {
            c.annotations.iter().any(|a| a.name == "NotThreadSafe").hash(&mut h);
        }
        h.finish()
    };
    out.deps = r.into_dependencies();
    out
}

/// Methods annotated `@GuardedBy("lock")`: JCIP's contract that every caller holds the
/// lock, so their body runs under it (and a caller without it is what is wrong).
fn declared_caller_locks(
    r: &Resolver,
    origin: Origin,
    facts: &FileFacts,
) -> std::collections::HashMap<MethodIdx, Vec<LockId>> {
    let mut out = std::collections::HashMap::new();
    for (m, method) in facts.methods.iter().enumerate() {
        let Some(guard) = method.annotations.iter().find(|a| a.name == "GuardedBy").and_then(|a| a.strings.first())
        else {
            continue;
        };
        if let Some(key) = super::locks::guard_lock_key(r, ClassRef { origin, idx: method.class }, guard) {
            out.insert(m as MethodIdx, vec![LockId { key, display: guard.clone(), shared: false }]);
        }
    }
    out
}

/// For each private method called only with some locks held, those locks, and the locks
/// `declared` by annotation. Callers that are themselves such helpers pass on what their
/// callers hold (a few levels deep).
///
/// A private method's callers are all in its file: calls by its name on `this`, on the
/// outer instance, or (static) on its class, from its class or a class nested in it that
/// does not declare a method of that name itself. A method reference to it (`this::drain`,
/// `Pool::drain`) gives it to code that calls it later, under no known lock: such a helper
/// holds only what it declares.
fn caller_locks(
    facts: &FileFacts,
    locks: &[LockId],
    declared: std::collections::HashMap<MethodIdx, Vec<LockId>>,
) -> std::collections::HashMap<MethodIdx, Vec<LockId>> {
    use std::collections::HashMap;
    let mut out: HashMap<MethodIdx, Vec<LockId>> = HashMap::new();
    let private: Vec<MethodIdx> =
        (0..facts.methods.len() as MethodIdx).filter(|&m| facts.methods[m as usize].is_private).collect();
    if private.is_empty() {
        return declared;
    }
    let held_at = |out: &HashMap<MethodIdx, Vec<LockId>>, unit: UnitIdx, offset: u32| -> Vec<LockId> {
        let mut held: Vec<LockId> = facts.held_regions(unit, offset).into_iter().map(|i| locks[i].clone()).collect();
        if let Some(u) = facts.holding_unit(unit) {
            let m = facts.units[u as usize].method;
            held.extend(out.get(&m).into_iter().chain(declared.get(&m)).flatten().cloned());
        }
        held
    };
    // Calls and references by name, once: a big file has many private methods and calls.
    let mut by_name: HashMap<&str, Vec<&crate::java::Call>> = HashMap::new();
    for c in facts.calls.iter().filter(|c| matches!(c.kind, CallKind::Method | CallKind::Reference)) {
        by_name.entry(c.name.as_str()).or_default().push(c);
    }
    // Each private method's calls from its file, or `None` when a reference lets it escape.
    let mut calls_of: HashMap<MethodIdx, Vec<&crate::java::Call>> = HashMap::new();
    'methods: for &m in &private {
        let method = &facts.methods[m as usize];
        let mut calls = Vec::new();
        for &c in by_name.get(method.name.as_str()).into_iter().flatten() {
            let caller = facts.units[c.unit as usize].method;
            let from = facts.methods[caller as usize].class;
            // A private member is visible in its class and the classes nested in it.
            if !facts.is_within(from, method.class) {
                continue;
            }
            let on_it = match &c.receiver {
                None | Some(Expr::This) => true,
                Some(Expr::OuterThis(name)) | Some(Expr::Name(name)) => {
                    *name == facts.classes[method.class as usize].simple_name
                }
                _ => false,
            };
            if !on_it || (c.receiver.is_none() && from != method.class && declares(facts, from, &method.name)) {
                continue;
            }
            match c.kind {
                CallKind::Reference => continue 'methods,
                _ if c.args.len() == method.params.len() && caller != m => calls.push(c),
                _ => {}
            }
        }
        calls_of.insert(m, calls);
    }
    for _round in 0..3 {
        let mut next = HashMap::new();
        for (&m, calls) in &calls_of {
            let mut common: Option<Vec<LockId>> = None;
            for c in calls {
                let held = held_at(&out, c.unit, c.span.start);
                common = Some(match common {
                    None => held,
                    Some(prev) => prev.into_iter().filter(|l| held.contains(l)).collect(),
                });
            }
            if let Some(held) = common.filter(|h| !h.is_empty()) {
                next.insert(m, held);
            }
        }
        if next == out {
            break;
        }
        out = next;
    }
    for (m, held) in declared {
        let all = out.entry(m).or_default();
        all.extend(held);
        all.sort();
        all.dedup();
    }
    out
}

/// Whether `class` declares a method named `name` (an unqualified call there is its own).
fn declares(facts: &FileFacts, class: ClassIdx, name: &str) -> bool {
    facts.methods.iter().any(|m| m.class == class && m.name == name)
}

fn monitor_calls(r: &Resolver, origin: Origin, facts: &FileFacts) -> Vec<MonitorCall> {
    let mut out = Vec::new();
    for (i, call) in facts.calls.iter().enumerate().filter(|(_, c)| c.kind == CallKind::Method) {
        let op = match call.name.as_str() {
            "wait" | "await" | "awaitNanos" | "awaitUninterruptibly" | "awaitUntil" => MonitorOp::Wait,
            "notify" | "notifyAll" | "signal" | "signalAll" => MonitorOp::Notify,
            _ => continue,
        };
        let receiver = call.receiver.clone().unwrap_or(Expr::This);
        let display = crate::java::expr_key(facts, &receiver);
        let lock = super::locks::lock_of_expr(r, origin, facts, call.unit, &receiver, &display);
        out.push(MonitorCall { call: i as u32, lock, op });
    }
    out
}

fn flags(r: &Resolver, field: (ClassRef, u32)) -> FieldFlags {
    r.field_decl(field).map_or_else(FieldFlags::default, |(f, i)| {
        let d = &f.fields[i as usize];
        FieldFlags { is_static: d.is_static, is_final: d.is_final, is_volatile: d.is_volatile }
    })
}

/// The field an access touches: its declaring class and index there.
pub(crate) fn resolve_access(r: &Resolver, origin: Origin, facts: &FileFacts, a: &Access) -> Option<(ClassRef, u32)> {
    let ctx = Resolver::unit_class(facts, a.unit);
    match &a.receiver {
        None => r.implicit_field(origin, ctx, &a.name),
        Some(recv) => match r.type_of(origin, facts, a.unit, recv) {
            Some(t) if t.dims == 0 => t.class().and_then(|c| r.find_field(c, &a.name)),
            _ => None,
        },
    }
}

fn field_sites(r: &Resolver, origin: Origin, facts: &FileFacts, out: &mut ResolvedFile) {
    for (item, a) in facts.accesses.iter().enumerate() {
        let Some(field) = resolve_access(r, origin, facts, a) else { continue };
        let Some(key) = r.field_key(field, a.element) else { continue };
        let on_this = matches!(a.receiver, None | Some(Expr::This));
        let decl = flags(r, field);
        out.sites.push(Site {
            field: key,
            kind: a.kind,
            span: a.span,
            unit: a.unit,
            via: None,
            on_this,
            item: item as u32,
            decl,
        });
    }
}

/// Whether a JDK collection class is safe for concurrent use, unsafe, or not a collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Collection {
    Unsafe,
    ThreadSafe,
}

pub(crate) fn collection_kind(qualified: &str) -> Option<Collection> {
    let simple = qualified.rsplit('.').next().unwrap_or(qualified);
    let unsafe_ = [
        "ArrayList",
        "LinkedList",
        "HashMap",
        "LinkedHashMap",
        "TreeMap",
        "HashSet",
        "LinkedHashSet",
        "TreeSet",
        "ArrayDeque",
        "PriorityQueue",
        "IdentityHashMap",
        "WeakHashMap",
        "EnumMap",
        "BitSet",
    ];
    let safe = [
        "ConcurrentHashMap",
        "ConcurrentLinkedQueue",
        "ConcurrentLinkedDeque",
        "CopyOnWriteArrayList",
        "CopyOnWriteArraySet",
        "LinkedBlockingQueue",
        "ArrayBlockingQueue",
        "LinkedBlockingDeque",
        "PriorityBlockingQueue",
        "SynchronousQueue",
        "DelayQueue",
        "LinkedTransferQueue",
        "ConcurrentSkipListMap",
        "ConcurrentSkipListSet",
        "Vector",
        "Hashtable",
        "BlockingQueue",
        "BlockingDeque",
        "ConcurrentMap",
        "ConcurrentNavigableMap",
        "TransferQueue",
    ];
    if !(qualified.starts_with("java.util.") || !qualified.contains('.')) {
        return None;
    }
    if unsafe_.contains(&simple) {
        Some(Collection::Unsafe)
    } else if safe.contains(&simple) {
        Some(Collection::ThreadSafe)
    } else {
        None
    }
}

/// Whether a map's or set's method works on the entry its first argument names (the key, or
/// the element of a set): calls with different keys work on different entries, and a hashed
/// collection runs the key's `hashCode()` and `equals()`.
pub(crate) fn takes_key(method: &str) -> bool {
    matches!(
        method,
        "get"
            | "put"
            | "containsKey"
            | "computeIfAbsent"
            | "computeIfPresent"
            | "compute"
            | "merge"
            | "putIfAbsent"
            | "getOrDefault"
            | "replace"
            | "remove"
            | "contains"
            | "add"
    )
}

/// Whether a collection method changes the collection.
pub(crate) fn is_mutator(method: &str) -> bool {
    matches!(
        method,
        "add"
            | "addAll"
            | "addFirst"
            | "addLast"
            | "put"
            | "putAll"
            | "putIfAbsent"
            | "remove"
            | "removeAll"
            | "removeIf"
            | "retainAll"
            | "clear"
            | "set"
            | "poll"
            | "pollFirst"
            | "pollLast"
            | "pollFirstEntry"
            | "pollLastEntry"
            | "offer"
            | "offerFirst"
            | "offerLast"
            | "push"
            | "pop"
            | "compute"
            | "computeIfAbsent"
            | "computeIfPresent"
            | "merge"
            | "replace"
            | "replaceAll"
            | "sort"
            | "removeFirst"
            | "removeLast"
            | "trimToSize"
            | "ensureCapacity"
            | "take"
            | "drainTo"
            | "flip"
            | "setAll"
    )
}

/// The kind of collection a field holds: its declared type, or, for an interface type,
/// the class its initializer creates, or, with no initializer, the class every assignment
/// of its file creates (`routes = new HashMap<>()` in a constructor or `start()`).
pub(crate) fn field_collection(r: &Resolver, field: (ClassRef, u32)) -> Option<Collection> {
    let ty = r.field_type(field)?;
    if ty.dims > 0 {
        return None;
    }
    let declared = r.qualified_name(&ty.name)?;
    let (facts, f) = r.field_decl(field)?;
    let decl = &facts.fields[f as usize];
    match &decl.init {
        Some(Expr::New(t)) => created_collection(r, field.0.origin, decl.class, t),
        Some(Expr::Call { name, .. })
            if name.starts_with("synchronized") || name.starts_with("newConcurrent") || name == "newKeySet" =>
        {
            Some(Collection::ThreadSafe)
        }
        _ if is_concrete_collection(&declared) => collection_kind(&declared),
        None if is_collection_interface(&declared) => assigned_collection(r, field.0.origin, &facts, decl),
        _ => None,
    }
}

fn created_collection(r: &Resolver, origin: Origin, class: ClassIdx, t: &TypeRef) -> Option<Collection> {
    collection_kind(&r.qualified_name(&r.ty(origin, Some(class), t).name)?)
}

/// The kind of collection every assignment of a field in its own file creates, when they
/// all create one kind (`null` aside). Anything else assigned (a parameter, a call's
/// result, a copy made by another class) leaves the kind unknown.
fn assigned_collection(r: &Resolver, origin: Origin, facts: &FileFacts, decl: &FieldDecl) -> Option<Collection> {
    let mut kind = None;
    let own =
        |a: &Access| matches!(a.receiver, None | Some(Expr::This)) && Resolver::unit_class(facts, a.unit) == decl.class;
    for a in
        facts.accesses.iter().filter(|a| a.kind == AccessKind::Write && !a.element && a.name == decl.name && own(a))
    {
        let made = match &a.value {
            Some(Expr::New(t)) => created_collection(r, origin, decl.class, t)?,
            _ if facts.assigns_null(a.span) => continue,
            _ => return None,
        };
        if kind.is_some_and(|k| k != made) {
            return None;
        }
        kind = Some(made);
    }
    kind
}

/// A field holding a `java.util.concurrent.atomic` object (not an array of them).
pub(crate) fn is_atomic_field(r: &Resolver, field: (ClassRef, u32)) -> bool {
    r.field_type(field)
        .filter(|t| t.dims == 0)
        .and_then(|t| r.qualified_name(&t.name))
        .is_some_and(|q| q.starts_with("java.util.concurrent.atomic."))
}

/// Whether an atomic's method changes its value (the conditional ones included: they read
/// and, when they succeed, write).
fn is_atomic_update(method: &str) -> bool {
    matches!(
        method,
        "set"
            | "lazySet"
            | "setPlain"
            | "setOpaque"
            | "setRelease"
            | "compareAndSet"
            | "weakCompareAndSet"
            | "weakCompareAndSetPlain"
            | "weakCompareAndSetVolatile"
            | "weakCompareAndSetAcquire"
            | "weakCompareAndSetRelease"
            | "compareAndExchange"
            | "compareAndExchangeAcquire"
            | "compareAndExchangeRelease"
            | "getAndSet"
            | "getAndIncrement"
            | "getAndDecrement"
            | "getAndAdd"
            | "incrementAndGet"
            | "decrementAndGet"
            | "addAndGet"
            | "updateAndGet"
            | "getAndUpdate"
            | "accumulateAndGet"
            | "getAndAccumulate"
            | "increment"
            | "decrement"
            | "add"
            | "reset"
            | "sumThenReset"
            | "accumulate"
    )
}

fn is_concrete_collection(qualified: &str) -> bool {
    !is_collection_interface(qualified)
}

/// `java.util.Map`, `Queue`, …: a collection interface (any class may be behind it).
pub(crate) fn is_collection_interface(qualified: &str) -> bool {
    let simple = qualified.rsplit('.').next().unwrap_or(qualified);
    matches!(
        simple,
        "List"
            | "Map"
            | "Set"
            | "Queue"
            | "Deque"
            | "Collection"
            | "SortedMap"
            | "NavigableMap"
            | "SortedSet"
            | "NavigableSet"
    )
}

/// `items.put(k, v)` on a field holding a `HashMap` writes the map's contents: an element
/// access of `items`, so that two threads calling `put` and `get` form a pair.
fn collection_sites(r: &Resolver, origin: Origin, facts: &FileFacts, out: &mut ResolvedFile) {
    let mut access_ordered: std::collections::HashMap<(ClassRef, u32), bool> = std::collections::HashMap::new();
    // Per field, once per file: an interface-typed field's kind reads its file's assignments.
    let mut kinds: std::collections::HashMap<(ClassRef, u32), Option<Collection>> = std::collections::HashMap::new();
    let mut stateful: std::collections::HashMap<(ClassRef, u32), bool> = std::collections::HashMap::new();
    for (item, call) in facts.calls.iter().enumerate() {
        if call.kind != CallKind::Method {
            continue;
        }
        let Some(recv) = &call.receiver else { continue };
        let Some(field) = r.field_of_expr(origin, facts, call.unit, recv) else { continue };
        // The contents of a collection, and (SimRT section 3.2 extended to the state of
        // thread-safe objects, issue 21) the state of a thread-safe collection or an atomic:
        // each call is atomic, two calls are not, so `containsKey` here and `remove` in
        // another thread are a pair on that state.
        let kind = *kinds.entry(field).or_insert_with(|| field_collection(r, field));
        let writes = match (kind, is_atomic_field(r, field)) {
            (Some(_), _) if matches!(call.name.as_str(), "get" | "getOrDefault") => {
                *access_ordered.entry(field).or_insert_with(|| is_access_ordered(r, field))
            }
            (Some(_), _) => is_mutator(&call.name),
            (None, true) => is_atomic_update(&call.name),
            // A formatter, calendar or digest changes its own state in its work methods.
            (None, false) if *stateful.entry(field).or_insert_with(|| is_stateful_jdk_field(r, field)) => {
                !is_plain_query(&call.name)
            }
            (None, false) => continue,
        };
        let Some(key) = r.field_key(field, true) else { continue };
        let kind = if writes { AccessKind::Write } else { AccessKind::Read };
        let on_this = matches!(recv, Expr::Name(_) | Expr::Field(..));
        let via = Some(Arc::from(call.name.as_str()));
        let decl = flags(r, field);
        out.sites.push(Site {
            field: key,
            kind,
            span: call.span,
            unit: call.unit,
            via,
            on_this,
            item: item as u32,
            decl,
        });
    }
}

/// JDK classes that are not thread-safe and whose work methods change the object's own
/// state, so that two threads calling them on one object race even when the caller only
/// "reads": `format()` and `parse()` of a `SimpleDateFormat` set its inner `Calendar`
/// (FindBugs' STCAL), a `MessageDigest` accumulates, a `Matcher` keeps its position.
const STATEFUL_JDK_CLASSES: &[&str] = &[
    "java.text.DateFormat",
    "java.text.SimpleDateFormat",
    "java.text.NumberFormat",
    "java.text.DecimalFormat",
    "java.text.MessageFormat",
    "java.text.ChoiceFormat",
    "java.util.Calendar",
    "java.util.GregorianCalendar",
    "java.security.MessageDigest",
    "java.util.zip.CRC32",
    "java.util.zip.Adler32",
    "java.util.zip.Deflater",
    "java.util.zip.Inflater",
    "java.util.regex.Matcher",
    "java.util.Formatter",
    "javax.crypto.Cipher",
    "javax.crypto.Mac",
];

/// Whether a field holds one of [`STATEFUL_JDK_CLASSES`] (as declared or as created).
fn is_stateful_jdk_field(r: &Resolver, field: (ClassRef, u32)) -> bool {
    r.field_type(field)
        .filter(|t| t.dims == 0)
        .and_then(|t| r.qualified_name(&t.name))
        .is_some_and(|q| STATEFUL_JDK_CLASSES.contains(&q.as_str()))
}

/// A method of such an object that only looks (`getTimeZone()`, `toPattern()`,
/// `isLenient()`): the others change its state.
fn is_plain_query(method: &str) -> bool {
    ["get", "is", "to", "clone", "equals", "hashCode"].iter().any(|p| method.starts_with(p))
}

/// A field holding a `LinkedHashMap` made in access order (`new LinkedHashMap<>(n, f,
/// true)`, where it is declared or where it is assigned): its `get` moves the entry it finds
/// to the end of the list, so `get` writes the map, and two lookups under a read lock race.
fn is_access_ordered(r: &Resolver, field: (ClassRef, u32)) -> bool {
    let Some((facts, f)) = r.field_decl(field) else { return false };
    let decl = &facts.fields[f as usize];
    let mut lines: Vec<u32> = facts
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Write && a.name == decl.name)
        .map(|a| a.span.line)
        .collect();
    lines.push(decl.decl_span.line);
    facts.calls.iter().any(|c| {
        let linked = matches!(&c.kind, CallKind::New { ty, .. } if ty.name.rsplit('.').next() == Some("LinkedHashMap"));
        linked && c.args.len() == 3 && lines.contains(&c.span.line) && third_argument_is_true(facts.text_of(c.full))
    })
}

/// `new LinkedHashMap<>(16, 0.75f, true)`: the argument list (up to its closing parenthesis,
/// not an anonymous body after it) ends with `true`.
fn third_argument_is_true(call: &str) -> bool {
    let Some(open) = call.find('(') else { return false };
    let mut depth = 0;
    for (i, ch) in call[open..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return call[open + 1..open + i].rsplit(',').next().is_some_and(|last| last.trim() == "true");
                }
            }
            _ => {}
        }
    }
    false
}

fn escape_evidence(r: &Resolver, origin: Origin, facts: &FileFacts, out: &mut ResolvedFile) {
    let name = |c: ClassRef| -> Arc<str> { Arc::from(r.class_name(c)) };
    let type_names = |t: &super::Ty, acc: &mut Vec<Arc<str>>| {
        collect_classes(t, acc, r);
    };
    for (i, c) in facts.classes.iter().enumerate() {
        let this = ClassRef { origin, idx: i as u32 };
        let this_name = name(this);
        for sup in r.supertypes(this) {
            if let TypeName::Class(s) = sup {
                out.supertypes.push((this_name.clone(), name(s)));
            }
        }
        if !c.is_static {
            if let Some(o) = c.outer {
                out.holds.push((this_name.clone(), name(ClassRef { origin, idx: o })));
            }
        }
        if r.is_subtype_of(this, THREAD_TYPES) {
            out.escape_seeds.push((this_name.clone(), "it is a thread or a task run by one"));
        }
        if c.annotations.iter().any(|a| a.name == "ThreadSafe") {
            out.escape_seeds.push((this_name.clone(), "it is annotated @ThreadSafe"));
        }
    }
    // Classes designed for sharing: they synchronize, or hold volatile, lock or atomic fields.
    for lock in &facts.locks {
        let class = Resolver::unit_class(facts, lock.unit);
        out.escape_seeds.push((name(ClassRef { origin, idx: class }), "it synchronizes"));
    }
    for f in &facts.fields {
        let class = ClassRef { origin, idx: f.class };
        let ty = r.ty(origin, Some(f.class), &f.ty);
        let qualified = r.qualified_name(&ty.name).unwrap_or_default();
        if f.is_volatile || f.annotations.iter().any(|a| a.name == "GuardedBy") || is_concurrency_type(&qualified) {
            out.escape_seeds.push((name(class), "it has volatile, guarded, lock or atomic fields"));
        }
        let mut held = Vec::new();
        type_names(&ty, &mut held);
        for h in held {
            if f.is_static {
                out.escape_seeds.push((h, "it is reachable from a static field"));
            } else {
                out.holds.push((name(class), h));
            }
        }
    }
    // Objects handed to threads and executors.
    for call in &facts.calls {
        let spawns = match &call.kind {
            CallKind::Method => SPAWN_METHODS.contains(&call.name.as_str()),
            CallKind::New { ty, anonymous } => {
                let ctx = Resolver::unit_class(facts, call.unit);
                let t = r.ty(origin, Some(ctx), ty);
                let is_thread = match t.class() {
                    Some(c) => r.is_subtype_of(c, &["Thread", "Timer", "FutureTask"]),
                    None => r
                        .qualified_name(&t.name)
                        .is_some_and(|n| matches!(n.rsplit('.').next(), Some("Thread" | "Timer" | "FutureTask"))),
                };
                if let Some(a) = anonymous {
                    if r.is_subtype_of(ClassRef { origin, idx: *a }, THREAD_TYPES) {
                        out.starts_threads.insert(facts.units[call.unit as usize].method);
                    }
                }
                is_thread
            }
            _ => false,
        };
        if !spawns {
            continue;
        }
        out.starts_threads.insert(facts.units[call.unit as usize].method);
        for arg in &call.args {
            escaping_arg(r, origin, facts, call.unit, arg, out);
        }
    }
    stored_and_taken(r, origin, facts, out);
    // A `CompletableFuture`'s stages run on whichever thread completes the stage before them
    // (an async stage's pool thread): what their code captures reaches that thread too.
    for call in &facts.calls {
        let (CallKind::Method, Some(recv)) = (&call.kind, &call.receiver) else { continue };
        if !COMPLETION_STAGES.contains(&call.name.as_str()) || !is_completion_stage(r, origin, facts, call.unit, recv) {
            continue;
        }
        for arg in &call.args {
            escaping_arg(r, origin, facts, call.unit, arg, out);
        }
    }
    // `t.start()` on a thread made elsewhere also starts a thread here.
    for call in &facts.calls {
        if call.kind == CallKind::Method && call.name == "start" && call.args.is_empty() {
            if let Some(recv) = &call.receiver {
                let is_thread = r.type_of(origin, facts, call.unit, recv).is_some_and(|t| match t.class() {
                    Some(c) => r.is_subtype_of(c, &["Thread"]),
                    None => r.qualified_name(&t.name).is_some_and(|n| n.ends_with("Thread")),
                });
                if is_thread {
                    out.starts_threads.insert(facts.units[call.unit as usize].method);
                }
            }
        }
    }
    // Fork/join: `task.fork()` and `pool.invoke(task)` run the task on pool threads. Both names
    // are too common to count without the receiver's type (`Method.invoke`, a project's `fork`).
    for call in &facts.calls {
        if call.kind != CallKind::Method {
            continue;
        }
        let types = match (call.name.as_str(), call.args.len()) {
            ("fork", 0) => FORK_JOIN_TASKS,
            ("invoke", 1) => &["ForkJoinPool"][..],
            _ => continue,
        };
        let Some(recv) = &call.receiver else { continue };
        let common_pool = matches!(recv, Expr::Call { name, args, .. } if name == "commonPool" && args.is_empty());
        let typed = r.type_of(origin, facts, call.unit, recv).is_some_and(|t| match t.class() {
            Some(c) => r.is_subtype_of(c, types),
            None => r.qualified_name(&t.name).is_some_and(|n| types.contains(&n.rsplit('.').next().unwrap_or(""))),
        });
        if common_pool || typed {
            out.starts_threads.insert(facts.units[call.unit as usize].method);
            for arg in call.args.iter().chain(std::iter::once(recv)) {
                escaping_arg(r, origin, facts, call.unit, arg, out);
            }
        }
    }
    out.escape_seeds.sort();
    out.escape_seeds.dedup();
    out.holds.sort();
    out.holds.dedup();
}

fn escaping_arg(r: &Resolver, origin: Origin, facts: &FileFacts, unit: UnitIdx, arg: &Expr, out: &mut ResolvedFile) {
    let ctx = Resolver::unit_class(facts, unit);
    let enclosing = Arc::<str>::from(r.class_name(ClassRef { origin, idx: ctx }));
    // `Runnable task = () -> …; new Thread(task)`: the task a local holds is what escapes
    // (a local never reassigned, so its initializer is its value).
    if let Expr::Local(l) = arg {
        let local = &facts.locals[*l as usize];
        if let Some(init @ (Expr::Lambda(_) | Expr::New(_) | Expr::MethodReference)) =
            local.init.as_ref().filter(|_| !local.reassigned)
        {
            let init_unit = facts.unit_at(local.scope.start).unwrap_or(unit);
            return escaping_arg(r, origin, facts, init_unit, init, out);
        }
    }
    match arg {
        Expr::Lambda(u) => {
            let span = facts.units[*u as usize].span;
            captured_by(r, origin, facts, span, out);
        }
        Expr::New(_) => {
            // An anonymous class passed on: it and what it captures escape.
            if let Some(t) = r.type_of(origin, facts, unit, arg) {
                let mut acc = Vec::new();
                collect_classes(&t, &mut acc, r);
                for c in acc {
                    out.escape_seeds.push((c, "it is handed to another thread"));
                }
            }
            if let Some(anon) = facts.calls.iter().find_map(|c| match &c.kind {
                CallKind::New { anonymous: Some(a), .. } if c.unit == unit => Some(*a),
                _ => None,
            }) {
                let c = &facts.classes[anon as usize];
                if c.kind == ClassKind::Anonymous {
                    out.escape_seeds.push((Arc::from(c.binary_name.as_str()), "it is handed to another thread"));
                    captured_by(r, origin, facts, c.span, out);
                }
            }
        }
        Expr::MethodReference => out.escape_seeds.push((enclosing, "its method is handed to another thread")),
        other => {
            if let Some(t) = r.type_of(origin, facts, unit, other) {
                let mut acc = Vec::new();
                collect_classes(&t, &mut acc, r);
                for c in acc {
                    out.escape_seeds.push((c, "it is handed to another thread"));
                }
            }
        }
    }
}

/// What code in `span` (a lambda or an anonymous class) captures from around it: locals
/// declared outside, and the enclosing instance when it uses its fields or methods.
fn captured_by(r: &Resolver, origin: Origin, facts: &FileFacts, span: Span, out: &mut ResolvedFile) {
    let mut locals = BTreeSet::new();
    let mut uses_this = false;
    for a in facts.accesses.iter().filter(|a| span.contains(a.span.start)) {
        match &a.receiver {
            Some(e) => note_captures(facts, span, e, &mut locals, &mut uses_this),
            None => uses_this = true,
        }
    }
    for c in facts.calls.iter().filter(|c| span.contains(c.span.start)) {
        match &c.receiver {
            Some(e) => note_captures(facts, span, e, &mut locals, &mut uses_this),
            None => uses_this |= c.kind == CallKind::Method,
        }
        for arg in &c.args {
            note_captures(facts, span, arg, &mut locals, &mut uses_this);
        }
    }
    for l in locals {
        let local = &facts.locals[l as usize];
        let unit = facts.unit_at(local.scope.start).unwrap_or(0);
        if let Some(t) = r.type_of(origin, facts, unit, &Expr::Local(l)) {
            let mut acc = Vec::new();
            collect_classes(&t, &mut acc, r);
            for c in acc {
                out.escape_seeds.push((c, "a thread's code captures it"));
            }
        }
    }
    if uses_this {
        if let Some(class) = facts.class_at(span.start) {
            // Code inside the lambda runs on the enclosing instance.
            let outer_of_span = if facts.classes[class as usize].span == span {
                facts.classes[class as usize].outer
            } else {
                Some(class)
            };
            if let Some(o) = outer_of_span {
                out.escape_seeds.push((
                    Arc::from(facts.classes[o as usize].binary_name.as_str()),
                    "a thread's code uses its fields",
                ));
            }
        }
    }
}

fn note_captures(facts: &FileFacts, span: Span, e: &Expr, locals: &mut BTreeSet<u32>, uses_this: &mut bool) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Local(l) if !span.contains(facts.locals[*l as usize].scope.start) => {
                locals.insert(*l);
            }
            Expr::This | Expr::OuterThis(_) => *uses_this = true,
            Expr::Field(o, _) | Expr::Element(o) | Expr::Cast(_, o) => stack.push(o),
            Expr::Call { receiver, args, .. } => {
                stack.extend(receiver.as_deref());
                stack.extend(args.iter());
            }
            _ => {}
        }
    }
}

/// Project classes named by a type and its type arguments (`Map<K, List<Job>>` gives `Job`).
/// Not a `ThreadLocal`'s: each thread has its own value (issue 21, item 3).
fn collect_classes(t: &super::Ty, acc: &mut Vec<Arc<str>>, r: &Resolver) {
    if let TypeName::Class(c) = &t.name {
        if matches!(c.origin, Origin::Project(_)) {
            acc.push(Arc::from(r.class_name(*c)));
        }
    }
    if r.qualified_name(&t.name)
        .is_some_and(|n| matches!(n.as_str(), "java.lang.ThreadLocal" | "java.lang.InheritableThreadLocal"))
    {
        return;
    }
    for a in &t.args {
        collect_classes(a, acc, r);
    }
}

/// Locks, atomics and concurrent collections: a class holding one is meant to be shared.
pub(crate) fn is_concurrency_type(qualified: &str) -> bool {
    qualified.starts_with("java.util.concurrent.")
        || matches!(
            qualified.rsplit('.').next(),
            Some("Lock" | "ReentrantLock" | "ReadWriteLock" | "ReentrantReadWriteLock" | "StampedLock" | "Condition")
        )
}
