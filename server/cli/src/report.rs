//! Rendering an impact as compiler-style text for people. The typed JSON report for tools is
//! `racelens_analysis::report::check_report` (the contract other parts and checks depend on).

use clap::ValueEnum;
use racelens_analysis::host::Host;
use racelens_analysis::impact::{Impact, PairEnd, Severity};
use racelens_analysis::report::{origin_path, position};

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

/// The `check` report for people: the warnings (and what `show` adds), then a summary line.
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
