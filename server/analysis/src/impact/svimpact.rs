//! Which shared-variable accesses the change impacts: SimRT section 3.3's five rules.
//! 1. an access on added or modified code;
//! 2. every access in an added method, and in a modified method every access from the
//!    first change on: Figure 3's walk compares the two CFGs from the entry and stops at
//!    the first block that differs, so what follows it is never proven unchanged (this
//!    is how Figure 1 leaves SV5 and SV6, before `modCount++` in `clear()`, unimpacted);
//!    these pairs are explored, only rules 1, 3 and 4 make warnings;
//! 3. every access in a synchronized block or lock region whose synchronization changed;
//! 4. every access of a field whose `volatile` the change removed; and, in the same spirit
//!    (a declaration change that changes what unchanged code accesses), every access whose
//!    binding a field declared or removed by the change may have changed: a field that
//!    starts or stops hiding an inherited one of that name (JLS 8.3) rebinds the accesses
//!    of that name in its class and subclasses, though not one of their lines changed;
//! 5. accesses in the forward impact of the change: statements that use locals the change
//!    defines (intra-procedural slicing), and methods called from changed lines.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::matching::method_map;
use super::regions::RegionCause;
use super::{ChangeSet, Cx, Sharing};
use crate::index::{ClassRef, FieldKey, FileId, Origin, ProjectIndex, TypeName};
use crate::java::{ClassKind, FileFacts, UnitIdx};

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SvReason {
    /// Rule 1.
    ChangedLine,
    /// Rule 2, an added method.
    NewMethod,
    /// Rule 2, a modified method.
    ModifiedMethod,
    /// Rule 3: the region's change, described (`removed synchronized from addObject()`).
    Synchronization(String),
    /// Rule 4.
    VolatileRemoved,
    /// Rule 4's kind: the change declared (or removed) a field of this name in this class,
    /// which now hides (or no longer hides) an inherited one: `(class, field, declared)`.
    Redeclared(String, String, bool),
    /// Rule 5, through locals.
    ForwardSlice,
    /// Rule 5, through a call on a changed line.
    CalledFromChange(String),
}

#[derive(Default)]
pub(crate) struct ImpactedSites {
    map: BTreeMap<(FileId, usize), (FieldKey, SvReason)>,
}

impl ImpactedSites {
    pub fn get(&self, file: FileId, site: usize) -> Option<&SvReason> {
        self.map.get(&(file, site)).map(|(_, r)| r)
    }
    pub fn contains(&self, file: FileId, site: usize) -> bool {
        self.map.contains_key(&(file, site))
    }
    pub fn fields(&self) -> impl Iterator<Item = &FieldKey> {
        self.map.values().map(|(k, _)| k)
    }
    pub fn iter(&self) -> impl Iterator<Item = (FileId, usize, &SvReason)> {
        self.map.iter().map(|(&(f, s), (_, r))| (f, s, r))
    }
    fn add(&mut self, index: &ProjectIndex, sharing: &Sharing, file: FileId, site: usize, reason: SvReason) {
        if self.map.contains_key(&(file, site)) {
            return;
        }
        let Some(entry) = index.entry(file) else { return };
        let s = &entry.resolved.sites[site];
        if sharing.is_shared(index, file, s) {
            self.map.insert((file, site), (s.field.clone(), reason));
        }
    }
}

