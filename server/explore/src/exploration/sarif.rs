//! An exploration as a SARIF run (`explore --format sarif`), from the structs of
//! `racelens_analysis::sarif`. Built from what `--json` prints: the verdict, the failing
//! schedule's full-mode execution and preemptions, and `Coverage::of`, so the two cannot
//! disagree.
//!
//! A result is only what the exploration found or could not do: a failing schedule (RL200,
//! an error), a test not explored or stopped (RL201), an exploration that ended without a
//! complete claim (RL202, both notes). A pass with a complete claim is no result, and
//! what it claims goes into the run's `properties`, so that nothing is claimed silently.

use racelens_analysis::host::Host;
use racelens_analysis::sarif::{
    self, CodeFlow, Finding, Fingerprints, Level, Location, Log, Region, Run, ScheduleFacts, ThreadFlow,
    ThreadFlowLocation,
};
use serde::Serialize;

use crate::explorer::{Found, Verdict};
use crate::jvm::protocol::{Execution, Outcome, Site, SiteOp};
use crate::reports::{ExploreOutcome, Search};
use crate::results::coverage::Coverage;
use crate::results::report;

use super::json::outcome;
use super::text::failure_headline;
use super::{Exploration, Places};

/// What one test's exploration covered: the run's `properties` for `explore --test`, one
/// entry of `tests` for `--affected`.
#[derive(Serialize)]
pub struct Covered {
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

impl Exploration {
    /// What the exploration covered, for the run's `properties`.
    pub fn sarif_covered(&self) -> Covered {
        let coverage = Coverage::of(&self.report);
        Covered {
            test: self.test.display(),
            search: self.settings.search,
            heuristic: self.settings.heuristic.clone(),
            bound: self.settings.bound,
            outcome: outcome(&self.report.verdict),
            schedules: self.schedules_run(),
            claim: coverage.text(),
            coverage,
        }
    }

    /// `explore --test --format sarif`: one run, the exploration's result if any.
    pub fn sarif_log(&self, host: &Host) -> Log<Covered> {
        let results = self.sarif_finding(host, &mut Fingerprints::default()).into_iter().collect();
        explore_log(host, results, self.exit_status(), self.sarif_covered())
    }

    /// The result the exploration gives, if any (a pass with a complete claim gives none).
    pub fn sarif_finding(&self, host: &Host, fingerprints: &mut Fingerprints) -> Option<Finding> {
        let test = self.test.display();
        let (_, words) = self.verdict_words();
        // A failure is the same result on the next run when it is the same kind of failure of
        // the same test, whatever schedule shows it.
        let (finding, about) = match &self.report.verdict {
            Verdict::Failed(found) => (self.failing_schedule(host, found), failure_kind(&found.full.outcome)),
            Verdict::Passed if Coverage::of(&self.report).is_complete() => return None,
            Verdict::Passed | Verdict::Limit | Verdict::Cancelled => (
                Finding::new(
                    "RL202",
                    Level::Note,
                    format!("{test}: {words}"),
                    test_location(host, &self.places, &test),
                ),
                "",
            ),
            Verdict::Uncontrolled(_) | Verdict::Stopped(_) | Verdict::Unconfirmed(..) | Verdict::Limitation(..) => {
                return Some(not_explored(host, &self.places, &test, &words, fingerprints))
            }
        };
        Some(fingerprints.give(finding, &[&test, about]))
    }

    /// The RL200 error of a failing schedule: where it failed (else the test), the
    /// preemptions as related locations, and the steps of its full-mode run as a code flow.
    fn failing_schedule(&self, host: &Host, found: &Found) -> Finding {
        let test = self.test.display();
        let location = match self.places.failure_site(&found.full) {
            Some((file, line)) => Some(Location::file(&file, Some(Region::line(line)))),
            None => test_location(host, &self.places, &test),
        };
        let message = format!("{test}: {}; replay: {}", failure_headline(found), self.replay_command(found));
        let related = found
            .preemptions
            .iter()
            .map(|p| site_location(&self.places, p.site.as_ref()).message(format!("⇄ {}", p.text())))
            .collect();
        let flow = self.code_flow(&found.full, &found.string.encode());
        let facts = ScheduleFacts {
            schedule: found.string.encode(),
            schedules: found.schedules,
            preemptions: found.preemptions.len(),
        };
        let finding = Finding::new("RL200", Level::Error, message, location).related(related).schedule(facts);
        match flow {
            Some(flow) => finding.code_flow(flow),
            None => finding,
        }
    }

