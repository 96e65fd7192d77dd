//! The tree-sitter queries under `queries/java/`, compiled once per process.

use std::sync::OnceLock;

use tree_sitter::{Language, Query};

pub(crate) const DECLARATIONS: &str = include_str!("../../../../queries/java/declarations.scm");
pub(crate) const ACCESSES: &str = include_str!("../../../../queries/java/accesses.scm");
pub(crate) const CALLS: &str = include_str!("../../../../queries/java/calls.scm");
pub(crate) const LOCKS: &str = include_str!("../../../../queries/java/locks.scm");

/// Every query file by name, so that a test can compile them all.
pub const ALL: &[(&str, &str)] =
    &[("declarations.scm", DECLARATIONS), ("accesses.scm", ACCESSES), ("calls.scm", CALLS), ("locks.scm", LOCKS)];

/// All query files compiled into one query, so that a file is traversed once; capture
/// names are prefixed by their file's concern (`decl.`, `access.`, `call.`, `lock.`).
pub(crate) struct Queries {
    pub all: Query,
}

pub fn language() -> Language {
    tree_sitter_java::LANGUAGE.into()
}

pub(crate) fn queries() -> &'static Queries {
    static QUERIES: OnceLock<Queries> = OnceLock::new();
    QUERIES.get_or_init(|| {
        let all: Vec<&str> = ALL.iter().map(|(_, src)| *src).collect();
        let all = Query::new(&language(), &all.join("\n"))
            .unwrap_or_else(|e| panic!("queries/java/*.scm do not compile together: {e}"));
        Queries { all }
    })
}

/// Compiles one query source, for tests and tools that check the `.scm` files.
pub fn compile(src: &str) -> Result<Query, tree_sitter::QueryError> {
    Query::new(&language(), src)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `.scm` file under `queries/java/` compiles, and the crate embeds all of them.
    #[test]
    fn every_query_file_compiles_and_is_used() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../queries/java");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".scm"))
            .collect();
        on_disk.sort();
        for name in &on_disk {
            let src = std::fs::read_to_string(dir.join(name)).unwrap();
            if let Err(e) = compile(&src) {
                panic!("queries/java/{name}: {e}");
            }
        }
        let mut embedded: Vec<String> = ALL.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "every query file is embedded, and only those");
        // The compiled set the extractor uses.
        let q = queries();
        assert!(q.all.capture_index_for_name("decl.class").is_some());
        assert!(q.all.capture_index_for_name("lock.acquire").is_some());
    }
}
