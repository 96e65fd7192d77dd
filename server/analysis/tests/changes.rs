//! Kinds of change, each on a real git repository: what racelens reports and what it
//! must not.

use racelens_test_support as support;

use racelens_analysis::host::HostOptions;
use support::*;

const WORKER_BASE: &str = r#"package app;

public class Worker implements Runnable {
    private volatile boolean running = true;
    private long processed;

    public void run() {
        while (running) {
            step();
        }
    }

    private synchronized void step() {
        processed++;
    }

    public void stop() {
        running = false;
    }

    public synchronized long processed() {
        return processed;
    }
}
"#;

#[test]
fn removed_synchronized_races_with_the_guarded_accesses() {
    let repo = fixture_repo("object-pool");
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    let icps = icps(&impact);
    // The whole former region is impacted (step 1), with the method filled in (step 2).
    for line in 57..=64 {
        assert!(
            icps.iter().any(|i| i.starts_with(&format!("<org.example.pool.ObjectPool, addObject, {line}, _>"))),
            "line {line}: {icps:#?}"
        );
    }
    assert!(
        w.iter().any(|w| w.starts_with(
            "ObjectPool.java:58 RL001 `numActive` is read in `ObjectPool.addObject()` without the lock `this`"
        ) && w.ends_with("the change removed `synchronized` from `ObjectPool.addObject()`")),
        "{w:#?}"
    );
    // One warning per field and method: `numIdle` is read at line 58 and updated at 62.
    assert!(
        w.iter().any(|w| w.starts_with(
            "ObjectPool.java:58 RL001 `numIdle` is read in `ObjectPool.addObject()` without the lock `this`"
        ) && w.ends_with("(1 more place in `ObjectPool.addObject()`: line 62)")),
        "{w:#?}"
    );
    assert_eq!(w.iter().filter(|w| w.contains("`numIdle`")).count(), 1, "{w:#?}");
    // `idle` is an ArrayDeque: pushing to it races with pop() in borrowObject().
    assert!(w.iter().any(|w| w.starts_with("ObjectPool.java:61 RL001 `idle` is modified by `push()`")), "{w:#?}");
    // The removed region no longer pairs with the monitor: the notifyAll() is now outside
    // any synchronized region, but it is still a wait/notify pair on the pool's monitor.
    let pairs = pairs(&host, &impact);
    assert!(
        pairs
            .iter()
            .any(|p| p.starts_with("WN ObjectPool.this: notify ObjectPool.java:63 ObjectPool.addObject [this]*")),
        "{pairs:#?}"
    );
    // And notifyAll() without the monitor throws.
    assert!(
        w.iter().any(|w| w.starts_with("ObjectPool.java:63 RL006 `notifyAll()` needs the monitor of `this`")),
        "{w:#?}"
    );
}

#[test]
fn removed_volatile_impacts_every_access_of_the_field() {
    let repo = repo_with(
        &[("src/app/Worker.java", WORKER_BASE)],
        &[("src/app/Worker.java", &WORKER_BASE.replace("private volatile boolean", "private boolean"))],
    );
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(
        w.iter().any(|w| w.starts_with("Worker.java:8 RL001 `running` is read in `Worker.run()`")
            && w.ends_with("the change removed `volatile` from `running`")),
        "{w:#?}"
    );
    assert!(w.iter().any(|w| w.starts_with("Worker.java:18 RL001 `running` is written in `Worker.stop()`")), "{w:#?}");
    let icps = icps(&impact);
    // The field's initializer runs in the constructor: javac's `<init>`.
    assert!(icps.contains(&"<app.Worker, <init>, 4, _> deleted-line".to_string()), "{icps:#?}");
    assert!(icps.contains(&"<app.Worker, _, _, running> field-access".to_string()), "{icps:#?}");
}

#[test]
fn volatile_or_atomic_fields_do_not_warn_of_races() {
    let change = WORKER_BASE.replace(
        "    public void stop() {\n        running = false;",
        "    public void stop() {\n        running = false;\n        running = !running;",
    );
    let repo = repo_with(&[("src/app/Worker.java", WORKER_BASE)], &[("src/app/Worker.java", &change)]);
    let (host, impact) = analyze(repo.path());
    assert!(warnings(&host, &impact).is_empty(), "{:#?}", warnings(&host, &impact));
    // The pairs are still reported: they are exploration targets.
    assert!(pairs(&host, &impact).iter().any(|p| p.starts_with("WW Worker.running")));
}

const CACHE_BASE: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class Cache {
    private final Map<String, String> entries = new HashMap<>();
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private int misses;

    public String get(String key) {
        rw.readLock().lock();
        try {
            return entries.get(key);
        } finally {
            rw.readLock().unlock();
        }
    }

    public void putIfMissing(String key, String value) {
        rw.writeLock().lock();
        try {
            if (!entries.containsKey(key)) {
                misses++;
                entries.put(key, value);
            }
        } finally {
            rw.writeLock().unlock();
        }
    }

    public int misses() {
        rw.readLock().lock();
        try {
            return misses;
        } finally {
            rw.readLock().unlock();
        }
    }
}
"#;

#[test]
fn read_write_locks_protect_readers_from_writers() {
    // Touch putIfMissing without changing its locking: every pair stays protected.
    let change = CACHE_BASE.replace("misses++;", "misses += 1;");
    let repo = repo_with(&[("src/app/Cache.java", CACHE_BASE)], &[("src/app/Cache.java", &change)]);
    let (host, impact) = analyze(repo.path());
    let pairs = pairs(&host, &impact);
    println!("{}", pairs.join("\n"));
    assert!(
        pairs.iter().any(|p| p.starts_with("RW Cache.misses protected: read Cache.java:34"))
            || pairs.iter().any(|p| p.starts_with("RW Cache.misses protected")),
        "{pairs:#?}"
    );
    assert!(
        pairs.iter().filter(|p| p.starts_with("RW") || p.starts_with("WW")).all(|p| p.contains("protected")),
        "{pairs:#?}"
    );
    assert!(warnings(&host, &impact).is_empty(), "{:#?}", warnings(&host, &impact));
}

