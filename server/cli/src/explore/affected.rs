//! `racelens explore --affected`: the tests `racelens select` selects for the working-tree
//! change, explored in its order, each within its share of one budget of schedules; with
//! `--shard I/N`, only this shard's tests (or, with fewer tests than shards, its part of one
//! test's schedules; the explore library's `affected::shard`), in JSON that `racelens merge`
//! turns back into this report.

use std::process::ExitCode;

use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::rank::RankedTest;
use racelens_explore::exploration::sarif::{affected_log, AffectedProperties};
use racelens_explore::exploration::{ChangeInput, Exploration, Places, Settings, Toolchain};
use racelens_explore::jvm::project::Sources;
use racelens_explore::reports::{AffectedReport, ShardOptions};
use racelens_explore::results::swimlane::Section;

use super::{explore_with_progress, write_html, ExploreArgs};
use crate::check::{note_lines, print_notes};
use crate::select::analyze_and_select;
use crate::{print_json, Format};
use racelens_explore::affected::ended::{exit_status, summary, Ended};
use racelens_explore::affected::plan::{self, no_work, ranked, shard_budget, shard_data, shard_summary};
use racelens_explore::affected::shard;
use racelens_explore::search::part::Part;

pub(super) fn run(args: &ExploreArgs) -> Result<ExitCode, String> {
    let mut host = Host::open(&args.path, &HostOptions::default())?;
    host.load()?;
    let (impact, selection) = analyze_and_select(&mut host);
    let format = Format::of(args.json, args.format);
    let selected = &selection.tests[..selection.selected];
    let budgets = shard::budgets(args.max_schedules, selected.len());
    // What `racelens merge` needs from each shard, beside its tests' results.
    let mut merge_data = args.shard.map(|s| {
        shard_data(&host, args.shard_options(), s, (selected, &budgets), &selection.evidence, note_lines(&host))
    });
    let mine = plan::mine(args.shard, selected.len());
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
            (Format::Sarif, _) => affected_log(
                &host,
                Vec::new(),
                0,
                AffectedProperties {
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
    let outputs =
        plan::Outputs { json: format == Format::Json, sarif: format == Format::Sarif, html: args.html.is_some() };
    let explore = |i: usize, title: &str, test: &RankedTest, budget, seconds| {
        if format == Format::Text {
            println!("{}{title}", if i == 0 { "" } else { "\n" });
        }
        explore_ranked(&host, &sources, args, change.as_ref(), test, budget, seconds)
    };
    let shown = |text: &str| {
        if format == Format::Text {
            print!("{text}");
        }
    };
    let stop = (args.max_seconds, args.fail_fast);
    let plan::Explored { ended, spent, results, texts, findings, explored, mut sections } =
        plan::explore_each(&host, (selected, &budgets, &mine), outputs, stop, explore, shown);
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
            let properties = AffectedProperties {
                selected: selected.len(),
                budget: args.max_schedules,
                schedules: spent,
                failed,
                tests: explored,
            };
            affected_log(&host, findings, exit_status(&ended), properties).print();
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
    let toolchain = Toolchain::for_test(sources, &Places::of(host), &spec)?;
    let settings = Settings { max_seconds: seconds, part, ..args.settings(share)? };
    explore_with_progress(&toolchain, &args.request(host, spec, settings, change.cloned()))
}

impl ExploreArgs {
    /// The options every shard must share, as a shard's JSON carries them for `racelens merge`.
    fn shard_options(&self) -> ShardOptions {
        ShardOptions {
            path: self.path.display().to_string(),
            search: self.search.report(),
            heuristic: self.heuristic.clone(),
            bound: self.bound,
            max_schedules: self.max_schedules,
            pct_depth: self.pct_depth,
            select: self.select,
            seed: self.seed,
            max_steps: self.max_steps,
            all: self.all,
            fail_fast: self.fail_fast,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_status_of_the_run_and_of_the_merge() {
        assert_eq!(
            format!("{:?}", exit_code(&[Ended::EverySchedule, Ended::Budget])),
            format!("{:?}", ExitCode::SUCCESS)
        );
        assert_eq!(format!("{:?}", exit_code(&[Ended::Failed])), format!("{:?}", ExitCode::from(1)));
    }
}
