//! Lock semantics as the JDK defines them (issue 21, item 0), each on a real git
//! repository: a `StampedLock`'s write stamp excludes its read stamps, a lambda run inline
//! holds the locks of the region it runs in, a `@GuardedBy` method runs under its lock,
//! double-checked locking on a volatile field is no lock moved away,
//! `TimeUnit.timedWait` is a `wait`, and `get` on an access-ordered `LinkedHashMap` writes
//! it. Each has a near miss.

use racelens_test_support as support;

use support::*;

const POSITION: &str = r#"package app;

import java.util.concurrent.locks.StampedLock;

public class Position {
    private final StampedLock stamps = new StampedLock();
    private long quantity;

    public void fill(long qty) {
        long stamp = stamps.writeLock();
        try {
            quantity += qty;
        } finally {
            stamps.unlockWrite(stamp);
        }
    }

    public long value(long price) {
        long stamp = stamps.readLock();
        try {
            return quantity * price;
        } finally {
            stamps.unlockRead(stamp);
        }
    }

    public void start() {
        new Thread(() -> fill(1)).start();
        new Thread(() -> System.out.println(value(2))).start();
    }
}
"#;

#[test]
fn a_stamped_write_excludes_read_stamps_and_an_unstamped_read_races() {
    let touched = POSITION.replace("quantity += qty;", "quantity = quantity + qty;");
    let repo = repo_with(&[("src/app/Position.java", POSITION)], &[("src/app/Position.java", &touched)]);
    let (host, impact) = analyze(repo.path());
    let pairs = pairs(&host, &impact);
    assert!(
        pairs.iter().any(|p| p.contains("Position.quantity protected") && p.contains("[stamps.readLock()]")),
        "{pairs:#?}"
    );
    assert!(warnings(&host, &impact).is_empty(), "{:#?}", warnings(&host, &impact));

    let unstamped = POSITION.replace(
        "public long value(long price) {",
        "public long peek() {\n        return quantity;\n    }\n\n    public long value(long price) {",
    );
    let w = warnings_after("src/app/Position.java", POSITION, &unstamped);
    assert!(w.iter().any(|w| w.starts_with("Position.java:19 RL001")), "{w:#?}");
}

#[test]
fn an_optimistic_read_counts_only_when_it_is_validated() {
    let optimistic = POSITION.replace(
        "        long stamp = stamps.readLock();\n        try {\n            return quantity * price;\n        } finally {\n            stamps.unlockRead(stamp);\n        }",
        "        long stamp = stamps.tryOptimisticRead();\n        long q = quantity;\n        if (!stamps.validate(stamp)) {\n            return -1;\n        }\n        return q * price;",
    );
    assert_ne!(optimistic, POSITION);
    let w = warnings_after("src/app/Position.java", POSITION, &optimistic);
    assert!(w.is_empty(), "{w:#?}");

    let unvalidated = optimistic.replace("if (!stamps.validate(stamp)) {\n            return -1;\n        }\n", "");
    let w = warnings_after("src/app/Position.java", POSITION, &unvalidated);
    assert!(
        w.iter().any(|w| w.starts_with("Position.java:20 RL001") || w.starts_with("Position.java:20 RL002")),
        "{w:#?}"
    );
}

const BOOK: &str = r#"package app;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

public class Book {
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Long> sizes = new ArrayList<>();
    private long total;

    public void add(long size) {
        lock.lock();
        try {
            sizes.add(size);
            total += size;
        } finally {
            lock.unlock();
        }
    }

    public long check() {
        lock.lock();
        try {
            long[] sum = {0};
            sizes.forEach(s -> sum[0] += s);
            return sum[0] - total;
        } finally {
            lock.unlock();
        }
    }

    public void start() {
        new Thread(() -> add(1)).start();
        new Thread(() -> System.out.println(check())).start();
    }
}
"#;

#[test]
fn a_lambda_run_inline_holds_the_lock_of_its_region_and_a_deferred_one_does_not() {
    let inline = BOOK.replace(
        "sizes.forEach(s -> sum[0] += s);\n            return sum[0] - total;",
        "sizes.forEach(s -> sum[0] += s - total);\n            return sum[0];",
    );
    let w = warnings_after("src/app/Book.java", BOOK, &inline);
    assert!(w.is_empty(), "{w:#?}");

    // The same read in a task handed to a thread runs later, without the lock.
    let deferred = BOOK.replace(
        "sizes.forEach(s -> sum[0] += s);\n            return sum[0] - total;",
        "new Thread(() -> System.out.println(total)).start();\n            return 0;",
    );
    let w = warnings_after("src/app/Book.java", BOOK, &deferred);
    assert!(w.iter().any(|w| w.starts_with("Book.java:26 RL001")), "{w:#?}");
}

