//! Finding the test to run from what a user types: `PoolTest#borrow`,
//! `org.example.PoolTest#borrow`, `Main` for a main program, `PoolTest` for the one
//! test method of a class, and `PoolTest#borrow[2]` for one invocation of a parameterized or
//! repeated test.
//!
//! Test methods are those JUnit runs on the class (`racelens_analysis::junit`): JUnit 4 and 5
//! methods annotated `@Test`, `@ParameterizedTest` or `@RepeatedTest`, declared or inherited,
//! and JUnit 3's `public void test*()` methods a `junit.framework.TestCase` subclass declares
//! or inherits. A class with a JUnit 3 `static suite()` accepts any method name: the agent
//! looks for a test of that name in the suite. An annotated method JUnit would skip
//! (`@Disabled`, `@Ignore`) goes to the agent, which says why it does not run it; an abstract
//! class's test is refused here, naming the subclasses that run it.

use std::sync::Arc;

use racelens_analysis::host::Host;
use racelens_analysis::index::{ClassRef, FileId, Origin, ProjectIndex};
use racelens_analysis::java::{ClassIdx, ClassKind, FileFacts, MethodFacts, MethodKind};
use racelens_analysis::junit;

use crate::jvm::TestSpec;

/// Resolves `CLASS#METHOD` (or `CLASS` for `main`, `CLASS#METHOD[N]` for an invocation)
/// against the project's classes.
pub fn resolve(host: &Host, text: &str) -> Result<TestSpec, String> {
    let (class_text, method) = match text.split_once('#') {
        Some((c, m)) => (c, Some(m)),
        None => (text, None),
    };
    let (method, invocation) = match method.and_then(|m| m.split_once('[')) {
        Some((name, rest)) => {
            let number = rest.strip_suffix(']').filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            let number = number.ok_or_else(|| {
                format!("`{text}`: an invocation is named by its number, as in `{class_text}#{name}[2]`")
            })?;
            (Some(name), Some(number))
        }
        None => (method, None),
    };
    let index = host.index();
    let (file, facts, class) = find_class(index, class_text)?;
    let binary = facts.classes[class as usize].binary_name.clone();
    let class_ref = ClassRef { origin: Origin::Project(file), idx: class };
    let methods: Vec<&MethodFacts> =
        facts.methods.iter().filter(|m| m.class == class && m.kind == MethodKind::Method).collect();
    let tests = test_names(index, class_ref);
    let has_suite = methods.iter().any(|m| m.name == "suite" && m.is_static && m.params.is_empty());
    let spec = |method: Option<&str>| TestSpec {
        class: binary.clone(),
        method: method.map(|m| match invocation {
            Some(n) => format!("{m}[{n}]"),
            None => m.to_string(),
        }),
    };
    match method {
        Some("main") | None => {
            if methods.iter().any(|m| m.name == "main" && m.is_static) {
                return Ok(spec(None));
            }
            // A class with one test method: that test.
            if let ([only], None) = (tests.as_slice(), method) {
                return Ok(spec(Some(only)));
            }
            if has_suite && tests.is_empty() {
                return Err(format!(
                    "`{binary}` has no `static main`; name a test of its JUnit 3 `suite()`: `{binary}#testName`"
                ));
            }
            let listed = if tests.is_empty() {
                "(none found)".to_string()
            } else {
                tests.iter().map(|t| format!("{binary}#{t}")).collect::<Vec<_>>().join(", ")
            };
            Err(format!("`{binary}` has no `static main`; name a test method: {listed}"))
        }
        Some(name) => {
            // A name that is not one of the class's own tests may be a test of its suite().
            if tests.iter().any(|t| t == name) || has_suite {
                return Ok(spec(Some(name)));
            }
            if let Some(declared) = annotated_test(index, class_ref, name) {
                if facts.classes[class as usize].is_abstract {
                    return Err(abstract_class(index, &binary, declared, name));
                }
                // JUnit skips it (`@Disabled`, `@Ignore`, ...): the agent says why.
                return Ok(spec(Some(name)));
            }
            let listed = if tests.is_empty() { "none".to_string() } else { tests.join(", ") };
            Err(format!("`{binary}` has no test method `{name}` (test methods: {listed})"))
        }
    }
}

