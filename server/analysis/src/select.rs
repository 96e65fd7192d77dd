//! Tests that exercise concurrency, and how much of the change each one reaches through
//! its static call graph: the project methods a test may run ([`reach`]), whether it
//! starts threads, and how many impacted points it reaches. [`crate::rank`] selects and
//! ranks tests for a change from these (SimRT sections 3.5 and 3.6).

use std::collections::{BTreeSet, HashMap, VecDeque};

use crate::impact::Impact;
use crate::index::{takes_key, ClassRef, FileId, MethodRef, Origin, ProjectIndex, Resolver, THREAD_TYPES};
use crate::java::{CallKind, FileFacts, MethodIdx, MethodKind, Span};
use crate::junit;

/// How far a test's call graph is followed.
const MAX_METHODS: usize = 2000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    /// A test method JUnit 3, 4 or 5 runs ([`crate::junit`]).
    Test,
    /// `public static void main(String[])`.
    Main,
}

/// A test (or `main`) and the project methods it may run. [`thread_tests_in`] gives those
/// that start threads, [`tests_in`] every test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadTest {
    /// The file of the class that runs it, where it is listed.
    pub file: FileId,
    /// The test method's declaration: in a superclass for an inherited test.
    pub method: MethodRef,
    /// Binary name of the class JUnit runs it on: `pkg.PoolTest` (for an inherited test, the
    /// subclass, not the class that declares the method).
    pub class: String,
    pub name: String,
    pub kind: EntryKind,
    /// Where the editor shows it: the method's name token, or for an inherited test the
    /// name of the class that inherits it.
    pub span: Span,
    /// Declared in a superclass of `class`.
    pub inherited: bool,
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
    /// Whether one of them in test code (the test's own file, or a file under a test source
    /// folder) starts a thread: a test that starts its threads itself was written to run
    /// code concurrently; one whose only thread start is in project code (a pool's
    /// background evictor) may never run the impacted code in two threads.
    pub own_threads: bool,
}

pub use crate::junit::{is_junit3_class, is_junit3_test, junit3_tests};

fn is_main(facts: &FileFacts, m: MethodIdx) -> bool {
    let method = &facts.methods[m as usize];
    let string_array = method.params.len() == 1
        && method.params[0].ty.name.ends_with("String")
        && (method.params[0].ty.array_dims == 1);
    method.kind == MethodKind::Method && method.name == "main" && method.is_static && string_array
}

/// The tests and `main` methods of a file that start threads, directly, through
/// executors, or through a `Thread`/`Runnable` class they instantiate.
pub fn thread_tests_in(index: &ProjectIndex, file: FileId) -> Vec<ThreadTest> {
    thread_tests_in_with(index, file, &mut ReachCache::default())
}

/// Every test whose static reach starts threads, by the name `explore --test` takes.
pub fn thread_test_names(index: &ProjectIndex) -> Vec<String> {
    let mut names: Vec<String> =
        index.ids().flat_map(|f| thread_tests_in(index, f)).map(|t| t.display_name()).collect();
    names.sort();
    names.dedup();
    names
}

/// [`thread_tests_in`] with reach edges resolved once for many files ([`ReachCache`]).
pub fn thread_tests_in_with(index: &ProjectIndex, file: FileId, cache: &mut ReachCache) -> Vec<ThreadTest> {
    entries_in(index, file, cache, |_, reach| reach.starts_threads)
}

/// Every test of a file (JUnit 3, 4 and 5), whether it starts threads or not, and the `main`
/// methods that start threads: what selection ranks. A `main` that starts no thread is an
/// application's entry point rather than a test of its concurrency, and is left out.
pub fn tests_in(index: &ProjectIndex, file: FileId) -> Vec<ThreadTest> {
    tests_in_with(index, file, &mut ReachCache::default())
}

