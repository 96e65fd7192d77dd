//! JUnit's own rules for which classes run and which of their methods are tests, read from
//! the sources: what [`crate::select`] lists, so that racelens never offers a test JUnit
//! would not run, and lists the tests a class inherits under each class that runs them.
//!
//! - **Frameworks.** A method's `@Test` is JUnit 4's (`org.junit.Test`) or Jupiter's
//!   (`org.junit.jupiter.api.Test`) by its qualified name or the file's imports; one imported
//!   from elsewhere (TestNG's) is no JUnit test; one whose origin the file does not say is
//!   read as JUnit 4's. `@ParameterizedTest` and `@RepeatedTest` are Jupiter's. A
//!   `junit.framework.TestCase` subclass runs the JUnit 3 way: its `public void test*()`
//!   methods, JUnit 4 annotations unread (JUnit 4's `AllDefaultPossibilitiesBuilder`).
//! - **Classes** (Jupiter's `IsPotentialTestContainer` and `IsNestedTestClass`, the Vintage
//!   engine's `IsPotentialJUnit4TestClass`): never abstract, local or anonymous. Jupiter runs
//!   top-level and static nested classes that are not private, and `@Nested` inner classes
//!   of a class it runs; JUnit 3 and 4 need a public top-level or static nested class. A
//!   class with `@Ignore` (JUnit 4, on the class itself: the annotation is not inherited) or
//!   `@Disabled` (Jupiter, on the class or an enclosing one of a `@Nested` class) runs
//!   nothing. JUnit 4's `Suite`, `Enclosed` and `Categories` runners (`@RunWith` is
//!   inherited) run other classes, never the class's own methods.
//! - **Methods.** Each class runs its own tests, then those it inherits from project
//!   superclasses. Jupiter: annotated, not static, private nor abstract, returning `void`;
//!   an override hides the method it overrides, so an override without the annotation is
//!   no test (`ReflectionUtils.findMethods`, top-down with shadowed methods removed). JUnit
//!   4: annotated, public, not static, `void`, no parameters; only annotated methods hide
//!   each other (`TestClass` collects annotated methods), so the superclass's `@Test` still
//!   runs, on the override. `@Disabled` and `@Ignore` on the method skip it.
//! - Not read here: Jupiter's test interfaces (default methods), `@TestFactory` and
//!   `@TestTemplate` (racelens cannot run them), conditions (`@DisabledOnOs`, ...), tag
//!   filters and a build's include patterns.

use std::collections::HashSet;

use crate::index::{ClassRef, MethodRef, ProjectIndex, TypeName};
use crate::java::{Annotation, ClassKind, FileFacts, MethodIdx, MethodKind};

/// The framework that runs a test method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Framework {
    Junit3,
    Junit4,
    Jupiter,
}

/// A test JUnit runs on a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JunitTest {
    /// The test method's declaration: in the class itself, or in a superclass.
    pub method: MethodRef,
    pub framework: Framework,
    /// Declared in a superclass.
    pub inherited: bool,
}

/// Where an annotation comes from, by its qualified name or the file's imports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AnnotationOrigin {
    Junit4,
    Jupiter,
    /// Imported from another package (TestNG's `@Test`, a project's own).
    Other,
    /// The file does not say (no import names it).
    Unknown,
}

fn origin_of(facts: &FileFacts, a: &Annotation) -> AnnotationOrigin {
    let of_package = |package: &str| {
        if package.starts_with("org.junit.jupiter.") {
            AnnotationOrigin::Jupiter
        } else if package == "org.junit" || package.starts_with("org.junit.") {
            AnnotationOrigin::Junit4
        } else {
            AnnotationOrigin::Other
        }
    };
    if let Some(q) = &a.qualified {
        return of_package(q.rsplit_once('.').map_or("", |(p, _)| p));
    }
    let suffix = format!(".{}", a.name);
    if let Some(import) = facts.imports.iter().find(|i| i.ends_with(&suffix)) {
        return of_package(&import[..import.len() - suffix.len()]);
    }
    // Wildcards: JUnit's own packages only (another's `*` may or may not hold the name).
    let wildcard = |package: &str| facts.imports.iter().any(|i| i.strip_suffix(".*") == Some(package));
    let jupiter = ["org.junit.jupiter.api", "org.junit.jupiter.params"].iter().any(|p| wildcard(p));
    match (jupiter, wildcard("org.junit")) {
        (true, false) => AnnotationOrigin::Jupiter,
        (false, true) => AnnotationOrigin::Junit4,
        _ => AnnotationOrigin::Unknown,
    }
}

fn has(facts: &FileFacts, annotations: &[Annotation], name: &str, from: &[AnnotationOrigin]) -> bool {
    annotations.iter().any(|a| a.name == name && from.contains(&origin_of(facts, a)))
}

