//! The findings a developer should look at, each with a stable code and a message that
//! says why:
//!
//! - RL001 an impacted access forms an unprotected pair with another thread's access (a
//!   data-race candidate: not volatile, not atomic, not immutable);
//! - RL002 the change moved an access out of the lock that guards the field elsewhere
//!   (even on a volatile field: the check-then-act is the bug);
//! - RL003 the change split one critical section into two acquisitions of the lock, in
//!   the method or through a call that takes the lock again (see `sections`);
//! - RL004 a check-then-act on a thread-safe collection or atomic (`isEmpty()` then
//!   `poll()`): each call is atomic, the pair is not (see `checkact`);
//! - RL005 an access to a `@GuardedBy` field without its declared lock;
//! - RL006 `wait()`/`notify()` where the change left the monitor unheld (the JVM throws
//!   `IllegalMonitorStateException`);
//! - RL007 the change closed a cycle in the lock order: two locks taken in both orders, or
//!   one class's lock taken from two objects the callers choose (see `lockorder`);
//! - RL008 a lost wake-up: the change made `notify()`/`signal()` wake one waiter of a wait
//!   set that mixes conditions (or of a gate all waiters pass), or left a `wait()` outside
//!   its loop (see `wakeups`);
//! - RL009 publication order: the change moved a release (`countDown()`, a volatile write,
//!   `unlock()`, `start()`, …) before a write that another thread reads after the matching
//!   acquire, or published an object before filling it (see `publication`);
//! - RL010 a cached value built in steps in the field of an otherwise immutable class,
//!   where other threads read the partial value (see `lazycache`);
//! - RL100 (hint) a changed line that impacts a shared field.
//!
//! `@SuppressWarnings("racelens")` (or `"racelens:RL001"`) on the field, method or class
//! silences them; `@NotThreadSafe` classes are not shared at all (see `shared`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::discipline;
use super::matching::{access_key, counterparts, expr_key};
use super::regions::ChangedRegions;
use super::shared::{field_decl, Sharing};
use super::svimpact::{ImpactedSites, SvReason};
use super::{
    point_span, About, ChangeSet, ChangedFile, Cx, Diagnostic, EndAccess, Pair, PairEnd, PairKind, Related, Severity,
};
use crate::index::locks;
use crate::index::LockId;
use crate::index::{collection_kind, field_collection, Collection, FieldKey, FileId, Origin, ProjectIndex, Resolver};
use crate::java::{CallKind, ClassIdx, Expr, FileFacts, LockKind, Span, UnitIdx};

/// How many other ends a diagnostic lists as related locations.
const MAX_RELATED: usize = 5;

pub(crate) fn collect(cx: &Cx, impacted: &ImpactedSites, pairs: &[Pair]) -> Vec<Diagnostic> {
    let (index, changes, regions, sharing) = (cx.index, cx.changes, cx.regions, cx.sharing);
    let mut out = Vec::new();
    let mut about = Vec::new();
    let mut reported: BTreeSet<(FileId, Span)> = BTreeSet::new();
    races(index, changes, impacted, pairs, &mut about, &mut reported);
    guarded_by(index, impacted, &mut about, &mut reported);
    for change in &changes.files {
        monitor_not_held(index, regions, change, &mut out);
        if let Some(old) = &change.old {
            moved_out_of_lock(index, sharing, change, old, &mut about, &reported);
        }
        super::checkact::collect(index, sharing, change, &mut about);
        super::lazycache::collect(index, change, &mut about);
    }
    out.extend(one_per_subject(index, about));
    super::sections::collect(cx, &mut out);
    super::lockorder::collect(cx, &mut out);
    super::holdwait::collect(cx, &mut out);
    super::wakeups::collect(cx, &mut out);
    super::condwake::collect(cx, &mut out);
    super::publication::collect(cx, &mut out);
    impact_hints(index, impacted, pairs, &mut out);
    out.retain(|d| !suppressed(index, d));
    out.sort();
    out.dedup();
    out
}

