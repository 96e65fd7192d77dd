//! Data-driven tests of the facts: a Java snippet in, a rendering of its facts out.

use expect_test::{expect, Expect};

use super::*;

fn expr(facts: &FileFacts, e: &Expr) -> String {
    match e {
        Expr::This => "this".into(),
        Expr::Super => "super".into(),
        Expr::OuterThis(o) => format!("{o}.this"),
        Expr::Name(n) => n.clone(),
        Expr::Local(l) => format!("local:{}", facts.locals[*l as usize].name),
        Expr::Field(o, f) => format!("{}.{f}", expr(facts, o)),
        Expr::Call { receiver, name, args } => {
            let args: Vec<String> = args.iter().map(|a| expr(facts, a)).collect();
            match receiver {
                Some(r) => format!("{}.{name}({})", expr(facts, r), args.join(", ")),
                None => format!("{name}({})", args.join(", ")),
            }
        }
        Expr::New(t) => format!("new {}", t.name),
        Expr::Cast(t, e) => format!("({}){}", t.name, expr(facts, e)),
        Expr::Element(e) => format!("{}[]", expr(facts, e)),
        Expr::ClassLiteral(t) => format!("{}.class", t.name),
        Expr::Str(s) => format!("{s:?}"),
        Expr::Lambda(u) => format!("lambda#{u}"),
        Expr::MethodReference => "::".into(),
        Expr::Other => "?".into(),
    }
}

fn render(src: &str) -> String {
    let f = facts_of(src);
    let mut out = String::new();
    for c in &f.classes {
        out += &format!("class {} {:?} lines {}-{}\n", c.binary_name, c.kind, c.span.line, c.span.end_line);
    }
    for m in &f.methods {
        out += &format!(
            "method {}.{} {:?}{}{} lines {}-{}\n",
            f.classes[m.class as usize].binary_name,
            m.name,
            m.kind,
            if m.is_synchronized { " synchronized" } else { "" },
            if m.is_static { " static" } else { "" },
            m.span.line,
            m.span.end_line
        );
    }
    for fd in &f.fields {
        out += &format!(
            "field {}.{}: {}{}{}{}\n",
            f.classes[fd.class as usize].binary_name,
            fd.name,
            fd.ty.name,
            if fd.is_static { " static" } else { "" },
            if fd.is_final { " final" } else { "" },
            if fd.is_volatile { " volatile" } else { "" }
        );
    }
    for a in &f.accesses {
        let locks: Vec<&str> = f.locks_held(a.unit, a.span.start).map(|l| l.text.as_str()).collect();
        out += &format!(
            "{:?} {}{}{} line {} in {}{} locks [{}]\n",
            a.kind,
            a.receiver.as_ref().map(|r| format!("{}.", expr(&f, r))).unwrap_or_default(),
            a.name,
            if a.element { "[]" } else { "" },
            a.span.line,
            f.method_display(f.units[a.unit as usize].method),
            if f.units[a.unit as usize].is_lambda { " (lambda)" } else { "" },
            locks.join(", ")
        );
    }
    for c in &f.calls {
        out += &format!(
            "call {}{} line {} args [{}]\n",
            c.receiver.as_ref().map(|r| format!("{}.", expr(&f, r))).unwrap_or_default(),
            match &c.kind {
                CallKind::New { ty, anonymous } => format!(
                    "new {}{}",
                    ty.name,
                    anonymous.map(|a| format!(" as {}", f.classes[a as usize].binary_name)).unwrap_or_default()
                ),
                _ => c.name.clone(),
            },
            c.span.line,
            c.args.iter().map(|a| expr(&f, a)).collect::<Vec<_>>().join(", ")
        );
    }
    for l in &f.locks {
        out += &format!(
            "lock {:?} {} lines {}-{} markers {:?}\n",
            l.kind, l.text, l.span.line, l.span.end_line, l.markers
        );
    }
    for e in &f.syntax_errors {
        out += &format!("syntax error at line {}\n", e.line);
    }
    out
}

