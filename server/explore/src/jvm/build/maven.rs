//! Reading a Maven build: `mvnw` when the build has one, else `mvn` from `PATH`, run in the
//! reactor's root as the user runs it (their `settings.xml`, `.mvn/maven.config`,
//! `MAVEN_OPTS`), offline unless `[java] offline = false`:
//!
//! ```text
//! mvn -B -q -Dstyle.color=never -o -f <root>/pom.xml -Dmaven.ext.class.path=<extension>
//!     -Dracelens.model.out=<answer file> -Dracelens.model.file=<test file> <maven_args> pre-clean
//! ```
//!
//! The extension (`RacelensBuildModel.java`) is compiled once per Maven installation, found
//! from `mvn --version`'s `Maven home`, against that installation's `lib/`, into the
//! racelens cache (`maven-extension-<hash>/`). Maven then reads the POMs and resolves
//! dependencies (from the local repository when offline); it writes nothing in the work
//! tree, and runs no plugin.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use racelens_analysis::cache_dir::{cache_root, stable_hash};
use racelens_analysis::config::Config;

use super::{output_of, program, Located};
use crate::jvm::java::Jdk;

/// The extension's source, compiled on first use.
pub const EXTENSION_SOURCE: &str = include_str!("RacelensBuildModel.java");
const EXTENSION_CLASS: &str = "racelens.maven.RacelensBuildModel";

/// The `mvn` (or `mvnw`) command for a build, with Maven's batch mode.
fn mvn(located: &Located) -> Result<Command, String> {
    let mut cmd = program(&located.build_root, "mvnw", "mvn").map_err(|e| {
        format!(
            "cannot read the Maven build in {}: {e}. {}",
            located.build_root.display(),
            super::avoid(super::Tool::Maven)
        )
    })?;
    cmd.current_dir(&located.build_root).args(["-B", "-Dstyle.color=never"]);
    Ok(cmd)
}

/// Runs Maven with the extension; the answer is in `out` when it worked.
pub fn run(located: &Located, config: &Config, file: &Path, out: &Path, jdk: &Jdk) -> Result<(String, Output), String> {
    let home = maven_home(located)?;
    let extension = extension(&home, jdk)?;
    let mut cmd = mvn(located)?;
    cmd.arg("-q");
    if config.offline.unwrap_or(true) {
        cmd.arg("-o");
    }
    cmd.arg("-f")
        .arg(located.build_root.join("pom.xml"))
        .arg(format!("-Dmaven.ext.class.path={}", extension.display()))
        .arg(format!("-Dracelens.model.out={}", out.display()))
        .arg(format!("-Dracelens.model.file={}", file.display()))
        .args(&config.maven_args)
        // The clean lifecycle's first phase: no plugin is bound to it by default, and the
        // extension removes the others, so Maven runs nothing.
        .arg("pre-clean");
    output_of(cmd, located)
}

/// The installation `mvn --version` names (`Maven home: /usr/share/maven`).
fn maven_home(located: &Located) -> Result<PathBuf, String> {
    let mut cmd = mvn(located)?;
    cmd.arg("--version");
    let (ran, output) = output_of(cmd, located)?;
    let text = String::from_utf8_lossy(&output.stdout);
    let home = text.lines().find_map(|l| l.trim().strip_prefix("Maven home:")).map(|h| PathBuf::from(h.trim()));
    match home {
        Some(h) if output.status.success() && h.join("lib").is_dir() => Ok(h),
        _ => Err(format!(
            "cannot read the Maven build in {}: `{ran}` did not name a Maven home with a lib/ folder ({}):\n{}\n{}",
            located.build_root.display(),
            output.status,
            super::tail_of(&(text.into_owned() + &String::from_utf8_lossy(&output.stderr)), 15),
            super::avoid(super::Tool::Maven)
        )),
    }
}

/// The compiled extension for the Maven installation at `home` (a class folder with its
/// Sisu index), compiled into the cache when missing.
fn extension(home: &Path, jdk: &Jdk) -> Result<PathBuf, String> {
    let lib = home.join("lib");
    let mut jars: Vec<String> = std::fs::read_dir(&lib)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    jars.sort();
    let key = stable_hash(format!("{EXTENSION_SOURCE}\0{}\0{}", lib.display(), jars.join("\0")).as_bytes());
    let dir = cache_root().join(format!("maven-extension-{key:016x}"));
    if dir.join("META-INF/sisu/javax.inject.Named").is_file() {
        return Ok(dir);
    }
    let work = racelens_analysis::cache_dir::aside(&cache_root().join(format!("maven-extension-{key:016x}")));
    let _ = std::fs::remove_dir_all(&work);
    let src = work.join("src/RacelensBuildModel.java");
    let classes = work.join("classes");
    std::fs::create_dir_all(src.parent().expect("has a parent"))
        .map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    std::fs::write(&src, EXTENSION_SOURCE).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    // Maven may run on an older JVM than racelens's: Java 8 class files.
    let compile = |release: Option<&str>| {
        let mut javac = Command::new(jdk.javac()?);
        if let Some(r) = release {
            javac.args(["--release", r]);
        }
        javac
            .args(["-nowarn", "-proc:none", "-encoding", "UTF-8", "-cp"])
            .arg(format!("{}/*", lib.display()))
            .arg("-d")
            .arg(&classes)
            .arg(&src)
            .output()
            .map_err(|e| format!("cannot run javac: {e}"))
    };
    let mut out = compile(Some("8"))?;
    if !out.status.success() {
        out = compile(None)?;
    }
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&work);
        return Err(format!(
            "cannot compile racelens's Maven extension against {}:\n{}\nSet `[java] classpath` or `[java] classpath_command` in racelens.toml to skip Maven.",
            lib.display(),
            super::tail_of(&String::from_utf8_lossy(&out.stderr), 20)
        ));
    }
    let index = classes.join("META-INF/sisu/javax.inject.Named");
    std::fs::create_dir_all(index.parent().expect("has a parent"))
        .map_err(|e| format!("cannot create {}: {e}", index.display()))?;
    std::fs::write(&index, format!("{EXTENSION_CLASS}\n"))
        .map_err(|e| format!("cannot write {}: {e}", index.display()))?;
    // Another racelens may have finished first: either copy is the same.
    if std::fs::rename(&classes, &dir).is_err() && !dir.join("META-INF/sisu/javax.inject.Named").is_file() {
        let _ = std::fs::remove_dir_all(&work);
        return Err(format!("cannot move the Maven extension into {}", dir.display()));
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(dir)
}
