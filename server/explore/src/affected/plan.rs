//! What one run of `racelens explore --affected` (or one shard of it) explores, and the lines
//! it prints around the tests: which selected tests with which parts of their schedules and
//! budgets ([`mine`], [`ranked`], [`shard_budget`]), what a shard's JSON carries for
//! `racelens merge` ([`shard_data`]), the line before each test's result ([`header`]) and a
//! shard's summary ([`shard_summary`], [`no_work`]), and the run over its tests, each explored
//! in its part and budget, with what it gathers for each output ([`explore_each`]). The CLI
//! runs one test's exploration and prints.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use racelens_analysis::host::Host;
use racelens_analysis::rank::RankedTest;
use racelens_analysis::sarif::{Finding, Fingerprints};

use super::ended::{count, outcomes, thousands, Ended};
use super::shard::{self, Shard};
use crate::exploration::sarif::{not_explored, TestCovered};
use crate::exploration::{Exploration, Places};
use crate::history;
use crate::reports::{AffectedTest, SelectedTest, ShardData, ShardOptions};
use crate::results::swimlane::Section;
use crate::search::part::Part;

/// The positions in the selection of the tests a run explores, each with the part of its
/// schedules: with `--shard`, the shard's deal; else every selected test, whole.
pub fn mine(shard: Option<Shard>, selected: usize) -> Vec<(usize, Part)> {
    match shard {
        Some(s) => s.deal(selected),
        None => (0..selected).map(|p| (p, Part::WHOLE)).collect(),
    }
}

/// The ranks of the tests at `mine`'s positions, with their parts.
pub fn ranked(mine: &[(usize, Part)], selected: &[RankedTest]) -> Vec<(usize, Part)> {
    mine.iter().map(|&(p, part)| (selected[p].rank, part)).collect()
}

/// The budgets of what this shard explores.
pub fn shard_budget(mine: &[(usize, Part)], budgets: &[u64]) -> u64 {
    mine.iter().map(|&(p, part)| shard::part_budget(budgets[p], part)).sum()
}

/// What a shard's JSON carries for `racelens merge`, under `shard`: which shard it is; the
/// whole selection in rank order with each test's budget, so that merge can tell which
/// tests each shard owed and whether all are there; what must be the same on every shard
/// (the base revision and the options); and the lines the unsharded run would print
/// (`texts` per test, filled in as the tests are explored, and `notes`, the lines the
/// front end prints for the host's notes).
pub fn shard_data(
    host: &Host,
    options: ShardOptions,
    shard: Shard,
    (selected, budgets): (&[RankedTest], &[u64]),
    evidence: &str,
    notes: Vec<String>,
) -> ShardData {
    ShardData {
        index: shard.index(),
        count: shard.count(),
        selection: selected
            .iter()
            .zip(budgets)
            .map(|(t, &budget)| SelectedTest { test: t.test.clone(), rank: t.rank, pairs: t.pairs.clone(), budget })
            .collect(),
        evidence: evidence.to_string(),
        base: history::revision(host),
        options,
        texts: BTreeMap::new(),
        notes,
    }
}

/// `#1 pkg.PoolTest#borrow — covers 4 impacted pairs; up to 3,334 schedules`: the line
/// before each test's result (`; part 2/3 of its schedules, up to ...` for a part).
pub fn header(rank: usize, test: &str, pairs: usize, share: u64, part: Part) -> String {
    let part = match part.is_whole() {
        true => String::new(),
        false => format!("{part} of its schedules, "),
    };
    format!(
        "#{rank} {test} — covers {}; {part}up to {} schedule{}",
        count(pairs, "impacted pair"),
        thousands(share),
        if share == 1 { "" } else { "s" }
    )
}

/// Why a shard has nothing to do: with at least one test selected every shard has a test
/// or a part of one.
pub fn no_work(evidence: &str) -> String {
    format!("no work for this shard: the change selects no test ({evidence})")
}

/// `racelens: shard 1/2: 2 of 3 selected tests explored here: ...`, of this shard's tests
/// (or part of a test) and their budgets alone.
/// `mine` holds the rank of each test it explored, with the part.
pub fn shard_summary(
    s: Shard,
    ended: &[Ended],
    mine: &[(usize, Part)],
    selected: usize,
    schedules: u64,
    budget: u64,
) -> String {
    let what = match mine {
        [(rank, part)] if !part.is_whole() => {
            format!("{part} of the schedules of #{rank} of {} explored here", count(selected, "selected test"))
        }
        _ => format!("{} of {} explored here", mine.len(), count(selected, "selected test")),
    };
    let stopped = match ended.len() == mine.len() {
        true => String::new(),
        false => {
            format!(" (--fail-fast: stopped at its first failure, {} of its {} explored)", ended.len(), mine.len())
        }
    };
    format!("racelens: shard {s}: {what}{stopped}: {}, {} of {} schedules (its tests' budgets); `racelens merge` gives the report of all shards", outcomes(ended), thousands(schedules), thousands(budget))
}

/// Which outputs a run gathers beside its text: `--json`, `--format sarif`, `--html`.
#[derive(Clone, Copy, Debug)]
pub struct Outputs {
    pub json: bool,
    pub sarif: bool,
    pub html: bool,
}

