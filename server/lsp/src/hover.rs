//! Hover on a field (its declaration or any access): every access in the project with
//! its method, locks and whether the change impacts it, the impacted pairs it is in,
//! and a one-line verdict on how it is guarded.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use racelens_analysis::impact::{shared::field_decl, Impact, Sharing};
use racelens_analysis::index::{FieldKey, FileId, ProjectIndex};
use racelens_analysis::java::AccessKind;

use crate::convert::file_uri;

/// The field at a byte offset of a file: an access to it, or its declaration.
pub fn field_at(index: &ProjectIndex, file: FileId, offset: u32) -> Option<FieldKey> {
    let entry = index.entry(file)?;
    if let Some(site) = entry.resolved.sites.iter().find(|s| s.span.contains(offset) || s.span.end == offset) {
        return Some(FieldKey { element: false, ..site.field.clone() });
    }
    let facts = &entry.facts;
    let decl = facts.fields.iter().find(|f| f.span.contains(offset) || f.span.end == offset)?;
    Some(FieldKey::new(&facts.classes[decl.class as usize].binary_name, &decl.name, false))
}

struct Access {
    file: FileId,
    site: usize,
    line: u32,
    method: String,
    kind: AccessKind,
    element: bool,
    via: Option<String>,
    locks: Vec<(String, String)>,
    impacted: bool,
}

/// Markdown describing a field and every access to it.
pub fn hover_markdown(
    index: &ProjectIndex,
    root: &Path,
    sharing: &Sharing,
    impact: &Impact,
    field: &FieldKey,
) -> String {
    let mut accesses = Vec::new();
    for element in [false, true] {
        let key = FieldKey { element, ..field.clone() };
        for (file, e) in index.entries() {
            for (i, s) in e.resolved.sites.iter().enumerate().filter(|(_, s)| s.field == key) {
                accesses.push(Access {
                    file,
                    site: i,
                    line: s.span.line,
                    method: e.facts.method_display(e.facts.units[s.unit as usize].method),
                    kind: s.kind,
                    element,
                    via: s.via.as_deref().map(str::to_string),
                    locks: index.locks_at(file, s.unit, s.span.start).into_iter().map(|l| (l.key, l.display)).collect(),
                    impacted: impact.impacted_accesses.contains(&(file, i)),
                });
            }
        }
    }
    accesses.sort_by(|a, b| {
        (index.path(racelens_analysis::index::Origin::Project(a.file)), a.line)
            .cmp(&(index.path(racelens_analysis::index::Origin::Project(b.file)), b.line))
    });
    // `x++` reads and writes at one place: show it once, as an update.
    let mut md = String::new();
    let short_class = field.short_class();
    let decl = field_decl(index, field);
    let _ = write!(md, "**`{}`** — field of `{short_class}`", field.name);
    if let Some((_, facts, f)) = &decl {
        let d = &facts.fields[*f as usize];
        let mut mods = Vec::new();
        if d.is_static {
            mods.push("static");
        }
        if d.is_final {
            mods.push("final");
        }
        if d.is_volatile {
            mods.push("volatile");
        }
        let mods = if mods.is_empty() { String::new() } else { format!("{} ", mods.join(" ")) };
        let _ = write!(md, " (`{mods}{}`)", type_text(&d.ty));
        if let Some(g) = d.annotations.iter().find(|a| a.name == "GuardedBy").and_then(|a| a.strings.first()) {
            let _ = write!(md, ", `@GuardedBy(\"{g}\")`");
        }
    }
    md.push_str("\n\n");
    match sharing.escapes(&field.class) {
        Some(why) => {
            let _ = writeln!(md, "Shared between threads: objects of `{short_class}` escape ({why}).\n");
        }
        None if decl.as_ref().is_some_and(|(_, f, i)| f.fields[*i as usize].is_static) => {
            md.push_str("Shared between threads: a static field.\n\n")
        }
        None => {
            let _ = writeln!(md, "Not shared: no code shows objects of `{short_class}` reaching another thread.\n");
        }
    }
    let _ = writeln!(md, "**Verdict:** {}\n", verdict(&accesses));
    let _ = writeln!(md, "**Accesses** ({}):", places(&accesses));
    let mut grouped: BTreeMap<(String, u32, String), (Vec<&Access>, bool)> = BTreeMap::new();
    for a in &accesses {
        let path = index.entry(a.file).map(|e| e.path.clone()).unwrap_or_default();
        let e = grouped.entry((path, a.line, a.method.clone())).or_insert((Vec::new(), false));
        e.0.push(a);
        e.1 |= a.impacted;
    }
    for ((path, line, method), (list, impacted)) in &grouped {
        let what = describe(list);
        let locks: Vec<String> = list[0].locks.iter().map(|(_, d)| format!("`{d}`")).collect();
        let held = if locks.is_empty() { "no lock".to_string() } else { locks.join(", ") };
        let file_name = path.rsplit('/').next().unwrap_or(path);
        let link = match file_uri(root, path) {
            Some(uri) => format!("[{file_name}:{line}]({}#L{line})", uri.as_str()),
            None => format!("{file_name}:{line}"),
        };
        let _ = writeln!(
            md,
            "- {what} in `{method}()` holding {held}{} — {link}",
            if *impacted { " · **impacted by the change**" } else { "" }
        );
    }
    let pairs: Vec<_> =
        impact.pairs.iter().filter(|p| p.field.class == field.class && p.field.name == field.name).collect();
    if !pairs.is_empty() {
        let unprotected = pairs.iter().filter(|p| !p.protected).count();
        let _ = writeln!(md, "\n**Impacted pairs** ({}, {unprotected} unprotected):", pairs.len());
        for p in pairs.iter().take(8) {
            let _ = writeln!(
                md,
                "- {} {} in `{}()` (line {}) ↔ {} in `{}()` (line {}){}",
                p.kind.as_str(),
                p.a.access.as_str(),
                p.a.method,
                p.a.span.line,
                p.b.access.as_str(),
                p.b.method,
                p.b.span.line,
                if p.protected { " (protected)" } else { " — **unprotected**" }
            );
        }
        if pairs.len() > 8 {
            let _ = writeln!(md, "- … and {} more", pairs.len() - 8);
        }
    }
    md
}

