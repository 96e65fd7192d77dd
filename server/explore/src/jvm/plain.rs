//! The test run plainly: a JVM without the agent (the JDK's own threads, locks and clock),
//! with the project's classpath and the JVM options an exploration uses (the build's, `-ea`), running the test once
//! as a fresh JVM runs it alone (`racelens.agent.Plain`). The baseline a failure racelens
//! finds is compared with when it may come from racelens rather than the program (RTSCheck's
//! rule R7: a test that passes plainly passes under the agent's default schedule).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::jvm::java::Jdk;
use crate::jvm::project::{join, Project};
use crate::jvm::protocol::unescape;
use crate::jvm::session::jvm_options;
use crate::jvm::TestSpec;

/// How one plain run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlainRun {
    Pass,
    /// The exception class and message the test failed with.
    Fail(String, String),
    /// The JVM exited on its own (`System.exit`) with this status.
    Exit(i32),
    /// It ran longer than the time limit and was ended.
    Timeout,
    /// The test could not be set up (the message of the harness).
    Error(String),
}

impl PlainRun {
    /// `passed`, `failed with java.lang.AssertionError: ...`, ...
    pub fn describe(&self) -> String {
        match self {
            PlainRun::Pass => "passed".into(),
            PlainRun::Fail(e, m) if m.is_empty() => format!("failed with {e}"),
            PlainRun::Fail(e, m) => format!("failed with {e}: {m}"),
            PlainRun::Exit(s) => format!("exited with status {s}"),
            PlainRun::Timeout => format!("did not end within {} s", PLAIN_TIMEOUT.as_secs()),
            PlainRun::Error(m) => format!("could not run: {m}"),
        }
    }
}

/// How long one plain run may take.
const PLAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `spec` once without the agent, on `project`'s classes; `invocation`: the index of the
/// invocation of a parameterized or repeated test to run.
pub fn run(
    jdk: &Jdk,
    agent: &Path,
    project: &Project,
    spec: &TestSpec,
    invocation: Option<u32>,
) -> Result<PlainRun, String> {
    let classpath = std::iter::once(agent.to_path_buf()).chain(project.classpath.iter().cloned()).collect::<Vec<_>>();
    let mut child = Command::new(&jdk.java)
        .args(project.jvm.options())
        .args(jvm_options())
        .arg("-cp")
        .arg(join(&classpath))
        .arg("racelens.agent.Plain")
        .arg(spec.arg())
        .args(invocation.map(|i| i.to_string()))
        .current_dir(&project.jvm.working_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", jdk.java.display()))?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if started.elapsed() > PLAIN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    let Some(status) = status else { return Ok(PlainRun::Timeout) };
    Ok(match out.lines().rev().find_map(|l| l.strip_prefix("PLAIN ")) {
        Some("pass") => PlainRun::Pass,
        Some(rest) => match rest.split_once(' ') {
            Some(("fail", failure)) => {
                let (exception, message) = failure.split_once(' ').unwrap_or((failure, ""));
                PlainRun::Fail(exception.to_string(), unescape(message))
            }
            Some(("error", message)) => PlainRun::Error(unescape(message)),
            _ => PlainRun::Error(format!("unexpected answer `{rest}`")),
        },
        None => PlainRun::Exit(status.code().unwrap_or(-1)),
    })
}

/// Up to `runs` plain runs, each in a fresh JVM, stopping at the first that does not pass;
/// returns every run made.
pub fn runs(
    jdk: &Jdk,
    agent: &Path,
    project: &Project,
    spec: &TestSpec,
    invocation: Option<u32>,
    runs: usize,
) -> Result<Vec<PlainRun>, String> {
    let mut out = Vec::new();
    for _ in 0..runs {
        let run = run(jdk, agent, project, spec, invocation)?;
        let passed = run == PlainRun::Pass;
        out.push(run);
        if !passed {
            break;
        }
    }
    Ok(out)
}
