//! Changes that real history is full of and that change no concurrency, each found as
//! noise on commons-pool's history (`tests/bench/upstream-noise.sh`), with the near miss
//! that must still warn: a file moved to another package or renamed with its class, a
//! private static helper called only under its class's lock, and a synchronized method
//! whose header gained `final` parameters.

use racelens_test_support as support;

use support::*;

const COUNTER: &str = r#"package app.core;

public class Counter {
    private int count;
    private boolean enabled;

    public synchronized void increment() {
        count++;
    }

    public int peek() {
        return count;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public static void main(String[] args) throws InterruptedException {
        Counter c = new Counter();
        Thread t = new Thread(c::increment);
        t.start();
        c.setEnabled(c.peek() > 0);
        t.join();
    }
}
"#;

/// The base commits `from`; the working tree has it deleted and `to` written, untracked, as
/// an IDE's "move class" leaves it before `git add`.
fn moved(from: &str, to: &str, text: &str) -> Vec<String> {
    let repo = repo_with(&[(from, COUNTER)], &[(from, ""), (to, text)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    w
}

#[test]
fn a_file_moved_to_another_package_is_its_diff_not_a_new_file() {
    let w = moved("src/app/core/Counter.java", "src/app/util/Counter.java", &COUNTER.replace("app.core", "app.util"));
    assert!(w.is_empty(), "the move changed only the package line: {w:#?}");
    // Near miss: the same move, and `synchronized` taken off on the way.
    let w = moved(
        "src/app/core/Counter.java",
        "src/app/util/Counter.java",
        &COUNTER.replace("app.core", "app.util").replace("public synchronized void increment", "public void increment"),
    );
    assert!(w.iter().any(|w| w.starts_with("Counter.java:8 RL001 `count`")), "{w:#?}");
}

#[test]
fn a_class_renamed_with_its_file_keeps_its_methods() {
    let renamed = COUNTER.replace("Counter", "HitCounter");
    let w = moved("src/app/core/Counter.java", "src/app/core/HitCounter.java", &renamed);
    assert!(w.is_empty(), "{w:#?}");
    // Near miss: renamed, and a new unguarded write of the counter.
    let w = moved(
        "src/app/core/Counter.java",
        "src/app/core/HitCounter.java",
        &renamed.replace("        return count;", "        count = Math.max(count, 0);\n        return count;"),
    );
    assert!(w.iter().any(|w| w.starts_with("HitCounter.java:12 RL001 `count`")), "{w:#?}");
}

const REGISTRY: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;

public final class Registry {
    private static final Map<String, Runnable> TASKS = new HashMap<>();

    static synchronized void register(String name, Runnable task) {
        TASKS.put(name, task);
    }

    static synchronized void unregister(String name) {
        drop(name);
    }

    private static void drop(String name) {
        TASKS.remove(name);
    }

    public static void main(String[] args) throws InterruptedException {
        Thread t = new Thread(() -> register("a", () -> {}));
        t.start();
        unregister("a");
        t.join();
    }
}
"#;

#[test]
fn a_private_static_helper_called_under_the_class_lock_holds_it() {
    let edited = REGISTRY.replace(
        "        TASKS.remove(name);",
        "        if (TASKS.containsKey(name)) {\n            TASKS.remove(name);\n        }",
    );
    let w = warnings_after("src/app/Registry.java", REGISTRY, &edited);
    assert!(w.is_empty(), "every call of drop() holds Registry.class: {w:#?}");
    // Near miss: the helper is also handed out as a method reference, which a thread
    // calls holding nothing.
    let escaped = edited.replace(
        "        unregister(\"a\");",
        "        unregister(\"a\");\n        new Thread(() -> drop(\"b\")).start();",
    );
    let w = warnings_after("src/app/Registry.java", REGISTRY, &escaped);
    assert!(w.iter().any(|w| w.contains("RL001 `TASKS`")), "{w:#?}");
    let referenced = edited.replace("        unregister(\"a\");", "        unregister(\"a\");\n        java.util.function.Consumer<String> d = Registry::drop;\n        new Thread(() -> d.accept(\"b\")).start();");
    let w = warnings_after("src/app/Registry.java", REGISTRY, &referenced);
    assert!(w.iter().any(|w| w.contains("RL001 `TASKS`")), "{w:#?}");
}

const TALLY: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;

public class Tally {
    private final Map<String, Integer> counts = new HashMap<>();

    public synchronized void add(String key, int amount) {
        counts.merge(key, amount, Integer::sum);
    }

    public int distinct() {
        return counts.size();
    }

    public static void main(String[] args) throws InterruptedException {
        Tally t = new Tally();
        Thread a = new Thread(() -> t.add("x", 1));
        a.start();
        System.out.println(t.distinct());
        a.join();
    }
}
"#;

#[test]
fn final_parameters_in_a_synchronized_methods_header_change_no_lock() {
    let finals = TALLY.replace("add(String key, int amount)", "add(final String key, final int amount)");
    let w = warnings_after("src/app/Tally.java", TALLY, &finals);
    assert!(w.is_empty(), "the keyword and the braces are as they were: {w:#?}");
    // Near miss: the same header without `synchronized`.
    let unlocked = finals.replace("public synchronized void add", "public void add");
    let w = warnings_after("src/app/Tally.java", TALLY, &unlocked);
    assert!(w.iter().any(|w| w.starts_with("Tally.java:10 RL001 `counts`")), "{w:#?}");
}

const POOL_TEST: &str = r#"package app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CounterTest {
    private Counter counter;
    private ExecutorService executor;

    @BeforeEach
    void setUp() {
        counter = new Counter();
        executor = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void tearDown() {
        executor.shutdownNow();
        counter = null;
    }

    @Test
    void incrementsFromTwoThreads() throws Exception {
        Future<?> a = executor.submit(() -> counter.increment());
        Future<?> b = executor.submit(() -> counter.increment());
        a.get();
        b.get();
        check(2);
    }

    @Test
    void rejectsNothing() {
        assertThrows(NullPointerException.class, () -> counter.setEnabled(null == counter));
    }

    private void check(int expected) {
        assertEquals(expected, counter.peek());
    }
}
"#;

#[test]
fn fields_a_test_sets_around_its_threads_and_reads_in_helpers_do_not_race() {
    let path = "src/test/java/app/CounterTest.java";
    // The tests read `counter` in their threads' lambdas, in `assertThrows`' lambda (run
    // by the runner) and in a private helper only tests call; setUp and tearDown write it.
    let changed = POOL_TEST
        .replace(
            "        counter = new Counter();\n",
            "        counter = new Counter();\n        counter.setEnabled(true);\n",
        )
        .replace(
            "        assertEquals(expected, counter.peek());",
            "        assertEquals(expected, counter.peek(), \"increments\");",
        )
        .replace(
            "        Future<?> b = executor.submit(() -> counter.increment());",
            "        Future<?> b = executor.submit(() -> counter.increment());\n        counter.setEnabled(false);",
        );
    let repo = repo_with(&[("src/app/Counter.java", COUNTER), (path, POOL_TEST)], &[(path, &changed)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(w.iter().all(|w| !w.contains("`counter`")), "{w:#?}");
    // Near miss: a submitted task writes the field, while the test's helper reads it.
    let racy = changed.replace(
        "        Future<?> a = executor.submit(() -> counter.increment());",
        "        Future<?> a = executor.submit(() -> counter = new Counter());",
    );
    let repo = repo_with(&[("src/app/Counter.java", COUNTER), (path, POOL_TEST)], &[(path, &racy)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    assert!(w.iter().any(|w| w.contains("RL001 `counter` is read in `CounterTest.check()`")), "{w:#?}");
}

const SETTINGS: &str = r#"package app;

import java.time.Duration;

public class Settings {
    private int maxIdle = 8;
    private Duration maxWait = Duration.ofSeconds(1);

    public int getMaxIdle() {
        return maxIdle;
    }

    public void setMaxIdle(int maxIdle) {
        this.maxIdle = maxIdle;
    }

    public Duration getMaxWait() {
        return maxWait;
    }

    public void setMaxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    @Override
    public String toString() {
        return "Settings[maxIdle=" + maxIdle + ", maxWait=" + maxWait + "]";
    }
}
"#;

const SETTINGS_USER: &str = r#"package app;

public class Reaper implements Runnable {
    private final Settings settings;

    public Reaper(Settings settings) {
        this.settings = settings;
    }

    public void run() {
        System.out.println(settings.getMaxIdle() + " " + settings.getMaxWait());
    }

    public static void main(String[] args) {
        Settings s = new Settings();
        new Thread(new Reaper(s)).start();
        s.setMaxIdle(4);
    }
}
"#;

#[test]
fn a_new_property_of_a_bean_without_a_discipline_is_no_race_of_the_change() {
    let path = "src/app/Settings.java";
    let with_property = SETTINGS.replace(
        "    @Override",
        "    private boolean lifo = true;\n\n    public boolean getLifo() {\n        return lifo;\n    }\n\n    public void setLifo(boolean lifo) {\n        this.lifo = lifo;\n    }\n\n    @Override",
    );
    let base = [(path, SETTINGS), ("src/app/Reaper.java", SETTINGS_USER)];
    let repo = repo_with(&base, &[(path, &with_property)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(w.is_empty(), "Settings never had a lock, volatile or thread: {w:#?}");
    // Near misses: the class had a lock in the base and loses it; an immutable class
    // gains a mutable field.
    let locked = SETTINGS
        .replace("public void setMaxIdle", "public synchronized void setMaxIdle")
        .replace("public int getMaxIdle", "public synchronized int getMaxIdle");
    let unlocked = locked.replace("public synchronized int getMaxIdle", "public int getMaxIdle");
    let repo = repo_with(&[(path, &locked), ("src/app/Reaper.java", SETTINGS_USER)], &[(path, &unlocked)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    assert!(w.iter().any(|w| w.contains("RL001 `maxIdle`")), "{w:#?}");
    let immutable = "package app;\n\npublic class Settings {\n    private final int maxIdle = 8;\n\n    public int getMaxIdle() {\n        return maxIdle;\n    }\n}\n";
    let cached = "package app;\n\npublic class Settings {\n    private final int maxIdle = 8;\n    private int hash;\n\n    public int getMaxIdle() {\n        return maxIdle;\n    }\n\n    @Override\n    public int hashCode() {\n        if (hash == 0) {\n            hash = 31 * maxIdle + 1;\n        }\n        return hash;\n    }\n}\n";
    let user = "package app;\n\nimport java.util.concurrent.ConcurrentHashMap;\n\npublic class Index {\n    static final ConcurrentHashMap<Settings, String> NAMES = new ConcurrentHashMap<>();\n\n    public static void main(String[] args) {\n        Settings s = new Settings();\n        new Thread(() -> NAMES.put(s, \"a\")).start();\n        NAMES.get(s);\n    }\n}\n";
    let repo = repo_with(&[(path, immutable), ("src/app/Index.java", user)], &[(path, cached)]);
    let (host, impact) = analyze(repo.path());
    let w = warnings(&host, &impact);
    assert!(w.iter().any(|w| w.contains("`hash`")), "{w:#?}");
}

const DEQUE: &str = r#"package app;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;

public class Ring implements Serializable {
    private transient Object[] items = new Object[16];
    private transient int head;
    private int count;

    public synchronized void push(Object o) {
        items[(head + count++) % items.length] = o;
    }

    public synchronized Object pop() {
        Object o = items[head];
        head = (head + 1) % items.length;
        count--;
        return o;
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        items = new Object[16];
        head = 0;
    }

    public static void main(String[] args) {
        Ring r = new Ring();
        new Thread(() -> r.push("a")).start();
        r.pop();
    }
}
"#;

#[test]
fn deserializing_an_object_is_building_it() {
    let path = "src/app/Ring.java";
    let changed = DEQUE.replace("        head = 0;\n", "        head = 0;\n        count = Math.min(count, 16);\n");
    let w = warnings_after(path, DEQUE, &changed);
    assert!(w.is_empty(), "readObject runs on an object no one else sees yet: {w:#?}");
    // Near miss: the same assignment in a public method races with push().
    let reset = DEQUE.replace(
        "    private void readObject",
        "    public void trim() {\n        count = Math.min(count, 16);\n    }\n\n    private void readObject",
    );
    let w = warnings_after(path, DEQUE, &reset);
    assert!(w.iter().any(|w| w.contains("RL001 `count`")), "{w:#?}");
}

const SERVER: &str = r#"package app;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public class Server {
    private int port;
    private String name;
    private Thread acceptor;
    private final ExecutorService workers = Executors.newFixedThreadPool(2);

    public void start(int requested) {
        port = requested;
        acceptor = new Thread(() -> serve());
        acceptor.start();
    }

    public void handOut(String label) {
        name = label;
        workers.submit(new Runnable() {
            @Override
            public void run() {
                System.out.println(name);
            }
        });
    }

    private void serve() {
        System.out.println("serving on " + port);
    }

    public void stop() throws InterruptedException {
        acceptor.interrupt();
        acceptor.join();
        workers.shutdown();
    }

    public static void main(String[] args) throws InterruptedException {
        Server s = new Server();
        Thread starter = new Thread(() -> s.start(8080));
        starter.start();
        starter.join();
        s.handOut("main");
        s.stop();
    }
}
"#;

#[test]
fn what_a_method_does_before_starting_a_thread_happens_before_that_thread() {
    let path = "src/app/Server.java";
    // The started thread's helper and the submitted task read the fields, set before the
    // start and the submission (JLS 17.4.5; the executor's memory consistency effects).
    let reads = SERVER
        .replace(
            "        System.out.println(\"serving on \" + port);",
            "        if (port > 0) {\n            System.out.println(\"serving on \" + port);\n        }",
        )
        .replace("                System.out.println(name);", "                System.out.println(name.trim());");
    let w = warnings_after(path, SERVER, &reads);
    assert!(w.iter().all(|w| !w.contains("`port`") && !w.contains("`name`")), "{w:#?}");
    // The same, the task held in a local first.
    let local = reads.replace(
        "        acceptor = new Thread(() -> serve());",
        "        Runnable task = () -> serve();\n        acceptor = new Thread(task);",
    );
    let w = warnings_after(path, SERVER, &local);
    assert!(w.iter().all(|w| !w.contains("`port`")), "{w:#?}");
    // Near misses: the write moved after the start; a write in the loop that starts workers.
    let after = reads.replace(
        "        port = requested;\n        acceptor = new Thread(() -> serve());\n        acceptor.start();",
        "        acceptor = new Thread(() -> serve());\n        acceptor.start();\n        port = requested;",
    );
    let w = warnings_after(path, SERVER, &after);
    assert!(
        w.iter().any(|w| w.contains("RL001 `port` is read in `Server.serve()` and written in `start()`")),
        "{w:#?}"
    );
    let looped = reads
        .replace(
            "        name = label;\n        workers.submit(",
            "        for (int i = 0; i < 2; i++) {\n            name = label + i;\n            workers.submit(",
        )
        .replace(
            "        });\n    }\n\n    private void serve",
            "        });\n        }\n    }\n\n    private void serve",
        );
    let w = warnings_after(path, SERVER, &looped);
    assert!(w.iter().any(|w| w.contains("RL001 `name`")), "{w:#?}");
}

const STATIC_TEST: &str = r#"package app;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RegistryTest {
    private static int created;
    private Counter counter;

    @BeforeEach
    void setUp() {
        counter = new Counter();
        created++;
    }

    @Test
    void countsCreations() throws Exception {
        Thread t = new Thread(counter::increment);
        t.start();
        t.join();
        assertTrue(created > 0);
    }

    @Test
    void peeks() {
        assertTrue(counter.peek() >= 0);
    }
}
"#;

#[test]
fn tests_the_build_runs_at_the_same_time_share_static_fields_but_not_their_instance() {
    let path = "src/test/java/app/RegistryTest.java";
    let changed = STATIC_TEST
        .replace("        assertTrue(created > 0);", "        assertTrue(created > 0, \"created\");")
        .replace("        assertTrue(counter.peek() >= 0);", "        assertTrue(counter.peek() >= 0, \"peek\");");
    let base = [("src/app/Counter.java", COUNTER), (path, STATIC_TEST)];
    let check = |extra: &[(&str, &str)], test: &str| -> Vec<String> {
        let mut change = vec![(path, test)];
        change.extend_from_slice(extra);
        let repo = repo_with(&base, &change);
        let (host, impact) = analyze(repo.path());
        warnings(&host, &impact).into_iter().filter(|w| w.contains("RL001")).collect()
    };
    // JUnit's default: one test after another on one thread.
    assert_eq!(check(&[], &changed), Vec::<String>::new());
    // The build runs test methods at the same time: the static counter races, the
    // instance's field (one instance per test method) does not.
    let properties =
        "junit.jupiter.execution.parallel.enabled = true\njunit.jupiter.execution.parallel.mode.default = concurrent\n";
    let w = check(&[("src/test/resources/junit-platform.properties", properties)], &changed);
    assert!(w.iter().any(|w| w.contains("`created`")), "{w:#?}");
    assert!(w.iter().all(|w| !w.contains("`counter`")), "{w:#?}");
    // The same, asked for by the class.
    let marked = changed.replace(
        "class RegistryTest {",
        "@org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)\nclass RegistryTest {",
    );
    let w = check(&[], &marked);
    assert!(w.iter().any(|w| w.contains("`created`")), "{w:#?}");
}