/// [`tests_in`] with reach edges resolved once for many files ([`ReachCache`]).
pub fn tests_in_with(index: &ProjectIndex, file: FileId, cache: &mut ReachCache) -> Vec<ThreadTest> {
    entries_in(index, file, cache, |kind, reach| kind == EntryKind::Test || reach.starts_threads)
}

/// The tests of the file's classes as JUnit runs them ([`crate::junit::tests_of`]: own
/// tests at their method, inherited ones at the class's name) and its `main` methods, in
/// the order of the file.
fn entries_in(
    index: &ProjectIndex,
    file: FileId,
    cache: &mut ReachCache,
    keep: impl Fn(EntryKind, &Reach) -> bool,
) -> Vec<ThreadTest> {
    let Some(entry) = index.entry(file) else { return Vec::new() };
    let facts = &entry.facts;
    let origin = Origin::Project(file);
    let mut found: Vec<(MethodRef, EntryKind, usize, bool)> = Vec::new();
    for class in 0..facts.classes.len() as u32 {
        for t in junit::tests_of(index, ClassRef { origin, idx: class }) {
            found.push((t.method, EntryKind::Test, class as usize, t.inherited));
        }
    }
    for m in 0..facts.methods.len() as MethodIdx {
        if is_main(facts, m) {
            found.push((
                MethodRef { origin, idx: m },
                EntryKind::Main,
                facts.methods[m as usize].class as usize,
                false,
            ));
        }
    }
    let mut out = Vec::new();
    for (method, kind, class, inherited) in found {
        let Some(declared) = index.facts(method.origin) else { continue };
        let m = &declared.methods[method.idx as usize];
        let reach = reach_with(index, method, cache);
        if !keep(kind, &reach) {
            continue;
        }
        let span = if inherited { facts.classes[class].name_span } else { m.name_span };
        out.push(ThreadTest {
            file,
            method,
            class: facts.classes[class].binary_name.clone(),
            name: m.name.clone(),
            kind,
            span,
            inherited,
            reach,
        });
    }
    out.sort_by_key(|t| (t.span.start, t.inherited, t.kind));
    out
}

/// Project methods reachable from `root`: callees through declared types (and project
/// implementations of interfaces), the `run`/`call`/`compute` methods of thread and task
/// classes it creates, and the methods of anonymous classes it creates. Lambdas are part of the
/// method they are written in.
pub fn reach(index: &ProjectIndex, root: MethodRef) -> Reach {
    reach_with(index, root, &mut ReachCache::default())
}

/// The reach graph's edges, resolved once per method and shared by every test a selection
/// walks from (issue 21, item 5): resolving a call's callees is the costly step, and the
/// tests of a large project reach the same methods over and over.
#[derive(Default)]
pub struct ReachCache {
    edges: HashMap<MethodRef, Edges>,
}

/// One method's edges: what it may run next, and whether it starts a thread itself.
#[derive(Default)]
struct Edges {
    next: Vec<MethodRef>,
    starts_threads: bool,
}

/// [`reach`] with the edges of `cache`, which it fills.
pub fn reach_with(index: &ProjectIndex, root: MethodRef, cache: &mut ReachCache) -> Reach {
    let mut out = Reach::default();
    let mut queue = VecDeque::from([root]);
    while let Some(m) = queue.pop_front() {
        if out.methods.len() >= MAX_METHODS || !out.methods.insert(m) {
            continue;
        }
        let edges = cache.edges.entry(m).or_insert_with(|| edges_of(index, m));
        if edges.starts_threads && !out.own_threads {
            out.own_threads =
                m.origin == root.origin || is_test_code(&index.path(m.origin)) || uses_test_framework(index, m.origin);
        }
        out.starts_threads |= edges.starts_threads;
        queue.extend(edges.next.iter().copied());
    }
    out
}

