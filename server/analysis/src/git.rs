//! The git side: the base revision's tree, what the working tree changed since, and the
//! base version of a file. Read-only: racelens never writes the repository (no index
//! refresh, no lock files), so `git status` is the same before and after it runs.

use std::path::{Path, PathBuf};

use git2::{Delta, DiffFindOptions, DiffOptions, ObjectType, Oid, Repository};

pub struct GitRepo {
    repo: Repository,
    root: PathBuf,
}

/// How a file differs from the base revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileStatus {
    /// New since the base (added, or not tracked by git at all).
    Added,
    Modified,
    Deleted,
}

/// A file of the working tree that differs from the base revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedPath {
    /// Relative to the root, `/`-separated (the old path for a deleted file).
    pub path: String,
    pub status: FileStatus,
    /// For a file moved or renamed (git's similarity pairing of a deleted file with a new
    /// one, untracked included): its path in the base.
    pub from: Option<String>,
}

/// The base a change is measured against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    /// The revision as given (`HEAD`, `origin/main`).
    pub rev: String,
    /// The commit it resolved to; `None` in a repository without commits.
    pub commit: Option<Oid>,
    tree: Option<Oid>,
}

impl GitRepo {
    /// Finds the repository that contains `path`.
    pub fn discover(path: &Path) -> Result<GitRepo, String> {
        let repo =
            Repository::discover(path).map_err(|_| format!("{} is not inside a git work tree", path.display()))?;
        let root = repo
            .workdir()
            .ok_or_else(|| format!("{} is a bare git repository (no work tree)", path.display()))?
            .to_path_buf();
        let root = root.canonicalize().unwrap_or(root);
        Ok(GitRepo { repo, root })
    }

    /// Whether `path` is inside a git work tree (else a tool reads it as a plain folder).
    pub fn contains(path: &Path) -> bool {
        Repository::discover(path).is_ok_and(|r| r.workdir().is_some())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves the base revision. In a repository without commits, `HEAD` is the empty
    /// tree (every file is new).
    pub fn base(&self, rev: &str) -> Result<Base, String> {
        match self.repo.revparse_single(rev) {
            Ok(obj) => {
                let commit = obj.peel_to_commit().map_err(|e| format!("`{rev}` is not a commit: {}", e.message()))?;
                Ok(Base { rev: rev.to_string(), commit: Some(commit.id()), tree: Some(commit.tree_id()) })
            }
            Err(_) if rev == "HEAD" && self.repo.head().is_err() => {
                Ok(Base { rev: rev.to_string(), commit: None, tree: None })
            }
            Err(e) => Err(format!("cannot resolve base revision `{rev}`: {}", e.message())),
        }
    }

    /// Files of the working tree that differ from the base, untracked ones included
    /// (ignored ones not). A file moved or renamed (a package renamed, a class moved by an
    /// IDE, even before `git add`) is paired with its old path as `git status` pairs it, so
    /// that its change is its diff against the old file, not the whole file as new.
    pub fn changed_files(&self, base: &Base) -> Result<Vec<ChangedPath>, String> {
        let tree = match base.tree {
            Some(t) => Some(self.repo.find_tree(t).map_err(|e| e.message().to_string())?),
            None => None,
        };
        let mut opts = DiffOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true).include_typechange(true).ignore_submodules(true);
        // Through the index (`git diff <base>`): its stat data tells unchanged files apart
        // without hashing them, which at 500k lines is 4 ms instead of 80.
        let mut diff = self
            .repo
            .diff_tree_to_workdir_with_index(tree.as_ref(), Some(&mut opts))
            .map_err(|e| format!("git diff failed: {}", e.message()))?;
        // Only when something was deleted: pairing compares the content of the deleted and
        // new files, which a change without deletions does not need.
        if diff.deltas().any(|d| d.status() == Delta::Deleted) {
            let mut find = DiffFindOptions::new();
            find.renames(true).for_untracked(true);
            diff.find_similar(Some(&mut find)).map_err(|e| format!("git rename detection failed: {}", e.message()))?;
        }
        let path_of = |f: git2::DiffFile<'_>| f.path().map(|p| p.to_string_lossy().replace('\\', "/"));
        let mut out = Vec::new();
        for delta in diff.deltas() {
            let (status, from) = match delta.status() {
                Delta::Added | Delta::Untracked | Delta::Copied => (FileStatus::Added, None),
                Delta::Modified | Delta::Typechange => (FileStatus::Modified, None),
                Delta::Renamed => (FileStatus::Modified, path_of(delta.old_file())),
                Delta::Deleted => (FileStatus::Deleted, None),
                _ => continue,
            };
            let file = if status == FileStatus::Deleted { delta.old_file() } else { delta.new_file() };
            if let Some(path) = path_of(file) {
                out.push(ChangedPath { path, status, from });
            }
        }
        Ok(out)
    }

    /// The base version of a file and its blob id; `None` when the base lacks it.
    pub fn base_blob(&self, base: &Base, rel: &str) -> Option<(Oid, Vec<u8>)> {
        let tree = self.repo.find_tree(base.tree?).ok()?;
        let entry = tree.get_path(Path::new(rel)).ok()?;
        if entry.kind() != Some(ObjectType::Blob) {
            return None;
        }
        let blob = self.repo.find_blob(entry.id()).ok()?;
        Some((entry.id(), blob.content().to_vec()))
    }

    /// Every file of the base revision's tree that `keep` accepts (by path), with its
    /// content: what racelens compiles to run a test on the base version.
    pub fn base_files(&self, base: &Base, keep: &dyn Fn(&str) -> bool) -> Result<Vec<(String, Vec<u8>)>, String> {
        let Some(tree) = base.tree else { return Ok(Vec::new()) };
        let tree = self.repo.find_tree(tree).map_err(|e| e.message().to_string())?;
        let mut out = Vec::new();
        let mut failed = None;
        tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
            if entry.kind() == Some(ObjectType::Blob) {
                let path = format!("{dir}{}", entry.name().unwrap_or(""));
                if keep(&path) {
                    match self.repo.find_blob(entry.id()) {
                        Ok(blob) => out.push((path, blob.content().to_vec())),
                        Err(e) => failed = Some(format!("cannot read {path} at the base revision: {}", e.message())),
                    }
                }
            }
            git2::TreeWalkResult::Ok
        })
        .map_err(|e| e.message().to_string())?;
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// A token that changes when HEAD moves or the index is rewritten (commit, checkout,
    /// reset, stash): the language server re-bases when it changes.
    pub fn state(&self) -> String {
        let head = self.repo.head().ok().and_then(|h| h.target()).map(|o| o.to_string()).unwrap_or_default();
        let index = self.repo.path().join("index");
        let mtime =
            std::fs::metadata(index).and_then(|m| m.modified()).ok().map(|t| format!("{t:?}")).unwrap_or_default();
        format!("{head}:{mtime}")
    }
}
