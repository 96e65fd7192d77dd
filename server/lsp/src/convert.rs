//! The analysis' diagnostics as LSP diagnostics, grouped by file URI.

use std::collections::BTreeMap;
use std::path::Path;

use racelens_analysis::impact::{self, Impact, Severity};
use racelens_analysis::index::{FileId, ProjectIndex};
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range, Uri,
};

use crate::positions::{range, Encoding};

/// The `source` of our diagnostics.
pub const SOURCE: &str = "racelens";

pub fn file_uri(root: &Path, rel: &str) -> Option<Uri> {
    Uri::from_file_path(root.join(rel))
}

/// The `racelens:` document explaining a code.
pub fn code_uri(code: &str) -> Option<Uri> {
    format!("racelens:/codes/{code}").parse().ok()
}

fn location(
    index: &ProjectIndex,
    root: &Path,
    file: FileId,
    span: racelens_analysis::java::Span,
    encoding: Encoding,
) -> Option<(Uri, Range)> {
    let entry = index.entry(file)?;
    Some((file_uri(root, &entry.path)?, range(&entry.facts, span, encoding)))
}

/// Diagnostics per file. Hints (RL100) only when `hints`.
pub fn diagnostics(
    index: &ProjectIndex,
    root: &Path,
    impact: &Impact,
    encoding: Encoding,
    hints: bool,
) -> BTreeMap<Uri, Vec<Diagnostic>> {
    let mut out: BTreeMap<Uri, Vec<Diagnostic>> = BTreeMap::new();
    for d in impact.diagnostics.iter().filter(|d| shown(d, hints)) {
        if let Some((uri, diagnostic)) = diagnostic(index, root, d, encoding) {
            out.entry(uri).or_default().push(diagnostic);
        }
    }
    out
}

/// The diagnostics of one file, as [`diagnostics`] lists them for it.
pub fn file_diagnostics(
    index: &ProjectIndex,
    root: &Path,
    impact: &Impact,
    file: FileId,
    encoding: Encoding,
    hints: bool,
) -> Vec<Diagnostic> {
    let of_file = impact.diagnostics.iter().filter(|d| d.file == file && shown(d, hints));
    of_file.filter_map(|d| diagnostic(index, root, d, encoding)).map(|(_, d)| d).collect()
}

/// Whether a diagnostic of the analysis is published: hints (RL100) only when `hints`.
pub fn shown(d: &impact::Diagnostic, hints: bool) -> bool {
    d.severity != Severity::Hint || hints
}

/// One diagnostic of the analysis as published, with the URI of its file.
pub fn diagnostic(
    index: &ProjectIndex,
    root: &Path,
    d: &impact::Diagnostic,
    encoding: Encoding,
) -> Option<(Uri, Diagnostic)> {
    let (uri, range) = location(index, root, d.file, d.span, encoding)?;
    let related = d
        .related
        .iter()
        .filter_map(|r| {
            let (uri, range) = location(index, root, r.file, r.span, encoding)?;
            Some(DiagnosticRelatedInformation { location: Location { uri, range }, message: r.message.clone() })
        })
        .collect::<Vec<_>>();
    let severity = match d.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Information => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    };
    let diagnostic = Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: code_uri(d.code).map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_string()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    };
    Some((uri, diagnostic))
}
