//! The benchmark of dynamic change impact (ReConTest, issue 12) on the CAPP fault suite
//! (`tests/bench/capp/`): for every fault, with the impacted code points of the analysis
//! (`--icps static`), of the test's two recorded runs (`dynamic`) and of both,
//!
//! - the size of the impact set: the analysis' impacted code points and their distinct
//!   lines; the dynamic impact's statements and impacted accesses; the lines of both;
//! - schedules to the first failure with the default prioritization
//!   ([`heuristics::DEFAULT`]) and with a CAPP line heuristic (`LA`; `--line-heuristic`);
//! - `--select` (only the schedules the prioritization does not postpone, heuristic `LA`):
//!   whether the fault is still found, the schedules run and the share skipped;
//! - what the dynamic impact costs: compiling the base revision (first time and cached)
//!   and recording the test on both versions (the base session's JVM start included; the
//!   working tree's JVM is started before, as an exploration needs it anyway).
//!
//! Each fault is a git repository in a temp dir, as in the `capp` bench. The dynamic impact
//! is computed once per fault and given to [`impact::model_for`] for each source, as
//! `racelens explore --icps` does. A fault whose base revision cannot be built or recorded,
//! an exploration that stops, and a fault that `--select` loses are printed, never skipped.
//!
//! Run: `cargo bench -p racelens-explore --bench impact -- [--faults a,b] [--budget N]
//! [--line-heuristic LA] [--max-steps N]`

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::{cell, faults, geomean, prepare, Fault, Prepared};
use racelens_explore::exploration::Places;
use racelens_explore::explorer::{Options, Preemption, Verdict};
use racelens_explore::impact::{self, BaseSession, HostVersions, IcpSource};
use racelens_explore::jvm::java::Jdk;
use racelens_explore::jvm::protocol::Site;
use racelens_explore::jvm::{agent, project, Session};
use racelens_explore::reports::ImpactReport;
use racelens_explore::search::change::ChangeModel;
use racelens_explore::search::heuristics;

struct Args {
    budget: u64,
    faults: Option<Vec<String>>,
    line_heuristic: String,
    max_steps: u32,
}

