//! Rendering an impact: compiler-style text for people, and the typed JSON report for
//! tools (`racelens_analysis::report`, the contract other parts and checks depend on).

use std::collections::BTreeSet;

use clap::ValueEnum;
use racelens_analysis::host::Host;
use racelens_analysis::impact::{Diagnostic, Impact, Pair, PairEnd, Severity};
use racelens_analysis::index::{FileId, Origin};
use racelens_analysis::java::Span;
use racelens_analysis::report::{
    BaseRevision, CheckReport, DiagnosticReport, FieldName, IcpReport, Level, LockReport, NoteReport, PairEndReport,
    PairReport, RelatedReport,
};

/// What `racelens check --show` adds to the warnings.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Show {
    /// impacted code points
    Icps,
    /// impacted shared-variable pairs
    Pairs,
    /// hints (RL100) on changed lines that impact shared fields
    Hints,
}

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

fn origin_path(host: &Host, origin: Option<Origin>) -> Option<String> {
    match origin {
        Some(Origin::Project(f)) => Some(host.path_of(f).to_string()),
        _ => None,
    }
}

fn level(s: Severity) -> Level {
    match s {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
        Severity::Information => Level::Info,
        Severity::Hint => Level::Hint,
    }
}

fn end_report(host: &Host, end: &PairEnd) -> PairEndReport {
    let (line, column) = position(host, end.file, end.span);
    PairEndReport {
        file: host.path_of(end.file).to_string(),
        line,
        column,
        method: end.method.clone(),
        access: end.access.as_str().to_string(),
        impacted: end.impacted,
        locks: end
            .locks
            .iter()
            .map(|l| LockReport { lock: l.display.clone(), id: l.key.clone(), read: l.shared })
            .collect(),
    }
}

fn pair_report(host: &Host, p: &Pair) -> PairReport {
    PairReport {
        field: FieldName { class: p.field.class.to_string(), name: p.field.display_name() },
        kind: p.kind.as_str().to_string(),
        impacted: p.impacted(),
        protected: p.protected,
        a: end_report(host, &p.a),
        b: end_report(host, &p.b),
    }
}

fn diagnostic_report(host: &Host, d: &Diagnostic) -> DiagnosticReport {
    let (line, column) = position(host, d.file, d.span);
    let related = d
        .related
        .iter()
        .map(|r| {
            let (line, column) = position(host, r.file, r.span);
            RelatedReport { file: host.path_of(r.file).to_string(), line, column, message: r.message.clone() }
        })
        .collect();
    DiagnosticReport {
        file: host.path_of(d.file).to_string(),
        line,
        column,
        end_line: d.span.end_line,
        severity: level(d.severity),
        code: d.code.to_string(),
        message: d.message.clone(),
        related,
    }
}

/// What `check --json` prints (`check.schema.json`).
pub fn json(host: &Host, impact: &Impact) -> CheckReport {
    let changed: BTreeSet<&str> = impact.impacted_lines.keys().map(|&f| host.path_of(f)).collect();
    CheckReport {
        root: host.root().display().to_string(),
        base: host.base().map(|b| BaseRevision { rev: b.rev.clone(), commit: b.commit.map(|c| c.to_string()) }),
        files: host.index().len(),
        changed_files: changed.into_iter().map(String::from).collect(),
        icps: impact
            .icps
            .iter()
            .map(|i| IcpReport {
                file: origin_path(host, i.origin),
                class: i.class.clone(),
                method: i.method.clone(),
                line: i.line,
                field: i.field.clone(),
                reason: i.reason.code().to_string(),
                detail: i.reason.describe(),
            })
            .collect(),
        pairs: impact.pairs.iter().map(|p| pair_report(host, p)).collect(),
        diagnostics: impact.diagnostics.iter().map(|d| diagnostic_report(host, d)).collect(),
        notes: host.notes().iter().map(|n| NoteReport { file: n.path.clone(), message: n.message.clone() }).collect(),
    }
}

pub fn text(host: &Host, impact: &Impact, show: &[Show]) -> String {
    let mut out = String::new();
    let show_hints = show.contains(&Show::Hints);
    for d in impact.diagnostics.iter().filter(|d| show_hints || d.severity != Severity::Hint) {
        let (line, column) = position(host, d.file, d.span);
        out +=
            &format!("{}:{line}:{column}: {}[{}]: {}\n", host.path_of(d.file), severity(d.severity), d.code, d.message);
        for r in &d.related {
            let (line, column) = position(host, r.file, r.span);
            out += &format!("    {}:{line}:{column}: note: {}\n", host.path_of(r.file), r.message);
        }
    }
    if show.contains(&Show::Icps) {
        out += "impacted code points:\n";
        for i in &impact.icps {
            let place = match (i.line, &i.field) {
                (Some(l), _) => format!("{}:{l}", origin_path(host, i.origin).as_deref().unwrap_or("?")),
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
