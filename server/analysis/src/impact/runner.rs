//! JUnit's runner thread: the methods of a test file whose code JUnit's own thread runs,
//! one after another. Two accesses made there are ordered by the program, so they never
//! form a pair (JUnit's default; parallel execution is opt-in).
//!
//! The runner calls the test and lifecycle methods itself (`@Test`, `@BeforeEach`, JUnit 3's
//! `test*()` and `setUp()` in a `TestCase`), and runs what they run inline (a lambda given
//! to `forEach` or `assertThrows`). A test's helper runs there too when every call of it is
//! made by such code: a private method, or one no other file calls, called by name on
//! `this` only. A thread the test starts, or a lambda it hands to one, is not the runner's;
//! a helper given away as a method reference may run anywhere.
//!
//! Where the build lets test methods run at the same time, or for a class or method marked
//! `@Execution(CONCURRENT)` ([`crate::junit_parallel`]), only a test's own instance is its
//! alone: JUnit 4 and Jupiter make one per test method (unless `@TestInstance(PER_CLASS)`),
//! and run its lifecycle methods and the test on one thread. Accesses to static fields, or
//! to other objects, are then any thread's.

use std::collections::HashSet;

use crate::index::{ClassRef, FileId, MethodRef, Origin, ProjectIndex};
use crate::java::{CallKind, Expr, FileFacts, MethodIdx, MethodKind, Span};
use crate::junit_parallel::annotated_with;

/// The annotations of the methods JUnit's runner calls itself, one after another.
const RUNNER_CALLED: &[&str] = &[
    "Test",
    "ParameterizedTest",
    "RepeatedTest",
    "Before",
    "After",
    "BeforeEach",
    "AfterEach",
    "BeforeClass",
    "AfterClass",
    "BeforeAll",
    "AfterAll",
];

/// The annotations of the methods JUnit runs before or after tests.
const LIFECYCLE: &[&str] =
    &["Before", "BeforeEach", "BeforeClass", "BeforeAll", "After", "AfterEach", "AfterClass", "AfterAll"];

/// How deep helpers of helpers are followed.
const HELPER_DEPTH: usize = 4;

/// The methods of a test file that JUnit's runner thread runs.
#[derive(Default)]
pub(crate) struct RunnerMethods {
    /// Every method the runner runs, helpers included.
    pub runs: HashSet<MethodIdx>,
    /// Those it runs before or after each test (or all of them).
    pub lifecycle: HashSet<MethodIdx>,
    /// Those that may run at the same time as another test: only their own instance's
    /// fields are theirs alone.
    pub concurrent: HashSet<MethodIdx>,
    /// Those of a class whose one instance every test shares (`@TestInstance(PER_CLASS)`).
    pub shared_instance: HashSet<MethodIdx>,
}

/// The methods of `file` JUnit's runner thread runs (none for a file without tests);
/// `concurrent_tests`: the build lets test methods run at the same time.
pub(crate) fn runner_methods(index: &ProjectIndex, file: FileId, concurrent_tests: bool) -> RunnerMethods {
    let Some(entry) = index.entry(file) else { return RunnerMethods::default() };
    let facts = &entry.facts;
    let origin = Origin::Project(file);
    let mut runner: HashSet<MethodIdx> =
        (0..facts.methods.len() as MethodIdx).filter(|&m| called_by_runner(index, origin, facts, m)).collect();
    if runner.is_empty() {
        return RunnerMethods::default();
    }
    let lifecycle = runner.iter().copied().filter(|&m| is_lifecycle(index, origin, facts, m)).collect();
    for _ in 0..HELPER_DEPTH {
        let helpers: Vec<MethodIdx> = (0..facts.methods.len() as MethodIdx)
            .filter(|m| !runner.contains(m) && only_called_by(index, file, facts, *m, &runner))
            .collect();
        if helpers.is_empty() {
            break;
        }
        runner.extend(helpers);
    }
    let declared = |m: MethodIdx, name: &str, constant: &str, on_method: bool| {
        let method = &facts.methods[m as usize];
        let class = &facts.classes[method.class as usize];
        // The annotations stand before the name (a method) or the body (a class).
        let class_header = Span { end: class.body.start, ..class.span };
        let method_header = Span { end: method.name_span.start, ..method.span };
        annotated_with(facts, &class.annotations, class_header, name, constant)
            || (on_method && annotated_with(facts, &method.annotations, method_header, name, constant))
    };
    let concurrent =
        runner.iter().copied().filter(|&m| concurrent_tests || declared(m, "Execution", "CONCURRENT", true)).collect();
    let shared_instance = runner.iter().copied().filter(|&m| declared(m, "TestInstance", "PER_CLASS", false)).collect();
    RunnerMethods { runs: runner, lifecycle, concurrent, shared_instance }
}

fn is_lifecycle(index: &ProjectIndex, origin: Origin, facts: &FileFacts, idx: MethodIdx) -> bool {
    let m = &facts.methods[idx as usize];
    m.annotations.iter().any(|a| LIFECYCLE.contains(&a.name.as_str()))
        || (matches!(m.name.as_str(), "setUp" | "tearDown")
            && m.params.is_empty()
            && crate::junit::is_junit3_class(index, ClassRef { origin, idx: m.class }))
}

fn called_by_runner(index: &ProjectIndex, origin: Origin, facts: &FileFacts, idx: MethodIdx) -> bool {
    let m = &facts.methods[idx as usize];
    let junit3_called = matches!(m.name.as_str(), "setUp" | "tearDown")
        || crate::junit::is_junit3_test(index, MethodRef { origin, idx });
    m.annotations.iter().any(|a| RUNNER_CALLED.contains(&a.name.as_str()))
        || (junit3_called && crate::junit::is_junit3_class(index, ClassRef { origin, idx: m.class }))
}

/// Whether every call of method `m` is made by the own body of a method in `runner` (at
/// least one call; none by reference, none from another file unless `m` is private).
fn only_called_by(
    index: &ProjectIndex,
    file: FileId,
    facts: &FileFacts,
    m: MethodIdx,
    runner: &HashSet<MethodIdx>,
) -> bool {
    let method = &facts.methods[m as usize];
    if method.kind != MethodKind::Method || method.name == "main" {
        return false;
    }
    let mut calls = 0;
    for c in facts.calls.iter().filter(|c| c.name == method.name) {
        match (&c.kind, &c.receiver) {
            (CallKind::Reference, _) => return false,
            (CallKind::Method, None | Some(Expr::This)) if c.args.len() == method.params.len() => {
                let by_runner =
                    facts.holding_unit(c.unit).is_some_and(|u| runner.contains(&facts.units[u as usize].method));
                if !by_runner {
                    return false;
                }
                calls += 1;
            }
            _ => {}
        }
    }
    calls > 0 && (method.is_private || !called_from_another_file(index, file, &method.name))
}

fn called_from_another_file(index: &ProjectIndex, file: FileId, name: &str) -> bool {
    index
        .ids()
        .filter(|&id| id != file)
        .any(|id| index.entry(id).is_some_and(|e| e.facts.calls.iter().any(|c| c.name == name)))
}