fn verb(access: EndAccess) -> &'static str {
    match access {
        EndAccess::Write => "written",
        _ => "read",
    }
}

fn noun(access: EndAccess) -> &'static str {
    match access {
        EndAccess::Write => "write",
        _ => "read",
    }
}

/// Whether a field can race at all: not volatile (for the field itself), not atomic.
fn racy_field(index: &ProjectIndex, key: &FieldKey) -> bool {
    let Some((origin, facts, f)) = field_decl(index, key) else { return false };
    let decl = &facts.fields[f as usize];
    if decl.is_volatile && !key.element {
        return false;
    }
    let r = index.resolver();
    let ty = r.ty(origin, Some(decl.class), &decl.ty);
    let qualified = r.qualified_name(&ty.name).unwrap_or_default();
    // A thread-safe collection's or an atomic's state (`map[]`) is changed by atomic calls:
    // no data race, whatever pairs it forms (RL004 is about those).
    !(ty.dims == 0
        && (qualified.starts_with("java.util.concurrent.atomic.")
            || collection_kind(&qualified) == Some(Collection::ThreadSafe)))
        && !(key.element && thread_safe_state(&r, (crate::index::ClassRef { origin, idx: decl.class }, f)))
}

/// Whether a field holds a thread-safe collection or an atomic (its state is changed by
/// atomic calls only).
pub(super) fn thread_safe_state(r: &Resolver, field: (crate::index::ClassRef, u32)) -> bool {
    field_collection(r, field) == Some(Collection::ThreadSafe) || crate::index::is_atomic_field(r, field)
}

fn guarded_by(
    index: &ProjectIndex,
    impacted: &ImpactedSites,
    out: &mut Vec<About>,
    reported: &mut BTreeSet<(FileId, Span)>,
) {
    let r = index.resolver();
    for (file, i, _) in impacted.iter() {
        let Some(entry) = index.entry(file) else { continue };
        let site = &entry.resolved.sites[i];
        let Some((origin, facts, f)) = field_decl(index, &site.field) else { continue };
        let decl = &facts.fields[f as usize];
        let Some(guard) = decl.annotations.iter().find(|a| a.name == "GuardedBy").and_then(|a| a.strings.first())
        else {
            continue;
        };
        let held = index.locks_at(file, site.unit, site.span.start);
        let guard_key = locks::guard_lock_key(&r, crate::index::ClassRef { origin, idx: decl.class }, guard);
        let holds = held
            .iter()
            .any(|l| Some(&l.key) == guard_key.as_ref() || l.display == *guard || l.display == format!("this.{guard}"));
        if holds || reported.contains(&(file, site.span)) {
            continue;
        }
        reported.insert((file, site.span));
        out.push(About::new(
            site.field.display_name(),
            Diagnostic {
                file,
                span: site.span,
                severity: Severity::Warning,
                code: "RL005",
                message: format!(
                    "`{}` is {} in `{}()` without the lock `{guard}` that its @GuardedBy declares",
                    site.field.display_name(),
                    verb(EndAccess::from_kind(site.kind)),
                    entry.facts.method_display(entry.facts.units[site.unit as usize].method),
                ),
                related: vec![Related {
                    file: file_of(origin).unwrap_or(file),
                    span: decl.span,
                    message: format!("`{}` is declared @GuardedBy(\"{guard}\") here", decl.name),
                }],
            },
        ));
    }
}

fn file_of(origin: Origin) -> Option<FileId> {
    match origin {
        Origin::Project(f) => Some(f),
        Origin::Jdk(_) => None,
    }
}

