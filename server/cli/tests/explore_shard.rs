//! `racelens explore --affected --shard I/N` and `racelens merge` on a real JVM and a real
//! git repository: the fixture `explore-models` with its change applied, where the change
//! selects five multithreaded tests (four fail under exploration, one passes every
//! schedule). The N shards run as N processes at once, as on N machines; their merged
//! report must be the unsharded run's, to the schedule strings and traces (which also
//! checks that a test's exploration is the same in another process), with the same exit
//! status. Only timing differs: `stats.elapsed_ms`, `stats.schedules_per_sec` and the
//! `setup`'s times in each result, and the `(explore 0.2 s)` of a result's text line; and what
//! plain runs of a failing
//! test did (`checks.plain_runs` and the `note:` line about them), which are the JVM's own
//! interleavings, different from one run to the next.

use racelens_test_support as support;
mod common;

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::*;
use serde_json::{json, Value};
use support::*;

const FIXTURE: &str = "explore-models";

/// Fresh caches, one per run of `racelens`: each run is as on a new machine.
struct Machines {
    dir: tempfile::TempDir,
    used: Cell<usize>,
}

impl Machines {
    fn new() -> Machines {
        Machines { dir: tempfile::tempdir().unwrap(), used: Cell::new(0) }
    }

    /// `racelens <args>` in `repo`, on a machine of its own.
    fn command(&self, repo: &Path, args: &[&str]) -> Command {
        self.used.set(self.used.get() + 1);
        let mut command = racelens_command(repo, args);
        command.env("XDG_CACHE_HOME", self.dir.path().join(self.used.get().to_string()));
        command
    }

