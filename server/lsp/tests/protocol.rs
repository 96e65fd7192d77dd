//! In-process protocol tests: the real service driven by a fake client, on real git
//! repositories. The client answers the server's requests (configuration, registrations,
//! progress) and records everything the server sends; a test fails if the server sent
//! diagnostics or messages the test did not look at.

use racelens_test_support as support;

mod client;

use client::*;
use racelens_lsp::ServerOptions;
use serde_json::{json, Value};
use support::*;

fn codes(diags: &[Value]) -> Vec<String> {
    diags.iter().map(|d| format!("{}@{}", d["code"].as_str().unwrap_or(""), d["range"]["start"]["line"])).collect()
}

fn has(diags: &[Value], code: &str, line: u64) -> bool {
    diags.iter().any(|d| d["code"] == code && d["range"]["start"]["line"] == line)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_edit_close_republishes_diagnostics() {
    let repo = fixture_repo("object-pool");
    let mut c = Client::start(repo.path(), ServerOptions::default());
    let init = c.initialize(json!({}), json!({})).await;
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(init["capabilities"]["textDocumentSync"]["change"], 2);
    c.open(POOL).await;
    let d = c.diagnostics(POOL, |d| has(d, "RL001", 57)).await;
    let rl001 = d.iter().find(|d| d["code"] == "RL001" && d["range"]["start"]["line"] == 57).unwrap();
    assert_eq!(rl001["source"], "racelens");
    assert_eq!(rl001["severity"], 2);
    assert_eq!(rl001["codeDescription"]["href"], "racelens:/codes/RL001");
    assert!(rl001["message"].as_str().unwrap().contains("without the lock `this`"));
    let related = rl001["relatedInformation"].as_array().unwrap();
    assert!(related
        .iter()
        .any(|r| r["location"]["uri"] == uri(&c.root, POOL).as_str() && r["location"]["range"]["start"]["line"] == 39));

    // Put `synchronized` back (line 57, 0-based 56, after `    public `): the warnings go.
    let pool_uri = uri(&c.root, POOL);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": pool_uri, "version": 2}, "contentChanges": [{"range": {"start": {"line": 56, "character": 11}, "end": {"line": 56, "character": 11}}, "text": "synchronized "}]}),
    )
    .await;
    c.diagnostics(POOL, |d| d.is_empty()).await;

    // Closing the buffer: the file on disk (still changed) counts again.
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": pool_uri}})).await;
    c.diagnostics(POOL, |d| has(d, "RL001", 57)).await;
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utf16_and_utf8_positions_are_honoured_with_non_ascii_text() {
    let base = "package app;\n\npublic class Meter {\n    private int count;\n\n    public synchronized void add() {\n        count++;\n    }\n\n    public void note() {\n        String s = \"é𝄞\"; int k = 0;\n    }\n}\n";
    let repo = repo_with(&[("src/app/Meter.java", base)], &[]);
    for (encodings, unit) in [(json!(["utf-16"]), "utf-16"), (json!(["utf-8", "utf-16"]), "utf-8")] {
        let mut c = Client::start(repo.path(), ServerOptions::default());
        let init = c.initialize(json!({"general": {"positionEncodings": encodings}}), json!({})).await;
        assert_eq!(init["capabilities"]["positionEncoding"], unit);
        c.open("src/app/Meter.java").await;
        // Replace `int k = 0;` (after the non-ASCII string) with `count = k;`, a racy write.
        let line = "        String s = \"é𝄞\"; ";
        let column = if unit == "utf-16" { line.encode_utf16().count() } else { line.len() };
        let meter = uri(&c.root, "src/app/Meter.java");
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": meter, "version": 2}, "contentChanges": [{"range": {"start": {"line": 10, "character": column}, "end": {"line": 10, "character": column + 10}}, "text": "count = 1;"}]}),
        )
        .await;
        let d = c.diagnostics("src/app/Meter.java", |d| has(d, "RL001", 10)).await;
        let rl = d.iter().find(|d| d["code"] == "RL001").unwrap();
        assert_eq!(rl["range"]["start"]["character"], column, "{rl}");
        // Hover on `count` right after the non-ASCII text finds the field.
        let hover = c
            .request(
                "textDocument/hover",
                json!({"textDocument": {"uri": meter}, "position": {"line": 10, "character": column + 2}}),
            )
            .await;
        let text = hover["contents"]["value"].as_str().unwrap();
        assert!(text.contains("**`count`**") && text.contains("`Meter.note()` holding no lock"), "{text}");
        c.finish().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_apply_in_arrival_order_and_stale_versions_are_dropped() {
    let repo = fixture_repo("object-pool");
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.initialize(json!({}), json!({})).await;
    c.open(POOL).await;
    c.diagnostics(POOL, |d| has(d, "RL001", 57)).await;
    let pool_uri = uri(&c.root, POOL);
    // Forty one-character edits, sent back to back without waiting: they spell
    // `synchronized ` and then delete and retype it; only the final text matters.
    let word = "synchronized ";
    let mut version = 1;
    for round in 0..3 {
        for (i, ch) in word.chars().enumerate() {
            version += 1;
            let at = 11 + i;
            c.notify("textDocument/didChange", json!({"textDocument": {"uri": pool_uri, "version": version}, "contentChanges": [{"range": {"start": {"line": 56, "character": at}, "end": {"line": 56, "character": at}}, "text": ch.to_string()}]})).await;
        }
        if round < 2 {
            version += 1;
            c.notify("textDocument/didChange", json!({"textDocument": {"uri": pool_uri, "version": version}, "contentChanges": [{"range": {"start": {"line": 56, "character": 11}, "end": {"line": 56, "character": 11 + word.len()}}, "text": ""}]})).await;
        }
    }
    c.diagnostics(POOL, |d| d.is_empty()).await;
    // A change with an old version is dropped, not applied over the newer text.
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": pool_uri, "version": 3}, "contentChanges": [{"range": {"start": {"line": 56, "character": 11}, "end": {"line": 56, "character": 24}}, "text": ""}]})).await;
    let log = c.expect("window/logMessage", |p| p["message"].as_str().unwrap_or("").contains("ignored a change")).await;
    assert!(log["message"].as_str().unwrap().contains("version 3"));
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": pool_uri}, "position": {"line": 57, "character": 14}}),
        )
        .await;
    assert!(hover["contents"]["value"].as_str().unwrap().contains("guarded by `this` in all"), "{hover}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configuration_round_trip() {
    let repo = fixture_repo("object-pool");
    let mut c = Client::start(repo.path(), ServerOptions::default());
    *c.config.lock().unwrap() = json!({"diagnostics": {"hints": false}});
    c.initialize(json!({"workspace": {"configuration": true}}), json!({"diagnostics": {"hints": false}})).await;
    c.open(POOL).await;
    // Change a line that updates a shared field: `numIdle++` in addObject() (line 62).
    let pool_uri = uri(&c.root, POOL);
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": pool_uri, "version": 2}, "contentChanges": [{"range": {"start": {"line": 61, "character": 15}, "end": {"line": 61, "character": 17}}, "text": " += 1"}]})).await;
    // One warning per field and method: `numIdle` is first read at line 58 (0-based 57).
    let numidle = |d: &[Value]| {
        d.iter().any(|d| {
            d["code"] == "RL001"
                && d["range"]["start"]["line"] == 57
                && d["message"].as_str().unwrap().starts_with("`numIdle`")
        })
    };
    let d = c.diagnostics(POOL, numidle).await;
    assert!(!d.iter().any(|d| d["code"] == "RL100"), "{:?}", codes(&d));
    // The user turns hints on: the server pulls the configuration again.
    *c.config.lock().unwrap() = json!({"diagnostics": {"hints": true}});
    c.notify("workspace/didChangeConfiguration", json!({"settings": null})).await;
    let d = c.diagnostics(POOL, |d| d.iter().any(|d| d["code"] == "RL100")).await;
    let hint = d.iter().find(|d| d["code"] == "RL100").unwrap();
    assert_eq!(hint["severity"], 4);
    // Settings pushed in the notification itself work too (lenses off).
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"racelens": {"codeLens": {"enable": false}, "diagnostics": {"hints": true}}}}),
    )
    .await;
    let test_uri = uri(&c.root, POOL_TEST);
    c.open(POOL_TEST).await;
    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": test_uri}})).await;
    assert_eq!(lenses, json!([]));
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_made_while_the_server_runs_rebases_the_analysis() {
    for dynamic in [true, false] {
        let repo = fixture_repo("object-pool");
        let mut c = Client::start(repo.path(), ServerOptions::default());
        c.initialize(json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": dynamic}}}), json!({}))
            .await;
        if dynamic {
            let reg = c.expect("client/registerCapability", |_| true).await;
            assert_eq!(reg["registrations"][0]["method"], "workspace/didChangeWatchedFiles");
        }
        // Not open in the editor: the diagnostics come from the file on disk.
        c.diagnostics(POOL, |d| has(d, "RL001", 57)).await;
        git(repo.path(), &["commit", "-qam", "drop synchronized"]);
        if dynamic {
            let head = format!("file://{}", c.root.join(".git/HEAD").display());
            c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": head, "type": 2}]})).await;
        }
        // Committed: no change against HEAD, no warnings.
        c.diagnostics(POOL, |d| d.is_empty()).await;
        // An edit made outside the editor shows up again.
        let text = std::fs::read_to_string(repo.path().join(POOL)).unwrap();
        std::fs::write(
            repo.path().join(POOL),
            text.replace("    public synchronized int getNumIdle() {", "    public int getNumIdle() {"),
        )
        .unwrap();
        if dynamic {
            c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&c.root, POOL), "type": 2}]}))
                .await;
        }
        c.diagnostics(POOL, |d| has(d, "RL001", 70)).await;
        c.finish().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_lenses_documents_and_commands() {
    let repo = fixture_repo("object-pool");
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.initialize(json!({"workspace": {"codeLens": {"refreshSupport": true}}}), json!({})).await;
    c.open(POOL).await;
    c.diagnostics(POOL, |d| has(d, "RL001", 57)).await;
    let pool_uri = uri(&c.root, POOL);
    // Hover on the declaration of `numIdle` (line 17, 0-based 16).
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": pool_uri}, "position": {"line": 16, "character": 17}}),
        )
        .await;
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("**Verdict:** guarded by `this` in 5 of 7 accesses; `addObject()` updates it without the lock"),
        "{text}"
    );
    assert!(text.contains(&format!("]({}#L62)", pool_uri)), "clickable location: {text}");
    assert!(text.contains("**impacted by the change**"), "{text}");
    // No field there: no hover.
    let none = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": pool_uri}, "position": {"line": 0, "character": 2}}),
        )
        .await;
    assert_eq!(none, Value::Null);

    c.open(POOL_TEST).await;
    let test_uri = uri(&c.root, POOL_TEST);
    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": test_uri}})).await;
    let lens = &lenses[0];
    assert_eq!(lenses.as_array().unwrap().len(), 1, "{lenses}");
    // The change selects the test (it runs both ends of impacted pairs in threads): its rank.
    assert_eq!(lens["command"]["title"], "▶ Explore schedules · #1 of 1 test for this change", "{lens}");
    assert_eq!(lens["command"]["command"], "racelens.exploreTest");
    assert_eq!(
        lens["command"]["arguments"][0],
        json!({"uri": test_uri, "class": "org.example.pool.ObjectPoolTest", "method": "addWhileBorrowingKeepsCountsConsistent"})
    );
    // No lenses on code without thread-starting tests.
    assert_eq!(c.request("textDocument/codeLens", json!({"textDocument": {"uri": pool_uri}})).await, json!([]));

    let doc = c.request("racelens/document", json!({"uri": "racelens:/codes/RL004"})).await;
    assert!(doc["text"].as_str().unwrap().starts_with("# RL004"));
    assert_eq!(doc["languageId"], "markdown");
    let (_, missing) = c.call("racelens/document", json!({"uri": "racelens:/codes/RL999"})).await.into_parts();
    assert!(missing.is_err());

    // Commands about results need one.
    let (_, no_result) = c.call("workspace/executeCommand", json!({"command": "racelens.showSchedule", "arguments": [{"root": c.root.display().to_string(), "test": "org.example.pool.ObjectPoolTest#addWhileBorrowingKeepsCountsConsistent"}]})).await.into_parts();
    assert!(no_result.unwrap_err().message.contains("no exploration result"));
    assert_eq!(
        c.request("workspace/executeCommand", json!({"command": "racelens.cancel", "arguments": []})).await,
        json!({"cancelled": 0})
    );
    let (_, unknown) =
        c.call("workspace/executeCommand", json!({"command": "racelens.nope", "arguments": []})).await.into_parts();
    assert!(unknown.is_err());

    // Undo the change in the buffer (`synchronized` back): nothing is selected, and the lens
    // says how much of the change the test reaches instead.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": pool_uri, "version": 2}, "contentChanges": [{"range": {"start": {"line": 56, "character": 11}, "end": {"line": 56, "character": 11}}, "text": "synchronized "}]}),
    )
    .await;
    c.diagnostics(POOL, |d| d.is_empty()).await;
    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": test_uri}})).await;
    assert_eq!(lenses[0]["command"]["title"], "▶ Explore schedules · reaches no impacted point", "{lenses}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exploring_with_a_bad_heuristic_seed_or_budget_is_an_error_and_the_server_goes_on() {
    let repo = fixture_repo("object-pool");
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.initialize(json!({}), json!({})).await;
    c.open(POOL_TEST).await;
    let test_uri = uri(&c.root, POOL_TEST);
    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": test_uri}})).await;
    let arg = lenses[0]["command"]["arguments"][0].clone();
    let test = "org.example.pool.ObjectPoolTest#addWhileBorrowingKeepsCountsConsistent";
    let cases = [
        ("heuristic", json!("LOX"), "unknown heuristic `LOX`: basic, pair, pct, pos, random, or one of CAPP's CA CS"),
        ("heuristic", json!("pct+pair"), "unknown heuristic `pct+pair`: after `pct+` comes one of CAPP's"),
        ("heuristic", json!(3), "`heuristic` must be a heuristic's name such as `pct+LA`, not 3"),
        ("seed", json!(-1), "`seed` must be a whole number (0 or more), not -1"),
        ("seed", json!("7"), "`seed` must be a whole number (0 or more), not \"7\""),
        ("maxSchedules", json!(0), "`maxSchedules` must be a whole number (1 or more), not 0"),
    ];
    for (field, value, says) in cases {
        let mut bad = arg.clone();
        bad[field] = value;
        bad["again"] = json!(true);
        let (_, answer) = c
            .call("workspace/executeCommand", json!({"command": "racelens.exploreTest", "arguments": [bad]}))
            .await
            .into_parts();
        let error = answer.unwrap_err();
        assert!(
            error.message.starts_with(&format!("cannot explore {test}: ")) && error.message.contains(says),
            "{field}: {error:?}"
        );
    }
    // Nothing was queued, and the server goes on answering.
    assert_eq!(
        c.request("workspace/executeCommand", json!({"command": "racelens.cancel", "arguments": []})).await,
        json!({"cancelled": 0})
    );
    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": test_uri}})).await;
    assert_eq!(lenses.as_array().unwrap().len(), 1, "{lenses}");
    assert!(lenses[0]["command"]["title"].as_str().unwrap().starts_with("▶ Explore schedules"), "{lenses}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_one_request_answers_it_with_an_error_and_the_server_goes_on() {
    let repo = fixture_repo("object-pool");
    let mut c = Client::start(repo.path(), ServerOptions { test_commands: true });
    let init = c.initialize(json!({}), json!({})).await;
    assert!(init["capabilities"]["executeCommandProvider"]["commands"]
        .as_array()
        .unwrap()
        .contains(&json!("racelens.internal.panic")));
    c.open(POOL).await;
    c.diagnostics(POOL, |d| has(d, "RL001", 57)).await;
    let (_, result) = c
        .call("workspace/executeCommand", json!({"command": "racelens.internal.panic", "arguments": []}))
        .await
        .into_parts();
    let err = result.unwrap_err();
    assert!(err.message.contains("racelens failed on this request"), "{err:?}");
    c.expect("window/logMessage", |p| p["message"].as_str().unwrap_or("").contains("internal error")).await;
    // Still serving.
    let pool_uri = uri(&c.root, POOL);
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": pool_uri}, "position": {"line": 57, "character": 14}}),
        )
        .await;
    assert!(hover["contents"]["value"].as_str().unwrap().contains("numActive"));
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_java_files_and_files_outside_git_are_handled() {
    let repo = fixture_repo("object-pool");
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "Loose.java",
        "class Loose { static int n; void f() { new Thread(() -> n++).start(); n--; } }\n",
    );
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.initialize(json!({}), json!({})).await;
    c.diagnostics(POOL, |d| has(d, "RL001", 57)).await;
    // A non-Java file: no analysis, no error.
    write(repo.path(), "notes.txt", "not java at all é\n");
    c.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri(&c.root, "notes.txt"), "languageId": "plaintext", "version": 1, "text": "not java at all é\n"}})).await;
    // A Java file outside any git work tree: analysed as new, with a message saying so.
    let loose = format!("file://{}", outside.path().canonicalize().unwrap().join("Loose.java").display());
    c.notify("textDocument/didOpen", json!({"textDocument": {"uri": loose, "languageId": "java", "version": 1, "text": std::fs::read_to_string(outside.path().join("Loose.java")).unwrap()}})).await;
    let shown = c.expect("window/showMessage", |_| true).await;
    assert!(shown["message"].as_str().unwrap().contains("not in a git work tree"), "{shown}");
    let d = c
        .expect("textDocument/publishDiagnostics", |p| {
            p["uri"] == loose.as_str() && !p["diagnostics"].as_array().unwrap().is_empty()
        })
        .await;
    assert!(d["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "RL001"), "{d}");
    c.finish().await;
}

/// A 0-based range from `(line, column)` to `(line, column)`.
fn range(from: (u32, u32), to: (u32, u32)) -> Value {
    json!({"start": {"line": from.0, "character": from.1}, "end": {"line": to.0, "character": to.1}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_selection_status_follows_the_change_for_clients_that_ask() {
    let repo = fixture_repo("object-pool");
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.initialize(json!({"experimental": {"racelens": {"selectionStatus": true}}}), json!({})).await;
    let status = c.expect("racelens/selectionStatus", |_| true).await;
    let root = format!("file://{}", c.root.display());
    assert_eq!((&status["root"], &status["selected"]), (&json!(root), &json!(1)), "{status}");
    assert!(status["total"].as_u64().unwrap() >= 1 && status["impactedPairs"].as_u64().unwrap() >= 1, "{status}");
    let test = &status["tests"][0];
    assert_eq!(
        (&test["test"], &test["rank"], &test["evidence"]),
        (&json!("org.example.pool.ObjectPoolTest#addWhileBorrowingKeepsCountsConsistent"), &json!(1), &json!("static")),
        "{status}"
    );
    // The same argument the test's lens runs `racelens.exploreTest` with.
    assert_eq!(
        test["explore"],
        json!({"uri": uri(&c.root, POOL_TEST), "class": "org.example.pool.ObjectPoolTest", "method": "addWhileBorrowingKeepsCountsConsistent"})
    );
    // And the line of the test's name, where a list of the selected tests goes.
    let source = std::fs::read_to_string(c.root.join(POOL_TEST)).unwrap();
    let line = source.lines().position(|l| l.contains("void addWhileBorrowingKeepsCountsConsistent(")).unwrap();
    assert_eq!(test["line"], line, "{status}");
    // The buffer back to HEAD's text: no change, nothing selected.
    c.open(POOL).await;
    let head = std::process::Command::new("git")
        .args(["show", &format!("HEAD:{POOL}")])
        .current_dir(repo.path())
        .output()
        .unwrap();
    let head = String::from_utf8(head.stdout).unwrap();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&c.root, POOL), "version": 2}, "contentChanges": [{"text": head}]}),
    )
    .await;
    let status = c.expect("racelens/selectionStatus", |s| s["selected"] == 0).await;
    assert_eq!((&status["impactedPairs"], &status["tests"]), (&json!(0), &json!([])), "{status}");
    c.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_selection_status_says_no_evidence_for_state_of_undecided_sharing() {
    // A hash cached in a field, built step by step (LANG-481's shape); a test runs it in two
    // threads, but no `Key` is seen reaching another thread: no pair, and no "0 tests" either.
    let repo = fixture_repo("undecided-hash");
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.initialize(json!({"experimental": {"racelens": {"selectionStatus": true}}}), json!({})).await;
    let status = c.expect("racelens/selectionStatus", |_| true).await;
    assert_eq!((&status["selected"], &status["impactedPairs"]), (&json!(0), &json!(0)), "{status}");
    let undecided = status["undecided"].as_array().unwrap();
    assert_eq!(undecided.len(), 1, "{status}");
    assert!(
        undecided[0].as_str().unwrap().starts_with("`Key.hash` in `Key.hash` is not known to be shared"),
        "{status}"
    );
    c.finish().await;
}