fn check(src: &str, expected: Expect) {
    expected.assert_eq(&render(src));
}

#[test]
fn classes_get_javacs_binary_names() {
    check(
        r#"package p;
public class Outer {
  Runnable a = new Runnable() { public void run() { Runnable n = new Runnable() { public void run() {} }; } };
  class Inner { Runnable b = new Runnable() { public void run() {} }; }
  void m() {
    Runnable l = () -> { Runnable x = new Runnable() { public void run() {} }; };
    class Local { Runnable y = new Runnable() { public void run() {} }; }
    class Local2 {}
  }
  static void s() { class Local {} }
  Runnable c = new Runnable() { public void run() {} };
  enum E { A { void f() {} }, B; void f() {} }
}
"#,
        expect![[r#"
            class p.Outer Class lines 2-13
            class p.Outer$1 Anonymous lines 3-3
            class p.Outer$1$1 Anonymous lines 3-3
            class p.Outer$Inner Class lines 4-4
            class p.Outer$Inner$1 Anonymous lines 4-4
            class p.Outer$2 Anonymous lines 6-6
            class p.Outer$1Local Class lines 7-7
            class p.Outer$1Local$1 Anonymous lines 7-7
            class p.Outer$1Local2 Class lines 8-8
            class p.Outer$2Local Class lines 10-10
            class p.Outer$3 Anonymous lines 11-11
            class p.Outer$E Enum lines 12-12
            class p.Outer$E$1 Anonymous lines 12-12
            method p.Outer.<init> Initializer lines 3-3
            method p.Outer$1.run Method lines 3-3
            method p.Outer$1$1.run Method lines 3-3
            method p.Outer$Inner.<init> Initializer lines 4-4
            method p.Outer$Inner$1.run Method lines 4-4
            method p.Outer.m Method lines 5-9
            method p.Outer$2.run Method lines 6-6
            method p.Outer$1Local.<init> Initializer lines 7-7
            method p.Outer$1Local$1.run Method lines 7-7
            method p.Outer.s Method static lines 10-10
            method p.Outer.<init> Initializer lines 11-11
            method p.Outer$3.run Method lines 11-11
            method p.Outer$E$1.f Method lines 12-12
            method p.Outer$E.f Method lines 12-12
            field p.Outer.a: Runnable
            field p.Outer$Inner.b: Runnable
            field p.Outer$1Local.y: Runnable
            field p.Outer.c: Runnable
            field p.Outer$E.A: E static final
            field p.Outer$E.B: E static final
            call new Runnable as p.Outer$1 line 3 args []
            call new Runnable as p.Outer$1$1 line 3 args []
            call new Runnable as p.Outer$Inner$1 line 4 args []
            call new Runnable as p.Outer$2 line 6 args []
            call new Runnable as p.Outer$1Local$1 line 7 args []
            call new Runnable as p.Outer$3 line 11 args []
        "#]],
    );
}

#[test]
fn accesses_know_their_locks_and_kinds() {
    check(
        r#"class P {
  private static volatile int count = 0;
  final Object[] tab = new Object[2];
  Object lock; java.util.Queue<Object> q;
  public synchronized void m(int x) {
    this.count++; count += 2; tab[x] = null; P.this.y = 1;
    synchronized (lock) { q.isEmpty(); int count = 3; count++; }
    Runnable r = () -> { tab[0] = count; };
    Object[] t = tab; t[1] = q;
    l.lock();
    try { x = q.poll(); } finally { l.unlock(); }
  }
}
"#,
        expect![[r#"
            class P Class lines 1-13
            method P.<clinit> Initializer static lines 2-2
            method P.<init> Initializer lines 3-3
            method P.m Method synchronized lines 5-12
            field P.count: int static volatile
            field P.tab: Object final
            field P.lock: Object
            field P.q: java.util.Queue
            Read this.count line 6 in P.m locks [this]
            Write this.count line 6 in P.m locks [this]
            Read count line 6 in P.m locks [this]
            Write count line 6 in P.m locks [this]
            Write tab[] line 6 in P.m locks [this]
            Read tab line 6 in P.m locks [this]
            Write P.this.y line 6 in P.m locks [this]
            Read lock line 7 in P.m locks [this]
            Read q line 7 in P.m locks [this, lock]
            Write tab[] line 8 in P.m (lambda) locks []
            Read tab line 8 in P.m (lambda) locks []
            Read count line 8 in P.m (lambda) locks []
            Read tab line 9 in P.m locks [this]
            Write tab[] line 9 in P.m locks [this]
            Read q line 9 in P.m locks [this]
            Read l line 10 in P.m locks [this]
            Read q line 11 in P.m locks [this, l]
            Read l line 11 in P.m locks [this]
            call q.isEmpty line 7 args []
            call l.lock line 10 args []
            call q.poll line 11 args []
            call l.unlock line 11 args []
            lock SynchronizedMethod this lines 5-12 markers [5, 12]
            lock SynchronizedBlock lock lines 7-7 markers [7]
            lock Explicit l lines 10-11 markers [10, 11]
        "#]],
    );
}

#[test]
fn waits_know_the_loop_or_if_that_guards_them() {
    let f = facts_of(
        "class Q {\n  synchronized void a() throws Exception {\n    while (items.isEmpty()) {\n      if (closed) return;\n      wait();\n    }\n    if (count  ==  0) wait(100);\n    do { c.await(); } while (!ready);\n    for (;;) { wait(); }\n    for (;;) { if (head == null) wait(); else if (due > now) wait(due - now); else break; }\n    wait();\n    Runnable r = () -> { try { if (x) wait(); } catch (Exception e) {} };\n  }\n}\n",
    );
    let rendered: Vec<String> = f
        .wait_guards
        .iter()
        .map(|g| {
            format!(
                "{} line {}: looped={} cond={:?} at line {}",
                f.calls[g.call as usize].name, f.calls[g.call as usize].span.line, g.looped, g.cond, g.span.line
            )
        })
        .collect();
    expect![[r#"
        wait line 5: looped=true cond=Some("items.isEmpty()") at line 3
        wait line 7: looped=false cond=Some("count == 0") at line 7
        await line 8: looped=true cond=Some("!ready") at line 8
        wait line 9: looped=true cond=None at line 9
        wait line 10: looped=true cond=Some("head == null") at line 10
        wait line 10: looped=true cond=Some("due > now") at line 10
        wait line 11: looped=false cond=None at line 11
        wait line 12: looped=false cond=Some("x") at line 12"#]]
    .assert_eq(&rendered.join("\n"));
}

#[test]
fn wakeups_know_the_if_that_makes_them_conditional() {
    let f = facts_of("class Q {\n  synchronized void a() {\n    if (items.size() == 1) {\n      notifyAll();\n    }\n    c.signal();\n    notify(x);\n  }\n}\n");
    let rendered: Vec<String> = f
        .wait_guards
        .iter()
        .map(|g| {
            format!(
                "{} line {}: looped={} cond={:?}",
                f.calls[g.call as usize].name, f.calls[g.call as usize].span.line, g.looped, g.cond
            )
        })
        .collect();
    expect![[r#"
        notifyAll line 4: looped=false cond=Some("items.size() == 1")
        signal line 6: looped=false cond=None"#]]
    .assert_eq(&rendered.join("\n"));
}

#[test]
fn try_with_resources_calls_close_where_the_block_ends() {
    check(
        r#"class R {
  Conn shared;
  void m(Pool pool) {
    try (Conn c = pool.acquire(); shared) {
      c.query();
    }
  }
}
"#,
        expect![[r#"
            class R Class lines 1-8
            method R.m Method lines 3-7
            field R.shared: Conn
            Read shared line 4 in R.m locks []
            call local:c.close line 6 args []
            call local:pool.acquire line 4 args []
            call shared.close line 6 args []
            call local:c.query line 5 args []
        "#]],
    );
}
