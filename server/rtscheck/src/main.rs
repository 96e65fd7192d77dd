//! `rtscheck`: racelens checked in the manner of RTSCheck (Zhu, Legunsen, Shi and
//! Gligoric, "A Framework for Checking Regression Test Selection Tools", ICSE 2019). It
//! generates small concurrent Java programs from seeds (`gen.rs`, after AutoEP, section
//! II-B), evolves each by every operator that applies, and checks rules on each evolution
//! (Table I): R5, R6 and incremental = from scratch without a JVM (`statics.rs`), R7 and R1
//! with one (`jvm.rs`). R2-R4 compare several tools, or every revision of a long history,
//! and have no counterpart here.
//!
//! ```text
//! cargo build -p racelens && cargo run -p racelens-rtscheck -- --seeds 1000 [--first S] [--no-jvm] [--keep]
//! ```
//!
//! Each violation is printed with its rule, seed, operator and the program (the change and
//! every file); then a summary. Exit status 1 when a rule was violated, 2 on a setup error.

mod gen;
mod jvm;
mod statics;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use clap::Parser;

use gen::{Mutation, Op, Program, Source};
use jvm::{Explored, Racelens};
use statics::{Incremental, Snapshot};

/// Check racelens on generated, evolving concurrent Java programs (RTSCheck's rules R1, R5,
/// R6, R7, and incremental = from-scratch analysis).
#[derive(Parser)]
#[command(name = "rtscheck")]
struct Args {
    /// How many programs (seeds) to generate.
    #[arg(long, default_value_t = 100)]
    seeds: u64,
    /// The first seed.
    #[arg(long, default_value_t = 1)]
    first: u64,
    /// Check only the rules that need no JVM (R5, R6, incremental).
    #[arg(long)]
    no_jvm: bool,
    /// Keep the programs that violate a rule on disk (their folders are printed).
    #[arg(long)]
    keep: bool,
    /// Only the evolutions of this operator (`remove-synchronized`, `add-synchronized`,
    /// `split-critical-section`, `notifyAll-to-notify`, `swap-lock-order`, `remove-volatile`,
    /// `move-access-out-of-lock`, `field-hiding`, `override-without-synchronized`,
    /// `check-then-act`, `no-op`).
    #[arg(long, value_name = "NAME")]
    op: Option<String>,
    /// Print each program's first revision instead of checking it (with `--op`, the
    /// evolutions of that operator too); nothing runs.
    #[arg(long)]
    print: bool,
    /// The `racelens` binary (default: the one next to this one).
    #[arg(long)]
    racelens: Option<PathBuf>,
    /// The preemption bound of every exploration.
    #[arg(long, default_value_t = 2)]
    bound: u32,
    /// The schedules each test may run, in the exhaustive exploration and in its share of
    /// `explore --affected`.
    #[arg(long, default_value_t = 2000)]
    budget: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rule {
    R1,
    R5,
    R6,
    R7,
    Incremental,
    /// The generator's own promise: the base compiles and passes when run plainly.
    Generator,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::R1 => "R1",
            Rule::R5 => "R5",
            Rule::R6 => "R6",
            Rule::R7 => "R7",
            Rule::Incremental => "incremental",
            Rule::Generator => "generator",
        })
    }
}

#[derive(Default)]
struct Counts {
    programs: u64,
    evolutions: u64,
    checks: BTreeMap<Rule, u64>,
    violations: BTreeMap<Rule, u64>,
    /// Checks that could not conclude (an exploration's budget ran out).
    inconclusive: BTreeMap<Rule, u64>,
    /// Newly failing multithreaded tests found by the exhaustive exploration, per operator.
    newly_failing: BTreeMap<&'static str, u64>,
}

struct Checker {
    args: Args,
    work: PathBuf,
    racelens: Option<Racelens>,
    tally: Counts,
}

