//! The JSON reports of explorations, typed: what `racelens explore --json` (one test, or
//! `--affected` with `--shard`), `racelens merge --json`, `racelens replay --json` and
//! `racelens record --json` and `racelens impact --json` print,
//! and the results the language server keeps in its project cache (`explorations.json`).
//!
//! One definition per report, shared by the CLI (which fills and prints them, and parses
//! shard files back in `merge`) and the language server (which stores and reads its
//! results); the schemas published under `server/cli/schemas/` are derived from these
//! types. The field names, their order and the shapes are a contract with scripts and CI:
//! change them only together with the schema (`cli/tests/schemas.rs` fails until the
//! committed schemas are regenerated).
//!
//! Places are project files with 1-based lines, or null when a position is outside the
//! project (JDK code) or unknown. What a result may claim is [`Coverage`], worded in one
//! place (`results/coverage.rs`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::impact::compare::Reason;
use crate::jvm::protocol::ThreadId;
use crate::results::coverage::Coverage;
use crate::results::swimlane::Lanes;
pub use crate::results::Place;

/// `racelens explore --test T --json`: one test's exploration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExploreReport {
    /// `pkg.PoolTest#borrow`, or `pkg.Main` for a main program.
    pub test: String,
    pub search: Search,
    /// The prioritization (`--heuristic`), as given.
    pub heuristic: String,
    /// Impacted code points the prioritization knew (0 for a change-unaware one).
    pub icps: usize,
    /// Where the impacted code points came from (`--icps`); null for a change-unaware
    /// prioritization.
    pub impact: Option<ImpactSources>,
    /// Decision points at which a thread stood at an impacted point.
    pub matched_decision_points: u64,
    /// The largest preemption bound (`--bound`).
    pub bound: u32,
    pub outcome: ExploreOutcome,
    /// Schedules run: up to and including the first failing one, unless `--all` went on.
    pub schedules: u64,
    /// What the exploration may claim.
    pub coverage: Coverage,
    /// Places where a parallel stream ran sequentially: its own interleavings were not
    /// explored.
    pub sequential_streams: Vec<StreamPlace>,
    /// The failing schedule, when `outcome` is `fail` (or `unconfirmed`, `limitation`: the
    /// schedule that was checked).
    pub failure: Option<FailureReport>,
    /// How a failing schedule was checked before it was reported; null without one.
    pub checks: Option<ChecksReport>,
    /// What the test ran against, and what preparing it took.
    pub setup: SetupReport,
    /// Why the exploration stopped, or why the test was not controlled (`error`,
    /// `uncontrolled`).
    pub error: Option<String>,
    pub stats: StatsReport,
}

/// The search (`--search`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Search {
    /// Iterative context bounding: 0 preemptions, then 1, ...
    Icb,
    /// Plain depth-first search.
    Dfs,
}

/// How an exploration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExploreOutcome {
    /// A failing schedule was found (`failure`).
    Fail,
    /// The search ended without a failure (`coverage` says what it covered).
    Pass,
    /// The budget of schedules ran out first (or the exploration was cancelled).
    Limit,
    /// A thread racelens does not control ran project code: nothing was checked.
    Uncontrolled,
    /// The exploration stopped on an error (a divergence, a JVM that died).
    Error,
    /// A failing schedule was found (`failure`) that does not fail the same way when it runs
    /// again in a fresh JVM (`error` says how it ended there): state leaking between
    /// executions, or nondeterminism racelens does not control. Not a failure.
    Unconfirmed,
    /// A failure was raised inside racelens's model of the JDK (`failure`, `checks.model`)
    /// while the test passes plainly (`checks.plain_runs`): a limitation of racelens (`error`).
    Limitation,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StreamPlace {
    /// The project file of the call; null outside the project.
    pub file: Option<String>,
    pub line: u32,
    /// The stream operation called.
    pub call: String,
}

/// What a test ran against: the build's classpath, and what preparing it took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SetupReport {
    /// `classpath: maven 3.8.7, module inventory (+ ids as sources), 4 jars, cached`, or
    /// where the classpath came from otherwise (`racelens.toml`, a command, Debian's JUnit).
    pub classpath: String,
    /// What reading the build noted (a JVM option dropped, ...).
    pub notes: Vec<String>,
    /// Reading the build's classpath and compiling, in milliseconds (0 when up to date).
    pub compile_ms: u64,
    /// The test's dynamic impact (the base revision compiled, the test run on both
    /// versions), in milliseconds; null when it was not computed.
    pub impact_ms: Option<u64>,
}

