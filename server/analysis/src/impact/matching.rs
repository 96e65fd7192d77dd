//! Matching the base version of a file with the working version: methods by signature,
//! and within a method, lock regions and accesses by what they are and their order.

use std::collections::HashMap;

pub(crate) use crate::java::expr_key;
use crate::java::{ClassIdx, FileFacts, MethodIdx, MethodKind};

/// `Pool#borrow(int,String)`: a method as it stands within its file. Initializers are
/// numbered within their class. The package is left out, and `top` stands for the file's
/// one top-level class when both versions have one: a file moved to another package, or a
/// class renamed with its file, keeps its methods (only the moved lines are the change).
pub(crate) fn method_key(facts: &FileFacts, m: MethodIdx, top: Option<&str>) -> String {
    let method = &facts.methods[m as usize];
    let mut class = class_in_file(facts, method.class);
    let renamed;
    if let Some(rest) = top.and_then(|t| class.strip_prefix(t)).filter(|r| r.is_empty() || r.starts_with('$')) {
        renamed = format!("*{rest}");
        class = &renamed;
    }
    match method.kind {
        MethodKind::Initializer => {
            let ordinal = facts.methods[..m as usize]
                .iter()
                .filter(|o| {
                    o.class == method.class && o.kind == MethodKind::Initializer && o.is_static == method.is_static
                })
                .count();
            format!("{class}#{}@{ordinal}", method.name)
        }
        _ => {
            let params: Vec<&str> = method.params.iter().map(|p| p.ty.name.as_str()).collect();
            format!("{class}#{}({})", method.name, params.join(","))
        }
    }
}

/// A class's binary name without its package (`Pool$Entry`): what it is within its file.
pub(crate) fn class_in_file(facts: &FileFacts, class: ClassIdx) -> &str {
    let binary = &facts.classes[class as usize].binary_name;
    match &facts.package {
        Some(p) => binary.strip_prefix(p.as_str()).and_then(|b| b.strip_prefix('.')).unwrap_or(binary),
        None => binary,
    }
}

/// The simple name of the file's only top-level class, if it has exactly one.
fn only_top_level_class(facts: &FileFacts) -> Option<&str> {
    let mut tops = facts.classes.iter().filter(|c| c.outer.is_none() && !c.simple_name.is_empty());
    let first = tops.next()?;
    tops.next().is_none().then_some(first.simple_name.as_str())
}

/// New method -> base method with the same key.
pub(crate) fn method_map(old: &FileFacts, new: &FileFacts) -> HashMap<MethodIdx, MethodIdx> {
    let (old_top, new_top) = match (only_top_level_class(old), only_top_level_class(new)) {
        (Some(o), Some(n)) => (Some(o), Some(n)),
        _ => (None, None),
    };
    let old_keys: HashMap<String, MethodIdx> =
        (0..old.methods.len() as u32).map(|m| (method_key(old, m, old_top), m)).collect();
    (0..new.methods.len() as u32).filter_map(|m| old_keys.get(&method_key(new, m, new_top)).map(|&o| (m, o))).collect()
}

/// Pairs `(new, base)` of items in matched methods that have the same key, matched in
/// order of appearance: the k-th `count` read in `borrow()` matches the k-th one.
pub(crate) fn counterparts<T>(
    old: &FileFacts,
    new: &FileFacts,
    old_items: &[T],
    new_items: &[T],
    method_of: impl Fn(&FileFacts, &T) -> MethodIdx,
    key: impl Fn(&FileFacts, &T) -> String,
) -> Vec<(usize, usize)> {
    let methods = method_map(old, new);
    let mut old_by_key: HashMap<(MethodIdx, String), Vec<usize>> = HashMap::new();
    for (i, item) in old_items.iter().enumerate() {
        old_by_key.entry((method_of(old, item), key(old, item))).or_default().push(i);
    }
    let mut seen: HashMap<(MethodIdx, String), usize> = HashMap::new();
    let mut out = Vec::new();
    for (i, item) in new_items.iter().enumerate() {
        let Some(&old_method) = methods.get(&method_of(new, item)) else { continue };
        let k = (old_method, key(new, item));
        let n = seen.entry(k.clone()).or_insert(0);
        if let Some(&o) = old_by_key.get(&k).and_then(|v| v.get(*n)) {
            out.push((i, o));
        }
        *n += 1;
    }
    out
}

/// What identifies an access within its method across versions: receiver, name, kind.
pub(crate) fn access_key(facts: &FileFacts, a: &crate::java::Access) -> String {
    let recv = a.receiver.as_ref().map(|r| expr_key(facts, r)).unwrap_or_default();
    format!("{}:{}:{:?}:{}", recv, a.name, a.kind, a.element)
}
