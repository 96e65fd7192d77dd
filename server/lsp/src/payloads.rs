//! The JSON the server sends that is not an LSP type: the arguments it puts on its lenses'
//! commands (which clients send back), the answers of its commands, and the payloads of
//! its `racelens/*` extensions, typed (editors/README.md documents them for clients).
//!
//! They stay in this crate, unlike the reports (`racelens_explore::reports`,
//! `racelens_analysis::report`): they are part of the editor protocol, which only this
//! layer speaks. Commands' arguments are read field by field in `core/explore.rs`, so that
//! a client that sends a wrong one is told which field is missing.

use racelens_explore::results::swimlane::Mark;
use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::{DiagnosticRelatedInformation, Location, Range};

/// `racelens.exploreTest`'s argument: the test, as its lens names it. (Fields in the order
/// the selection status has always sent them in.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestArgument {
    pub class: String,
    pub method: String,
    /// The test's file, as a `file:` URI (null when the file has no URI; the command then
    /// says it needs one).
    pub uri: Option<String>,
    /// What a client may add to explore differently from the settings (`racelens.explore.*`):
    /// the heuristic, the seed of the search's random choices, the budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heuristic: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default, rename = "maxSchedules", skip_serializing_if = "Option::is_none")]
    pub max_schedules: Option<u64>,
    /// Explore again: replaces the test's queued or running exploration (`↻ Explore again`)
    /// instead of leaving it be.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub again: bool,
}

impl TestArgument {
    /// The argument of the lens that runs the test (the settings' way to explore).
    pub fn new(uri: Option<String>, class: &str, method: &str) -> TestArgument {
        TestArgument { class: class.to_string(), method: method.to_string(), uri, heuristic: None, seed: None, max_schedules: None, again: false }
    }
}

/// The argument of `racelens.cancel` and `racelens.showSchedule` (a test's result or job),
/// and with `schedule`, of `racelens.replay`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultArgument {
    /// The workspace folder, as a path.
    pub root: String,
    pub test: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
}

/// `racelens.copySchedule`'s argument: the text the client copies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyArgument {
    pub text: String,
}

/// The answer of `racelens.exploreTest` (`test` set) and `racelens.replay`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Queued {
    /// False when the test was being explored already.
    pub queued: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
}

/// The answer of `racelens.cancel`: how many jobs were cancelled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cancelled {
    pub cancelled: usize,
}

/// A `racelens:` document: the params of the `racelens/showDocument` notification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentLink {
    pub uri: String,
}

/// The answer of `racelens.showSchedule`: the schedule's markdown document, and its
/// swimlane page when the result has one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleLinks {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
}

/// The result of the `racelens/document` request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentText {
    pub text: String,
    #[serde(rename = "languageId")]
    pub language_id: String,
}

impl DocumentText {
    pub fn markdown(text: String) -> DocumentText {
        DocumentText { text, language_id: "markdown".into() }
    }
}

