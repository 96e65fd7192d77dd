//! racelens exploration: run a real multithreaded test under a scheduler that decides which
//! thread runs at every shared-memory and synchronization operation, explore its schedules
//! systematically, and hand back any failing schedule so that it replays exactly.
//!
//! Three rooms:
//! - [`jvm`]: the JVM side: the agent, the JDK and the project, one warm JVM per test and
//!   the protocol it speaks;
//! - [`search`]: which schedules to run and in what order;
//! - [`results`]: failing schedules as strings, reports;
//! - [`reports`]: the typed JSON reports of explorations, which the CLI prints and the
//!   language server stores.
//!
//! [`explorer`] is the loop that ties them: it asks the search for the next schedule, runs
//! it on the JVM and hands the execution back to the search.
//!
//! [`exploration`] is the front door the command line and the language server both call: a
//! typed request in (the test, the settings, the change), one result out, with its text,
//! JSON, SARIF and web-page renderers and the form the language server keeps.
//!
//! [`impact`] finds the accesses a change impacts from two executions of a test, one per
//! version (ReConTest): a second source of impact besides the static analysis.
//!
//! [`history`] keeps, on disk, what each test's threads executed when it last ran (the
//! coverage history `racelens select` selects from).

pub mod affected;
pub mod exploration;
pub mod explorer;
pub mod history;
pub mod impact;
pub mod invocations;
pub mod jvm;
pub mod reports;
pub mod results;
pub mod search;
pub mod threads;
