//! `--format sarif` end to end: the real binary on real git repositories. `check`'s log
//! says what `check --json` says (a result per warning, its related locations, the rule
//! texts of `--explain`'s source), with fingerprints that survive lines moving; `explore`'s
//! log turns a failing schedule into a result with a code flow per thread, and claims in its
//! properties no more than the exploration did. The official schema's verdict on these logs
//! is `tests/lsp/sarif.test.mjs`'s.

use racelens_test_support as support;
mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::racelens_command;
use racelens_analysis::impact::codes;
use serde_json::Value;
use support::*;

/// Runs `racelens <args>` in `dir`; returns the exit code and the SARIF log on stdout.
fn sarif(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = racelens_command(dir, args).args(["--format", "sarif"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log = serde_json::from_str(&stdout)
        .unwrap_or_else(|_| panic!("not JSON ({:?}):\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), log)
}

fn results(log: &Value) -> &[Value] {
    log["runs"][0]["results"].as_array().unwrap()
}

/// `(uri, startLine)` of a location, checking it is relative to the work tree's root.
fn place(location: &Value) -> (String, u64) {
    let physical = &location["physicalLocation"];
    assert_eq!(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%", "{location:#}");
    (
        physical["artifactLocation"]["uri"].as_str().unwrap().to_string(),
        physical["region"]["startLine"].as_u64().unwrap(),
    )
}

fn fingerprint(result: &Value) -> String {
    result["partialFingerprints"]["racelens/v1"].as_str().unwrap().to_string()
}

#[test]
fn check_says_in_sarif_what_it_says_in_json() {
    let repo = fixture_repo("object-pool");
    let (code, log) = sarif(repo.path(), &["check"]);
    assert_eq!(code, 0, "{log:#}");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(
        (driver["name"].as_str(), driver["version"].as_str()),
        (Some("racelens"), Some(env!("CARGO_PKG_VERSION")))
    );
    let root = repo.path().canonicalize().unwrap();
    assert_eq!(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], format!("file://{}/", root.display()));
    assert_eq!(run["invocations"][0]["exitCode"], 0);
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);

    // A rule per code of the analysis, in the words of its one source.
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["RL001", "RL002", "RL003", "RL004", "RL005", "RL006", "RL007", "RL008", "RL009", "RL010", "RL100"]
    );
    for rule in rules {
        let code = codes::find(rule["id"].as_str().unwrap()).unwrap();
        assert_eq!(
            (rule["name"].as_str(), rule["shortDescription"]["text"].as_str()),
            (Some(code.name), Some(code.title))
        );
        assert_eq!(
            (rule["fullDescription"]["text"].as_str(), rule["help"]["text"].as_str()),
            (Some(code.explanation), Some(code.explanation))
        );
    }

    // Every warning of `--json` (no hints: those need `--show hints`), with its place,
    // message and related locations.
    let out = racelens_command(repo.path(), &["check", "--json"]).output().unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings: Vec<&Value> =
        json["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] != "hint").collect();
    assert!(warnings.len() >= 2, "{json:#}");
    assert_eq!(results(&log).len(), warnings.len(), "{log:#}");
    for (d, r) in warnings.iter().zip(results(&log)) {
        assert_eq!(
            (&r["ruleId"], &r["level"], &r["message"]["text"]),
            (&d["code"], &d["severity"], &d["message"]),
            "{r:#}"
        );
        assert_eq!(rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"], r["ruleId"]);
        assert_eq!(place(&r["locations"][0]), (d["file"].as_str().unwrap().to_string(), d["line"].as_u64().unwrap()));
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!((&region["startColumn"], &region["endLine"]), (&d["column"], &d["end_line"]), "{r:#}");
        let related = r["relatedLocations"].as_array().map_or(&[][..], Vec::as_slice);
        let expected = d["related"].as_array().unwrap();
        assert_eq!(related.len(), expected.len(), "{r:#}");
        for (i, (got, want)) in related.iter().zip(expected).enumerate() {
            assert_eq!((got["id"].as_u64(), &got["message"]["text"]), (Some(i as u64), &want["message"]), "{r:#}");
            assert_eq!(place(got), (want["file"].as_str().unwrap().to_string(), want["line"].as_u64().unwrap()));
            assert_eq!(got["physicalLocation"]["region"]["startColumn"], want["column"]);
        }
    }
    let rl001 = results(&log)
        .iter()
        .find(|r| {
            r["ruleId"] == "RL001"
                && r["message"]["text"].as_str().unwrap().starts_with("`numActive` is read in `ObjectPool.addObject()`")
        })
        .unwrap();
    assert_eq!(place(&rl001["locations"][0]), ("src/main/java/org/example/pool/ObjectPool.java".to_string(), 58));
    let region = &rl001["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startColumn"], 13);
    assert!(region["endColumn"].as_u64().unwrap() > 13, "{rl001:#}");
    assert_eq!(
        rl001["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        "org.example.pool.ObjectPool.addObject"
    );
    assert!(!rl001["relatedLocations"].as_array().unwrap().is_empty(), "{rl001:#}");

    let fingerprints: BTreeSet<String> = results(&log).iter().map(fingerprint).collect();
    assert_eq!(fingerprints.len(), results(&log).len(), "one fingerprint per result: {log:#}");
}

#[test]
fn fingerprints_stay_when_lines_move() {
    let repo = fixture_repo("object-pool");
    let (_, before) = sarif(repo.path(), &["check"]);
    // Three lines more above everything: every result moves down, none changes.
    let file = repo.path().join("src/main/java/org/example/pool/ObjectPool.java");
    std::fs::write(&file, format!("// one\n// two\n// three\n{}", std::fs::read_to_string(&file).unwrap())).unwrap();
    let (code, after) = sarif(repo.path(), &["check"]);
    assert_eq!(code, 0, "{after:#}");
    let key = |log: &Value, shift: u64| -> Vec<(String, String, u64)> {
        results(log)
            .iter()
            .map(|r| (fingerprint(r), r["ruleId"].as_str().unwrap().to_string(), place(&r["locations"][0]).1 + shift))
            .collect()
    };
    assert_eq!(key(&before, 3), key(&after, 0), "the same results, with the same fingerprints, three lines down");
}

#[test]
fn hints_come_with_show_hints_as_notes() {
    let repo = fixture_repo("simrt-hashmap");
    let (_, log) = sarif(repo.path(), &["check"]);
    assert!(results(&log).iter().all(|r| r["ruleId"] != "RL100"), "{log:#}");
    let (code, hints) = sarif(repo.path(), &["check", "--show", "hints"]);
    assert_eq!(code, 0, "{hints:#}");
    let hint = results(&hints).iter().find(|r| r["ruleId"] == "RL100").expect("hints with --show hints");
    assert_eq!(hint["level"], "note");
}

#[test]
fn formats_are_named_and_json_is_their_shorthand() {
    let repo = fixture_repo("object-pool");
    let json = racelens_command(repo.path(), &["check", "--json"]).output().unwrap();
    let format_json = racelens_command(repo.path(), &["check", "--format", "json"]).output().unwrap();
    assert_eq!((json.status.code(), &json.stdout), (Some(0), &format_json.stdout));
    for args in [
        &["check", "--json", "--format", "sarif"][..],
        &["check", "--format", "xml"],
        &["explore", "--test", "T#t", "--json", "--format", "sarif"],
    ] {
        let out = racelens_command(repo.path(), args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("--format") && out.stdout.is_empty(), "{args:?}: {stderr}");
    }
    let help = String::from_utf8_lossy(&racelens_command(repo.path(), &["check", "--help"]).output().unwrap().stdout)
        .into_owned();
    assert!(help.contains("--format <FORMAT>") && help.contains("sarif"), "{help}");
}

const LOST_UPDATE: &str = "org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted";

#[test]
fn a_failing_schedule_is_an_error_with_its_preemptions_and_a_thread_flow_per_thread() {
    let repo = fixture_repo("explore-lost-update");
    let (code, log) = sarif(repo.path(), &["explore", "--test", LOST_UPDATE]);
    assert_eq!(code, 1, "{log:#}");
    let run = &log["runs"][0];
    let rules: Vec<&str> =
        run["tool"]["driver"]["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(rules, ["RL200", "RL201", "RL202"]);
    assert_eq!(
        (&run["invocations"][0]["exitCode"], &run["invocations"][0]["executionSuccessful"]),
        (&Value::from(1), &Value::Bool(true))
    );
    let properties = &run["properties"];
    assert_eq!(
        (properties["test"].as_str(), properties["outcome"].as_str(), properties["bound"].as_u64()),
        (Some(LOST_UPDATE), Some("fail"), Some(3)),
        "{properties:#}"
    );
    assert_eq!(
        properties["coverage"]["all_schedules"], false,
        "a failure claims nothing about other schedules: {properties:#}"
    );

    let [result] = results(&log) else { panic!("one result: {log:#}") };
    assert_eq!((result["ruleId"].as_str(), result["level"].as_str()), (Some("RL200"), Some("error")), "{result:#}");
    let message = result["message"]["text"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("{LOST_UPDATE}: ")) && message.contains("replay: racelens replay"),
        "{message}"
    );
    let (file, line) = place(&result["locations"][0]);
    assert_eq!(file, "src/test/java/org/example/metrics/LatencyStatsTest.java");
    assert!((23..=25).contains(&line), "an assertion of the test fails: {result:#}");

    // The preemptions, where the preempted thread stood.
    let related = result["relatedLocations"].as_array().unwrap();
    assert!(!related.is_empty(), "{result:#}");
    assert_eq!(related.len() as u64, result["properties"]["preemptions"].as_u64().unwrap());
    for (i, r) in related.iter().enumerate() {
        assert_eq!(r["id"].as_u64(), Some(i as u64));
        assert!(r["message"]["text"].as_str().unwrap().starts_with("⇄ T"), "{r:#}");
    }
    assert!(
        related.iter().any(|r| place(r).0 == "src/main/java/org/example/metrics/LatencyStats.java"),
        "a preemption in the changed method: {result:#}"
    );

    // The steps: a thread flow per thread, in the execution's order, on the project's lines.
    let flows = result["codeFlows"][0]["threadFlows"].as_array().unwrap();
    assert!(flows.len() >= 2, "{result:#}");
    let mut orders = Vec::new();
    for flow in flows {
        assert!(flow["id"].as_str().unwrap().starts_with('T'), "{flow:#}");
        let steps = flow["locations"].as_array().unwrap();
        let order: Vec<u64> = steps.iter().map(|s| s["executionOrder"].as_u64().unwrap()).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{flow:#}");
        orders.extend(order);
    }
    let steps = flows.iter().flat_map(|f| f["locations"].as_array().unwrap());
    let writes: Vec<&Value> = steps
        .filter(|s| s["location"]["message"]["text"].as_str().unwrap().starts_with("write LatencyStats."))
        .collect();
    assert!(writes.len() >= 2, "the racing writes are steps: {result:#}");
    for w in &writes {
        assert_eq!(place(&w["location"]).0, "src/main/java/org/example/metrics/LatencyStats.java");
        assert_eq!(w["kinds"], serde_json::json!(["memory"]));
    }
    orders.sort();
    assert!(orders.windows(2).all(|w| w[0] < w[1]), "one order over all threads");

    // The schedule of the result replays to the failure.
    let schedule = result["properties"]["schedule"].as_str().unwrap();
    let out =
        racelens_command(repo.path(), &["replay", "--test", LOST_UPDATE, "--schedule", schedule]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn a_pass_is_no_result_and_a_budget_that_ran_out_is_a_note_claiming_no_more() {
    let repo = repo_from(&fixtures_dir().join("explore-lost-update"), false);
    let (code, log) = sarif(repo.path(), &["explore", "--test", LOST_UPDATE, "--bound", "2"]);
    assert_eq!(code, 0, "{log:#}");
    assert!(results(&log).is_empty(), "{log:#}");
    let properties = &log["runs"][0]["properties"];
    assert_eq!(
        (properties["outcome"].as_str(), properties["bound"].as_u64()),
        (Some("pass"), Some(2)),
        "{properties:#}"
    );
    let coverage = &properties["coverage"];
    assert!(coverage["all_schedules"] == true || coverage["complete_bound"] == 2, "{properties:#}");
    assert!(properties["claim"].as_str().unwrap().contains("explored"), "{properties:#}");
    assert_eq!(properties["schedules"], coverage["runs"]);

    let (code, log) = sarif(repo.path(), &["explore", "--test", LOST_UPDATE, "--max-schedules", "1"]);
    assert_eq!(code, 0, "{log:#}");
    let [note] = results(&log) else { panic!("one result: {log:#}") };
    assert_eq!((note["ruleId"].as_str(), note["level"].as_str()), (Some("RL202"), Some("note")), "{note:#}");
    assert!(
        note["message"]["text"].as_str().unwrap().contains("no failure yet: budget reached after 1 run"),
        "{note:#}"
    );
    let (file, _) = place(&note["locations"][0]);
    assert_eq!(file, "src/test/java/org/example/metrics/LatencyStatsTest.java", "at the test: {note:#}");
    let properties = &log["runs"][0]["properties"];
    assert_eq!(
        (properties["outcome"].as_str(), properties["schedules"].as_u64()),
        (Some("limit"), Some(1)),
        "{properties:#}"
    );
    assert_eq!(properties["coverage"]["budget_exhausted"], true);
}

#[test]
fn affected_tests_are_one_run_with_each_test_s_claim() {
    let repo = fixture_repo("explore-models");
    let (code, log) = sarif(repo.path(), &["explore", "--affected", "--fail-fast"]);
    assert_eq!(code, 1, "{log:#}");
    let run = &log["runs"][0];
    let properties = &run["properties"];
    assert_eq!((properties["selected"].as_u64(), properties["failed"].as_u64()), (Some(5), Some(1)), "{properties:#}");
    let tests = properties["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 1, "--fail-fast stops at the first failure: {properties:#}");
    assert_eq!(
        (tests[0]["test"].as_str(), tests[0]["rank"].as_u64()),
        (Some("org.example.sync.PositionTest#snapshotsAreNeverTorn"), Some(1))
    );
    assert_eq!(tests[0]["exploration"]["outcome"], "fail");
    assert_eq!(properties["schedules"], tests[0]["exploration"]["schedules"]);
    let [result] = results(&log) else { panic!("one result: {log:#}") };
    assert_eq!(result["ruleId"], "RL200");
    assert!(
        result["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("org.example.sync.PositionTest#snapshotsAreNeverTorn: "),
        "{result:#}"
    );
    assert!(!result["codeFlows"][0]["threadFlows"].as_array().unwrap().is_empty(), "{result:#}");
    assert_eq!(run["invocations"][0]["exitCode"], 1);
}

#[test]
fn a_test_racelens_does_not_control_is_a_note_and_no_successful_execution() {
    // No change: the fixture's base is the subject (its fixture.toml says why).
    let repo = repo_from(&fixtures_dir().join("explore-uncontrolled"), false);
    let test = "org.example.jobs.ExternalJobTest#twoJobsAreBothLogged";
    let (code, log) = sarif(repo.path(), &["explore", "--test", test]);
    assert_eq!(code, 2, "{log:#}");
    let run = &log["runs"][0];
    assert_eq!(
        (&run["invocations"][0]["exitCode"], &run["invocations"][0]["executionSuccessful"]),
        (&Value::from(2), &Value::Bool(false))
    );
    assert_eq!(run["properties"]["outcome"], "uncontrolled");
    let [note] = results(&log) else { panic!("one result: {log:#}") };
    assert_eq!((note["ruleId"].as_str(), note["level"].as_str()), (Some("RL201"), Some("note")), "{note:#}");
    let message = note["message"]["text"].as_str().unwrap();
    assert!(
        message.contains("not explored: thread \"") && message.ends_with("(nothing is claimed about its schedules)"),
        "{message}"
    );
    assert_eq!(place(&note["locations"][0]).0, "src/test/java/org/example/jobs/ExternalJobTest.java");
}
