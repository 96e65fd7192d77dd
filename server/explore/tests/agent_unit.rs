//! The Java agent's own unit tests (JUnit 5, `server/agent/test`), run by `cargo test`: the
//! agent's sources and the tests are compiled with `javac` into a temporary folder (as
//! `build.rs` compiles the agent, against Debian's ASM), and Debian's JUnit console launcher
//! runs them. The test fails unless the JVM exits 0 and the launcher's summary reports at least
//! [`MIN_TESTS`] tests, all of them successful, so that a suite that silently finds nothing
//! fails too. The Java side covers the models of `racelens.rt.model` (outside executions and
//! under the scheduler, driven in process by `racelens.rt.Controlled`), the scheduler, the
//! online schedulers, logical time, sites and protocol text, and the instrumenter.
//!
//! Needs a JDK 17+ (`JAVA_HOME` or `PATH`), `libasm-java` (or `RACELENS_ASM_DIR`, as
//! `build.rs`) and `junit5` (`/usr/share/java/junit-platform-console-standalone.jar` and the
//! Jupiter jars); `.ci/setup` installs them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use racelens_explore::jvm::java::Jdk;

/// Fewer tests than this means the launcher missed some (a package or an engine not found).
const MIN_TESTS: u64 = 113;

/// A hang guard for the whole suite (it takes seconds; every execution has its own guard too),
/// enforced by coreutils' `timeout`.
const SUITE_LIMIT: Duration = Duration::from_secs(300);

const DEBIAN_JARS: &str = "/usr/share/java";

fn agent_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../agent")
}

/// The `.java` files under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())) {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "java") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    assert!(!out.is_empty(), "no Java sources under {}", dir.display());
    out
}

/// The jars `names` in `dir`; panics naming the Debian package that provides them when one is missing.
fn jars(dir: &Path, names: &[&str], package: &str) -> Vec<PathBuf> {
    let jars: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    if let Some(missing) = jars.iter().find(|j| !j.is_file()) {
        panic!("{} is missing: install it with `apt-get install {package}` (`.ci/setup` does)", missing.display());
    }
    jars
}

fn class_path(parts: &[&Path]) -> String {
    parts.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(":")
}

/// Compiles `files` into `out` with `javac --release 17`; panics with javac's messages.
fn javac(javac: &Path, cp: &str, files: &[PathBuf], out: &Path, argfile: &Path) {
    std::fs::create_dir_all(out).unwrap();
    let list = files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join("\n");
    std::fs::write(argfile, list).unwrap();
    let result = Command::new(javac)
        .args(["--release", "17", "-g", "-nowarn", "-encoding", "UTF-8", "-d"])
        .arg(out)
        .arg("-cp")
        .arg(cp)
        .arg(format!("@{}", argfile.display()))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", javac.display()));
    assert!(
        result.status.success(),
        "javac of {} failed:\n{}{}",
        argfile.display(),
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
}

/// The number on the summary line `[        88 tests successful      ]` of the console launcher.
fn summary(output: &str, what: &str) -> Option<u64> {
    output.lines().find_map(|l| {
        let inner = l.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
        let (n, rest) = inner.split_once(' ')?;
        (rest.trim() == what).then(|| n.parse().ok()).flatten()
    })
}

#[test]
fn agent_unit_tests_pass() {
    let jdk = Jdk::locate().unwrap_or_else(|e| panic!("{e}"));
    let javac_bin = jdk.javac().unwrap_or_else(|e| panic!("{e}")).to_path_buf();
    let asm_dir = std::env::var_os("RACELENS_ASM_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(DEBIAN_JARS));
    let asm = jars(&asm_dir, &["asm.jar", "asm-commons.jar", "asm-tree.jar"], "libasm-java");
    let junit_dir = Path::new(DEBIAN_JARS);
    let api = jars(
        junit_dir,
        &["junit-jupiter-api.jar", "junit-jupiter-params.jar", "opentest4j.jar", "apiguardian-api.jar"],
        "junit5",
    );
    let launcher = jars(junit_dir, &["junit-platform-console-standalone.jar", "junit-jupiter-engine.jar"], "junit5");

    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let main = tmp.path().join("main");
    let test = tmp.path().join("test");
    let asm_refs: Vec<&Path> = asm.iter().map(PathBuf::as_path).collect();
    javac(&javac_bin, &class_path(&asm_refs), &sources(&agent_dir().join("src")), &main, &tmp.path().join("main.txt"));
    let mut test_cp: Vec<&Path> = vec![&main];
    test_cp.extend(&asm_refs);
    test_cp.extend(api.iter().map(PathBuf::as_path));
    javac(&javac_bin, &class_path(&test_cp), &sources(&agent_dir().join("test")), &test, &tmp.path().join("test.txt"));

    // The launcher's output goes to files: no pipe to drain while it runs.
    let (log, errors) = (tmp.path().join("junit.txt"), tmp.path().join("junit-stderr.txt"));
    let mut run_cp: Vec<&Path> = vec![&test, &main];
    run_cp.extend(&asm_refs);
    // coreutils' `timeout` is the hang guard: it ends the launcher (exit status 124) after the limit
    let started = Instant::now();
    let status = Command::new("timeout")
        .args(["--kill-after=10", &SUITE_LIMIT.as_secs().to_string()])
        .arg(&jdk.java)
        .arg("-jar")
        .arg(&launcher[0])
        .arg("--class-path")
        .arg(class_path(&run_cp))
        .arg("--scan-class-path")
        .arg(&test)
        .args(["--include-engine=junit-jupiter", "--fail-if-no-tests", "--disable-banner", "--disable-ansi-colors"])
        .args(["--details=tree", "--details-theme=ascii"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::create(&errors).unwrap())
        .status()
        .unwrap_or_else(|e| panic!("cannot run `timeout` (coreutils) with {}: {e}", jdk.java.display()));
    let output =
        std::fs::read_to_string(&log).unwrap_or_default() + &std::fs::read_to_string(&errors).unwrap_or_default();
    assert!(!matches!(status.code(), Some(124 | 137)), "the agent's tests ran longer than {SUITE_LIMIT:?}:\n{output}");

    let found = summary(&output, "tests found");
    let succeeded = summary(&output, "tests successful");
    let failed = summary(&output, "tests failed");
    assert!(status.success(), "the agent's tests failed ({status}):\n{output}");
    assert_eq!(failed, Some(0), "failed tests:\n{output}");
    let succeeded = succeeded.unwrap_or_else(|| panic!("no summary from the JUnit launcher:\n{output}"));
    assert_eq!(found, Some(succeeded), "tests found but not successful (skipped or aborted):\n{output}");
    assert!(succeeded >= MIN_TESTS, "only {succeeded} tests ran, expected at least {MIN_TESTS}:\n{output}");
    eprintln!("{succeeded} agent tests passed in {:.1?} (JUnit)", started.elapsed());
}
