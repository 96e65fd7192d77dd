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
        TestArgument {
            class: class.to_string(),
            method: method.to_string(),
            uri,
            heuristic: None,
            seed: None,
            max_schedules: None,
            again: false,
        }
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

/// The params of the `racelens/selectionStatus` notification (`status.rs` makes them): how
/// many tests the change selects in a workspace, the best of them first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectionStatus {
    /// The workspace folder, as a `file:` URI.
    pub root: String,
    /// Tests the change selects (SimRT Figure 4), and tests of the workspace.
    pub selected: usize,
    pub total: usize,
    /// How many of the change's shared-variable pairs are impacted.
    pub impacted_pairs: usize,
    /// The best selected tests, best first.
    pub tests: Vec<StatusTest>,
    /// The change's warnings in methods no impacted pair has an end in: tests that run
    /// them in threads are selected too.
    pub warned_methods: usize,
    /// Changed state tests starting threads run but the analysis could not call shared
    /// (`Selection::undecided`): with nothing selected the item says "no evidence".
    pub undecided: Vec<String>,
}

/// One selected test of a [`SelectionStatus`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatusTest {
    /// `pkg.PoolTest#borrow`, as `racelens.exploreTest` and `racelens explore --test` take it.
    pub test: String,
    pub rank: usize,
    /// The impacted pairs it covers.
    pub pairs: usize,
    /// The methods with a warning of the change (and no impacted pair) it runs in threads.
    pub warned: usize,
    /// What the selection rests on (`static`: the test's call graph).
    pub evidence: String,
    /// The `racelens.exploreTest` command's argument for it, as its lens has it.
    pub explore: TestArgument,
    /// The line (0-based) of the test method's name in `explore.uri`: where a list of the
    /// selected tests (Neovim's quickfix list) takes the user.
    pub line: u32,
}

