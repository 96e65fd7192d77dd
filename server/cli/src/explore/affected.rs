//! `racelens explore --affected`: the tests `racelens select` selects for the working-tree
//! change, explored in its order within one budget of schedules.

use std::collections::BTreeMap;
use std::process::ExitCode;

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::rank::RankedTest;
use racelens_explore::explorer::{Report, Verdict};
use racelens_explore::jvm::Session;
use racelens_explore::results::coverage::Coverage;
use racelens_explore::search::change::{self, ChangeModel};
use racelens_explore::search::heuristics::Choice;
use serde_json::{json, Value};

use super::{explore_session, print_result, result_json, ExploreArgs, Toolchain};
use crate::check::print_notes;
use crate::select::{analyze_and_select, count};

/// How a test's exploration ended, for the summary: a failure, no failure with what its
/// coverage claims, or no exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ended {
    Failed,
    EverySchedule,
    Bound(u32),
    Budget,
    NoBound,
    NotExplored,
    Stopped,
}

impl Ended {
    fn of(report: &Report) -> Ended {
        let coverage = Coverage::of(report);
        match &report.verdict {
            Verdict::Failed(_) => Ended::Failed,
            Verdict::Passed if coverage.all_schedules => Ended::EverySchedule,
            Verdict::Passed => coverage.complete_bound.map_or(Ended::NoBound, Ended::Bound),
            Verdict::Limit | Verdict::Cancelled => Ended::Budget,
            Verdict::Uncontrolled(_) => Ended::NotExplored,
            Verdict::Stopped(_) => Ended::Stopped,
        }
    }
}

