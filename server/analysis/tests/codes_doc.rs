//! The reference of the warning codes, `server/docs/codes.md`, is generated from
//! `racelens_analysis::impact::codes::CODES`, the texts `racelens check --help`, the language
//! server's `racelens:/codes/` documents and the SARIF rules read: this test renders them
//! and fails when the committed file differs.
//!
//! After changing a code's text, regenerate the file with
//! `UPDATE_CODES_DOC=1 cargo test -p racelens-analysis --test codes_doc`.

use std::path::{Path, PathBuf};

use racelens_analysis::impact::codes::{Code, CODES};

const COMMAND: &str = "UPDATE_CODES_DOC=1 cargo test -p racelens-analysis --test codes_doc";

fn doc_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("docs/codes.md")
}

/// The GitHub anchor of a heading: lower case, spaces to `-`, punctuation other than `-`
/// and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn heading(code: &Code) -> String {
    format!("{}: {}", code.code, code.title)
}

fn render(codes: &[Code]) -> String {
    let mut out = String::new();
    out.push_str("# Warning codes\n\n");
    out.push_str(&format!(
        "<!-- Generated from server/analysis/src/impact/codes.rs by `{COMMAND}`: edit the texts there, not here. -->\n\n"
    ));
    out.push_str(
        "Every code racelens reports, with the text that `racelens check --help`, the language \
server's `racelens:/codes/` documents and the rules of the SARIF logs carry. RL001 to RL010 are \
warnings of `racelens check` and the editor, RL100 a hint (`--show hints`), RL200 to RL202 the \
results of an exploration, RL210 a hint of a test's dynamic change impact. \
`@SuppressWarnings(\"racelens\")` (or `\"racelens:RL001\"`) silences a warning. What each analysis \
computes is in the [manual](manual/check.md#what-it-computes); how well the warnings do, in the \
[evaluation](evaluation.md#how-well-the-warnings-do).\n\n",
    );
    out.push_str("| code | name | what |\n|---|---|---|\n");
    for code in codes {
        out.push_str(&format!("| [{}](#{}) | `{}` | {} |\n", code.code, anchor(&heading(code)), code.name, code.title));
    }
    for code in codes {
        out.push_str(&format!("\n## {}\n\n`{}`\n\n{}\n", heading(code), code.name, code.explanation.trim_end()));
    }
    out
}

#[test]
fn codes_doc_is_the_generated_one() {
    let generated = render(CODES);
    let path = doc_path();
    if std::env::var_os("UPDATE_CODES_DOC").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| committed.lines().count().min(generated.lines().count()) + 1, |i| i + 1);
        panic!("{} differs from the codes in codes.rs (first at line {line}); run `{COMMAND}`", path.display());
    }
}

#[test]
fn every_code_has_one_section() {
    let generated = render(CODES);
    for code in CODES {
        assert_eq!(generated.matches(&format!("\n## {}:", code.code)).count(), 1, "{}", code.code);
    }
}
