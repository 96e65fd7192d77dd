//! The analysis host: one work tree, its configuration, its git base, the project index,
//! unsaved buffers laid over the files, and the change set they make. The CLI drives it
//! once; the language server keeps it and feeds it edits. Both go through the same code:
//! a file's facts are recomputed when its text changes, its diff against the base when
//! its text or the base changes, and the impact from the index and the diffs.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::Config;
use crate::diff::FileDiff;
use crate::git::{Base, ChangedPath, FileStatus, GitRepo};
use crate::impact::shared::{evidence_hash, Sharing};
use crate::impact::{self, ChangeSet, ChangedFile, Impact, Options};
use crate::index::{FileId, Jdk, ProjectIndex};
use crate::index_cache::{content_hash, CacheState, CacheUse, IndexCache};
use crate::java::{self, FileFacts};
use crate::workspace::Workspace;

/// Files larger than this are not analysed (generated code, data in disguise): parsing
/// and analysing them would stall every keystroke for little use.
pub const MAX_FILE_BYTES: usize = 2 << 20;

#[derive(Clone, Debug)]
pub struct HostOptions {
    /// The base revision (`HEAD`, `origin/main`).
    pub base: String,
    /// Analyse a folder that is not a git work tree, every file as new.
    pub no_git: bool,
    /// Settings that take precedence over `racelens.toml`.
    pub overrides: crate::config::Overrides,
    /// Read and write the persistent index cache ([`crate::index_cache`]); off, every file
    /// is parsed (what a from-scratch comparison wants).
    pub index_cache: bool,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions { base: "HEAD".into(), no_git: false, overrides: Default::default(), index_cache: true }
    }
}

/// Something the user should know that did not stop the analysis.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Note {
    pub path: Option<String>,
    pub message: String,
}

