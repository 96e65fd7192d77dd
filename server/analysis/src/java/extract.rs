//! Builds [`FileFacts`] from a syntax tree, driven by the queries in `queries/java/`.
//!
//! Four passes over the captures, each in document order:
//! 1. declarations build the scope tree (classes with javac's binary names, methods,
//!    units, fields, locals);
//! 2. locks turn `synchronized` and `lock()/unlock()` into regions of their unit;
//! 3. accesses and calls are attached to the innermost unit that contains them;
//! 4. element accesses through a local alias (`Entry[] tab = table; tab[i]`) are
//!    rewritten to the field they alias.
//!
//! A file with syntax errors still yields facts for every part that parsed.

use std::collections::HashMap;
use std::sync::Arc;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, Tree};

use super::facts::*;
use super::queries::queries;
use super::syntax::{self, span, text, type_ref};
use crate::text::LineIndex;

pub fn extract(tree: &Tree, text: Arc<str>) -> FileFacts {
    let root = tree.root_node();
    let src: &[u8] = text.as_bytes();
    let super::tokens::Walk { tokens, parents, declarators } = super::tokens::walk(root);
    let mut ex = Extractor {
        src,
        parents,
        facts: FileFacts { lines: LineIndex::new(&text), text: text.clone(), ..FileFacts::default() },
        locals_by_name: HashMap::new(),
        anonymous_counters: HashMap::new(),
        local_class_counters: HashMap::new(),
        lambda_units: HashMap::new(),
        walked: Vec::new(),
    };
    // One pass of all queries; the captures are then processed kind by kind.
    let mut captures = Captures::default();
    for_each_capture(&queries().all, root, src, |name, node| {
        let list = match name.split('.').next() {
            Some("decl") => &mut captures.declarations,
            Some("lock") => &mut captures.locks,
            Some("access") => &mut captures.accesses,
            Some("call") => &mut captures.calls,
            _ => return,
        };
        list.push((name, node));
    });
    ex.declarations(&captures.declarations);
    ex.locks(&captures.locks);
    ex.initializer_shapes(&declarators);
    ex.walked_shapes();
    ex.accesses(&captures.accesses);
    ex.calls(&captures.calls);
    super::inline::mark_inline_units(&mut ex.facts);
    ex.resolve_local_aliases();
    ex.facts.tokens = tokens;
    ex.facts.members = Members::build(&ex.facts);
    if root.has_error() {
        collect_errors(root, &mut ex.facts.syntax_errors);
    }
    ex.facts.shrink_to_fit();
    ex.facts
}

#[derive(Default)]
struct Captures<'t> {
    declarations: Vec<(&'static str, Node<'t>)>,
    locks: Vec<(&'static str, Node<'t>)>,
    accesses: Vec<(&'static str, Node<'t>)>,
    calls: Vec<(&'static str, Node<'t>)>,
}

struct Extractor<'t> {
    src: &'t [u8],
    /// Parent of every node (tree-sitter's `Node::parent` walks down from the root).
    parents: super::tokens::Parents<'t>,
    facts: FileFacts,
    locals_by_name: HashMap<String, Vec<LocalIdx>>,
    /// Next anonymous class number per enclosing class (javac numbers them from 1 in
    /// source order within the innermost enclosing class).
    anonymous_counters: HashMap<ClassIdx, u32>,
    /// Local classes: `Outer$1Local`, `Outer$2Local` for the second `Local` in `Outer`.
    local_class_counters: HashMap<(ClassIdx, String), u32>,
    lambda_units: HashMap<usize, UnitIdx>,
    /// For-each variables and the expression each loop walks, shaped once every local is known.
    walked: Vec<(LocalIdx, Node<'t>)>,
}

/// Runs a query and calls `f` with every capture, in document order.
fn for_each_capture<'t>(query: &'static Query, root: Node<'t>, src: &[u8], mut f: impl FnMut(&'static str, Node<'t>)) {
    let mut cursor = QueryCursor::new();
    let names = query.capture_names();
    let mut captures = cursor.captures(query, root, src);
    while let Some((m, index)) = captures.next() {
        let capture = m.captures()[*index];
        f(names[capture.index as usize], capture.node);
    }
}

impl<'t> Extractor<'t> {
    // ----- pass 1: declarations -------------------------------------------------------

    fn declarations(&mut self, captures: &[(&'static str, Node<'t>)]) {
        let src = self.src;
        for &(name, node) in captures {
            match name {
                "decl.package" => self.facts.package = Some(text(node, src).split_whitespace().collect()),
                "decl.import" => self.import(node, src),
                "decl.class" => self.named_class(node, src, ClassKind::Class),
                "decl.interface" => self.named_class(node, src, ClassKind::Interface),
                "decl.enum" => self.named_class(node, src, ClassKind::Enum),
                "decl.record" => self.named_class(node, src, ClassKind::Record),
                "decl.annotation" => self.named_class(node, src, ClassKind::Annotation),
                "decl.anonymous" => self.anonymous_class(node, src),
                "decl.method" => self.method(node, src, MethodKind::Method),
                "decl.constructor" => self.method(node, src, MethodKind::Constructor),
                "decl.static_initializer" => self.initializer_block(node, true),
                "decl.instance_initializer" => self.initializer_block(node, false),
                "decl.field" => self.field(node, src),
                "decl.enum_constant" => self.enum_constant(node, src),
                "decl.lambda" => self.lambda(node, src),
                "decl.local" => self.local_declaration(node, src),
                "decl.catch_parameter" => self.catch_parameter(node, src),
                "decl.foreach" => self.foreach(node, src),
                "decl.resource" => self.resource(node, src),
                "decl.pattern" => self.pattern(node, src),
                _ => {}
            }
        }
    }

