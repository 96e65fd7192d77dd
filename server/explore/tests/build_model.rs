//! The classpath and test settings read from Maven and Gradle themselves (Debian's `maven`
//! and `gradle`, offline against Debian's repository `/usr/share/maven-repo`), on the
//! multi-module fixture `tests/fixtures/build-shop`: only the test's module and the modules
//! it depends on are compiled, the build's test JVM settings come along, the answer is
//! cached by the build files, the work tree stays untouched, and every failure says what
//! failed and which racelens.toml key avoids it.
//!
//! The cache goes to a folder of this test process (`XDG_CACHE_HOME`), and Gradle's user
//! home too (`-g`); Gradle runs without a daemon, so no process outlives a test.

use racelens_test_support as support;

use std::path::{Path, PathBuf};
use std::process::Command;

use racelens_analysis::host::{Host, HostOptions};
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::project::{self, PrepareError, Project, Sources};
use tempfile::TempDir;

const TEST_FILE: &str = "inventory/src/test/java/org/example/inventory/StockTest.java";
const DEBIAN_REPO: &str = "-Dmaven.repo.local=/usr/share/maven-repo";

/// The racelens cache and Gradle's user home of this test process. Every test calls this
/// first, so the environment is set before any thread reads it.
fn scratch() -> &'static Path {
    support::process_cache(env!("CARGO_TARGET_TMPDIR"))
}

fn jdk() -> Jdk {
    Jdk::locate().expect("a JDK")
}

/// The fixture's sources with one tool's build files, committed to a fresh git repository.
fn shop(tool: &str) -> TempDir {
    scratch();
    let fixture = support::fixtures_dir().join("build-shop");
    let dir = tempfile::tempdir().unwrap();
    support::copy_tree(&fixture.join("sources"), dir.path());
    support::copy_tree(&fixture.join(tool), dir.path());
    support::git(dir.path(), &["init", "-q"]);
    support::git(dir.path(), &["add", "-A"]);
    support::git(dir.path(), &["commit", "-q", "-m", "shop"]);
    dir
}

/// The work tree's sources as an exploration takes them, with `racelens.toml` settings a
/// test needs to reach Debian's repository (Maven) or to run Gradle without a daemon.
fn sources(dir: &Path) -> Sources {
    let mut host = Host::open(dir, &HostOptions::default()).unwrap();
    host.load().unwrap();
    let mut sources = Sources::of(&host);
    sources.config.maven_args = vec![DEBIAN_REPO.to_string()];
    sources.config.gradle_args =
        vec!["--no-daemon".to_string(), "-g".to_string(), scratch().join("gradle-home").display().to_string()];
    sources
}

fn prepare(dir: &Path) -> Result<Project, PrepareError> {
    project::prepare(&sources(dir), &jdk(), Some(Path::new(TEST_FILE)))
}

