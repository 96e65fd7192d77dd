//! The project model: the classes a test runs against.
//!
//! By default racelens compiles the sources it analysed (unsaved buffers included) with
//! javac, outside the work tree (in the cache), incrementally: when only method bodies
//! changed, only the changed files are compiled again. With `[java] build = "..."` the
//! project builds itself and `[java] classes = [...]` says where the classes are.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use racelens_analysis::config::Config;
use racelens_analysis::host::Host;
use racelens_analysis::index::declarations_hash;
use racelens_analysis::java::FileFacts;

use crate::jvm::java::Jdk;

/// JUnit and its companions as Debian installs them; added to the classpath when the
/// configuration names no JUnit of its own.
const DEBIAN_TEST_JARS: &[&str] = &[
    "/usr/share/java/junit4.jar",
    "/usr/share/java/hamcrest-core.jar",
    "/usr/share/java/junit-jupiter-api.jar",
    "/usr/share/java/junit-jupiter-params.jar",
    "/usr/share/java/opentest4j.jar",
    "/usr/share/java/apiguardian-api.jar",
    "/usr/share/java/junit-platform-commons.jar",
];

#[derive(Clone, Debug)]
pub struct Project {
    pub root: PathBuf,
    /// Class directories and jars of the project itself: the classes the agent instruments.
    pub classes: Vec<PathBuf>,
    /// Everything on the test's classpath: the classes, then libraries.
    pub classpath: Vec<PathBuf>,
    /// What happened: `compiled 12 files`, `up to date`, `built with ...`.
    pub summary: String,
}

pub use racelens_analysis::cache_dir::{claim_cache, project_cache};

/// The classpath configured in `racelens.toml` (globs relative to the root), with
/// Debian's JUnit jars when the configuration names none.
pub fn libraries(root: &Path, configured: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for entry in configured {
        let pattern = if Path::new(entry).is_absolute() { entry.clone() } else { root.join(entry).display().to_string() };
        let matches: Vec<PathBuf> = glob::glob(&pattern).map_err(|e| format!("bad classpath entry `{entry}` in racelens.toml: {e}"))?.flatten().collect();
        if matches.is_empty() && !pattern.contains(['*', '?', '[']) {
            return Err(format!("classpath entry `{entry}` in racelens.toml does not exist"));
        }
        out.extend(matches);
    }
    if !out.iter().any(|p| p.to_string_lossy().contains("junit")) {
        out.extend(DEBIAN_TEST_JARS.iter().map(PathBuf::from).filter(|p| p.is_file()));
    }
    Ok(out)
}

/// What a test runs against, taken from the analysis host at one moment (unsaved buffers
/// included), so that compiling can happen on another thread while the host moves on.
#[derive(Clone)]
pub struct Sources {
    pub root: PathBuf,
    pub config: Config,
    /// `(path, text, api hash)` of every Java source.
    pub files: Vec<(String, Arc<str>, u64)>,
}

impl Sources {
    pub fn of(host: &Host) -> Sources {
        let files = host.index().entries().map(|(_, e)| (e.path.clone(), e.facts.text.clone(), api_hash(&e.facts))).collect();
        Sources { root: host.root().to_path_buf(), config: host.config().clone(), files }
    }
}

/// Prepares the classes of a project for running tests.
pub fn prepare(sources: &Sources, jdk: &Jdk) -> Result<Project, String> {
    claim_cache(&sources.root);
    let config = &sources.config;
    let libs = libraries(&sources.root, &config.classpath)?;
    if let Some(build) = &config.build {
        return built(&sources.root, build, &config.classes, libs);
    }
    compile(sources, jdk, libs)
}

/// `[java] build`: run the project's own build, then take its classes.
fn built(root: &Path, build: &str, classes: &[String], libs: Vec<PathBuf>) -> Result<Project, String> {
    let out = Command::new("sh").arg("-c").arg(build).current_dir(root).output().map_err(|e| format!("cannot run the build `{build}`: {e}"))?;
    if !out.status.success() {
        let log = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        return Err(format!("the build `{build}` failed ({}):\n{}", out.status, tail(&log, 60)));
    }
    if classes.is_empty() {
        return Err("racelens.toml has `[java] build` but no `classes = [...]` saying where the built classes are".into());
    }
    let dirs: Vec<PathBuf> = classes.iter().map(|c| root.join(c)).collect();
    if let Some(missing) = dirs.iter().find(|d| !d.exists()) {
        return Err(format!("the build ran, but {} does not exist (check `[java] classes` in racelens.toml)", missing.display()));
    }
    let classpath = dirs.iter().cloned().chain(libs).collect();
    Ok(Project { root: root.to_path_buf(), classes: dirs, classpath, summary: format!("built with `{build}`") })
}

fn hash<T: Hash>(t: T) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// What other files compile against: declarations, and the values of constants (javac
/// copies those into the classes that use them).
fn api_hash(facts: &FileFacts) -> u64 {
    let constants: Vec<&str> = facts.fields.iter().filter(|f| f.is_static && f.is_final).map(|f| facts.text_of(f.decl_span)).collect();
    hash((declarations_hash(facts), constants))
}

type Manifest = BTreeMap<String, (u64, u64)>;

fn read_manifest(path: &Path) -> Manifest {
    let Ok(text) = std::fs::read_to_string(path) else { return Manifest::new() };
    text.lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ' ');
            let content = u64::from_str_radix(f.next()?, 16).ok()?;
            let api = u64::from_str_radix(f.next()?, 16).ok()?;
            Some((f.next()?.to_string(), (content, api)))
        })
        .collect()
}

