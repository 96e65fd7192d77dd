//! One warm JVM running one test again and again under the agent: started with the agent
//! and the project's classpath, and with the test JVM settings of the project
//! ([`crate::jvm::test_jvm`]: assertions, the build's options and system properties, its
//! working directory), connected over a local socket, one request and one response per
//! execution.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::jvm::java::Jdk;
use crate::jvm::libraries;
use crate::jvm::project::{join, Project};
use crate::jvm::protocol::Known;
use crate::jvm::protocol::{Execution, Invocation, Outcome, ResponseParser, Site, ThreadId};

/// What to run: a JUnit test method, or a class's `main`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestSpec {
    /// Binary class name.
    pub class: String,
    /// `None` for `main`.
    pub method: Option<String>,
}

impl TestSpec {
    /// The agent's form: `junit:pkg.PoolTest#borrow` or `main:pkg.Main`.
    pub fn arg(&self) -> String {
        match &self.method {
            Some(m) => format!("junit:{}#{m}", self.class),
            None => format!("main:{}", self.class),
        }
    }

    /// `pkg.PoolTest#addWhileBorrowing`, or `pkg.Main` for a main program.
    pub fn display(&self) -> String {
        match &self.method {
            Some(m) => format!("{}#{m}", self.class),
            None => self.class.clone(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Decision points only.
    Fast,
    /// Every scheduling point, with values and switch reasons (for reports).
    Full,
}

pub struct Jvm {
    child: Child,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// Sites by id, as the agent announced them.
    pub sites: HashMap<u32, Site>,
    /// Interned stacks by id.
    pub stacks: HashMap<u32, Vec<crate::jvm::protocol::Frame>>,
    /// `junit4`, `junit5` or `main`.
    pub kind: String,
    /// The invocations of a test JUnit runs more than once (empty for one it runs once).
    pub invocations: Vec<Invocation>,
    output: Arc<Mutex<Vec<u8>>>,
    next_run: u64,
}

/// The JVM options a test runs with, under the agent or plainly: the file encoding, and what
/// `RACELENS_JVM_OPTS` adds (a heap size, the agent's debug switches such as
/// `-Dracelens.check=true`), space-separated.
pub fn jvm_options() -> Vec<String> {
    let mut out = vec!["-Dfile.encoding=UTF-8".to_string()];
    out.extend(std::env::var("RACELENS_JVM_OPTS").unwrap_or_default().split_whitespace().map(str::to_string));
    out
}

/// How long the JVM may take to start and load the test.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one execution may take before the controller gives up on the JVM (the
/// agent's own watchdog ends a stuck execution well before).
const RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// How much of the JVM's own output is kept for error messages.
const OUTPUT_TAIL: usize = 16 * 1024;

fn keep_tail(mut from: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut out = into.lock().unwrap_or_else(|e| e.into_inner());
            out.extend_from_slice(&buf[..n]);
            if out.len() > OUTPUT_TAIL * 2 {
                let cut = out.len() - OUTPUT_TAIL;
                out.drain(..cut);
            }
        }
    });
}

fn token() -> String {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{:x}{:x}", t, std::process::id())
}

