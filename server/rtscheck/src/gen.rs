//! The program generator and the evolution operators, in the manner of RTSCheck's AutoEP
//! (Zhu, Legunsen, Shi and Gligoric, ICSE 2019, section II-B): a first revision generated
//! from a seed (II-B1, where AutoEP uses JDolly), its tests (II-B2, where AutoEP uses
//! Randoop; here they are written with the program, each with an oracle that holds on every
//! schedule), and operators that evolve it into a second revision (II-B3, Table III). Our
//! operators are concurrency's counterparts of AutoEP's E1-E9: they change synchronization,
//! two of them (field hiding, overriding) change class relationships as E2 and E4 do, one
//! turns an atomic map operation into a check-then-act, and one takes the synchronization
//! away from objects that reach other threads only through a concurrent map (issue 21,
//! item 6).
//!
//! A program is one to three independent *components*, each a class (sometimes with a
//! subclass) and its JUnit 4 test class: a tally behind its monitor, an account behind a
//! `ReentrantLock`, a ledger whose moves nest two monitors, a one-slot buffer with
//! `wait`/`notifyAll`, page hits kept in an atomic, a `ConcurrentHashMap` of per-page count
//! objects and a volatile generation. Some test classes declare their tests in an abstract
//! base class that JUnit runs under the concrete one (an inherited test). Each test class
//! has a test that starts two threads and checks, after joining them, that the counts add
//! up, and sometimes a single-threaded one. No class of one component names another's, so a
//! test runs the code of its own component only.
//!
//! The base revision is correct on every schedule: every shared field is written under the
//! lock that guards its reads, or is atomic, and every wait is in a loop woken by
//! `notifyAll`. The threads make a handful of accesses each, so that exploring every
//! schedule of a test takes a few runs.
//!
//! A revision is rendered from the component's description and at most one [`Mutation`],
//! so an operator changes exactly the lines it means to, and the same seed always gives the
//! same program (our own splitmix64, [`Rng`]).

use std::fmt::Write;

/// splitmix64 (Steele, Lea and Flood): small, fast, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// An evolution operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    RemoveSync,
    AddSync,
    SplitSection,
    NotifyAllToNotify,
    SwapLockOrder,
    RemoveVolatile,
    MoveOutOfLock,
    FieldHiding,
    Overriding,
    /// An atomic `computeIfAbsent` on a concurrent map written as a `get`, then a `put` when
    /// absent.
    CheckThenAct,
    /// A comment, or a brace on its own line: the code does not change.
    Cosmetic,
}

impl Op {
    pub const ALL: [Op; 11] = [
        Op::RemoveSync,
        Op::AddSync,
        Op::SplitSection,
        Op::NotifyAllToNotify,
        Op::SwapLockOrder,
        Op::RemoveVolatile,
        Op::MoveOutOfLock,
        Op::FieldHiding,
        Op::Overriding,
        Op::CheckThenAct,
        Op::Cosmetic,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::RemoveSync => "remove-synchronized",
            Op::AddSync => "add-synchronized",
            Op::SplitSection => "split-critical-section",
            Op::NotifyAllToNotify => "notifyAll-to-notify",
            Op::SwapLockOrder => "swap-lock-order",
            Op::RemoveVolatile => "remove-volatile",
            Op::MoveOutOfLock => "move-access-out-of-lock",
            Op::FieldHiding => "field-hiding",
            Op::Overriding => "override-without-synchronized",
            Op::CheckThenAct => "check-then-act",
            Op::Cosmetic => "no-op",
        }
    }
}

