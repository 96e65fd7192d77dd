//! Impacted shared-variable pairs (SimRT section 3.4): two accesses to the same shared
//! variable, at least one a write and at least one impacted; each with the locks held at
//! both ends and whether a common lock protects it. Kinds after the thesis, chapter 4:
//! RW/WW (data race candidates), WN (`wait` and `notify` on one monitor), MM (two
//! acquisitions of one monitor or lock). The state of a map or set (`map[]`) is one variable
//! per constant key: two calls on different constant keys (`"a"`, `Kind.B`) form no pair, a
//! call whose key is a variable pairs with every other (issue 21, item 1).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::regions::ChangedRegions;
use super::runner::RunnerMethods;
use super::started::{self, TaskStart};
use super::svimpact::ImpactedSites;
use super::{ChangeSet, Cx, EndAccess, Options, Pair, PairEnd, PairKind};
use crate::index::{takes_key, FieldKey, FileId, ProjectIndex};
use crate::index::{LockId, MonitorOp};
use crate::java::{AccessKind, Expr, Span};

/// `ORDERS`, `MAX_SIZE`: a constant's name.
fn is_constant_name(name: &str) -> bool {
    name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Pairs of one field are capped (a field accessed in hundreds of places would
/// otherwise fill the report); the cap is generous for real code.
const MAX_PAIRS_PER_FIELD: usize = 2000;

pub(crate) fn collect(cx: &Cx, impacted: &ImpactedSites, options: &Options) -> Vec<Pair> {
    let (index, changes, regions, sharing) = (cx.index, cx.changes, cx.regions, cx.sharing);
    let mut ends = EndCache::new(index);
    ends.concurrent_tests = options.concurrent_tests;
    let mut out = Vec::new();
    // All shared accesses of every field that matters, grouped by field.
    let wanted: BTreeSet<FieldKey> = impacted.fields().cloned().collect();
    let mut by_field: BTreeMap<FieldKey, Vec<(FileId, usize)>> = BTreeMap::new();
    // Without `all_pairs`, only the files that access a wanted field (the inverted index).
    let files: Vec<FileId> = match options.all_pairs {
        true => index.ids().collect(),
        false => wanted.iter().flat_map(|f| index.files_accessing(f)).collect::<BTreeSet<_>>().into_iter().collect(),
    };
    for (id, e) in files.into_iter().filter_map(|id| index.entry(id).map(|e| (id, e))) {
        for (i, s) in e.resolved.sites.iter().enumerate() {
            if (options.all_pairs || wanted.contains(&s.field)) && sharing.is_shared(index, id, s) {
                by_field.entry(s.field.clone()).or_default().push((id, i));
            }
        }
    }
    for (field, sites) in &by_field {
        let mut count = 0;
        let atomic_state = field.element && atomic_state(index, field);
        let runner: Vec<RunnerPlace> = sites.iter().map(|&s| ends.runner_place(s)).collect();
        for (x, &a) in sites.iter().enumerate() {
            for (y, &b) in sites.iter().enumerate().skip(x) {
                if count >= MAX_PAIRS_PER_FIELD {
                    break;
                }
                let (ia, ib) = (impacted.contains(a.0, a.1), impacted.contains(b.0, b.1));
                if !(ia || ib || options.all_pairs) {
                    continue;
                }
                let (ka, kb) = (ends.kind(a), ends.kind(b));
                if ka == AccessKind::Read && kb == AccessKind::Read {
                    continue;
                }
                // Per key (issue 21, item 1): two calls on different constant keys of one
                // map touch different entries.
                if let (Some(x), Some(y)) = (ends.constant_key(a), ends.constant_key(b)) {
                    if x != y {
                        continue;
                    }
                }
                if a == b && ka != AccessKind::Write {
                    continue;
                }
                // Both made by JUnit's runner thread, one after the other, or one before or
                // after the test whose thread makes the other: no race.
                let around_test = |p: RunnerPlace, q: (FileId, usize)| p == RunnerPlace::Lifecycle && q.0 == a.0;
                if (runner[x] != RunnerPlace::Elsewhere && runner[y] != RunnerPlace::Elsewhere)
                    || around_test(runner[x], b)
                    || around_test(runner[y], a)
                {
                    continue;
                }
                // One made before starting the thread or task that makes the other.
                if ends.started_after(a, b) || ends.started_after(b, a) {
                    continue;
                }
                let end_a = ends.access_end(a, ia);
                let end_b = ends.access_end(b, ib);
                let protected =
                    atomic_state || end_a.locks.iter().any(|la| end_b.locks.iter().any(|lb| la.excludes(lb)));
                let kind = if ka == AccessKind::Write && kb == AccessKind::Write { PairKind::WW } else { PairKind::RW };
                // The impacted end first, so that readers and warnings start from the change.
                let (a_end, b_end) = if !ia && ib { (end_b, end_a) } else { (end_a, end_b) };
                out.push(Pair { field: field.clone(), kind, a: a_end, b: b_end, protected });
                count += 1;
            }
        }
    }
    monitor_pairs(index, changes, regions, &mut ends, &mut out);
    out.sort_by(|x, y| (x.kind, &x.field, &x.a, &x.b).cmp(&(y.kind, &y.field, &y.a, &y.b)));
    out.dedup();
    out
}

/// Whether `field` (an element key) is the state of a thread-safe collection or an atomic.
fn atomic_state(index: &ProjectIndex, field: &FieldKey) -> bool {
    let Some((origin, facts, f)) = super::shared::field_decl(index, field) else { return false };
    let class = crate::index::ClassRef { origin, idx: facts.fields[f as usize].class };
    super::warnings::thread_safe_state(&index.resolver(), (class, f))
}

/// Builds pair ends, computing each site's locks once.
/// Where an access runs, as far as JUnit's runner thread goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RunnerPlace {
    /// In a method run before or after each test (or all of them).
    Lifecycle,
    /// In a test, or another method the runner runs.
    Test,
    /// Not known to be the runner's.
    Elsewhere,
}

struct EndCache<'a> {
    index: &'a ProjectIndex,
    locks: HashMap<(FileId, usize), Vec<LockId>>,
    /// By file: the methods JUnit's runner thread runs ([`super::runner`]).
    runner: HashMap<FileId, RunnerMethods>,
    /// By site: the start of the task it runs in only ([`super::started`]).
    tasks: HashMap<(FileId, usize), Option<TaskStart>>,
    /// The build lets JUnit run test methods at the same time ([`crate::junit_parallel`]).
    concurrent_tests: bool,
}

