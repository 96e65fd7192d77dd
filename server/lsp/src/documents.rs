//! Open documents: text as a rope (for LSP positions) and as a parsed document (tree and
//! facts, re-parsed incrementally), applied strictly in order of arrival, with versions
//! checked so that a stale change can never be applied over a newer one.

use std::collections::HashMap;
use std::sync::Arc;

use racelens_analysis::host::MAX_FILE_BYTES;
use racelens_analysis::java::Document;
use ropey::Rope;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

use crate::positions::{rope_offset, Encoding};

pub struct OpenDocument {
    pub version: i32,
    pub rope: Rope,
    /// The parsed document; `None` for a buffer too large to analyse.
    pub doc: Option<Document>,
}

fn parsed(text: &str) -> Option<Document> {
    (text.len() <= MAX_FILE_BYTES).then(|| Document::new(Arc::from(text)))
}

#[derive(Default)]
pub struct Documents {
    open: HashMap<Uri, OpenDocument>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum ChangeOutcome {
    Applied,
    /// The version is not newer than the document's: the change was dropped.
    Stale {
        current: i32,
        got: i32,
    },
    NotOpen,
}

impl Documents {
    pub fn open(&mut self, uri: Uri, version: i32, text: &str) {
        self.open.insert(uri, OpenDocument { version, rope: Rope::from_str(text), doc: parsed(text) });
    }

    pub fn close(&mut self, uri: &Uri) -> bool {
        self.open.remove(uri).is_some()
    }

    pub fn get(&self, uri: &Uri) -> Option<&OpenDocument> {
        self.open.get(uri)
    }

    pub fn uris(&self) -> impl Iterator<Item = &Uri> {
        self.open.keys()
    }

    /// Applies the content changes of one `didChange`, in order.
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        encoding: Encoding,
    ) -> ChangeOutcome {
        let Some(d) = self.open.get_mut(uri) else { return ChangeOutcome::NotOpen };
        if version <= d.version {
            return ChangeOutcome::Stale { current: d.version, got: version };
        }
        for change in changes {
            match change.range {
                Some(range) => {
                    let start = rope_offset(&d.rope, range.start, encoding);
                    let end = rope_offset(&d.rope, range.end, encoding).max(start);
                    let (cs, ce) = (d.rope.byte_to_char(start), d.rope.byte_to_char(end));
                    d.rope.remove(cs..ce);
                    d.rope.insert(cs, &change.text);
                    match &mut d.doc {
                        Some(doc) if d.rope.len_bytes() <= MAX_FILE_BYTES => doc.edit(start, end, &change.text),
                        _ => d.doc = parsed(&d.rope.to_string()),
                    }
                }
                None => {
                    d.rope = Rope::from_str(&change.text);
                    d.doc = parsed(&change.text);
                }
            }
        }
        debug_assert!(d.doc.as_ref().is_none_or(|doc| doc.text().len() == d.rope.len_bytes()));
        d.version = version;
        ChangeOutcome::Applied
    }
}
