//! Programs in the style of the concurrency-testing literature (SCTBench's reorder,
//! twostage and wronglock, a token ring, a work-stealing deque; `tests/bench/literature/`),
//! each at a few threads and at many: schedules to the first failure under each
//! prioritization, the portfolio's random samplers among them (issue 22, item 5). No change
//! is applied: the change-aware orders see none and behave as their change-unaware base.
//!
//! Run: `cargo bench -p racelens-explore --bench literature -- [--budget N] [--seconds S]
//! [--heuristics basic,pos,...] [--seeds N]` (with `--seeds`, the median over N seeds of
//! the search's and samplers' randomness).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use racelens_explore::explorer::Options;
use racelens_explore::jvm::java::Jdk;

/// The programs: folder, test, threads.
const PROGRAMS: &[(&str, &str, u32)] = &[
    ("reorder", "org.lit.ReorderTest#threeSetters", 5),
    ("reorder", "org.lit.ReorderTest#twentySetters", 22),
    ("twostage", "org.lit.TwoStageTest#threeWriters", 5),
    ("twostage", "org.lit.TwoStageTest#twentyWriters", 22),
    ("wronglock", "org.lit.WrongLockTest#fourReaders", 6),
    ("wronglock", "org.lit.WrongLockTest#twentyReaders", 22),
    ("tokenring", "org.lit.TokenRingTest#fourStationsTwoLaps", 5),
    ("tokenring", "org.lit.TokenRingTest#twelveStationsOneLap", 13),
    ("workstealing", "org.lit.WorkStealingTest#twoThievesThreeTasks", 3),
    ("workstealing", "org.lit.WorkStealingTest#tenThievesTwelveTasks", 11),
];

struct Args {
    budget: u64,
    seconds: u64,
    heuristics: Vec<String>,
    seeds: u64,
}

fn args() -> Args {
    let mut a = Args {
        budget: 2_000,
        seconds: 60,
        heuristics: ["basic", "pct+LA", "pct+LA+pos", "pos", "random"].map(String::from).to_vec(),
        seeds: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--budget" => a.budget = value().parse().expect("a number"),
            "--seconds" => a.seconds = value().parse().expect("a number"),
            "--heuristics" => a.heuristics = value().split(',').map(str::to_string).collect(),
            "--seeds" => a.seeds = value().parse().expect("a number"),
            "--bench" => {}
            other => panic!("unknown option {other}"),
        }
    }
    a
}

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bench/literature")
}

fn main() {
    let args = args();
    let jdk = Jdk::locate().expect("a JDK");
    println!(
        "literature programs: {} tests, budget {} schedules or {} s each, heuristics {}",
        PROGRAMS.len(),
        args.budget,
        args.seconds,
        args.heuristics.join(" ")
    );
    print!("| program | threads |");
    for h in &args.heuristics {
        print!(" {h} |");
    }
    println!();
    println!("|---|---|{}", "---|".repeat(args.heuristics.len()));
    let mut found = vec![0usize; args.heuristics.len()];
    let mut worst_ratio = vec![1f64; args.heuristics.len()];
    for &(dir, test, threads) in PROGRAMS {
        let mut p = common::prepare_program(&programs_dir().join(dir), test, &jdk);
        let mut cells = Vec::new();
        for h in &args.heuristics {
            let seeds: Vec<Option<u64>> =
                if args.seeds == 0 { vec![None] } else { (1..=args.seeds).map(Some).collect() };
            let mut results: Vec<Option<u64>> = seeds
                .iter()
                .map(|&seed| {
                    let options = Options {
                        seed,
                        max_schedules: args.budget,
                        max_time: Some(Duration::from_secs(args.seconds)),
                        ..Options::default()
                    };
                    let (report, _) = common::explore(&mut p.session, &p.model, h, &options);
                    common::first_failure(&report).unwrap_or_else(|e| panic!("{test} under {h}: {e}"))
                })
                .collect();
            // The median, a miss counting as more than any number.
            results.sort_by_key(|r| r.unwrap_or(u64::MAX));
            cells.push(results[results.len() / 2]);
        }
        let best = cells.iter().flatten().min().copied();
        print!("| {} | {threads} |", test.trim_start_matches("org.lit."));
        for (i, c) in cells.iter().enumerate() {
            print!(" {} |", common::cell(*c));
            if let (Some(c), Some(b)) = (c, best) {
                found[i] += 1;
                worst_ratio[i] = worst_ratio[i].max(*c as f64 / b as f64);
            }
        }
        println!();
    }
    println!();
    for (i, h) in args.heuristics.iter().enumerate() {
        println!(
            "{h}: {} of {} found; at most {:.1}× the best heuristic's schedules where it found the fault",
            found[i],
            PROGRAMS.len(),
            worst_ratio[i]
        );
    }
}
