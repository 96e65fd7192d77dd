//! The evaluation corpus of the static warnings (tests/corpus, described in its README):
//! four small concurrent Java projects, correct in their base version, and cases that
//! each edit one of them: regressions a reviewer would call bugs, and benign changes.
//!
//! Every case is analysed as a real change (the project committed, the edit in the work
//! tree). A regression is caught when a warning stands on one of the lines its `expect:`
//! anchors name; a benign case is quiet when there is no warning at all. The test prints
//! one line per case, the recall per kind and the totals, and holds the analysis to its
//! targets when `TARGETS_ENFORCED` is set.
//!
//! There are two sets of cases. `tests/corpus/cases/` is the training set: the detectors
//! were tuned on it, so its score is a training score, and the targets apply to it.
//! `tests/corpus/held-out/` is the held-out set, which nobody tunes on: it is reported in a
//! table and totals of its own, labelled as such, and only checked for being well formed and
//! large enough; its recall and its noise are a measurement, never asserted.

use racelens_test_support as support;

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use racelens_analysis::impact::Severity;
use support::*;

/// Whether the recall and quiet-benign targets below are asserted. They are the goal the
/// detectors are being built towards; the test fails until they meet it.
const TARGETS_ENFORCED: bool = true;
/// Share of the regressions that must be caught.
const RECALL_TARGET: f64 = 0.90;

/// The kinds of regression, in the order of the summary.
const KINDS: [&str; 6] = ["split-section", "lock-order", "lost-wakeup", "check-then-act", "publication", "data-race"];
const BENIGN: &str = "benign";

/// The folders of `tests/corpus` that hold cases: the training set (tuned on, targets
/// enforced) and the held-out set (never tuned on, only measured).
const TRAINING_DIR: &str = "cases";
const HELD_OUT_DIR: &str = "held-out";
const HELD_OUT_LABEL: &str = "held-out (not used for tuning)";

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

struct Case {
    id: String,
    project: String,
    kind: String,
    expects: Vec<Expect>,
    edits: Vec<Edit>,
}

/// A line of the changed file: the one line that contains `needle`.
struct Expect {
    path: String,
    needle: String,
}

/// Replace the one occurrence of `old` in `path` by `new`.
struct Edit {
    path: String,
    old: String,
    new: String,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Warning {
    path: String,
    line: u32,
    code: String,
}

struct Outcome {
    /// The lines the anchors matched, as (path, 1-based line).
    expected: Vec<(String, u32)>,
    warnings: Vec<Warning>,
}

impl Outcome {
    fn caught(&self) -> bool {
        self.warnings.iter().any(|w| self.expected.iter().any(|(path, line)| *path == w.path && *line == w.line))
    }

    fn on_expected_line(&self) -> usize {
        self.warnings
            .iter()
            .filter(|w| self.expected.iter().any(|(path, line)| *path == w.path && *line == w.line))
            .count()
    }
}

fn parse_case(id: &str, text: &str) -> Result<Case, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let (mut project, mut kind, mut summary) = (None, None, None);
    let mut expects = Vec::new();
    while i < lines.len() && !lines[i].starts_with("--- edit ") {
        let line = lines[i];
        i += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some((key, value)) =
            line.split_once(':').filter(|(key, _)| !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase()))
        else {
            return Err(format!("line {i}: not a `key: value` header line: {line}"));
        };
        let value = value.trim().to_string();
        match key {
            "project" => project = Some(value),
            "kind" => kind = Some(value),
            "summary" => summary = Some(value),
            "expect" => {
                let Some((path, needle)) = value
                    .split_once(": ")
                    .filter(|(path, needle)| !path.contains(char::is_whitespace) && !needle.trim().is_empty())
                else {
                    return Err(format!("line {i}: an expect line is `expect: PATH: TEXT`: {line}"));
                };
                expects.push(Expect { path: path.to_string(), needle: needle.trim().to_string() });
            }
            _ => return Err(format!("line {i}: unknown key `{key}`")),
        }
    }
    let project = project.ok_or("no `project:` line")?;
    let kind = kind.ok_or("no `kind:` line")?;
    summary.filter(|s| !s.is_empty()).ok_or("no `summary:` line")?;
    if kind != BENIGN && !KINDS.contains(&kind.as_str()) {
        return Err(format!("unknown kind `{kind}` (one of {} or {BENIGN})", KINDS.join(", ")));
    }
    if kind == BENIGN && !expects.is_empty() {
        return Err("a benign case has no expect lines".into());
    }
    if kind != BENIGN && expects.is_empty() {
        return Err("a regression needs at least one expect line".into());
    }

    let mut edits = Vec::new();
    let mut path: Option<String> = None;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if let Some(p) = line.strip_prefix("--- edit ") {
            path = Some(p.trim().to_string());
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let (true, Some(path)) = (line == "<<<", &path) else {
            return Err(format!("line {i}: expected `<<<` after a `--- edit PATH` line, found: {line}"));
        };
        let mut block = |end: &str| -> Result<String, String> {
            let mut text = String::new();
            while i < lines.len() && lines[i] != end {
                text.push_str(lines[i]);
                text.push('\n');
                i += 1;
            }
            if i == lines.len() {
                return Err(format!("unterminated edit of {path}: no `{end}`"));
            }
            i += 1;
            Ok(text)
        };
        let old = block("===")?;
        let new = block(">>>")?;
        if old.is_empty() {
            return Err(format!("an edit of {path} has an empty old text"));
        }
        edits.push(Edit { path: path.clone(), old, new });
    }
    if edits.is_empty() {
        return Err("no edits".into());
    }
    Ok(Case { id: id.to_string(), project, kind, expects, edits })
}

