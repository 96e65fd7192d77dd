//! Java syntax: parsing with tree-sitter and the per-file facts read from the tree.

mod extract;
pub mod facts;
mod inline;
pub mod queries;
mod syntax;
mod tokens;

use std::sync::Arc;

use tree_sitter::{Parser, Tree};

pub use facts::*;

/// A parsed file: the tree (kept for incremental re-parsing) and its facts.
pub struct Parsed {
    pub tree: Tree,
    pub facts: Arc<FileFacts>,
}

/// Parses Java source, reusing `old` (already edited with `Tree::edit`) when given.
pub fn parse(text: Arc<str>, old: Option<&Tree>) -> Parsed {
    let tree = parse_tree(&text, old);
    let facts = Arc::new(extract::extract(&tree, text));
    Parsed { tree, facts }
}

/// An open document: its text and tree, re-parsed incrementally on every edit (the
/// language server's path on each keystroke; the CLI parses whole files).
pub struct Document {
    text: Arc<str>,
    tree: Tree,
    facts: Arc<FileFacts>,
}

impl Document {
    pub fn new(text: Arc<str>) -> Document {
        let Parsed { tree, facts } = parse(text.clone(), None);
        Document { text, tree, facts }
    }

    pub fn text(&self) -> &Arc<str> {
        &self.text
    }

    pub fn facts(&self) -> &Arc<FileFacts> {
        &self.facts
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Replaces bytes `start..end` with `insert`, editing the old tree so that
    /// tree-sitter re-parses only what changed. Offsets are clamped to char boundaries.
    pub fn edit(&mut self, start: usize, end: usize, insert: &str) {
        let old = &self.text;
        let start = floor_char_boundary(old, start.min(old.len()));
        let end = floor_char_boundary(old, end.clamp(start, old.len()));
        let mut text = String::with_capacity(old.len() - (end - start) + insert.len());
        text.push_str(&old[..start]);
        text.push_str(insert);
        text.push_str(&old[end..]);
        let edit = tree_sitter::InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: start + insert.len(),
            start_position: point_at(old, start),
            old_end_position: point_at(old, end),
            new_end_position: point_at(&text, start + insert.len()),
        };
        self.tree.edit(&edit);
        let text: Arc<str> = Arc::from(text);
        // Error recovery can take another path when re-parsing incrementally than from
        // scratch; a broken file is parsed afresh so that its facts never depend on the
        // order of the edits that led to it. While the file stays broken (a statement
        // half typed), the next edit most likely leaves it broken too: parse it afresh
        // at once rather than twice.
        let broken = self.tree.root_node().has_error();
        let mut tree = parse_tree(&text, (!broken).then_some(&self.tree));
        if !broken && tree.root_node().has_error() {
            tree = parse_tree(&text, None);
        }
        let facts = Arc::new(extract::extract(&tree, text.clone()));
        self.text = text;
        self.tree = tree;
        self.facts = facts;
    }

    /// Replaces the whole text (a full-document sync).
    pub fn replace(&mut self, text: Arc<str>) {
        *self = Document::new(text);
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The tree-sitter point (row, byte column) of a byte offset.
fn point_at(text: &str, offset: usize) -> tree_sitter::Point {
    let before = &text[..offset];
    let row = before.bytes().filter(|&b| b == b'\n').count();
    let column = offset - before.rfind('\n').map_or(0, |i| i + 1);
    tree_sitter::Point { row, column }
}

/// Facts of a source text, when the tree itself is not needed afterwards.
pub fn facts_of(text: &str) -> Arc<FileFacts> {
    parse(Arc::from(text), None).facts
}

fn parse_tree(text: &str, old: Option<&Tree>) -> Tree {
    thread_local! {
        static PARSER: std::cell::RefCell<Parser> = std::cell::RefCell::new({
            let mut p = Parser::new();
            p.set_language(&queries::language()).expect("tree-sitter-java matches the tree-sitter ABI");
            p
        });
    }
    PARSER
        .with(|p| p.borrow_mut().parse(text, old))
        .expect("parsing without a timeout or cancellation flag always yields a tree")
}

#[cfg(test)]
mod tests;
