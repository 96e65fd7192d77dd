//! The persistent index cache: the facts of every Java file of a work tree, written after a
//! load into the work tree's cache folder ([`project_cache`], outside the work tree) and
//! read at the next start, so that a restart on an unchanged tree parses nothing.
//!
//! Never trusted blindly. The file must start with our magic and format number, name the
//! racelens build that wrote it (another build may extract other facts from the same text),
//! and match the checksum of everything after its header; otherwise it is ignored, the
//! reason is reported, and it is written again. An entry is used only for a file whose text
//! hashes to the entry's content hash (xxh3, 128 bits) and whose facts decode; any other
//! file is parsed.
//!
//! Layout (integers little-endian): `MAGIC`, `FORMAT: u32`, build identity (`u32` length,
//! bytes), checksum of the body (`u64`, xxh3), body length (`u64`), body. The body is a run
//! of entries: path (`u32` length, bytes), content hash (`u128`), facts (`u32` length,
//! postcard bytes of [`FileFacts`] without its text).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use xxhash_rust::xxh3::{xxh3_128, xxh3_64};

use crate::cache_dir::{claim_cache, project_cache};
use crate::java::{FileFacts, Members};
use crate::text::LineIndex;

const MAGIC: &[u8; 8] = b"RLINDEX\0";
/// Bumped whenever the layout above changes.
const FORMAT: u32 = 1;
const FILE_NAME: &str = "index.bin";
/// Set (to anything) to neither read nor write the cache.
pub const DISABLE_ENV: &str = "RACELENS_NO_INDEX_CACHE";

/// The hash an entry is validated with: of the text the facts were extracted from.
pub fn content_hash(text: &str) -> u128 {
    xxh3_128(text.as_bytes())
}

/// The cache file of a work tree.
pub fn cache_file(root: &Path) -> PathBuf {
    project_cache(root).join(FILE_NAME)
}

/// What became of the cache at a load, for the log and the tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CacheState {
    /// Turned off ([`DISABLE_ENV`]), or this build cannot name itself.
    #[default]
    Disabled,
    /// No cache file yet.
    Absent,
    /// A cache file that failed a check: why. It was not used.
    Rejected(String),
    /// A cache file that passed every check.
    Read,
}

/// How a load used the cache.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheUse {
    pub state: CacheState,
    /// Files whose facts came from the cache.
    pub reused: usize,
    /// Files parsed (not in the cache, changed since, or an entry that did not decode).
    pub parsed: usize,
}

impl CacheUse {
    /// `from the index cache (880 files; 4 parsed)`, for logs.
    pub fn describe(&self) -> String {
        match &self.state {
            CacheState::Disabled => "index cache off".into(),
            CacheState::Absent => format!("no index cache yet; {} files parsed", self.parsed),
            CacheState::Rejected(why) => format!("index cache not used ({why}); {} files parsed", self.parsed),
            CacheState::Read => format!("{} files from the index cache, {} parsed", self.reused, self.parsed),
        }
    }
}

/// A cache file read and checked, with where each file's entry lies in it.
pub struct IndexCache {
    /// The whole file; entries are ranges of it.
    bytes: Vec<u8>,
    entries: HashMap<String, (u128, Range<usize>)>,
}