fn write_manifest(path: &Path, m: &Manifest) -> Result<(), String> {
    let text: String = m.iter().map(|(p, (c, a))| format!("{c:016x} {a:016x} {p}\n")).collect();
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The base revision's sources (read from the git objects, unsaved buffers aside) and its
/// commit: what [`build_base`] compiles to run a test on the version before the change
/// (`racelens impact`). `None` outside git or before the first commit. A project that
/// builds itself (`[java] build`) cannot be built at another revision by racelens: an
/// error says so.
pub fn base_sources(host: &Host) -> Result<Option<(String, Sources)>, String> {
    let Some((commit, files)) = host.base_sources()? else { return Ok(None) };
    let config = host.config();
    if config.build.is_some() {
        return Err("the project builds itself (`[java] build` in racelens.toml): racelens cannot build the base revision".into());
    }
    // The base never changes: the content hash stands for the API hash too.
    let files = files.into_iter().map(|(p, text)| { let h = hash(&text); (p, Arc::from(text), h) }).collect();
    Ok(Some((commit, Sources { root: host.root().to_path_buf(), config: config.clone(), files })))
}

/// Compiles the base revision's sources once per commit into the project's cache
/// (outside the work tree; the newest few commits are kept).
pub fn build_base(commit: &str, sources: &Sources, jdk: &Jdk) -> Result<Project, String> {
    let root = &sources.root;
    claim_cache(root);
    let libs = libraries(root, &sources.config.classpath)?;
    let bases = project_cache(root).join("base");
    prune_bases(&bases, commit);
    compile_into(sources, jdk, libs, &bases.join(commit)).map_err(|e| format!("the base revision {}: {e}", &commit[..commit.len().min(10)]))
}

/// Keeps the newest few base builds besides `keep` (one folder per commit).
fn prune_bases(bases: &Path, keep: &str) {
    let mut dirs: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(bases)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy() != keep)
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    dirs.sort();
    let excess = dirs.len().saturating_sub(2);
    for (_, dir) in dirs.into_iter().take(excess) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Compiles the sources into the cache.
fn compile(sources: &Sources, jdk: &Jdk, libs: Vec<PathBuf>) -> Result<Project, String> {
    compile_into(sources, jdk, libs, &project_cache(&sources.root))
}

/// Compiles the sources into `cache` (`src/`, `classes/`, `manifest.txt`), incrementally.
fn compile_into(sources: &Sources, jdk: &Jdk, libs: Vec<PathBuf>, cache: &Path) -> Result<Project, String> {
    let root = sources.root.clone();
    let cache = cache.to_path_buf();
    let (src, classes, manifest_path) = (cache.join("src"), cache.join("classes"), cache.join("manifest.txt"));
    let old = if classes.is_dir() { read_manifest(&manifest_path) } else { Manifest::new() };
    let mut now = Manifest::new();
    let mut texts = BTreeMap::new();
    for (path, text, api) in &sources.files {
        now.insert(path.clone(), (hash(&**text), *api));
        texts.insert(path.clone(), text.clone());
    }
    if now.is_empty() {
        return Err(format!("no Java sources found under {} (check `[java] source_roots` in racelens.toml)", root.display()));
    }
    let same_files = old.keys().eq(now.keys());
    let same_api = same_files && old.iter().zip(&now).all(|((_, (_, a)), (_, (_, b)))| a == b);
    let changed: Vec<&String> = now.iter().filter(|(p, (c, _))| old.get(*p).map(|o| o.0) != Some(*c)).map(|(p, _)| p).collect();
    let libs_cp = join(&libs);
    let summary = if same_api && changed.is_empty() {
        "up to date".to_string()
    } else {
        let full = !same_api;
        if full {
            let _ = std::fs::remove_dir_all(&classes);
            let _ = std::fs::remove_dir_all(&src);
        }
        std::fs::create_dir_all(&classes).map_err(|e| format!("cannot create {}: {e}", classes.display()))?;
        let to_compile: Vec<&String> = if full { now.keys().collect() } else { changed };
        for rel in &to_compile {
            let dest = src.join(rel);
            std::fs::create_dir_all(dest.parent().unwrap()).map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
            std::fs::write(&dest, texts[*rel].as_bytes()).map_err(|e| format!("cannot write {}: {e}", dest.display()))?;
        }
        let argfile = cache.join("sources.txt");
        let list: Vec<String> = to_compile.iter().map(|rel| src.join(rel).display().to_string()).collect();
        std::fs::write(&argfile, list.join("\n")).map_err(|e| format!("cannot write {}: {e}", argfile.display()))?;
        let cp = if full { libs_cp.clone() } else { format!("{}:{libs_cp}", classes.display()) };
        let out = Command::new(jdk.javac()?)
            .args(["-d"])
            .arg(&classes)
            .args(["-cp", &cp, "-encoding", "UTF-8", "-g", "-proc:none", "-nowarn", "-Xmaxerrs", "30"])
            .arg(format!("@{}", argfile.display()))
            .output()
            .map_err(|e| format!("cannot run javac: {e}"))?;
        if !out.status.success() {
            // Report against the work tree, not the cache's copy.
            let log = String::from_utf8_lossy(&out.stderr).replace(&format!("{}/", src.display()), "");
            let _ = std::fs::remove_file(&manifest_path);
            return Err(format!("the project does not compile (javac):\n{}", tail(&log, 60)));
        }
        write_manifest(&manifest_path, &now)?;
        let n = to_compile.len();
        format!("compiled {n} file{}{}", if n == 1 { "" } else { "s" }, if full { "" } else { " (bodies only)" })
    };
    let classpath = std::iter::once(classes.clone()).chain(libs).collect();
    Ok(Project { root, classes: vec![classes], classpath, summary })
}

pub fn join(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(":")
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