/// The framework whose test annotation a method carries, if any.
fn annotated_framework(facts: &FileFacts, annotations: &[Annotation]) -> Option<Framework> {
    use AnnotationOrigin::*;
    if ["ParameterizedTest", "RepeatedTest"].iter().any(|n| has(facts, annotations, n, &[Jupiter, Unknown]))
        || has(facts, annotations, "Test", &[Jupiter])
    {
        return Some(Framework::Jupiter);
    }
    has(facts, annotations, "Test", &[Junit4, Unknown]).then_some(Framework::Junit4)
}

/// `@Disabled` (Jupiter) or `@Ignore` (JUnit 4) among `annotations`.
fn skipped(facts: &FileFacts, annotations: &[Annotation], framework: Framework) -> bool {
    use AnnotationOrigin::*;
    match framework {
        Framework::Jupiter => has(facts, annotations, "Disabled", &[Jupiter, Unknown]),
        Framework::Junit4 | Framework::Junit3 => has(facts, annotations, "Ignore", &[Junit4, Unknown]),
    }
}

/// JUnit 3's base class of tests, as a class extending it names it.
const JUNIT3_TEST_CASE: [&str; 2] = ["junit.framework.TestCase", "TestCase"];

/// The class `class` extends, resolved where it is declared (interfaces left out).
pub(crate) fn superclass(index: &ProjectIndex, class: ClassRef) -> Option<TypeName> {
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

/// `class`, then its project superclasses, nearest first.
fn chain(index: &ProjectIndex, class: ClassRef) -> Vec<ClassRef> {
    let mut out = vec![class];
    while out.len() <= 32 {
        match superclass(index, *out.last().expect("not empty")) {
            Some(TypeName::Class(sup)) if !out.contains(&sup) => out.push(sup),
            _ => break,
        }
    }
    out
}

/// Whether `class` extends JUnit 3's `junit.framework.TestCase`, directly or through
/// project superclasses. A project class that is itself named `TestCase` is not JUnit's.
pub fn is_junit3_class(index: &ProjectIndex, class: ClassRef) -> bool {
    let top = *chain(index, class).last().expect("not empty");
    matches!(superclass(index, top), Some(TypeName::External(name)) if JUNIT3_TEST_CASE.contains(&name.as_str()))
}

/// A JUnit 3 test method by JUnit's own rule: `public void test*()` without parameters, in a
/// named class that extends `TestCase` (JUnit cannot run tests of anonymous or local classes).
pub fn is_junit3_test(index: &ProjectIndex, method: MethodRef) -> bool {
    let Some(facts) = index.facts(method.origin) else { return false };
    let m = &facts.methods[method.idx as usize];
    let class = &facts.classes[m.class as usize];
    m.kind == MethodKind::Method
        && m.is_public
        && returns_void(m)
        && m.params.is_empty()
        && m.name.starts_with("test")
        && !class.is_local
        && is_junit3_class(index, ClassRef { origin: method.origin, idx: m.class })
}

fn returns_void(m: &crate::java::MethodFacts) -> bool {
    m.return_type.as_ref().is_some_and(|t| t.name == "void" && t.array_dims == 0)
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
    for c in chain(index, class) {
        let Some(facts) = index.facts(c.origin) else { break };
        for idx in 0..facts.methods.len() as MethodIdx {
            let m = &facts.methods[idx as usize];
            let method = MethodRef { origin: c.origin, idx };
            if m.class == c.idx && is_junit3_test(index, method) && names.insert(m.name.clone()) {
                out.push(method);
            }
        }
    }
    out
}

/// A method's signature for overriding: its name and its parameter types as written
/// (generic arguments left out).
fn signature(m: &crate::java::MethodFacts) -> (String, Vec<(String, u8)>) {
    (
        m.name.clone(),
        m.params
            .iter()
            .map(|p| (p.ty.name.rsplit('.').next().unwrap_or(&p.ty.name).to_string(), p.ty.array_dims))
            .collect(),
    )
}

/// Whether a class of this kind and these modifiers can hold tests at all: a named class,
/// not abstract, neither local nor anonymous.
fn instantiable(facts: &FileFacts, class: u32) -> bool {
    let c = &facts.classes[class as usize];
    matches!(c.kind, ClassKind::Class | ClassKind::Record) && !c.is_abstract && !c.is_local
}

/// Whether `framework` runs tests on `class` at all (the module's rules for classes).
pub fn runs_class(index: &ProjectIndex, class: ClassRef, framework: Framework) -> bool {
    let Some(facts) = index.facts(class.origin) else { return false };
    if !instantiable(&facts, class.idx) {
        return false;
    }
    let c = &facts.classes[class.idx as usize];
    match framework {
        Framework::Jupiter => {
            if c.is_private || skipped(&facts, &c.annotations, framework) {
                return false;
            }
            match c.outer {
                // A @Nested inner class runs inside a class that runs.
                Some(outer) if !c.is_static => {
                    has(&facts, &c.annotations, "Nested", &[AnnotationOrigin::Jupiter, AnnotationOrigin::Unknown])
                        && runs_class(index, ClassRef { origin: class.origin, idx: outer }, framework)
                }
                _ => true,
            }
        }
        Framework::Junit4 | Framework::Junit3 => {
            c.is_public
                && c.is_static
                && !skipped(&facts, &c.annotations, framework)
                && !runs_other_classes(index, class)
        }
    }
}

/// JUnit 4 runners that run other classes instead of the class's own methods. `@RunWith` is
/// `@Inherited`: a superclass's counts.
fn runs_other_classes(index: &ProjectIndex, class: ClassRef) -> bool {
    chain(index, class).into_iter().any(|c| {
        let Some(facts) = index.facts(c.origin) else { return false };
        let runner = facts.classes[c.idx as usize]
            .annotations
            .iter()
            .find(|a| a.name == "RunWith")
            .and_then(|a| a.classes.first());
        runner.is_some_and(|r| matches!(r.rsplit('.').next(), Some("Suite" | "Enclosed" | "Categories")))
    })
}

/// The tests JUnit runs on `class`: its own, in declaration order, then those it inherits,
/// nearest superclass first. Empty for a class no framework runs.
pub fn tests_of(index: &ProjectIndex, class: ClassRef) -> Vec<JunitTest> {
    let Some(facts) = index.facts(class.origin) else { return Vec::new() };
    if !instantiable(&facts, class.idx) || facts.classes[class.idx as usize].kind == ClassKind::Anonymous {
        return Vec::new();
    }
    let junit3 = is_junit3_class(index, class);
    let runs = |f: Framework| runs_class(index, class, f);
    let (jupiter_runs, junit4_runs) = (runs(Framework::Jupiter), !junit3 && runs(Framework::Junit4));
    let mut out = Vec::new();
    // Signatures declared nearer `class`: any method hides a Jupiter test; only JUnit 4 tests
    // hide JUnit 4 tests.
    let (mut declared, mut junit4_declared) = (HashSet::new(), HashSet::new());
    for c in chain(index, class) {
        let Some(facts) = index.facts(c.origin) else { break };
        for idx in 0..facts.methods.len() as MethodIdx {
            let m = &facts.methods[idx as usize];
            if m.class != c.idx || m.kind != MethodKind::Method {
                continue;
            }
            let sig = signature(m);
            let hidden = declared.contains(&sig);
            let framework = annotated_framework(&facts, &m.annotations);
            let test = match framework {
                Some(Framework::Jupiter) => {
                    jupiter_runs && !hidden && !m.is_static && !m.is_private && !m.is_abstract && returns_void(m)
                }
                Some(Framework::Junit4) => {
                    let first = junit4_declared.insert(sig.clone());
                    junit4_runs && first && m.is_public && !m.is_static && returns_void(m) && m.params.is_empty()
                }
                _ => false,
            };
            declared.insert(sig);
            if let (true, Some(f)) = (test, framework) {
                if !skipped(&facts, &m.annotations, f) {
                    out.push(JunitTest {
                        method: MethodRef { origin: c.origin, idx },
                        framework: f,
                        inherited: c != class,
                    });
                }
            }
        }
    }
    if junit3 && runs(Framework::Junit3) {
        for method in junit3_tests(index, class) {
            let Some(f) = index.facts(method.origin) else { continue };
            let m = &f.methods[method.idx as usize];
            if !skipped(&f, &m.annotations, Framework::Junit3) {
                out.push(JunitTest {
                    method,
                    framework: Framework::Junit3,
                    inherited: ClassRef { origin: method.origin, idx: m.class } != class,
                });
            }
        }
    }
    // Own tests first, then inherited ones (each group keeps its order).
    out.sort_by_key(|t| t.inherited);
    out
}

/// The classes other than the declaring one that run the test method `method` as one of
/// theirs (it is inherited): where the editor offers to explore a test declared in an
/// abstract class.
pub fn inheriting_classes(index: &ProjectIndex, method: MethodRef) -> Vec<ClassRef> {
    let Some(facts) = index.facts(method.origin) else { return Vec::new() };
    let m = &facts.methods[method.idx as usize];
    let declaring = ClassRef { origin: method.origin, idx: m.class };
    // Cheap checks first: the editor asks this of every method of an open file.
    let may_be_test = m.name.starts_with("test")
        || m.annotations.iter().any(|a| matches!(a.name.as_str(), "Test" | "ParameterizedTest" | "RepeatedTest"));
    if !may_be_test || index.symbols().direct_subtypes(declaring).is_empty() {
        return Vec::new();
    }
    let mut out: Vec<ClassRef> = index
        .symbols()
        .all_subtypes(declaring, 256)
        .into_iter()
        .filter(|&s| s != declaring && tests_of(index, s).iter().any(|t| t.method == method))
        .collect();
    out.sort_by_key(|c| index.facts(c.origin).map(|f| f.classes[c.idx as usize].binary_name.clone()));
    out
}