fn load_cases(folder: &str) -> Vec<Result<Case, String>> {
    let dir = corpus_dir().join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "case"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|file| {
            let id = file.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(file).map_err(|e| format!("{id}: {e}"))?;
            parse_case(&id, &text).map_err(|e| format!("{id}: {e}"))
        })
        .collect()
}

/// Applies the edits to the work tree in `dir`; returns the lines the anchors match.
fn apply(case: &Case, dir: &Path) -> Result<Vec<(String, u32)>, String> {
    for edit in &case.edits {
        let file = dir.join(&edit.path);
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", edit.path))?;
        let found: Vec<usize> =
            (0..text.len()).filter(|&at| text.is_char_boundary(at) && text[at..].starts_with(&edit.old)).collect();
        let [at] = found[..] else {
            return Err(format!(
                "the old text occurs {} times in {} (must be once):\n{}",
                found.len(),
                edit.path,
                edit.old
            ));
        };
        let changed = format!("{}{}{}", &text[..at], edit.new, &text[at + edit.old.len()..]);
        std::fs::write(&file, changed).map_err(|e| format!("{}: {e}", edit.path))?;
    }
    let mut expected = Vec::new();
    for expect in &case.expects {
        let text =
            std::fs::read_to_string(dir.join(&expect.path)).map_err(|e| format!("expect {}: {e}", expect.path))?;
        let lines: Vec<u32> =
            text.lines().enumerate().filter(|(_, l)| l.contains(&expect.needle)).map(|(n, _)| n as u32 + 1).collect();
        let [line] = lines[..] else {
            return Err(format!(
                "the anchor `{}` matches {} lines of {} (must be one)",
                expect.needle,
                lines.len(),
                expect.path
            ));
        };
        expected.push((expect.path.clone(), line));
    }
    Ok(expected)
}

fn run_case(case: &Case) -> Result<Outcome, String> {
    let project = corpus_dir().join("projects").join(&case.project);
    if !project.is_dir() {
        return Err(format!("no project `{}`", case.project));
    }
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&project, repo.path());
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "base"]);
    let expected = apply(case, repo.path())?;
    let (host, impact) =
        catch_unwind(AssertUnwindSafe(|| analyze(repo.path()))).map_err(|_| "the analysis panicked".to_string())?;
    let mut warnings: Vec<Warning> = impact
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning && d.code != "RL100")
        .map(|d| Warning { path: host.path_of(d.file).to_string(), line: d.span.line, code: d.code.to_string() })
        .collect();
    warnings.sort();
    warnings.dedup();
    Ok(Outcome { expected, warnings })
}

/// Runs the cases on all cores; the results in the order of `cases`.
fn run_all(cases: &[&Case]) -> Vec<Result<Outcome, String>> {
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<Outcome, String>>>> = cases.iter().map(|_| Mutex::new(None)).collect();
    let workers = std::thread::available_parallelism().map_or(4, |n| n.get()).min(cases.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                *results[i].lock().unwrap() = Some(run_case(case));
            });
        }
    });
    results.into_iter().map(|r| r.into_inner().unwrap().unwrap()).collect()
}

fn short(w: &Warning) -> String {
    format!("{}:{} {}", w.path.rsplit('/').next().unwrap(), w.line, w.code)
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.0}%", 100.0 * part as f64 / whole as f64)
    }
}

/// What one set of cases scored.
#[derive(Default)]
struct Score {
    /// kind -> (cases, caught or quiet)
    per_kind: BTreeMap<String, (usize, usize)>,
    regressions: usize,
    caught: usize,
    benign: usize,
    quiet: usize,
    missed: Vec<String>,
    noisy: Vec<String>,
}

