//! `racelens record`: run tests once under the agent, without exploring, and keep what each
//! thread executed in the coverage history that `racelens select` selects from (SimRT
//! section 3.5: the "preliminary phase of testing" that collects coverage per thread).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use racelens_analysis::select;
use racelens_explore::affected::ended::count;
use racelens_explore::exploration::{self, Places};
use racelens_explore::history;
use racelens_explore::jvm::project::Sources;
use racelens_explore::reports::{RecordReport, RecordedTest};

use crate::explore::open_host;
use crate::print_json;

const HOW: &str = "\
Each test runs once, on one schedule: the agent's default one (the running thread keeps
running while it can; then the lowest-numbered thread), the schedule `racelens explore` runs
first. Every scheduling point a thread executes in the project's classes is recorded: file,
line, operation, field, method, and thread (0 the test's thread, then threads in start order).

The history lives in racelens's cache, outside the work tree
($XDG_CACHE_HOME/racelens/projects/<work tree>-<hash>/coverage.json), one record per test
(the latest replaces the earlier), with the commit HEAD was at and the git blob id of every
source as it ran. `racelens explore` (and an exploration started from the editor) adds the
record of the schedule it runs first, too.

`racelens select` uses a test's record when the files of the impacted pairs are as recorded,
or as in the base revision (lines are mapped through the diff); see `racelens select --help`.

Exit status: 0 when every test ran and was recorded (whatever its outcome), 2 when a test
could not run (the others are still recorded), or on a usage or setup error.";

/// Run tests once under the agent, without exploring, and record which shared accesses each
/// of their threads executed (the coverage history `racelens select` selects from).
#[derive(Args)]
#[command(after_long_help = HOW)]
pub struct RecordArgs {
    /// A folder of the work tree.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Every test that starts threads (the tests `racelens select` can select).
    #[arg(long, required_unless_present = "test", conflicts_with = "test")]
    all: bool,
    /// A test to record: `CLASS#METHOD`, or `CLASS` for its `static main` (repeatable).
    #[arg(long, value_name = "CLASS#METHOD")]
    test: Vec<String>,
    /// Scheduling points before the run counts as a livelock.
    #[arg(long, default_value_t = 100_000)]
    max_steps: u32,
    /// Print one JSON object: `history` (the file), `revision`, `tests` (each: `test`,
    /// `outcome`, `threads`, `accesses`, `files`, or `error` when it could not run). Its
    /// schema: server/cli/schemas/record.schema.json.
    #[arg(long)]
    json: bool,
}

pub fn run(args: RecordArgs) -> Result<ExitCode, String> {
    let host = open_host(&args.path)?;
    let names = match args.all {
        true => select::thread_test_names(host.index()),
        false => args.test.clone(),
    };
    if names.is_empty() {
        return Err(
            "the project has no test that starts threads (JUnit 3, 4 or 5 test methods, or `static main`)".into()
        );
    }
    let sources = Sources::of(&host);
    let snapshot = history::snapshot(&sources);
    let places = Places::of(&host);
    let (mut runs, mut rows, mut failed) = (Vec::new(), Vec::new(), false);
    for name in &names {
        match exploration::record_test(&host, (&sources, &places, &snapshot), name, args.max_steps) {
            Ok((test, run)) => {
                rows.push(RecordedTest::Recorded {
                    test: test.clone(),
                    outcome: run.outcome.clone(),
                    threads: run.threads.len(),
                    accesses: run.accesses.len(),
                    files: run
                        .accesses
                        .iter()
                        .map(|a| a.file.as_str())
                        .collect::<std::collections::BTreeSet<_>>()
                        .len(),
                });
                runs.push((test, run));
            }
            Err(e) => {
                failed = true;
                rows.push(RecordedTest::NotRecorded { test: name.clone(), error: e });
            }
        }
    }
    let file = history::path(host.root());
    history::save(&file, &snapshot, runs)?;
    let revision = history::revision(&host);
    if args.json {
        print_json(&RecordReport { history: file.display().to_string(), revision, tests: rows });
    } else {
        print!("{}", text(&rows));
        let at = revision.map_or_else(|| "no commit".to_string(), |r| r[..7.min(r.len())].to_string());
        let recorded = rows.iter().filter(|r| matches!(r, RecordedTest::Recorded { .. })).count();
        println!("racelens: recorded {} at {at} in {}", count(recorded, "test"), file.display());
    }
    Ok(if failed { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// One line per test.
fn text(rows: &[RecordedTest]) -> String {
    let mut out = String::new();
    for r in rows {
        out += &match r {
            RecordedTest::NotRecorded { test, error } => format!("! {test}: not recorded: {error}\n"),
            RecordedTest::Recorded { test, outcome, threads, accesses, files } => {
                format!(
                    "recorded {test}: {} ({outcome}), {} in {}\n",
                    count(*threads, "thread"),
                    count(*accesses, "access point"),
                    count(*files, "file")
                )
            }
        };
    }
    out
}
