//! `racelens merge`: the `--json` outputs of the N shards of `racelens explore --affected
//! --shard I/N` back into one report, the one the unsharded run prints (its text, or with
//! `--json` its JSON, and its exit status). The checks and the merge itself are the explore
//! library's ([`racelens_explore::affected::merge`]); this is the command and its printing.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use racelens_explore::affected::ended::{summary, Ended};
use racelens_explore::affected::merge::{merge, read};
use racelens_explore::affected::plan::header;
use racelens_explore::reports::AffectedReport;
use racelens_explore::search::part::Part;

use crate::explore::affected::exit_code;
use crate::print_json;

/// Combine the `--json` outputs of `racelens explore --affected --shard I/N --json` (one
/// per shard, 1/N to N/N, in any order) into the report the unsharded run prints.
///
/// Exit status: as `explore --affected`: 1 when a test failed, else 2 when a test could not
/// be explored or its exploration stopped, else 0; 2 also when the files do not make one
/// whole run (a shard missing or given twice, shards of different runs, a file that is not
/// a shard's JSON).
#[derive(Args)]
pub struct MergeArgs {
    /// The shards' JSON files.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print the JSON of `explore --affected --json` instead of its text. Its schema:
    /// server/cli/schemas/explore-affected.schema.json.
    #[arg(long)]
    json: bool,
}

pub fn run(args: MergeArgs) -> Result<ExitCode, String> {
    let shards = args.files.iter().map(|f| read(f)).collect::<Result<Vec<_>, _>>()?;
    let merged = merge(shards)?;
    let schedules: u64 = merged.tests.iter().filter_map(|(t, _)| t.result.as_ref()).map(|r| r.schedules).sum();
    let failed = merged.ended.iter().filter(|&&e| e == Ended::Failed).count();
    if args.json {
        let tests = merged.tests.iter().map(|(t, _)| t.clone()).collect();
        print_json(&AffectedReport {
            tests,
            selected: merged.selected,
            budget: merged.budget,
            schedules,
            failed,
            shard: None,
        });
    } else if merged.selected == 0 {
        println!("racelens: the change selects no test ({})", merged.evidence);
    } else {
        for (i, (t, text)) in merged.tests.iter().enumerate() {
            println!(
                "{}{}",
                if i == 0 { "" } else { "\n" },
                header(t.rank, &t.test, t.pairs.len(), t.budget, Part::WHOLE)
            );
            print!("{text}");
        }
        println!();
        println!("{}", summary(&merged.ended, merged.selected, schedules, merged.budget));
        for note in &merged.notes {
            eprintln!("{note}");
        }
    }
    Ok(exit_code(&merged.ended))
}