impl Jvm {
    /// Starts the JVM for `spec` and waits until the test is loaded.
    pub fn start(jdk: &Jdk, agent: &Path, project: &Project, spec: &TestSpec) -> Result<Jvm, String> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot listen on a local port: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let token = token();
        let mut cmd = Command::new(&jdk.java);
        // The build's options first (Surefire's argLine, Gradle's jvmArgs, `-ea`), so that
        // racelens's own below win where they clash.
        cmd.args(project.jvm.options())
            .args(["-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2", "-XX:TieredStopAtLevel=1", "-Xss4m"])
            .args([
                "--add-opens",
                "java.base/java.util.concurrent=ALL-UNNAMED",
                "--add-opens",
                "java.base/java.lang=ALL-UNNAMED",
            ])
            // `java.util.Timer`'s tasks keep their state in package-private fields the agent sets.
            .args(["--add-opens", "java.base/java.util=ALL-UNNAMED"])
            // A common fork/join pool without threads: parallel streams run in the calling
            // (controlled) thread; the agent models `ForkJoinPool` for the project's own use.
            .arg("-Djava.util.concurrent.ForkJoinPool.common.parallelism=0")
            .args(jvm_options())
            .arg(format!(
                "-javaagent:{}=port={port},token={token},sync={},instrument={}",
                agent.display(),
                join(&libraries::of(&project.classpath, &project.classes).controlled),
                join(&project.classes)
            ))
            .arg("-cp")
            .arg(join(&project.classpath))
            .arg("racelens.agent.Main")
            .arg(spec.arg())
            .current_dir(&project.jvm.working_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group: a Ctrl-C at the terminal reaches racelens, which ends the
        // exploration with its report, and not the JVM in the middle of a run.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().map_err(|e| format!("cannot start {}: {e}", jdk.java.display()))?;
        let output = Arc::new(Mutex::new(Vec::new()));
        keep_tail(child.stdout.take().expect("piped"), output.clone());
        keep_tail(child.stderr.take().expect("piped"), output.clone());
        let stream = accept(&listener, &mut child, &output)?;
        stream.set_read_timeout(Some(START_TIMEOUT)).map_err(|e| e.to_string())?;
        let writer = stream.try_clone().map_err(|e| e.to_string())?;
        let mut jvm = Jvm {
            child,
            reader: BufReader::new(stream),
            writer,
            sites: HashMap::new(),
            stacks: HashMap::new(),
            kind: String::new(),
            invocations: Vec::new(),
            output,
            next_run: 1,
        };
        let hello = jvm.read_line()?;
        if hello.split(' ').nth(2) != Some(token.as_str()) {
            return Err(format!("unexpected greeting from the agent: {hello}"));
        }
        let mut ready = jvm.read_line()?;
        while let Some(rest) = ready.strip_prefix("INVOCATION ") {
            let (index, display) = rest.split_once(' ').unwrap_or((rest, ""));
            let index = index.parse().map_err(|_| format!("bad INVOCATION line from the agent: {ready}"))?;
            jvm.invocations.push(Invocation { index, display: crate::jvm::protocol::unescape(display) });
            ready = jvm.read_line()?;
        }
        match ready.split_once(' ') {
            Some(("READY", rest)) => jvm.kind = rest.split(' ').next().unwrap_or("").to_string(),
            Some(("SETUP_ERROR", message)) => return Err(crate::jvm::protocol::unescape(message)),
            _ => return Err(format!("unexpected message from the agent: {ready}")),
        }
        jvm.reader.get_ref().set_read_timeout(Some(RUN_TIMEOUT)).map_err(|e| e.to_string())?;
        Ok(jvm)
    }

