//! Change-aware strategies beyond CAPP's fourteen heuristics.
//!
//! - **pair-directed** (`pair`): a preemption is worth exploring first when it happens
//!   right before an access that belongs to an impacted shared-variable pair (SimRT's
//!   coverage targets) — the running thread is about to perform one end, or the thread
//!   switched to is. Pairs rank as the thesis orders them (chapter 5): data pairs (RW, WW)
//!   before wait/notify (WN) before monitor pairs (MM); unprotected before protected. Other
//!   preemptions wait for the next iteration.
//! - **change-aware PCT** (`pct`): probabilistic concurrency testing (Burckhardt et al.)
//!   whose priority change points are drawn only at impacted points; run by the agent's
//!   PCT scheduler, one random schedule per execution.

use racelens_analysis::impact::PairKind;

use crate::jvm::protocol::Known;
use crate::jvm::protocol::{Execution, ThreadId};
use crate::search::capp::{Position, SiteMap};
use crate::search::change::PairTarget;
use crate::search::Prioritizer;

pub struct PairPrioritizer {
    pairs: Vec<PairTarget>,
    map: SiteMap,
    pub matched: u64,
    pub decisions: u64,
}

impl PairPrioritizer {
    pub fn new(pairs: Vec<PairTarget>, map: SiteMap) -> PairPrioritizer {
        PairPrioritizer { pairs, map, matched: 0, decisions: 0 }
    }

    /// The best rank of a pair one of whose ends is at this position (lower is better).
    fn rank(&self, p: &Position) -> Option<u32> {
        let file = p.file.as_ref()?;
        self.pairs
            .iter()
            .filter(|t| t.ends.iter().any(|e| &e.file == file && e.line == p.line))
            .map(|t| {
                let kind = match t.kind {
                    PairKind::RW | PairKind::WW => 0,
                    PairKind::WN => 2,
                    PairKind::MM => 4,
                };
                kind + u32::from(t.protected)
            })
            .min()
    }
}

impl Prioritizer for PairPrioritizer {
    fn partition(
        &mut self,
        exec: &Execution,
        index: usize,
        alternatives: Vec<ThreadId>,
        known: Known,
    ) -> (Vec<ThreadId>, Vec<ThreadId>) {
        let d = &exec.decisions[index];
        self.decisions += 1;
        let rank_of = |t: ThreadId| -> Option<u32> {
            let site =
                if t == d.thread { Some(d.site) } else { d.pending.iter().find(|p| p.thread == t).map(|p| p.site) }?;
            let s = known.sites.get(&site)?;
            self.rank(&self.map.position(s))
        };
        // Right before the running thread performs a pair's end, any switch is worth it.
        let current_rank = d.current.and_then(rank_of);
        let mut now: Vec<(u32, ThreadId)> = Vec::new();
        let mut later = Vec::new();
        for t in alternatives {
            match (current_rank, rank_of(t)) {
                (Some(a), Some(b)) => now.push((a.min(b), t)),
                (Some(r), None) | (None, Some(r)) => now.push((r, t)),
                (None, None) => later.push(t),
            }
        }
        if !now.is_empty() {
            self.matched += 1;
        }
        // The best rank goes last.
        now.sort_by_key(|(r, _)| std::cmp::Reverse(*r));
        (now.into_iter().map(|(_, t)| t).collect(), later)
    }

    fn matched(&self) -> u64 {
        self.matched
    }

    fn impacted_site(&self, site: u32, known: Known) -> bool {
        known.sites.get(&site).is_some_and(|s| self.rank(&self.map.position(s)).is_some())
    }
}