/// What a run (or shard) gathered from the tests it explored, in order.
#[derive(Default)]
pub struct Explored {
    /// How each test's exploration ended.
    pub ended: Vec<Ended>,
    /// The schedules run.
    pub spent: u64,
    /// Each test's entry in the JSON report (its result with `--json` only).
    pub results: Vec<AffectedTest>,
    /// Each test's lines, as the unsharded run prints them.
    pub texts: BTreeMap<String, String>,
    /// `--format sarif`: the results, and what each test covered.
    pub findings: Vec<Finding>,
    pub explored: Vec<TestCovered>,
    /// `--html`: one section per test explored.
    pub sections: Vec<Section>,
}

/// Explores the tests at `mine`'s positions in order, each within its part of its budget
/// and, with `max_seconds`, its share of the time left; stops at the first failure with
/// `fail_fast`. `explore` runs one test, given its position in `mine` and its [`header`];
/// `shown` gets each test's lines once it ended.
pub fn explore_each(
    host: &Host,
    (selected, budgets, mine): (&[RankedTest], &[u64], &[(usize, Part)]),
    outputs: Outputs,
    (max_seconds, fail_fast): (Option<u64>, bool),
    mut explore: impl FnMut(usize, &str, &RankedTest, (u64, Part), Option<u64>) -> Result<Exploration, String>,
    mut shown: impl FnMut(&str),
) -> Explored {
    let places = Places::of(host);
    let mut fingerprints = Fingerprints::default();
    let mut out = Explored::default();
    let deadline = max_seconds.map(|s| Instant::now() + Duration::from_secs(s));
    for (i, &(p, part)) in mine.iter().enumerate() {
        let (test, share) = (&selected[p], shard::part_budget(budgets[p], part));
        // `--max-seconds`: the time left, shared among the tests left.
        let seconds = deadline.map(|d| d.saturating_duration_since(Instant::now()).as_secs() / (mine.len() - i) as u64);
        let title = header(test.rank, &test.test, test.pairs.len(), share, part);
        let mut covered = None;
        let (end, result, error, text) = match explore(i, &title, test, (share, part), seconds) {
            Ok(exploration) => {
                out.spent += exploration.report.stats.schedules;
                let result = outputs.json.then(|| exploration.json());
                if outputs.sarif {
                    out.findings.extend(exploration.sarif_finding(host, &mut fingerprints));
                    covered = Some(exploration.sarif_covered());
                }
                if outputs.html {
                    out.sections.push(exploration.html_section(title));
                }
                (Ended::of(&exploration.report), result, None, exploration.text())
            }
            Err(e) => {
                if outputs.sarif {
                    let why = format!("not explored: {e}");
                    out.findings.push(not_explored(host, &places, &test.test, &why, &mut fingerprints));
                }
                let text = format!("! not explored: {e}\n");
                out.sections.push(Section::Outcome { test: title, words: format!("! not explored: {e}") });
                (Ended::NotExplored, None, Some(e), text)
            }
        };
        shown(&text);
        let (name, rank, pairs) = (test.test.clone(), test.rank, test.pairs.clone());
        out.explored.push(TestCovered {
            test: name.clone(),
            rank,
            pairs: pairs.clone(),
            exploration: covered,
            error: error.clone(),
        });
        out.texts.insert(name.clone(), text);
        out.results.push(AffectedTest { test: name, rank, pairs, budget: share, result, error, parts: Vec::new() });
        out.ended.push(end);
        if fail_fast && end == Ended::Failed {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_says_what_it_explored_and_when_it_has_nothing_to_do() {
        let s = Shard::new(2, 3).unwrap();
        let mine = [(2, Part::WHOLE), (5, Part::WHOLE)];
        assert_eq!(shard_summary(s, &[Ended::Failed, Ended::Bound(3)], &mine, 5, 40, 4_000), "racelens: shard 2/3: 2 of 5 selected tests explored here: 1 failed, 1 cleared (bound 3 on 1), 40 of 4,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        assert_eq!(shard_summary(s, &[Ended::Failed], &mine, 5, 1, 4_000), "racelens: shard 2/3: 2 of 5 selected tests explored here (--fail-fast: stopped at its first failure, 1 of its 2 explored): 1 failed, 0 cleared, 1 of 4,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        let part = [(1, Part::new(1, 2).unwrap())];
        assert_eq!(shard_summary(s, &[Ended::EverySchedule], &part, 1, 12, 5_000), "racelens: shard 2/3: part 2/2 of the schedules of #1 of 1 selected test explored here: 0 failed, 1 cleared (every schedule on 1), 12 of 5,000 schedules (its tests' budgets); `racelens merge` gives the report of all shards");
        assert_eq!(
            no_work("static reachability for 2 tests"),
            "no work for this shard: the change selects no test (static reachability for 2 tests)"
        );
        assert_eq!(header(1, "p.T#m", 1, 1, Part::WHOLE), "#1 p.T#m — covers 1 impacted pair; up to 1 schedule");
        assert_eq!(
            header(2, "p.T#m", 4, 3_334, Part::WHOLE),
            "#2 p.T#m — covers 4 impacted pairs; up to 3,334 schedules"
        );
        assert_eq!(
            header(1, "p.T#m", 4, 5_000, Part::new(0, 2).unwrap()),
            "#1 p.T#m — covers 4 impacted pairs; part 1/2 of its schedules, up to 5,000 schedules"
        );
    }
}
