//! The build's own answer to "what does this test compile and run against": the module
//! that holds the test, the reactor modules it depends on (as sources, which racelens
//! compiles), the resolved test classpath, and the test JVM's settings, read from Maven or
//! Gradle themselves rather than guessed from the build files.
//!
//! Why ask the build tool: a classpath comes from parent POMs, BOMs, profiles, version
//! catalogs, dependency management, plugins and the user's `settings.xml`; only the tool
//! itself evaluates all of that the way the developer's build (and IDE) does. So racelens
//! runs the user's tool normally (its wrapper when the build has one, offline by default),
//! with a small reader of its own loaded into it:
//!
//! - Maven ([`maven`]): a core extension (`RacelensBuildModel.java`, embedded here and
//!   compiled on first use against the Maven installation's own `lib/`). It is a lifecycle
//!   participant: after Maven read the reactor it resolves the test classpath through
//!   Maven's resolver, reads Surefire's effective configuration, writes one file, and
//!   leaves Maven nothing to run (`pre-clean` with no plugins). Unlike
//!   `dependency:build-classpath`, it needs no plugin from any repository, and it sees the
//!   source roots and Surefire's settings.
//! - Gradle ([`gradle`]): an init script (`racelens-model.gradle`) that adds one task to the
//!   project holding the test, which resolves that source set's runtime classpath and reads
//!   the `Test` task's settings. Written for Gradle 4.4 (Debian's) and current Gradle.
//!
//! Both write the same line format ([`lines`]). An answer is used only when complete and
//! free of errors; a failure names the command, its last lines, and the `racelens.toml`
//! keys that avoid it. The answer is cached per work tree ([`cache`]), keyed by the content
//! of every build file. `[java] classpath` and `[java] classpath_command` ([`command`]) come
//! first: with either, no build tool runs.

pub mod cache;
pub mod command;
pub mod gradle;
pub mod lines;
pub mod maven;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use racelens_analysis::config::{BuildTool, Config};
use serde::{Deserialize, Serialize};

use crate::jvm::java::Jdk;

/// The build tools racelens can ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tool {
    Maven,
    Gradle,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Maven => "maven",
            Tool::Gradle => "gradle",
        }
    }

    /// `Maven`, `Gradle`: in sentences.
    pub fn title(self) -> &'static str {
        match self {
            Tool::Maven => "Maven",
            Tool::Gradle => "Gradle",
        }
    }
}

/// A module's sources as the build declares them: for the test's module its main and test
/// source sets, for a module it depends on its main one (and its tests for a test jar).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleSources {
    /// `org.example:pool-core` (Maven), `:pool-core` (Gradle).
    pub id: String,
    /// The artifact or project name: `pool-core`.
    pub name: String,
    pub dir: PathBuf,
    /// Java source roots (absolute; some may not exist).
    pub sources: Vec<PathBuf>,
    /// Resource folders (absolute; some may not exist): put on the classpath as they are.
    pub resources: Vec<PathBuf>,
}

/// Annotation processing as the build configures it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Processors {
    /// javac's default: processors found on the classpath.
    Classpath,
    /// `-processorpath` (Maven's `annotationProcessorPaths`, Gradle's `annotationProcessor`).
    Path(Vec<PathBuf>),
    /// `-proc:none` (maven-compiler-plugin's `<proc>none</proc>`).
    None,
}

/// The build's test JVM settings: Surefire's `argLine`, `systemPropertyVariables`,
/// `workingDirectory`, `enableAssertions`; Gradle's `Test` task's `jvmArgs` (and heap
/// sizes), `systemProperties`, `workingDir`, `enableAssertions`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestSettings {
    /// JVM options, split as the build splits them; placeholders the build resolves only
    /// while it runs (`@{argLine}`) are still in, for [`crate::jvm::test_jvm`] to drop.
    pub jvm_args: Vec<String>,
    pub system_properties: Vec<(String, String)>,
    pub working_dir: Option<PathBuf>,
    pub assertions: Option<bool>,
}

/// What the build says about the module that holds a test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildModel {
    pub tool: Tool,
    /// The tool's version (`3.8.7`, `4.4.1`).
    pub version: String,
    /// Where the tool ran: the folder of the top `pom.xml`, or of `settings.gradle`.
    pub build_root: PathBuf,
    /// The module that holds the test.
    pub module: ModuleSources,
    /// The modules of the same build it depends on, transitively, in classpath order.
    pub dependencies: Vec<ModuleSources>,
    /// Jars and class folders from outside the build, in the build's order.
    pub classpath: Vec<PathBuf>,
    pub processors: Processors,
    pub test: TestSettings,
}

impl BuildModel {
    /// Every source root to compile: the module's, then its dependencies'.
    pub fn source_roots(&self) -> Vec<PathBuf> {
        std::iter::once(&self.module).chain(&self.dependencies).flat_map(|m| m.sources.iter().cloned()).collect()
    }

    /// Every resource folder that exists, the module's first.
    pub fn resource_dirs(&self) -> Vec<PathBuf> {
        std::iter::once(&self.module)
            .chain(&self.dependencies)
            .flat_map(|m| m.resources.iter().cloned())
            .filter(|d| d.is_dir())
            .collect()
    }
}

