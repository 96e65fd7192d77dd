//! Random schedules next to the systematic search (issue 22, item 5): a random walk, or
//! partial-order sampling (POS, Yuan, Yang and Gu, CAV 2018, the default of Fray), decided
//! by the agent at each decision point (`walk=`/`pos=` in `server/agent/PROTOCOL.md`).
//!
//! Why a portfolio: the systematic search explores bound 0 before bound 1, and a test with
//! twenty threads has thousands of bound-0 classes, so a fault that needs one preemption
//! may be out of its reach within any budget; a random sampler reaches such schedules with
//! a probability that does not depend on how many others there are. [`Search`] gives the
//! sampler a share of the runs once an execution has shown more than four threads: every
//! other run of the first [`SAMPLE_FIRST`] (most faults either finds turn up that early, and
//! which one finds a fault first is anybody's guess), then one run in [`sample_every`]. With
//! four threads or fewer it gets none: there the change-aware systematic order finds the
//! CAPP bench's faults in fewer runs than any sampler, and sharing its runs made it slower
//! than `basic` on one of them. Sampled runs claim nothing: the claim is the systematic
//! search's.
//!
//! [`Search`]: super::Search

use crate::jvm::Mode;
use crate::search::rng::XorShift;
use crate::search::{Kind, Request};

/// How the random schedules are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Each decision an enabled thread drawn uniformly.
    Walk,
    /// Partial-order sampling: random priorities per pending event, redrawn for the events
    /// that race with the one that ran.
    Pos,
}

impl Sampling {
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Walk => "random",
            Sampling::Pos => "pos",
        }
    }
}

pub struct Sampler {
    sampling: Sampling,
    rng: XorShift,
}

impl Sampler {
    pub fn new(sampling: Sampling, seed: Option<u64>) -> Sampler {
        // A stream of its own: the same seed orders the systematic search's alternatives.
        Sampler { sampling, rng: XorShift::new(seed.unwrap_or(1) ^ 0x5eed_5a3b_1e00_0000) }
    }

    pub fn next(&mut self) -> Request {
        let seed = self.rng.next_u64() >> 1;
        let option = match self.sampling {
            Sampling::Walk => format!("walk={seed}"),
            Sampling::Pos => format!("pos={seed}"),
        };
        Request { choices: Vec::new(), mode: Mode::Fast, options: vec![option], kind: Kind::Sample }
    }
}

/// Runs at the start of an exploration in which the sampler takes every other turn.
pub const SAMPLE_FIRST: u64 = 32;

/// Whether run `run` (from 1) of a portfolio goes to the sampler, the test having shown
/// `threads` threads so far (none before the first run).
pub fn takes_turn(run: u64, threads: usize) -> bool {
    let Some(every) = sample_every(threads) else { return false };
    match run <= SAMPLE_FIRST {
        true => run % 2 == 0,
        false => run % every == 0,
    }
}

/// After [`SAMPLE_FIRST`], one run in this many goes to the sampler, by the most threads an execution of the test
/// has had (the test's own thread included): the more threads, the more bound-0 classes
/// stand between the systematic search and a schedule with one preemption, and the better
/// random sampling does in comparison. With four or fewer none does: there the systematic
/// search reaches the small bounds quickly and its claims are what a user waits for (the
/// CAPP bench's tests, with up to four, keep their numbers).
pub fn sample_every(threads: usize) -> Option<u64> {
    match threads {
        0..=4 => None,
        5..=8 => Some(4),
        _ => Some(2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_grows_with_the_threads_and_requests_differ() {
        assert_eq!((sample_every(3), sample_every(6), sample_every(100)), (None, Some(4), Some(2)));
        let turns = |threads: usize| (1..=200).filter(|&r| takes_turn(r, threads)).count();
        assert_eq!((turns(3), turns(6), turns(100)), (0, 16 + 42, 16 + 84));
        let mut s = Sampler::new(Sampling::Pos, Some(7));
        let (a, b) = (s.next(), s.next());
        assert!(a.options[0].starts_with("pos=") && a.options != b.options && a.kind == Kind::Sample);
    }
}
