//! How the test's JVM runs: as the build runs tests, then as racelens.toml says.
//!
//! Surefire and Gradle's `test` task both run tests with assertions enabled (`-ea`), in
//! the module's folder; racelens does the same, also without a build. The build's JVM
//! options (Surefire's `argLine`, Gradle's `jvmArgs`), system properties and working
//! directory are used where set; `[java] jvm_args`, `system_properties`, `working_dir` and
//! `assertions` override them. A placeholder the build fills in only while it runs
//! (`@{argLine}`, which jacoco's `prepare-agent` sets) or one it never resolved (`${...}`)
//! would make the JVM fail to start: such an option is dropped, with a note.

use std::path::{Path, PathBuf};

use racelens_analysis::config::Config;

use crate::jvm::build::TestSettings;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestJvm {
    /// `-ea` (with racelens's own packages left out).
    pub assertions: bool,
    /// JVM options, before racelens's own (which win where they clash).
    pub args: Vec<String>,
    pub system_properties: Vec<(String, String)>,
    pub working_dir: PathBuf,
}

/// Whether a value still holds a placeholder of the build.
fn unresolved(value: &str) -> Option<&str> {
    for open in ["@{", "${"] {
        if let Some(start) = value.find(open) {
            let end = value[start..].find('}').map_or(value.len(), |e| start + e + 1);
            return Some(&value[start..end]);
        }
    }
    None
}

impl TestJvm {
    /// A JVM in `default_dir` with assertions on and nothing else, as in a project without a build.
    pub fn plain(default_dir: &Path) -> TestJvm {
        TestJvm {
            assertions: true,
            args: Vec::new(),
            system_properties: Vec::new(),
            working_dir: default_dir.to_path_buf(),
        }
    }

    /// The build's settings (`build`, read in `source`: `Surefire's argLine`), then the
    /// configuration's; `default_dir` is where the test runs when neither says. Notes say
    /// what was dropped.
    pub fn of(
        root: &Path,
        config: &Config,
        build: Option<(&TestSettings, &str)>,
        default_dir: &Path,
        notes: &mut Vec<String>,
    ) -> TestJvm {
        let mut jvm = TestJvm::plain(default_dir);
        if let Some((settings, source)) = build {
            for arg in &settings.jvm_args {
                match unresolved(arg) {
                    Some(p) => notes.push(format!(
                        "left out `{arg}` from {source}: `{p}` is filled in only while the build runs (set `[java] jvm_args` in racelens.toml to choose the test JVM's options)"
                    )),
                    None => jvm.args.push(arg.clone()),
                }
            }
            for (k, v) in &settings.system_properties {
                match unresolved(v) {
                    Some(p) => notes.push(format!("left out the system property `{k}={v}` of the build: `{p}` is not resolved (set it in `[java] system_properties`)")),
                    None => jvm.system_properties.push((k.clone(), v.clone())),
                }
            }
            if let Some(dir) = &settings.working_dir {
                if dir.is_dir() {
                    jvm.working_dir = dir.clone();
                } else {
                    notes.push(format!(
                        "the build's test working directory {} does not exist; the test runs in {}",
                        dir.display(),
                        default_dir.display()
                    ));
                }
            }
            if let Some(a) = settings.assertions {
                jvm.assertions = a;
            }
        }
        if let Some(args) = &config.jvm_args {
            jvm.args = args.clone();
        }
        for (k, v) in &config.system_properties {
            jvm.system_properties.retain(|(old, _)| old != k);
            jvm.system_properties.push((k.clone(), v.clone()));
        }
        if let Some(dir) = &config.working_dir {
            jvm.working_dir = root.join(dir);
        }
        if let Some(a) = config.assertions {
            jvm.assertions = a;
        }
        jvm
    }

    /// The options that come before racelens's own on the command line.
    pub fn options(&self) -> Vec<String> {
        let mut out = self.args.clone();
        out.extend(self.system_properties.iter().map(|(k, v)| format!("-D{k}={v}")));
        if self.assertions {
            // As Surefire and Gradle: every class but the JDK's; not racelens's agent,
            // which is no part of the test.
            out.push("-ea".into());
            out.push("-da:racelens...".into());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> TestSettings {
        TestSettings {
            jvm_args: vec!["@{argLine}".into(), "-Xmx300m".into(), "-javaagent:${jacoco.agent}=destfile=x".into()],
            system_properties: vec![("pool.size".into(), "4".into()), ("tmp".into(), "${unset}".into())],
            working_dir: Some(PathBuf::from("/nonexistent/racelens/wd")),
            assertions: Some(false),
        }
    }

    #[test]
    fn unresolved_placeholders_are_left_out_with_a_note() {
        let mut notes = Vec::new();
        let jvm = TestJvm::of(
            Path::new("/r"),
            &Config::default(),
            Some((&settings(), "Surefire's argLine")),
            Path::new("/r/core"),
            &mut notes,
        );
        assert_eq!(jvm.args, vec!["-Xmx300m"]);
        assert_eq!(jvm.system_properties, vec![("pool.size".to_string(), "4".to_string())]);
        assert_eq!(jvm.working_dir, PathBuf::from("/r/core"));
        assert!(!jvm.assertions);
        assert_eq!(notes.len(), 4, "{notes:#?}");
        assert!(notes[0].contains("`@{argLine}` is filled in only while the build runs"), "{}", notes[0]);
        assert!(notes[1].contains("`${jacoco.agent}`"), "{}", notes[1]);
        assert_eq!(jvm.options(), vec!["-Xmx300m", "-Dpool.size=4"]);
    }

    #[test]
    fn racelens_toml_overrides_the_build_and_assertions_default_on() {
        let config = Config {
            jvm_args: Some(vec!["-Xmx1g".into()]),
            system_properties: vec![("pool.size".into(), "8".into())],
            working_dir: Some("core".into()),
            assertions: Some(true),
            ..Config::default()
        };
        let jvm = TestJvm::of(
            Path::new("/r"),
            &config,
            Some((&settings(), "Surefire's argLine")),
            Path::new("/r"),
            &mut Vec::new(),
        );
        assert_eq!(jvm.options(), vec!["-Xmx1g", "-Dpool.size=8", "-ea", "-da:racelens..."]);
        assert_eq!(jvm.working_dir, PathBuf::from("/r/core"));
        let plain = TestJvm::of(Path::new("/r"), &Config::default(), None, Path::new("/r"), &mut Vec::new());
        assert_eq!(plain.options(), vec!["-ea", "-da:racelens..."]);
    }
}
