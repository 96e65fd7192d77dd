//! The significant tokens of a file: what a diff compares so that white space,
//! comments and re-flowed lines are no change at all.

use tree_sitter::Node;

use super::facts::Token;

/// Leaves of the tree in order, without comments; literals are one token each.
pub(crate) fn significant_tokens(root: Node, _src: &[u8]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut descend = true;
    loop {
        let node = cursor.node();
        if descend {
            let kind = node.kind();
            let atomic = matches!(kind, "string_literal" | "character_literal" | "text_block");
            let comment = matches!(kind, "line_comment" | "block_comment");
            if comment {
                // skip the whole subtree
            } else if atomic || node.child_count() == 0 {
                if node.end_byte() > node.start_byte() {
                    out.push(Token {
                        start: node.start_byte() as u32,
                        end: node.end_byte() as u32,
                        line: node.start_position().row as u32 + 1,
                        end_line: node.end_position().row as u32 + 1,
                    });
                }
            } else if cursor.goto_first_child() {
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            descend = true;
        } else if cursor.goto_parent() {
            descend = false;
        } else {
            break;
        }
    }
    out
}
