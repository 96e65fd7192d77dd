//! Name resolution across files: type names, fields, the declared type of an
//! expression, and the callees of a call.
//!
//! CAPP section 3.1, step 4: "our implementation does not compute any precise call graph
//! but simply approximates the set of callees using the statically declared type of the
//! receiver objects". So do we: the declared type's class and its supertypes; for an
//! interface or an abstract method, the implementations known in the project (capped).
//! Classes outside the project are names only, unless the resolver reads JDK sources.

use std::collections::HashSet;
use std::sync::Arc;

use super::{ClassRef, FieldKey, MethodRef, Origin, ProjectIndex, Symbols};
use crate::java::{
    Call, CallKind, ClassIdx, ClassKind, Expr, FieldDecl, FileFacts, MethodFacts, MethodKind, TypeRef, UnitIdx,
};

/// How many implementations of an interface method a call may dispatch to.
pub const MAX_IMPLEMENTATIONS: usize = 8;
const MAX_DEPTH: u32 = 8;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeName {
    /// A class whose source we have (the project's, or a loaded JDK class).
    Class(ClassRef),
    /// A class known by name only: `java.util.HashMap`.
    External(String),
    Unknown,
}

/// A resolved type: a class (or external name), its type arguments, array dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ty {
    pub name: TypeName,
    pub args: Vec<Ty>,
    pub dims: u8,
    /// The expression names a type, not a value (`Pool.count`, `Math.max(...)`).
    pub is_static_ref: bool,
}

impl Ty {
    fn of(name: TypeName) -> Ty {
        Ty { name, args: Vec::new(), dims: 0, is_static_ref: false }
    }
    /// The class, when this is no array.
    pub fn class(&self) -> Option<ClassRef> {
        match (&self.name, self.dims) {
            (TypeName::Class(c), 0) => Some(*c),
            _ => None,
        }
    }
}

/// What a JDK container's element accessor returns when its source is not indexed: the
/// value type of a map's `get`/`computeIfAbsent`/…, the element type of a collection's
/// `get`/`poll`/`peek`/…, the value of an `AtomicReference`, `ThreadLocal`, `Optional` or
/// future's `get`.
fn element_returned(on: &Ty, method: &str, argc: usize) -> Option<Ty> {
    let TypeName::External(q) = &on.name else { return None };
    if !(q.starts_with("java.util.")
        || q.starts_with("java.lang.ThreadLocal")
        || q.starts_with("java.lang.InheritableThreadLocal"))
        || on.dims > 0
    {
        return None;
    }
    let arg = match (on.args.len(), method, argc) {
        // `remove(k, v)` and `replace(k, old, new)` answer whether they did it.
        (2, "remove", 1) | (2, "replace", 2) => on.args.last(),
        (
            2,
            "get" | "getOrDefault" | "put" | "computeIfAbsent" | "computeIfPresent" | "compute" | "merge"
            | "putIfAbsent",
            _,
        ) => on.args.last(),
        // A queue's `remove()` takes the head; `remove(o)` answers whether it was there.
        (1, "remove", 0) => on.args.first(),
        (
            1,
            "get" | "poll" | "peek" | "take" | "element" | "first" | "last" | "pollFirst" | "pollLast" | "peekFirst"
            | "peekLast" | "pop" | "removeFirst" | "removeLast" | "getFirst" | "getLast" | "floor" | "ceiling"
            | "higher" | "lower" | "orElse" | "orElseThrow" | "join" | "getNow" | "getAndSet" | "getPlain"
            | "getAcquire" | "getOpaque" | "next",
            _,
        ) => on.args.first(),
        _ => None,
    };
    arg.filter(|a| a.name != TypeName::Unknown).cloned()
}

/// A type variable's name, as the JDK writes them: one capital letter (`E`, `K`, `V`, `T`).
fn is_type_variable(name: &str) -> bool {
    name.len() == 1 && name.starts_with(|c: char| c.is_ascii_uppercase())
}

pub struct Resolver<'a> {
    index: &'a ProjectIndex,
    symbols: &'a Symbols,
    with_jdk: bool,
    /// [`Resolver::type_name`]'s answers, by where the name is written: a file names the
    /// same few types again and again, and the index cannot change while it is borrowed.
    type_names: TypeNames,
    /// What the answers so far depended on, outside the index's own file.
    deps: std::cell::RefCell<Dependencies>,
}

/// What a file's resolution read of the rest of the project: which files' facts, which class
/// names it looked up in the symbol table (found or not), and whether it asked for the
/// subtypes of a class. A change of declarations elsewhere re-resolves the file only when
/// it touches one of these ([`super::ProjectIndex::commit`]).
#[derive(Clone, Debug, Default)]
pub struct Dependencies {
    pub files: std::collections::BTreeSet<super::FileId>,
    pub names: std::collections::BTreeSet<String>,
    pub subtypes: bool,
}

