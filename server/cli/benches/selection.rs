//! Test selection and prioritization on a project of many independent subsystems (SimRT
//! section 4: precision and recall of selection, and APFD of the ranked order against a
//! random one, section 4.2.2).
//!
//! The project is the fourteen fault fixtures of the CAPP benchmark (`tests/bench/capp`)
//! side by side in one git repository: fourteen subsystems in their own packages, each with
//! its own multithreaded JUnit test. A version applies the buggy `change.patch` of one or
//! more fixtures; `racelens select --json` (the release binary, as a user runs it) ranks
//! all fourteen tests for it.
//!
//! Ground truth: the test of a fixture reveals that fixture's fault (the CAPP benchmark
//! checks that it fails on some schedule of the buggy version and on none of the correct
//! one). No other test can: this benchmark checks that no other subsystem's source
//! mentions the faulty subsystem's package, so no other test executes the changed code.
//!
//! - Selection: precision = revealing tests selected / tests selected, recall = revealing
//!   tests selected / revealing tests (SimRT section 4.2.1).
//! - APFD = 1 − (TF₁ + … + TFₘ) / (n·m) + 1 / (2n), for n tests and m faults, TFᵢ the
//!   position of the first test that reveals fault i (Rothermel et al.; SimRT section
//!   4.2.2). A random order's expected APFD uses E[TFᵢ] = (n + 1) / (kᵢ + 1), for kᵢ
//!   revealing tests among n: exact, no sampling.
//!
//! Versions: each fault alone, then every window of three consecutive faults applied at
//! once (three subsystems changed). Each from two kinds of evidence: static reach (a cache
//! without history), and coverage (`racelens record --all` run once on the base, each test
//! under the agent on a real JVM: SimRT Figure 4 on what the threads executed). Without a
//! JDK, only the static one.
//!
//! Then the cost of selection at scale (issue 21, item 5): the same subsystems next to the
//! JDK's `java.util`, `java.lang`, `java.io`, `java.net`, `java.math` and `java.text` sources
//! (about 500,000 lines) and 1,500 generated tests of those classes, one fault applied:
//! `racelens select` and `racelens check` as processes, cold (empty cache) and warm (the
//! index cache), with their peak memory; and the selection alone on a loaded workspace, as
//! the language server runs it after an analysis.
//!
//! Run: `cargo bench -p racelens --bench selection`

use racelens_test_support::corpus;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use corpus::git;
use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::Options;
use racelens_analysis::index::Jdk;
use racelens_analysis::rank;
use serde_json::Value;

struct Fixture {
    name: String,
    /// `pkg.Class#method`: the test that reveals this fixture's fault.
    test: String,
    /// The subsystem's Java package.
    package: String,
    patch: PathBuf,
}

/// One version's outcome.
struct Measured {
    faults: Vec<usize>,
    selected: Vec<String>,
    /// Test names, best first.
    order: Vec<String>,
    millis: u128,
}

