//! Synchronized regions the change touched: CAPP section 3.1, step 1 ("adding/removing
//! the synchronized keyword to/from methods, changing the scope of a synchronized block")
//! and SimRT section 3.3, rule 3 (synchronized blocks, and explicit `lock()`, `unlock()`,
//! `tryLock()` regions, read/write locks included).

use std::collections::{BTreeMap, HashSet};

use super::matching::counterparts;
use super::{ChangeSet, ChangedFile};
use crate::index::{FileId, ProjectIndex};
use crate::java::{FileFacts, LockKind, LockRegion, UnitIdx};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RegionCause {
    /// A line that defines the region (keyword, lock expression, braces, lock/unlock call)
    /// changed.
    Touched,
    /// The region is new.
    Added,
    /// The region was in the base and is gone; the lines are where it used to be.
    Removed,
    /// The region's extent changed (a lock() or unlock() moved, a block grew or shrank).
    Resized,
}

#[derive(Clone, Debug)]
pub(crate) struct RegionChange {
    /// The region in the new facts; `None` when it was removed.
    pub region: Option<usize>,
    pub kind: LockKind,
    /// The lock as written, `this` for a synchronized method.
    pub text: String,
    /// First and last line (of the new text) the region covers, or covered.
    pub lines: (u32, u32),
    /// For a region that is still there: the lines it covered in the base, mapped into the
    /// new text, so that an access the change moved out of it is still inside these.
    pub was_lines: Option<(u32, u32)>,
    /// The unit the region is (or was) in, in the new facts.
    pub unit: Option<UnitIdx>,
    pub cause: RegionCause,
}

#[derive(Default)]
pub(crate) struct ChangedRegions {
    pub by_file: BTreeMap<FileId, Vec<RegionChange>>,
}

impl ChangedRegions {
    pub fn of(&self, file: FileId) -> &[RegionChange] {
        self.by_file.get(&file).map_or(&[], |v| v.as_slice())
    }
}

pub(crate) fn changed_regions(index: &ProjectIndex, changes: &ChangeSet) -> ChangedRegions {
    let mut out = ChangedRegions::default();
    for change in &changes.files {
        let Some(entry) = index.entry(change.file) else { continue };
        let list = file_regions(change, &entry.facts);
        if !list.is_empty() {
            out.by_file.insert(change.file, list);
        }
    }
    out
}

fn region_key(facts: &FileFacts, r: &LockRegion) -> String {
    let _ = facts;
    format!("{:?}:{}", r.kind, r.text)
}

fn region_method(facts: &FileFacts, r: &LockRegion) -> u32 {
    facts.units[r.unit as usize].method
}

fn file_regions(change: &ChangedFile, new: &FileFacts) -> Vec<RegionChange> {
    let diff = &change.diff;
    let mut out = Vec::new();
    let Some(old) = change.old.as_deref() else {
        // A new file: every region is new.
        for (i, r) in new.locks.iter().enumerate() {
            out.push(change_of(i, r, RegionCause::Added));
        }
        return out;
    };
    let matched = counterparts(old, new, &old.locks, &new.locks, region_method, region_key);
    let new_to_old: BTreeMap<usize, usize> = matched.iter().copied().collect();
    let accesses = counterparts(
        old,
        new,
        &old.accesses,
        &new.accesses,
        |f, a| f.units[a.unit as usize].method,
        super::matching::access_key,
    );
    let old_matched: HashSet<usize> = matched.iter().map(|&(_, o)| o).collect();
    for (i, r) in new.locks.iter().enumerate() {
        let cause = match new_to_old.get(&i) {
            None => Some(RegionCause::Added),
            Some(&o) => {
                let was = &old.locks[o];
                let moved = (diff.map_old_line(was.span.line), diff.map_old_line(was.span.end_line))
                    != (r.span.line, r.span.end_line);
                if r.defining.iter().any(|s| diff.changes_within(s)) {
                    Some(RegionCause::Touched)
                } else if (moved && !diff.is_empty()) || scope_changed(old, new, was, r, &accesses) {
                    Some(RegionCause::Resized)
                } else {
                    None
                }
            }
        };
        if let Some(cause) = cause {
            let mut c = change_of(i, r, cause);
            if let Some(&o) = new_to_old.get(&i) {
                let was = &old.locks[o];
                c.was_lines = Some((diff.map_old_line(was.span.line), diff.map_old_line(was.span.end_line)));
            }
            out.push(c);
        }
    }
    for (o, was) in old.locks.iter().enumerate() {
        if old_matched.contains(&o) {
            continue;
        }
        let first = diff.map_old_line(was.span.line);
        let last = diff.map_old_line(was.span.end_line).max(first);
        let unit = (first..=last).find_map(|l| new.unit_at(new.first_code_offset(l)));
        out.push(RegionChange {
            region: None,
            kind: was.kind,
            text: was.text.clone(),
            lines: (first, last),
            was_lines: None,
            unit,
            cause: RegionCause::Removed,
        });
    }
    out
}

/// Whether an access moved into or out of the region: the lock now covers other code.
fn scope_changed(
    old: &FileFacts,
    new: &FileFacts,
    was: &LockRegion,
    now: &LockRegion,
    accesses: &[(usize, usize)],
) -> bool {
    accesses.iter().any(|&(n, o)| {
        let (na, oa) = (&new.accesses[n], &old.accesses[o]);
        let inside_before = oa.unit == was.unit && was.span.contains(oa.span.start);
        let inside_now = na.unit == now.unit && now.span.contains(na.span.start);
        inside_before != inside_now
    })
}

fn change_of(i: usize, r: &LockRegion, cause: RegionCause) -> RegionChange {
    let first = r.markers.first().copied().unwrap_or(r.span.line).min(r.span.line);
    RegionChange {
        region: Some(i),
        kind: r.kind,
        text: r.text.clone(),
        lines: (first, r.span.end_line),
        was_lines: None,
        unit: Some(r.unit),
        cause,
    }
}