impl<'a> EndCache<'a> {
    fn new(index: &'a ProjectIndex) -> Self {
        EndCache {
            index,
            locks: HashMap::new(),
            runner: HashMap::new(),
            tasks: HashMap::new(),
            concurrent_tests: false,
        }
    }

    /// The constant key a map or set call works on, when the code names one: a string
    /// literal (`"orders"`) or an enum-style constant (`Kind.ORDERS`). `None` for a key held
    /// in a variable or computed (it may be any key), and for calls on the whole collection.
    fn constant_key(&self, (file, i): (FileId, usize)) -> Option<String> {
        let entry = self.index.entry(file)?;
        let site = &entry.resolved.sites[i];
        if !site.via.as_deref().is_some_and(takes_key) || !self.keyed_collection(&site.field) {
            return None;
        }
        match entry.facts.calls.get(site.item as usize)?.args.first()? {
            Expr::Str(s) => Some(format!("{s:?}")),
            Expr::Field(owner, constant)
                if matches!(owner.as_ref(), Expr::Name(t) if t.starts_with(|c: char| c.is_ascii_uppercase()))
                    && is_constant_name(constant) =>
            {
                let Expr::Name(t) = owner.as_ref() else { return None };
                Some(format!("{t}.{constant}"))
            }
            _ => None,
        }
    }

    /// Whether the field holds a map or a set (keyed by what its calls are given), not a
    /// list or a queue (whose `add`/`remove` work on positions and ends).
    fn keyed_collection(&self, field: &FieldKey) -> bool {
        let Some((_, facts, f)) = super::shared::field_decl(self.index, field) else { return false };
        let ty = &facts.fields[f as usize].ty.name;
        let simple = ty.rsplit('.').next().unwrap_or(ty);
        simple.ends_with("Map") || simple.ends_with("Set")
    }

