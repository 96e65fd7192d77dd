//! The JVM side of an exploration: the agent jar, the JDK, the project's classes, the test
//! to run, and one warm JVM per test that answers one request per execution.
//!
//! - [`agent`]: the Java agent (built from `server/agent` and embedded);
//! - [`java`], [`project`], [`tests`]: the JDK, the classes a test runs against, and the
//!   test a user names; [`libraries`]: which library jars come under control;
//! - [`build`], [`test_jvm`], [`javac_errors`]: the Maven or Gradle build's classpath and
//!   test settings, how the test JVM runs, and what a failed compile lacks;
//! - [`session`], [`protocol`]: the JVM process and the line protocol it speaks;
//! - [`stress`]: uncontrolled repeated runs, for comparison;
//! - [`plain`]: the test run once without the agent, the baseline a suspect failure is
//!   checked against.

pub mod agent;
pub mod build;
pub mod java;
pub mod javac_errors;
pub mod libraries;
pub mod plain;
pub mod project;
pub mod protocol;
pub mod session;
pub mod stress;
pub mod test_jvm;
pub mod tests;

pub use session::{Mode, Session, TestSpec};
pub mod trace;