fn main() {
    let bench =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bench/capp").canonicalize().expect("tests/bench/capp");
    let fixtures = fixtures(&bench);
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path().canonicalize().unwrap();
    for f in &fixtures {
        copy_tree(&bench.join(&f.name).join("base"), &root);
    }
    check_independent(&root, &fixtures);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "fourteen subsystems"]);
    let lines: usize = java_files(&root).iter().map(|p| std::fs::read_to_string(p).unwrap().lines().count()).sum();
    println!(
        "project: {} subsystems, {} tests, {lines} lines of Java (tests/bench/capp/*/base side by side)\n",
        fixtures.len(),
        fixtures.len()
    );

    let caches = tempfile::tempdir().unwrap();
    let (static_cache, coverage_cache) = (caches.path().join("static"), caches.path().join("coverage"));
    let mut evidences = vec![("static reach", static_cache)];
    let started = Instant::now();
    let record = Command::new(env!("CARGO_BIN_EXE_racelens"))
        .args(["record", "--all"])
        .arg(&root)
        .env("XDG_CACHE_HOME", &coverage_cache)
        .output()
        .unwrap();
    match record.status.success() {
        true => {
            println!(
                "recorded: {} ({:.1} s)\n",
                String::from_utf8_lossy(&record.stdout).lines().last().unwrap_or("").trim(),
                started.elapsed().as_secs_f64()
            );
            evidences.push(("coverage", coverage_cache));
        }
        false => println!(
            "coverage: not measured, `racelens record --all` failed: {}\n",
            String::from_utf8_lossy(&record.stderr).trim()
        ),
    }

    let singles: Vec<Vec<usize>> = (0..fixtures.len()).map(|i| vec![i]).collect();
    let triples: Vec<Vec<usize>> =
        (0..fixtures.len()).map(|i| (0..3).map(|k| (i + k) % fixtures.len()).collect()).collect();
    let versions =
        [("one fault per version", singles), ("three faults per version (three subsystems changed)", triples)];
    for ((title, versions), (evidence, cache)) in versions.iter().flat_map(|v| evidences.iter().map(move |e| (v, e))) {
        println!("{title}, from {evidence}:");
        println!(
            "{:<64} {:>8} {:>9} {:>6} {:>6} {:>7} {:>7} {:>6}",
            "faults", "selected", "ranks", "prec", "recall", "APFD", "random", "ms"
        );
        let measured: Vec<Measured> = versions.iter().map(|faults| measure(&root, cache, &fixtures, faults)).collect();
        let n = fixtures.len();
        // Precision is undefined for a version that selects nothing: left out of its mean.
        let (mut precisions, mut recalls, mut ranked_apfd, mut random_apfd) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for m in &measured {
            let revealing: BTreeSet<&str> = m.faults.iter().map(|&i| fixtures[i].test.as_str()).collect();
            let hits = m.selected.iter().filter(|t| revealing.contains(t.as_str())).count();
            let precision = (!m.selected.is_empty()).then(|| hits as f64 / m.selected.len() as f64);
            let recall = hits as f64 / revealing.len() as f64;
            let positions: Vec<usize> = m.faults.iter().map(|&i| position(&m.order, &fixtures[i].test)).collect();
            let (ranked, random) = (apfd(n, &positions), apfd_random(n, m.faults.len()));
            let names: Vec<&str> = m.faults.iter().map(|&i| fixtures[i].name.as_str()).collect();
            let ranks: Vec<String> =
                positions.iter().map(|p| if *p > n { "-".into() } else { p.to_string() }).collect();
            let shown = precision.map_or("-".to_string(), |p| format!("{p:.2}"));
            println!(
                "{:<64} {:>8} {:>9} {:>6} {:>6.2} {:>7.3} {:>7.3} {:>6}",
                names.join("+"),
                m.selected.len(),
                ranks.join(","),
                shown,
                recall,
                ranked,
                random,
                m.millis
            );
            precisions.extend(precision);
            recalls.push(recall);
            ranked_apfd.push(ranked);
            random_apfd.push(random);
        }
        println!(
            "mean: precision {:.2} (over the {} versions that select a test), recall {:.2}, APFD ranked {:.3} vs random {:.3}\n",
            mean(&precisions),
            precisions.len(),
            mean(&recalls),
            mean(&ranked_apfd),
            mean(&random_apfd)
        );
    }
    large_workspace(&bench, &fixtures);
}

/// The JDK packages that make the large workspace (about 500,000 lines).
const LARGE: &[&str] = &["java/util/", "java/lang/", "java/io/", "java/net/", "java/math/", "java/text/"];

fn large_workspace(bench: &Path, fixtures: &[Fixture]) {
    let Some(zip) = Jdk::locate() else {
        println!("large workspace: skipped, the JDK's src.zip was not found (install openjdk-17-source)");
        return;
    };
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path().join("work");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    let jdk_lines = corpus::extract_packages(&zip, &root, LARGE, None, &[]);
    for f in fixtures {
        copy_tree(&bench.join(&f.name).join("base"), &root);
    }
    let generated = generate_tests(&root, GENERATED_TESTS);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "the JDK, fourteen subsystems and a large test suite"]);
    let fault = &fixtures[0];
    git(&root, &["apply", fault.patch.to_str().unwrap()]);
    println!(
        "large workspace: {jdk_lines} lines of the JDK ({}), the fourteen subsystems and {GENERATED_TESTS} generated tests of the JDK's classes ({generated} lines, one in four starting a thread); the {} change applied",
        LARGE.join(", "),
        fault.name
    );

    // As processes, the way a user or CI runs them: cold (an empty cache folder: every file
    // parsed and indexed) then warm (the index cache the cold run left), three times.
    for (what, args) in [("select", &["select", "--json"][..]), ("check", &["check"][..])] {
        let cache = repo.path().join(format!("cache-{what}"));
        let cold = run_measured(&root, &cache, args);
        let mut warm: Vec<Run> = (0..3).map(|_| run_measured(&root, &cache, args)).collect();
        if what == "select" {
            let json: Value = serde_json::from_slice(&warm[0].stdout).expect("select --json prints JSON");
            let order: Vec<&str> =
                json["tests"].as_array().unwrap().iter().map(|t| t["test"].as_str().unwrap()).collect();
            assert_eq!(order.first(), Some(&fault.test.as_str()), "the fault's test ranks first");
            println!("  {} tests, {} selected, {} first", order.len(), json["selected"], order[0]);
        }
        let mut seconds: Vec<f64> = warm.iter().map(|r| r.seconds).collect();
        let rss = warm.iter().map(|r| r.max_rss_mb).max().unwrap();
        warm.clear();
        println!(
            "  `racelens {what}` as a process: cold {:.2} s ({} MB), warm median {:.2} s of 3 ({} MB at most)",
            cold.seconds,
            cold.max_rss_mb,
            median(&mut seconds),
            rss
        );
    }

    let started = Instant::now();
    let mut host = Host::open(&root, &HostOptions::default()).unwrap();
    host.load().unwrap();
    let impact = host.analyze(&Options::new());
    let sharing = host.sharing();
    let loaded = started.elapsed().as_secs_f64() * 1000.0;
    let mut warm = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let selection = rank::select(host.index(), &sharing, &impact);
        warm.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(
            selection.tests.first().map(|t| t.test.as_str()),
            Some(fault.test.as_str()),
            "the fault's test ranks first"
        );
    }
    println!("  loaded workspace (the language server's state): load and analyse {loaded:.0} ms once, then the selection median {:.1} ms of 5 (max {:.1} ms)", median(&mut warm), warm.iter().cloned().fold(0.0, f64::max));
}