/// How a failing schedule was checked: run again in a fresh JVM, and, when it has no
/// preemption or was raised inside racelens's models, run plainly without the agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChecksReport {
    /// `same failure`, or how the schedule ended in a fresh JVM (`passes`, `fails
    /// differently (...)`, `does not replay (...)`).
    pub fresh_jvm: String,
    /// Each plain run's end (`passed`, `failed with ...`, `exited with status 3`, ...), in
    /// order; empty when none was made.
    pub plain_runs: Vec<String>,
    /// The frame of racelens's runtime or models the exception was raised in
    /// (`racelens.rt.model.ModelReentrantLock.unlock:80`); null when it was not.
    pub model: Option<String>,
}

/// A failing schedule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FailureReport {
    /// `fail` (an exception), `deadlock`, `livelock`, `exit`, `timeout`, ...
    pub kind: String,
    /// `java.lang.AssertionError: expected 2` for an exception, else the headline.
    pub message: String,
    /// The thread that threw (for an exception).
    pub thread: Option<ThreadId>,
    /// The failure's first frame in the project.
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The schedule as a string that `racelens replay --schedule` takes.
    pub schedule: String,
    /// The preemptions of the schedule, in order.
    pub preemptions: Vec<PreemptionReport>,
    /// Every scheduling point of the failing run.
    pub trace: Vec<TraceStep>,
    /// For a test JUnit runs more than once (a parameterized or repeated test): the
    /// invocation that failed; absent for a test JUnit runs once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<InvocationReport>,
}

/// One invocation of a parameterized or repeated test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InvocationReport {
    /// As JUnit numbers them: from 1 for JUnit 5, from 0 for JUnit 4's `Parameterized`;
    /// `racelens explore --test CLASS#METHOD[index]` explores it alone.
    pub index: u32,
    /// Its arguments as JUnit shows them (`5, "x"`), or `repetition 2 of 3`.
    pub display: String,
}

impl InvocationReport {
    pub fn of(invocation: &crate::jvm::protocol::Invocation) -> InvocationReport {
        InvocationReport { index: invocation.index, display: invocation.display.clone() }
    }
}

/// A preemption: `from` stopped at `file:line`, `to` ran instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PreemptionReport {
    pub step: u32,
    pub from: ThreadId,
    pub to: ThreadId,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// One scheduling point of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceStep {
    pub step: u32,
    pub thread: ThreadId,
    /// `READ`, `WRITE`, `LOCK`, `UNLOCK`, `WAIT`, `NOTIFY`, `START`, `JOIN`, `CALL`, ...
    pub op: Option<String>,
    /// The field (`Pool.count`), the callee, or `-`.
    pub target: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The object operated on, named by birth (`Pool@1`).
    pub object: Option<String>,
    /// The value read or written.
    pub value: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StatsReport {
    pub elapsed_ms: u64,
    /// One decimal.
    pub schedules_per_sec: f64,
    pub decision_points: u64,
    /// Runs that reached the step bound.
    pub livelocks: u64,
    /// Schedules beyond the largest bound, not run.
    pub pruned: u64,
    /// Failing schedules (more than one only with `--all`).
    pub failing_schedules: u64,
    /// `--select`: schedules left out because their preemptions touch no impacted code.
    pub skipped: u64,
    /// Runs whose tail repeated schedules covered elsewhere.
    pub redundant: u64,
}

/// `racelens explore --affected --json` (with `--shard I/N`, one shard's part) and
/// `racelens merge --json` (the whole run, without `shard`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AffectedReport {
    /// The tests explored, in rank order (with `--shard`, this shard's).
    pub tests: Vec<AffectedTest>,
    /// How many tests the change selects.
    pub selected: usize,
    /// The budget of schedules of all the selected tests together.
    pub budget: u64,
    /// Schedules run, in all.
    pub schedules: u64,
    /// Tests that failed.
    pub failed: usize,
    /// With `--shard`: what `racelens merge` needs. (Absent otherwise, never null.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ShardData")]
    pub shard: Option<ShardData>,
}

/// One selected test and how its exploration went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AffectedTest {
    pub test: String,
    /// 1-based, as `racelens select` ranks it.
    pub rank: usize,
    /// The impacted pairs it covers (`RW Pool.count`).
    pub pairs: Vec<String>,
    /// Its share of the budget, fixed up front.
    pub budget: u64,
    /// The exploration, as `explore --test --json` prints it; null when the test could not
    /// be run (`error`). With `--shard` and fewer tests than shards, a shard's entry is one
    /// part of the test's schedules (`coverage.part`), and `merge` joins the parts here.
    pub result: Option<ExploreReport>,
    pub error: Option<String>,
    /// `merge` of a test whose schedules were split over shards: each part's entry, in
    /// order; `result` joins them. (Absent otherwise, never empty.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<AffectedTest>,
}

