//! The Java files of a work tree: source roots (configured, or detected the way Maven
//! and Gradle lay projects out), walked with `.gitignore` respected, minus excludes.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::config::Config;

/// Directories that never hold sources worth analysing.
const SKIP_DIRS: &[&str] = &["target", "build", "out", "node_modules", ".git", ".gradle", ".idea"];

pub struct Workspace {
    pub root: PathBuf,
    /// Source roots relative to `root` (`""` is the root itself).
    pub source_roots: Vec<String>,
    exclude: GlobSet,
}

impl Workspace {
    pub fn new(root: &Path, config: &Config) -> Result<Workspace, String> {
        let source_roots = match &config.source_roots {
            Some(roots) => roots.iter().map(|r| r.trim_end_matches('/').to_string()).collect(),
            None => detect_source_roots(root),
        };
        let mut builder = GlobSetBuilder::new();
        for g in &config.exclude {
            builder.add(Glob::new(g).map_err(|e| format!("bad exclude glob `{g}` in racelens.toml: {e}"))?);
        }
        let exclude = builder.build().map_err(|e| e.to_string())?;
        Ok(Workspace { root: root.to_path_buf(), source_roots, exclude })
    }

    /// Whether a path (relative, `/`-separated) is a Java source racelens analyses.
    pub fn is_source(&self, rel: &str) -> bool {
        rel.ends_with(".java")
            && !self.exclude.is_match(rel)
            && !rel.split('/').any(|part| SKIP_DIRS.contains(&part))
            && self.source_roots.iter().any(|r| r.is_empty() || rel.starts_with(&format!("{r}/")))
    }

    /// Every Java source file, relative to the root, sorted.
    pub fn java_files(&self) -> Vec<String> {
        let mut out = Vec::new();
        for r in &self.source_roots {
            let dir = if r.is_empty() { self.root.clone() } else { self.root.join(r) };
            if !dir.is_dir() {
                continue;
            }
            let walker = ignore::WalkBuilder::new(&dir)
                .hidden(true)
                .git_ignore(true)
                .require_git(false)
                .filter_entry(|e| {
                    !(e.file_type().is_some_and(|t| t.is_dir())
                        && SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
                })
                .build();
            for entry in walker.flatten() {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let Ok(rel) = entry.path().strip_prefix(&self.root) else { continue };
                let rel = rel.to_string_lossy().replace('\\', "/");
                if self.is_source(&rel) {
                    out.push(rel);
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// `src/main/java`, `src/test/java`, `src`, `test` at the root and in module directories
/// one or two levels down; the root itself when none exists. Nested roots collapse into
/// the outermost one.
pub fn detect_source_roots(root: &Path) -> Vec<String> {
    const CANDIDATES: &[&str] = &["src/main/java", "src/test/java", "src", "test"];
    let mut found = Vec::new();
    let mut bases = vec![String::new()];
    for base in list_dirs(root, "") {
        bases.push(base.clone());
        bases.extend(list_dirs(root, &base));
    }
    for base in &bases {
        for c in CANDIDATES {
            let rel = if base.is_empty() { c.to_string() } else { format!("{base}/{c}") };
            if root.join(&rel).is_dir() {
                found.push(rel);
            }
        }
    }
    found.sort();
    let mut roots: Vec<String> = Vec::new();
    for f in found {
        if !roots.iter().any(|r| f.starts_with(&format!("{r}/"))) {
            roots.push(f);
        }
    }
    if roots.is_empty() {
        roots.push(String::new());
    }
    roots
}

fn list_dirs(root: &Path, rel: &str) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(root.join(rel)) else { return Vec::new() };
    let mut out: Vec<String> = read
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !n.starts_with('.') && !SKIP_DIRS.contains(&n.as_str()) && !matches!(n.as_str(), "src" | "test"))
        .map(|n| if rel.is_empty() { n } else { format!("{rel}/{n}") })
        .collect();
    out.sort();
    out
}