/// The test method `name` carrying a JUnit test annotation, declared in `class` or inherited.
fn annotated_test(index: &ProjectIndex, class: ClassRef, name: &str) -> Option<racelens_analysis::index::MethodRef> {
    let r = index.resolver();
    let found = r
        .methods_named(class, name, 0)
        .into_iter()
        .chain(r.methods_named(class, name, 1))
        .chain(r.methods_named(class, name, 2));
    found.into_iter().find(|m| {
        index.facts(m.origin).is_some_and(|f| {
            f.methods[m.idx as usize]
                .annotations
                .iter()
                .any(|a| matches!(a.name.as_str(), "Test" | "ParameterizedTest" | "RepeatedTest"))
        })
    })
}

/// Why an abstract class's test cannot be explored, and the tests to name instead.
fn abstract_class(
    index: &ProjectIndex,
    binary: &str,
    method: racelens_analysis::index::MethodRef,
    name: &str,
) -> String {
    let runners: Vec<String> = junit::inheriting_classes(index, method)
        .into_iter()
        .filter_map(|c| index.facts(c.origin).map(|f| format!("{}#{name}", f.classes[c.idx as usize].binary_name)))
        .collect();
    match runners.as_slice() {
        [] => format!(
            "`{binary}` is abstract: JUnit does not run it, and no concrete subclass in the project runs `{name}`"
        ),
        _ => format!(
            "`{binary}` is abstract: JUnit does not run it; it runs `{name}` on its concrete subclasses: {}",
            runners.join(", ")
        ),
    }
}

/// The one named class: by binary, source, simple or package-suffix name.
fn find_class(index: &ProjectIndex, class_text: &str) -> Result<(FileId, Arc<FileFacts>, ClassIdx), String> {
    let mut candidates = Vec::new();
    for (file, e) in index.entries() {
        for (i, c) in e.facts.classes.iter().enumerate() {
            if c.kind == ClassKind::Anonymous {
                continue;
            }
            let source_name = c.binary_name.replace('$', ".");
            // `Outer$Inner`, as javac and JUnit's reports name a nested class, matches too.
            let suffix = format!(".{class_text}");
            let matches = c.binary_name == class_text
                || source_name == class_text
                || c.simple_name == class_text
                || source_name.ends_with(&suffix)
                || c.binary_name.ends_with(&suffix);
            if matches {
                candidates.push((file, e.facts.clone(), i as ClassIdx));
            }
        }
    }
    match candidates.len() {
        0 => Err(format!("no class `{class_text}` in the project (give its simple or fully qualified name)")),
        1 => Ok(candidates.remove(0)),
        _ => {
            let names: Vec<String> =
                candidates.iter().map(|(_, f, c)| f.classes[*c as usize].binary_name.clone()).collect();
            Err(format!("`{class_text}` is ambiguous: {}", names.join(", ")))
        }
    }
}

