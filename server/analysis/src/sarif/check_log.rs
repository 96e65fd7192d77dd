//! `racelens check --format sarif`: the analysis' diagnostics as a SARIF 2.1.0 log, built from
//! the typed structs of [`crate::sarif`] (where the rules the logs keep to are written down).
//! An exploration's log is `racelens_explore::exploration::sarif`.

use super::{check_rules, notes, Finding, Fingerprints, Level, Location, Log, Region, Run};
use crate::host::Host;
use crate::impact::{Diagnostic, Impact, Severity};
use crate::index::FileId;
use crate::java::Span;
use crate::report::{end_position, position};

/// The SARIF level of a diagnostic's severity (hints are notes).
fn level(severity: Severity) -> Level {
    match severity {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
        Severity::Information | Severity::Hint => Level::Note,
    }
}

/// `check`'s log: a result per diagnostic (hints, RL100, only when `hints`), with its
/// related information as related locations.
pub fn check(host: &Host, impact: &Impact, hints: bool) -> Log<()> {
    let mut fingerprints = Fingerprints::default();
    let results = impact
        .diagnostics
        .iter()
        .filter(|d| hints || d.severity != Severity::Hint)
        .map(|d| {
            let method = method_at(host, d.file, d.span);
            let mut location = Location::file(host.path_of(d.file), Some(span_region(host, d.file, d.span)));
            if let Some(m) = &method {
                location = location.method(m.clone());
            }
            let related = d
                .related
                .iter()
                .map(|r| {
                    Location::file(host.path_of(r.file), Some(span_region(host, r.file, r.span))).message(&r.message)
                })
                .collect();
            let finding = Finding::new(d.code, level(d.severity), &d.message, Some(location)).related(related);
            fingerprints
                .give(finding, &[host.path_of(d.file), method.as_deref().unwrap_or(""), subject(host, d).as_str()])
        })
        .collect();
    Log::of(Run::new(host.root(), &check_rules(), results).invocation(0, notes(host)))
}

/// `pkg.Outer$Inner.method` around a span, if it is in a method.
fn method_at(host: &Host, file: FileId, span: Span) -> Option<String> {
    let facts = &host.index().entry(file)?.facts;
    let m = &facts.methods[facts.method_at(span.start)? as usize];
    Some(format!("{}.{}", facts.classes[m.class as usize].binary_name, m.name))
}

/// The code a diagnostic stands on, with its spacing evened out: with its method, what
/// tells it from the method's other results without naming a line.
fn subject(host: &Host, d: &Diagnostic) -> String {
    let Some(entry) = host.index().entry(d.file) else { return String::new() };
    let text = entry.facts.text.get(d.span.start as usize..d.span.end as usize).unwrap_or("");
    text.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(200).collect()
}

/// The characters of `span` in `file`.
fn span_region(host: &Host, file: FileId, span: Span) -> Region {
    Region::range(position(host, file, span), end_position(host, file, span))
}
