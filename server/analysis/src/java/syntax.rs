//! Small readers over tree-sitter nodes: spans, types, modifiers, annotations and the
//! shape of expressions. Shared by the extractor's passes.

use tree_sitter::Node;

use super::facts::{Annotation, Expr, Span, TypeRef};
use super::tokens::Parents;

pub(crate) fn span(node: Node) -> Span {
    Span {
        start: node.start_byte() as u32,
        end: node.end_byte() as u32,
        line: node.start_position().row as u32 + 1,
        end_line: node.end_position().row as u32 + 1,
    }
}

pub(crate) fn text<'a>(node: Node, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or("")
}

/// The node itself, or the expression inside any parentheses around it.
pub(crate) fn unparenthesize(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// The parent, skipping parentheses: `(x) = 1` writes `x`.
pub(crate) fn semantic_parent<'t>(parents: &Parents<'t>, node: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    let mut child = node;
    let mut parent = parents.of(node)?;
    while parent.kind() == "parenthesized_expression" {
        child = parent;
        parent = parents.of(parent)?;
    }
    Some((parent, child))
}

pub(crate) fn is_field_child(parent: Node, field: &str, child: Node) -> bool {
    parent.child_by_field_name(field).is_some_and(|c| c.id() == child.id())
}

/// The value assigned by a plain `node = value`.
pub(crate) fn assigned_value<'t>(parents: &Parents<'t>, node: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let (parent, child) = semantic_parent(parents, node)?;
    let plain = parent.kind() == "assignment_expression"
        && is_field_child(parent, "left", child)
        && parent.child_by_field_name("operator").is_some_and(|o| text(o, src) == "=");
    if plain {
        parent.child_by_field_name("right")
    } else {
        None
    }
}

/// Whether the expression at `node` is read, written, or both (`x += 1`, `x++`).
pub(crate) fn read_write<'t>(parents: &Parents<'t>, node: Node<'t>, src: &[u8]) -> (bool, bool) {
    let Some((parent, child)) = semantic_parent(parents, node) else { return (true, false) };
    match parent.kind() {
        "assignment_expression" if is_field_child(parent, "left", child) => {
            let op = parent.child_by_field_name("operator").map(|o| text(o, src)).unwrap_or("=");
            (op != "=", true)
        }
        "update_expression" => (true, true),
        _ => (true, false),
    }
}

pub(crate) fn type_ref(node: Node, src: &[u8]) -> TypeRef {
    match node.kind() {
        "generic_type" => {
            let mut base = TypeRef::simple("");
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "type_arguments" => {
                        let mut c2 = child.walk();
                        base.args = child
                            .named_children(&mut c2)
                            .filter(|a| !matches!(a.kind(), "annotation" | "marker_annotation"))
                            .map(|a| type_ref(a, src))
                            .collect();
                    }
                    _ => base.name = type_ref(child, src).name,
                }
            }
            base
        }
        "scoped_type_identifier" => {
            // `Map.Entry<K, V>` nests a generic_type inside; keep the dotted name and the last args.
            let mut parts = Vec::new();
            let mut args = Vec::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "annotation" | "marker_annotation" => {}
                    _ => {
                        let t = type_ref(child, src);
                        parts.push(t.name);
                        args = t.args;
                    }
                }
            }
            TypeRef { name: parts.join("."), args, array_dims: 0 }
        }
        "array_type" => {
            let mut element = node
                .child_by_field_name("element")
                .map(|e| type_ref(e, src))
                .unwrap_or_else(|| TypeRef::simple("Object"));
            let dims = node.child_by_field_name("dimensions").map(|d| text(d, src).matches('[').count()).unwrap_or(1);
            element.array_dims = element.array_dims.saturating_add(dims as u8);
            element
        }
        "annotated_type" => {
            let mut cursor = node.walk();
            let inner =
                node.named_children(&mut cursor).find(|c| !matches!(c.kind(), "annotation" | "marker_annotation"));
            inner.map(|i| type_ref(i, src)).unwrap_or_else(|| TypeRef::simple("Object"))
        }
        "wildcard" => {
            // `? extends T` stands for T; `?` and `? super T` for Object.
            let mut cursor = node.walk();
            let bound = node
                .named_children(&mut cursor)
                .find(|c| !matches!(c.kind(), "annotation" | "marker_annotation" | "super"));
            let is_super = text(node, src).contains("super");
            match bound {
                Some(b) if !is_super => type_ref(b, src),
                _ => TypeRef::simple("Object"),
            }
        }
        _ => TypeRef::simple(text(node, src).trim()),
    }
}

#[derive(Default)]
pub(crate) struct Modifiers {
    pub is_public: bool,
    pub is_private: bool,
    pub is_static: bool,
    pub is_final: bool,
    pub is_volatile: bool,
    pub is_synchronized: bool,
    pub is_abstract: bool,
    pub is_default: bool,
    pub synchronized_keyword: Option<Span>,
    pub annotations: Vec<Annotation>,
}

/// Reads the `modifiers` child of a declaration.
pub(crate) fn modifiers(decl: Node, src: &[u8]) -> Modifiers {
    let mut m = Modifiers::default();
    let mut cursor = decl.walk();
    let Some(mods) = decl.children(&mut cursor).find(|c| c.kind() == "modifiers") else { return m };
    let mut cursor = mods.walk();
    for child in mods.children(&mut cursor) {
        match child.kind() {
            "public" => m.is_public = true,
            "private" => m.is_private = true,
            "static" => m.is_static = true,
            "final" => m.is_final = true,
            "volatile" => m.is_volatile = true,
            "abstract" => m.is_abstract = true,
            "default" => m.is_default = true,
            "synchronized" => {
                m.is_synchronized = true;
                m.synchronized_keyword = Some(span(child));
            }
            "annotation" | "marker_annotation" => m.annotations.push(annotation(child, src)),
            _ => {}
        }
    }
    m
}