#[test]
fn a_guarded_by_method_runs_under_its_lock() {
    let base = BOOK
        .replace("import java.util.concurrent.locks.ReentrantLock;", "import java.util.concurrent.locks.ReentrantLock;\nimport javax.annotation.concurrent.GuardedBy;")
        .replace("    private long total;", "    @GuardedBy(\"lock\")\n    private long total;")
        .replace("    public void start() {", "    @GuardedBy(\"lock\")\n    long totalLocked() {\n        return total;\n    }\n\n    public void start() {");
    let change = base.replace("total += size;", "total = total + size;");
    let w = warnings_after("src/app/Book.java", &base, &change);
    assert!(w.is_empty(), "{w:#?}");

    // Without the annotation the same method is an unlocked read.
    let bare = change.replace("    @GuardedBy(\"lock\")\n    long totalLocked()", "    long totalLocked()");
    let w = warnings_after("src/app/Book.java", &base, &bare);
    assert!(w.iter().any(|w| w.contains("RL005") && w.contains("totalLocked")), "{w:#?}");
}

const CONFIG: &str = r#"package app;

public class Config {
    private static FIELD_MODIFIERS Config instance;
    private final int depth;

    private Config(int depth) {
        this.depth = depth;
    }

    public static synchronized Config get() {
        if (instance == null) {
            instance = new Config(Integer.getInteger("depth", 10));
        }
        return instance;
    }

    public int depth() {
        return depth;
    }

    public static void start() {
        new Thread(() -> System.out.println(get().depth())).start();
        new Thread(() -> System.out.println(get().depth())).start();
    }
}
"#;

const DOUBLE_CHECKED: &str = r#"    public static Config get() {
        Config c = instance;
        if (c == null) {
            synchronized (Config.class) {
                c = instance;
                if (c == null) {
                    c = new Config(Integer.getInteger("depth", 10));
                    instance = c;
                }
            }
        }
        return c;
    }"#;

#[test]
fn double_checked_locking_on_a_volatile_field_is_no_read_moved_out_of_the_lock() {
    let sync_get = "    public static synchronized Config get() {\n        if (instance == null) {\n            instance = new Config(Integer.getInteger(\"depth\", 10));\n        }\n        return instance;\n    }";
    let base = CONFIG.replace("FIELD_MODIFIERS ", "volatile ");
    let w = warnings_after("src/app/Config.java", &base, &base.replace(sync_get, DOUBLE_CHECKED));
    assert!(w.is_empty(), "{w:#?}");

    // A check outside the lock that is not checked again under it is a check-then-act.
    let unchecked = DOUBLE_CHECKED.replace("                c = instance;\n                if (c == null) {\n                    c = new Config(Integer.getInteger(\"depth\", 10));\n                    instance = c;\n                }", "                c = new Config(Integer.getInteger(\"depth\", 10));\n                instance = c;");
    let w = warnings_after("src/app/Config.java", &base, &base.replace(sync_get, &unchecked));
    assert!(w.iter().any(|w| w.starts_with("Config.java:12 RL002")), "{w:#?}");
}

#[test]
fn a_timed_wait_through_time_unit_is_a_wait() {
    let base = r#"package app;

import java.util.concurrent.TimeUnit;

public class Gate {
    private final Object lock = new Object();
    private boolean open;

    public void pass() throws InterruptedException {
        synchronized (lock) {
            while (!open) {
                TimeUnit.MILLISECONDS.timedWait(lock, 100);
            }
        }
    }

    public void open() {
        synchronized (lock) {
            open = true;
            lock.notifyAll();
        }
    }

    public void start() {
        new Thread(() -> { try { pass(); } catch (InterruptedException e) { } }).start();
        new Thread(this::open).start();
    }
}
"#;
    let w = warnings_after("src/app/Gate.java", base, &base.replace("while (!open) {", "if (!open) {"));
    assert!(w.iter().any(|w| w.starts_with("Gate.java:12 RL008")), "{w:#?}");
}

const LRU: &str = r#"package app;

import java.util.LinkedHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class Lru {
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final LinkedHashMap<String, String> entries = new LinkedHashMap<>(16, 0.75f, true);

    public String get(String key) {
        rw.writeLock().lock();
        try {
            return entries.get(key);
        } finally {
            rw.writeLock().unlock();
        }
    }

    public void put(String key, String value) {
        rw.writeLock().lock();
        try {
            entries.put(key, value);
        } finally {
            rw.writeLock().unlock();
        }
    }
}
"#;

#[test]
fn get_on_an_access_ordered_map_writes_it_so_two_lookups_under_a_read_lock_race() {
    // `get` relinks the entry it finds in an access-ordered LinkedHashMap: a lookup moved
    // under the read lock races with another lookup; in insertion order it only reads.
    let read_locked = LRU
        .replacen(
            "rw.writeLock().lock();\n        try {\n            return",
            "rw.readLock().lock();\n        try {\n            return",
            1,
        )
        .replacen(
            "            return entries.get(key);\n        } finally {\n            rw.writeLock().unlock();",
            "            return entries.get(key);\n        } finally {\n            rw.readLock().unlock();",
            1,
        );
    let w = warnings_after("src/app/Lru.java", LRU, &read_locked);
    assert!(
        w.iter().any(|w| w.contains("Lru.java:13 RL001")
            && w.contains("`rw.readLock()` is a shared lock that does not exclude itself")),
        "{w:?}"
    );
    let insertion =
        |text: &str| text.replace("new LinkedHashMap<>(16, 0.75f, true)", "new LinkedHashMap<>(16, 0.75f, false)");
    let w = warnings_after("src/app/Lru.java", &insertion(LRU), &insertion(&read_locked));
    assert!(w.is_empty(), "an insertion-ordered map's get only reads: {w:?}");
}
