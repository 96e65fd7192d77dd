//! Classes without a concurrency discipline of their own: mutable, and with no lock, no
//! `volatile`, no atomic or concurrent field, no thread started, in the base and now. Such
//! a class is not thread-safe by design (JCIP 2.1's "not thread-safe", Effective Java's
//! "thread-compatible"): a caller that shares one must lock around it, and a race between
//! its own setter and getter is how it always was, not what the change did. Found as
//! noise on commons-pool's history: every new property of a config bean (`setX`/`getX`)
//! was an RL001.
//!
//! RL001 leaves out a pair of such a class's field when both ends are in the class's own
//! methods. It does not for a class the change makes mutable (an immutable class that
//! gains a cached hash), one new with the change, or one that had a discipline in the base
//! and lost it: those are what the change did. The pairs stay (selection and exploration
//! still see them).

use std::sync::Arc;

use super::matching::class_in_file;
use super::shared::field_decl;
use super::ChangeSet;
use crate::index::{FieldKey, Origin, ProjectIndex, SPAWN_METHODS};
use crate::java::{AccessKind, ClassIdx, Expr, FileFacts, MethodKind};

/// Type names (simple) whose fields give a class a discipline.
const DISCIPLINE_TYPE_PREFIXES: &[&str] = &["Atomic", "Concurrent", "CopyOnWrite"];
const DISCIPLINE_TYPE_SUFFIXES: &[&str] = &[
    "Lock",
    "BlockingQueue",
    "BlockingDeque",
    "Semaphore",
    "Latch",
    "Barrier",
    "Phaser",
    "Exchanger",
    "Executor",
    "ExecutorService",
];
/// Besides the calls that hand work to another thread (the index's `SPAWN_METHODS`): calls
/// that start a thread or fork a task, or make a synchronized wrapper.
const THREAD_CALLS: &[&str] =
    &["start", "fork", "synchronizedMap", "synchronizedList", "synchronizedSet", "synchronizedCollection"];
/// Annotations that say the class is meant to be shared.
const SHARED_ANNOTATIONS: &[&str] = &["ThreadSafe", "GuardedBy"];

/// Whether the class that declares `field` is mutable and without a discipline of its
/// own, in the base and in the working tree.
pub(crate) fn undisciplined_class(index: &ProjectIndex, changes: &ChangeSet, field: &FieldKey) -> bool {
    let Some((Origin::Project(file), facts, f)) = field_decl(index, field) else { return false };
    let class = facts.fields[f as usize].class;
    let old: Arc<FileFacts> = match changes.get(file) {
        Some(change) => match &change.old {
            Some(old) => old.clone(),
            None => return false,
        },
        None => facts.clone(),
    };
    let Some(old_class) = same_class(&facts, class, &old) else { return false };
    mutable(&old, old_class) && !disciplined(&old, old_class) && !disciplined(&facts, class)
}

/// Whether the code at `offset` of `facts` is in a method of the class itself (not a
/// nested or anonymous class).
pub(crate) fn in_class(facts: &FileFacts, class: ClassIdx, offset: u32) -> bool {
    facts.unit_at(offset).is_some_and(|u| facts.methods[facts.units[u as usize].method as usize].class == class)
}

/// The class of `old` with the binary name of `class` in `facts`, the package left out
/// (a moved file keeps its classes).
fn same_class(facts: &FileFacts, class: ClassIdx, old: &FileFacts) -> Option<ClassIdx> {
    let want = class_in_file(facts, class);
    (0..old.classes.len() as ClassIdx).find(|&c| class_in_file(old, c) == want)
}

/// A non-final instance field of the class written outside its constructors.
fn mutable(facts: &FileFacts, class: ClassIdx) -> bool {
    facts.fields.iter().filter(|d| d.class == class && !d.is_final && !d.is_static).any(|d| {
        facts.accesses.iter().any(|a| {
            a.kind == AccessKind::Write && a.name == d.name && matches!(a.receiver, None | Some(Expr::This)) && {
                let m = &facts.methods[facts.units[a.unit as usize].method as usize];
                m.class == class && m.kind == MethodKind::Method
            }
        })
    })
}

/// Code another thread runs: a thread, a task, a timer's task.
fn is_thread_type(name: &str) -> bool {
    crate::index::THREAD_TYPES.contains(&name.rsplit('.').next().unwrap_or(name))
}

/// A lock, a `volatile`, atomic or concurrent field, a thread started, code another
/// thread runs, or an annotation saying it is shared, in the class or a class nested in it.
fn disciplined(facts: &FileFacts, class: ClassIdx) -> bool {
    let class_of_unit = |u: u32| facts.methods[facts.units[u as usize].method as usize].class;
    let shared_annotation = |a: &crate::java::Annotation| SHARED_ANNOTATIONS.contains(&a.name.as_str());
    facts.locks.iter().any(|l| facts.is_within(class_of_unit(l.unit), class))
        || facts.fields.iter().filter(|d| facts.is_within(d.class, class)).any(|d| {
            let simple = d.ty.name.rsplit('.').next().unwrap_or(&d.ty.name);
            d.is_volatile
                || d.annotations.iter().any(shared_annotation)
                || DISCIPLINE_TYPE_PREFIXES.iter().any(|p| simple.starts_with(p))
                || DISCIPLINE_TYPE_SUFFIXES.iter().any(|s| simple.ends_with(s))
        })
        || facts.calls.iter().any(|c| {
            facts.is_within(class_of_unit(c.unit), class)
                && match &c.kind {
                    crate::java::CallKind::New { ty, .. } => matches!(ty.name.as_str(), "Thread" | "Timer"),
                    _ => SPAWN_METHODS.contains(&c.name.as_str()) || THREAD_CALLS.contains(&c.name.as_str()),
                }
        })
        || facts.classes.iter().enumerate().any(|(c, decl)| {
            facts.is_within(c as ClassIdx, class)
                && (decl.annotations.iter().any(shared_annotation)
                    || decl.superclass.iter().chain(&decl.interfaces).any(|t| is_thread_type(&t.name)))
        })
        || facts.methods.iter().any(|m| facts.is_within(m.class, class) && m.annotations.iter().any(shared_annotation))
}