/// Whether a project path is under a test source folder as Maven, Gradle and Ant lay them
/// out: `src/test/java`, `test/`, `tests/`, `src/integrationTest/java`, `src/testFixtures`.
fn is_test_code(path: &str) -> bool {
    let mut dirs = path.split(['/', '\\']).rev().skip(1);
    dirs.any(|d| d == "test" || d == "tests" || d.starts_with("test") || d.ends_with("Test") || d.ends_with("Tests"))
}

/// Whether a file imports a test framework (JUnit, TestNG, AssertJ, Hamcrest, Mockito): test
/// code wherever the build keeps it (a shared harness module, `src/it/java`, a flat `src/`),
/// so threads it starts are the test's own.
fn uses_test_framework(index: &ProjectIndex, origin: Origin) -> bool {
    const FRAMEWORKS: &[&str] =
        &["org.junit.", "junit.framework.", "org.testng.", "org.assertj.", "org.hamcrest.", "org.mockito."];
    let Origin::Project(file) = origin else { return false };
    index.entry(file).is_some_and(|e| {
        e.facts.imports.iter().chain(&e.facts.static_imports).any(|i| FRAMEWORKS.iter().any(|f| i.starts_with(f)))
    })
}

fn edges_of(index: &ProjectIndex, m: MethodRef) -> Edges {
    let mut out = Edges::default();
    let Origin::Project(file) = m.origin else { return out };
    let Some(entry) = index.entry(file) else { return out };
    let r = index.resolver();
    let facts = &entry.facts;
    out.starts_threads = entry.resolved.starts_threads.contains(&m.idx);
    for call in facts.calls_of(m.idx) {
        for callee in r.callees(m.origin, facts, call) {
            if matches!(callee.origin, Origin::Project(_)) {
                out.next.push(callee);
            }
        }
        out.next.extend(hashed_by(&r, m.origin, facts, call));
        if let CallKind::New { ty, anonymous } = &call.kind {
            let created = match anonymous {
                Some(a) => Some(ClassRef { origin: m.origin, idx: *a }),
                None => r.ty(m.origin, Some(Resolver::unit_class(facts, call.unit)), ty).class(),
            };
            if let Some(c) = created {
                if r.is_subtype_of(c, THREAD_TYPES) {
                    out.starts_threads |= r.is_subtype_of(c, &["Thread"]);
                    out.next.extend(task_methods(index, c));
                }
                if anonymous.is_some() {
                    out.next.extend(class_methods(index, c));
                }
            }
        }
    }
    out
}

/// The project `hashCode()` and `equals()` a hashed collection's call runs on its argument:
/// `map.put(key, v)`, `set.contains(x)` call them from the JDK, where the call graph does not
/// follow (issue 21, item 3: a hash cached in a field of a key hashed by several threads).
fn hashed_by(r: &Resolver, origin: Origin, facts: &FileFacts, call: &crate::java::Call) -> Vec<MethodRef> {
    let (CallKind::Method, Some(recv), Some(key)) = (&call.kind, &call.receiver, call.args.first()) else {
        return Vec::new();
    };
    if !takes_key(&call.name) {
        return Vec::new();
    }
    let hashed = r.type_of(origin, facts, call.unit, recv).and_then(|t| r.qualified_name(&t.name)).is_some_and(|q| {
        let simple = q.rsplit('.').next().unwrap_or(&q);
        q.starts_with("java.util.") && (simple.contains("Hash") || matches!(simple, "Map" | "Set" | "ConcurrentMap"))
    });
    let Some(class) = hashed.then(|| r.type_of(origin, facts, call.unit, key)).flatten().and_then(|t| t.class()) else {
        return Vec::new();
    };
    if !matches!(class.origin, Origin::Project(_)) {
        return Vec::new();
    }
    let mut out = r.methods_named(class, "hashCode", 0);
    out.extend(r.methods_named(class, "equals", 1));
    out.retain(|m| matches!(m.origin, Origin::Project(_)));
    out
}

