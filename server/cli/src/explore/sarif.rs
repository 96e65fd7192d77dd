//! `racelens explore --format sarif`: an exploration as a SARIF run (the structs are in
//! `crate::sarif`). Built from what `--json` prints: the verdict, the failing schedule's
//! full-mode execution and preemptions, and `Coverage::of`, so the two cannot disagree.
//!
//! A result is only what the exploration found or could not do: a failing schedule (RL200,
//! an error), a test not explored or stopped (RL201), an exploration that ended without a
//! complete claim (RL202, both notes). A pass with a complete claim is no result, and
//! what it claims goes into the run's `properties`, so that nothing is claimed silently.

use racelens_analysis::host::Host;
use racelens_explore::explorer::{Found, Report, Verdict};
use racelens_explore::jvm::protocol::{Execution, Outcome, Site};
use racelens_explore::jvm::Session;
use racelens_explore::results::coverage::Coverage;
use racelens_explore::reports::{ExploreOutcome, Search};
use racelens_explore::results::report;
use serde::Serialize;

use super::{exit_status, failure_site, file_of, outcome, replay_command, schedules_run, search, verdict_words, ExploreArgs};
use crate::sarif::{self, CodeFlow, Finding, Fingerprints, Level, Location, Log, Region, Run, ScheduleFacts, ThreadFlow, ThreadFlowLocation};

/// What one test's exploration covered: the run's `properties` for `explore --test`, one
/// entry of `tests` for `--affected`.
#[derive(Serialize)]
pub(super) struct Exploration {
    test: String,
    search: Search,
    heuristic: String,
    bound: u32,
    /// `fail`, `pass`, `limit`, `uncontrolled` or `error`, as in `--json`.
    outcome: ExploreOutcome,
    schedules: u64,
    coverage: Coverage,
    /// What the exploration may claim, in words (`Coverage::text`).
    claim: String,
}

pub(super) fn exploration(session: &Session, args: &ExploreArgs, report: &Report) -> Exploration {
    let coverage = Coverage::of(report);
    Exploration {
        test: session.spec.display(),
        search: search(args.search),
        heuristic: args.heuristic.clone(),
        bound: args.bound,
        outcome: outcome(&report.verdict),
        schedules: schedules_run(args, report),
        claim: coverage.text(),
        coverage,
    }
}

/// `explore --affected --format sarif`: the run's `properties`, the `--json` summary with
/// each test's [`Exploration`] (or why it could not run).
#[derive(Serialize)]
pub(super) struct Affected {
    pub selected: usize,
    pub budget: u64,
    pub schedules: u64,
    pub failed: usize,
    pub tests: Vec<AffectedTest>,
}

#[derive(Serialize)]
pub(super) struct AffectedTest {
    pub test: String,
    pub rank: usize,
    pub pairs: Vec<String>,
    pub exploration: Option<Exploration>,
    pub error: Option<String>,
}

/// `explore --affected --format sarif`: one run, the results of every test explored.
pub(super) fn affected(host: &Host, results: Vec<Finding>, exit_status: u8, properties: Affected) -> Log<Affected> {
    let run = Run::new(host.root(), &sarif::explore_rules(), results);
    Log::of(run.invocation(exit_status, sarif::notes(host)).properties(properties))
}

/// `explore --test --format sarif`: one run, the exploration's result if any.
pub(super) fn one(host: &Host, session: &Session, args: &ExploreArgs, report: &Report) -> Log<Exploration> {
    let results = finding(host, session, args, report, &mut Fingerprints::default()).into_iter().collect();
    let run = Run::new(host.root(), &sarif::explore_rules(), results);
    Log::of(run.invocation(exit_status(&report.verdict), sarif::notes(host)).properties(exploration(session, args, report)))
}

/// The result an exploration gives, if any (a pass with a complete claim gives none).
pub(super) fn finding(host: &Host, session: &Session, args: &ExploreArgs, report: &Report, fingerprints: &mut Fingerprints) -> Option<Finding> {
    let test = session.spec.display();
    let (_, words) = verdict_words(report);
    // A failure is the same result on the next run when it is the same kind of failure of
    // the same test, whatever schedule shows it.
    let (finding, about) = match &report.verdict {
        Verdict::Failed(found) => (failing_schedule(host, session, args, found), failure_kind(&found.full.outcome)),
        Verdict::Passed if Coverage::of(report).is_complete() => return None,
        Verdict::Passed | Verdict::Limit | Verdict::Cancelled => (Finding::new("RL202", Level::Note, format!("{test}: {words}"), test_location(host, &test)), ""),
        Verdict::Uncontrolled(_) | Verdict::Stopped(_) => return Some(not_explored(host, &test, &words, fingerprints)),
    };
    Some(fingerprints.give(finding, &[&test, about]))
}

