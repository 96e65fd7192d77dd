//! `racelens explore --affected`: the tests `racelens select` selects for the working-tree
//! change, explored in its order, each within its share of one budget of schedules; with
//! `--shard I/N`, only this shard's tests (`shard.rs`), in JSON that `racelens merge`
//! (`merge.rs`) turns back into this report.

use std::collections::BTreeMap;
use std::process::ExitCode;

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::rank::RankedTest;
use racelens_analysis::sarif::Fingerprints;
use racelens_explore::exploration::{self, ChangeInput, Exploration, Places, Settings};
use racelens_explore::jvm::project::Sources;
use racelens_explore::reports::{AffectedReport, AffectedTest, SelectedTest, ShardData, ShardOptions};
use racelens_explore::results::swimlane::Section;

use super::sarif::{self, Affected};
use super::{explore_with_progress, write_html, ExploreArgs};
use crate::check::{note_lines, print_notes};
use crate::select::analyze_and_select;
use racelens_explore::affected::ended::{count, exit_status, outcomes, summary, thousands, Ended};
use racelens_explore::affected::shard::{self, Shard};
use crate::{print_json, Format};

pub(super) fn run(args: &ExploreArgs) -> Result<ExitCode, String> {
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
        if let Some(path) = &args.html {
            let words = match args.shard {
                None => format!("racelens: the change selects no test ({})", selection.evidence),
                Some(s) => format!("racelens: shard {s}: {}", no_work(s, selected.len(), &selection.evidence)),
            };
            write_html(path, HTML_TITLE, &[Section::Outcome { test: "No test explored".into(), words }])?;
        }
        match (format, args.shard) {
            (Format::Json, _) => print_json(&AffectedReport { tests: Vec::new(), selected: selected.len(), budget: args.max_schedules, schedules: 0, failed: 0, shard: merge_data }),
            (Format::Sarif, _) => sarif::affected(&host, Vec::new(), 0, Affected { selected: selected.len(), budget: args.max_schedules, schedules: 0, failed: 0, tests: Vec::new() }).print(),
            (Format::Text, None) => {
                println!("racelens: the change selects no test ({})", selection.evidence);
                // Nothing selected is not "nothing to test" when sharing was undecided.
                for undecided in &selection.undecided {
                    println!("racelens: no evidence either way: {undecided}");
                }
            }
            (Format::Text, Some(s)) => println!("racelens: shard {s}: {}", no_work(s, selected.len(), &selection.evidence)),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let sources = Sources::of(&host);
    let change = args.settings(args.max_schedules)?.choice.is_change_aware().then(|| args.change(&mut host, &impact));
    let places = Places::of(&host);
    let (mut spent, mut ended, mut results, mut texts) = (0, Vec::new(), Vec::new(), BTreeMap::new());
    // `--format sarif`: the results, and what each test covered.
    let (mut fingerprints, mut findings, mut explored) = (Fingerprints::default(), Vec::new(), Vec::new());
    // `--html`: one section per test explored.
    let mut sections = Vec::new();
    let deadline = args.max_seconds.map(|s| std::time::Instant::now() + std::time::Duration::from_secs(s));
    for (i, &p) in mine.iter().enumerate() {
        let (test, share) = (&selected[p], budgets[p]);
        // `--max-seconds`: the time left, shared among the tests left.
        let seconds = deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()).as_secs() / (mine.len() - i) as u64);
        let title = header(test.rank, &test.test, test.pairs.len(), share);
        if format == Format::Text {
            println!("{}{}", if i == 0 { "" } else { "\n" }, header(test.rank, &test.test, test.pairs.len(), share));
        }
        let mut covered = None;
        let (end, result, error, text) = match explore_ranked(&host, &sources, args, change.as_ref(), test, share, seconds) {
            Ok(exploration) => {
                spent += exploration.report.stats.schedules;
                let result = match format {
                    Format::Json => Some(exploration.json()),
                    Format::Sarif => {
                        findings.extend(exploration.sarif_finding(&host, &mut fingerprints));
                        covered = Some(exploration.sarif_covered());
                        None
                    }
                    Format::Text => None,
                };
                if args.html.is_some() {
                    sections.push(exploration.html_section(title));
                }
                (Ended::of(&exploration.report), result, None, exploration.text())
            }
            Err(e) => {
                if format == Format::Sarif {
                    findings.push(exploration::sarif::not_explored(&host, &places, &test.test, &format!("not explored: {e}"), &mut fingerprints));
                }
                let text = format!("! not explored: {e}\n");
                sections.push(Section::Outcome { test: title, words: format!("! not explored: {e}") });
                (Ended::NotExplored, None, Some(e), text)
            }
        };
        if format == Format::Text {
            print!("{text}");
        }
        explored.push(sarif::AffectedTest { test: test.test.clone(), rank: test.rank, pairs: test.pairs.clone(), exploration: covered, error: error.clone() });
        texts.insert(test.test.clone(), text);
        results.push(AffectedTest { test: test.test.clone(), rank: test.rank, pairs: test.pairs.clone(), budget: share, result, error });
        ended.push(end);
        if args.fail_fast && end == Ended::Failed {
            break;
        }
    }
    let failed = ended.iter().filter(|&&e| e == Ended::Failed).count();
    if let Some(data) = &mut merge_data {
        data.texts = texts;
    }
    if let Some(path) = &args.html {
        let words = match args.shard {
            None => summary(&ended, selected.len(), spent, args.max_schedules),
            Some(s) => shard_summary(s, &ended, mine.len(), selected.len(), spent, mine.iter().map(|&p| budgets[p]).sum()),
        };
        sections.push(Section::Outcome { test: "Summary".into(), words });
        write_html(path, HTML_TITLE, &sections)?;
    }
    match format {
        Format::Json => print_json(&AffectedReport { tests: results, selected: selected.len(), budget: args.max_schedules, schedules: spent, failed, shard: merge_data }),
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

/// The title of the `--affected --html` page.
const HTML_TITLE: &str = "racelens explore --affected";

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
fn shard_data(host: &Host, args: &ExploreArgs, shard: Shard, selected: &[RankedTest], budgets: &[u64], evidence: &str) -> ShardData {
    ShardData {
        index: shard.index(),
        count: shard.count(),
        selection: selected.iter().zip(budgets).map(|(t, &budget)| SelectedTest { test: t.test.clone(), rank: t.rank, pairs: t.pairs.clone(), budget }).collect(),
        evidence: evidence.to_string(),
        base: host.base().and_then(|b| b.commit).map(|c| c.to_string()),
        options: ShardOptions {
            path: args.path.display().to_string(),
            search: args.search.report(),
            heuristic: args.heuristic.clone(),
            bound: args.bound,
            max_schedules: args.max_schedules,
            pct_depth: args.pct_depth,
            select: args.select,
            seed: args.seed,
            max_steps: args.max_steps,
            all: args.all,
            fail_fast: args.fail_fast,
        },
        texts: BTreeMap::new(),
        notes: note_lines(host),
    }
}

/// Why shard `s` has nothing to do when `selected` tests are dealt.
fn no_work(s: Shard, selected: usize, evidence: &str) -> String {
    let dealt = match selected {
        0 => format!("the change selects no test ({evidence})"),
        n => format!("the change selects {}, dealt to shards 1/{c} to {n}/{c}; the schedules of one test are not split over shards", count(n, "test"), c = s.count()),
    };
    format!("no work for this shard: {dealt}")
}

/// Explores one selected test with at most `share` schedules (its module of the build
/// compiled first), or says why it could not run.
fn explore_ranked(host: &Host, sources: &Sources, args: &ExploreArgs, change: Option<&ChangeInput>, test: &RankedTest, share: u64, seconds: Option<u64>) -> Result<Exploration, String> {
    let spec = racelens_explore::jvm::tests::resolve(host, &test.test)?;
    let toolchain = super::toolchain_for(host, sources, &spec)?;
    let settings = Settings { max_seconds: seconds, ..args.settings(share)? };
    explore_with_progress(&toolchain, &args.request(host, spec, settings, change.cloned()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_says_what_it_explored_and_when_it_has_nothing_to_do() {
        let s = Shard::new(2, 3).unwrap();
        assert_eq!(shard_summary(s, &[Ended::Failed, Ended::Bound(3)], 2, 5, 40, 4_000), "racelens: shard 2/3: 2 of 5 selected tests explored here: 1 failed, 1 cleared (bound 3 on 1), 40 of 4,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        assert_eq!(shard_summary(s, &[Ended::Failed], 2, 5, 1, 4_000), "racelens: shard 2/3: 2 of 5 selected tests explored here (--fail-fast: stopped at its first failure, 1 of its 2 explored): 1 failed, 0 cleared, 1 of 4,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        let s = Shard::new(3, 3).unwrap();
        assert_eq!(no_work(s, 2, "static reachability"), "no work for this shard: the change selects 2 tests, dealt to shards 1/3 to 2/3; the schedules of one test are not split over shards");
        assert_eq!(no_work(s, 0, "static reachability for 2 tests"), "no work for this shard: the change selects no test (static reachability for 2 tests)");
        assert_eq!(header(1, "p.T#m", 1, 1), "#1 p.T#m — covers 1 impacted pair; up to 1 schedule");
        assert_eq!(header(2, "p.T#m", 4, 3_334), "#2 p.T#m — covers 4 impacted pairs; up to 3,334 schedules");
        // The exit status of the run and of the merge.
        assert_eq!(format!("{:?}", exit_code(&[Ended::EverySchedule, Ended::Budget])), format!("{:?}", ExitCode::SUCCESS));
        assert_eq!(format!("{:?}", exit_code(&[Ended::Failed])), format!("{:?}", ExitCode::from(1)));
    }
}