/// One operator applied at one place: `variant` says where, when the operator has a choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mutation {
    pub component: usize,
    pub op: Op,
    pub variant: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A count and a total behind the object's monitor: `synchronized` methods, or (`block`)
    /// a `synchronized (this)` block in `add`; `sub`: a subclass that adds two at once.
    Tally { block: bool, sub: bool },
    /// A balance and a deposit count behind a `ReentrantLock`.
    Account,
    /// Two pots; every move holds both monitors, always the left one first.
    Ledger,
    /// A one-slot buffer: `wait` in a loop, `notifyAll`.
    Slot,
    /// An `AtomicInteger`, a `ConcurrentHashMap` of per-page counts (objects of a class of
    /// their own, `<Class>Count`, that reach other threads only through the map), and a
    /// volatile generation bumped under the monitor.
    Hits,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    pub kind: Kind,
    /// The class, its subclass (a tally's), and its test class.
    pub class: String,
    pub sub: Option<String>,
    pub test_class: String,
    /// The amounts the threads add, move or hand over (1 to 9).
    pub a: i32,
    pub b: i32,
    pub c: i32,
    /// Whether the test class has a single-threaded test too.
    pub single: bool,
    /// Whether the tests are declared in an abstract `Abstract<Class>Test` that the test
    /// class extends (JUnit runs them under the subclass).
    pub inherited: bool,
}

/// A Java file of a revision, by its path in the work tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub path: String,
    pub text: String,
}

/// A JUnit test of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    /// `app.TallyTest#concurrentAddsAddUp`, as `racelens explore --test` takes it.
    pub name: String,
    pub component: usize,
    /// It starts threads.
    pub threads: bool,
}

pub const PACKAGE: &str = "app";
pub const MT_TEST: &str = "concurrentUpdatesAddUp";
pub const ST_TEST: &str = "singleThreadAddsUp";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub seed: u64,
    pub components: Vec<Component>,
}

impl Program {
    /// The first revision for `seed`: one to three components of different kinds.
    pub fn generate(seed: u64) -> Program {
        let mut rng = Rng::new(seed);
        let mut kinds = vec!["tally", "account", "ledger", "slot", "hits"];
        // A stream of its own, so that the shapes added later leave each seed's classes as
        // they were.
        let mut shapes = Rng::new(seed.rotate_left(17) ^ 0x1BAD_5EED);
        let n = 1 + rng.below(3);
        let mut components = Vec::new();
        for _ in 0..n {
            let kind = kinds.remove(rng.below(kinds.len()));
            let (kind, names): (Kind, &[&str]) = match kind {
                "tally" => (Kind::Tally { block: rng.chance(50), sub: rng.chance(60) }, &["Tally", "Meter", "Counter"]),
                "account" => (Kind::Account, &["Account", "Wallet", "Purse"]),
                "ledger" => (Kind::Ledger, &["Ledger", "Transfers", "Pots"]),
                "slot" => (Kind::Slot, &["Slot", "Mailbox", "Handoff"]),
                _ => (Kind::Hits, &["Hits", "PageViews", "Visits"]),
            };
            let class = rng.pick(names).to_string();
            let sub = matches!(kind, Kind::Tally { sub: true, .. }).then(|| format!("Batch{class}"));
            let (a, b, c) = (1 + rng.below(9) as i32, 1 + rng.below(9) as i32, 1 + rng.below(9) as i32);
            let single = rng.chance(60);
            let inherited = shapes.chance(35);
            components.push(Component {
                kind,
                test_class: format!("{class}Test"),
                class,
                sub,
                a,
                b,
                c,
                single,
                inherited,
            });
        }
        Program { seed, components }
    }

    /// Every file of the revision: the first one, or the one `mutation` makes of it.
    pub fn files(&self, mutation: Option<&Mutation>) -> Vec<Source> {
        self.files_in(PACKAGE, mutation)
    }

