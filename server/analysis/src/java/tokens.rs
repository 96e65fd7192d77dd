//! One walk over the whole tree: the significant tokens of a file (what a diff compares,
//! so that white space, comments and re-flowed lines are no change at all), the parent of
//! every node (tree-sitter finds a parent by walking down from the root), and the variable
//! declarators (whose initializers the extractor reads), so that no other pass walks the
//! whole tree.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use tree_sitter::Node;

use super::facts::Token;

/// Parents of the nodes of one tree, by node id.
#[derive(Default)]
pub(crate) struct Parents<'t>(HashMap<usize, Node<'t>, BuildHasherDefault<IdHasher>>);

/// Node ids are addresses: a multiply and a rotation spread them over the table. (The map
/// is filled for every node on every keystroke; SipHash is needlessly slow for it.)
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_usize(b as usize);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

impl<'t> Parents<'t> {
    pub fn of(&self, node: Node<'t>) -> Option<Node<'t>> {
        self.0.get(&node.id()).copied()
    }
}

/// What one walk over a tree collects.
pub(crate) struct Walk<'t> {
    /// Leaves in order, without comments (literals are one token each).
    pub tokens: Vec<Token>,
    pub parents: Parents<'t>,
    /// Every `variable_declarator` (fields and locals), in document order.
    pub declarators: Vec<Node<'t>>,
}

pub(crate) fn walk<'t>(root: Node<'t>) -> Walk<'t> {
    static DECLARATOR: std::sync::OnceLock<u16> = std::sync::OnceLock::new();
    let declarator =
        *DECLARATOR.get_or_init(|| super::queries::language().id_for_node_kind("variable_declarator", true));
    let mut tokens = Vec::new();
    let mut declarators = Vec::new();
    let mut parents = HashMap::default();
    let mut cursor = root.walk();
    let mut stack: Vec<Node<'t>> = Vec::new();
    let mut descend = true;
    loop {
        let node = cursor.node();
        if descend {
            if let Some(&parent) = stack.last() {
                parents.insert(node.id(), parent);
            }
            if node.kind_id() == declarator {
                declarators.push(node);
            }
            let kind = node.kind();
            let atomic = matches!(kind, "string_literal" | "character_literal" | "text_block");
            let comment = matches!(kind, "line_comment" | "block_comment");
            if comment {
                // skip the whole subtree
            } else if atomic || node.child_count() == 0 {
                if node.end_byte() > node.start_byte() {
                    tokens.push(Token {
                        start: node.start_byte() as u32,
                        end: node.end_byte() as u32,
                        line: node.start_position().row as u32 + 1,
                        end_line: node.end_position().row as u32 + 1,
                    });
                }
            } else if cursor.goto_first_child() {
                stack.push(node);
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            descend = true;
        } else if cursor.goto_parent() {
            stack.pop();
            descend = false;
        } else {
            break;
        }
    }
    Walk { tokens, parents: Parents(parents), declarators }
}
