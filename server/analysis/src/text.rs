//! Positions: the one place where byte offsets, lines and columns are converted.
//!
//! Tree-sitter counts bytes, the CLI prints 1-based lines and columns, and LSP counts
//! UTF-16 code units (or UTF-8 bytes when negotiated). Everything else in the analysis
//! stores byte offsets and 1-based line numbers and asks a [`LineIndex`] for the rest.

/// Line starts of one text, for offset <-> line/column conversion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of the first byte of every line; `starts[0] == 0`.
    starts: Vec<u32>,
    len: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr_newlines(text.as_bytes()).map(|i| i as u32 + 1));
        LineIndex { starts, len: text.len() as u32 }
    }

    /// Number of lines (a trailing newline does not start a new counted line of text,
    /// but an empty last line is still addressable).
    pub fn line_count(&self) -> u32 {
        self.starts.len() as u32
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        match self.starts.binary_search(&offset) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }

    /// Byte offset where a 1-based line starts (clamped to the text).
    pub fn line_start(&self, line: u32) -> u32 {
        let i = (line.max(1) - 1) as usize;
        self.starts.get(i).copied().unwrap_or(self.len)
    }

    /// Byte offset just past the end of a 1-based line, excluding its line break.
    pub fn line_end(&self, line: u32, text: &str) -> u32 {
        let next = self.starts.get(line as usize).copied().unwrap_or(self.len);
        let bytes = text.as_bytes();
        let mut end = next;
        while end > self.line_start(line) && matches!(bytes.get(end as usize - 1), Some(b'\n' | b'\r')) {
            end -= 1;
        }
        end
    }

    /// 1-based column in characters (what compilers print) of a byte offset.
    pub fn char_column(&self, offset: u32, text: &str) -> u32 {
        let start = self.line_start(self.line_of(offset)) as usize;
        let end = (offset as usize).min(text.len());
        text.get(start..end).map_or(1, |s| s.chars().count() as u32 + 1)
    }

    /// 0-based column of a byte offset in UTF-16 code units (LSP's default encoding).
    pub fn utf16_column(&self, offset: u32, text: &str) -> u32 {
        let start = self.line_start(self.line_of(offset)) as usize;
        let end = (offset as usize).min(text.len());
        text.get(start..end).map_or(0, |s| s.encode_utf16().count() as u32)
    }

    /// Byte offset of a 0-based UTF-16 column on a 1-based line, clamped to the line.
    pub fn offset_of_utf16(&self, line: u32, column: u32, text: &str) -> u32 {
        let start = self.line_start(line);
        let end = self.line_end(line, text);
        let mut units = 0u32;
        for (i, c) in text[start as usize..end as usize].char_indices() {
            if units >= column {
                return start + i as u32;
            }
            units += c.len_utf16() as u32;
        }
        end
    }
}

fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters_and_utf16_units() {
        let text = "ab\nçé𝄞x\n\nend";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        let x = text.find('x').unwrap() as u32;
        assert_eq!(index.line_of(x), 2);
        assert_eq!(index.char_column(x, text), 4);
        // ç and é are one UTF-16 unit each, 𝄞 is a surrogate pair.
        assert_eq!(index.utf16_column(x, text), 4);
        assert_eq!(index.offset_of_utf16(2, 4, text), x);
        assert_eq!(index.line_of(text.find("end").unwrap() as u32), 4);
        assert_eq!(index.line_end(1, text), 2);
    }
}