/// What a shard's JSON carries for `racelens merge`, beside its tests' results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShardData {
    /// 1-based: shard `index` of `count`.
    pub index: usize,
    pub count: usize,
    /// The whole selection in rank order, each test with its budget: which tests each
    /// shard owes, and whether all are there.
    pub selection: Vec<SelectedTest>,
    /// What the selection rests on (`select`'s summary of its evidence: coverage, static).
    pub evidence: String,
    /// The base commit (hex); every shard must have analysed the same change.
    pub base: Option<String>,
    /// The options of `explore`, the same on every shard.
    pub options: ShardOptions,
    /// Per test explored here, the lines the unsharded run prints for it.
    pub texts: BTreeMap<String, String>,
    /// The notes the unsharded run prints (`racelens: note: ...`).
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SelectedTest {
    pub test: String,
    pub rank: usize,
    pub pairs: Vec<String>,
    pub budget: u64,
}

/// The options of `explore --affected` that decide what each test's exploration runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShardOptions {
    pub path: String,
    pub search: Search,
    pub heuristic: String,
    pub bound: u32,
    pub max_schedules: u64,
    pub pct_depth: u32,
    pub select: bool,
    pub seed: Option<u64>,
    pub max_steps: u32,
    pub all: bool,
    pub fail_fast: bool,
}

/// `racelens replay --json`: one schedule run again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReplayReport {
    pub test: String,
    /// `divergence` when the run left the schedule, else the run's outcome: `pass`,
    /// `fail`, `deadlock`, `livelock`, `exit`, `timeout`, `uncontrolled`, `error`.
    pub outcome: String,
    /// The run's headline.
    pub message: String,
    /// Where a failure was raised: its first frame in the project.
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Where the run left the schedule (the code changed there).
    pub divergence: Option<Divergence>,
    pub trace: Vec<TraceStep>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Divergence {
    /// The decision (0-based) where the run left the schedule.
    pub decision: usize,
    /// What the schedule switches at there, and what the run reached instead.
    pub expected: String,
    pub found: String,
}

// ----- the language server's results ---------------------------------------------------------
//
// What `racelens lsp` keeps per test in the project cache (`explorations.json`, a map from
// test name to [`TestResult`]) and reads back after a restart: the lenses, the RL200
// diagnostics and the schedule documents are drawn from it. Shorter than the CLI's report
// (no trace: the table is kept as text); its own format, not a published contract.

/// A preemption of the failing schedule, where it happened in the code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreemptionPlace {
    pub place: Option<Place>,
    /// `T2 preempted here before T1 writes count`
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResultKind {
    Failed {
        /// `NullPointerException`, `deadlock`, `System.exit(3)`.
        title: String,
        headline: String,
        schedules: u64,
        preemptions: Vec<PreemptionPlace>,
        schedule: String,
        /// Where the failure was raised.
        place: Option<Place>,
        /// The interleaving, one column per thread.
        table: String,
        /// The same rows for the swimlane picture (absent in results kept by an earlier
        /// racelens: those show the table only).
        #[serde(default)]
        lanes: Option<Lanes>,
    },
    /// No failure, and the search ended: `coverage` says what it covered.
    Passed {
        coverage: Coverage,
        /// Impacted lines at which the exploration had a choice of thread.
        covered: usize,
    },
    /// The budget ran out first.
    Limit {
        coverage: Coverage,
    },
    /// A thread racelens does not control ran project code: nothing was checked.
    Uncontrolled {
        message: String,
    },
    Stopped {
        message: String,
    },
    /// A failing schedule that did not survive its checks (a fresh JVM's replay, plain runs):
    /// `message` says what it is instead (`not confirmed: ...`, `racelens limitation: ...`).
    Unconfirmed {
        message: String,
    },
}

/// What an exploration of a test found, for the code it reached then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResult {
    pub test: String,
    pub fingerprint: u64,
    pub kind: ResultKind,
    pub heuristic: String,
    /// The seed the search ran with, when the user gave one (absent in results kept by an
    /// earlier racelens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The test's dynamic impact the exploration prioritized by (absent when it was not
    /// computed): the editor shows its accesses as hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact: Option<ImpactReport>,
}