    /// `racelens <args> --json` on a machine of its own: the exit code and the JSON.
    fn json(&self, repo: &Path, args: &[&str]) -> (i32, Value) {
        let out = self.command(repo, args).arg("--json").output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let json = serde_json::from_str(&stdout).unwrap_or_else(|_| {
            panic!("not JSON ({:?}):\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr))
        });
        (out.status.code().unwrap_or(-1), json)
    }
}

/// The report without what differs from run to run: each result's time, and what the plain
/// runs of a failing test did (the JVM's own interleavings, not racelens's).
fn timeless(report: &Value) -> Value {
    let mut r = report.clone();
    for t in r["tests"].as_array_mut().unwrap() {
        if let Some(stats) = t["result"]["stats"].as_object_mut() {
            assert!(stats.remove("elapsed_ms").is_some() && stats.remove("schedules_per_sec").is_some(), "{stats:?}");
        }
        if let Some(checks) = t["result"]["checks"].as_object_mut() {
            checks.remove("plain_runs");
        }
        if let Some(setup) = t["result"]["setup"].as_object_mut() {
            setup.insert("compile_ms".into(), Value::Null);
            setup.insert("impact_ms".into(), Value::Null);
        }
    }
    r
}

/// The text without the times a result took (`(compile 0.9 s, explore 0.2 s)`), and without
/// the note on what the plain runs of a failing test did.
fn timeless_text(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("note: the test fails without racelens too"))
        .map(timeless_line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs shards 1/n to n/n of `explore --affected --json <extra>` at once, each its own
/// process; writes each one's stdout to `shard-I.json` in `out`. Returns the files and the
/// exit codes.
fn run_shards(machines: &Machines, repo: &Path, out: &Path, n: usize, extra: &[&str]) -> (Vec<PathBuf>, Vec<i32>) {
    let children: Vec<_> = (1..=n)
        .map(|i| {
            let shard = format!("{i}/{n}");
            let args = [&["explore", "--affected", "--shard", &shard, "--json"][..], extra].concat();
            machines.command(repo, &args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
        })
        .collect();
    let mut files = Vec::new();
    let mut codes = Vec::new();
    for (i, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().unwrap();
        let file = out.join(format!("shard-{}-of-{n}.json", i + 1));
        std::fs::write(&file, &output.stdout).unwrap();
        let json = serde_json::from_slice::<Value>(&output.stdout)
            .unwrap_or_else(|_| panic!("shard {}/{n}: {}", i + 1, String::from_utf8_lossy(&output.stderr)));
        assert_follows_schema("explore-affected", &json);
        files.push(file);
        codes.push(output.status.code().unwrap_or(-1));
    }
    (files, codes)
}

fn merge_command(repo: &Path, files: &[PathBuf]) -> std::process::Command {
    let mut command = racelens_command(repo, &["merge"]);
    command.args(files);
    command
}

fn shard_json(file: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
}

#[test]
fn shards_run_as_separate_processes_merge_into_the_unsharded_report() {
    let repo = fixture_repo(FIXTURE);
    let out = tempfile::tempdir().unwrap();
    let machines = Machines::new();
    let (code, single) = machines.json(repo.path(), &["explore", "--affected"]);
    assert_eq!((code, &single["selected"], &single["failed"]), (1, &json!(5), &json!(4)), "{single:#}");
    let budgets: Vec<&Value> = single["tests"].as_array().unwrap().iter().map(|t| &t["budget"]).collect();
    assert_eq!(budgets, [&json!(2_000); 5], "{single:#}");

    // With 60 schedules each test gets 12, fewer than #1 needs to fail (34), #2 to pass every
    // schedule (61) and #3 to fail (14): the budget of each is the same in each shard as in
    // one run.
    let (code_60, single_60) = machines.json(repo.path(), &["explore", "--affected", "--max-schedules", "60"]);
    let ended: Vec<(&Value, &Value)> = single_60["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (&t["result"]["outcome"], &t["result"]["schedules"]))
        .collect();
    let (limit, fail) = ((&json!("limit"), &json!(12)), (&json!("fail"), &json!(1)));
    assert_eq!(ended, [limit, limit, limit, fail, fail], "{single_60:#}");
    for n in [2, 5] {
        let (single, code, extra) = match n {
            2 => (&single, code, &[][..]),
            _ => (&single_60, code_60, &["--max-schedules", "60"][..]),
        };
        let (files, codes) = run_shards(&machines, repo.path(), out.path(), n, extra);
        // Round-robin by rank: 2 shards hold #1, #3 and #5, and #2 and #4; 5 shards one each.
        let held: Vec<Vec<u64>> = files
            .iter()
            .map(|f| shard_json(f)["tests"].as_array().unwrap().iter().map(|t| t["rank"].as_u64().unwrap()).collect())
            .collect();
        let expected: Vec<Vec<u64>> = match n {
            2 => vec![vec![1, 3, 5], vec![2, 4]],
            _ => vec![vec![1], vec![2], vec![3], vec![4], vec![5]],
        };
        assert_eq!(held, expected);
        // Each shard's status is its own tests': with 2 shards each holds a failure; with 5
        // and 60 schedules only #4 and #5 fail.
        assert_eq!(codes, if n == 2 { vec![1, 1] } else { vec![0, 0, 0, 1, 1] });
        // The files in any order.
        let reversed: Vec<PathBuf> = files.iter().rev().cloned().collect();
        let merged = merge_command(repo.path(), &reversed).arg("--json").output().unwrap();
        let json: Value = serde_json::from_slice(&merged.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&merged.stderr)));
        assert_follows_schema("explore-affected", &json);
        assert_eq!(timeless(&json), timeless(single), "{n} shards");
        assert_eq!(merged.status.code(), Some(code), "{n} shards");
    }

    // Seven shards for five tests: the deal goes on round the table, so shards 6 and 7 take
    // the second parts of #1 and #2, each with half its budget. #1's failure is found in a
    // part; #2 clears each part (every schedule of the test, or every one of its share up to
    // the bound, 3), and so the whole; #3 to #5 are as alone.
    let (files, codes) = run_shards(&machines, repo.path(), out.path(), 7, &[]);
    let held: Vec<Vec<(u64, Value)>> = files
        .iter()
        .map(|f| {
            shard_json(f)["tests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| (t["rank"].as_u64().unwrap(), t["result"]["coverage"]["part"].clone()))
                .collect()
        })
        .collect();
    let part = |i, n| json!({"index": i, "count": n});
    let expected = vec![
        vec![(1, part(1, 2))],
        vec![(2, part(1, 2))],
        vec![(3, Value::Null)],
        vec![(4, Value::Null)],
        vec![(5, Value::Null)],
        vec![(1, part(2, 2))],
        vec![(2, part(2, 2))],
    ];
    assert_eq!(held, expected);
    let cleared = |coverage: &Value| coverage["all_schedules"] == json!(true) || coverage["complete_bound"] == json!(3);
    for f in [&files[1], &files[6]] {
        let t = &shard_json(f)["tests"][0];
        assert_eq!((&t["budget"], &t["result"]["outcome"]), (&json!(1_000), &json!("pass")), "{t:#}");
        assert!(cleared(&t["result"]["coverage"]), "{t:#}");
    }
    // #3 to #5 fail, #2's parts pass, and #1's failure is in one of its parts at least.
    assert_eq!((&codes[1..5], codes[6]), (&[0, 1, 1, 1][..], 0), "{codes:?}");
    assert!(codes[0] == 1 || codes[5] == 1, "{codes:?}");
    let merged = merge_command(repo.path(), &files).arg("--json").output().unwrap();
    let json: Value = serde_json::from_slice(&merged.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&merged.stderr)));
    assert_follows_schema("explore-affected", &json);
    assert_eq!(merged.status.code(), Some(1));
    let (whole, alone) = (timeless(&json), timeless(&single));
    assert_eq!(whole["tests"].as_array().unwrap()[2..], alone["tests"].as_array().unwrap()[2..]);
    let (first, second) = (&json["tests"][0], &json["tests"][1]);
    assert_eq!(
        (&first["result"]["outcome"], first["parts"].as_array().unwrap().len(), &first["budget"]),
        (&json!("fail"), 2, &json!(2_000)),
        "{first:#}"
    );
    assert_eq!(
        (&second["result"]["outcome"], &second["result"]["coverage"]["part"]),
        (&json!("pass"), &Value::Null),
        "{second:#}"
    );
    assert!(cleared(&second["result"]["coverage"]), "{second:#}");
    let runs: u64 =
        second["parts"].as_array().unwrap().iter().map(|p| p["result"]["schedules"].as_u64().unwrap()).sum();
    assert_eq!(second["result"]["schedules"].as_u64(), Some(runs));
    let text = merge_command(repo.path(), &files).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("part 1/2: ✓ no failure: ")
            && text.contains("part 2/2: ✓ no failure: ")
            && text.contains("✓ the 2 parts together: no failure: "),
        "{text}"
    );
    assert!(text.contains("✗ the 2 parts together: a failure (above)"), "{text}");