pub struct Host {
    root: PathBuf,
    config: Config,
    workspace: Workspace,
    git: Option<GitRepo>,
    base: Option<Base>,
    index: ProjectIndex,
    /// [`content_hash`] of the text each file was indexed from.
    texts: HashMap<String, u128>,
    /// Unsaved editor buffers, by path.
    overlays: HashMap<String, Arc<str>>,
    /// Base versions of files, by path: blob id and facts (`None`: not in the base).
    base_facts: HashMap<String, Option<(git2::Oid, Arc<FileFacts>)>>,
    /// What git says differs from the base.
    git_changed: BTreeMap<String, FileStatus>,
    /// Files moved or renamed since the base: their path in the base, by path now.
    renamed_from: BTreeMap<String, String>,
    /// The build file that lets JUnit run test methods at the same time, if one does.
    concurrent_tests: Option<String>,
    /// Diffs by path, with the text hash they were computed for.
    diffs: HashMap<String, (u128, Option<ChangedFile>)>,
    /// Which objects are shared, with the evidence hash it was computed for.
    sharing: Option<(u64, Arc<Sharing>)>,
    notes: BTreeMap<(Option<String>, String), ()>,
    /// How the last load used the index cache, and the thread writing it again.
    cache_use: CacheUse,
    use_cache: bool,
    cache_writer: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl Drop for Host {
    /// The cache being written is finished first, so that the next start finds it.
    fn drop(&mut self) {
        let _ = self.wait_for_index_cache();
    }
}

impl Host {
    /// Opens the work tree containing `path` (or the folder itself with `no_git`).
    pub fn open(path: &Path, options: &HostOptions) -> Result<Host, String> {
        let path = path.canonicalize().map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let (root, git, base) = if options.no_git {
            let root = if path.is_file() { path.parent().unwrap_or(&path).to_path_buf() } else { path.clone() };
            (root, None, None)
        } else {
            let repo = GitRepo::discover(&path).map_err(|e| {
                format!("{e}; run racelens inside a git repository, or pass --no-git to analyse without a diff")
            })?;
            let base = repo.base(&options.base)?;
            (repo.root().to_path_buf(), Some(repo), Some(base))
        };
        let config = Config::load(&root)?.overridden(&options.overrides);
        let concurrent_tests = crate::junit_parallel::concurrent_test_methods(&root);
        let workspace = Workspace::new(&root, &config)?;
        let mut notes = BTreeMap::new();
        for w in &config.warnings {
            notes.insert((Some(crate::config::FILE_NAME.to_string()), w.clone()), ());
        }
        let jdk_path = match &config.jdk_sources {
            Some(p) => Some(root.join(p)),
            None => Jdk::locate(),
        };
        let jdk = match jdk_path.map(|p| Jdk::open(&p)) {
            Some(Ok(j)) => Some(Arc::new(j)),
            Some(Err(e)) => {
                notes.insert((None, format!("{e}; JDK callees are not resolved")), ());
                None
            }
            None => {
                notes.insert((None, "the JDK's sources (src.zip) were not found, so calls into the JDK add no impacted fields; install them with `apt-get install openjdk-17-source` or set `[analysis] jdk_sources`".into()), ());
                None
            }
        };
        if let Some(file) = &concurrent_tests {
            let why = format!("{file} lets JUnit run test methods at the same time: accesses of different tests are paired as any two threads' are");
            notes.insert((None, why), ());
        }
        Ok(Host {
            root,
            config,
            workspace,
            git,
            base,
            index: ProjectIndex::new(jdk),
            texts: HashMap::new(),
            overlays: HashMap::new(),
            base_facts: HashMap::new(),
            git_changed: BTreeMap::new(),
            renamed_from: BTreeMap::new(),
            diffs: HashMap::new(),
            sharing: None,
            notes,
            cache_use: CacheUse::default(),
            cache_writer: None,
            use_cache: options.index_cache,
            concurrent_tests,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    pub fn index(&self) -> &ProjectIndex {
        &self.index
    }

    pub fn base(&self) -> Option<&Base> {
        self.base.as_ref()
    }

    pub fn has_git(&self) -> bool {
        self.git.is_some()
    }

    pub fn notes(&self) -> Vec<Note> {
        self.notes.keys().map(|(path, message)| Note { path: path.clone(), message: message.clone() }).collect()
    }

    fn note(&mut self, path: Option<&str>, message: String) {
        self.notes.insert((path.map(str::to_string), message), ());
    }

    /// Path of a file relative to the root.
    pub fn path_of(&self, file: FileId) -> &str {
        self.index.entry(file).map_or("", |e| e.path.as_str())
    }

    /// Relative path of an absolute one inside the work tree.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let canonical = path.canonicalize().ok();
        let p = canonical.as_deref().unwrap_or(path);
        p.strip_prefix(&self.root).ok().map(|r| r.to_string_lossy().replace('\\', "/"))
    }

    pub fn is_source(&self, rel: &str) -> bool {
        self.workspace.is_source(rel)
    }

    /// Reads and indexes every Java source of the work tree (the facts of files unchanged
    /// since the index cache was written come from it), then asks git what changed. The
    /// cache is written again, on another thread, when it missed anything.
    pub fn load(&mut self) -> Result<(), String> {
        let files = self.workspace.java_files();
        let root = self.root.clone();
        let (cache, state) = match self.use_cache {
            true => IndexCache::open(&root),
            false => (None, CacheState::Disabled),
        };
        let loaded = parse_in_parallel(&files, |rel| read_source(&root.join(rel), cache.as_ref().map(|c| (c, rel))));
        let mut used = CacheUse { state, ..CacheUse::default() };
        let mut to_cache = Vec::with_capacity(files.len());
        for (rel, result) in files.iter().zip(loaded) {
            match result {
                Ok(source) => {
                    if let Some(w) = source.warning {
                        self.note(Some(rel), w);
                    }
                    match source.reused {
                        true => used.reused += 1,
                        false => used.parsed += 1,
                    }
                    self.texts.insert(rel.clone(), source.content);
                    to_cache.push((rel.clone(), source.content, source.facts.clone()));
                    self.index.upsert(rel, source.facts);
                }
                Err(e) => self.note(Some(rel), e),
            }
        }
        // Rewritten when it missed a file, or holds files that are gone.
        let leftovers = cache.as_ref().is_some_and(|c| c.len() != used.reused);
        if used.state != CacheState::Disabled && (used.state != CacheState::Read || used.parsed > 0 || leftovers) {
            drop(cache);
            self.cache_writer = Some(std::thread::spawn(move || IndexCache::write(&root, &to_cache)));
        }
        self.cache_use = used;
        self.index.commit();
        self.refresh_git()
    }

    /// How the last [`Host::load`] used the index cache.
    pub fn index_cache(&self) -> &CacheUse {
        &self.cache_use
    }

    /// Waits until the index cache the last load started writing is on disk.
    pub fn wait_for_index_cache(&mut self) -> Result<(), String> {
        match self.cache_writer.take().map(|w| w.join()) {
            None => Ok(()),
            Some(Ok(written)) => written,
            Some(Err(_)) => Err("writing the index cache panicked".into()),
        }
    }

    /// Re-reads what git says: the base (HEAD may have moved) and the changed files.
    pub fn refresh_git(&mut self) -> Result<(), String> {
        let Some(git) = &self.git else { return Ok(()) };
        let base = git.base(&self.base.as_ref().map_or("HEAD".to_string(), |b| b.rev.clone()))?;
        if Some(&base) != self.base.as_ref() {
            self.base_facts.clear();
            self.diffs.clear();
            self.base = Some(base);
        }
        let base = self.base.as_ref().expect("set above");
        let changed: Vec<ChangedPath> =
            git.changed_files(base)?.into_iter().filter(|c| self.workspace.is_source(&c.path)).collect();
        let renamed: BTreeMap<String, String> =
            changed.iter().filter_map(|c| Some((c.path.clone(), c.from.clone()?))).collect();
        let new: BTreeMap<String, FileStatus> = changed.into_iter().map(|c| (c.path, c.status)).collect();
        if renamed != self.renamed_from {
            // A file's base version is read from its old path while it counts as moved.
            self.base_facts.clear();
            self.diffs.clear();
            self.renamed_from = renamed;
        }
        if new != self.git_changed {
            self.diffs.clear();
            self.git_changed = new;
        }
        Ok(())
    }

    /// A token that changes with HEAD and the index (for watching git from outside).
    pub fn git_state(&self) -> Option<String> {
        self.git.as_ref().map(|g| g.state())
    }

    /// Re-reads one file from disk (created, changed or deleted). Call
    /// [`Host::commit`] after a batch.
    pub fn reload_file(&mut self, rel: &str) {
        if self.overlays.contains_key(rel) || !self.workspace.is_source(rel) {
            return;
        }
        match read_source(&self.root.join(rel), None) {
            Ok(source) if self.texts.get(rel) == Some(&source.content) => {}
            Ok(source) => {
                if let Some(w) = source.warning {
                    self.note(Some(rel), w);
                }
                self.texts.insert(rel.to_string(), source.content);
                self.index.upsert(rel, source.facts);
            }
            Err(_) if !self.root.join(rel).exists() => {
                self.texts.remove(rel);
                self.index.remove(rel);
            }
            Err(e) => self.note(Some(rel), e),
        }
    }

    /// Lays an unsaved buffer over a file. `facts` may come from an incremental parse;
    /// without them the text is parsed here.
    pub fn set_overlay(&mut self, rel: &str, text: Arc<str>, facts: Option<Arc<FileFacts>>) {
        if text.len() > MAX_FILE_BYTES {
            self.note(Some(rel), too_large(text.len()));
            self.overlays.remove(rel);
            self.texts.remove(rel);
            self.index.remove(rel);
            return;
        }
        let h = content_hash(&text);
        if self.texts.get(rel) == Some(&h) && self.overlays.contains_key(rel) {
            return;
        }
        let facts = facts.unwrap_or_else(|| java::parse(text.clone(), None).facts);
        self.texts.insert(rel.to_string(), h);
        self.overlays.insert(rel.to_string(), text);
        self.index.upsert(rel, facts);
    }

    /// Drops an unsaved buffer: the file on disk counts again.
    pub fn remove_overlay(&mut self, rel: &str) {
        if self.overlays.remove(rel).is_some() {
            self.texts.remove(rel);
            self.reload_file(rel);
        }
    }

    /// Makes pending file updates visible to the analysis.
    pub fn commit(&mut self) {
        self.index.commit();
    }

    fn base_facts(&mut self, rel: &str) -> Option<Arc<FileFacts>> {
        if let Some(cached) = self.base_facts.get(rel) {
            return cached.as_ref().map(|(_, f)| f.clone());
        }
        let base_path = self.renamed_from.get(rel).map_or(rel, String::as_str);
        let found = match (&self.git, &self.base) {
            (Some(git), Some(base)) => git.base_blob(base, base_path).map(|(oid, bytes)| {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                (oid, java::facts_of(&text))
            }),
            _ => None,
        };
        let facts = found.as_ref().map(|(_, f)| f.clone());
        self.base_facts.insert(rel.to_string(), found);
        facts
    }

    /// The Java sources of the base revision (paths and texts), read from the git objects;
    /// with the commit they come from. `None` outside git or before the first commit.
    pub fn base_sources(&self) -> Result<Option<(String, Vec<(String, String)>)>, String> {
        let (Some(git), Some(base)) = (&self.git, &self.base) else { return Ok(None) };
        let Some(commit) = base.commit else { return Ok(None) };
        let keep = |rel: &str| rel.ends_with(".java") && self.workspace.is_source(rel);
        let files = git
            .base_files(base, &keep)?
            .into_iter()
            .map(|(p, bytes)| (p, String::from_utf8_lossy(&bytes).into_owned()))
            .collect();
        Ok(Some((commit.to_string(), files)))
    }

    /// The base version of a file as the diff sees it, for mapping lines recorded on the base
    /// onto the working tree ([`crate::coverage`]): the base blob id, and the diff from it to
    /// the file's current text (empty when they differ only in comments and white space).
    /// `None` when the base lacks the file or the index does not hold it.
    pub fn diff_from_base(&mut self, rel: &str) -> Option<(String, FileDiff)> {
        let id = self.index.file_id(rel)?;
        self.base_facts(rel)?;
        let (oid, old) = self.base_facts.get(rel)?.as_ref()?.clone();
        let new = self.index.entry(id)?.facts.clone();
        Some((oid.to_string(), FileDiff::between(&old, &new)))
    }

    /// The files the change touches, with their diffs against the base.
    pub fn change_set(&mut self) -> ChangeSet {
        let mut set = ChangeSet::default();
        if self.git.is_none() {
            for (id, e) in self.index.entries() {
                set.files.push(ChangedFile { file: id, diff: FileDiff::new_file(&e.facts), old: None });
            }
            return set;
        }
        let mut paths: Vec<(String, Option<FileStatus>)> =
            self.git_changed.iter().map(|(p, s)| (p.clone(), Some(*s))).collect();
        for p in self.overlays.keys() {
            if !self.git_changed.contains_key(p) {
                paths.push((p.clone(), None));
            }
        }
        for (rel, status) in paths {
            let Some(id) = self.index.file_id(&rel) else {
                if status == Some(FileStatus::Deleted) {
                    if let Some(old) = self.base_facts(&rel) {
                        set.deleted.push((rel, old));
                    }
                }
                continue;
            };
            let hash = self.texts.get(&rel).copied().unwrap_or_default();
            if let Some((h, cached)) = self.diffs.get(&rel) {
                if *h == hash {
                    set.files.extend(cached.clone().map(|c| ChangedFile { file: id, ..c }));
                    continue;
                }
            }
            let old = self.base_facts(&rel);
            let new = self.index.entry(id).expect("id from the index").facts.clone();
            let diff = match &old {
                Some(o) => FileDiff::between(o, &new),
                None => FileDiff::new_file(&new),
            };
            let changed = (!diff.is_empty()).then(|| ChangedFile { file: id, diff, old });
            self.diffs.insert(rel, (hash, changed.clone()));
            set.files.extend(changed);
        }
        set.files.sort_by_key(|c| c.file);
        set
    }

    /// The impact of the current change.
    pub fn analyze(&mut self, options: &Options) -> Impact {
        self.index.commit();
        let changes = self.change_set();
        let sharing = self.sharing();
        let options = Options { concurrent_tests: self.concurrent_tests.is_some(), ..options.clone() };
        impact::analyze_with(&self.index, &changes, &sharing, &options)
    }

    /// Which objects the project shares between threads (recomputed only when a file's
    /// escape evidence changed).
    pub fn sharing(&mut self) -> Arc<Sharing> {
        let hash = evidence_hash(&self.index);
        match &self.sharing {
            Some((h, s)) if *h == hash => s.clone(),
            _ => {
                let s = Arc::new(Sharing::compute(&self.index));
                self.sharing = Some((hash, s.clone()));
                s
            }
        }
    }
}

fn too_large(bytes: usize) -> String {
    format!(
        "skipped: {:.1} MB is larger than racelens analyses ({} MB)",
        bytes as f64 / (1 << 20) as f64,
        MAX_FILE_BYTES >> 20
    )
}

/// A Java file as read from disk: its facts (with its text), and how they were had.
struct Source {
    /// Why the text is not exactly the file's bytes.
    warning: Option<String>,
    /// [`content_hash`] of the text.
    content: u128,
    facts: Arc<FileFacts>,
    /// The facts came from the index cache.
    reused: bool,
}

type Loaded = Result<Source, String>;

/// Reads a Java file: binary files are refused, non-UTF-8 text is read with replacement
/// characters (and a note). Its facts come from `cache` when it holds them for this text.
fn read_source(path: &Path, cache: Option<(&IndexCache, &str)>) -> Loaded {
    let size = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?.len() as usize;
    if size > MAX_FILE_BYTES {
        return Err(too_large(size));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err("skipped: a binary file (it contains NUL bytes), not Java source".into());
    }
    let (text, warning) = match String::from_utf8(bytes) {
        Ok(t) => (t, None),
        Err(e) => (
            String::from_utf8_lossy(e.as_bytes()).into_owned(),
            Some("not valid UTF-8: analysed with replacement characters (save it as UTF-8)".to_string()),
        ),
    };
    let text: Arc<str> = Arc::from(text);
    let content = content_hash(&text);
    let cached = cache.and_then(|(cache, rel)| cache.facts(rel, &text, content));
    let reused = cached.is_some();
    let facts = cached.unwrap_or_else(|| java::parse(text.clone(), None).facts);
    Ok(Source { warning, content, facts, reused })
}

/// Parses files on rayon's pool (in the order given), so that large files spread out.
fn parse_in_parallel(files: &[String], read: impl Fn(&str) -> Loaded + Sync) -> Vec<Loaded> {
    use rayon::prelude::*;
    files.par_iter().map(|f| read(f)).collect()
}
