//! An exploration for people: the lines `racelens explore` prints (the failure with its
//! places, preemptions, table and replay command, or what was covered), and those of a
//! replay; and `racelens impact`'s report ([`impact`]). The claim's words come from
//! `results/coverage.rs`, the one place they are written.

use std::fmt::Write;

use crate::explorer::{Budget, Found, Report, Verdict};
use crate::impact::IcpSource;
use crate::jvm::protocol::Outcome;
use crate::reports::{ImpactReport, ImpactRun, ImpactSources};
use crate::results::coverage::Coverage;
use crate::results::report;

use super::{replay_command, Exploration, Replayed};

impl Exploration {
    /// What `explore` prints for the test: the failure, or what was covered, its notes, and
    /// where the impacted points came from. `explore --affected --shard` keeps it in its
    /// JSON, for `racelens merge` to print.
    pub fn text(&self) -> String {
        let mut out = self.result_text();
        if let Some((_, used)) = &self.impact {
            let _ = writeln!(out, "{}", sources_line(used));
        }
        if !self.setup.classpath.is_empty() {
            let _ = writeln!(out, "{}", self.setup.classpath);
        }
        for note in &self.setup.notes {
            let _ = writeln!(out, "note: {note}");
        }
        out
    }

    /// `compile 4.1 s, impact 0.8 s, explore 0.3 s`: where the time went (compiling only when
    /// something was read or compiled, the impact only when it was computed).
    pub fn times(&self) -> String {
        let mut parts = Vec::new();
        if self.setup.compile >= std::time::Duration::from_millis(50) {
            parts.push(format!("compile {:.1} s", self.setup.compile.as_secs_f64()));
        }
        if let Some(impact) = self.setup.impact {
            parts.push(format!("impact {:.1} s", impact.as_secs_f64()));
        }
        parts.push(format!("explore {:.1} s", self.report.stats.elapsed.as_secs_f64()));
        parts.join(", ")
    }

    /// [`Exploration::text`] without the impact's sources line.
    fn result_text(&self) -> String {
        let Report { verdict, stats, claim, sequential, .. } = &self.report;
        let mut out = String::new();
        match verdict {
            Verdict::Failed(found) => out += &self.failure_text(found),
            Verdict::Unconfirmed(found, _) | Verdict::Limitation(found, _) => {
                let (mark, words) = self.verdict_words();
                let _ = writeln!(out, "{mark}{words}");
                let _ = writeln!(out, "  the schedule: {}", self.replay_command(found));
            }
            _ => {
                let (mark, words) = self.verdict_words();
                let _ = writeln!(out, "{mark}{words}");
            }
        }
        for note in self.checks.iter().filter(|_| matches!(verdict, Verdict::Failed(_))).flat_map(|c| c.notes()) {
            let _ = writeln!(out, "{note}");
        }
        if !sequential.is_empty() {
            let places: Vec<String> = sequential
                .iter()
                .map(|site| {
                    format!("{}:{}", self.places.file_of(&site.class).unwrap_or_else(|| site.place()), site.line)
                })
                .collect();
            let _ = writeln!(
                out,
                "note: parallel streams ran sequentially, their own interleavings not explored: {}",
                places.join(", ")
            );
        }
        if stats.livelocks > 0 {
            let _ = writeln!(
                out,
                "note: {} run{} reached the step bound ({}): a livelock or a very long test",
                stats.livelocks,
                if stats.livelocks == 1 { "" } else { "s" },
                self.settings.max_steps
            );
        }
        if self.settings.select {
            let _ =
                writeln!(out, "selection: {} schedules that reorder no impacted access were left out", claim.skipped);
        }
        if self.settings.all && stats.failures > 0 {
            let _ = writeln!(out, "{} failing schedules in {}", stats.failures, stats.schedules);
        }
        out
    }

    /// What an exploration that found no failure claims, in the words `explore` prints
    /// (the mark before them apart: `✓ `, `… `, `! `); for a failure, its headline.
    pub fn verdict_words(&self) -> (&'static str, String) {
        let Report { verdict, stats, .. } = &self.report;
        let coverage = Coverage::of(&self.report);
        match verdict {
            Verdict::Failed(found) => ("✗ ", failure_headline(found)),
            Verdict::Passed if coverage.is_complete() => {
                ("✓ ", format!("no failure: {} ({})", coverage.text(), self.times()))
            }
            Verdict::Passed => (
                "",
                format!(
                    "no failure: {} (nothing is claimed about other schedules) ({})",
                    coverage.text(),
                    self.times()
                ),
            ),
            Verdict::Limit => {
                let go_on = match stats.budget {
                    Budget::Schedules => "raise --max-schedules to go on",
                    Budget::Seconds(_) => "raise --max-seconds to go on",
                    Budget::Interrupted => "run it again to go on",
                };
                ("… ", format!("no failure yet: {}; {go_on} ({})", coverage.text(), self.times()))
            }
            Verdict::Cancelled => ("… ", format!("cancelled after {} runs", stats.schedules)),
            Verdict::Uncontrolled(e) => ("! ", format!("not explored: {e}")),
            Verdict::Stopped(e) => ("! ", format!("exploration stopped after {} schedules: {e}", stats.schedules)),
            Verdict::Unconfirmed(_, why) => ("! ", format!("not confirmed: {why}")),
            Verdict::Limitation(_, why) => ("! ", format!("racelens limitation: {why}")),
        }
    }

