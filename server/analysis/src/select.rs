//! Tests that exercise concurrency, and how much of the change each one reaches through
//! its static call graph: the project methods a test may run ([`reach`]), whether it
//! starts threads, and how many impacted points it reaches. [`crate::rank`] selects and
//! ranks tests for a change from these (SimRT sections 3.5 and 3.6).

use std::collections::{BTreeSet, HashSet, VecDeque};

use crate::impact::Impact;
use crate::index::{ClassRef, FileId, MethodRef, Origin, ProjectIndex, Resolver, TypeName};
use crate::java::{CallKind, ClassKind, FileFacts, MethodIdx, MethodKind, Span};

/// How far a test's call graph is followed.
const MAX_METHODS: usize = 2000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    /// A JUnit 4 or 5 test method (found by annotation name), or a JUnit 3 one (a
    /// `public void test*()` of a `junit.framework.TestCase` subclass).
    Test,
    /// `public static void main(String[])`.
    Main,
}

/// A test (or `main`) and the project methods it may run. [`thread_tests_in`] gives those
/// that start threads, [`tests_in`] every test.
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

impl ThreadTest {
    /// How `racelens explore --test` names it: `pkg.PoolTest#borrow`, or `pkg.Main` for a
    /// `main` method.
    pub fn display_name(&self) -> String {
        match self.kind {
            EntryKind::Test => format!("{}#{}", self.class, self.name),
            EntryKind::Main => self.class.clone(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// Project methods the test may run, itself included.
    pub methods: BTreeSet<MethodRef>,
    /// Whether any of them starts a thread or hands work to an executor.
    pub starts_threads: bool,
}

fn entry_kind(index: &ProjectIndex, file: FileId, facts: &FileFacts, m: MethodIdx) -> Option<EntryKind> {
    let method = &facts.methods[m as usize];
    if method.kind != MethodKind::Method {
        return None;
    }
    if method.annotations.iter().any(|a| matches!(a.name.as_str(), "Test" | "ParameterizedTest" | "RepeatedTest")) {
        return Some(EntryKind::Test);
    }
    if is_junit3_test(index, MethodRef { origin: Origin::Project(file), idx: m }) {
        return Some(EntryKind::Test);
    }
    let string_array = method.params.len() == 1 && method.params[0].ty.name.ends_with("String") && (method.params[0].ty.array_dims == 1);
    (method.name == "main" && method.is_static && string_array).then_some(EntryKind::Main)
}

/// JUnit 3's base class of tests, as a class extending it names it.
const JUNIT3_TEST_CASE: [&str; 2] = ["junit.framework.TestCase", "TestCase"];

/// Whether `class` extends JUnit 3's `junit.framework.TestCase`, directly or through
/// project superclasses. A project class that is itself named `TestCase` is not JUnit's.
pub fn is_junit3_class(index: &ProjectIndex, class: ClassRef) -> bool {
    let mut seen = HashSet::new();
    let mut current = class;
    while seen.insert(current) && seen.len() <= 32 {
        match superclass(index, current) {
            Some(TypeName::Class(sup)) => current = sup,
            Some(TypeName::External(name)) => return JUNIT3_TEST_CASE.contains(&name.as_str()),
            Some(TypeName::Unknown) | None => return false,
        }
    }
    false
}

/// The class `class` extends, resolved where it is declared (interfaces left out).
fn superclass(index: &ProjectIndex, class: ClassRef) -> Option<TypeName> {
    let facts = index.facts(class.origin)?;
    let c = &facts.classes[class.idx as usize];
    // An anonymous class's `superclass` may be the interface it implements.
    if c.kind == ClassKind::Anonymous {
        return None;
    }
    let name = &c.superclass.as_ref()?.name;
    match index.resolver().type_name(class.origin, c.outer, name) {
        // `extends junit.framework.TestCase`: a qualified name outside the project is that class
        TypeName::Unknown if name.contains('.') => Some(TypeName::External(name.clone())),
        resolved => Some(resolved),
    }
}

/// A JUnit 3 test method by JUnit's own rule: `public void test*()` without parameters, in a
/// named class that extends `TestCase` (JUnit cannot run tests of anonymous or local classes).
pub fn is_junit3_test(index: &ProjectIndex, method: MethodRef) -> bool {
    let Some(facts) = index.facts(method.origin) else { return false };
    let m = &facts.methods[method.idx as usize];
    let class = &facts.classes[m.class as usize];
    let void = m.return_type.as_ref().is_some_and(|t| t.name == "void" && t.array_dims == 0);
    m.kind == MethodKind::Method
        && m.is_public
        && void
        && m.params.is_empty()
        && m.name.starts_with("test")
        && !class.is_local
        && is_junit3_class(index, ClassRef { origin: method.origin, idx: m.class })
}

/// The JUnit 3 test methods `class` runs: its own, then those it inherits from project
/// superclasses (a test hides its superclasses' tests of the same name), as JUnit's
/// `TestSuite` collects them. Empty when `class` is not a `TestCase`.
pub fn junit3_tests(index: &ProjectIndex, class: ClassRef) -> Vec<MethodRef> {
    if !is_junit3_class(index, class) {
        return Vec::new();
    }
    let mut names = HashSet::new();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut current = Some(class);
    while let Some(c) = current.filter(|c| seen.insert(*c) && seen.len() <= 32) {
        let Some(facts) = index.facts(c.origin) else { break };
        for idx in 0..facts.methods.len() as MethodIdx {
            let m = &facts.methods[idx as usize];
            let method = MethodRef { origin: c.origin, idx };
            if m.class == c.idx && is_junit3_test(index, method) && names.insert(m.name.clone()) {
                out.push(method);
            }
        }
        current = match superclass(index, c) {
            Some(TypeName::Class(sup)) => Some(sup),
            _ => None,
        };
    }
    out
}

/// The tests and `main` methods of a file that start threads, directly, through
/// executors, or through a `Thread`/`Runnable` class they instantiate.
pub fn thread_tests_in(index: &ProjectIndex, file: FileId) -> Vec<ThreadTest> {
    entries_in(index, file, |_, reach| reach.starts_threads)
}

/// Every test of a file (JUnit 3, 4 and 5), whether it starts threads or not, and the `main`
/// methods that start threads: what selection ranks. A `main` that starts no thread is an
/// application's entry point rather than a test of its concurrency, and is left out.
pub fn tests_in(index: &ProjectIndex, file: FileId) -> Vec<ThreadTest> {
    entries_in(index, file, |kind, reach| kind == EntryKind::Test || reach.starts_threads)
}

fn entries_in(index: &ProjectIndex, file: FileId, keep: impl Fn(EntryKind, &Reach) -> bool) -> Vec<ThreadTest> {
    let Some(entry) = index.entry(file) else { return Vec::new() };
    let facts = &entry.facts;
    let mut out = Vec::new();
    for m in 0..facts.methods.len() as MethodIdx {
        let Some(kind) = entry_kind(index, file, facts, m) else { continue };
        let reach = reach(index, MethodRef { origin: Origin::Project(file), idx: m });
        if !keep(kind, &reach) {
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
/// implementations of interfaces), the `run`/`call`/`compute` methods of thread and task
/// classes it creates, and the methods of anonymous classes it creates. Lambdas are part of the
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
                    if r.is_subtype_of(c, &["Thread", "Runnable", "Callable", "TimerTask", "RecursiveTask", "RecursiveAction", "CountedCompleter", "ForkJoinTask"]) {
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

/// `run()`, `call()` and (fork/join) `compute()` of a thread or task class (or its project
/// superclasses).
fn task_methods(index: &ProjectIndex, class: ClassRef) -> Vec<MethodRef> {
    let r = index.resolver();
    ["run", "call", "compute"].iter().flat_map(|name| r.methods_named(class, name, 0)).filter(|m| matches!(m.origin, Origin::Project(_))).collect()
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

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;
    use crate::java::facts_of;

    fn index_of(files: &[(&str, &str)]) -> ProjectIndex {
        let mut index = ProjectIndex::new(None);
        for (path, text) in files {
            index.upsert(path, facts_of(text));
        }
        index.commit();
        index
    }

    /// `Class#method Kind` of every test (or `main`) that starts threads, file by file.
    fn check_thread_tests(files: &[(&str, &str)], expected: Expect) {
        let index = index_of(files);
        let found: Vec<String> = index.ids().flat_map(|f| thread_tests_in(&index, f)).map(|t| format!("{}#{} {:?}\n", t.class, t.name, t.kind)).collect();
        expected.assert_eq(&found.concat());
    }

    const POOL: &str = r#"
package demo;

public class Pool {
    private int free = 2;
    public synchronized boolean borrow() { if (free == 0) return false; free--; return true; }
}
"#;

    #[test]
    fn junit3_test_methods_that_start_threads_are_tests() {
        // Only `public void test*()` without parameters: what JUnit 3's TestSuite runs.
        let test = r#"
package demo;

import junit.framework.TestCase;

public class PoolTest extends TestCase {
    private Pool pool;

    protected void setUp() { pool = new Pool(); }

    public void testTwoBorrowers() throws Exception {
        Thread t = new Thread(() -> pool.borrow());
        t.start();
        pool.borrow();
        t.join();
    }

    public void testAlone() { pool.borrow(); }

    void testPackagePrivate() { new Thread(() -> pool.borrow()).start(); }

    public void testWithCount(int n) { new Thread(() -> pool.borrow()).start(); }

    public boolean testReturnsSomething() { new Thread(() -> pool.borrow()).start(); return true; }

    public void borrowFromTwoThreads() { new Thread(() -> pool.borrow()).start(); }
}
"#;
        check_thread_tests(&[("src/Pool.java", POOL), ("src/PoolTest.java", test)], expect![[r#"
            demo.PoolTest#testTwoBorrowers Test
        "#]]);
    }

    #[test]
    fn junit3_through_a_project_superclass_and_a_wildcard_import() {
        let base = r#"
package demo;

import junit.framework.*;

public abstract class ConcurrencyTestCase extends TestCase {
    protected void run(Runnable r) throws InterruptedException {
        Thread t = new Thread(r);
        t.start();
        t.join();
    }
}
"#;
        let test = r#"
package demo;

public class PoolStressTest extends ConcurrencyTestCase {
    public void testBorrowInAThread() throws Exception {
        Thread t = new Thread(() -> new Pool().borrow());
        t.start();
        t.join();
    }
}
"#;
        check_thread_tests(&[("src/Pool.java", POOL), ("src/ConcurrencyTestCase.java", base), ("src/PoolStressTest.java", test)], expect![[r#"
            demo.PoolStressTest#testBorrowInAThread Test
        "#]]);
    }

    #[test]
    fn test_methods_outside_junit3_test_cases_are_not_tests() {
        // A project class named TestCase is not JUnit's; a plain class's test* is a method.
        let own = r#"
package demo;

public class TestCase {
}
"#;
        let not_junit = r#"
package demo;

public class Scenario extends TestCase {
    public void testRun() { new Thread(() -> new Pool().borrow()).start(); }
}
"#;
        let plain = r#"
package demo;

public class Runner {
    public void testRun() { new Thread(() -> new Pool().borrow()).start(); }
}
"#;
        check_thread_tests(&[("src/Pool.java", POOL), ("src/TestCase.java", own), ("src/Scenario.java", not_junit), ("src/Runner.java", plain)], expect![[""]]);
    }

    #[test]
    fn junit4_tests_and_main_still_count() {
        let test = r#"
package demo;

import org.junit.Test;

public class PoolJUnit4Test {
    @Test
    public void borrowers() { new Thread(() -> new Pool().borrow()).start(); }

    public static void main(String[] args) { new Thread(() -> new Pool().borrow()).start(); }
}
"#;
        check_thread_tests(&[("src/Pool.java", POOL), ("src/PoolJUnit4Test.java", test)], expect![[r#"
            demo.PoolJUnit4Test#borrowers Test
            demo.PoolJUnit4Test#main Main
        "#]]);
    }

    #[test]
    fn tests_that_hand_work_to_jdk_thread_sources_start_threads() {
        // A Timer's task, a scheduled executor's periodic task, a fork/join pool's task (its
        // compute() forks more), the common pool: each runs on a thread the JDK starts. A
        // compute() called directly still forks its left half to the common pool; a reflective
        // `Method.invoke` is not a pool's.
        let heartbeat = r#"
package demo;

import java.util.concurrent.*;

public class Heartbeat {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private int beats;
    public void start() { scheduler.scheduleAtFixedRate(this::beat, 0, 1, TimeUnit.SECONDS); }
    private synchronized void beat() { beats++; }
}
"#;
        let refresh = r#"
package demo;

import java.util.Timer;
import java.util.TimerTask;

public class Refresher {
    private final Timer timer = new Timer(true);
    public void refreshSoon(TimerTask task) { timer.schedule(task, 0); }
}
"#;
        let sum = r#"
package demo;

import java.util.concurrent.RecursiveTask;

public class Sum extends RecursiveTask<Long> {
    private final int[] values;
    private final int from, to;
    public Sum(int[] values, int from, int to) { this.values = values; this.from = from; this.to = to; }
    @Override
    protected Long compute() {
        if (to - from < 2) return (long) values[from];
        int mid = (from + to) / 2;
        Sum left = new Sum(values, from, mid);
        left.fork();
        return new Sum(values, mid, to).compute() + left.join();
    }
}
"#;
        let test = r#"
package demo;

import java.util.concurrent.ForkJoinPool;
import org.junit.Test;

public class SourcesTest {
    @Test
    public void heartbeats() { new Heartbeat().start(); }

    @Test
    public void refreshes() { new Refresher(); }

    @Test
    public void sumsOnAPool() { new ForkJoinPool(2).invoke(new Sum(new int[] {1, 2}, 0, 2)); }

    @Test
    public void sumsOnTheCommonPool() { ForkJoinPool.commonPool().invoke(new Sum(new int[] {1, 2}, 0, 2)); }

    @Test
    public void forksFromTheTest() { new Sum(new int[] {1, 2}, 0, 2).fork().join(); }

    @Test
    public void sumsInThisThread() { new Sum(new int[] {1}, 0, 1).compute(); }

    @Test
    public void reflects() throws Exception {
        java.lang.reflect.Method m = Object.class.getMethod("toString");
        m.invoke(new Object());
    }
}
"#;
        check_thread_tests(
            &[("src/Heartbeat.java", heartbeat), ("src/Refresher.java", refresh), ("src/Sum.java", sum), ("src/SourcesTest.java", test)],
            expect![[r#"
                demo.SourcesTest#heartbeats Test
                demo.SourcesTest#refreshes Test
                demo.SourcesTest#sumsOnAPool Test
                demo.SourcesTest#sumsOnTheCommonPool Test
                demo.SourcesTest#forksFromTheTest Test
                demo.SourcesTest#sumsInThisThread Test
            "#]],
        );
    }

    #[test]
    fn junit3_tests_of_a_class_include_inherited_ones_once() {
        let base = r#"
package demo;

import junit.framework.TestCase;

public abstract class AbstractPoolTest extends TestCase {
    public void testBorrow() { }
    public void testReturn() { }
    public void helper() { }
}
"#;
        let test = r#"
package demo;

public class FairPoolTest extends AbstractPoolTest {
    public void testBorrow() { }
    public void testFairness() { }
}
"#;
        let index = index_of(&[("src/AbstractPoolTest.java", base), ("src/FairPoolTest.java", test)]);
        let file = index.file_id("src/FairPoolTest.java").unwrap();
        let class = ClassRef { origin: Origin::Project(file), idx: 0 };
        let names: Vec<String> = junit3_tests(&index, class)
            .into_iter()
            .map(|m| {
                let facts = index.facts(m.origin).unwrap();
                let method = &facts.methods[m.idx as usize];
                format!("{}#{}", facts.classes[method.class as usize].simple_name, method.name)
            })
            .collect();
        assert_eq!(names, ["FairPoolTest#testBorrow", "FairPoolTest#testFairness", "AbstractPoolTest#testReturn"]);
    }
}
