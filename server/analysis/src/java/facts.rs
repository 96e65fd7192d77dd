//! Per-file facts: everything the impact analysis needs to know about one Java file,
//! computed from its syntax tree alone (no cross-file knowledge).
//!
//! Names are as written in the source; resolving them to classes and fields of the
//! project is the index's job. Positions are byte offsets plus 1-based lines.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::text::LineIndex;

pub type ClassIdx = u32;
pub type MethodIdx = u32;
pub type UnitIdx = u32;
pub type LocalIdx = u32;

/// A byte range with the 1-based lines it starts and ends on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub end_line: u32,
}

impl Span {
    pub fn contains(&self, offset: u32) -> bool {
        self.start <= offset && offset < self.end
    }
    pub fn contains_span(&self, other: &Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }
    pub fn lines(&self) -> std::ops::RangeInclusive<u32> {
        self.line..=self.end_line
    }
}

/// A type as written: `java.util.Queue<Object>` is `{name: "java.util.Queue", args: [Object]}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TypeRef {
    pub name: String,
    pub args: Vec<TypeRef>,
    pub array_dims: u8,
}

impl TypeRef {
    pub fn simple(name: &str) -> TypeRef {
        TypeRef { name: name.to_string(), args: Vec::new(), array_dims: 0 }
    }
    pub fn is_primitive(&self) -> bool {
        self.array_dims == 0
            && matches!(
                self.name.as_str(),
                "int" | "long" | "short" | "byte" | "char" | "boolean" | "float" | "double" | "void"
            )
    }
    /// The type of one element of this array type.
    pub fn element(&self) -> TypeRef {
        TypeRef { name: self.name.clone(), args: self.args.clone(), array_dims: self.array_dims.saturating_sub(1) }
    }
}

