//! Escape through the idioms real code uses (issue 21, item 3): a task held in a local and
//! handed to a thread, code run by a `CompletableFuture`'s dependent stage, objects kept in a
//! concurrent map that shared code holds; and a `ThreadLocal`'s values, which each thread has
//! its own of; what a shared session keeps or hands out, and listeners a shared registry
//! keeps. Each idiom has a near miss whose class stays unshared, and, with a test that runs
//! the idiom in two threads, a change to the escaping class (`Tally`) selects that test while
//! the same change to the near miss's class (`Note`) selects none.

use racelens_test_support as support;

use racelens_analysis::rank;
use support::*;

/// The tests selected after `change` (a path and its new text) is written over `files`.
fn selected_after(files: &[(&str, &str)], change: (&str, &str)) -> Vec<String> {
    let repo = repo_with(files, &[change]);
    let (mut host, impact) = analyze(repo.path());
    let sharing = host.sharing();
    let selection = rank::select(host.index(), &sharing, &impact);
    selection.tests[..selection.selected].iter().map(|t| t.test.clone()).collect()
}

/// With `test` added to `files`: a change to `Tally.add` selects `expected` alone, the same
/// kind of change to `Note.append` selects nothing.
fn tally_selects_and_note_does_not(files: &[(&str, &str)], test: (&str, &str), expected: &str) {
    let mut all = files.to_vec();
    all.push(test);
    let tally = TALLY.replace("n++;", "n = n + 1;");
    assert_eq!(selected_after(&all, ("src/org/x/Tally.java", &tally)), [expected]);
    let note = NOTE.replace("text += s;", "text = text + s;");
    assert_eq!(selected_after(&all, ("src/org/x/Note.java", &note)), Vec::<String>::new());
}

/// Which of `classes` the project's sharing says escape to other threads.
fn escaping(files: &[(&str, &str)], classes: &[&str]) -> Vec<String> {
    let repo = repo_with(files, &[]);
    let (mut host, _) = analyze(repo.path());
    let sharing = host.sharing();
    classes.iter().filter(|c| sharing.escapes(c).is_some()).map(|c| c.to_string()).collect()
}

const TALLY: &str = "package org.x;\n\npublic class Tally {\n    private int n;\n\n    public void add() {\n        n++;\n    }\n\n    public int get() {\n        return n;\n    }\n}\n";
const NOTE: &str = "package org.x;\n\npublic class Note {\n    private String text = \"\";\n\n    public void append(String s) {\n        text += s;\n    }\n}\n";

#[test]
fn a_task_held_in_a_local_and_handed_to_a_thread_takes_what_it_captures_along() {
    let runner = r#"package org.x;

public class Runner {
    public static int twice() throws InterruptedException {
        Tally tally = new Tally();
        Runnable addOne = () -> tally.add();
        Thread t = new Thread(addOne);
        t.start();
        tally.add();
        t.join();
        Note note = new Note();
        Runnable later = () -> note.append("x");
        later.run();
        return tally.get();
    }
}
"#;
    let files = [("src/org/x/Tally.java", TALLY), ("src/org/x/Note.java", NOTE), ("src/org/x/Runner.java", runner)];
    let got = escaping(&files, &["org.x.Tally", "org.x.Note"]);
    assert_eq!(got, ["org.x.Tally"], "the task run on this thread (`later.run()`) takes nothing along");
    let test = "package org.x;\n\nimport org.junit.Test;\n\npublic class RunnerTest {\n    @Test\n    public void twice() throws Exception {\n        Runner.twice();\n    }\n}\n";
    tally_selects_and_note_does_not(&files, ("src/org/x/RunnerTest.java", test), "org.x.RunnerTest#twice");
}

#[test]
fn a_completable_future_stage_runs_its_code_on_another_thread() {
    let pipeline = r#"package org.x;

import java.util.concurrent.CompletableFuture;

public class Pipeline {
    public static CompletableFuture<Integer> count(CompletableFuture<String> input) {
        Tally tally = new Tally();
        return input.thenApply(s -> {
            tally.add();
            return tally.get();
        });
    }

    public static String local(String s) {
        Note note = new Note();
        java.util.Optional.of(s).map(x -> { note.append(x); return x; });
        return s;
    }
}
"#;
    let files = [("src/org/x/Tally.java", TALLY), ("src/org/x/Note.java", NOTE), ("src/org/x/Pipeline.java", pipeline)];
    let got = escaping(&files, &["org.x.Tally", "org.x.Note"]);
    assert_eq!(got, ["org.x.Tally"], "an Optional's map runs on the caller's thread");
    let test = r#"package org.x;

import java.util.concurrent.CompletableFuture;
import org.junit.Test;

public class PipelineTest {
    @Test
    public void countsOnTheCompletingThread() throws Exception {
        Pipeline.count(CompletableFuture.supplyAsync(() -> "x")).get();
        Pipeline.local("y");
    }
}
"#;
    tally_selects_and_note_does_not(
        &files,
        ("src/org/x/PipelineTest.java", test),
        "org.x.PipelineTest#countsOnTheCompletingThread",
    );
}