pub(super) fn run(args: &ExploreArgs, choice: Choice) -> Result<ExitCode, String> {
    let mut host = Host::open(&args.path, &HostOptions::default())?;
    host.load()?;
    let (impact, selection) = analyze_and_select(&mut host);
    let selected = &selection.tests[..selection.selected];
    if selected.is_empty() {
        match args.json {
            true => print_json(&json!({"tests": [], "selected": 0, "budget": args.max_schedules, "schedules": 0, "failed": 0})),
            false => println!("racelens: the change selects no test ({})", selection.evidence),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let toolchain = Toolchain::prepare(&host)?;
    let model = choice.is_change_aware().then(|| change::model(&host, &impact));
    let icps = model.as_ref().map_or(0, |m| m.icps.len());
    let (mut spent, mut ended, mut results) = (0, Vec::new(), Vec::new());
    for (i, test) in selected.iter().enumerate() {
        // The budget left, evenly over the tests left; the better ranked get the remainder.
        let share = (args.max_schedules - spent).div_ceil((selected.len() - i) as u64);
        if !args.json {
            println!("{}#{} {} — covers {}; up to {} schedules", if i == 0 { "" } else { "\n" }, test.rank, test.test, count(test.pairs.len(), "impacted pair"), thousands(share));
        }
        let (end, result, error) = match explore_ranked(&host, &toolchain, args, choice, model.as_ref(), test, share) {
            Ok((mut session, report)) => {
                spent += report.stats.schedules;
                let result = match args.json {
                    true => result_json(&host, &session, args, icps, &report),
                    false => {
                        print_result(&host, &session, args, &report);
                        Value::Null
                    }
                };
                crate::record::remember_exploration(&host, &mut session, args.max_steps);
                session.close();
                (Ended::of(&report), result, Value::Null)
            }
            Err(e) => {
                if !args.json {
                    println!("! not explored: {e}");
                }
                (Ended::NotExplored, Value::Null, json!(e))
            }
        };
        results.push(json!({"test": test.test, "rank": test.rank, "pairs": test.pairs, "result": result, "error": error}));
        ended.push(end);
        if args.fail_fast && end == Ended::Failed {
            break;
        }
    }
    let failed = ended.iter().filter(|&&e| e == Ended::Failed).count();
    if args.json {
        print_json(&json!({"tests": results, "selected": selected.len(), "budget": args.max_schedules, "schedules": spent, "failed": failed}));
    } else {
        println!();
        println!("{}", summary(&ended, selected.len(), spent, args.max_schedules));
        print_notes(&host);
    }
    Ok(match failed {
        0 if ended.iter().any(|e| matches!(e, Ended::NotExplored | Ended::Stopped)) => ExitCode::from(2),
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// Explores one selected test with at most `share` schedules; returns its session (for the
/// report) and the exploration's report, or why it could not run.
fn explore_ranked(host: &Host, toolchain: &Toolchain, args: &ExploreArgs, choice: Choice, model: Option<&ChangeModel>, test: &RankedTest, share: u64) -> Result<(Session, Report), String> {
    let spec = racelens_explore::jvm::tests::resolve(host, &test.test)?;
    let mut session = toolchain.session(spec);
    let report = explore_session(&mut session, args, choice, model, share)?;
    Ok((session, report))
}

fn print_json(v: &Value) {
    println!("{}", serde_json::to_string_pretty(v).expect("JSON values serialize"));
}

/// `racelens: 3 selected tests explored: 1 failed, 2 passed (bound 2 cleared on 1, budget
/// reached on 1), 4,512 of 10,000 schedules`: what each ended with claims, never more.
fn summary(ended: &[Ended], selected: usize, schedules: u64, budget: u64) -> String {
    let mut by_end: BTreeMap<Ended, usize> = BTreeMap::new();
    for &e in ended {
        *by_end.entry(e).or_default() += 1;
    }
    let (mut passed, mut claims, mut parts) = (0, Vec::new(), Vec::new());
    for (&end, &n) in &by_end {
        match end {
            Ended::Failed => parts.push(format!("{n} failed")),
            Ended::EverySchedule => claims.push(format!("every schedule on {n}")),
            Ended::Bound(b) => claims.push(format!("bound {b} cleared on {n}")),
            Ended::Budget => claims.push(format!("budget reached on {n}")),
            Ended::NoBound => claims.push(format!("no bound cleared on {n}")),
            Ended::NotExplored => parts.push(format!("{n} not explored")),
            Ended::Stopped => parts.push(format!("{n} stopped by an error")),
        }
        if matches!(end, Ended::EverySchedule | Ended::Bound(_) | Ended::Budget | Ended::NoBound) {
            passed += n;
        }
    }
    if !by_end.contains_key(&Ended::Failed) {
        parts.insert(0, "0 failed".to_string());
    }
    parts.insert(1, match claims.is_empty() {
        true => format!("{passed} passed"),
        false => format!("{passed} passed ({})", claims.join(", ")),
    });
    let explored = match ended.len() == selected {
        true => format!("{} explored", count(selected, "selected test")),
        false => format!("{} of {} explored (--fail-fast: stopped at the first failure)", ended.len(), count(selected, "selected test")),
    };
    format!("racelens: {explored}: {}, {} of {} schedules", parts.join(", "), thousands(schedules), thousands(budget))
}

/// `10,000`
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_says_what_each_test_ended_with_and_no_more() {
        let ended = [Ended::Failed, Ended::Bound(2), Ended::Budget];
        assert_eq!(summary(&ended, 3, 4_512, 10_000), "racelens: 3 selected tests explored: 1 failed, 2 passed (bound 2 cleared on 1, budget reached on 1), 4,512 of 10,000 schedules");
        let ended = [Ended::EverySchedule, Ended::NotExplored, Ended::Stopped, Ended::NoBound];
        assert_eq!(summary(&ended, 4, 999, 1_000), "racelens: 4 selected tests explored: 0 failed, 2 passed (every schedule on 1, no bound cleared on 1), 1 not explored, 1 stopped by an error, 999 of 1,000 schedules");
        assert_eq!(summary(&[Ended::Failed], 2, 34, 100), "racelens: 1 of 2 selected tests explored (--fail-fast: stopped at the first failure): 1 failed, 0 passed, 34 of 100 schedules");
        assert_eq!((thousands(0), thousands(999), thousands(1_000), thousands(1_234_567)), ("0".into(), "999".into(), "1,000".into(), "1,234,567".into()));
    }
}
