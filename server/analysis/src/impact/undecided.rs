//! State the change touches that the sharing analysis cannot call shared or unshared: where
//! "no impacted pair" would be a guess, not a finding (issue 21, item 2).
//!
//! [`super::shared`] decides sharing by class: a field of a class none of whose objects is
//! seen escaping is not a shared variable, and a collection a method returned (`session.
//! getAttribute(KEY)`) is no field at all. When the change writes or reads such state, the
//! selection that follows has no pair to select on; [`crate::rank`] then says, for the tests
//! that start threads and reach the changed code, that the state is *not known to be shared*
//! rather than that the change needs no concurrency test.

use std::collections::BTreeSet;

use super::shared::Sharing;
use super::ChangeSet;
use crate::index::{collection_kind, is_collection_interface, FileId, MethodRef, Origin, ProjectIndex};
use crate::java::{Expr, FileFacts, MethodKind, Span};

/// State on a changed line whose sharing the analysis could not decide.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Undecided {
    pub file: FileId,
    pub span: Span,
    /// The method the access is in (a lambda's: the method it is written in).
    pub method: MethodRef,
    /// `` `Key.hash` `` or `` `queue` ``.
    pub what: String,
    /// How the code gets the object, when the code says so: `` `session.getAttribute(…)` ``.
    pub through: Option<String>,
}

/// The undecided state of every changed line, one entry per state and method.
pub(super) fn collect(index: &ProjectIndex, changes: &ChangeSet, sharing: &Sharing) -> Vec<Undecided> {
    let mut out = BTreeSet::new();
    let r = index.resolver();
    for change in &changes.files {
        let Some(entry) = index.entry(change.file) else { continue };
        let facts = &entry.facts;
        let touched: BTreeSet<u32> = change.diff.touched_lines().collect();
        let origin = Origin::Project(change.file);
        let method_of = |unit: u32| MethodRef { origin, idx: facts.units[unit as usize].method };
        let mut seen: BTreeSet<(MethodRef, String)> = BTreeSet::new();
        // Instance fields of classes no object of which is seen escaping.
        for site in &entry.resolved.sites {
            if !touched.contains(&site.span.line) || site.decl.is_static || (site.decl.is_final && !site.field.element)
            {
                continue;
            }
            let method = method_of(site.unit);
            let m = &facts.methods[method.idx as usize];
            if matches!(m.kind, MethodKind::Constructor | MethodKind::Initializer)
                || sharing.is_shared(index, change.file, site)
            {
                continue;
            }
            if sharing.escapes(&site.field.class).is_some() || sharing.is_not_thread_safe(&site.field.class) {
                continue;
            }
            let what = format!("`{}.{}`", site.field.short_class(), site.field.display_name());
            if seen.insert((method, what.clone())) {
                out.insert(Undecided { file: change.file, span: site.span, method, what, through: None });
            }
        }
        // Collections and atomics the code got from a call: their sharing is the callee's.
        for call in &facts.calls {
            let Some(Expr::Local(l)) = &call.receiver else { continue };
            if !touched.contains(&call.span.line) {
                continue;
            }
            let local = &facts.locals[*l as usize];
            let Some(source) = local.init.as_ref().and_then(produced_by_call) else { continue };
            let is_state = r
                .type_of(origin, facts, call.unit, &Expr::Local(*l))
                .filter(|t| t.dims == 0)
                .and_then(|t| r.qualified_name(&t.name))
                .is_some_and(|q| is_concurrent_state_type(&q));
            if !is_state {
                continue;
            }
            let method = method_of(call.unit);
            let what = format!("`{}`", local.name);
            if seen.insert((method, what.clone())) {
                out.insert(Undecided {
                    file: change.file,
                    span: call.span,
                    method,
                    what,
                    through: Some(format!("`{}`", render(facts, source))),
                });
            }
        }
    }
    out.into_iter().collect()
}

/// The call an initializer's value comes from: `session.getAttribute(K)`, also under a cast.
pub(crate) fn produced_by_call(init: &Expr) -> Option<&Expr> {
    match init {
        Expr::Call { .. } => Some(init),
        Expr::Cast(_, inner) => produced_by_call(inner),
        _ => None,
    }
}

/// A collection or an atomic: state whose calls other threads race on when it is shared.
fn is_concurrent_state_type(qualified: &str) -> bool {
    qualified.starts_with("java.util.concurrent.atomic.")
        || collection_kind(qualified).is_some()
        || (qualified.starts_with("java.util.") && is_collection_interface(qualified))
}

/// A short rendering of a call for a message: `session.getAttribute(…)`.
fn render(facts: &FileFacts, e: &Expr) -> String {
    match e {
        Expr::This => "this".into(),
        Expr::Name(n) => n.clone(),
        Expr::Local(l) => facts.locals[*l as usize].name.clone(),
        Expr::Field(recv, name) => format!("{}.{name}", render(facts, recv)),
        Expr::Call { receiver, name, args } => {
            let args = if args.is_empty() { "" } else { "…" };
            match receiver {
                Some(recv) => format!("{}.{name}({args})", render(facts, recv)),
                None => format!("{name}({args})"),
            }
        }
        Expr::Cast(_, inner) => render(facts, inner),
        Expr::New(t) => format!("new {}(…)", t.name),
        _ => "…".into(),
    }
}