impl TestResult {
    /// What produced the result: `pct+LA`, or `basic, seed 7`.
    pub fn produced_by(&self) -> String {
        produced_by(&self.heuristic, self.seed)
    }
}

/// An exploration's heuristic and seed in a few words: `pct+LA`, or `basic, seed 7`.
pub fn produced_by(heuristic: &str, seed: Option<u64>) -> String {
    match seed {
        Some(seed) => format!("{heuristic}, seed {seed}"),
        None => heuristic.to_string(),
    }
}

/// `racelens record --json`: the tests run once to record their coverage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecordReport {
    /// The history file the records went to (in the cache, outside the work tree).
    pub history: String,
    /// The commit HEAD was at (full id); null outside git or before the first commit.
    pub revision: Option<String>,
    pub tests: Vec<RecordedTest>,
}

/// One test's record, or why it could not run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RecordedTest {
    Recorded {
        test: String,
        /// How the recorded run ended (`pass`, `fail`, ...).
        outcome: String,
        /// Threads that ran, the test's own included.
        threads: usize,
        /// Distinct scheduling points run, and the files they are in.
        accesses: usize,
        files: usize,
    },
    NotRecorded {
        test: String,
        error: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_kept_before_the_picture_still_loads_without_it() {
        // `explorations.json` as a racelens without the swimlane page wrote it.
        let kept = r#"{"Failed": {"title": "AssertionError", "headline": "h", "schedules": 2, "preemptions": [], "schedule": "v1_0_", "place": null, "table": "| T0 (main) |\n"}}"#;
        let ResultKind::Failed { lanes, table, .. } = serde_json::from_str::<ResultKind>(kept).unwrap() else {
            panic!("not a failure")
        };
        assert_eq!((lanes, table.as_str()), (None, "| T0 (main) |\n"));
    }
}

/// `racelens impact --test T --json`: the accesses of one run of the test on the working
/// tree that the change impacts (ReConTest phase I), each with why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImpactReport {
    pub test: String,
    /// The base revision's commit the test also ran on; null outside git.
    pub base: Option<String>,
    /// The run on the base revision; null when there is none (`base_unavailable`).
    pub base_run: Option<ImpactRun>,
    /// Why the test could not be recorded on the base revision (it does not compile there,
    /// the test does not exist there, ...): every access then counts as new.
    pub base_unavailable: Option<String>,
    pub working_tree_run: ImpactRun,
    pub counts: ImpactCounts,
    /// One entry per statement, kind of access and target, in file and line order.
    pub impacted: Vec<ImpactedAccess>,
}

/// One recorded run (the default schedule, every access recorded).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImpactRun {
    /// `pass`, `fail`, `deadlock`, `livelock`, `exit`: how the run ended.
    pub outcome: String,
    pub steps: u32,
    pub threads: usize,
    /// Shared-memory accesses recorded.
    pub accesses: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImpactCounts {
    /// Impacted accesses of the working tree's run (each dynamic occurrence).
    pub impacted_accesses: usize,
    /// Distinct statements (file and line) among them.
    pub statements: usize,
}

/// Impacted accesses of one statement to one target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImpactedAccess {
    /// The project file; null when the class's file is unknown.
    pub file: Option<String>,
    pub line: u32,
    /// Binary name of the class whose code it is.
    pub class: String,
    pub method: String,
    /// `read` or `write`; or a lock or monitor operation: `lock`, `wait`, `notify`,
    /// `notifyAll`.
    pub access: String,
    /// `pkg.Shop.count` (a field), `[]` (an array element), or the JDK method called on a
    /// shared object (`java.util.Map.put`); for a lock or monitor operation `this` or
    /// `pkg.Shop.class` (a synchronized method) or `-` (a block).
    pub target: String,
    /// The threads that made them (names in this run).
    pub threads: Vec<String>,
    /// How many of the run's accesses are impacted here.
    pub occurrences: u32,
    /// Why, one per kind (the first access's detail).
    pub reasons: Vec<Reason>,
}

/// The impacted code points an exploration prioritized by.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ImpactSources {
    /// `static` (the analysis), `dynamic` (the test's runs on both versions, ReConTest), or
    /// `both` (their union).
    pub source: crate::impact::IcpSource,
    /// Impacted code points of the analysis in use (0 with `dynamic`).
    pub static_icps: usize,
    /// Statements of the dynamic impact in use; null when it was not used.
    pub dynamic_statements: Option<usize>,
    /// Why the dynamic impact was not used, or what it could not see.
    pub note: Option<String>,
}