/// Every class file under the project's classes, as `org/example/ids/IdSource.class`.
fn class_files(project: &Project) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().is_dir() {
                walk(&e.path(), root, out);
            } else {
                out.push(e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(&project.classes[0], &project.classes[0], &mut out);
    out.sort();
    out
}

/// `git status --porcelain --ignored`: what changed in the work tree, ignored files too.
fn status(dir: &Path) -> String {
    let out = Command::new("git").args(["status", "--porcelain", "--ignored"]).current_dir(dir).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn has(classpath: &[PathBuf], suffix: &str) -> bool {
    classpath.iter().any(|p| p.to_string_lossy().ends_with(suffix))
}

#[test]
fn maven_gives_the_test_modules_classpath_sources_and_surefire_settings() {
    let repo = shop("maven");
    let dir = repo.path();
    let project = prepare(dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        project
            .classpath_line
            .starts_with("classpath: maven 3.8.7, module inventory (+ ids as sources), 4 jars, read in "),
        "{}",
        project.classpath_line
    );
    // The test's module and the module it depends on; not `reports`, which does not compile.
    assert_eq!(project.summary, "compiled 3 files");
    assert_eq!(
        class_files(&project),
        [
            "org/example/ids/IdSource.class",
            "org/example/inventory/Stock.class",
            "org/example/inventory/StockTest.class"
        ]
    );
    for jar in ["commons-lang3-3.12.0.jar", "slf4j-api-1.7.32.jar", "junit-4.x.jar", "hamcrest-debian.jar"] {
        assert!(has(&project.classpath, jar), "{jar} in {:?}", project.classpath);
    }
    assert!(project.classpath.contains(&dir.join("inventory/src/test/resources")), "{:?}", project.classpath);
    // Surefire's settings: argLine (`@{argLine}` is the empty property), its system
    // properties, the module's folder, assertions.
    assert_eq!(project.jvm.args, ["-Xmx256m", "-Dshop.region=eu"]);
    assert_eq!(project.jvm.system_properties, [("stock.initial".to_string(), "2".to_string())]);
    assert_eq!(project.jvm.working_dir, dir.join("inventory"));
    assert!(project.jvm.assertions && project.notes.is_empty(), "{:?}", project.notes);
    assert_eq!(status(dir), "", "Maven wrote nothing in the work tree");

    let again = prepare(dir).unwrap();
    assert!(again.classpath_line.ends_with(", 4 jars, cached"), "{}", again.classpath_line);
    assert_eq!((again.summary.as_str(), again.compile_time), ("up to date", std::time::Duration::ZERO));

    // jacoco's prepare-agent sets `argLine` only while the build runs: racelens leaves the
    // placeholder out and says so. build-helper-maven-plugin adds a folder of generated
    // test sources (under target/, which the analysis skips): racelens compiles it. Neither
    // plugin is in the repository; racelens runs no plugin. A changed POM is read again.
    let pom = dir.join("inventory/pom.xml");
    let text = std::fs::read_to_string(&pom).unwrap();
    let plugins = "<plugin><groupId>org.jacoco</groupId><artifactId>jacoco-maven-plugin</artifactId><version>0.8.11</version>\
                   <executions><execution><goals><goal>prepare-agent</goal></goals></execution></executions></plugin>\n      \
                   <plugin><groupId>org.codehaus.mojo</groupId><artifactId>build-helper-maven-plugin</artifactId><version>3.4.0</version>\
                   <executions><execution><id>fixtures</id><phase>generate-test-sources</phase><goals><goal>add-test-source</goal></goals>\
                   <configuration><sources><source>target/generated-test-sources/fixtures</source></sources></configuration></execution></executions></plugin>\n      <plugin>";
    std::fs::write(&pom, text.replace("<argLine></argLine>", "").replacen("<plugin>", plugins, 1)).unwrap();
    let generated = dir.join("inventory/target/generated-test-sources/fixtures/org/example/inventory/Customers.java");
    std::fs::create_dir_all(generated.parent().unwrap()).unwrap();
    std::fs::write(&generated, "package org.example.inventory;\n\n/** Generated. */\npublic final class Customers {\n    public static final String FIRST = \"ada\";\n}\n").unwrap();
    let with_plugins = prepare(dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(with_plugins.classpath_line.contains("read in"), "{}", with_plugins.classpath_line);
    assert_eq!(with_plugins.jvm.args, ["-Xmx256m", "-Dshop.region=eu"]);
    assert_eq!(with_plugins.notes.len(), 1, "{:?}", with_plugins.notes);
    assert!(
        with_plugins.notes[0].contains("`@{argLine}`") && with_plugins.notes[0].contains("[java] jvm_args"),
        "{}",
        with_plugins.notes[0]
    );
    assert!(
        class_files(&with_plugins).contains(&"org/example/inventory/Customers.class".to_string()),
        "{:?}",
        class_files(&with_plugins)
    );
}

#[test]
fn gradle_gives_the_test_projects_classpath_sources_and_test_task_settings() {
    let repo = shop("gradle");
    let dir = repo.path();
    let project = prepare(dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        project
            .classpath_line
            .starts_with("classpath: gradle 4.4.1, module inventory (+ ids as sources), 4 jars, read in "),
        "{}",
        project.classpath_line
    );
    assert_eq!(
        class_files(&project),
        [
            "org/example/ids/IdSource.class",
            "org/example/inventory/Stock.class",
            "org/example/inventory/StockTest.class"
        ]
    );
    assert!(
        has(&project.classpath, "commons-lang3-3.12.0.jar") && has(&project.classpath, "slf4j-api-1.7.32.jar"),
        "{:?}",
        project.classpath
    );
    assert!(project.classpath.contains(&dir.join("inventory/src/test/resources")), "{:?}", project.classpath);
    // The test task's heap size and system properties (Gradle moves `-D` options of
    // jvmArgs there), its working directory.
    assert_eq!(project.jvm.args, ["-Xmx256m"]);
    let mut props = project.jvm.system_properties.clone();
    props.sort();
    assert_eq!(props, [("shop.region".to_string(), "eu".to_string()), ("stock.initial".to_string(), "2".to_string())]);
    assert_eq!(project.jvm.working_dir, dir.join("inventory"));
    assert!(project.jvm.assertions);
    assert_eq!(status(dir), "", "Gradle wrote nothing in the work tree (its project cache goes to racelens's cache)");
    let again = prepare(dir).unwrap();
    assert!(
        again.classpath_line.ends_with("cached") && again.summary == "up to date",
        "{} / {}",
        again.classpath_line,
        again.summary
    );
    // Another project of the build (without a build file of its own) has a model of its own.
    let ids =
        project::prepare(&sources(dir), &jdk(), Some(Path::new("ids/src/main/java/org/example/ids/IdSource.java")))
            .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        ids.classpath_line.starts_with("classpath: gradle 4.4.1, module ids, 1 jar, read in "),
        "{}",
        ids.classpath_line
    );
    assert_eq!(class_files(&ids), ["org/example/ids/IdSource.class"]);
    assert!(prepare(dir).unwrap().classpath_line.ends_with("cached"));
}

#[test]
fn a_dependency_maven_cannot_resolve_offline_is_a_clear_error() {
    let repo = shop("maven");
    let dir = repo.path();
    let pom = dir.join("inventory/pom.xml");
    let wanted = "<dependency><groupId>com.example.vendor</groupId><artifactId>barcodes</artifactId><version>2.1</version></dependency>\n    <dependency>";
    std::fs::write(&pom, std::fs::read_to_string(&pom).unwrap().replacen("<dependency>", wanted, 1)).unwrap();
    let err = prepare(dir).unwrap_err().message;
    assert!(
        err.starts_with(&format!(
            "cannot read the Maven build in {}: it could not resolve what the test needs",
            dir.display()
        )),
        "{err}"
    );
    assert!(err.contains("com.example.vendor:barcodes:jar:2.1"), "{err}");
    assert!(err.contains("It ran offline and needs something it has not downloaded"), "{err}");
    assert!(err.contains("racelens ran: ") && err.contains(" -o ") && err.contains(" pre-clean"), "the command: {err}");
    assert!(
        err.contains("`[java] classpath = [") && err.contains("`[java] build_tool = \"none\"`"),
        "the keys that avoid it: {err}"
    );
}

#[test]
fn a_gradle_build_that_needs_the_network_is_a_clear_error() {
    let repo = shop("gradle");
    let dir = repo.path();
    let build = dir.join("build.gradle");
    let text = std::fs::read_to_string(&build)
        .unwrap()
        .replace("maven { url 'file:///usr/share/maven-repo' }", "mavenCentral()");
    std::fs::write(&build, text).unwrap();
    let err = prepare(dir).unwrap_err().message;
    assert!(
        err.starts_with(&format!(
            "cannot read the Gradle build in {}: it could not resolve what the test needs",
            dir.display()
        )),
        "{err}"
    );
    assert!(err.contains("org.apache.commons:commons-lang3:3.12.0"), "{err}");
    assert!(err.contains("It ran offline"), "{err}");
    assert!(err.contains("racelens ran: ") && err.contains("--offline") && err.contains("racelensBuildModel"), "{err}");
    assert!(err.contains("`[java] classpath_command = \"...\"`"), "{err}");
}

#[test]
fn a_module_that_does_not_compile_names_the_missing_package_and_keeps_javacs_output() {
    let repo = shop("maven");
    let dir = repo.path();
    let stock = dir.join("inventory/src/main/java/org/example/inventory/Stock.java");
    let text = std::fs::read_to_string(&stock)
        .unwrap()
        .replace(
            "import org.apache.commons.lang3.StringUtils;",
            "import org.apache.commons.lang3.StringUtils;\nimport org.apache.commons.text.WordUtils;",
        )
        .replace("\"a reservation needs a customer\"", "WordUtils.capitalize(\"a reservation needs a customer\")");
    std::fs::write(&stock, text).unwrap();
    let err = prepare(dir).unwrap_err();
    let javac = err.javac.as_ref().expect("javac's output is kept");
    let needing: Vec<&String> = javac.summary.missing_packages["org.apache.commons.text"].iter().collect();
    assert_eq!(needing, ["inventory/src/main/java/org/example/inventory/Stock.java"]);
    assert!(
        err.message.starts_with(
            "the project as a whole (module inventory (+ ids)) does not compile (2 errors in inventory/src/main/java/org/example/inventory/Stock.java), \
             nor does what the test reaches (javac, what inventory/src/test/java/org/example/inventory/StockTest.java reaches: 2 errors in 1 file):"
        ),
        "{}",
        err.message
    );
    assert!(
        err.message.contains(
            "    org.apache.commons.text, needed by inventory/src/main/java/org/example/inventory/Stock.java"
        ),
        "{}",
        err.message
    );
    assert!(err.message.contains("The classpath is Maven's for module inventory (+ ids)"), "{}", err.message);
    assert!(err.message.ends_with(&format!("javac's full output: {}", javac.log.display())), "{}", err.message);
    assert_eq!(std::fs::read_to_string(&javac.log).unwrap(), javac.output);
    assert!(javac.output.contains("error: package org.apache.commons.text does not exist"), "{}", javac.output);
}

#[test]
fn racelens_toml_classpath_wins_over_the_build() {
    let repo = shop("maven");
    let dir = repo.path();
    let mut sources = sources(dir);
    sources.config.classpath = vec!["/usr/share/maven-repo/org/apache/commons/commons-lang3/3.12.0/*.jar".into()];
    // No Maven: every analysed source is compiled, `reports` too, which does not compile; then
    // what the test reaches, `ids` and its logger among it, which does not compile either.
    let err = project::prepare(&sources, &jdk(), Some(Path::new(TEST_FILE))).unwrap_err();
    let summary = &err.javac.as_ref().expect("javac ran").summary;
    assert!(
        !summary.missing_packages.contains_key("org.example.billing")
            && summary.missing_packages.contains_key("org.slf4j")
            && err.message.contains("reports/src/main/java/org/example/reports/DailyReport.java"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("every analysed source") && err.message.contains("`[java] classpath` from racelens.toml"),
        "{}",
        err.message
    );
    assert!(!project::project_cache(dir).join("build-model").exists(), "no build model was read");
}

#[test]
fn a_classpath_command_gives_the_classpath_of_a_project_without_a_build() {
    scratch();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("src/org/example/Names.java");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "package org.example;\n\nimport org.apache.commons.lang3.StringUtils;\n\npublic class Names {\n    public static String shout(String s) {\n        return StringUtils.upperCase(s);\n    }\n}\n").unwrap();
    support::git(dir.path(), &["init", "-q"]);
    support::git(dir.path(), &["add", "-A"]);
    support::git(dir.path(), &["commit", "-q", "-m", "names"]);
    let mut sources = sources(dir.path());
    sources.config.classpath_command =
        Some("echo /usr/share/maven-repo/org/apache/commons/commons-lang3/3.12.0/commons-lang3-3.12.0.jar".into());
    let project = project::prepare(&sources, &jdk(), Some(Path::new("src/org/example/Names.java")))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(project.classpath_line.starts_with("classpath: command `echo "), "{}", project.classpath_line);
    assert!(project.classpath_line.contains(", 1 entry, read in"), "{}", project.classpath_line);
    assert!(
        has(&project.classpath, "commons-lang3-3.12.0.jar") && has(&project.classpath, "junit4.jar"),
        "{:?}",
        project.classpath
    );
    assert_eq!(
        (project.jvm.working_dir.as_path(), project.jvm.assertions),
        (dir.path().canonicalize().unwrap().as_path(), true)
    );
    let again = project::prepare(&sources, &jdk(), Some(Path::new("src/org/example/Names.java"))).unwrap();
    assert!(again.classpath_line.ends_with(", 1 entry, cached"), "{}", again.classpath_line);
    sources.config.classpath_command = Some("echo building >&2; exit 3".into());
    let err = project::prepare(&sources, &jdk(), None).unwrap_err().message;
    assert!(
        err.contains("`[java] classpath_command` `echo building >&2; exit 3` failed") && err.contains("building"),
        "{err}"
    );
}
