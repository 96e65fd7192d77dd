//! Quick fixes, each on a real git repository: the warnings of a change, the fix offered
//! for each (or none), and the lines the fix edits as they read once it is applied.

use racelens_test_support as support;

use expect_test::{expect, Expect};
use racelens_analysis::impact::fixes::{fixes, Fix};
use racelens_analysis::java::FileFacts;
use support::*;

/// The text once the fix's edits are applied.
fn apply(facts: &FileFacts, fix: &Fix) -> String {
    let mut text = facts.text.to_string();
    let mut edits = fix.edits.clone();
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    for (span, new) in edits {
        text.replace_range(span.start as usize..span.end as usize, &new);
    }
    text
}

/// Every warning of the change in the repository (hints left out) with its fixes: the
/// fix's title, then the edited lines as they read after it (no line break is edited).
fn render(repo: &std::path::Path) -> String {
    let (mut host, impact) = analyze(repo);
    let changes = host.change_set();
    let mut out = Vec::new();
    for d in impact.diagnostics.iter().filter(|d| d.code != "RL100") {
        let file = host.path_of(d.file).rsplit('/').next().unwrap().to_string();
        let found = fixes(host.index(), &changes, d);
        if found.is_empty() {
            out.push(format!("{file}:{} {} (no fix)", d.span.line, d.code));
        }
        for fix in found {
            out.push(format!("{file}:{} {} -> {}", d.span.line, d.code, fix.title));
            let facts = &host.index().entry(d.file).unwrap().facts;
            let fixed = apply(facts, &fix);
            let first = fix.edits.iter().map(|(s, _)| s.line).min().unwrap();
            let last = fix.edits.iter().map(|(s, _)| s.end_line).max().unwrap();
            for line in first..=last {
                out.push(format!("    {line:>3} |{}", fixed.lines().nth(line as usize - 1).unwrap()));
            }
        }
    }
    out.join("\n")
}

fn check(path: &str, base: &str, change: &str, expect: Expect) {
    let repo = repo_with(&[(path, base)], &[(path, change)]);
    expect.assert_eq(&render(repo.path()));
}

/// The warnings of `codes` in the repository once every fix of its warnings of those
/// codes in `path` is applied (each distinct edit once).
fn after_fixing(repo: &std::path::Path, path: &str, codes: &[&str]) -> Vec<String> {
    let (mut host, impact) = analyze(repo);
    let changes = host.change_set();
    let mut edits = Vec::new();
    for d in impact.diagnostics.iter().filter(|d| codes.contains(&d.code)) {
        for fix in fixes(host.index(), &changes, d) {
            edits.extend(fix.edits);
        }
    }
    edits.sort();
    edits.dedup();
    let file = host.index().file_id(path).unwrap();
    let fixed = apply(&host.index().entry(file).unwrap().facts, &Fix { title: String::new(), edits });
    write(repo, path, &fixed);
    let (_, impact) = analyze(repo);
    impact
        .diagnostics
        .iter()
        .filter(|d| codes.contains(&d.code))
        .map(|d| format!("{}:{} {}", d.span.line, d.code, d.message))
        .collect()
}

