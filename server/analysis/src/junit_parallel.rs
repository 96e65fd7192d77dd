//! Whether the build lets JUnit run test methods at the same time: JUnit's runner thread
//! ([`crate::impact`]'s pairing leaves out two accesses it makes one after the other) is
//! only one thread when the test methods run one after another, which is JUnit's default.
//!
//! Read where builds say it, at the root and in each module folder one level down:
//! Jupiter's `junit-platform.properties` (`junit.jupiter.execution.parallel.enabled = true`
//! with `junit.jupiter.execution.parallel.mode.default = concurrent`), the same two settings
//! in a `pom.xml` or `build.gradle(.kts)`, and Maven Surefire's `<parallel>` for methods
//! (`methods`, `both`, `classesAndMethods`, `suitesAndMethods`, `all`). Surefire's and
//! Gradle's forks are other JVMs, which share no memory, and do not count. A class or
//! method marked `@Execution(CONCURRENT)` is read where it is ([`annotated_with`]).

use std::path::{Path, PathBuf};

use crate::java::{Annotation, FileFacts, Span};

const PROPERTIES: &str = "src/test/resources/junit-platform.properties";
const BUILD_FILES: &[&str] = &["pom.xml", "build.gradle", "build.gradle.kts"];
const ENABLED: &str = "junit.jupiter.execution.parallel.enabled";
const MODE: &str = "junit.jupiter.execution.parallel.mode.default";
const SUREFIRE_METHODS: &[&str] = &["methods", "both", "classesAndMethods", "suitesAndMethods", "all"];

/// The build file that lets test methods run at the same time, relative to `root`.
pub fn concurrent_test_methods(root: &Path) -> Option<String> {
    let mut folders = vec![root.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(root) {
        let mut modules: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        modules.sort();
        folders.extend(modules);
    }
    let relative = |p: &Path| p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/");
    for folder in folders {
        let properties = folder.join(PROPERTIES);
        if let Ok(text) = std::fs::read_to_string(&properties) {
            if jupiter_concurrent(&text) {
                return Some(relative(&properties));
            }
        }
        for name in BUILD_FILES {
            let file = folder.join(name);
            if let Ok(text) = std::fs::read_to_string(&file) {
                if jupiter_concurrent(&text) || surefire_methods(&text) {
                    return Some(relative(&file));
                }
            }
        }
    }
    None
}

/// Both Jupiter settings, in any of the forms builds write them (`key = value`,
/// `key=value`, `"key": "value"`, `<key>value</key>`, `key', 'value`).
fn jupiter_concurrent(text: &str) -> bool {
    let value_after = |key: &str| -> Option<String> {
        let at = text.find(key)? + key.len();
        let rest = &text[at..];
        let value: String = rest
            .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '=' | ':' | '"' | '\'' | ',' | '>' | ')'))
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        Some(value.to_ascii_lowercase())
    };
    value_after(ENABLED).as_deref() == Some("true") && value_after(MODE).as_deref() == Some("concurrent")
}

fn surefire_methods(text: &str) -> bool {
    text.match_indices("<parallel>").any(|(at, tag)| {
        let value = text[at + tag.len()..].split('<').next().unwrap_or("").trim();
        SUREFIRE_METHODS.contains(&value)
    })
}

/// Whether a declaration's annotation `name` has the enum constant `constant` among its
/// arguments (`@Execution(CONCURRENT)`, `@TestInstance(Lifecycle.PER_CLASS)`), read from the
/// text before the declaration's name or body (`header`): the index keeps string and class
/// arguments only.
pub fn annotated_with(facts: &FileFacts, annotations: &[Annotation], header: Span, name: &str, constant: &str) -> bool {
    annotations.iter().any(|a| a.name == name) && {
        let end = header.end.min(facts.text.len() as u32).max(header.start);
        let text = &facts.text[header.start as usize..end as usize];
        // `@Execution(…)` or `@org.junit.jupiter.api.parallel.Execution(…)`.
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].trim_end().chars().last();
            let after = text[at + name.len()..].trim_start();
            matches!(before, Some('@' | '.'))
                && after.starts_with('(')
                && after.split(')').next().is_some_and(|args| args.contains(constant))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_are_read_in_the_forms_builds_write_them() {
        assert!(jupiter_concurrent(
            "junit.jupiter.execution.parallel.enabled = true\njunit.jupiter.execution.parallel.mode.default = concurrent\n"
        ));
        assert!(jupiter_concurrent("<junit.jupiter.execution.parallel.enabled>true</junit.jupiter.execution.parallel.enabled>\n<junit.jupiter.execution.parallel.mode.default>concurrent</junit.jupiter.execution.parallel.mode.default>"));
        assert!(jupiter_concurrent("systemProperty('junit.jupiter.execution.parallel.enabled', 'true')\nsystemProperty 'junit.jupiter.execution.parallel.mode.default', 'concurrent'"));
        // Enabled, but methods stay on one thread unless marked.
        assert!(!jupiter_concurrent(
            "junit.jupiter.execution.parallel.enabled = true\njunit.jupiter.execution.parallel.mode.default = same_thread\n"
        ));
        assert!(!jupiter_concurrent("junit.jupiter.execution.parallel.mode.default = concurrent\n"));
        assert!(surefire_methods("<configuration><parallel>methods</parallel><threadCount>4</threadCount>"));
        assert!(!surefire_methods("<configuration><parallel>classes</parallel>"));
        assert!(!surefire_methods("<forkCount>4</forkCount>"));
    }
}