/// Names of the tests JUnit runs on the class: its own, then those it inherits, each once.
fn test_names(index: &ProjectIndex, class: ClassRef) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in junit::tests_of(index, class) {
        let Some(name) = index.facts(t.method.origin).map(|f| f.methods[t.method.idx as usize].name.clone()) else {
            continue;
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod resolve_tests {
    use racelens_analysis::host::HostOptions;

    use super::*;

    /// A host over a folder (not a git work tree) holding these Java files.
    fn host_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Host) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let mut host = Host::open(dir.path(), &HostOptions { no_git: true, ..HostOptions::default() }).unwrap();
        host.load().unwrap();
        (dir, host)
    }

    fn resolved(host: &Host, text: &str) -> Result<String, String> {
        resolve(host, text).map(|s| s.arg())
    }

    const POOL_TEST: (&str, &str) = (
        "src/test/java/demo/PoolTest.java",
        r#"
package demo;

import junit.framework.TestCase;

public class PoolTest extends TestCase {
    private Pool pool;

    @Override
    protected void setUp() { pool = new Pool(2); }

    public void testBorrow() throws Exception {
        Thread t = new Thread(() -> pool.borrow());
        t.start();
        pool.borrow();
        t.join();
    }

    private void testHelper() { }

    public void borrowTwice() { }
}
"#,
    );

    const POOL: (&str, &str) = (
        "src/main/java/demo/Pool.java",
        r#"
package demo;

public class Pool {
    private int free;
    public Pool(int free) { this.free = free; }
    public synchronized boolean borrow() { if (free == 0) return false; free--; return true; }
}
"#,
    );

    #[test]
    fn a_junit3_test_method_resolves_by_name_and_as_the_only_test_of_its_class() {
        let (_dir, host) = host_with(&[POOL, POOL_TEST]);
        assert_eq!(resolved(&host, "PoolTest#testBorrow"), Ok("junit:demo.PoolTest#testBorrow".to_string()));
        assert_eq!(resolved(&host, "demo.PoolTest"), Ok("junit:demo.PoolTest#testBorrow".to_string()));
        // Not tests for JUnit 3: a private test* method, a public method not named test*.
        assert_eq!(
            resolved(&host, "PoolTest#testHelper"),
            Err("`demo.PoolTest` has no test method `testHelper` (test methods: testBorrow)".to_string())
        );
        assert_eq!(
            resolved(&host, "PoolTest#borrowTwice"),
            Err("`demo.PoolTest` has no test method `borrowTwice` (test methods: testBorrow)".to_string())
        );
    }

    #[test]
    fn inherited_junit3_tests_count_and_errors_list_them() {
        let base = (
            "src/test/java/demo/AbstractPoolTest.java",
            r#"
package demo;

public abstract class AbstractPoolTest extends junit.framework.TestCase {
    protected abstract Pool newPool();
    public void testBorrowFromEmpty() { assertFalse(newPool().borrow()); }
}
"#,
        );
        let concrete = (
            "src/test/java/demo/EmptyPoolTest.java",
            r#"
package demo;

public class EmptyPoolTest extends AbstractPoolTest {
    protected Pool newPool() { return new Pool(0); }
    public void testStillEmpty() { assertFalse(newPool().borrow()); }
}
"#,
        );
        let (_dir, host) = host_with(&[POOL, base, concrete]);
        assert_eq!(
            resolved(&host, "EmptyPoolTest#testBorrowFromEmpty"),
            Ok("junit:demo.EmptyPoolTest#testBorrowFromEmpty".to_string())
        );
        assert_eq!(
            resolved(&host, "EmptyPoolTest"),
            Err("`demo.EmptyPoolTest` has no `static main`; name a test method: demo.EmptyPoolTest#testStillEmpty, demo.EmptyPoolTest#testBorrowFromEmpty".to_string())
        );
    }

    #[test]
    fn a_class_with_a_suite_takes_any_test_name_for_the_agent_to_find() {
        let suite = (
            "src/test/java/demo/AllTests.java",
            r#"
package demo;

import junit.framework.Test;
import junit.framework.TestSuite;

public class AllTests {
    public static Test suite() {
        TestSuite suite = new TestSuite("pool");
        suite.addTestSuite(PoolTest.class);
        return suite;
    }
}
"#,
        );
        let (_dir, host) = host_with(&[POOL, POOL_TEST, suite]);
        assert_eq!(resolved(&host, "AllTests#testBorrow"), Ok("junit:demo.AllTests#testBorrow".to_string()));
        assert_eq!(
            resolved(&host, "AllTests"),
            Err("`demo.AllTests` has no `static main`; name a test of its JUnit 3 `suite()`: `demo.AllTests#testName`"
                .to_string())
        );
    }

    #[test]
    fn junit4_tests_and_main_resolve_as_before() {
        let test = (
            "src/test/java/demo/PoolJUnit4Test.java",
            r#"
package demo;

import org.junit.Test;

public class PoolJUnit4Test {
    @Test
    public void borrowers() { }

    public void testNotJUnit3() { }
}
"#,
        );
        let main = (
            "src/main/java/demo/Demo.java",
            r#"
package demo;

public class Demo {
    public static void main(String[] args) { }
}
"#,
        );
        let (_dir, host) = host_with(&[POOL, test, main]);
        assert_eq!(resolved(&host, "PoolJUnit4Test"), Ok("junit:demo.PoolJUnit4Test#borrowers".to_string()));
        assert_eq!(
            resolved(&host, "PoolJUnit4Test#testNotJUnit3"),
            Err("`demo.PoolJUnit4Test` has no test method `testNotJUnit3` (test methods: borrowers)".to_string())
        );
        assert_eq!(resolved(&host, "Demo"), Ok("main:demo.Demo".to_string()));
    }
}
