//! Analysis and publishing, on the core thread and never in answer to a request: the
//! analysis of the workspaces edited since the last one, the edited document's diagnostics at
//! once and the other files' when nothing else waits (stopped by a newer edit, resumed from
//! what was published), and the lenses' refresh when what they show changed.

use racelens_analysis::cancel::{Cancel, Cancelled};
use racelens_analysis::impact::{Impact, Options};
use tower_lsp_server::ls_types::*;

use super::Core;
use crate::convert;

impl Core {
    pub(super) fn analyze_dirty(&mut self) {
        let dirty = std::mem::take(&mut self.dirty);
        self.dirty_since = None;
        for w in dirty {
            if w >= self.workspaces.len() {
                continue;
            }
            let impact = self.workspaces[w].host.analyze(&Options::new());
            let ws = &mut self.workspaces[w];
            ws.impact = impact;
            ws.selection = None;
            let key = lens_key(&ws.impact);
            let lens_changed = std::mem::replace(&mut ws.lens_key, key) != key;
            self.publish_edited(w);
            self.publish_due.insert(w);
            // Tests come and go, and a result goes stale, with edits that keep the lenses' key.
            if self.caps.test_states {
                self.tests_due.insert(w);
            }
            if lens_changed {
                self.refresh_lenses();
                if self.caps.selection_status {
                    self.status_due.insert(w);
                }
            }
        }
    }

    /// Publishes the diagnostics (the analysis' and the explorations') of the document edited
    /// last, if it is in workspace `w` and they changed: the user looks at it, and the other
    /// files' wait for [`Core::publish_workspace`].
    pub(super) fn publish_edited(&mut self, w: usize) {
        let Some((_, rel)) = self.edited.as_ref().and_then(|uri| self.locate(uri)).filter(|(at, _)| *at == w) else {
            return;
        };
        let ws = &self.workspaces[w];
        let (Some(file), Some(uri)) = (ws.host.index().file_id(&rel), convert::file_uri(&ws.root, &rel)) else {
            return;
        };
        let mut list = convert::file_diagnostics(
            ws.host.index(),
            &ws.root,
            &ws.impact,
            file,
            self.encoding(),
            self.settings.hints,
        );
        list.extend(self.exploration_diagnostics(w).remove(&uri).unwrap_or_default());
        if !published(&self.workspaces[w].published, &uri, &list) {
            self.publish_file(w, uri, list);
        }
    }

    /// Publishes a workspace's diagnostics (the analysis' and the explorations') where they
    /// differ from what was published: new or different lists, and empty ones for files whose
    /// diagnostics went away. Stops between two files once `cancel` is; the next call sends
    /// what is left, as it then stands.
    pub(super) fn publish_workspace(&mut self, w: usize, cancel: &Cancel) -> Result<(), Cancelled> {
        if w >= self.workspaces.len() {
            return Ok(());
        }
        let ws = &self.workspaces[w];
        let mut diagnostics =
            convert::diagnostics(ws.host.index(), &ws.root, &ws.impact, self.encoding(), self.settings.hints);
        for (uri, list) in self.exploration_diagnostics(w) {
            diagnostics.entry(uri).or_default().extend(list);
        }
        let ws = &self.workspaces[w];
        let mut changed: Vec<(Uri, Vec<Diagnostic>)> =
            ws.published.keys().filter(|u| !diagnostics.contains_key(*u)).map(|u| (u.clone(), Vec::new())).collect();
        changed.extend(diagnostics.into_iter().filter(|(u, d)| !published(&ws.published, u, d)));
        for (uri, list) in changed {
            cancel.check()?;
            self.publish_file(w, uri, list);
        }
        Ok(())
    }

    /// Publishes one file's list and records it as published.
    pub(super) fn publish_file(&mut self, w: usize, uri: Uri, list: Vec<Diagnostic>) {
        let published = &mut self.workspaces[w].published;
        match list.is_empty() {
            true => published.remove(&uri),
            false => published.insert(uri.clone(), list.clone()),
        };
        self.publish(uri, list);
    }

    pub(super) fn publish(&self, uri: Uri, diagnostics: Vec<Diagnostic>) {
        let version = self.docs.get(&uri).map(|d| d.version);
        let client = self.client.clone();
        self.rt.block_on(client.publish_diagnostics(uri, diagnostics, version));
    }

    /// Asks the client for the lenses again (and marks the tests' states due: whatever
    /// changed a lens may have changed a state).
    pub(super) fn refresh_lenses(&mut self) {
        self.test_states_due();
        if !self.settings.code_lens {
            return;
        }
        let client = self.client.clone();
        if self.caps.lens_refresh {
            // A request: do not wait for the answer (the client may be busy asking us).
            self.rt.spawn(async move {
                let _ = client.code_lens_refresh().await;
            });
        } else {
            self.rt.block_on(client.send_notification::<LensRefresh>(()));
        }
    }
}

/// Whether `list` is what was published for `uri` (nothing published is an empty list).
fn published(published: &std::collections::BTreeMap<Uri, Vec<Diagnostic>>, uri: &Uri, list: &[Diagnostic]) -> bool {
    published.get(uri).map_or(list.is_empty(), |p| p == list)
}

/// What code lenses show depends on the impacted lines and fields, and on the methods of
/// the impacted pairs' ends (the tests' ranks).
fn lens_key(impact: &Impact) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    impact.impacted_lines.hash(&mut h);
    impact.impacted_fields.hash(&mut h);
    for p in impact.pairs.iter().filter(|p| p.impacted()) {
        (p.kind, &p.field, p.a.file, &p.a.method, p.b.file, &p.b.method).hash(&mut h);
    }
    h.finish()
}

/// `racelens/codeLensRefresh`: for clients without `workspace/codeLens/refresh`.
pub enum LensRefresh {}

impl notification::Notification for LensRefresh {
    type Params = ();
    const METHOD: &'static str = "racelens/codeLensRefresh";
}
