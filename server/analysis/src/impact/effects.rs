//! Read/write sets of methods (CAPP section 3.1, step 4, after Rountev's side-effect
//! analysis): the fields a method reads and writes, including what its callees read and
//! write, bounded in depth and in the number of methods visited.
//!
//! JDK methods are read from the JDK's sources when they are installed. Their fields are
//! often reached through `VarHandle`s and field updaters (`HEAD.compareAndSet(this, h, p)`
//! writes `head`); those calls count as accesses to the field they name.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use crate::index::{resolve_access, ClassRef, FieldKey, MethodRef, Origin, Resolver, TypeName};
use crate::java::{AccessKind, Call, CallKind, Expr, FileFacts};

/// Fields read and written, each with both flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    pub fields: BTreeMap<FieldKey, (bool, bool)>,
}

impl Effects {
    fn add(&mut self, key: FieldKey, kind: AccessKind) {
        let e = self.fields.entry(key).or_default();
        match kind {
            AccessKind::Read => e.0 = true,
            AccessKind::Write => e.1 = true,
        }
    }
}

/// Methods of `Object` and friends that touch no fields of interest.
const OPAQUE: &[&str] =
    &["wait", "notify", "notifyAll", "getClass", "hashCode", "equals", "toString", "clone", "finalize"];
/// How many methods one read/write set may visit.
const BUDGET: usize = 64;

pub(crate) struct EffectsComputer<'a> {
    r: Resolver<'a>,
    depth: u32,
    direct: HashMap<MethodRef, Arc<Direct>>,
}

#[derive(Default)]
struct Direct {
    accesses: Vec<(FieldKey, AccessKind)>,
    callees: Vec<MethodRef>,
}

impl<'a> EffectsComputer<'a> {
    pub fn new(r: Resolver<'a>, depth: u32) -> Self {
        EffectsComputer { r, depth: depth.max(1), direct: HashMap::new() }
    }

    /// The callees of a call and their combined read/write set.
    pub fn of_call(&mut self, origin: Origin, facts: &FileFacts, call: &Call) -> (Vec<MethodRef>, Effects) {
        if call.kind == CallKind::Method && OPAQUE.contains(&call.name.as_str()) && call.args.len() <= 2 {
            return (Vec::new(), Effects::default());
        }
        let callees = self.r.callees(origin, facts, call);
        let effects = self.transitive(&callees);
        (callees, effects)
    }

    /// Effects of running any of `roots`, following callees up to the depth bound.
    pub fn transitive(&mut self, roots: &[MethodRef]) -> Effects {
        let mut out = Effects::default();
        let mut seen = HashSet::new();
        let mut queue: VecDeque<(MethodRef, u32)> = roots.iter().map(|&m| (m, 1)).collect();
        while let Some((m, level)) = queue.pop_front() {
            if !seen.insert(m) || seen.len() > BUDGET {
                continue;
            }
            let direct = self.direct(m);
            for (k, kind) in &direct.accesses {
                out.add(k.clone(), *kind);
            }
            if level < self.depth {
                queue.extend(direct.callees.iter().map(|&c| (c, level + 1)));
            }
        }
        out
    }

    fn direct(&mut self, m: MethodRef) -> Arc<Direct> {
        if let Some(d) = self.direct.get(&m) {
            return d.clone();
        }
        let d = Arc::new(self.compute_direct(m));
        self.direct.insert(m, d.clone());
        d
    }

    fn compute_direct(&self, m: MethodRef) -> Direct {
        let mut d = Direct::default();
        let Some(facts) = self.r.facts(m.origin) else { return d };
        for (_, a) in facts.accesses_of(m.idx) {
            if let Some(field) = resolve_access(&self.r, m.origin, &facts, a) {
                if is_constant(&self.r, field) {
                    continue;
                }
                if let Some(k) = self.r.field_key(field, a.element) {
                    d.accesses.push((k, a.kind));
                }
            }
        }
        for call in facts.calls_of(m.idx) {
            if let Some((key, kinds)) = self.handle_access(m.origin, &facts, call) {
                for kind in kinds {
                    d.accesses.push((key.clone(), kind));
                }
                continue;
            }
            if call.kind == CallKind::Method && OPAQUE.contains(&call.name.as_str()) {
                continue;
            }
            d.callees.extend(self.r.callees(m.origin, &facts, call));
        }
        d
    }

    /// `HEAD.compareAndSet(this, h, p)` where `HEAD` is a `VarHandle` (or a field updater)
    /// for field `head`: an access to `head`.
    fn handle_access(&self, origin: Origin, facts: &FileFacts, call: &Call) -> Option<(FieldKey, Vec<AccessKind>)> {
        let recv = call.receiver.as_ref()?;
        let handle = self.r.field_of_expr(origin, facts, call.unit, recv)?;
        let (hf, hi) = self.r.field_decl(handle)?;
        let decl = &hf.fields[hi as usize];
        let ty = decl.ty.name.rsplit('.').next().unwrap_or("");
        if !(ty == "VarHandle" || ty.ends_with("FieldUpdater")) {
            return None;
        }
        let target = handle_target(&hf, hi, decl.init.as_ref())?;
        let ctx = decl.class;
        let class = match self.r.ty(handle.0.origin, Some(ctx), &target.0).name {
            TypeName::Class(c) => c,
            _ => ClassRef { origin: handle.0.origin, idx: ctx },
        };
        let field = self.r.find_field(class, &target.1)?;
        let key = self.r.field_key(field, false)?;
        let name = call.name.as_str();
        let kinds = if name.starts_with("get") && !name.starts_with("getAnd") {
            vec![AccessKind::Read]
        } else if name.starts_with("set") || name == "lazySet" {
            vec![AccessKind::Write]
        } else {
            vec![AccessKind::Read, AccessKind::Write]
        };
        Some((key, kinds))
    }
}

/// The `(class, field name)` a handle field was made for: its initializer, or an
/// assignment in a static initializer, calling `findVarHandle(C.class, "f", ...)` or
/// `newUpdater(C.class, [T.class,] "f")`.
fn handle_target(facts: &FileFacts, handle: u32, init: Option<&Expr>) -> Option<(crate::java::TypeRef, String)> {
    let from_call = |e: &Expr| -> Option<(crate::java::TypeRef, String)> {
        let Expr::Call { name, args, .. } = e else { return None };
        if !matches!(name.as_str(), "findVarHandle" | "findStaticVarHandle" | "newUpdater") {
            return None;
        }
        let class = args.iter().find_map(|a| match a {
            Expr::ClassLiteral(t) => Some(t.clone()),
            _ => None,
        })?;
        let field = args.iter().find_map(|a| match a {
            Expr::Str(s) => Some(s.clone()),
            _ => None,
        })?;
        Some((class, field))
    };
    if let Some(found) = init.and_then(from_call) {
        return Some(found);
    }
    let name = &facts.fields[handle as usize].name;
    facts
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Write && &a.name == name)
        .find_map(|a| a.value.as_ref().and_then(from_call))
}

/// `static final` fields are constants: no thread sees them change.
pub(crate) fn is_constant(r: &Resolver, field: (ClassRef, u32)) -> bool {
    r.field_decl(field).is_some_and(|(f, i)| {
        let d = &f.fields[i as usize];
        d.is_static && d.is_final
    })
}