impl Dependencies {
    /// Whether changed declarations reach what was read: the facts of one of the `changed`
    /// files, or a lookup of one of `names` (the class names they declare or declared).
    pub(super) fn touched_by(
        &self,
        changed: &std::collections::HashMap<super::FileId, Vec<String>>,
        names: &std::collections::BTreeSet<String>,
    ) -> bool {
        self.files.iter().any(|f| changed.contains_key(f)) || names.iter().any(|n| self.names.contains(n))
    }
}

type TypeNames = std::cell::RefCell<
    std::collections::HashMap<(Origin, Option<ClassIdx>), std::collections::HashMap<Box<str>, TypeName>>,
>;

impl<'a> Resolver<'a> {
    pub(super) fn new(index: &'a ProjectIndex, with_jdk: bool) -> Resolver<'a> {
        Resolver::over(index, index.symbols(), with_jdk)
    }

    pub(super) fn over(index: &'a ProjectIndex, symbols: &'a Symbols, with_jdk: bool) -> Resolver<'a> {
        Resolver { index, symbols, with_jdk, type_names: Default::default(), deps: Default::default() }
    }

    /// What the answers it gave depended on, once it is done.
    pub fn into_dependencies(self) -> Dependencies {
        self.deps.into_inner()
    }

    /// A class by the name imports and qualified references use, noting the name asked for.
    fn by_source(&self, name: &str) -> Option<ClassRef> {
        self.deps.borrow_mut().names.insert(name.to_string());
        self.symbols.by_source(name)
    }

