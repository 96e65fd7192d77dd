//! The project index: the facts of every Java file of a work tree, the symbol table that
//! joins them, and each file's resolved field accesses.
//!
//! Updating one file recomputes that file's facts only (done by the caller) and its
//! resolution here; when a file's *declarations* change (a field, a method signature, a
//! supertype), the symbol table is rebuilt and the files whose resolution depended on
//! what changed are resolved again (each file's resolution records what it read:
//! [`resolve::Dependencies`]). Typing in a method body never changes declarations, so the
//! common path is one file. The inverted
//! index (which files access a field, hold a lock, call a method name) follows each
//! file's resolution, so analyses that join files read the files that matter only.

mod inverted;
pub mod jdk;
pub mod locks;
pub mod resolve;
mod sites;
mod symbols;

use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::java::{AccessKind, ClassIdx, FileFacts, MethodIdx, Span, UnitIdx};

pub use jdk::Jdk;
pub use locks::LockId;
pub use resolve::{Resolver, Ty, TypeName};
pub(crate) use sites::{
    collection_kind, field_collection, gives_to_keep, is_atomic_field, is_collection_interface, is_mutator,
    resolve_access, takes_key, Collection, SPAWN_METHODS, THREAD_TYPES,
};
pub use sites::{FieldFlags, MonitorCall, MonitorOp, ResolvedFile, Site};
pub use symbols::Symbols;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// Where a class's source lives: a file of the project, or a JDK source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    Project(FileId),
    Jdk(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassRef {
    pub origin: Origin,
    pub idx: ClassIdx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MethodRef {
    pub origin: Origin,
    pub idx: MethodIdx,
}

/// A field, named stably across edits: declaring class's binary name and field name.
/// `element` stands for the elements of the array (or collection) the field holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldKey {
    pub class: Arc<str>,
    pub name: Arc<str>,
    pub element: bool,
}

impl FieldKey {
    pub fn new(class: &str, name: &str, element: bool) -> FieldKey {
        FieldKey { class: Arc::from(class), name: Arc::from(name), element }
    }
    /// `name`, or `name[]` for elements.
    pub fn display_name(&self) -> String {
        if self.element {
            format!("{}[]", self.name)
        } else {
            self.name.to_string()
        }
    }
    /// The class's name without its package: `Pool$Entry`.
    pub fn short_class(&self) -> &str {
        self.class.rsplit('.').next().unwrap_or(&self.class)
    }
}

pub struct FileEntry {
    /// Path relative to the work tree root, `/`-separated.
    pub path: String,
    pub facts: Arc<FileFacts>,
    pub resolved: Arc<ResolvedFile>,
    declarations: u64,
}

#[derive(Default)]
pub struct ProjectIndex {
    entries: Vec<Option<FileEntry>>,
    by_path: HashMap<String, FileId>,
    symbols: Arc<Symbols>,
    symbols_dirty: bool,
    /// Files whose declarations changed since the last commit (added, edited or removed),
    /// with the class names they declared before.
    declarations_changed: HashMap<FileId, Vec<String>>,
    unresolved: BTreeSet<FileId>,
    jdk: Option<Arc<Jdk>>,
    inverted: inverted::Inverted,
}

impl ProjectIndex {
    pub fn new(jdk: Option<Arc<Jdk>>) -> ProjectIndex {
        ProjectIndex { jdk, ..ProjectIndex::default() }
    }

    /// Adds or replaces a file's facts. Call [`ProjectIndex::commit`] after a batch.
    pub fn upsert(&mut self, path: &str, facts: Arc<FileFacts>) -> FileId {
        let declarations = declarations_hash(&facts);
        let id = match self.by_path.get(path) {
            Some(&id) => id,
            None => {
                let id = FileId(self.entries.len() as u32);
                self.entries.push(None);
                self.by_path.insert(path.to_string(), id);
                id
            }
        };
        let slot = &mut self.entries[id.0 as usize];
        if slot.as_ref().is_none_or(|e| e.declarations != declarations) {
            self.symbols_dirty = true;
            let before = slot.as_ref().map(|e| declared_names(&e.facts)).unwrap_or_default();
            self.declarations_changed.entry(id).or_insert(before);
        }
        *slot = Some(FileEntry { path: path.to_string(), facts, resolved: Arc::default(), declarations });
        self.unresolved.insert(id);
        id
    }

    pub fn remove(&mut self, path: &str) {
        if let Some(id) = self.by_path.remove(path) {
            if let Some(e) = &self.entries[id.0 as usize] {
                let before = declared_names(&e.facts);
                self.declarations_changed.entry(id).or_insert(before);
            }
            self.entries[id.0 as usize] = None;
            self.unresolved.remove(&id);
            self.inverted.remove(id);
            self.symbols_dirty = true;
        }
    }

    /// Rebuilds what the updates since the last commit invalidated. When declarations
    /// changed, the symbol table is rebuilt, and the files whose resolution read what
    /// changed are resolved again: those that read a changed file's facts, looked up a
    /// class name it declares or declared, or asked for subtypes (rust-analyzer's way:
    /// recompute what the recorded dependencies say an edit invalidates).
    pub fn commit(&mut self) {
        if self.symbols_dirty {
            let changed = std::mem::take(&mut self.declarations_changed);
            let mut names: BTreeSet<String> = changed.values().flatten().cloned().collect();
            for id in changed.keys() {
                names.extend(self.entry(*id).map(|e| declared_names(&e.facts)).unwrap_or_default());
            }
            // Updated in place: nothing else holds the table between commits.
            let mut symbols = std::mem::take(&mut self.symbols);
            Arc::make_mut(&mut symbols).update(self, &changed, &names);
            self.symbols = symbols;
            self.symbols_dirty = false;
            let dependents = self.dependents(&changed, &names);
            self.unresolved.extend(dependents);
        }
        let todo: Vec<FileId> = std::mem::take(&mut self.unresolved).into_iter().collect();
        let resolved = resolve_in_parallel(self, &todo);
        for (id, r) in todo.into_iter().zip(resolved) {
            if let Some(e) = self.entries[id.0 as usize].as_mut() {
                self.inverted.insert(id, &e.facts, &r);
                e.resolved = Arc::new(r);
            }
        }
    }

    /// The files whose resolution depends on the declarations of `changed`, the changed
    /// files themselves included (`names`: the class names they declare and declared).
    fn dependents(&self, changed: &HashMap<FileId, Vec<String>>, names: &BTreeSet<String>) -> Vec<FileId> {
        self.entries()
            .filter(|(id, e)| {
                let deps = &e.resolved.deps;
                changed.contains_key(id) || deps.subtypes || deps.touched_by(changed, names)
            })
            .map(|(id, _)| id)
            .collect()
    }

    /// The files with a resolved access to `field`, in id order.
    pub fn files_accessing<'a>(&'a self, field: &FieldKey) -> impl Iterator<Item = FileId> + 'a {
        self.inverted.field(field).into_iter().flatten().copied()
    }

    /// The files with a lock region or a `wait`/`notify` on the lock `key`, in id order.
    pub fn files_locking<'a>(&'a self, key: &str) -> impl Iterator<Item = FileId> + 'a {
        self.inverted.lock(key).into_iter().flatten().copied()
    }

    /// The files that call a method named `name`, in id order.
    pub fn files_calling<'a>(&'a self, name: &str) -> impl Iterator<Item = FileId> + 'a {
        self.inverted.call(name).into_iter().flatten().copied()
    }

    /// The fields, locks and method names the inverted index enters any file under, in no
    /// particular order: for checking the index against one built from scratch.
    pub fn indexed_keys(&self) -> (Vec<&FieldKey>, Vec<&str>, Vec<&str>) {
        self.inverted.keys()
    }

    pub fn file_id(&self, path: &str) -> Option<FileId> {
        self.by_path.get(path).copied()
    }

    pub fn entry(&self, id: FileId) -> Option<&FileEntry> {
        self.entries.get(id.0 as usize).and_then(|e| e.as_ref())
    }

    /// The method a place of a project file is in (a lambda's: the method it is written in).
    pub fn method_of_place(&self, file: FileId, span: crate::java::Span) -> Option<MethodRef> {
        let facts = &self.entry(file)?.facts;
        let idx = match facts.unit_at(span.start) {
            Some(unit) => facts.units[unit as usize].method,
            None => facts.method_at(span.start)?,
        };
        Some(MethodRef { origin: Origin::Project(file), idx })
    }

    pub fn ids(&self) -> impl Iterator<Item = FileId> + '_ {
        self.entries.iter().enumerate().filter(|(_, e)| e.is_some()).map(|(i, _)| FileId(i as u32))
    }

    pub fn entries(&self) -> impl Iterator<Item = (FileId, &FileEntry)> + '_ {
        self.entries.iter().enumerate().filter_map(|(i, e)| e.as_ref().map(|e| (FileId(i as u32), e)))
    }

    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    pub fn jdk(&self) -> Option<&Jdk> {
        self.jdk.as_deref()
    }

    /// The facts of a project file or a (loaded) JDK file.
    pub fn facts(&self, origin: Origin) -> Option<Arc<FileFacts>> {
        match origin {
            Origin::Project(id) => self.entry(id).map(|e| e.facts.clone()),
            Origin::Jdk(i) => self.jdk.as_ref().map(|j| j.file(i)),
        }
    }

    /// Path of a project file, or `jdk:java/util/...` for JDK sources.
    pub fn path(&self, origin: Origin) -> String {
        match origin {
            Origin::Project(id) => self.entry(id).map(|e| e.path.clone()).unwrap_or_default(),
            Origin::Jdk(i) => self.jdk.as_ref().map(|j| j.path_of(i)).unwrap_or_default(),
        }
    }

    pub fn resolver(&self) -> Resolver<'_> {
        Resolver::new(self, false)
    }

    /// A resolver that also reads JDK sources (for callees' read/write sets).
    pub fn resolver_with_jdk(&self) -> Resolver<'_> {
        Resolver::new(self, self.jdk.is_some())
    }

    /// Canonical locks held at an offset of a unit of a project file (computed when the
    /// file was resolved).
    pub fn locks_at(&self, file: FileId, unit: UnitIdx, offset: u32) -> Vec<LockId> {
        let Some(e) = self.entry(file) else { return Vec::new() };
        if unit as usize >= e.facts.units.len() {
            return Vec::new();
        }
        let mut out: Vec<LockId> =
            e.facts.held_regions(unit, offset).into_iter().filter_map(|i| e.resolved.locks.get(i).cloned()).collect();
        // A private helper runs under the locks all its callers hold.
        let holder = e.facts.holding_unit(unit).map(|u| e.facts.units[u as usize].method);
        if let Some(held) = holder.and_then(|m| e.resolved.caller_locks.get(&m)) {
            out.extend(held.iter().cloned());
        }
        out.sort();
        out.dedup();
        out
    }

    /// Every resolved access to `field` in the project.
    pub fn sites_of<'a>(&'a self, field: &'a FieldKey) -> impl Iterator<Item = (FileId, &'a Site)> + 'a {
        self.files_accessing(field)
            .filter_map(move |id| self.entry(id).map(|e| (id, e)))
            .flat_map(move |(id, e)| e.resolved.sites.iter().filter(move |s| &s.field == field).map(move |s| (id, s)))
    }
}

