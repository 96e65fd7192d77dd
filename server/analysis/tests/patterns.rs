//! Warnings for the regressions developers write, each kind on a real git repository with a
//! near miss that must stay quiet: a critical section split across methods (RL003),
//! check-then-act on concurrent structures (RL004), one warning per field and method, and
//! SimRT's rule 2 for modified methods.

use racelens_test_support as support;

use support::*;

/// `file:line CODE message` of the warnings, then `  related: file:line message` lines.
fn report(base: &[(&str, &str)], change: &[(&str, &str)]) -> String {
    let repo = repo_with(base, change);
    let (host, impact) = analyze(repo.path());
    let name = |f| host.path_of(f).rsplit('/').next().unwrap().to_string();
    let mut out = Vec::new();
    for d in impact.diagnostics.iter().filter(|d| d.code != "RL100") {
        out.push(format!("{}:{} {} {}", name(d.file), d.span.line, d.code, d.message));
        for r in &d.related {
            out.push(format!("  related: {}:{} {}", name(r.file), r.span.line, r.message));
        }
    }
    out.join("\n")
}

/// A class whose objects two threads use.
const MAIN: (&str, &str) = (
    "src/app/Main.java",
    "package app;\n\npublic class Main {\n    public static void main(String[] args) throws Exception {\n        Registry registry = new Registry(2);\n        Ledger ledger = new Ledger();\n        Thread t = new Thread(() -> { registry.register(\"a\"); ledger.post(1); });\n        t.start();\n        registry.register(\"b\");\n        ledger.post(2);\n        t.join();\n    }\n}\n",
);

const REGISTRY: &str = r#"package app;

import java.util.ArrayList;
import java.util.List;

public class Registry {
    private final List<String> entries = new ArrayList<>();
    private final int max;

    public Registry(int max) {
        this.max = max;
    }

    public synchronized int count() {
        return entries.size();
    }

    public boolean register(String name) {
        synchronized (this) {
            if (count() >= max) {
                return false;
            }
            entries.add(name);
            return true;
        }
    }
}
"#;

const LEDGER: &str = r#"package app;

import java.util.ArrayList;
import java.util.List;

public class Ledger {
    private final Object lock = new Object();
    private long balance;
    private final List<Long> history = new ArrayList<>();

    public void post(long amount) {
        synchronized (lock) {
            balance += amount;
            history.add(amount);
        }
    }

    public long balance() {
        synchronized (lock) {
            return balance;
        }
    }

    public int entries() {
        synchronized (lock) {
            return history.size();
        }
    }
}
"#;

fn registry_with(register: &str) -> String {
    let start = REGISTRY.find("    public boolean register").unwrap();
    format!("{}{register}}}\n", &REGISTRY[..start])
}