    /// [`Program::files`] in the package `pkg` (so that several revisions compile together).
    pub fn files_in(&self, pkg: &str, mutation: Option<&Mutation>) -> Vec<Source> {
        let mut out = Vec::new();
        for (i, c) in self.components.iter().enumerate() {
            let m = mutation.filter(|m| m.component == i).map(|m| (m.op, m.variant));
            out.extend(c.render(pkg, m));
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    pub fn tests(&self) -> Vec<Test> {
        let mut out = Vec::new();
        for (i, c) in self.components.iter().enumerate() {
            out.push(Test { name: format!("{PACKAGE}.{}#{MT_TEST}", c.test_class), component: i, threads: true });
            if c.single {
                out.push(Test { name: format!("{PACKAGE}.{}#{ST_TEST}", c.test_class), component: i, threads: false });
            }
        }
        out
    }

    /// Every mutation the operators can make of this program, each operator at each place
    /// it applies.
    pub fn evolutions(&self) -> Vec<Mutation> {
        let mut out = Vec::new();
        for (i, c) in self.components.iter().enumerate() {
            for (op, variants) in c.operators() {
                for variant in 0..variants {
                    out.push(Mutation { component: i, op, variant });
                }
            }
        }
        out
    }

    /// `Tally (synchronized block, subclass BatchTally), Slot; 12 evolutions`
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .components
            .iter()
            .map(|c| match (c.kind, &c.sub) {
                (Kind::Tally { block, .. }, sub) => format!(
                    "{} ({}{})",
                    c.class,
                    if block { "synchronized block" } else { "synchronized methods" },
                    sub.as_ref().map_or(String::new(), |s| format!(", subclass {s}"))
                ),
                _ => c.class.clone(),
            })
            .collect();
        format!("{}; {} evolutions", parts.join(", "), self.evolutions().len())
    }

    /// `remove-synchronized on Tally` (variant 1)
    pub fn describe(&self, m: &Mutation) -> String {
        let c = &self.components[m.component];
        format!("{} on {} (variant {}): {}", m.op.name(), c.class, m.variant, c.place(m.op, m.variant))
    }
}

fn sync(yes: bool) -> &'static str {
    if yes {
        "synchronized "
    } else {
        ""
    }
}

impl Component {
    /// The operators that apply, with how many places each has.
    pub fn operators(&self) -> Vec<(Op, u8)> {
        let mut ops = match self.kind {
            Kind::Tally { block, sub } => {
                let mut ops = vec![(Op::AddSync, 1)];
                match block {
                    true => ops.extend([(Op::SplitSection, 1), (Op::MoveOutOfLock, 2)]),
                    false => ops.push((Op::RemoveSync, 1)),
                }
                if sub {
                    ops.extend([(Op::FieldHiding, 2), (Op::Overriding, 1)]);
                }
                ops
            }
            Kind::Account => vec![(Op::AddSync, 1), (Op::SplitSection, 1), (Op::MoveOutOfLock, 2)],
            Kind::Ledger => vec![(Op::SwapLockOrder, 2), (Op::MoveOutOfLock, 1)],
            Kind::Slot => vec![(Op::NotifyAllToNotify, 3), (Op::RemoveSync, 2)],
            Kind::Hits => vec![(Op::RemoveVolatile, 1), (Op::AddSync, 1), (Op::RemoveSync, 2), (Op::CheckThenAct, 1)],
        };
        ops.push((Op::Cosmetic, 2));
        ops
    }