/// A change typed and undone, as a user does: `files` committed, `path` opened, the `edit`
/// (range and text) applied; waits for the `code` warning at 0-based `line` and returns it;
/// then the `undo` applied, after which the file has no diagnostics.
async fn typed_then_undone(
    files: &[(&str, &str)],
    path: &str,
    edit: (Value, &str),
    undo: (Value, &str),
    code: &str,
    line: u64,
) -> Value {
    let repo = repo_with(files, &[]);
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.initialize(json!({}), json!({})).await;
    c.open(path).await;
    let file_uri = uri(&c.root, path);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": file_uri, "version": 2}, "contentChanges": [{"range": edit.0, "text": edit.1}]}),
    )
    .await;
    let d = c.diagnostics(path, |d| has(d, code, line)).await;
    let found = d.into_iter().find(|d| d["code"] == code).unwrap();
    assert_eq!(found["codeDescription"]["href"], format!("racelens:/codes/{code}"));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": file_uri, "version": 3}, "contentChanges": [{"range": undo.0, "text": undo.1}]}),
    )
    .await;
    c.diagnostics(path, |d| d.is_empty()).await;
    c.finish().await;
    found
}

/// The 0-based lines of a diagnostic's related locations.
fn related_lines(d: &Value) -> Vec<u64> {
    d["relatedInformation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["location"]["range"]["start"]["line"].as_u64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_notify_for_notify_all_shows_a_lost_wakeup_and_undo_clears_it() {
    let buffer = "package app;\n\nimport java.util.ArrayDeque;\n\npublic class Buffer {\n    private final ArrayDeque<String> items = new ArrayDeque<>();\n\n    public synchronized void put(String s) throws InterruptedException {\n        while (items.size() == 8) {\n            wait();\n        }\n        items.addLast(s);\n        notifyAll();\n    }\n\n    public synchronized String take() throws InterruptedException {\n        while (items.isEmpty()) {\n            wait();\n        }\n        String s = items.removeFirst();\n        notifyAll();\n        return s;\n    }\n}\n";
    // `notifyAll()` in put() (0-based line 12) becomes `notify()`: a consumer's wake-up
    // may reach the other producer.
    let path = "src/app/Buffer.java";
    let rl008 = typed_then_undone(
        &[(path, buffer)],
        path,
        (range((12, 14), (12, 17)), ""),
        (range((12, 14), (12, 14)), "All"),
        "RL008",
        12,
    )
    .await;
    assert!(
        rl008["message"].as_str().unwrap().starts_with(
            "`notify()` on `this` wakes one waiter, but `Buffer.put()` (line 10) waits while `items.size() == 8`"
        ),
        "{rl008}"
    );
    assert_eq!(related_lines(&rl008), vec![9, 17], "{rl008}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_a_nested_acquisition_shows_a_lock_order_inversion_and_undo_clears_it() {
    let account = "package bank;\n\npublic class Account {\n    private long balance;\n\n    synchronized void add(long amount) {\n        balance += amount;\n    }\n}\n";
    let bank = "package bank;\n\npublic class Bank {\n    public void pay(Account from, Account to, long amount) {\n        synchronized (from) {\n            from.add(-amount);\n        }\n        to.add(amount);\n    }\n}\n";
    // Take `to` inside `synchronized (from)` (after line 6, 0-based 5): two pays with
    // swapped accounts deadlock.
    let path = "src/bank/Bank.java";
    let nested = "            synchronized (to) {\n                to.add(amount);\n            }\n";
    let files = [("src/bank/Account.java", account), (path, bank)];
    let rl007 =
        typed_then_undone(&files, path, (range((6, 0), (6, 0)), nested), (range((6, 0), (9, 0)), ""), "RL007", 6).await;
    assert!(rl007["message"].as_str().unwrap().contains("`Bank.pay()` takes `from` then `to`"), "{rl007}");
    assert_eq!(related_lines(&rl007), vec![4, 6], "{rl007}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taking_the_check_out_through_a_locked_getter_shows_a_split_section_and_undo_clears_it() {
    let registry = "package app;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\npublic class Registry {\n    private final List<String> entries = new ArrayList<>();\n    private final int max = 8;\n\n    public synchronized int count() {\n        return entries.size();\n    }\n\n    public boolean register(String name) {\n        synchronized (this) {\n            if (count() >= max) {\n                return false;\n            }\n            entries.add(name);\n            return true;\n        }\n    }\n\n    public void start() {\n        new Thread(() -> register(\"a\")).start();\n    }\n}\n";
    // The check moves out of the lock (0-based lines 14 to 20 are the synchronized block):
    // count() locks on its own, then the act locks again.
    let split = "        if (count() >= max) {\n            return false;\n        }\n        synchronized (this) {\n            entries.add(name);\n        }\n        return true;\n";
    let original = "        synchronized (this) {\n            if (count() >= max) {\n                return false;\n            }\n            entries.add(name);\n            return true;\n        }\n";
    let path = "src/app/Registry.java";
    let rl003 = typed_then_undone(
        &[(path, registry)],
        path,
        (range((14, 0), (21, 0)), split),
        (range((14, 0), (21, 0)), original),
        "RL003",
        18,
    )
    .await;
    assert!(rl003["message"].as_str().unwrap().starts_with("the change split a critical section of `Registry.register()`: the read of `entries[]` by `count()` (line 15)"), "{rl003}");
    assert_eq!(related_lines(&rl003), vec![14], "{rl003}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_contains_key_before_remove_shows_a_check_then_act_and_undo_clears_it() {
    let sessions = "package app;\n\nimport java.util.concurrent.ConcurrentHashMap;\n\npublic class Sessions {\n    private final ConcurrentHashMap<String, Long> open = new ConcurrentHashMap<>();\n    private long closed;\n\n    public void open(String id) {\n        open.put(id, System.nanoTime());\n    }\n\n    public void close(String id) {\n        if (open.remove(id) != null) {\n            synchronized (this) {\n                closed++;\n            }\n        }\n    }\n\n    public void start() {\n        new Thread(() -> close(\"a\")).start();\n    }\n}\n";
    // `if (open.remove(id) != null)` (0-based line 13) becomes a check, then an unchecked remove.
    let typed = "        if (open.containsKey(id)) {\n            open.remove(id);\n";
    let path = "src/app/Sessions.java";
    let undo = "        if (open.remove(id) != null) {\n";
    let rl004 = typed_then_undone(
        &[(path, sessions)],
        path,
        (range((13, 0), (14, 0)), typed),
        (range((13, 0), (15, 0)), undo),
        "RL004",
        14,
    )
    .await;
    assert!(
        rl004["message"]
            .as_str()
            .unwrap()
            .starts_with("check-then-act on `open`: `containsKey()` (line 14) and `remove()` here"),
        "{rl004}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moving_count_down_above_the_write_shows_a_publication_order_and_undo_clears_it() {
    let loader = "package app;\n\nimport java.util.concurrent.CountDownLatch;\n\npublic class Loader {\n    private final CountDownLatch ready = new CountDownLatch(1);\n    private String result;\n\n    public void load(String value) {\n        result = value;\n        ready.countDown();\n    }\n\n    public String await() throws InterruptedException {\n        ready.await();\n        return result;\n    }\n}\n";
    // Move `ready.countDown();` (0-based line 10) above `result = value;` (line 9), as an
    // editor's move-line-up does: a waiter released by `await()` can read the old result.
    let path = "src/app/Loader.java";
    let (moved, back) = (
        "        ready.countDown();\n        result = value;\n",
        "        result = value;\n        ready.countDown();\n",
    );
    let rl009 = typed_then_undone(
        &[(path, loader)],
        path,
        (range((9, 0), (11, 0)), moved),
        (range((9, 0), (11, 0)), back),
        "RL009",
        9,
    )
    .await;
    assert!(
        rl009["message"]
            .as_str()
            .unwrap()
            .starts_with("`ready.countDown()` (line 10) now runs before `result` is written (line 11)"),
        "{rl009}"
    );
    assert_eq!(related_lines(&rl009), vec![10, 15], "{rl009}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_quick_fix_for_a_lost_wakeup_uses_notify_all_and_clears_it() {
    let buffer = "package app;\n\nimport java.util.ArrayDeque;\n\npublic class Buffer {\n    private final ArrayDeque<String> items = new ArrayDeque<>();\n\n    public synchronized void put(String s) throws InterruptedException {\n        while (items.size() == 8) {\n            wait();\n        }\n        items.addLast(s);\n        notifyAll();\n    }\n\n    public synchronized String take() throws InterruptedException {\n        while (items.isEmpty()) {\n            wait();\n        }\n        String s = items.removeFirst();\n        notifyAll();\n        return s;\n    }\n}\n";
    let path = "src/app/Buffer.java";
    let repo = repo_with(&[(path, buffer)], &[]);
    let mut c = Client::start(repo.path(), ServerOptions::default());
    let init = c.initialize(json!({}), json!({})).await;
    assert_eq!(init["capabilities"]["codeActionProvider"]["codeActionKinds"], json!(["quickfix"]));
    c.open(path).await;
    // `notifyAll()` in put() (0-based line 12) becomes `notify()`.
    let buffer_uri = uri(&c.root, path);
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": buffer_uri, "version": 2}, "contentChanges": [{"range": range((12, 14), (12, 17)), "text": ""}]})).await;
    let d = c.diagnostics(path, |d| has(d, "RL008", 12)).await;
    let rl008 = d.into_iter().find(|d| d["code"] == "RL008").unwrap();
    let ask = |range: Value, diagnostics: Value| json!({"textDocument": {"uri": buffer_uri}, "range": range, "context": {"diagnostics": diagnostics}});
    let actions = c.request("textDocument/codeAction", ask(rl008["range"].clone(), json!([rl008]))).await;
    let fix = json!({"range": range((12, 8), (12, 14)), "newText": "notifyAll"});
    assert_eq!(
        actions,
        json!([{"title": "Use notifyAll()", "kind": "quickfix", "diagnostics": [rl008], "isPreferred": true, "edit": {"changes": {buffer_uri.clone(): [fix]}}}])
    );
    // A client that sends no diagnostics gets the fixes of those its range touches.
    let at_cursor = c.request("textDocument/codeAction", ask(range((12, 10), (12, 10)), json!([]))).await;
    assert_eq!(at_cursor, actions);
    // Nothing elsewhere, nor for a diagnostic that no longer stands there, nor for other kinds.
    assert_eq!(c.request("textDocument/codeAction", ask(range((11, 0), (11, 4)), json!([]))).await, json!([]));
    let mut stale = rl008.clone();
    stale["range"] = range((11, 8), (11, 14));
    assert_eq!(c.request("textDocument/codeAction", ask(stale["range"].clone(), json!([stale]))).await, json!([]));
    let mut refactor = ask(rl008["range"].clone(), json!([rl008]));
    refactor["context"]["only"] = json!(["refactor"]);
    assert_eq!(c.request("textDocument/codeAction", refactor).await, json!([]));
    // Malformed parameters get an error, and the server goes on.
    let (_, malformed) =
        c.call("textDocument/codeAction", json!({"textDocument": 5, "range": "everywhere"})).await.into_parts();
    assert!(malformed.is_err());
    // The client applies the fix: the warning goes, and so does its fix.
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": buffer_uri, "version": 3}, "contentChanges": [{"range": fix["range"], "text": fix["newText"]}]})).await;
    c.diagnostics(path, |d| d.is_empty()).await;
    assert_eq!(c.request("textDocument/codeAction", ask(rl008["range"].clone(), json!([rl008]))).await, json!([]));
    c.finish().await;
}

/// The diagnostics published (file relative to the root, list) until `rel`'s list satisfies
/// `pred`, in the order they arrived.
async fn published_until(c: &mut Client, rel: &str, pred: impl Fn(&[Value]) -> bool) -> Vec<(String, Vec<Value>)> {
    let (target, root) = (uri(&c.root, rel), format!("file://{}/", c.root.display()));
    let seen = std::cell::RefCell::new(Vec::new());
    c.expect("textDocument/publishDiagnostics", |p| {
        let diagnostics = p["diagnostics"].as_array().unwrap();
        seen.borrow_mut().push((p["uri"].as_str().unwrap().trim_start_matches(&root).to_string(), diagnostics.clone()));
        p["uri"] == target.as_str() && pred(diagnostics)
    })
    .await;
    seen.into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_edited_file_is_published_before_the_other_files_its_change_reaches() {
    let flag = "package app;\n\npublic class Flag {\n    volatile boolean running = true;\n\n    public void stop() {\n        running = false;\n    }\n}\n";
    let worker = "package app;\n\npublic class Worker implements Runnable {\n    private final Flag flag = new Flag();\n    private long processed;\n\n    public void run() {\n        while (flag.running) {\n            processed++;\n        }\n    }\n\n    public void stop() {\n        flag.stop();\n    }\n}\n";
    let main = "package app;\n\npublic class Main {\n    public static void main(String[] args) {\n        Worker w = new Worker();\n        new Thread(w).start();\n        w.stop();\n    }\n}\n";
    let (flag_path, worker_path) = ("src/app/Flag.java", "src/app/Worker.java");
    let repo = repo_with(&[(flag_path, flag), (worker_path, worker), ("src/app/Main.java", main)], &[]);
    let mut c = Client::start(repo.path(), ServerOptions::default());
    c.initialize(json!({}), json!({})).await;
    c.open(flag_path).await;
    let flag_uri = uri(&c.root, flag_path);
    // Remove `volatile ` (0-based line 3): every access of `running` is impacted, the read
    // in Worker.java (line 7) too.
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": flag_uri, "version": 2}, "contentChanges": [{"range": range((3, 4), (3, 13)), "text": ""}]})).await;
    let seen = published_until(&mut c, worker_path, |d| has(d, "RL001", 7)).await;
    let edited =
        seen.iter().position(|(f, d)| f == flag_path && has(d, "RL001", 6)).unwrap_or_else(|| panic!("{seen:?}"));
    let other = seen.iter().position(|(f, _)| f == worker_path).unwrap();
    assert!(edited < other, "the edited file's list comes first: {seen:?}");
    // The other file's list, published after, is the whole of it.
    let (_, worker_list) = seen.last().unwrap();
    assert_eq!(codes(worker_list), ["RL001@7"], "{worker_list:?}");
    assert!(
        worker_list[0]["message"].as_str().unwrap().contains("removed `volatile` from `running`"),
        "{worker_list:?}"
    );
    // Undone: the edited file is cleared first, then the other.
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": flag_uri, "version": 3}, "contentChanges": [{"range": range((3, 4), (3, 4)), "text": "volatile "}]})).await;
    let seen = published_until(&mut c, worker_path, |d| d.is_empty()).await;
    let edited = seen.iter().position(|(f, d)| f == flag_path && d.is_empty()).unwrap_or_else(|| panic!("{seen:?}"));
    assert!(edited < seen.iter().position(|(f, _)| f == worker_path).unwrap(), "{seen:?}");
    c.finish().await;
}
