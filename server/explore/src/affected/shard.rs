//! Splitting `racelens explore --affected` over machines: the `--shard I/N` argument, which
//! of the selected tests each shard explores, and the budget of each test. With fewer tests
//! than shards, a test's schedules are split too: each of its shards explores one part of
//! them ([`crate::search::part`]), and `racelens merge` joins the parts' claims.
//!
//! Every shard works from the same inputs (the change, hence the same selection in the same
//! order, and the same options), so each one computes on its own, without talking to the
//! others, the same deal and the same budgets; `racelens merge` ([`super::merge`]) checks that and
//! puts the shards' results back into the report the unsharded run prints.

use std::fmt;
use std::str::FromStr;

use crate::search::part::Part;

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

    /// What this shard explores of `tests` selected tests, in rank order: each test's
    /// position and the part of its schedules ([`dealt`]).
    pub fn deal(self, tests: usize) -> Vec<(usize, Part)> {
        (0..tests)
            .flat_map(|p| {
                dealt(p, tests, self.count).into_iter().filter(|(s, _)| *s == self).map(move |(_, part)| (p, part))
            })
            .collect()
    }
}

/// Who explores the selected test at `position` of `tests` over `count` shards, and which
/// part of its schedules each one does. With at least as many tests as shards, its one shard
/// ([`Shard::owns`]) does the whole. With fewer, the shards that would have had nothing do
/// not sit idle: the deal goes on round the table, so shard `j` (from 0) takes part
/// `j / tests` of the test at `j % tests`, the best-ranked tests getting a part more when
/// the shards do not divide evenly.
pub fn dealt(position: usize, tests: usize, count: usize) -> Vec<(Shard, Part)> {
    let shard = |j: usize| Shard { index: j + 1, count };
    if tests >= count {
        return vec![(shard(position % count), Part::WHOLE)];
    }
    let parts = (position..count).step_by(tests).count();
    (0..parts).map(|i| (shard(position + i * tests), Part::new(i as u32, parts as u32).expect("i < parts"))).collect()
}

/// A part's share of its test's `budget`: evenly, the remainder one each to the first parts.
pub fn part_budget(budget: u64, part: Part) -> u64 {
    let (i, n) = (u64::from(part.index()), u64::from(part.count()));
    budget / n + u64::from(i < budget % n)
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `2/4`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let malformed = || {
            format!(
                "`{s}` is not a shard: write I/N, the shard's number from 1 to N and the number of shards, e.g. 2/4"
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(malformed)?;
        let (i, n) =
            (i.trim().parse::<usize>().map_err(|_| malformed())?, n.trim().parse::<usize>().map_err(|_| malformed())?);
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
        assert_eq!(
            "0/2".parse::<Shard>(),
            Err("shards are numbered from 1: 0/2 is not a shard (the first is 1/2)".to_string())
        );
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
    fn with_fewer_tests_than_shards_every_shard_takes_a_part_of_a_test() {
        let deal = |i, n, tests| {
            Shard::new(i, n).unwrap().deal(tests).into_iter().map(|(p, part)| (p, part.to_string())).collect::<Vec<_>>()
        };
        // Enough tests: whole tests, round-robin, as before.
        assert_eq!(deal(2, 2, 5), [(1, "part 1/1".to_string()), (3, "part 1/1".to_string())]);
        // Two tests, five shards: #1 in three parts (shards 1, 3, 5), #2 in two (2, 4).
        assert_eq!(deal(1, 5, 2), [(0, "part 1/3".to_string())]);
        assert_eq!(deal(3, 5, 2), [(0, "part 2/3".to_string())]);
        assert_eq!(deal(5, 5, 2), [(0, "part 3/3".to_string())]);
        assert_eq!(deal(2, 5, 2), [(1, "part 1/2".to_string())]);
        assert_eq!(deal(4, 5, 2), [(1, "part 2/2".to_string())]);
        assert_eq!(deal(3, 3, 0), []);
        // Every part of every test to exactly one shard.
        for n in 1..7 {
            for tests in 1..9 {
                for p in 0..tests {
                    let parts = dealt(p, tests, n);
                    let count = parts.len() as u32;
                    assert!(parts
                        .iter()
                        .enumerate()
                        .all(|(i, (_, part))| part.index() == i as u32 && part.count() == count));
                    for (s, part) in &parts {
                        assert!(s.deal(tests).contains(&(p, *part)), "{n} shards, {tests} tests, #{p}");
                    }
                }
                let total: usize = (1..=n).map(|i| Shard::new(i, n).unwrap().deal(tests).len()).sum();
                assert_eq!(total, (0..tests).map(|p| dealt(p, tests, n).len()).sum::<usize>());
            }
        }
        assert_eq!((0..3).map(|i| part_budget(10, Part::new(i, 3).unwrap())).collect::<Vec<_>>(), [4, 3, 3]);
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