#[test]
fn a_check_through_a_locked_getter_split_from_the_act_is_reported() {
    let change = registry_with(
        "    public boolean register(String name) {\n        if (count() >= max) {\n            return false;\n        }\n        synchronized (this) {\n            entries.add(name);\n        }\n        return true;\n    }\n",
    );
    let base = [MAIN, ("src/app/Registry.java", REGISTRY), ("src/app/Ledger.java", LEDGER)];
    expect_test::expect![[r#"
        Registry.java:23 RL003 the change split a critical section of `Registry.register()`: the read of `entries[]` by `count()` (line 19) and this write of `entries[]` by `add()` now run under two separate acquisitions of `this`, so another thread can run between them
          related: Registry.java:19 the first acquisition of `this` covers this read"#]].assert_eq(&report(&base, &[("src/app/Registry.java", &change)]));
}

#[test]
fn a_split_that_rechecks_under_the_lock_or_keeps_one_section_is_quiet() {
    let base = [MAIN, ("src/app/Registry.java", REGISTRY), ("src/app/Ledger.java", LEDGER)];
    // A fast path outside the lock, re-checked inside it: how a lock is narrowed safely.
    let rechecked = registry_with(
        "    public boolean register(String name) {\n        if (count() >= max) {\n            return false;\n        }\n        synchronized (this) {\n            if (entries.size() >= max) {\n                return false;\n            }\n            entries.add(name);\n        }\n        return true;\n    }\n",
    );
    assert_eq!(report(&base, &[("src/app/Registry.java", &rechecked)]), "");
    // Extract method: the act moves into a helper called under the same lock.
    let extracted = registry_with(
        "    public boolean register(String name) {\n        synchronized (this) {\n            if (count() >= max) {\n                return false;\n            }\n            append(name);\n            return true;\n        }\n    }\n\n    private void append(String name) {\n        entries.add(name);\n    }\n",
    );
    assert_eq!(report(&base, &[("src/app/Registry.java", &extracted)]), "");
}

#[test]
fn a_write_moved_into_a_method_that_locks_again_tears_the_invariant() {
    let change = LEDGER.replace(
        "        synchronized (lock) {\n            balance += amount;\n            history.add(amount);\n        }\n    }\n",
        "        synchronized (lock) {\n            balance += amount;\n        }\n        record(amount);\n    }\n\n    private void record(long amount) {\n        synchronized (lock) {\n            history.add(amount);\n        }\n    }\n",
    );
    let base = [MAIN, ("src/app/Registry.java", REGISTRY), ("src/app/Ledger.java", LEDGER)];
    expect_test::expect![[r#"
        Ledger.java:15 RL003 the change split a critical section of `Ledger.post()`: the write of `balance` (line 13) and this write of `history[]` by `record()` now run under two separate acquisitions of `lock`, so another thread can run between them
          related: Ledger.java:13 the first acquisition of `lock` covers this write"#]].assert_eq(&report(&base, &[("src/app/Ledger.java", &change)]));
    // The same helper called with the lock held is one section: quiet.
    let held = change.replace("        }\n        record(amount);\n", "            record(amount);\n        }\n");
    assert_eq!(report(&base, &[("src/app/Ledger.java", &held)]), "");
}

const QUEUES: &str = r#"package app;

import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

public class Dispatcher {
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final ConcurrentHashMap<String, Integer> sessions = new ConcurrentHashMap<>();
    private final AtomicInteger running = new AtomicInteger();
    private final int limit = 4;

    public void submit(Runnable task) {
        tasks.add(task);
    }

    public boolean runOne() {
        Runnable task = tasks.poll();
        if (task == null) {
            return false;
        }
        task.run();
        return true;
    }

    public void open(String id) {
        sessions.putIfAbsent(id, 0);
    }

    public void close(String id) {
        sessions.remove(id);
    }

    public boolean admit() {
        if (running.incrementAndGet() > limit) {
            running.decrementAndGet();
            return false;
        }
        return true;
    }

    public void start() {
        new Thread(this::runOne).start();
    }
}
"#;

fn dispatcher_report(from: &str, to: &str) -> String {
    let change = QUEUES.replace(from, to);
    assert_ne!(change, QUEUES);
    report(&[("src/app/Dispatcher.java", QUEUES)], &[("src/app/Dispatcher.java", &change)])
}

#[test]
fn peek_then_poll_contains_then_remove_and_a_guarded_increment_are_check_then_act() {
    let peek = dispatcher_report(
        "        Runnable task = tasks.poll();\n        if (task == null) {\n            return false;\n        }\n        task.run();",
        "        if (tasks.peek() == null) {\n            return false;\n        }\n        tasks.poll().run();",
    );
    let remove = dispatcher_report("        sessions.remove(id);", "        if (sessions.containsKey(id)) {\n            sessions.remove(id);\n            System.out.println(\"closed \" + id);\n        }");
    let get = dispatcher_report(
        "        sessions.remove(id);",
        "        if (sessions.containsKey(id)) {\n            int opened = sessions.get(id);\n            System.out.println(id + \" was opened at \" + opened);\n        }\n        sessions.remove(id, 0);",
    );
    let admit = dispatcher_report(
        "        if (running.incrementAndGet() > limit) {\n            running.decrementAndGet();\n            return false;\n        }\n        return true;",
        "        if (running.get() >= limit) {\n            return false;\n        }\n        running.incrementAndGet();\n        return true;",
    );
    expect_test::expect![[r#"
        Dispatcher.java:22 RL004 check-then-act on `tasks`: `peek()` (line 19) and `poll()` here are two separate atomic steps; another thread can take the element in between, so `poll()` may find nothing
          related: Dispatcher.java:19 the check `peek()`
        ---
        Dispatcher.java:33 RL004 check-then-act on `sessions`: `containsKey()` (line 32) and `remove()` here are two separate atomic steps; another thread can take the element in between, so `remove()` may find nothing
          related: Dispatcher.java:32 the check `containsKey()`
        ---
        Dispatcher.java:33 RL004 check-then-act on `sessions`: `containsKey()` (line 32) and `get()` here are two separate atomic steps; another thread can remove the key in between, so `get()` may return null
          related: Dispatcher.java:32 the check `containsKey()`
        ---
        Dispatcher.java:39 RL004 check-then-act on `running`: `get()` (line 36) and `incrementAndGet()` here are two separate atomic steps; another thread can update it in between and its update is lost
          related: Dispatcher.java:36 the check `get()`"#]].assert_eq(&[peek, remove, get, admit].join("\n---\n"));
}

#[test]
fn acts_whose_result_is_checked_are_not_check_then_act() {
    // poll() after isEmpty(), its null handled.
    let polled = dispatcher_report(
        "        Runnable task = tasks.poll();",
        "        if (tasks.isEmpty()) {\n            return false;\n        }\n        Runnable task = tasks.poll();",
    );
    assert_eq!(polled, "");
    // remove() after containsKey(), its result tested.
    let removed = dispatcher_report(
        "        sessions.remove(id);",
        "        if (sessions.containsKey(id) && sessions.remove(id) != null) {\n            return;\n        }",
    );
    assert_eq!(removed, "");
    // remove(key, value) removes only what was seen: atomic.
    let conditional = dispatcher_report("        sessions.remove(id);", "        Integer seen = sessions.get(id);\n        if (seen != null && seen == 0) {\n            sessions.remove(id, seen);\n        }");
    assert_eq!(conditional, "");
    // A get() that logs, then an increment: no check.
    let logged = dispatcher_report(
        "        if (running.incrementAndGet() > limit) {",
        "        System.out.println(\"running: \" + running.get());\n        if (running.incrementAndGet() > limit) {",
    );
    assert_eq!(logged, "");
}

const COUNTERS: &str = r#"package app;

public class Counters {
    private long hits;
    private long misses;

    public synchronized void hit(boolean found) {
        if (found) {
            hits++;
        } else {
            misses++;
        }
        if (hits > 1000) {
            hits = hits / 2;
            misses = misses / 2;
        }
    }

    public synchronized double ratio() {
        return hits / (double) (hits + misses + 1);
    }

    public void start() {
        new Thread(() -> hit(true)).start();
    }
}
"#;

#[test]
fn one_racy_method_gives_one_warning_per_field() {
    let change = COUNTERS.replace("    public synchronized void hit(", "    public void hit(");
    let out = report(&[("src/app/Counters.java", COUNTERS)], &[("src/app/Counters.java", &change)]);
    expect_test::expect![[r#"
        Counters.java:9 RL001 `hits` is updated in `Counters.hit()` without the lock `this` that guards its read in `ratio()`; the change removed `synchronized` from `Counters.hit()` (3 more places in `Counters.hit()`: lines 13, 14)
          related: Counters.java:13 the same RL001 here
          related: Counters.java:14 the same RL001 here
          related: Counters.java:20 the read in `Counters.ratio()` holds `this`
          related: Counters.java:19 `this` is taken here
        Counters.java:11 RL001 `misses` is updated in `Counters.hit()` without the lock `this` that guards its read in `ratio()`; the change removed `synchronized` from `Counters.hit()` (2 more places in `Counters.hit()`: line 15)
          related: Counters.java:15 the same RL001 here
          related: Counters.java:20 the read in `Counters.ratio()` holds `this`
          related: Counters.java:19 `this` is taken here"#]].assert_eq(&out);
}

#[test]
fn a_modified_method_impacts_its_accesses_from_the_change_on() {
    // An early return added in the middle of hit(): rule 2 impacts the accesses after it
    // (lines 16 to 18), not those before (lines 9 and 11).
    let change = COUNTERS.replace(
        "        if (hits > 1000) {",
        "        if (Thread.interrupted()) {\n            return;\n        }\n        if (hits > 1000) {",
    );
    let repo = repo_with(&[("src/app/Counters.java", COUNTERS)], &[("src/app/Counters.java", &change)]);
    let (host, impact) = analyze(repo.path());
    let impacted: Vec<String> =
        pairs(&host, &impact).into_iter().filter(|p| p.contains("Counters.hit") && p.contains('*')).collect();
    expect_test::expect![[r#"
        [
            "RW Counters.hits protected: read Counters.java:16 Counters.hit [this]* <-> write Counters.java:9 Counters.hit [this]",
            "RW Counters.hits protected: read Counters.java:16 Counters.hit [this]* <-> write Counters.java:17 Counters.hit [this]*",
            "RW Counters.hits protected: write Counters.java:17 Counters.hit [this]* <-> read Counters.java:9 Counters.hit [this]",
            "RW Counters.hits protected: write Counters.java:17 Counters.hit [this]* <-> read Counters.java:17 Counters.hit [this]*",
            "RW Counters.hits protected: write Counters.java:17 Counters.hit [this]* <-> read Counters.java:23 Counters.ratio [this]",
            "RW Counters.hits protected: write Counters.java:17 Counters.hit [this]* <-> read Counters.java:23 Counters.ratio [this]",
            "RW Counters.hits protected: read Counters.java:17 Counters.hit [this]* <-> write Counters.java:9 Counters.hit [this]",
            "RW Counters.misses protected: write Counters.java:18 Counters.hit [this]* <-> read Counters.java:11 Counters.hit [this]",
            "RW Counters.misses protected: write Counters.java:18 Counters.hit [this]* <-> read Counters.java:18 Counters.hit [this]*",
            "RW Counters.misses protected: write Counters.java:18 Counters.hit [this]* <-> read Counters.java:23 Counters.ratio [this]",
            "RW Counters.misses protected: read Counters.java:18 Counters.hit [this]* <-> write Counters.java:11 Counters.hit [this]",
            "WW Counters.hits protected: write Counters.java:17 Counters.hit [this]* <-> write Counters.java:9 Counters.hit [this]",
            "WW Counters.hits protected: write Counters.java:17 Counters.hit [this]* <-> write Counters.java:17 Counters.hit [this]*",
            "WW Counters.misses protected: write Counters.java:18 Counters.hit [this]* <-> write Counters.java:11 Counters.hit [this]",
            "WW Counters.misses protected: write Counters.java:18 Counters.hit [this]* <-> write Counters.java:18 Counters.hit [this]*",
            "MM Counters.this: acquire Counters.java:7 Counters.hit [this]* <-> acquire Counters.java:7 Counters.hit [this]*",
            "MM Counters.this: acquire Counters.java:7 Counters.hit [this]* <-> acquire Counters.java:22 Counters.ratio [this]",
        ]
    "#]].assert_debug_eq(&impacted);
}

const STOCK: &str = r#"package app;

import java.util.HashMap;
import java.util.Map;

public class Stock {
    private final Map<String, Integer> onHand = new HashMap<>();

    public void restock(String sku, int quantity) {
        synchronized (this) {
            onHand.merge(sku, quantity, Integer::sum);
            notifyAll();
        }
    }

    public synchronized int available(String sku) {
        return onHand.getOrDefault(sku, 0);
    }

    public synchronized void take(String sku, int quantity) throws InterruptedException {
        while (available(sku) < quantity) {
            wait();
        }
        onHand.merge(sku, -quantity, Integer::sum);
    }

    public void start() {
        new Thread(() -> restock("a", 1)).start();
    }
}
"#;

#[test]
fn notify_to_waiters_of_their_own_arguments_is_a_lost_wakeup() {
    let change = STOCK.replace("            notifyAll();", "            notify();");
    expect_test::expect![[r#"
        Stock.java:12 RL008 `notify()` on `this` wakes one waiter, but `Stock.take()` (line 22) waits while `available(sku) < quantity`, a condition on its own arguments: the waiters wait for different things, and the one woken may not be one this wake-up lets through while another that could go on sleeps (use `notifyAll()`)
          related: Stock.java:22 `Stock.take()` waits here while `available(sku) < quantity`"#]].assert_eq(&report(&[("src/app/Stock.java", STOCK)], &[("src/app/Stock.java", &change)]));
    // A condition on shared state only, consumed by the one woken, is no such wait set.
    let shared_condition = STOCK.replace("while (available(sku) < quantity)", "while (onHand.isEmpty())");
    let changed = shared_condition.replace("            notifyAll();", "            notify();");
    assert_eq!(report(&[("src/app/Stock.java", &shared_condition)], &[("src/app/Stock.java", &changed)]), "");
}

const RING: &str = r#"package app;

import java.util.Collection;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class Ring {
    private final Object[] items = new Object[16];
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    private int head;
    private int count;

    public void put(Object item) throws InterruptedException {
        lock.lock();
        try {
            while (count == items.length) {
                notFull.await();
            }
            items[(head + count) % items.length] = item;
            count++;
        } finally {
            lock.unlock();
        }
    }

    public Object take() {
        lock.lock();
        try {
            Object item = items[head];
            head = (head + 1) % items.length;
            count--;
            notFull.signal();
            return item;
        } finally {
            lock.unlock();
        }
    }

    public int drainTo(Collection<Object> sink) {
        lock.lock();
        try {
            int n = count;
            for (int i = 0; i < n; i++) {
                sink.add(items[(head + i) % items.length]);
            }
            head = 0;
            count = 0;
            notFull.signalAll();
            return n;
        } finally {
            lock.unlock();
        }
    }

    public void start() {
        new Thread(() -> take()).start();
    }
}
"#;

#[test]
fn signal_after_freeing_every_slot_is_a_lost_wakeup_but_after_one_slot_is_not() {
    let change = RING.replace("            notFull.signalAll();", "            notFull.signal();");
    expect_test::expect![[r#"
        Ring.java:49 RL008 `signal()` on `notFull` wakes one waiter, but `Ring.drainTo()` lets several through at once (`count = 0`), and `Ring.put()` (line 18) waits while `count == items.length`: the others stay asleep though they could go on (use `signalAll()`)
          related: Ring.java:18 `Ring.put()` waits here while `count == items.length`"#]].assert_eq(&report(&[("src/app/Ring.java", RING)], &[("src/app/Ring.java", &change)]));
    // take() frees one slot: one signal() for one waiting producer is right.
    let one_slot = RING.replace(
        "            notFull.signal();\n            return item;",
        "            notFull.signalAll();\n            return item;",
    );
    assert_eq!(report(&[("src/app/Ring.java", &one_slot)], &[("src/app/Ring.java", RING)]), "");
}

const WAREHOUSE: &str = r#"package app;

public class Warehouse {
    private int units;

    public synchronized void add(int n) {
        units += n;
    }

    public synchronized boolean has(int n) {
        return units >= n;
    }

    public boolean transferTo(Warehouse target, int n) {
        synchronized (this) {
            if (!has(n)) {
                return false;
            }
            units -= n;
        }
        target.add(n);
        return true;
    }

    public void start(Warehouse other) {
        new Thread(() -> transferTo(other, 1)).start();
    }
}
"#;

#[test]
fn taking_the_target_inside_this_is_a_lock_order_inversion_despite_calls_on_this() {
    // has() re-enters `this` inside `synchronized (target)`: that is no `target` -> `this` order.
    let change = WAREHOUSE.replace(
        "        synchronized (this) {\n            if (!has(n)) {\n                return false;\n            }\n            units -= n;\n        }\n        target.add(n);",
        "        synchronized (this) {\n            synchronized (target) {\n                if (!has(n)) {\n                    return false;\n                }\n                units -= n;\n                target.add(n);\n            }\n        }",
    );
    expect_test::expect![[r#"
        Warehouse.java:16 RL007 lock-order inversion: `Warehouse.transferTo()` takes `this` then `target`, the locks of two `Warehouse` objects; two calls with `this` and `target` swapped wait for each other (deadlock)
          related: Warehouse.java:15 `Warehouse.transferTo()` takes `this` here
          related: Warehouse.java:16 `Warehouse.transferTo()` takes `target` here"#]].assert_eq(&report(&[("src/app/Warehouse.java", WAREHOUSE)], &[("src/app/Warehouse.java", &change)]));
}

const DESK: &str = r#"package app;

import java.util.ArrayList;
import java.util.List;

public class Desk {
    private record Slot(Ticket ticket, int priority) {
    }

    private final List<Slot> slots = new ArrayList<>();

    public synchronized void add(Ticket t, int priority) {
        slots.add(new Slot(t, priority));
    }

    public synchronized int sweep() {
        int removed = 0;
        for (int i = slots.size() - 1; i >= 0; i--) {
            if (slots.get(i).ticket().isClosed()) {
                slots.remove(i);
                removed++;
            }
        }
        return removed;
    }
}
"#;

const TICKET: &str = r#"package app;

public class Ticket {
    private final Desk desk;
    private boolean closed;

    public Ticket(Desk desk) {
        this.desk = desk;
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    public void close() {
        synchronized (this) {
            closed = true;
        }
        desk.sweep();
    }

    public void start() {
        new Thread(this::close).start();
    }
}
"#;

#[test]
fn a_lock_taken_through_a_record_accessor_orders_locks_like_any_call() {
    // sweep() holds the desk and takes each ticket's monitor through the record's implicit
    // accessor (`slots.get(i).ticket().isClosed()`); close() now sweeps holding its ticket.
    let change = TICKET.replace(
        "            closed = true;\n        }\n        desk.sweep();",
        "            closed = true;\n            desk.sweep();\n        }",
    );
    let found =
        report(&[("src/app/Desk.java", DESK), ("src/app/Ticket.java", TICKET)], &[("src/app/Ticket.java", &change)]);
    assert!(found.contains("RL007") && found.contains("isClosed"), "{found}");
}
