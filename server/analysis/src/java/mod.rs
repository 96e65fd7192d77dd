//! Java syntax: parsing with tree-sitter and the per-file facts read from the tree.

pub mod facts;
mod extract;
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
    PARSER.with(|p| p.borrow_mut().parse(text, old)).expect("parsing without a timeout or cancellation flag always yields a tree")
}

#[cfg(test)]
mod tests;
