//! `racelens explore --affected`: the tests `racelens select` selects for the working-tree
//! change, explored in its order, each within its share of one budget of schedules; with
//! `--shard I/N`, only this shard's tests (`shard.rs`), in JSON that `racelens merge`
//! (`merge.rs`) turns back into this report.

use std::collections::BTreeMap;
use std::process::ExitCode;

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::rank::RankedTest;
use racelens_explore::explorer::Report;
use racelens_explore::jvm::Session;
use racelens_explore::results::coverage::Coverage;
use racelens_explore::search::change::{self, ChangeModel};
use racelens_explore::search::heuristics::Choice;
use serde_json::{json, Map, Value};

use super::sarif::{self, Affected, AffectedTest};
use super::{explore_session, outcome, render_result, result_json, ExploreArgs, SearchKind, Toolchain};
use crate::check::{note_lines, print_notes};
use crate::sarif::Fingerprints;
use crate::select::{analyze_and_select, count};
use crate::shard::{self, Shard};
use crate::Format;

/// How a test's exploration ended, for the summary: a failure, no failure with what its
/// coverage claims, or no exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ended {
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
        Ended::judge(outcome(&report.verdict), &Coverage::of(report))
    }

    /// From a result's JSON `outcome` and `coverage`: one rule for a report and for its
    /// JSON, so that `racelens merge` sums up shards as the run itself does.
    fn judge(outcome: &str, coverage: &Coverage) -> Ended {
        match outcome {
            "fail" => Ended::Failed,
            "pass" if coverage.all_schedules => Ended::EverySchedule,
            "pass" => coverage.complete_bound.map_or(Ended::NoBound, Ended::Bound),
            "limit" => Ended::Budget,
            "uncontrolled" => Ended::NotExplored,
            _ => Ended::Stopped,
        }
    }

    /// From one entry of `tests` in the JSON (`result` null: the test could not be run).
    pub(crate) fn of_entry(entry: &Value) -> Result<Ended, String> {
        let result = &entry["result"];
        if result.is_null() {
            return Ok(Ended::NotExplored);
        }
        let outcome = result["outcome"].as_str().ok_or_else(|| format!("{}: a result without an outcome", entry["test"]))?;
        let coverage: Coverage = serde_json::from_value(result["coverage"].clone()).map_err(|e| format!("{}: a result without its coverage ({e})", entry["test"]))?;
        Ok(Ended::judge(outcome, &coverage))
    }
}

