//! The state of thread-safe objects as shared variables (issue 21, item 1; SimRT section
//! 3.2 extended as CAPP section 3.1 step 4 reaches into callees): a `ConcurrentHashMap`, a
//! concurrent queue, a blocking deque, a copy-on-write set and an `AtomicLong`, each in a
//! package of its own with a test that runs the check and the act in two threads and a
//! test that runs them in one. A check-then-act change to one of them makes an impacted pair
//! on its state, RL004 warns, and its two-thread test alone is selected; the state's pairs
//! are never data races (RL001), and an unrelated edit selects nothing.

use racelens_test_support as support;

use racelens_analysis::rank;
use support::*;

/// One family: its class (path and text), its tests, and a change that splits an atomic
/// operation into a check and an act.
struct Family {
    name: &'static str,
    path: &'static str,
    class: &'static str,
    test_path: &'static str,
    test: &'static str,
    atomic: &'static str,
    split: &'static str,
}

const FAMILIES: &[Family] = &[
    Family {
        name: "map",
        path: "src/main/java/org/x/map/Sessions.java",
        class: r#"package org.x.map;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class Sessions {
    private final Map<String, Long> byUser = new ConcurrentHashMap<>();

    public boolean open(String user, long id) {
        return byUser.putIfAbsent(user, id) == null;
    }

    public void close(String user) {
        byUser.remove(user);
    }
}
"#,
        test_path: "src/test/java/org/x/map/SessionsTest.java",
        test: r#"package org.x.map;

import org.junit.Test;

public class SessionsTest {
    @Test
    public void twoLoginsOfOneUser() throws Exception {
        Sessions s = new Sessions();
        Thread t = new Thread(() -> s.open("ann", 1));
        t.start();
        s.open("ann", 2);
        t.join();
    }

    @Test
    public void loginThenLogout() {
        Sessions s = new Sessions();
        s.open("ann", 1);
        s.close("ann");
    }
}
"#,
        atomic: "        return byUser.putIfAbsent(user, id) == null;",
        split: "        if (byUser.containsKey(user)) {\n            return false;\n        }\n        byUser.put(user, id);\n        return true;",
    },
    Family {
        name: "queue",
        path: "src/main/java/org/x/queue/Outbox.java",
        class: r#"package org.x.queue;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

public class Outbox {
    private final Queue<String> pending = new ConcurrentLinkedQueue<>();
    private int sent;

    public void add(String m) {
        pending.offer(m);
    }

    public void flushOne() {
        String m = pending.poll();
        if (m != null) {
            send(m);
        }
    }

    private synchronized void send(String m) {
        sent += m.length();
    }
}
"#,
        test_path: "src/test/java/org/x/queue/OutboxTest.java",
        test: r#"package org.x.queue;

import org.junit.Test;

public class OutboxTest {
    @Test
    public void twoFlushersShareTheOutbox() throws Exception {
        Outbox o = new Outbox();
        o.add("a");
        Thread t = new Thread(o::flushOne);
        t.start();
        o.flushOne();
        t.join();
    }

    @Test
    public void flushAfterAdd() {
        Outbox o = new Outbox();
        o.add("a");
        o.flushOne();
    }
}
"#,
        atomic: "        String m = pending.poll();\n        if (m != null) {\n            send(m);\n        }",
        split: "        if (!pending.isEmpty()) {\n            send(pending.poll());\n        }",
    },
    Family {
        name: "deque",
        path: "src/main/java/org/x/deque/WorkStack.java",
        class: r#"package org.x.deque;

import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;

public class WorkStack {
    private final BlockingDeque<Runnable> work = new LinkedBlockingDeque<>();

    public void push(Runnable r) {
        work.offerFirst(r);
    }

    public boolean runOne() {
        Runnable r = work.pollFirst();
        if (r == null) {
            return false;
        }
        r.run();
        return true;
    }
}
"#,
        test_path: "src/test/java/org/x/deque/WorkStackTest.java",
        test: r#"package org.x.deque;

import org.junit.Test;

public class WorkStackTest {
    @Test
    public void twoWorkersTakeFromOneStack() throws Exception {
        WorkStack s = new WorkStack();
        s.push(() -> { });
        Thread t = new Thread(s::runOne);
        t.start();
        s.runOne();
        t.join();
    }

    @Test
    public void pushThenRun() {
        WorkStack s = new WorkStack();
        s.push(() -> { });
        s.runOne();
    }
}
"#,
        atomic: "        Runnable r = work.pollFirst();\n        if (r == null) {\n            return false;\n        }\n        r.run();",
        split: "        if (work.peekFirst() == null) {\n            return false;\n        }\n        work.removeFirst().run();",
    },
    Family {
        name: "set",
        path: "src/main/java/org/x/set/Dedup.java",
        class: r#"package org.x.set;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

public class Dedup {
    private final Set<String> seen = new CopyOnWriteArraySet<>();
    private int unique;

    public void accept(String id) {
        if (seen.add(id)) {
            count();
        }
    }

    private synchronized void count() {
        unique++;
    }
}
"#,
        test_path: "src/test/java/org/x/set/DedupTest.java",
        test: r#"package org.x.set;

import org.junit.Test;

public class DedupTest {
    @Test
    public void oneIdFromTwoFeeds() throws Exception {
        Dedup d = new Dedup();
        Thread t = new Thread(() -> d.accept("x"));
        t.start();
        d.accept("x");
        t.join();
    }

    @Test
    public void sameIdTwice() {
        Dedup d = new Dedup();
        d.accept("x");
        d.accept("x");
    }
}
"#,
        atomic: "        if (seen.add(id)) {\n            count();\n        }",
        split: "        if (!seen.contains(id)) {\n            seen.add(id);\n            count();\n        }",
    },
    Family {
        name: "atomic",
        path: "src/main/java/org/x/atomic/Tickets.java",
        class: r#"package org.x.atomic;

import java.util.concurrent.atomic.AtomicLong;

public class Tickets {
    private final AtomicLong next = new AtomicLong();

    public long take() {
        return next.incrementAndGet();
    }

    public long peek() {
        return next.get();
    }
}
"#,
        test_path: "src/test/java/org/x/atomic/TicketsTest.java",
        test: r#"package org.x.atomic;

import org.junit.Test;

public class TicketsTest {
    @Test
    public void twoClerksTakeTickets() throws Exception {
        Tickets t = new Tickets();
        Thread clerk = new Thread(t::take);
        clerk.start();
        t.take();
        clerk.join();
    }

    @Test
    public void takeThenPeek() {
        Tickets t = new Tickets();
        t.take();
        t.peek();
    }
}
"#,
        atomic: "        return next.incrementAndGet();",
        split: "        long n = next.get() + 1;\n        next.set(n);\n        return n;",
    },
];