#[test]
fn objects_in_a_shared_concurrent_map_escape_and_thread_local_values_do_not() {
    let registry = r#"package org.x;

import java.util.concurrent.ConcurrentHashMap;

public class Registry {
    private final ConcurrentHashMap<String, Tally> tallies = new ConcurrentHashMap<>();
    private final ThreadLocal<Note> scratch = ThreadLocal.withInitial(Note::new);

    public void hit(String name) {
        tallies.computeIfAbsent(name, k -> new Tally()).add();
        scratch.get().append(name);
    }
}
"#;
    let files = [("src/org/x/Tally.java", TALLY), ("src/org/x/Note.java", NOTE), ("src/org/x/Registry.java", registry)];
    let got = escaping(&files, &["org.x.Registry", "org.x.Tally", "org.x.Note"]);
    assert_eq!(got, ["org.x.Registry", "org.x.Tally"], "a ThreadLocal's value is each thread's own");
    let test = r#"package org.x;

import org.junit.Test;

public class RegistryTest {
    @Test
    public void hitsFromTwoThreads() throws Exception {
        Registry registry = new Registry();
        Thread other = new Thread(() -> registry.hit("home"));
        other.start();
        registry.hit("home");
        other.join();
    }
}
"#;
    tally_selects_and_note_does_not(
        &files,
        ("src/org/x/RegistryTest.java", test),
        "org.x.RegistryTest#hitsFromTwoThreads",
    );
}

#[test]
fn what_a_shared_session_keeps_or_hands_out_escapes_with_it() {
    // A session shared by the worker threads: a cart set as its attribute escapes with it, a
    // counter taken from it under a cast too; a builder's part does not (the builder is not
    // shared).
    let session = r#"package org.x;

import java.util.HashMap;
import java.util.Map;

public class Session {
    private final Map<String, Object> attributes = new HashMap<>();

    public synchronized void setAttribute(String key, Object value) {
        attributes.put(key, value);
    }

    public synchronized Object getAttribute(String key) {
        return attributes.get(key);
    }
}
"#;
    let cart = "package org.x;\n\npublic class Cart {\n    private int items;\n\n    public void add() {\n        items++;\n    }\n}\n";
    let builder = "package org.x;\n\npublic class Builder {\n    private Note note;\n\n    public Builder setNote(Note note) {\n        this.note = note;\n        return this;\n    }\n}\n";
    let checkout = r#"package org.x;

public class Checkout {
    public static void open(Session session) {
        session.setAttribute("cart", new Cart());
        Tally tally = (Tally) session.getAttribute("tally");
        tally.add();
        new Builder().setNote(new Note());
    }
}
"#;
    let files = [
        ("src/org/x/Session.java", session),
        ("src/org/x/Cart.java", cart),
        ("src/org/x/Builder.java", builder),
        ("src/org/x/Tally.java", TALLY),
        ("src/org/x/Note.java", NOTE),
        ("src/org/x/Checkout.java", checkout),
    ];
    let got = escaping(&files, &["org.x.Session", "org.x.Cart", "org.x.Tally", "org.x.Note", "org.x.Builder"]);
    assert_eq!(got, ["org.x.Session", "org.x.Cart", "org.x.Tally"]);
    let test = r#"package org.x;

import org.junit.Test;

public class CheckoutTest {
    @Test
    public void twoCheckoutsOfOneSession() throws Exception {
        Session session = new Session();
        session.setAttribute("tally", new Tally());
        Thread other = new Thread(() -> Checkout.open(session));
        other.start();
        Checkout.open(session);
        other.join();
    }
}
"#;
    tally_selects_and_note_does_not(
        &files,
        ("src/org/x/CheckoutTest.java", test),
        "org.x.CheckoutTest#twoCheckoutsOfOneSession",
    );
}

#[test]
fn a_listener_registered_with_a_shared_registry_escapes_and_one_kept_by_a_plain_list_does_not() {
    let registry = r#"package org.x;

import java.util.concurrent.CopyOnWriteArrayList;

public class Registry {
    private final CopyOnWriteArrayList<Object> listeners = new CopyOnWriteArrayList<>();

    public void addListener(Object listener) {
        listeners.add(listener);
    }
}
"#;
    let wiring = r#"package org.x;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

public class Wiring {
    public static void wire(Registry registry, ConcurrentLinkedQueue<Object> events) {
        registry.addListener(new Tally());
        events.offer(new Cart());
        List<Object> local = new ArrayList<>();
        local.add(new Note());
    }
}
"#;
    let cart = "package org.x;\n\npublic class Cart {\n    private int items;\n}\n";
    let files = [
        ("src/org/x/Registry.java", registry),
        ("src/org/x/Wiring.java", wiring),
        ("src/org/x/Tally.java", TALLY),
        ("src/org/x/Note.java", NOTE),
        ("src/org/x/Cart.java", cart),
    ];
    let got = escaping(&files, &["org.x.Registry", "org.x.Tally", "org.x.Cart", "org.x.Note"]);
    assert_eq!(got, ["org.x.Registry", "org.x.Tally", "org.x.Cart"]);
}