/// A model and how it was had.
#[derive(Clone, Debug)]
pub struct Read {
    pub model: BuildModel,
    /// Taken from the cache, without running the tool.
    pub cached: bool,
    pub took: Duration,
}

impl Read {
    /// `classpath: maven 3.8.7, module pool-core (+ pool-api as sources), 14 jars, cached`.
    pub fn line(&self) -> String {
        let m = &self.model;
        let deps = if m.dependencies.is_empty() {
            String::new()
        } else {
            format!(" (+ {} as sources)", m.dependencies.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", "))
        };
        let jars = m.classpath.len();
        let how = if self.cached { "cached".to_string() } else { format!("read in {:.1} s", self.took.as_secs_f64()) };
        format!(
            "classpath: {} {}, module {}{deps}, {jars} jar{}, {how}",
            m.tool.name(),
            m.version,
            m.module.name,
            if jars == 1 { "" } else { "s" }
        )
    }
}

/// The build that holds a file: the tool and the folder to run it in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub tool: Tool,
    pub build_root: PathBuf,
}

const GRADLE_SETTINGS: &[&str] = &["settings.gradle", "settings.gradle.kts"];
const GRADLE_BUILDS: &[&str] = &["build.gradle", "build.gradle.kts"];

/// The build that holds `file` (absolute), looking from its folder up to `root`: for Maven
/// the topmost folder with a `pom.xml` (the reactor's root), for Gradle the topmost with a
/// `settings.gradle(.kts)`, else with a `build.gradle(.kts)`. With both, the one whose root
/// is higher; Maven on a tie. `[java] build_tool` picks one, or none.
pub fn locate(root: &Path, file: &Path, choice: Option<BuildTool>) -> Result<Option<Located>, String> {
    if choice == Some(BuildTool::None) {
        return Ok(None);
    }
    let mut maven = None;
    let (mut settings, mut gradle_build) = (None, None);
    let start = file.parent().unwrap_or(root);
    for dir in start.ancestors() {
        if !dir.starts_with(root) {
            break;
        }
        if dir.join("pom.xml").is_file() {
            maven = Some(dir.to_path_buf());
        }
        if GRADLE_SETTINGS.iter().any(|f| dir.join(f).is_file()) {
            settings = Some(dir.to_path_buf());
        }
        if GRADLE_BUILDS.iter().any(|f| dir.join(f).is_file()) {
            gradle_build = Some(dir.to_path_buf());
        }
    }
    let gradle = settings.or(gradle_build);
    let depth = |p: &PathBuf| p.components().count();
    let pick = match (choice, maven, gradle) {
        (Some(BuildTool::Maven), Some(m), _) => Some(Located { tool: Tool::Maven, build_root: m }),
        (Some(BuildTool::Gradle), _, Some(g)) => Some(Located { tool: Tool::Gradle, build_root: g }),
        (Some(BuildTool::Maven), None, _) => {
            return Err(format!(
                "`[java] build_tool = \"maven\"` in racelens.toml, but no pom.xml holds {}",
                file.display()
            ))
        }
        (Some(BuildTool::Gradle), _, None) => {
            return Err(format!(
                "`[java] build_tool = \"gradle\"` in racelens.toml, but no Gradle build holds {}",
                file.display()
            ))
        }
        (_, Some(m), Some(g)) if depth(&g) < depth(&m) => Some(Located { tool: Tool::Gradle, build_root: g }),
        (_, Some(m), _) => Some(Located { tool: Tool::Maven, build_root: m }),
        (_, None, Some(g)) => Some(Located { tool: Tool::Gradle, build_root: g }),
        (_, None, None) => None,
    };
    Ok(pick)
}

/// The model of the module that holds `file` (absolute), from the cache when the build
/// files are unchanged, else from the build tool. `Ok(None)`: no build holds the file.
pub fn read(root: &Path, config: &Config, file: &Path, jdk: &Jdk) -> Result<Option<Read>, String> {
    let Some(located) = locate(root, file, config.build_tool)? else { return Ok(None) };
    let start = Instant::now();
    let key = cache::key(&located, config);
    if let Some(model) = cache::load(root, &key, file) {
        return Ok(Some(Read { model, cached: true, took: start.elapsed() }));
    }
    let out = cache::scratch(root, &key)?;
    let _ = std::fs::remove_file(&out);
    let result = match located.tool {
        Tool::Maven => maven::run(&located, config, file, &out, jdk),
        Tool::Gradle => gradle::run(&located, root, config, file, &out),
    };
    let text = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    let (ran, output) = result?;
    let model =
        lines::parse(text.as_deref(), &located, file).map_err(|why| failed(&located, &ran, &output, &why, config))?;
    if !output.status.success() {
        return Err(failed(&located, &ran, &output, &format!("it ended with {}", output.status), config));
    }
    cache::store(root, &key, &model);
    Ok(Some(Read { model, cached: false, took: start.elapsed() }))
}

