//! Which files mention what: the files with a resolved access to each field, with a lock
//! region or a monitor call on each lock, and with a call of each method name. Kept
//! current file by file as files are resolved, so that an analysis joining files on one
//! field, lock or method reads those files, not the whole project, and the work of a
//! keystroke follows the edit and what it impacts.

use std::collections::{BTreeSet, HashMap};

use super::{FieldKey, FileId, ResolvedFile};
use crate::java::FileFacts;

#[derive(Default)]
pub(super) struct Inverted {
    fields: HashMap<FieldKey, BTreeSet<FileId>>,
    locks: HashMap<String, BTreeSet<FileId>>,
    calls: HashMap<String, BTreeSet<FileId>>,
    /// The keys each file is entered under, to take it out again.
    keys: HashMap<FileId, Keys>,
}

#[derive(Default)]
struct Keys {
    fields: Vec<FieldKey>,
    locks: Vec<String>,
    calls: Vec<String>,
}

impl Inverted {
    /// Enters a file's keys, replacing those it had.
    pub(super) fn insert(&mut self, id: FileId, facts: &FileFacts, resolved: &ResolvedFile) {
        self.remove(id);
        let mut keys = Keys {
            fields: resolved.sites.iter().map(|s| s.field.clone()).collect(),
            locks: resolved
                .locks
                .iter()
                .map(|l| l.key.clone())
                .chain(resolved.monitor_calls.iter().map(|m| m.lock.key.clone()))
                .collect(),
            calls: facts.calls.iter().map(|c| c.name.clone()).collect(),
        };
        for v in [&mut keys.locks, &mut keys.calls] {
            v.sort_unstable();
            v.dedup();
        }
        keys.fields.sort_unstable();
        keys.fields.dedup();
        for f in &keys.fields {
            self.fields.entry(f.clone()).or_default().insert(id);
        }
        for l in &keys.locks {
            self.locks.entry(l.clone()).or_default().insert(id);
        }
        for c in &keys.calls {
            self.calls.entry(c.clone()).or_default().insert(id);
        }
        self.keys.insert(id, keys);
    }

    pub(super) fn remove(&mut self, id: FileId) {
        let Some(keys) = self.keys.remove(&id) else { return };
        fn take<K: std::hash::Hash + Eq>(map: &mut HashMap<K, BTreeSet<FileId>>, key: &K, id: FileId) {
            if let Some(files) = map.get_mut(key) {
                files.remove(&id);
                if files.is_empty() {
                    map.remove(key);
                }
            }
        }
        for f in &keys.fields {
            take(&mut self.fields, f, id);
        }
        for l in &keys.locks {
            take(&mut self.locks, l, id);
        }
        for c in &keys.calls {
            take(&mut self.calls, c, id);
        }
    }

    pub(super) fn field(&self, field: &FieldKey) -> Option<&BTreeSet<FileId>> {
        self.fields.get(field)
    }

    pub(super) fn lock(&self, key: &str) -> Option<&BTreeSet<FileId>> {
        self.locks.get(key)
    }

    pub(super) fn call(&self, name: &str) -> Option<&BTreeSet<FileId>> {
        self.calls.get(name)
    }

    /// Every field, lock and method name some file is entered under.
    pub(super) fn keys(&self) -> (Vec<&FieldKey>, Vec<&str>, Vec<&str>) {
        (
            self.fields.keys().collect(),
            self.locks.keys().map(String::as_str).collect(),
            self.calls.keys().map(String::as_str).collect(),
        )
    }
}