    /// Where JUnit's runner thread makes the access ([`super::runner`]): in the own body of
    /// a method the runner runs (or a lambda it runs inline), and whether around the test.
    fn runner_place(&mut self, (file, i): (FileId, usize)) -> RunnerPlace {
        let index = self.index;
        let Some(entry) = index.entry(file) else { return RunnerPlace::Elsewhere };
        let facts = &entry.facts;
        let site = &entry.resolved.sites[i];
        let Some(unit) = facts.holding_unit(site.unit) else { return RunnerPlace::Elsewhere };
        let method = facts.units[unit as usize].method;
        let concurrent = self.concurrent_tests;
        let runner = self.runner.entry(file).or_insert_with(|| super::runner::runner_methods(index, file, concurrent));
        // With tests at the same time, only the test's own instance is its alone.
        let own_instance = site.on_this && !site.decl.is_static && !runner.shared_instance.contains(&method);
        if runner.concurrent.contains(&method) && !own_instance {
            return RunnerPlace::Elsewhere;
        }
        match (runner.lifecycle.contains(&method), runner.runs.contains(&method)) {
            (true, _) => RunnerPlace::Lifecycle,
            (false, true) => RunnerPlace::Test,
            (false, false) => RunnerPlace::Elsewhere,
        }
    }

    /// Whether the access `earlier` happens before every access of the task `task` runs in,
    /// made before the code that starts that task starts it ([`super::started`]).
    fn started_after(&mut self, earlier: (FileId, usize), task: (FileId, usize)) -> bool {
        let index = self.index;
        let Some(entry) = index.entry(task.0).filter(|_| earlier.0 == task.0) else { return false };
        let facts = &entry.facts;
        let sites = &entry.resolved.sites;
        let start = *self.tasks.entry(task).or_insert_with(|| started::task_start(facts, sites[task.1].unit));
        start.is_some_and(|s| started::before_start(facts, sites[earlier.1].unit, sites[earlier.1].span.start, s))
    }

    fn kind(&self, (file, i): (FileId, usize)) -> AccessKind {
        self.index.entry(file).map_or(AccessKind::Read, |e| e.resolved.sites[i].kind)
    }

    fn access_end(&mut self, (file, i): (FileId, usize), impacted: bool) -> PairEnd {
        let entry = self.index.entry(file).expect("sites come from the index");
        let site = &entry.resolved.sites[i];
        let locks = self
            .locks
            .entry((file, i))
            .or_insert_with(|| self.index.locks_at(file, site.unit, site.span.start))
            .clone();
        PairEnd {
            file,
            span: site.span,
            method: entry.facts.method_display(entry.facts.units[site.unit as usize].method),
            access: EndAccess::from_kind(site.kind),
            locks,
            impacted,
        }
    }
}

/// A monitor operation: an acquisition, a wait or a notify, on a canonical lock.
struct MonitorEvent {
    file: FileId,
    span: Span,
    unit: u32,
    lock: LockId,
    access: EndAccess,
    impacted: bool,
}