fn args() -> Args {
    let mut a = Args { budget: 10_000, faults: None, line_heuristic: "LA".into(), max_steps: 100_000 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--budget" => a.budget = value().parse().expect("--budget N"),
            "--faults" => a.faults = Some(value().split(',').map(str::to_string).collect()),
            "--line-heuristic" => a.line_heuristic = value(),
            "--max-steps" => a.max_steps = value().parse().expect("--max-steps N"),
            // cargo bench passes --bench
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

const SOURCES: [(IcpSource, &str); 3] =
    [(IcpSource::Static, "static"), (IcpSource::Dynamic, "dynamic"), (IcpSource::Both, "both")];

/// One exploration: schedules to the first failure (or why it could not tell), schedules
/// run, schedules the selection left out.
struct Run {
    found: Result<Option<u64>, String>,
    schedules: u64,
    skipped: u64,
    /// The budget ran out (not: the search was over).
    limit: bool,
}

impl Run {
    fn of(
        session: &mut Session,
        model: &ChangeModel,
        heuristic: &str,
        options: &Options,
    ) -> (Run, Option<Vec<Preemption>>) {
        let (report, _) = common::explore(session, model, heuristic, options);
        let found = common::first_failure(&report);
        let (schedules, skipped) = report.as_ref().map_or((0, 0), |r| (r.stats.schedules, r.claim.skipped));
        let limit = report.as_ref().is_ok_and(|r| matches!(r.verdict, Verdict::Limit));
        let preemptions = match report {
            Ok(r) => match r.verdict {
                Verdict::Failed(f) => Some(f.preemptions),
                _ => None,
            },
            Err(_) => None,
        };
        (Run { found, schedules, skipped, limit }, preemptions)
    }

    /// Schedules to the first failure, `—` none within the budget, `error` (said below).
    fn text(&self) -> String {
        match &self.found {
            Ok(n) => cell(*n),
            Err(_) => "error".into(),
        }
    }

    fn skipped_share(&self) -> f64 {
        self.skipped as f64 / (self.skipped + self.schedules).max(1) as f64
    }

    /// `--select`: found at N (or LOST), with the share skipped.
    fn select_text(&self) -> String {
        let share = 100.0 * self.skipped_share();
        match &self.found {
            Ok(Some(n)) => format!("{n} run, {share:.0}% skipped"),
            Ok(None) if self.limit => format!("**LOST**: budget spent ({} run, {share:.0}% skipped)", self.schedules),
            Ok(None) => format!("**LOST** ({} run, {share:.0}% skipped)", self.schedules),
            Err(_) => "error".into(),
        }
    }
}

/// Everything measured on one fault.
struct Row {
    fault: String,
    static_icps: usize,
    static_lines: usize,
    /// The dynamic impact (statements, accesses), when it was computed.
    dynamic: Option<(usize, usize)>,
    both_lines: usize,
    shared_lines: usize,
    base_cold: Option<Duration>,
    base_cached: Option<Duration>,
    recording: Duration,
    runs: String,
    basic: Run,
    /// Per source (static, dynamic, both): the default heuristic, the line heuristic, and
    /// the line heuristic selecting.
    default: Vec<Run>,
    line: Vec<Run>,
    select: Vec<Run>,
    /// Preemptions of `basic`'s failing schedule at a line of the static and of the dynamic
    /// impact, of all.
    preempted_at: Option<(usize, usize, usize)>,
    /// Everything that did not go as it should: printed under the tables.
    problems: Vec<String>,
}

/// `Class:line` with the outer class, comparable between the analysis and the recordings.
fn line_key(class: &str, line: u32) -> String {
    format!("{}:{line}", class.split('$').next().unwrap_or(class))
}

fn static_lines(model: &ChangeModel) -> BTreeSet<String> {
    model
        .pct_sites
        .iter()
        .filter_map(|s| s.rsplit_once(':').and_then(|(c, l)| Some(line_key(c, l.parse().ok()?))))
        .collect()
}

fn dynamic_lines(report: &ImpactReport) -> BTreeSet<String> {
    report.impacted.iter().map(|a| line_key(&a.class, a.line)).collect()
}

/// The base revision's session the way `racelens impact` builds it (`project::base_sources`,
/// `project::build_base`), with the first (cold) and the second (cached) build's time.
fn base_session(p: &Prepared, jdk: &Jdk) -> (BaseSession, Option<Duration>, Option<Duration>) {
    let (commit, sources) = match project::base_sources(&p.host) {
        Ok(Some(s)) => s,
        Ok(None) => return (Ok(None), None, None),
        Err(e) => return (Err(e), None, None),
    };
    let started = Instant::now();
    if let Err(e) = project::build_base(&commit, &sources, jdk, &p.session.project) {
        return (Err(e), Some(started.elapsed()), None);
    }
    let cold = started.elapsed();
    let started = Instant::now();
    let built = project::build_base(&commit, &sources, jdk, &p.session.project);
    let cached = started.elapsed();
    let session = built.map(|project| {
        Some((
            commit,
            Session::new(jdk.clone(), agent::agent_jar().expect("the agent"), project, p.session.spec.clone()),
        ))
    });
    (session, Some(cold), Some(cached))
}

fn measure(fault: &Fault, jdk: &Jdk, args: &Args) -> Row {
    let mut p = prepare(fault, true, jdk);
    let mut problems = Vec::new();
    // The working tree's JVM, warm: an exploration starts it anyway.
    if let Err(e) = p.session.kind() {
        problems.push(format!("the working tree's JVM does not start: {e}"));
    }
    let (base, base_cold, base_cached) = base_session(&p, jdk);
    if let Err(e) = &base {
        problems.push(format!("base revision not built: {e}"));
    }
    let versions = HostVersions::new(&mut p.host);
    let places = Places::of(&p.host);
    let started = Instant::now();
    let dynamic =
        impact::dynamic_impact(&mut p.session, base, &versions, &|class| places.file_of(class), args.max_steps);
    let recording = started.elapsed();
    let runs = match &dynamic {
        Ok(r) => {
            if let Some(why) = &r.base_unavailable {
                problems.push(format!("not recorded on the base revision: {why}"));
            }
            let base =
                r.base_run.as_ref().map_or("—".to_string(), |b| format!("{}, {} accesses", b.outcome, b.accesses));
            format!("{base} / {}, {} accesses", r.working_tree_run.outcome, r.working_tree_run.accesses)
        }
        Err(e) => {
            problems.push(format!("no dynamic impact: {e}"));
            "error".into()
        }
    };

    let statics = static_lines(&p.model);
    let dynamics = dynamic.as_ref().map(dynamic_lines).unwrap_or_default();
    let options = Options { max_schedules: args.budget, max_steps: args.max_steps, ..Options::default() };
    let selecting = Options { select: true, ..options.clone() };
    let (basic, basic_preemptions) = Run::of(&mut p.session, &p.model, "basic", &options);
    let (mut default, mut line, mut select) = (Vec::new(), Vec::new(), Vec::new());
    for (source, name) in SOURCES {
        let (model, used, _) = impact::model_for(&p.model, Some(source), || dynamic.clone());
        if used.source.as_str() != name {
            problems.push(format!(
                "--icps {name}: {} used instead ({})",
                used.source,
                used.note.as_deref().unwrap_or("no note")
            ));
        } else if let Some(note) = &used.note {
            problems.push(format!("--icps {name}: {note}"));
        }
        default.push(Run::of(&mut p.session, &model, heuristics::DEFAULT, &options).0);
        line.push(Run::of(&mut p.session, &model, &args.line_heuristic, &options).0);
        select.push(Run::of(&mut p.session, &model, &args.line_heuristic, &selecting).0);
    }
    p.session.close();

    for (label, runs) in [(heuristics::DEFAULT, &default), (args.line_heuristic.as_str(), &line), ("--select", &select)]
    {
        for ((_, name), run) in SOURCES.iter().zip(runs.iter()) {
            match &run.found {
                Err(e) => problems.push(format!("{label} with {name} impact: {e}")),
                Ok(None) if label == "--select" => problems.push(format!(
                    "FAULT LOST: --select ({}) with {name} impact ran {} schedules and skipped {} without a failure{}",
                    args.line_heuristic,
                    run.schedules,
                    run.skipped,
                    if run.limit { " (the budget ran out)" } else { " (the selection was over)" }
                )),
                Ok(None) => {
                    problems.push(format!("{label} with {name} impact: no failure within {} schedules", args.budget))
                }
                Ok(Some(_)) => {}
            }
        }
    }
    if let Err(e) = &basic.found {
        problems.push(format!("basic: {e}"));
    }
    let at = |x: &Preemption, set: &BTreeSet<String>| {
        [&x.site, &x.next].into_iter().flatten().any(|s: &Site| set.contains(&line_key(&s.class, s.line)))
    };
    let preempted_at = basic_preemptions.as_ref().map(|pre| {
        (pre.iter().filter(|x| at(x, &statics)).count(), pre.iter().filter(|x| at(x, &dynamics)).count(), pre.len())
    });
    // Where the dynamic impact misses the failing schedule's preemption: what it holds instead.
    for x in basic_preemptions.iter().flatten().filter(|x| dynamic.is_ok() && !at(x, &dynamics)) {
        let place = |s: &Option<Site>| {
            s.as_ref().map_or("?".to_string(), |s| format!("{} {} {}", line_key(&s.class, s.line), s.op, s.target))
        };
        let held: Vec<&String> = dynamics.iter().take(12).collect();
        problems.push(format!(
            "basic's failing schedule preempts at {} (then {}), {} the static impact and not in the dynamic one ({}{})",
            place(&x.site),
            place(&x.next),
            if at(x, &statics) { "in" } else { "not in" },
            held.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
            if dynamics.len() > held.len() { ", …" } else { "" }
        ));
    }
    let dynamic_counts = dynamic.as_ref().ok().map(|r| (r.counts.statements, r.counts.impacted_accesses));
    Row {
        fault: fault.name.clone(),
        static_icps: p.model.icps.len(),
        static_lines: statics.len(),
        dynamic: dynamic_counts,
        both_lines: statics.union(&dynamics).count(),
        shared_lines: statics.intersection(&dynamics).count(),
        base_cold,
        base_cached,
        recording,
        runs,
        basic,
        default,
        line,
        select,
        preempted_at,
        problems,
    }
}

fn ms(d: Option<Duration>) -> String {
    d.map_or("—".into(), |d| format!("{:.0}", d.as_secs_f64() * 1000.0))
}

/// Geometric mean of the schedules to the first failure (a miss counts as the budget), and
/// how many found it.
fn schedules_summary(runs: &[&Run], budget: u64) -> String {
    let v: Vec<f64> = runs.iter().map(|r| r.found.clone().ok().flatten().unwrap_or(budget) as f64).collect();
    let found = runs.iter().filter(|r| matches!(r.found, Ok(Some(_)))).count();
    format!("{:.1} ({found}/{})", geomean(&v), runs.len())
}

fn main() {
    let args = args();
    let jdk = Jdk::locate().expect("a JDK");
    let faults = faults(&args.faults);
    println!(
        "Dynamic change impact benchmark: {} faults, --icps static|dynamic|both, heuristics {} and {}, --select with {}, budget {} schedules",
        faults.len(),
        heuristics::DEFAULT,
        args.line_heuristic,
        args.line_heuristic,
        args.budget
    );
    let started = Instant::now();
    let mut rows = Vec::new();
    for fault in &faults {
        let row = measure(fault, &jdk, &args);
        eprintln!(
            "{} ({}): static {} lines, dynamic {:?} (statements, accesses); {} problem(s); {:.0} s so far",
            fault.name,
            fault.kind,
            row.static_lines,
            row.dynamic,
            row.problems.len(),
            started.elapsed().as_secs_f64()
        );
        rows.push(row);
    }
    let n = rows.len();
    let dynamic_or =
        |r: &Row, f: fn((usize, usize)) -> usize| r.dynamic.map_or("error".to_string(), |d| f(d).to_string());

    println!("\nImpact-set size and the cost of the dynamic impact (times in ms):\n");
    println!("| fault | static ICPs | static lines | dynamic statements | dynamic accesses | both lines | lines in both sets | base compile, first | base compile, cached | two recorded runs | base run / working-tree run |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.fault,
            r.static_icps,
            r.static_lines,
            dynamic_or(r, |d| d.0),
            dynamic_or(r, |d| d.1),
            r.both_lines,
            r.shared_lines,
            ms(r.base_cold),
            ms(r.base_cached),
            ms(Some(r.recording)),
            r.runs
        );
    }
    let sum = |f: &dyn Fn(&Row) -> usize| rows.iter().map(f).sum::<usize>();
    let gm_ms = |f: &dyn Fn(&Row) -> Option<Duration>| {
        let v: Vec<f64> = rows.iter().filter_map(f).map(|d| d.as_secs_f64() * 1000.0).collect();
        if v.is_empty() {
            "—".to_string()
        } else {
            format!("{:.0}", geomean(&v))
        }
    };
    println!(
        "| **total** (times: geometric mean) | {} | {} | {} | {} | {} | {} | {} | {} | {} | |",
        sum(&|r| r.static_icps),
        sum(&|r| r.static_lines),
        sum(&|r| r.dynamic.map_or(0, |d| d.0)),
        sum(&|r| r.dynamic.map_or(0, |d| d.1)),
        sum(&|r| r.both_lines),
        sum(&|r| r.shared_lines),
        gm_ms(&|r| r.base_cold),
        gm_ms(&|r| r.base_cached),
        gm_ms(&|r| Some(r.recording)),
    );
    let ratios: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.dynamic.filter(|d| d.0 > 0 && r.static_lines > 0).map(|d| d.0 as f64 / r.static_lines as f64))
        .collect();
    if !ratios.is_empty() {
        println!(
            "\ndynamic statements / static lines: geometric mean {:.2} over the {} faults where both are non-empty",
            geomean(&ratios),
            ratios.len()
        );
    }

    let l = &args.line_heuristic;
    let d = heuristics::DEFAULT;
    println!("\nSchedules to the first failure (— = none within {} schedules):\n", args.budget);
    println!("| fault | basic | {d} static | {d} dynamic | {d} both | {l} static | {l} dynamic | {l} both | preemptions of basic's failing schedule at static / dynamic lines |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in &rows {
        let cells: Vec<String> = r.default.iter().chain(&r.line).map(Run::text).collect();
        let at = r.preempted_at.map_or("—".into(), |(s, d, all)| format!("{s}/{all} / {d}/{all}"));
        println!("| {} | {} | {} | {at} |", r.fault, r.basic.text(), cells.join(" | "));
    }
    let column =
        |pick: &dyn Fn(&Row) -> &Run| schedules_summary(&rows.iter().map(pick).collect::<Vec<_>>(), args.budget);
    let mut summary = vec![column(&|r| &r.basic)];
    for i in 0..3 {
        summary.push(column(&|r| &r.default[i]));
    }
    for i in 0..3 {
        summary.push(column(&|r| &r.line[i]));
    }
    println!("| **geometric mean (found)** | {} | |", summary.join(" | "));

    println!("\n--select with {l} (only the schedules {l} does not postpone): schedules to the first failure, share of schedules skipped (skipped / (skipped + run)):\n");
    println!("| fault | static | dynamic | both |");
    println!("|---|---|---|---|");
    for r in &rows {
        let cells: Vec<String> = r.select.iter().map(Run::select_text).collect();
        println!("| {} | {} |", r.fault, cells.join(" | "));
    }
    let mut totals = Vec::new();
    for i in 0..3 {
        let runs: Vec<&Run> = rows.iter().map(|r| &r.select[i]).collect();
        let (run, skipped) = runs.iter().fold((0, 0), |(a, b), r| (a + r.schedules, b + r.skipped));
        totals.push(format!(
            "found {}/{n}, {run} run, {:.0}% skipped",
            runs.iter().filter(|r| matches!(r.found, Ok(Some(_)))).count(),
            100.0 * skipped as f64 / (run + skipped).max(1) as f64
        ));
    }
    println!("| **total** | {} |", totals.join(" | "));

    let lost: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.select
                .iter()
                .zip(SOURCES)
                .skip(1)
                .filter(|(run, _)| !matches!(run.found, Ok(Some(_))))
                .map(|(_, (_, name))| format!("{} ({name})", r.fault))
        })
        .collect();
    if lost.is_empty() {
        println!("\nNo fault lost by --select with the dynamic impact (dynamic or both).");
    } else {
        println!("\n!!! FAULTS LOST by --select with the dynamic impact: {} !!!", lost.join(", "));
    }
    println!("\nProblems and notes:");
    let mut any = false;
    for r in &rows {
        for p in &r.problems {
            println!("- {}: {p}", r.fault);
            any = true;
        }
    }
    if !any {
        println!("- none");
    }
    println!("\n{} faults in {:.0} s", n, started.elapsed().as_secs_f64());
}
