//! The effectiveness benchmark of change-aware exploration (CAPP section 4, Tables 3–5):
//! for every regression fault under `tests/bench/capp/`, the schedules explored until the
//! first failing one, under `basic` (change-unaware iterative context bounding), CAPP's
//! fourteen heuristics, the pair-directed search and change-aware PCT; the speed-up over
//! `basic` and its geometric mean per heuristic; with `--seeds N`, the median and
//! quartiles over N randomized search orders; wall-clock time to the first failure; and
//! plain stress testing (the test run again and again without control) as a reference.
//!
//! Each fault is a git repository made in a temp dir: `base/` committed (the correct
//! version), `change.patch` applied (the regression), `fault.toml` naming the test.
//!
//! Run: `cargo bench -p racelens-explore --bench capp -- [--seeds N] [--budget N]
//! [--faults a,b] [--heuristics basic,LOS,...] [--stress-seconds S] [--verify [--parts N]]`
//! (`--verify` also explores every schedule of each correct version within the bound and
//! fails if one fails: the faults are honest; with `--parts N`, also split into N parts as
//! N shards would explore them, each with the whole budget, and their claims joined).

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use common::{cell, faults, geomean, prepare, Fault, Prepared};
use racelens_explore::explorer::{Options, Verdict};
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::stress;
use racelens_explore::results::coverage::Coverage;
use racelens_explore::search::capp::HEURISTICS;
use racelens_explore::search::heuristics::Choice;
use racelens_explore::search::part::Part;
use racelens_explore::search::Strategy;

struct Args {
    seeds: u64,
    budget: u64,
    faults: Option<Vec<String>>,
    heuristics: Vec<String>,
    stress_seconds: u64,
    verify: bool,
    /// The largest preemption bound (`--verify` claims it complete, or every schedule).
    bound: u32,
    /// `--verify` also in this many parts of each test's schedules.
    parts: u32,
}

