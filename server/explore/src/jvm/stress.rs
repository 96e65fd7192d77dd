//! Stress testing, the reference exploration is measured against: the test run again and
//! again on a plain JVM (no agent, the operating system schedules the threads) until it
//! fails, hangs, or the time is up (`racelens.agent.Stress` in the agent jar).

use std::process::Command;
use std::time::Duration;

use crate::jvm::agent;
use crate::jvm::java::Jdk;
use crate::jvm::project::{join, Project};
use crate::jvm::TestSpec;

/// What repeated uncontrolled runs found.
#[derive(Clone, Debug)]
pub struct Stressed {
    pub runs: u64,
    /// The run that failed first (1-based), if one did.
    pub failed_at: Option<u64>,
    /// What failed: the exception, or a hang.
    pub failure: Option<String>,
    pub elapsed: Duration,
}

/// Runs `spec` repeatedly for at most `budget`.
pub fn until_failure(project: &Project, spec: &TestSpec, jdk: &Jdk, budget: Duration) -> Result<Stressed, String> {
    let jar = agent::agent_jar()?;
    let classpath = format!("{}:{}", jar.display(), join(&project.classpath));
    let out = Command::new(&jdk.java)
        .args(project.jvm.options())
        .args(["-cp", &classpath, "racelens.agent.Stress", &spec.arg(), &budget.as_millis().to_string()])
        .current_dir(&project.jvm.working_dir)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", jdk.java.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("STRESS ")) else {
        return Err(format!("the stress run printed no result:\n{}", String::from_utf8_lossy(&out.stderr)));
    };
    let f: Vec<&str> = line.splitn(4, ' ').collect();
    let num = |s: &str| s.parse::<u64>().map_err(|_| format!("bad STRESS line: {line}"));
    Ok(Stressed {
        runs: num(f[0])?,
        failed_at: if f.get(1) == Some(&"-") { None } else { Some(num(f.get(1).copied().unwrap_or("?"))?) },
        elapsed: Duration::from_millis(num(f.get(2).copied().unwrap_or("?"))?),
        failure: f.get(3).map(|s| crate::jvm::protocol::unescape(s)),
    })
}