/// How many tests the large workspace gets: a suite the size of a large project's (groovy
/// has about 1,500 JUnit tests), so that selection walks many tests' reach.
const GENERATED_TESTS: usize = 1500;

/// Writes `n` JUnit 4 tests of the JDK classes in the workspace (each a few calls into
/// collections, text and numbers; one in four in a second thread too): a large suite whose
/// tests reach many project methods but none of the subsystems. Returns their lines.
fn generate_tests(root: &Path, n: usize) -> usize {
    const STEPS: &[&str] = &[
        "java.util.Map<String, Integer> map = new java.util.HashMap<>();\n        map.put(\"k\" + seed, seed);\n        sink.append(map.get(\"k\" + seed));",
        "java.util.List<Integer> list = new java.util.ArrayList<>(java.util.Arrays.asList(seed, 3, 1));\n        java.util.Collections.sort(list);\n        sink.append(list);",
        "java.util.TreeMap<Integer, String> tree = new java.util.TreeMap<>();\n        tree.put(seed, \"v\");\n        sink.append(tree.firstKey());",
        "java.math.BigInteger big = java.math.BigInteger.valueOf(seed).pow(3);\n        sink.append(big.mod(java.math.BigInteger.TEN));",
        "java.text.DecimalFormat format = new java.text.DecimalFormat(\"#.00\");\n        sink.append(format.format(seed / 7.0));",
        "java.util.ArrayDeque<Integer> deque = new java.util.ArrayDeque<>();\n        deque.push(seed);\n        sink.append(deque.pop());",
        "java.util.BitSet bits = new java.util.BitSet();\n        bits.set(seed % 64);\n        sink.append(bits.cardinality());",
        "String text = String.valueOf(seed).repeat(3);\n        sink.append(text.indexOf('1'));",
    ];
    let dir = root.join("src/test/java/bench/generated");
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = 0;
    for i in 0..n {
        let steps: Vec<&str> = (0..3).map(|k| STEPS[(i * 7 + k * 3) % STEPS.len()]).collect();
        let body = steps.join("\n        ");
        let threaded = match i % 4 {
            0 => format!("        Thread other = new Thread(() -> {{\n            StringBuilder sink = new StringBuilder();\n            int seed = {i};\n            {}\n        }});\n        other.start();\n        other.join();\n", steps[0].replace("\n        ", "\n            ")),
            _ => String::new(),
        };
        let text = format!(
            "package bench.generated;\n\nimport org.junit.Test;\n\npublic class Generated{i:04}Test {{\n    @Test\n    public void exercise() throws Exception {{\n        StringBuilder sink = new StringBuilder();\n        int seed = {i};\n        {body}\n{threaded}    }}\n}}\n"
        );
        lines += text.lines().count();
        std::fs::write(dir.join(format!("Generated{i:04}Test.java")), text).unwrap();
    }
    lines
}

/// One run of a process: its wall-clock time, its peak resident memory, what it printed.
struct Run {
    seconds: f64,
    max_rss_mb: u64,
    stdout: Vec<u8>,
}

