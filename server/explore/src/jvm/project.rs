//! The project model: the classes a test runs against, and how its JVM runs.
//!
//! The classpath comes from the first of: `[java] classpath` in racelens.toml;
//! `[java] classpath_command`; the Maven or Gradle build that holds the test
//! ([`crate::jvm::build`]); else JUnit from Debian. With a build, racelens compiles only
//! the test's module and the modules of the build it depends on, from the build's source
//! roots (so a module elsewhere that does not compile does not matter); otherwise every
//! source it analysed. It compiles with javac outside the work tree (in the cache),
//! incrementally, per module: when only method bodies changed, only the changed files are
//! compiled again. With `[java] build = "..."` the project builds itself and
//! `[java] classes = [...]` says where the classes are.
//!
//! When the whole does not compile (upstream repositories often have a file that needs
//! what the classpath here lacks) and the test's file is known, racelens compiles what the
//! test reaches instead: the test's file alone, with the sources' roots (found from each
//! file's package) as javac's source path, so that javac compiles the classes the test
//! names, transitively, and no other. A note says so, with the whole's errors; the base
//! revision is compiled the same way. Classes loaded only by name are then missing.
//!
//! A compile that fails is summarised ([`crate::jvm::javac_errors`]): the missing packages
//! and classes with the files that need them, and where the classpath came from; javac's
//! full output is written next to the classes, and kept in [`PrepareError`].

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use racelens_analysis::cache_dir::{stable_hash, stable_hash_of};
use racelens_analysis::config::Config;
use racelens_analysis::host::Host;
use racelens_analysis::index::declarations_hash;
use racelens_analysis::java::FileFacts;

use crate::jvm::build::{self, Processors, Tool};
use crate::jvm::java::Jdk;
use crate::jvm::javac_errors::{self, JavacSummary};
use crate::jvm::test_jvm::TestJvm;

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
    /// Everything on the test's classpath: the classes, resource folders, then libraries.
    pub classpath: Vec<PathBuf>,
    /// What happened: `compiled 12 files`, `up to date`, `built with ...`.
    pub summary: String,
    /// Where the classpath came from, in one line:
    /// `classpath: maven 3.8.7, module pool-core (+ pool-api as sources), 14 jars, cached`.
    pub classpath_line: String,
    /// How the test JVM runs: assertions, options, system properties, working directory.
    pub jvm: TestJvm,
    /// Reading the classpath (the build model, cached or not).
    pub classpath_time: Duration,
    /// Compiling (javac, or `[java] build`); zero when up to date.
    pub compile_time: Duration,
    /// Things worth saying that did not stop anything (a JVM option left out).
    pub notes: Vec<String>,
    /// What was compiled, against what: the base revision is compiled the same way.
    unit: Unit,
    /// How many source files the last compile of what a test reaches took in (javac's own
    /// count); `None` for any other compile, or when up to date.
    compiled_files: Option<usize>,
}

/// A compile: which sources (by root), against what, into which cache folder.
#[derive(Clone, Debug)]
struct Unit {
    /// The module's folder in the cache (`modules/<name>`); `None`: the work tree's own.
    key: Option<String>,
    /// Source roots (absolute) of the modules compiled; `None`: every analysed source.
    roots: Option<Vec<PathBuf>>,
    libs: Vec<PathBuf>,
    resources: Vec<PathBuf>,
    /// `None`: no annotation processing (`-proc:none`), as without a build.
    processors: Option<Processors>,
    /// What was compiled, for messages: `module pool-core (+ pool-api)`.
    what: String,
    /// Where the classpath came from and how to change it, for a failed compile.
    origin: String,
    /// Compile only what this source file (relative to the work tree) reaches: javac's
    /// implicit compilation over the sources' roots ([`compile_reached`]). Set when the
    /// whole unit does not compile.
    reached_from: Option<String>,
}

/// Why a project could not be prepared; javac's own output when it was javac.
#[derive(Clone, Debug)]
pub struct PrepareError {
    pub message: String,
    pub javac: Option<Box<JavacFailure>>,
}

/// A failed compile: javac's full output (paths relative to the work tree), where it is
/// kept on disk, and its summary.
#[derive(Clone, Debug)]
pub struct JavacFailure {
    pub output: String,
    pub log: PathBuf,
    pub summary: JavacSummary,
}

impl std::fmt::Display for PrepareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for PrepareError {
    fn from(message: String) -> PrepareError {
        PrepareError { message, javac: None }
    }
}