/// A site of an access in a file, for the analyses that join files.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SiteRef {
    pub file: FileId,
    pub span: Span,
    pub unit: UnitIdx,
    pub kind: AccessKind,
}

fn resolve_in_parallel(index: &ProjectIndex, todo: &[FileId]) -> Vec<ResolvedFile> {
    use rayon::prelude::*;
    // One file (a keystroke) resolves on the calling thread.
    if todo.len() < 32 {
        return todo.iter().map(|&id| sites::resolve_file(index, id)).collect();
    }
    todo.par_iter().map(|&id| sites::resolve_file(index, id)).collect()
}

/// The names by which other files can find a file's classes in the symbol table: source
/// names (`pkg.Outer.Inner`) and binary names.
fn declared_names(facts: &FileFacts) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in facts.classes.iter().enumerate() {
        out.push(c.binary_name.clone());
        out.push(symbols::source_name(facts, i as u32));
    }
    out
}

/// A hash of what other files can see of this one: package, imports, type declarations,
/// field and method signatures, field initializers. Method bodies do not count. Stable
/// across runs (the compile cache keeps it on disk).
pub fn declarations_hash(facts: &FileFacts) -> u64 {
    let mut h = crate::cache_dir::stable_hasher();
    facts.package.hash(&mut h);
    facts.imports.hash(&mut h);
    facts.static_imports.hash(&mut h);
    for c in &facts.classes {
        (&c.binary_name, c.kind, &c.superclass, &c.interfaces, c.outer, c.is_static).hash(&mut h);
        for a in &c.annotations {
            (&a.name, &a.strings).hash(&mut h);
        }
    }
    for f in &facts.fields {
        // The initializer too: other files' resolution reads it (`List<T> items = new
        // ArrayList<>()` makes `next.items.add(...)` a write to an unsynchronized list).
        (f.class, &f.name, &f.ty, f.is_static, f.is_final, f.is_volatile, &f.init).hash(&mut h);
        for a in &f.annotations {
            (&a.name, &a.strings).hash(&mut h);
        }
    }
    for m in &facts.methods {
        (m.class, &m.name, m.kind, m.params.len(), m.is_static, m.is_synchronized, &m.return_type).hash(&mut h);
        for p in &m.params {
            p.ty.hash(&mut h);
        }
    }
    h.finish()
}