#[test]
fn moving_a_check_out_of_the_lock_is_reported() {
    let change = CACHE_BASE.replace(
        "        rw.writeLock().lock();\n        try {\n            if (!entries.containsKey(key)) {\n                misses++;\n                entries.put(key, value);\n            }\n        } finally {",
        "        if (entries.containsKey(key)) {\n            return;\n        }\n        rw.writeLock().lock();\n        try {\n            misses++;\n            entries.put(key, value);\n        } finally {",
    );
    assert_ne!(change, CACHE_BASE);
    let repo = repo_with(&[("src/app/Cache.java", CACHE_BASE)], &[("src/app/Cache.java", &change)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    // The map is a HashMap: reading it without the lock races with put() under the write lock.
    assert!(w.iter().any(|w| w.starts_with("Cache.java:22 RL001 `entries` is read by `containsKey()` in `Cache.putIfMissing()` without the lock `rw.writeLock()`")), "{w:#?}");
    // The put() under the lock is not where the fix goes: one warning, at the check.
    assert_eq!(w.iter().filter(|w| w.contains("RL001")).count(), 1, "{w:#?}");
    // The lock()/unlock() region moved: its lines are impacted as a whole.
    // Code moved out of the write-locked region: the region's scope changed, and all of it
    // is impacted.
    let icps = icps(&impact);
    for line in 25..=30 {
        assert!(
            icps.iter().any(|i| i.starts_with(&format!("<app.Cache, putIfMissing, {line}, _>"))),
            "line {line}: {icps:#?}"
        );
    }
}

const ACCOUNT_BASE: &str = r#"package bank;

public class Account {
    private final Object lock = new Object();
    private long balance;
    private long withdrawals;

    public boolean withdraw(long amount) {
        synchronized (lock) {
            if (balance < amount) {
                return false;
            }
            balance -= amount;
            withdrawals++;
            return true;
        }
    }

    public void deposit(long amount) {
        synchronized (lock) {
            balance += amount;
        }
    }
}
"#;

#[test]
fn splitting_a_critical_section_is_reported() {
    let change = ACCOUNT_BASE.replace(
        "        synchronized (lock) {\n            if (balance < amount) {\n                return false;\n            }\n            balance -= amount;",
        "        synchronized (lock) {\n            if (balance < amount) {\n                return false;\n            }\n        }\n        synchronized (lock) {\n            balance -= amount;",
    );
    let repo = repo_with(&[("src/bank/Account.java", ACCOUNT_BASE)], &[("src/bank/Account.java", &change)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(w.iter().any(|w| w.starts_with("Account.java:15 RL003 the change split a critical section of `Account.withdraw()`: the read of `balance` (line 10)")), "{w:#?}");
    // Both halves still hold the lock: no data race is claimed.
    assert!(!w.iter().any(|w| w.contains("RL001")), "{w:#?}");
}

const POOLED_ENTRY: &str = r#"package pool;

/** A pooled object's bookkeeping: its state changes under its own monitor. */
public class PooledEntry {
    public enum State { IDLE, ALLOCATED, INVALID }

    private final Object object;
    private State state = State.IDLE;

    public PooledEntry(Object object) {
        this.object = object;
    }

    public Object object() {
        return object;
    }

    public synchronized State state() {
        return state;
    }

    /** Lends the entry out: only an idle one. */
    public synchronized boolean allocate() {
        if (state != State.IDLE) {
            return false;
        }
        state = State.ALLOCATED;
        return true;
    }

    public synchronized void invalidate() {
        state = State.INVALID;
    }
}
"#;

const ENTRY_POOL: &str = r#"package pool;

import java.util.concurrent.LinkedBlockingDeque;

public class EntryPool {
    private final LinkedBlockingDeque<PooledEntry> idle = new LinkedBlockingDeque<>();

    public EntryPool() {
        Thread evictor = new Thread(this::evictAll, "evictor");
        evictor.setDaemon(true);
        evictor.start();
    }

    public void add(Object object) {
        idle.addLast(new PooledEntry(object));
    }

    public PooledEntry borrow() {
        for (PooledEntry e = idle.pollFirst(); e != null; e = idle.pollFirst()) {
            synchronized (e) {
                if (e.allocate()) {
                    return e;
                }
            }
        }
        return null;
    }

    /** Destroys an entry: taken out of the idle ones only while it is idle (or always). */
    public boolean destroy(PooledEntry entry, boolean always) {
        boolean removed = false;
        synchronized (entry) {
            boolean isIdle = entry.state() == PooledEntry.State.IDLE;
            if (isIdle || always) {
                removed = idle.remove(entry);
            }
        }
        entry.invalidate();
        return removed;
    }

    private void evictAll() {
        for (PooledEntry e : idle) {
            destroy(e, false);
        }
    }
}
"#;

#[test]
fn releasing_the_lock_between_a_check_and_its_act_is_reported() {
    // POOL-326's shape: the entry's monitor no longer covers the state's check and the
    // removal it decides (the check still takes the monitor, in `state()`), so `borrow()`
    // can allocate the entry between them.
    let released = ENTRY_POOL.replace(
        "        synchronized (entry) {\n            boolean isIdle = entry.state() == PooledEntry.State.IDLE;\n            if (isIdle || always) {\n                removed = idle.remove(entry);\n            }\n        }\n",
        "        boolean isIdle = entry.state() == PooledEntry.State.IDLE;\n        if (isIdle || always) {\n            removed = idle.remove(entry);\n        }\n",
    );
    let base = [("src/pool/PooledEntry.java", POOLED_ENTRY), ("src/pool/EntryPool.java", ENTRY_POOL)];
    let repo = repo_with(&base, &[("src/pool/EntryPool.java", &released)]);
    let (host, impact) = analyze(repo.path());
    let w: Vec<String> = warnings(&host, &impact).into_iter().filter(|w| w.contains("RL003")).collect();
    expect_test::expect!["EntryPool.java:34 RL003 the change took `entry` away from this write of `idle[]` by `remove()` in `EntryPool.destroy()`, which the base made under it after the read of `state` by `state()` (line 32): the read still takes the lock, this no longer does, so another thread can change `state` between them"].assert_eq(&w.join("\n"));

    // Near miss: the removal re-checks under the monitor (a narrowed lock done right).
    let rechecked = ENTRY_POOL.replace(
        "            if (isIdle || always) {\n                removed = idle.remove(entry);\n            }\n        }\n",
        "        }\n        if (always || entry.state() == PooledEntry.State.IDLE) {\n            synchronized (entry) {\n                if (always || entry.state() == PooledEntry.State.IDLE) {\n                    removed = idle.remove(entry);\n                }\n            }\n        }\n",
    );
    let repo = repo_with(&base, &[("src/pool/EntryPool.java", &rechecked)]);
    let (host, impact) = analyze(repo.path());
    let w: Vec<String> = warnings(&host, &impact).into_iter().filter(|w| w.contains("RL003")).collect();
    assert_eq!(w, Vec::<String>::new());
}

const TRACKED_WORKER: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

public class Worker {
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Runnable> running = new HashMap<>();
    private int busy;
    private int failures;

    public void run(String name, Runnable task) {
        lock.lock();
        try {
            running.put(name, task);
            busy++;
        } finally {
            lock.unlock();
        }
        try {
            task.run();
        } catch (RuntimeException e) {
            countFailure();
        } finally {
            lock.lock();
            try {
                running.remove(name);
                busy--;
            } finally {
                lock.unlock();
            }
        }
    }

    private void countFailure() {
        failures++;
    }
}
"#;

#[test]
fn a_section_added_between_two_the_base_had_apart_splits_neither() {
    let change = TRACKED_WORKER.replace(
        "            countFailure();\n",
        "            lock.lock();\n            try {\n                countFailure();\n            } finally {\n                lock.unlock();\n            }\n",
    );
    let repo = repo_with(&[("src/app/Worker.java", TRACKED_WORKER)], &[("src/app/Worker.java", &change)]);
    let (host, impact) = analyze(repo.path());
    let w: Vec<String> = warnings(&host, &impact).into_iter().filter(|w| w.contains("RL003")).collect();
    assert_eq!(w, Vec::<String>::new());
}

const LIMITS_BASE: &str = r#"package app;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

public class Tokens {
    private final Object lock = new Object();
    private final Map<String, Set<String>> byOwner = new HashMap<>();
    private final int max;

    public Tokens(int max) {
        this.max = max;
    }

    public boolean issue(String owner, String token) {
        synchronized (lock) {
            Set<String> mine = byOwner.computeIfAbsent(owner, o -> new HashSet<>());
            if (mine.size() >= max) {
                return false;
            }
            mine.add(token);
            return true;
        }
    }

    public int count(String owner) {
        synchronized (lock) {
            Set<String> mine = byOwner.get(owner);
            return mine == null ? 0 : mine.size();
        }
    }
}
"#;

#[test]
fn a_check_of_an_element_taken_from_a_map_split_from_its_change_is_reported() {
    // The count is checked through the locked `count()`, the token added in a second
    // section: `mine.size()` and `mine.add()` read and change what `byOwner` holds.
    let early = "    public boolean issue(String owner, String token) {\n        if (count(owner) >= max) {\n            return false;\n        }\n        synchronized (lock) {\n            Set<String> mine = byOwner.computeIfAbsent(owner, o -> new HashSet<>());\n";
    let from = "    public boolean issue(String owner, String token) {\n        synchronized (lock) {\n            Set<String> mine = byOwner.computeIfAbsent(owner, o -> new HashSet<>());\n";
    let split = LIMITS_BASE.replace(from, early).replace("            if (mine.size() >= max) {\n                return false;\n            }\n            mine.add(token);", "            mine.add(token);");
    let repo = repo_with(&[("src/app/Tokens.java", LIMITS_BASE)], &[("src/app/Tokens.java", &split)]);
    let (host, impact) = analyze(repo.path());
    let w: Vec<String> = warnings(&host, &impact).into_iter().filter(|w| w.contains("RL003")).collect();
    expect_test::expect!["Tokens.java:23 RL003 the change split a critical section of `Tokens.issue()`: the read of `byOwner[]` by `count()` (line 18) and this write of `byOwner[]` by `add()` now run under two separate acquisitions of `lock`, so another thread can run between them"].assert_eq(&w.join("\n"));
    // A fast path that checks again under the lock before it adds is a safe narrowing.
    let fast_path = LIMITS_BASE.replace(from, early);
    let repo = repo_with(&[("src/app/Tokens.java", LIMITS_BASE)], &[("src/app/Tokens.java", &fast_path)]);
    let (host, impact) = analyze(repo.path());
    assert_eq!(warnings(&host, &impact), Vec::<String>::new());
}

const NESTED_BASE: &str = r#"package app;

import java.util.concurrent.ExecutorService;

public class Scheduler {
    private int ticks;
    private final Object lock = new Object();

    class Timer {
        int fired;

        void fire() {
            fired++;
        }
    }

    void start(ExecutorService pool) {
        pool.submit(new Runnable() {
            public void run() {
                tick();
            }
        });
        synchronized (lock) {
            pool.submit(() -> {
                ticks = ticks + 1;
            });
        }
    }

    synchronized void tick() {
        ticks++;
    }
}
"#;

#[test]
fn nested_anonymous_and_lambda_code_gets_javacs_names() {
    let change = NESTED_BASE
        .replace("            fired++;", "            fired += 2;")
        .replace("                tick();", "                tick();\n                tick();")
        .replace("                ticks = ticks + 1;", "                ticks = ticks + 2;");
    let repo = repo_with(&[("src/app/Scheduler.java", NESTED_BASE)], &[("src/app/Scheduler.java", &change)]);
    let (host, impact) = analyze(repo.path());
    let icps = icps(&impact);
    println!("{}", icps.join("\n"));
    assert!(icps.contains(&"<app.Scheduler$Timer, fire, 13, _> changed-line".to_string()), "{icps:#?}");
    assert!(icps.contains(&"<app.Scheduler$1, run, 21, _> changed-line".to_string()), "{icps:#?}");
    // A lambda is attributed to the method it is written in.
    assert!(icps.contains(&"<app.Scheduler, start, 26, _> changed-line".to_string()), "{icps:#?}");
    assert!(
        icps.contains(&"<app.Scheduler, _, _, ticks> field-access".to_string())
            || icps.contains(&"<app.Scheduler, _, _, ticks> callee-effect".to_string()),
        "{icps:#?}"
    );
    // The lambda runs on the executor's thread, without the lock it was written under.
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(w.iter().any(|w| w.starts_with("Scheduler.java:26 RL001 `ticks` is")), "{w:#?}");
}

#[test]
fn formatting_and_comment_changes_impact_nothing() {
    let change = NESTED_BASE
        .replace("    private int ticks;", "    // how often the timer fired\n    private int ticks;")
        .replace("            fired++;", "            fired++;   // count it")
        .replace(
            "    synchronized void tick() {\n        ticks++;\n    }",
            "    synchronized void tick()\n    {\n            ticks\n                ++;\n    }",
        );
    assert_ne!(change, NESTED_BASE);
    let repo = repo_with(&[("src/app/Scheduler.java", NESTED_BASE)], &[("src/app/Scheduler.java", &change)]);
    let (host, impact) = analyze(repo.path());
    assert!(impact.icps.is_empty(), "{:#?}", icps(&impact));
    assert!(impact.pairs.is_empty());
    assert!(warnings(&host, &impact).is_empty());
}

#[test]
fn an_edit_then_revert_impacts_nothing() {
    let repo = repo_with(&[("src/app/Scheduler.java", NESTED_BASE)], &[]);
    let path = repo.path().join("src/app/Scheduler.java");
    std::fs::write(&path, NESTED_BASE.replace("ticks++;", "ticks--;")).unwrap();
    let (_, edited) = analyze(repo.path());
    assert!(!edited.icps.is_empty());
    std::fs::write(&path, NESTED_BASE).unwrap();
    let (_, reverted) = analyze(repo.path());
    assert!(reverted.icps.is_empty(), "{:#?}", icps(&reverted));
}

#[test]
fn a_file_with_syntax_errors_still_yields_facts_for_what_parses() {
    let change = WORKER_BASE.replace("    private synchronized void step() {", "    private void step() {").replace(
        "    public void stop() {\n        running = false;\n    }",
        "    public void stop( {\n        running = false\n    }",
    );
    let repo = repo_with(&[("src/app/Worker.java", WORKER_BASE)], &[("src/app/Worker.java", &change)]);
    let (host, impact) = analyze(repo.path());
    let facts = &host.index().entry(host.index().file_id("src/app/Worker.java").unwrap()).unwrap().facts;
    assert!(!facts.syntax_errors.is_empty());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(
        w.iter().any(|w| w.starts_with("Worker.java:14 RL001 `processed` is updated in `Worker.step()`")),
        "{w:#?}"
    );
}

#[test]
fn untracked_files_count_as_wholly_added() {
    let repo = repo_with(&[("src/app/Worker.java", WORKER_BASE)], &[("src/app/Monitor.java", "package app;\n\npublic class Monitor extends Thread {\n    static int seen;\n\n    public void run() {\n        seen++;\n    }\n}\n")]);
    let (host, impact) = analyze(repo.path());
    let icps = icps(&impact);
    for line in [1, 3, 4, 6, 7, 8, 9] {
        assert!(
            icps.iter().any(|i| i.starts_with("<app.Monitor") && i.contains(&format!(", {line}, _>"))) || line == 1,
            "line {line}: {icps:#?}"
        );
    }
    let w = warnings(&host, &impact);
    assert!(
        w.iter().any(|w| w.starts_with("Monitor.java:7 RL001 `seen` is updated in `Monitor.run()`")
            && w.contains("the change added this file")),
        "{w:#?}"
    );
}

#[test]
fn a_folder_outside_git_is_an_error_unless_no_git_is_given() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "src/app/Worker.java",
        &WORKER_BASE.replace("private synchronized void step", "private void step"),
    );
    let err = racelens_analysis::host::Host::open(dir.path(), &HostOptions::default()).err().expect("not a work tree");
    assert!(err.contains("is not inside a git work tree") && err.contains("--no-git"), "{err}");
    let (host, impact) = analyze_with(dir.path(), &HostOptions { no_git: true, ..HostOptions::default() });
    // Without a diff every file is new: the whole project is checked.
    let w = warnings(&host, &impact);
    assert!(w.iter().any(|w| w.starts_with("Worker.java:14 RL001 `processed`")), "{w:#?}");
}

#[test]
fn binary_and_non_utf8_files_are_reported_and_skipped_or_read() {
    let repo = repo_with(&[("src/app/Worker.java", WORKER_BASE)], &[]);
    std::fs::write(repo.path().join("src/app/Blob.java"), b"\x00\x01\x02binary\x00").unwrap();
    // ISO-8859-1: "é" is 0xE9, not valid UTF-8.
    std::fs::write(
        repo.path().join("src/app/Latin.java"),
        b"package app;\n// caf\xe9\npublic class Latin { static int n; static void bump() { n++; } }\n",
    )
    .unwrap();
    let (host, impact) = analyze(repo.path());
    let notes = host.notes();
    assert!(
        notes.iter().any(|n| n.path.as_deref() == Some("src/app/Blob.java") && n.message.contains("binary")),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|n| n.path.as_deref() == Some("src/app/Latin.java") && n.message.contains("UTF-8")),
        "{notes:#?}"
    );
    assert!(host.index().file_id("src/app/Blob.java").is_none());
    assert!(icps(&impact).iter().any(|i| i.starts_with("<app.Latin, bump")), "{:#?}", icps(&impact));
}

#[test]
fn suppressions_and_annotations_are_honoured() {
    let base = "package app;\n\npublic class Counter {\n    private final Object lock = new Object();\n    @GuardedBy(\"lock\") private int count;\n    private int hits;\n\n    public synchronized void hit() {\n        hits++;\n    }\n\n    public void add() {\n        synchronized (lock) {\n            count++;\n        }\n    }\n}\n";
    let change = base
        .replace("    public synchronized void hit() {\n        hits++;\n    }", "    @SuppressWarnings(\"racelens\")\n    public void hit() {\n        hits++;\n    }\n\n    public int peek() {\n        return count;\n    }");
    let repo = repo_with(&[("src/app/Counter.java", base)], &[("src/app/Counter.java", &change)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(!w.iter().any(|w| w.contains("`hits`")), "suppressed: {w:#?}");
    assert!(w.iter().any(|w| w.starts_with("Counter.java:14 RL001 `count` is read in `Counter.peek()` without the lock `lock`")), "{w:#?}");

    // A class its authors marked @NotThreadSafe is not shared: no warnings about it.
    let nts = change.replace("public class Counter", "@NotThreadSafe\npublic class Counter");
    let repo = repo_with(&[("src/app/Counter.java", base)], &[("src/app/Counter.java", &nts)]);
    let (host, impact) = analyze(repo.path());
    assert!(warnings(&host, &impact).is_empty(), "{:#?}", warnings(&host, &impact));
}

#[test]
fn the_base_can_be_another_revision() {
    let repo = repo_with(
        &[("src/app/Worker.java", WORKER_BASE)],
        &[("src/app/Worker.java", &WORKER_BASE.replace("private volatile boolean", "private boolean"))],
    );
    git(repo.path(), &["commit", "-q", "-am", "drop volatile"]);
    let (_, at_head) = analyze(repo.path());
    assert!(at_head.icps.is_empty());
    let (host, against_parent) =
        analyze_with(repo.path(), &HostOptions { base: "HEAD~1".into(), ..HostOptions::default() });
    assert!(warnings(&host, &against_parent).iter().any(|w| w.contains("removed `volatile`")));
    let err = racelens_analysis::host::Host::open(
        repo.path(),
        &HostOptions { base: "no-such-branch".into(), ..HostOptions::default() },
    )
    .err()
    .unwrap();
    assert!(err.contains("no-such-branch"), "{err}");
}

// RL007, lock-order inversion. Boilerplate fixtures: a bank whose accounts carry their own
// lock, and a cache with an index that call each other.

const ACCOUNT: &str = r#"package bank;

import java.util.concurrent.locks.ReentrantLock;

public class Account {
    final ReentrantLock lock = new ReentrantLock();
    private long balance;

    public synchronized void deposit(long amount) {
        balance += amount;
    }

    void add(long amount) {
        balance += amount;
    }
}
"#;

const BANK_BASE: &str = r#"package bank;

public class Bank {
    public void transfer(Account from, Account to, long amount) {
        from.lock.lock();
        try {
            from.add(-amount);
        } finally {
            from.lock.unlock();
        }
        to.lock.lock();
        try {
            to.add(amount);
        } finally {
            to.lock.unlock();
        }
    }

    public void pay(Account from, Account to, long amount) {
        synchronized (from) {
            from.deposit(-amount);
        }
        to.deposit(amount);
    }
}
"#;

#[test]
fn nesting_the_locks_of_two_accounts_is_a_lock_order_inversion() {
    let change = BANK_BASE
        .replace(
            "        from.lock.lock();\n        try {\n            from.add(-amount);\n        } finally {\n            from.lock.unlock();\n        }\n        to.lock.lock();\n        try {\n            to.add(amount);\n        } finally {\n            to.lock.unlock();\n        }",
            "        from.lock.lock();\n        try {\n            to.lock.lock();\n            try {\n                from.add(-amount);\n                to.add(amount);\n            } finally {\n                to.lock.unlock();\n            }\n        } finally {\n            from.lock.unlock();\n        }",
        )
        .replace("            from.deposit(-amount);\n        }\n        to.deposit(amount);", "            from.deposit(-amount);\n            to.deposit(amount);\n        }");
    let repo = repo_with(
        &[("src/bank/Account.java", ACCOUNT), ("src/bank/Bank.java", BANK_BASE)],
        &[("src/bank/Bank.java", &change)],
    );
    let (host, impact) = analyze(repo.path());
    let found: Vec<String> = warnings(&host, &impact).into_iter().filter(|w| w.contains("RL007")).collect();
    expect_test::expect![[r#"
        Bank.java:7 RL007 lock-order inversion: `Bank.transfer()` takes `from.lock` then `to.lock`, the locks of two `Account` objects; two calls with `from` and `to` swapped wait for each other (deadlock)
        Bank.java:22 RL007 lock-order inversion: `Bank.pay()` takes `from` then `to` (in `Account.deposit()`, line 22), the locks of two `Account` objects; two calls with `from` and `to` swapped wait for each other (deadlock)"#]]
    .assert_eq(&found.join("\n"));
    let related = |line: u32| -> Vec<String> {
        let d =
            impact.diagnostics.iter().find(|d| d.code == "RL007" && d.span.line == line).expect("RL007 at the line");
        d.related
            .iter()
            .map(|r| format!("{}:{} {}", host.path_of(r.file).rsplit('/').next().unwrap(), r.span.line, r.message))
            .collect()
    };
    expect_test::expect![[r#"
        Bank.java:5 `Bank.transfer()` takes `from.lock` here
        Bank.java:7 `Bank.transfer()` takes `to.lock` here"#]]
    .assert_eq(&related(7).join("\n"));
    expect_test::expect![[r#"
        Bank.java:20 `Bank.pay()` takes `from` here
        Bank.java:22 holding `from`, it calls `Account.deposit()`
        Account.java:9 `Account.deposit()` takes `this` here"#]]
    .assert_eq(&related(22).join("\n"));

    // Suppressed on the method, as every warning.
    let quiet = change
        .replace("    public void transfer(", "    @SuppressWarnings(\"racelens:RL007\")\n    public void transfer(");
    let repo = repo_with(
        &[("src/bank/Account.java", ACCOUNT), ("src/bank/Bank.java", BANK_BASE)],
        &[("src/bank/Bank.java", &quiet)],
    );
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    assert!(!w.iter().any(|w| w.contains("RL007") && w.contains("transfer")), "{w:#?}");
    assert!(w.iter().any(|w| w.contains("RL007") && w.contains("Bank.pay()")), "{w:#?}");
}

const CACHE_LOCKED: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;

public class Cache {
    private final Object lock = new Object();
    private final Map<String, String> entries = new HashMap<>();
    private final Index index;

    public Cache(Index index) {
        this.index = index;
    }

    public void refresh() {
        synchronized (lock) {
            entries.clear();
            index.rebuild();
        }
    }

    public void put(String key, String value) {
        synchronized (lock) {
            entries.put(key, value);
        }
    }
}
"#;

const INDEX_BASE: &str = r#"package app;

import java.util.ArrayList;
import java.util.List;

public class Index {
    private final List<String> keys = new ArrayList<>();
    private Cache cache;

    public void attach(Cache cache) {
        this.cache = cache;
    }

    public synchronized void rebuild() {
        keys.clear();
    }

    public synchronized void add(String key, String value) {
        keys.add(key);
    }
}
"#;

#[test]
fn two_locks_taken_in_both_orders_through_calls_are_a_lock_order_inversion() {
    let change =
        INDEX_BASE.replace("        keys.add(key);\n", "        keys.add(key);\n        cache.put(key, value);\n");
    let repo = repo_with(
        &[("src/app/Cache.java", CACHE_LOCKED), ("src/app/Index.java", INDEX_BASE)],
        &[("src/app/Index.java", &change)],
    );
    let (host, impact) = analyze(repo.path());
    let found: Vec<String> = warnings(&host, &impact).into_iter().filter(|w| w.contains("RL007")).collect();
    expect_test::expect![[r#"
        Index.java:20 RL007 lock-order inversion: `Index.add()` takes `this` then `Cache.lock` (line 20, in `Cache.put()`), while `Cache.refresh()` takes them the other way round (line 18, in `Index.rebuild()`): two threads can deadlock"#]]
    .assert_eq(&found.join("\n"));
    let d = impact.diagnostics.iter().find(|d| d.code == "RL007").unwrap();
    let related: Vec<String> = d
        .related
        .iter()
        .map(|r| format!("{}:{} {}", host.path_of(r.file).rsplit('/').next().unwrap(), r.span.line, r.message))
        .collect();
    expect_test::expect![[r#"
        Index.java:18 `Index.add()` takes `this` here
        Cache.java:23 `Cache.put()` takes `lock` here
        Cache.java:16 `Cache.refresh()` takes `lock` here
        Cache.java:18 holding `lock`, it calls `Index.rebuild()`
        Index.java:14 `Index.rebuild()` takes `this` here"#]]
    .assert_eq(&related.join("\n"));
}

#[test]
fn a_change_that_makes_both_orders_is_reported_at_both_ends() {
    let cache_base = CACHE_LOCKED
        .replace("            entries.clear();\n            index.rebuild();\n", "            entries.clear();\n");
    let index_change =
        INDEX_BASE.replace("        keys.add(key);\n", "        keys.add(key);\n        cache.put(key, value);\n");
    let found = lock_order_warnings(
        &[("src/app/Cache.java", &cache_base), ("src/app/Index.java", INDEX_BASE)],
        &[("src/app/Cache.java", CACHE_LOCKED), ("src/app/Index.java", &index_change)],
    );
    expect_test::expect![[r#"
        Cache.java:18 RL007 lock-order inversion: `Cache.refresh()` takes `lock` then `Index.this` (line 18, in `Index.rebuild()`), while `Index.add()` takes them the other way round (line 20, in `Cache.put()`): two threads can deadlock
        Index.java:20 RL007 lock-order inversion: `Index.add()` takes `this` then `Cache.lock` (line 20, in `Cache.put()`), while `Cache.refresh()` takes them the other way round (line 18, in `Index.rebuild()`): two threads can deadlock"#]]
    .assert_eq(&found.join("\n"));
}

const MAILROOM: &str = r#"package app;

import java.util.ArrayDeque;

public class Mailroom {
    public interface Bounce {
        void bounced(String letter);
    }

    private final ArrayDeque<String> letters = new ArrayDeque<>();
    private final Bounce bounce;

    public Mailroom(Bounce bounce) {
        this.bounce = bounce;
    }

    public boolean post(String letter) {
        synchronized (this) {
            if (letters.size() < 10) {
                letters.add(letter);
                return true;
            }
        }
        bounce.bounced(letter);
        return false;
    }

    public synchronized int size() {
        return letters.size();
    }
}
"#;

const OFFICE: &str = r#"package app;

public class Office {
    private final Mailroom mailroom = new Mailroom(this::onBounce);
    private int bounced;

    private synchronized void onBounce(String letter) {
        bounced++;
    }

    public synchronized String report() {
        return mailroom.size() + " waiting, " + bounced + " bounced";
    }
}
"#;

#[test]
fn a_callback_given_as_a_method_reference_takes_the_lock_of_the_object_that_gave_it() {
    // `post()` now calls the bounce handler holding the mailroom's monitor; the handler is
    // `Office.onBounce`, synchronized, and `Office.report()` asks the mailroom its size.
    let under = MAILROOM.replace(
        "                return true;\n            }\n        }\n        bounce.bounced(letter);\n",
        "                return true;\n            }\n            bounce.bounced(letter);\n        }\n",
    );
    let base = [("src/app/Mailroom.java", MAILROOM), ("src/app/Office.java", OFFICE)];
    expect_test::expect!["Mailroom.java:23 RL007 lock-order inversion: `Mailroom.post()` takes `this` then `Office.this` (line 23, in `Office.onBounce()`), while `Office.report()` takes them the other way round (line 12, in `Mailroom.size()`): two threads can deadlock"]
        .assert_eq(&lock_order_warnings(&base, &[("src/app/Mailroom.java", &under)]).join("\n"));
    // The same handler given as a lambda that calls it.
    let lambda = OFFICE.replace("new Mailroom(this::onBounce)", "new Mailroom(letter -> onBounce(letter))");
    expect_test::expect!["Mailroom.java:23 RL007 lock-order inversion: `Mailroom.post()` takes `this` then `Office.this` (line 23, in `Office.onBounce()`), while `Office.report()` takes them the other way round (line 12, in `Mailroom.size()`): two threads can deadlock"]
        .assert_eq(&lock_order_warnings(&[("src/app/Mailroom.java", MAILROOM), ("src/app/Office.java", &lambda)], &[("src/app/Mailroom.java", &under)]).join("\n"));
    // A handler that takes no lock closes no cycle.
    let plain = OFFICE.replace("    private synchronized void onBounce(", "    private void onBounce(");
    assert_eq!(
        lock_order_warnings(
            &[("src/app/Mailroom.java", MAILROOM), ("src/app/Office.java", &plain)],
            &[("src/app/Mailroom.java", &under)]
        ),
        Vec::<String>::new()
    );
}

#[test]
fn a_callback_given_to_a_setter_of_a_jdk_functional_field_runs_its_method() {
    // The handler is a `Consumer<String>` field set through `setBounce(this::onBounce)`.
    let mailroom = MAILROOM
        .replace("    private final Bounce bounce;\n\n    public Mailroom(Bounce bounce) {\n        this.bounce = bounce;\n    }\n", "    private volatile java.util.function.Consumer<String> bounce = letter -> { };\n\n    public void setBounce(java.util.function.Consumer<String> bounce) {\n        this.bounce = bounce;\n    }\n")
        .replace("        bounce.bounced(letter);\n", "        bounce.accept(letter);\n");
    let office = OFFICE.replace("    private final Mailroom mailroom = new Mailroom(this::onBounce);\n", "    private final Mailroom mailroom = new Mailroom();\n\n    public Office() {\n        mailroom.setBounce(this::onBounce);\n    }\n");
    let under = mailroom.replace(
        "                return true;\n            }\n        }\n        bounce.accept(letter);\n",
        "                return true;\n            }\n            bounce.accept(letter);\n        }\n",
    );
    expect_test::expect!["Mailroom.java:23 RL007 lock-order inversion: `Mailroom.post()` takes `this` then `Office.this` (line 23, in `Office.onBounce()`), while `Office.report()` takes them the other way round (line 16, in `Mailroom.size()`): two threads can deadlock"].assert_eq(&lock_order_warnings(&[("src/app/Mailroom.java", &mailroom), ("src/app/Office.java", &office)], &[("src/app/Mailroom.java", &under)]).join("\n"));
    // Never set: the field keeps its do-nothing default.
    let unset = office.replace("        mailroom.setBounce(this::onBounce);\n", "");
    assert_eq!(
        lock_order_warnings(
            &[("src/app/Mailroom.java", &mailroom), ("src/app/Office.java", &unset)],
            &[("src/app/Mailroom.java", &under)]
        ),
        Vec::<String>::new()
    );
}

const EVENT_BUS: &str = r#"package app;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

public class EventBus {
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    private int published;

    public void subscribe(Consumer<String> listener) {
        listeners.add(listener);
    }

    public void publish(String event) {
        synchronized (this) {
            published++;
        }
        for (Consumer<String> listener : listeners) {
            listener.accept(event);
        }
    }

    public synchronized int published() {
        return published;
    }
}
"#;

const DASHBOARD: &str = r#"package app;

public class Dashboard {
    private final EventBus bus;
    private String last = "";

    public Dashboard(EventBus bus) {
        this.bus = bus;
        bus.subscribe(this::onEvent);
    }

    private synchronized void onEvent(String event) {
        last = event;
    }

    public synchronized String summary() {
        return last + " after " + bus.published() + " events";
    }
}
"#;

/// `publish()` now calls its listeners holding the bus's monitor (an alien call under a
/// lock, JCIP §10.1.3).
fn publish_under_lock(bus: &str, call: &str) -> String {
    let open = format!("        synchronized (this) {{\n            published++;\n        }}\n{call}");
    let held = format!(
        "        synchronized (this) {{\n            published++;\n{}        }}\n",
        call.replace("\n        ", "\n            ").replacen("        ", "            ", 1)
    );
    assert!(bus.contains(&open), "the fixture changed");
    bus.replace(&open, &held)
}

const FOR_EACH_CALL: &str =
    "        for (Consumer<String> listener : listeners) {\n            listener.accept(event);\n        }\n";

#[test]
fn listeners_kept_in_a_collection_run_what_was_subscribed() {
    // The dashboard subscribed `this::onEvent` (synchronized), and `summary()` asks the bus
    // its count holding the dashboard's monitor: calling the listeners under the bus's
    // monitor closes the cycle.
    let base = [("src/app/EventBus.java", EVENT_BUS), ("src/app/Dashboard.java", DASHBOARD)];
    let under = publish_under_lock(EVENT_BUS, FOR_EACH_CALL);
    expect_test::expect!["EventBus.java:19 RL007 lock-order inversion: `EventBus.publish()` takes `this` then `Dashboard.this` (line 19, in `Dashboard.onEvent()`), while `Dashboard.summary()` takes them the other way round (line 17, in `EventBus.published()`): two threads can deadlock"]
        .assert_eq(&lock_order_warnings(&base, &[("src/app/EventBus.java", &under)]).join("\n"));

    // The same walk as `forEach` with a lambda.
    let for_each = EVENT_BUS.replace(FOR_EACH_CALL, "        listeners.forEach(listener -> listener.accept(event));\n");
    let under = publish_under_lock(&for_each, "        listeners.forEach(listener -> listener.accept(event));\n");
    expect_test::expect!["EventBus.java:18 RL007 lock-order inversion: `EventBus.publish()` takes `this` then `Dashboard.this` (line 18, in `Dashboard.onEvent()`), while `Dashboard.summary()` takes them the other way round (line 17, in `EventBus.published()`): two threads can deadlock"]
        .assert_eq(&lock_order_warnings(&[("src/app/EventBus.java", &for_each), ("src/app/Dashboard.java", DASHBOARD)], &[("src/app/EventBus.java", &under)]).join("\n"));

    // Near misses: a change to `publish()` that still calls the listeners outside the
    // lock, and a subscriber whose handler takes no lock.
    let outside = EVENT_BUS.replace("            published++;\n", "            published += 1;\n");
    assert_eq!(lock_order_warnings(&base, &[("src/app/EventBus.java", &outside)]), Vec::<String>::new());
    let plain = DASHBOARD.replace("    private synchronized void onEvent(", "    private void onEvent(");
    let under = publish_under_lock(EVENT_BUS, FOR_EACH_CALL);
    assert_eq!(
        lock_order_warnings(
            &[("src/app/EventBus.java", EVENT_BUS), ("src/app/Dashboard.java", &plain)],
            &[("src/app/EventBus.java", &under)]
        ),
        Vec::<String>::new()
    );
}

#[test]
fn a_lock_taken_in_a_lambda_callbacks_own_body_is_seen() {
    // The subscriber is a lambda that synchronizes itself, with no method of its own.
    let lambda = DASHBOARD.replace(
        "        bus.subscribe(this::onEvent);\n",
        "        bus.subscribe(event -> {\n            synchronized (this) {\n                last = event;\n            }\n        });\n",
    );
    let under = publish_under_lock(EVENT_BUS, FOR_EACH_CALL);
    expect_test::expect!["EventBus.java:19 RL007 lock-order inversion: `EventBus.publish()` takes `this` then `Dashboard.this` (line 19, in `accept()`), while `Dashboard.summary()` takes them the other way round (line 21, in `EventBus.published()`): two threads can deadlock"]
        .assert_eq(&lock_order_warnings(&[("src/app/EventBus.java", EVENT_BUS), ("src/app/Dashboard.java", &lambda)], &[("src/app/EventBus.java", &under)]).join("\n"));
    // A lambda that locks nothing of the dashboard's closes no cycle.
    let unlocked = lambda.replace(
        "            synchronized (this) {\n                last = event;\n            }\n",
        "            last = event;\n",
    );
    assert_eq!(
        lock_order_warnings(
            &[("src/app/EventBus.java", EVENT_BUS), ("src/app/Dashboard.java", &unlocked)],
            &[("src/app/EventBus.java", &under)]
        ),
        Vec::<String>::new()
    );
}

const GATE_DRAIN: &str = r#"package app;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class Gate {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();
    private int active;

    public void enter() {
        lock.lock();
        try {
            active++;
        } finally {
            lock.unlock();
        }
    }

    public void leave() {
        lock.lock();
        try {
            active--;
            if (active == 0) {
                drained.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    public boolean awaitDrained(long millis) throws InterruptedException {
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (active > 0) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = drained.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
"#;

const SERVER_DRAIN: &str = r#"package app;

public class Server {
    private final Gate gate = new Gate();
    private int served;

    public void handle(Runnable request) {
        gate.enter();
        try {
            request.run();
            count();
        } finally {
            gate.leave();
        }
    }

    private synchronized void count() {
        served++;
    }

    public boolean stop(long millis) throws InterruptedException {
        return gate.awaitDrained(millis);
    }
}
"#;

#[test]
fn waiting_holding_a_lock_the_waker_takes_first_is_a_deadlock() {
    // `stop()` becomes synchronized: it waits for the drain holding the server's monitor,
    // which every request takes (in `count()`) before it leaves the gate.
    let locked = SERVER_DRAIN.replace("    public boolean stop(", "    public synchronized boolean stop(");
    let base = [("src/app/Gate.java", GATE_DRAIN), ("src/app/Server.java", SERVER_DRAIN)];
    expect_test::expect!["Server.java:22 RL007 `Server.stop()` waits for `Gate.drained` (in `Gate.awaitDrained()`) holding `Server.this`, but `Server.handle()` takes `Server.this` (in `Server.count()`, line 11) before it calls `Gate.leave()`, which wakes it: the waker blocks on the lock and the waiter on the wake-up (a deadlock, or a stall until the wait times out)"]
        .assert_eq(&lock_order_warnings(&base, &[("src/app/Server.java", &locked)]).join("\n"));
    // Counting after leaving the gate: the waker no longer needs the monitor first.
    let after = SERVER_DRAIN.replace(
        "            request.run();\n            count();\n        } finally {\n            gate.leave();\n        }\n",
        "            request.run();\n        } finally {\n            gate.leave();\n        }\n        count();\n",
    );
    let after_locked = after.replace("    public boolean stop(", "    public synchronized boolean stop(");
    assert_eq!(
        lock_order_warnings(
            &[("src/app/Gate.java", GATE_DRAIN), ("src/app/Server.java", &after)],
            &[("src/app/Server.java", &after_locked)]
        ),
        Vec::<String>::new()
    );
}

/// RL007 lines of a change to one file over a base of several.
fn lock_order_warnings(base: &[(&str, &str)], change: &[(&str, &str)]) -> Vec<String> {
    let repo = repo_with(base, change);
    let (host, impact) = analyze(repo.path());
    warnings(&host, &impact).into_iter().filter(|w| w.contains("RL007")).collect()
}

const ORDERED: &str = r#"package app;

import java.util.concurrent.locks.ReentrantReadWriteLock;

public class Ordered {
    private final Object lock1 = new Object();
    private final Object lock2 = new Object();
    final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private int a, b;

    public void first() {
        synchronized (lock1) {
            synchronized (lock2) {
                a++;
            }
        }
    }

    private void takeSecond() {
        synchronized (lock2) {
            b++;
        }
    }

    public synchronized int sum() {
        return a + b;
    }
}
"#;

#[test]
fn consistent_orders_reentrancy_read_locks_and_old_cycles_are_no_inversion() {
    let base =
        [("src/app/Ordered.java", ORDERED), ("src/bank/Account.java", ACCOUNT), ("src/bank/Bank.java", BANK_BASE)];
    // Always lock1 then lock2, directly and through a call.
    let same_order = ORDERED.replace(
        "    public synchronized int sum() {",
        "    public void second() {\n        synchronized (lock1) {\n            takeSecond();\n        }\n    }\n\n    public synchronized int sum() {",
    );
    assert_eq!(lock_order_warnings(&base, &[("src/app/Ordered.java", &same_order)]), Vec::<String>::new());
    // The same monitor again: re-entrant, directly and through a call on the same object.
    let reentrant = ORDERED.replace(
        "        return a + b;",
        "        synchronized (this) {\n            first();\n            return a + b;\n        }",
    );
    let reentrant_bank = BANK_BASE.replace("            from.deposit(-amount);\n        }", "            from.deposit(-amount);\n            synchronized (from) {\n                from.add(1);\n            }\n        }");
    assert_eq!(
        lock_order_warnings(&base, &[("src/app/Ordered.java", &reentrant), ("src/bank/Bank.java", &reentrant_bank)]),
        Vec::<String>::new()
    );
    // Read locks of two objects do not exclude each other; write locks do.
    let nested = |mode: &str| {
        ORDERED.replace(
            "    public synchronized int sum() {",
            &format!("    static void both(Ordered x, Ordered y) {{\n        x.rw.{mode}().lock();\n        try {{\n            y.rw.{mode}().lock();\n            y.rw.{mode}().unlock();\n        }} finally {{\n            x.rw.{mode}().unlock();\n        }}\n    }}\n\n    public synchronized int sum() {{"),
        )
    };
    assert_eq!(lock_order_warnings(&base, &[("src/app/Ordered.java", &nested("readLock"))]), Vec::<String>::new());
    let writers = lock_order_warnings(&base, &[("src/app/Ordered.java", &nested("writeLock"))]);
    assert!(writers.len() == 1 && writers[0].starts_with("Ordered.java:28 RL007 lock-order inversion: `Ordered.both()` takes `x.rw.writeLock()` then `y.rw.writeLock()`"), "{writers:#?}");
    // `tryLock()` gives up instead of waiting; a lock held around both serializes them.
    let guarded = BANK_BASE.replace("            from.deposit(-amount);\n        }\n        to.deposit(amount);", "            from.deposit(-amount);\n        }\n        synchronized (Bank.class) {\n            synchronized (to) {\n                synchronized (from) {\n                    to.deposit(amount);\n                }\n            }\n        }");
    let trying = BANK_BASE.replace("        to.lock.lock();\n        try {\n            to.add(amount);\n        } finally {\n            to.lock.unlock();\n        }\n", "        from.lock.lock();\n        try {\n            if (to.lock.tryLock()) {\n                to.add(amount);\n                to.lock.unlock();\n            }\n        } finally {\n            from.lock.unlock();\n        }\n");
    // Both orders chosen by a stable key: the usual fix.
    let by_id = BANK_BASE.replace("        to.deposit(amount);\n", "        if (System.identityHashCode(from) < System.identityHashCode(to)) {\n            synchronized (from) {\n                synchronized (to) {\n                    to.add(amount);\n                }\n            }\n        } else {\n            synchronized (to) {\n                synchronized (from) {\n                    to.add(amount);\n                }\n            }\n        }\n");
    assert_ne!(by_id, BANK_BASE);
    assert_eq!(lock_order_warnings(&base, &[("src/bank/Bank.java", &by_id)]), Vec::<String>::new());
    assert_eq!(lock_order_warnings(&base, &[("src/bank/Bank.java", &guarded)]), Vec::<String>::new());
    assert_eq!(lock_order_warnings(&base, &[("src/bank/Bank.java", &trying)]), Vec::<String>::new());
    // A cycle the base already had, and a change to other lines.
    let cyclic =
        INDEX_BASE.replace("        keys.add(key);\n", "        keys.add(key);\n        cache.put(key, value);\n");
    let old = [("src/app/Cache.java", CACHE_LOCKED), ("src/app/Index.java", cyclic.as_str())];
    let unrelated = cyclic.replace("        keys.clear();\n", "        keys.clear();\n        keys.add(\"\");\n");
    let cache_edit = CACHE_LOCKED.replace(
        "            entries.clear();\n",
        "            entries.clear();\n            entries.put(\"\", \"\");\n",
    );
    assert_eq!(
        lock_order_warnings(&old, &[("src/app/Index.java", &unrelated), ("src/app/Cache.java", &cache_edit)]),
        Vec::<String>::new()
    );
}

#[test]
fn benign_edits_under_nested_locks_are_no_inversion() {
    let logged = r#"package app;

public class Ledger {
    private final Object lock1 = new Object();
    private final Object lock2 = new Object();
    private long total;

    public void record(long amount) {
        synchronized (lock1) {
            long before = total;
            System.out.println("recording " + amount);
            synchronized (lock2) {
                total = before + amount;
            }
        }
    }

    public long total() {
        synchronized (lock1) {
            synchronized (lock2) {
                return total;
            }
        }
    }
}
"#;
    let renamed = logged
        .replace("long before = total;", "long previous = total;")
        .replace("total = before + amount;", "total = previous + amount;");
    let moved = logged.replace("            System.out.println(\"recording \" + amount);\n", "").replace(
        "    public void record(long amount) {\n",
        "    public void record(long amount) {\n        System.out.println(\"recording \" + amount);\n",
    );
    assert_eq!(
        lock_order_warnings(&[("src/app/Ledger.java", logged)], &[("src/app/Ledger.java", &renamed)]),
        Vec::<String>::new()
    );
    assert_eq!(
        lock_order_warnings(&[("src/app/Ledger.java", logged)], &[("src/app/Ledger.java", &moved)]),
        Vec::<String>::new()
    );
    // Swapping the order in `total()` alone is one, against `record()` in the same file.
    let swapped = logged.replace(
        "        synchronized (lock1) {\n            synchronized (lock2) {\n                return total;",
        "        synchronized (lock2) {\n            synchronized (lock1) {\n                return total;",
    );
    let w = lock_order_warnings(&[("src/app/Ledger.java", logged)], &[("src/app/Ledger.java", &swapped)]);
    assert_eq!(w, vec!["Ledger.java:20 RL007 lock-order inversion: `Ledger.total()` takes `lock2` then `lock1` (line 20), while `Ledger.record()` takes them the other way round (line 12): two threads can deadlock"]);
}

// RL008, lost wake-up. Fixtures: a bounded buffer whose producers and consumers wait on
// one monitor, a mailbox with consumers only, a start gate, a job queue, and a queue on a
// ReentrantLock with a condition per predicate.

const BUFFER: &str = r#"package app;

import java.util.ArrayDeque;

public class Buffer {
    private final ArrayDeque<String> items = new ArrayDeque<>();
    private final int capacity;
    private int puts;

    public Buffer(int capacity) {
        this.capacity = capacity;
    }

    public synchronized void put(String s) throws InterruptedException {
        while (items.size() == capacity) {
            wait();
        }
        items.addLast(s);
        puts++;
        notifyAll();
    }

    public synchronized String take() throws InterruptedException {
        while (items.isEmpty()) {
            wait();
        }
        String s = items.removeFirst();
        notifyAll();
        return s;
    }
}
"#;

/// RL008 lines of a change to one file over a base of several.
fn wakeup_warnings(base: &[(&str, &str)], change: &[(&str, &str)]) -> Vec<String> {
    let repo = repo_with(base, change);
    let (host, impact) = analyze(repo.path());
    warnings(&host, &impact).into_iter().filter(|w| w.contains("RL008")).collect()
}

/// The related locations of the RL008 warning at `line`.
fn wakeup_related(base: &[(&str, &str)], change: &[(&str, &str)], line: u32) -> Vec<String> {
    let repo = repo_with(base, change);
    let (host, impact) = analyze(repo.path());
    let d = impact.diagnostics.iter().find(|d| d.code == "RL008" && d.span.line == line).expect("RL008 at the line");
    d.related
        .iter()
        .map(|r| format!("{}:{} {}", host.path_of(r.file).rsplit('/').next().unwrap(), r.span.line, r.message))
        .collect()
}

#[test]
fn notify_on_a_monitor_with_producers_and_consumers_waiting_is_a_lost_wakeup() {
    let change = BUFFER.replacen("        puts++;\n        notifyAll();", "        puts++;\n        notify();", 1);
    let base = [("src/app/Buffer.java", BUFFER)];
    let changed = [("src/app/Buffer.java", change.as_str())];
    expect_test::expect!["Buffer.java:20 RL008 `notify()` on `this` wakes one waiter, but `Buffer.put()` (line 16) waits while `items.size() == capacity` and `Buffer.take()` (line 25) waits while `items.isEmpty()`: the one woken may be the wrong kind and the signal is lost (use `notifyAll()`)"].assert_eq(&wakeup_warnings(&base, &changed).join("\n"));
    expect_test::expect![[r#"
        Buffer.java:16 `Buffer.put()` waits here while `items.size() == capacity`
        Buffer.java:25 `Buffer.take()` waits here while `items.isEmpty()`"#]]
    .assert_eq(&wakeup_related(&base, &changed, 20).join("\n"));

    // Suppressed on the method, as every warning.
    let quiet = change.replace(
        "    public synchronized void put(",
        "    @SuppressWarnings(\"racelens:RL008\")\n    public synchronized void put(",
    );
    assert_eq!(wakeup_warnings(&base, &[("src/app/Buffer.java", &quiet)]), Vec::<String>::new());
}

#[test]
fn notify_edits_that_lose_no_wakeup_are_quiet() {
    let base = [("src/app/Buffer.java", BUFFER)];
    // notifyAll() stays notifyAll(); only the line next to it changed.
    let counted = BUFFER.replace("        puts++;", "        puts += 1;");
    assert_eq!(wakeup_warnings(&base, &[("src/app/Buffer.java", &counted)]), Vec::<String>::new());
    // An old notify(): the change touches unrelated lines.
    let old = BUFFER.replacen("        puts++;\n        notifyAll();", "        puts++;\n        notify();", 1);
    let edited = old.replace("        String s = items.removeFirst();", "        String s = items.pollFirst();");
    assert_eq!(
        wakeup_warnings(&[("src/app/Buffer.java", &old)], &[("src/app/Buffer.java", &edited)]),
        Vec::<String>::new()
    );
    // One kind of waiter, which consumes what it waited for: one wake-up per item is right.
    let mailbox = r#"package app;

import java.util.ArrayDeque;

public class Mailbox {
    private final ArrayDeque<String> items = new ArrayDeque<>();

    public synchronized void send(String s) {
        items.addLast(s);
        notifyAll();
    }

    public synchronized String receive() throws InterruptedException {
        while (items.isEmpty()) {
            wait();
        }
        return items.removeFirst();
    }

    public synchronized String receive(long millis) throws InterruptedException {
        while (items.isEmpty()) {
            wait(millis);
        }
        return items.removeFirst();
    }
}
"#;
    let one = mailbox.replace("        notifyAll();", "        notify();");
    assert_eq!(
        wakeup_warnings(&[("src/app/Mailbox.java", mailbox)], &[("src/app/Mailbox.java", &one)]),
        Vec::<String>::new()
    );
}

const GATE: &str = r#"package app;

public class StartGate {
    private boolean open;

    public synchronized void open() {
        open = true;
        notifyAll();
    }

    public synchronized void await() throws InterruptedException {
        while (!open) {
            wait();
        }
    }
}
"#;

#[test]
fn notify_on_a_gate_that_every_waiter_passes_is_a_lost_wakeup() {
    let change = GATE.replace("        notifyAll();", "        notify();");
    let base = [("src/app/StartGate.java", GATE)];
    let changed = [("src/app/StartGate.java", change.as_str())];
    expect_test::expect!["StartGate.java:8 RL008 `notify()` on `this` wakes one waiter, but `StartGate.open()` changes `open`, which lets every waiter through (`StartGate.await()` (line 13) waits while `!open`), and none consumes it or wakes the next: the others are never woken (use `notifyAll()`)"].assert_eq(&wakeup_warnings(&base, &changed).join("\n"));
    expect_test::expect!["StartGate.java:13 `StartGate.await()` waits here while `!open`"]
        .assert_eq(&wakeup_related(&base, &changed, 8).join("\n"));
    // A waiter that wakes the next one itself passes the signal on.
    let chained =
        GATE.replace("            wait();\n        }\n", "            wait();\n        }\n        notify();\n");
    let chained_change = chained.replacen("        notifyAll();", "        notify();", 1);
    assert_eq!(
        wakeup_warnings(&[("src/app/StartGate.java", &chained)], &[("src/app/StartGate.java", &chained_change)]),
        Vec::<String>::new()
    );
}

const PERMITS: &str = r#"package app;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class Permits {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition free = lock.newCondition();
    private final int max;
    private int used;
    private boolean closed;

    public Permits(int max) {
        this.max = max;
    }

    public boolean acquire() throws InterruptedException {
        lock.lock();
        try {
            while (!closed && used >= max) {
                free.await();
            }
            if (closed) {
                return false;
            }
            used++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    public void release() {
        lock.lock();
        try {
            used--;
            free.signal();
        } finally {
            lock.unlock();
        }
    }

    public void close() {
        lock.lock();
        try {
            closed = true;
            free.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
"#;

#[test]
fn a_single_wakeup_after_a_change_no_waiter_consumes_is_lost_and_one_after_what_each_consumes_is_not() {
    let base = [("src/app/Permits.java", PERMITS)];
    // `close()` sets `closed`, which no waiter takes back: every waiter can go on.
    let close_one = PERMITS.replace("            free.signalAll();", "            free.signal();");
    expect_test::expect!["Permits.java:47 RL008 `signal()` on `free` wakes one waiter, but `Permits.close()` changes `closed`, which lets every waiter through (`Permits.acquire()` (line 21) waits while `!closed && used >= max`), and none consumes it or wakes the next: the others are never woken (use `signalAll()`)"]
        .assert_eq(&wakeup_warnings(&base, &[("src/app/Permits.java", close_one.as_str())]).join("\n"));
    // `release()` frees one permit, which the waiter it wakes takes (`used++`): quiet,
    // also when the change introduces it.
    let all_in_release = PERMITS.replace(
        "            used--;\n            free.signal();",
        "            used--;\n            free.signalAll();",
    );
    assert_eq!(wakeup_warnings(&[("src/app/Permits.java", &all_in_release)], &base), Vec::<String>::new());
}

const JOBS: &str = r#"package app;

import java.util.ArrayDeque;

public class Jobs {
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    private boolean closed;

    public synchronized void submit(Runnable job) {
        pending.addLast(job);
        notifyAll();
    }

    public synchronized Runnable take() throws InterruptedException {
        while (pending.isEmpty()) {
            if (closed) {
                return null;
            }
            wait();
        }
        return pending.removeFirst();
    }

    public synchronized void close() {
        closed = true;
        notifyAll();
    }
}
"#;

#[test]
fn a_wait_loop_turned_into_an_if_is_a_lost_wakeup() {
    let change = JOBS.replace(
        "        while (pending.isEmpty()) {\n            if (closed) {\n                return null;\n            }\n            wait();\n        }",
        "        if (closed && pending.isEmpty()) {\n            return null;\n        }\n        if (pending.isEmpty()) {\n            wait();\n        }",
    );
    let base = [("src/app/Jobs.java", JOBS)];
    let changed = [("src/app/Jobs.java", change.as_str())];
    expect_test::expect!["Jobs.java:19 RL008 `wait()` under `if`: a spurious wake-up, or a waiter another thread overtook, proceeds though `pending.isEmpty()` may hold again (use `while`); the base waited in `while (pending.isEmpty())`"].assert_eq(&wakeup_warnings(&base, &changed).join("\n"));
    expect_test::expect![[r#"
        Jobs.java:11 `notifyAll()` in `Jobs.submit()` wakes waiters here
        Jobs.java:26 `notifyAll()` in `Jobs.close()` wakes waiters here"#]]
    .assert_eq(&wakeup_related(&base, &changed, 19).join("\n"));
    // A new wait under `if` is the same mistake.
    let added = JOBS.replace("    public synchronized void close() {", "    public synchronized void drain() throws InterruptedException {\n        if (!pending.isEmpty()) {\n            wait();\n        }\n    }\n\n    public synchronized void close() {");
    expect_test::expect!["Jobs.java:26 RL008 `wait()` under `if`: a spurious wake-up, or a waiter another thread overtook, proceeds though `!pending.isEmpty()` may hold again (use `while`)"].assert_eq(&wakeup_warnings(&base, &[("src/app/Jobs.java", &added)]).join("\n"));
    // Still a loop, with a changed condition or body: fine.
    let looped = JOBS
        .replace("        while (pending.isEmpty()) {", "        while (pending.isEmpty() && !closed) {")
        .replace("            wait();", "            wait(1000);");
    assert_eq!(wakeup_warnings(&base, &[("src/app/Jobs.java", &looped)]), Vec::<String>::new());
}

const CONDITION_QUEUE: &str = r#"package app;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class BoundedQueue {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private final Object[] items = new Object[16];
    private int head, count;

    public void put(Object x) throws InterruptedException {
        lock.lock();
        try {
            while (count == items.length) {
                notFull.await();
            }
            items[(head + count) % items.length] = x;
            count++;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    public Object take() throws InterruptedException {
        lock.lock();
        try {
            while (count == 0) {
                notEmpty.await();
            }
            Object x = items[head];
            items[head] = null;
            head = (head + 1) % items.length;
            count--;
            notFull.signal();
            return x;
        } finally {
            lock.unlock();
        }
    }
}
"#;

#[test]
fn one_condition_for_two_predicates_with_signal_is_a_lost_wakeup() {
    // The change waits for both predicates on `notEmpty` and signals it alone.
    let change = CONDITION_QUEUE
        .replace("    private final Condition notFull = lock.newCondition();\n", "")
        .replace("notFull.", "notEmpty.");
    let base = [("src/app/BoundedQueue.java", CONDITION_QUEUE)];
    let changed = [("src/app/BoundedQueue.java", change.as_str())];
    expect_test::expect![[r#"
        BoundedQueue.java:16 RL008 a second kind of waiter on `notEmpty`: `BoundedQueue.put()` (line 16) waits while `count == items.length` and `BoundedQueue.take()` (line 30) waits while `count == 0`, but `signal()` in `BoundedQueue.put()` (line 20) wakes only one of them: the one woken may be the wrong kind and the signal is lost (use `signalAll()`, or one condition per predicate)
        BoundedQueue.java:36 RL008 `signal()` on `notEmpty` wakes one waiter, but `BoundedQueue.put()` (line 16) waits while `count == items.length` and `BoundedQueue.take()` (line 30) waits while `count == 0`: the one woken may be the wrong kind and the signal is lost (use `signalAll()`)"#]].assert_eq(&wakeup_warnings(&base, &changed).join("\n"));
    expect_test::expect![[r#"
        BoundedQueue.java:20 `signal()` in `BoundedQueue.put()` wakes one waiter here
        BoundedQueue.java:36 `signal()` in `BoundedQueue.take()` wakes one waiter here
        BoundedQueue.java:30 `BoundedQueue.take()` waits here while `count == 0`"#]]
    .assert_eq(&wakeup_related(&base, &changed, 16).join("\n"));

    // signalAll() to signal() on a condition that two predicates share.
    let shared = CONDITION_QUEUE
        .replace("    private final Condition notFull = lock.newCondition();\n", "")
        .replace("notFull.", "notEmpty.")
        .replace(".signal()", ".signalAll()");
    let one = shared.replacen("notEmpty.signalAll();", "notEmpty.signal();", 1);
    expect_test::expect!["BoundedQueue.java:20 RL008 `signal()` on `notEmpty` wakes one waiter, but `BoundedQueue.put()` (line 16) waits while `count == items.length` and `BoundedQueue.take()` (line 30) waits while `count == 0`: the one woken may be the wrong kind and the signal is lost (use `signalAll()`)"].assert_eq(&wakeup_warnings(&[("src/app/BoundedQueue.java", &shared)], &[("src/app/BoundedQueue.java", &one)]).join("\n"));

    // One predicate per condition: signal() is right, as is an unrelated edit.
    let all = CONDITION_QUEUE.replace(".signal()", ".signalAll()");
    let single = all.replacen("notEmpty.signalAll();", "notEmpty.signal();", 1);
    assert_eq!(
        wakeup_warnings(&[("src/app/BoundedQueue.java", &all)], &[("src/app/BoundedQueue.java", &single)]),
        Vec::<String>::new()
    );
    let unrelated = CONDITION_QUEUE.replace("            count--;", "            count -= 1;");
    assert_eq!(wakeup_warnings(&base, &[("src/app/BoundedQueue.java", &unrelated)]), Vec::<String>::new());
}

const POSTINGS: &str = r#"package app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Postings {
    private final Object lock = new Object();
    private final Map<String, List<Integer>> byTerm = new HashMap<>();

    public void add(String term, int doc) {
        synchronized (lock) {
            byTerm.computeIfAbsent(term, t -> new ArrayList<>()).add(doc);
        }
    }

    public int count(String prefix) {
        int n = 0;
        synchronized (lock) {
            for (Map.Entry<String, List<Integer>> e : byTerm.entrySet()) {
                if (e.getKey().startsWith(prefix)) {
                    n += e.getValue().size();
                }
            }
        }
        return n;
    }

    public void start() {
        new Thread(() -> add("a", 1)).start();
        new Thread(() -> System.out.println(count("a"))).start();
    }
}
"#;

#[test]
fn narrowing_the_lock_around_a_walk_of_a_shared_map_is_a_race() {
    // The walk's own lines are unchanged; the lock now covers only the sum (SimRT rule 3
    // counts what a narrowed region covered before).
    let narrowed = POSTINGS.replace(
        "        synchronized (lock) {\n            for (Map.Entry<String, List<Integer>> e : byTerm.entrySet()) {\n                if (e.getKey().startsWith(prefix)) {\n                    n += e.getValue().size();\n                }\n            }\n        }",
        "        List<List<Integer>> matching = new ArrayList<>();\n        for (Map.Entry<String, List<Integer>> e : byTerm.entrySet()) {\n            if (e.getKey().startsWith(prefix)) {\n                matching.add(e.getValue());\n            }\n        }\n        synchronized (lock) {\n            for (List<Integer> docs : matching) {\n                n += docs.size();\n            }\n        }",
    );
    assert_ne!(narrowed, POSTINGS);
    let w = warnings_after("src/app/Postings.java", POSTINGS, &narrowed);
    assert!(w.iter().any(|w| w.starts_with("Postings.java:21 RL001") && w.contains("entrySet()")), "{w:#?}");
}

#[test]
fn a_get_dereferenced_after_a_separate_contains_key_is_a_check_then_act() {
    let base = r#"package app;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class Buckets {
    static final class Bucket {
        private int tokens = 10;

        synchronized boolean tryCharge() {
            if (tokens > 0) {
                tokens--;
                return true;
            }
            return false;
        }
    }

    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    public void register(String client) {
        buckets.putIfAbsent(client, new Bucket());
    }

    public void unregister(String client) {
        buckets.remove(client);
    }

    public boolean allow(String client) {
        Bucket b = buckets.get(client);
        return b != null && b.tryCharge();
    }

    public void start() {
        new Thread(() -> register("a")).start();
        new Thread(() -> unregister("a")).start();
        new Thread(() -> System.out.println(allow("a"))).start();
    }
}
"#;
    let checked_apart = base.replace(
        "        Bucket b = buckets.get(client);\n        return b != null && b.tryCharge();",
        "        return buckets.containsKey(client) && buckets.get(client).tryCharge();",
    );
    let w = warnings_after("src/app/Buckets.java", base, &checked_apart);
    assert!(w.iter().any(|w| w.starts_with("Buckets.java:30 RL004") && w.contains("may return null")), "{w:#?}");

    // Returned to the caller without a dereference, the caller sees the null.
    let returned = base.replace("    public boolean allow(String client) {", "    public Bucket find(String client) {\n        return buckets.containsKey(client) ? buckets.get(client) : null;\n    }\n\n    public boolean allow(String client) {");
    let w = warnings_after("src/app/Buckets.java", base, &returned);
    assert!(w.is_empty(), "{w:#?}");
}

const TIMERS: &str = r#"package app;

import java.util.PriorityQueue;

public class Timers {
    private final PriorityQueue<Long> due = new PriorityQueue<>();

    public void schedule(long at) {
        synchronized (this) {
            due.add(at);
            notifyAll();
        }
    }

    public synchronized long next() throws InterruptedException {
        while (true) {
            Long head = due.peek();
            long now = System.currentTimeMillis();
            if (head == null) {
                wait();
            } else if (head > now) {
                wait(head - now);
            } else {
                return due.poll();
            }
        }
    }
}
"#;

const RING: &str = r#"package app;

public class Ring {
    private final Object[] items;
    private int count, putAt, takeAt;

    public Ring(int capacity) {
        items = new Object[capacity];
    }

    public synchronized void put(Object x) throws InterruptedException {
        while (count == items.length) {
            wait();
        }
        items[putAt] = x;
        putAt = (putAt + 1) % items.length;
        count++;
        notifyAll();
    }

    public synchronized Object take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        Object x = items[takeAt];
        items[takeAt] = null;
        takeAt = (takeAt + 1) % items.length;
        count--;
        notifyAll();
        return x;
    }
}
"#;

#[test]
fn a_wake_up_made_conditional_misses_waiters_the_test_does_not_describe() {
    // Waking only when the queue fills up: a thread waiting for a later head is not told
    // of an earlier one.
    let first_only = TIMERS.replace(
        "            notifyAll();\n",
        "            if (due.size() == 1) {\n                notifyAll();\n            }\n",
    );
    expect_test::expect!["Timers.java:12 RL008 `notifyAll()` in `Timers.schedule()` now wakes the waiters only when `due.size() == 1`, but `Timers.next()` (line 24) waits while `head > now`, which also depends on the clock: a change here that leaves `due.size() == 1` false can end its wait, and nobody tells it (a lost wake-up: it sleeps until its timeout, or for ever)"]
        .assert_eq(&wakeup_warnings(&[("src/app/Timers.java", TIMERS)], &[("src/app/Timers.java", &first_only)]).join("\n"));
    // Java Concurrency in Practice's conditional notification: consumers wait for exactly
    // the transition the test detects, producers for nothing a put changes.
    let was_empty = RING
        .replace("        items[putAt] = x;\n", "        boolean wasEmpty = count == 0;\n        items[putAt] = x;\n")
        .replace(
            "        count++;\n        notifyAll();\n",
            "        count++;\n        if (wasEmpty) {\n            notifyAll();\n        }\n",
        );
    assert_eq!(
        wakeup_warnings(&[("src/app/Ring.java", RING)], &[("src/app/Ring.java", &was_empty)]),
        Vec::<String>::new()
    );
    // A count of the sleeping threads, kept by the waiters: they say when they need waking.
    let counted = TIMERS
        .replace(
            "    private final PriorityQueue<Long> due = new PriorityQueue<>();\n",
            "    private final PriorityQueue<Long> due = new PriorityQueue<>();\n    private int sleeping;\n",
        )
        .replace("        while (true) {\n", "        sleeping++;\n        while (true) {\n")
        .replace(
            "            notifyAll();\n",
            "            if (sleeping > 0) {\n                notifyAll();\n            }\n",
        );
    let base_counted = TIMERS
        .replace(
            "    private final PriorityQueue<Long> due = new PriorityQueue<>();\n",
            "    private final PriorityQueue<Long> due = new PriorityQueue<>();\n    private int sleeping;\n",
        )
        .replace("        while (true) {\n", "        sleeping++;\n        while (true) {\n");
    assert_eq!(
        wakeup_warnings(&[("src/app/Timers.java", &base_counted)], &[("src/app/Timers.java", &counted)]),
        Vec::<String>::new()
    );
}

const LOADER: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

public class Loader {
    private final Map<String, String> done = new HashMap<>();
    private final ConcurrentHashMap<String, CompletableFuture<String>> running = new ConcurrentHashMap<>();

    public String load(String key, Function<String, String> fn) {
        CompletableFuture<String> mine = new CompletableFuture<>();
        CompletableFuture<String> other = running.putIfAbsent(key, mine);
        if (other != null) {
            return other.join();
        }
        String value = fn.apply(key);
        remember(key, value);
        mine.complete(value);
        running.remove(key, mine);
        return value;
    }

    private synchronized void remember(String key, String value) {
        done.put(key, value);
    }
}
"#;

#[test]
fn joining_a_future_holding_a_lock_its_completer_takes_first_is_a_deadlock() {
    // The follower joins the loader's future holding the loader's monitor, which the loader
    // takes (in `remember()`) before it completes the future.
    let locked = LOADER.replace(
        "            return other.join();\n",
        "            synchronized (this) {\n                return other.join();\n            }\n",
    );
    expect_test::expect!["Loader.java:18 RL007 `Loader.load()` waits in `other.join()` holding `Loader.this`, but another call of `Loader.load()` takes `Loader.this` (in `Loader.remember()`, line 22) before `mine.complete()` ends the wait: the waker blocks on the lock and the waiter on the wake-up (a deadlock, or a stall until the wait times out)"]
        .assert_eq(&lock_order_warnings(&[("src/app/Loader.java", LOADER)], &[("src/app/Loader.java", &locked)]).join("\n"));
    // Remembering after the completion: the completer needs no lock first.
    let after = LOADER.replace(
        "        remember(key, value);\n        mine.complete(value);\n",
        "        mine.complete(value);\n        remember(key, value);\n",
    );
    let after_locked = after.replace(
        "            return other.join();\n",
        "            synchronized (this) {\n                return other.join();\n            }\n",
    );
    assert_eq!(
        lock_order_warnings(&[("src/app/Loader.java", &after)], &[("src/app/Loader.java", &after_locked)]),
        Vec::<String>::new()
    );
}

const REAPER: &str = r#"package app;

public class Reaper {
    private volatile String lastReport;
    private long completed;

    void round() {
        String report = "swept at " + System.nanoTime();
        lastReport = report;
        synchronized (this) {
            completed++;
            notifyAll();
        }
    }

    public boolean awaitRound(long target) throws InterruptedException {
        synchronized (this) {
            while (completed < target) {
                wait();
            }
            return true;
        }
    }

    public String lastReport() {
        return lastReport;
    }
}
"#;

const ADMIN: &str = r#"package app;

public class Admin {
    private final Reaper reaper;

    Admin(Reaper reaper) {
        this.reaper = reaper;
    }

    public String sweepNow(long target) throws InterruptedException {
        return reaper.awaitRound(target) ? reaper.lastReport() : null;
    }
}
"#;

#[test]
fn a_write_moved_past_a_wake_up_is_read_old_by_the_woken_callers() {
    let late = REAPER.replace("        lastReport = report;\n        synchronized (this) {\n            completed++;\n            notifyAll();\n        }\n", "        synchronized (this) {\n            completed++;\n            notifyAll();\n        }\n        lastReport = report;\n");
    let base = [("src/app/Reaper.java", REAPER), ("src/app/Admin.java", ADMIN)];
    let repo = repo_with(&base, &[("src/app/Reaper.java", &late)]);
    let (host, impact) = analyze(repo.path());
    expect_test::expect!["Reaper.java:13 RL009 `lastReport` is now written (line 13) after `notifyAll()` (line 11), which wakes the waiters: a thread woken from `wait()` in `Reaper.awaitRound()` can then read the old `lastReport` in `Admin.sweepNow()`"]
        .assert_eq(&warnings(&host, &impact).into_iter().filter(|w| w.contains("RL009")).collect::<Vec<_>>().join("\n"));
    // No caller reads the field after the wait returns: nothing to read old.
    let repo = repo_with(&[("src/app/Reaper.java", REAPER)], &[("src/app/Reaper.java", &late)]);
    let (host, impact) = analyze(repo.path());
    assert_eq!(
        warnings(&host, &impact).into_iter().filter(|w| w.contains("RL009")).collect::<Vec<_>>(),
        Vec::<String>::new()
    );
}

const POLLER: &str = r#"package app;

public class Poller {
    private final Object wake = new Object();
    private boolean stopping;
    private Thread thread;

    public void start() {
        Thread t = new Thread(this::loop, "poller");
        thread = t;
        t.start();
    }

    private void loop() {
        try {
            while (awaitTurn()) {
                poll();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean awaitTurn() throws InterruptedException {
        synchronized (wake) {
            if (!stopping) {
                wake.wait(1000);
            }
            return !stopping;
        }
    }

    private void poll() {
    }

    public void stop() throws InterruptedException {
        synchronized (wake) {
            stopping = true;
            wake.notifyAll();
        }
        thread.join(1000);
    }
}
"#;

#[test]
fn joining_a_thread_holding_a_lock_its_code_takes_is_a_deadlock() {
    // Joining inside the block: the poller needs `wake` back to leave its wait and end.
    let inside = POLLER.replace(
        "            wake.notifyAll();\n        }\n        thread.join(1000);\n",
        "            wake.notifyAll();\n            thread.join(1000);\n        }\n",
    );
    expect_test::expect!["Poller.java:40 RL007 `Poller.stop()` waits in `thread.join()` holding `Poller.wake`, but the thread it joins runs `Poller.loop()`, which takes `Poller.wake` (in `Poller.awaitTurn()`, line 25): that thread cannot end while the joiner holds the lock (a deadlock, or a stall until the join times out)"].assert_eq(&lock_order_warnings(&[("src/app/Poller.java", POLLER)], &[("src/app/Poller.java", &inside)]).join("\n"));
    // The thread's code takes another lock: joining holding `wake` blocks nothing.
    let other = POLLER
        .replace(
            "        synchronized (wake) {\n            if (!stopping)",
            "        synchronized (this) {\n            if (!stopping)",
        )
        .replace("                wake.wait(1000);\n", "                wait(1000);\n");
    let other_inside = other.replace(
        "            wake.notifyAll();\n        }\n        thread.join(1000);\n",
        "            wake.notifyAll();\n            thread.join(1000);\n        }\n",
    );
    assert_eq!(
        lock_order_warnings(&[("src/app/Poller.java", &other)], &[("src/app/Poller.java", &other_inside)]),
        Vec::<String>::new()
    );
}
