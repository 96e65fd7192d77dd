//! `racelens impact`: the dynamic change impact of one test (ReConTest phase I). The test
//! runs once on the base revision (compiled from the git objects into the cache) and once
//! on the working tree, every shared access recorded with its concurrency context; the
//! accesses that are new or whose context changed are printed with why.
//!
//! The impact is the exploration front door's (`exploration::dynamic_impact`), which
//! `explore --icps dynamic|both` prioritizes (or with `--select`, selects) schedules by.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use racelens_explore::exploration::{self, text, Places, Toolchain};
use racelens_explore::impact::HostVersions;
use racelens_explore::jvm::project::{self, Sources};

use crate::print_json;

/// Run a test once on the base revision and once on the working tree, and print the
/// shared-memory accesses the change impacts (ReConTest): accesses of new statements or new
/// paths, and unchanged accesses whose lockset, happens-before events (start, join, wait,
/// notify, hand-offs of java.util.concurrent) or lock releases since the thread's previous
/// access changed.
///
/// The base revision is compiled from the git objects into racelens's cache (once per base
/// commit), never into the work tree. Both runs follow the default schedule. Running the
/// test is this command's purpose: it runs project code.
///
/// Exit status: 0 the impact was computed (also when it is empty), 2 a usage or setup error,
/// or the test could not be recorded on the working tree.
#[derive(Args)]
pub struct ImpactArgs {
    /// A folder of the work tree.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// The test: `CLASS#METHOD`, or `CLASS` for its `static main` or only test method.
    #[arg(long, value_name = "CLASS#METHOD")]
    test: String,
    /// Scheduling points per run before it counts as a livelock.
    #[arg(long, default_value_t = 100_000)]
    max_steps: u32,
    /// Print one JSON object (`test`, `base`, `base_run`, `base_unavailable`,
    /// `working_tree_run`, `counts`, `impacted`: each with `file`, `line`, `class`, `method`,
    /// `access`, `target`, `threads`, `occurrences`, `reasons` with their `kind`). Its
    /// schema: server/cli/schemas/impact.schema.json.
    #[arg(long)]
    json: bool,
}

pub fn run(args: ImpactArgs) -> Result<ExitCode, String> {
    let mut host = crate::explore::open_host(&args.path)?;
    let spec = racelens_explore::jvm::tests::resolve(&host, &args.test)?;
    let toolchain = Toolchain::for_test(&Sources::of(&host), &Places::of(&host), &spec)?;
    let versions = HostVersions::new(&mut host);
    let base = project::base_sources(&host);
    let mut session = toolchain.session(spec);
    let report =
        exploration::dynamic_impact(&toolchain, &base, &versions, &Places::of(&host), &mut session, args.max_steps);
    session.close();
    let report = report?;
    if args.json {
        print_json(&report);
    } else {
        print!("{}", text::impact(&report));
    }
    Ok(ExitCode::SUCCESS)
}
