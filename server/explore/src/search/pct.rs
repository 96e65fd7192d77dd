//! Change-aware PCT (probabilistic concurrency testing, Burckhardt et al., ASPLOS 2010):
//! random schedules from the agent's PCT scheduler, whose priority change points fall only
//! at impacted points (`sites`, `class:line`), `depth - 1` of them. A first run of the
//! default schedule in full mode counts how many impacted points an execution passes: the
//! horizon the change points are drawn in.

use crate::jvm::protocol::{Execution, Known};
use crate::jvm::Mode;
use crate::search::rng::XorShift;
use crate::search::{Kind, Request};

pub struct Pct {
    depth: u32,
    sites: Vec<String>,
    /// Runs left, the probe included.
    remaining: u64,
    horizon: Option<usize>,
    rng: XorShift,
}

impl Pct {
    pub fn new(depth: u32, sites: Vec<String>, runs: u64, seed: Option<u64>) -> Pct {
        Pct { depth, sites, remaining: runs, horizon: None, rng: XorShift::new(seed.unwrap_or(1)) }
    }

    pub fn has_next(&self) -> bool {
        self.remaining > 0
    }

    pub fn next(&mut self) -> Option<Request> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let Some(horizon) = self.horizon else {
            return Some(Request { choices: Vec::new(), mode: Mode::Full, options: Vec::new(), kind: Kind::Pct });
        };
        let seed = self.rng.next_u64() >> 1;
        let list = if self.sites.is_empty() { "*".to_string() } else { self.sites.join("+") };
        let option = format!("pct={seed}/{}/{horizon}/{list}", self.depth);
        Some(Request { choices: Vec::new(), mode: Mode::Fast, options: vec![option], kind: Kind::Pct })
    }

    /// The probe's execution gives the horizon.
    pub fn record(&mut self, exec: &Execution, known: Known) {
        if self.horizon.is_none() {
            let impacted = |id: u32| {
                known.sites.get(&id).is_some_and(|s| self.sites.iter().any(|x| x == &format!("{}:{}", s.class, s.line)))
            };
            self.horizon =
                Some(exec.events.iter().filter(|e| self.sites.is_empty() || impacted(e.site)).count().max(1));
        }
    }
}
