//! Time to the first schedule: how long `racelens explore --test T --max-schedules 1` takes, as
//! a user runs it, on a module of about 50,000 lines (a generated project of 250 classes in
//! one module, with one multithreaded JUnit test), cold (nothing cached: the index, the
//! compile, the agent) and then warm (everything cached, nothing changed), with the default
//! change-aware heuristic and with `basic`.
//!
//! Printed per run: the wall-clock time of the whole command (index load, the toolchain's
//! up-to-date check, the JVM's start with the agent, the one schedule, the coverage record
//! and the JVM's end), and the result's own `setup.compile_ms` and `stats.elapsed_ms`.
//!
//! Run: `cargo bench -p racelens --bench first_schedule [-- --classes N]`

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

const TEST: &str = "org.example.big.LedgerTest#twoTellersPostToOneAccount";

fn main() {
    let classes =
        std::env::args().skip_while(|a| a != "--classes").nth(1).and_then(|n| n.parse().ok()).unwrap_or(250usize);
    let repo = tempfile::tempdir().unwrap();
    let lines = generate(repo.path(), classes);
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "base"]);
    println!("project: {classes} classes in one module, {lines} lines of Java; test {TEST}");
    let cache = repo.path().join(".cache");
    for (label, heuristic) in [
        ("cold, default heuristic", None),
        ("warm, default heuristic", None),
        ("warm, default heuristic", None),
        ("warm, --heuristic basic", Some("basic")),
        ("warm, --heuristic basic", Some("basic")),
    ] {
        let mut args = vec!["explore", "--test", TEST, "--max-schedules", "1", "--json"];
        if let Some(h) = heuristic {
            args.extend(["--heuristic", h]);
        }
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_racelens"))
            .args(&args)
            .current_dir(repo.path())
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        let took = started.elapsed();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
        });
        println!(
            "{label:<26} {:>6.2} s to the first schedule's result (outcome {}, compile {} ms, exploring {} ms)",
            took.as_secs_f64(),
            json["outcome"].as_str().unwrap_or("?"),
            json["setup"]["compile_ms"],
            json["stats"]["elapsed_ms"]
        );
    }
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=bench", "-c", "user.email=bench@racelens.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// Writes the project: `classes` account classes of about 200 lines each (fields, a lock,
/// synchronized and unsynchronized methods, loops), a ledger that uses them, and the test.
/// Returns the lines written.
fn generate(root: &Path, classes: usize) -> usize {
    let main = root.join("src/main/java/org/example/big");
    let test = root.join("src/test/java/org/example/big");
    std::fs::create_dir_all(&main).unwrap();
    std::fs::create_dir_all(&test).unwrap();
    let mut lines = 0;
    for i in 0..classes {
        let mut body = format!("package org.example.big;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n/** Account kind {i}. */\npublic class Account{i} {{\n    private final Object lock = new Object();\n    private long balance;\n    private int postings;\n    private final List<Long> history = new ArrayList<>();\n\n");
        for m in 0..12 {
            body += &format!(
                "    /** Posts an amount, variant {m}. */\n    public void post{m}(long amount) {{\n        synchronized (lock) {{\n            balance += amount * {k};\n            postings++;\n            history.add(amount);\n        }}\n    }}\n\n    public long total{m}() {{\n        long sum = 0;\n        synchronized (lock) {{\n            for (long h : history) {{\n                sum += h % {k2};\n            }}\n        }}\n        return sum;\n    }}\n\n",
                k = m + 1,
                k2 = m + 7
            );
        }
        body += "    public synchronized long balance() {\n        return balance;\n    }\n\n    public int postings() {\n        synchronized (lock) {\n            return postings;\n        }\n    }\n}\n";
        lines += body.lines().count();
        std::fs::write(main.join(format!("Account{i}.java")), body).unwrap();
    }
    let ledger = "package org.example.big;\n\n/** Posts to the first account kind. */\npublic class Ledger {\n    private final Account0 account = new Account0();\n\n    public void post(long amount) {\n        account.post0(amount);\n    }\n\n    public long balance() {\n        return account.balance();\n    }\n}\n";
    std::fs::write(main.join("Ledger.java"), ledger).unwrap();
    let test_text = "package org.example.big;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\npublic class LedgerTest {\n    @Test\n    public void twoTellersPostToOneAccount() throws Exception {\n        Ledger ledger = new Ledger();\n        Thread teller = new Thread(() -> ledger.post(5));\n        teller.start();\n        ledger.post(7);\n        teller.join();\n        assertEquals(12, ledger.balance());\n    }\n}\n";
    std::fs::write(test.join("LedgerTest.java"), test_text).unwrap();
    lines + ledger.lines().count() + test_text.lines().count()
}
