//! Workspaces, answered on the core thread: `initialized` (opening a workspace per root,
//! with the editor's progress), the settings (`workspace/didChangeConfiguration`, pulled with
//! `workspace/configuration` where the client can), watching the files (the client's
//! watchers, else ours), and reloading a workspace whose settings or `racelens.toml` changed.
//! A folder outside git is opened as a plain folder, and the user is told.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use racelens_analysis::git::GitRepo;
use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::Impact;
use serde_json::Value;
use tower_lsp_server::ls_types::*;

use super::{Core, Workspace};
use crate::settings::Settings;
use crate::watch::Watcher;

impl Core {
    /// `initialize`: what the client said of itself and its settings (the workspaces open at
    /// `initialized`).
    pub(super) fn initialize(&mut self, roots: Vec<PathBuf>, caps: crate::messages::ClientCaps, settings: Settings) {
        self.roots = roots;
        self.caps = caps;
        self.settings = settings;
    }

    pub(super) fn initialized(&mut self) {
        if self.caps.configuration {
            if let Some(v) = self.pull_configuration() {
                self.settings = Settings::from_json(&v);
            }
        }
        self.watch();
        let roots = self.roots.clone();
        let started = Instant::now();
        let progress = self.begin_progress("racelens: indexing Java sources");
        for root in roots {
            self.open_workspace(&root);
        }
        let files: usize = self.workspaces.iter().map(|w| w.host.index().len()).sum();
        self.end_progress(progress, format!("{files} Java files in {} ms", started.elapsed().as_millis()));
    }

    pub(super) fn pull_configuration(&self) -> Option<Value> {
        let client = self.client.clone();
        let items = vec![ConfigurationItem { scope_uri: None, section: Some("racelens".into()) }];
        let answer = self
            .rt
            .block_on(async move { tokio::time::timeout(Duration::from_secs(5), client.configuration(items)).await });
        match answer {
            Ok(Ok(mut values)) if !values.is_empty() => Some(values.remove(0)),
            _ => None,
        }
    }

    pub(super) fn begin_progress(
        &self,
        title: &str,
    ) -> Option<tower_lsp_server::OngoingProgress<tower_lsp_server::Unbounded, tower_lsp_server::NotCancellable>> {
        let token = self.progress_token("racelens/index")?;
        let client = self.client.clone();
        let title = title.to_string();
        Some(self.rt.block_on(async move { client.progress(token, title).begin().await }))
    }

    pub(super) fn end_progress(
        &self,
        progress: Option<
            tower_lsp_server::OngoingProgress<tower_lsp_server::Unbounded, tower_lsp_server::NotCancellable>,
        >,
        message: String,
    ) {
        if let Some(p) = progress {
            self.rt.block_on(p.finish_with_message(message));
        }
    }

    /// Watches the workspace: through the client when it can register file watchers,
    /// else with our own watcher (Neovim 0.7 cannot).
    pub(super) fn watch(&mut self) {
        if self.caps.watch_dynamic {
            let patterns = ["**/*.java", "**/.git/HEAD", "**/.git/index", "**/.git/refs/**", "**/racelens.toml"];
            let watchers = patterns
                .iter()
                .map(|p| FileSystemWatcher { glob_pattern: GlobPattern::String(p.to_string()), kind: None })
                .collect();
            let options = serde_json::to_value(DidChangeWatchedFilesRegistrationOptions { watchers }).ok();
            let registration = Registration {
                id: "racelens-watch".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: options,
            };
            let client = self.client.clone();
            let _ = self.rt.block_on(async move {
                tokio::time::timeout(Duration::from_secs(5), client.register_capability(vec![registration])).await
            });
        } else {
            match Watcher::start(&self.roots, self.tx.clone(), self.edits.clone()) {
                Ok(w) => self.watcher = Some(w),
                Err(e) => self.log(
                    MessageType::WARNING,
                    format!("racelens: cannot watch the workspace for changes made outside the editor: {e}"),
                ),
            }
        }
    }

    pub(super) fn host_options(&self) -> HostOptions {
        HostOptions {
            base: self.settings.base.clone(),
            no_git: false,
            overrides: self.settings.overrides.clone(),
            ..HostOptions::default()
        }
    }