/// `run()`, `call()` and (fork/join) `compute()` of a thread or task class (or its project
/// superclasses).
fn task_methods(index: &ProjectIndex, class: ClassRef) -> Vec<MethodRef> {
    let r = index.resolver();
    ["run", "call", "compute"]
        .iter()
        .flat_map(|name| r.methods_named(class, name, 0))
        .filter(|m| matches!(m.origin, Origin::Project(_)))
        .collect()
}

fn class_methods(index: &ProjectIndex, class: ClassRef) -> Vec<MethodRef> {
    let Some(facts) = index.facts(class.origin) else { return Vec::new() };
    (0..facts.methods.len() as MethodIdx)
        .filter(|&m| facts.methods[m as usize].class == class.idx)
        .map(|idx| MethodRef { origin: class.origin, idx })
        .collect()
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
            if entry.facts.units[site.unit as usize].method == m.idx
                && impact.impacted_fields.contains(&site.field)
                && impacted.contains(&*site.field.name)
            {
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
    use crate::index::Origin;
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
        let found: Vec<String> = index
            .ids()
            .flat_map(|f| thread_tests_in(&index, f))
            .map(|t| format!("{}#{} {:?}\n", t.class, t.name, t.kind))
            .collect();
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
        check_thread_tests(
            &[("src/Pool.java", POOL), ("src/PoolTest.java", test)],
            expect![[r#"
            demo.PoolTest#testTwoBorrowers Test
        "#]],
        );
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
        check_thread_tests(
            &[("src/Pool.java", POOL), ("src/ConcurrencyTestCase.java", base), ("src/PoolStressTest.java", test)],
            expect![[r#"
            demo.PoolStressTest#testBorrowInAThread Test
        "#]],
        );
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
        check_thread_tests(
            &[
                ("src/Pool.java", POOL),
                ("src/TestCase.java", own),
                ("src/Scenario.java", not_junit),
                ("src/Runner.java", plain),
            ],
            expect![[""]],
        );
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
        check_thread_tests(
            &[("src/Pool.java", POOL), ("src/PoolJUnit4Test.java", test)],
            expect![[r#"
            demo.PoolJUnit4Test#borrowers Test
            demo.PoolJUnit4Test#main Main
        "#]],
        );
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
            &[
                ("src/Heartbeat.java", heartbeat),
                ("src/Refresher.java", refresh),
                ("src/Sum.java", sum),
                ("src/SourcesTest.java", test),
            ],
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

    /// `Class#method Kind (where)` of every test JUnit runs, file by file: `own` at the
    /// method, `inherited` at the class's name.
    fn check_tests(files: &[(&str, &str)], expected: Expect) {
        let index = index_of(files);
        let found: Vec<String> = index
            .ids()
            .flat_map(|f| tests_in(&index, f))
            .map(|t| format!("{} {}\n", t.display_name(), if t.inherited { "inherited" } else { "own" }))
            .collect();
        expected.assert_eq(&found.concat());
    }

    const COUNTER: &str = r#"
package demo;

public class Counter {
    private int n;
    public void inc() { n++; }
}
"#;

    #[test]
    fn an_abstract_test_class_lists_its_tests_under_each_concrete_subclass_and_not_itself() {
        let base = r#"
package demo;

import org.junit.jupiter.api.Test;

public abstract class AbstractCounterTest {
    protected abstract Counter counter();

    @Test
    void twoThreads() throws Exception {
        Thread t = new Thread(() -> counter().inc());
        t.start();
        counter().inc();
        t.join();
    }

    @Test
    void alone() { counter().inc(); }
}
"#;
        let plain = r#"
package demo;

class PlainCounterTest extends AbstractCounterTest {
    protected Counter counter() { return new Counter(); }
}
"#;
        let shared = r#"
package demo;

import org.junit.jupiter.api.Test;

class SharedCounterTest extends AbstractCounterTest {
    private final Counter c = new Counter();
    protected Counter counter() { return c; }

    @Test
    void ownTest() { c.inc(); }
}
"#;
        check_tests(
            &[
                ("src/Counter.java", COUNTER),
                ("src/AbstractCounterTest.java", base),
                ("src/PlainCounterTest.java", plain),
                ("src/SharedCounterTest.java", shared),
            ],
            expect![[r#"
                demo.PlainCounterTest#twoThreads inherited
                demo.PlainCounterTest#alone inherited
                demo.SharedCounterTest#twoThreads inherited
                demo.SharedCounterTest#alone inherited
                demo.SharedCounterTest#ownTest own
            "#]],
        );
        // Those that start threads are where the editor offers them, and the abstract
        // method knows which classes run it.
        let index = index_of(&[
            ("src/Counter.java", COUNTER),
            ("src/AbstractCounterTest.java", base),
            ("src/PlainCounterTest.java", plain),
            ("src/SharedCounterTest.java", shared),
        ]);
        let file = index.file_id("src/AbstractCounterTest.java").unwrap();
        assert!(thread_tests_in(&index, file).is_empty());
        let two_threads = MethodRef {
            origin: Origin::Project(file),
            idx: index.entry(file).unwrap().facts.methods.iter().position(|m| m.name == "twoThreads").unwrap() as u32,
        };
        let runners: Vec<String> = junit::inheriting_classes(&index, two_threads)
            .into_iter()
            .map(|c| index.facts(c.origin).unwrap().classes[c.idx as usize].binary_name.clone())
            .collect();
        assert_eq!(runners, ["demo.PlainCounterTest", "demo.SharedCounterTest"]);
    }

    #[test]
    fn junit4_inherits_from_concrete_superclasses_and_an_unannotated_override_still_runs() {
        // JUnit 4 collects annotated methods up the hierarchy (an override without @Test
        // still runs, on the override); Jupiter drops a method its subclass overrides.
        let base4 = r#"
package demo;

import org.junit.Test;

public class BaseTest {
    @Test
    public void increments() { new Counter().inc(); }
}
"#;
        let sub4 = r#"
package demo;

public class SubTest extends BaseTest {
    @Override
    public void increments() { }
}
"#;
        let base5 = r#"
package demo;

import org.junit.jupiter.api.Test;

public class Base5Test {
    @Test
    void increments() { new Counter().inc(); }
}
"#;
        let sub5 = r#"
package demo;

public class Sub5Test extends Base5Test {
    @Override
    void increments() { }
}
"#;
        check_tests(
            &[
                ("src/Counter.java", COUNTER),
                ("src/BaseTest.java", base4),
                ("src/SubTest.java", sub4),
                ("src/Base5Test.java", base5),
                ("src/Sub5Test.java", sub5),
            ],
            expect![[r#"
                demo.BaseTest#increments own
                demo.SubTest#increments inherited
                demo.Base5Test#increments own
            "#]],
        );
    }

    #[test]
    fn disabled_and_ignored_tests_and_classes_are_skipped() {
        let jupiter = r#"
package demo;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

class JupiterTest {
    @Test
    void runs() { }

    @Disabled("flaky")
    @Test
    void disabled() { }
}
"#;
        let disabled_class = r#"
package demo;

import org.junit.jupiter.api.*;

@Disabled
class DisabledTest {
    @Test
    void never() { }
}
"#;
        let junit4 = r#"
package demo;

import org.junit.Ignore;
import org.junit.Test;

public class Junit4Test {
    @Test
    public void runs() { }

    @Ignore
    @Test
    public void ignored() { }
}
"#;
        let ignored_class = r#"
package demo;

import org.junit.*;

@Ignore("later")
public class IgnoredTest {
    @Test
    public void never() { }
}
"#;
        check_tests(
            &[
                ("src/JupiterTest.java", jupiter),
                ("src/DisabledTest.java", disabled_class),
                ("src/Junit4Test.java", junit4),
                ("src/IgnoredTest.java", ignored_class),
            ],
            expect![[r#"
                demo.JupiterTest#runs own
                demo.Junit4Test#runs own
            "#]],
        );
    }

    #[test]
    fn what_each_framework_requires_of_classes_and_methods() {
        // JUnit 4 runs public methods of public classes; Jupiter anything but private, static
        // or non-void. A TestNG @Test is no JUnit test.
        let junit4 = r#"
package demo;

import org.junit.Test;

class PackagePrivateTest {
    @Test
    public void notRun() { }
}
"#;
        let methods4 = r#"
package demo;

import org.junit.Test;

public class MethodsTest {
    @Test
    public void runs() { }

    @Test
    void packagePrivate() { }

    @Test
    public static void isStatic() { }

    @Test
    public int returnsSomething() { return 1; }
}
"#;
        let methods5 = r#"
package demo;

import org.junit.jupiter.api.Test;

class Methods5Test {
    @Test
    void runs() { }

    @Test
    private void isPrivate() { }

    @Test
    static void isStatic() { }

    @Test
    int returnsSomething() { return 1; }

    private static class Hidden {
        @Test
        void notRun() { }
    }

    static class Inner {
        @Test
        void runs() { }
    }
}
"#;
        let testng = r#"
package demo;

import org.testng.annotations.Test;

public class NgTest {
    @Test
    public void notJunit() { }
}
"#;
        check_tests(
            &[
                ("src/PackagePrivateTest.java", junit4),
                ("src/MethodsTest.java", methods4),
                ("src/Methods5Test.java", methods5),
                ("src/NgTest.java", testng),
            ],
            expect![[r#"
                demo.MethodsTest#runs own
                demo.Methods5Test#runs own
                demo.Methods5Test$Inner#runs own
            "#]],
        );
    }

    #[test]
    fn nested_parameterized_and_repeated_tests_are_listed() {
        let test = r#"
package demo;

import org.junit.jupiter.api.*;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CounterTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void increments(int times) { }

    @RepeatedTest(3)
    void repeats(RepetitionInfo info) { }

    @Nested
    class WhenShared {
        @Test
        void twoThreads() { }

        @Nested
        class AndReset {
            @Test
            void resets() { }
        }
    }

    class NotNested {
        @Test
        void notRun() { }
    }

    @Disabled
    @Nested
    class Off {
        @Test
        void notRun() { }

        @Nested
        class Deeper {
            @Test
            void notRunEither() { }
        }
    }
}
"#;
        let abstract_outer = r#"
package demo;

import org.junit.jupiter.api.*;

abstract class AbstractOuterTest {
    @Nested
    class Inner {
        @Test
        void notOnItsOwn() { }
    }
}
"#;
        check_tests(
            &[("src/CounterTest.java", test), ("src/AbstractOuterTest.java", abstract_outer)],
            expect![[r#"
                demo.CounterTest#increments own
                demo.CounterTest#repeats own
                demo.CounterTest$WhenShared#twoThreads own
                demo.CounterTest$WhenShared$AndReset#resets own
            "#]],
        );
    }

    #[test]
    fn suites_run_other_classes_and_junit4_runners_are_inherited() {
        let suite = r#"
package demo;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Suite;

@RunWith(Suite.class)
@Suite.SuiteClasses({ MethodsTest.class })
public class AllTests {
    @Test
    public void notRunBySuite() { }
}
"#;
        let parameterized = r#"
package demo;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;

@RunWith(Parameterized.class)
public class ParamTest {
    public ParamTest(int n) { }

    @Test
    public void runsPerParameter() { }
}
"#;
        check_tests(
            &[("src/AllTests.java", suite), ("src/ParamTest.java", parameterized)],
            expect![[r#"
            demo.ParamTest#runsPerParameter own
        "#]],
        );
    }
}
