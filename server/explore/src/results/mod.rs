//! What an exploration hands back: failing schedules as short strings that replay, and
//! the interleaving as a report.

use serde::{Deserialize, Serialize};

pub mod coverage;
pub mod report;
pub mod schedule;
pub mod swimlane;

/// A place in a project file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub file: String,
    pub line: u32,
}
