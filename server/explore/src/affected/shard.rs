//! Splitting `racelens explore --affected` over machines: the `--shard I/N` argument, which
//! of the selected tests each shard explores, and the budget of each test.
//!
//! Every shard works from the same inputs (the change, hence the same selection in the same
//! order, and the same options), so each one computes on its own, without talking to the
//! others, the same deal and the same budgets; `racelens merge` ([`super::merge`]) checks that and
//! puts the shards' results back into the report the unsharded run prints.

use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (1-based, `1 <= index <= count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    pub fn new(index: usize, count: usize) -> Result<Shard, String> {
        match (index, count) {
            (_, 0) => Err("the shard count N must be at least 1".into()),
            (0, _) => Err(format!("shards are numbered from 1: 0/{count} is not a shard (the first is 1/{count})")),
            (i, n) if i > n => Err(format!("shard {i}/{n} does not exist: there are {n} shards, 1/{n} to {n}/{n}")),
            (index, count) => Ok(Shard { index, count }),
        }
    }

    pub fn index(self) -> usize {
        self.index
    }

    pub fn count(self) -> usize {
        self.count
    }

    /// Whether this shard explores the selected test at `position` (0-based, in rank order).
    ///
    /// Round-robin by rank rather than in blocks of consecutive ranks: the ranking puts the
    /// tests most likely to reveal the change first, and dealing them like cards gives every
    /// shard one of the best as its first test, so a failure shows up in the first minutes
    /// on whichever shard holds it, and the best-ranked tests (which get the budget's
    /// remainder, [`budgets`]) are spread over the machines instead of piled on shard 1.
    /// It depends on nothing but the position and `N`, so every shard agrees without talking.
    pub fn owns(self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `2/4`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let malformed = || format!("`{s}` is not a shard: write I/N, the shard's number from 1 to N and the number of shards, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(malformed)?;
        let (i, n) = (i.trim().parse::<usize>().map_err(|_| malformed())?, n.trim().parse::<usize>().map_err(|_| malformed())?);
        Shard::new(i, n)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Each of `tests` selected tests' budget out of `total` schedules, in rank order: the total
/// divided evenly, the remainder one each to the best ranked.
///
/// Fixed up front, whether or not the run is sharded: a test's budget must not depend on
/// how the tests before it ended (what they left over), which a shard cannot know when
/// another machine explores them. So N shards run exactly the schedules one run does, and
/// their merge is that run's report.
pub fn budgets(total: u64, tests: usize) -> Vec<u64> {
    let n = tests.max(1) as u64;
    (0..tests as u64).map(|i| total / n + u64::from(i < total % n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_i_of_n_from_1() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("1/1".parse::<Shard>(), Ok(Shard { index: 1, count: 1 }));
        assert_eq!(" 3 / 3 ".parse::<Shard>().map(|s| s.to_string()), Ok("3/3".to_string()));
        assert_eq!("0/2".parse::<Shard>(), Err("shards are numbered from 1: 0/2 is not a shard (the first is 1/2)".to_string()));
        assert_eq!("3/2".parse::<Shard>(), Err("shard 3/2 does not exist: there are 2 shards, 1/2 to 2/2".to_string()));
        assert_eq!("1/0".parse::<Shard>(), Err("the shard count N must be at least 1".to_string()));
        for bad in ["", "2", "2/", "/2", "a/b", "1/2/3", "-1/2", "1.5/2", "2of4"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("is not a shard: write I/N"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn tests_are_dealt_round_robin_by_rank_and_each_to_exactly_one_shard() {
        let deal = |i, n, tests| (0..tests).filter(|&p| Shard::new(i, n).unwrap().owns(p)).collect::<Vec<_>>();
        assert_eq!((deal(1, 2, 5), deal(2, 2, 5)), (vec![0, 2, 4], vec![1, 3]));
        assert_eq!((deal(1, 3, 5), deal(2, 3, 5), deal(3, 3, 5)), (vec![0, 3], vec![1, 4], vec![2]));
        // More shards than tests: the last ones get nothing.
        assert_eq!((deal(1, 4, 2), deal(2, 4, 2), deal(3, 4, 2), deal(4, 4, 2)), (vec![0], vec![1], vec![], vec![]));
        for n in 1..6 {
            for tests in 0..12 {
                let mut all: Vec<usize> = (1..=n).flat_map(|i| deal(i, n, tests)).collect();
                all.sort();
                assert_eq!(all, (0..tests).collect::<Vec<_>>(), "{n} shards, {tests} tests");
            }
        }
    }

    #[test]
    fn the_budget_is_split_evenly_up_front_with_the_remainder_to_the_best_ranked() {
        assert_eq!(budgets(10_000, 3), [3_334, 3_333, 3_333]);
        assert_eq!(budgets(5, 3), [2, 2, 1]);
        assert_eq!(budgets(2, 3), [1, 1, 0]);
        assert_eq!(budgets(9, 3), [3, 3, 3]);
        assert_eq!(budgets(7, 1), [7]);
        assert_eq!(budgets(7, 0), Vec::<u64>::new());
        for (total, tests) in [(10_000, 7), (1, 4), (0, 2), (12_345, 11)] {
            assert_eq!(budgets(total, tests).iter().sum::<u64>(), total);
        }
    }
}