/// `java.lang.AssertionError`, `deadlock`, `exit`.
fn failure_kind(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Fail(f) => &f.exception,
        other => other.kind(),
    }
}

/// An RL201 note: `test` was not explored (`why` says so, and why).
pub(super) fn not_explored(host: &Host, test: &str, why: &str, fingerprints: &mut Fingerprints) -> Finding {
    let finding = Finding::new("RL201", Level::Note, format!("{test}: {why} (nothing is claimed about its schedules)"), test_location(host, test));
    fingerprints.give(finding, &[test])
}

/// The RL200 error of a failing schedule: where it failed (else the test), the
/// preemptions as related locations, and the steps of its full-mode run as a code flow.
fn failing_schedule(host: &Host, session: &Session, args: &ExploreArgs, found: &Found) -> Finding {
    let test = session.spec.display();
    let location = match failure_site(host, &found.full) {
        Some((file, line)) => Some(Location::file(&file, Some(Region::line(line)))),
        None => test_location(host, &test),
    };
    let replay = replay_command(found, &session.spec, &args.path.display().to_string());
    let message = format!("{test}: {}; replay: {replay}", super::failure_headline(found));
    let related = found.preemptions.iter().map(|p| site_location(host, p.site.as_ref()).message(format!("⇄ {}", p.text()))).collect();
    let flow = code_flow(host, session, &found.full, &found.string.encode());
    let facts = ScheduleFacts { schedule: found.string.encode(), schedules: found.schedules, preemptions: found.preemptions.len() };
    let finding = Finding::new("RL200", Level::Error, message, location).related(related).schedule(facts);
    match flow {
        Some(flow) => finding.code_flow(flow),
        None => finding,
    }
}

/// One thread flow per thread that took a step, its steps in the execution's order.
fn code_flow(host: &Host, session: &Session, exec: &Execution, schedule: &str) -> Option<CodeFlow> {
    let threads: Vec<ThreadFlow> = exec
        .threads
        .iter()
        .filter_map(|(&t, name)| {
            let steps: Vec<ThreadFlowLocation> = exec
                .events
                .iter()
                .filter(|e| e.thread == t)
                .filter_map(|e| {
                    let site = session.site(e.site)?;
                    let location = site_location(host, Some(&site)).message(report::step(exec, e, &site));
                    Some(ThreadFlowLocation::new(location, e.step, kinds(&site.op)))
                })
                .collect();
            (!steps.is_empty()).then(|| ThreadFlow::new(format!("T{t}"), format!("T{t} ({name})"), steps))
        })
        .collect();
    (!threads.is_empty()).then(|| CodeFlow::new(format!("the failing schedule {schedule}, step by step"), threads))
}

/// SARIF's kinds of a thread flow step, for the operations that have one.
fn kinds(op: &str) -> Vec<&'static str> {
    match op {
        "LOCK" | "MONITORENTER" => vec!["acquire", "lock"],
        "UNLOCK" | "MONITOREXIT" => vec!["release", "lock"],
        "READ" | "WRITE" | "AREAD" | "AWRITE" => vec!["memory"],
        "CALL" => vec!["call"],
        _ => Vec::new(),
    }
}

/// A site's line in its project file, named by its method too; a site in no project file
/// (the JDK's, a thread not started yet) by its method alone.
fn site_location(host: &Host, site: Option<&Site>) -> Location {
    let Some(site) = site.filter(|s| s.op != "BEGIN") else { return Location::default() };
    let location = match file_of(host, &site.class) {
        Some(file) => Location::file(&file, (site.line > 0).then(|| Region::line(site.line))),
        None => Location::default(),
    };
    location.method(format!("{}.{}", site.class, site.method))
}

/// Where a test (`pkg.Class#method`, or `pkg.Class` for `main`) is declared, if it is in a
/// project file: the method's line, else the class's.
fn test_location(host: &Host, test: &str) -> Option<Location> {
    let (class, method) = test.split_once('#').unwrap_or((test, "main"));
    let file = file_of(host, class)?;
    let facts = &host.index().entry(host.index().file_id(&file)?)?.facts;
    let class_idx = facts.classes.iter().position(|c| c.binary_name == class)?;
    let line = facts.methods.iter().find(|m| m.class as usize == class_idx && m.name == method).map_or(facts.classes[class_idx].span.line, |m| m.span.line);
    Some(Location::file(&file, Some(Region::line(line))).method(format!("{}.{method}", facts.classes[class_idx].binary_name)))
}
