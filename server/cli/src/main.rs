//! `racelens`: the command line. `check` reports the concurrency consequences of the
//! working-tree change; `select` ranks the tests that can reveal them; `lsp` serves
//! editors; `explore` and `replay` run schedules; `record` runs tests once to keep the
//! coverage history `select` selects from; `merge` puts the shards of a CI
//! `explore --affected --shard` run back together; `impact` runs a test on the base revision
//! and the working tree and prints the accesses the change impacts (ReConTest). Every `--json` output is a typed report
//! (`racelens_analysis::report`, `rank`, `racelens_explore::reports`) whose JSON Schema is
//! published under `server/cli/schemas/` (hidden `schema` prints it).

mod check;
mod explore;
mod impact;
mod merge;
mod record;
mod report;
mod schema;
mod select;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "racelens", version, about = "Concurrency regressions made visible while the change is being written")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Check(check::CheckArgs),
    Select(select::SelectArgs),
    Explore(explore::ExploreArgs),
    Replay(explore::ReplayArgs),
    Merge(merge::MergeArgs),
    Record(record::RecordArgs),
    Impact(impact::ImpactArgs),
    #[command(hide = true)]
    Schema(schema::SchemaArgs),
    /// Serve the Language Server Protocol on stdin/stdout (for VS Code, Neovim and other
    /// editors): live race warnings, field hovers and test lenses.
    Lsp,
}

/// How `check` and `explore` print their result. `--json` stays as the shorthand of
/// `--format json` that scripts already use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// for people
    Text,
    /// one JSON object (its fields: the command's `--json`)
    Json,
    /// one SARIF 2.1.0 log, for GitHub code scanning and IDEs
    Sarif,
}

impl Format {
    /// The format `--json` and `--format` ask for (clap rejects the two together).
    pub fn of(json: bool, format: Option<Format>) -> Format {
        match (json, format) {
            (true, _) => Format::Json,
            (false, f) => f.unwrap_or(Format::Text),
        }
    }
}

/// A `--json` report on stdout, pretty-printed, with the keys of every object sorted: the
/// order these reports had when they were built as `serde_json::Value`s (whose maps sort),
/// kept so that their output stays byte for byte the same. (`select` prints its fields in
/// declaration order, as it always did.)
pub(crate) fn print_json(report: &impl serde::Serialize) {
    let value = serde_json::to_value(report).expect("reports serialize");
    println!("{}", serde_json::to_string_pretty(&value).expect("JSON values serialize"));
}

/// Reports printed into a closed pipe (`racelens check | head`) end quietly, as other
/// command-line tools do, instead of panicking on the failed write.
fn die_quietly_on_closed_pipes() {
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// One malloc arena for every thread (glibc keeps one per thread by default): a cold run
/// parses every file of the project on rayon's threads, and the memory their parsers freed
/// stayed in their arenas beside the facts that are kept. On groovy (475k lines) a cold
/// `select` peaked at 318 MB with the default, 285 MB with one arena (server/docs/evaluation.md, "At scale").
fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a malloc tunable, set before any thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

fn main() -> ExitCode {
    one_malloc_arena();
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Lsp) {
        die_quietly_on_closed_pipes();
    }
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Select(args) => select::run(args),
        Command::Explore(args) => explore::run_explore(args),
        Command::Replay(args) => explore::run_replay(args),
        Command::Merge(args) => merge::run(args),
        Command::Record(args) => record::run(args),
        Command::Impact(args) => impact::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Lsp => return ExitCode::from(racelens_lsp::run_stdio() as u8),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("racelens: error: {e}");
            ExitCode::from(2)
        }
    }
}
