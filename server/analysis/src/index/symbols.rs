//! The project's symbol table: classes by name, and who extends or implements whom.

use std::collections::HashMap;

use super::{ClassRef, Origin, ProjectIndex, TypeName};

#[derive(Default)]
pub struct Symbols {
    /// `pkg.Outer$Inner` -> class
    by_binary: HashMap<String, ClassRef>,
    /// `pkg.Outer.Inner` -> class (member and top-level classes, as imports name them)
    by_source: HashMap<String, ClassRef>,
    /// Direct subtypes (classes that extend or implement it) of every project class.
    subtypes: HashMap<ClassRef, Vec<ClassRef>>,
}

impl Symbols {
    pub(super) fn build(index: &ProjectIndex) -> Symbols {
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
        // Supertypes resolve through the table above; a resolver over a half-built index
        // sees the names it needs.
        let resolver = super::Resolver::over(index, &s, false);
        let mut subtypes: HashMap<ClassRef, Vec<ClassRef>> = HashMap::new();
        for (id, e) in index.entries() {
            for i in 0..e.facts.classes.len() {
                let r = ClassRef { origin: Origin::Project(id), idx: i as u32 };
                for sup in resolver.supertypes(r) {
                    if let TypeName::Class(sup) = sup {
                        subtypes.entry(sup).or_default().push(r);
                    }
                }
            }
        }
        s.subtypes = subtypes;
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
