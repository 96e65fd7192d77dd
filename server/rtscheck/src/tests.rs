//! The generator is deterministic per seed, and each operator changes the program the way
//! its name says, into Java that javac compiles.

use std::collections::BTreeSet;

use crate::gen::{Mutation, Op, Program, Source};
use crate::jvm;
use crate::statics::smallest_edit;

const SEEDS: std::ops::RangeInclusive<u64> = 1..=12;

#[test]
fn a_seed_always_gives_the_same_program_and_different_seeds_differ() {
    for seed in SEEDS {
        assert_eq!(Program::generate(seed), Program::generate(seed));
        let p = Program::generate(seed);
        assert_eq!(p.files(None), Program::generate(seed).files(None));
        for m in p.evolutions() {
            assert_eq!(p.files(Some(&m)), Program::generate(seed).files(Some(&m)));
        }
    }
    let distinct: BTreeSet<String> =
        SEEDS.map(|s| Program::generate(s).files(None).iter().map(|f| f.text.clone()).collect()).collect();
    assert!(distinct.len() >= 10, "{} distinct programs of 12", distinct.len());
}

/// The one file an evolution changes: its base and evolved lines.
fn changed_file(base: &[Source], evolved: &[Source]) -> (String, Vec<String>, Vec<String>) {
    let changed: Vec<(&Source, &Source)> = base.iter().zip(evolved).filter(|(a, b)| a.text != b.text).collect();
    assert_eq!(changed.len(), 1, "one file changes: {:?}", changed.iter().map(|(a, _)| &a.path).collect::<Vec<_>>());
    let (a, b) = changed[0];
    assert_eq!(a.path, b.path);
    (a.path.clone(), a.text.lines().map(String::from).collect(), b.text.lines().map(String::from).collect())
}

/// `evolved` is `base` with exactly one line changed, from `from` into `to`.
fn one_line_changed(base: &[String], evolved: &[String], from: &str, to: &str) {
    assert_eq!(base.len(), evolved.len(), "{base:#?}\n{evolved:#?}");
    let diffs: Vec<(&String, &String)> = base.iter().zip(evolved).filter(|(a, b)| a != b).collect();
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    let (a, b) = diffs[0];
    assert_eq!(&a.replacen(from, to, 1), b, "`{from}` becomes `{to}`");
}

fn trimmed(lines: &[String]) -> Vec<String> {
    let mut v: Vec<String> = lines.iter().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect();
    v.sort();
    v
}

/// The code without comments and white space.
fn tokens(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<String>().split_whitespace().collect()
}

fn acquisitions(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.contains("synchronized (") || l.contains("lock.lock()")).count()
}

#[test]
fn each_operator_changes_what_its_name_says() {
    let mut seen = BTreeSet::new();
    for seed in 1..=60 {
        let p = Program::generate(seed);
        let base = p.files(None);
        for m in p.evolutions() {
            seen.insert(m.op);
            let evolved = p.files(Some(&m));
            let what = p.describe(&m);
            if m.op == Op::Cosmetic {
                let changed: Vec<_> = base.iter().zip(&evolved).filter(|(a, b)| a.text != b.text).collect();
                assert_eq!(changed.len(), 1, "{what}");
                assert_eq!(
                    tokens(&changed[0].0.text),
                    tokens(&changed[0].1.text),
                    "{what}: only comments and white space change"
                );
                continue;
            }
            let (path, a, b) = changed_file(&base, &evolved);
            match m.op {
                Op::RemoveSync if path.ends_with("Count.java") => {
                    // Both methods of a per-page count: nothing synchronizes it any more.
                    let diffs: Vec<(&String, &String)> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
                    assert_eq!((a.len(), diffs.len()), (b.len(), 2), "{what}: {diffs:?}");
                    assert!(diffs.iter().all(|(x, y)| x.replacen("synchronized ", "", 1) == **y), "{what}: {diffs:?}");
                    assert!(!b.iter().any(|l| l.contains("synchronized")), "{what}");
                }
                Op::RemoveSync => one_line_changed(&a, &b, "synchronized ", ""),
                Op::CheckThenAct => {
                    let added: Vec<&str> = b.iter().filter(|l| !a.contains(l)).map(|l| l.trim()).collect();
                    let removed: Vec<&str> = a.iter().filter(|l| !b.contains(l)).map(|l| l.trim()).collect();
                    assert!(
                        removed.len() == 1 && removed[0].contains(".computeIfAbsent(page, "),
                        "{what}: {removed:?}"
                    );
                    let gets = |l: &[String]| l.iter().filter(|x| x.contains("= perPage.get(page);")).count();
                    assert!(
                        gets(&b) == gets(&a) + 1 && added.contains(&"perPage.put(page, count);"),
                        "{what}: {added:?}"
                    );
                }
                Op::AddSync => one_line_changed(&a, &b, "public ", "public synchronized "),
                Op::RemoveVolatile => one_line_changed(&a, &b, "volatile ", ""),
                Op::NotifyAllToNotify => {
                    assert_eq!(a.len(), b.len(), "{what}");
                    let diffs: Vec<(&String, &String)> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
                    assert_eq!(diffs.len(), if m.variant == 2 { 2 } else { 1 }, "{what}: {diffs:?}");
                    assert!(
                        diffs.iter().all(|(x, y)| x.replace("notifyAll();", "notify();") == **y),
                        "{what}: {diffs:?}"
                    );
                }
                Op::SwapLockOrder => {
                    assert_eq!(trimmed(&a), trimmed(&b), "{what}: the same lines");
                    let moved: Vec<(&String, &String)> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
                    assert_eq!(moved.len(), 2, "{what}: {moved:?}");
                    assert_eq!(
                        (moved[0].0.trim(), moved[1].0.trim()),
                        (moved[1].1.trim(), moved[0].1.trim()),
                        "{what}: two acquisitions swap"
                    );
                    assert!(moved.iter().all(|(x, _)| x.contains("synchronized (")), "{what}");
                }
                Op::SplitSection => {
                    assert_eq!(acquisitions(&b), acquisitions(&a) + 1, "{what}: one more acquisition");
                    let statements = |l: &[String]| {
                        trimmed(l).into_iter().filter(|s| s.ends_with(';') && !s.contains("lock")).collect::<Vec<_>>()
                    };
                    assert_eq!(statements(&a), statements(&b), "{what}: the same statements");
                }
                Op::MoveOutOfLock => {
                    assert_eq!(trimmed(&a), trimmed(&b), "{what}: the same lines, one moved");
                    assert_eq!(acquisitions(&a), acquisitions(&b), "{what}");
                    let indent = |l: &[String], s: &str| {
                        l.iter().find(|x| x.trim() == s).map(|x| x.len() - x.trim_start().len())
                    };
                    let out =
                        a.iter().map(|x| x.trim()).filter(|s| s.ends_with(';')).any(|s| indent(&b, s) < indent(&a, s));
                    assert!(out, "{what}: a statement is less nested");
                }
                Op::FieldHiding => {
                    let sub = p.components[m.component].sub.clone().unwrap();
                    assert!(path.ends_with(&format!("/{sub}.java")), "{what}: {path}");
                    assert_eq!(b.len(), a.len() + 2, "{what}: a field and a blank line");
                    let added: Vec<&String> = b.iter().filter(|l| !a.contains(l)).collect();
                    assert_eq!(added.len(), 1, "{what}: {added:?}");
                    let class = base
                        .iter()
                        .find(|f| f.path.ends_with(&format!("/{}.java", p.components[m.component].class)))
                        .unwrap();
                    assert!(class.text.lines().any(|l| l == added[0]), "{what}: the superclass declares {}", added[0]);
                }
                Op::Overriding => {
                    let sub = p.components[m.component].sub.clone().unwrap();
                    assert!(path.ends_with(&format!("/{sub}.java")), "{what}: {path}");
                    let added: Vec<&str> = b.iter().filter(|l| !a.contains(l)).map(|l| l.trim()).collect();
                    assert!(
                        added.contains(&"@Override") && added.contains(&"public void add(int n) {"),
                        "{what}: {added:?}"
                    );
                    assert!(!added.iter().any(|l| l.contains("synchronized")), "{what}");
                }
                Op::Cosmetic => unreachable!(),
            }
        }
    }
    assert_eq!(seen, Op::ALL.into_iter().collect(), "60 seeds use every operator");
}