fn base() -> Vec<(&'static str, &'static str)> {
    FAMILIES.iter().flat_map(|f| [(f.path, f.class), (f.test_path, f.test)]).collect()
}

#[test]
fn a_check_then_act_selects_the_test_that_runs_both_calls_in_two_threads() {
    for family in FAMILIES {
        let changed = family.class.replace(family.atomic, family.split);
        assert_ne!(changed, family.class, "{}: the change applies", family.name);
        let repo = repo_with(&base(), &[(family.path, &changed)]);
        let (mut host, impact) = analyze(repo.path());
        let w = warnings(&host, &impact);
        assert!(w.iter().any(|w| w.contains("RL004")), "{}: RL004 on the change: {w:#?}", family.name);
        assert!(
            !w.iter().any(|w| w.contains("RL001")),
            "{}: a thread-safe object's state does not race: {w:#?}",
            family.name
        );
        let state: Vec<String> = pairs(&host, &impact).into_iter().filter(|p| p.contains("[]")).collect();
        assert!(
            !state.is_empty() && state.iter().all(|p| p.contains(" protected")),
            "{}: impacted pairs on the state, none a data race: {state:#?}",
            family.name
        );
        let sharing = host.sharing();
        let selection = rank::select(host.index(), &sharing, &impact);
        let selected: Vec<&str> = selection.tests.iter().filter(|t| t.selected).map(|t| t.test.as_str()).collect();
        assert_eq!(selected.len(), 1, "{}: {selected:?}", family.name);
        let package = format!("org.x.{}.", family.name);
        assert!(selected[0].starts_with(&package), "{}: {selected:?}", family.name);
        let first = &selection.tests[0];
        assert!(first.selected && first.test.starts_with(&package), "{}: ranked first", family.name);
    }
}