/// RL001: impacted accesses that race with another thread's access.
fn races(
    index: &ProjectIndex,
    changes: &ChangeSet,
    impacted: &ImpactedSites,
    pairs: &[Pair],
    out: &mut Vec<About>,
    reported: &mut BTreeSet<(FileId, Span)>,
) {
    // Group unprotected data pairs by the place of their impacted end (`x++` reads and
    // writes at one place).
    let mut by_place: BTreeMap<(FileId, Span, FieldKey), Vec<(&PairEnd, &PairEnd)>> = BTreeMap::new();
    let mut undisciplined: HashMap<FieldKey, Option<(FileId, Arc<FileFacts>, ClassIdx)>> = HashMap::new();
    for p in pairs.iter().filter(|p| matches!(p.kind, PairKind::RW | PairKind::WW) && !p.protected) {
        if !racy_field(index, &p.field) {
            continue;
        }
        // Both ends in a class that never had a discipline of its own ([`discipline`]).
        let class = undisciplined.entry(p.field.clone()).or_insert_with(|| {
            let (Origin::Project(file), facts, f) = field_decl(index, &p.field)? else { return None };
            let class = facts.fields[f as usize].class;
            discipline::undisciplined_class(index, changes, &p.field).then_some((file, facts, class))
        });
        if let Some((file, facts, class)) = class {
            let own = |e: &PairEnd| e.file == *file && discipline::in_class(facts, *class, e.span.start);
            if own(&p.a) && own(&p.b) {
                continue;
            }
        }
        for (me, other) in [(&p.a, &p.b), (&p.b, &p.a)] {
            if me.impacted {
                by_place.entry((me.file, me.span, p.field.clone())).or_default().push((me, other));
            }
            if p.a == p.b {
                break;
            }
        }
    }
    for ((file, span, field), ends) in by_place {
        let Some(entry) = index.entry(file) else { continue };
        let here: Vec<usize> = (0..entry.resolved.sites.len())
            .filter(|&i| entry.resolved.sites[i].span == span && entry.resolved.sites[i].field == field)
            .collect();
        let Some(&site_idx) = here.iter().find(|&&i| impacted.contains(file, i)) else { continue };
        let site = &entry.resolved.sites[site_idx];
        // Only what the change itself did: rules 1 to 4.
        let cause = match impacted.get(file, site_idx) {
            Some(SvReason::ChangedLine) => changed_line_cause(changes.get(file), &entry.facts, site),
            Some(SvReason::NewMethod) => format!("the change added `{}()`", entry.facts.method_display(entry.facts.units[site.unit as usize].method)),
            Some(SvReason::Synchronization(why)) => why.clone(),
            Some(SvReason::VolatileRemoved) => format!("the change removed `volatile` from `{}`", field.name),
            Some(SvReason::Redeclared(class, name, true)) => format!("the change declared `{name}` in `{}`, so this access may now mean that field instead of an inherited one", class.rsplit(['.', '$']).next().unwrap_or(class)),
            Some(SvReason::Redeclared(class, name, false)) => format!("the change removed `{name}` from `{}`, so this access may now mean an inherited field", class.rsplit(['.', '$']).next().unwrap_or(class)),
            _ => continue,
        };
        // An end that holds a lock is not where the fix goes when the other end is also
        // impacted (that end gets its own warning); keep only the others, and the access
        // racing with itself (a lock it holds that does not exclude itself: a read lock
        // over a write, as `get` on an access-ordered map is).
        let holds_lock = !ends[0].0.locks.is_empty();
        let itself = |o: &PairEnd| o.file == file && o.span == span;
        let ends: Vec<(&PairEnd, &PairEnd)> =
            if holds_lock { ends.into_iter().filter(|(_, o)| !o.impacted || itself(o)).collect() } else { ends };
        if ends.is_empty() {
            continue;
        }
        let my_access = access_words(ends.iter().map(|(me, _)| me.access));
        let me = ends[0].0;
        // Other places, each with what is done there; one holding a lock first (the guard
        // this access lacks), then nearby ones.
        // By path, not file id: ids follow the order files were indexed in, and the end
        // named first must not depend on it (an incremental index and a fresh one agree).
        let mut others: BTreeMap<(bool, bool, String, Span), (&PairEnd, BTreeSet<EndAccess>)> = BTreeMap::new();
        for (_, o) in &ends {
            let k =
                (o.locks.is_empty(), !(o.file == file && o.span == span), index.path(Origin::Project(o.file)), o.span);
            others.entry(k).or_insert((o, BTreeSet::new())).1.insert(o.access);
        }
        let short = |m: &str| -> String {
            let (mine, theirs) = (me.method.rsplit_once('.').map(|x| x.0), m.rsplit_once('.'));
            match (mine, theirs) {
                (Some(a), Some((b, name))) if a == b => name.to_string(),
                _ => m.to_string(),
            }
        };
        let subject = match &site.via {
            Some(m) => format!(
                "`{}` is {} by `{m}()` in `{}()`",
                field.name,
                if my_access == "read" { "read" } else { "modified" },
                me.method
            ),
            None => format!("`{}` is {my_access} in `{}()`", field.display_name(), me.method),
        };
        let elsewhere: Vec<&(&PairEnd, BTreeSet<EndAccess>)> =
            others.values().filter(|(o, _)| !(o.file == file && o.span == span)).collect();
        let message = match elsewhere.first() {
            None => match me.locks.first() {
                Some(shared) => format!("{subject}, which two threads can run at once: `{}` is a shared lock that does not exclude itself; {cause}", shared.display),
                None => format!("{subject}, which two threads can run at once with no lock held; {cause}"),
            },
            Some((o, accesses)) => match o.locks.first() {
                Some(lock) => format!(
                    "{subject} without the lock `{}` that guards its {} in `{}()`; {cause}",
                    lock.display,
                    access_noun(accesses.iter().copied()),
                    short(&o.method)
                ),
                None => format!("{subject} and {} in `{}()` with no common lock; {cause}", access_words(accesses.iter().copied()), short(&o.method)),
            },
        };
        let mut related: Vec<Related> = elsewhere
            .iter()
            .take(MAX_RELATED)
            .map(|(o, accesses)| Related {
                file: o.file,
                span: o.span,
                message: match o.locks.first() {
                    Some(l) => format!(
                        "the {} in `{}()` holds `{}`",
                        access_noun(accesses.iter().copied()),
                        o.method,
                        l.display
                    ),
                    None => format!("the {} in `{}()` holds no lock", access_noun(accesses.iter().copied()), o.method),
                },
            })
            .collect();
        // Where the guarding lock is taken at the other end.
        if let Some((o, _)) = elsewhere.first().filter(|(o, _)| !o.locks.is_empty()) {
            if let Some(site) = index.entry(o.file).and_then(|e| e.resolved.sites.iter().find(|s| s.span == o.span)) {
                let facts = &index.entry(o.file).expect("looked up above").facts;
                if let Some(region) = facts.locks_held(site.unit, site.span.start).last() {
                    let line = region.markers.first().copied().unwrap_or(region.span.line);
                    let start = facts.first_code_offset(line);
                    related.push(Related {
                        file: o.file,
                        span: point_span(start, line),
                        message: format!("`{}` is taken here", o.locks[0].display),
                    });
                }
            }
        }
        reported.insert((file, span));
        out.push(About::new(
            field.display_name(),
            Diagnostic { file, span, severity: Severity::Warning, code: "RL001", message, related },
        ));
    }
}

