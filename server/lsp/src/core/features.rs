//! Requests answered on the core thread from the current analysis: hover, code lenses, code
//! actions, `racelens/document` (the `racelens:` documents: warning codes, schedules), and the
//! ranking of the tests for the change behind the lenses and the selection status (complete
//! for a request; given up at a newer edit when only the status waits for it).

use std::sync::Arc;

use racelens_analysis::cancel::{Cancel, Cancelled};
use racelens_analysis::impact;
use racelens_analysis::rank::{self, Selection};
use racelens_analysis::select;
use serde_json::Value;
use tower_lsp_server::ls_types::*;

use super::Core;
use crate::actions;
use crate::convert;
use crate::hover;
use crate::jobs::Jobs;
use crate::lenses;
use crate::payloads::{self, DocumentText, SelectionStatus};
use crate::positions;
use crate::status::SelectionStatusNotification;

impl Core {
    pub(super) fn document(&self, uri: &str) -> Result<Value, String> {
        document(uri, &self.jobs)
    }

    pub(super) fn hover(&mut self, uri: &Uri, position: Position) -> Option<Hover> {
        let (w, rel) = self.locate(uri)?;
        let encoding = self.encoding();
        let ws = &mut self.workspaces[w];
        let sharing = ws.host.sharing();
        let index = ws.host.index();
        let file = index.file_id(&rel)?;
        let facts = &index.entry(file)?.facts;
        let offset = positions::offset(facts, position, encoding);
        let field = hover::field_at(index, file, offset)
            .map(|field| hover::hover_markdown(index, &ws.root, &sharing, &ws.impact, &field));
        // What the tests' runs say of this line (dynamic impact), after the field's verdict.
        let dynamic = self.dynamic_hover(w, &rel, position.line);
        let text = match (field, dynamic) {
            (Some(f), Some(d)) => format!("{f}\n\n---\n\n{d}"),
            (f, d) => f.or(d)?,
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: text }),
            range: None,
        })
    }

    pub(super) fn code_lens(&mut self, uri: &Uri) -> Vec<CodeLens> {
        if !self.settings.code_lens {
            return Vec::new();
        }
        let Some((w, rel)) = self.locate(uri) else { return Vec::new() };
        let Some(file) = self.workspaces[w].host.index().file_id(&rel) else { return Vec::new() };
        // Lenses stand on tests: a file without any needs no ranking of the project's tests.
        let selection = match select::thread_tests_in(self.workspaces[w].host.index(), file).is_empty() {
            true => Arc::new(Selection::default()),
            false => self.selection(w),
        };
        let ws = &self.workspaces[w];
        let mut out = lenses::lenses(ws.host.index(), &ws.root, file, uri, &ws.impact, &selection, self.encoding());
        self.exploration_lenses(w, &rel, &mut out);
        lenses::name_inherited(self.workspaces[w].host.index(), file, &mut out);
        out
    }

    /// The workspace's tests ranked for the change, complete: a request waits for it.
    pub(super) fn selection(&mut self, w: usize) -> Arc<Selection> {
        self.selection_cancellable(w, &Cancel::never()).expect("no edit cancels Cancel::never()")
    }

    /// The workspace's tests ranked for the change (SimRT's selection, from the coverage
    /// history that `racelens record` and explorations keep, else from static reach; reading
    /// the history runs nothing), kept until the next analysis. Without an impacted pair, a
    /// warning or undecided state nothing is selected, and the lenses need no ranking. Given up, and nothing kept, once
    /// `cancel` is.
    pub(super) fn selection_cancellable(&mut self, w: usize, cancel: &Cancel) -> Result<Arc<Selection>, Cancelled> {
        let ws = &mut self.workspaces[w];
        if let Some(s) = &ws.selection {
            return Ok(s.clone());
        }
        let something_to_select = ws.impact.pairs.iter().any(|p| p.impacted())
            || !ws.impact.diagnostics.is_empty()
            || !ws.impact.undecided.is_empty();
        let selection = match something_to_select {
            true => {
                let history = racelens_explore::history::load(&racelens_explore::history::path(ws.host.root()));
                cancel.check()?;
                rank::select_for(&mut ws.host, &ws.impact, &history, cancel)?
            }
            false => Selection::default(),
        };
        let selection = Arc::new(selection);
        ws.selection = Some(selection.clone());
        Ok(selection)
    }

    /// Tells the client how many tests the change selects, when that changed; gives way to a
    /// newer edit (`cancel`), since no request waits for it.
    pub(super) fn send_selection_status(&mut self, w: usize, cancel: &Cancel) -> Result<(), Cancelled> {
        if !self.caps.selection_status || w >= self.workspaces.len() {
            return Ok(());
        }
        let selection = self.selection_cancellable(w, cancel)?;
        let ws = &mut self.workspaces[w];
        let impacted = ws.impact.pairs.iter().filter(|p| p.impacted()).count();
        let Some(status) = SelectionStatus::new(ws.host.index(), &ws.root, &selection, impacted) else { return Ok(()) };
        if ws.status.as_ref() == Some(&status) {
            return Ok(());
        }
        ws.status = Some(status.clone());
        let client = self.client.clone();
        self.rt.block_on(client.send_notification::<SelectionStatusNotification>(status));
        Ok(())
    }

    /// Quick fixes for the diagnostics the request selects; none for a document we do not
    /// analyse or a range where no current diagnostic has one.
    pub(super) fn code_action(&mut self, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let Some((w, rel)) = self.locate(&params.text_document.uri) else { return Vec::new() };
        let (encoding, hints) = (self.encoding(), self.settings.hints);
        let ws = &mut self.workspaces[w];
        let Some(file) = ws.host.index().file_id(&rel) else { return Vec::new() };
        let published = ws.impact.diagnostics.iter().filter(|d| d.file == file && convert::shown(d, hints));
        let selected = actions::selected(ws.host.index(), &ws.root, published, params, encoding);
        if selected.is_empty() {
            return Vec::new();
        }
        let changes = ws.host.change_set();
        actions::quick_fixes(ws.host.index(), &changes, &selected, &params.text_document.uri, encoding)
    }
}

