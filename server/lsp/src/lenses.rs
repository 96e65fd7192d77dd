//! Code lenses on tests (and `main` methods) that start threads: `▶ Explore schedules`,
//! with the test's rank when the change selects it (`#1 of 4 tests for this change`), or
//! else how much of the change it reaches through its static call graph; and the commands
//! lenses run (exploration results add their own lenses: `core::explore`).
//!
//! Tests as JUnit runs them (`racelens_analysis::junit`): a test a class inherits has its
//! lens on that class's name (`▶ Explore borrow() · …`, one lens per inherited test), and the
//! method declared in the superclass gets one lens per class that runs it (`▶ Explore in
//! FairPoolTest · …`), since an abstract class's test never runs on its own. The results of
//! an inherited test stand on the class's name too, so [`name_inherited`] puts the method's
//! name before the first lens of each.

use std::path::Path;

use racelens_analysis::impact::Impact;
use racelens_analysis::index::{ClassRef, FileId, MethodRef, Origin, ProjectIndex};
use racelens_analysis::java::MethodIdx;
use racelens_analysis::rank::Selection;
use racelens_analysis::{junit, select};
use tower_lsp_server::ls_types::{CodeLens, Command, Uri};

use crate::convert::file_uri;
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
/// Steps through a failing schedule (`{root, test}`): a client-side command, on lenses only
/// for clients that have a stepper (`experimental.racelens.stepSchedule`).
pub const STEP_COMMAND: &str = "racelens.stepSchedule";
/// Commands the server advertises (clients run them through `workspace/executeCommand`).
pub const SERVER_COMMANDS: &[&str] = &[EXPLORE_COMMAND, CANCEL_COMMAND, SHOW_COMMAND, REPLAY_COMMAND];

/// What a test's lens says of it: its rank for the change, or the impacted points it reaches.
fn reach_text(
    index: &ProjectIndex,
    test: &str,
    reach: &select::Reach,
    impact: &Impact,
    selection: &Selection,
) -> String {
    match selection.get(test).filter(|r| r.selected) {
        Some(r) if selection.selected == 1 => format!("#{} of 1 test for this change", r.rank),
        Some(r) => format!("#{} of {} tests for this change", r.rank, selection.selected),
        None => match select::impacted_points(index, reach, impact) {
            0 => "reaches no impacted point".to_string(),
            1 => "reaches 1 impacted point".to_string(),
            n => format!("reaches {n} impacted points"),
        },
    }
}

/// The lenses of the file at `uri` (`root`: its workspace's folder).
pub fn lenses(
    index: &ProjectIndex,
    root: &Path,
    file: FileId,
    uri: &Uri,
    impact: &Impact,
    selection: &Selection,
    encoding: Encoding,
) -> Vec<CodeLens> {
    let Some(entry) = index.entry(file) else { return Vec::new() };
    let mut out: Vec<CodeLens> = select::thread_tests_in(index, file)
        .into_iter()
        .map(|t| {
            let reach = reach_text(index, &t.display_name(), &t.reach, impact, selection);
            let title = match t.inherited {
                true => format!("▶ Explore {}() · {reach}", t.name),
                false => format!("▶ Explore schedules · {reach}"),
            };
            explore_lens(range(&entry.facts, t.span, encoding), title, explore_arguments(uri, &t.class, &t.name))
        })
        .collect();
    // Test methods of this file that other classes run as theirs.
    let facts = &entry.facts;
    for idx in 0..facts.methods.len() as MethodIdx {
        let method = MethodRef { origin: Origin::Project(file), idx };
        let classes = junit::inheriting_classes(index, method);
        if classes.is_empty() {
            continue;
        }
        let reach = select::reach(index, method);
        if !reach.starts_threads {
            continue;
        }
        let name = &facts.methods[idx as usize].name;
        for class in classes {
            let Some(lens) = inherited_lens(index, root, class, name, &reach, impact, selection) else { continue };
            out.push(CodeLens { range: range(facts, facts.methods[idx as usize].name_span, encoding), ..lens });
        }
    }
    out
}

