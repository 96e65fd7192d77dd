//! Explorations from the editor, in process: a lens click runs the test's schedules on a
//! real JVM; the failing schedule comes back as lenses, a diagnostic, a document and a
//! replay; a correct version gets the `✓` lens; progress can be cancelled; saving queues
//! explorations only when the user turned that on.

use racelens_test_support as support;
mod client;

use std::sync::OnceLock;
use std::time::Duration;

use client::*;
use racelens_lsp::ServerOptions;
use serde_json::{json, Value};
use support::*;

const STATS: &str = "src/main/java/org/example/metrics/LatencyStats.java";
const STATS_TEST: &str = "src/test/java/org/example/metrics/LatencyStatsTest.java";
const TEST: &str = "org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted";

/// Results and compiled classes go to a cache of this test process, not the user's.
fn isolate_cache() {
    static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
    // Never dropped (a static): under cargo's temporary folder for tests, not the system's.
    let dir = CACHE.get_or_init(|| tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap());
    std::env::set_var("XDG_CACHE_HOME", dir.path());
}

async fn start(repo: &std::path::Path, options: Value) -> Client {
    isolate_cache();
    let mut c = Client::start(repo, ServerOptions::default());
    c.patience = Duration::from_secs(180);
    let caps = json!({"window": {"workDoneProgress": true, "showDocument": {"support": true}}, "workspace": {"codeLens": {"refreshSupport": true}}});
    c.initialize(caps, options).await;
    c
}

async fn lenses(c: &mut Client, rel: &str) -> Vec<Value> {
    let uri = uri(&c.root, rel);
    c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}))
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn titles(lenses: &[Value]) -> Vec<String> {
    lenses.iter().map(|l| l["command"]["title"].as_str().unwrap_or("").to_string()).collect()
}

/// Asks for the file's lenses after every refresh until one's title starts with `prefix`.
async fn lens_starting(c: &mut Client, rel: &str, prefix: &str) -> Value {
    loop {
        let all = lenses(c, rel).await;
        if let Some(l) = all.iter().find(|l| l["command"]["title"].as_str().unwrap_or("").starts_with(prefix)) {
            return l.clone();
        }
        c.expect("workspace/codeLens/refresh", |_| true).await;
    }
}

/// Progress of an exploration (not of indexing).
fn exploring(progress: &Value) -> bool {
    progress["token"].as_str().unwrap_or("").starts_with("racelens/explore/")
}

/// The lenses of the test file, without the `⇄` ones.
async fn test_lenses(c: &mut Client) -> Vec<Value> {
    lenses(c, STATS_TEST)
        .await
        .into_iter()
        .filter(|l| !l["command"]["title"].as_str().unwrap_or("").starts_with("⇄ "))
        .collect()
}

async fn explore_lens(c: &mut Client) -> Value {
    explore_lens_in(c, STATS_TEST).await
}

