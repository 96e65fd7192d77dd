//! RL010, a cached value built in its field: the change made a method of an immutable class
//! compute a lazily cached value (`hashCode`, a formatted `toString`) step by step in the
//! field itself, where other threads can read the partial value.
//!
//! An immutable object is shared between threads without locks; that is what immutability
//! is for (JLS 17.5). Its cached fields are the exception that makes it work: the *racy
//! single-check idiom* (Effective Java, item 83; `String.hashCode()`) lets two threads
//! compute the value at once, which is harmless as long as the field is written once, with
//! the finished value, from a local. Written in steps (`hashCode = 17; hashCode = 37 *
//! hashCode + min;`), the field holds each intermediate value for a while, and a thread
//! that finds it non-zero returns one of them (commons-lang's LANG-481).
//!
//! The class is *immutable apart from its caches* when every instance field is final except
//! *cache fields*: non-final, non-volatile instance fields that no code of the class writes
//! except a method that reads the field first (its own check) or a constructor. Reported,
//! on a line the change touched, when such a method writes its cache field more than once,
//! or writes it with a value that reads the field itself; not when the base version of the
//! method did so already, nor under a lock (a synchronized cache is another pattern).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::matching::method_map;
use super::About;
use super::{ChangedFile, Diagnostic, Related, Severity};
use crate::index::ProjectIndex;
use crate::java::{Access, AccessKind, ClassIdx, Expr, FileFacts, MethodIdx, MethodKind, Span};

/// RL010 in the changed methods of one file.
pub(super) fn collect(index: &ProjectIndex, change: &ChangedFile, out: &mut Vec<About>) {
    let Some(entry) = index.entry(change.file) else { return };
    let facts = &entry.facts;
    let touched: BTreeSet<u32> = change.diff.touched_lines().collect();
    let base = change.old.as_deref().map(|old| (old, method_map(old, facts)));
    for (class, caches) in cache_fields(facts) {
        for (&(method, field), writes) in &writes_in_steps(facts, class, &caches) {
            if !writes.iter().any(|w| touched.contains(&w.span.line)) {
                continue;
            }
            if !index.locks_at(change.file, writes[0].unit, writes[0].span.start).is_empty() {
                continue;
            }
            let name = &facts.fields[field as usize].name;
            // The base version of the method built the same field in steps already.
            let already = base.as_ref().and_then(|(old, map)| {
                let m = *map.get(&method)?;
                let c = old.methods.get(m as usize)?.class;
                let f = old.field_named(c, name)?;
                Some(writes_in_steps(old, c, &cache_fields_of(old, c)).contains_key(&(m, f)))
            });
            if already == Some(true) {
                continue;
            }
            let spans: Vec<Span> = writes.iter().map(|w| w.span).collect();
            out.push(About::new(name.clone(), diagnostic(facts, change, class, method, field, &spans)));
        }
    }
}

fn diagnostic(
    facts: &FileFacts,
    change: &ChangedFile,
    class: ClassIdx,
    method: MethodIdx,
    field: u32,
    writes: &[Span],
) -> Diagnostic {
    let decl = &facts.fields[field as usize];
    let class_name = &facts.classes[class as usize].simple_name;
    let method_name = &facts.methods[method as usize].name;
    let at = *writes.get(1).unwrap_or(&writes[0]);
    let mut related: Vec<Related> = writes
        .iter()
        .filter(|&&w| w != at)
        .map(|&w| Related { file: change.file, span: w, message: format!("`{}` written here too", decl.name) })
        .collect();
    related.push(Related {
        file: change.file,
        span: decl.span,
        message: format!("`{}` caches a value of an otherwise immutable `{class_name}`", decl.name),
    });
    Diagnostic {
        file: change.file,
        span: at,
        severity: Severity::Warning,
        code: "RL010",
        message: format!(
            "`{}` is built in steps in `{method_name}()`: `{class_name}` is immutable apart from its cached fields, so its objects are shared between threads freely, and another thread calling `{method_name}()` meanwhile can return a partial value; compute it in a local and write the field once",
            decl.name
        ),
        related,
    }
}

