//! One test's schedules split into parts that separate machines explore without talking to
//! each other (`racelens explore --affected --shard I/N` when fewer tests than shards are
//! selected), and whose claims `racelens merge` joins into the test's claim.
//!
//! The search keeps two trees ([`super::tree`]); a part splits the bounded one. Every part
//! makes the test's first run and the same analysis of it, so every part knows the same
//! branches after it; those are dealt round-robin among the parts in the order of their
//! decision points, and a branch dealt to another part is left to it. Every branch
//! found later, from a part's own runs, is that part's (two parts may both find one and
//! both explore it: wasted runs, never a missing one). Why the parts together claim what
//! one search would:
//! - **Bounded tree (BPOR, Coons et al. 2013).** BPOR has no sleep sets: bound `k` is
//!   complete when every branch of cost `<= k` it called for has run. In the parts, every
//!   branch a run calls for runs in the part that ran it, or, when it was dealt away, in the
//!   part it was dealt to. So when every part has completed bound `k` for its share (or has
//!   nothing left), every branch of cost `<= k` of the whole has run: the smallest bound the
//!   parts completed is complete for the test.
//! - **Exhaustive tree (Source-DPOR with sleep sets).** Not split: a sibling dealt to
//!   another part would put threads to sleep here as if it were explored here, so a part's
//!   claim would hold only once every part had made it. Each part explores it whole, taking
//!   turns with its share of the bounded tree as the unsplit search does; a part that
//!   finishes it has explored every schedule of the test, whatever the other parts did.
//!
//! A part stops when either tree has made its claim ([`super::Search::in_part`]), and
//! `Coverage::join` takes every schedule when a part has it, else the smallest bound. With
//! no bounded tree (`--search dfs`) nothing is split.
//!
//! The random schedules of a part (PCT, the portfolio's sampler) use a seed of the part's
//! own, so that the parts do not repeat each other's. A part alone claims nothing about the
//! test; its words say so ([`crate::results::coverage`]). The property test in
//! [`super::sim`] checks, for 2 and 5 parts, that the bounded trees together reach every
//! outcome within the bound and that what the parts claim together holds.

use std::fmt;

/// Part `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Part {
    index: u32,
    count: u32,
}

impl Default for Part {
    fn default() -> Part {
        Part::WHOLE
    }
}

impl Part {
    /// The whole schedule space: one part.
    pub const WHOLE: Part = Part { index: 0, count: 1 };

    /// Part `index` (0-based) of `count` (`index < count`).
    pub fn new(index: u32, count: u32) -> Result<Part, String> {
        match index < count {
            true => Ok(Part { index, count }),
            false => Err(format!(
                "part {index} of {count} does not exist: parts are numbered from 0 to {}",
                count.saturating_sub(1)
            )),
        }
    }

    /// 0-based.
    pub fn index(self) -> u32 {
        self.index
    }

    pub fn count(self) -> u32 {
        self.count
    }

    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// Whether the branch at `position` of the first run's deal is this part's.
    pub fn deals_to_me(self, position: usize) -> bool {
        position % self.count as usize == self.index as usize
    }

    /// A seed for this part's random runs: `seed` itself for the whole space (so an unsplit
    /// run is unchanged), another one per part, so that the parts' random schedules differ.
    pub fn seed(self, seed: Option<u64>) -> Option<u64> {
        match self.is_whole() {
            true => seed,
            false => Some(seed.unwrap_or(0) ^ (u64::from(self.index) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        }
    }
}

/// `part 2/4` (1-based, as the shards are named).
impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "part {}/{}", self.index + 1, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_runs_branches_are_dealt_round_robin() {
        let dealt = |i, n| (0..7).filter(|&p| Part::new(i, n).unwrap().deals_to_me(p)).collect::<Vec<_>>();
        assert_eq!((dealt(0, 3), dealt(1, 3), dealt(2, 3)), (vec![0, 3, 6], vec![1, 4], vec![2, 5]));
        assert_eq!(dealt(0, 1), (0..7).collect::<Vec<_>>());
    }

    #[test]
    fn a_part_is_named_from_1_and_seeds_differ_by_part() {
        assert_eq!(Part::new(1, 4).unwrap().to_string(), "part 2/4");
        assert!(Part::new(4, 4).is_err());
        assert_eq!(Part::WHOLE.seed(Some(7)), Some(7));
        assert_eq!(Part::WHOLE.seed(None), None);
        let seeds: std::collections::BTreeSet<Option<u64>> =
            (0..4).map(|i| Part::new(i, 4).unwrap().seed(None)).collect();
        assert_eq!(seeds.len(), 4);
    }
}
