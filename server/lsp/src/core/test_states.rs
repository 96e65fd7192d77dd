//! `racelens/testStates`: every test of a workspace that starts threads, with the state of
//! its exploration, for a client's test view (VS Code's Testing view). The same tests and
//! the same states as the lenses (`lenses.rs`, `core::explore`), in a test view's words:
//! a result is `passed` only for a ✓ (every schedule up to a bound ran under control);
//! a budget's end or a search without a claim is `unproven`, never a pass.
//!
//! Deferred like the selection status: marked due when an analysis ran or a job changed,
//! computed when no message waits, given up for a newer edit, and sent only when it
//! differs from the last one sent.

use racelens_analysis::cancel::{Cancel, Cancelled};
use racelens_analysis::index::Origin;
use racelens_analysis::select;
use racelens_explore::exploration::replay_command;
use racelens_explore::reports::{ResultKind, TestResult};
use tower_lsp_server::ls_types::notification;

use super::explore::{fingerprint, plural, test_name};
use super::Core;
use crate::convert::file_uri;
use crate::lenses::explore_arguments;
use crate::payloads::{TestEntry, TestStateKind, TestStates};
use crate::positions;

pub enum TestStatesNotification {}

impl notification::Notification for TestStatesNotification {
    type Params = TestStates;
    const METHOD: &'static str = "racelens/testStates";
}

impl Core {
    /// The tests' states may have changed (an analysis, a job): send them when idle.
    pub(super) fn test_states_due(&mut self) {
        if self.caps.test_states {
            self.tests_due.extend(0..self.workspaces.len());
        }
    }

    /// A running exploration progressed (every 250 ms): only its entry's message changes, so
    /// the list last sent is updated in place and sent, not computed again (that reads every
    /// test's reach: 0.7 s on a 475k-line workspace). Without a list sent yet, it is due.
    pub(super) fn test_progressed(&mut self, id: u64) {
        let Some(r) = self.jobs.running.get(&id).filter(|r| !r.replay) else { return };
        if !self.caps.test_states {
            return;
        }
        let message = running_message(r.schedules, r.bound);
        let (root, test) = &r.key;
        let sent = self.workspaces.iter_mut().find(|ws| ws.root == *root).and_then(|ws| ws.tests_sent.as_mut());
        let Some((sent, entry)) = sent.and_then(|s| s.tests.iter().position(|t| t.test == *test).map(|i| (s, i)))
        else {
            return self.test_states_due();
        };
        let entry = &mut sent.tests[entry];
        if entry.state == TestStateKind::Running && entry.message == message {
            return;
        }
        entry.state = TestStateKind::Running;
        entry.message = message;
        let states = sent.clone();
        let client = self.client.clone();
        self.rt.block_on(client.send_notification::<TestStatesNotification>(states));
    }

    /// Sends workspace `w`'s tests and their states if they changed since last sent.
    pub(super) fn send_test_states(&mut self, w: usize, cancel: &Cancel) -> Result<(), Cancelled> {
        if !self.caps.test_states || w >= self.workspaces.len() {
            return Ok(());
        }
        let states = self.test_states(w, cancel)?;
        if self.workspaces[w].tests_sent.as_ref() == Some(&states) {
            return Ok(());
        }
        self.workspaces[w].tests_sent = Some(states.clone());
        let client = self.client.clone();
        self.rt.block_on(client.send_notification::<TestStatesNotification>(states));
        Ok(())
    }

    fn test_states(&mut self, w: usize, cancel: &Cancel) -> Result<TestStates, Cancelled> {
        let root = self.workspaces[w].root.clone();
        let results = self.jobs.results(&root).clone();
        let encoding = self.encoding();
        let index = self.workspaces[w].host.index();
        let mut tests = Vec::new();
        let mut reach = select::ReachCache::default();
        for (file, entry) in index.entries() {
            cancel.check()?;
            let Some(uri) = file_uri(&root, &index.path(Origin::Project(file))) else { continue };
            for t in select::thread_tests_in_with(index, file, &mut reach) {
                let name = test_name(&t);
                let key = (root.clone(), name.clone());
                let mut test = TestEntry {
                    test: name.clone(),
                    explore: explore_arguments(&uri, &t.class, &t.name),
                    range: positions::range(&entry.facts, t.span, encoding),
                    inherited: t.inherited,
                    state: TestStateKind::None,
                    message: String::new(),
                    result: None,
                    location: None,
                    related: Vec::new(),
                    replay: None,
                };
                // A replay runs a schedule once and keeps no result: the test keeps its own.
                match self.jobs.running_for(&key).filter(|r| !r.replay) {
                    Some(r) => {
                        test.state = TestStateKind::Running;
                        test.message = running_message(r.schedules, r.bound);
                    }
                    None if self.jobs.is_queued(&key) => test.state = TestStateKind::Queued,
                    None => {
                        if let Some(result) = results.get(&name) {
                            test.result = Some(self.jobs.result_number(&key));
                            if result.fingerprint != fingerprint(index, &t, &result.heuristic) {
                                test.state = TestStateKind::Stale;
                                test.message = "stale: the code the test reaches changed since it was explored".into();
                            } else {
                                self.result_state(w, result, &mut test);
                            }
                        }
                    }
                }
                tests.push(test);
            }
        }
        Ok(TestStates { root: root.display().to_string(), tests })
    }

    /// A fresh result in a test view's words (the lens's, in full).
    fn result_state(&self, w: usize, result: &TestResult, test: &mut TestEntry) {
        let by = result.produced_by();
        let (state, message) = match &result.kind {
            ResultKind::Failed { headline, schedules, preemptions, place, schedule, .. } => {
                test.replay =
                    Some(replay_command(&self.workspaces[w].root.display().to_string(), &result.test, schedule));
                test.location = place.as_ref().and_then(|p| self.place_location(w, p));
                test.related = self.preemptions_related(w, preemptions);
                (
                    TestStateKind::Failed,
                    format!(
                        "{headline}\n(a schedule racelens found after {} by {by})",
                        plural(*schedules, "schedule", "schedules")
                    ),
                )
            }
            ResultKind::Passed { coverage, covered } if coverage.is_complete() => (
                TestStateKind::Passed,
                format!(
                    "✓ no failure: {} · {} covered · {by}",
                    coverage.text(),
                    plural(*covered as u64, "impacted point", "impacted points")
                ),
            ),
            ResultKind::Passed { coverage, .. } => {
                (TestStateKind::Unproven, format!("no failure, and no claim: {} · {by}", coverage.text()))
            }
            ResultKind::Limit { coverage } => {
                (TestStateKind::Unproven, format!("no failure yet: {} · {by}", coverage.text()))
            }
            ResultKind::Uncontrolled { message } => (TestStateKind::Errored, format!("not explored: {message}")),
            ResultKind::Stopped { message } => (TestStateKind::Errored, format!("stopped: {message}")),
            ResultKind::Unconfirmed { message } => (TestStateKind::Errored, message.clone()),
        };
        test.state = state;
        test.message = message;
    }
}

/// What a running exploration's entry says: `starting`, `12 schedules · preemption bound 1`.
fn running_message(schedules: u64, bound: u32) -> String {
    match schedules {
        0 => "starting".into(),
        n => format!("{} · preemption bound {bound}", plural(n, "schedule", "schedules")),
    }
}
