//! `racelens explore --affected --format sarif`: the run's `properties` (the `--json`
//! summary with what each test covered) and its log. One test's results and what it covered
//! are the exploration front door's (`racelens_explore::exploration::sarif`).

use racelens_analysis::host::Host;
use racelens_analysis::sarif::{self, Finding, Log, Run};
use racelens_explore::exploration::sarif::Covered;
use serde::Serialize;

/// `explore --affected --format sarif`: the run's `properties`, the `--json` summary with
/// each test's [`Covered`] (or why it could not run).
#[derive(Serialize)]
pub(super) struct Affected {
    pub selected: usize,
    pub budget: u64,
    pub schedules: u64,
    pub failed: usize,
    pub tests: Vec<AffectedTest>,
}

#[derive(Serialize)]
pub(super) struct AffectedTest {
    pub test: String,
    pub rank: usize,
    pub pairs: Vec<String>,
    pub exploration: Option<Covered>,
    pub error: Option<String>,
}

/// `explore --affected --format sarif`: one run, the results of every test explored.
pub(super) fn affected(host: &Host, results: Vec<Finding>, exit_status: u8, properties: Affected) -> Log<Affected> {
    let run = Run::new(host.root(), &sarif::explore_rules(), results);
    Log::of(run.invocation(exit_status, sarif::notes(host)).properties(properties))
}