    /// Where a mutation applies, in words.
    fn place(&self, op: Op, variant: u8) -> String {
        let (class, sub) = (&self.class, self.sub.as_deref().unwrap_or("?"));
        match (self.kind, op, variant) {
            (_, Op::Cosmetic, 0) => format!("a comment in {class}"),
            (_, Op::Cosmetic, _) => format!("{class}'s opening brace on its own line"),
            (Kind::Tally { .. }, Op::AddSync, _) => format!("{class}.isEmpty()"),
            (Kind::Tally { .. }, Op::RemoveSync, _) => format!("{class}.add()"),
            (Kind::Tally { .. }, Op::SplitSection, _) => format!("{class}.add(): count and total in two blocks"),
            (Kind::Tally { .. }, Op::MoveOutOfLock, 0) => format!("{class}.add(): count++ before the block"),
            (Kind::Tally { .. }, Op::MoveOutOfLock, _) => format!("{class}.add(): total += n after the block"),
            (Kind::Tally { .. }, Op::FieldHiding, 0) => format!("{sub} declares its own count"),
            (Kind::Tally { .. }, Op::FieldHiding, _) => format!("{sub} declares its own total"),
            (Kind::Tally { .. }, Op::Overriding, _) => format!("{sub} overrides add() without synchronized"),
            (Kind::Account, Op::AddSync, _) => format!("{class}.deposit()"),
            (Kind::Account, Op::SplitSection, _) => format!("{class}.deposit(): two lock regions"),
            (Kind::Account, Op::MoveOutOfLock, 0) => format!("{class}.deposit(): deposits++ after unlock"),
            (Kind::Account, Op::MoveOutOfLock, _) => format!("{class}.deposit(): balance += amount before lock"),
            (Kind::Ledger, Op::SwapLockOrder, 0) => format!("{class}.moveLeft() takes the right lock first"),
            (Kind::Ledger, Op::SwapLockOrder, _) => format!("{class}.moveRight() takes the right lock first"),
            (Kind::Ledger, Op::MoveOutOfLock, _) => format!("{class}.moveLeft(): left += n after the locks"),
            (Kind::Slot, Op::NotifyAllToNotify, 0) => format!("{class}.put()"),
            (Kind::Slot, Op::NotifyAllToNotify, 1) => format!("{class}.take()"),
            (Kind::Slot, Op::NotifyAllToNotify, _) => format!("{class}.put() and {class}.take()"),
            (Kind::Slot, Op::RemoveSync, 0) => format!("{class}.put()"),
            (Kind::Slot, Op::RemoveSync, _) => format!("{class}.take()"),
            (Kind::Hits, Op::RemoveVolatile, _) => format!("{class}.generation"),
            (Kind::Hits, Op::AddSync, _) => format!("{class}.generation()"),
            (Kind::Hits, Op::RemoveSync, 0) => format!("{class}.endBatch()"),
            (Kind::Hits, Op::RemoveSync, _) => {
                format!("{class}Count.add() and get(): the counts reach other threads only through {class}'s map")
            }
            (Kind::Hits, Op::CheckThenAct, _) => {
                format!("{class}.hit(): the page's count got, then put when absent, instead of computeIfAbsent")
            }
            _ => "?".into(),
        }
    }

    fn render(&self, pkg: &str, m: Option<(Op, u8)>) -> Vec<Source> {
        let is = |op: Op, v: u8| m == Some((op, v));
        let mut files = match self.kind {
            Kind::Tally { block, .. } => self.tally(pkg, block, &is),
            Kind::Account => self.account(pkg, &is),
            Kind::Ledger => self.ledger(pkg, &is),
            Kind::Slot => self.slot(pkg, &is),
            Kind::Hits => self.hits(pkg, &is),
        };
        files.push(self.test(pkg));
        files.extend(self.concrete_test(pkg));
        // The no-ops touch the class's own file only.
        let main = &mut files[0];
        if is(Op::Cosmetic, 0) {
            let at = main.text.find("    private").or_else(|| main.text.find("    protected")).expect("a field");
            main.text.insert_str(at, "    // Updated by several threads at once: see the test.\n");
        } else if is(Op::Cosmetic, 1) {
            let decl = format!("public class {} {{", self.class);
            main.text = main.text.replacen(&decl, &format!("public class {}\n{{", self.class), 1);
        }
        files
    }

    fn source(&self, pkg: &str, class: &str, text: String) -> Source {
        Source { path: format!("src/main/java/{pkg}/{class}.java"), text }
    }

