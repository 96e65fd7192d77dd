//! RL009, publication order, on real git repositories: a release the change moved before
//! a write that another thread reads after the matching acquire, and the near misses
//! that must stay quiet.

use racelens_test_support as support;

use std::path::Path;

use support::*;

/// The RL009 warnings of a change, each followed by its related locations (indented).
fn publication(base: &[(&str, &str)], change: &[(&str, &str)]) -> String {
    let repo = repo_with(base, change);
    rl009(repo.path())
}

fn rl009(dir: &Path) -> String {
    let (host, impact) = analyze(dir);
    let name = |f| host.path_of(f).rsplit('/').next().unwrap().to_string();
    let mut out = Vec::new();
    for d in impact.diagnostics.iter().filter(|d| d.code == "RL009") {
        out.push(format!("{}:{} {}", name(d.file), d.span.line, d.message));
        out.extend(d.related.iter().map(|r| format!("    {}:{} {}", name(r.file), r.span.line, r.message)));
    }
    out.join("\n")
}

/// `text` with the line `line` (without its indentation) moved to stand after the line
/// `after`.
fn move_line(text: &str, line: &str, after: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.iter().position(|l| l.trim() == line).expect("the line to move");
    let moved = lines[from];
    let mut rest: Vec<&str> = lines.iter().enumerate().filter(|&(i, _)| i != from).map(|(_, l)| *l).collect();
    let to = rest.iter().position(|l| l.trim() == after).expect("the line to move after");
    rest.insert(to + 1, moved);
    rest.join("\n") + "\n"
}

// ----- CountDownLatch ------------------------------------------------------------------------

const LOADER: &str = r#"package app;

import java.util.concurrent.CountDownLatch;

public class Loader {
    private final CountDownLatch ready = new CountDownLatch(1);
    private String result;
    private int loads;

    public void load(String value) {
        result = value;
        loads++;
        ready.countDown();
    }

    public String await() throws InterruptedException {
        ready.await();
        return result;
    }

    public String peek() {
        return result;
    }

    public synchronized int loads() {
        return loads;
    }
}
"#;

