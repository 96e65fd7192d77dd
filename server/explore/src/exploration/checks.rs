//! A failure racelens reports is one the program can have. Before a failing schedule is
//! reported as a failure:
//!
//! - it runs again in a fresh JVM and must fail the same way (the same kind of outcome, the
//!   same exception class). Executions share one JVM; the statics of application classes are
//!   re-initialised for each (the agent's `StaticReset`), but JDK and library statics, and
//!   whatever the test does outside racelens's control, are not. A schedule that does not fail
//!   again is reported as what it is ([`Verdict::Unconfirmed`]), never as a failure.
//! - when it has no preemption (the default schedule, which RTSCheck's rule R7 says a test that
//!   passes plainly passes too) or the exception was raised inside racelens's runtime or models,
//!   the test also runs plainly, without the agent ([`crate::jvm::plain`], a few runs). A
//!   failure raised in a model where every plain run passes is a limitation of racelens
//!   ([`Verdict::Limitation`]: what was not modelled, where), not a failure. Otherwise the
//!   failure stands, and what the plain runs did is a note beside it; a failure on the default
//!   schedule that no plain run shows is named as a violation of RTSCheck's rule R7 (a test that
//!   passes plainly passes on the schedule the JVM itself takes), which a real but rare race
//!   also makes (a lost wake-up), so it is a note, not a verdict.

use crate::explorer::{self, Found, Verdict};
use crate::jvm::plain::{self, PlainRun};
use crate::jvm::protocol::{Frame, Outcome};
use crate::jvm::{Mode, TestSpec};
use crate::results::report;

use super::Toolchain;

/// How many plain runs a suspect failure is compared with.
pub const PLAIN_RUNS: usize = 3;

/// What checking a failing schedule found.
#[derive(Clone, Debug)]
pub struct Checks {
    /// How the schedule ended when it ran again in a fresh JVM (`None`: it failed the same way).
    pub fresh_jvm: Option<String>,
    /// The plain runs made, in order (none when the failure did not call for them).
    pub plain: Vec<PlainRun>,
    /// The frame of racelens's runtime or models the exception was raised in, if it was.
    pub model: Option<Frame>,
    /// Whether the failure is the default schedule's: no preemption, every `notify` waking the
    /// longest waiter (the schedule a test that passes plainly should pass, RTSCheck's R7).
    pub on_default_schedule: bool,
}

/// Checks `found` (a failing schedule of `test`) and returns the verdict to report.
pub fn check(
    toolchain: &Toolchain,
    test: &TestSpec,
    found: Box<Found>,
    max_steps: u32,
) -> Result<(Verdict, Checks), String> {
    let model = match &found.full.outcome {
        Outcome::Fail(f) => f.model.clone(),
        _ => None,
    };
    let (fresh_jvm, on_default_schedule) = again_in_fresh_jvm(toolchain, test, &found, max_steps)?;
    let mut checks = Checks { fresh_jvm, plain: Vec::new(), model, on_default_schedule };
    if let Some(how) = &checks.fresh_jvm {
        let why = format!(
            "{} after {}, but the schedule {how} when it runs again in a fresh JVM: the failure came from state earlier executions left in the JVM (statics of JDK or library classes, which racelens does not re-initialise) or from nondeterminism racelens does not control",
            report::headline(&found.full),
            plural(found.schedules, "schedule")
        );
        return Ok((Verdict::Unconfirmed(found, why), checks));
    }
    if !found.preemptions.is_empty() && checks.model.is_none() {
        return Ok((Verdict::Failed(found), checks));
    }
    let invocation = found.full.invocation.as_ref().map(|i| i.index);
    checks.plain = plain::runs(&toolchain.jdk, &toolchain.agent, &toolchain.project, test, invocation, PLAIN_RUNS)?;
    let every_plain_run_passed = checks.plain.iter().all(|r| *r == PlainRun::Pass);
    match &checks.model {
        Some(frame) if every_plain_run_passed => {
            let why = format!(
                "{} was raised inside racelens's model of the JDK ({}.{}:{}), while the test passed {} without racelens: a JDK behaviour racelens does not model here; nothing is claimed about this test's schedules",
                failure_of(&found.full.outcome),
                frame.class,
                frame.method,
                frame.line,
                plural(checks.plain.len() as u64, "plain run"),
            );
            Ok((Verdict::Limitation(found, why), checks))
        }
        _ => Ok((Verdict::Failed(found), checks)),
    }
}