/// `racelens:` documents: `racelens:/codes/RL001`, and schedules
/// (`racelens:/schedule/<run>-3/PoolTest.borrow.md`: the name after the id is for people;
/// the same with `.html`: the swimlane page).
fn document(uri: &str, jobs: &Jobs) -> Result<Value, String> {
    let path = uri.strip_prefix("racelens:").ok_or_else(|| format!("not a racelens: document: {uri}"))?;
    let path = path.trim_start_matches('/');
    if let Some(n) = path.strip_prefix("schedule/") {
        let name = n.split('/').next().unwrap_or_default();
        if n.ends_with(".html") {
            let page = jobs
                .document_page(name)
                .ok_or_else(|| format!("no schedule page at {uri} (schedules are kept while the server runs)"))?;
            return Ok(payloads::value(&DocumentText { text: page.clone(), language_id: "html".into() }));
        }
        let text = jobs.document_text(name);
        let text =
            text.ok_or_else(|| format!("no schedule document at {uri} (schedules are kept while the server runs)"))?;
        return Ok(payloads::value(&DocumentText::markdown(text.clone())));
    }
    if let Some(code) = path.strip_prefix("codes/") {
        let code = impact::codes::find(code).ok_or_else(|| format!("no racelens code `{code}`"))?;
        return Ok(payloads::value(&DocumentText::markdown(impact::codes::markdown(code))));
    }
    if path == "codes" || path.is_empty() {
        let text: String = impact::codes::CODES.iter().map(|c| format!("- **{}** {}\n", c.code, c.title)).collect();
        return Ok(payloads::value(&DocumentText::markdown(format!("# racelens diagnostic codes\n\n{text}"))));
    }
    Err(format!("no racelens document at {uri}"))
}
