//! racelens exploration: run a real multithreaded test under a scheduler that decides which
//! thread runs at every shared-memory and synchronization operation, explore its schedules
//! systematically, and hand back any failing schedule so that it replays exactly.
//!
//! - [`agent`]: the Java agent (built from `server/agent` and embedded);
//! - [`java`], [`project`]: the JDK, and the classes a test runs against;
//! - [`jvm`], [`protocol`]: one warm JVM per test, one request and response per execution;
//! - [`search`]: iterative context bounding and depth-first search, with a hook for
//!   change-aware prioritization; [`capp`], [`directed`], [`change`]: the change-aware
//!   prioritizations, [`heuristics`]: choosing one by name;
//! - [`explorer`]: the exploration loop; [`schedule`]: failing schedules as strings;
//!   [`report`]: the interleaving as a table; [`stress`]: uncontrolled repeated runs, for
//!   comparison.

pub mod agent;
pub mod capp;
pub mod change;
pub mod directed;
pub mod explorer;
pub mod heuristics;
pub mod java;
pub mod jvm;
pub mod project;
pub mod protocol;
pub mod report;
pub mod schedule;
pub mod search;
pub mod simplify;
pub mod stress;
pub mod tests;