#[test]
fn an_edit_that_keeps_the_atomic_operation_warns_nothing_and_selects_only_its_own_test() {
    let family = &FAMILIES[0];
    let renamed = family.class.replace("long id", "long sessionId").replace("(user, id)", "(user, sessionId)");
    let repo = repo_with(&base(), &[(family.path, &renamed)]);
    let (mut host, impact) = analyze(repo.path());
    assert!(warnings(&host, &impact).is_empty(), "{:#?}", warnings(&host, &impact));
    let sharing = host.sharing();
    let selection = rank::select(host.index(), &sharing, &impact);
    let selected: Vec<&str> = selection.tests.iter().filter(|t| t.selected).map(|t| t.test.as_str()).collect();
    // The renamed putIfAbsent is on a changed line, so its pairs are impacted: the map's
    // two-thread test runs them and is selected; no other family's test is.
    assert!(selected.iter().all(|t| t.starts_with("org.x.map.")), "{selected:?}");
}

/// Per key: a check-then-act on one constant key pairs with the calls on that key and on
/// variable keys, never with those on another constant key: a counter kept under the key
/// `"sent"` split into `get` then `put` pairs with `"sent"` and with `count(name)`, not with
/// `"failed"`.
#[test]
fn a_map_holds_one_state_variable_per_constant_key() {
    let stats = r#"package org.x.keys;

import java.util.concurrent.ConcurrentHashMap;

public class Stats {
    private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

    public void sent() {
        counts.merge("sent", 1, Integer::sum);
    }

    public void failed() {
        counts.merge("failed", 1, Integer::sum);
    }

    public int count(String name) {
        return counts.getOrDefault(name, 0);
    }
}
"#;
    let test = r#"package org.x.keys;

import org.junit.Test;

public class StatsTest {
    @Test
    public void twoSenders() throws Exception {
        Stats stats = new Stats();
        Thread other = new Thread(stats::sent);
        other.start();
        stats.sent();
        other.join();
    }

    @Test
    public void aSenderAndAFailure() throws Exception {
        Stats stats = new Stats();
        Thread other = new Thread(() -> stats.failed());
        other.start();
        stats.failed();
        stats.sent();
        other.join();
    }
}
"#;
    let split = stats.replace(
        "        counts.merge(\"sent\", 1, Integer::sum);",
        "        Integer n = counts.get(\"sent\");\n        counts.put(\"sent\", n == null ? 1 : n + 1);",
    );
    let files = [("src/main/java/org/x/keys/Stats.java", stats), ("src/test/java/org/x/keys/StatsTest.java", test)];
    let repo = repo_with(&files, &[("src/main/java/org/x/keys/Stats.java", &split)]);
    let (mut host, impact) = analyze(repo.path());
    let state: Vec<String> = pairs(&host, &impact).into_iter().filter(|p| p.contains("counts[]")).collect();
    assert!(!state.is_empty(), "pairs on the \"sent\" entries");
    assert!(
        state.iter().all(|p| !p.contains("Stats.java:14")),
        "no pair with the \"failed\" entry (line 14): {state:#?}"
    );
    assert!(state.iter().any(|p| p.contains("Stats.java:18")), "a variable key may be any key (line 18): {state:#?}");
    // Static reach still selects both tests: each starts a thread and runs `sent()`.
    let sharing = host.sharing();
    let selection = rank::select(host.index(), &sharing, &impact);
    assert_eq!(selection.tests.iter().filter(|t| t.selected).count(), 2);
}

/// RL004 per key too: a check of one entry and an act on another are not a check-then-act;
/// the same entry through the same variable is.
#[test]
fn a_check_of_one_key_and_an_act_on_another_are_no_check_then_act() {
    let base = "package org.x;\n\nimport java.util.concurrent.ConcurrentHashMap;\n\npublic class Flags {\n    private final ConcurrentHashMap<String, Boolean> flags = new ConcurrentHashMap<>();\n\n    public void enable(String name) {\n        flags.put(name, true);\n    }\n}\n";
    let other_key = base.replace(
        "        flags.put(name, true);",
        "        if (!flags.containsKey(\"frozen\")) {\n            flags.put(name, true);\n        }",
    );
    let w = warnings_after("src/org/x/Flags.java", base, &other_key);
    assert!(!w.iter().any(|w| w.contains("RL004")), "{w:#?}");
    let same_key = base.replace(
        "        flags.put(name, true);",
        "        if (!flags.containsKey(name)) {\n            flags.put(name, true);\n        }",
    );
    let w = warnings_after("src/org/x/Flags.java", base, &same_key);
    assert!(w.iter().any(|w| w.contains("RL004")), "{w:#?}");
}
