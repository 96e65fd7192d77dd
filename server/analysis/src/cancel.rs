//! Cancelling long work that newer input makes stale: the language server counts edits
//! ([`Edits`]) as they arrive, before they wait in its queue; work that may be thrown away
//! takes a [`Cancel`] token when it starts and stops at the next poll once an edit came
//! after it. Work whose answer someone waits for takes [`Cancel::never`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// How many edits arrived, shared between whoever receives them and the work they cancel.
#[derive(Clone, Debug, Default)]
pub struct Edits(Arc<AtomicU64>);

impl Edits {
    /// One more edit: every token taken before it is cancelled.
    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    /// A token cancelled by the next edit.
    pub fn token(&self) -> Cancel {
        Cancel { edits: Some(self.0.clone()), seen: self.0.load(Ordering::SeqCst) }
    }
}

/// Whether an edit arrived since the token was taken.
#[derive(Clone, Debug)]
pub struct Cancel {
    edits: Option<Arc<AtomicU64>>,
    seen: u64,
}

/// The work stopped: an edit made its result stale. Nothing partial comes with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

impl Cancel {
    /// A token no edit cancels, for work whose result is waited for.
    pub fn never() -> Cancel {
        Cancel { edits: None, seen: 0 }
    }

    pub fn is_cancelled(&self) -> bool {
        self.edits.as_ref().is_some_and(|e| e.load(Ordering::Relaxed) != self.seen)
    }

    /// `Err(Cancelled)` once cancelled, for `?` in loops.
    pub fn check(&self) -> Result<(), Cancelled> {
        match self.is_cancelled() {
            true => Err(Cancelled),
            false => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_cancels_the_tokens_taken_before_it_only() {
        let edits = Edits::default();
        let before = edits.token();
        assert!(!before.is_cancelled());
        edits.bump();
        let after = edits.token();
        assert_eq!((before.check(), after.check()), (Err(Cancelled), Ok(())));
        edits.bump();
        assert!(after.is_cancelled() && !Cancel::never().is_cancelled());
    }
}
