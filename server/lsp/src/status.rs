//! `racelens/selectionStatus`: how many tests the change selects in a workspace, for the
//! editor's status item ("racelens: 2 of 14 tests for this change", or "no evidence" when
//! nothing is selected but tests that start threads run changed state whose sharing the
//! analysis could not decide).
//!
//! Sent only to clients that ask for it (`capabilities.experimental.racelens.selectionStatus`),
//! after an analysis whose impacted pairs changed, and only when the status differs from the
//! one last sent: typing inside a method whose impact stays the same sends nothing.

use std::path::Path;

use racelens_analysis::index::{Origin, ProjectIndex};
use racelens_analysis::rank::{RankedTest, Selection};
use tower_lsp_server::ls_types::{notification, Uri};

use crate::lenses::explore_arguments;
use crate::payloads::{SelectionStatus, StatusTest};
use crate::positions::{position, Encoding};

/// The most tests a status carries: the item's tooltip and quick pick show the best ones.
const MOST_TESTS: usize = 10;

impl SelectionStatus {
    /// `total` is 0 when nothing is impacted: then the tests are not ranked at all.
    pub fn new(
        index: &ProjectIndex,
        root: &Path,
        selection: &Selection,
        impacted_pairs: usize,
    ) -> Option<SelectionStatus> {
        let tests = selection.tests[..selection.selected]
            .iter()
            .take(MOST_TESTS)
            .filter_map(|t| status_test(index, root, t))
            .collect();
        let root = Uri::from_file_path(root)?.to_string();
        let undecided = selection.undecided.clone();
        Some(SelectionStatus {
            root,
            selected: selection.selected,
            total: selection.total,
            impacted_pairs,
            tests,
            warned_methods: selection.warned_methods,
            undecided,
        })
    }
}

fn status_test(index: &ProjectIndex, root: &Path, ranked: &RankedTest) -> Option<StatusTest> {
    let Origin::Project(file) = ranked.method.origin else { return None };
    // Named from the declaration: the selection has already worked out each test's reach.
    let facts = &index.entry(file)?.facts;
    let method = facts.methods.get(ranked.method.idx as usize)?;
    let class = &facts.classes[method.class as usize].binary_name;
    let uri = Uri::from_file_path(root.join(index.path(ranked.method.origin)))?;
    let evidence =
        serde_json::to_value(ranked.evidence).ok().and_then(|e| e.as_str().map(str::to_string)).unwrap_or_default();
    let line = position(facts, method.name_span.start, Encoding::Utf16).line;
    Some(StatusTest {
        test: ranked.test.clone(),
        rank: ranked.rank,
        pairs: ranked.pairs.len() - ranked.warned,
        warned: ranked.warned,
        evidence,
        explore: explore_arguments(&uri, class, &method.name),
        line,
    })
}

pub enum SelectionStatusNotification {}

impl notification::Notification for SelectionStatusNotification {
    type Params = SelectionStatus;
    const METHOD: &'static str = "racelens/selectionStatus";
}