    pub fn index(&self) -> &'a ProjectIndex {
        self.index
    }

    pub fn facts(&self, origin: Origin) -> Option<Arc<FileFacts>> {
        if let Origin::Project(id) = origin {
            self.deps.borrow_mut().files.insert(id);
        }
        self.index.facts(origin)
    }

    pub fn class_name(&self, class: ClassRef) -> String {
        self.facts(class.origin).map(|f| f.classes[class.idx as usize].binary_name.clone()).unwrap_or_default()
    }

    /// The qualified name of a type: `java.util.HashMap`, `pkg.Pool$Entry`.
    pub fn qualified_name(&self, ty: &TypeName) -> Option<String> {
        match ty {
            TypeName::Class(c) => Some(self.class_name(*c)),
            TypeName::External(n) => Some(n.clone()),
            TypeName::Unknown => None,
        }
    }

    // ----- types ------------------------------------------------------------------------------

    /// A class by its dotted source name, in the project or (names only, or loaded when
    /// reading JDK sources) in the JDK.
    pub fn qualified(&self, name: &str) -> Option<TypeName> {
        if let Some(c) = self.by_source(name) {
            return Some(TypeName::Class(c));
        }
        // A nested project class: `pkg.Outer.Inner` is found by its outer class.
        if let Some((head, last)) = name.rsplit_once('.') {
            if let Some(TypeName::Class(outer)) = self.by_source(head).map(TypeName::Class) {
                if let Some(m) = self.member_class(outer, last) {
                    return Some(TypeName::Class(m));
                }
            }
        }
        match self.index.jdk() {
            Some(jdk) => {
                if self.with_jdk {
                    if let Some((file, idx)) = jdk.find_class(name) {
                        return Some(TypeName::Class(ClassRef { origin: Origin::Jdk(file), idx }));
                    }
                }
                let top_known =
                    jdk.has_class(name) || name.rsplit_once('.').is_some_and(|(head, _)| jdk.has_class(head));
                top_known.then(|| TypeName::External(name.to_string()))
            }
            None => well_known_jdk_class(name).then(|| TypeName::External(name.to_string())),
        }
    }

    fn member_class(&self, outer: ClassRef, name: &str) -> Option<ClassRef> {
        let facts = self.facts(outer.origin)?;
        facts
            .classes
            .iter()
            .position(|c| c.outer == Some(outer.idx) && c.simple_name == name && !c.is_local)
            .map(|i| ClassRef { origin: outer.origin, idx: i as ClassIdx })
    }

    /// Resolves a type name as written in `origin`, inside class `ctx`.
    pub fn type_name(&self, origin: Origin, ctx: Option<ClassIdx>, name: &str) -> TypeName {
        if let Some(known) = self.type_names.borrow().get(&(origin, ctx)).and_then(|names| names.get(name)) {
            return known.clone();
        }
        let found = self.find_type_name(origin, ctx, name);
        self.type_names.borrow_mut().entry((origin, ctx)).or_default().insert(name.into(), found.clone());
        found
    }

    fn find_type_name(&self, origin: Origin, ctx: Option<ClassIdx>, name: &str) -> TypeName {
        let Some(facts) = self.facts(origin) else { return TypeName::Unknown };
        if let Some((head, rest)) = name.split_once('.') {
            return match self.type_name(origin, ctx, head) {
                TypeName::Class(c) => {
                    let mut cur = Some(c);
                    for part in rest.split('.') {
                        cur = cur.and_then(|c| self.member_class(c, part));
                    }
                    cur.map(TypeName::Class).or_else(|| self.qualified(name)).unwrap_or(TypeName::Unknown)
                }
                TypeName::External(q) => {
                    self.qualified(&format!("{q}.{rest}")).unwrap_or(TypeName::External(format!("{q}.{rest}")))
                }
                TypeName::Unknown => self.qualified(name).unwrap_or(TypeName::Unknown),
            };
        }
        // Classes in scope: the class itself, its members, then outward.
        let mut k = ctx;
        while let Some(ci) = k {
            let c = &facts.classes[ci as usize];
            if c.simple_name == name {
                return TypeName::Class(ClassRef { origin, idx: ci });
            }
            if let Some(m) = self.member_class(ClassRef { origin, idx: ci }, name) {
                return TypeName::Class(m);
            }
            // Member classes inherited from project supertypes (one level is the common case).
            for sup in self.supertypes(ClassRef { origin, idx: ci }) {
                if let TypeName::Class(s) = sup {
                    if let Some(m) = self.member_class(s, name) {
                        return TypeName::Class(m);
                    }
                }
            }
            k = c.outer;
        }
        // Local classes of this file.
        if let Some(i) = facts.classes.iter().position(|c| c.is_local && c.simple_name == name) {
            return TypeName::Class(ClassRef { origin, idx: i as ClassIdx });
        }
        let suffix = format!(".{name}");
        for imp in &facts.imports {
            if imp.ends_with(&suffix) {
                return self.qualified(imp).unwrap_or_else(|| TypeName::External(imp.clone()));
            }
        }
        let same_package = match &facts.package {
            Some(p) => format!("{p}.{name}"),
            None => name.to_string(),
        };
        if let Some(t) = self.qualified(&same_package) {
            return t;
        }
        for imp in &facts.imports {
            if let Some(pkg) = imp.strip_suffix(".*") {
                if let Some(t) = self.qualified(&format!("{pkg}.{name}")) {
                    return t;
                }
            }
        }
        if let Some(t) = self.qualified(&format!("java.lang.{name}")) {
            return t;
        }
        if name.starts_with(|c: char| c.is_ascii_uppercase()) && name.len() > 1 {
            TypeName::External(name.to_string())
        } else {
            TypeName::Unknown
        }
    }

    pub fn ty(&self, origin: Origin, ctx: Option<ClassIdx>, t: &TypeRef) -> Ty {
        if t.is_primitive() {
            return Ty { name: TypeName::External(t.name.clone()), args: Vec::new(), dims: 0, is_static_ref: false };
        }
        let base = if t.array_dims > 0 && is_primitive_name(&t.name) {
            TypeName::External(t.name.clone())
        } else {
            self.type_name(origin, ctx, &t.name)
        };
        Ty {
            name: base,
            args: t.args.iter().map(|a| self.ty(origin, ctx, a)).collect(),
            dims: t.array_dims,
            is_static_ref: false,
        }
    }

    /// Superclass and interfaces, resolved where the class is declared.
    pub fn supertypes(&self, class: ClassRef) -> Vec<TypeName> {
        let Some(facts) = self.facts(class.origin) else { return Vec::new() };
        let c = &facts.classes[class.idx as usize];
        let ctx = c.outer;
        let mut out = Vec::new();
        for t in c.superclass.iter().chain(c.interfaces.iter()) {
            let n = self.type_name(class.origin, ctx, &t.name);
            // A class is not its own supertype (a broken file can say so).
            if n != TypeName::Class(class) {
                out.push(n);
            }
        }
        out
    }

    /// Whether `class` is, or extends or implements, a type with one of these names
    /// (simple or qualified), through project and known supertypes.
    pub fn is_subtype_of(&self, class: ClassRef, names: &[&str]) -> bool {
        let mut seen = HashSet::new();
        let mut stack = vec![TypeName::Class(class)];
        while let Some(t) = stack.pop() {
            if !seen.insert(t.clone()) || seen.len() > 64 {
                continue;
            }
            match &t {
                TypeName::Class(c) => {
                    let name = self.class_name(*c);
                    if names.iter().any(|n| name_matches(&name, n)) {
                        return true;
                    }
                    stack.extend(self.supertypes(*c));
                }
                TypeName::External(n) => {
                    if names.iter().any(|x| name_matches(n, x)) {
                        return true;
                    }
                }
                TypeName::Unknown => {}
            }
        }
        false
    }

    // ----- fields -----------------------------------------------------------------------------

    /// A field by name in a class or its supertypes: the declaring class and the field.
    pub fn find_field(&self, class: ClassRef, name: &str) -> Option<(ClassRef, u32)> {
        let mut seen = HashSet::new();
        self.find_field_in(class, name, &mut seen)
    }

    fn find_field_in(&self, class: ClassRef, name: &str, seen: &mut HashSet<ClassRef>) -> Option<(ClassRef, u32)> {
        if !seen.insert(class) || seen.len() > 32 {
            return None;
        }
        let facts = self.facts(class.origin)?;
        if let Some(i) = facts.field_named(class.idx, name) {
            return Some((class, i));
        }
        for sup in self.supertypes(class) {
            if let TypeName::Class(s) = sup {
                if let Some(found) = self.find_field_in(s, name, seen) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// A bare name used in class `ctx`: a field of it, of its supertypes, of an enclosing
    /// class, or a statically imported one.
    pub fn implicit_field(&self, origin: Origin, ctx: ClassIdx, name: &str) -> Option<(ClassRef, u32)> {
        let facts = self.facts(origin)?;
        let mut k = Some(ctx);
        while let Some(ci) = k {
            if let Some(found) = self.find_field(ClassRef { origin, idx: ci }, name) {
                return Some(found);
            }
            k = facts.classes[ci as usize].outer;
        }
        for imp in &facts.static_imports {
            let (owner, member) = imp.rsplit_once('.')?;
            if member == name || member == "*" {
                if let Some(TypeName::Class(c)) = self.qualified(owner) {
                    if let Some(found) = self.find_field(c, name) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    pub fn field_decl(&self, field: (ClassRef, u32)) -> Option<(Arc<FileFacts>, u32)> {
        let facts = self.facts(field.0.origin)?;
        Some((facts, field.1))
    }

    pub fn field_key(&self, field: (ClassRef, u32), element: bool) -> Option<FieldKey> {
        let facts = self.facts(field.0.origin)?;
        let f: &FieldDecl = facts.fields.get(field.1 as usize)?;
        Some(FieldKey::new(&facts.classes[f.class as usize].binary_name, &f.name, element))
    }

    /// A field's type, resolved where it is declared. A `final` field initialized with
    /// `new C(...)` holds a `C`, whatever interface it is declared as: calls on it resolve
    /// to `C`'s methods (`queue.isEmpty()` on a `ConcurrentLinkedQueue`).
    pub fn field_type(&self, field: (ClassRef, u32)) -> Option<Ty> {
        let facts = self.facts(field.0.origin)?;
        let f = facts.fields.get(field.1 as usize)?;
        let declared = self.ty(field.0.origin, Some(f.class), &f.ty);
        if let (true, Some(Expr::New(t))) = (f.is_final, &f.init) {
            let created = self.ty(field.0.origin, Some(f.class), t);
            if created.class().is_some() {
                return Some(Ty { args: declared.args, ..created });
            }
        }
        Some(declared)
    }

    // ----- expressions ------------------------------------------------------------------------

    /// The class whose code a unit is.
    pub fn unit_class(facts: &FileFacts, unit: UnitIdx) -> ClassIdx {
        facts.methods[facts.units[unit as usize].method as usize].class
    }

    /// What a receiver expression refers to when it is a field: `count`, `this.count`,
    /// `pool.count`.
    pub fn field_of_expr(&self, origin: Origin, facts: &FileFacts, unit: UnitIdx, e: &Expr) -> Option<(ClassRef, u32)> {
        let ctx = Self::unit_class(facts, unit);
        match e {
            Expr::Name(n) => self.implicit_field(origin, ctx, n),
            Expr::Field(object, n) => {
                let t = self.type_of(origin, facts, unit, object)?;
                self.find_field(t.class()?, n)
            }
            Expr::Local(l) => {
                // A local that aliases a field (`Queue q = this.queue;`), never reassigned.
                let local = facts.locals.get(*l as usize)?;
                match (&local.init, local.reassigned) {
                    (Some(init @ (Expr::Name(_) | Expr::Field(..))), false) => {
                        self.field_of_expr(origin, facts, unit, init)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether an expression's declared type is, or is a subtype of, one of the classes
    /// `names` (simple names; a JDK type without sources by its own simple name).
    pub fn is_of_type(&self, origin: Origin, facts: &FileFacts, unit: UnitIdx, e: &Expr, names: &[&str]) -> bool {
        let Some(ty) = self.type_of(origin, facts, unit, e) else { return false };
        match ty.class() {
            Some(c) => self.is_subtype_of(c, names),
            None => self
                .qualified_name(&ty.name)
                .is_some_and(|q| names.contains(&q.rsplit(['.', '$']).next().unwrap_or(&q))),
        }
    }

    /// The declared type of an expression in a unit.
    pub fn type_of(&self, origin: Origin, facts: &FileFacts, unit: UnitIdx, e: &Expr) -> Option<Ty> {
        self.type_of_at(origin, facts, unit, e, 0)
    }

    fn type_of_at(&self, origin: Origin, facts: &FileFacts, unit: UnitIdx, e: &Expr, depth: u32) -> Option<Ty> {
        if depth > MAX_DEPTH {
            return None;
        }
        let ctx = Self::unit_class(facts, unit);
        match e {
            Expr::This => Some(Ty::of(TypeName::Class(ClassRef { origin, idx: ctx }))),
            Expr::OuterThis(name) => {
                let mut k = Some(ctx);
                while let Some(ci) = k {
                    if facts.classes[ci as usize].simple_name == *name {
                        return Some(Ty::of(TypeName::Class(ClassRef { origin, idx: ci })));
                    }
                    k = facts.classes[ci as usize].outer;
                }
                None
            }
            Expr::Super => {
                let sup = self.supertypes(ClassRef { origin, idx: ctx }).into_iter().next()?;
                Some(Ty::of(sup))
            }
            Expr::Local(l) => {
                let local = facts.locals.get(*l as usize)?;
                // A local never assigned again holds what its initializer made, which may be
                // more precise than its declared interface.
                let initialized = match (&local.init, local.reassigned) {
                    (Some(init @ (Expr::New(_) | Expr::Name(_) | Expr::Field(..))), false) => {
                        self.type_of_at(origin, facts, unit, init, depth + 1).filter(|t| t.class().is_some())
                    }
                    _ => None,
                };
                match (initialized, &local.ty, &local.init) {
                    (Some(t), _, _) => Some(t),
                    (None, Some(t), _) => Some(self.ty(origin, Some(ctx), t)),
                    (None, None, Some(init)) => self.type_of_at(origin, facts, unit, init, depth + 1),
                    (None, None, None) => None,
                }
            }
            Expr::Name(n) => match self.implicit_field(origin, ctx, n) {
                Some(field) => self.field_type(field),
                None => self.static_ref(origin, ctx, n),
            },
            Expr::Field(object, n) => {
                match self.type_of_at(origin, facts, unit, object, depth + 1) {
                    Some(t) if t.dims > 0 => None, // `array.length`
                    Some(t) => {
                        let class = t.class()?;
                        match self.find_field(class, n) {
                            Some(field) => self.field_type(field),
                            // `Outer.Inner` used as a qualifier
                            None if t.is_static_ref => self
                                .member_class(class, n)
                                .map(|m| Ty { is_static_ref: true, ..Ty::of(TypeName::Class(m)) }),
                            None => None,
                        }
                    }
                    // `java.util.Collections`: a package-qualified type
                    None => {
                        let dotted = dotted_name(e)?;
                        let t = self.qualified(&dotted)?;
                        Some(Ty { is_static_ref: true, ..Ty::of(t) })
                    }
                }
            }
            Expr::Call { receiver, name, args } => {
                let call = Call {
                    name: name.clone(),
                    receiver: receiver.as_deref().cloned(),
                    args: args.clone(),
                    kind: CallKind::Method,
                    span: Default::default(),
                    full: Default::default(),
                    unit,
                };
                let Some(callee) = self.callees_at(origin, facts, &call, depth + 1).into_iter().next() else {
                    // A JDK container whose sources are not at hand: its element accessors;
                    // a record's implicit accessor (`entry.job()`): its component's type.
                    let on = self.type_of_at(origin, facts, unit, receiver.as_deref()?, depth + 1)?;
                    return element_returned(&on, name, args.len())
                        .or_else(|| self.record_component(&on, name, args.len()));
                };
                let cf = self.facts(callee.origin)?;
                let m = &cf.methods[callee.idx as usize];
                let rt = m.return_type.as_ref()?;
                let t = self.ty(callee.origin, Some(m.class), rt);
                match (&t.name, receiver) {
                    // A type variable (`V get(Object)`): the receiver's type argument it
                    // stands for, after the JDK's naming (`K`, `V`, `E`, `T`): what
                    // `map.computeIfAbsent(k, f).add()` calls `add` on.
                    (TypeName::Unknown, Some(recv))
                        if t.args.is_empty() && t.dims == 0 && is_type_variable(&rt.name) =>
                    {
                        let on = self.type_of_at(origin, facts, unit, recv, depth + 1)?;
                        let arg = match rt.name.as_str() {
                            "K" => on.args.first(),
                            "V" => on.args.last(),
                            _ => on.args.first(),
                        };
                        arg.filter(|a| a.name != TypeName::Unknown).cloned()
                    }
                    _ => Some(t),
                }
            }
            Expr::New(t) => Some(self.ty(origin, Some(ctx), t)),
            Expr::Cast(t, _) => Some(self.ty(origin, Some(ctx), t)),
            Expr::Element(inner) => {
                let mut t = self.type_of_at(origin, facts, unit, inner, depth + 1)?;
                t.dims = t.dims.checked_sub(1)?;
                Some(t)
            }
            Expr::ClassLiteral(_) => Some(Ty::of(TypeName::External("java.lang.Class".into()))),
            Expr::Str(_) => Some(Ty::of(TypeName::External("java.lang.String".into()))),
            Expr::Lambda(_) | Expr::MethodReference | Expr::Other => None,
        }
    }

    /// The type of a record's component `name`, which its implicit accessor `name()` returns
    /// (JLS 8.10.3); `None` for other classes and for explicit accessors (resolved as
    /// methods).
    fn record_component(&self, on: &Ty, name: &str, argc: usize) -> Option<Ty> {
        let class = on.class().filter(|_| argc == 0 && on.dims == 0)?;
        let cf = self.facts(class.origin)?;
        if cf.classes.get(class.idx as usize)?.kind != ClassKind::Record {
            return None;
        }
        let field = cf.fields.iter().find(|f| f.class == class.idx && !f.is_static && *f.name == *name)?;
        Some(self.ty(class.origin, Some(class.idx), &field.ty))
    }

    /// A name used as a type in an expression (`Math.max`, `Pool.instances`).
    fn static_ref(&self, origin: Origin, ctx: ClassIdx, name: &str) -> Option<Ty> {
        if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            return None;
        }
        match self.type_name(origin, Some(ctx), name) {
            TypeName::Unknown => None,
            t => Some(Ty { is_static_ref: true, ..Ty::of(t) }),
        }
    }

    // ----- methods and calls ------------------------------------------------------------------

    /// Methods named `name` taking `argc` arguments, declared in `class` or, failing that,
    /// in its nearest supertype that has one.
    pub fn methods_named(&self, class: ClassRef, name: &str, argc: usize) -> Vec<MethodRef> {
        let mut seen = HashSet::new();
        let mut level = vec![class];
        while !level.is_empty() {
            let mut found = Vec::new();
            let mut next = Vec::new();
            for c in level {
                if !seen.insert(c) || seen.len() > 32 {
                    continue;
                }
                let Some(facts) = self.facts(c.origin) else { continue };
                for &i in facts.methods_named(c.idx, name) {
                    if arity_matches(&facts.methods[i as usize], argc) {
                        found.push(MethodRef { origin: c.origin, idx: i });
                    }
                }
                next.extend(self.supertypes(c).into_iter().filter_map(|t| match t {
                    TypeName::Class(s) => Some(s),
                    _ => None,
                }));
            }
            if !found.is_empty() {
                return found;
            }
            level = next;
        }
        Vec::new()
    }

    /// Project implementations of a method declared in an interface or abstract class.
    fn implementations(&self, declared_in: ClassRef, name: &str, argc: usize) -> Vec<MethodRef> {
        let mut out = Vec::new();
        self.deps.borrow_mut().subtypes = true;
        for sub in self.symbols.all_subtypes(declared_in, 64) {
            if out.len() >= MAX_IMPLEMENTATIONS {
                break;
            }
            let Some(facts) = self.facts(sub.origin) else { continue };
            for &i in facts.methods_named(sub.idx, name) {
                let m = &facts.methods[i as usize];
                if arity_matches(m, argc) && !m.is_abstract && out.len() < MAX_IMPLEMENTATIONS {
                    out.push(MethodRef { origin: sub.origin, idx: i });
                }
            }
        }
        out
    }

    /// Methods a call may run, through the declared type of its receiver.
    pub fn callees(&self, origin: Origin, facts: &FileFacts, call: &Call) -> Vec<MethodRef> {
        self.callees_at(origin, facts, call, 0)
    }

    fn callees_at(&self, origin: Origin, facts: &FileFacts, call: &Call, depth: u32) -> Vec<MethodRef> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let ctx = Self::unit_class(facts, call.unit);
        let argc = call.args.len();
        match &call.kind {
            CallKind::Method | CallKind::Reference => {
                let any_arity = matches!(call.kind, CallKind::Reference);
                let (class, dispatch) = match &call.receiver {
                    None => {
                        let mut k = Some(ctx);
                        while let Some(ci) = k {
                            let found = self.methods_for(ClassRef { origin, idx: ci }, &call.name, argc, any_arity);
                            if !found.is_empty() {
                                return found;
                            }
                            k = facts.classes[ci as usize].outer;
                        }
                        return self.statically_imported_method(facts, &call.name, argc);
                    }
                    Some(Expr::Super) => match self.supertypes(ClassRef { origin, idx: ctx }).into_iter().next() {
                        Some(TypeName::Class(s)) => (s, false),
                        _ => return Vec::new(),
                    },
                    Some(r) => match self.type_of_at(origin, facts, call.unit, r, depth).and_then(|t| t.class()) {
                        Some(c) => (c, true),
                        None => return Vec::new(),
                    },
                };
                let mut found = self.methods_for(class, &call.name, argc, any_arity);
                if dispatch {
                    let cf = self.facts(class.origin);
                    let is_interface =
                        cf.as_ref().is_some_and(|f| f.classes[class.idx as usize].kind == ClassKind::Interface);
                    let is_abstract = found
                        .iter()
                        .any(|m| self.facts(m.origin).is_some_and(|f| f.methods[m.idx as usize].is_abstract));
                    if is_interface || is_abstract {
                        let decl = found.first().map(|m| ClassRef {
                            origin: m.origin,
                            idx: self.facts(m.origin).map_or(0, |f| f.methods[m.idx as usize].class),
                        });
                        found.extend(self.implementations(decl.unwrap_or(class), &call.name, argc));
                        found.dedup();
                    }
                }
                found
            }
            CallKind::New { ty, anonymous } => {
                let class = match anonymous {
                    Some(a) => Some(ClassRef { origin, idx: *a }),
                    None => self.ty(origin, Some(ctx), ty).class(),
                };
                let Some(class) = class else { return Vec::new() };
                let mut out = self.constructors(class, argc);
                if anonymous.is_some() {
                    if let Some(TypeName::Class(sup)) = self.supertypes(class).into_iter().next() {
                        out.extend(self.constructors(sup, argc));
                    }
                }
                out
            }
            CallKind::ConstructorChain { is_super } => {
                let own = ClassRef { origin, idx: ctx };
                let class = if *is_super {
                    match self.supertypes(own).into_iter().next() {
                        Some(TypeName::Class(s)) => s,
                        _ => return Vec::new(),
                    }
                } else {
                    own
                };
                self.constructors(class, argc)
            }
        }
    }

    fn methods_for(&self, class: ClassRef, name: &str, argc: usize, any_arity: bool) -> Vec<MethodRef> {
        if !any_arity {
            return self.methods_named(class, name, argc);
        }
        let Some(facts) = self.facts(class.origin) else { return Vec::new() };
        facts
            .methods_named(class.idx, name)
            .iter()
            .take(4)
            .map(|&idx| MethodRef { origin: class.origin, idx })
            .collect()
    }

    /// Constructors with this arity, plus the class's field initializers (javac runs
    /// them in every constructor).
    fn constructors(&self, class: ClassRef, argc: usize) -> Vec<MethodRef> {
        let Some(facts) = self.facts(class.origin) else { return Vec::new() };
        facts
            .methods_named(class.idx, "<init>")
            .iter()
            .filter(|&&i| {
                let m = &facts.methods[i as usize];
                (m.kind == MethodKind::Constructor && arity_matches(m, argc))
                    || (m.kind == MethodKind::Initializer && !m.is_static)
            })
            .map(|&idx| MethodRef { origin: class.origin, idx })
            .collect()
    }

    fn statically_imported_method(&self, facts: &FileFacts, name: &str, argc: usize) -> Vec<MethodRef> {
        for imp in &facts.static_imports {
            let Some((owner, member)) = imp.rsplit_once('.') else { continue };
            if member == name || member == "*" {
                if let Some(TypeName::Class(c)) = self.qualified(owner) {
                    let found = self.methods_named(c, name, argc);
                    if !found.is_empty() {
                        return found;
                    }
                }
            }
        }
        Vec::new()
    }

    pub fn method(&self, m: MethodRef) -> Option<(Arc<FileFacts>, MethodIdx)> {
        let facts = self.facts(m.origin)?;
        Some((facts, m.idx))
    }
}

type MethodIdx = u32;

fn arity_matches(m: &MethodFacts, argc: usize) -> bool {
    m.params.len() == argc || (m.varargs && argc + 1 >= m.params.len())
}

fn is_primitive_name(n: &str) -> bool {
    matches!(n, "int" | "long" | "short" | "byte" | "char" | "boolean" | "float" | "double")
}

/// `java.util.concurrent.locks.Lock` matches `Lock` and the qualified name itself.
fn name_matches(full: &str, wanted: &str) -> bool {
    full == wanted || full.rsplit(['.', '$']).next() == Some(wanted) && !wanted.contains('.')
}

/// `a.b.C` from `Field(Field(Name(a), b), C)`.
fn dotted_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.clone()),
        Expr::Field(o, n) => Some(format!("{}.{n}", dotted_name(o)?)),
        _ => None,
    }
}

/// JDK classes racelens must recognise by name when the JDK's sources are not installed.
pub(crate) fn well_known_jdk_class(name: &str) -> bool {
    let Some((pkg, simple)) = name.rsplit_once('.') else { return false };
    let list: &[&str] = match pkg {
        "java.lang" => &[
            "Object",
            "String",
            "Thread",
            "Runnable",
            "Integer",
            "Long",
            "Boolean",
            "Character",
            "Byte",
            "Short",
            "Double",
            "Float",
            "Number",
            "Math",
            "System",
            "StringBuilder",
            "StringBuffer",
            "Exception",
            "RuntimeException",
            "Error",
            "Throwable",
            "InterruptedException",
            "IllegalStateException",
            "IllegalArgumentException",
            "Class",
            "Iterable",
            "Comparable",
            "AutoCloseable",
            "Override",
            "Deprecated",
            "SuppressWarnings",
            "FunctionalInterface",
            "Void",
            "Enum",
            "Record",
            "ThreadLocal",
            "InheritableThreadLocal",
            "UnsupportedOperationException",
            "NullPointerException",
            "AssertionError",
            "ThreadGroup",
            "Runtime",
            "CharSequence",
        ],
        "java.util" => &[
            "List",
            "ArrayList",
            "LinkedList",
            "Map",
            "HashMap",
            "LinkedHashMap",
            "TreeMap",
            "SortedMap",
            "NavigableMap",
            "Set",
            "HashSet",
            "LinkedHashSet",
            "TreeSet",
            "SortedSet",
            "NavigableSet",
            "Queue",
            "Deque",
            "ArrayDeque",
            "PriorityQueue",
            "Collection",
            "Collections",
            "Iterator",
            "ListIterator",
            "Vector",
            "Hashtable",
            "Stack",
            "Optional",
            "Objects",
            "Arrays",
            "Random",
            "IdentityHashMap",
            "WeakHashMap",
            "EnumMap",
            "EnumSet",
            "BitSet",
            "Timer",
            "TimerTask",
            "Comparator",
            "UUID",
            "Properties",
        ],
        "java.util.concurrent" => &[
            "ConcurrentHashMap",
            "ConcurrentMap",
            "ConcurrentLinkedQueue",
            "ConcurrentLinkedDeque",
            "CopyOnWriteArrayList",
            "CopyOnWriteArraySet",
            "BlockingQueue",
            "BlockingDeque",
            "LinkedBlockingQueue",
            "ArrayBlockingQueue",
            "LinkedBlockingDeque",
            "PriorityBlockingQueue",
            "SynchronousQueue",
            "DelayQueue",
            "LinkedTransferQueue",
            "ConcurrentSkipListMap",
            "ConcurrentSkipListSet",
            "ExecutorService",
            "Executors",
            "Executor",
            "ThreadPoolExecutor",
            "ScheduledExecutorService",
            "ScheduledThreadPoolExecutor",
            "Future",
            "CompletableFuture",
            "Callable",
            "CountDownLatch",
            "CyclicBarrier",
            "Semaphore",
            "Phaser",
            "Exchanger",
            "ForkJoinPool",
            "TimeUnit",
            "ThreadLocalRandom",
            "ThreadFactory",
            "FutureTask",
            "CompletionService",
            "ExecutorCompletionService",
        ],
        "java.util.concurrent.atomic" => &[
            "AtomicInteger",
            "AtomicLong",
            "AtomicBoolean",
            "AtomicReference",
            "AtomicIntegerArray",
            "AtomicLongArray",
            "AtomicReferenceArray",
            "LongAdder",
            "DoubleAdder",
            "LongAccumulator",
            "DoubleAccumulator",
            "AtomicIntegerFieldUpdater",
            "AtomicLongFieldUpdater",
            "AtomicReferenceFieldUpdater",
            "AtomicStampedReference",
            "AtomicMarkableReference",
        ],
        "java.util.concurrent.locks" => &[
            "Lock",
            "ReentrantLock",
            "ReadWriteLock",
            "ReentrantReadWriteLock",
            "StampedLock",
            "Condition",
            "LockSupport",
        ],
        "java.lang.invoke" => &["VarHandle", "MethodHandles", "MethodHandle"],
        _ => &[],
    };
    list.contains(&simple)
}