/// The result of the `racelens/schedule` request (params: a [`ResultArgument`]): a failing
/// schedule's steps in order, for the editors' steppers and lists. The rows are the swimlane
/// page's (`racelens_explore::results::swimlane::Lanes`), with places as LSP locations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleSteps {
    pub test: String,
    /// `✗ java.lang.AssertionError: ... after 4 schedules (1 preemption)`.
    pub headline: String,
    /// The threads, named as the table's header names them (`T1 (Thread-0)`).
    pub threads: Vec<String>,
    pub steps: Vec<ScheduleStep>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleStep {
    /// `step`, `preemption` (the scheduler took the CPU from a thread that could go on),
    /// `switch` (a thread stopped on its own), `elided` (steps left out), `failure`.
    pub mark: Mark,
    /// The thread (an index into `threads`); absent for an elided stretch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<usize>,
    /// The step's words, with the value read or written: `write Stats.count := 2 (Stats.java:14)`.
    pub text: String,
    /// Where in the project; absent for code outside it and for switches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// The params of the `racelens/testStates` notification (server → client, for clients that
/// set `experimental.racelens.testStates`): every test of a workspace that starts threads,
/// as its lens names it, with the state of its exploration. Sent when the list or a state
/// changed (an analysis, a job queued, progressing, finished or cancelled), whole, so that a
/// client's test view (VS Code's Testing view) is a copy of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestStates {
    /// The workspace folder, as a path (the `root` of `racelens.cancel` and
    /// `racelens.showSchedule`).
    pub root: String,
    pub tests: Vec<TestEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestEntry {
    /// `pkg.PoolTest#borrow` (the class that runs it: a subclass for an inherited test).
    pub test: String,
    /// The argument of `racelens.exploreTest` for it.
    pub explore: TestArgument,
    /// Where its lens stands: the method's name, or the class's name for an inherited test.
    pub range: Range,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inherited: bool,
    pub state: TestStateKind,
    /// What the state says: the progress, the claim, the failure's headline, the reason.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Which result this is: results are numbered in the order this server got them, 0 for
    /// one kept from an earlier run (so that a client tells a new result from the one it
    /// had before it asked for an exploration that was then cancelled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<u64>,
    /// Where a failure was raised, and its preemptions (as the RL200 diagnostic has them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<DiagnosticRelatedInformation>,
    /// For a failure: the command line that replays its schedule (what `Copy` copies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

/// The state of a test's exploration, in the words a test view has for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestStateKind {
    /// Never explored (in this workspace's kept results).
    None,
    Queued,
    Running,
    /// `✓`: every schedule up to the stated bound ran under control, and none failed.
    Passed,
    Failed,
    /// No failure, and no claim either: the budget ran out, or the search makes none.
    Unproven,
    /// Not explored: an uncontrolled thread, a stop, an unconfirmed failure.
    Errored,
    /// The code the test reaches changed since its result.
    Stale,
}

/// A payload as the `Value` that tower-lsp-server's untyped requests and commands carry.
pub fn value(payload: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(payload).expect("payloads serialize")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn payloads_have_the_shapes_editors_readme_documents() {
        let test = TestArgument::new(Some("file:///w/T.java".into()), "p.T", "m");
        assert_eq!(value(&test), json!({"uri": "file:///w/T.java", "class": "p.T", "method": "m"}));
        assert_eq!(serde_json::from_value::<TestArgument>(value(&test)).unwrap(), test);
        let again = TestArgument { heuristic: Some("basic".into()), seed: Some(7), max_schedules: Some(50), again: true, ..test };
        assert_eq!(value(&again), json!({"uri": "file:///w/T.java", "class": "p.T", "method": "m", "heuristic": "basic", "seed": 7, "maxSchedules": 50, "again": true}));
        assert_eq!(serde_json::from_value::<TestArgument>(value(&again)).unwrap(), again);
        let result = ResultArgument { root: "/w".into(), test: "p.T#m".into(), schedule: None };
        assert_eq!(value(&result), json!({"root": "/w", "test": "p.T#m"}));
        let replay = ResultArgument { schedule: Some("v1_0".into()), ..result };
        assert_eq!(value(&replay), json!({"root": "/w", "test": "p.T#m", "schedule": "v1_0"}));
        assert_eq!(value(&CopyArgument { text: "racelens replay".into() }), json!({"text": "racelens replay"}));
        assert_eq!(value(&Queued { queued: false, test: Some("p.T#m".into()) }), json!({"queued": false, "test": "p.T#m"}));
        assert_eq!(value(&Queued { queued: true, test: None }), json!({"queued": true}));
        assert_eq!(value(&Cancelled { cancelled: 2 }), json!({"cancelled": 2}));
        assert_eq!(value(&DocumentLink { uri: "racelens:/schedule/1".into() }), json!({"uri": "racelens:/schedule/1"}));
        let links = ScheduleLinks { uri: "racelens:/schedule/1/T.m.md".into(), html: Some("racelens:/schedule/1/T.m.html".into()) };
        assert_eq!(value(&links), json!({"uri": "racelens:/schedule/1/T.m.md", "html": "racelens:/schedule/1/T.m.html"}));
        assert_eq!(value(&ScheduleLinks { html: None, ..links }), json!({"uri": "racelens:/schedule/1/T.m.md"}));
        assert_eq!(value(&DocumentText::markdown("# RL001".into())), json!({"text": "# RL001", "languageId": "markdown"}));
        let place = Location { uri: "file:///w/S.java".parse().unwrap(), range: Default::default() };
        let step = ScheduleStep { mark: Mark::Preemption, thread: Some(1), text: "⇄ preempted".into(), location: Some(place) };
        let elided = ScheduleStep { mark: Mark::Elided, thread: None, text: "… 3 steps not shown …".into(), location: None };
        let steps = ScheduleSteps { test: "p.T#m".into(), headline: "✗ AssertionError".into(), threads: vec!["T0 (main)".into(), "T1 (a)".into()], steps: vec![step, elided] };
        let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}});
        assert_eq!(
            value(&steps),
            json!({"test": "p.T#m", "headline": "✗ AssertionError", "threads": ["T0 (main)", "T1 (a)"], "steps": [
                {"mark": "preemption", "thread": 1, "text": "⇄ preempted", "location": {"uri": "file:///w/S.java", "range": range}},
                {"mark": "elided", "text": "… 3 steps not shown …"}]})
        );
    }
}
