//! The JDK racelens runs tests with: `JAVA_HOME`, else `java`/`javac` on `PATH`.

use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Debug)]
pub struct Jdk {
    pub java: PathBuf,
    pub javac: Option<PathBuf>,
    /// Major version (17 for Java 17).
    pub version: u32,
}

pub const INSTALL_HINT: &str =
    "install a JDK 17 or newer (`apt-get install openjdk-17-jdk-headless`) or set JAVA_HOME to one";

fn find(name: &str) -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        let p = PathBuf::from(home).join("bin").join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

impl Jdk {
    /// Finds the JDK, or says precisely what is missing and how to fix it.
    pub fn locate() -> Result<Jdk, String> {
        let java = find("java").ok_or_else(|| {
            format!("no Java runtime found (JAVA_HOME unset or wrong, no `java` on PATH): {INSTALL_HINT}")
        })?;
        let version = version_of(&java)?;
        if version < 17 {
            return Err(format!(
                "{} is Java {version}; racelens runs tests on Java 17 or newer: {INSTALL_HINT}",
                java.display()
            ));
        }
        Ok(Jdk { javac: find("javac"), java, version })
    }

    pub fn javac(&self) -> Result<&Path, String> {
        self.javac
            .as_deref()
            .ok_or_else(|| format!("no `javac` found to compile the project (only a Java runtime): {INSTALL_HINT}"))
    }
}

fn version_of(java: &Path) -> Result<u32, String> {
    let out = Command::new(java).arg("-version").output().map_err(|e| format!("cannot run {}: {e}", java.display()))?;
    let text = String::from_utf8_lossy(&out.stderr);
    // `openjdk version "17.0.19" 2026-04-21` or `java version "1.8.0_392"`
    let quoted =
        text.split('"').nth(1).ok_or_else(|| format!("cannot read the version of {}: {text}", java.display()))?;
    let mut parts = quoted.split(['.', '_', '-', '+']);
    let first: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Ok(if first == 1 { parts.next().and_then(|p| p.parse().ok()).unwrap_or(0) } else { first })
}
