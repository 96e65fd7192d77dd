//! Which lock a region holds, named so that two regions in different files compare
//! equal when they hold the same lock: `synchronized` methods of a class and
//! `synchronized (this)` blocks hold the object's monitor; `synchronized (lock)` holds the
//! monitor of the object in field `lock`; `rw.readLock().lock()` holds `rw` in shared mode.

use super::{ClassRef, Origin, Resolver, TypeName};
use crate::java::{expr_key, Expr, FileFacts, LockRegion, UnitIdx};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LockId {
    /// Canonical identity: `pkg.Pool#this`, `pkg.Pool#lock`, `pkg.Pool.class`.
    pub key: String,
    /// As a developer writes it: `this`, `lock`, `Pool.class`, `rw.readLock()`.
    pub display: String,
    /// A read lock: two holders do not exclude each other.
    pub shared: bool,
}

impl LockId {
    /// Whether holding `self` and `other` at two places excludes running both at once.
    pub fn excludes(&self, other: &LockId) -> bool {
        self.key == other.key && !(self.shared && other.shared)
    }
}

/// The canonical lock of a region.
pub fn lock_of(r: &Resolver, origin: Origin, facts: &FileFacts, region: &LockRegion) -> LockId {
    let display = region.text.clone();
    let (key, shared) = lock_key(r, origin, facts, region.unit, &region.lock, 0);
    LockId { key, display, shared }
}

/// The lock an arbitrary expression would be as a monitor (`wait()` on `queue`).
pub fn lock_of_expr(r: &Resolver, origin: Origin, facts: &FileFacts, unit: UnitIdx, e: &Expr, display: &str) -> LockId {
    let (key, shared) = lock_key(r, origin, facts, unit, e, 0);
    LockId { key, display: display.to_string(), shared }
}

fn lock_key(r: &Resolver, origin: Origin, facts: &FileFacts, unit: UnitIdx, e: &Expr, depth: u32) -> (String, bool) {
    let ctx = Resolver::unit_class(facts, unit);
    let fallback = || (format!("{}:{}", r.index().path(origin), expr_key(facts, e)), false);
    if depth > 4 {
        return fallback();
    }
    match e {
        Expr::This => (monitor_of(r, ClassRef { origin, idx: ctx }), false),
        Expr::OuterThis(name) => {
            let mut k = Some(ctx);
            while let Some(ci) = k {
                if facts.classes[ci as usize].simple_name == *name {
                    return (monitor_of(r, ClassRef { origin, idx: ci }), false);
                }
                k = facts.classes[ci as usize].outer;
            }
            fallback()
        }
        Expr::ClassLiteral(t) => match r.ty(origin, Some(ctx), t).name {
            TypeName::Class(c) => (format!("{}.class", r.class_name(c)), false),
            TypeName::External(n) => (format!("{n}.class"), false),
            TypeName::Unknown => fallback(),
        },
        Expr::Call { receiver: Some(recv), name, .. } if name == "readLock" || name == "writeLock" => {
            let (k, _) = lock_key(r, origin, facts, unit, recv, depth + 1);
            (k, name == "readLock")
        }
        Expr::Name(_) | Expr::Field(..) | Expr::Local(_) => {
            // The monitor of an object of a project class is that object's `this`.
            if let Some(c) = r.type_of(origin, facts, unit, e).and_then(|t| t.class()) {
                if matches!(c.origin, Origin::Project(_)) {
                    return (monitor_of(r, c), false);
                }
            }
            if let Some(field) = r.field_of_expr(origin, facts, unit, e) {
                // A field initialized with `rw.readLock()` is that read lock.
                if let Some((ff, fi)) = r.field_decl(field) {
                    let decl = &ff.fields[fi as usize];
                    if let Some(init @ Expr::Call { name, .. }) = &decl.init {
                        if name == "readLock" || name == "writeLock" {
                            if let Some(u) =
                                ff.units.iter().position(|u| ff.methods[u.method as usize].class == decl.class)
                            {
                                return lock_key(r, field.0.origin, &ff, u as UnitIdx, init, depth + 1);
                            }
                        }
                    }
                }
                if let Some(k) = r.field_key(field, false) {
                    return (format!("{}#{}", k.class, k.name), false);
                }
            }
            if let Expr::Local(l) = e {
                let local = &facts.locals[*l as usize];
                if let (Some(init), false) = (&local.init, local.reassigned) {
                    return lock_key(r, origin, facts, unit, init, depth + 1);
                }
            }
            fallback()
        }
        _ => fallback(),
    }
}

/// The monitor of an object of class `c`: named after the topmost project superclass, so
/// that `synchronized` in a subclass and in its superclass is the same monitor.
pub fn monitor_of(r: &Resolver, c: ClassRef) -> String {
    let mut top = c;
    for _ in 0..16 {
        match r.supertypes(top).into_iter().next() {
            Some(TypeName::Class(s))
                if r.facts(s.origin)
                    .is_some_and(|f| f.classes[s.idx as usize].kind != crate::java::ClassKind::Interface) =>
            {
                top = s
            }
            _ => break,
        }
    }
    format!("{}#this", r.class_name(top))
}

/// The monitor of the object an expression refers to (`pool` in `pool.count`), when the
/// expression's class is known.
pub fn monitor_of_expr(r: &Resolver, origin: Origin, facts: &FileFacts, unit: UnitIdx, e: &Expr) -> Option<String> {
    let t = r.type_of(origin, facts, unit, e)?;
    Some(monitor_of(r, t.class()?))
}

/// The canonical key of the lock a `@GuardedBy("…")` in class `c` names: `this`, or a
/// field of the class (`lock`, `this.lock`).
pub fn guard_lock_key(r: &Resolver, c: ClassRef, guard: &str) -> Option<String> {
    if guard == "this" {
        return Some(monitor_of(r, c));
    }
    let field = r.find_field(c, guard.trim_start_matches("this."))?;
    let k = r.field_key(field, false)?;
    Some(format!("{}#{}", k.class, k.name))
}