fn args() -> Args {
    let mut a = Args {
        seeds: 0,
        budget: 10_000,
        faults: None,
        heuristics: all_heuristics(),
        stress_seconds: 20,
        verify: false,
        bound: racelens_explore::explorer::DEFAULT_MAX_BOUND,
        parts: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--seeds" => a.seeds = value().parse().expect("--seeds N"),
            "--budget" => a.budget = value().parse().expect("--budget N"),
            "--faults" => a.faults = Some(value().split(',').map(str::to_string).collect()),
            "--heuristics" => a.heuristics = value().split(',').map(str::to_string).collect(),
            "--stress-seconds" => a.stress_seconds = value().parse().expect("--stress-seconds S"),
            "--verify" => a.verify = true,
            "--bound" => a.bound = value().parse().expect("--bound N"),
            "--parts" => a.parts = value().parse().expect("--parts N"),
            // cargo bench passes --bench
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

fn all_heuristics() -> Vec<String> {
    let mut v = vec!["basic".to_string()];
    v.extend(HEURISTICS.iter().map(|h| h.to_string()));
    v.extend(["pair", "pct", "pct+LA", "pct+MA", "pct+LOS"].map(str::to_string));
    v
}

/// Schedules to the first failure (None: not found within the budget) and the time.
fn run(p: &mut Prepared, heuristic: &str, seed: Option<u64>, budget: u64) -> (Option<u64>, Duration) {
    let options = Options { seed, max_schedules: budget, ..Options::default() };
    let (report, elapsed) = common::explore(&mut p.session, &p.model, heuristic, &options);
    (common::first_failure(&report).unwrap_or_else(|e| panic!("{heuristic}: {e}")), elapsed)
}

fn quartiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| {
        let pos = q * (v.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
    };
    (at(0.25), at(0.5), at(0.75))
}

fn main() {
    let args = args();
    let jdk = Jdk::locate().expect("a JDK");
    let faults = faults(&args.faults);
    println!(
        "CAPP benchmark: {} faults, heuristics {}, budget {} schedules, largest preemption bound {}",
        faults.len(),
        args.heuristics.join(" "),
        args.budget,
        args.bound
    );
    if args.verify {
        verify(&faults, &jdk, args.budget, args.bound, args.parts);
    }

    // schedules[heuristic][fault] in the default (deterministic) order; seeded runs apart.
    let mut schedules: BTreeMap<String, Vec<Option<u64>>> = BTreeMap::new();
    let mut seeded: BTreeMap<String, Vec<Vec<f64>>> = BTreeMap::new();
    let mut times: BTreeMap<String, Vec<Duration>> = BTreeMap::new();
    let mut stress_rows = Vec::new();
    for fault in &faults {
        let mut p = prepare(fault, true, &jdk);
        eprintln!(
            "{} ({}): {} ICPs, {} impacted pairs",
            fault.name,
            fault.kind,
            p.model.icps.len(),
            p.model.pairs.len()
        );
        for h in &args.heuristics {
            let (n, t) = run(&mut p, h, None, args.budget);
            schedules.entry(h.clone()).or_default().push(n);
            times.entry(h.clone()).or_default().push(t);
            let mut per_seed = Vec::new();
            for seed in 1..=args.seeds {
                // Not found within the budget counts as the budget (a lower bound).
                per_seed.push(run(&mut p, h, Some(seed), args.budget).0.unwrap_or(args.budget) as f64);
            }
            seeded.entry(h.clone()).or_default().push(per_seed);
        }
        p.session.close();
        if args.stress_seconds > 0 {
            stress_rows.push(stress::until_failure(
                &p.session.project,
                &p.session.spec,
                &jdk,
                Duration::from_secs(args.stress_seconds),
            ));
        }
    }

    println!(
        "\nSchedules to the first failure (default search order; — = not found within {} schedules):\n",
        args.budget
    );
    let names: Vec<&str> = faults.iter().map(|f| f.name.as_str()).collect();
    print!("| heuristic |");
    for n in &names {
        print!(" {n} |");
    }
    println!(" geomean speed-up | slowest vs basic | found |");
    print!("|---|");
    for _ in &names {
        print!("---:|");
    }
    println!("---:|---:|---:|");
    let basic = schedules.get("basic").cloned();
    let mut best: Option<(String, f64)> = None;
    for h in &args.heuristics {
        let row = &schedules[h];
        print!("| {h} |");
        for n in row {
            print!(" {} |", cell(*n));
        }
        let found = row.iter().filter(|n| n.is_some()).count();
        match &basic {
            Some(b) if h != "basic" => {
                // Speed-up per fault: basic / heuristic, a miss counting as the budget.
                let ratios: Vec<f64> = b
                    .iter()
                    .zip(row)
                    .map(|(b, n)| b.unwrap_or(args.budget) as f64 / n.unwrap_or(args.budget) as f64)
                    .collect();
                let g = geomean(&ratios);
                let worst = ratios.iter().cloned().fold(f64::INFINITY, f64::min);
                println!(" {g:.2}× | {:.2}× | {found}/{} |", 1.0 / worst, row.len());
                if found == row.len() && best.as_ref().is_none_or(|(_, bg)| g > *bg) {
                    best = Some((h.clone(), g));
                }
            }
            _ => println!(" 1.00× | 1.00× | {found}/{} |", row.len()),
        }
    }
    if let Some((h, g)) = best {
        println!("\nbest heuristic finding every fault: {h} ({g:.2}× geometric-mean speed-up over basic)");
    }

    println!("\nWall-clock time to the first failure (ms):\n");
    for h in &args.heuristics {
        let t: Vec<String> = times[h].iter().map(|d| d.as_millis().to_string()).collect();
        println!("| {h} | {} |", t.join(" | "));
    }

    if args.seeds > 0 {
        println!(
            "\nOver {} randomized orders: median [first quartile, third quartile] schedules to the first failure:\n",
            args.seeds
        );
        for h in &args.heuristics {
            let cells: Vec<String> = seeded[h]
                .iter()
                .map(|v| {
                    let (q1, m, q3) = quartiles(v.clone());
                    format!("{m:.0} [{q1:.0}, {q3:.0}]")
                })
                .collect();
            println!("| {h} | {} |", cells.join(" | "));
        }
        let medians = |h: &str| -> Vec<f64> { seeded[h].iter().map(|v| quartiles(v.clone()).1).collect() };
        if args.heuristics.iter().any(|h| h == "basic") {
            let b = medians("basic");
            println!();
            for h in args.heuristics.iter().filter(|h| *h != "basic") {
                let ratios: Vec<f64> = b.iter().zip(medians(h)).map(|(b, n)| b / n).collect();
                println!("{h}: geometric-mean speed-up of the medians {:.2}×", geomean(&ratios));
            }
        }
    }

    if !stress_rows.is_empty() {
        println!(
            "\nStress testing (the test run again and again without control, {} s at most per fault):\n",
            args.stress_seconds
        );
        println!("| fault | runs | first failure after | time |");
        println!("|---|---:|---:|---:|");
        for (fault, s) in faults.iter().zip(&stress_rows) {
            match s {
                Ok(s) => println!(
                    "| {} | {} | {} | {} ms |",
                    fault.name,
                    s.runs,
                    s.failed_at.map_or("—".into(), |n| format!("run {n}: {}", s.failure.as_deref().unwrap_or("?"))),
                    s.elapsed.as_millis()
                ),
                Err(e) => println!("| {} | error: {e} | | |", fault.name),
            }
        }
    }
}

/// Every schedule of each correct version within the bound passes (the faults are honest),
/// with what the search could claim and what it took.
fn verify(faults: &[Fault], jdk: &Jdk, budget: u64, bound: u32, parts: u32) {
    for fault in faults {
        let mut p = prepare(fault, false, jdk);
        let mut explore = |part: Part| {
            let options = Options {
                strategy: Strategy::Icb { max_bound: Some(bound) },
                max_schedules: budget,
                part,
                ..Options::default()
            };
            let r = racelens_explore::exploration::explore_test(
                &mut p.session,
                &options,
                Choice::parse("basic").expect("basic"),
                None,
                3,
                &mut |_| {},
                &AtomicBool::new(false),
            )
            .expect("runs");
            match r.verdict {
                Verdict::Passed | Verdict::Limit => Coverage::of(&r),
                Verdict::Failed(f) => panic!(
                    "{} ({part}): the correct version fails: {}",
                    fault.name,
                    racelens_explore::results::report::headline(&f.full)
                ),
                other => panic!("{} ({part}): {other:?}", fault.name),
            }
        };
        println!("verified {}: no failure; {}", fault.name, explore(Part::WHOLE).text());
        if parts > 1 {
            let each: Vec<Coverage> = (0..parts).map(|i| explore(Part::new(i, parts).expect("i < parts"))).collect();
            let runs: Vec<String> = each.iter().map(|c| c.runs.to_string()).collect();
            let longest = each.iter().map(|c| c.runs).max().unwrap_or(0);
            println!(
                "  in {parts} parts: runs {} (the longest part {longest}); together: {}",
                runs.join(" + "),
                Coverage::join(&each).text()
            );
        }
        p.session.close();
    }
}