#[test]
fn count_down_moved_before_the_write_a_waiter_reads() {
    let change = move_line(LOADER, "ready.countDown();", "public void load(String value) {");
    let base = [("src/app/Loader.java", LOADER)];
    // `loads` is written after the release too, but no thread reads it after `await()`.
    expect_test::expect![[r#"
        Loader.java:11 `ready.countDown()` (line 11) now runs before `result` is written (line 12): a thread released by `ready.await()` in `Loader.await()` can read the old `result`
            Loader.java:12 `result` is written here, after `ready.countDown()`
            Loader.java:18 `Loader.await()` reads `result` here after `ready.await()`"#]]
    .assert_eq(&publication(&base, &[("src/app/Loader.java", &change)]));
}

#[test]
fn count_down_edits_that_keep_the_order_are_quiet() {
    let base = [("src/app/Loader.java", LOADER)];
    // The write still comes before the release.
    let renamed = LOADER.replace("        result = value;", "        result = value.trim();");
    assert_eq!(publication(&base, &[("src/app/Loader.java", &renamed)]), "");
    // Moved before `loads++` only: `loads` is read under a lock, never after `await()`.
    let before_loads = move_line(LOADER, "ready.countDown();", "result = value;");
    assert_eq!(publication(&base, &[("src/app/Loader.java", &before_loads)]), "");
    // Moved before `result`, but no thread reads `result` after `await()` (which reads
    // on itself after waiting, so it is no gate for `peek()`).
    let unread = LOADER
        .replace("    private int loads;\n", "    private int loads;\n    private final String tag = \"loader\";\n")
        .replace("        ready.await();\n        return result;", "        ready.await();\n        return tag;");
    let moved = move_line(&unread, "ready.countDown();", "public void load(String value) {");
    assert_eq!(publication(&[("src/app/Loader.java", &unread)], &[("src/app/Loader.java", &moved)]), "");
    // The base counted down first already: not the change's doing.
    let early = move_line(LOADER, "ready.countDown();", "public void load(String value) {");
    let edited = early.replace("        loads++;", "        loads += 1;");
    assert_eq!(publication(&[("src/app/Loader.java", &early)], &[("src/app/Loader.java", &edited)]), "");
    // On another path: the release returns before the write.
    let returns = LOADER.replace("        result = value;\n", "        if (value == null) {\n            ready.countDown();\n            return;\n        }\n        result = value;\n");
    assert_eq!(publication(&base, &[("src/app/Loader.java", &returns)]), "");
}

#[test]
fn count_down_before_a_write_read_behind_an_await_method() {
    // `awaitReady()` waits and returns: its callers read `aliases` in `resolve()` next.
    let base = r#"package app;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public class Dispatcher implements Runnable {
    private final CountDownLatch ready = new CountDownLatch(1);
    private Map<String, String> aliases;

    public void run() {
        Map<String, String> table = Map.of("a", "b");
        aliases = table;
        ready.countDown();
    }

    public boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        return ready.await(timeout, unit);
    }

    public String resolve(String name) {
        return aliases.getOrDefault(name, name);
    }
}
"#;
    let change = base.replace("        Map<String, String> table = Map.of(\"a\", \"b\");\n        aliases = table;\n        ready.countDown();", "        ready.countDown();\n        aliases = Map.of(\"a\", \"b\");");
    expect_test::expect![[r#"
        Dispatcher.java:12 `ready.countDown()` (line 12) now runs before `aliases` is written (line 13): a thread released by `ready.await()` in `Dispatcher.awaitReady()` can then read the old `aliases` in `Dispatcher.resolve()`
            Dispatcher.java:13 `aliases` is written here, after `ready.countDown()`
            Dispatcher.java:21 `Dispatcher.resolve()` reads `aliases` here after `ready.await()` in `Dispatcher.awaitReady()`"#]]
    .assert_eq(&publication(&[("src/app/Dispatcher.java", base)], &[("src/app/Dispatcher.java", &change)]));
}

// ----- volatile flag -------------------------------------------------------------------------

const SETTINGS: &str = r#"package app;

public class Settings {
    private volatile boolean ready;
    private String url;
    private int version;

    public void publish(String u) {
        url = u;
        version++;
        ready = true;
    }

    public String url() {
        if (ready) {
            return url;
        }
        return null;
    }

    public int version() {
        return version;
    }
}
"#;

#[test]
fn volatile_flag_set_before_the_write_a_reader_reads_after_it() {
    let change = move_line(SETTINGS, "ready = true;", "public void publish(String u) {");
    let base = [("src/app/Settings.java", SETTINGS)];
    expect_test::expect![[r#"
        Settings.java:9 `ready = true` (line 9) now runs before `url` is written (line 10): a thread that reads `ready` in `Settings.url()` can see the new `ready` and still read the old `url`
            Settings.java:10 `url` is written here, after `ready = true`
            Settings.java:16 `Settings.url()` reads `url` here after reading `ready`"#]]
    .assert_eq(&publication(&base, &[("src/app/Settings.java", &change)]));
}

#[test]
fn volatile_flag_near_misses_are_quiet() {
    let base = [("src/app/Settings.java", SETTINGS)];
    // `version` is written after the flag too, but read without looking at the flag.
    let version_only = move_line(SETTINGS, "ready = true;", "url = u;");
    assert_eq!(publication(&base, &[("src/app/Settings.java", &version_only)]), "");
    // The reader does not read the flag before the field.
    let unguarded = SETTINGS.replace(
        "        if (ready) {\n            return url;\n        }\n        return null;",
        "        return url;",
    );
    let moved = move_line(&unguarded, "ready = true;", "public void publish(String u) {");
    assert_eq!(publication(&[("src/app/Settings.java", &unguarded)], &[("src/app/Settings.java", &moved)]), "");
}

const ROUTER: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;

public class Router {
    private Map<String, Runnable> routes;
    private volatile boolean ready;

    public void start(Map<String, Runnable> table) {
        routes = new HashMap<>();
        routes.putAll(table);
        ready = true;
    }

    public boolean serve(String path) {
        if (!ready) {
            return false;
        }
        Runnable r = routes.get(path);
        if (r != null) {
            r.run();
        }
        return r != null;
    }
}
"#;

#[test]
fn a_map_field_filled_after_the_flag_is_read_half_filled() {
    // The field is declared as an interface and created in `start()`, not where it is
    // declared: what every assignment of its file creates makes it a `HashMap`.
    let change = move_line(ROUTER, "ready = true;", "routes = new HashMap<>();");
    let base = [("src/app/Router.java", ROUTER)];
    expect_test::expect![[r#"
        Router.java:12 `ready = true` (line 12) now runs before `routes` is modified by `putAll()` (line 13): a thread that reads `ready` in `Router.serve()` can see the new `ready` and still read the old `routes[]`
            Router.java:13 `routes.putAll()` modifies it here, after `ready = true`
            Router.java:20 `Router.serve()` reads `routes[]` here after reading `ready`"#]]
    .assert_eq(&publication(&base, &[("src/app/Router.java", &change)]));
    // Assigned a map it was given: what kind of map that is, is not known here.
    let given = ROUTER.replace(
        "routes = new HashMap<>();\n        routes.putAll(table);",
        "routes = table;\n        routes.remove(\"\");",
    );
    let moved = move_line(&given, "ready = true;", "routes = table;");
    assert_eq!(publication(&[("src/app/Router.java", &given)], &[("src/app/Router.java", &moved)]), "");
}

// ----- volatile reference, lazily built --------------------------------------------------------

const REGISTRY: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;

public class Registry {
    private volatile Map<String, Integer> codes;

    public Integer code(String name) {
        Map<String, Integer> c = codes;
        if (c == null) {
            synchronized (this) {
                c = codes;
                if (c == null) {
                    c = new HashMap<>();
                    c.put("alpha", 1);
                    c.put("beta", 2);
                    codes = c;
                }
            }
        }
        return c.get(name);
    }

    public synchronized void reset() {
        codes = null;
    }
}
"#;

const REGISTRY_FILLED_AFTER: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;

public class Registry {
    private volatile Map<String, Integer> codes;

    public Integer code(String name) {
        if (codes == null) {
            synchronized (this) {
                if (codes == null) {
                    codes = new HashMap<>();
                    codes.put("alpha", 1);
                    codes.put("beta", 2);
                }
            }
        }
        return codes.get(name);
    }

    public synchronized void reset() {
        codes = null;
    }
}
"#;

#[test]
fn double_checked_map_published_before_it_is_filled() {
    let base = [("src/app/Registry.java", REGISTRY)];
    expect_test::expect![[r#"
        Registry.java:13 `codes = new HashMap<>()` (line 13) now publishes the new `HashMap` before `codes.put()` fills it (line 14): a thread that reads `codes` without the lock in `Registry.code()` can see it empty or half-filled; the base filled a local first and assigned it after
            Registry.java:14 `codes.put()` fills it here, after it is published
            Registry.java:15 `codes.put()` fills it here, after it is published
            Registry.java:10 `Registry.code()` reads `codes` here without the lock
            Registry.java:19 `Registry.code()` reads `codes` here without the lock"#]]
    .assert_eq(&publication(&base, &[("src/app/Registry.java", REGISTRY_FILLED_AFTER)]));
}

#[test]
fn lazily_built_objects_read_only_under_the_lock_or_thread_safe_are_quiet() {
    let base = [("src/app/Registry.java", REGISTRY)];
    // Every read holds the lock: it sees the map filled.
    let locked = REGISTRY_FILLED_AFTER.replace("    public Integer code(", "    public synchronized Integer code(");
    let locked_base = REGISTRY.replace("    public Integer code(", "    public synchronized Integer code(");
    assert_eq!(publication(&[("src/app/Registry.java", &locked_base)], &[("src/app/Registry.java", &locked)]), "");
    // A concurrent map publishes each entry itself.
    let concurrent = REGISTRY_FILLED_AFTER.replace("new HashMap<>()", "new java.util.concurrent.ConcurrentHashMap<>()");
    assert_eq!(publication(&base, &[("src/app/Registry.java", &concurrent)]), "");
    // Filled in the constructor: nobody can read it yet.
    let constructed = r#"package app;

import java.util.HashMap;
import java.util.Map;

public class Registry {
    private volatile Map<String, Integer> codes;

    public Registry() {
        codes = new HashMap<>();
        codes.put("alpha", 1);
    }

    public Integer code(String name) {
        return codes.get(name);
    }
}
"#;
    assert_eq!(publication(&[], &[("src/app/Registry.java", constructed)]), "");
}

#[test]
fn the_airport_index_bench_change_is_a_publication_before_fill() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bench/capp/airport-index-publish");
    let repo = repo_from(&bench, true);
    expect_test::expect![[r#"
        AirportDirectory.java:24 `byCode = new HashMap<>()` (line 24) now publishes the new `HashMap` before `byCode.put()` fills it (line 26): a thread that reads `byCode` without the lock in `AirportDirectory.index()` can see it empty or half-filled; the base filled a local first and assigned it after
            AirportDirectory.java:26 `byCode.put()` fills it here, after it is published
            AirportDirectory.java:21 `AirportDirectory.index()` reads `byCode` here without the lock
            AirportDirectory.java:32 `AirportDirectory.index()` reads `byCode` here without the lock"#]]
    .assert_eq(&rl009(repo.path()));
    // The base itself is quiet.
    assert_eq!(rl009(repo_from(&bench, false).path()), "");
}

// ----- CompletableFuture.complete() ----------------------------------------------------------

const FETCH: &str = r#"package app;

import java.util.concurrent.CompletableFuture;

public class Fetch {
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private byte[] body;
    private long finishedAt;

    public void finish(byte[] b, long now) {
        body = b;
        finishedAt = now;
        done.complete(null);
    }

    public byte[] body() throws Exception {
        done.get();
        return body;
    }

    public long finishedAt() {
        return finishedAt;
    }
}
"#;

#[test]
fn complete_moved_before_the_write_a_getter_reads() {
    let change = move_line(FETCH, "done.complete(null);", "public void finish(byte[] b, long now) {");
    let base = [("src/app/Fetch.java", FETCH)];
    expect_test::expect![[r#"
        Fetch.java:11 `done.complete()` (line 11) now runs before `body` is written (line 12): a thread that returns from `done.get()` in `Fetch.body()` can read the old `body`
            Fetch.java:12 `body` is written here, after `done.complete()`
            Fetch.java:18 `Fetch.body()` reads `body` here after `done.get()`"#]]
    .assert_eq(&publication(&base, &[("src/app/Fetch.java", &change)]));
}

#[test]
fn complete_near_misses_are_quiet() {
    let base = [("src/app/Fetch.java", FETCH)];
    // Only `finishedAt` follows the release, and nobody reads it after `get()`.
    let late = move_line(FETCH, "done.complete(null);", "body = b;");
    assert_eq!(publication(&base, &[("src/app/Fetch.java", &late)]), "");
    // The reader reads before it waits, and nothing else reads after it.
    let early_read = FETCH
        .replace(
            "        done.get();\n        return body;",
            "        byte[] b = body;\n        done.get();\n        return b;",
        )
        .replace("    public long finishedAt() {\n        return finishedAt;\n    }\n", "");
    let moved = move_line(&early_read, "done.complete(null);", "public void finish(byte[] b, long now) {");
    assert_eq!(publication(&[("src/app/Fetch.java", &early_read)], &[("src/app/Fetch.java", &moved)]), "");
}

const TASK: &str = r#"package app;

import java.util.concurrent.CompletableFuture;

public class Task {
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private String state = "running";
    private long endedAt;

    public CompletableFuture<String> result() {
        return result;
    }

    void finish(String value, long now) {
        synchronized (this) {
            state = "done";
            endedAt = now;
        }
        result.complete(value);
    }

    public synchronized String state() {
        return state;
    }

    synchronized long endedAt() {
        return endedAt;
    }
}
"#;

#[test]
fn complete_moved_before_the_writes_a_caller_of_the_handed_out_future_reads() {
    // Callers get the future from `result()`, join it, then ask `state()`: the monitor
    // `state()` takes orders nothing with writes that come after the completion. Only
    // public methods are a caller's: `endedAt()` is not.
    let change = move_line(TASK, "result.complete(value);", "void finish(String value, long now) {");
    let base = [("src/app/Task.java", TASK)];
    expect_test::expect![[r#"
        Task.java:15 `result.complete()` (line 15) now runs before `state` is written (line 17): a caller that returns from `result().join()` and calls `Task.state()` can read the old `state`
            Task.java:17 `state` is written here, after `result.complete()`
            Task.java:23 `Task.state()` reads `state` here, called after `result().join()`"#]]
    .assert_eq(&publication(&base, &[("src/app/Task.java", &change)]));
    // Not handed out: no caller can wait for it.
    let kept = TASK
        .replace("    public CompletableFuture<String> result() {", "    private CompletableFuture<String> result() {");
    let moved = move_line(&kept, "result.complete(value);", "void finish(String value, long now) {");
    assert_eq!(publication(&[("src/app/Task.java", &kept)], &[("src/app/Task.java", &moved)]), "");
    // Only a package-private getter reads what comes after: not a caller's.
    let internal = TASK.replace("    public synchronized String state() {", "    synchronized String state() {");
    let moved = move_line(&internal, "result.complete(value);", "void finish(String value, long now) {");
    assert_eq!(publication(&[("src/app/Task.java", &internal)], &[("src/app/Task.java", &moved)]), "");
}

const SHIPPING: &str = r#"package app;

import java.util.concurrent.CompletableFuture;

public class Shipping {
    private final CompletableFuture<Receipt> done = new CompletableFuture<>();

    public CompletableFuture<Receipt> done() {
        return done;
    }

    public void ship(long total) {
        Receipt receipt = new Receipt();
        try {
            receipt.setTotal(total);
            done.complete(receipt);
        } catch (RuntimeException e) {
            receipt.setError(e.getMessage());
            done.complete(receipt);
        }
    }
}

class Receipt {
    private long total;
    private String error;

    void setTotal(long t) {
        total = t;
    }

    void setError(String e) {
        error = e;
    }
}
"#;

#[test]
fn a_value_changed_after_complete_is_handed_over_half_built() {
    let change = move_line(SHIPPING, "done.complete(receipt);", "try {");
    let base = [("src/app/Shipping.java", SHIPPING)];
    expect_test::expect![[r#"
        Shipping.java:15 `done.complete()` (line 15) now hands `receipt` over before `receipt.setTotal()` changes it (line 16): a thread that gets it from the future (`get()`, `join()`, a dependent stage) can see it half-built
            Shipping.java:16 `receipt.setTotal()` changes `receipt` here, after it is handed over"#]]
    .assert_eq(&publication(&base, &[("src/app/Shipping.java", &change)]));
    // The `catch` block's setter follows the `try` block's complete() only on paper.
    let edited = SHIPPING.replace("            receipt.setTotal(total);", "            receipt.setTotal(total + 0);");
    assert_eq!(publication(&base, &[("src/app/Shipping.java", &edited)]), "");
}

// ----- Thread.start() and Executor.submit() ----------------------------------------------------

const POLLER: &str = r#"package app;

public class Poller {
    private long interval;
    private boolean started;
    private long polls;

    public void begin(long every) {
        interval = every;
        Thread t = new Thread(() -> poll());
        started = true;
        t.start();
    }

    private void poll() {
        while (!Thread.currentThread().isInterrupted()) {
            polls++;
            try {
                Thread.sleep(interval);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public synchronized boolean started() {
        return started;
    }
}
"#;

#[test]
fn a_write_after_start_is_not_seen_by_the_started_thread() {
    let change = move_line(POLLER, "interval = every;", "t.start();");
    let base = [("src/app/Poller.java", POLLER)];
    expect_test::expect![[r#"
        Poller.java:12 `t.start()` (line 11) now runs before `interval` is written (line 12): the started thread reads `interval` in `Poller.poll()` and can see the old value (a write after `start()` is not ordered before its reads)
            Poller.java:11 `t.start()` is here, before the write
            Poller.java:19 `Poller.poll()` reads `interval` here in the started thread"#]]
    .assert_eq(&publication(&base, &[("src/app/Poller.java", &change)]));
    // `started` is not read by the thread: writing it after `start()` is fine.
    let flag = move_line(POLLER, "started = true;", "t.start();");
    assert_eq!(publication(&base, &[("src/app/Poller.java", &flag)]), "");
}

#[test]
fn a_write_after_submit_is_not_seen_by_the_task() {
    let base = r#"package app;

import java.util.concurrent.ExecutorService;

public class Report {
    private String title;

    public void render(ExecutorService pool, String t) {
        title = t;
        pool.submit(() -> print());
    }

    private void print() {
        System.out.println(title);
    }
}
"#;
    let change = move_line(base, "title = t;", "pool.submit(() -> print());");
    expect_test::expect![[r#"
        Report.java:9 `pool.submit()` (line 9) now runs before `title` is written (line 10): the task reads `title` in `Report.print()` and can see the old value (a write after `submit()` is not ordered before its reads)
            Report.java:10 `title` is written here, after `pool.submit()`
            Report.java:14 `Report.print()` reads `title` here in the task"#]]
    .assert_eq(&publication(&[("src/app/Report.java", base)], &[("src/app/Report.java", &change)]));
}

// ----- unlock() and notifyAll(): a write moved out of the lock ---------------------------------

const STATS: &str = r#"package app;

import java.util.concurrent.locks.ReentrantLock;

public class Stats {
    private final ReentrantLock lock = new ReentrantLock();
    private long total;
    private long last;

    public void add(long x) {
        lock.lock();
        try {
            total += x;
            last = x;
        } finally {
            lock.unlock();
        }
    }

    public long last() {
        lock.lock();
        try {
            return last;
        } finally {
            lock.unlock();
        }
    }
}
"#;

#[test]
fn a_write_moved_after_unlock_is_read_stale_under_the_lock() {
    let change = move_line(STATS, "last = x;", "}");
    let base = [("src/app/Stats.java", STATS)];
    expect_test::expect![[r#"
        Stats.java:17 `last` is now written (line 17) after `lock.unlock()` (line 15), out of the region holding `lock`: a thread that takes `lock` in `Stats.last()` can read the old `last`
            Stats.java:15 `lock.unlock()` is here, before the write
            Stats.java:23 `Stats.last()` reads `last` here holding `lock`"#]]
    .assert_eq(&publication(&base, &[("src/app/Stats.java", &change)]));
    // A write added after the unlock (not moved out of it) is RL001's, not a reordering.
    let added = STATS.replace(
        "            lock.unlock();\n        }\n    }\n\n    public long last",
        "            lock.unlock();\n        }\n        total = 0;\n    }\n\n    public long last",
    );
    assert_eq!(publication(&base, &[("src/app/Stats.java", &added)]), "");
}

const MAILBOX: &str = r#"package app;

public class Mailbox {
    private boolean full;
    private String message;

    public void put(String m) {
        synchronized (this) {
            message = m;
            full = true;
            notifyAll();
        }
    }

    public synchronized String take() throws InterruptedException {
        while (!full) {
            wait();
        }
        full = false;
        return message;
    }
}
"#;

#[test]
fn a_write_moved_out_after_notify_is_read_stale_by_the_woken_thread() {
    let change = MAILBOX.replace("            message = m;\n", "").replace(
        "            notifyAll();\n        }\n",
        "            notifyAll();\n        }\n        message = m;\n",
    );
    let base = [("src/app/Mailbox.java", MAILBOX)];
    expect_test::expect![[r#"
        Mailbox.java:12 `message` is now written (line 12) after `notifyAll()` (line 10), out of `synchronized (this)`: a thread woken from `wait()` in `Mailbox.take()` can read the old `message`
            Mailbox.java:10 `notifyAll()` is here, before the write
            Mailbox.java:20 `Mailbox.take()` reads `message` here after `wait()`"#]]
    .assert_eq(&publication(&base, &[("src/app/Mailbox.java", &change)]));
    // After notifyAll() but inside the same block: the waiter wakes once the block ends.
    let inside = MAILBOX
        .replace("            message = m;\n", "")
        .replace("            notifyAll();\n", "            notifyAll();\n            message = m;\n");
    assert_eq!(publication(&base, &[("src/app/Mailbox.java", &inside)]), "");
}

// ----- Semaphore, suppression, and a started thread that waits for the write --------------------

#[test]
fn release_moved_before_the_write_an_acquirer_reads() {
    let base = r#"package app;

import java.util.concurrent.Semaphore;

public class Slot {
    private final Semaphore filled = new Semaphore(0);
    private Object value;

    public void put(Object v) {
        value = v;
        filled.release();
    }

    public Object take() throws InterruptedException {
        filled.acquire();
        return value;
    }
}
"#;
    let change = move_line(base, "filled.release();", "public void put(Object v) {");
    expect_test::expect![[r#"
        Slot.java:10 `filled.release()` (line 10) now runs before `value` is written (line 11): a thread that passes `filled.acquire()` in `Slot.take()` can read the old `value`
            Slot.java:11 `value` is written here, after `filled.release()`
            Slot.java:16 `Slot.take()` reads `value` here after `filled.acquire()`"#]]
    .assert_eq(&publication(&[("src/app/Slot.java", base)], &[("src/app/Slot.java", &change)]));
    // Suppressed on the method, as every warning.
    let quiet =
        change.replace("    public void put(", "    @SuppressWarnings(\"racelens:RL009\")\n    public void put(");
    assert_eq!(publication(&[("src/app/Slot.java", base)], &[("src/app/Slot.java", &quiet)]), "");
}

#[test]
fn a_started_thread_that_waits_for_the_write_is_quiet() {
    // The write after `start()` is made under the lock the thread reads it with, and
    // signalled: the thread waits for it.
    let base = r#"package app;

public class Worker {
    private String job;

    public void begin(String j) {
        synchronized (this) {
            job = j;
            notifyAll();
        }
        Thread t = new Thread(() -> work());
        t.start();
    }

    private synchronized void work() {
        while (job == null) {
            try {
                wait();
            } catch (InterruptedException e) {
                return;
            }
        }
        System.out.println(job);
    }
}
"#;
    let change = base
        .replace("        synchronized (this) {\n            job = j;\n            notifyAll();\n        }\n", "")
        .replace("        t.start();\n", "        t.start();\n        synchronized (this) {\n            job = j;\n            notifyAll();\n        }\n");
    assert_eq!(publication(&[("src/app/Worker.java", base)], &[("src/app/Worker.java", &change)]), "");
}

// ----- a value changed after a volatile field or a collection hands it over ------------------

const TRACKER: &str = r#"package app;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

public class Tracker {
    static class Parcel {
        String code;
        long sentAt;
        int scratch;
    }

    private final ConcurrentMap<Long, Parcel> active = new ConcurrentHashMap<>();
    private volatile Parcel last;

    public void send(long id, String code) {
        Parcel p = new Parcel();
        p.code = code;
        p.sentAt = System.nanoTime();
        p.scratch = 1;
        active.put(id, p);
        last = p;
    }

    public String code(long id) {
        Parcel p = active.get(id);
        return p == null ? null : p.code + p.sentAt;
    }

    public String lastCode() {
        Parcel p = last;
        return p == null ? null : p.code;
    }
}
"#;

#[test]
fn a_value_changed_after_a_collection_or_a_volatile_field_hands_it_over() {
    let base = [("src/app/Tracker.java", TRACKER)];
    let put_first = move_line(TRACKER, "active.put(id, p);", "Parcel p = new Parcel();");
    // `scratch` is written after the hand-over too, but no other method reads it.
    expect_test::expect![[r#"
        Tracker.java:18 `active.put()` (line 18) now hands `p` over before `p.code` changes it (line 19): a thread that gets it from `active` can see it half-built
            Tracker.java:19 `p.code` changes `p` here, after it is handed over
            Tracker.java:20 `p.sentAt` changes `p` here, after it is handed over"#]]
    .assert_eq(&publication(&base, &[("src/app/Tracker.java", &put_first)]));
    let last_first = move_line(TRACKER, "last = p;", "Parcel p = new Parcel();");
    let found = publication(&base, &[("src/app/Tracker.java", &last_first)]);
    assert!(found.starts_with("Tracker.java:18 `last = p` (line 18) now hands `p` over before `p.code` changes it (line 19): a thread that gets it from `last` can see it half-built"), "{found}");
}

#[test]
fn fills_of_a_new_object_before_it_is_handed_over_race_with_nothing() {
    // Reordered fills, all before the hand-over: the object is this thread's alone until
    // then, so neither RL009 nor RL001 (the base had the same writes without a lock).
    let change = move_line(TRACKER, "p.code = code;", "p.sentAt = System.nanoTime();");
    let repo = repo_with(&[("src/app/Tracker.java", TRACKER)], &[("src/app/Tracker.java", &change)]);
    let (host, impact) = analyze(repo.path());
    assert_eq!(warnings(&host, &impact), Vec::<String>::new());
    // Once it is let out (a call takes it), a later write is shared again.
    let escaped =
        TRACKER.replace("        p.code = code;\n", "        register(p);\n        p.code = code.trim();\n").replace(
            "    public String code(long id) {",
            "    void register(Parcel p) {\n        active.put(-1L, p);\n    }\n\n    public String code(long id) {",
        );
    let repo = repo_with(&[("src/app/Tracker.java", TRACKER)], &[("src/app/Tracker.java", &escaped)]);
    let (host, impact) = analyze(repo.path());
    assert!(
        warnings(&host, &impact).iter().any(|w| w.contains("RL001") && w.contains("code")),
        "{:?}",
        warnings(&host, &impact)
    );
}

#[test]
fn a_setter_that_takes_no_lock_changes_a_value_handed_over_and_one_that_locks_does_not() {
    let base = TRACKER.replace(
        "        int scratch;\n    }",
        "        int scratch;\n        String note;\n\n        void setCode(String c) {\n            code = c;\n        }\n\n        synchronized void setNote(String n) {\n            note = n;\n        }\n\n        synchronized String note() {\n            return note;\n        }\n    }",
    );
    let change = base
        .replace("        p.code = code;\n", "")
        .replace("        last = p;\n", "        last = p;\n        p.setNote(\"sent\");\n        p.setCode(code);\n");
    let found = publication(&[("src/app/Tracker.java", &base)], &[("src/app/Tracker.java", &change)]);
    assert!(found.contains("now hands `p` over before `p.setCode()` changes it"), "{found}");
    assert!(!found.contains("setNote"), "{found}");
}