/// A command as a user would type it, to name it in messages.
pub fn shown(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs a build tool's command, or says that it cannot be started.
fn output_of(mut cmd: Command, located: &Located) -> Result<(String, Output), String> {
    let ran = shown(&cmd);
    let output = cmd
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `{ran}` in {}: {e}\n{}", located.build_root.display(), avoid(located.tool)))?;
    Ok((ran, output))
}

/// The keys of racelens.toml that take the classpath from elsewhere.
fn avoid(tool: Tool) -> String {
    let args = match tool {
        Tool::Maven => "`[java] maven_args` (e.g. `[\"-Dmaven.repo.local=...\"]`, or `offline = false`)",
        Tool::Gradle => "`[java] gradle_args` (or `offline = false`)",
    };
    format!(
        "To read the build differently set {args} in racelens.toml; to skip the build tool, set `[java] classpath = [\"lib/*.jar\", ...]`, `[java] classpath_command = \"...\"`, or `[java] build_tool = \"none\"`."
    )
}

/// The error for a tool that ran but gave no usable answer.
fn failed(located: &Located, ran: &str, output: &Output, why: &str, config: &Config) -> String {
    let log = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    let tail = tail_of(&log, 25);
    let offline = config.offline.unwrap_or(true);
    let network = offline
        && ["offline", "Offline", "No cached version", "has not been downloaded"]
            .iter()
            .any(|w| log.contains(w) || why.contains(w));
    let hint = if network {
        " It ran offline and needs something it has not downloaded: run the build once online (or set `[java] offline = false`)."
    } else {
        ""
    };
    let why = why.trim_end().trim_end_matches('.');
    format!(
        "cannot read the {} build in {}: {why}.{hint}\nracelens ran: {ran}\n{}{}",
        located.tool.title(),
        located.build_root.display(),
        if tail.is_empty() { String::new() } else { format!("its last lines:\n{tail}\n") },
        avoid(located.tool)
    )
}

/// The last `lines` lines of a tool's output that say something, without terminal colours.
fn tail_of(text: &str, lines: usize) -> String {
    let plain = strip_ansi(text);
    let all: Vec<&str> = plain.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// `text` without ANSI escape sequences (`ESC [ ... letter`), which Maven prints even in
/// batch mode.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `name` on `PATH`, or the build's wrapper script.
fn program(build_root: &Path, wrapper: &str, name: &str) -> Result<Command, String> {
    let wrapper = build_root.join(wrapper);
    if wrapper.is_file() {
        return Ok(if is_executable(&wrapper) {
            Command::new(wrapper)
        } else {
            let mut c = Command::new("sh");
            c.arg(wrapper);
            c
        });
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file() && is_executable(p))
        .map(Command::new)
        .ok_or_else(|| {
            format!(
                "`{name}` not found (not on PATH, and no `{}` in {})",
                wrapper.file_name().unwrap_or_default().to_string_lossy(),
                build_root.display()
            )
        })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        dir
    }

    #[test]
    fn the_reactor_root_is_the_topmost_build_file_above_the_test() {
        let t = tree(&[
            "pom.xml",
            "core/pom.xml",
            "core/src/test/java/A.java",
            "tools/build.gradle",
            "tools/sub/build.gradle",
            "tools/sub/src/test/java/B.java",
        ]);
        let root = t.path();
        let maven = locate(root, &root.join("core/src/test/java/A.java"), None).unwrap().unwrap();
        assert_eq!(maven, Located { tool: Tool::Maven, build_root: root.to_path_buf() });
        let gradle = locate(root, &root.join("tools/sub/src/test/java/B.java"), None).unwrap().unwrap();
        assert_eq!((gradle.tool, gradle.build_root), (Tool::Maven, root.to_path_buf()), "the root pom is higher");
        let gradle =
            locate(root, &root.join("tools/sub/src/test/java/B.java"), Some(BuildTool::Gradle)).unwrap().unwrap();
        assert_eq!(gradle, Located { tool: Tool::Gradle, build_root: root.join("tools") });
        assert_eq!(locate(root, &root.join("core/src/test/java/A.java"), Some(BuildTool::None)).unwrap(), None);
        assert!(locate(root, &root.join("core/src/test/java/A.java"), Some(BuildTool::Gradle))
            .unwrap_err()
            .contains("no Gradle build"));
    }

    #[test]
    fn tool_output_loses_colours_and_blank_lines() {
        assert_eq!(tail_of("\u{1b}[0m\u{1b}[1;31m[ERROR]\u{1b}[m bad pom\n\n  \nlast\n", 5), "[ERROR] bad pom\nlast");
        assert_eq!(tail_of("a\nb\nc\n", 2), "b\nc");
    }

    #[test]
    fn settings_gradle_marks_the_root_and_no_build_is_none() {
        let t = tree(&["settings.gradle", "app/build.gradle", "app/src/test/java/A.java"]);
        let root = t.path();
        let g = locate(root, &root.join("app/src/test/java/A.java"), None).unwrap().unwrap();
        assert_eq!(g, Located { tool: Tool::Gradle, build_root: root.to_path_buf() });
        let t2 = tree(&["plain/src/B.java"]);
        assert_eq!(locate(t2.path(), &t2.path().join("plain/src/B.java"), None).unwrap(), None);
    }
}
