//! `rtscheck` (RTSCheck-style self-checks) on a few fixed seeds: the static rules (R5, R6,
//! incremental = from scratch) on five generated programs (every kind of class), and the JVM rules (R7, R1) on
//! three whose evolutions make tests fail, all without a violation; and field hiding, the
//! violation rtscheck found first (below).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The `racelens` binary of this build, beside `rtscheck` in the target folder (`cargo test
/// --workspace` builds it; alone, `cargo build -p racelens` first).
fn racelens() -> PathBuf {
    let binary =
        Path::new(env!("CARGO_BIN_EXE_rtscheck")).with_file_name(format!("racelens{}", std::env::consts::EXE_SUFFIX));
    assert!(binary.is_file(), "no racelens binary at {}: run `cargo build -p racelens` first", binary.display());
    binary
}

/// Starts `rtscheck <args>` with the `racelens` binary of this build.
fn start(args: &[&str]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rtscheck"));
    command.args(args).arg("--racelens").arg(racelens()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command.spawn().unwrap()
}

/// Waits for `rtscheck`; its exit code and output (its progress on stderr goes to the
/// test's, shown when the test fails).
fn finish(child: Child) -> (i32, String) {
    let out = child.wait_with_output().unwrap();
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string())
}

fn rtscheck(args: &[&str]) -> (i32, String) {
    finish(start(args))
}

/// The summary's `(checks, violations)` of `rule`.
fn counts(output: &str, rule: &str) -> (u64, u64) {
    let line = output
        .lines()
        .find(|l| l.split_whitespace().next() == Some(rule))
        .unwrap_or_else(|| panic!("no line for {rule}:\n{output}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[1].parse().unwrap(), words[3].parse().unwrap())
}

#[test]
fn the_static_rules_hold_on_five_generated_programs() {
    let (code, out) = rtscheck(&["--seeds", "5", "--no-jvm"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("rtscheck: 5 programs (seeds 1..5), ") && out.ends_with("rtscheck: no violation\n"), "{out}");
    // R5 on each unchanged tree and each no-op; R6 twice per program; incremental twice per
    // evolution (the edit, then its undo).
    let (r5, r6, inc) = (counts(&out, "R5"), counts(&out, "R6"), counts(&out, "incremental"));
    assert!(r5.0 >= 5 * 3 && r6 == (10, 0) && inc.0 >= 5 * 4 && r5.1 == 0 && inc.1 == 0, "{out}");
    assert!(!out.contains("R1") && !out.contains("R7"), "no JVM rule without a JVM: {out}");
}

/// Seed 2 (a ledger nesting two monitors), seed 12 (a one-slot buffer, and a tally whose
/// `add` locks a block) and seed 16 (an account behind a `ReentrantLock`): their evolutions
/// swap lock order, turn `notifyAll` into `notify`, take `synchronized` away, split a
/// critical section and move accesses out of locks, and the exhaustive exploration finds the
/// tests they break; `explore --affected` finds each.
#[test]
fn the_jvm_rules_hold_on_programs_whose_evolutions_break_tests() {
    assert!(Path::new("/usr/share/java/junit4.jar").is_file(), "JUnit 4 (Debian's junit4) is needed");
    let mut failing = String::new();
    // One process per seed, at once: each has its own folder and compile cache.
    let runs: Vec<Child> = ["2", "12", "16"].map(|seed| start(&["--seeds", "1", "--first", seed])).into();
    for run in runs {
        let (code, out) = finish(run);
        assert_eq!(code, 0, "{out}");
        assert!(out.ends_with("rtscheck: no violation\n"), "{out}");
        let (r1, r7) = (counts(&out, "R1"), counts(&out, "R7"));
        assert!(r1.0 > 0 && r7.0 > 0, "{out}");
        failing += out
            .lines()
            .find(|l| l.contains("newly failing multithreaded tests"))
            .unwrap_or_else(|| panic!("R1 compared something: {out}"));
    }
    for op in [
        "swap-lock-order",
        "notifyAll-to-notify",
        "remove-synchronized",
        "split-critical-section",
        "move-access-out-of-lock",
    ] {
        assert!(failing.contains(op), "{op}: {failing}");
    }
}

/// Field hiding, the first violation rtscheck found: a subclass that declares a field of
/// its superclass's name makes the test fail on every schedule, and racelens impacted only
/// the declaration's line, no pair, so `explore --affected` selected nothing (R1). Now a
/// declaration that starts or stops hiding an inherited field impacts the accesses it may
/// rebind (`impact/svimpact.rs`), and a test whose recorded run failed is not left out on
/// the strength of that run (`rank.rs`). Seed 1 is a tally with a subclass; both variants
/// (the subclass hides `count`, or `total`) break its two-thread test.
#[test]
fn field_hiding_is_selected_and_found() {
    let (code, out) = rtscheck(&["--seeds", "1", "--first", "1", "--op", "field-hiding"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("newly failing multithreaded tests (exhaustive exploration, bound 2): field-hiding 2"),
        "{out}"
    );
    assert_eq!(counts(&out, "R1"), (2, 0), "{out}");
    assert!(out.ends_with("rtscheck: no violation\n"), "{out}");
}

/// Issue 21's operators on seed 5 (page hits whose per-page counts reach other threads only
/// through a `ConcurrentHashMap`, tested by an inherited test): `computeIfAbsent` split into
/// a check and an act, and the counts' `synchronized` taken away, each break the two-thread
/// test; `explore --affected` selects it (by the subclass's name) and finds each (R1).
#[test]
fn check_then_act_and_escape_through_a_collection_are_selected_under_an_inherited_test() {
    let (code, out) = rtscheck(&["--seeds", "1", "--first", "5"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("newly failing multithreaded tests (exhaustive exploration, bound 2): check-then-act 1, remove-synchronized 2"), "{out}");
    assert_eq!(counts(&out, "R1").1, 0, "{out}");
    assert!(out.ends_with("rtscheck: no violation\n"), "{out}");
}