pub(crate) fn impacted_sites(cx: &Cx) -> ImpactedSites {
    let (index, changes, regions, sharing) = (cx.index, cx.changes, cx.regions, cx.sharing);
    let mut out = ImpactedSites::default();
    let resolver = index.resolver();
    for change in &changes.files {
        let Some(entry) = index.entry(change.file) else { continue };
        let facts = &entry.facts;
        let sites = &entry.resolved.sites;
        let touched: BTreeSet<u32> = change.diff.touched_lines().collect();

        // Rule 1.
        for (i, s) in sites.iter().enumerate() {
            if touched.contains(&s.span.line) {
                out.add(index, sharing, change.file, i, SvReason::ChangedLine);
            }
        }
        // Rule 2.
        let matched = change.old.as_ref().map(|old| method_map(old, facts));
        for (i, s) in sites.iter().enumerate() {
            let method = facts.units[s.unit as usize].method;
            if matched.as_ref().is_none_or(|m| !m.contains_key(&method)) {
                out.add(index, sharing, change.file, i, SvReason::NewMethod);
            }
        }
        // Rule 3.
        for region in regions.of(change.file) {
            let why = describe_region_change(facts, region);
            for (i, s) in sites.iter().enumerate() {
                let within = |(first, last): (u32, u32)| first <= s.span.line && s.span.line <= last;
                // SimRT section 3.3, rule 3: what the region covers now, and what it covered
                // before the change narrowed it (an access moved out of the lock).
                let inside = within(region.lines) || region.was_lines.is_some_and(within);
                let same_code =
                    region.unit.is_none_or(|u| facts.units[s.unit as usize].method == facts.units[u as usize].method);
                if inside && same_code {
                    out.add(index, sharing, change.file, i, SvReason::Synchronization(why.clone()));
                }
            }
        }
        // Rule 5: forward slice through locals.
        let slice = forward_slice(facts, &touched);
        for (i, s) in sites.iter().enumerate() {
            if slice.contains(&s.span.line) {
                out.add(index, sharing, change.file, i, SvReason::ForwardSlice);
            }
        }
        // Rule 5: methods called from changed lines run because of the change.
        for call in facts.calls.iter().filter(|c| touched.contains(&c.span.line)) {
            for callee in resolver.callees(Origin::Project(change.file), facts, call) {
                let Origin::Project(cf) = callee.origin else { continue };
                let Some(ce) = index.entry(cf) else { continue };
                let name = format!("{}()", ce.facts.method_display(callee.idx));
                for (i, s) in ce.resolved.sites.iter().enumerate() {
                    if ce.facts.units[s.unit as usize].method == callee.idx {
                        out.add(index, sharing, cf, i, SvReason::CalledFromChange(name.clone()));
                    }
                }
            }
        }
    }
    // Rule 2 for modified methods, last: a site keeps the first (most telling) reason.
    for change in &changes.files {
        let Some(entry) = index.entry(change.file) else { continue };
        let facts = &entry.facts;
        let mut first_change: BTreeMap<u32, u32> = BTreeMap::new();
        for line in change.diff.touched_lines() {
            if let Some(m) = facts.method_at_line(line) {
                first_change.entry(m).or_insert(line);
            }
        }
        for (i, s) in entry.resolved.sites.iter().enumerate() {
            if first_change.get(&facts.units[s.unit as usize].method).is_some_and(|&from| s.span.line >= from) {
                out.add(index, sharing, change.file, i, SvReason::ModifiedMethod);
            }
        }
    }
    // Rule 4: every access of a field that lost `volatile`.
    let unvolatiled = removed_volatile(index, changes);
    if !unvolatiled.is_empty() {
        for (id, e) in index.entries() {
            for (i, s) in e.resolved.sites.iter().enumerate() {
                if unvolatiled.contains(&FieldKey { element: false, ..s.field.clone() }) {
                    out.add(index, sharing, id, i, SvReason::VolatileRemoved);
                }
            }
        }
    }
    // Rule 4's kind: accesses a new or removed field declaration may rebind.
    let redeclared = redeclared_fields(index, changes);
    if !redeclared.is_empty() {
        for (id, e) in index.entries() {
            for (i, s) in e.resolved.sites.iter().enumerate() {
                let class = ClassRef {
                    origin: Origin::Project(id),
                    idx: e.facts.methods[e.facts.units[s.unit as usize].method as usize].class,
                };
                let hit =
                    redeclared.iter().find(|r| r.field == s.field.name.as_ref() && extends(index, class, &r.class));
                if let Some(r) = hit {
                    out.add(index, sharing, id, i, SvReason::Redeclared(r.class.clone(), r.field.clone(), r.declared));
                }
            }
        }
    }
    out
}

/// A field declaration the change added to, or removed from, a class that existed before.
struct Redeclared {
    /// The class's binary name.
    class: String,
    field: String,
    declared: bool,
}