/// `read`, `written`, or `updated` (both).
fn access_words(accesses: impl Iterator<Item = EndAccess>) -> &'static str {
    let set: BTreeSet<EndAccess> = accesses.collect();
    match (set.contains(&EndAccess::Read), set.contains(&EndAccess::Write)) {
        (true, true) => "updated",
        (false, true) => "written",
        _ => "read",
    }
}

/// `read`, `write`, or `update`.
fn access_noun(accesses: impl Iterator<Item = EndAccess>) -> &'static str {
    match access_words(accesses) {
        "updated" => "update",
        "written" => "write",
        _ => "read",
    }
}

/// What the change did to a changed line's access, in words.
fn changed_line_cause(change: Option<&ChangedFile>, facts: &FileFacts, site: &crate::index::Site) -> String {
    let Some(change) = change else { return "the change touched this line".into() };
    let Some(old) = &change.old else { return "the change added this file".into() };
    if site.via.is_some() {
        return "the change added this call".into();
    }
    let matched =
        counterparts(old, facts, &old.accesses, &facts.accesses, |f, a| f.units[a.unit as usize].method, access_key);
    let was = matched.iter().find(|(n, _)| *n == site.item as usize).map(|&(_, o)| o);
    match was {
        None => "the change added this access".into(),
        Some(o) => {
            let before: BTreeSet<String> =
                old.locks_held(old.accesses[o].unit, old.accesses[o].span.start).map(|l| l.text.clone()).collect();
            let now: BTreeSet<String> = facts.locks_held(site.unit, site.span.start).map(|l| l.text.clone()).collect();
            match before.difference(&now).next() {
                Some(lost) => format!("the change moved it out of the lock `{lost}`"),
                None => "the change modified this line (the access was already unprotected)".into(),
            }
        }
    }
}

