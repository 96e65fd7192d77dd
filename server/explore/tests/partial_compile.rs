//! A repository whose whole does not compile (a file needs a library nobody put on the
//! classpath, as upstream projects have when their build cannot be read here): the test's
//! own part is compiled, found by javac from the test's file over the sources' roots, and
//! the note says so; a test whose own part does not compile still fails with javac's
//! errors; a repository that compiles is compiled whole, without a note. The cache goes to
//! a folder of this test process (`XDG_CACHE_HOME`).

use racelens_test_support as support;

use std::path::Path;

use racelens_analysis::host::{Host, HostOptions};
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::project::{self, Sources};
use tempfile::TempDir;

const COUNTER: &str = r#"package org.shop.stock;

/** A stock level that several tills update. */
public class Counter {
    private int level;

    public synchronized void add(int n) {
        level += n;
    }

    public synchronized int level() {
        return level;
    }
}
"#;

/// Needs a vendor library that is not on the classpath: it does not compile here.
const EXPORTER: &str = r#"package org.shop.export;

import com.vendor.reports.Sheet;
import org.shop.stock.Counter;

public class Exporter {
    public Sheet export(Counter counter) {
        Sheet sheet = new Sheet("stock");
        sheet.cell(0, 0, counter.level());
        return sheet;
    }
}
"#;

const COUNTER_TEST: &str = r#"package org.shop.stock;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CounterTest {
    @Test
    public void twoTillsAddUp() throws Exception {
        Counter counter = new Counter();
        Thread till = new Thread(() -> counter.add(2));
        till.start();
        counter.add(3);
        till.join();
        assertEquals(5, counter.level());
    }
}
"#;

const TEST_FILE: &str = "src/test/java/org/shop/stock/CounterTest.java";

fn scratch() -> &'static Path {
    support::process_cache(env!("CARGO_TARGET_TMPDIR"))
}

fn repo(files: &[(&str, &str)]) -> TempDir {
    scratch();
    support::repo_with(files, &[])
}

fn sources(dir: &Path) -> Sources {
    let mut host = Host::open(dir, &HostOptions::default()).unwrap();
    host.load().unwrap();
    Sources::of(&host)
}

fn jdk() -> Jdk {
    Jdk::locate().expect("a JDK")
}

#[test]
fn a_test_is_compiled_with_what_it_reaches_when_the_whole_does_not_compile() {
    let dir = repo(&[
        ("src/main/java/org/shop/stock/Counter.java", COUNTER),
        ("src/main/java/org/shop/export/Exporter.java", EXPORTER),
        (TEST_FILE, COUNTER_TEST),
    ]);
    let project = project::prepare(&sources(dir.path()), &jdk(), Some(Path::new(TEST_FILE)))
        .unwrap_or_else(|e| panic!("{}", e.message));
    let classes = &project.classes[0];
    assert!(classes.join("org/shop/stock/Counter.class").is_file(), "{}", classes.display());
    assert!(classes.join("org/shop/stock/CounterTest.class").is_file());
    assert!(!classes.join("org/shop/export/Exporter.class").exists(), "the file the test does not reach");
    assert_eq!(project.summary, "compiled 2 files");
    let [note] = project.notes.as_slice() else { panic!("{:?}", project.notes) };
    assert!(
        note.starts_with("the project as a whole (every analysed source) does not compile (4 errors in src/main/java/org/shop/export/Exporter.java): racelens compiled only what src/test/java/org/shop/stock/CounterTest.java reaches (2 of 3 files, by javac's implicit compilation)"),
        "{note}"
    );

    // Again, unchanged: neither the whole nor the test's part is compiled again.
    let again = project::prepare(&sources(dir.path()), &jdk(), Some(Path::new(TEST_FILE))).unwrap();
    assert_eq!((again.summary.as_str(), &again.notes), ("up to date", &project.notes));

    // The base revision (the change's impact runs the test there) is compiled the same way.
    let changed = COUNTER.replace("        level += n;", "        int next = level + n;\n        level = next;");
    support::write(dir.path(), "src/main/java/org/shop/stock/Counter.java", &changed);
    let host = Host::open(dir.path(), &HostOptions::default()).unwrap();
    let (commit, base) = project::base_sources(&host).unwrap().expect("a change, so a base");
    let built = project::build_base(&commit, &base, &jdk(), &again).unwrap_or_else(|e| panic!("{e}"));
    assert!(built.classes[0].join("org/shop/stock/Counter.class").is_file());
    assert!(!built.classes[0].join("org/shop/export/Exporter.class").exists());
}

#[test]
fn a_test_whose_own_part_does_not_compile_fails_with_javacs_errors() {
    let test = COUNTER_TEST
        .replace("import org.junit.Test;", "import org.junit.Test;\nimport org.shop.export.Exporter;")
        .replace(
            "        Counter counter = new Counter();",
            "        Counter counter = new Counter();\n        new Exporter();",
        );
    let dir = repo(&[
        ("src/main/java/org/shop/stock/Counter.java", COUNTER),
        ("src/main/java/org/shop/export/Exporter.java", EXPORTER),
        (TEST_FILE, &test),
    ]);
    let error = project::prepare(&sources(dir.path()), &jdk(), Some(Path::new(TEST_FILE))).unwrap_err();
    assert!(
        error.message.contains("does not compile")
            && error.message.contains("nor does what the test reaches")
            && error.message.contains("com.vendor.reports"),
        "{}",
        error.message
    );
}

#[test]
fn a_repository_that_compiles_is_compiled_whole() {
    let dir = repo(&[("src/main/java/org/shop/stock/Counter.java", COUNTER), (TEST_FILE, COUNTER_TEST)]);
    let project = project::prepare(&sources(dir.path()), &jdk(), Some(Path::new(TEST_FILE))).unwrap();
    assert_eq!((project.summary.as_str(), project.notes.len()), ("compiled 2 files", 0));
}