    fn tally(&self, pkg: &str, block: bool, is: &dyn Fn(Op, u8) -> bool) -> Vec<Source> {
        let c = &self.class;
        let add = if !block {
            format!(
                "    public {}void add(int n) {{\n        count++;\n        total += n;\n    }}\n",
                sync(!is(Op::RemoveSync, 0))
            )
        } else if is(Op::SplitSection, 0) {
            "    public void add(int n) {\n        synchronized (this) {\n            count++;\n        }\n        synchronized (this) {\n            total += n;\n        }\n    }\n".to_string()
        } else if is(Op::MoveOutOfLock, 0) {
            "    public void add(int n) {\n        count++;\n        synchronized (this) {\n            total += n;\n        }\n    }\n".to_string()
        } else if is(Op::MoveOutOfLock, 1) {
            "    public void add(int n) {\n        synchronized (this) {\n            count++;\n        }\n        total += n;\n    }\n".to_string()
        } else {
            "    public void add(int n) {\n        synchronized (this) {\n            count++;\n            total += n;\n        }\n    }\n".to_string()
        };
        let mut text = format!(
            "package {pkg};\n\n/** Counts items and sums their sizes for the threads that add to it. */\npublic class {c} {{\n    protected int count;\n    protected long total;\n\n{add}\n    public synchronized int count() {{\n        return count;\n    }}\n\n    public synchronized long total() {{\n        return total;\n    }}\n\n    public {}boolean isEmpty() {{\n        return count() == 0;\n    }}\n}}\n",
            sync(is(Op::AddSync, 0))
        );
        if block {
            // `add` is not a synchronized method, and the blocks say why.
            text = text.replace(
                "for the threads that add to it. */",
                "for the threads that add to it; `add` locks only where it must. */",
            );
        }
        let mut files = vec![self.source(pkg, c, text)];
        if let Some(sub) = &self.sub {
            let mut members = String::new();
            if is(Op::FieldHiding, 0) {
                members += "    protected int count;\n\n";
            }
            if is(Op::FieldHiding, 1) {
                members += "    protected long total;\n\n";
            }
            if is(Op::Overriding, 0) {
                members +=
                    "    @Override\n    public void add(int n) {\n        count++;\n        total += n;\n    }\n\n";
            }
            let text = format!(
                "package {pkg};\n\n/** A {c} that also takes two items at once. */\npublic class {sub} extends {c} {{\n{members}    public synchronized void addPair(int a, int b) {{\n        count += 2;\n        total += a + b;\n    }}\n}}\n"
            );
            files.push(self.source(pkg, sub, text));
        }
        files
    }

    fn account(&self, pkg: &str, is: &dyn Fn(Op, u8) -> bool) -> Vec<Source> {
        let c = &self.class;
        let region = |body: &str| {
            format!("        lock.lock();\n        try {{\n{body}        }} finally {{\n            lock.unlock();\n        }}\n")
        };
        let deposit = if is(Op::SplitSection, 0) {
            format!("{}{}", region("            balance += amount;\n"), region("            deposits++;\n"))
        } else if is(Op::MoveOutOfLock, 0) {
            format!("{}        deposits++;\n", region("            balance += amount;\n"))
        } else if is(Op::MoveOutOfLock, 1) {
            format!("        balance += amount;\n{}", region("            deposits++;\n"))
        } else {
            region("            balance += amount;\n            deposits++;\n")
        };
        let text = format!(
            "package {pkg};\n\nimport java.util.concurrent.locks.ReentrantLock;\n\n/** A balance and the number of deposits made to it, behind one lock. */\npublic class {c} {{\n    private final ReentrantLock lock = new ReentrantLock();\n    private int balance;\n    private int deposits;\n\n    public {}void deposit(int amount) {{\n{deposit}    }}\n\n    public int balance() {{\n{}    }}\n\n    public int deposits() {{\n{}    }}\n\n    /** The balance and the number of deposits, read together. */\n    public int[] snapshot() {{\n{}    }}\n}}\n",
            sync(is(Op::AddSync, 0)),
            region("            return balance;\n"),
            region("            return deposits;\n"),
            region("            return new int[] {balance, deposits};\n"),
        );
        vec![self.source(pkg, c, text)]
    }

