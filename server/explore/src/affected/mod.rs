//! Exploring the tests a change selects, as a whole run (`racelens explore --affected`) or
//! split over machines (`--shard I/N`, then `racelens merge`): which shard explores which
//! test and with what budget ([`shard`]), how each test's exploration ended and the run's
//! summary line ([`ended`]), and the merge of the shards' reports ([`merge`]), a test split over
//! shards joined from its parts ([`parts`]), and what one run or shard explores, with the
//! data a shard hands to the merge, the lines around each test and the run over the tests
//! ([`plan`]). The CLI runs each exploration and prints; what a front end needs to decide or
//! judge is here.

pub mod ended;
pub mod merge;
pub mod parts;
pub mod plan;
pub mod shard;
