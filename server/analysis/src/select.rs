//! Tests that exercise concurrency, and how much of the change each one reaches through
//! its static call graph: which tests are worth exploring first (SimRT section 3.6 ranks
//! tests by the impacted pairs they cover; here, by the impacted points they reach).

use std::collections::{BTreeSet, VecDeque};

use crate::impact::Impact;
use crate::index::{ClassRef, FileId, MethodRef, Origin, ProjectIndex, Resolver};
use crate::java::{CallKind, FileFacts, MethodIdx, MethodKind, Span};

/// How far a test's call graph is followed.
const MAX_METHODS: usize = 2000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    /// A JUnit 4 or 5 test method (found by annotation name).
    Test,
    /// `public static void main(String[])`.
    Main,
}

/// A test (or `main`) that starts threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadTest {
    pub file: FileId,
    pub method: MethodIdx,
    /// Binary name of the declaring class: `pkg.PoolTest`.
    pub class: String,
    pub name: String,
    pub kind: EntryKind,
    /// The method's name token.
    pub span: Span,
    pub reach: Reach,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// Project methods the test may run, itself included.
    pub methods: BTreeSet<MethodRef>,
    /// Whether any of them starts a thread or hands work to an executor.
    pub starts_threads: bool,
}

fn entry_kind(facts: &FileFacts, m: MethodIdx) -> Option<EntryKind> {
    let method = &facts.methods[m as usize];
    if method.kind != MethodKind::Method {
        return None;
    }
    if method.annotations.iter().any(|a| matches!(a.name.as_str(), "Test" | "ParameterizedTest" | "RepeatedTest")) {
        return Some(EntryKind::Test);
    }
    let string_array = method.params.len() == 1 && method.params[0].ty.name.ends_with("String") && (method.params[0].ty.array_dims == 1);
    (method.name == "main" && method.is_static && string_array).then_some(EntryKind::Main)
}

/// The tests and `main` methods of a file that start threads, directly, through
/// executors, or through a `Thread`/`Runnable` class they instantiate.
pub fn thread_tests_in(index: &ProjectIndex, file: FileId) -> Vec<ThreadTest> {
    let Some(entry) = index.entry(file) else { return Vec::new() };
    let facts = &entry.facts;
    let mut out = Vec::new();
    for m in 0..facts.methods.len() as MethodIdx {
        let Some(kind) = entry_kind(facts, m) else { continue };
        let reach = reach(index, MethodRef { origin: Origin::Project(file), idx: m });
        if !reach.starts_threads {
            continue;
        }
        let method = &facts.methods[m as usize];
        out.push(ThreadTest {
            file,
            method: m,
            class: facts.classes[method.class as usize].binary_name.clone(),
            name: method.name.clone(),
            kind,
            span: method.name_span,
            reach,
        });
    }
    out
}

/// Project methods reachable from `root`: callees through declared types (and project
/// implementations of interfaces), the `run`/`call` methods of thread and task classes it
/// creates, and the methods of anonymous classes it creates. Lambdas are part of the
/// method they are written in.
pub fn reach(index: &ProjectIndex, root: MethodRef) -> Reach {
    let r = index.resolver();
    let mut out = Reach::default();
    let mut queue = VecDeque::from([root]);
    while let Some(m) = queue.pop_front() {
        if out.methods.len() >= MAX_METHODS || !out.methods.insert(m) {
            continue;
        }
        let Origin::Project(file) = m.origin else { continue };
        let Some(entry) = index.entry(file) else { continue };
        let facts = &entry.facts;
        out.starts_threads |= entry.resolved.starts_threads.contains(&m.idx);
        for call in facts.calls_of(m.idx) {
            for callee in r.callees(m.origin, facts, call) {
                if matches!(callee.origin, Origin::Project(_)) {
                    queue.push_back(callee);
                }
            }
            if let CallKind::New { ty, anonymous } = &call.kind {
                let created = match anonymous {
                    Some(a) => Some(ClassRef { origin: m.origin, idx: *a }),
                    None => r.ty(m.origin, Some(Resolver::unit_class(facts, call.unit)), ty).class(),
                };
                if let Some(c) = created {
                    if r.is_subtype_of(c, &["Thread", "Runnable", "Callable", "TimerTask"]) {
                        out.starts_threads |= r.is_subtype_of(c, &["Thread"]);
                        queue.extend(task_methods(index, c));
                    }
                    if anonymous.is_some() {
                        queue.extend(class_methods(index, c));
                    }
                }
            }
        }
    }
    out
}

/// `run()` and `call()` of a thread or task class (or its project superclasses).
fn task_methods(index: &ProjectIndex, class: ClassRef) -> Vec<MethodRef> {
    let r = index.resolver();
    ["run", "call"].iter().flat_map(|name| r.methods_named(class, name, 0)).filter(|m| matches!(m.origin, Origin::Project(_))).collect()
}

fn class_methods(index: &ProjectIndex, class: ClassRef) -> Vec<MethodRef> {
    let Some(facts) = index.facts(class.origin) else { return Vec::new() };
    (0..facts.methods.len() as MethodIdx).filter(|&m| facts.methods[m as usize].class == class.idx).map(|idx| MethodRef { origin: class.origin, idx }).collect()
}

/// How many impacted points a test reaches: impacted lines inside its methods, and
/// impacted fields its methods access.
pub fn impacted_points(index: &ProjectIndex, reach: &Reach, impact: &Impact) -> usize {
    let mut lines = 0;
    for (&file, file_lines) in &impact.impacted_lines {
        let Some(entry) = index.entry(file) else { continue };
        for &line in file_lines {
            if let Some(m) = entry.facts.method_at_line(line) {
                if reach.methods.contains(&MethodRef { origin: Origin::Project(file), idx: m }) {
                    lines += 1;
                }
            }
        }
    }
    let impacted: BTreeSet<&str> = impact.impacted_fields.iter().map(|f| &*f.name).collect();
    let mut fields = BTreeSet::new();
    for m in &reach.methods {
        let Origin::Project(file) = m.origin else { continue };
        let Some(entry) = index.entry(file) else { continue };
        for site in &entry.resolved.sites {
            if entry.facts.units[site.unit as usize].method == m.idx && impact.impacted_fields.contains(&site.field) && impacted.contains(&*site.field.name) {
                fields.insert(site.field.clone());
            }
        }
    }
    lines + fields.len()
}
