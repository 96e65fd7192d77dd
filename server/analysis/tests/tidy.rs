//! Tidiness of the Rust sources under `server/`, checked by the test command:
//!
//! - the import graph of every crate has no circle: within a crate, no module reaches itself
//!   through the `crate::…` and `super::…` paths of the modules it uses. A circle means two
//!   modules that cannot be read, tested or moved one without the other; the cure is to move
//!   the shared piece to a module both depend on, or to invert the call. A module's own
//!   children and its ancestors are not edges (a parent declares its children, and children
//!   may use what their parent defines);
//! - every file starts with a module doc (`//!`) saying what it is for;
//! - no file includes another by `#[path]`: what tests and benchmarks share is the crate
//!   `racelens-test-support`;
//! - the workspace is formatted as `rustfmt.toml` says (`cargo fmt --all --check`), so that a
//!   diff shows what changed and not how someone's editor wraps lines;
//! - every relative link of the Markdown documents reaches a file, and its `#anchor` a
//!   heading of that file (GitHub's anchors), so that the manual's pages cannot drift apart.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `a/b.rs` and `a/b/mod.rs` are `a::b`; `lib.rs` and `main.rs` are the crate root (``).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments and without its `#[cfg(test)] mod tests`.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The module paths a file names after `prefix` (`crate::` or `super::`), groups
/// (`crate::a::{b, c::d}`) expanded one level.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        if code[..i].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        let path: String = rest.chars().take_while(|c| ident(*c)).collect();
        let path = path.trim_end_matches(':').to_string();
        let after = &rest[rest.chars().take_while(|c| ident(*c)).map(char::len_utf8).sum::<usize>()..];
        if let Some(group) = after.strip_prefix('{').and_then(|g| g.split('}').next()) {
            for item in group.split(',') {
                let item: String = item.trim().chars().take_while(|c| ident(*c)).collect();
                if !item.is_empty() && item != "self" {
                    out.push(if path.is_empty() { item } else { format!("{path}::{item}") });
                }
            }
        }
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

/// The longest prefix of `path` that is a module of the crate.
fn resolve<'m>(modules: &'m BTreeSet<String>, path: &str) -> Option<&'m String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len()).rev().find_map(|k| modules.get(&parts[..k].join("::")))
}

fn related(a: &str, b: &str) -> bool {
    a == b || a.is_empty() || b.is_empty() || a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"))
}

/// Each circle of a graph, as the modules on it (Tarjan's strongly connected components).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        edges: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in &s.edges[v] {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// Every Rust file under `server/` (build output left out).
fn server_files() -> Vec<PathBuf> {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&server).unwrap().flatten() {
        for part in ["src", "tests", "benches"] {
            let dir = entry.path().join(part);
            if dir.is_dir() {
                rust_files(&dir, &mut out);
            }
        }
    }
    out
}

#[test]
fn every_rust_file_starts_with_a_module_doc_and_none_includes_another_by_path() {
    let files = server_files();
    assert!(files.len() > 100, "the sources under server/ were not found");
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        if !text.starts_with("//!") {
            problems.push(format!("{}: no module doc (`//!`) on its first line", f.display()));
        }
        if text.lines().any(|l| l.trim_start().starts_with("#[path")) {
            problems.push(format!(
                "{}: includes a file by `#[path]` (share it through racelens-test-support)",
                f.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_workspace_is_formatted_as_rustfmt_toml_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["fmt", "--all", "--check"])
        .current_dir(&root)
        .output()
        .expect("cargo fmt could not be started");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("no such command") && !stderr.contains("not installed"),
        "rustfmt is missing (`rustup component add rustfmt`; .ci/setup installs it): {stderr}"
    );
    assert!(
        out.status.success(),
        "the sources are not formatted; run `cargo fmt --all`:\n{}{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn no_crate_under_server_has_a_circle_of_imports() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut crates = 0;
    for entry in std::fs::read_dir(&server).unwrap().flatten() {
        let src = entry.path().join("src");
        if !src.is_dir() {
            continue;
        }
        crates += 1;
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let texts: BTreeMap<String, String> =
            files.iter().map(|f| (module_of(&src, f), code(&std::fs::read_to_string(f).unwrap()))).collect();
        let modules: BTreeSet<String> = texts.keys().cloned().collect();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, text) in &texts {
            let parent = m.rsplit_once("::").map_or("", |(p, _)| p);
            let named =
                paths_after(text, "crate::").into_iter().chain(paths_after(text, "super::").into_iter().map(|p| {
                    if parent.is_empty() {
                        p
                    } else {
                        format!("{parent}::{p}")
                    }
                }));
            let targets = named.filter_map(|p| resolve(&modules, &p)).filter(|t| !related(m, t)).cloned().collect();
            edges.insert(m.clone(), targets);
        }
        for circle in circles(&edges) {
            found.push(format!("{}: {}", entry.file_name().to_string_lossy(), circle.join(" ↔ ")));
        }
    }
    assert!(crates >= 4, "the crates under server/ were not found");
    assert!(found.is_empty(), "circles of imports:\n{}", found.join("\n"));
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let edge = |a: &str, b: &[&str]| (a.to_string(), b.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>());
    let graph: BTreeMap<String, BTreeSet<String>> =
        [edge("a", &["b"]), edge("b", &["c"]), edge("c", &["a"]), edge("d", &["a"])].into_iter().collect();
    assert_eq!(circles(&graph), vec![vec!["a".to_string(), "b".into(), "c".into()]]);
    let text = "use crate::x::{y, z::w};\nlet v = super::q::r();";
    assert_eq!(paths_after(text, "crate::"), vec!["x::y", "x::z::w", "x"]);
    assert_eq!(paths_after(text, "super::"), vec!["q::r"]);
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to `-`.
fn anchor_of(heading: &str) -> String {
    let text = heading.trim_start_matches('#').trim().to_lowercase();
    text.chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (outside fenced code).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(anchor_of(line));
        }
    }
    out
}

/// The Markdown files of the repository (build output and installed packages left out).
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | "node_modules" | ".git" | "build" | "out") {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

#[test]
fn every_relative_link_of_the_docs_reaches_its_file_and_heading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    assert!(files.iter().any(|f| f.ends_with("server/docs/manual/README.md")), "the manual was not found");
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, _) in text.match_indices("](") {
            let target: String = text[i + 2..].chars().take_while(|c| *c != ')' && !c.is_whitespace()).collect();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let reached = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            let shown = file.strip_prefix(&root).unwrap_or(file).display();
            if !reached.exists() {
                broken.push(format!("{shown}: `{target}`: no such file"));
            } else if !anchor.is_empty() && reached.extension().is_some_and(|e| e == "md") {
                if !anchors(&std::fs::read_to_string(&reached).unwrap()).contains(anchor) {
                    broken.push(format!("{shown}: `{target}`: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links in the docs:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_githubs() {
    assert_eq!(
        anchor_of("## CI at scale: `--shard I/N` and `racelens merge`"),
        "ci-at-scale---shard-in-and-racelens-merge"
    );
    assert_eq!(anchor_of("### SARIF / GitHub code scanning"), "sarif--github-code-scanning");
}
