//! What an exploration hands back: failing schedules as short strings that replay, and
//! the interleaving as a report.

pub mod report;
pub mod schedule;
pub mod coverage;
pub mod swimlane;