/// The shape of an expression, as much of it as resolution needs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Expr {
    This,
    Super,
    /// `Outer.this`
    OuterThis(String),
    /// An identifier that is not a local variable: a field, or a type name.
    Name(String),
    /// A local variable or parameter of this file (index into `FileFacts::locals`).
    Local(LocalIdx),
    /// `object.name`
    Field(Box<Expr>, String),
    /// `object.name(...)` or `name(...)`.
    Call {
        receiver: Option<Box<Expr>>,
        name: String,
        args: Vec<Expr>,
    },
    New(TypeRef),
    Cast(TypeRef, Box<Expr>),
    /// `array[index]`
    Element(Box<Expr>),
    /// `Type.class`
    ClassLiteral(TypeRef),
    /// A string literal's value.
    Str(String),
    /// A lambda expression (index of its unit).
    Lambda(UnitIdx),
    /// `Type::method` or `expr::method`.
    MethodReference,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ClassKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
    Anonymous,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    /// Simple name: `GuardedBy` for `@javax.annotation.concurrent.GuardedBy`.
    pub name: String,
    /// The name as written when it is qualified (`org.junit.Test`), else `None`.
    pub qualified: Option<String>,
    /// String literal arguments, in order (`@GuardedBy("lock")` gives `["lock"]`).
    pub strings: Vec<String>,
    /// Class literal arguments as written, in order (`@RunWith(Parameterized.class)` gives
    /// `["Parameterized"]`).
    pub classes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassFacts {
    /// javac's binary name: `pkg.Outer$Inner`, `pkg.Outer$1`, `pkg.Outer$1Local`.
    pub binary_name: String,
    /// Empty for anonymous classes.
    pub simple_name: String,
    pub kind: ClassKind,
    pub outer: Option<ClassIdx>,
    /// A static nested class (or a top-level one, interface, enum, record): no outer instance.
    pub is_static: bool,
    /// Declared inside a method body (local or anonymous).
    pub is_local: bool,
    /// By its modifiers (interfaces and annotation types count as abstract).
    pub is_abstract: bool,
    pub is_public: bool,
    pub is_private: bool,
    pub span: Span,
    /// The name token (an anonymous class: its body).
    pub name_span: Span,
    pub body: Span,
    /// For anonymous classes, the instantiated type (a class or an interface).
    pub superclass: Option<TypeRef>,
    pub interfaces: Vec<TypeRef>,
    pub annotations: Vec<Annotation>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MethodKind {
    Method,
    Constructor,
    /// Field initializers and initializer blocks: javac puts them in `<init>` or `<clinit>`.
    Initializer,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub ty: TypeRef,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodFacts {
    pub class: ClassIdx,
    /// JVM name: `<init>` for constructors and instance initializers, `<clinit>` for static ones.
    pub name: String,
    pub kind: MethodKind,
    pub params: Vec<Param>,
    pub varargs: bool,
    pub return_type: Option<TypeRef>,
    /// Public by its modifiers (or as an interface member): JUnit 3 runs public methods only.
    pub is_public: bool,
    /// Callable only from its own class: its callers there are all its callers.
    pub is_private: bool,
    pub is_static: bool,
    pub is_synchronized: bool,
    pub is_abstract: bool,
    pub annotations: Vec<Annotation>,
    pub span: Span,
    /// The name token (or the initializer's first token), where diagnostics point.
    pub name_span: Span,
    pub body: Option<Span>,
}

/// Code that runs as one piece: a method body or a lambda body. Locks are held per unit:
/// a lambda written inside `synchronized` does not hold the lock when it runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub method: MethodIdx,
    pub is_lambda: bool,
    pub parent: Option<UnitIdx>,
    pub span: Span,
    /// A lambda (or a method of an anonymous class) that runs synchronously inside its
    /// parent unit, at this offset of the parent: passed to `forEach`, `compute*`,
    /// `removeIf`, …, or a local `Runnable` called there. It then holds the locks the
    /// parent holds at that offset.
    pub inline_at: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldDecl {
    pub class: ClassIdx,
    pub name: String,
    pub ty: TypeRef,
    pub is_static: bool,
    pub is_final: bool,
    pub is_volatile: bool,
    pub annotations: Vec<Annotation>,
    /// The declarator's name.
    pub span: Span,
    /// The whole declaration, modifiers included.
    pub decl_span: Span,
    pub init: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalVar {
    pub name: String,
    /// `None` for `var` and inferred lambda parameters.
    pub ty: Option<TypeRef>,
    /// Bytes in which the name refers to this variable.
    pub scope: Span,
    pub init: Option<Expr>,
    /// Assigned again after its declaration (then it is no alias of its initializer).
    pub reassigned: bool,
    /// For the variable of a for-each loop, what the loop walks (`listeners` in `for (Listener
    /// l : listeners)`): the variable holds each of its elements in turn.
    pub walks: Option<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AccessKind {
    Read,
    Write,
}

/// A read or write of something that may be a field. Bare identifiers that are not
/// locals are recorded with an implicit receiver; resolution drops what is no field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub name: String,
    /// `None`: a bare name (implicit `this`, an outer instance, or a static field in scope).
    pub receiver: Option<Expr>,
    pub kind: AccessKind,
    /// An element of the array the field holds (`table[i] = x`).
    pub element: bool,
    /// The name token.
    pub span: Span,
    pub unit: UnitIdx,
    /// For a plain `name = value` write, the value's shape.
    pub value: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CallKind {
    Method,
    /// `new T(...)`; `anonymous` is the class body's class when there is one.
    New {
        ty: TypeRef,
        anonymous: Option<ClassIdx>,
    },
    /// `this(...)` / `super(...)` in a constructor.
    ConstructorChain {
        is_super: bool,
    },
    /// `Type::method` or `expr::method`.
    Reference,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    pub name: String,
    pub receiver: Option<Expr>,
    pub args: Vec<Expr>,
    pub kind: CallKind,
    /// The method name token (the type for `new`).
    pub span: Span,
    /// The whole call expression.
    pub full: Span,
    pub unit: UnitIdx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LockKind {
    SynchronizedMethod,
    SynchronizedBlock,
    /// `l.lock()` ... `l.unlock()` (also `lockInterruptibly`, `tryLock`).
    Explicit,
}

/// A region of code that runs holding a lock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockRegion {
    pub kind: LockKind,
    /// The monitor or `Lock` expression; `This` / `ClassLiteral` for synchronized methods.
    pub lock: Expr,
    /// The lock as written, for messages: `this`, `lock`, `rw.writeLock()`.
    pub text: String,
    pub unit: UnitIdx,
    /// The bytes that run under the lock.
    pub span: Span,
    /// Lines that define the region: the `synchronized` keyword and lock expression, the
    /// block's braces, the `lock()`/`unlock()` calls. A change here changes the region.
    pub markers: Vec<u32>,
    /// The tokens on those lines that define the region (the keyword, `synchronized (lock)`,
    /// the braces, the acquiring and releasing calls): a change to other tokens of a marker
    /// line (a parameter renamed in a synchronized method's header) leaves the region as it
    /// was.
    pub defining: Vec<Span>,
}

/// What guards a `wait()` or `await()` call: the innermost loop around it in its unit,
/// else the innermost `if`. A wait must re-check its condition in a loop (SpotBugs
/// WA_NOT_IN_LOOP), and the condition says which kind of waiter it is. Wake-ups
/// (`notify()`, `signal()`, …) have one too: the `if` that makes a wake-up conditional.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitGuard {
    /// Index into `FileFacts::calls`.
    pub call: u32,
    /// In a `while`, `do` or `for` loop (else in an `if`, or in neither).
    pub looped: bool,
    /// The guarding condition as written, white space collapsed; `None` without one
    /// (`while (true)`, `for (;;)`, no `if`).
    pub cond: Option<String>,
    /// The condition's bytes (the statement's when it has none).
    pub span: Span,
}

/// Lookups over a file's facts, so that resolution and call graphs stay linear in big
/// files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Members {
    methods: std::collections::HashMap<(ClassIdx, String), Vec<MethodIdx>>,
    fields: std::collections::HashMap<(ClassIdx, String), u32>,
    calls: Vec<Vec<u32>>,
    accesses: Vec<Vec<u32>>,
}

impl Members {
    pub(crate) fn build(facts: &FileFacts) -> Members {
        let mut m = Members::default();
        for (i, method) in facts.methods.iter().enumerate() {
            m.methods.entry((method.class, method.name.clone())).or_default().push(i as MethodIdx);
        }
        for (i, f) in facts.fields.iter().enumerate() {
            m.fields.entry((f.class, f.name.clone())).or_insert(i as u32);
        }
        m.calls = vec![Vec::new(); facts.methods.len()];
        m.accesses = vec![Vec::new(); facts.methods.len()];
        for (i, c) in facts.calls.iter().enumerate() {
            m.calls[facts.units[c.unit as usize].method as usize].push(i as u32);
        }
        for (i, a) in facts.accesses.iter().enumerate() {
            m.accesses[facts.units[a.unit as usize].method as usize].push(i as u32);
        }
        // Held for every file of the project: no room left over from growing.
        for v in m.calls.iter_mut().chain(m.accesses.iter_mut()).chain(m.methods.values_mut()) {
            v.shrink_to_fit();
        }
        m.methods.shrink_to_fit();
        m.fields.shrink_to_fit();
        m
    }
}

/// A read or write of a local variable: what forward slicing follows (SimRT rule 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalUse {
    pub local: LocalIdx,
    pub line: u32,
    pub write: bool,
}

/// A token that matters for a diff (comments and white space do not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub end_line: u32,
}