    /// The last lines the JVM printed (the test's own output, crashes).
    pub fn output_tail(&self) -> String {
        let out = self.output.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&out).into_owned();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    fn read_line(&mut self) -> Result<String, String> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Err(self.died()),
            Ok(_) => Ok(line.trim_end_matches(['\n', '\r']).to_string()),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => Err(
                format!("the JVM stopped answering (no answer in {} s)\n{}", RUN_TIMEOUT.as_secs(), self.output_tail()),
            ),
            Err(_) => Err(self.died()),
        }
    }

    fn died(&mut self) -> String {
        std::thread::sleep(Duration::from_millis(100));
        let status =
            self.child.try_wait().ok().flatten().map(|s| s.to_string()).unwrap_or_else(|| "still running".into());
        format!("the JVM running the test ended unexpectedly ({status}):\n{}", self.output_tail())
    }

    /// Runs the test once, following `choices` at the first decision points.
    pub fn run(
        &mut self,
        choices: &[ThreadId],
        mode: Mode,
        max_steps: u32,
        options: &[String],
    ) -> Result<Execution, String> {
        let id = self.next_run;
        self.next_run += 1;
        let list = if choices.is_empty() {
            "-".to_string()
        } else {
            choices.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
        };
        let mode = match mode {
            Mode::Fast => "fast",
            Mode::Full => "full",
        };
        if options.is_empty() {
            writeln!(self.writer, "RUN {id} {max_steps} {mode} {list}").map_err(|_| self.died())?;
        } else {
            writeln!(self.writer, "RUN {id} {max_steps} {mode} {list} {}", options.join(","))
                .map_err(|_| self.died())?;
        }
        let mut parser = ResponseParser::default();
        loop {
            let line = self.read_line()?;
            if let Some(exec) = parser.line(&line)? {
                for (sid, site) in parser.new_sites.drain(..) {
                    self.sites.insert(sid, site);
                }
                for (kid, frames) in parser.new_stacks.drain(..) {
                    self.stacks.insert(kid, frames);
                }
                if exec.run != id {
                    return Err(format!("the agent answered run {} to run {id}", exec.run));
                }
                return Ok(exec);
            }
        }
    }

    /// Ends the JVM (running `@AfterClass` first).
    pub fn quit(mut self) {
        let _ = writeln!(self.writer, "QUIT");
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Jvm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn accept(listener: &TcpListener, child: &mut Child, output: &Arc<Mutex<Vec<u8>>>) -> Result<TcpStream, String> {
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).map_err(|e| e.to_string())?;
                stream.set_nodelay(true).map_err(|e| e.to_string())?;
                return Ok(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(format!("cannot accept the agent's connection: {e}")),
        }
        if let Ok(Some(status)) = child.try_wait() {
            std::thread::sleep(Duration::from_millis(100));
            let out = String::from_utf8_lossy(&output.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
            return Err(format!("the JVM exited before the agent connected ({status}):\n{}", out.trim()));
        }
        if Instant::now() > deadline {
            return Err(format!("the agent did not connect within {} s", START_TIMEOUT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A JVM for a test, restarted when it dies.
pub struct Session {
    jdk: Jdk,
    agent: PathBuf,
    pub project: Project,
    pub spec: TestSpec,
    jvm: Option<Jvm>,
    pub restarts: u32,
    /// The invocation runs ask for (`None`: the test's first, or its only one).
    invocation: Option<Invocation>,
}

impl Session {
    pub fn new(jdk: Jdk, agent: PathBuf, project: Project, spec: TestSpec) -> Session {
        Session { jdk, agent, project, spec, jvm: None, restarts: 0, invocation: None }
    }

    /// The invocations of the test when JUnit runs it more than once (parameterized and
    /// repeated tests): empty for one it runs once. Starts the JVM.
    pub fn invocations(&mut self) -> Result<Vec<Invocation>, String> {
        Ok(self.jvm()?.invocations.clone())
    }

    /// Runs from now on run `invocation` (`None`: the first, or the one the spec names).
    pub fn select_invocation(&mut self, invocation: Option<Invocation>) {
        self.invocation = invocation;
    }

    /// The invocation of `index` the agent announced; an error names the ones it has.
    pub fn invocation_numbered(&mut self, index: u32) -> Result<Invocation, String> {
        let all = self.invocations()?;
        all.iter().find(|i| i.index == index).cloned().ok_or_else(|| match (all.first(), all.last()) {
            (Some(a), Some(b)) => format!(
                "{} has no invocation [{index}]: its invocations are [{}] to [{}]",
                self.spec.display(),
                a.index,
                b.index
            ),
            _ => format!("{} runs once: it has no invocation [{index}]", self.spec.display()),
        })
    }

    fn jvm(&mut self) -> Result<&mut Jvm, String> {
        if self.jvm.is_none() {
            self.jvm = Some(Jvm::start(&self.jdk, &self.agent, &self.project, &self.spec)?);
        }
        Ok(self.jvm.as_mut().expect("started above"))
    }

    /// `junit4`, `junit5` or `main`, once started.
    pub fn kind(&mut self) -> Result<String, String> {
        Ok(self.jvm()?.kind.clone())
    }

    /// Runs one schedule; a JVM that died is started again and the schedule run once more
    /// (at most 3 restarts per session).
    pub fn run(&mut self, choices: &[ThreadId], mode: Mode, max_steps: u32) -> Result<Execution, String> {
        self.run_with(choices, mode, max_steps, &[])
    }

    /// [`Session::run`] with options for the agent (`stacks`, `pct=...`).
    pub fn run_with(
        &mut self,
        choices: &[ThreadId],
        mode: Mode,
        max_steps: u32,
        options: &[String],
    ) -> Result<Execution, String> {
        let mut options = options.to_vec();
        if let Some(inv) = &self.invocation {
            options.push(format!("invocation={}", inv.index));
        }
        let invocation = match &self.invocation {
            Some(inv) => Some(inv.clone()),
            None => self.jvm()?.invocations.first().cloned(),
        };
        let mut exec = self.run_once(choices, mode, max_steps, &options)?;
        exec.invocation = invocation;
        Ok(exec)
    }

    fn run_once(
        &mut self,
        choices: &[ThreadId],
        mode: Mode,
        max_steps: u32,
        options: &[String],
    ) -> Result<Execution, String> {
        match self.jvm()?.run(choices, mode, max_steps, options) {
            Ok(e) if matches!(e.outcome, Outcome::Timeout) => {
                // The agent's watchdog ended a stuck execution and the JVM is gone.
                self.jvm = None;
                Ok(e)
            }
            Ok(e) => Ok(e),
            Err(first) => {
                self.jvm = None;
                self.restarts += 1;
                if self.restarts > 3 {
                    return Err(first);
                }
                self.jvm()?
                    .run(choices, mode, max_steps, options)
                    .map_err(|e| format!("{first}\n(and again after a restart: {e})"))
            }
        }
    }

    pub fn site(&self, id: u32) -> Option<Site> {
        self.jvm.as_ref().and_then(|j| j.sites.get(&id).cloned())
    }

    pub fn sites(&self) -> std::collections::HashMap<u32, Site> {
        self.jvm.as_ref().map(|j| j.sites.clone()).unwrap_or_default()
    }

    /// What the agent announced so far (empty before it started).
    pub fn known(&self) -> Option<Known<'_>> {
        self.jvm.as_ref().map(|j| Known { sites: &j.sites, stacks: &j.stacks })
    }

    pub fn close(&mut self) {
        if let Some(j) = self.jvm.take() {
            j.quit();
        }
    }
}
