//! `racelens check`: analyse the working tree against a base revision and print the
//! warnings (or everything, as JSON).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use racelens_analysis::host::{Host, HostOptions};
use racelens_analysis::impact::Options;
use racelens_analysis::report::check_report;
use racelens_analysis::sarif;

use crate::report::{self, Show};
use crate::Format;

const TERMS: &str = "\
Terms:
  impacted code point (ICP)
      A place the change may affect: a changed line with its class and method, every line of
      a synchronized region the change touched, or a field read or written there or by a callee.
  shared variable
      A field access that more than one thread may reach: static fields, and fields of objects
      that escape to other threads (final fields, and constructors' own writes, are not shared).
  impacted pair
      Two accesses to one shared variable, at least one a write and at least one impacted by the
      change; exploration and test selection aim to cover them.
  protected
      Both ends of a pair hold a common lock (read locks do not exclude each other), so the two
      accesses cannot run at the same time.
  pair kinds
      RW and WW: a read/write or write/write data-race candidate; WN: a wait and a notify on one
      monitor; MM: two acquisitions of one monitor or lock.

Warnings:
  RL001  an impacted access races with another thread's access: no common lock, not volatile,
         not atomic; the message says which lock guards the other end and what the change did.
  RL002  the change moved an access out of the lock that guards its field elsewhere (even on a
         volatile field: the check-then-act is the bug).
  RL003  the change split one critical section into two acquisitions of the same lock, in the
         method or through a call that takes the lock again (a locked getter, a helper).
  RL004  a check-then-act on a thread-safe collection or atomic (`isEmpty()` then `poll()`,
         `containsKey()` then `remove()`, `get()` then `set()`) whose act's result is not checked.
  RL005  an access to a @GuardedBy field without its declared lock.
  RL006  wait()/notify() where the monitor is no longer held (IllegalMonitorStateException).
  RL007  a lock-order inversion: the change takes two locks in the order opposite to other code
         (or one class's lock from two objects the callers choose), so two threads can deadlock.
  RL008  a lost wake-up: the change made notify()/signal() wake one waiter where waiters wait for
         different conditions (or all pass one gate), or left a wait() under `if` instead of `while`.
  RL009  publication order: the change moved a release (countDown(), a volatile write, unlock(),
         notify(), complete(), start(), submit()) before a write that another thread reads after
         the matching acquire, or published an object (`map = new HashMap<>()`) before filling it.
  RL010  a cached value built in steps: in a class immutable apart from its caches (shared freely),
         the change made a method compute the cached value (a hash code) in the field itself, so
         another thread can return a partial value; compute it in a local and write the field once.
  RL100  (hint, with --show hints) a changed line that impacts a shared field.
  Silence one with @SuppressWarnings(\"racelens\") or @SuppressWarnings(\"racelens:RL001\").

Exit status: 0 when the analysis ran (with or without warnings), 2 on a usage or setup error.";

/// Show the concurrency consequences of the working-tree change: impacted code points,
/// impacted shared-variable pairs, and race warnings.
#[derive(Args)]
#[command(after_long_help = TERMS)]
pub struct CheckArgs {
    #[command(flatten)]
    project: ProjectArgs,
    /// Print one JSON object (icps, pairs, diagnostics, notes) instead of text: the same as
    /// `--format json`. Its schema: server/cli/schemas/check.schema.json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// How to print the result. The SARIF log has a rule per code and a result per warning
    /// (hints with `--show hints`) with its notes as related locations; paths are relative
    /// to the repository root (`%SRCROOT%`), and fingerprints do not change when lines move.
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<Format>,
    /// Also list pairs where neither end is impacted.
    #[arg(long)]
    all_pairs: bool,
    /// Also print these in the text report (`hints` also in the SARIF log).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "WHAT")]
    show: Vec<Show>,
}

/// The work tree and the revision to compare it with (`check` and `select`).
#[derive(Args)]
pub struct ProjectArgs {
    /// A folder of the git work tree to analyse.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Compare the working tree with this revision (e.g. `origin/main` in CI).
    #[arg(long, default_value = "HEAD", value_name = "REV")]
    base: String,
    /// Analyse a folder that is not a git work tree, every file counting as new.
    #[arg(long)]
    no_git: bool,
}

impl ProjectArgs {
    /// The project, loaded (a usage or setup error otherwise).
    pub fn open(&self) -> Result<Host, String> {
        let options = HostOptions { base: self.base.clone(), no_git: self.no_git, ..HostOptions::default() };
        let mut host = Host::open(&self.path, &options)?;
        host.load()?;
        Ok(host)
    }
}

/// What the host noted while loading (an unknown configuration key), on stderr.
pub fn print_notes(host: &Host) {
    for line in note_lines(host) {
        eprintln!("{line}");
    }
}

/// The lines [`print_notes`] prints (`racelens merge` prints a shard's again).
pub fn note_lines(host: &Host) -> Vec<String> {
    host.notes()
        .into_iter()
        .map(|note| match note.path {
            Some(p) => format!("racelens: note: {p}: {}", note.message),
            None => format!("racelens: note: {}", note.message),
        })
        .collect()
}

pub fn run(args: CheckArgs) -> Result<ExitCode, String> {
    let mut host = args.project.open()?;
    let analysis = Options { all_pairs: args.all_pairs, ..Options::new() };
    let impact = host.analyze(&analysis);
    match Format::of(args.json, args.format) {
        Format::Json => crate::print_json(&check_report(&host, &impact)),
        Format::Sarif => {
            sarif::check(&host, &impact, args.show.contains(&Show::Hints)).print();
            print_notes(&host);
        }
        Format::Text => {
            print!("{}", report::text(&host, &impact, &args.show));
            print_notes(&host);
        }
    }
    Ok(ExitCode::SUCCESS)
}
