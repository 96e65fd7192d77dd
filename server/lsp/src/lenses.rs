//! Code lenses on tests (and `main` methods) that start threads: `▶ Explore schedules`,
//! with the test's rank when the change selects it (`#1 of 4 tests for this change`), or
//! else how much of the change it reaches through its static call graph; and the commands
//! lenses run (exploration results add their own lenses: `core::explore`).

use racelens_analysis::impact::Impact;
use racelens_analysis::index::{FileId, MethodRef, Origin, ProjectIndex};
use racelens_analysis::rank::Selection;
use racelens_analysis::select;
use tower_lsp_server::ls_types::{CodeLens, Command, Uri};

use crate::payloads::{self, TestArgument};
use crate::positions::{range, Encoding};

pub const EXPLORE_COMMAND: &str = "racelens.exploreTest";
/// Cancels a test's exploration (`{root, test}`), or every one (no argument).
pub const CANCEL_COMMAND: &str = "racelens.cancel";
/// Opens a failing schedule's document (`{root, test}`).
pub const SHOW_COMMAND: &str = "racelens.showSchedule";
/// Runs a failing schedule again on the current code (`{root, test, schedule}`).
pub const REPLAY_COMMAND: &str = "racelens.replay";
/// Copies the replay command line (`{text}`): a client-side command, not advertised.
pub const COPY_COMMAND: &str = "racelens.copySchedule";
/// Commands the server advertises (clients run them through `workspace/executeCommand`).
pub const SERVER_COMMANDS: &[&str] = &[EXPLORE_COMMAND, CANCEL_COMMAND, SHOW_COMMAND, REPLAY_COMMAND];

pub fn lenses(index: &ProjectIndex, file: FileId, uri: &Uri, impact: &Impact, selection: &Selection, encoding: Encoding) -> Vec<CodeLens> {
    let Some(entry) = index.entry(file) else { return Vec::new() };
    select::thread_tests_in(index, file)
        .into_iter()
        .map(|t| {
            let method = MethodRef { origin: Origin::Project(file), idx: t.method };
            let reach = match selection.get(method).filter(|r| r.selected) {
                Some(r) if selection.selected == 1 => format!("#{} of 1 test for this change", r.rank),
                Some(r) => format!("#{} of {} tests for this change", r.rank, selection.selected),
                None => match select::impacted_points(index, &t.reach, impact) {
                    0 => "reaches no impacted point".to_string(),
                    1 => "reaches 1 impacted point".to_string(),
                    n => format!("reaches {n} impacted points"),
                },
            };
            CodeLens {
                range: range(&entry.facts, t.span, encoding),
                command: Some(Command {
                    title: format!("▶ Explore schedules · {reach}"),
                    command: EXPLORE_COMMAND.to_string(),
                    arguments: Some(vec![payloads::value(&explore_arguments(uri, &t.class, &t.name))]),
                }),
                data: None,
            }
        })
        .collect()
}

/// The argument of `racelens.exploreTest` for the test `class#method` of the file at `uri`
/// (`class`: the declaring class's binary name).
pub fn explore_arguments(uri: &Uri, class: &str, method: &str) -> TestArgument {
    TestArgument::new(Some(uri.as_str().to_string()), class, method)
}
