//! Which schedules to run, and in what order.
//!
//! - [`icb`]: iterative context bounding over the tree of schedules;
//! - [`capp`], [`directed`], [`change`]: the change-aware prioritizations, and the change as
//!   they see it; [`heuristics`]: choosing one by name;
//! - [`simplify`]: fewer preemptions in a failing schedule found at random.

pub mod capp;
pub mod change;
pub mod directed;
pub mod heuristics;
pub mod icb;
pub mod simplify;
