//! Reading a Gradle build: `gradlew` when the build has one, else `gradle` from `PATH`, run
//! in the build's root as the user runs it (their daemon, `gradle.properties`,
//! `GRADLE_OPTS`), offline unless `[java] offline = false`:
//!
//! ```text
//! gradle -q --offline --project-cache-dir <cache>/gradle-project-cache -I <init script>
//!     -Dorg.gradle.configuration-cache=false -Pracelens.model.out=<answer file>
//!     -Pracelens.model.file=<test file> <gradle_args> racelensBuildModel
//! ```
//!
//! The init script (`racelens-model.gradle`) is written into the racelens cache. The
//! project cache dir (Gradle's `.gradle/` folder) goes to the work tree's racelens cache, so
//! that nothing is written in the work tree; a `buildSrc` folder is still built by Gradle,
//! into `buildSrc/build` (server/docs/manual/classpath.md). The configuration cache is off for this run: the
//! script's task reads the project while it runs.

use std::path::Path;
use std::process::Output;

use racelens_analysis::cache_dir::{cache_root, project_cache, stable_hash};
use racelens_analysis::config::Config;

use super::{output_of, program, Located};

pub const INIT_SCRIPT: &str = include_str!("racelens-model.gradle");

/// Runs Gradle with the init script; the answer is in `out` when it worked.
pub fn run(
    located: &Located,
    root: &Path,
    config: &Config,
    file: &Path,
    out: &Path,
) -> Result<(String, Output), String> {
    let script = cache_root().join(format!("racelens-model-{:016x}.gradle", stable_hash(INIT_SCRIPT.as_bytes())));
    if !script.is_file() {
        std::fs::create_dir_all(cache_root()).map_err(|e| format!("cannot create {}: {e}", cache_root().display()))?;
        racelens_analysis::cache_dir::write_whole(&script, INIT_SCRIPT)?;
    }
    let mut cmd = program(&located.build_root, "gradlew", "gradle").map_err(|e| {
        format!(
            "cannot read the Gradle build in {}: {e}. {}",
            located.build_root.display(),
            super::avoid(super::Tool::Gradle)
        )
    })?;
    cmd.current_dir(&located.build_root).arg("-q");
    if config.offline.unwrap_or(true) {
        cmd.arg("--offline");
    }
    cmd.arg("--project-cache-dir")
        .arg(project_cache(root).join("gradle-project-cache"))
        .arg("-I")
        .arg(&script)
        .arg("-Dorg.gradle.configuration-cache=false")
        .arg(format!("-Pracelens.model.out={}", out.display()))
        .arg(format!("-Pracelens.model.file={}", file.display()))
        .args(&config.gradle_args)
        .arg("racelensBuildModel");
    output_of(cmd, located)
}