/// Runs the failing schedule again in a fresh JVM: `None` when it fails the same way, else how
/// it ended there (`passes`, `fails differently (...)`, `does not replay (...)`). And whether the
/// failure is the default schedule's (the one the JVM itself takes: no preemption, and every
/// `notify` waking the longest waiter), told by running that schedule too when the failing one
/// has no preemption.
fn again_in_fresh_jvm(
    toolchain: &Toolchain,
    test: &TestSpec,
    found: &Found,
    max_steps: u32,
) -> Result<(Option<String>, bool), String> {
    let mut session = toolchain.session(test.clone());
    let ran = explorer::replay(&mut session, &found.string, max_steps);
    let default = match &ran {
        Ok((_, None)) if found.preemptions.is_empty() => Some(session.run(&[], Mode::Fast, max_steps)),
        _ => None,
    };
    session.close();
    let (exec, diverged) = ran?;
    if let Some((k, want, got)) = diverged {
        return Ok((
            Some(format!("does not replay (at decision {k} it switches at {want}, the run reached {got})")),
            false,
        ));
    }
    let on_default_schedule = match default {
        Some(run) => same_failure(&found.full.outcome, &run?.outcome),
        None => false,
    };
    Ok(match (&found.full.outcome, &exec.outcome) {
        (first, again) if same_failure(first, again) => (None, on_default_schedule),
        (_, Outcome::Pass) => (Some("passes".into()), false),
        _ => (Some(format!("fails differently ({})", report::headline(&exec))), false),
    })
}

/// The same kind of failure: the same exception class, the same exit status, a deadlock.
fn same_failure(first: &Outcome, again: &Outcome) -> bool {
    match (first, again) {
        (Outcome::Fail(a), Outcome::Fail(b)) => a.exception == b.exception,
        (Outcome::Deadlock(_), Outcome::Deadlock(_)) => true,
        (Outcome::Exit(a), Outcome::Exit(b)) => a == b,
        _ => false,
    }
}

/// `java.lang.IllegalArgumentException: not owner`.
fn failure_of(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Fail(f) if f.message.is_empty() => f.exception.clone(),
        Outcome::Fail(f) => format!("{}: {}", f.exception, f.message),
        other => other.kind().to_string(),
    }
}

fn plural(n: u64, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

impl Checks {
    /// Notes beside a failure that stands: what the plain runs did. A failure on the default
    /// schedule that no plain run shows violates RTSCheck's rule R7 (a test that passes plainly
    /// passes on that schedule): the JVM rarely takes it, or racelens ran the test otherwise
    /// than the JVM does (a time source, I/O or code it does not control). Which one, nothing
    /// here can tell (a lost wake-up that plain runs seldom hit is the first), so the failure
    /// stands and the note says both.
    pub fn notes(&self) -> Vec<String> {
        let n = self.plain.len();
        match self.plain.iter().position(|r| *r != PlainRun::Pass) {
            Some(i) => vec![format!("note: the test fails without racelens too (plain run {} of {}: {})", i + 1, n, self.plain[i].describe())],
            None if n > 0 && self.on_default_schedule => vec![format!(
                "note: the test passed {} without racelens, although this is the schedule without preemptions (RTSCheck's rule R7): the JVM rarely takes it, or racelens ran the test otherwise than the JVM (a time source, I/O or code it does not control)",
                plural(n as u64, "plain run")
            )],
            None if n > 0 => vec![format!("note: the test passed {} without racelens: the JVM rarely takes this schedule", plural(n as u64, "plain run"))],
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks(plain: Vec<PlainRun>) -> Checks {
        Checks { fresh_jvm: None, plain, model: None, on_default_schedule: false }
    }

    #[test]
    fn the_notes_say_what_the_plain_runs_did() {
        assert!(checks(Vec::new()).notes().is_empty());
        assert_eq!(
            checks(vec![PlainRun::Pass; 3]).notes(),
            ["note: the test passed 3 plain runs without racelens: the JVM rarely takes this schedule"]
        );
        let r7 = Checks { on_default_schedule: true, ..checks(vec![PlainRun::Pass; 3]) };
        assert!(r7.notes()[0].contains("RTSCheck's rule R7"), "{:?}", r7.notes());
        let failed = checks(vec![
            PlainRun::Pass,
            PlainRun::Fail("java.lang.AssertionError".into(), "expected:<2> but was:<1>".into()),
        ]);
        assert_eq!(failed.notes(), ["note: the test fails without racelens too (plain run 2 of 2: failed with java.lang.AssertionError: expected:<2> but was:<1>)"]);
        assert_eq!(
            checks(vec![PlainRun::Exit(3)]).notes(),
            ["note: the test fails without racelens too (plain run 1 of 1: exited with status 3)"]
        );
    }

    #[test]
    fn the_same_failure_is_the_same_kind_and_exception_class() {
        use crate::jvm::protocol::Failure;
        let fail = |e: &str, m: &str| {
            Outcome::Fail(Failure {
                thread: 0,
                exception: e.into(),
                message: m.into(),
                frames: Vec::new(),
                model: None,
            })
        };
        assert!(same_failure(&fail("java.lang.AssertionError", "a"), &fail("java.lang.AssertionError", "b")));
        assert!(!same_failure(&fail("java.lang.AssertionError", "a"), &fail("java.lang.IllegalStateException", "a")));
        assert!(!same_failure(&fail("java.lang.AssertionError", "a"), &Outcome::Pass));
        assert!(
            same_failure(&Outcome::Exit(3), &Outcome::Exit(3)) && !same_failure(&Outcome::Exit(3), &Outcome::Exit(4))
        );
        assert!(same_failure(&Outcome::Deadlock(Vec::new()), &Outcome::Deadlock(vec![(1, "lock".into())])));
    }
}
