//! Escape through the idioms real code uses (issue 21, item 3): a task held in a local and
//! handed to a thread, code run by a `CompletableFuture`'s dependent stage, objects kept in a
//! concurrent map that shared code holds; and a `ThreadLocal`'s values, which each thread has
//! its own of. Each idiom has a near miss whose class stays unshared.

mod support;

use support::*;

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
    let got = escaping(&[("src/org/x/Tally.java", TALLY), ("src/org/x/Note.java", NOTE), ("src/org/x/Runner.java", runner)], &["org.x.Tally", "org.x.Note"]);
    assert_eq!(got, ["org.x.Tally"], "the task run on this thread (`later.run()`) takes nothing along");
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
    let got = escaping(&[("src/org/x/Tally.java", TALLY), ("src/org/x/Note.java", NOTE), ("src/org/x/Pipeline.java", pipeline)], &["org.x.Tally", "org.x.Note"]);
    assert_eq!(got, ["org.x.Tally"], "an Optional's map runs on the caller's thread");
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
    let got = escaping(&[("src/org/x/Tally.java", TALLY), ("src/org/x/Note.java", NOTE), ("src/org/x/Registry.java", registry)], &["org.x.Registry", "org.x.Tally", "org.x.Note"]);
    assert_eq!(got, ["org.x.Registry", "org.x.Tally"], "a ThreadLocal's value is each thread's own");
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
    let files = [("src/org/x/Registry.java", registry), ("src/org/x/Wiring.java", wiring), ("src/org/x/Tally.java", TALLY), ("src/org/x/Note.java", NOTE), ("src/org/x/Cart.java", cart)];
    let got = escaping(&files, &["org.x.Registry", "org.x.Tally", "org.x.Cart", "org.x.Note"]);
    assert_eq!(got, ["org.x.Registry", "org.x.Tally", "org.x.Cart"]);
}