    /// The lines of a failure: headline, places, preemptions, table, replay.
    fn failure_text(&self, found: &Found) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "✗ {}", failure_headline(found));
        if let (Some(file), Some(line)) = self.places.failure_place(&found.full) {
            let _ = writeln!(out, "  at {file}:{line}");
        }
        for pre in &found.preemptions {
            let (file, line) = self.places.place(pre.site.as_ref());
            let line = line.map_or_else(|| "null".to_string(), |l| l.to_string());
            let _ = writeln!(out, "  ⇄ {} ({}:{line})", pre.text(), file.as_deref().unwrap_or("?"));
        }
        out.push('\n');
        out += &report::table(&found.full, &self.sites);
        out.push('\n');
        let _ = writeln!(out, "replay: {}", self.replay_command(found));
        out
    }

    /// The command that replays a failing schedule of this exploration.
    pub fn replay_command(&self, found: &Found) -> String {
        replay_command(&self.root, &self.test.display(), &found.string.encode())
    }
}

/// `java.lang.AssertionError: ... in T0 (main) at ... after 4 schedules (1 preemption)`.
pub fn failure_headline(found: &Found) -> String {
    let p = found.preemptions.len();
    format!(
        "{} after {} schedule{} ({p} preemption{})",
        report::headline(&found.full),
        found.schedules,
        if found.schedules == 1 { "" } else { "s" },
        if p == 1 { "" } else { "s" }
    )
}

/// `impact: both (12 impacted code points of the analysis, 3 statements of the test's
/// dynamic impact)`: the line `explore` prints about [`ImpactSources`].
pub fn sources_line(s: &ImpactSources) -> String {
    let dynamic = s
        .dynamic_statements
        .map(|n| format!("{n} statement{} of the test's dynamic impact", if n == 1 { "" } else { "s" }));
    let analysis =
        format!("{} impacted code point{} of the analysis", s.static_icps, if s.static_icps == 1 { "" } else { "s" });
    let parts = match s.source {
        IcpSource::Dynamic => dynamic.unwrap_or_default(),
        IcpSource::Both => format!("{analysis}, {}", dynamic.unwrap_or_default()),
        IcpSource::Static => analysis,
    };
    let note = s.note.as_ref().map(|n| format!("; {n}")).unwrap_or_default();
    format!("impact: {} ({parts}){note}", s.source)
}

impl Replayed {
    /// What `replay` prints.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Some(words) = self.divergence_words() {
            let _ = writeln!(out, "{words} (the code changed there, or the test is nondeterministic)");
        } else if self.exec.outcome.is_bug() {
            let _ = writeln!(out, "✗ still fails: {}", report::headline(&self.exec));
            if let (Some(f), Some(l)) = self.places.failure_place(&self.exec) {
                let _ = writeln!(out, "  at {f}:{l}");
            }
            out.push('\n');
            out += &report::table(&self.exec, &self.sites);
        } else {
            let _ = writeln!(
                out,
                "✓ the schedule {}: {}",
                if matches!(self.exec.outcome, Outcome::Pass) { "passes now" } else { "does not fail" },
                report::headline(&self.exec)
            );
        }
        out
    }

    /// `! the execution diverged from the schedule at decision 3: ...`, when it did.
    pub fn divergence_words(&self) -> Option<String> {
        let (k, want, got) = self.diverged.as_ref()?;
        Some(format!("! the execution diverged from the schedule at decision {k}: the schedule switches at {want}, but this execution reached {got} there"))
    }
}

/// `racelens impact`'s report for people.
pub fn impact(r: &ImpactReport) -> String {
    let mut out = String::new();
    let n = r.counts.impacted_accesses;
    let _ = writeln!(
        out,
        "dynamic impact of {}: {n} impacted access{} at {} statement{}",
        r.test,
        if n == 1 { "" } else { "es" },
        r.counts.statements,
        if r.counts.statements == 1 { "" } else { "s" }
    );
    let run = |label: &str, run: &ImpactRun| {
        format!("  {label}: {}, {} steps, {} threads, {} accesses\n", run.outcome, run.steps, run.threads, run.accesses)
    };
    match (&r.base_run, &r.base_unavailable) {
        (Some(b), _) => out += &run(&format!("base {}", r.base.as_deref().map_or("", |c| &c[..c.len().min(10)])), b),
        (None, Some(why)) => {
            let _ = writeln!(out, "  base: not recorded ({why}); every access counts as new");
        }
        (None, None) => {}
    }
    out += &run("working tree", &r.working_tree_run);
    for a in &r.impacted {
        let place = format!("{}:{}", a.file.as_deref().unwrap_or(&a.class), a.line);
        let simple = a.class.rsplit('.').next().unwrap_or(&a.class);
        // A lock or monitor operation of a block names no target (`-`).
        let what = if a.target == "-" { a.access.clone() } else { format!("{} {}", a.access, a.target) };
        let _ = writeln!(
            out,
            "\n{place}  {what}  ({simple}.{}; {}; {} access{})",
            a.method,
            a.threads.join(", "),
            a.occurrences,
            if a.occurrences == 1 { "" } else { "es" }
        );
        for reason in &a.reasons {
            let _ = writeln!(out, "    {}", reason.describe());
        }
    }
    out
}