impl From<PrepareError> for String {
    fn from(e: PrepareError) -> String {
        e.message
    }
}

pub use racelens_analysis::cache_dir::{claim_cache, project_cache};

/// The classpath configured in `racelens.toml` (globs relative to the root), with
/// Debian's JUnit jars when the configuration names none.
pub fn libraries(root: &Path, configured: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for entry in configured {
        let pattern =
            if Path::new(entry).is_absolute() { entry.clone() } else { root.join(entry).display().to_string() };
        let matches: Vec<PathBuf> = glob::glob(&pattern)
            .map_err(|e| format!("bad classpath entry `{entry}` in racelens.toml: {e}"))?
            .flatten()
            .collect();
        if matches.is_empty() && !pattern.contains(['*', '?', '[']) {
            return Err(format!("classpath entry `{entry}` in racelens.toml does not exist"));
        }
        out.extend(matches);
    }
    Ok(with_junit(out))
}

/// `libs`, with Debian's JUnit jars when none of them is a JUnit.
fn with_junit(mut libs: Vec<PathBuf>) -> Vec<PathBuf> {
    if !libs.iter().any(|p| p.to_string_lossy().contains("junit")) {
        libs.extend(DEBIAN_TEST_JARS.iter().map(PathBuf::from).filter(|p| p.is_file()));
    }
    libs
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
        let files =
            host.index().entries().map(|(_, e)| (e.path.clone(), e.facts.text.clone(), api_hash(&e.facts))).collect();
        Sources { root: host.root().to_path_buf(), config: host.config().clone(), files }
    }
}

/// Prepares the classes a test runs against, and its JVM settings. `test_file` is the
/// source file of the test (relative to the root, or absolute): with it, racelens asks the
/// build that holds it for the classpath and compiles only its module; without it, every
/// analysed source is compiled against `[java] classpath` (or Debian's JUnit).
pub fn prepare(sources: &Sources, jdk: &Jdk, test_file: Option<&Path>) -> Result<Project, PrepareError> {
    let root = &sources.root;
    claim_cache(root);
    let config = &sources.config;
    let started = Instant::now();
    let mut notes = Vec::new();
    if let Some(build) = &config.build {
        let libs = libraries(root, &config.classpath)?;
        let jvm = TestJvm::of(root, config, None, root, &mut notes);
        return Ok(built(root, build, &config.classes, libs, jvm, notes)?);
    }
    let test_file = test_file.map(|f| if f.is_absolute() { f.to_path_buf() } else { root.join(f) });
    let (unit, line, jvm) = unit_for(sources, jdk, test_file.as_deref(), &mut notes)?;
    let classpath_time = started.elapsed();
    let files = select(sources, &unit, true);
    if let (Some(file), Some(roots)) = (&test_file, &unit.roots) {
        if !roots.iter().any(|r| file.starts_with(r)) {
            return Err(format!(
                "{} is not in the source roots the build gives {} ({}); racelens compiles those only. {}",
                file.display(),
                unit.what,
                roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", "),
                unit.origin
            )
            .into());
        }
    }
    let cache = match &unit.key {
        Some(key) => project_cache(root).join("modules").join(key),
        None => project_cache(root),
    };
    let compile_started = Instant::now();
    let test_rel =
        test_file.as_deref().and_then(|f| f.strip_prefix(root).ok()).map(|f| f.to_string_lossy().replace('\\', "/"));
    let mut project = compile_unit(root, files, jdk, &unit, &cache, test_rel.as_deref(), &mut notes)?;
    project.compile_time = if project.summary == "up to date" { Duration::ZERO } else { compile_started.elapsed() };
    project.classpath_time = classpath_time;
    project.classpath_line = line;
    project.jvm = jvm;
    project.notes = notes;
    Ok(project)
}

