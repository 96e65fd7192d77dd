//! Shared variables (SimRT section 3.2): the field accesses that more than one thread
//! may reach.
//!
//! SimRT uses Soot's thread-local object analysis; racelens approximates it by class:
//! objects of a class escape to other threads when the code shows it (a thread or task
//! class, an object handed to a thread or executor or captured by its code, a static
//! field's object, a class designed for sharing because it synchronizes or holds
//! volatile, lock or atomic fields, `@ThreadSafe`), and everything an escaping object
//! holds in its fields escapes with it. Static fields are shared. Not shared: `final`
//! fields (written only in constructors, immutable once published; the elements of a
//! final array are still shared), accesses to `this` inside a constructor and to a static
//! field inside its class's static initializer (not published yet), and classes marked
//! `@NotThreadSafe`. Like SimRT's, a non-final field written only in constructors is a
//! shared variable; it forms no pair, having no write that another thread could race.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use crate::index::{FieldFlags, FieldKey, FileId, Origin, ProjectIndex, Site};
use crate::java::{FieldDecl, FileFacts, MethodKind};

/// A hash of every file's escape evidence: `Sharing` need not be recomputed while it
/// stays the same.
pub fn evidence_hash(index: &ProjectIndex) -> u64 {
    index.entries().fold(0u64, |acc, (id, e)| acc.wrapping_add(e.resolved.evidence.wrapping_mul(u64::from(id.0) * 2 + 1)))
}

#[derive(Default)]
pub struct Sharing {
    /// Escaping classes and why the first one of their chain escaped.
    escaping: HashMap<Arc<str>, &'static str>,
    not_thread_safe: HashSet<Arc<str>>,
}

impl Sharing {
    pub fn compute(index: &ProjectIndex) -> Sharing {
        let mut s = Sharing::default();
        let mut edges: HashMap<Arc<str>, Vec<Arc<str>>> = HashMap::new();
        let mut queue = VecDeque::new();
        for (_, e) in index.entries() {
            for c in &e.facts.classes {
                if c.annotations.iter().any(|a| a.name == "NotThreadSafe") {
                    s.not_thread_safe.insert(Arc::from(c.binary_name.as_str()));
                }
            }
            for (class, why) in &e.resolved.escape_seeds {
                queue.push_back((class.clone(), *why));
            }
            for (a, b) in &e.resolved.holds {
                edges.entry(a.clone()).or_default().push(b.clone());
            }
            for (sub, sup) in &e.resolved.supertypes {
                edges.entry(sub.clone()).or_default().push(sup.clone());
                edges.entry(sup.clone()).or_default().push(sub.clone());
            }
        }
        while let Some((class, why)) = queue.pop_front() {
            if s.not_thread_safe.contains(&class) || s.escaping.contains_key(&class) {
                continue;
            }
            s.escaping.insert(class.clone(), why);
            for next in edges.get(&class).into_iter().flatten() {
                queue.push_back((next.clone(), "objects that escape hold it"));
            }
        }
        s
    }

    /// Why objects of a class are reachable from more than one thread, if they are.
    pub fn escapes(&self, class: &str) -> Option<&'static str> {
        self.escaping.get(class).copied()
    }

    pub fn is_not_thread_safe(&self, class: &str) -> bool {
        self.not_thread_safe.contains(class)
    }

    /// Whether an access is to a shared variable.
    pub fn is_shared(&self, index: &ProjectIndex, file: FileId, site: &Site) -> bool {
        if self.is_not_thread_safe(&site.field.class) {
            return false;
        }
        let Some(entry) = index.entry(file) else { return false };
        !confined(&entry.facts, site, site.decl.is_static) && self.is_shared_variable(&site.field, site.decl)
    }

    /// Whether a field (or the elements it holds) declared so is a shared variable wherever
    /// it is accessed: it can change (not a `final` field itself; its elements can), and
    /// it is static or its class's objects escape to other threads.
    pub fn is_shared_variable(&self, field: &FieldKey, decl: FieldFlags) -> bool {
        if self.is_not_thread_safe(&field.class) {
            return false;
        }
        let mutable = field.element || !decl.is_final;
        if decl.is_static {
            return mutable;
        }
        mutable && self.escapes(&field.class).is_some()
    }
}

/// The declaration of a project field.
pub fn field_decl(index: &ProjectIndex, key: &FieldKey) -> Option<(Origin, Arc<FileFacts>, u32)> {
    let class = index.symbols().by_binary(&key.class)?;
    let facts = index.facts(class.origin)?;
    let i = facts.fields.iter().position(|f: &FieldDecl| f.class == class.idx && *f.name == *key.name)?;
    Some((class.origin, facts, i as u32))
}

/// An access no other thread can see yet: to `this`'s instance field inside a constructor
/// or instance initializer, or to a static field inside its class's static initializer.
fn confined(facts: &FileFacts, site: &Site, field_is_static: bool) -> bool {
    let unit = &facts.units[site.unit as usize];
    if unit.is_lambda {
        return false;
    }
    let m = &facts.methods[unit.method as usize];
    if field_is_static {
        let class = &facts.classes[m.class as usize].binary_name;
        m.kind == MethodKind::Initializer && m.is_static && *site.field.class == **class
    } else {
        site.on_this && (m.kind == MethodKind::Constructor || (m.kind == MethodKind::Initializer && !m.is_static))
    }
}