/// Field declarations the change added to or removed from existing classes. A new field in
/// a new class rebinds nothing that did not change with it; in an existing class it can
/// hide an inherited field that unchanged code of the class (and its subclasses) used.
fn redeclared_fields(index: &ProjectIndex, changes: &ChangeSet) -> Vec<Redeclared> {
    let mut out = Vec::new();
    for change in &changes.files {
        let (Some(old), Some(entry)) = (&change.old, index.entry(change.file)) else { continue };
        let names = |f: &FileFacts| -> BTreeSet<(String, String)> {
            f.fields.iter().map(|x| (f.classes[x.class as usize].binary_name.clone(), x.name.clone())).collect()
        };
        let (before, after) = (names(old), names(&entry.facts));
        let classes_before: BTreeSet<&str> = old.classes.iter().map(|c| c.binary_name.as_str()).collect();
        for ((class, field), declared) in
            after.difference(&before).map(|k| (k, true)).chain(before.difference(&after).map(|k| (k, false)))
        {
            if classes_before.contains(class.as_str()) && entry.facts.classes.iter().any(|c| &c.binary_name == class) {
                out.push(Redeclared { class: class.clone(), field: field.clone(), declared });
            }
        }
    }
    out
}

/// Whether `class` is the class named `binary` or extends it, through project classes.
fn extends(index: &ProjectIndex, class: ClassRef, binary: &str) -> bool {
    let mut current = Some(class);
    for _ in 0..32 {
        let Some(c) = current else { return false };
        let Some(facts) = index.facts(c.origin) else { return false };
        if facts.classes[c.idx as usize].binary_name == binary {
            return true;
        }
        current = index.resolver().supertypes(c).into_iter().find_map(|t| match t {
            TypeName::Class(sup)
                if index
                    .facts(sup.origin)
                    .is_some_and(|f| f.classes[sup.idx as usize].kind != ClassKind::Interface) =>
            {
                Some(sup)
            }
            _ => None,
        });
    }
    false
}

/// Fields that are `volatile` in the base and not in the working tree.
pub(crate) fn removed_volatile(index: &ProjectIndex, changes: &ChangeSet) -> HashSet<FieldKey> {
    let mut out = HashSet::new();
    for change in &changes.files {
        let (Some(old), Some(entry)) = (&change.old, index.entry(change.file)) else { continue };
        for f in entry.facts.fields.iter().filter(|f| !f.is_volatile) {
            let class = &entry.facts.classes[f.class as usize].binary_name;
            let was_volatile = old
                .fields
                .iter()
                .any(|o| o.is_volatile && o.name == f.name && old.classes[o.class as usize].binary_name == *class);
            if was_volatile {
                out.insert(FieldKey::new(class, &f.name, false));
            }
        }
    }
    out
}

/// Lines that use, directly or through other locals, a local the change defines.
fn forward_slice(facts: &FileFacts, touched: &BTreeSet<u32>) -> BTreeSet<u32> {
    let mut tainted: BTreeMap<u32, u32> = BTreeMap::new(); // local -> first tainted line
    for u in facts.local_uses.iter().filter(|u| u.write && touched.contains(&u.line)) {
        let e = tainted.entry(u.local).or_insert(u.line);
        *e = (*e).min(u.line);
    }
    let mut lines = BTreeSet::new();
    loop {
        let mut grew = false;
        for u in facts.local_uses.iter().filter(|u| !u.write) {
            let Some(&from) = tainted.get(&u.local) else { continue };
            if u.line >= from && lines.insert(u.line) {
                grew = true;
                // A line that uses a tainted value taints what it defines.
                for d in facts.local_uses.iter().filter(|d| d.write && d.line == u.line) {
                    let e = tainted.entry(d.local).or_insert(d.line);
                    if *e > d.line {
                        *e = d.line;
                    }
                }
            }
        }
        if !grew {
            break;
        }
    }
    lines.retain(|l| !touched.contains(l));
    lines
}

/// `the change removed synchronized from addObject()`, for messages.
pub(crate) fn describe_region_change(facts: &FileFacts, region: &super::regions::RegionChange) -> String {
    use crate::java::LockKind;
    let method = region
        .unit
        .map(|u: UnitIdx| format!("`{}()`", facts.method_display(facts.units[u as usize].method)))
        .unwrap_or_else(|| "the method".into());
    let what = match region.kind {
        LockKind::SynchronizedMethod => "`synchronized`".to_string(),
        LockKind::SynchronizedBlock => format!("the `synchronized ({})` block", region.text),
        LockKind::Explicit => format!("the `{}.lock()` region", region.text),
    };
    match region.cause {
        RegionCause::Removed if region.kind == LockKind::SynchronizedMethod => {
            format!("the change removed `synchronized` from {method}")
        }
        RegionCause::Removed => format!("the change removed {what} in {method}"),
        RegionCause::Added => format!("the change added {what} in {method}"),
        RegionCause::Touched | RegionCause::Resized => format!("the change altered {what} in {method}"),
    }
}
