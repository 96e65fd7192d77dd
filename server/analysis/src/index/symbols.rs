//! The project's symbol table: classes by name, and who extends or implements whom.

use std::collections::{BTreeSet, HashMap};

use super::resolve::Dependencies;
use super::{ClassRef, FileId, Origin, ProjectIndex, Resolver, TypeName};

#[derive(Clone, Default)]
pub struct Symbols {
    /// `pkg.Outer$Inner` -> the classes of that name, in file order; the last one counts.
    by_binary: HashMap<String, Vec<ClassRef>>,
    /// `pkg.Outer.Inner` -> classes (member and top-level classes, as imports name them).
    by_source: HashMap<String, Vec<ClassRef>>,
    /// Direct subtypes (classes that extend or implement it) of every project class.
    subtypes: HashMap<ClassRef, Vec<ClassRef>>,
    /// Each file's `(class, supertype)` pairs, with what resolving them read: kept so that a
    /// change of declarations resolves again only the supertypes that depend on it.
    supertypes: HashMap<FileId, (Vec<(ClassRef, ClassRef)>, Dependencies)>,
}

impl Symbols {
    /// Brings the table up to date after the declarations of `changed` files changed (with
    /// the class names each declared before; `names`: every name they declare and declared).
    /// Their classes leave and re-enter the name tables; supertypes are resolved again only
    /// for them and for the files whose supertypes read one of them or looked up one of
    /// `names`. From an empty table with every file changed, this builds it.
    pub(super) fn update(
        &mut self,
        index: &ProjectIndex,
        changed: &HashMap<FileId, Vec<String>>,
        names: &BTreeSet<String>,
    ) {
        for (&id, before) in changed {
            for name in before {
                for table in [&mut self.by_binary, &mut self.by_source] {
                    if let Some(classes) = table.get_mut(name) {
                        classes.retain(|c| c.origin != Origin::Project(id));
                        if classes.is_empty() {
                            table.remove(name);
                        }
                    }
                }
            }
            let Some(e) = index.entry(id) else { continue };
            for (i, c) in e.facts.classes.iter().enumerate() {
                let r = ClassRef { origin: Origin::Project(id), idx: i as u32 };
                add(&mut self.by_binary, c.binary_name.clone(), r);
                if !c.is_local && c.kind != crate::java::ClassKind::Anonymous {
                    add(&mut self.by_source, source_name(&e.facts, i as u32), r);
                }
            }
        }
        self.supertypes.retain(|id, _| index.entry(*id).is_some());
        let stale = |id: FileId, deps: &Dependencies| changed.contains_key(&id) || deps.touched_by(changed, names);
        let redo: Vec<FileId> =
            index.ids().filter(|&id| self.supertypes.get(&id).is_none_or(|(_, deps)| stale(id, deps))).collect();
        // Resolved through the name tables above.
        let fresh: Vec<_> = redo.into_iter().map(|id| (id, self.supertypes_of(index, id))).collect();
        self.supertypes.extend(fresh);
        let mut files: Vec<FileId> = self.supertypes.keys().copied().collect();
        files.sort();
        self.subtypes.clear();
        for id in files {
            for &(sub, sup) in &self.supertypes[&id].0 {
                self.subtypes.entry(sup).or_default().push(sub);
            }
        }
    }

    /// The supertypes of a file's classes that are project classes, and what resolving them read.
    fn supertypes_of(&self, index: &ProjectIndex, id: FileId) -> (Vec<(ClassRef, ClassRef)>, Dependencies) {
        let resolver = Resolver::over(index, self, false);
        let mut pairs = Vec::new();
        let classes = index.entry(id).map_or(0, |e| e.facts.classes.len());
        for i in 0..classes {
            let r = ClassRef { origin: Origin::Project(id), idx: i as u32 };
            for sup in resolver.supertypes(r) {
                if let TypeName::Class(sup) = sup {
                    pairs.push((r, sup));
                }
            }
        }
        (pairs, resolver.into_dependencies())
    }

    pub fn by_binary(&self, name: &str) -> Option<ClassRef> {
        self.by_binary.get(name).and_then(|c| c.last()).copied()
    }

    pub fn by_source(&self, name: &str) -> Option<ClassRef> {
        self.by_source.get(name).and_then(|c| c.last()).copied()
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

/// Adds a class to the classes of a name, in file order.
fn add(table: &mut HashMap<String, Vec<ClassRef>>, name: String, class: ClassRef) {
    let classes = table.entry(name).or_default();
    classes.push(class);
    classes.sort();
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