/// Runs `racelens <args> <root>` with `cache` as its cache folder, and waits for it with
/// `wait4`, which reports the process's own peak memory (`ru_maxrss`).
fn run_measured(root: &Path, cache: &Path, args: &[&str]) -> Run {
    std::fs::create_dir_all(cache).unwrap();
    let out_path = cache.with_extension("stdout");
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_racelens"))
        .args(args)
        .arg(root)
        .env("XDG_CACHE_HOME", cache)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with pointers to live locals.
    let waited = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(waited, child.id() as libc::pid_t, "wait4 failed");
    // `check` exits 1 when it warns.
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) <= 1, "racelens {args:?} failed with status {status}");
    Run { seconds, max_rss_mb: usage.ru_maxrss as u64 / 1024, stdout: std::fs::read(&out_path).unwrap() }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

/// Applies the faults' patches to a clean checkout, then ranks the tests.
fn measure(root: &Path, cache: &Path, fixtures: &[Fixture], faults: &[usize]) -> Measured {
    git(root, &["checkout", "-q", "--", "."]);
    git(root, &["clean", "-qfd"]);
    for &i in faults {
        git(root, &["apply", fixtures[i].patch.to_str().unwrap()]);
    }
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_racelens"))
        .args(["select", "--json"])
        .arg(root)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap();
    let millis = started.elapsed().as_millis();
    assert!(out.status.success(), "racelens select failed: {}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).expect("select --json prints JSON");
    let tests = json["tests"].as_array().expect("tests");
    let name = |t: &Value| t["test"].as_str().unwrap().to_string();
    Measured {
        faults: faults.to_vec(),
        selected: tests.iter().filter(|t| t["selected"] == true).map(name).collect(),
        order: tests.iter().map(name).collect(),
        millis,
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// 1-based position of `test` in `order`; past the end when the order lacks it (then it
/// counts as found after every test, the usual convention for a fault no test reveals).
fn position(order: &[String], test: &str) -> usize {
    order.iter().position(|t| t == test).map_or(order.len() + 1, |p| p + 1)
}

/// APFD of an order of `n` tests in which fault i is first revealed at `positions[i]`.
fn apfd(n: usize, positions: &[usize]) -> f64 {
    let (n, m) = (n as f64, positions.len() as f64);
    1.0 - positions.iter().sum::<usize>() as f64 / (n * m) + 1.0 / (2.0 * n)
}

/// The expected APFD of a uniformly random order, each of `faults` faults revealed by one
/// test: E[TF] = (n + 1) / 2.
fn apfd_random(n: usize, faults: usize) -> f64 {
    let n = n as f64;
    let expected_tf = (n + 1.0) / 2.0;
    1.0 - (expected_tf * faults as f64) / (n * faults as f64) + 1.0 / (2.0 * n)
}

fn fixtures(bench: &Path) -> Vec<Fixture> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(bench)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("fault.toml").is_file())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let toml = std::fs::read_to_string(dir.join("fault.toml")).unwrap();
            let test = toml
                .lines()
                .find_map(|l| l.strip_prefix("test = ").map(|v| v.trim().trim_matches('"').to_string()))
                .expect("fault.toml has a test");
            let class = test.split('#').next().unwrap();
            let package = class.rsplit_once('.').map(|(p, _)| p.to_string()).expect("a packaged test class");
            Fixture {
                name: dir.file_name().unwrap().to_string_lossy().into_owned(),
                test,
                package,
                patch: dir.join("change.patch"),
            }
        })
        .collect()
}

/// Fails when a subsystem's source mentions another's package: then a test could run
/// another subsystem's changed code, and the ground truth above would not hold.
fn check_independent(root: &Path, fixtures: &[Fixture]) {
    for file in java_files(root) {
        let text = std::fs::read_to_string(&file).unwrap();
        let own = fixtures.iter().filter(|f| text.contains(&format!("package {};", f.package))).count();
        assert_eq!(own, 1, "{} declares none or several of the fixtures' packages", file.display());
        for f in fixtures {
            let mentions =
                text.contains(&format!("{}.", f.package)) || text.contains(&format!("package {};", f.package));
            let declares = text.contains(&format!("package {};", f.package));
            assert!(
                !mentions || declares,
                "{} mentions {}: the subsystems are not independent",
                file.display(),
                f.package
            );
        }
    }
}

fn java_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if path.is_dir() {
            out.extend(java_files(&path));
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            assert!(!target.exists(), "two fixtures hold {}", target.display());
            std::fs::copy(&path, &target).unwrap();
        }
    }
}