/// For each class of the file that is immutable apart from its caches, its cache fields.
fn cache_fields(facts: &FileFacts) -> Vec<(ClassIdx, BTreeSet<u32>)> {
    (0..facts.classes.len() as ClassIdx)
        .filter_map(|c| Some((c, cache_fields_of(facts, c))).filter(|(_, caches)| !caches.is_empty()))
        .collect()
}

/// The cache fields of `class`, or none when it is not immutable apart from them (or has no
/// final instance field: not a value class).
fn cache_fields_of(facts: &FileFacts, class: ClassIdx) -> BTreeSet<u32> {
    let instance: Vec<u32> = (0..facts.fields.len() as u32)
        .filter(|&f| facts.fields[f as usize].class == class && !facts.fields[f as usize].is_static)
        .collect();
    if !instance.iter().any(|&f| facts.fields[f as usize].is_final) {
        return BTreeSet::new();
    }
    let mut caches = BTreeSet::new();
    for &f in instance.iter().filter(|&&f| !facts.fields[f as usize].is_final) {
        if facts.fields[f as usize].is_volatile
            || !written_only_after_own_check(facts, class, &facts.fields[f as usize].name)
        {
            return BTreeSet::new();
        }
        caches.insert(f);
    }
    caches
}

/// Whether every write of the field `name` of `class` (by its bare name or through `this`)
/// is in a constructor or in a method whose first access of the field reads it on an
/// earlier line (its check: `if (hash == 0) {` then `hash = …`; a counter's `uses++` reads
/// and writes on one line, and makes the class mutable).
fn written_only_after_own_check(facts: &FileFacts, class: ClassIdx, name: &str) -> bool {
    let mut first: HashMap<MethodIdx, (AccessKind, u32)> = HashMap::new();
    let mut writers: BTreeMap<MethodIdx, u32> = BTreeMap::new();
    for (method, a) in own_accesses(facts, class, name) {
        first.entry(method).or_insert((a.kind, a.span.line));
        if a.kind == AccessKind::Write {
            writers.entry(method).or_insert(a.span.line);
        }
    }
    writers.iter().all(|(&m, &write_line)| {
        matches!(facts.methods[m as usize].kind, MethodKind::Constructor | MethodKind::Initializer)
            || first.get(&m).is_some_and(|&(kind, line)| kind == AccessKind::Read && line < write_line)
    })
}

/// The accesses of the field `name` of `class` (by its bare name or through `this`) in the
/// methods of `class`, each with its method.
fn own_accesses<'f>(
    facts: &'f FileFacts,
    class: ClassIdx,
    name: &'f str,
) -> impl Iterator<Item = (MethodIdx, &'f Access)> + 'f {
    facts
        .accesses
        .iter()
        .filter(move |a| a.name == name && !a.element && matches!(a.receiver, None | Some(Expr::This)))
        .map(|a| (facts.units[a.unit as usize].method, a))
        .filter(move |(method, _)| facts.methods[*method as usize].class == class)
}

/// Per (method, cache field), the writes (in order) of the methods that build the value in
/// the field: two writes or more, or one whose value reads the field (a read after the
/// written name on its line: `hash = 37 * hash + x`, `hash += x`).
fn writes_in_steps<'f>(
    facts: &'f FileFacts,
    class: ClassIdx,
    caches: &BTreeSet<u32>,
) -> BTreeMap<(MethodIdx, u32), Vec<&'f Access>> {
    let mut by: BTreeMap<(MethodIdx, u32), (Vec<&Access>, Vec<Span>)> = BTreeMap::new();
    for &f in caches {
        for (method, a) in own_accesses(facts, class, &facts.fields[f as usize].name) {
            if matches!(facts.methods[method as usize].kind, MethodKind::Constructor | MethodKind::Initializer) {
                continue;
            }
            let (writes, reads) = by.entry((method, f)).or_default();
            match a.kind {
                AccessKind::Write => writes.push(a),
                AccessKind::Read => reads.push(a.span),
            }
        }
    }
    by.into_iter()
        .filter(|(_, (writes, reads))| {
            writes.len() > 1
                || writes.iter().any(|w| reads.iter().any(|r| r.line == w.span.line && r.start >= w.span.start))
        })
        .map(|(key, (writes, _))| (key, writes))
        .collect()
}