/// RL006: `wait`, `notify` or `notifyAll` on a monitor the code does not hold (and no
/// caller holds for it).
fn monitor_not_held(index: &ProjectIndex, regions: &ChangedRegions, change: &ChangedFile, out: &mut Vec<Diagnostic>) {
    let Some(entry) = index.entry(change.file) else { return };
    let facts = &entry.facts;
    let r = index.resolver();
    let origin = Origin::Project(change.file);
    let touched: BTreeSet<u32> = change.diff.touched_lines().collect();
    let changed_regions = regions.of(change.file);
    for call in facts.calls.iter().filter(|c| {
        c.kind == CallKind::Method && matches!(c.name.as_str(), "wait" | "notify" | "notifyAll") && c.args.len() <= 2
    }) {
        let region = changed_regions.iter().find(|c| c.lines.0 <= call.span.line && call.span.line <= c.lines.1);
        let new_file = change.old.is_none();
        if !(new_file || touched.contains(&call.span.line) || region.is_some()) {
            continue;
        }
        let receiver = call.receiver.clone().unwrap_or(Expr::This);
        let display = expr_key(facts, &receiver);
        let monitor = locks::lock_of_expr(&r, origin, facts, call.unit, &receiver, &display);
        if index.locks_at(change.file, call.unit, call.span.start).iter().any(|l| l.key == monitor.key) {
            continue;
        }
        // A helper that only ever runs under its callers' lock is fine.
        let method = facts.units[call.unit as usize].method;
        let name = &facts.methods[method as usize].name;
        let argc = facts.methods[method as usize].params.len();
        let mut callers = 0;
        let mut holding = 0;
        for (id, e) in index.files_calling(name).filter_map(|f| index.entry(f).map(|e| (f, e))) {
            for c in
                e.facts.calls.iter().filter(|c| &c.name == name && c.args.len() == argc && c.kind == CallKind::Method)
            {
                if id == change.file && facts.units[c.unit as usize].method == method {
                    continue;
                }
                callers += 1;
                let held = index.locks_at(id, c.unit, c.span.start);
                holding += held.iter().any(|l| l.key == monitor.key) as usize;
            }
        }
        if callers > 0 && holding == callers {
            continue;
        }
        let cause = match region {
            Some(reg) => super::svimpact::describe_region_change(facts, reg),
            None if new_file => "the change added this file".to_string(),
            None => "the change added this call".to_string(),
        };
        out.push(Diagnostic {
            file: change.file,
            span: call.span,
            severity: Severity::Warning,
            code: "RL006",
            message: format!(
                "`{}()` needs the monitor of `{display}`, which `{}()` does not hold here: it throws IllegalMonitorStateException; {cause}",
                call.name,
                facts.method_display(method)
            ),
            related: Vec::new(),
        });
    }
}

