//! Our own file watcher, for clients that cannot register `workspace/didChangeWatchedFiles`
//! (Neovim 0.7): Java sources, the git files that move when HEAD or the index does, and
//! `racelens.toml`. Events are batched for a moment so that a checkout is one message.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use racelens_analysis::cancel::Edits;

use crate::messages::Msg;

pub struct Watcher {
    _inner: RecommendedWatcher,
}

/// Whether a changed path matters to the analysis.
pub fn interesting(path: &Path) -> bool {
    let s = path.to_string_lossy();
    if let Some(git) = s.split("/.git/").nth(1) {
        return git == "HEAD" || git == "index" || git.starts_with("refs/");
    }
    s.ends_with(".java") || s.ends_with("/racelens.toml")
}

impl Watcher {
    /// Sends the changed paths to the core, counted as edits (see [`Edits`]).
    pub fn start(roots: &[PathBuf], tx: Sender<Msg>, edits: Edits) -> notify::Result<Watcher> {
        let (events_tx, events_rx) = std::sync::mpsc::channel::<PathBuf>();
        let mut inner = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            // Reads are events too (inotify reports opens): only changes count, or our own
            // reading of the files would wake us up forever.
            let Ok(event) = res else { return };
            if !matches!(event.kind, notify::EventKind::Access(_)) {
                for p in event.paths.into_iter().filter(|p| interesting(p)) {
                    let _ = events_tx.send(p);
                }
            }
        })?;
        for root in roots {
            inner.watch(root, RecursiveMode::Recursive)?;
        }
        std::thread::Builder::new()
            .name("racelens-watch".into())
            .spawn(move || {
                while let Ok(first) = events_rx.recv() {
                    let mut batch = vec![first];
                    std::thread::sleep(Duration::from_millis(150));
                    batch.extend(events_rx.try_iter());
                    batch.sort();
                    batch.dedup();
                    edits.bump();
                    if tx.send(Msg::Watched(batch)).is_err() {
                        break;
                    }
                }
            })
            .expect("a thread can be spawned");
        Ok(Watcher { _inner: inner })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sources_git_state_and_configuration_matter() {
        assert!(interesting(Path::new("/r/src/A.java")));
        assert!(interesting(Path::new("/r/.git/HEAD")));
        assert!(interesting(Path::new("/r/.git/index")));
        assert!(interesting(Path::new("/r/.git/refs/heads/main")));
        assert!(interesting(Path::new("/r/racelens.toml")));
        assert!(!interesting(Path::new("/r/.git/index.lock")));
        assert!(!interesting(Path::new("/r/.git/objects/ab/cdef")));
        assert!(!interesting(Path::new("/r/target/A.class")));
    }
}
