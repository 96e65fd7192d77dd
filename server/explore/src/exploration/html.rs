//! An exploration on the web page (`--html`): a failing schedule as a swimlane picture, or
//! what was covered in the words `explore` prints (no picture: a picture means a failure).
//! The page itself is `results/swimlane.rs`'s.

use crate::explorer::Verdict;
use crate::jvm::protocol::Execution;
use crate::results::report;
use crate::results::swimlane::{Lanes, Section};

use super::text::failure_headline;
use super::{Exploration, Replayed};

impl Exploration {
    /// The test's section of the page, under `title`.
    pub fn html_section(&self, title: String) -> Section {
        match &self.report.verdict {
            Verdict::Failed(found) => Section::Failure {
                test: title,
                headline: format!("✗ {}", failure_headline(found)),
                lanes: self.lanes(&found.full),
                replay: Some(self.replay_command(found)),
            },
            _ => {
                let (mark, words) = self.verdict_words();
                Section::Outcome { test: title, words: format!("{mark}{words}") }
            }
        }
    }

    /// The rows of a full-mode execution for the swimlane picture, placed in the project.
    pub fn lanes(&self, exec: &Execution) -> Lanes {
        Lanes::of(exec, &self.sites, &|class| self.places.file_of(class))
    }
}

impl Replayed {
    /// The replay's section of the page: the run as a picture when it still fails.
    pub fn html_section(&self) -> Section {
        let test = self.test.display();
        match self.divergence_words() {
            Some(words) => Section::Outcome { test, words },
            None if self.exec.outcome.is_bug() => Section::Failure {
                test,
                headline: format!("✗ still fails: {}", report::headline(&self.exec)),
                lanes: self.lanes(),
                replay: None,
            },
            None => Section::Outcome {
                test,
                words: format!("✓ the schedule does not fail: {}", report::headline(&self.exec)),
            },
        }
    }

    pub fn lanes(&self) -> Lanes {
        Lanes::of(&self.exec, &self.sites, &|class| self.places.file_of(class))
    }
}
