//! Impacted code points, the four steps of CAPP section 3.1:
//! 1. changed lines that touch a synchronized region expand to the whole region;
//! 2. each impacted line gets its class and method (⟨C, M, L, ⊥⟩);
//! 3. fields read or written on impacted lines are impacted (⟨C, ⊥, ⊥, f⟩);
//! 4. so are the fields in the read/write sets of methods directly invoked from impacted
//!    lines, callees found through the receiver's declared type.
//!
//! Deleted code impacts the line that now stands in its place (and so its method).

use std::collections::{BTreeMap, BTreeSet};

use super::effects::EffectsComputer;
use super::regions::ChangedRegions;
use super::{Cx, Icp, IcpReason, Options};
use crate::index::{FieldKey, FileId, Origin, ProjectIndex};
use crate::java::FileFacts;

pub(crate) fn collect(cx: &Cx, options: &Options) -> (Vec<Icp>, BTreeMap<FileId, Vec<u32>>) {
    let (index, changes, regions) = (cx.index, cx.changes, cx.regions);
    let mut line_icps = Vec::new();
    let mut field_icps: BTreeMap<FieldKey, IcpReason> = BTreeMap::new();
    let mut impacted_lines = BTreeMap::new();
    let mut effects = EffectsComputer::new(index.resolver_with_jdk(), options.effect_depth);
    for change in &changes.files {
        let Some(entry) = index.entry(change.file) else { continue };
        let facts = &entry.facts;
        let lines = impacted_lines_of(change, facts, regions);
        // Step 2: class and method of every impacted line.
        for (&line, reason) in &lines {
            let Some(class) = facts.class_at_line(line) else { continue };
            let method = facts.method_at_line(line).map(|m| facts.methods[m as usize].name.clone());
            line_icps.push(Icp {
                origin: Some(Origin::Project(change.file)),
                class: Some(facts.classes[class as usize].binary_name.clone()),
                method,
                line: Some(line),
                field: None,
                reason: reason.clone(),
            });
        }
        // Step 3: fields accessed (or declared) on impacted lines.
        for site in entry.resolved.sites.iter().filter(|s| lines.contains_key(&s.span.line)) {
            let key = FieldKey { element: false, ..site.field.clone() };
            field_icps.entry(key).or_insert(IcpReason::FieldAccess);
        }
        for f in
            facts.fields.iter().filter(|f| (f.decl_span.line..=f.decl_span.end_line).any(|l| lines.contains_key(&l)))
        {
            let key = FieldKey::new(&facts.classes[f.class as usize].binary_name, &f.name, false);
            field_icps.entry(key).or_insert(IcpReason::FieldAccess);
        }
        // Step 4: read/write sets of callees of impacted lines.
        for call in facts.calls.iter().filter(|c| lines.contains_key(&c.span.line)) {
            let (callees, found) = effects.of_call(Origin::Project(change.file), facts, call);
            let Some(first) = callees.first() else { continue };
            let callee = callee_name(index, *first);
            for (key, _) in found.fields {
                let key = FieldKey { element: false, ..key };
                field_icps.entry(key).or_insert_with(|| IcpReason::CalleeEffect { callee: callee.clone() });
            }
        }
        impacted_lines.insert(change.file, lines.keys().copied().collect());
    }
    let mut icps = line_icps;
    for (key, reason) in field_icps {
        let origin = index.symbols().by_binary(&key.class).map(|c| c.origin);
        icps.push(Icp {
            origin,
            class: Some(key.class.to_string()),
            method: None,
            line: None,
            field: Some(key.name.to_string()),
            reason,
        });
    }
    (icps, impacted_lines)
}

/// Changed and deleted lines, plus the lines of synchronized regions the change touched
/// (step 1), each with why it is impacted.
pub(crate) fn impacted_lines_of(
    change: &super::ChangedFile,
    facts: &FileFacts,
    regions: &ChangedRegions,
) -> BTreeMap<u32, IcpReason> {
    let mut lines = BTreeMap::new();
    for &l in &change.diff.changed_lines {
        lines.insert(l, IcpReason::ChangedLine);
    }
    for &l in &change.diff.deletion_lines {
        lines.entry(l).or_insert(IcpReason::DeletedLine);
    }
    let code_lines: BTreeSet<u32> = facts.tokens.iter().map(|t| t.line).collect();
    for region in regions.of(change.file) {
        for l in region.lines.0..=region.lines.1 {
            if code_lines.contains(&l) {
                lines.entry(l).or_insert(IcpReason::SyncRegion);
            }
        }
    }
    lines
}

/// `ConcurrentLinkedQueue.isEmpty()`
fn callee_name(index: &ProjectIndex, m: crate::index::MethodRef) -> String {
    index.facts(m.origin).map(|f| format!("{}()", f.method_display(m.idx))).unwrap_or_default()
}
