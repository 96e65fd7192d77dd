//! Where racelens keeps what it computes about a work tree, outside the work tree:
//! `$XDG_CACHE_HOME/racelens/projects/<name>-<hash>/` (the index cache, compiled classes,
//! exploration results and coverage history), with a record of the work tree so that the
//! folders of deleted work trees are removed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A name beside `path` that no other writer uses, neither another process nor another
/// thread of this one (the language server runs several explorations at once), for a file
/// written whole and then renamed over `path`: readers never see half a file, and no writer
/// renames another's file away.
pub fn aside(path: &Path) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    path.with_file_name(format!("{name}.{}.{}", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed)))
}

/// Writes `bytes` to an [`aside`] file and renames it over `path`.
pub fn write_whole(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), String> {
    let aside = aside(path);
    std::fs::write(&aside, bytes).map_err(|e| format!("cannot write {}: {e}", aside.display()))?;
    std::fs::rename(&aside, path).map_err(|e| {
        let _ = std::fs::remove_file(&aside);
        format!("cannot write {}: {e}", path.display())
    })
}

/// `$XDG_CACHE_HOME/racelens` (or `~/.cache/racelens`, else the temp dir).
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("racelens");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".cache/racelens");
    }
    std::env::temp_dir().join("racelens")
}

/// XXH3 (64 bits): a hash that stays the same across runs and Rust versions, for every key
/// kept on disk (cache folders and files).
pub fn stable_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A hasher whose output stays the same across runs and Rust versions (std's
/// `DefaultHasher` promises neither): for values whose hash is kept on disk.
pub fn stable_hasher() -> impl std::hash::Hasher {
    xxhash_rust::xxh3::Xxh3Default::new()
}

/// The [`stable_hasher`] hash of a value.
pub fn stable_hash_of<T: std::hash::Hash + ?Sized>(value: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = stable_hasher();
    value.hash(&mut h);
    h.finish()
}

/// A work tree's cache folder: one per root, named after it with a hash that stays the same
/// across runs.
pub fn project_cache(root: &Path) -> PathBuf {
    let name = root.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let hash = stable_hash(root.to_string_lossy().as_bytes());
    cache_root().join("projects").join(format!("{name}-{hash:016x}"))
}

/// File in a project's cache folder that names its work tree.
const ROOT_RECORD: &str = "root";

/// Records `root` in its cache folder, then removes the folders of work trees that no longer
/// exist (deleted clones, temporary repositories), so that the cache does not only grow.
pub fn claim_cache(root: &Path) {
    let dir = project_cache(root);
    let _ = std::fs::create_dir_all(&dir);
    // Written aside and renamed: a concurrent run's prune must never read a half-written
    // (empty) record, which names no existing work tree and would delete this folder.
    let _ = write_whole(&dir.join(ROOT_RECORD), root.to_string_lossy().as_bytes());
    if let Some(projects) = dir.parent() {
        prune_projects(projects);
    }
}

/// Removes the folders under `projects` whose recorded work tree is gone; folders without a
/// record (older versions) are left alone.
fn prune_projects(projects: &Path) {
    for entry in std::fs::read_dir(projects).into_iter().flatten().flatten() {
        let Ok(recorded) = std::fs::read_to_string(entry.path().join(ROOT_RECORD)) else { continue };
        let recorded = Path::new(&recorded);
        if recorded.is_absolute() && !recorded.exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_hashes_are_pinned_values_not_this_builds_siphash() {
        // Kept on disk (cache folders, the compile cache's manifest): a new Rust must give
        // the same numbers, so they are pinned here (XXH3-64 of the bytes).
        assert_eq!(stable_hash(b"racelens"), 3260204339744240585);
        assert_eq!(stable_hash_of(&("racelens", 3u32)), 16241529005495516756);
        assert_ne!(stable_hash_of(&("racelens", 3u32)), stable_hash_of(&("racelens", 4u32)));
    }

    #[test]
    fn cache_folders_of_work_trees_that_are_gone_are_pruned() {
        let projects = tempfile::tempdir().unwrap();
        let alive = tempfile::tempdir().unwrap();
        let folder = |name: &str, record: Option<&Path>| {
            let dir = projects.path().join(name);
            std::fs::create_dir_all(dir.join("classes")).unwrap();
            if let Some(root) = record {
                std::fs::write(dir.join(ROOT_RECORD), root.to_string_lossy().as_bytes()).unwrap();
            }
            dir
        };
        let kept = folder("alive-1", Some(alive.path()));
        let gone = folder("gone-2", Some(&alive.path().join("deleted-clone")));
        let unrecorded = folder("old-3", None);
        let being_written = folder("new-4", Some(Path::new("")));
        prune_projects(projects.path());
        assert!(kept.exists() && unrecorded.exists() && being_written.exists());
        assert!(!gone.exists());
    }

    #[test]
    fn a_work_tree_keeps_its_cache_folder() {
        let root = Path::new("/some/where/shop");
        assert_eq!(project_cache(root), project_cache(root));
        assert!(project_cache(root).file_name().unwrap().to_string_lossy().starts_with("shop-"));
        assert_ne!(project_cache(root), project_cache(Path::new("/else/where/shop")));
    }

    #[test]
    fn threads_of_one_process_writing_one_file_at_once_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = vec![7u8; 1 << 20];
        // Rounds of writers let loose together on a fresh path: with a temporary name per
        // process, some round fails here (one writer renames the other's file away).
        for round in 0..20 {
            let file = dir.path().join(format!("agent-{round}/racelens-agent.jar"));
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let start = std::sync::Barrier::new(4);
            std::thread::scope(|s| {
                let writers: Vec<_> = (0..4)
                    .map(|_| {
                        s.spawn(|| {
                            start.wait();
                            write_whole(&file, &bytes)
                        })
                    })
                    .collect();
                for w in writers {
                    assert_eq!(w.join().unwrap(), Ok(()), "round {round}");
                }
            });
            assert_eq!(std::fs::read(&file).unwrap(), bytes);
            let left: Vec<_> =
                std::fs::read_dir(file.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(left, [std::ffi::OsString::from("racelens-agent.jar")], "no temporary file stays behind");
        }
    }
}
