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
use crate::java::{Expr, FieldDecl, FileFacts, MethodKind};

/// A hash of every file's escape evidence: `Sharing` need not be recomputed while it
/// stays the same.
pub fn evidence_hash(index: &ProjectIndex) -> u64 {
    index
        .entries()
        .fold(0u64, |acc, (id, e)| acc.wrapping_add(e.resolved.evidence.wrapping_mul(u64::from(id.0) * 2 + 1)))
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

/// An access no other thread can see yet: to `this`'s instance field inside a constructor,
/// an instance initializer or a deserializing `readObject` (serialization calls it on an
/// object it is still building, which nothing has published), to a static field inside its
/// class's static initializer, or to a field of an object the method just created and has
/// not let out yet.
fn confined(facts: &FileFacts, site: &Site, field_is_static: bool) -> bool {
    if !field_is_static && unpublished(facts, site) {
        return true;
    }
    let unit = &facts.units[site.unit as usize];
    if unit.is_lambda {
        return false;
    }
    let m = &facts.methods[unit.method as usize];
    if field_is_static {
        let class = &facts.classes[m.class as usize].binary_name;
        m.kind == MethodKind::Initializer && m.is_static && *site.field.class == **class
    } else {
        site.on_this
            && (m.kind == MethodKind::Constructor
                || (m.kind == MethodKind::Initializer && !m.is_static)
                || is_deserializing(m))
    }
}

/// `private void readObject(ObjectInputStream in)`, and the hook for a stream without the
/// class's data: `java.io.Serializable`'s contract for building an object from a stream.
fn is_deserializing(m: &crate::java::MethodFacts) -> bool {
    m.is_private
        && !m.is_static
        && match m.name.as_str() {
            "readObject" => m.params.len() == 1 && m.params[0].ty.name.ends_with("ObjectInputStream"),
            "readObjectNoData" => m.params.is_empty(),
            _ => false,
        }
}

/// `Shipment s = new Shipment(id); s.code = …; map.put(id, s);`: the writes before the
/// `put` are to an object only this thread can reach (JLS 17.4.5: nothing has published
/// it yet), so they race with nothing. The access is through a local, initialised with
/// `new` and never assigned again, in the body that declares it (a lambda that captured it
/// may run on another thread), and every earlier use of the local in its scope reads or
/// writes one of its fields: anything else (an argument, a method call on it, which may
/// let `this` out, a store, a `return`) may have published it. Inside a loop that began
/// after the declaration, a later turn comes after this turn's uses, so then no use at all
/// may let it out.
fn unpublished(facts: &FileFacts, site: &Site) -> bool {
    if site.via.is_some() {
        return false;
    }
    let Some(access) = facts.accesses.get(site.item as usize) else { return false };
    let Some(Expr::Local(l)) = &access.receiver else { return false };
    let local = &facts.locals[*l as usize];
    if local.reassigned
        || !matches!(local.init, Some(Expr::New(_)))
        || facts.unit_at(local.scope.start) != Some(site.unit)
    {
        return false;
    }
    // Tokens are in source order: the local's scope is one run of them, found by bisection
    // (this runs for every access through such a local, on every sharing question).
    let from = facts.tokens.partition_point(|t| t.start < local.scope.start);
    let to = facts.tokens.partition_point(|t| t.start < local.scope.end);
    let tokens: Vec<&str> = facts.tokens[from..to].iter().map(|t| facts.token_text(t)).collect();
    let at = facts.tokens[from..to].partition_point(|t| t.start < access.span.start);
    // `s.code` (not `s.code(`), and `s = new …` (its declaration): uses that keep it in.
    let lets_out = |i: usize| {
        let next = |k: usize| tokens.get(i + k).copied();
        let someone_elses = i.checked_sub(1).is_some_and(|p| tokens[p] == ".");
        let field = next(1) == Some(".") && next(3).is_some_and(|t| t != "(");
        tokens[i] == local.name && !someone_elses && !field && next(1) != Some("=")
    };
    let looped = tokens[..at].iter().any(|t| matches!(*t, "for" | "while" | "do"));
    let until = if looped { tokens.len() } else { at };
    !(0..until).any(lets_out)
}