/// Where the classpath comes from (racelens.toml, a command, the build, or nothing), what
/// to compile, the one line that says so, and the test JVM's settings.
fn unit_for(
    sources: &Sources,
    jdk: &Jdk,
    test_file: Option<&Path>,
    notes: &mut Vec<String>,
) -> Result<(Unit, String, TestJvm), PrepareError> {
    let root = &sources.root;
    let config = &sources.config;
    let everything = |libs: Vec<PathBuf>, origin: String| Unit {
        key: None,
        roots: None,
        libs,
        resources: Vec::new(),
        processors: None,
        what: "every analysed source".into(),
        origin,
        reached_from: None,
    };
    if !config.classpath.is_empty() {
        let libs = libraries(root, &config.classpath)?;
        let n = config.classpath.len();
        let line = format!("classpath: racelens.toml, {n} entr{}", if n == 1 { "y" } else { "ies" });
        let origin = "The classpath is `[java] classpath` from racelens.toml: add the jars or class folders that hold what is missing.".to_string();
        return Ok((everything(libs, origin), line, TestJvm::of(root, config, None, root, notes)));
    }
    if let Some(command) = &config.classpath_command {
        let printed = build::command::run(root, command)?;
        let line = printed.line(command);
        let origin = format!(
            "The classpath is what `[java] classpath_command` (`{command}`) printed: make it print what is missing."
        );
        return Ok((
            everything(with_junit(printed.entries), origin),
            line,
            TestJvm::of(root, config, None, root, notes),
        ));
    }
    if let Some(file) = test_file {
        if let Some(read) = build::read(root, config, file, jdk)? {
            let line = read.line();
            let m = &read.model;
            let what = if m.dependencies.is_empty() {
                format!("module {}", m.module.name)
            } else {
                format!(
                    "module {} (+ {})",
                    m.module.name,
                    m.dependencies.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", ")
                )
            };
            let (tool, source) = match m.tool {
                Tool::Maven => ("Maven", "Surefire's argLine"),
                Tool::Gradle => ("Gradle", "the Gradle test task's jvmArgs"),
            };
            let origin = format!(
                "The classpath is {tool}'s for {what} ({} jars), and racelens compiled the build's source roots of those modules. \
                 What the build has only after it ran (generated sources, a plugin's output) is missing here: set `[java] classpath` or \
                 `[java] classpath_command` in racelens.toml to give the whole classpath.",
                m.classpath.len()
            );
            let key = format!("{}-{:08x}", safe(&m.module.name), stable_hash(m.module.id.as_bytes()) as u32);
            let jvm = TestJvm::of(root, config, Some((&m.test, source)), &m.module.dir, notes);
            let unit = Unit {
                key: Some(key),
                roots: Some(m.source_roots()),
                libs: with_junit(m.classpath.clone()),
                resources: m.resource_dirs(),
                processors: Some(m.processors.clone()),
                what,
                origin,
                reached_from: None,
            };
            return Ok((unit, line, jvm));
        }
    }
    let (line, origin) = match test_file {
        Some(_) => (
            "classpath: no Maven or Gradle build holds the test, and racelens.toml names none: JUnit from Debian".to_string(),
            "No classpath is configured and no Maven or Gradle build holds the test (only JUnit from Debian is on the classpath): name the jars with `[java] classpath = [\"lib/*.jar\"]` in racelens.toml, or a command that prints the classpath with `[java] classpath_command`.".to_string(),
        ),
        None => (
            "classpath: racelens.toml names none: JUnit from Debian".to_string(),
            "No classpath is configured (only JUnit from Debian is on the classpath): name the jars with `[java] classpath = [\"lib/*.jar\"]` in racelens.toml, or a command that prints the classpath with `[java] classpath_command`.".to_string(),
        ),
    };
    Ok((everything(with_junit(Vec::new()), origin), line, TestJvm::of(root, config, None, root, notes)))
}

/// A module name as a folder name.
fn safe(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect()
}

/// The sources of `unit`: the analysed ones under its roots (unsaved buffers included),
/// and, `from_disk`, the Java files under those roots the analysis does not hold (an
/// excluded folder, generated sources the build declares).
fn select(sources: &Sources, unit: &Unit, from_disk: bool) -> Vec<(String, Arc<str>, u64)> {
    let Some(roots) = &unit.roots else { return sources.files.clone() };
    let mut out: BTreeMap<String, (Arc<str>, u64)> = BTreeMap::new();
    for root in roots {
        let prefix = match root.strip_prefix(&sources.root) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            // A root outside the work tree: its files under a name of their own.
            Err(_) => format!("_outside/{:016x}", stable_hash(root.to_string_lossy().as_bytes())),
        };
        let under =
            |p: &str| prefix.is_empty() || p.strip_prefix(prefix.as_str()).is_some_and(|rest| rest.starts_with('/'));
        for (path, text, api) in &sources.files {
            if under(path) {
                out.insert(path.clone(), (text.clone(), *api));
            }
        }
        if from_disk {
            let mut found = Vec::new();
            java_files(root, &mut found);
            for file in found {
                let Ok(rel) = file.strip_prefix(root) else { continue };
                let key = if prefix.is_empty() {
                    rel.to_string_lossy().into_owned()
                } else {
                    format!("{prefix}/{}", rel.to_string_lossy())
                };
                if out.contains_key(&key) {
                    continue;
                }
                if let Ok(bytes) = std::fs::read(&file) {
                    let text: Arc<str> = Arc::from(String::from_utf8_lossy(&bytes).into_owned());
                    let h = hash(&*text);
                    out.insert(key, (text, h));
                }
            }
        }
    }
    out.into_iter().map(|(p, (t, a))| (p, t, a)).collect()
}