    /// Opens (or finds) the workspace holding `dir`; returns its index.
    pub(super) fn open_workspace(&mut self, dir: &Path) -> Option<usize> {
        // A folder outside git is read as a plain folder (and the user is told below).
        let outside_git = !GitRepo::contains(dir);
        let host = match Host::open(dir, &HostOptions { no_git: outside_git, ..self.host_options() }) {
            Ok(h) => h,
            Err(e) => {
                self.show(
                    if outside_git { MessageType::WARNING } else { MessageType::ERROR },
                    format!("racelens: {e}"),
                );
                return None;
            }
        };
        if let Some(i) = self.workspaces.iter().position(|w| w.root == host.root()) {
            return Some(i);
        }
        if outside_git {
            self.show(
                MessageType::INFO,
                format!("racelens: {} is not in a git work tree, so there is no change to compare with: warnings cover every file", dir.display()),
            );
        }
        let mut host = host;
        if let Err(e) = host.load() {
            self.show(MessageType::ERROR, format!("racelens: {e}"));
        }
        self.log(MessageType::INFO, format!("racelens: {}: {}", host.root().display(), host.index_cache().describe()));
        for note in host.notes() {
            let where_ = note.path.map(|p| format!("{p}: ")).unwrap_or_default();
            self.log(MessageType::WARNING, format!("racelens: {where_}{}", note.message));
        }
        let root = host.root().to_path_buf();
        self.workspaces.push(Workspace {
            root,
            host,
            impact: Impact::default(),
            published: Default::default(),
            lens_key: 0,
            selection: None,
            status: None,
            tests_sent: None,
        });
        let w = self.workspaces.len() - 1;
        // Buffers already open there count as overlays.
        let uris: Vec<Uri> = self.docs.uris().cloned().collect();
        for uri in uris {
            self.overlay(&uri);
        }
        self.dirty.insert(w);
        Some(w)
    }

    /// The workspace a file belongs to and its path relative to the workspace root.
    pub(super) fn locate(&self, uri: &Uri) -> Option<(usize, String)> {
        let path = uri.to_file_path()?.into_owned();
        let path = path.canonicalize().unwrap_or(path);
        self.workspaces
            .iter()
            .enumerate()
            .filter(|(_, w)| path.starts_with(&w.root))
            .max_by_key(|(_, w)| w.root.as_os_str().len())
            .map(|(i, w)| (i, path.strip_prefix(&w.root).unwrap_or(&path).to_string_lossy().replace('\\', "/")))
    }

    pub(super) fn refresh_git(&mut self, w: usize) {
        if let Err(e) = self.workspaces[w].host.refresh_git() {
            self.log(MessageType::WARNING, format!("racelens: {e}"));
        }
        self.dirty.insert(w);
    }

    /// Opens a workspace again (new settings or configuration file), keeping its buffers.
    pub(super) fn reload_workspace(&mut self, w: usize) {
        let ws = self.workspaces.remove(w);
        let shift =
            |set: &BTreeSet<usize>| set.iter().filter(|&&d| d != w).map(|&d| if d > w { d - 1 } else { d }).collect();
        self.dirty = shift(&self.dirty);
        self.publish_due = shift(&self.publish_due);
        self.status_due = shift(&self.status_due);
        self.tests_due = shift(&self.tests_due);
        // Clear what it published; the reloaded workspace publishes again.
        for uri in ws.published.keys() {
            self.publish(uri.clone(), Vec::new());
        }
        self.open_workspace(&ws.root);
    }

    pub(super) fn configuration(&mut self, value: Option<Value>) {
        let value = match value.filter(|v| !v.is_null()) {
            // Some clients send the settings in the notification (under `racelens`, or bare).
            Some(v) => Some(v.get("racelens").cloned().unwrap_or(v)),
            None if self.caps.configuration => self.pull_configuration(),
            None => None,
        };
        let Some(value) = value else { return };
        let new = Settings::from_json(&value);
        let old = std::mem::replace(&mut self.settings, new.clone());
        if old.needs_reload(&new) {
            for w in (0..self.workspaces.len()).rev() {
                self.reload_workspace(w);
            }
        } else if old != new {
            self.dirty.extend(0..self.workspaces.len());
            self.refresh_lenses();
        }
    }
}
