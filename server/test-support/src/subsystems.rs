//! A project of independent subsystems, for test selection: a pool, a counter, a registry
//! and a text utility, each with its tests (multithreaded or not), and a test that runs two
//! subsystems. [`POOL_UNLOCKED`] is the change: `giveBack()` without `synchronized`.

pub const POOL: &str = r#"package org.x.pool;

public class Pool {
    private int numIdle;
    private int numActive;
    private final int maxTotal;

    public Pool(int maxTotal) {
        this.maxTotal = maxTotal;
    }

    public synchronized void borrow() {
        while (numActive >= maxTotal) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (numIdle > 0) {
            numIdle--;
        }
        numActive++;
    }

    public synchronized void giveBack() {
        numActive--;
        numIdle++;
        notifyAll();
    }

    public synchronized int idle() {
        return numIdle;
    }
}
"#;

pub const POOL_PATH: &str = "src/main/java/org/x/pool/Pool.java";

/// The change: `giveBack()` updates the counts and notifies without the pool's monitor.
pub fn pool_unlocked() -> String {
    POOL.replace("public synchronized void giveBack()", "public void giveBack()")
}

/// Runs tasks in threads of their own and waits for them: the multithreaded tests' helper.
const THREADS: &str = r#"package org.x;

public final class Threads {
    private Threads() {
    }

    public static void together(Runnable... tasks) throws InterruptedException {
        Thread[] threads = new Thread[tasks.length];
        for (int i = 0; i < tasks.length; i++) {
            threads[i] = new Thread(tasks[i]);
            threads[i].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }
}
"#;

const POOL_TEST: &str = r#"package org.x.pool;

import static org.junit.Assert.assertEquals;

import org.junit.Test;
import org.x.Threads;

public class PoolTest {
    @Test
    public void borrowersAndReturners() throws Exception {
        Pool pool = new Pool(2);
        Threads.together(pool::borrow, pool::giveBack);
        assertEquals(0, pool.idle());
    }

    @Test
    public void twoReturners() throws Exception {
        Pool pool = new Pool(2);
        Threads.together(pool::giveBack, pool::giveBack);
    }

    @Test
    public void threeReturners() throws Exception {
        Pool pool = new Pool(3);
        Threads.together(pool::giveBack, pool::giveBack, pool::giveBack);
    }

    @Test
    public void idleWatcher() throws Exception {
        Pool pool = new Pool(1);
        Threads.together(pool::idle);
    }

    @Test
    public void borrowThenGiveBackAlone() {
        Pool pool = new Pool(1);
        pool.borrow();
        pool.giveBack();
        assertEquals(1, pool.idle());
    }
}
"#;

const COUNTER: &str = r#"package org.x.metrics;

public class Counter {
    private long count;

    public synchronized void increment() {
        count++;
    }

    public synchronized long get() {
        return count;
    }
}
"#;

const COUNTER_TEST: &str = r#"package org.x.metrics;

import static org.junit.Assert.assertEquals;

import org.junit.Test;
import org.x.Threads;

public class CounterTest {
    @Test
    public void concurrentIncrements() throws Exception {
        Counter counter = new Counter();
        Threads.together(counter::increment, counter::increment);
        assertEquals(2, counter.get());
    }
}
"#;

const REGISTRY: &str = r#"package org.x.registry;

import java.util.HashMap;
import java.util.Map;

public class Registry {
    private final Map<String, String> names = new HashMap<>();
    private int registrations;

    public synchronized void register(String key, String value) {
        names.put(key, value);
        registrations++;
    }

    public synchronized String lookup(String key) {
        return names.get(key);
    }
}
"#;

/// A JUnit 3 test.
const REGISTRY_TEST: &str = r#"package org.x.registry;

import junit.framework.TestCase;
import org.x.Threads;

public class RegistryTest extends TestCase {
    public void testConcurrentRegistrations() throws Exception {
        Registry registry = new Registry();
        Threads.together(() -> registry.register("a", "1"), () -> registry.register("b", "2"));
        assertEquals("1", registry.lookup("a"));
    }
}
"#;

const SLUGS: &str = r#"package org.x.text;

public final class Slugs {
    private Slugs() {
    }

    public static String slug(String title) {
        return title.trim().toLowerCase().replace(' ', '-');
    }
}
"#;

const SLUGS_TEST: &str = r#"package org.x.text;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class SlugsTest {
    @Test
    public void lowercases() {
        assertEquals("a-b", Slugs.slug("A B"));
    }

    @Test
    public void keepsDigits() {
        assertEquals("v2", Slugs.slug("v2"));
    }
}
"#;

/// Runs two subsystems: a worker borrows, counts and gives back.
const END_TO_END_TEST: &str = r#"package org.x;

import org.junit.Test;
import org.x.metrics.Counter;
import org.x.pool.Pool;

public class EndToEndTest {
    @Test
    public void borrowAndCount() throws Exception {
        Pool pool = new Pool(4);
        Counter counter = new Counter();
        Threads.together(() -> {
            pool.borrow();
            counter.increment();
            pool.giveBack();
        });
    }
}
"#;

/// The project's files, the base of the change.
pub fn subsystems() -> Vec<(&'static str, &'static str)> {
    vec![
        (POOL_PATH, POOL),
        ("src/main/java/org/x/metrics/Counter.java", COUNTER),
        ("src/main/java/org/x/registry/Registry.java", REGISTRY),
        ("src/main/java/org/x/text/Slugs.java", SLUGS),
        ("src/test/java/org/x/Threads.java", THREADS),
        ("src/test/java/org/x/pool/PoolTest.java", POOL_TEST),
        ("src/test/java/org/x/metrics/CounterTest.java", COUNTER_TEST),
        ("src/test/java/org/x/registry/RegistryTest.java", REGISTRY_TEST),
        ("src/test/java/org/x/text/SlugsTest.java", SLUGS_TEST),
        ("src/test/java/org/x/EndToEndTest.java", END_TO_END_TEST),
    ]
}