fn type_text(t: &racelens_analysis::java::TypeRef) -> String {
    let args = if t.args.is_empty() {
        String::new()
    } else {
        format!("<{}>", t.args.iter().map(type_text).collect::<Vec<_>>().join(", "))
    };
    format!("{}{args}{}", t.name, "[]".repeat(t.array_dims as usize))
}

/// `read`, `write`, `update` (read and write at one place), with the collection method.
fn describe(list: &[&Access]) -> String {
    let reads = list.iter().any(|a| a.kind == AccessKind::Read);
    let writes = list.iter().any(|a| a.kind == AccessKind::Write);
    let kind = match (reads, writes) {
        (true, true) => "update",
        (false, true) => "write",
        _ => "read",
    };
    let element = if list.iter().any(|a| a.element) { " of an element" } else { "" };
    match list.iter().find_map(|a| a.via.as_ref()) {
        Some(m) => format!("{kind} by `{m}()`"),
        None => format!("{kind}{element}"),
    }
}

/// How many places, counting `x++` once.
fn places(accesses: &[Access]) -> usize {
    let mut seen: Vec<(FileId, u32, &str)> = accesses.iter().map(|a| (a.file, a.line, a.method.as_str())).collect();
    seen.sort();
    seen.dedup();
    seen.len()
}

/// `guarded by `lock` in 5 of 6 accesses; `reset()` writes it without the lock`.
fn verdict(accesses: &[Access]) -> String {
    let mut sites: Vec<(FileId, usize)> = accesses.iter().map(|a| (a.file, a.site)).collect();
    sites.sort();
    sites.dedup();
    let total = places(accesses);
    if total == 0 {
        return "no accesses found in the project".to_string();
    }
    let mut by_lock: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    let mut counted: Vec<(&str, FileId, u32, &str)> = Vec::new();
    for a in accesses {
        for (key, display) in &a.locks {
            if !counted.contains(&(key.as_str(), a.file, a.line, a.method.as_str())) {
                counted.push((key.as_str(), a.file, a.line, a.method.as_str()));
                by_lock.entry(key.as_str()).or_insert((0, display.as_str())).0 += 1;
            }
        }
    }
    let Some((key, (held, display))) = by_lock.iter().max_by_key(|(_, (n, _))| *n) else {
        return format!("no lock is held at any of its {total} accesses");
    };
    if *held == total {
        return format!("guarded by `{display}` in all {total} accesses");
    }
    // Who does without it, per method: writes first.
    let mut offenders: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
    for a in accesses.iter().filter(|a| !a.locks.iter().any(|(k, _)| k == key)) {
        let e = offenders.entry(a.method.rsplit('.').next().unwrap_or(&a.method)).or_default();
        match a.kind {
            AccessKind::Read => e.0 = true,
            AccessKind::Write => e.1 = true,
        }
    }
    let mut offenders: Vec<(bool, String)> = offenders
        .into_iter()
        .map(|(m, rw)| {
            let verb = match rw {
                (true, true) => "updates",
                (false, true) => "writes",
                _ => "reads",
            };
            (!rw.1, format!("`{m}()` {verb} it"))
        })
        .collect();
    offenders.sort();
    let offenders: Vec<String> = offenders.into_iter().take(2).map(|(_, o)| o).collect();
    format!("guarded by `{display}` in {held} of {total} accesses; {} without the lock", offenders.join(", "))
}