impl Score {
    fn cases_of(&self, kind: &str) -> usize {
        self.per_kind.get(kind).map_or(0, |k| k.0)
    }
}

/// Prints the table of one set of cases and its totals; adds the cases that could not be
/// applied or analysed to `errors`.
fn report(label: &str, cases: &[&Case], outcomes: &[Result<Outcome, String>], errors: &mut Vec<String>) -> Score {
    let mut score = Score::default();
    let (mut warnings_total, mut warnings_on_target, mut warnings_benign) = (0, 0, 0);
    println!("\n== {label}: {} cases ==", cases.len());
    println!("{:<8} {:<15} {:<40} warnings", "result", "kind", "case");
    for (case, outcome) in cases.iter().zip(outcomes) {
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                println!("{:<8} {:<15} {:<40} {e}", "ERROR", case.kind, case.id);
                errors.push(format!("{}: {e}", case.id));
                continue;
            }
        };
        let entry = score.per_kind.entry(case.kind.clone()).or_default();
        entry.0 += 1;
        warnings_total += outcome.warnings.len();
        let listed = |ws: &[Warning]| {
            if ws.is_empty() {
                "no warnings".to_string()
            } else {
                ws.iter().map(short).collect::<Vec<_>>().join(", ")
            }
        };
        let expected = || {
            outcome
                .expected
                .iter()
                .map(|(p, l)| format!("{}:{l}", p.rsplit('/').next().unwrap()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        if case.kind == BENIGN {
            warnings_benign += outcome.warnings.len();
            if outcome.warnings.is_empty() {
                entry.1 += 1;
                println!("{:<8} {:<15} {:<40}", "quiet", case.kind, case.id);
            } else {
                score.noisy.push(case.id.clone());
                println!(
                    "{:<8} {:<15} {:<40} {} warnings: {}",
                    "NOISY",
                    case.kind,
                    case.id,
                    outcome.warnings.len(),
                    listed(&outcome.warnings)
                );
            }
        } else {
            warnings_on_target += outcome.on_expected_line();
            if outcome.caught() {
                entry.1 += 1;
                let (hits, others): (Vec<Warning>, Vec<Warning>) = outcome
                    .warnings
                    .iter()
                    .cloned()
                    .partition(|w| outcome.expected.iter().any(|(p, l)| *p == w.path && *l == w.line));
                let elsewhere =
                    if others.is_empty() { String::new() } else { format!("; elsewhere: {}", listed(&others)) };
                println!("{:<8} {:<15} {:<40} {}{elsewhere}", "caught", case.kind, case.id, listed(&hits));
            } else {
                score.missed.push(case.id.clone());
                println!(
                    "{:<8} {:<15} {:<40} {} (expected {})",
                    "MISSED",
                    case.kind,
                    case.id,
                    listed(&outcome.warnings),
                    expected()
                );
            }
        }
    }

    println!("\n{label}:");
    for kind in KINDS {
        let (n, c) = score.per_kind.get(kind).copied().unwrap_or_default();
        score.regressions += n;
        score.caught += c;
        println!("{kind:<15} {c:>2}/{n:<2} caught ({})", percent(c, n));
    }
    (score.benign, score.quiet) = score.per_kind.get(BENIGN).copied().unwrap_or_default();
    println!(
        "regressions: {}/{} caught ({})",
        score.caught,
        score.regressions,
        percent(score.caught, score.regressions)
    );
    println!("benign: {}/{} quiet ({} warnings in the others)", score.quiet, score.benign, warnings_benign);
    println!(
        "warnings: {warnings_total} in all, {warnings_on_target} on an expected line of a regression (precision {})",
        percent(warnings_on_target, warnings_total)
    );
    score
}

#[test]
fn corpus_recall_and_quiet_benign_changes() {
    let started = Instant::now();
    let readme = std::fs::read_to_string(corpus_dir().join("README.md")).unwrap_or_default();
    let mut errors: Vec<String> = Vec::new();
    let mut sets: Vec<(&str, Vec<Case>)> = Vec::new();
    for folder in [TRAINING_DIR, HELD_OUT_DIR] {
        let mut cases = Vec::new();
        for loaded in load_cases(folder) {
            match loaded {
                Ok(case) => cases.push(case),
                Err(e) => errors.push(format!("{folder}/{e}")),
            }
        }
        errors.extend(
            cases
                .iter()
                .filter(|c| !readme.contains(&format!("| `{}` |", c.id)))
                .map(|c| format!("{}: not listed in tests/corpus/README.md", c.id)),
        );
        sets.push((folder, cases));
    }
    let training_ids: Vec<&str> = sets[0].1.iter().map(|c| c.id.as_str()).collect();
    errors.extend(
        sets[1]
            .1
            .iter()
            .filter(|c| training_ids.contains(&c.id.as_str()))
            .map(|c| format!("{}: both a training and a held-out case", c.id)),
    );

    // Both sets on all cores at once, then reported one after the other.
    let all: Vec<&Case> = sets.iter().flat_map(|(_, cases)| cases.iter()).collect();
    let mut outcomes = run_all(&all);
    let held_out_outcomes = outcomes.split_off(sets[0].1.len());
    let training_cases: Vec<&Case> = sets[0].1.iter().collect();
    let held_out_cases: Vec<&Case> = sets[1].1.iter().collect();
    let training =
        report("training (cases/, used while tuning the detectors)", &training_cases, &outcomes, &mut errors);
    let held_out = report(HELD_OUT_LABEL, &held_out_cases, &held_out_outcomes, &mut errors);
    println!(
        "\n{} cases ({} training, {} held-out) in {:.1?}",
        all.len(),
        training_cases.len(),
        held_out_cases.len(),
        started.elapsed()
    );

    assert!(errors.is_empty(), "cases that do not parse, apply or analyse:\n{}", errors.join("\n"));
    // The training corpus: enough cases of every kind to say something.
    for kind in KINDS {
        let n = training.cases_of(kind);
        assert!(n >= 5, "only {n} `{kind}` cases; the corpus needs at least 5 of each kind");
    }
    let (regressions, benign) = (training.regressions, training.benign);
    assert!(
        regressions >= 32 && benign >= 22,
        "the corpus needs at least 32 regressions and 22 benign cases ({regressions}, {benign})"
    );
    // The held-out set is a measurement: only its size is checked, never its score.
    for kind in KINDS {
        let n = held_out.cases_of(kind);
        assert!(n >= 2, "only {n} held-out `{kind}` cases; the held-out set needs at least 2 of each kind");
    }
    assert!(
        held_out.regressions >= 14 && held_out.benign >= 10,
        "the held-out set needs at least 14 regressions and 10 benign cases ({}, {})",
        held_out.regressions,
        held_out.benign
    );

    if TARGETS_ENFORCED {
        let (caught, missed, noisy) = (training.caught, &training.missed, &training.noisy);
        let recall = caught as f64 / regressions as f64;
        assert!(
            recall >= RECALL_TARGET,
            "recall {caught}/{regressions} is below {:.0}%; missed: {}",
            RECALL_TARGET * 100.0,
            missed.join(", ")
        );
        assert!(noisy.is_empty(), "benign cases with warnings: {}", noisy.join(", "));
    }
}

#[test]
fn the_case_format_is_checked() {
    let good = "project: pool\nkind: data-race\nsummary: s\nexpect: a/B.java: x = 1;\n--- edit a/B.java\n<<<\nx\n===\ny\n>>>\n";
    let case = parse_case("t", good).unwrap();
    assert_eq!((case.project.as_str(), case.kind.as_str(), case.edits.len()), ("pool", "data-race", 1));
    assert_eq!((case.expects[0].path.as_str(), case.expects[0].needle.as_str()), ("a/B.java", "x = 1;"));
    assert_eq!((case.edits[0].old.as_str(), case.edits[0].new.as_str()), ("x\n", "y\n"));
    for (bad, why) in [
        (good.replace("kind: data-race", "kind: race"), "unknown kind"),
        (good.replace("expect: a/B.java: x = 1;\n", ""), "needs at least one expect"),
        (good.replace("data-race", "benign"), "no expect lines"),
        (good.replace(">>>\n", ""), "no `>>>`"),
        (good.replace("summary: s\n", ""), "no `summary:`"),
        (good.replace("<<<", "<<"), "expected `<<<`"),
    ] {
        let err = parse_case("t", &bad).err().unwrap_or_else(|| panic!("accepted: {bad}"));
        assert!(err.contains(why), "{err}");
    }

    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/B.java", "x\nx\n");
    let err = apply(&case, dir.path()).unwrap_err();
    assert!(err.contains("occurs 2 times"), "{err}");
    write(dir.path(), "a/B.java", "int x = 1;\nx\nint z = 2;\n");
    assert_eq!(apply(&case, dir.path()).unwrap(), vec![("a/B.java".to_string(), 1)]);
    assert_eq!(std::fs::read_to_string(dir.path().join("a/B.java")).unwrap(), "int x = 1;\ny\nint z = 2;\n");
    write(dir.path(), "a/B.java", "x = 1;\nx\nx = 1;\n");
    let err = apply(&case, dir.path()).unwrap_err();
    assert!(err.contains("matches 2 lines"), "{err}");
}