#[test]
fn the_smallest_edit_makes_the_new_text() {
    for (old, new) in
        [("abc", "abc"), ("abc", "abxc"), ("abc", "c"), ("é1", "é2"), ("aa", "aaa"), ("", "x"), ("xy", "")]
    {
        let (s, e, ins) = smallest_edit(old, new);
        assert_eq!(format!("{}{ins}{}", &old[..s], &old[e..]), new, "{old:?} -> {new:?}");
    }
}

/// An inherited test class: the tests in `Abstract<Class>Test`, abstract, and the class JUnit
/// runs them on extends it and declares nothing; the tests keep their names.
#[test]
fn inherited_tests_are_declared_in_an_abstract_base_and_named_by_the_concrete_class() {
    let (mut inherited, mut plain) = (0, 0);
    for seed in 1..=30 {
        let p = Program::generate(seed);
        let files = p.files(None);
        for c in &p.components {
            let base = files.iter().find(|f| f.path.ends_with(&format!("/Abstract{}.java", c.test_class)));
            let concrete =
                files.iter().find(|f| f.path.ends_with(&format!("/{}.java", c.test_class))).expect("the test class");
            match c.inherited {
                true => {
                    inherited += 1;
                    let base = base.expect("the abstract base");
                    assert!(
                        base.text.contains(&format!("public abstract class Abstract{} {{", c.test_class))
                            && base.text.contains("@Test")
                    );
                    assert!(
                        concrete.text.contains(&format!("public class {0} extends Abstract{0} {{\n}}", c.test_class))
                            && !concrete.text.contains("@Test")
                    );
                }
                false => {
                    plain += 1;
                    assert!(base.is_none() && concrete.text.contains("@Test"));
                }
            }
        }
        let names: Vec<String> = p.tests().into_iter().map(|t| t.name).collect();
        assert!(
            p.components.iter().all(|c| names.contains(&format!("app.{}#concurrentUpdatesAddUp", c.test_class))),
            "{names:?}"
        );
    }
    assert!(inherited >= 5 && plain >= 5, "{inherited} inherited, {plain} not");
}

/// Every revision of several programs (each in a package of its own), compiled by one javac.
#[test]
fn every_revision_compiles() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut revisions = 0;
    for seed in 1..=8 {
        let p = Program::generate(seed);
        let mut all: Vec<Option<Mutation>> = vec![None];
        all.extend(p.evolutions().into_iter().map(Some));
        for (r, m) in all.iter().enumerate() {
            files.extend(p.files_in(&format!("s{seed}r{r}"), m.as_ref()));
            revisions += 1;
        }
    }
    crate::write(dir.path(), &files).unwrap();
    jvm::javac(dir.path(), &files, &dir.path().join("classes")).unwrap();
    assert!(revisions > 50, "{revisions} revisions");
}
