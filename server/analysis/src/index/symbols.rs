//! The project's symbol table: classes by name, and who extends or implements whom.

use std::collections::{BTreeSet, HashMap};

use super::resolve::Dependencies;
use super::{ClassRef, FileId, Origin, ProjectIndex, Resolver, TypeName};

#[derive(Default)]
pub struct Symbols {
    /// `pkg.Outer$Inner` -> class
    by_binary: HashMap<String, ClassRef>,
    /// `pkg.Outer.Inner` -> class (member and top-level classes, as imports name them)
    by_source: HashMap<String, ClassRef>,
    /// Direct subtypes (classes that extend or implement it) of every project class.
    subtypes: HashMap<ClassRef, Vec<ClassRef>>,
    /// Each file's `(class, supertype)` pairs, with what resolving them read: kept so that a
    /// change of declarations resolves again only the supertypes that depend on it.
    supertypes: HashMap<FileId, (Vec<(ClassRef, ClassRef)>, Dependencies)>,
}

impl Symbols {
    /// The symbol table after the declarations of `changed` files changed (`names`: the
    /// class names they declare and declared); from an empty `old`, that of the whole index. The name tables are cheap and made again;
    /// supertypes are resolved again only for the changed files and those whose supertypes
    /// read a changed file or looked up one of `names`.
    pub(super) fn updated(index: &ProjectIndex, old: &Symbols, changed: &HashMap<FileId, Vec<String>>, names: &BTreeSet<String>) -> Symbols {
        let mut s = Symbols::default();
        for (id, e) in index.entries() {
            for (i, c) in e.facts.classes.iter().enumerate() {
                let r = ClassRef { origin: Origin::Project(id), idx: i as u32 };
                s.by_binary.insert(c.binary_name.clone(), r);
                if !c.is_local && c.kind != crate::java::ClassKind::Anonymous {
                    s.by_source.insert(source_name(&e.facts, i as u32), r);
                }
            }
        }
        // Supertypes resolve through the tables above; a resolver over a half-built index
        // sees the names it needs.
        let mut supertypes = HashMap::new();
        for (id, e) in index.entries() {
            let kept = old.supertypes.get(&id).filter(|(_, deps)| {
                !changed.contains_key(&id) && !deps.files.iter().any(|f| changed.contains_key(f)) && !names.iter().any(|n| deps.names.contains(n))
            });
            let pairs = match kept {
                Some(kept) => kept.clone(),
                None => {
                    let resolver = Resolver::over(index, &s, false);
                    let mut pairs = Vec::new();
                    for i in 0..e.facts.classes.len() {
                        let r = ClassRef { origin: Origin::Project(id), idx: i as u32 };
                        for sup in resolver.supertypes(r) {
                            if let TypeName::Class(sup) = sup {
                                pairs.push((r, sup));
                            }
                        }
                    }
                    (pairs, resolver.dependencies())
                }
            };
            supertypes.insert(id, pairs);
        }
        let mut subtypes: HashMap<ClassRef, Vec<ClassRef>> = HashMap::new();
        let mut files: Vec<&FileId> = supertypes.keys().collect();
        files.sort();
        for id in files {
            for &(sub, sup) in &supertypes[id].0 {
                subtypes.entry(sup).or_default().push(sub);
            }
        }
        s.subtypes = subtypes;
        s.supertypes = supertypes;
        s
    }

    pub fn by_binary(&self, name: &str) -> Option<ClassRef> {
        self.by_binary.get(name).copied()
    }

    pub fn by_source(&self, name: &str) -> Option<ClassRef> {
        self.by_source.get(name).copied()
    }

    pub fn direct_subtypes(&self, class: ClassRef) -> &[ClassRef] {
        self.subtypes.get(&class).map_or(&[], |v| v.as_slice())
    }

    /// Every project subtype, transitively, at most `cap` of them.
    pub fn all_subtypes(&self, class: ClassRef, cap: usize) -> Vec<ClassRef> {
        let mut out = Vec::new();
        let mut stack = vec![class];
        while let Some(c) = stack.pop() {
            for &s in self.direct_subtypes(c) {
                if out.len() >= cap {
                    return out;
                }
                if !out.contains(&s) {
                    out.push(s);
                    stack.push(s);
                }
            }
        }
        out
    }

}

/// `pkg.Outer.Inner`: the name by which imports and qualified references see a class.
pub(crate) fn source_name(facts: &crate::java::FileFacts, class: u32) -> String {
    let c = &facts.classes[class as usize];
    match c.outer {
        Some(o) => format!("{}.{}", source_name(facts, o), c.simple_name),
        None => match &facts.package {
            Some(p) => format!("{p}.{}", c.simple_name),
            None => c.simple_name.clone(),
        },
    }
}