/// RL002: an access the change took out of the lock that guards its field elsewhere.
fn moved_out_of_lock(
    index: &ProjectIndex,
    sharing: &Sharing,
    change: &ChangedFile,
    old: &FileFacts,
    out: &mut Vec<About>,
    reported: &BTreeSet<(FileId, Span)>,
) {
    let Some(entry) = index.entry(change.file) else { return };
    let facts = &entry.facts;
    let r = index.resolver();
    let origin = Origin::Project(change.file);
    let matched: HashMap<usize, usize> =
        counterparts(old, facts, &old.accesses, &facts.accesses, |f, a| f.units[a.unit as usize].method, access_key)
            .into_iter()
            .collect();
    for site in entry.resolved.sites.iter().filter(|s| s.via.is_none()) {
        if reported.contains(&(change.file, site.span)) || !sharing.is_shared(index, change.file, site) {
            continue;
        }
        let Some(&o) = matched.get(&(site.item as usize)) else { continue };
        let was = &old.accesses[o];
        // Regions held before and not now, compared as written (cheap); canonical keys only
        // for what was lost.
        let lost: Vec<&crate::java::LockRegion> = old
            .locks_held(was.unit, was.span.start)
            .filter(|l| !facts.locks_held(site.unit, site.span.start).any(|n| n.text == l.text))
            .collect();
        if lost.is_empty() {
            continue;
        }
        let now: Vec<LockId> = index.locks_at(change.file, site.unit, site.span.start);
        let lost: Vec<&crate::java::LockRegion> =
            lost.into_iter().filter(|l| !now.iter().any(|n| n.display == l.text)).collect();
        for region in lost {
            let Some(key) = old_lock_key(&r, origin, facts, site.unit, region) else { continue };
            if double_checked(index, change.file, site, &key) {
                continue;
            }
            // Elsewhere, the field is accessed under that lock.
            let guarded: Vec<(FileId, Span, String)> = index
                .sites_of(&site.field)
                .filter(|(f, s)| !(*f == change.file && s.span == site.span))
                .filter_map(|(f, s)| {
                    let e = index.entry(f)?;
                    let held = index.locks_at(f, s.unit, s.span.start);
                    held.iter()
                        .any(|l| l.key == key)
                        .then(|| (f, s.span, e.facts.method_display(e.facts.units[s.unit as usize].method)))
                })
                .collect();
            if guarded.is_empty() {
                continue;
            }
            let methods: BTreeSet<&str> = guarded.iter().map(|(_, _, m)| m.as_str()).collect();
            let region_words = match region.kind {
                LockKind::SynchronizedMethod => "the `synchronized` method".to_string(),
                LockKind::SynchronizedBlock => format!("`synchronized ({})`", region.text),
                LockKind::Explicit => format!("`{}.lock()`", region.text),
            };
            out.push(About::new(
                site.field.display_name(),
                Diagnostic {
                    file: change.file,
                    span: site.span,
                    severity: Severity::Warning,
                    code: "RL002",
                    message: format!(
                    "the change moved the {} of `{}` in `{}()` out of {region_words}, the lock that guards `{}` in {}",
                    noun(EndAccess::from_kind(site.kind)),
                    site.field.display_name(),
                    facts.method_display(facts.units[site.unit as usize].method),
                    site.field.display_name(),
                    methods.iter().take(3).map(|m| format!("`{m}()`")).collect::<Vec<_>>().join(", "),
                ),
                    related: guarded
                        .iter()
                        .take(MAX_RELATED)
                        .map(|(f, s, m)| Related {
                            file: *f,
                            span: *s,
                            message: format!("guarded by `{}` in `{m}()`", region.text),
                        })
                        .collect(),
                },
            ));
            break;
        }
    }
}

