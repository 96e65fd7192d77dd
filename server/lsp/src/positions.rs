//! LSP positions <-> byte offsets, in the encoding negotiated with the client (UTF-16 by
//! default, UTF-8 when offered). Incoming positions address the open document (a rope);
//! outgoing ones come from the analysis, whose facts carry the text they were read from.

use racelens_analysis::java::{FileFacts, Span};
use ropey::Rope;
use tower_lsp_server::ls_types::{Position, Range};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf16,
    Utf8,
}

/// Byte offset in the rope of an LSP position (clamped to the line and the text).
pub fn rope_offset(rope: &Rope, pos: Position, encoding: Encoding) -> usize {
    let line = (pos.line as usize).min(rope.len_lines().saturating_sub(1));
    let line_start = rope.line_to_char(line);
    let mut line_end = if line + 1 < rope.len_lines() { rope.line_to_char(line + 1) } else { rope.len_chars() };
    // A position past the end of the line means its end, before the line break.
    for brk in ['\n', '\r'] {
        if line_end > line_start && rope.char(line_end - 1) == brk {
            line_end -= 1;
        }
    }
    let char_idx = match encoding {
        Encoding::Utf16 => {
            let base = rope.char_to_utf16_cu(line_start);
            let end = rope.char_to_utf16_cu(line_end);
            rope.utf16_cu_to_char((base + pos.character as usize).min(end))
        }
        Encoding::Utf8 => {
            let base = rope.line_to_byte(line);
            let end = rope.char_to_byte(line_end);
            rope.byte_to_char((base + pos.character as usize).min(end))
        }
    };
    rope.char_to_byte(char_idx.clamp(line_start, line_end))
}

/// The LSP position of a byte offset of the facts' text.
pub fn position(facts: &FileFacts, offset: u32, encoding: Encoding) -> Position {
    let line = facts.lines.line_of(offset);
    let character = match encoding {
        Encoding::Utf16 => facts.lines.utf16_column(offset, &facts.text),
        Encoding::Utf8 => offset - facts.lines.line_start(line),
    };
    Position { line: line - 1, character }
}

pub fn range(facts: &FileFacts, span: Span, encoding: Encoding) -> Range {
    Range { start: position(facts, span.start, encoding), end: position(facts, span.end.max(span.start), encoding) }
}

/// The range of a line's text, leading indentation left out (1-based `line`).
pub fn line_range(facts: &FileFacts, line: u32, encoding: Encoding) -> Range {
    let start = facts.lines.line_start(line);
    let end = facts.lines.line_end(line, &facts.text).max(start);
    let text = facts.text.get(start as usize..end as usize).unwrap_or("");
    let indent = (text.len() - text.trim_start().len()) as u32;
    Range { start: position(facts, start + indent, encoding), end: position(facts, end, encoding) }
}

/// Byte offset in the facts' text of an LSP position.
pub fn offset(facts: &FileFacts, pos: Position, encoding: Encoding) -> u32 {
    let line = pos.line + 1;
    match encoding {
        Encoding::Utf16 => facts.lines.offset_of_utf16(line, pos.character, &facts.text),
        Encoding::Utf8 => {
            let start = facts.lines.line_start(line);
            (start + pos.character).min(facts.lines.line_end(line, &facts.text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_count_surrogate_pairs() {
        let text = "class A {\n  String s = \"é𝄞\"; int x;\n}\n";
        let rope = Rope::from_str(text);
        let x = text.find("x;").unwrap();
        let line_start = text.find('\n').unwrap() + 1;
        // é is one UTF-16 unit, 𝄞 two; in UTF-8 they are 2 and 4 bytes.
        let units = text[line_start..x].encode_utf16().count() as u32;
        assert_eq!(units, 24);
        let pos = Position { line: 1, character: units };
        assert_eq!(rope_offset(&rope, pos, Encoding::Utf16), x);
        let facts = racelens_analysis::java::facts_of(text);
        assert_eq!(position(&facts, x as u32, Encoding::Utf16), pos);
        assert_eq!(offset(&facts, pos, Encoding::Utf16), x as u32);
        let utf8 = Position { line: 1, character: (x - text.find('\n').unwrap() - 1) as u32 };
        assert_eq!(rope_offset(&rope, utf8, Encoding::Utf8), x);
        assert_eq!(position(&facts, x as u32, Encoding::Utf8), utf8);
        // Past the end of a line clamps to the line.
        assert_eq!(rope_offset(&rope, Position { line: 0, character: 99 }, Encoding::Utf16), text.find('\n').unwrap());
    }
}
