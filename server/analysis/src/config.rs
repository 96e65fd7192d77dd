//! `racelens.toml` at the repository root. Every key is optional; unknown keys are
//! reported by name (a typo should not silently change nothing).
//!
//! ```toml
//! [java]
//! source_roots = ["src/main/java", "src/test/java"]  # default: detected
//! classpath = ["lib/*.jar", "target/classes"]       # jars or class dirs, globs
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
const KNOWN: &[(&str, &[&str])] = &[("java", &["source_roots", "classpath", "build", "classes"]), ("analysis", &["exclude", "jdk_sources"])];

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
                    config.warnings.push(format!("unknown key `{table}.{key}` in {FILE_NAME} (known: {})", keys.join(", ")));
                    continue;
                }
                match (table.as_str(), key.as_str()) {
                    ("java", "source_roots") => config.source_roots = Some(strings(v, table, key)?),
                    ("java", "classpath") => config.classpath = strings(v, table, key)?,
                    ("java", "classes") => config.classes = strings(v, table, key)?,
                    ("java", "build") => config.build = Some(v.as_str().ok_or_else(|| format!("`{table}.{key}` must be a string"))?.to_string()),
                    ("analysis", "exclude") => config.exclude = strings(v, table, key)?,
                    ("analysis", "jdk_sources") => {
                        config.jdk_sources = Some(v.as_str().ok_or_else(|| format!("`{table}.{key}` must be a string"))?.to_string())
                    }
                    _ => unreachable!("every known key is handled"),
                }
            }
        }
        Ok(config)
    }
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
    fn wrong_types_and_syntax_are_errors() {
        assert!(Config::parse("[java]\nsource_roots = \"src\"\n").unwrap_err().contains("list of strings"));
        assert!(Config::parse("[java\n").is_err());
    }
}