    /// One thread flow per thread that took a step, its steps in the execution's order.
    fn code_flow(&self, exec: &Execution, schedule: &str) -> Option<CodeFlow> {
        let threads: Vec<ThreadFlow> = exec
            .threads
            .iter()
            .filter_map(|(&t, name)| {
                let steps: Vec<ThreadFlowLocation> = exec
                    .events
                    .iter()
                    .filter(|e| e.thread == t)
                    .filter_map(|e| {
                        let site = self.sites.get(&e.site)?;
                        let location = site_location(&self.places, Some(site)).message(report::step(exec, e, site));
                        Some(ThreadFlowLocation::new(location, e.step, kinds(site.op.as_str())))
                    })
                    .collect();
                (!steps.is_empty()).then(|| ThreadFlow::new(format!("T{t}"), format!("T{t} ({name})"), steps))
            })
            .collect();
        (!threads.is_empty()).then(|| CodeFlow::new(format!("the failing schedule {schedule}, step by step"), threads))
    }
}

/// `java.lang.AssertionError`, `deadlock`, `exit`.
fn failure_kind(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Fail(f) => &f.exception,
        other => other.kind(),
    }
}

/// An RL201 note: `test` was not explored (`why` says so, and why).
pub fn not_explored(host: &Host, places: &Places, test: &str, why: &str, fingerprints: &mut Fingerprints) -> Finding {
    let finding = Finding::new(
        "RL201",
        Level::Note,
        format!("{test}: {why} (nothing is claimed about its schedules)"),
        test_location(host, places, test),
    );
    fingerprints.give(finding, &[test])
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
fn site_location(places: &Places, site: Option<&Site>) -> Location {
    let Some(site) = site.filter(|s| s.op != SiteOp::Begin) else { return Location::default() };
    let location = match places.file_of(&site.class) {
        Some(file) => Location::file(&file, (site.line > 0).then(|| Region::line(site.line))),
        None => Location::default(),
    };
    location.method(format!("{}.{}", site.class, site.method))
}

/// Where a test (`pkg.Class#method`, or `pkg.Class` for `main`) is declared, if it is in a
/// project file: the method's line, else the class's.
fn test_location(host: &Host, places: &Places, test: &str) -> Option<Location> {
    let (class, method) = test.split_once('#').unwrap_or((test, "main"));
    let file = places.file_of(class)?;
    let facts = &host.index().entry(host.index().file_id(&file)?)?.facts;
    let class_idx = facts.classes.iter().position(|c| c.binary_name == class)?;
    let line = facts
        .methods
        .iter()
        .find(|m| m.class as usize == class_idx && m.name == method)
        .map_or(facts.classes[class_idx].span.line, |m| m.span.line);
    Some(
        Location::file(&file, Some(Region::line(line)))
            .method(format!("{}.{method}", facts.classes[class_idx].binary_name)),
    )
}

/// `explore --affected --format sarif`: the run's `properties`, the `--json` summary with
/// each test's [`Covered`] (or why it could not run).
#[derive(Serialize)]
pub struct AffectedProperties {
    /// How many tests the change selects.
    pub selected: usize,
    /// The budget of schedules of all of them.
    pub budget: u64,
    /// The schedules run, in all.
    pub schedules: u64,
    pub failed: usize,
    /// The tests explored (with `--shard`, this shard's).
    pub tests: Vec<TestCovered>,
}

/// One test of [`AffectedProperties`]: its rank and pairs, and what its exploration covered.
#[derive(Serialize)]
pub struct TestCovered {
    pub test: String,
    pub rank: usize,
    /// The impacted pairs it covers.
    pub pairs: Vec<String>,
    /// What its exploration covered; `None` when it could not run (`error` says why).
    pub exploration: Option<Covered>,
    pub error: Option<String>,
}

/// `explore --affected --format sarif`: one run, the results of every test explored.
pub fn affected_log(
    host: &Host,
    results: Vec<Finding>,
    exit_status: u8,
    properties: AffectedProperties,
) -> Log<AffectedProperties> {
    explore_log(host, results, exit_status, properties)
}

/// An `explore` log of one run: its results, exit status and `properties`.
fn explore_log<P: Serialize>(host: &Host, results: Vec<Finding>, exit_status: u8, properties: P) -> Log<P> {
    let run = Run::new(host.root(), &sarif::explore_rules(), results);
    Log::of(run.invocation(exit_status, sarif::notes(host)).properties(properties))
}
