//! `racelens schema NAME` (hidden): the JSON Schema of a command's `--json` report,
//! derived from the report's type. The schemas published under `server/cli/schemas/` are
//! this command's output; `tests/schemas.rs` fails when they differ, and rewrites them
//! with `UPDATE_SCHEMAS=1`.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use racelens_analysis::rank::Selection;
use racelens_analysis::report::CheckReport;
use racelens_explore::reports::{AffectedReport, ExploreReport, ImpactReport, RecordReport, ReplayReport};

/// Print the JSON Schema of a command's `--json` output (published in the repository as
/// `server/cli/schemas/<NAME>.schema.json`).
#[derive(Args)]
pub struct SchemaArgs {
    #[arg(value_enum)]
    name: Report,
}

/// The reports, one per `--json` output (`merge --json` prints `explore --affected`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Report {
    /// `check --json`
    Check,
    /// `select --json`
    Select,
    /// `explore --test T --json`
    Explore,
    /// `explore --affected --json` (with `--shard`), and `merge --json`
    ExploreAffected,
    /// `replay --json`
    Replay,
    /// `record --json`
    Record,
    /// `impact --json`
    Impact,
}

pub fn schema(report: Report) -> schemars::Schema {
    match report {
        Report::Check => schemars::schema_for!(CheckReport),
        Report::Select => schemars::schema_for!(Selection),
        Report::Explore => schemars::schema_for!(ExploreReport),
        Report::ExploreAffected => schemars::schema_for!(AffectedReport),
        Report::Replay => schemars::schema_for!(ReplayReport),
        Report::Record => schemars::schema_for!(RecordReport),
        Report::Impact => schemars::schema_for!(ImpactReport),
    }
}

pub fn run(args: SchemaArgs) -> Result<ExitCode, String> {
    println!("{}", serde_json::to_string_pretty(&schema(args.name)).expect("schemas serialize"));
    Ok(ExitCode::SUCCESS)
}
