//! `racelens explore --affected`: the tests `racelens select` selects for the working-tree
//! change, explored in its order, each within its share of one budget of schedules; with
//! `--shard I/N`, only this shard's tests (or, with fewer tests than shards, its part of one
//! test's schedules; the explore library's `affected::shard`), in JSON that `racelens merge`
//! turns back into this report.

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
use crate::{print_json, Format};
use racelens_explore::affected::ended::{count, exit_status, outcomes, summary, thousands, Ended};
use racelens_explore::affected::shard::{self, Shard};
use racelens_explore::search::part::Part;

pub(super) fn run(args: &ExploreArgs) -> Result<ExitCode, String> {
    let mut host = Host::open(&args.path, &HostOptions::default())?;
    host.load()?;
    let (impact, selection) = analyze_and_select(&mut host);
    let format = Format::of(args.json, args.format);
    let selected = &selection.tests[..selection.selected];
    let budgets = shard::budgets(args.max_schedules, selected.len());
    // What `racelens merge` needs from each shard, beside its tests' results.
    let mut merge_data = args.shard.map(|s| shard_data(&host, args, s, selected, &budgets, &selection.evidence));
    let mine: Vec<(usize, Part)> = match args.shard {
        Some(s) => s.deal(selected.len()),
        None => (0..selected.len()).map(|p| (p, Part::WHOLE)).collect(),
    };
    if mine.is_empty() {
        if let Some(path) = &args.html {
            let words = match args.shard {
                None => format!("racelens: the change selects no test ({})", selection.evidence),
                Some(s) => format!("racelens: shard {s}: {}", no_work(&selection.evidence)),
            };
            write_html(path, HTML_TITLE, &[Section::Outcome { test: "No test explored".into(), words }])?;
        }
        match (format, args.shard) {
            (Format::Json, _) => print_json(&AffectedReport {
                tests: Vec::new(),
                selected: selected.len(),
                budget: args.max_schedules,
                schedules: 0,
                failed: 0,
                shard: merge_data,
            }),
            (Format::Sarif, _) => sarif::affected(
                &host,
                Vec::new(),
                0,
                Affected {
                    selected: selected.len(),
                    budget: args.max_schedules,
                    schedules: 0,
                    failed: 0,
                    tests: Vec::new(),
                },
            )
            .print(),
            (Format::Text, None) => {
                println!("racelens: the change selects no test ({})", selection.evidence);
                // Nothing selected is not "nothing to test" when sharing was undecided.
                for undecided in &selection.undecided {
                    println!("racelens: no evidence either way: {undecided}");
                }
            }
            (Format::Text, Some(s)) => println!("racelens: shard {s}: {}", no_work(&selection.evidence)),
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
    for (i, &(p, part)) in mine.iter().enumerate() {
        let (test, share) = (&selected[p], shard::part_budget(budgets[p], part));
        // `--max-seconds`: the time left, shared among the tests left.
        let seconds = deadline
            .map(|d| d.saturating_duration_since(std::time::Instant::now()).as_secs() / (mine.len() - i) as u64);
        let title = header(test.rank, &test.test, test.pairs.len(), share, part);
        if format == Format::Text {
            println!("{}{title}", if i == 0 { "" } else { "\n" });
        }
        let mut covered = None;
        let (end, result, error, text) =
            match explore_ranked(&host, &sources, args, change.as_ref(), test, (share, part), seconds) {
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
                        findings.push(exploration::sarif::not_explored(
                            &host,
                            &places,
                            &test.test,
                            &format!("not explored: {e}"),
                            &mut fingerprints,
                        ));
                    }
                    let text = format!("! not explored: {e}\n");
                    sections.push(Section::Outcome { test: title, words: format!("! not explored: {e}") });
                    (Ended::NotExplored, None, Some(e), text)
                }
            };
        if format == Format::Text {
            print!("{text}");
        }
        explored.push(sarif::AffectedTest {
            test: test.test.clone(),
            rank: test.rank,
            pairs: test.pairs.clone(),
            exploration: covered,
            error: error.clone(),
        });
        texts.insert(test.test.clone(), text);
        results.push(AffectedTest {
            test: test.test.clone(),
            rank: test.rank,
            pairs: test.pairs.clone(),
            budget: share,
            result,
            error,
            parts: Vec::new(),
        });
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
            Some(s) => {
                shard_summary(s, &ended, &ranked(&mine, selected), selected.len(), spent, shard_budget(&mine, &budgets))
            }
        };
        sections.push(Section::Outcome { test: "Summary".into(), words });
        write_html(path, HTML_TITLE, &sections)?;
    }
    match format {
        Format::Json => print_json(&AffectedReport {
            tests: results,
            selected: selected.len(),
            budget: args.max_schedules,
            schedules: spent,
            failed,
            shard: merge_data,
        }),
        Format::Sarif => {
            // With `--shard`, the log holds this shard's tests only.
            let properties = Affected {
                selected: selected.len(),
                budget: args.max_schedules,
                schedules: spent,
                failed,
                tests: explored,
            };
            sarif::affected(&host, findings, exit_status(&ended), properties).print();
            print_notes(&host);
        }
        Format::Text => {
            println!();
            match args.shard {
                None => println!("{}", summary(&ended, selected.len(), spent, args.max_schedules)),
                Some(s) => println!(
                    "{}",
                    shard_summary(
                        s,
                        &ended,
                        &ranked(&mine, selected),
                        selected.len(),
                        spent,
                        shard_budget(&mine, &budgets)
                    )
                ),
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
/// before each test's result (`; part 2/3 of its schedules, up to ...` for a part).
pub(crate) fn header(rank: usize, test: &str, pairs: usize, share: u64, part: Part) -> String {
    let part = match part.is_whole() {
        true => String::new(),
        false => format!("{part} of its schedules, "),
    };
    format!(
        "#{rank} {test} — covers {}; {part}up to {} schedule{}",
        count(pairs, "impacted pair"),
        thousands(share),
        if share == 1 { "" } else { "s" }
    )
}

/// The ranks of the tests at `mine`'s positions, with their parts.
fn ranked(mine: &[(usize, Part)], selected: &[RankedTest]) -> Vec<(usize, Part)> {
    mine.iter().map(|&(p, part)| (selected[p].rank, part)).collect()
}

/// The budgets of what this shard explores.
fn shard_budget(mine: &[(usize, Part)], budgets: &[u64]) -> u64 {
    mine.iter().map(|&(p, part)| shard::part_budget(budgets[p], part)).sum()
}

/// What a shard's JSON carries for `racelens merge`, under `shard`: which shard it is; the
/// whole selection in rank order with each test's budget, so that merge can tell which
/// tests each shard owed and whether all are there; what must be the same on every shard
/// (the base revision and the options); and the lines the unsharded run would print
/// (`texts` per test, `notes`).
fn shard_data(
    host: &Host,
    args: &ExploreArgs,
    shard: Shard,
    selected: &[RankedTest],
    budgets: &[u64],
    evidence: &str,
) -> ShardData {
    ShardData {
        index: shard.index(),
        count: shard.count(),
        selection: selected
            .iter()
            .zip(budgets)
            .map(|(t, &budget)| SelectedTest { test: t.test.clone(), rank: t.rank, pairs: t.pairs.clone(), budget })
            .collect(),
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

/// Why a shard has nothing to do: with at least one test selected every shard has a test
/// or a part of one.
fn no_work(evidence: &str) -> String {
    format!("no work for this shard: the change selects no test ({evidence})")
}

/// Explores one selected test with at most `share` schedules (its module of the build
/// compiled first), or says why it could not run.
fn explore_ranked(
    host: &Host,
    sources: &Sources,
    args: &ExploreArgs,
    change: Option<&ChangeInput>,
    test: &RankedTest,
    (share, part): (u64, Part),
    seconds: Option<u64>,
) -> Result<Exploration, String> {
    let spec = racelens_explore::jvm::tests::resolve(host, &test.test)?;
    let toolchain = super::toolchain_for(host, sources, &spec)?;
    let settings = Settings { max_seconds: seconds, part, ..args.settings(share)? };
    explore_with_progress(&toolchain, &args.request(host, spec, settings, change.cloned()))
}

/// `racelens: shard 1/2: 2 of 3 selected tests explored here: ...`, of this shard's tests
/// (or part of a test) and their budgets alone.
/// `mine` holds the rank of each test it explored, with the part.
fn shard_summary(
    s: Shard,
    ended: &[Ended],
    mine: &[(usize, Part)],
    selected: usize,
    schedules: u64,
    budget: u64,
) -> String {
    let what = match mine {
        [(rank, part)] if !part.is_whole() => {
            format!("{part} of the schedules of #{rank} of {} explored here", count(selected, "selected test"))
        }
        _ => format!("{} of {} explored here", mine.len(), count(selected, "selected test")),
    };
    let stopped = match ended.len() == mine.len() {
        true => String::new(),
        false => {
            format!(" (--fail-fast: stopped at its first failure, {} of its {} explored)", ended.len(), mine.len())
        }
    };
    format!("racelens: shard {s}: {what}{stopped}: {}, {} of {} schedules (its tests' budgets); `racelens merge` gives the report of all shards", outcomes(ended), thousands(schedules), thousands(budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_says_what_it_explored_and_when_it_has_nothing_to_do() {
        let s = Shard::new(2, 3).unwrap();
        let mine = [(2, Part::WHOLE), (5, Part::WHOLE)];
        assert_eq!(shard_summary(s, &[Ended::Failed, Ended::Bound(3)], &mine, 5, 40, 4_000), "racelens: shard 2/3: 2 of 5 selected tests explored here: 1 failed, 1 cleared (bound 3 on 1), 40 of 4,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        assert_eq!(shard_summary(s, &[Ended::Failed], &mine, 5, 1, 4_000), "racelens: shard 2/3: 2 of 5 selected tests explored here (--fail-fast: stopped at its first failure, 1 of its 2 explored): 1 failed, 0 cleared, 1 of 4,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        let part = [(1, Part::new(1, 2).unwrap())];
        assert_eq!(shard_summary(s, &[Ended::EverySchedule], &part, 1, 12, 5_000), "racelens: shard 2/3: part 2/2 of the schedules of #1 of 1 selected test explored here: 0 failed, 1 cleared (every schedule on 1), 12 of 5,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        assert_eq!(
            no_work("static reachability for 2 tests"),
            "no work for this shard: the change selects no test (static reachability for 2 tests)"
        );
        assert_eq!(header(1, "p.T#m", 1, 1, Part::WHOLE), "#1 p.T#m — covers 1 impacted pair; up to 1 schedule");
        assert_eq!(
            header(2, "p.T#m", 4, 3_334, Part::WHOLE),
            "#2 p.T#m — covers 4 impacted pairs; up to 3,334 schedules"
        );
        assert_eq!(
            header(1, "p.T#m", 4, 5_000, Part::new(0, 2).unwrap()),
            "#1 p.T#m — covers 4 impacted pairs; part 1/2 of its schedules, up to 5,000 schedules"
        );
        // The exit status of the run and of the merge.
        assert_eq!(
            format!("{:?}", exit_code(&[Ended::EverySchedule, Ended::Budget])),
            format!("{:?}", ExitCode::SUCCESS)
        );
        assert_eq!(format!("{:?}", exit_code(&[Ended::Failed])), format!("{:?}", ExitCode::from(1)));
    }
}