#[test]
fn notify_becomes_notify_all() {
    // A bounded buffer whose producers and consumers wait on one monitor; the change turns
    // both notifyAll() into notify().
    let repo = fixture_repo("explore-lost-wakeup");
    expect![[r#"
        BoundedBuffer.java:26 RL008 -> Use notifyAll()
             26 |        notifyAll();
        BoundedBuffer.java:38 RL008 -> Use notifyAll()
             38 |        notifyAll();"#]]
    .assert_eq(&render(repo.path()));
    assert_eq!(
        after_fixing(repo.path(), "src/main/java/org/example/buffer/BoundedBuffer.java", &["RL008"]),
        Vec::<String>::new()
    );
}

/// One slot on a `ReentrantLock`, one condition for both predicates (empty, full).
const SLOT: &str = r#"package app;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class Slot {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private Object value;

    public void put(Object x) throws InterruptedException {
        lock.lock();
        try {
            while (value != null) {
                changed.await();
            }
            value = x;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public Object take() throws InterruptedException {
        lock.lock();
        try {
            while (value == null) {
                changed.await();
            }
            Object x = value;
            value = null;
            changed.signalAll();
            return x;
        } finally {
            lock.unlock();
        }
    }
}
"#;

#[test]
fn signal_becomes_signal_all() {
    let change = SLOT.replacen("changed.signalAll();", "changed.signal();", 1);
    check(
        "src/app/Slot.java",
        SLOT,
        &change,
        expect![[r#"
            Slot.java:18 RL008 -> Use signalAll()
                 18 |            changed.signalAll();"#]],
    );
}

#[test]
fn a_second_kind_of_waiter_in_a_loop_has_no_fix() {
    // The base's put() overwrites and signals one waiter; the change makes it wait too.
    let base = SLOT
        .replacen("            while (value != null) {\n                changed.await();\n            }\n", "", 1)
        .replace("changed.signalAll();", "changed.signal();");
    let change = base.replacen(
        "            value = x;",
        "            while (value != null) {\n                changed.await();\n            }\n            value = x;",
        1,
    );
    check("src/app/Slot.java", &base, &change, expect!["Slot.java:15 RL008 (no fix)"]);
}

const MAILBOX: &str = r#"package app;

public class Mailbox {
    private String message;

    public synchronized void send(String m) {
        message = m;
        notifyAll();
    }

    public synchronized String receive() throws InterruptedException {
        while (message == null) {
            wait();
        }
        String m = message;
        message = null;
        return m;
    }
}
"#;

#[test]
fn a_wait_under_if_waits_in_a_while_loop() {
    let path = "src/app/Mailbox.java";
    let block = MAILBOX.replace("        while (message == null) {", "        if (message == null) {");
    check(
        path,
        MAILBOX,
        &block,
        expect![[r#"
            Mailbox.java:13 RL008 -> Wait in a while loop
                 12 |        while (message == null) {"#]],
    );
    assert_eq!(
        after_fixing(repo_with(&[(path, MAILBOX)], &[(path, &block)]).path(), path, &["RL008"]),
        Vec::<String>::new()
    );
    // A statement without braces, a condition in extra parentheses, in a try.
    let bare = MAILBOX.replace("        while (message == null) {\n            wait();\n        }", "        try {\n            if ((message == null)) wait();\n        } finally {\n            message = message;\n        }");
    check(
        path,
        MAILBOX,
        &bare,
        expect![[r#"
            Mailbox.java:13 RL008 -> Wait in a while loop
                 13 |            while ((message == null)) wait();"#]],
    );
    // `await()` on a condition.
    let awaited = SLOT.replace(
        "            while (value == null) {\n                changed.await();",
        "            if (value == null) {\n                changed.await();",
    );
    check(
        "src/app/Slot.java",
        SLOT,
        &awaited,
        expect![[r#"
            Slot.java:28 RL008 -> Wait in a while loop
                 27 |            while (value == null) {"#]],
    );
}

#[test]
fn a_wait_under_if_with_else_or_break_has_no_fix() {
    let path = "src/app/Mailbox.java";
    let wait_loop = "        while (message == null) {\n            wait();\n        }";
    // `while` cannot take the `else`.
    let with_else = MAILBOX.replace(
        wait_loop,
        "        if (message == null) {\n            wait();\n        } else {\n            send(null);\n        }",
    );
    check(path, MAILBOX, &with_else, expect!["Mailbox.java:13 RL008 (no fix)"]);
    // The wait in the `else` branch: its `if` is not what guards it.
    let in_else = MAILBOX.replace(
        wait_loop,
        "        if (message != null) {\n            send(null);\n        } else {\n            wait();\n        }",
    );
    check(path, MAILBOX, &in_else, expect!["Mailbox.java:15 RL008 (no fix)"]);
    // A `break` in the body would leave the new loop instead of the enclosing statement.
    let with_break = MAILBOX.replace(
        wait_loop,
        "        waiting: {\n            if (message == null) {\n                wait();\n                break waiting;\n            }\n        }",
    );
    check(path, MAILBOX, &with_break, expect!["Mailbox.java:14 RL008 (no fix)"]);
}

#[test]
fn a_method_that_lost_synchronized_gets_it_back() {
    // The object pool: addObject() lost `synchronized`; every warning in it has the fix.
    let repo = fixture_repo("object-pool");
    expect![[r#"
        ObjectPool.java:58 RL001 -> Make `addObject()` synchronized again
             57 |    public synchronized void addObject() {
        ObjectPool.java:58 RL001 -> Make `addObject()` synchronized again
             57 |    public synchronized void addObject() {
        ObjectPool.java:61 RL001 -> Make `addObject()` synchronized again
             57 |    public synchronized void addObject() {
        ObjectPool.java:63 RL006 -> Make `addObject()` synchronized again
             57 |    public synchronized void addObject() {"#]]
    .assert_eq(&render(repo.path()));
}

const REGISTRY: &str = r#"package app;

import java.util.ArrayList;
import java.util.List;

public class Registry<K> extends Base<K> {
    private final List<K> items = new ArrayList<>();
    private int count;
    private volatile boolean open = true;
    private static int instances;

    public synchronized int count() {
        return count;
    }

    @Override
    @SuppressWarnings(value = {"unchecked"})
    public final synchronized void add(K k) {
        items.add(k);
        count++;
    }

    public synchronized <T extends K> List<T> addAll(List<T> ks) {
        count += ks.size();
        return ks;
    }

    static synchronized void created() {
        instances++;
    }

    static synchronized int instances() {
        return instances;
    }

    @Deprecated synchronized void close() {
        if (open) {
            open = false;
        }
    }

    synchronized boolean isOpen() {
        return open;
    }
}
"#;

#[test]
fn synchronized_goes_after_annotations_and_modifiers_and_before_type_parameters() {
    let change = REGISTRY
        .replace("public final synchronized void add", "public final void add")
        .replace("public synchronized <T extends K>", "public <T extends K>")
        .replace("static synchronized void created", "static void created")
        .replace("@Deprecated synchronized void close", "@Deprecated void close");
    check(
        "src/app/Registry.java",
        REGISTRY,
        &change,
        expect![[r#"
            Registry.java:19 RL001 -> Make `add()` synchronized again
                 18 |    public final synchronized void add(K k) {
            Registry.java:20 RL001 -> Make `add()` synchronized again
                 18 |    public final synchronized void add(K k) {
            Registry.java:24 RL001 -> Make `addAll()` synchronized again
                 23 |    public synchronized <T extends K> List<T> addAll(List<T> ks) {
            Registry.java:29 RL001 -> Make `created()` synchronized again
                 28 |    static synchronized void created() {
            Registry.java:37 RL002 -> Make `close()` synchronized again
                 36 |    @Deprecated synchronized void close() {"#]],
    );
    let path = "src/app/Registry.java";
    assert_eq!(
        after_fixing(repo_with(&[(path, REGISTRY)], &[(path, &change)]).path(), path, &["RL001", "RL002"]),
        Vec::<String>::new()
    );
}

#[test]
fn warnings_without_an_obvious_fix_get_none() {
    // A removed `volatile` (RL001), an access moved out of a synchronized block (RL001 in
    // a method that never was synchronized), a check-then-act (RL004).
    let base = r#"package app;

import java.util.concurrent.ConcurrentHashMap;

public class Cache {
    private final ConcurrentHashMap<String, String> map = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private volatile boolean stopped;
    private int hits;

    public void stop() {
        stopped = true;
    }

    public boolean stopped() {
        return stopped;
    }

    public void hit() {
        synchronized (lock) {
            hits++;
        }
    }

    public int hits() {
        synchronized (lock) {
            return hits;
        }
    }

    public String take(String k) {
        return map.remove(k);
    }
}
"#;
    let change = base
        .replace("private volatile boolean stopped;", "private boolean stopped;")
        .replace("        synchronized (lock) {\n            hits++;\n        }", "        hits++;")
        .replace(
            "        return map.remove(k);",
            "        if (map.containsKey(k)) {\n            map.remove(k);\n        }\n        return null;",
        );
    check(
        "src/app/Cache.java",
        base,
        &change,
        expect![[r#"
            Cache.java:12 RL001 (no fix)
            Cache.java:16 RL001 (no fix)
            Cache.java:20 RL001 (no fix)
            Cache.java:31 RL004 (no fix)"#]],
    );
}
