//! The JDK's own sources (`$JAVA_HOME/lib/src.zip`, Debian package `openjdk-17-source`),
//! read lazily: a JDK class is parsed the first time a callee's read/write set needs it,
//! as in CAPP's Mina example where `queue.isEmpty()` reaches `ConcurrentLinkedQueue.head`.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::java::{self, ClassIdx, FileFacts};

pub struct Jdk {
    zip_path: PathBuf,
    listing: OnceLock<Listing>,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Listing {
    /// `java.util.concurrent.ConcurrentLinkedQueue` -> entry name in the zip.
    classes: HashMap<String, String>,
    packages: HashSet<String>,
}

#[derive(Default)]
struct Cache {
    archive: Option<zip::ZipArchive<File>>,
    files: Vec<(String, Arc<FileFacts>)>,
    by_name: HashMap<String, Option<u32>>,
}

impl Jdk {
    /// Opens a `src.zip`; fails when it is missing or not a zip file.
    pub fn open(path: &Path) -> Result<Jdk, String> {
        let file = File::open(path).map_err(|e| format!("cannot open JDK sources {}: {e}", path.display()))?;
        let archive =
            zip::ZipArchive::new(file).map_err(|e| format!("{} is not a readable zip file: {e}", path.display()))?;
        Ok(Jdk {
            zip_path: path.to_path_buf(),
            listing: OnceLock::new(),
            cache: Mutex::new(Cache { archive: Some(archive), ..Cache::default() }),
        })
    }

    /// Finds the JDK's `src.zip`: `$JAVA_HOME/lib/src.zip`, else next to the `java` on
    /// `PATH`, else Debian's default JDK.
    pub fn locate() -> Option<PathBuf> {
        let mut candidates = Vec::new();
        if let Some(home) = std::env::var_os("JAVA_HOME") {
            candidates.push(PathBuf::from(home).join("lib/src.zip"));
        }
        if let Some(java) = find_on_path("java") {
            if let Ok(real) = std::fs::canonicalize(java) {
                if let Some(home) = real.parent().and_then(|bin| bin.parent()) {
                    candidates.push(home.join("lib/src.zip"));
                }
            }
        }
        candidates.push(PathBuf::from("/usr/lib/jvm/default-java/lib/src.zip"));
        candidates.into_iter().find(|p| p.is_file())
    }

    pub fn zip_path(&self) -> &Path {
        &self.zip_path
    }

    fn listing(&self) -> &Listing {
        self.listing.get_or_init(|| {
            let mut listing = Listing::default();
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            let Some(archive) = cache.archive.as_ref() else { return listing };
            for name in archive.file_names().filter_map(|n| n.ok()) {
                let Some(path) = name.strip_suffix(".java") else { continue };
                // `java.base/java/util/Queue.java`: drop the module directory.
                let path = match path.split_once('/') {
                    Some((module, rest)) if module.contains('.') && !module.contains('/') => rest,
                    _ => path,
                };
                let qualified = path.replace('/', ".");
                if qualified.ends_with("package-info") || qualified.ends_with("module-info") {
                    continue;
                }
                if let Some((pkg, _)) = qualified.rsplit_once('.') {
                    listing.packages.insert(pkg.to_string());
                }
                listing.classes.insert(qualified, name.into_owned());
            }
            listing
        })
    }

    /// Whether `java.util.Queue` (a top-level class) has a source file here.
    pub fn has_class(&self, qualified: &str) -> bool {
        self.listing().classes.contains_key(qualified)
    }

    pub fn has_package(&self, package: &str) -> bool {
        self.listing().packages.contains(package)
    }

    /// Finds a class by its dotted source name (`java.util.Map.Entry` for a nested one),
    /// parsing its file on first use.
    pub fn find_class(&self, qualified: &str) -> Option<(u32, ClassIdx)> {
        let listing = self.listing();
        // The longest prefix that is a top-level class; the rest names nested classes.
        let mut top = qualified;
        let mut nested: Vec<&str> = Vec::new();
        while !listing.classes.contains_key(top) {
            let (head, last) = top.rsplit_once('.')?;
            nested.push(last);
            top = head;
        }
        nested.reverse();
        let file = self.load(top)?;
        let facts = self.file(file);
        let mut binary = top.to_string();
        for n in nested {
            binary.push('$');
            binary.push_str(n);
        }
        let idx = facts.classes.iter().position(|c| c.binary_name == binary)?;
        Some((file, idx as ClassIdx))
    }

    /// Parses a top-level class's file (once) and returns its number.
    fn load(&self, top: &str) -> Option<u32> {
        let entry = self.listing().classes.get(top)?.clone();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = cache.by_name.get(top) {
            return known;
        }
        let text = cache.archive.as_mut().and_then(|a| {
            let mut f = a.by_name(&entry).ok()?;
            let mut s = String::new();
            f.read_to_string(&mut s).ok()?;
            Some(s)
        });
        let result = text.map(|t| {
            let facts = java::facts_of(&t);
            cache.files.push((entry.clone(), facts));
            cache.files.len() as u32 - 1
        });
        cache.by_name.insert(top.to_string(), result);
        result
    }

    pub fn file(&self, i: u32) -> Arc<FileFacts> {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.files[i as usize].1.clone()
    }

    /// `jdk:java.base/java/util/Queue.java`
    pub fn path_of(&self, i: u32) -> String {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        format!("jdk:{}", cache.files[i as usize].0)
    }

    /// How many JDK files have been parsed so far.
    pub fn loaded_files(&self) -> usize {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).files.len()
    }
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(program)).find(|p| p.is_file())
}