/// Every `.java` file under `dir`.
fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => java_files(&path, out),
            Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "java") => out.push(path),
            _ => {}
        }
    }
}

/// `[java] build`: run the project's own build, then take its classes.
fn built(
    root: &Path,
    build: &str,
    classes: &[String],
    libs: Vec<PathBuf>,
    jvm: TestJvm,
    notes: Vec<String>,
) -> Result<Project, String> {
    let started = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(build)
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run the build `{build}`: {e}"))?;
    if !out.status.success() {
        let log = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        return Err(format!("the build `{build}` failed ({}):\n{}", out.status, tail(&log, 60)));
    }
    if classes.is_empty() {
        return Err(
            "racelens.toml has `[java] build` but no `classes = [...]` saying where the built classes are".into()
        );
    }
    let dirs: Vec<PathBuf> = classes.iter().map(|c| root.join(c)).collect();
    if let Some(missing) = dirs.iter().find(|d| !d.exists()) {
        return Err(format!(
            "the build ran, but {} does not exist (check `[java] classes` in racelens.toml)",
            missing.display()
        ));
    }
    let classpath = dirs.iter().cloned().chain(libs.iter().cloned()).collect();
    let unit = Unit {
        key: None,
        roots: None,
        libs,
        resources: Vec::new(),
        processors: None,
        what: "the project".into(),
        origin: String::new(),
        reached_from: None,
    };
    Ok(Project {
        root: root.to_path_buf(),
        classes: dirs,
        classpath,
        summary: format!("built with `{build}`"),
        classpath_line: "classpath: built by `[java] build`, classes from `[java] classes`".to_string(),
        jvm,
        classpath_time: Duration::ZERO,
        compile_time: started.elapsed(),
        notes,
        unit,
        compiled_files: None,
    })
}

/// A content hash for the compile cache's manifest (on disk: stable across runs).
fn hash<T: Hash>(t: T) -> u64 {
    stable_hash_of(&t)
}

/// What other files compile against: declarations, and the values of constants (javac
/// copies those into the classes that use them).
fn api_hash(facts: &FileFacts) -> u64 {
    let constants: Vec<&str> =
        facts.fields.iter().filter(|f| f.is_static && f.is_final).map(|f| facts.text_of(f.decl_span)).collect();
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
        return Err(
            "the project builds itself (`[java] build` in racelens.toml): racelens cannot build the base revision"
                .into(),
        );
    }
    // The base never changes: the content hash stands for the API hash too.
    let files = files
        .into_iter()
        .map(|(p, text)| {
            let h = hash(&text);
            (p, Arc::from(text), h)
        })
        .collect();
    Ok(Some((commit, Sources { root: host.root().to_path_buf(), config: config.clone(), files })))
}

