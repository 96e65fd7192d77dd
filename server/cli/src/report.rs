//! Rendering an impact: compiler-style text for people, JSON for tools (the contract
//! other parts and checks depend on).

use std::collections::BTreeSet;

use racelens_analysis::host::Host;
use racelens_analysis::impact::{Diagnostic, Impact, Pair, PairEnd, Severity};
use racelens_analysis::index::{FileId, Origin};
use racelens_analysis::java::Span;
use serde_json::{json, Value};

use crate::check::Show;

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information => "info",
        Severity::Hint => "hint",
    }
}

/// 1-based line and character column of a span's start.
pub(crate) fn position(host: &Host, file: FileId, span: Span) -> (u32, u32) {
    match host.index().entry(file) {
        Some(e) => (span.line, e.facts.lines.char_column(span.start, &e.facts.text)),
        None => (span.line, 1),
    }
}

/// 1-based line and character column just past a span's end.
pub(crate) fn end_position(host: &Host, file: FileId, span: Span) -> (u32, u32) {
    match host.index().entry(file) {
        Some(e) => (span.end_line, e.facts.lines.char_column(span.end, &e.facts.text)),
        None => (span.end_line, 1),
    }
}

fn origin_path(host: &Host, origin: Option<Origin>) -> Value {
    match origin {
        Some(Origin::Project(f)) => json!(host.path_of(f)),
        _ => Value::Null,
    }
}

/// `{file, line, column}` of a place, plus `extra` fields.
fn place_json(host: &Host, file: FileId, span: Span, extra: Value) -> Value {
    let (line, column) = position(host, file, span);
    let mut v = json!({"file": host.path_of(file), "line": line, "column": column});
    if let (Some(obj), Value::Object(more)) = (v.as_object_mut(), extra) {
        obj.extend(more);
    }
    v
}

fn end_json(host: &Host, end: &PairEnd) -> Value {
    let locks: Vec<Value> = end.locks.iter().map(|l| json!({"lock": l.display, "id": l.key, "read": l.shared})).collect();
    place_json(host, end.file, end.span, json!({"method": end.method, "access": end.access.as_str(), "impacted": end.impacted, "locks": locks}))
}

fn pair_json(host: &Host, p: &Pair) -> Value {
    json!({
        "field": {"class": &*p.field.class, "name": p.field.display_name()},
        "kind": p.kind.as_str(),
        "impacted": p.impacted(),
        "protected": p.protected,
        "a": end_json(host, &p.a),
        "b": end_json(host, &p.b),
    })
}

fn diagnostic_json(host: &Host, d: &Diagnostic) -> Value {
    let related: Vec<Value> = d.related.iter().map(|r| place_json(host, r.file, r.span, json!({"message": r.message}))).collect();
    place_json(
        host,
        d.file,
        d.span,
        json!({
            "end_line": d.span.end_line,
            "severity": severity(d.severity),
            "code": d.code,
            "message": d.message,
            "related": related,
        }),
    )
}

pub fn json(host: &Host, impact: &Impact) -> Value {
    let changed: BTreeSet<&str> = impact.impacted_lines.keys().map(|&f| host.path_of(f)).collect();
    json!({
        "root": host.root().display().to_string(),
        "base": host.base().map(|b| json!({"rev": b.rev, "commit": b.commit.map(|c| c.to_string())})),
        "files": host.index().len(),
        "changed_files": changed,
        "icps": impact.icps.iter().map(|i| json!({
            "file": origin_path(host, i.origin),
            "class": i.class,
            "method": i.method,
            "line": i.line,
            "field": i.field,
            "reason": i.reason.code(),
            "detail": i.reason.describe(),
        })).collect::<Vec<_>>(),
        "pairs": impact.pairs.iter().map(|p| pair_json(host, p)).collect::<Vec<_>>(),
        "diagnostics": impact.diagnostics.iter().map(|d| diagnostic_json(host, d)).collect::<Vec<_>>(),
        "notes": host.notes().iter().map(|n| json!({"file": n.path, "message": n.message})).collect::<Vec<_>>(),
    })
}

pub fn text(host: &Host, impact: &Impact, show: &[Show]) -> String {
    let mut out = String::new();
    let show_hints = show.contains(&Show::Hints);
    for d in impact.diagnostics.iter().filter(|d| show_hints || d.severity != Severity::Hint) {
        let (line, column) = position(host, d.file, d.span);
        out += &format!("{}:{line}:{column}: {}[{}]: {}\n", host.path_of(d.file), severity(d.severity), d.code, d.message);
        for r in &d.related {
            let (line, column) = position(host, r.file, r.span);
            out += &format!("    {}:{line}:{column}: note: {}\n", host.path_of(r.file), r.message);
        }
    }
    if show.contains(&Show::Icps) {
        out += "impacted code points:\n";
        for i in &impact.icps {
            let place = match (i.line, &i.field) {
                (Some(l), _) => format!("{}:{l}", origin_path(host, i.origin).as_str().unwrap_or("?")),
                (None, Some(f)) => format!("field {f}"),
                _ => String::new(),
            };
            out += &format!(
                "  <{}, {}, {}, {}>  {place}  ({})\n",
                i.class.as_deref().unwrap_or("_"),
                i.method.as_deref().unwrap_or("_"),
                i.line.map_or("_".into(), |l| l.to_string()),
                i.field.as_deref().unwrap_or("_"),
                i.reason.describe()
            );
        }
    }
    if show.contains(&Show::Pairs) {
        out += "impacted pairs:\n";
        for p in &impact.pairs {
            let end = |e: &PairEnd| {
                let locks: Vec<&str> = e.locks.iter().map(|l| l.display.as_str()).collect();
                format!(
                    "{} {}:{} in {}() [{}]{}",
                    e.access.as_str(),
                    host.path_of(e.file),
                    e.span.line,
                    e.method,
                    locks.join(", "),
                    if e.impacted { " *" } else { "" }
                )
            };
            out += &format!(
                "  {} {}.{}  {}  <->  {}{}\n",
                p.kind.as_str(),
                p.field.short_class(),
                p.field.display_name(),
                end(&p.a),
                end(&p.b),
                if p.protected { "  (protected)" } else { "" }
            );
        }
    }
    let warnings = impact.diagnostics.iter().filter(|d| d.severity <= Severity::Warning).count();
    let line_icps = impact.icps.iter().filter(|i| i.line.is_some()).count();
    let field_icps = impact.icps.len() - line_icps;
    let jdk_fields = impact.icps.iter().filter(|i| i.line.is_none() && i.origin.is_none()).count();
    let jdk_note = if jdk_fields > 0 { format!(" ({jdk_fields} in the JDK)") } else { String::new() };
    let unprotected = impact.pairs.iter().filter(|p| !p.protected && matches!(p.kind.as_str(), "RW" | "WW")).count();
    out += &format!(
        "racelens: {warnings} warning{} · {line_icps} impacted lines and {field_icps} impacted fields{jdk_note} in {} changed file{} · {} impacted pair{} on {} shared variable{} ({unprotected} unprotected data pair{})\n",
        plural(warnings),
        impact.impacted_lines.len(),
        plural(impact.impacted_lines.len()),
        impact.pairs.len(),
        plural(impact.pairs.len()),
        impact.impacted_fields.len(),
        plural(impact.impacted_fields.len()),
        plural(unprotected),
    );
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