    fn ledger(&self, pkg: &str, is: &dyn Fn(Op, u8) -> bool) -> Vec<Source> {
        let c = &self.class;
        let both = |first: &str, second: &str, body: &str, after: &str| {
            format!("        synchronized ({first}) {{\n            synchronized ({second}) {{\n{body}            }}\n        }}\n{after}")
        };
        let order = |swap: bool| if swap { ("rightLock", "leftLock") } else { ("leftLock", "rightLock") };
        let (f, s) = order(is(Op::SwapLockOrder, 1));
        let move_right = both(f, s, "                left -= n;\n                right += n;\n", "");
        let (f, s) = order(is(Op::SwapLockOrder, 0));
        let move_left = match is(Op::MoveOutOfLock, 0) {
            true => both(f, s, "                right -= n;\n", "        left += n;\n"),
            false => both(f, s, "                right -= n;\n                left += n;\n", ""),
        };
        let text = format!(
            "package {pkg};\n\n/** Moves units between two pots; every move holds both pots' locks, the left one first. */\npublic class {c} {{\n    private final Object leftLock = new Object();\n    private final Object rightLock = new Object();\n    private int left = 100;\n    private int right;\n\n    public void moveRight(int n) {{\n{move_right}    }}\n\n    public void moveLeft(int n) {{\n{move_left}    }}\n\n    public int total() {{\n{}    }}\n\n    public int left() {{\n{}    }}\n}}\n",
            both("leftLock", "rightLock", "                return left + right;\n", ""),
            both("leftLock", "rightLock", "                return left;\n", ""),
        );
        vec![self.source(pkg, c, text)]
    }

    fn slot(&self, pkg: &str, is: &dyn Fn(Op, u8) -> bool) -> Vec<Source> {
        let c = &self.class;
        let notify =
            |v: u8| if is(Op::NotifyAllToNotify, v) || is(Op::NotifyAllToNotify, 2) { "notify" } else { "notifyAll" };
        let text = format!(
            "package {pkg};\n\n/** Hands one value at a time from the threads that put to the threads that take. */\npublic class {c} {{\n    private int value;\n    private boolean full;\n\n    public {}void put(int v) throws InterruptedException {{\n        while (full) {{\n            wait();\n        }}\n        value = v;\n        full = true;\n        {}();\n    }}\n\n    public {}int take() throws InterruptedException {{\n        while (!full) {{\n            wait();\n        }}\n        full = false;\n        {}();\n        return value;\n    }}\n}}\n",
            sync(!is(Op::RemoveSync, 0)),
            notify(0),
            sync(!is(Op::RemoveSync, 1)),
            notify(1),
        );
        vec![self.source(pkg, c, text)]
    }

    fn hits(&self, pkg: &str, is: &dyn Fn(Op, u8) -> bool) -> Vec<Source> {
        let c = &self.class;
        let count_of_page = match is(Op::CheckThenAct, 0) {
            true => format!("        {c}Count count = perPage.get(page);\n        if (count == null) {{\n            count = new {c}Count();\n            perPage.put(page, count);\n        }}\n        count.add();\n"),
            false => format!("        perPage.computeIfAbsent(page, p -> new {c}Count()).add();\n"),
        };
        let text = format!(
            "package {pkg};\n\nimport java.util.concurrent.ConcurrentHashMap;\nimport java.util.concurrent.atomic.AtomicInteger;\n\n/** Page hits: a total, a count per page, and a generation bumped when a batch ends. */\npublic class {c} {{\n    private final AtomicInteger total = new AtomicInteger();\n    private final ConcurrentHashMap<String, {c}Count> perPage = new ConcurrentHashMap<>();\n    private {}int generation;\n\n    public void hit(String page) {{\n        total.incrementAndGet();\n{count_of_page}    }}\n\n    public {}void endBatch() {{\n        generation++;\n    }}\n\n    public {}int generation() {{\n        return generation;\n    }}\n\n    public int total() {{\n        return total.get();\n    }}\n\n    public int hitsOf(String page) {{\n        {c}Count count = perPage.get(page);\n        return count == null ? 0 : count.get();\n    }}\n}}\n",
            if is(Op::RemoveVolatile, 0) { "" } else { "volatile " },
            sync(!is(Op::RemoveSync, 0)),
            sync(is(Op::AddSync, 0)),
        );
        let unsync = is(Op::RemoveSync, 1);
        let count = format!(
            "package {pkg};\n\n/** The hits of one page of {c}. */\npublic class {c}Count {{\n    private int hits;\n\n    public {}void add() {{\n        hits++;\n    }}\n\n    public {}int get() {{\n        return hits;\n    }}\n}}\n",
            sync(!unsync),
            sync(!unsync),
        );
        vec![self.source(pkg, c, text), self.source(pkg, &format!("{c}Count"), count)]
    }