pub(crate) fn annotation(node: Node, src: &[u8]) -> Annotation {
    let written: String =
        node.child_by_field_name("name").map(|n| text(n, src).split_whitespace().collect()).unwrap_or_default();
    let name = written.rsplit('.').next().unwrap_or("").to_string();
    let qualified = written.contains('.').then_some(written);
    let (mut strings, mut classes) = (Vec::new(), Vec::new());
    if let Some(args) = node.child_by_field_name("arguments") {
        collect_strings(args, src, &mut strings);
        collect_class_literals(args, src, &mut classes);
    }
    Annotation { name, qualified, strings, classes }
}

/// `X.class` arguments, by the type as written.
fn collect_class_literals(node: Node, src: &[u8], out: &mut Vec<String>) {
    if node.kind() == "class_literal" {
        if let Some(ty) = node.named_child(0) {
            out.push(text(ty, src).split_whitespace().collect());
        }
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_class_literals(child, src, out);
    }
}

fn collect_strings(node: Node, src: &[u8], out: &mut Vec<String>) {
    if node.kind() == "string_literal" {
        out.push(string_value(node, src));
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_strings(child, src, out);
    }
}

/// The content of a string literal without its quotes (escapes left as written).
pub(crate) fn string_value(node: Node, src: &[u8]) -> String {
    let raw = text(node, src);
    let trimmed = raw.trim_start_matches('"').trim_end_matches('"');
    trimmed.to_string()
}

/// Number of arguments in an `argument_list`.
pub(crate) fn argument_nodes<'t>(call: Node<'t>) -> Vec<Node<'t>> {
    let Some(args) = call.child_by_field_name("arguments") else { return Vec::new() };
    let mut cursor = args.walk();
    args.named_children(&mut cursor).filter(|c| !matches!(c.kind(), "line_comment" | "block_comment")).collect()
}

/// The shape of an expression. `local` tells whether an identifier at an offset is a
/// local variable (and which); `lambda` maps a lambda node to its unit.
pub(crate) fn expr_of(
    node: Node,
    src: &[u8],
    local: &dyn Fn(&str, u32) -> Option<u32>,
    lambda: &dyn Fn(Node) -> Option<u32>,
) -> Expr {
    let node = unparenthesize(node);
    match node.kind() {
        "this" => Expr::This,
        "super" => Expr::Super,
        "identifier" => {
            let name = text(node, src);
            match local(name, node.start_byte() as u32) {
                Some(l) => Expr::Local(l),
                None => Expr::Name(name.to_string()),
            }
        }
        "field_access" => {
            let (Some(object), Some(field)) = (node.child_by_field_name("object"), node.child_by_field_name("field"))
            else {
                return Expr::Other;
            };
            if field.kind() == "this" {
                return Expr::OuterThis(text(object, src).rsplit('.').next().unwrap_or("").to_string());
            }
            Expr::Field(Box::new(expr_of(object, src, local, lambda)), text(field, src).to_string())
        }
        "method_invocation" => {
            let name = node.child_by_field_name("name").map(|n| text(n, src)).unwrap_or("").to_string();
            let receiver = node.child_by_field_name("object").map(|o| Box::new(expr_of(o, src, local, lambda)));
            let args = argument_nodes(node).into_iter().map(|a| expr_of(a, src, local, lambda)).collect();
            Expr::Call { receiver, name, args }
        }
        "object_creation_expression" => match node.child_by_field_name("type") {
            Some(t) => Expr::New(type_ref(t, src)),
            None => Expr::Other,
        },
        "array_creation_expression" => match node.child_by_field_name("type") {
            Some(t) => {
                let mut ty = type_ref(t, src);
                ty.array_dims = text(node, src).matches('[').count().max(1) as u8;
                Expr::New(ty)
            }
            None => Expr::Other,
        },
        "cast_expression" => {
            let ty =
                node.child_by_field_name("type").map(|t| type_ref(t, src)).unwrap_or_else(|| TypeRef::simple("Object"));
            let value =
                node.child_by_field_name("value").map(|v| expr_of(v, src, local, lambda)).unwrap_or(Expr::Other);
            Expr::Cast(ty, Box::new(value))
        }
        "array_access" => match node.child_by_field_name("array") {
            Some(a) => Expr::Element(Box::new(expr_of(a, src, local, lambda))),
            None => Expr::Other,
        },
        "class_literal" => match node.named_child(0) {
            Some(t) => Expr::ClassLiteral(type_ref(t, src)),
            None => Expr::Other,
        },
        "string_literal" => Expr::Str(string_value(node, src)),
        "lambda_expression" => lambda(node).map(Expr::Lambda).unwrap_or(Expr::Other),
        "method_reference" => Expr::MethodReference,
        "ternary_expression" => {
            // Either branch will do for typing; prefer the one that is not null.
            let c = node.child_by_field_name("consequence");
            let a = node.child_by_field_name("alternative");
            match (c, a) {
                (Some(c), _) if c.kind() != "null_literal" => expr_of(c, src, local, lambda),
                (_, Some(a)) => expr_of(a, src, local, lambda),
                _ => Expr::Other,
            }
        }
        _ => Expr::Other,
    }
}