/// Everything known about one Java file from its syntax alone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// Not serialized: the index cache holds facts only, the text comes from the file the
    /// cache entry was validated against (and the line index and lookups are rebuilt).
    #[serde(skip)]
    pub text: Arc<str>,
    #[serde(skip)]
    pub lines: LineIndex,
    pub package: Option<String>,
    /// `import a.b.C;` gives `a.b.C`; `import a.b.*;` gives `a.b.*`.
    pub imports: Vec<String>,
    pub static_imports: Vec<String>,
    pub classes: Vec<ClassFacts>,
    pub methods: Vec<MethodFacts>,
    pub units: Vec<Unit>,
    pub fields: Vec<FieldDecl>,
    pub locals: Vec<LocalVar>,
    pub accesses: Vec<Access>,
    pub calls: Vec<Call>,
    pub locks: Vec<LockRegion>,
    /// The guard of each `wait()`/`await()` call.
    pub wait_guards: Vec<WaitGuard>,
    pub local_uses: Vec<LocalUse>,
    pub tokens: Vec<Token>,
    /// Lookups by name and by method, built once per file.
    #[serde(skip)]
    pub members: Members,
    /// Where the parser found syntax errors; facts for the rest are still complete.
    pub syntax_errors: Vec<Span>,
}

impl FileFacts {
    /// Gives back what the vectors grew beyond their length while the file was read: the
    /// facts of every file of a project stay in memory, and growth by doubling left a
    /// quarter of them unused on average (issue 21, item 5: ≤ 300 MB at 475k lines).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.imports.shrink_to_fit();
        self.static_imports.shrink_to_fit();
        self.classes.shrink_to_fit();
        self.methods.shrink_to_fit();
        self.units.shrink_to_fit();
        self.fields.shrink_to_fit();
        self.locals.shrink_to_fit();
        self.accesses.shrink_to_fit();
        self.calls.shrink_to_fit();
        self.locks.shrink_to_fit();
        self.wait_guards.shrink_to_fit();
        self.local_uses.shrink_to_fit();
        self.tokens.shrink_to_fit();
        self.syntax_errors.shrink_to_fit();
    }

    pub fn text_of(&self, span: Span) -> &str {
        self.text.get(span.start as usize..span.end as usize).unwrap_or("")
    }

    /// Whether the field named at `name` is assigned `null` there (`name = null;`).
    pub fn assigns_null(&self, name: Span) -> bool {
        let first = self.tokens.partition_point(|t| t.start < name.end);
        let next: Vec<&str> = self.tokens[first..].iter().take(3).map(|t| self.token_text(t)).collect();
        matches!(next.as_slice(), ["=", "null", ";" | ")" | ","])
    }

    pub fn token_text(&self, token: &Token) -> &str {
        self.text.get(token.start as usize..token.end as usize).unwrap_or("")
    }

    /// Methods of a class with a name (`<init>` for constructors and initializers).
    pub fn methods_named(&self, class: ClassIdx, name: &str) -> &[MethodIdx] {
        self.members.methods.get(&(class, name.to_string())).map_or(&[], |v| v.as_slice())
    }

    /// A field of a class by name.
    pub fn field_named(&self, class: ClassIdx, name: &str) -> Option<u32> {
        self.members.fields.get(&(class, name.to_string())).copied()
    }

    /// Calls made by a method (its lambdas included).
    pub fn calls_of(&self, method: MethodIdx) -> impl Iterator<Item = &Call> {
        self.members.calls.get(method as usize).into_iter().flatten().map(|&i| &self.calls[i as usize])
    }

    /// Accesses made by a method (its lambdas included), with their indices.
    pub fn accesses_of(&self, method: MethodIdx) -> impl Iterator<Item = (usize, &Access)> {
        self.members
            .accesses
            .get(method as usize)
            .into_iter()
            .flatten()
            .map(|&i| (i as usize, &self.accesses[i as usize]))
    }

    /// The innermost class whose span contains `offset`.
    pub fn class_at(&self, offset: u32) -> Option<ClassIdx> {
        innermost(self.classes.iter().map(|c| c.span), offset)
    }

    /// The innermost method (or initializer) containing `offset`.
    pub fn method_at(&self, offset: u32) -> Option<MethodIdx> {
        innermost_sorted(&self.methods, |m| m.span, offset)
    }

    /// The innermost method containing any part of a 1-based line, preferring the method
    /// that contains the line's first non-blank byte.
    pub fn method_at_line(&self, line: u32) -> Option<MethodIdx> {
        let offset = self.first_code_offset(line);
        self.method_at(offset)
            .or_else(|| innermost_by(self.methods.iter().map(|m| m.span), |s| s.line <= line && line <= s.end_line))
    }

    pub fn class_at_line(&self, line: u32) -> Option<ClassIdx> {
        let offset = self.first_code_offset(line);
        self.class_at(offset)
            .or_else(|| innermost_by(self.classes.iter().map(|c| c.span), |s| s.line <= line && line <= s.end_line))
    }

    /// Byte offset of the first non-blank character of a line (or its start).
    pub fn first_code_offset(&self, line: u32) -> u32 {
        let start = self.lines.line_start(line);
        let end = self.lines.line_end(line, &self.text);
        let text = &self.text[start as usize..end as usize];
        start + (text.len() - text.trim_start().len()) as u32
    }

    /// The innermost unit (method or lambda body) containing `offset`.
    pub fn unit_at(&self, offset: u32) -> Option<UnitIdx> {
        // Units are in document order and nest: take the last one starting at or before
        // `offset`, then its parents until one contains it.
        let mut i = self.units.partition_point(|u| u.span.start <= offset).checked_sub(1)?;
        loop {
            let u = &self.units[i];
            if u.span.contains(offset) {
                return Some(i as UnitIdx);
            }
            match u.parent {
                Some(p) => i = p as usize,
                None => {
                    // A later top-level unit may not contain it; look back for one that does.
                    return self.units[..i]
                        .iter()
                        .rposition(|u| u.span.contains(offset) && u.parent.is_none())
                        .map(|j| j as UnitIdx);
                }
            }
        }
    }

    /// Lock regions held at `offset` when the code of `unit` runs there, outermost first
    /// (the last is the innermost region).
    pub fn locks_held(&self, unit: UnitIdx, offset: u32) -> impl Iterator<Item = &LockRegion> {
        self.held_regions(unit, offset).into_iter().map(|i| &self.locks[i])
    }

    /// Indices of the regions [`Self::locks_held`] yields. A lambda run inline also holds
    /// its parent's regions at the place it runs (a few levels of nesting).
    pub fn held_regions(&self, unit: UnitIdx, offset: u32) -> Vec<usize> {
        let mut chain = vec![(unit, offset)];
        let (mut u, mut depth) = (unit, 0);
        while let (Some(at), Some(parent), true) =
            (self.units[u as usize].inline_at, self.units[u as usize].parent, depth < 8)
        {
            chain.push((parent, at));
            u = parent;
            depth += 1;
        }
        let mut out = Vec::new();
        for &(unit, offset) in chain.iter().rev() {
            out.extend(
                self.locks
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.unit == unit && r.span.contains(offset))
                    .map(|(i, _)| i),
            );
        }
        out
    }

    /// The unit whose method's callers decide what else `unit` holds: itself, or for a
    /// lambda run inline, the unit it runs in (transitively). `None` for a lambda that
    /// runs later (its callers are unknown).
    pub fn holding_unit(&self, unit: UnitIdx) -> Option<UnitIdx> {
        let (u, _) = self.runs_at(unit, 0);
        let x = &self.units[u as usize];
        (!x.is_lambda && x.inline_at.is_none()).then_some(u)
    }

    /// Where code at `offset` of `unit` runs: the unit itself, or for a lambda run inline,
    /// the unit and offset it runs at (transitively, a few levels).
    pub fn runs_at(&self, unit: UnitIdx, offset: u32) -> (UnitIdx, u32) {
        let (mut u, mut at) = (unit, offset);
        for _ in 0..8 {
            match (self.units[u as usize].inline_at, self.units[u as usize].parent) {
                (Some(x), Some(p)) => (u, at) = (p, x),
                _ => break,
            }
        }
        (u, at)
    }

    /// Whether class `c` is `outer` or nested in it, at any depth.
    pub fn is_within(&self, c: ClassIdx, outer: ClassIdx) -> bool {
        let mut at = Some(c);
        for _ in 0..16 {
            match at {
                Some(x) if x == outer => return true,
                Some(x) => at = self.classes[x as usize].outer,
                None => return false,
            }
        }
        false
    }

    /// The method a unit belongs to (lambdas belong to their enclosing method).
    pub fn unit_method(&self, unit: UnitIdx) -> &MethodFacts {
        &self.methods[self.units[unit as usize].method as usize]
    }

    /// `Class.method` as a developer reads it: `Pool.borrow`, `Pool$Worker.run`.
    pub fn method_display(&self, method: MethodIdx) -> String {
        let m = &self.methods[method as usize];
        let class = &self.classes[m.class as usize];
        let short = class.binary_name.rsplit('.').next().unwrap_or(&class.binary_name);
        let name = match m.kind {
            MethodKind::Constructor => short.rsplit('$').next().unwrap_or(short).to_string(),
            _ => m.name.clone(),
        };
        format!("{short}.{name}")
    }
}

