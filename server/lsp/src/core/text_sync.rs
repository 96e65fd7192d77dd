//! Text synchronization, answered on the core thread: `didOpen`, `didChange`, `didClose` and
//! `didSave` lay the editor's buffers over the files of their workspace (the analysis reads
//! them, not the disk) and mark the workspace for analysis; files changed on disk
//! (`didChangeWatchedFiles`, or our watcher) are read again. A save may queue explorations
//! (`racelens.explore.onSave`, the user's setting).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use racelens_analysis::host::MAX_FILE_BYTES;
use tower_lsp_server::ls_types::*;

use super::Core;
use crate::documents::ChangeOutcome;

impl Core {
    /// `didOpen`: the buffer is laid over its file.
    pub(super) fn did_open(&mut self, uri: Uri, version: i32, text: String) {
        self.docs.open(uri.clone(), version, &text);
        self.overlay(&uri);
    }

    /// `didChange`: applied at once (incrementally); a change not newer than the buffer is
    /// ignored, and logged.
    pub(super) fn did_change(&mut self, uri: Uri, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        match self.docs.change(&uri, version, changes, self.encoding()) {
            ChangeOutcome::Applied => {
                self.overlay(&uri);
                self.edited = Some(uri);
            }
            ChangeOutcome::Stale { current, got } => self.log(
                MessageType::WARNING,
                format!("racelens: ignored a change to {} with version {got}, not newer than {current}", uri.as_str()),
            ),
            ChangeOutcome::NotOpen => {}
        }
    }

    /// `didClose`: the file is read from disk again.
    pub(super) fn did_close(&mut self, uri: Uri) {
        self.docs.close(&uri);
        if let Some((w, rel)) = self.locate(&uri) {
            self.workspaces[w].host.remove_overlay(&rel);
            self.dirty.insert(w);
        }
    }

    /// `didSave`: the git state may have changed (a hook, a formatter); with
    /// `racelens.explore.onSave`, what the saved change reaches is queued.
    pub(super) fn did_save(&mut self, uri: Uri) {
        if let Some((w, _)) = self.locate(&uri) {
            self.refresh_git(w);
            if self.settings.explore.on_save {
                // Queue what the saved change reaches, on the analysis of it.
                self.analyze_dirty();
                self.explore_on_save(w);
            }
        }
    }

    /// Lays an open document over its file in its workspace (opening the workspace of a
    /// file outside every known one).
    pub(super) fn overlay(&mut self, uri: &Uri) {
        let found = self.locate(uri).or_else(|| {
            let path = uri.to_file_path()?.into_owned();
            let dir = path.parent()?.to_path_buf();
            if self.told_outside.contains(&dir) {
                return None;
            }
            self.told_outside.insert(dir.clone());
            self.open_workspace(&dir)?;
            self.locate(uri)
        });
        let Some((w, rel)) = found else { return };
        let Some(open) = self.docs.get(uri) else { return };
        let ws = &mut self.workspaces[w];
        if !ws.host.is_source(&rel) {
            return;
        }
        match &open.doc {
            Some(doc) => ws.host.set_overlay(&rel, doc.text().clone(), Some(doc.facts().clone())),
            None => {
                ws.host.set_overlay(&rel, Arc::from(open.rope.to_string()), None);
                self.log(
                    MessageType::WARNING,
                    format!("racelens: {rel} is too large to analyse ({} MB at most)", MAX_FILE_BYTES >> 20),
                );
            }
        }
        self.dirty.insert(w);
    }

    /// Files changed on disk: re-read sources, re-base on git changes, reload on a new
    /// configuration file.
    pub(super) fn watched(&mut self, paths: Vec<PathBuf>) {
        let mut reload = BTreeSet::new();
        let mut git = BTreeSet::new();
        for path in paths {
            let Some(uri) = Uri::from_file_path(&path) else { continue };
            let Some((w, rel)) = self.locate(&uri) else { continue };
            if rel == racelens_analysis::config::FILE_NAME {
                reload.insert(w);
            } else if rel.starts_with(".git/") {
                git.insert(w);
            } else if rel.ends_with(".java") {
                self.workspaces[w].host.reload_file(&rel);
                git.insert(w);
            }
        }
        for w in git {
            self.workspaces[w].host.commit();
            self.refresh_git(w);
        }
        for w in reload.into_iter().rev() {
            self.reload_workspace(w);
        }
    }
}