/// Compiles the base revision's sources once per commit into the project's cache
/// (outside the work tree; the newest few commits are kept), the way `like` (the working
/// tree's project) was compiled: the same module's source roots, the same classpath and
/// test JVM settings (the build files are not read at the base revision).
pub fn build_base(commit: &str, sources: &Sources, jdk: &Jdk, like: &Project) -> Result<Project, String> {
    let root = &sources.root;
    claim_cache(root);
    let bases = project_cache(root).join("base");
    prune_bases(&bases, commit);
    let cache = match &like.unit.key {
        Some(key) => bases.join(commit).join("modules").join(key),
        None => bases.join(commit),
    };
    let files = select(sources, &like.unit, false);
    let started = Instant::now();
    let cache = match &like.unit.reached_from {
        Some(test) => reached_cache(&cache, test),
        None => cache,
    };
    let mut project = compile_into(root, files, jdk, &like.unit, &cache)
        .map_err(|e| format!("the base revision {}: {e}", &commit[..commit.len().min(10)]))?;
    project.compile_time = if project.summary == "up to date" { Duration::ZERO } else { started.elapsed() };
    project.classpath_line = like.classpath_line.clone();
    project.jvm = like.jvm.clone();
    Ok(project)
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

/// Compiles `unit`; when it does not compile and the test's file is known, compiles what
/// the test reaches instead ([`compile_reached`]), and says so in `notes`. A tree whose
/// whole failed before, unchanged since (`whole-failed.txt`), goes straight to the test's
/// part, so a repository with a file that never compiles pays for the failure once.
fn compile_unit(
    root: &Path,
    files: Vec<(String, Arc<str>, u64)>,
    jdk: &Jdk,
    unit: &Unit,
    cache: &Path,
    test: Option<&str>,
    notes: &mut Vec<String>,
) -> Result<Project, PrepareError> {
    let Some(test) = test.filter(|t| files.iter().any(|(p, _, _)| p == t)) else {
        return compile_into(root, files, jdk, unit, cache);
    };
    let whole =
        format!("{:016x}\n", hash((&files.iter().map(|(p, _, h)| (p, *h)).collect::<Vec<_>>(), join(&unit.libs))));
    let failed_path = cache.join("whole-failed.txt");
    let known_failure = std::fs::read_to_string(&failed_path).ok();
    let why = if known_failure.as_ref().is_some_and(|k| k.starts_with(&whole)) {
        known_failure.unwrap_or_default()[whole.len()..].to_string()
    } else {
        match compile_into(root, files.clone(), jdk, unit, cache) {
            Ok(project) => {
                let _ = std::fs::remove_file(&failed_path);
                return Ok(project);
            }
            Err(e) => {
                let Some(javac) = &e.javac else { return Err(e) };
                let why = format!(
                    "the project as a whole ({}) does not compile ({} error{} in {})",
                    unit.what,
                    javac.summary.errors,
                    if javac.summary.errors == 1 { "" } else { "s" },
                    javac_errors::listed(javac.summary.error_files().into_iter(), 3)
                );
                let _ = std::fs::create_dir_all(cache);
                let _ = std::fs::write(&failed_path, format!("{whole}{why}"));
                why
            }
        }
    };
    let reached = Unit { what: format!("what {test} reaches"), reached_from: Some(test.to_string()), ..unit.clone() };
    let total = files.len();
    let at = reached_cache(cache, test);
    let project = compile_into(root, files, jdk, &reached, &at).map_err(|mut e| {
        // `the project does not compile (javac, what T reaches: ...)` follows the whole's failure.
        let rest = e.message.strip_prefix("the project does not compile ").unwrap_or(&e.message);
        e.message = format!("{why}, nor does what the test reaches {rest}");
        e
    })?;
    // javac counts the files when it compiles; an up-to-date compile reads that count.
    let count_path = at.join("reached-files.txt");
    let count = match project.compiled_files {
        Some(n) => {
            let _ = std::fs::write(&count_path, n.to_string());
            Some(n)
        }
        None => std::fs::read_to_string(&count_path).ok().and_then(|t| t.trim().parse().ok()),
    };
    let count = count.map_or(String::new(), |n| format!(" ({n} of {total} files, by javac's implicit compilation)"));
    notes.push(format!(
        "{why}: racelens compiled only what {test} reaches{count}; classes the test loads only by name \
         (reflection, ServiceLoader) are missing"
    ));
    Ok(project)
}

/// Where the classes of what `test` reaches are kept, beside the unit's.
fn reached_cache(cache: &Path, test: &str) -> PathBuf {
    cache.join("reached").join(format!("{:016x}", stable_hash(test.as_bytes())))
}

/// The source root of a file: its path without the folders of its package
/// (`src/main/java` for `src/main/java/org/x/A.java` in `package org.x;`); `None` when the
/// path does not end with them.
fn source_root(rel: &str, text: &str) -> Option<String> {
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let package = package_of(text).unwrap_or_default();
    if package.is_empty() {
        return Some(dir.to_string());
    }
    let folders = package.replace('.', "/");
    if dir == folders {
        return Some(String::new());
    }
    dir.strip_suffix(&format!("/{folders}")).map(str::to_string)
}

/// The package a Java file declares (`None`: the default package), read past comments and
/// annotations.
fn package_of(text: &str) -> Option<String> {
    let mut in_block = false;
    for line in text.lines() {
        let mut line = line.trim();
        if in_block {
            match line.find("*/") {
                Some(end) => {
                    in_block = false;
                    line = line[end + 2..].trim();
                }
                None => continue,
            }
        }
        if line.starts_with("/*") {
            match line.find("*/") {
                Some(end) => line = line[end + 2..].trim(),
                None => {
                    in_block = true;
                    continue;
                }
            }
        }
        if line.is_empty() || line.starts_with("//") || line.starts_with('@') {
            continue;
        }
        return line.strip_prefix("package ").map(|rest| rest.split(';').next().unwrap_or("").trim().to_string());
    }
    None
}

/// Compiles `files` into `cache` (`src/`, `classes/`, `manifest.txt`), incrementally: the
/// whole unit again when a declaration or the classpath changed, else the changed files.
fn compile_into(
    root: &Path,
    files: Vec<(String, Arc<str>, u64)>,
    jdk: &Jdk,
    unit: &Unit,
    cache: &Path,
) -> Result<Project, PrepareError> {
    let root = root.to_path_buf();
    let cache = cache.to_path_buf();
    let (src, classes, generated) = (cache.join("src"), cache.join("classes"), cache.join("generated"));
    let (manifest_path, settings_path, log_path) =
        (cache.join("manifest.txt"), cache.join("classpath.txt"), cache.join("javac.log"));
    let processor_args: Vec<String> = match &unit.processors {
        None | Some(Processors::None) => vec!["-proc:none".into()],
        Some(Processors::Classpath) => vec!["-s".into(), generated.display().to_string()],
        Some(Processors::Path(path)) => {
            vec!["-processorpath".into(), join(path), "-s".into(), generated.display().to_string()]
        }
    };
    // What the classes were compiled against: another classpath compiles everything again.
    let settings =
        format!("{:016x}\n", stable_hash(format!("{}\0{}", join(&unit.libs), processor_args.join("\0")).as_bytes()));
    let same_settings = std::fs::read_to_string(&settings_path).is_ok_and(|s| s == settings);
    let old = if classes.is_dir() && same_settings { read_manifest(&manifest_path) } else { Manifest::new() };
    let mut now = Manifest::new();
    let mut texts = BTreeMap::new();
    for (path, text, api) in files {
        now.insert(path.clone(), (hash(&*text), api));
        texts.insert(path, text);
    }
    if now.is_empty() {
        let hint =
            if unit.roots.is_some() { unit.origin.as_str() } else { "check `[java] source_roots` in racelens.toml" };
        return Err(format!("no Java sources found for {} under {} ({hint})", unit.what, root.display()).into());
    }
    let same_files = old.keys().eq(now.keys());
    let same_api = same_files && old.iter().zip(&now).all(|((_, (_, a)), (_, (_, b)))| a == b);
    let changed: Vec<&String> =
        now.iter().filter(|(p, (c, _))| old.get(*p).map(|o| o.0) != Some(*c)).map(|(p, _)| p).collect();
    let libs_cp = join(&unit.libs);
    let mut compiled_files = None;
    let summary = if same_api && changed.is_empty() {
        "up to date".to_string()
    } else {
        // What a test reaches is found by javac from its file: the whole, every time.
        let full = !same_api || unit.reached_from.is_some();
        if full {
            let _ = std::fs::remove_dir_all(&classes);
            let _ = std::fs::remove_dir_all(&src);
            let _ = std::fs::remove_dir_all(&generated);
        }
        std::fs::create_dir_all(&classes).map_err(|e| format!("cannot create {}: {e}", classes.display()))?;
        if unit.processors.as_ref().is_some_and(|p| *p != Processors::None) {
            std::fs::create_dir_all(&generated).map_err(|e| format!("cannot create {}: {e}", generated.display()))?;
        }
        let to_compile: Vec<&String> = if full { now.keys().collect() } else { changed };
        for rel in &to_compile {
            let dest = src.join(rel);
            std::fs::create_dir_all(dest.parent().unwrap())
                .map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
            std::fs::write(&dest, texts[*rel].as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", dest.display()))?;
        }
        let argfile = cache.join("sources.txt");
        // What a test reaches: its file alone, the others found on the source path.
        let (list, reach_args): (Vec<String>, Vec<String>) = match &unit.reached_from {
            Some(test) => {
                let roots: BTreeSet<String> = texts
                    .iter()
                    .filter_map(|(rel, text)| source_root(rel, text))
                    .map(|r| src.join(r).display().to_string())
                    .collect();
                let path = roots.into_iter().collect::<Vec<_>>().join(":");
                (
                    vec![src.join(test).display().to_string()],
                    vec!["-sourcepath".into(), path, "-implicit:class".into(), "-verbose".into()],
                )
            }
            None => (to_compile.iter().map(|rel| src.join(rel).display().to_string()).collect(), Vec::new()),
        };
        std::fs::write(&argfile, list.join("\n")).map_err(|e| format!("cannot write {}: {e}", argfile.display()))?;
        let cp = if full { libs_cp.clone() } else { format!("{}:{libs_cp}", classes.display()) };
        let out = Command::new(jdk.javac()?)
            .args(["-d"])
            .arg(&classes)
            .args(["-cp", &cp, "-encoding", "UTF-8", "-g", "-nowarn", "-Xmaxerrs", "1000"])
            .args(&processor_args)
            .args(&reach_args)
            .arg(format!("@{}", argfile.display()))
            .output()
            .map_err(|e| format!("cannot run javac: {e}"))?;
        let out = match unit.reached_from {
            // `-verbose` names each source file javac parsed; the rest of it is noise.
            Some(_) => {
                let (parsed, rest) = verbose_split(&out.stderr);
                compiled_files = Some(parsed);
                std::process::Output { stderr: rest, ..out }
            }
            None => out,
        };
        if !out.status.success() {
            let _ = std::fs::remove_file(&manifest_path);
            return Err(javac_failed(&src, &out, &log_path, unit));
        }
        let _ = std::fs::remove_file(&log_path);
        write_manifest(&manifest_path, &now)?;
        std::fs::write(&settings_path, &settings)
            .map_err(|e| format!("cannot write {}: {e}", settings_path.display()))?;
        let n = compiled_files.unwrap_or(to_compile.len());
        format!("compiled {n} file{}{}", if n == 1 { "" } else { "s" }, if full { "" } else { " (bodies only)" })
    };
    let classpath = std::iter::once(classes.clone())
        .chain(unit.resources.iter().cloned())
        .chain(unit.libs.iter().cloned())
        .collect();
    let jvm = TestJvm::plain(&root);
    Ok(Project {
        root,
        classes: vec![classes],
        classpath,
        summary,
        classpath_line: String::new(),
        jvm,
        classpath_time: Duration::ZERO,
        compile_time: Duration::ZERO,
        notes: Vec::new(),
        unit: unit.clone(),
        compiled_files,
    })
}

/// javac's `-verbose` stderr: how many source files it parsed, and the other lines (its
/// diagnostics) without the `[...]` progress lines.
fn verbose_split(stderr: &[u8]) -> (usize, Vec<u8>) {
    let text = String::from_utf8_lossy(stderr);
    let mut parsed = BTreeSet::new();
    let mut rest = String::new();
    for line in text.lines() {
        if let Some(file) = line.strip_prefix("[parsing started ") {
            parsed.insert(file.to_string());
        } else if !(line.starts_with('[') && line.ends_with(']')) {
            rest.push_str(line);
            rest.push('\n');
        }
    }
    (parsed.len(), rest.into_bytes())
}

/// The error of a failed compile: the summary, where the classpath came from, and the
/// file that keeps javac's full output.
fn javac_failed(src: &Path, out: &std::process::Output, log_path: &Path, unit: &Unit) -> PrepareError {
    // Report against the work tree, not the cache's copy.
    let output = (String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
        .replace(&format!("{}/", src.display()), "");
    let summary = javac_errors::summarize(&output);
    let kept = std::fs::write(log_path, &output).is_ok();
    let counts = if summary.errors == 0 {
        String::new()
    } else {
        format!(
            ": {} error{} in {} file{}",
            summary.errors,
            if summary.errors == 1 { "" } else { "s" },
            summary.file_count(),
            if summary.file_count() == 1 { "" } else { "s" }
        )
    };
    let body = if summary.errors == 0 { format!("{}\n", tail(&output, 30)) } else { summary.render() };
    let log = if kept { format!("\njavac's full output: {}", log_path.display()) } else { String::new() };
    let message = format!("the project does not compile (javac, {}{counts}):\n{body}{}{log}", unit.what, unit.origin);
    PrepareError { message, javac: Some(Box::new(JavacFailure { output, log: log_path.to_path_buf(), summary })) }
}

pub fn join(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(":")
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