    // The text report too, and `--fail-fast`, which stops the merge where one run stops.
    let (files, _) = run_shards(&machines, repo.path(), out.path(), 2, &[]);
    let merged = merge_command(repo.path(), &files).output().unwrap();
    let alone = machines.command(repo.path(), &["explore", "--affected"]).output().unwrap();
    assert_eq!(
        timeless_text(&String::from_utf8_lossy(&merged.stdout)),
        timeless_text(&String::from_utf8_lossy(&alone.stdout))
    );
    assert_eq!((merged.status.code(), alone.status.code()), (Some(1), Some(1)));

    let (code, fail_fast) = machines.json(repo.path(), &["explore", "--affected", "--fail-fast"]);
    let (files, codes) = run_shards(&machines, repo.path(), out.path(), 2, &["--fail-fast"]);
    assert_eq!(codes, [1, 1]);
    // Shard 1 stopped at #1's failure, before #3.
    assert_eq!(shard_json(&files[0])["tests"].as_array().unwrap().len(), 1);
    let merged = merge_command(repo.path(), &files).arg("--json").output().unwrap();
    let json: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(timeless(&json), timeless(&fail_fast));
    assert_eq!((merged.status.code(), code), (Some(1), 1));
}

#[test]
fn a_shard_without_a_test_says_so_and_merge_refuses_an_incomplete_set() {
    let repo = fixture_repo(FIXTURE);
    let machines = Machines::new();
    // A budget of 0 stops every test before its first run.
    let (code, single) = machines.json(repo.path(), &["explore", "--affected", "--max-schedules", "0"]);
    assert_eq!((code, &single["schedules"]), (0, &json!(0)), "{single:#}");
    let dir = tempfile::tempdir().unwrap();
    let (files, codes) = run_shards(&machines, repo.path(), dir.path(), 5, &["--max-schedules", "0"]);
    assert_eq!(codes, [0; 5]);
    let merge = |files: &[PathBuf]| {
        let out = merge_command(repo.path(), files).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, stdout, stderr) = merge(&files[..4]);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (Some(2), "", "racelens: error: shard 5/5 is missing: the merge needs the output of every shard, 1/5 to 5/5\n")
    );
    let twice = [&files[..], &files[1..2]].concat();
    let (code, _, stderr) = merge(&twice);
    assert_eq!(
        (code, stderr),
        (
            Some(2),
            format!("racelens: error: shard 2/5 is given twice: {} and {}\n", files[1].display(), files[1].display())
        )
    );
    // Every test stopped at once: the merge says so, as the one run does.
    let merged = merge_command(repo.path(), &files).arg("--json").output().unwrap();
    assert_eq!(timeless(&serde_json::from_slice(&merged.stdout).unwrap()), timeless(&single));
    let (code, stdout, _) = merge(&files);
    assert_eq!(code, Some(0));
    assert!(stdout.ends_with("racelens: 5 selected tests explored: 0 failed, 0 cleared, 5 budget ends with no bound complete, 0 of 0 schedules\n"), "{stdout}");
    // A shard of a run with other options.
    let other_dir = tempfile::tempdir().unwrap();
    let (other, _) = run_shards(&machines, repo.path(), other_dir.path(), 5, &["--max-schedules", "0", "--bound", "1"]);
    let (code, _, stderr) = merge(&[&files[..4], &other[4..]].concat());
    assert_eq!(
        (code, stderr),
        (
            Some(2),
            format!(
                "racelens: error: {} and {} come from different runs: the options of `explore` differ\n",
                files[0].display(),
                other[4].display()
            )
        )
    );

    // An unchanged tree selects nothing: every shard has no work, and the merge is the
    // unsharded report.
    let unchanged = repo_from(&fixtures_dir().join(FIXTURE), false);
    let (code, single) = machines.json(unchanged.path(), &["explore", "--affected"]);
    let (files, codes) = run_shards(&machines, unchanged.path(), dir.path(), 2, &[]);
    assert_eq!((code, codes), (0, vec![0, 0]));
    let merged = merge_command(unchanged.path(), &files).arg("--json").output().unwrap();
    assert_eq!((merged.status.code(), serde_json::from_slice::<Value>(&merged.stdout).unwrap()), (Some(0), single));
    let merged = merge_command(unchanged.path(), &files).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&merged.stdout),
        "racelens: the change selects no test (static reachability; no coverage history)\n"
    );

    for bad in ["0/2", "3/2", "2", "1/0", "x/y"] {
        let out = racelens_command(repo.path(), &["explore", "--affected", "--shard", bad]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(2), true), "{bad}: {stderr}");
        assert!(stderr.contains(&format!("invalid value '{bad}' for '--shard <I/N>'")), "{bad}: {stderr}");
    }
    let out =
        racelens_command(repo.path(), &["explore", "--test", "PositionTest#snapshotsAreNeverTorn", "--shard", "1/2"])
            .output()
            .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "--shard needs --affected: {stderr}");
    assert!(stderr.contains("'--test <CLASS#METHOD>' cannot be used with '--shard <I/N>'"), "{stderr}");
    let help = racelens_command(repo.path(), &["explore", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("--shard <I/N>") && help.contains("a test's schedules are split into parts"), "{help}");
}