/// Double-checked locking on a volatile field: the read outside the lock is only a fast
/// path, the same method reads the field again under the lock before it acts, and the
/// volatile write publishes what was built before it (JLS 17.4.5; the RL009 rules check
/// the order of that write).
fn double_checked(index: &ProjectIndex, file: FileId, site: &crate::index::Site, key: &str) -> bool {
    let Some(entry) = index.entry(file) else { return false };
    site.kind == crate::java::AccessKind::Read
        && site.decl.is_volatile
        && entry.resolved.sites.iter().any(|s| {
            s.field == site.field
                && s.kind == crate::java::AccessKind::Read
                && s.span.start > site.span.start
                && entry.facts.units[s.unit as usize].method == entry.facts.units[site.unit as usize].method
                && index.locks_at(file, s.unit, s.span.start).iter().any(|l| l.key == key)
        })
}

/// The canonical key, in the new code, of a lock region of the base version.
fn old_lock_key(
    r: &Resolver,
    origin: Origin,
    facts: &FileFacts,
    unit: UnitIdx,
    region: &crate::java::LockRegion,
) -> Option<String> {
    let class = Resolver::unit_class(facts, unit);
    let class_ref = crate::index::ClassRef { origin, idx: class };
    if region.kind == LockKind::SynchronizedMethod || region.text == "this" {
        return Some(match region.lock {
            Expr::ClassLiteral(_) => format!("{}.class", r.class_name(class_ref)),
            _ => locks::monitor_of(r, class_ref),
        });
    }
    // The same lock written the same way elsewhere in the class.
    if let Some(same) =
        facts.locks.iter().find(|l| l.text == region.text && Resolver::unit_class(facts, l.unit) == class)
    {
        return Some(locks::lock_of(r, origin, facts, same).key);
    }
    let name = region.text.trim_start_matches("this.");
    if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        let display = region.text.clone();
        return Some(locks::lock_of_expr(r, origin, facts, unit, &Expr::Name(name.to_string()), &display).key);
    }
    None
}

