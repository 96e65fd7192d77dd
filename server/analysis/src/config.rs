//! `racelens.toml` at the repository root. Every key is optional; unknown keys are
//! reported by name (a typo should not silently change nothing).
//!
//! ```toml
//! [java]
//! source_roots = ["src/main/java", "src/test/java"]  # default: detected
//! classpath = ["lib/*.jar", "target/classes"]       # jars or class dirs, globs
//! classpath_command = "./print-classpath.sh"         # or: a command that prints the classpath
//! build_tool = "auto"                                # "maven", "gradle", or "none": which build to ask
//! maven_args = ["-Dmaven.repo.local=/srv/m2"]        # more arguments for `mvn`
//! gradle_args = ["--no-daemon"]                      # more arguments for `gradle`
//! offline = true                                     # run the build tool offline (`-o`, `--offline`)
//! jvm_args = ["-Xmx1g"]                              # the test JVM's options (default: the build's)
//! system_properties = { "pool.size" = "4" }          # added to the build's, these win
//! working_dir = "core"                               # default: the module's folder, as the build
//! assertions = true                                  # `-ea` (default true, as Surefire and Gradle)
//! build = "mvn -o -q test-compile"                   # optional: build the classes yourself
//! classes = ["target/classes", "target/test-classes"] # what `build` produces
//!
//! [analysis]
//! exclude = ["**/generated/**"]                      # globs, relative to the root
//! jdk_sources = "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip"
//! ```

use std::path::Path;

pub const FILE_NAME: &str = "racelens.toml";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Source roots relative to the repository root; `None`: detect them.
    pub source_roots: Option<Vec<String>>,
    pub classpath: Vec<String>,
    /// A command that prints the classpath (entries separated by `:` or new lines); used
    /// when `classpath` is empty, instead of asking the build tool.
    pub classpath_command: Option<String>,
    /// Which build tool to read the classpath from: `None` is `auto` (Maven or Gradle, from
    /// the build files), else `maven`, `gradle` or `none`.
    pub build_tool: Option<BuildTool>,
    /// More arguments for Maven and Gradle (a local repository, a profile, `--no-daemon`).
    pub maven_args: Vec<String>,
    pub gradle_args: Vec<String>,
    /// Whether the build tool runs offline (`-o`, `--offline`); `None`: yes.
    pub offline: Option<bool>,
    /// The test JVM's options; `None`: the build's (Surefire's `argLine`, Gradle's `jvmArgs`).
    pub jvm_args: Option<Vec<String>>,
    /// System properties of the test JVM, added to the build's; a key in both takes this value.
    pub system_properties: Vec<(String, String)>,
    /// The test JVM's working directory, relative to the root; `None`: the build's, else
    /// the module's folder.
    pub working_dir: Option<String>,
    /// Whether the test runs with assertions enabled; `None`: the build's, else yes.
    pub assertions: Option<bool>,
    /// A command that builds the project's classes (instead of racelens compiling them).
    pub build: Option<String>,
    /// Class directories or jars the build produces (with `build`).
    pub classes: Vec<String>,
    pub exclude: Vec<String>,
    /// The JDK's `src.zip`; `None`: find it next to the JDK.
    pub jdk_sources: Option<String>,
    /// Problems that do not stop the analysis (unknown keys), one sentence each.
    pub warnings: Vec<String>,
}

/// `[java] build_tool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildTool {
    Maven,
    Gradle,
    /// Never ask a build tool: the classpath is `[java] classpath` (or JUnit from Debian).
    None,
}

/// Settings that take precedence over the file (from an editor's configuration).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub source_roots: Option<Vec<String>>,
    pub classpath: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    pub jdk_sources: Option<String>,
}

impl Config {
    /// This configuration with every set override applied.
    pub fn overridden(mut self, o: &Overrides) -> Config {
        if let Some(v) = &o.source_roots {
            self.source_roots = Some(v.clone());
        }
        if let Some(v) = &o.classpath {
            self.classpath = v.clone();
        }
        if let Some(v) = &o.exclude {
            self.exclude = v.clone();
        }
        if let Some(v) = &o.jdk_sources {
            self.jdk_sources = Some(v.clone());
        }
        self
    }
}

/// Keys racelens knows, per table.
const KNOWN: &[(&str, &[&str])] = &[
    (
        "java",
        &[
            "source_roots",
            "classpath",
            "classpath_command",
            "build_tool",
            "maven_args",
            "gradle_args",
            "offline",
            "jvm_args",
            "system_properties",
            "working_dir",
            "assertions",
            "build",
            "classes",
        ],
    ),
    ("analysis", &["exclude", "jdk_sources"]),
];