impl IndexCache {
    /// Reads the cache of a work tree: `(cache, state)`, the cache only when it passed
    /// every check.
    pub fn open(root: &Path) -> (Option<IndexCache>, CacheState) {
        let Some(build) = build_identity() else { return (None, CacheState::Disabled) };
        let bytes = match std::fs::read(cache_file(root)) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (None, CacheState::Absent),
            Err(e) => return (None, CacheState::Rejected(format!("cannot read it: {e}"))),
        };
        match IndexCache::decode(bytes, &build) {
            Ok(cache) => (Some(cache), CacheState::Read),
            Err(why) => (None, CacheState::Rejected(why)),
        }
    }

    fn decode(bytes: Vec<u8>, build: &str) -> Result<IndexCache, String> {
        let mut r = Reader { bytes: &bytes, at: 0 };
        if r.take(MAGIC.len())? != MAGIC {
            return Err("not a racelens index cache".into());
        }
        if r.u32()? != FORMAT {
            return Err("written in another format".into());
        }
        if r.chunk()? != build.as_bytes() {
            return Err("written by another racelens build".into());
        }
        let checksum = r.u64()?;
        let len = r.u64()? as usize;
        let start = r.at;
        let body = r.take(len)?;
        if r.at != bytes.len() {
            return Err("trailing bytes after the body".into());
        }
        if xxh3_64(body) != checksum {
            return Err("checksum mismatch (a damaged or half-written file)".into());
        }
        let mut entries = HashMap::new();
        let mut r = Reader { bytes: &bytes, at: start };
        while r.at < bytes.len() {
            let path = String::from_utf8(r.chunk()?.to_vec()).map_err(|_| "a path that is not UTF-8")?;
            let content = u128::from_le_bytes(r.take(16)?.try_into().expect("16 bytes"));
            let len = r.u32()? as usize;
            let facts = r.at..r.at + len;
            r.take(len)?;
            entries.insert(path, (content, facts));
        }
        Ok(IndexCache { bytes, entries })
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The facts of `rel` for `text`, if the cache holds them for exactly that text.
    pub fn facts(&self, rel: &str, text: &Arc<str>, content: u128) -> Option<Arc<FileFacts>> {
        let (hash, range) = self.entries.get(rel)?;
        if *hash != content {
            return None;
        }
        let mut facts: FileFacts = postcard::from_bytes(&self.bytes[range.clone()]).ok()?;
        // What the cache leaves out: the text, and what is rebuilt from facts and text.
        facts.lines = LineIndex::new(text);
        facts.text = text.clone();
        facts.members = Members::build(&facts);
        Some(Arc::new(facts))
    }

    /// Writes the cache of a work tree (aside, then renamed over the old one, so that a
    /// reader never sees half a file).
    pub fn write(root: &Path, files: &[(String, u128, Arc<FileFacts>)]) -> Result<(), String> {
        let Some(build) = build_identity() else { return Ok(()) };
        claim_cache(root);
        let file = cache_file(root);
        let aside = crate::cache_dir::aside(&file);
        let written = Self::write_to(&aside, &build, files);
        if written.is_err() {
            let _ = std::fs::remove_file(&aside);
        }
        written?;
        std::fs::rename(&aside, &file).map_err(|e| format!("cannot write {}: {e}", file.display()))
    }

    /// [`IndexCache::write`]'s file, written aside (renamed into place once whole).
    fn write_to(aside: &Path, build: &str, files: &[(String, u128, Arc<FileFacts>)]) -> Result<(), String> {
        use std::io::{Seek, SeekFrom, Write};
        let failed = |e: std::io::Error| format!("cannot write {}: {e}", aside.display());
        // Streamed to the file, one file's facts at a time: a large project's cache is tens
        // of megabytes, and holding it whole (twice) was most of a cold run's peak memory.
        let mut out = std::io::BufWriter::new(std::fs::File::create(aside).map_err(failed)?);
        let mut header = Vec::with_capacity(64);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT.to_le_bytes());
        put_chunk(&mut header, build.as_bytes());
        let sums_at = header.len() as u64;
        header.extend_from_slice(&[0; 16]); // the body's hash and length, once known
        out.write_all(&header).map_err(failed)?;
        let (mut hash, mut len) = (xxhash_rust::xxh3::Xxh3::new(), 0u64);
        let mut chunk = Vec::new();
        for (path, content, facts) in files {
            let encoded =
                postcard::to_stdvec(facts.as_ref()).map_err(|e| format!("cannot encode the facts of {path}: {e}"))?;
            chunk.clear();
            put_chunk(&mut chunk, path.as_bytes());
            chunk.extend_from_slice(&content.to_le_bytes());
            put_chunk(&mut chunk, &encoded);
            hash.update(&chunk);
            len += chunk.len() as u64;
            out.write_all(&chunk).map_err(failed)?;
        }
        let mut file_out = out.into_inner().map_err(|e| failed(e.into_error()))?;
        file_out.seek(SeekFrom::Start(sums_at)).map_err(failed)?;
        file_out.write_all(&hash.digest().to_le_bytes()).map_err(failed)?;
        file_out.write_all(&len.to_le_bytes()).map_err(failed)
    }
}

/// The racelens build: its version and the size and time of its executable, so that a
/// rebuilt or upgraded racelens never reads facts another build wrote. `None` (no cache)
/// when the executable cannot be found or the cache is turned off.
fn build_identity() -> Option<String> {
    if std::env::var_os(DISABLE_ENV).is_some() {
        return None;
    }
    let exe = std::env::current_exe().ok()?.metadata().ok()?;
    let modified = exe.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(format!("racelens {} {} {}", env!("CARGO_PKG_VERSION"), exe.len(), modified.as_nanos()))
}

fn put_chunk(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Reads the layout's pieces, failing on a file that ends too soon.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end =
            self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or("the file ends too soon (truncated)")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn chunk(&mut self) -> Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}
