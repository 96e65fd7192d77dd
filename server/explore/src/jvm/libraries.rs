//! Which library jars on a test's classpath come under racelens's control, and which stay
//! outside it (and are named in the result).
//!
//! Library code that starts or joins threads, takes monitors or `java.util.concurrent` locks,
//! waits, notifies, parks or sleeps must run under the scheduler and on the logical clock, like
//! the project's own code: a library's `Thread.sleep` on the wall clock, or a lock of its own
//! held while a controlled thread waits for it, would make failures plain JUnit never shows.
//! Fray instruments the JDK and libraries alike; racelens instruments libraries for their
//! synchronization only (the agent's `sync=` paths: monitors, wait/notify, thread operations,
//! park, sleep, the `java.util.concurrent` models, time, randomness), not their field accesses:
//! for a library free of data races, schedules that differ only between two of its
//! synchronization operations are equivalent (JLS 17.4.5), so that is enough, and it keeps a
//! library's internals from multiplying the schedules to explore.
//!
//! Left out, by the name of their jar: the test frameworks (racelens's harness runs them, and
//! their own threads are the harness's), mocking and bytecode libraries (they generate classes
//! racelens must not rewrite twice), and logging libraries (their locks are held within one
//! call that never calls back into the project, so they cannot be held across a switch; as
//! scheduling points they would only multiply schedules). A thread blocked inside code racelens
//! does not control still ends the execution with that code named, never a pass.

use std::path::{Path, PathBuf};

/// Jar name prefixes left outside racelens's control, with why (for the result's note).
const UNCONTROLLED: &[(&str, Why)] = &[
    ("junit", Why::TestFramework),
    ("hamcrest", Why::TestFramework),
    ("opentest4j", Why::TestFramework),
    ("apiguardian", Why::TestFramework),
    ("assertj", Why::TestFramework),
    ("mockito", Why::Bytecode),
    ("byte-buddy", Why::Bytecode),
    ("objenesis", Why::Bytecode),
    ("cglib", Why::Bytecode),
    ("javassist", Why::Bytecode),
    ("asm", Why::Bytecode),
    ("jacoco", Why::Bytecode),
    ("slf4j", Why::Logging),
    ("logback", Why::Logging),
    ("log4j", Why::Logging),
    ("commons-logging", Why::Logging),
    ("racelens", Why::TestFramework),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    TestFramework,
    Bytecode,
    Logging,
}

/// The library part of a classpath: what racelens controls, and the logging libraries it
/// leaves out (the only ones worth naming in a result: test frameworks and bytecode
/// libraries never run the project's threads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Libraries {
    /// Jars and folders whose synchronization runs under the scheduler.
    pub controlled: Vec<PathBuf>,
    /// Logging jars left outside racelens's control, by file name.
    pub uncontrolled_logging: Vec<String>,
}

/// Sorts `classpath`'s entries that are not among the project's own `classes`.
pub fn of(classpath: &[PathBuf], classes: &[PathBuf]) -> Libraries {
    let mut out = Libraries::default();
    for entry in classpath.iter().filter(|e| !classes.contains(e)) {
        match why_left_out(entry) {
            None => out.controlled.push(entry.clone()),
            Some(Why::Logging) => out.uncontrolled_logging.push(file_name(entry)),
            Some(_) => {}
        }
    }
    out
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Why a jar stays outside racelens's control, by its name; `None`: it comes under it.
fn why_left_out(entry: &Path) -> Option<Why> {
    let name = file_name(entry).to_ascii_lowercase();
    if !name.ends_with(".jar") {
        return None; // a folder of classes on the classpath: a library built from source
    }
    UNCONTROLLED.iter().find(|(prefix, _)| name.starts_with(prefix)).map(|(_, why)| *why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_come_under_control_but_test_frameworks_bytecode_and_logging_libraries() {
        let cp: Vec<PathBuf> = [
            "/p/target/classes",
            "/usr/share/java/commons-lang3-3.12.0.jar",
            "/usr/share/java/junit4.jar",
            "/usr/share/java/hamcrest-core.jar",
            "/m2/org/mockito/mockito-core-4.jar",
            "/m2/org/slf4j/slf4j-api-1.7.32.jar",
            "/m2/ch/qos/logback-classic-1.2.jar",
            "/work/lib/pool-support",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let libs = of(&cp, &[PathBuf::from("/p/target/classes")]);
        assert_eq!(
            libs.controlled,
            [PathBuf::from("/usr/share/java/commons-lang3-3.12.0.jar"), PathBuf::from("/work/lib/pool-support")]
        );
        assert_eq!(libs.uncontrolled_logging, ["slf4j-api-1.7.32.jar", "logback-classic-1.2.jar"]);
    }
}