/// A payload as the `Value` that tower-lsp-server's untyped requests and commands carry.
pub fn value(payload: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(payload).expect("payloads serialize")
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use serde_json::json;
    use tower_lsp_server::ls_types::{Position, Uri};

    use super::*;

    /// The interfaces of the VS Code client's `protocol.ts`: name → field names (a field is
    /// a line `name: type;` or `name?: type;` directly inside `export interface Name {`).
    fn typescript_interfaces(ts: &str) -> BTreeMap<String, BTreeSet<String>> {
        let mut out = BTreeMap::new();
        let mut current: Option<(String, BTreeSet<String>)> = None;
        for line in ts.lines() {
            if let Some(name) = line.strip_prefix("export interface ").and_then(|l| l.strip_suffix(" {")) {
                current = Some((name.to_string(), BTreeSet::new()));
            } else if line == "}" {
                if let Some((name, fields)) = current.take() {
                    out.insert(name, fields);
                }
            } else if let Some((_, fields)) = current.as_mut() {
                let field = line.trim_start().split([':', '?']).next().unwrap_or("");
                if line.starts_with("    ")
                    && !line.starts_with("     ")
                    && !field.is_empty()
                    && field.chars().all(|c| c.is_ascii_alphanumeric())
                {
                    fields.insert(field.to_string());
                }
            }
        }
        out
    }

    fn keys(v: &serde_json::Value) -> BTreeSet<String> {
        v.as_object().expect("a payload is an object").keys().cloned().collect()
    }

    /// One example of each payload with every optional field set, so that all its keys show.
    fn full_payloads() -> Vec<(&'static str, serde_json::Value)> {
        let uri: Uri = "file:///w/T.java".parse().unwrap();
        let at = Location {
            uri,
            range: Range { start: Position { line: 1, character: 2 }, end: Position { line: 1, character: 3 } },
        };
        let explore = TestArgument {
            heuristic: Some("basic".into()),
            seed: Some(7),
            max_schedules: Some(5),
            again: true,
            ..TestArgument::new(Some("file:///w/T.java".into()), "p.T", "m")
        };
        let step = ScheduleStep {
            mark: Mark::Step,
            thread: Some(0),
            text: "write S.n := 1".into(),
            location: Some(at.clone()),
        };
        let entry = TestEntry {
            test: "p.T#m".into(),
            explore: explore.clone(),
            range: at.range,
            inherited: true,
            state: TestStateKind::Failed,
            message: "m".into(),
            result: Some(1),
            location: Some(at.clone()),
            related: vec![DiagnosticRelatedInformation { location: at.clone(), message: "⇄".into() }],
            replay: Some("racelens replay".into()),
        };
        let status_test = StatusTest {
            test: "p.T#m".into(),
            rank: 1,
            pairs: 2,
            warned: 1,
            evidence: "static".into(),
            explore: explore.clone(),
            line: 3,
        };
        vec![
            ("TestArgument", value(&explore)),
            (
                "ResultArgument",
                value(&ResultArgument { root: "/w".into(), test: "p.T#m".into(), schedule: Some("v1".into()) }),
            ),
            ("CopyArgument", value(&CopyArgument { text: "t".into() })),
            ("Queued", value(&Queued { queued: true, test: Some("p.T#m".into()) })),
            ("Cancelled", value(&Cancelled { cancelled: 1 })),
            ("DocumentLink", value(&DocumentLink { uri: "racelens:/codes".into() })),
            ("ScheduleLinks", value(&ScheduleLinks { uri: "a".into(), html: Some("b".into()) })),
            ("DocumentText", value(&DocumentText::markdown("t".into()))),
            (
                "ScheduleSteps",
                value(&ScheduleSteps {
                    test: "p.T#m".into(),
                    headline: "h".into(),
                    threads: vec!["T0 (main)".into()],
                    steps: vec![step.clone()],
                }),
            ),
            ("ScheduleStep", value(&step)),
            ("TestStates", value(&TestStates { root: "/w".into(), tests: vec![entry.clone()] })),
            ("TestEntry", value(&entry)),
            (
                "SelectionStatus",
                value(&SelectionStatus {
                    root: "file:///w".into(),
                    selected: 1,
                    total: 2,
                    impacted_pairs: 3,
                    tests: vec![status_test.clone()],
                    warned_methods: 1,
                    undecided: vec!["x".into()],
                }),
            ),
            ("StatusTest", value(&status_test)),
        ]
    }

    #[test]
    fn the_typescript_protocol_mirrors_the_payloads() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../editors/vscode/src/protocol.ts");
        let ts = typescript_interfaces(&std::fs::read_to_string(path).expect("editors/vscode/src/protocol.ts"));
        let payloads = full_payloads();
        for (name, payload) in &payloads {
            let fields = ts.get(*name).unwrap_or_else(|| panic!("protocol.ts has no interface {name}"));
            assert_eq!(
                &keys(payload),
                fields,
                "{name}: the JSON the server sends (left) and protocol.ts's fields (right)"
            );
            // One casing: camelCase keys only.
            assert!(keys(payload).iter().all(|k| !k.contains('_')), "{name}: {payload}");
        }
        // Every interface of protocol.ts is a payload, or LSP's own position types.
        let mirrored: BTreeSet<&str> =
            payloads.iter().map(|(n, _)| *n).chain(["Position", "Range", "Location"]).collect();
        let extra: Vec<&String> = ts.keys().filter(|n| !mirrored.contains(n.as_str())).collect();
        assert!(extra.is_empty(), "protocol.ts has interfaces the server does not send: {extra:?}");
    }

    /// The classes of the Neovim client's `protocol.lua`: name → field names (a class is a
    /// line `---@class racelens.Name`, its fields the `---@field name …` lines after it).
    fn lua_classes(lua: &str) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut current: Option<String> = None;
        for line in lua.lines() {
            if let Some(name) = line.strip_prefix("---@class racelens.") {
                out.insert(name.trim().to_string(), BTreeSet::new());
                current = Some(name.trim().to_string());
            } else if let (Some(rest), Some(name)) = (line.strip_prefix("---@field "), current.as_ref()) {
                let field = rest.split([' ', '?']).next().unwrap_or("");
                out.get_mut(name).expect("the class was inserted").insert(field.to_string());
            } else {
                current = None;
            }
        }
        out
    }

    /// The quoted values of a Lua table `M.<name> = { key = 'value', ... }`.
    fn lua_table_values(lua: &str, name: &str) -> BTreeSet<String> {
        let start = lua.find(&format!("M.{name} = {{")).unwrap_or_else(|| panic!("protocol.lua has no M.{name}"));
        let body = &lua[start..start + lua[start..].find("\n}").expect("the table ends")];
        body.lines()
            .filter_map(|l| l.split_once('\'').map(|(_, v)| v.trim_end_matches(['\'', ',']).to_string()))
            .collect()
    }

    #[test]
    fn the_lua_protocol_mirrors_the_payloads() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../editors/nvim/lua/racelens");
        let lua =
            std::fs::read_to_string(format!("{dir}/protocol.lua")).expect("editors/nvim/lua/racelens/protocol.lua");
        let classes = lua_classes(&lua);
        let payloads = full_payloads();
        for (name, payload) in &payloads {
            let fields = classes.get(*name).unwrap_or_else(|| panic!("protocol.lua has no class racelens.{name}"));
            assert_eq!(
                &keys(payload),
                fields,
                "{name}: the JSON the server sends (left) and protocol.lua's fields (right)"
            );
        }
        let mirrored: BTreeSet<&str> =
            payloads.iter().map(|(n, _)| *n).chain(["Position", "Range", "Location"]).collect();
        let extra: Vec<&String> = classes.keys().filter(|n| !mirrored.contains(n.as_str())).collect();
        assert!(extra.is_empty(), "protocol.lua has classes the server does not send: {extra:?}");
        // The methods: every `racelens/<name>` the server sends or answers, and no other
        // (the index's progress token and the malformed-message marker are none).
        let mut server_methods = BTreeSet::new();
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        for file in walk_rust(std::path::Path::new(src)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (i, _) in text.match_indices("\"racelens/") {
                let name: String = text[i + 1..].chars().take_while(|c| *c != '"').collect();
                if name[9..].chars().all(|c| c.is_ascii_alphabetic())
                    && !["racelens/index", "racelens/malformed"].contains(&name.as_str())
                {
                    server_methods.insert(name);
                }
            }
        }
        assert_eq!(
            lua_table_values(&lua, "methods"),
            server_methods,
            "protocol.lua's methods (left) and the server's (right)"
        );
        let commands: BTreeSet<String> = lua_table_values(&lua, "server_commands")
            .into_iter()
            .chain(lua_table_values(&lua, "client_commands"))
            .collect();
        let server_commands: BTreeSet<String> = [
            crate::lenses::EXPLORE_COMMAND,
            crate::lenses::CANCEL_COMMAND,
            crate::lenses::SHOW_COMMAND,
            crate::lenses::REPLAY_COMMAND,
            crate::lenses::COPY_COMMAND,
            crate::lenses::STEP_COMMAND,
        ]
        .iter()
        .map(|c| c.to_string())
        .collect();
        assert_eq!(commands, server_commands, "protocol.lua's commands (left) and the lenses' (right)");
    }

    fn walk_rust(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk_rust(&path));
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("payloads.rs") {
                out.push(path);
            }
        }
        out
    }

    #[test]
    fn payloads_have_the_shapes_editors_readme_documents() {
        let test = TestArgument::new(Some("file:///w/T.java".into()), "p.T", "m");
        assert_eq!(value(&test), json!({"uri": "file:///w/T.java", "class": "p.T", "method": "m"}));
        assert_eq!(serde_json::from_value::<TestArgument>(value(&test)).unwrap(), test);
        let again = TestArgument {
            heuristic: Some("basic".into()),
            seed: Some(7),
            max_schedules: Some(50),
            again: true,
            ..test
        };
        assert_eq!(
            value(&again),
            json!({"uri": "file:///w/T.java", "class": "p.T", "method": "m", "heuristic": "basic", "seed": 7, "maxSchedules": 50, "again": true})
        );
        assert_eq!(serde_json::from_value::<TestArgument>(value(&again)).unwrap(), again);
        let result = ResultArgument { root: "/w".into(), test: "p.T#m".into(), schedule: None };
        assert_eq!(value(&result), json!({"root": "/w", "test": "p.T#m"}));
        let replay = ResultArgument { schedule: Some("v1_0".into()), ..result };
        assert_eq!(value(&replay), json!({"root": "/w", "test": "p.T#m", "schedule": "v1_0"}));
        assert_eq!(value(&CopyArgument { text: "racelens replay".into() }), json!({"text": "racelens replay"}));
        assert_eq!(
            value(&Queued { queued: false, test: Some("p.T#m".into()) }),
            json!({"queued": false, "test": "p.T#m"})
        );
        assert_eq!(value(&Queued { queued: true, test: None }), json!({"queued": true}));
        assert_eq!(value(&Cancelled { cancelled: 2 }), json!({"cancelled": 2}));
        assert_eq!(value(&DocumentLink { uri: "racelens:/schedule/1".into() }), json!({"uri": "racelens:/schedule/1"}));
        let links = ScheduleLinks {
            uri: "racelens:/schedule/1/T.m.md".into(),
            html: Some("racelens:/schedule/1/T.m.html".into()),
        };
        assert_eq!(
            value(&links),
            json!({"uri": "racelens:/schedule/1/T.m.md", "html": "racelens:/schedule/1/T.m.html"})
        );
        assert_eq!(value(&ScheduleLinks { html: None, ..links }), json!({"uri": "racelens:/schedule/1/T.m.md"}));
        assert_eq!(
            value(&DocumentText::markdown("# RL001".into())),
            json!({"text": "# RL001", "languageId": "markdown"})
        );
        let place = Location { uri: "file:///w/S.java".parse().unwrap(), range: Default::default() };
        let step =
            ScheduleStep {
                mark: Mark::Preemption, thread: Some(1), text: "⇄ preempted".into(), location: Some(place)
            };
        let elided =
            ScheduleStep { mark: Mark::Elided, thread: None, text: "… 3 steps not shown …".into(), location: None };
        let steps = ScheduleSteps {
            test: "p.T#m".into(),
            headline: "✗ AssertionError".into(),
            threads: vec!["T0 (main)".into(), "T1 (a)".into()],
            steps: vec![step, elided],
        };
        let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}});
        assert_eq!(
            value(&steps),
            json!({"test": "p.T#m", "headline": "✗ AssertionError", "threads": ["T0 (main)", "T1 (a)"], "steps": [
                {"mark": "preemption", "thread": 1, "text": "⇄ preempted", "location": {"uri": "file:///w/S.java", "range": range}},
                {"mark": "elided", "text": "… 3 steps not shown …"}]})
        );
    }
}
