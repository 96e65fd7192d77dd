//! `racelens select`: which tests can reveal what the working-tree change broke, best
//! first (SimRT's selection and ranking, from static reachability).

use std::process::ExitCode;

use clap::Args;
use racelens_analysis::host::Host;
use racelens_analysis::impact::{Impact, Options};
use racelens_analysis::rank::{self, RankedTest, Selection};

use crate::check::{print_notes, ProjectArgs};

const HOW: &str = "\
Selection (SimRT, Yu et al., ICSE 2014, Figure 4):
  A test is selected when it can run both ends of an impacted shared-variable pair (see
  `racelens check --help`) in different threads. Without a coverage history, racelens uses
  static reachability: the test starts threads, and the project methods its call graph
  reaches hold the methods of both ends. The call graph cannot tell which thread runs which
  end, so a test may be selected whose threads never run the two ends at once.
  Tests: JUnit 3, 4 and 5 test methods, and `static main` methods that start threads.

Ranking (SimRT section 3.6):
  Selected tests first, by additional coverage: the test that covers the most impacted pairs
  no test ranked before it covers, then again. When every pair is covered and the remaining
  selected tests add none, coverage is reset and they are ranked the same way (each may reach
  the pair's memory with other values). Ties go to the test that reaches fewer methods, then
  to the name: the order is the same on every run. Then the unselected tests: those that
  touch impacted shared variables (most first), then those that touch other shared variables
  (most first), then the rest by name.

Not yet: coverage history (what each test executed, in which threads); every test's evidence
is `static`.

Exit status: 0 when the analysis ran (tests selected or not), 2 on a usage or setup error.";

/// What every selection rests on today.
pub const EVIDENCE: &str = "static reachability; no coverage history";

/// List the tests that can reveal what the working-tree change broke, best first: those
/// that reach both ends of an impacted shared-variable pair and start threads.
#[derive(Args)]
#[command(after_long_help = HOW)]
pub struct SelectArgs {
    #[command(flatten)]
    project: ProjectArgs,
    /// Print one JSON object (`tests` best first, `selected`, `total`) instead of text. Its
    /// schema: server/cli/schemas/select.schema.json.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SelectArgs) -> Result<ExitCode, String> {
    let mut host = args.project.open()?;
    let (_, selection) = analyze_and_select(&mut host);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&selection).expect("the selection serializes"));
    } else {
        print!("{}", text(&selection));
        print_notes(&host);
    }
    Ok(ExitCode::SUCCESS)
}

/// The working-tree change's impact, and every test ranked for it (`explore --affected`
/// explores the selected ones in this order).
pub fn analyze_and_select(host: &mut Host) -> (Impact, Selection) {
    let impact = host.analyze(&Options::new());
    let sharing = host.sharing();
    let selection = rank::select(host.index(), &sharing, &impact);
    (impact, selection)
}

/// One line per test, best first, then a summary.
fn text(selection: &Selection) -> String {
    let mut out = String::new();
    for t in &selection.tests {
        out += &match t.selected {
            true => format!("#{} selected {} — covers {} ({}); {}\n", t.rank, t.test, count(t.pairs.len(), "impacted pair"), first_pairs(t), t.placed),
            false => format!("#{} {} — {}\n", t.rank, t.test, t.reason),
        };
    }
    out += &format!(
        "racelens: {} of {} selected for this change ({EVIDENCE})\n",
        selection.selected,
        count(selection.total, "test")
    );
    out
}

/// The first two pairs, and how many more.
fn first_pairs(t: &RankedTest) -> String {
    let mut shown = t.pairs.iter().take(2).cloned().collect::<Vec<_>>().join(", ");
    if t.pairs.len() > 2 {
        shown += &format!(", and {} more", t.pairs.len() - 2);
    }
    shown
}

pub fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
