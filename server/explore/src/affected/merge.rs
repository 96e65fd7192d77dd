//! The merge behind `racelens merge`: the `--json` outputs of the N shards of `racelens explore --affected
//! --shard I/N` back into one report, the one the unsharded run prints (its text, or with
//! `--json` its JSON, and its exit status).
//!
//! The shards must come from one run: the same shard count, selection (tests, ranks,
//! impacted pairs, budgets), base revision and options, and every shard 1..N exactly once;
//! anything else is an error that names the files. Each shard explored the tests the deal
//! gave it ([`super::shard`]), in rank order, each with its unsharded budget, and a test's
//! exploration depends only on the test and the options: so the selection, walked in rank
//! order and each test taken from its shard, is the unsharded run's list of results. A test
//! split into parts (fewer tests than shards) is joined from them ([`parts`]): its claim is
//! the weakest of theirs, one about the same schedules as the unsharded run's. With
//! `--fail-fast` the unsharded run stops at the first failure in rank order; every test
//! ranked before it was explored by its shard (a shard stops only after a failure of its
//! own, ranked no better), so merge stops there too and drops what shards explored after it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::ended::Ended;
use super::parts;
use super::shard::{dealt, Shard};
use crate::reports::{AffectedReport, AffectedTest, ShardData};
use crate::results::coverage::PartOf;

/// One shard's output.
#[derive(Debug)]
pub struct ShardFile {
    file: String,
    shard: Shard,
    /// The `shard` object (its `texts` and `notes` are read from it too).
    data: ShardData,
    tests: Vec<AffectedTest>,
}

/// The unsharded run's report, put back together.
#[derive(Debug)]
pub struct Merged {
    /// The `tests` entries, in rank order, and the text each test's block prints.
    pub tests: Vec<(AffectedTest, String)>,
    pub ended: Vec<Ended>,
    pub selected: usize,
    pub budget: u64,
    pub notes: Vec<String>,
    /// What the selection rested on (`select`'s summary of its evidence).
    pub evidence: String,
}

/// One shard's output file, read and typed.
pub fn read(path: &Path) -> Result<ShardFile, String> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {file}: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        format!("{file} is not JSON ({e}): run each shard with `racelens explore --affected --shard I/N --json`")
    })?;
    parse(file, v)
}

/// The shard's report, typed. The commonest ways a file is not a shard's output are named
/// first, in words; anything else the report's type rejects is named by serde.
fn parse(file: String, v: Value) -> Result<ShardFile, String> {
    let not_a_shard =
        |why: &str| format!("{file} is not the output of `racelens explore --affected --shard I/N --json`: {why}");
    let data = v.get("shard").ok_or_else(|| not_a_shard("it has no `shard`"))?;
    let number = |key: &str| {
        data[key].as_u64().map(|n| n as usize).ok_or_else(|| not_a_shard(&format!("`shard.{key}` is not a number")))
    };
    let shard = Shard::new(number("index")?, number("count")?).map_err(|e| not_a_shard(&e))?;
    if !data["selection"].is_array() || !data["options"].is_object() {
        return Err(not_a_shard("`shard` lacks the selection or the options"));
    }
    if !v["tests"].is_array() {
        return Err(not_a_shard("it has no `tests`"));
    }
    let report: AffectedReport = serde_json::from_value(v).map_err(|e| not_a_shard(&e.to_string()))?;
    let data = report.shard.expect("checked above");
    Ok(ShardFile { file, shard, data, tests: report.tests })
}

