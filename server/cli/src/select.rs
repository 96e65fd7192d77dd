//! `racelens select`: which tests can reveal what the working-tree change broke, best
//! first (SimRT's selection and ranking, from the coverage history `racelens record` and
//! `racelens explore` keep, and from static reachability for what it does not cover).

use std::process::ExitCode;

use clap::Args;
use racelens_analysis::cancel::Cancel;
use racelens_analysis::host::Host;
use racelens_analysis::impact::{Impact, Options};
use racelens_analysis::rank::{self, Selection};
use racelens_explore::history;

use crate::check::{print_notes, ProjectArgs};

const HOW: &str = "\
Selection (SimRT, Yu et al., ICSE 2014, Figure 4):
  A test is selected when it can run both ends of an impacted shared-variable pair (see
  `racelens check --help`) in different threads.
  - Evidence `coverage`: the test's record in the coverage history (`racelens record`, or
    the first schedule of `racelens explore`) shows one thread executing one end and another
    thread the other. A read or write end counts when a thread accessed that field on the
    end's line; a lock, wait or notify end, when a thread ran its line. When no thread ran
    the end's line (new or changed code, or a branch the recorded schedule did not take),
    the threads that ran its method stand for it. A record made on the base revision serves
    the change (SimRT section 3.3): recorded lines move through the diff (lines inserted or
    deleted above them shift them).
  - Evidence `static` (static reachability), for a test without a record: the test starts
    threads, and the project methods its call graph reaches hold the methods of both ends.
    The call graph cannot tell which thread runs which end, so a test may be selected whose
    threads never run the two ends at once.
  A record does not speak for a file that is new or renamed since it was made, that changed
  too much to map (more than half of the base file's code lines changed), or whose recorded
  contents are neither the base's nor the working tree's (stale): pairs with an end there
  are decided statically, and the test's reason says so.
  A warning of the change in a method no impacted pair has an end in (a check-then-act on a
  collection a call returned: no field to pair) is a target too: a test that starts threads
  and reaches that method is selected (static reach decides, with or without a record).
  Tests: JUnit 3, 4 and 5 test methods, and `static main` methods that start threads.

Undecided state:
  Changed code may touch state whose sharing the analysis cannot decide: a field of a class
  no object of which is seen reaching another thread, a collection a call returned. When a
  test that starts threads runs it, the output says so (`… is not known to be shared:
  reached only through …`), the test's reason says so, and with nothing selected the summary
  says there is no evidence either way rather than that the change needs no test. So it does
  when the change has a warning in the method of such state and no test that starts threads
  runs it (`… and no test that starts threads runs `IntRange.hashCode` (3 tests run it in one
  thread …)`): a test would have to be written.

Ranking (SimRT section 3.6):
  Selected tests first, by additional coverage: the test that covers the most impacted pairs
  no test ranked before it covers, then again. When every pair is covered and the remaining
  selected tests add none, coverage is reset and they are ranked the same way (each may reach
  the pair's memory with other values). Ties go to the test that reaches fewer methods, then
  to the name: the order is the same on every run. Then the unselected tests: those that
  start threads and touch impacted shared variables or undecided state (most first), those
  that start threads and touch other shared variables, then the single-threaded ones the same
  way (a single-threaded test cannot reveal a race), then the rest by name.

Output: one line per test, with its evidence when a record was used, then a summary of
what the selection rests on (`coverage of 3 tests recorded at abc1234, static for 1`).

Exit status: 0 when the analysis ran (tests selected or not), 2 on a usage or setup error.";

/// List the tests that can reveal what the working-tree change broke, best first: those
/// whose threads run both ends of an impacted shared-variable pair (from the coverage
/// history `racelens record` keeps, else from static reachability).
#[derive(Args)]
#[command(after_long_help = HOW)]
pub struct SelectArgs {
    #[command(flatten)]
    project: ProjectArgs,
    /// Print one JSON object (`tests` best first, each with its `evidence`: `coverage` or
    /// `static`; `selected`, `total`, `evidence`: what the selection rests on) instead of text.
    /// Its schema: server/cli/schemas/select.schema.json.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SelectArgs) -> Result<ExitCode, String> {
    let mut host = args.project.open()?;
    let (_, selection) = analyze_and_select(&mut host);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&selection).expect("the selection serializes"));
    } else {
        print!("{}", rank::text(&selection));
        print_notes(&host);
    }
    Ok(ExitCode::SUCCESS)
}

/// The working-tree change's impact, and every test ranked for it, from the coverage
/// history where it serves (`explore --affected` explores the selected ones in this order).
pub fn analyze_and_select(host: &mut Host) -> (Impact, Selection) {
    let impact = host.analyze(&Options::new());
    let history = history::load(&history::path(host.root()));
    let selection =
        rank::select_for(host, &impact, &history, &Cancel::never()).expect("no edit cancels Cancel::never()");
    (impact, selection)
}