fn main() -> ExitCode {
    // `rtscheck --print | head` ends quietly, as `racelens check | head` does.
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args = Args::parse();
    match run(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("rtscheck: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> Result<bool, String> {
    let started = Instant::now();
    if let Some(op) = &args.op {
        if !Op::ALL.iter().any(|o| o.name() == op) {
            return Err(format!("no operator `{op}`; the operators: {}", Op::ALL.map(Op::name).join(", ")));
        }
    }
    if args.print {
        for seed in args.first..args.first + args.seeds {
            let program = Program::generate(seed);
            println!("seed {seed}: {}", program.summary());
            print_files(&program.files(None));
            for m in program.evolutions().iter().filter(|m| args.op.as_deref() == Some(m.op.name())) {
                println!("seed {seed}: {}", program.describe(m));
                print_files(&program.files(Some(m)));
            }
        }
        return Ok(true);
    }
    let work = std::env::temp_dir().join(format!("rtscheck-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let racelens = match args.no_jvm {
        true => None,
        false => {
            let binary = match &args.racelens {
                Some(p) => p.clone(),
                None => std::env::current_exe().map_err(|e| e.to_string())?.with_file_name("racelens"),
            };
            if !binary.is_file() {
                return Err(format!("no racelens binary at {}: build it first (`cargo build -p racelens`, the same profile), pass --racelens PATH, or check without a JVM (--no-jvm)", binary.display()));
            }
            Some(Racelens { binary, cache: work.join("cache"), bound: args.bound, budget: args.budget })
        }
    };
    let mut checker = Checker { args, work: work.clone(), racelens, tally: Counts::default() };
    let mut ok = true;
    for seed in checker.args.first..checker.args.first + checker.args.seeds {
        ok &= checker.program(seed)?;
    }
    checker.summary(started.elapsed().as_secs_f64());
    if !checker.args.keep || ok {
        let _ = std::fs::remove_dir_all(&work);
    }
    Ok(ok)
}

fn print_files(files: &[Source]) {
    for f in files {
        println!("  === {}", f.path);
        for line in f.text.lines() {
            println!("    {line}");
        }
    }
}

/// Writes `files` under `dir`.
fn write(dir: &Path, files: &[Source]) -> Result<(), String> {
    for f in files {
        let p = dir.join(&f.path);
        std::fs::create_dir_all(p.parent().expect("a file in a folder")).map_err(|e| e.to_string())?;
        std::fs::write(&p, &f.text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    Ok(())
}

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=rtscheck",
            "-c",
            "user.email=rtscheck@racelens.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.autocrlf=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    match out.status.success() {
        true => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        false => Err(format!("git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr))),
    }
}

/// A repository at `dir` with `base` committed and `change` (if any) in the work tree.
fn repository(dir: &Path, base: &[Source], change: Option<&[Source]>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    write(dir, base)?;
    git(dir, &["init", "-q"])?;
    git(dir, &["add", "-A"])?;
    git(dir, &["commit", "-q", "-m", "base"])?;
    if let Some(change) = change {
        write(dir, change)?;
    }
    Ok(())
}

impl Checker {
    /// Generates the program of `seed`, evolves it by every operator, and checks the rules;
    /// false when one was violated.
    fn program(&mut self, seed: u64) -> Result<bool, String> {
        let program = Program::generate(seed);
        let base = program.files(None);
        eprintln!("rtscheck: seed {seed}: {}", program.summary());
        let dir = self.work.join(format!("seed-{seed}"));
        repository(&dir, &base, None)?;
        self.tally.programs += 1;
        let mut ok = true;

        // R5 on the unchanged tree.
        let unchanged = statics::fresh(&dir)?;
        ok &= self.check(
            Rule::R5,
            nothing_selected(&unchanged).map(|m| format!("the unchanged work tree: {m}")),
            seed,
            None,
            &program,
            &base,
            &dir,
        );

        // R6: the whole program as the first revision.
        ok &= self.first_revision(seed, &program, &base)?;

        // R7 on the base (and the base's results, which R1 compares with).
        let base_results = match &self.racelens {
            Some(_) => match self.base_runs(seed, &program, &base, &dir)? {
                Some(r) => Some(r),
                None => return Ok(false),
            },
            None => None,
        };

        let mut incremental = Incremental::open(&dir)?;
        for m in program.evolutions() {
            if self.args.op.as_deref().is_some_and(|op| op != m.op.name()) {
                continue;
            }
            self.tally.evolutions += 1;
            let evolved = program.files(Some(&m));
            let typed = incremental.edit(&base, &evolved);
            write(&dir, &evolved)?;
            let scratch = statics::fresh(&dir)?;
            let differs = (typed != scratch).then(|| {
                format!(
                    "the edit typed into a loaded host differs from a fresh analysis:\n{}",
                    typed.difference(&scratch)
                )
            });
            ok &= self.check(Rule::Incremental, differs, seed, Some(&m), &program, &evolved, &dir);
            if m.op == Op::Cosmetic {
                ok &= self.check(
                    Rule::R5,
                    nothing_selected(&scratch).map(|e| format!("a no-op change: {e}")),
                    seed,
                    Some(&m),
                    &program,
                    &evolved,
                    &dir,
                );
            } else if let Some(results) = &base_results {
                ok &= self.newly_failing(seed, &program, &m, &evolved, &dir, results)?;
            }
            write(&dir, &base)?;
            let undone = incremental.undo(&base);
            let differs = (undone != unchanged).then(|| {
                format!(
                    "after the buffers were closed, the loaded host differs from the unchanged tree:\n{}",
                    undone.difference(&unchanged)
                )
            });
            ok &= self.check(Rule::Incremental, differs, seed, Some(&m), &program, &evolved, &dir);
        }
        if ok || !self.args.keep {
            let _ = std::fs::remove_dir_all(&dir);
        }
        Ok(ok)
    }

    /// R6 in a repository without a commit, then with an empty one.
    fn first_revision(&mut self, seed: u64, program: &Program, base: &[Source]) -> Result<bool, String> {
        let dir = self.work.join(format!("seed-{seed}-first"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        git(&dir, &["init", "-q"])?;
        write(&dir, base)?;
        let mut ok = true;
        let threaded: Vec<String> = program.tests().into_iter().filter(|t| t.threads).map(|t| t.name).collect();
        for history in ["no commit (unborn HEAD)", "one empty commit"] {
            if history == "one empty commit" {
                git(&dir, &["commit", "-q", "--allow-empty", "-m", "empty"])?;
            }
            let snap = statics::fresh(&dir)?;
            let missing: Vec<&String> = threaded.iter().filter(|t| !snap.selected().contains(t)).collect();
            let message = (!missing.is_empty()).then(|| {
                format!(
                    "first revision, {history}: {} of {} multithreaded tests selected; not selected: {}\n{}",
                    threaded.len() - missing.len(),
                    threaded.len(),
                    missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
                    not_selected_reasons(&snap, &missing)
                )
            });
            ok &= self.check(Rule::R6, message, seed, None, program, base, &dir);
        }
        if ok || !self.args.keep {
            let _ = std::fs::remove_dir_all(&dir);
        }
        Ok(ok)
    }

    /// Runs the base plainly (javac, JUnitCore) and under racelens; checks R7. The
    /// exploration of each test on the base, or `None` when the base itself is broken (a
    /// generator violation, reported).
    fn base_runs(
        &mut self,
        seed: u64,
        program: &Program,
        base: &[Source],
        dir: &Path,
    ) -> Result<Option<BTreeMap<String, Explored>>, String> {
        let racelens = self.racelens.clone().expect("with a JVM");
        let classes = self.work.join(format!("seed-{seed}-classes"));
        let plain = jvm::javac(dir, base, &classes).and_then(|()| {
            let mut classes_run: Vec<String> =
                program.components.iter().map(|c| format!("{}.{}", gen::PACKAGE, c.test_class)).collect();
            classes_run.dedup();
            jvm::junit(&classes, &classes_run)
        });
        let _ = std::fs::remove_dir_all(&classes);
        match plain {
            Ok(f) if f.is_empty() => {}
            Ok(f) => {
                return self.generator(
                    seed,
                    program,
                    base,
                    dir,
                    format!("the base fails when run plainly: {}", f.join(", ")),
                )
            }
            Err(e) => return self.generator(seed, program, base, dir, e),
        }
        let mut results = BTreeMap::new();
        for t in program.tests() {
            let explored = match racelens.explore(dir, &t.name) {
                Ok(e) => e,
                Err(e) => Explored { outcome: "no result".into(), detail: e, schedule: None, schedules: 0 },
            };
            let message = match explored.outcome.as_str() {
                "pass" => None,
                "limit" => {
                    *self.tally.inconclusive.entry(Rule::R7).or_default() += 1;
                    None
                }
                _ => Some(format!(
                    "{} passes plainly on the base but `racelens explore` says {}: {}{}",
                    t.name,
                    explored.outcome,
                    explored.detail,
                    replay(&explored)
                )),
            };
            results.insert(t.name.clone(), explored);
            self.check(Rule::R7, message, seed, None, program, base, dir);
        }
        Ok(Some(results))
    }

    fn generator(
        &mut self,
        seed: u64,
        program: &Program,
        base: &[Source],
        dir: &Path,
        message: String,
    ) -> Result<Option<BTreeMap<String, Explored>>, String> {
        self.check(Rule::Generator, Some(message), seed, None, program, base, dir);
        Ok(None)
    }

    /// R1 on one evolution (in the work tree at `dir`): the multithreaded tests of the
    /// component it changed, explored up to the bound without prioritization; those that
    /// passed on the base and fail now must fail under `explore --affected`. The tests of
    /// the other components run the same code as on the base (no class of one component
    /// names another's), so their base results stand.
    fn newly_failing(
        &mut self,
        seed: u64,
        program: &Program,
        m: &Mutation,
        evolved: &[Source],
        dir: &Path,
        base: &BTreeMap<String, Explored>,
    ) -> Result<bool, String> {
        let racelens = self.racelens.clone().expect("with a JVM");
        let mut failing = Vec::new();
        for t in program.tests().into_iter().filter(|t| t.threads && t.component == m.component) {
            if base.get(&t.name).is_none_or(|b| b.outcome != "pass") {
                continue;
            }
            match racelens.explore(dir, &t.name) {
                Ok(now) if now.outcome == "fail" => failing.push((t.name, now)),
                Ok(now) if now.outcome == "pass" => {}
                Ok(_) => *self.tally.inconclusive.entry(Rule::R1).or_default() += 1,
                Err(e) => {
                    return Ok(self.check(
                        Rule::R1,
                        Some(format!("{}: the exhaustive exploration gave no result: {e}", t.name)),
                        seed,
                        Some(m),
                        program,
                        evolved,
                        dir,
                    ))
                }
            }
        }
        if failing.is_empty() {
            *self.tally.checks.entry(Rule::R1).or_default() += 1;
            return Ok(true);
        }
        *self.tally.newly_failing.entry(m.op.name()).or_default() += failing.len() as u64;
        let threaded = program.tests().iter().filter(|t| t.threads).count();
        let affected = match racelens.affected(dir, threaded) {
            Ok(a) => a,
            Err(e) => {
                return Ok(self.check(
                    Rule::R1,
                    Some(format!("`explore --affected` gave no result: {e}")),
                    seed,
                    Some(m),
                    program,
                    evolved,
                    dir,
                ))
            }
        };
        let mut ok = true;
        for (test, truth) in failing {
            let message = match affected.iter().find(|(t, _)| *t == test) {
                None => Some(format!(
                    "{test} fails ({}{}) but `explore --affected` does not select it (it explored: {})",
                    truth.detail,
                    replay(&truth),
                    if affected.is_empty() {
                        "nothing".to_string()
                    } else {
                        affected.iter().map(|(t, e)| format!("{t}: {}", e.outcome)).collect::<Vec<_>>().join(", ")
                    }
                )),
                Some((_, e)) if e.outcome == "fail" => None,
                Some((_, e)) => Some(format!(
                    "{test} fails ({}{}) but `explore --affected` selected it and says {} after {} schedules: {}",
                    truth.detail,
                    replay(&truth),
                    e.outcome,
                    e.schedules,
                    e.detail
                )),
            };
            ok &= self.check(Rule::R1, message, seed, Some(m), program, evolved, dir);
        }
        Ok(ok)
    }

    /// Counts a check of `rule`, and prints the violation when there is a message; false
    /// then.
    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        rule: Rule,
        violation: Option<String>,
        seed: u64,
        m: Option<&Mutation>,
        program: &Program,
        files: &[Source],
        dir: &Path,
    ) -> bool {
        *self.tally.checks.entry(rule).or_default() += 1;
        let Some(message) = violation else { return true };
        *self.tally.violations.entry(rule).or_default() += 1;
        let what = m.map_or_else(|| "the base revision".to_string(), |m| program.describe(m));
        println!("violation {rule} · seed {seed} · {what}");
        for line in message.lines() {
            println!("  {line}");
        }
        if m.is_some() {
            if let Ok(diff) = git(dir, &["diff", "--no-color"]) {
                println!("  the change (git diff):");
                for line in diff.lines() {
                    println!("    {line}");
                }
            }
        }
        println!("  the program:");
        print_files(files);
        if self.args.keep {
            let kept = self.work.join("kept").join(format!(
                "seed-{seed}-{}-v{}",
                m.map_or("base", |m| m.op.name()),
                m.map_or(0, |m| m.variant)
            ));
            if !kept.exists() && repository(&kept, &program.files(None), m.is_some().then_some(files)).is_ok() {
                println!("  kept in {} (the base committed, the evolution in the work tree)", kept.display());
            }
        }
        println!();
        false
    }

    fn summary(&self, seconds: f64) {
        let t = &self.tally;
        println!(
            "rtscheck: {} programs (seeds {}..{}), {} evolutions, {:.1} s{}",
            t.programs,
            self.args.first,
            self.args.first + self.args.seeds - 1,
            t.evolutions,
            seconds,
            if self.args.no_jvm { " (static rules only)" } else { "" }
        );
        for (rule, checks) in &t.checks {
            let violations = t.violations.get(rule).copied().unwrap_or(0);
            let inconclusive =
                t.inconclusive.get(rule).map_or(String::new(), |n| format!(", {n} inconclusive (budget)"));
            println!("  {rule:<12} {checks:>6} checks, {violations} violations{inconclusive}");
        }
        if !t.newly_failing.is_empty() {
            let per_op: Vec<String> = t.newly_failing.iter().map(|(op, n)| format!("{op} {n}")).collect();
            println!(
                "  newly failing multithreaded tests (exhaustive exploration, bound {}): {}",
                self.args.bound,
                per_op.join(", ")
            );
        }
        let total: u64 = t.violations.values().sum();
        println!(
            "rtscheck: {}",
            if total == 0 {
                "no violation".to_string()
            } else {
                format!("{total} violation{}", if total == 1 { "" } else { "s" })
            }
        );
    }
}

/// R5's condition: no impacted code point, no impacted pair, no selected test.
fn nothing_selected(s: &Snapshot) -> Option<String> {
    if s.icps().is_empty() && s.impacted_pairs() == 0 && s.selected().is_empty() {
        return None;
    }
    Some(format!(
        "{} impacted code points, {} impacted pairs, {} selected tests\n{}{}",
        s.icps().len(),
        s.impacted_pairs(),
        s.selected().len(),
        s.icps().iter().take(6).map(|i| format!("icp {i}\n")).collect::<String>(),
        s.selected().iter().map(|t| format!("selected {t}\n")).collect::<String>()
    ))
}

/// Why `select` left each of `tests` out, from its ranking.
fn not_selected_reasons(s: &Snapshot, tests: &[&String]) -> String {
    let ranking: serde_json::Value = serde_json::from_str(&s.ranking).unwrap_or_default();
    let mut out = String::new();
    for t in ranking["tests"].as_array().into_iter().flatten() {
        if tests.iter().any(|n| t["test"] == n.as_str()) {
            out += &format!("{}: {}\n", t["test"].as_str().unwrap_or("?"), t["reason"].as_str().unwrap_or("?"));
        }
    }
    out
}

fn replay(e: &Explored) -> String {
    e.schedule.as_ref().map_or(String::new(), |s| format!("; schedule {s}"))
}

#[cfg(test)]
mod tests;
