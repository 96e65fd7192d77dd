//! Code lenses on tests (and `main` methods) that start threads: `▶ Explore schedules`,
//! with how much of the change the test reaches through its static call graph; and the
//! commands lenses run (exploration results add their own lenses: `core::explore`).

use racelens_analysis::impact::Impact;
use racelens_analysis::index::{FileId, ProjectIndex};
use racelens_analysis::select;
use serde_json::json;
use tower_lsp_server::ls_types::{CodeLens, Command, Uri};

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

pub fn lenses(index: &ProjectIndex, file: FileId, uri: &Uri, impact: &Impact, encoding: Encoding) -> Vec<CodeLens> {
    let Some(entry) = index.entry(file) else { return Vec::new() };
    select::thread_tests_in(index, file)
        .into_iter()
        .map(|t| {
            let points = select::impacted_points(index, &t.reach, impact);
            let reach = match points {
                0 => "reaches no impacted point".to_string(),
                1 => "reaches 1 impacted point".to_string(),
                n => format!("reaches {n} impacted points"),
            };
            CodeLens {
                range: range(&entry.facts, t.span, encoding),
                command: Some(Command {
                    title: format!("▶ Explore schedules · {reach}"),
                    command: EXPLORE_COMMAND.to_string(),
                    arguments: Some(vec![json!({"uri": uri.as_str(), "class": t.class, "method": t.name})]),
                }),
                data: None,
            }
        })
        .collect()
}