    fn import(&mut self, node: Node, src: &[u8]) {
        let raw = text(node, src);
        let body: String = raw.trim_start_matches("import").trim_end_matches(';').split_whitespace().collect();
        match body.strip_prefix("static") {
            Some(rest) => self.facts.static_imports.push(rest.to_string()),
            None => self.facts.imports.push(body),
        }
    }

    fn enclosing_class(&self, offset: u32) -> Option<ClassIdx> {
        self.facts.class_at(offset)
    }

    /// Whether a type declaration sits in a method body rather than in a class body.
    fn is_local_declaration(&self, node: Node) -> bool {
        !matches!(
            self.parents.of(node).map(|p| p.kind()),
            Some("class_body" | "interface_body" | "enum_body_declarations" | "program" | "annotation_type_body")
                | None
        )
    }

    fn named_class(&mut self, node: Node, src: &[u8], kind: ClassKind) {
        let simple = node.child_by_field_name("name").map(|n| text(n, src).to_string()).unwrap_or_default();
        let outer = self.enclosing_class(node.start_byte() as u32);
        let is_local = self.is_local_declaration(node);
        let binary_name = match outer {
            None => match &self.facts.package {
                Some(p) => format!("{p}.{simple}"),
                None => simple.clone(),
            },
            Some(o) if is_local => {
                let n = self.local_class_counters.entry((o, simple.clone())).or_insert(0);
                *n += 1;
                format!("{}${}{}", self.facts.classes[o as usize].binary_name, n, simple)
            }
            Some(o) => format!("{}${}", self.facts.classes[o as usize].binary_name, simple),
        };
        let mods = syntax::modifiers(node, src);
        let outer_is_interface = outer.is_some_and(|o| self.facts.classes[o as usize].kind == ClassKind::Interface);
        let is_static = outer.is_none() || mods.is_static || kind != ClassKind::Class || outer_is_interface;
        let superclass =
            node.child_by_field_name("superclass").and_then(|s| s.named_child(0)).map(|t| type_ref(t, src));
        let mut interfaces = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if matches!(child.kind(), "super_interfaces" | "extends_interfaces") {
                if let Some(list) = child.named_child(0) {
                    let mut c2 = list.walk();
                    interfaces.extend(list.named_children(&mut c2).map(|t| type_ref(t, src)));
                }
            }
        }
        let body = node.child_by_field_name("body").map(span).unwrap_or_else(|| span(node));
        let idx = self.facts.classes.len() as ClassIdx;
        self.facts.classes.push(ClassFacts {
            binary_name,
            simple_name: simple,
            kind,
            outer,
            is_static,
            is_local,
            is_abstract: mods.is_abstract || matches!(kind, ClassKind::Interface | ClassKind::Annotation),
            is_public: mods.is_public || outer_is_interface,
            is_private: mods.is_private,
            span: span(node),
            name_span: node.child_by_field_name("name").map(span).unwrap_or_else(|| span(node)),
            body,
            superclass,
            interfaces,
            annotations: mods.annotations,
        });
        if kind == ClassKind::Record {
            self.record_components(node, src, idx);
        }
    }

    /// Record components are private final fields.
    fn record_components(&mut self, node: Node, src: &[u8], class: ClassIdx) {
        let Some(params) = node.child_by_field_name("parameters") else { return };
        let mut cursor = params.walk();
        for p in params.named_children(&mut cursor).filter(|p| p.kind() == "formal_parameter") {
            let (Some(name), Some(ty)) = (p.child_by_field_name("name"), p.child_by_field_name("type")) else {
                continue;
            };
            self.facts.fields.push(FieldDecl {
                class,
                name: text(name, src).to_string(),
                ty: type_ref(ty, src),
                is_static: false,
                is_final: true,
                is_volatile: false,
                annotations: Vec::new(),
                span: span(name),
                decl_span: span(p),
                init: None,
            });
        }
    }

    fn anonymous_class(&mut self, node: Node, src: &[u8]) {
        let mut cursor = node.walk();
        let body = node.children(&mut cursor).find(|c| c.kind() == "class_body");
        let Some(body) = body else { return };
        let Some(outer) = self.enclosing_class(node.start_byte() as u32) else { return };
        let n = self.anonymous_counters.entry(outer).or_insert(0);
        *n += 1;
        let binary_name = format!("{}${}", self.facts.classes[outer as usize].binary_name, n);
        let superclass = if node.kind() == "enum_constant" {
            Some(TypeRef::simple(&self.facts.classes[outer as usize].simple_name))
        } else {
            node.child_by_field_name("type").map(|t| type_ref(t, src))
        };
        self.facts.classes.push(ClassFacts {
            binary_name,
            simple_name: String::new(),
            kind: ClassKind::Anonymous,
            outer: Some(outer),
            is_static: false,
            is_local: node.kind() != "enum_constant",
            is_abstract: false,
            is_public: false,
            is_private: false,
            span: span(body),
            name_span: span(body),
            body: span(body),
            superclass,
            interfaces: Vec::new(),
            annotations: Vec::new(),
        });
    }

    fn push_unit(&mut self, method: MethodIdx, is_lambda: bool, span: Span) -> UnitIdx {
        let parent = self.facts.unit_at(span.start);
        let idx = self.facts.units.len() as UnitIdx;
        debug_assert!(self.facts.units.last().is_none_or(|u| u.span.start <= span.start), "units in document order");
        self.facts.units.push(Unit { method, is_lambda, parent, span, inline_at: None });
        idx
    }

    fn method(&mut self, node: Node, src: &[u8], kind: MethodKind) {
        let Some(class) = self.enclosing_class(node.start_byte() as u32) else { return };
        let mods = syntax::modifiers(node, src);
        let class_kind = self.facts.classes[class as usize].kind;
        let body = node.child_by_field_name("body");
        let name_node = node.child_by_field_name("name");
        let name = match kind {
            MethodKind::Constructor => "<init>".to_string(),
            _ => name_node.map(|n| text(n, src).to_string()).unwrap_or_default(),
        };
        let mut params = Vec::new();
        let mut varargs = false;
        if let Some(list) = node.child_by_field_name("parameters") {
            let mut cursor = list.walk();
            for p in list.named_children(&mut cursor) {
                let (pname, pty) = match p.kind() {
                    "formal_parameter" => {
                        (p.child_by_field_name("name"), p.child_by_field_name("type").map(|t| type_ref(t, src)))
                    }
                    "spread_parameter" => {
                        varargs = true;
                        let mut c2 = p.walk();
                        let ty = p
                            .named_children(&mut c2)
                            .find(|c| !matches!(c.kind(), "modifiers" | "variable_declarator"));
                        let mut c3 = p.walk();
                        let decl = p.named_children(&mut c3).find(|c| c.kind() == "variable_declarator");
                        let ty = ty.map(|t| {
                            let mut t = type_ref(t, src);
                            t.array_dims += 1;
                            t
                        });
                        (decl.and_then(|d| d.child_by_field_name("name")), ty)
                    }
                    _ => continue,
                };
                if let (Some(pname), Some(pty)) = (pname, pty) {
                    params.push(Param { name: text(pname, src).to_string(), ty: pty.clone() });
                    self.push_local(text(pname, src), Some(pty), span(node), None);
                }
            }
        } else if kind == MethodKind::Constructor && node.kind() == "compact_constructor_declaration" {
            // A compact canonical constructor takes the record's components.
            let record = &self.facts.fields;
            params = record
                .iter()
                .filter(|f| f.class == class && !f.is_static)
                .map(|f| Param { name: f.name.clone(), ty: f.ty.clone() })
                .collect();
        }
        let idx = self.facts.methods.len() as MethodIdx;
        let name_span = name_node.map(span).unwrap_or_else(|| span(node));
        self.facts.methods.push(MethodFacts {
            class,
            name,
            kind,
            params,
            varargs,
            return_type: node.child_by_field_name("type").map(|t| type_ref(t, src)),
            // interface members are public unless declared private
            is_public: mods.is_public || (class_kind == ClassKind::Interface && !mods.is_private),
            is_private: mods.is_private,
            is_static: mods.is_static,
            is_synchronized: mods.is_synchronized,
            is_abstract: body.is_none() && (mods.is_abstract || class_kind == ClassKind::Interface),
            annotations: mods.annotations,
            span: span(node),
            name_span,
            body: body.map(span),
        });
        if let Some(b) = body {
            let unit = self.push_unit(idx, false, span(b));
            if mods.is_synchronized {
                let lock = if mods.is_static {
                    Expr::ClassLiteral(TypeRef::simple(&self.facts.classes[class as usize].simple_name))
                } else {
                    Expr::This
                };
                let text = if mods.is_static {
                    format!("{}.class", self.facts.classes[class as usize].simple_name)
                } else {
                    "this".to_string()
                };
                let bspan = span(b);
                let mut markers = vec![bspan.line, bspan.end_line];
                if let Some(k) = mods.synchronized_keyword {
                    markers.insert(0, k.line);
                }
                markers.dedup();
                let defining = mods.synchronized_keyword.into_iter().chain(braces(bspan)).collect();
                self.facts.locks.push(LockRegion {
                    kind: LockKind::SynchronizedMethod,
                    lock,
                    text,
                    unit,
                    span: bspan,
                    markers,
                    defining,
                });
            }
        }
    }

    /// An initializer method (`<init>` or `<clinit>`) with one unit covering `node`.
    fn initializer(&mut self, class: ClassIdx, is_static: bool, node: Node) -> UnitIdx {
        let idx = self.facts.methods.len() as MethodIdx;
        self.facts.methods.push(MethodFacts {
            class,
            name: if is_static { "<clinit>" } else { "<init>" }.to_string(),
            kind: MethodKind::Initializer,
            params: Vec::new(),
            varargs: false,
            return_type: None,
            is_public: false,
            is_private: false,
            is_static,
            is_synchronized: false,
            is_abstract: false,
            annotations: Vec::new(),
            span: span(node),
            name_span: span(node),
            body: Some(span(node)),
        });
        self.push_unit(idx, false, span(node))
    }

    fn initializer_block(&mut self, node: Node, is_static: bool) {
        if let Some(class) = self.enclosing_class(node.start_byte() as u32) {
            self.initializer(class, is_static, node);
        }
    }

    fn field(&mut self, node: Node, src: &[u8]) {
        let Some(class) = self.enclosing_class(node.start_byte() as u32) else { return };
        let mods = syntax::modifiers(node, src);
        let in_interface = self.facts.classes[class as usize].kind == ClassKind::Interface;
        let Some(ty_node) = node.child_by_field_name("type") else { return };
        let base_ty = type_ref(ty_node, src);
        let mut has_initializer = false;
        let mut cursor = node.walk();
        let declarators: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
        for d in &declarators {
            let Some(name) = d.child_by_field_name("name") else { continue };
            let mut ty = base_ty.clone();
            if let Some(dims) = d.child_by_field_name("dimensions") {
                ty.array_dims += text(dims, src).matches('[').count() as u8;
            }
            let value = d.child_by_field_name("value");
            has_initializer |= value.is_some();
            self.facts.fields.push(FieldDecl {
                class,
                name: text(name, src).to_string(),
                ty,
                is_static: mods.is_static || in_interface,
                is_final: mods.is_final || in_interface,
                is_volatile: mods.is_volatile,
                annotations: mods.annotations.clone(),
                span: span(name),
                decl_span: span(node),
                init: None, // filled in pass 3, when lambdas in it have units
            });
        }
        if has_initializer {
            self.initializer(class, mods.is_static || in_interface, node);
        }
    }

    fn enum_constant(&mut self, node: Node, src: &[u8]) {
        let Some(class) = self.enclosing_class(node.start_byte() as u32) else { return };
        // An enum constant with a body is itself an anonymous class; the constant belongs to
        // the enum around it.
        let class = if self.facts.classes[class as usize].kind == ClassKind::Anonymous
            && self.facts.classes[class as usize].span.start > node.start_byte() as u32
        {
            self.facts.classes[class as usize].outer.unwrap_or(class)
        } else {
            class
        };
        let Some(name) = node.child_by_field_name("name") else { return };
        let enum_name = self.facts.classes[class as usize].simple_name.clone();
        self.facts.fields.push(FieldDecl {
            class,
            name: text(name, src).to_string(),
            ty: TypeRef::simple(&enum_name),
            is_static: true,
            is_final: true,
            is_volatile: false,
            annotations: syntax::modifiers(node, src).annotations,
            span: span(name),
            decl_span: span(node),
            init: None,
        });
    }

    fn lambda(&mut self, node: Node, src: &[u8]) {
        let s = span(node);
        let Some(parent) = self.facts.unit_at(s.start) else { return };
        let method = self.facts.units[parent as usize].method;
        let unit = self.push_unit(method, true, s);
        self.lambda_units.insert(node.id(), unit);
        if let Some(params) = node.child_by_field_name("parameters") {
            match params.kind() {
                "identifier" => self.push_local(text(params, src), None, s, None),
                _ => {
                    let mut cursor = params.walk();
                    for p in params.named_children(&mut cursor) {
                        match p.kind() {
                            "identifier" => self.push_local(text(p, src), None, s, None),
                            "formal_parameter" => {
                                if let Some(n) = p.child_by_field_name("name") {
                                    let ty = p
                                        .child_by_field_name("type")
                                        .map(|t| type_ref(t, src))
                                        .filter(|t| t.name != "var");
                                    self.push_local(text(n, src), ty, s, None);
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }

    fn push_local(&mut self, name: &str, ty: Option<TypeRef>, scope: Span, init: Option<Expr>) {
        let idx = self.facts.locals.len() as LocalIdx;
        self.facts.locals.push(LocalVar { name: name.to_string(), ty, scope, init, reassigned: false, walks: None });
        self.locals_by_name.entry(name.to_string()).or_default().push(idx);
    }

    /// The local variable `name` refers to at `offset`, if any (the innermost declaration).
    fn local_at(&self, name: &str, offset: u32) -> Option<LocalIdx> {
        let candidates = self.locals_by_name.get(name)?;
        candidates
            .iter()
            .copied()
            .filter(|&l| self.facts.locals[l as usize].scope.contains(offset))
            .max_by_key(|&l| self.facts.locals[l as usize].scope.start)
    }

    /// Scope of a declaration statement: from the declaration to the end of its block.
    fn statement_scope(&self, decl: Node) -> Span {
        let mut s = span(decl);
        if let Some(parent) = self.parents.of(decl) {
            let p = span(parent);
            s.end = p.end;
            s.end_line = p.end_line;
        }
        s
    }

    fn local_declaration(&mut self, node: Node, src: &[u8]) {
        let ty = node.child_by_field_name("type").map(|t| type_ref(t, src)).filter(|t| t.name != "var");
        let scope = self.statement_scope(node);
        let mut cursor = node.walk();
        let declarators: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
        for d in declarators {
            let Some(name) = d.child_by_field_name("name") else { continue };
            let mut dty = ty.clone();
            if let (Some(t), Some(dims)) = (dty.as_mut(), d.child_by_field_name("dimensions")) {
                t.array_dims += text(dims, src).matches('[').count() as u8;
            }
            let mut s = scope;
            s.start = d.start_byte() as u32;
            // The initializer's shape is read in pass 3 (it needs every local and lambda).
            self.push_local(text(name, src), dty, s, None);
        }
    }

    fn catch_parameter(&mut self, node: Node, src: &[u8]) {
        let Some(name) = node.child_by_field_name("name") else { return };
        let ty = {
            let mut cursor = node.walk();
            let found =
                node.named_children(&mut cursor).find(|c| c.kind() == "catch_type").and_then(|c| c.named_child(0));
            found.map(|t| type_ref(t, src))
        };
        let scope = self.parents.of(node).map(span).unwrap_or_else(|| span(node));
        self.push_local(text(name, src), ty, scope, None);
    }

    fn foreach(&mut self, node: Node<'t>, src: &[u8]) {
        let Some(name) = node.child_by_field_name("name") else { return };
        let ty = node.child_by_field_name("type").map(|t| type_ref(t, src)).filter(|t| t.name != "var");
        self.push_local(text(name, src), ty, span(node), None);
        if let Some(value) = node.child_by_field_name("value") {
            self.walked.push((self.facts.locals.len() as LocalIdx - 1, value));
        }
    }

    fn resource(&mut self, node: Node, src: &[u8]) {
        let Some(name) = node.child_by_field_name("name") else { return };
        let ty = node.child_by_field_name("type").map(|t| type_ref(t, src)).filter(|t| t.name != "var");
        // resource -> resource_specification -> try_with_resources_statement
        let scope = self.parents.of(node).and_then(|p| self.parents.of(p)).map(span).unwrap_or_else(|| span(node));
        self.push_local(text(name, src), ty, scope, None);
    }

    fn pattern(&mut self, node: Node, src: &[u8]) {
        let Some(name) = node.child_by_field_name("name") else { return };
        let ty = node.child_by_field_name("right").map(|t| type_ref(t, src));
        // Flow scoping reaches past the condition (`if (!(o instanceof T t)) return;`):
        // take the enclosing block.
        let mut scope_node = node;
        while let Some(p) = self.parents.of(scope_node) {
            scope_node = p;
            if matches!(p.kind(), "block" | "constructor_body" | "lambda_expression") {
                break;
            }
        }
        let mut s = span(scope_node);
        s.start = node.start_byte() as u32;
        self.push_local(text(name, src), ty, s, None);
    }

    // ----- pass 2: lock regions ---------------------------------------------------------

    fn locks(&mut self, captures: &[(&'static str, Node<'t>)]) {
        let src = self.src;
        let mut acquires = Vec::new();
        let mut releases = Vec::new();
        let mut stamps = Vec::new();
        let mut stamp_releases = Vec::new();
        for &(name, node) in captures {
            match name {
                "lock.synchronized" => self.synchronized_block(node, src),
                "lock.acquire" => acquires.push(node),
                "lock.release" => releases.push(node),
                "lock.stamp" => stamps.push(node),
                "lock.stamp_release" => stamp_releases.push(node),
                _ => {}
            }
        }
        for acquire in acquires {
            self.explicit_lock_region(acquire, &releases, src);
        }
        // `sl.unlock(stamp)` releases a stamp of either mode.
        stamp_releases.extend(
            releases.iter().filter(|r| r.child_by_field_name("arguments").is_some_and(|a| a.named_child_count() == 1)),
        );
        stamp_releases.sort_by_key(|r| r.start_byte());
        for acquire in stamps {
            self.stamped_lock_region(acquire, &stamp_releases, src);
        }
    }

    fn expr(&self, node: Node, src: &[u8]) -> Expr {
        syntax::expr_of(node, src, &|name, offset| self.local_at(name, offset), &|n| {
            self.lambda_units.get(&n.id()).copied()
        })
    }

    fn synchronized_block(&mut self, node: Node, src: &[u8]) {
        let Some(unit) = self.facts.unit_at(node.start_byte() as u32) else { return };
        let mut c = node.walk();
        let paren = node.named_children(&mut c).find(|n| n.kind() == "parenthesized_expression");
        let (Some(paren), Some(body)) = (paren, node.child_by_field_name("body")) else { return };
        let lock_node = paren.named_child(0).unwrap_or(paren);
        let lock = self.expr(lock_node, src);
        let p = span(paren);
        let b = span(body);
        let mut markers: Vec<u32> = (span(node).line..=p.end_line).collect();
        markers.push(b.line);
        markers.push(b.end_line);
        markers.sort_unstable();
        markers.dedup();
        let text = text(lock_node, src).split_whitespace().collect::<Vec<_>>().join(" ");
        let header = Span { start: node.start_byte() as u32, end: p.end, line: span(node).line, end_line: p.end_line };
        let defining = std::iter::once(header).chain(braces(b)).collect();
        self.facts.locks.push(LockRegion {
            kind: LockKind::SynchronizedBlock,
            lock,
            text,
            unit,
            span: b,
            markers,
            defining,
        });
    }

    /// `l.lock(); try { ... } finally { l.unlock(); }`: the region runs from the acquire to
    /// the first release of the same lock after it in the same unit (to the unit's end when
    /// there is none). `if (l.tryLock()) { ... }` starts the region at the acquire too.
    fn explicit_lock_region(&mut self, acquire: Node, releases: &[Node], src: &[u8]) {
        let start = acquire.end_byte() as u32;
        let Some(unit) = self.facts.unit_at(start) else { return };
        let Some(object) = acquire.child_by_field_name("object") else { return };
        let key = lock_key(text(object, src));
        let unit_span = self.facts.units[unit as usize].span;
        let release = releases.iter().find(|r| {
            let rs = r.start_byte() as u32;
            rs >= start
                && unit_span.contains(rs)
                && self.facts.unit_at(rs) == Some(unit)
                && r.child_by_field_name("object").is_some_and(|o| lock_key(text(o, src)) == key)
        });
        let a = span(acquire);
        let (end, end_line, release_line) = match release {
            Some(r) => {
                (r.start_byte() as u32, r.start_position().row as u32 + 1, Some(r.start_position().row as u32 + 1))
            }
            None => (unit_span.end, unit_span.end_line, None),
        };
        let mut markers = vec![a.line];
        markers.extend(release_line);
        markers.dedup();
        let lock = self.expr(object, src);
        self.facts.locks.push(LockRegion {
            kind: LockKind::Explicit,
            lock,
            text: key,
            unit,
            span: Span { start, end, line: a.line, end_line },
            markers,
            defining: std::iter::once(a).chain(release.map(|r| span(*r))).collect(),
        });
    }

    /// A `StampedLock` region (its Javadoc's idioms): a write stamp excludes every other stamp,
    /// read stamps share, and an optimistic read up to its `validate` is treated as a read
    /// stamp, since what it read is thrown away when a writer came between. Without a
    /// stamped release of the same lock after it in the unit it is no region at all.
    fn stamped_lock_region(&mut self, acquire: Node, releases: &[Node], src: &[u8]) {
        let start = acquire.end_byte() as u32;
        let Some(unit) = self.facts.unit_at(start) else { return };
        let (Some(object), Some(operation)) =
            (acquire.child_by_field_name("object"), acquire.child_by_field_name("name"))
        else {
            return;
        };
        let key = lock_key(text(object, src));
        let release = releases.iter().find(|r| {
            let rs = r.start_byte() as u32;
            rs >= start
                && self.facts.unit_at(rs) == Some(unit)
                && r.child_by_field_name("object").is_some_and(|o| lock_key(text(o, src)) == key)
        });
        let Some(release) = release else { return };
        let exclusive = text(operation, src).to_ascii_lowercase().contains("write");
        let mode = if exclusive { "writeLock" } else { "readLock" };
        // The region's lock is `sl.writeLock()` / `sl.readLock()`, which the index already
        // reads as the lock `sl` in exclusive or shared mode.
        let lock =
            Expr::Call { receiver: Some(Box::new(self.expr(object, src))), name: mode.to_string(), args: Vec::new() };
        let a = span(acquire);
        let release_line = release.start_position().row as u32 + 1;
        let mut markers = vec![a.line, release_line];
        markers.dedup();
        self.facts.locks.push(LockRegion {
            kind: LockKind::Explicit,
            lock,
            text: format!("{key}.{mode}()"),
            unit,
            span: Span { start, end: release.start_byte() as u32, line: a.line, end_line: release_line },
            markers,
            defining: vec![a, span(*release)],
        });
    }

    // ----- pass 3: accesses and calls ------------------------------------------------------

    fn accesses(&mut self, captures: &[(&'static str, Node<'t>)]) {
        let src = self.src;
        for &(name, node) in captures {
            match name {
                "access.qualified" => self.qualified_access(node, src),
                "access.bare" => self.bare_access(node, src),
                "access.element" => self.element_access(node, src),
                _ => {}
            }
        }
    }

    /// Initializers of fields and locals, once every local and lambda is known.
    fn initializer_shapes(&mut self, declarators: &[Node]) {
        let src = self.src;
        let field_by_name_start: HashMap<u32, usize> =
            self.facts.fields.iter().enumerate().map(|(i, f)| (f.span.start, i)).collect();
        for &d in declarators {
            let (Some(name), Some(value)) = (d.child_by_field_name("name"), d.child_by_field_name("value")) else {
                continue;
            };
            let shape = self.expr(value, src);
            if let Some(&f) = field_by_name_start.get(&(name.start_byte() as u32)) {
                self.facts.fields[f].init = Some(shape);
            } else if let Some(l) = self.local_at(text(name, src), name.start_byte() as u32) {
                self.facts.locals[l as usize].init = Some(shape);
                self.facts.local_uses.push(LocalUse {
                    local: l,
                    line: name.start_position().row as u32 + 1,
                    write: true,
                });
            }
        }
    }

    /// What each for-each loop walks, once every local is known.
    fn walked_shapes(&mut self) {
        for (l, value) in std::mem::take(&mut self.walked) {
            let shape = self.expr(value, self.src);
            self.facts.locals[l as usize].walks = Some(shape);
        }
    }

    fn push_access(
        &mut self,
        name: &str,
        receiver: Option<Expr>,
        element: bool,
        node: Node,
        name_node: Node,
        src: &[u8],
    ) {
        let s = span(name_node);
        let Some(unit) = self.facts.unit_at(s.start) else { return };
        let (read, write) = syntax::read_write(&self.parents, node, src);
        let value =
            if write { syntax::assigned_value(&self.parents, node, src).map(|v| self.expr(v, src)) } else { None };
        for (flag, kind) in [(read, AccessKind::Read), (write, AccessKind::Write)] {
            if flag {
                let value = if kind == AccessKind::Write { value.clone() } else { None };
                self.facts.accesses.push(Access {
                    name: name.to_string(),
                    receiver: receiver.clone(),
                    kind,
                    element,
                    span: s,
                    unit,
                    value,
                });
            }
        }
    }

    fn qualified_access(&mut self, node: Node, src: &[u8]) {
        let (Some(object), Some(field)) = (node.child_by_field_name("object"), node.child_by_field_name("field"))
        else {
            return;
        };
        let receiver = self.expr(object, src);
        self.push_access(text(field, src), Some(receiver), false, node, field, src);
    }

    fn bare_access(&mut self, node: Node, src: &[u8]) {
        if !is_value_identifier(&self.parents, node) {
            return;
        }
        let name = text(node, src);
        if let Some(local) = self.local_at(name, node.start_byte() as u32) {
            let (read, write) = syntax::read_write(&self.parents, node, src);
            if write {
                self.facts.locals[local as usize].reassigned = true;
            }
            let line = node.start_position().row as u32 + 1;
            if read {
                self.facts.local_uses.push(LocalUse { local, line, write: false });
            }
            if write {
                self.facts.local_uses.push(LocalUse { local, line, write: true });
            }
            return;
        }
        self.push_access(name, None, false, node, node, src);
    }

    fn element_access(&mut self, node: Node, src: &[u8]) {
        let Some(array) = node.child_by_field_name("array").map(syntax::unparenthesize) else { return };
        match array.kind() {
            "identifier" => {
                let name = text(array, src);
                match self.local_at(name, array.start_byte() as u32) {
                    // Rewritten in pass 4 when the local aliases a field.
                    Some(l) => self.push_access(name, Some(Expr::Local(l)), true, node, array, src),
                    None => self.push_access(name, None, true, node, array, src),
                }
            }
            "field_access" => {
                let (Some(object), Some(field)) =
                    (array.child_by_field_name("object"), array.child_by_field_name("field"))
                else {
                    return;
                };
                if field.kind() != "identifier" {
                    return;
                }
                let receiver = self.expr(object, src);
                self.push_access(text(field, src), Some(receiver), true, node, field, src);
            }
            _ => {}
        }
    }

    fn calls(&mut self, captures: &[(&'static str, Node<'t>)]) {
        let src = self.src;
        for &(name, node) in captures {
            let Some(unit) = self.facts.unit_at(node.start_byte() as u32) else { continue };
            let args: Vec<Expr> = syntax::argument_nodes(node).into_iter().map(|a| self.expr(a, src)).collect();
            let call = match name {
                "call.method" => {
                    let Some(n) = node.child_by_field_name("name") else { continue };
                    let mut receiver = node.child_by_field_name("object").map(|o| self.expr(o, src));
                    let mut args = args;
                    let mut name = text(n, src);
                    // `unit.timedWait(monitor, n)` is `monitor.wait(ms)` and `unit.timedJoin(t, n)`
                    // is `t.join(ms)` (TimeUnit's Javadoc): the wait and join rules see them so.
                    if let ("timedWait" | "timedJoin", 2) = (name, args.len()) {
                        receiver = Some(args.remove(0));
                        name = if name == "timedWait" { "wait" } else { "join" };
                    }
                    let wakeup = args.is_empty() && matches!(name, "notify" | "notifyAll" | "signal" | "signalAll");
                    if wakeup || matches!(name, "wait" | "await" | "awaitNanos" | "awaitUninterruptibly" | "awaitUntil")
                    {
                        let guard = self.wait_guard(node, self.facts.calls.len() as u32);
                        self.facts.wait_guards.push(guard);
                    }
                    Call {
                        name: name.to_string(),
                        receiver,
                        args,
                        kind: CallKind::Method,
                        span: span(n),
                        full: span(node),
                        unit,
                    }
                }
                "call.new" => {
                    let Some(t) = node.child_by_field_name("type") else { continue };
                    let anonymous = {
                        let mut c = node.walk();
                        let body = node.children(&mut c).find(|c| c.kind() == "class_body");
                        body.and_then(|b| {
                            self.facts
                                .classes
                                .iter()
                                .position(|k| k.kind == ClassKind::Anonymous && k.body.start == b.start_byte() as u32)
                        })
                    };
                    Call {
                        name: "<init>".to_string(),
                        receiver: None,
                        args,
                        kind: CallKind::New { ty: type_ref(t, src), anonymous: anonymous.map(|a| a as ClassIdx) },
                        span: span(t),
                        full: span(node),
                        unit,
                    }
                }
                "call.chain" => {
                    let is_super = node.child_by_field_name("constructor").is_some_and(|c| c.kind() == "super");
                    Call {
                        name: "<init>".to_string(),
                        receiver: None,
                        args,
                        kind: CallKind::ConstructorChain { is_super },
                        span: span(node),
                        full: span(node),
                        unit,
                    }
                }
                "call.close" => {
                    let Some(close) = self.implicit_close(node, unit) else { continue };
                    close
                }
                "call.reference" => {
                    let count = node.named_child_count();
                    let Some(last) = node.named_child(count.saturating_sub(1) as u32) else { continue };
                    let name =
                        if last.kind() == "identifier" { text(last, src).to_string() } else { "<init>".to_string() };
                    let receiver =
                        node.named_child(0).filter(|r| r.id() != last.id() || count == 1).map(|r| self.expr(r, src));
                    Call {
                        name,
                        receiver,
                        args: Vec::new(),
                        kind: CallKind::Reference,
                        span: span(last),
                        full: span(node),
                        unit,
                    }
                }
                _ => continue,
            };
            self.facts.calls.push(call);
        }
    }

    /// The `close()` a try-with-resources statement calls on a resource when its block
    /// ends (JLS 14.20.3): placed on the block's closing brace, where it runs, so that
    /// program order and the locks held there are right.
    fn implicit_close(&self, resource: Node<'t>, unit: UnitIdx) -> Option<Call> {
        let src = self.src;
        let statement = self
            .parents
            .of(resource)
            .and_then(|spec| self.parents.of(spec))
            .filter(|s| s.kind() == "try_with_resources_statement")?;
        let body = statement.child_by_field_name("body")?;
        let receiver = match resource.child_by_field_name("name") {
            Some(name) => self.local_at(text(name, src), name.start_byte() as u32).map(Expr::Local)?,
            // `try (existing)` (Java 9): a variable or a field access.
            None => self.expr(resource.named_child(0)?, src),
        };
        let brace = span(body.child(body.child_count().checked_sub(1)? as u32)?);
        Some(Call {
            name: "close".to_string(),
            receiver: Some(receiver),
            args: Vec::new(),
            kind: CallKind::Method,
            span: brace,
            full: span(resource),
            unit,
        })
    }

    /// The innermost loop around a wait call in its unit, else the innermost `if`. In a loop
    /// without a condition (`while (true)`, `for (;;)`) the innermost `if` inside it is what
    /// the wait waits while, checked again on every turn: `for (;;) { if (head == null)
    /// wait(); else ... }`.
    fn wait_guard(&self, call: Node<'t>, index: u32) -> WaitGuard {
        let src = self.src;
        let mut innermost_if = None;
        let mut child = call;
        while let Some(p) = self.parents.of(child) {
            let cond = match p.kind() {
                "while_statement" | "do_statement" | "for_statement" | "enhanced_for_statement" => {
                    let cond = p.child_by_field_name("condition").filter(|c| c.id() != child.id());
                    let looped = guard(index, true, p, cond, src);
                    return match innermost_if {
                        Some((statement, cond)) if looped.cond.is_none() && p.kind() != "enhanced_for_statement" => {
                            guard(index, true, statement, cond, src)
                        }
                        _ => looped,
                    };
                }
                "if_statement" => p.child_by_field_name("condition").filter(|c| c.id() != child.id()),
                "method_declaration"
                | "constructor_declaration"
                | "lambda_expression"
                | "class_body"
                | "static_initializer" => break,
                _ => None,
            };
            if cond.is_some() && innermost_if.is_none() {
                innermost_if = Some((p, cond));
            }
            child = p;
        }
        match innermost_if {
            Some((p, cond)) => guard(index, false, p, cond, src),
            None => WaitGuard { call: index, looped: false, cond: None, span: span(call) },
        }
    }

    // ----- pass 4: local aliases -------------------------------------------------------------

    /// `Entry[] tab = table; tab[i] = null;` writes an element of `table`'s array. Only
    /// locals that are never assigned again count as aliases.
    fn resolve_local_aliases(&mut self) {
        let locals = &self.facts.locals;
        for access in self.facts.accesses.iter_mut().filter(|a| a.element) {
            let Some(Expr::Local(l)) = access.receiver else { continue };
            let local = &locals[l as usize];
            let alias = match (&local.init, local.reassigned) {
                (Some(Expr::Name(field)), false) => Some((field.clone(), None)),
                (Some(Expr::Field(object, field)), false) => Some((field.clone(), Some((**object).clone()))),
                _ => None,
            };
            match alias {
                Some((name, receiver)) => {
                    access.name = name;
                    access.receiver = receiver;
                }
                // An element of an array that is no field's: not a field access.
                None => access.name.clear(),
            }
        }
        self.facts.accesses.retain(|a| !a.name.is_empty());
    }
}

fn guard(call: u32, looped: bool, statement: Node, cond: Option<Node>, src: &[u8]) -> WaitGuard {
    let cond = cond.map(syntax::unparenthesize);
    let text = cond.map(|c| text(c, src).split_whitespace().collect::<Vec<_>>().join(" ")).filter(|t| t != "true");
    WaitGuard { call, looped, cond: text, span: span(cond.unwrap_or(statement)) }
}

/// The lock expression as a key for matching `lock()` with `unlock()`: `this.lock` and
/// `lock` are the same lock.
fn lock_key(raw: &str) -> String {
    let compact: String = raw.split_whitespace().collect();
    compact.strip_prefix("this.").map(str::to_string).unwrap_or(compact)
}

/// Whether an identifier stands for a value (a variable or field), not for a name of
/// something else (a declaration, a method, a label, a package, a type qualifier).
fn is_value_identifier(parents: &super::tokens::Parents, node: Node) -> bool {
    let Some(parent) = parents.of(node) else { return false };
    let is = |field: &str| syntax::is_field_child(parent, field, node);
    match parent.kind() {
        // `Outer.this` names a class, not a value.
        "field_access" => is("object") && parent.child_by_field_name("field").is_some_and(|f| f.kind() != "this"),
        "method_invocation" => is("object"),
        "variable_declarator"
        | "formal_parameter"
        | "catch_formal_parameter"
        | "enhanced_for_statement"
        | "resource"
        | "instanceof_expression" => !is("name"),
        "lambda_expression" => !is("parameters"),
        "method_reference" => {
            parent.named_child(0).is_some_and(|c| c.id() == node.id()) && parent.named_child_count() > 1
        }
        "inferred_parameters"
        | "scoped_identifier"
        | "labeled_statement"
        | "break_statement"
        | "continue_statement"
        | "annotation"
        | "marker_annotation"
        | "element_value_pair"
        | "switch_label"
        | "enum_constant"
        | "method_declaration"
        | "constructor_declaration"
        | "class_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration"
        | "annotation_type_declaration"
        | "annotation_type_element_declaration"
        | "package_declaration"
        | "import_declaration"
        | "module_declaration"
        | "requires_module_directive"
        | "exports_module_directive"
        | "compact_constructor_declaration"
        | "type_pattern"
        | "record_pattern_component"
        | "spread_parameter" => false,
        _ => true,
    }
}

fn collect_errors(node: Node, out: &mut Vec<Span>) {
    if node.is_error() || node.is_missing() {
        out.push(span(node));
        return;
    }
    if !node.has_error() {
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_errors(child, out);
    }
}

/// The opening and closing brace of a block.
fn braces(block: Span) -> [Span; 2] {
    let open = Span { start: block.start, end: block.start + 1, line: block.line, end_line: block.line };
    let close =
        Span { start: block.end.saturating_sub(1), end: block.end, line: block.end_line, end_line: block.end_line };
    [open, close]
}