    /// What the two-thread test of each kind does: make the object, the bodies of the two
    /// threads, what the test's own thread does between starting and joining them, the
    /// checks after joining; and the single-threaded test's body.
    fn scenario(&self) -> Scenario {
        let (c, a, b) = (&self.class, self.a, self.b);
        match self.kind {
            Kind::Tally { .. } => {
                let (ty, second, count, total) = match &self.sub {
                    Some(sub) => (sub.as_str(), format!("tally.addPair({b}, {});", self.c), 3, a + b + self.c),
                    None => (c.as_str(), format!("tally.add({b});"), 2, a + b),
                };
                Scenario {
                    setup: vec![format!("{ty} tally = new {ty}();")],
                    first: vec![format!("tally.add({a});")],
                    second: vec![second],
                    checks: vec![
                        format!("assertEquals({count}, tally.count());"),
                        format!("assertEquals({total}, tally.total());"),
                    ],
                    single: [
                        format!("{c} tally = new {c}();"),
                        format!("tally.add({a});"),
                        format!("tally.add({b});"),
                        "assertEquals(2, tally.count());".into(),
                        format!("assertEquals({}, tally.total());", a + b),
                    ]
                    .into(),
                    ..Scenario::default()
                }
            }
            Kind::Account => Scenario {
                setup: vec![format!("{c} account = new {c}();"), "int[] seen = new int[2];".into()],
                first: vec![format!("account.deposit({a});")],
                second: ["int[] now = account.snapshot();", "seen[0] = now[0];", "seen[1] = now[1];"]
                    .map(String::from)
                    .into_iter()
                    .chain([format!("account.deposit({b});")])
                    .collect(),
                checks: vec![
                    format!("assertEquals({}, account.balance());", a + b),
                    "assertEquals(2, account.deposits());".into(),
                    "// the second thread saw no deposit, or the first one whole".into(),
                    format!("assertEquals(seen[1] == 0 ? 0 : {a}, seen[0]);"),
                ],
                single: [
                    format!("{c} account = new {c}();"),
                    format!("account.deposit({a});"),
                    format!("assertEquals({a}, account.balance());"),
                    "assertEquals(1, account.deposits());".into(),
                ]
                .into(),
                ..Scenario::default()
            },
            Kind::Ledger => Scenario {
                setup: vec![format!("{c} ledger = new {c}();")],
                first: vec![format!("ledger.moveRight({a});")],
                second: vec![format!("ledger.moveLeft({b});")],
                checks: vec![
                    "assertEquals(100, ledger.total());".into(),
                    format!("assertEquals({}, ledger.left());", 100 - a + b),
                ],
                single: [
                    format!("{c} ledger = new {c}();"),
                    format!("ledger.moveRight({a});"),
                    format!("assertEquals({}, ledger.left());", 100 - a),
                    "assertEquals(100, ledger.total());".into(),
                ]
                .into(),
                ..Scenario::default()
            },
            Kind::Slot => Scenario {
                setup: vec![format!("{c} slot = new {c}();"), "int[] taken = new int[1];".into()],
                first: vec![format!("slot.put({a});"), format!("slot.put({b});")],
                second: vec!["taken[0] = slot.take();".into()],
                interrupted: true,
                meanwhile: vec!["int mine = slot.take();".into()],
                checks: vec![format!("assertEquals({}, mine + taken[0]);", a + b)],
                single: [
                    format!("{c} slot = new {c}();"),
                    format!("slot.put({a});"),
                    format!("assertEquals({a}, slot.take());"),
                ]
                .into(),
            },
            Kind::Hits => Scenario {
                setup: vec![format!("{c} hits = new {c}();")],
                first: ["hits.hit(\"home\");", "hits.endBatch();"].map(String::from).into(),
                second: ["hits.hit(\"home\");", "hits.hit(\"about\");", "hits.endBatch();"].map(String::from).into(),
                checks: [
                    "assertEquals(3, hits.total());",
                    "assertEquals(2, hits.hitsOf(\"home\"));",
                    "assertEquals(2, hits.generation());",
                ]
                .map(String::from)
                .into(),
                single: [
                    format!("{c} hits = new {c}();"),
                    "hits.hit(\"home\");".into(),
                    "hits.endBatch();".into(),
                    "assertEquals(1, hits.total());".into(),
                    "assertEquals(1, hits.generation());".into(),
                ]
                .into(),
                ..Scenario::default()
            },
        }
    }

