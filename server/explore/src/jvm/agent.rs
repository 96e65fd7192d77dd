//! The agent jar, built from `server/agent` by build.rs and embedded in the binary; written
//! once per content to the cache, where the JVM loads it from.

use std::path::PathBuf;

/// The jar as built.
pub const AGENT_JAR: &[u8] = include_bytes!(env!("RACELENS_AGENT_JAR"));

pub use racelens_analysis::cache_dir::{cache_root, stable_hash};

/// The path of the agent jar on disk, writing it first if needed. Its file name must be
/// `racelens-agent.jar`: the manifest puts the jar itself on the boot class path by name.
pub fn agent_jar() -> Result<PathBuf, String> {
    if AGENT_JAR.is_empty() {
        return Err("this racelens was built without its exploration agent (RACELENS_SKIP_AGENT was set): build it again without it".into());
    }
    let dir = cache_root().join(format!("agent-{:016x}", stable_hash(AGENT_JAR)));
    let jar = dir.join("racelens-agent.jar");
    if jar.metadata().is_ok_and(|m| m.len() == AGENT_JAR.len() as u64) {
        return Ok(jar);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // Whole or not at all: a concurrent racelens (or exploration) may be loading it.
    racelens_analysis::cache_dir::write_whole(&jar, AGENT_JAR)?;
    Ok(jar)
}