fn monitor_pairs(
    index: &ProjectIndex,
    changes: &ChangeSet,
    regions: &ChangedRegions,
    ends: &mut EndCache,
    out: &mut Vec<Pair>,
) {
    // Impacted operations are in the changed files (and the regions the change touched);
    // the others pair only on a monitor one of those uses: the files locking it.
    let changed: BTreeSet<FileId> =
        changes.files.iter().map(|c| c.file).chain(regions.by_file.keys().copied()).collect();
    let mut files = changed.clone();
    for id in &changed {
        let Some(e) = index.entry(*id) else { continue };
        for key in e.resolved.locks.iter().map(|l| &l.key).chain(e.resolved.monitor_calls.iter().map(|m| &m.lock.key)) {
            files.extend(index.files_locking(key));
        }
    }
    let mut ops: Vec<MonitorEvent> = Vec::new();
    for (id, e) in files.into_iter().filter_map(|id| index.entry(id).map(|e| (id, e))) {
        let facts = &e.facts;
        let change = changes.get(id);
        let touched: BTreeSet<u32> = change.map(|c| c.diff.touched_lines().collect()).unwrap_or_default();
        let changed_regions: BTreeSet<usize> = regions.of(id).iter().filter_map(|c| c.region).collect();
        // Lines of regions the change touched, removed ones included.
        let region_lines: Vec<(u32, u32)> = regions.of(id).iter().map(|c| c.lines).collect();
        let in_changed_region = |line: u32| region_lines.iter().any(|&(a, b)| a <= line && line <= b);
        let new_file = change.is_some_and(|c| c.old.is_none());
        for (i, (reg, lock)) in facts.locks.iter().zip(&e.resolved.locks).enumerate() {
            let impacted = new_file
                || changed_regions.contains(&i)
                || touched.iter().any(|&l| reg.span.line <= l && l <= reg.span.end_line);
            ops.push(MonitorEvent {
                file: id,
                span: Span {
                    start: reg.span.start,
                    end: reg.span.start,
                    line: reg.markers.first().copied().unwrap_or(reg.span.line),
                    end_line: reg.span.line,
                },
                unit: reg.unit,
                lock: lock.clone(),
                access: EndAccess::Acquire,
                impacted,
            });
        }
        for m in &e.resolved.monitor_calls {
            let call = &facts.calls[m.call as usize];
            let access = match m.op {
                MonitorOp::Wait => EndAccess::Wait,
                MonitorOp::Notify => EndAccess::Notify,
            };
            let impacted = new_file || touched.contains(&call.span.line) || in_changed_region(call.span.line);
            ops.push(MonitorEvent {
                file: id,
                span: call.span,
                unit: call.unit,
                lock: m.lock.clone(),
                access,
                impacted,
            });
        }
    }
    // Only monitors that an impacted operation uses can pair.
    let wanted: BTreeSet<&str> = ops.iter().filter(|o| o.impacted).map(|o| o.lock.key.as_str()).collect();
    let ops: Vec<&MonitorEvent> = ops.iter().filter(|o| wanted.contains(o.lock.key.as_str())).collect();
    let mut by_lock: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        by_lock.entry(op.lock.key.clone()).or_default().push(i);
    }
    for (key, members) in by_lock {
        let field = lock_field(&key);
        for (x, &i) in members.iter().enumerate() {
            for &j in &members[x..] {
                let (a, b) = (ops[i], ops[j]);
                if !(a.impacted || b.impacted) {
                    continue;
                }
                let kind = match (a.access, b.access) {
                    (EndAccess::Acquire, EndAccess::Acquire) => PairKind::MM,
                    (EndAccess::Wait, EndAccess::Notify) | (EndAccess::Notify, EndAccess::Wait) => PairKind::WN,
                    _ => continue,
                };
                let (a, b) = if !a.impacted { (b, a) } else { (a, b) };
                out.push(Pair {
                    field: field.clone(),
                    kind,
                    a: monitor_end(ends, a),
                    b: monitor_end(ends, b),
                    protected: false,
                });
            }
        }
    }
}

fn monitor_end(ends: &EndCache, op: &MonitorEvent) -> PairEnd {
    let entry = ends.index.entry(op.file).expect("ops come from the index");
    PairEnd {
        file: op.file,
        span: op.span,
        method: entry.facts.method_display(entry.facts.units[op.unit as usize].method),
        access: op.access,
        locks: vec![op.lock.clone()],
        impacted: op.impacted,
    }
}

/// A lock key as a "field": `pkg.Pool#this` is `{class: pkg.Pool, name: this}`.
fn lock_field(key: &str) -> FieldKey {
    match key.rsplit_once('#') {
        Some((class, name)) => FieldKey::new(class, name, false),
        None => match key.strip_suffix(".class") {
            Some(class) => FieldKey::new(class, "class", false),
            None => FieldKey::new("", key, false),
        },
    }
}