    /// The test class: the two-thread test, and the single-threaded one when `single`.
    fn test(&self, pkg: &str) -> Source {
        let s = self.scenario();
        let lines =
            |body: &[String], indent: usize| body.iter().map(|l| format!("{:indent$}{l}\n", "")).collect::<String>();
        let thread = |name: &str, body: &[String]| {
            match s.interrupted {
            false => format!("        Thread {name} = new Thread(() -> {{\n{}        }});\n", lines(body, 12)),
            true => format!("        Thread {name} = new Thread(() -> {{\n            try {{\n{}            }} catch (InterruptedException e) {{\n                throw new AssertionError(e);\n            }}\n        }});\n", lines(body, 16)),
        }
        };
        // Inherited: the tests in an abstract class, run by JUnit under the concrete one.
        let declaring = match self.inherited {
            true => format!("Abstract{}", self.test_class),
            false => self.test_class.clone(),
        };
        let modifier = if self.inherited { "abstract " } else { "" };
        let mut text = format!("package {pkg};\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\npublic {modifier}class {declaring} {{\n");
        let _ = write!(
            text,
            "    @Test\n    public void {MT_TEST}() throws Exception {{\n{}{}{}        first.start();\n        second.start();\n{}        first.join();\n        second.join();\n{}    }}\n",
            lines(&s.setup, 8),
            thread("first", &s.first),
            thread("second", &s.second),
            lines(&s.meanwhile, 8),
            lines(&s.checks, 8),
        );
        if self.single {
            let _ = write!(
                text,
                "\n    @Test\n    public void {ST_TEST}() throws Exception {{\n{}    }}\n",
                lines(&s.single, 8)
            );
        }
        text += "}\n";
        Source { path: format!("src/test/java/{pkg}/{declaring}.java"), text }
    }

    /// With `inherited`, the concrete test class that JUnit runs the inherited tests on.
    fn concrete_test(&self, pkg: &str) -> Option<Source> {
        let t = &self.test_class;
        let text = format!("package {pkg};\n\n/** Runs the tests of Abstract{t} on {}. */\npublic class {t} extends Abstract{t} {{\n}}\n", self.class);
        self.inherited.then(|| Source { path: format!("src/test/java/{pkg}/{t}.java"), text })
    }
}

/// The statements of a component's tests (see [`Component::scenario`]).
#[derive(Default)]
struct Scenario {
    setup: Vec<String>,
    first: Vec<String>,
    second: Vec<String>,
    /// The threads' bodies throw `InterruptedException` (they wait).
    interrupted: bool,
    meanwhile: Vec<String>,
    checks: Vec<String>,
    single: Vec<String>,
}