/// `▶ Explore in FairPoolTest · …` for the test `name` that `class` inherits (its range is
/// the caller's).
fn inherited_lens(
    index: &ProjectIndex,
    root: &Path,
    class: ClassRef,
    name: &str,
    reach: &select::Reach,
    impact: &Impact,
    selection: &Selection,
) -> Option<CodeLens> {
    let facts = index.facts(class.origin)?;
    let c = &facts.classes[class.idx as usize];
    let uri = file_uri(root, &index.path(class.origin))?;
    let test = format!("{}#{name}", c.binary_name);
    let short = c.binary_name.rsplit(['.', '$']).next().unwrap_or(&c.binary_name);
    let title = format!("▶ Explore in {short} · {}", reach_text(index, &test, reach, impact, selection));
    Some(explore_lens(Default::default(), title, explore_arguments(&uri, &c.binary_name, name)))
}

fn explore_lens(range: tower_lsp_server::ls_types::Range, title: String, argument: TestArgument) -> CodeLens {
    CodeLens {
        range,
        command: Some(Command {
            title,
            command: EXPLORE_COMMAND.to_string(),
            arguments: Some(vec![payloads::value(&argument)]),
        }),
        data: None,
    }
}

/// The argument of `racelens.exploreTest` for the test `class#method` of the file at `uri`
/// (`class`: the binary name of the class that runs it).
pub fn explore_arguments(uri: &Uri, class: &str, method: &str) -> TestArgument {
    TestArgument::new(Some(uri.as_str().to_string()), class, method)
}

/// The test (`pkg.Test#method`) a lens is about, from its command's argument.
fn test_of(lens: &CodeLens) -> Option<String> {
    let arg = lens.command.as_ref()?.arguments.as_ref()?.first()?;
    if let Some(test) = arg["test"].as_str() {
        return Some(test.to_string());
    }
    if let (Some(class), Some(method)) = (arg["class"].as_str(), arg["method"].as_str()) {
        return Some(format!("{class}#{method}"));
    }
    // `Copy`: the replay command line names the test.
    let text = arg["text"].as_str()?;
    Some(text.split_once("--test ")?.1.split_whitespace().next()?.trim_matches('\'').to_string())
}

/// Whether `lens` runs `racelens.exploreTest` on the test `class#method`: the `▶` lens an
/// exploration's state replaces (several tests share a range: those a class inherits).
pub fn explores(lens: &CodeLens, class: &str, method: &str) -> bool {
    lens.command.as_ref().is_some_and(|c| c.command == EXPLORE_COMMAND)
        && test_of(lens).is_some_and(|t| t == format!("{class}#{method}"))
}

/// Lenses whose titles are the same for every test: they follow the lens that names it.
const FOLLOWERS: [&str; 6] = ["Show schedule", "Replay", "Copy", "Step through", "Cancel", "↻ Explore again"];

/// Puts `method(): ` before the result lenses of the tests the file's classes inherit: they
/// share the class's name with each other.
pub fn name_inherited(index: &ProjectIndex, file: FileId, out: &mut [CodeLens]) {
    let inherited: Vec<(String, String)> = select::thread_tests_in(index, file)
        .into_iter()
        .filter(|t| t.inherited)
        .map(|t| (t.display_name(), t.name))
        .collect();
    if inherited.is_empty() {
        return;
    }
    for lens in out.iter_mut() {
        let Some(test) = test_of(lens) else { continue };
        let Some((_, name)) = inherited.iter().find(|(t, _)| *t == test) else { continue };
        let Some(command) = lens.command.as_mut() else { continue };
        if command.title.starts_with("▶ Explore") || FOLLOWERS.contains(&command.title.as_str()) {
            continue;
        }
        command.title = format!("{name}(): {}", command.title);
    }
}
