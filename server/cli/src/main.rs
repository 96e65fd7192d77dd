//! `racelens`: the command line. `check` reports the concurrency consequences of the
//! working-tree change; `select` ranks the tests that can reveal them; `lsp` serves
//! editors; `explore` and `replay` run schedules; `record` runs tests once to keep the
//! coverage history `select` selects from.

mod check;
mod explore;
mod record;
mod report;
mod select;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    Record(record::RecordArgs),
    /// Serve the Language Server Protocol on stdin/stdout (for VS Code, Neovim and other
    /// editors): live race warnings, field hovers and test lenses.
    Lsp,
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Lsp) {
        die_quietly_on_closed_pipes();
    }
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Select(args) => select::run(args),
        Command::Explore(args) => explore::run_explore(args),
        Command::Replay(args) => explore::run_replay(args),
        Command::Record(args) => record::run(args),
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