async fn explore_lens_in(c: &mut Client, test_file: &str) -> Value {
    c.open(test_file).await;
    let lens = lens_starting(c, test_file, "▶ Explore schedules").await;
    lens["command"]["arguments"][0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_schedule_becomes_lenses_a_diagnostic_a_document_and_a_replay() {
    let repo = fixture_repo("explore-lost-update");
    let mut c = start(repo.path(), json!({})).await;
    let arg = explore_lens(&mut c).await;
    let queued =
        c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [arg]})).await;
    assert_eq!(queued, json!({"queued": true, "test": TEST}));
    let begin = c.expect("$/progress", |p| exploring(p) && p["value"]["kind"] == "begin").await;
    assert_eq!(begin["value"]["cancellable"], true);
    let shown = c.expect("window/showMessage", |_| true).await;
    let message = shown["message"].as_str().unwrap();
    assert!(message.contains(TEST) && message.contains("✗") && message.ends_with(" · pct+LA"), "{message}");

    // The test's lenses: the failure (and the heuristic that found it), then Show schedule,
    // Replay, Copy, Explore again (and `⇄` lenses where the schedule preempted the test's own
    // thread, if it did).
    let all = test_lenses(&mut c).await;
    let t = titles(&all);
    assert!(
        t[0].starts_with("✗ ")
            && t[0].contains(" after ")
            && t[0].contains("preemption")
            && t[0].ends_with(") · pct+LA"),
        "{t:?}"
    );
    assert_eq!(t[1..], ["Show schedule", "Replay", "Copy", "↻ Explore again"], "{t:?}");
    let copy = &all[3]["command"];
    assert_eq!(copy["command"], "racelens.copySchedule");
    assert!(copy["arguments"][0]["text"].as_str().unwrap().starts_with("racelens replay "), "{copy}");

    // Where the schedule preempted: lenses in the code under test, and an error diagnostic
    // where it failed (the assertion in the test) with those places as related locations.
    let code = lenses(&mut c, STATS).await;
    let swaps: Vec<String> = titles(&code).into_iter().filter(|t| t.starts_with("⇄ ")).collect();
    assert!(!swaps.is_empty() && swaps.iter().all(|s| s.contains(" preempted here before ")), "{swaps:?}");
    let test_uri = uri(&c.root, STATS_TEST);
    let d = c
        .expect("textDocument/publishDiagnostics", |p| {
            p["uri"] == test_uri.as_str() && p["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "RL200")
        })
        .await;
    let rl200 = d["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "RL200").unwrap().clone();
    assert_eq!(rl200["severity"], 1);
    assert!(rl200["message"].as_str().unwrap().contains("AssertionError"), "{rl200}");
    let related = rl200["relatedInformation"].as_array().unwrap();
    assert!(
        related.iter().any(|r| r["location"]["uri"] == uri(&c.root, STATS).as_str()
            && r["message"].as_str().unwrap().starts_with("⇄ ")),
        "{rl200}"
    );

    // Show schedule: the editor is asked to open a racelens: document with the table.
    let show = &all[1]["command"];
    let shown = c
        .request("workspace/executeCommand", json!({"command": show["command"], "arguments": show["arguments"]}))
        .await;
    let doc_uri = shown["uri"].as_str().unwrap().to_string();
    let asked = c.expect("window/showDocument", |_| true).await;
    assert_eq!(asked["uri"], doc_uri.as_str());
    let doc = c.request("racelens/document", json!({"uri": doc_uri})).await;
    let text = doc["text"].as_str().unwrap();
    assert!(text.contains("| T0") || text.contains("T0 "), "a column per thread:\n{text}");
    assert!(
        text.contains("preempted")
            && text.contains("racelens replay ")
            && text.contains(TEST)
            && text.contains(" by `pct+LA`."),
        "{text}"
    );
    // And the swimlane page beside it (shown instead only to clients that ask for it,
    // `experimental.racelens.scheduleHtml`), which links back to the text.
    assert_eq!(shown["html"], doc_uri.replace(".md", ".html").as_str(), "{shown}");
    let page = c.request("racelens/document", json!({"uri": shown["html"]})).await;
    assert_eq!(page["languageId"], "html");
    let html = page["text"].as_str().unwrap();
    assert!(
        html.contains("<svg")
            && html.contains(">T0 (main)</text>")
            && html.contains(r#"<g class="row failure" data-file="src/test/java/"#),
        "{html}"
    );
    assert!(html.contains(&format!(r#"data-uri="{doc_uri}""#)) && html.contains(r#"<body data-root=""#), "{html}");

    // The schedule's steps for a stepper or a list (`racelens/schedule`): the threads, every
    // step on its thread with the value it read or wrote, the preemptions, and the failure
    // last, at the assertion of the test; places as locations in the work tree.
    let steps = c.request("racelens/schedule", show["arguments"][0].clone()).await;
    assert_eq!(steps["test"], TEST);
    assert!(steps["headline"].as_str().unwrap().contains("AssertionError"), "{steps}");
    let threads = steps["threads"].as_array().unwrap();
    assert!(threads.len() >= 3 && threads[0] == "T0 (main)", "{steps}");
    let all_steps = steps["steps"].as_array().unwrap();
    let located_in = |s: &Value, rel: &str| s["location"]["uri"] == uri(&c.root, rel).as_str();
    let writes = all_steps
        .iter()
        .filter(|s| s["mark"] == "step" && located_in(s, STATS) && s["text"].as_str().unwrap().contains(" := "))
        .count();
    assert!(writes >= 2, "a write with its value, per thread: {steps}");
    assert!(
        all_steps
            .iter()
            .any(|s| s["mark"] == "preemption" && s["thread"].as_u64().is_some_and(|t| (t as usize) < threads.len())),
        "{steps}"
    );
    let last = all_steps.last().unwrap();
    assert!(last["mark"] == "failure" && located_in(last, STATS_TEST), "{last}");
    assert_eq!(
        last["location"]["range"]["start"]["line"], rl200["range"]["start"]["line"],
        "the failure's line is the diagnostic's: {last}"
    );
    // A test without a failing schedule has no steps, and says why.
    let (_, missing) = c
        .call("racelens/schedule", json!({"root": show["arguments"][0]["root"], "test": "pkg.NoSuchTest#m"}))
        .await
        .into_parts();
    assert!(
        missing.as_ref().is_err_and(|e| e.message.contains("no exploration result for pkg.NoSuchTest#m")),
        "{missing:?}"
    );

    // Replay: exactly that schedule, on the current code, still fails.
    let replay = &all[2]["command"];
    c.request("workspace/executeCommand", json!({"command": replay["command"], "arguments": replay["arguments"]}))
        .await;
    let said = c.expect("window/showMessage", |_| true).await;
    assert!(said["message"].as_str().unwrap().contains("still fails"), "{said}");

    // The exploration left the coverage of its first schedule in the history `racelens select`
    // and the lenses' ranking read: both threads of the test, in LatencyStats.java.
    let history =
        racelens_explore::history::load(&racelens_explore::history::path(&repo.path().canonicalize().unwrap()));
    let run = &history.tests[TEST];
    assert_eq!((run.source.as_str(), run.threads.len()), ("explore", 3), "{run:?}");
    let threads: std::collections::BTreeSet<u16> =
        run.accesses.iter().filter(|a| a.file == STATS).map(|a| a.thread).collect();
    assert!(threads.len() >= 2, "{run:?}");
    c.finish().await;
}

/// The `racelens/testStates` entry of `TEST` in a notification, if it has one.
fn state_of(states: &Value) -> Option<Value> {
    states["tests"].as_array()?.iter().find(|t| t["test"] == TEST).cloned()
}

/// Waits for a `racelens/testStates` whose entry of `TEST` satisfies `pred`; returns the entry.
async fn expect_state(c: &mut Client, pred: impl Fn(&Value) -> bool) -> Value {
    let states = c.expect("racelens/testStates", |s| state_of(s).is_some_and(|t| pred(&t))).await;
    state_of(&states).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_view_gets_every_thread_test_with_its_explorations_state_across_a_restart() {
    let repo = fixture_repo("explore-lost-update");
    isolate_cache();
    let caps = json!({"window": {"workDoneProgress": true}, "experimental": {"racelens": {"testStates": true, "stepSchedule": true}}});
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.patience = Duration::from_secs(180);
    c.initialize(caps.clone(), json!({})).await;
    // Before any exploration: the test, where its lens stands, with the argument that explores it.
    let states = c.expect("racelens/testStates", |s| state_of(s).is_some()).await;
    assert_eq!(states["root"], c.root.display().to_string());
    let test = state_of(&states).unwrap();
    assert_eq!(test["state"], "none", "{test}");
    assert_eq!(
        test["explore"],
        json!({"uri": uri(&c.root, STATS_TEST), "class": "org.example.metrics.LatencyStatsTest", "method": "concurrentRecordsAreAllCounted"})
    );
    let source = std::fs::read_to_string(c.root.join(STATS_TEST)).unwrap();
    let declared = source.lines().position(|l| l.contains("void concurrentRecordsAreAllCounted(")).unwrap();
    assert_eq!(test["range"]["start"]["line"], declared, "{test}");

    // Explored: queued or running, then failed at the assertion, with the preemptions.
    c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [test["explore"]]}))
        .await;
    expect_state(&mut c, |t| t["state"] == "queued" || t["state"] == "running").await;
    c.expect_ignoring("window/showMessage", &["racelens/testStates"], |m| {
        m["message"].as_str().unwrap_or("").contains("✗ AssertionError")
    })
    .await;
    let failed = expect_state(&mut c, |t| t["state"] == "failed").await;
    let assertion = source.lines().position(|l| l.contains("assertEquals(")).unwrap();
    assert_eq!(
        (&failed["location"]["uri"], &failed["location"]["range"]["start"]["line"]),
        (&json!(uri(&c.root, STATS_TEST)), &json!(assertion)),
        "{failed}"
    );
    assert!(
        failed["message"].as_str().unwrap().starts_with("java.lang.AssertionError: ")
            && failed["message"].as_str().unwrap().contains(" by pct+LA)"),
        "{failed}"
    );
    let related = failed["related"].as_array().unwrap();
    assert!(
        !related.is_empty()
            && related.iter().all(|r| r["message"].as_str().unwrap().starts_with("⇄ ")
                && r["location"]["uri"] == uri(&c.root, STATS).as_str()),
        "{failed}"
    );
    assert_eq!(failed["result"], 1, "{failed}");
    assert!(
        failed["replay"].as_str().unwrap().starts_with("racelens replay ")
            && failed["replay"].as_str().unwrap().contains(TEST),
        "{failed}"
    );
    // A client with a stepper gets a lens for it, with the result's argument.
    c.open(STATS_TEST).await;
    let all = test_lenses(&mut c).await;
    assert_eq!(titles(&all)[1..], ["Show schedule", "Replay", "Copy", "Step through", "↻ Explore again"], "{all:?}");
    assert_eq!(all[4]["command"]["command"], "racelens.stepSchedule");
    assert_eq!(all[4]["command"]["arguments"][0], json!({"root": states["root"], "test": TEST}));

    // Explored again: a new result, numbered after the first (a client tells a new result
    // from the one it had when an exploration it asked for was cancelled).
    let mut again = test["explore"].clone();
    again["again"] = json!(true);
    again["heuristic"] = json!("basic");
    c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [again]})).await;
    expect_state(&mut c, |t| t["state"] == "queued" || t["state"] == "running").await;
    c.expect_ignoring("window/showMessage", &["racelens/testStates"], |m| {
        m["message"].as_str().unwrap_or("").contains("✗ AssertionError")
    })
    .await;
    let second = expect_state(&mut c, |t| t["state"] == "failed").await;
    assert!(second["result"] == 2 && second["message"].as_str().unwrap().contains(" by basic)"), "{second}");
    c.finish().await;

    // After a restart the kept result is there again, numbered 0 (not this server's).
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.patience = Duration::from_secs(60);
    c.initialize(caps, json!({})).await;
    let restored = expect_state(&mut c, |_| true).await;
    assert_eq!((&restored["state"], &restored["result"]), (&json!("failed"), &json!(0)), "{restored}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_correct_version_gets_the_check_mark_and_an_edit_makes_it_stale() {
    let repo = repo_from(&fixtures_dir().join("explore-lost-update"), false);
    // A change that keeps the code correct, so that the test reaches impacted points.
    let path = repo.path().join(STATS);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("negative latency: ", "negative latency (µs): ")).unwrap();
    let mut c = start(repo.path(), json!({})).await;
    let arg = explore_lens(&mut c).await;
    c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [arg]})).await;
    let passed = lens_starting(&mut c, STATS_TEST, "✓ ").await;
    let title = passed["command"]["title"].as_str().unwrap().to_string();
    // A ✓ only for a claim about every schedule (of a bound), with the numbers behind it.
    let claim = title.contains("every schedule explored (") || title.contains("bound 3 complete (");
    assert!(
        title.starts_with("✓ no failure: ") && claim && title.contains(" runs)") && title.contains("covered"),
        "{title}"
    );
    // Editing the code the test reaches makes the result stale (unsaved buffer included).
    c.open(STATS).await;
    let stats_uri = uri(&c.root, STATS);
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": stats_uri, "version": 2}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// edited\n"}]})).await;
    let stale = lens_starting(&mut c, STATS_TEST, "stale").await;
    assert_eq!(stale["command"]["command"], "racelens.exploreTest");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_progress_stops_the_exploration() {
    // Three threads that wait on one monitor and wake each other: tens of thousands of
    // classes of schedules, far more than the test can wait for.
    let bench = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bench/capp/render-queue-if-wait");
    let repo = repo_from(&bench, false);
    let stats = repo.path().join("src/main/java/com/renderfarm/jobs/FarmStats.java");
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::write(&stats, format!("{text}\n// edited\n")).unwrap();
    let test_file = "src/test/java/com/renderfarm/jobs/RenderFarmTest.java";
    let mut c = start(repo.path(), json!({"explore": {"bound": 10, "maxSchedules": 10000000}})).await;
    let arg = explore_lens_in(&mut c, test_file).await;
    c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [arg]})).await;
    let report = c
        .expect("$/progress", |p| {
            exploring(p)
                && p["value"]["kind"] == "report"
                && p["value"]["message"].as_str().unwrap_or("").contains("schedules")
        })
        .await;
    let running = lenses(&mut c, test_file).await;
    let t = titles(&running);
    assert!(
        t[0].starts_with("⏳ exploring… ")
            && t[0].ends_with(" so far · pct+LA")
            && t[1..] == ["Cancel", "↻ Explore again"],
        "{t:?}"
    );
    // Explore again while it runs (with a seed, as a client's picker adds): the running
    // exploration is cancelled and another starts.
    let mut again = running[2]["command"]["arguments"][0].clone();
    assert_eq!(again["again"], true, "{again}");
    again["seed"] = json!(11);
    let queued =
        c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [again]})).await;
    assert_eq!(queued["queued"], true, "{queued}");
    let first = report["token"].clone();
    let ended = c.expect("$/progress", |p| p["token"] == first && p["value"]["kind"] == "end").await;
    assert_eq!(ended["value"]["message"], "cancelled", "{ended}");
    let report = c
        .expect("$/progress", |p| {
            exploring(p)
                && p["token"] != first
                && p["value"]["kind"] == "report"
                && p["value"]["message"].as_str().unwrap_or("").contains("schedules")
        })
        .await;
    let t = titles(&lenses(&mut c, test_file).await);
    assert!(t[0].ends_with(" so far · pct+LA, seed 11"), "{t:?}");
    c.notify("window/workDoneProgress/cancel", json!({"token": report["token"]})).await;
    c.expect("$/progress", |p| p["token"] == report["token"] && p["value"]["kind"] == "end").await;
    // Back to the plain lens: a cancelled exploration leaves no result.
    let back = lens_starting(&mut c, test_file, "▶ Explore schedules").await;
    assert!(back["command"]["title"].as_str().unwrap().starts_with("▶ Explore schedules"));
    let all = titles(&lenses(&mut c, test_file).await);
    assert_eq!(all.len(), 1, "{all:?}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saving_explores_only_when_the_user_turned_it_on() {
    let repo = fixture_repo("explore-lost-update");
    let stats_uri = |c: &Client| uri(&c.root, STATS);
    // Off (the default): saving runs nothing.
    let mut c = start(repo.path(), json!({})).await;
    c.open(STATS).await;
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": stats_uri(&c)}})).await;
    let t = titles(&lenses(&mut c, STATS_TEST).await);
    assert!(t.iter().all(|t| t.starts_with("▶ ")), "{t:?}");
    c.finish().await;
    // On: saving queues the tests that reach the change.
    let mut c = start(repo.path(), json!({"explore": {"onSave": true}})).await;
    c.open(STATS).await;
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": stats_uri(&c)}})).await;
    let begin = c.expect("$/progress", |p| exploring(p) && p["value"]["kind"] == "begin").await;
    assert!(begin["value"]["title"].as_str().unwrap().contains(TEST), "{begin}");
    let shown = c.expect("window/showMessage", |_| true).await;
    assert!(shown["message"].as_str().unwrap().contains("✗"), "{shown}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saving_queues_the_selected_tests_in_rank_order_first() {
    // Four subsystems; the change takes `synchronized` off `Pool.giveBack()`. `racelens
    // select` ranks PoolTest#borrowersAndReturners first: with one exploration at a time,
    // it runs first, and the selected tests follow in rank order.
    let repo = repo_with(&subsystems::subsystems(), &[(subsystems::POOL_PATH, &subsystems::pool_unlocked())]);
    let mut c = start(repo.path(), json!({"explore": {"onSave": true, "parallel": 1}})).await;
    c.open(subsystems::POOL_PATH).await;
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": uri(&c.root, subsystems::POOL_PATH)}})).await;
    let first = c.expect("$/progress", |p| exploring(p) && p["value"]["kind"] == "begin").await;
    assert!(
        first["value"]["title"].as_str().unwrap().ends_with("org.x.pool.PoolTest#borrowersAndReturners"),
        "{first}"
    );
    // Stop the queue: the order is what this test is about.
    let cancelled = c.request("workspace/executeCommand", json!({"command": "racelens.cancel", "arguments": []})).await;
    assert!(cancelled["cancelled"].as_u64().unwrap() >= 1, "{cancelled}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_result_is_explored_again_with_another_heuristic_and_seed() {
    let repo = fixture_repo("explore-lost-update");
    // A first server explores with the settings' heuristic; the result is kept on disk.
    let mut c = start(repo.path(), json!({})).await;
    let arg = explore_lens(&mut c).await;
    c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [arg]})).await;
    let shown = c.expect("window/showMessage", |_| true).await;
    assert!(shown["message"].as_str().unwrap().ends_with(" · pct+LA"), "{shown}");
    c.finish().await;

    // The next server restores it: the result names its heuristic, and `↻ Explore again` stays.
    let mut c = start(repo.path(), json!({})).await;
    c.open(STATS_TEST).await;
    lens_starting(&mut c, STATS_TEST, "↻ Explore again").await;
    let restored = test_lenses(&mut c).await;
    let t = titles(&restored);
    assert!(t[0].starts_with("✗ AssertionError after ") && t[0].ends_with(" · pct+LA"), "{t:?}");
    assert_eq!(t[1..], ["Show schedule", "Replay", "Copy", "↻ Explore again"], "{t:?}");
    let again = &restored[4]["command"];
    assert_eq!(again["command"], "racelens.exploreTest");
    let mut arg = again["arguments"][0].clone();
    assert_eq!(
        (&arg["class"], &arg["method"], &arg["again"]),
        (&json!("org.example.metrics.LatencyStatsTest"), &json!("concurrentRecordsAreAllCounted"), &json!(true)),
        "{arg}"
    );

    // Explore again with another heuristic and a seed: a new run (its own progress), whose
    // result replaces the restored one and says what produced it.
    arg["heuristic"] = json!("basic");
    arg["seed"] = json!(7);
    arg["maxSchedules"] = json!(5000);
    let queued =
        c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [arg]})).await;
    assert_eq!(queued, json!({"queued": true, "test": TEST}));
    c.expect("$/progress", |p| exploring(p) && p["value"]["kind"] == "begin").await;
    c.expect("$/progress", |p| exploring(p) && p["value"]["kind"] == "end").await;
    let shown = c.expect("window/showMessage", |_| true).await;
    let message = shown["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("racelens: {TEST}: ✗ AssertionError after "))
            && message.ends_with(" · basic, seed 7"),
        "{message}"
    );
    let again = test_lenses(&mut c).await;
    let t = titles(&again);
    assert!(t[0].starts_with("✗ AssertionError after ") && t[0].ends_with(" · basic, seed 7"), "{t:?}");
    assert_eq!(t.last().map(String::as_str), Some("↻ Explore again"), "{t:?}");
    let shown = c
        .request(
            "workspace/executeCommand",
            json!({"command": "racelens.showSchedule", "arguments": again[1]["command"]["arguments"]}),
        )
        .await;
    c.expect("window/showDocument", |_| true).await;
    let doc = c.request("racelens/document", json!({"uri": shown["uri"]})).await;
    assert!(doc["text"].as_str().unwrap().contains(" by `basic` (seed 7)."), "{doc}");
    c.finish().await;

    // On disk too: a third server shows the new result.
    let mut c = start(repo.path(), json!({})).await;
    c.open(STATS_TEST).await;
    let failed = lens_starting(&mut c, STATS_TEST, "✗ ").await;
    assert!(failed["command"]["title"].as_str().unwrap().ends_with(" · basic, seed 7"), "{failed}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exploration_shows_the_tests_dynamic_impact_as_hints_with_the_reasons_in_the_hover() {
    const BIN: &str = "src/main/java/org/w/Bin.java";
    let repo = fixture_repo("impact-bin");
    let text = std::fs::read_to_string(repo.path().join(BIN)).unwrap();
    let line_of =
        |needle: &str| text.lines().collect::<Vec<_>>().iter().rposition(|l| l.contains(needle)).unwrap() as u64;
    let mut c = start(repo.path(), json!({})).await;
    let arg = explore_lens_in(&mut c, "src/test/java/org/w/BinTest.java").await;
    c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [arg]})).await;

    // Hints (RL210) where the test's run on the working tree made an impacted access.
    let bin_uri = uri(&c.root, BIN);
    let d = c
        .expect("textDocument/publishDiagnostics", |p| {
            p["uri"] == bin_uri.as_str() && p["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "RL210")
        })
        .await;
    let hints: Vec<&Value> = d["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "RL210").collect();
    assert!(hints.iter().all(|h| h["severity"] == 4), "{hints:#?}");
    let lines: std::collections::BTreeSet<u64> =
        hints.iter().map(|h| h["range"]["start"]["line"].as_u64().unwrap()).collect();
    let expected: std::collections::BTreeSet<u64> = [
        "units += n;",
        "if (units > LIMIT)",
        "overflows++;",
        "notifyAll();",
        "closings++;",
        "synchronized (auditLock) {",
        "audits++;",
    ]
    .iter()
    .map(|l| line_of(l))
    .collect();
    assert_eq!(lines, expected, "{hints:#?}");
    let audits = hints.iter().find(|h| h["range"]["start"]["line"] == line_of("audits++;")).unwrap();
    assert!(audits["message"].as_str().unwrap().contains("lock released earlier"), "{audits}");

    // The hover of such a line says why; an unchanged access with the same locks and history
    // (`lastAudit = units`) gets no such section.
    let hover = |line: u64, needle: &str| {
        let character = text.lines().nth(line as usize).unwrap().find(needle).unwrap();
        json!({"textDocument": {"uri": bin_uri.as_str()}, "position": {"line": line, "character": character}})
    };
    let h = c.request("textDocument/hover", hover(line_of("audits++;"), "audits")).await;
    let value = h["contents"]["value"].as_str().unwrap();
    assert!(
        value.contains("Impacted by the change") && value.contains("lock released earlier") && value.contains(TEST_BIN),
        "{value}"
    );
    let h = c.request("textDocument/hover", hover(line_of("lastAudit = units;"), "lastAudit")).await;
    assert!(!h["contents"]["value"].as_str().unwrap_or("").contains("Impacted by the change"), "{h}");
    // The exploration itself ends (a correct version).
    lens_starting(&mut c, "src/test/java/org/w/BinTest.java", "✓").await;
}

const TEST_BIN: &str = "org.w.BinTest#pickerCloserAuditorReader";

/// A test an abstract class declares: its lens names each subclass that runs it, a click
/// explores it on that subclass, and the result stands on the subclass's name, named by the
/// method (a class may inherit several tests).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inherited_test_is_explored_from_the_abstract_method_and_its_result_stands_on_the_subclass() {
    const BASE: &str = "src/test/java/org/example/shapes/AbstractHitCounterTest.java";
    const LOCKED: &str = "src/test/java/org/example/shapes/LockedHitCounterTest.java";
    let repo = fixture_repo("explore-junit-shapes");
    let mut c = start(repo.path(), json!({})).await;
    c.open(BASE).await;
    let on_base = lens_starting(&mut c, BASE, "▶ Explore in LockedHitCounterTest · ").await;
    let base_titles = titles(&lenses(&mut c, BASE).await);
    assert!(base_titles.iter().any(|t| t.starts_with("▶ Explore in AtomicHitCounterTest · ")), "{base_titles:?}");
    assert!(
        !base_titles.iter().any(|t| t.starts_with("▶ Explore schedules")),
        "the abstract class runs nothing itself: {base_titles:?}"
    );
    assert_eq!(on_base["range"]["start"]["line"], 11, "on the method: {on_base}");
    let arg = on_base["command"]["arguments"][0].clone();
    assert_eq!(
        (arg["class"].as_str(), arg["method"].as_str()),
        (Some("org.example.shapes.LockedHitCounterTest"), Some("hitsFromTwoThreadsAllCount")),
        "{arg}"
    );
    assert!(arg["uri"].as_str().unwrap().ends_with(LOCKED), "{arg}");
    // On the subclass: one lens per inherited test that starts threads, on the class's name.
    c.open(LOCKED).await;
    let on_class = lens_starting(&mut c, LOCKED, "▶ Explore hitsFromTwoThreadsAllCount() · ").await;
    assert_eq!(on_class["range"]["start"]["line"], 2, "on the class's name: {on_class}");
    let queued =
        c.request("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [arg]})).await;
    assert_eq!(
        queued,
        json!({"queued": true, "test": "org.example.shapes.LockedHitCounterTest#hitsFromTwoThreadsAllCount"})
    );
    let shown = c.expect("window/showMessage", |_| true).await;
    assert!(
        shown["message"].as_str().unwrap().contains("LockedHitCounterTest#hitsFromTwoThreadsAllCount: ✗"),
        "{shown}"
    );
    let failed = lens_starting(&mut c, LOCKED, "hitsFromTwoThreadsAllCount(): ✗ ").await;
    assert!(failed["command"]["title"].as_str().unwrap().contains("AssertionFailedError"), "{failed}");
    assert_eq!(failed["range"], on_class["range"], "{failed}");
    c.finish().await;
}