pub(super) fn run(args: &ExploreArgs, choice: Choice) -> Result<ExitCode, String> {
    let mut host = Host::open(&args.path, &HostOptions::default())?;
    host.load()?;
    let (impact, selection) = analyze_and_select(&mut host);
    let format = Format::of(args.json, args.format);
    let selected = &selection.tests[..selection.selected];
    let budgets = shard::budgets(args.max_schedules, selected.len());
    // What `racelens merge` needs from each shard, beside its tests' results.
    let mut merge_data = args.shard.map(|s| shard_data(&host, args, s, selected, &budgets, &selection.evidence));
    let mine: Vec<usize> = (0..selected.len()).filter(|&p| args.shard.is_none_or(|s| s.owns(p))).collect();
    if mine.is_empty() {
        let output = json!({"tests": [], "selected": selected.len(), "budget": args.max_schedules, "schedules": 0, "failed": 0});
        match (format, args.shard) {
            (Format::Json, _) => print_json(&with_shard(output, merge_data)),
            (Format::Sarif, _) => sarif::affected(&host, Vec::new(), 0, Affected { selected: selected.len(), budget: args.max_schedules, schedules: 0, failed: 0, tests: Vec::new() }).print(),
            (Format::Text, None) => println!("racelens: the change selects no test ({})", selection.evidence),
            (Format::Text, Some(s)) => println!("racelens: shard {s}: {}", no_work(s, selected.len(), &selection.evidence)),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let toolchain = Toolchain::prepare(&host)?;
    let model = choice.is_change_aware().then(|| change::model(&host, &impact));
    let icps = model.as_ref().map_or(0, |m| m.icps.len());
    let (mut spent, mut ended, mut results, mut texts) = (0, Vec::new(), Vec::new(), Map::new());
    // `--format sarif`: the results, and what each test covered.
    let (mut fingerprints, mut findings, mut explored) = (Fingerprints::default(), Vec::new(), Vec::new());
    for (i, &p) in mine.iter().enumerate() {
        let (test, share) = (&selected[p], budgets[p]);
        if format == Format::Text {
            println!("{}{}", if i == 0 { "" } else { "\n" }, header(test.rank, &test.test, test.pairs.len(), share));
        }
        let mut exploration = None;
        let (end, result, error, text) = match explore_ranked(&host, &toolchain, args, choice, model.as_ref(), test, share) {
            Ok((mut session, report)) => {
                spent += report.stats.schedules;
                let result = match format {
                    Format::Json => result_json(&host, &session, args, icps, &report),
                    Format::Sarif => {
                        findings.extend(sarif::finding(&host, &session, args, &report, &mut fingerprints));
                        exploration = Some(sarif::exploration(&session, args, &report));
                        Value::Null
                    }
                    Format::Text => Value::Null,
                };
                let text = render_result(&host, &session, args, &report);
                crate::record::remember_exploration(&host, &mut session, args.max_steps);
                session.close();
                (Ended::of(&report), result, Value::Null, text)
            }
            Err(e) => {
                if format == Format::Sarif {
                    findings.push(sarif::not_explored(&host, &test.test, &format!("not explored: {e}"), &mut fingerprints));
                }
                (Ended::NotExplored, Value::Null, json!(e), format!("! not explored: {e}\n"))
            }
        };
        if format == Format::Text {
            print!("{text}");
        }
        explored.push(AffectedTest { test: test.test.clone(), rank: test.rank, pairs: test.pairs.clone(), exploration, error: error.as_str().map(String::from) });
        texts.insert(test.test.clone(), json!(text));
        results.push(json!({"test": test.test, "rank": test.rank, "pairs": test.pairs, "budget": share, "result": result, "error": error}));
        ended.push(end);
        if args.fail_fast && end == Ended::Failed {
            break;
        }
    }
    let failed = ended.iter().filter(|&&e| e == Ended::Failed).count();
    if let Some(data) = &mut merge_data {
        data["texts"] = Value::Object(texts);
    }
    match format {
        Format::Json => print_json(&with_shard(json!({"tests": results, "selected": selected.len(), "budget": args.max_schedules, "schedules": spent, "failed": failed}), merge_data)),
        Format::Sarif => {
            // With `--shard`, the log holds this shard's tests only.
            let properties = Affected { selected: selected.len(), budget: args.max_schedules, schedules: spent, failed, tests: explored };
            sarif::affected(&host, findings, exit_status(&ended), properties).print();
            print_notes(&host);
        }
        Format::Text => {
            println!();
            match args.shard {
                None => println!("{}", summary(&ended, selected.len(), spent, args.max_schedules)),
                Some(s) => println!("{}", shard_summary(s, &ended, mine.len(), selected.len(), spent, mine.iter().map(|&p| budgets[p]).sum())),
            }
            print_notes(&host);
        }
    }
    Ok(exit_code(&ended))
}

/// 1 when a test failed, else 2 when a test could not be explored or its exploration
/// stopped, else 0 (`racelens merge` applies it to the merged tests).
pub(crate) fn exit_code(ended: &[Ended]) -> ExitCode {
    ExitCode::from(exit_status(ended))
}

fn exit_status(ended: &[Ended]) -> u8 {
    match ended.contains(&Ended::Failed) {
        false if ended.iter().any(|e| matches!(e, Ended::NotExplored | Ended::Stopped)) => 2,
        false => 0,
        true => 1,
    }
}

/// `#1 pkg.PoolTest#borrow — covers 4 impacted pairs; up to 3,334 schedules`: the line
/// before each test's result.
pub(crate) fn header(rank: usize, test: &str, pairs: usize, share: u64) -> String {
    format!("#{rank} {test} — covers {}; up to {} schedule{}", count(pairs, "impacted pair"), thousands(share), if share == 1 { "" } else { "s" })
}

/// What a shard's JSON carries for `racelens merge`, under `shard`: which shard it is; the
/// whole selection in rank order with each test's budget, so that merge can tell which
/// tests each shard owed and whether all are there; what must be the same on every shard
/// (the base revision and the options); and the lines the unsharded run would print
/// (`texts` per test, `notes`).
fn shard_data(host: &Host, args: &ExploreArgs, shard: Shard, selected: &[RankedTest], budgets: &[u64], evidence: &str) -> Value {
    let selection: Vec<Value> = selected.iter().zip(budgets).map(|(t, b)| json!({"test": t.test, "rank": t.rank, "pairs": t.pairs, "budget": b})).collect();
    json!({
        "index": shard.index(),
        "count": shard.count(),
        "selection": selection,
        "evidence": evidence,
        "base": host.base().and_then(|b| b.commit).map(|c| c.to_string()),
        "options": {
            "path": args.path.display().to_string(),
            "search": match args.search { SearchKind::Icb => "icb", SearchKind::Dfs => "dfs" },
            "heuristic": args.heuristic,
            "bound": args.bound,
            "max_schedules": args.max_schedules,
            "pct_depth": args.pct_depth,
            "select": args.select,
            "seed": args.seed,
            "max_steps": args.max_steps,
            "all": args.all,
            "fail_fast": args.fail_fast,
        },
        "texts": {},
        "notes": note_lines(host),
    })
}

/// The report, with `shard` when the run is sharded.
fn with_shard(mut report: Value, shard: Option<Value>) -> Value {
    if let Some(shard) = shard {
        report["shard"] = shard;
    }
    report
}

/// Why shard `s` has nothing to do when `selected` tests are dealt.
fn no_work(s: Shard, selected: usize, evidence: &str) -> String {
    let dealt = match selected {
        0 => format!("the change selects no test ({evidence})"),
        n => format!("the change selects {}, dealt to shards 1/{c} to {n}/{c}; the schedules of one test are not split over shards", count(n, "test"), c = s.count()),
    };
    format!("no work for this shard: {dealt}")
}

/// Explores one selected test with at most `share` schedules; returns its session (for the
/// report) and the exploration's report, or why it could not run.
fn explore_ranked(host: &Host, toolchain: &Toolchain, args: &ExploreArgs, choice: Choice, model: Option<&ChangeModel>, test: &RankedTest, share: u64) -> Result<(Session, Report), String> {
    let spec = racelens_explore::jvm::tests::resolve(host, &test.test)?;
    let mut session = toolchain.session(spec);
    let report = explore_session(&mut session, args, choice, model, share)?;
    Ok((session, report))
}

pub(crate) fn print_json(v: &Value) {
    println!("{}", serde_json::to_string_pretty(v).expect("JSON values serialize"));
}

/// `racelens: 3 selected tests explored: 1 failed, 2 passed (bound 2 cleared on 1, budget
/// reached on 1), 4,512 of 10,000 schedules`: what each ended with claims, never more.
pub(crate) fn summary(ended: &[Ended], selected: usize, schedules: u64, budget: u64) -> String {
    let explored = match ended.len() == selected {
        true => format!("{} explored", count(selected, "selected test")),
        false => format!("{} of {} explored (--fail-fast: stopped at the first failure)", ended.len(), count(selected, "selected test")),
    };
    format!("racelens: {explored}: {}, {} of {} schedules", outcomes(ended), thousands(schedules), thousands(budget))
}

/// `racelens: shard 1/2: 2 of 3 selected tests explored here: ...`, of this shard's tests
/// and their budgets alone.
fn shard_summary(s: Shard, ended: &[Ended], mine: usize, selected: usize, schedules: u64, budget: u64) -> String {
    let stopped = match ended.len() == mine {
        true => String::new(),
        false => format!(" (--fail-fast: stopped at its first failure, {} of its {mine} explored)", ended.len()),
    };
    format!(
        "racelens: shard {s}: {} of {} explored here{stopped}: {}, {} of {} schedules (its tests' budgets); `racelens merge` gives the report of all shards",
        mine,
        count(selected, "selected test"),
        outcomes(ended),
        thousands(schedules),
        thousands(budget)
    )
}

/// `1 failed, 2 passed (bound 2 cleared on 1, budget reached on 1)`.
fn outcomes(ended: &[Ended]) -> String {
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
    parts.join(", ")
}

/// `10,000`
pub(crate) fn thousands(n: u64) -> String {
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

    #[test]
    fn a_shard_says_what_it_explored_and_when_it_has_nothing_to_do() {
        let s = Shard::new(2, 3).unwrap();
        assert_eq!(shard_summary(s, &[Ended::Failed, Ended::Bound(3)], 2, 5, 40, 4_000), "racelens: shard 2/3: 2 of 5 selected tests explored here: 1 failed, 1 passed (bound 3 cleared on 1), 40 of 4,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        assert_eq!(shard_summary(s, &[Ended::Failed], 2, 5, 1, 4_000), "racelens: shard 2/3: 2 of 5 selected tests explored here (--fail-fast: stopped at its first failure, 1 of its 2 explored): 1 failed, 0 passed, 1 of 4,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        let s = Shard::new(3, 3).unwrap();
        assert_eq!(no_work(s, 2, "static reachability"), "no work for this shard: the change selects 2 tests, dealt to shards 1/3 to 2/3; the schedules of one test are not split over shards");
        assert_eq!(no_work(s, 0, "static reachability for 2 tests"), "no work for this shard: the change selects no test (static reachability for 2 tests)");
        assert_eq!(header(1, "p.T#m", 1, 1), "#1 p.T#m — covers 1 impacted pair; up to 1 schedule");
        assert_eq!(header(2, "p.T#m", 4, 3_334), "#2 p.T#m — covers 4 impacted pairs; up to 3,334 schedules");
    }

    #[test]
    fn a_json_entry_ends_as_its_report_did() {
        let entry = |outcome: &str, all: bool, bound: Value| json!({"test": "T", "result": {"outcome": outcome, "coverage": {"complete_bound": bound, "all_schedules": all, "classes": 1, "runs": 2, "budget_exhausted": false, "open": null, "livelocks": 0}}});
        let ended = |e: Value| Ended::of_entry(&e).unwrap();
        assert_eq!(ended(entry("fail", false, Value::Null)), Ended::Failed);
        assert_eq!(ended(entry("pass", true, Value::Null)), Ended::EverySchedule);
        assert_eq!(ended(entry("pass", false, json!(2))), Ended::Bound(2));
        assert_eq!(ended(entry("pass", false, Value::Null)), Ended::NoBound);
        assert_eq!(ended(entry("limit", false, json!(1))), Ended::Budget);
        assert_eq!(ended(entry("uncontrolled", false, Value::Null)), Ended::NotExplored);
        assert_eq!(ended(entry("error", false, Value::Null)), Ended::Stopped);
        assert_eq!(ended(json!({"test": "T", "result": null, "error": "no such test"})), Ended::NotExplored);
        assert!(Ended::of_entry(&json!({"test": "T", "result": {"outcome": "pass"}})).unwrap_err().contains("without its coverage"));
        // The exit status of the run and of the merge.
        let code = |e: &[Ended]| format!("{:?}", exit_code(e));
        assert_eq!(code(&[Ended::Stopped, Ended::Failed]), code(&[Ended::Failed]));
        assert_ne!(code(&[Ended::Stopped, Ended::Budget]), code(&[]));
        assert_eq!(code(&[Ended::EverySchedule, Ended::Budget]), format!("{:?}", ExitCode::SUCCESS));
        assert_eq!(code(&[Ended::NotExplored]), format!("{:?}", ExitCode::from(2)));
        assert_eq!(code(&[Ended::Failed]), format!("{:?}", ExitCode::from(1)));
    }
}