/// The innermost of nested spans in document order that contains `offset`: the last one
/// starting at or before it that contains it (nested spans start after their parent).
fn innermost_sorted<T>(items: &[T], span: impl Fn(&T) -> Span, offset: u32) -> Option<u32> {
    let end = items.partition_point(|t| span(t).start <= offset);
    items[..end].iter().rposition(|t| span(t).contains(offset)).map(|i| i as u32)
}

/// The innermost of nested spans that contains `offset` (the one starting last).
fn innermost(spans: impl Iterator<Item = Span>, offset: u32) -> Option<u32> {
    innermost_by(spans, |s| s.contains(offset))
}

fn innermost_by(spans: impl Iterator<Item = Span>, pred: impl Fn(&Span) -> bool) -> Option<u32> {
    let mut best: Option<(u32, Span)> = None;
    for (i, s) in spans.enumerate() {
        if pred(&s) && best.is_none_or(|(_, b)| s.start >= b.start && s.end <= b.end) {
            best = Some((i as u32, s));
        }
    }
    best.map(|(i, _)| i)
}

/// A receiver as text, with locals by name, so that the same code in two versions of a
/// file gives the same key.
pub fn expr_key(facts: &FileFacts, e: &Expr) -> String {
    match e {
        Expr::This => "this".into(),
        Expr::Super => "super".into(),
        Expr::OuterThis(o) => format!("{o}.this"),
        Expr::Name(n) => n.clone(),
        Expr::Local(l) => facts.locals.get(*l as usize).map(|l| l.name.clone()).unwrap_or_default(),
        Expr::Field(o, f) => format!("{}.{f}", expr_key(facts, o)),
        Expr::Call { receiver, name, args } => {
            let r = receiver.as_deref().map(|r| format!("{}.", expr_key(facts, r))).unwrap_or_default();
            format!("{r}{name}/{}", args.len())
        }
        Expr::New(t) => format!("new {}", t.name),
        Expr::Cast(t, e) => format!("({}){}", t.name, expr_key(facts, e)),
        Expr::Element(e) => format!("{}[]", expr_key(facts, e)),
        Expr::ClassLiteral(t) => format!("{}.class", t.name),
        Expr::Str(s) => format!("{s:?}"),
        Expr::Lambda(_) => "->".into(),
        Expr::MethodReference => "::".into(),
        Expr::Other => "?".into(),
    }
}
