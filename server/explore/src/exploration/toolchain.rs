//! What the sessions of a project's tests share: the JDK, the agent jar and the compiled
//! classes. Prepared once per command (the CLI) or per job (the language server, where the
//! compile is incremental and usually "up to date").

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::Places;
use crate::jvm::java::Jdk;
use crate::jvm::project::{self, Project, Sources};
use crate::jvm::{agent, Session, TestSpec};

pub struct Toolchain {
    pub jdk: Jdk,
    pub agent: PathBuf,
    pub project: Project,
    /// How long finding the JDK, reading the build and compiling the project took.
    pub prepared_in: Duration,
}

impl Toolchain {
    /// Locates the JDK, writes the agent jar and compiles what the test in `test_file` (a
    /// project file) needs: its module of the Maven or Gradle build, with the build's
    /// classpath; without a file, every analysed source. A setup error otherwise: no JDK, a
    /// build that cannot be read, a project that does not compile.
    pub fn prepare(sources: &Sources, test_file: Option<&str>) -> Result<Toolchain, String> {
        let started = Instant::now();
        let jdk = Jdk::locate()?;
        let project = project::prepare(sources, &jdk, test_file.map(Path::new))?;
        let agent = agent::agent_jar()?;
        Ok(Toolchain { jdk, agent, project, prepared_in: started.elapsed() })
    }

    /// [`Toolchain::prepare`] for the test `spec`: its module of the build compiled, with the
    /// build's classpath (`places` finds the test class's file).
    pub fn for_test(sources: &Sources, places: &Places, spec: &TestSpec) -> Result<Toolchain, String> {
        Toolchain::prepare(sources, places.file_of(&spec.class).as_deref())
    }

    /// A JVM session of `spec` on the compiled classes (started at its first run).
    pub fn session(&self, spec: TestSpec) -> Session {
        Session::new(self.jdk.clone(), self.agent.clone(), self.project.clone(), spec)
    }

    /// A session of `spec` on the base revision's `sources` at `commit`, compiled once per
    /// base commit into the cache.
    pub fn base_session(&self, commit: &str, sources: &Sources, spec: TestSpec) -> Result<Session, String> {
        let project = project::build_base(commit, sources, &self.jdk, &self.project)?;
        Ok(Session::new(self.jdk.clone(), self.agent.clone(), project, spec))
    }
}
