//! Quick fixes as code actions: the analysis' fixes (`impact::fixes`) of the diagnostics
//! published for a document that a `textDocument/codeAction` request is about.
//!
//! The request names the diagnostics the client shows where the user asked (and a range).
//! Ours are matched with the analysis' current ones by code and range (`same_diagnostic`):
//! requests are handled in order after the edits before them, so a diagnostic of an older
//! version of the document that no longer stands there matches nothing and gets no fix. A
//! client that sends no diagnostics of ours gets the fixes of every current one its range
//! touches.

use std::collections::HashMap;
use std::path::Path;

use racelens_analysis::impact::fixes::fixes;
use racelens_analysis::impact::{ChangeSet, Diagnostic};
use racelens_analysis::index::ProjectIndex;
use tower_lsp_server::ls_types::{
    self as lsp, CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Position, Range, TextEdit, Uri,
    WorkspaceEdit,
};

use crate::convert;
use crate::positions::{range, Encoding};

/// The `published` diagnostics (the current analysis' diagnostics of the request's
/// document that were published) that the request selects, each with its LSP form; none
/// when the client wants no quick fixes.
pub fn selected<'a>(
    index: &ProjectIndex,
    root: &Path,
    published: impl Iterator<Item = &'a Diagnostic>,
    params: &CodeActionParams,
    encoding: Encoding,
) -> Vec<(&'a Diagnostic, lsp::Diagnostic)> {
    let context = &params.context;
    if context.only.as_deref().is_some_and(|only| !wants_quick_fixes(only)) {
        return Vec::new();
    }
    let theirs: Vec<&lsp::Diagnostic> =
        context.diagnostics.iter().filter(|d| d.source.as_deref() == Some(convert::SOURCE)).collect();
    published
        .filter_map(|d| Some((d, convert::diagnostic(index, root, d, encoding)?.1)))
        .filter(|(_, shown)| {
            if theirs.is_empty() {
                overlaps(shown.range, params.range)
            } else {
                theirs.iter().any(|t| same_diagnostic(t, shown))
            }
        })
        .collect()
}

/// The quick fixes of the selected diagnostics, as edits of the document `uri`. Fixes with
/// the same title and edits (two warnings in one method that lost `synchronized`) are one
/// action that resolves them all.
pub fn quick_fixes(
    index: &ProjectIndex,
    changes: &ChangeSet,
    selected: &[(&Diagnostic, lsp::Diagnostic)],
    uri: &Uri,
    encoding: Encoding,
) -> Vec<CodeActionOrCommand> {
    let mut out: Vec<CodeAction> = Vec::new();
    for (d, shown) in selected {
        let Some(entry) = index.entry(d.file) else { continue };
        for fix in fixes(index, changes, d) {
            let edits: Vec<TextEdit> = fix
                .edits
                .iter()
                .map(|(span, text)| TextEdit { range: range(&entry.facts, *span, encoding), new_text: text.clone() })
                .collect();
            let edit =
                WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits)])), ..WorkspaceEdit::default() };
            match out.iter_mut().find(|a| a.title == fix.title && a.edit.as_ref() == Some(&edit)) {
                Some(same) => same.diagnostics.get_or_insert_with(Vec::new).push(shown.clone()),
                None => out.push(CodeAction {
                    title: fix.title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![shown.clone()]),
                    edit: Some(edit),
                    is_preferred: Some(true),
                    ..CodeAction::default()
                }),
            }
        }
    }
    out.into_iter().map(CodeActionOrCommand::CodeAction).collect()
}

/// Whether a diagnostic the client sends back is one of ours as published: the same code
/// and range; or the same code, lines and message, for clients that send columns in
/// another unit than they received (Neovim 0.7 sends byte columns back).
fn same_diagnostic(theirs: &lsp::Diagnostic, ours: &lsp::Diagnostic) -> bool {
    let lines = |r: Range| (r.start.line, r.end.line);
    theirs.code == ours.code
        && (theirs.range == ours.range || (lines(theirs.range) == lines(ours.range) && theirs.message == ours.message))
}

/// Whether the kinds a client asks for (`context.only`) include quick fixes: `quickfix`
/// itself, or a kind it is a sub-kind of (the empty kind is every kind).
fn wants_quick_fixes(only: &[CodeActionKind]) -> bool {
    let quickfix = CodeActionKind::QUICKFIX;
    let quickfix = quickfix.as_str();
    only.iter().any(|k| {
        let k = k.as_str();
        k.is_empty() || quickfix == k || quickfix.strip_prefix(k).is_some_and(|rest| rest.starts_with('.'))
    })
}

/// Whether two ranges share a position (an empty range at a diagnostic's edge touches it).
fn overlaps(a: Range, b: Range) -> bool {
    let key = |p: Position| (p.line, p.character);
    key(a.start) <= key(b.end) && key(b.start) <= key(a.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_fixes_are_wanted_by_their_kind_and_its_parents() {
        let kinds = |ks: &[&'static str]| ks.iter().map(|&k| CodeActionKind::from(k)).collect::<Vec<_>>();
        assert!(wants_quick_fixes(&kinds(&["quickfix"])));
        assert!(wants_quick_fixes(&kinds(&["refactor", ""])));
        assert!(!wants_quick_fixes(&kinds(&["refactor", "source.organizeImports"])));
        assert!(!wants_quick_fixes(&kinds(&["quick"])));
        assert!(!wants_quick_fixes(&[]));
    }

    #[test]
    fn a_diagnostic_sent_back_with_byte_columns_is_still_ours() {
        let at =
            |c0, c1| Range { start: Position { line: 3, character: c0 }, end: Position { line: 3, character: c1 } };
        let diagnostic = |range, message: &str| lsp::Diagnostic {
            range,
            code: Some(lsp::NumberOrString::String("RL008".into())),
            message: message.into(),
            ..lsp::Diagnostic::default()
        };
        let ours = diagnostic(at(12, 18), "`notify()` on `this` wakes one waiter");
        assert!(same_diagnostic(&diagnostic(at(12, 18), "reworded"), &ours));
        assert!(same_diagnostic(&diagnostic(at(14, 20), "`notify()` on `this` wakes one waiter"), &ours));
        assert!(!same_diagnostic(&diagnostic(at(14, 20), "reworded"), &ours));
        let mut other = ours.clone();
        other.code = Some(lsp::NumberOrString::String("RL006".into()));
        assert!(!same_diagnostic(&other, &ours));
    }

    #[test]
    fn ranges_overlap_when_they_share_a_position() {
        let r = |l0, c0, l1, c1| Range {
            start: Position { line: l0, character: c0 },
            end: Position { line: l1, character: c1 },
        };
        assert!(overlaps(r(3, 4, 3, 9), r(3, 9, 3, 9)));
        assert!(overlaps(r(3, 4, 3, 9), r(0, 0, 10, 0)));
        assert!(!overlaps(r(3, 4, 3, 9), r(3, 10, 3, 12)));
        assert!(!overlaps(r(3, 4, 3, 9), r(2, 0, 2, 80)));
    }
}