/// One warning per code, method and field (or object): the first place carries it, the
/// others of that method become related locations and a count, so that one racy method
/// gives one line per field however often it touches the field.
fn one_per_subject(index: &ProjectIndex, found: Vec<About>) -> Vec<Diagnostic> {
    let mut groups: BTreeMap<(&'static str, FileId, Option<u32>, String), Vec<Diagnostic>> = BTreeMap::new();
    for About { subject, diagnostic: d } in found {
        let method = index.entry(d.file).and_then(|e| e.facts.method_at(d.span.start));
        groups.entry((d.code, d.file, method, subject)).or_default().push(d);
    }
    let mut out = Vec::new();
    for ((_, file, method, _), mut ds) in groups {
        ds.sort();
        let mut first = ds.remove(0);
        // Findings at the same place (two checks before one act) add their related places.
        for same in ds.iter().filter(|d| d.span == first.span) {
            for r in &same.related {
                if !first.related.contains(r) {
                    first.related.push(r.clone());
                }
            }
        }
        ds.retain(|d| d.span != first.span);
        ds.dedup_by(|a, b| a.span == b.span);
        if !ds.is_empty() {
            let lines: BTreeSet<u32> = ds.iter().map(|d| d.span.line).collect();
            let lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            let in_method = method
                .zip(index.entry(file))
                .map(|(m, e)| format!(" in `{}()`", e.facts.method_display(m)))
                .unwrap_or_default();
            let places = if ds.len() == 1 { "place" } else { "places" };
            first.message += &format!(
                " ({} more {places}{in_method}: line{} {})",
                ds.len(),
                if lines.len() == 1 { "" } else { "s" },
                lines.join(", ")
            );
            // The other places first (each once), then what the first place's finding relates.
            let mut related: Vec<Related> = Vec::new();
            for d in &ds {
                related.push(Related { file: d.file, span: d.span, message: format!("the same {} here", d.code) });
                related.extend(
                    d.related.iter().filter(|r| r.file != d.file || !ds.iter().any(|o| o.span == r.span)).cloned(),
                );
            }
            let mut seen = BTreeSet::new();
            let merged = |r: &Related| r.file == first.file && ds.iter().any(|d| d.span.line == r.span.line);
            let own: Vec<Related> = std::mem::take(&mut first.related).into_iter().filter(|r| !merged(r)).collect();
            let mut all: Vec<Related> = related
                .into_iter()
                .chain(own)
                .filter(|r| seen.insert((r.file, r.span.line, r.message.clone())))
                .collect();
            all.retain(|r| !(r.file == first.file && r.span.line == first.span.line));
            all.truncate(MAX_RELATED + ds.len().min(MAX_RELATED));
            first.related = all;
        }
        out.push(first);
    }
    out
}

/// RL100: a hint on changed lines that impact a shared field others access too.
fn impact_hints(index: &ProjectIndex, impacted: &ImpactedSites, pairs: &[Pair], out: &mut Vec<Diagnostic>) {
    let mut partners: HashMap<(FileId, Span), BTreeSet<String>> = HashMap::new();
    for p in pairs.iter().filter(|p| matches!(p.kind, PairKind::RW | PairKind::WW)) {
        for (me, other) in [(&p.a, &p.b), (&p.b, &p.a)] {
            if me.impacted && other != me {
                partners.entry((me.file, me.span)).or_default().insert(other.method.clone());
            }
        }
    }
    let mut by_line: BTreeMap<(FileId, u32), (Span, BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    for (file, i, reason) in impacted.iter() {
        if !matches!(reason, SvReason::ChangedLine) {
            continue;
        }
        let Some(entry) = index.entry(file) else { continue };
        let site = &entry.resolved.sites[i];
        let Some(others) = partners.get(&(file, site.span)) else { continue };
        let e = by_line.entry((file, site.span.line)).or_insert((site.span, BTreeSet::new(), BTreeSet::new()));
        e.1.insert(site.field.display_name());
        e.2.extend(others.iter().cloned());
    }
    for ((file, _), (span, fields, others)) in by_line {
        let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
        let others: Vec<String> = others.iter().take(3).map(|m| format!("`{m}()`")).collect();
        out.push(Diagnostic {
            file,
            span,
            severity: Severity::Hint,
            code: "RL100",
            message: format!(
                "this change impacts shared {} (also accessed in {})",
                fields.join(", "),
                others.join(", ")
            ),
            related: Vec::new(),
        });
    }
}

/// `@SuppressWarnings("racelens")` or `@SuppressWarnings("racelens:RL001")` on the field
/// declaration, method or any enclosing class of the diagnostic.
fn suppressed(index: &ProjectIndex, d: &Diagnostic) -> bool {
    let Some(entry) = index.entry(d.file) else { return false };
    let facts = &entry.facts;
    let silences = |anns: &[crate::java::Annotation]| {
        anns.iter().any(|a| {
            a.name == "SuppressWarnings"
                && a.strings.iter().any(|s| s == "racelens" || *s == format!("racelens:{}", d.code))
        })
    };
    if facts.methods.iter().any(|m| m.span.contains(d.span.start) && silences(&m.annotations)) {
        return true;
    }
    if facts.classes.iter().any(|c| c.span.contains(d.span.start) && silences(&c.annotations)) {
        return true;
    }
    if facts.fields.iter().any(|f| f.decl_span.contains(d.span.start) && silences(&f.annotations)) {
        return true;
    }
    // A suppressed field silences findings about it anywhere.
    entry.resolved.sites.iter().filter(|s| s.span == d.span).any(|s| {
        field_decl(index, &FieldKey { element: false, ..s.field.clone() })
            .is_some_and(|(_, f, i)| silences(&f.fields[i as usize].annotations))
    })
}