impl Config {
    /// Reads `racelens.toml` from `root`; no file is the default configuration.
    pub fn load(root: &Path) -> Result<Config, String> {
        let path = root.join(FILE_NAME);
        match std::fs::read_to_string(&path) {
            Ok(text) => Config::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let value: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string().trim().to_string())?;
        let mut config = Config::default();
        for (table, v) in &value {
            let Some((_, keys)) = KNOWN.iter().find(|(t, _)| t == table) else {
                config.warnings.push(format!("unknown table `[{table}]` in {FILE_NAME}"));
                continue;
            };
            let Some(entries) = v.as_table() else {
                return Err(format!("`{table}` must be a table (`[{table}]`)"));
            };
            for (key, v) in entries {
                if !keys.contains(&key.as_str()) {
                    config
                        .warnings
                        .push(format!("unknown key `{table}.{key}` in {FILE_NAME} (known: {})", keys.join(", ")));
                    continue;
                }
                match (table.as_str(), key.as_str()) {
                    ("java", "source_roots") => config.source_roots = Some(strings(v, table, key)?),
                    ("java", "classpath") => config.classpath = strings(v, table, key)?,
                    ("java", "classes") => config.classes = strings(v, table, key)?,
                    ("java", "build") => config.build = Some(string(v, table, key)?),
                    ("java", "classpath_command") => config.classpath_command = Some(string(v, table, key)?),
                    ("java", "build_tool") => {
                        config.build_tool = match string(v, table, key)?.as_str() {
                            "auto" => None,
                            "maven" => Some(BuildTool::Maven),
                            "gradle" => Some(BuildTool::Gradle),
                            "none" => Some(BuildTool::None),
                            other => {
                                return Err(format!(
                                "`{table}.{key}` must be \"auto\", \"maven\", \"gradle\" or \"none\", not \"{other}\""
                            ))
                            }
                        }
                    }
                    ("java", "maven_args") => config.maven_args = strings(v, table, key)?,
                    ("java", "gradle_args") => config.gradle_args = strings(v, table, key)?,
                    ("java", "offline") => config.offline = Some(boolean(v, table, key)?),
                    ("java", "jvm_args") => config.jvm_args = Some(strings(v, table, key)?),
                    ("java", "system_properties") => {
                        let err =
                            || format!("`{table}.{key}` must be a table of strings (`{{ \"name\" = \"value\" }}`)");
                        let t = v.as_table().ok_or_else(err)?;
                        config.system_properties = t
                            .iter()
                            .map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                            .collect::<Option<_>>()
                            .ok_or_else(err)?;
                    }
                    ("java", "working_dir") => config.working_dir = Some(string(v, table, key)?),
                    ("java", "assertions") => config.assertions = Some(boolean(v, table, key)?),
                    ("analysis", "exclude") => config.exclude = strings(v, table, key)?,
                    ("analysis", "jdk_sources") => {
                        config.jdk_sources =
                            Some(v.as_str().ok_or_else(|| format!("`{table}.{key}` must be a string"))?.to_string())
                    }
                    _ => unreachable!("every known key is handled"),
                }
            }
        }
        Ok(config)
    }
}

fn string(v: &toml::Value, table: &str, key: &str) -> Result<String, String> {
    v.as_str().map(str::to_string).ok_or_else(|| format!("`{table}.{key}` must be a string"))
}

fn boolean(v: &toml::Value, table: &str, key: &str) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| format!("`{table}.{key}` must be true or false"))
}

fn strings(v: &toml::Value, table: &str, key: &str) -> Result<Vec<String>, String> {
    let err = || format!("`{table}.{key}` must be a list of strings");
    v.as_array().ok_or_else(err)?.iter().map(|s| s.as_str().map(str::to_string).ok_or_else(err)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named_and_known_ones_read() {
        let c = Config::parse("[java]\nsource_roots = [\"app/src\"]\nclaspath = [\"x\"]\n[analysis]\nexclude = [\"**/gen/**\"]\n[other]\n").unwrap();
        assert_eq!(c.source_roots, Some(vec!["app/src".to_string()]));
        assert_eq!(c.exclude, vec!["**/gen/**".to_string()]);
        assert_eq!(c.warnings.len(), 2);
        assert!(c.warnings[0].contains("`java.claspath`"), "{:?}", c.warnings);
        assert!(c.warnings[1].contains("`[other]`"));
    }

    #[test]
    fn build_and_test_jvm_keys_are_read() {
        let c = Config::parse(
            "[java]\nclasspath_command = \"cat cp.txt\"\nbuild_tool = \"gradle\"\nmaven_args = [\"-Pfast\"]\ngradle_args = [\"--no-daemon\"]\noffline = false\n\
             jvm_args = [\"-Xmx1g\"]\nsystem_properties = { \"pool.size\" = \"4\", a = \"b\" }\nworking_dir = \"core\"\nassertions = false\n",
        )
        .unwrap();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(c.classpath_command.as_deref(), Some("cat cp.txt"));
        assert_eq!(c.build_tool, Some(BuildTool::Gradle));
        assert_eq!((c.maven_args, c.gradle_args), (vec!["-Pfast".to_string()], vec!["--no-daemon".to_string()]));
        assert_eq!((c.offline, c.assertions), (Some(false), Some(false)));
        assert_eq!(c.jvm_args, Some(vec!["-Xmx1g".to_string()]));
        assert_eq!(
            c.system_properties,
            vec![("a".to_string(), "b".to_string()), ("pool.size".to_string(), "4".to_string())]
        );
        assert_eq!(c.working_dir.as_deref(), Some("core"));
        assert_eq!(Config::parse("[java]\nbuild_tool = \"auto\"\n").unwrap().build_tool, None);
    }

    #[test]
    fn wrong_types_and_syntax_are_errors() {
        assert!(Config::parse("[java]\nsource_roots = \"src\"\n").unwrap_err().contains("list of strings"));
        assert!(Config::parse("[java]\nbuild_tool = \"ant\"\n").unwrap_err().contains("\"ant\""));
        assert!(Config::parse("[java]\nassertions = \"yes\"\n").unwrap_err().contains("true or false"));
        assert!(Config::parse("[java]\nsystem_properties = { a = 1 }\n").unwrap_err().contains("table of strings"));
        assert!(Config::parse("[java\n").is_err());
    }
}
