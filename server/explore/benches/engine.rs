//! The exploration engine's speed: schedules per second on a small test and on a test with
//! thousands of scheduling points, what a scheduling point costs when it does not switch
//! threads, and the time to a failure under exploration against plain repeated runs
//! (stress testing) of the same test.
//!
//! Run: `cargo bench -p racelens-explore --bench engine`

use racelens_test_support as support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use racelens_analysis::host::{Host, HostOptions};
use racelens_explore::explorer::{self, Options, Stats, Verdict};
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::project::{self, Sources};
use racelens_explore::jvm::Session;
use racelens_explore::jvm::{agent, stress, tests};
use racelens_explore::search::{Basic, Search, Strategy};

fn repo_dir(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests").join(rel)
}

fn session(repo: &Path, test: &str, jdk: &Jdk) -> Session {
    let mut host = Host::open(repo, &HostOptions::default()).expect("the repository opens");
    host.load().expect("it loads");
    let spec = tests::resolve(&host, test).expect("the test exists");
    let project = project::prepare(&Sources::of(&host), jdk, None).expect("it compiles");
    Session::new(jdk.clone(), agent::agent_jar().expect("the agent"), project, spec)
}

fn explore(session: &mut Session, max_schedules: u64) -> (Verdict, Stats) {
    // A warm JVM: its start-up and the first execution's class loading are not measured.
    session.kind().expect("the JVM starts");
    let options = Options { strategy: Strategy::Icb { max_bound: Some(2) }, max_schedules, ..Options::default() };
    let mut search = Search::new(Some((options.strategy, None, false)), None, Box::new(Basic));
    let report = explorer::explore(session, &options, &mut search, &mut |_| {}, &AtomicBool::new(false))
        .expect("the exploration runs");
    (report.verdict, report.stats)
}

fn throughput(name: &str, repo: &Path, test: &str, max_schedules: u64, jdk: &Jdk) {
    let mut s = session(repo, test, jdk);
    // Warm-up: the JIT compiles the agent and the test.
    explore(&mut s, 50.min(max_schedules));
    // A search that ends in a few runs is repeated until the sample is a steady one.
    let (mut verdict, mut total, mut explorations) = (Verdict::Limit, Stats::default(), 0u32);
    while explorations == 0 || (total.schedules < 1_000 && total.elapsed < Duration::from_secs(2)) {
        let (v, stats) = explore(&mut s, max_schedules);
        verdict = v;
        explorations += 1;
        total.schedules += stats.schedules;
        total.steps += stats.steps;
        total.decision_points += stats.decision_points;
        total.elapsed += stats.elapsed;
        total.searching += stats.searching;
    }
    s.close();
    let n = total.schedules.max(1) as f64;
    let per_run = |d: Duration| d.as_secs_f64() * 1e6 / n;
    println!(
        "{name}: {} schedules per exploration ({}), {explorations} exploration(s) in {:.2} s: {:.0} schedules/s; per schedule {:.0} scheduling points, {:.1} decision points, {:.0} µs: {:.0} µs in the JVM (execution, reset, protocol), {:.0} µs choosing schedules and reading traces",
        total.schedules / u64::from(explorations),
        match verdict {
            Verdict::Passed => "the search ran out: a claim made",
            Verdict::Limit => "the budget",
            _ => "stopped early",
        },
        total.elapsed.as_secs_f64(),
        total.per_second(),
        total.steps as f64 / n,
        total.decision_points as f64 / n,
        per_run(total.elapsed),
        per_run(total.elapsed.saturating_sub(total.searching)),
        per_run(total.searching),
    );
}

fn point_cost(jdk: &Jdk) {
    let jar = agent::agent_jar().expect("the agent");
    let out = Command::new(&jdk.java)
        .args(["-XX:TieredStopAtLevel=1", "-cp"])
        .arg(&jar)
        .arg("racelens.agent.bench.PointCost")
        .output()
        .expect("java runs");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    }
}

fn time_to_failure(jdk: &Jdk) {
    let test = "org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted";
    let repo = support::repo_from(&repo_dir("fixtures/explore-lost-update"), true);
    let mut s = session(repo.path(), test, jdk);
    let started = Instant::now();
    let (verdict, stats) = explore(&mut s, 10_000);
    let explored = started.elapsed();
    let found = matches!(verdict, Verdict::Failed(_));
    println!(
        "lost update (explore-lost-update): exploration {} after {} schedules, {} ms (JVM start excluded)",
        if found { "fails" } else { "does not fail" },
        stats.schedules,
        explored.as_millis()
    );
    let stressed = stress::until_failure(&s.project, &s.spec, jdk, Duration::from_secs(30)).expect("stress runs");
    s.close();
    match stressed.failed_at {
        Some(run) => println!(
            "  stress testing: first failure in run {run}, after {} ms ({})",
            stressed.elapsed.as_millis(),
            stressed.failure.unwrap_or_default()
        ),
        None => {
            println!("  stress testing: no failure in {} runs ({} ms)", stressed.runs, stressed.elapsed.as_millis())
        }
    }
}

/// The test of the CAPP bench's `inventory-reserve` fault (its `fault.toml`).
fn inventory_test() -> String {
    let toml =
        std::fs::read_to_string(repo_dir("bench/capp/inventory-reserve/fault.toml")).expect("the fault's description");
    toml.lines().find_map(|l| l.strip_prefix("test = ")).expect("its test").trim_matches('"').to_string()
}

fn main() {
    let jdk = Jdk::locate().expect("a JDK");
    let small = support::repo_from(&repo_dir("fixtures/explore-lost-update"), false);
    throughput(
        "small test (LatencyStatsTest, 2 threads)",
        small.path(),
        "LatencyStatsTest#concurrentRecordsAreAllCounted",
        100_000,
        &jdk,
    );
    let medium = support::repo_from(&repo_dir("bench/capp/inventory-reserve"), false);
    throughput(
        "project test (OrderServiceTest of the CAPP bench's inventory-reserve, 2 threads, bound 2)",
        medium.path(),
        &inventory_test(),
        100_000,
        &jdk,
    );
    let large = support::repo_from(&repo_dir("bench/engine/hit-counter"), false);
    throughput(
        "large test (HitCounterTest, 2 threads x 300 hits)",
        large.path(),
        "HitCounterTest#everyHitIsCounted",
        300,
        &jdk,
    );
    point_cost(&jdk);
    time_to_failure(&jdk);
}
