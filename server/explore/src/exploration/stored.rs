//! An exploration as the language server keeps it ([`ResultKind`] in
//! `explorations.json`): shorter than the CLI's report (the table as text, the picture's
//! rows, places of the failure and preemptions), read back after a restart.

use crate::explorer::Verdict;
use crate::jvm::protocol::{Execution, Outcome};
use crate::reports::{Place, PreemptionPlace, ResultKind};
use crate::results::coverage::Coverage;
use crate::results::report;

use super::{Exploration, Places, Replayed};

impl Exploration {
    /// The result to keep; `Err("cancelled")` for an exploration the user cancelled (nothing
    /// is kept).
    pub fn stored(&self) -> Result<ResultKind, String> {
        let coverage = Coverage::of(&self.report);
        Ok(match &self.report.verdict {
            Verdict::Failed(found) => {
                let preemptions = found
                    .preemptions
                    .iter()
                    .map(|p| PreemptionPlace {
                        place: p
                            .site
                            .as_ref()
                            .and_then(|s| Some(Place { file: self.places.file_of(&s.class)?, line: s.line })),
                        text: p.text(),
                    })
                    .collect();
                ResultKind::Failed {
                    title: title(&found.full.outcome),
                    headline: report::headline(&found.full),
                    schedules: found.schedules,
                    preemptions,
                    schedule: found.string.encode(),
                    place: failure_place(&self.places, &found.full),
                    table: report::table(&found.full, &self.sites),
                    lanes: Some(self.lanes(&found.full)),
                }
            }
            Verdict::Passed => ResultKind::Passed { coverage, covered: self.covered },
            Verdict::Limit => ResultKind::Limit { coverage },
            Verdict::Uncontrolled(message) => ResultKind::Uncontrolled { message: message.clone() },
            Verdict::Cancelled => return Err("cancelled".into()),
            Verdict::Stopped(message) => ResultKind::Stopped { message: message.clone() },
            Verdict::Unconfirmed(..) | Verdict::Limitation(..) => {
                ResultKind::Unconfirmed { message: self.verdict_words().1 }
            }
        })
    }
}

impl Replayed {
    /// The replay's result as the editor shows it.
    pub fn stored(&self) -> ResultKind {
        if let Some((k, want, got)) = &self.diverged {
            return ResultKind::Stopped { message: format!("the replay diverged at decision {k}: the schedule switches at {want}, this execution reached {got} (the code changed there)") };
        }
        if !self.exec.outcome.is_bug() {
            return ResultKind::Passed { coverage: Coverage { runs: 1, ..Coverage::default() }, covered: 0 };
        }
        ResultKind::Failed {
            title: title(&self.exec.outcome),
            headline: report::headline(&self.exec),
            schedules: 1,
            preemptions: Vec::new(),
            schedule: self.schedule.clone(),
            place: failure_place(&self.places, &self.exec),
            table: report::table(&self.exec, &self.sites),
            lanes: Some(self.lanes()),
        }
    }
}

/// `NullPointerException`, `deadlock`, `System.exit(3)`.
fn title(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Fail(f) => f.exception.rsplit('.').next().unwrap_or(&f.exception).to_string(),
        Outcome::Deadlock(_) => "deadlock".into(),
        Outcome::Exit(s) => format!("System.exit({s})"),
        other => other.kind().to_string(),
    }
}

fn failure_place(places: &Places, exec: &Execution) -> Option<Place> {
    places.failure_site(exec).map(|(file, line)| Place { file, line })
}