/// The shards of one run, checked to be all of it and put back into its report.
pub fn merge(shards: Vec<ShardFile>) -> Result<Merged, String> {
    let first = shards.first().ok_or("no shard to merge")?;
    let n = first.shard.count();
    // Everything each shard computed from the same inputs must be the same.
    for s in &shards[1..] {
        if s.shard.count() != n {
            return Err(format!(
                "{} is shard {} but {} is shard {}: the shards come from runs split differently",
                s.file, s.shard, first.file, first.shard
            ));
        }
        let differ = [
            (
                s.data.selection != first.data.selection,
                "the selections (the tests the change selects, their ranks, impacted pairs or budgets)",
            ),
            (s.data.base != first.data.base, "the base revisions"),
            (s.data.options != first.data.options, "the options of `explore`"),
        ];
        if let Some((_, what)) = differ.iter().find(|(differs, _)| *differs) {
            return Err(format!("{} and {} come from different runs: {what} differ", first.file, s.file));
        }
    }
    let mut by_index: BTreeMap<usize, &ShardFile> = BTreeMap::new();
    for s in &shards {
        if let Some(other) = by_index.insert(s.shard.index(), s) {
            return Err(format!("shard {} is given twice: {} and {}", s.shard, other.file, s.file));
        }
    }
    let missing: Vec<String> = (1..=n).filter(|i| !by_index.contains_key(i)).map(|i| format!("{i}/{n}")).collect();
    if !missing.is_empty() {
        let which = match missing.len() {
            1 => format!("shard {} is", missing[0]),
            _ => format!("shards {} are", missing.join(", ")),
        };
        return Err(format!("{which} missing: the merge needs the output of every shard, 1/{n} to {n}/{n}"));
    }
    let selection = &first.data.selection;
    let fail_fast = first.data.options.fail_fast;
    // Each shard's tests are its share of the deal, in rank order: all of it, or with
    // `--fail-fast` up to its first failure.
    let mut next: BTreeMap<usize, std::slice::Iter<AffectedTest>> =
        by_index.iter().map(|(&i, s)| (i, s.tests.iter())).collect();
    let mut merged = Merged {
        tests: Vec::new(),
        ended: Vec::new(),
        selected: selection.len(),
        budget: first.data.options.max_schedules,
        notes: first.data.notes.clone(),
        evidence: first.data.evidence.clone(),
    };
    // Names are quoted as JSON writes them (`{:?}` of a plain name), as the messages always were.
    for (p, wanted) in selection.iter().enumerate() {
        // The test's shard, or the shards of its parts when there were fewer tests than shards.
        let mut entries = Vec::new();
        let mut texts = Vec::new();
        let owners = dealt(p, selection.len(), n);
        for (owner, part) in &owners {
            let file = &by_index[&owner.index()].file;
            let entry = next.get_mut(&owner.index()).and_then(Iterator::next).ok_or_else(|| {
                format!(
                    "{file} (shard {owner}) lacks #{} {:?}, which the deal gave it: its run did not finish",
                    wanted.rank, wanted.test
                )
            })?;
            if entry.test != wanted.test || entry.rank != wanted.rank {
                return Err(format!(
                    "{file} (shard {owner}) has {:?} #{} where the deal gave it {:?} #{}",
                    entry.test, entry.rank, wanted.test, wanted.rank
                ));
            }
            let expected = PartOf::of(*part);
            if let Some(got) = entry.result.as_ref().map(|r| r.coverage.part).filter(|&got| got != expected) {
                let name = |p: Option<PartOf>| p.map_or("all".to_string(), |p| format!("part {}/{}", p.index, p.count));
                return Err(format!(
                    "{file} (shard {owner}) explored {} of {:?} where the deal gave it {}",
                    name(got),
                    wanted.test,
                    name(expected)
                ));
            }
            texts.push(
                by_index[&owner.index()]
                    .data
                    .texts
                    .get(&wanted.test)
                    .ok_or_else(|| format!("{file} (shard {owner}) lacks the text of {:?}", wanted.test))?
                    .as_str(),
            );
            entries.push(entry.clone());
        }
        let (entry, text) = match owners.len() {
            1 => (entries.remove(0), texts[0].to_string()),
            _ => {
                let joined = parts::join(wanted, entries);
                let text = parts::text(&texts, &joined);
                (joined, text)
            }
        };
        let ended = Ended::of_entry(&entry);
        merged.tests.push((entry, text));
        merged.ended.push(ended);
        if fail_fast && ended == Ended::Failed {
            break;
        }
    }
    // Tests a shard explored beyond its share would be results of another run.
    if !(fail_fast && merged.ended.last() == Some(&Ended::Failed)) {
        if let Some((i, extra)) = next.iter_mut().find_map(|(i, it)| it.next().map(|t| (i, t))) {
            return Err(format!(
                "{} (shard {i}/{n}) has {:?}, which the deal did not give it",
                by_index[i].file, extra.test
            ));
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use ExploreOutcome::*;

    use super::*;
    use crate::affected::ended::bare_result;
    use crate::reports::{ExploreOutcome, Search, SelectedTest, ShardOptions};
    use crate::results::coverage::{Coverage, PartOf};

    /// The JSON a shard of `count` prints for the `selection` of `(test, outcome)` (outcome
    /// `None`: not run), holding the tests the deal gives shard `index`, up to `explored`
    /// of them.
    fn shard_json(
        index: usize,
        count: usize,
        selection: &[(&str, Option<ExploreOutcome>)],
        explored: usize,
        fail_fast: bool,
    ) -> Value {
        let shard = Shard::new(index, count).unwrap();
        let mine = shard.deal(selection.len()).into_iter().map(|(p, part)| (p, part, selection[p])).take(explored);
        let tests: Vec<AffectedTest> = mine
            .map(|(p, part, (test, outcome))| {
                let part = PartOf::of(part);
                let coverage = |o| Coverage {
                    all_schedules: o == ExploreOutcome::Pass,
                    classes: 1,
                    runs: 3,
                    part,
                    ..Coverage::default()
                };
                let result = outcome.map(|o| bare_result(test, o, coverage(o), 3));
                let error = outcome.is_none().then(|| "no such test".to_string());
                AffectedTest {
                    test: test.to_string(),
                    rank: p + 1,
                    pairs: vec!["RW A.x".into()],
                    budget: 10,
                    result,
                    error,
                    parts: Vec::new(),
                }
            })
            .collect();
        let texts = tests.iter().map(|t| (t.test.clone(), format!("text of {}\n", t.test))).collect();
        let sel = selection
            .iter()
            .enumerate()
            .map(|(p, (test, _))| SelectedTest {
                test: test.to_string(),
                rank: p + 1,
                pairs: vec!["RW A.x".into()],
                budget: 10,
            })
            .collect();
        let options = ShardOptions {
            path: ".".into(),
            search: Search::Icb,
            heuristic: "pct+LA".into(),
            bound: 2,
            max_schedules: selection.len() as u64 * 10,
            pct_depth: 3,
            select: false,
            seed: None,
            max_steps: 100_000,
            all: false,
            fail_fast,
        };
        let shard = ShardData {
            index,
            count,
            selection: sel,
            evidence: "static reachability; no coverage history".into(),
            base: Some("abc".into()),
            options,
            texts,
            notes: Vec::new(),
        };
        let report = AffectedReport {
            tests,
            selected: selection.len(),
            budget: selection.len() as u64 * 10,
            schedules: 0,
            failed: 0,
            shard: Some(shard),
        };
        serde_json::to_value(report).unwrap()
    }

    fn merged(files: Vec<Value>) -> Result<Merged, String> {
        merge(files.into_iter().enumerate().map(|(i, v)| parse(format!("s{i}.json"), v).unwrap()).collect())
    }

    fn names(m: &Merged) -> Vec<&str> {
        m.tests.iter().map(|(t, _)| t.test.as_str()).collect()
    }

    const FIVE: [(&str, Option<ExploreOutcome>); 5] =
        [("A#a", Some(Pass)), ("B#b", Some(Fail)), ("C#c", Some(Limit)), ("D#d", None), ("E#e", Some(Fail))];

    #[test]
    fn shards_in_any_order_merge_into_rank_order() {
        let m = merged(vec![shard_json(2, 2, &FIVE, 9, false), shard_json(1, 2, &FIVE, 9, false)]).unwrap();
        assert_eq!(names(&m), ["A#a", "B#b", "C#c", "D#d", "E#e"]);
        assert_eq!(m.ended, [Ended::EverySchedule, Ended::Failed, Ended::Budget, Ended::NotExplored, Ended::Failed]);
        assert_eq!(m.tests[3].1, "text of D#d\n");
        assert_eq!((m.selected, m.budget), (5, 50));
        let m = merged(vec![
            shard_json(3, 3, &FIVE, 9, false),
            shard_json(1, 3, &FIVE, 9, false),
            shard_json(2, 3, &FIVE, 9, false),
        ])
        .unwrap();
        assert_eq!(names(&m), ["A#a", "B#b", "C#c", "D#d", "E#e"]);
        // One shard, and more shards than tests.
        assert_eq!(names(&merged(vec![shard_json(1, 1, &FIVE, 9, false)]).unwrap()).len(), 5);
        let six: Vec<Value> = (1..=6).map(|i| shard_json(i, 6, &FIVE, 9, false)).collect();
        let m = merged(six).unwrap();
        assert_eq!(names(&m).len(), 5);
        // Shards 1 and 6 each explored a part of #1, joined: both claim all of their own.
        assert_eq!((m.tests[0].0.parts.len(), m.ended[0]), (2, Ended::EverySchedule));
        assert!(
            m.tests[0].1.ends_with("✓ the 2 parts together: no failure: every schedule explored (2 classes, 6 runs)\n"),
            "{}",
            m.tests[0].1
        );
        assert!(m.tests[1].0.parts.is_empty());
        // Two tests over five shards: #1 in three parts, #2 in two.
        let two = [("A#a", Some(Pass)), ("B#b", Some(Fail))];
        let m = merged((1..=5).map(|i| shard_json(i, 5, &two, 9, false)).collect()).unwrap();
        assert_eq!((m.tests[0].0.parts.len(), m.tests[1].0.parts.len()), (3, 2));
        assert_eq!(m.ended, [Ended::EverySchedule, Ended::Failed]);
        // A shard whose entry is another part than the deal gave it.
        let mut wrong = shard_json(3, 5, &two, 9, false);
        wrong["tests"][0]["result"]["coverage"]["part"] = json!({"index": 1, "count": 3});
        let files = vec![
            shard_json(1, 5, &two, 9, false),
            shard_json(2, 5, &two, 9, false),
            wrong,
            shard_json(4, 5, &two, 9, false),
            shard_json(5, 5, &two, 9, false),
        ];
        assert_eq!(
            merged(files).unwrap_err(),
            "s2.json (shard 3/5) explored part 1/3 of \"A#a\" where the deal gave it part 2/3"
        );
    }

    #[test]
    fn with_fail_fast_the_merge_stops_at_the_first_failure_in_rank_order() {
        // Shard 1 (A, C, E) ran all three; shard 2 (B, D) stopped at B's failure.
        let m = merged(vec![shard_json(1, 2, &FIVE, 3, true), shard_json(2, 2, &FIVE, 1, true)]).unwrap();
        assert_eq!(names(&m), ["A#a", "B#b"]);
        // Without --fail-fast, a shard that stopped early did not finish.
        let e = merged(vec![shard_json(1, 2, &FIVE, 3, false), shard_json(2, 2, &FIVE, 1, false)]).unwrap_err();
        assert_eq!(e, "s1.json (shard 2/2) lacks #4 \"D#d\", which the deal gave it: its run did not finish");
    }

    #[test]
    fn a_missing_or_duplicate_shard_or_another_run_is_an_error() {
        let e = merged(vec![shard_json(1, 3, &FIVE, 9, false)]).unwrap_err();
        assert_eq!(e, "shards 2/3, 3/3 are missing: the merge needs the output of every shard, 1/3 to 3/3");
        let e = merged(vec![shard_json(1, 3, &FIVE, 9, false), shard_json(3, 3, &FIVE, 9, false)]).unwrap_err();
        assert_eq!(e, "shard 2/3 is missing: the merge needs the output of every shard, 1/3 to 3/3");
        let e = merged(vec![
            shard_json(1, 2, &FIVE, 9, false),
            shard_json(2, 2, &FIVE, 9, false),
            shard_json(1, 2, &FIVE, 9, false),
        ])
        .unwrap_err();
        assert_eq!(e, "shard 1/2 is given twice: s0.json and s2.json");
        let e = merged(vec![shard_json(1, 2, &FIVE, 9, false), shard_json(2, 3, &FIVE, 9, false)]).unwrap_err();
        assert_eq!(e, "s1.json is shard 2/3 but s0.json is shard 1/2: the shards come from runs split differently");
        let other = [("A#a", Some(Pass)), ("B#b", Some(Pass))];
        let e = merged(vec![shard_json(1, 2, &FIVE, 9, false), shard_json(2, 2, &other, 9, false)]).unwrap_err();
        assert!(e.starts_with("s0.json and s1.json come from different runs: the selections"), "{e}");
        let mut changed = shard_json(2, 2, &FIVE, 9, false);
        changed["shard"]["base"] = json!("def");
        let e = merged(vec![shard_json(1, 2, &FIVE, 9, false), changed]).unwrap_err();
        assert_eq!(e, "s0.json and s1.json come from different runs: the base revisions differ");
        let mut changed = shard_json(2, 2, &FIVE, 9, false);
        changed["shard"]["options"]["max_schedules"] = json!(7);
        assert!(merged(vec![shard_json(1, 2, &FIVE, 9, false), changed])
            .unwrap_err()
            .contains("the options of `explore` differ"));
        // A shard holding a test the deal gave another.
        let mut wrong = shard_json(2, 2, &FIVE, 9, false);
        wrong["tests"][0] = shard_json(1, 2, &FIVE, 9, false)["tests"][0].clone();
        assert_eq!(
            merged(vec![shard_json(1, 2, &FIVE, 9, false), wrong]).unwrap_err(),
            "s1.json (shard 2/2) has \"A#a\" #1 where the deal gave it \"B#b\" #2"
        );
    }

    #[test]
    fn a_file_that_is_not_a_shard_is_an_error() {
        let unsharded = json!({"tests": [], "selected": 0, "budget": 10, "schedules": 0, "failed": 0});
        assert_eq!(
            parse("u.json".into(), unsharded).unwrap_err(),
            "u.json is not the output of `racelens explore --affected --shard I/N --json`: it has no `shard`"
        );
        let mut zero = shard_json(1, 2, &FIVE, 9, false);
        zero["shard"]["index"] = json!(0);
        assert_eq!(parse("z.json".into(), zero).unwrap_err(), "z.json is not the output of `racelens explore --affected --shard I/N --json`: shards are numbered from 1: 0/2 is not a shard (the first is 1/2)");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("text.json");
        std::fs::write(&path, "#1 A#a — covers 1 impacted pair\n").unwrap();
        assert!(read(&path).unwrap_err().contains("is not JSON"));
        // A result that is not an exploration's report (here: without its coverage).
        let mut partial = shard_json(1, 2, &FIVE, 9, false);
        partial["tests"][0]["result"].as_object_mut().unwrap().remove("coverage");
        let e = parse("p.json".into(), partial).unwrap_err();
        assert!(e.starts_with("p.json is not the output of `racelens explore --affected --shard I/N --json`: missing field `coverage`"), "{e}");
        assert!(read(&dir.path().join("absent.json")).unwrap_err().starts_with("cannot read "));
    }
}
