//! Finding the test to run from what a user types: `PoolTest#borrow`,
//! `org.example.PoolTest#borrow`, `Main` for a main program, or `PoolTest` for the one
//! test method of a class.

use racelens_analysis::host::Host;
use racelens_analysis::java::{ClassKind, MethodKind};

use crate::jvm::TestSpec;

/// Resolves `CLASS#METHOD` (or `CLASS` for `main`) against the project's classes.
pub fn resolve(host: &Host, text: &str) -> Result<TestSpec, String> {
    let (class_text, method) = match text.split_once('#') {
        Some((c, m)) => (c, Some(m)),
        None => (text, None),
    };
    let mut candidates = Vec::new();
    for (_, e) in host.index().entries() {
        for (i, c) in e.facts.classes.iter().enumerate() {
            if c.kind == ClassKind::Anonymous {
                continue;
            }
            let source_name = c.binary_name.replace('$', ".");
            let matches = c.binary_name == class_text || source_name == class_text || c.simple_name == class_text || source_name.ends_with(&format!(".{class_text}"));
            if matches {
                candidates.push((e.facts.clone(), i as u32));
            }
        }
    }
    let (facts, class) = match candidates.len() {
        0 => return Err(format!("no class `{class_text}` in the project (give its simple or fully qualified name)")),
        1 => candidates.remove(0),
        _ => {
            let names: Vec<String> = candidates.iter().map(|(f, c)| f.classes[*c as usize].binary_name.clone()).collect();
            return Err(format!("`{class_text}` is ambiguous: {}", names.join(", ")));
        }
    };
    let binary = facts.classes[class as usize].binary_name.clone();
    let methods: Vec<&racelens_analysis::java::MethodFacts> = facts.methods.iter().filter(|m| m.class == class && m.kind == MethodKind::Method).collect();
    let is_test = |m: &racelens_analysis::java::MethodFacts| m.annotations.iter().any(|a| matches!(a.name.as_str(), "Test" | "RepeatedTest"));
    let tests: Vec<&str> = methods.iter().filter(|m| is_test(m)).map(|m| m.name.as_str()).collect();
    match method {
        Some("main") | None => {
            if methods.iter().any(|m| m.name == "main" && m.is_static) {
                return Ok(TestSpec { class: binary, method: None });
            }
            // A class with one test method: that test.
            if let ([only], None) = (tests.as_slice(), method) {
                return Ok(TestSpec { class: binary, method: Some(only.to_string()) });
            }
            Err(format!("`{binary}` has no `static main`; name a test method: {}", if tests.is_empty() { "(none found)".to_string() } else { tests.iter().map(|t| format!("{binary}#{t}")).collect::<Vec<_>>().join(", ") }))
        }
        Some(name) => {
            if methods.iter().any(|m| m.name == name && is_test(m)) {
                return Ok(TestSpec { class: binary, method: Some(name.to_string()) });
            }
            Err(format!("`{binary}` has no test method `{name}` (test methods: {})", if tests.is_empty() { "none".to_string() } else { tests.join(", ") }))
        }
    }
}
