//! What each step of an execution did to shared state, as the agent reports it with the
//! `trace` option (`X` and `P` lines, PROTOCOL.md "Effects"): the data the reduction of
//! the search ([`crate::search::dpor`]) reasons about.
//!
//! A *step* is the code a thread runs from one scheduling point to the next, atomically
//! as far as the scheduler is concerned. Its *effects* are the shared variables it read or
//! wrote, the locks it took or released, the threads it started: everything another
//! thread's step can depend on.

use std::ops::Range;

use crate::threads::ThreadId;

/// A shared variable: an object and a slot in it. The object is its birth name (from
/// [`BORN`] up: the allocating thread and how many objects it allocated before, the same in
/// every schedule of a class), a number in order of first use in this execution for objects
/// born elsewhere (below [`BORN`]), `0` for the static fields, or a negative id for the
/// per-thread and global variables of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var {
    pub obj: i32,
    pub slot: i32,
}

/// Object ids from here up are birth names.
pub const BORN: i32 = 1 << 20;

/// Slots the agent uses besides field ids (which are `>= 0`).
pub mod slot {
    /// Any element of an array object.
    pub const ARRAY: i32 = -1;
    /// The state of a JDK object a call was made on (a collection, an atomic, a model).
    pub const CALL: i32 = -2;
    /// A lock's ownership (monitors, `ReentrantLock`, read/write locks).
    pub const LOCK: i32 = -3;
    /// A monitor's or condition's wait set.
    pub const WAITSET: i32 = -4;
    /// Slots of a thread's own variable (object `-1 - thread`).
    pub const LIFE: i32 = 0;
    pub const PERMIT: i32 = 1;
    pub const INTERRUPT: i32 = 2;
    /// Its wait state (`Thread.getState()`): written when it starts and ends a wait, and by
    /// the `notify` that moves it out of a wait set.
    pub const STATE: i32 = 3;
}

impl Var {
    /// The variable of thread `t` that its start, end, `join` and `isAlive` touch.
    pub fn life(t: ThreadId) -> Var {
        Var { obj: -1 - i32::from(t), slot: slot::LIFE }
    }

    pub fn lock(obj: i32) -> Var {
        Var { obj, slot: slot::LOCK }
    }

    /// Whether the id means the same object in another execution: a birth name or a
    /// variable of the model, not an object numbered by first use.
    pub fn is_named(&self) -> bool {
        self.obj <= 0 || self.obj >= BORN
    }
}

/// How a step touches a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    /// Takes an exclusive lock (the variable is the lock's [`slot::LOCK`]); conflicts like
    /// a write.
    Acquire,
    /// Releases an exclusive lock fully. It conflicts with nothing (the next acquirer was
    /// disabled until it), but it ends the holder's critical section.
    Release,
    /// Starts thread `t` (a write of its life variable).
    Start(ThreadId),
    /// Waits for thread `t` to end: `join` (a read of its life variable, disabled while
    /// the thread is alive).
    Join(ThreadId),
    /// Depends on everything: a timeout that fired because no thread could run, a static
    /// call into the JDK whose effects racelens does not see.
    Global,
    /// A commutative update whose result no one reads: `counter.incrementAndGet();` with
    /// the value dropped, `adder.add(n)`. It conflicts with reads and writes of the variable
    /// like a write, but not with another `Add`: two of them in either order leave the
    /// same value and tell no one which ran first, so they are one class (issue 22, item 1).
    Add,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Effect {
    pub access: Access,
    pub var: Var,
}

impl Effect {
    pub fn writes(&self) -> bool {
        matches!(self.access, Access::Write | Access::Acquire | Access::Start(_) | Access::Add)
    }

    /// The effect's code as the `X` line writes it.
    pub fn code(&self) -> String {
        let Var { obj, slot } = self.var;
        match self.access {
            Access::Read => format!("r{obj}.{slot}"),
            Access::Write => format!("w{obj}.{slot}"),
            Access::Acquire => format!("a{obj}"),
            Access::Release => format!("u{obj}"),
            Access::Start(t) => format!("s{t}"),
            Access::Join(t) => format!("j{t}"),
            Access::Global => "g".to_string(),
            Access::Add => format!("c{obj}.{slot}"),
        }
    }
}

/// One step: who ran it, and the range of its effects in [`Trace::effects`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRec {
    pub thread: ThreadId,
    pub effects: Range<u32>,
}

/// Every step of an execution with its effects, and what each live thread was about to do
/// when it ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub steps: Vec<StepRec>,
    pub effects: Vec<Effect>,
    /// `(thread, effects)` of the operation each thread still alive at the end was about to
    /// perform (blocked or waiting for its turn).
    pub pending: Vec<(ThreadId, Range<u32>)>,
    /// RUN option `stepsites`: the site of each step's point (0 for a step without one: a
    /// thread's first step, the completion of a blocked operation); empty without it.
    pub step_sites: Vec<u32>,
}

impl Trace {
    /// One more than the highest thread id that stepped or was still pending: the size of a
    /// per-thread table over this trace.
    pub fn thread_count(&self) -> usize {
        self.steps
            .iter()
            .map(|s| s.thread as usize + 1)
            .chain(self.pending.iter().map(|p| p.0 as usize + 1))
            .max()
            .unwrap_or(1)
    }

    pub fn effects_of(&self, r: &Range<u32>) -> &[Effect] {
        &self.effects[r.start as usize..r.end as usize]
    }

    pub fn step_effects(&self, k: usize) -> &[Effect] {
        self.effects_of(&self.steps[k].effects)
    }

    /// Parses one `X` line's tokens (after the tag): one token per step, in order.
    pub fn push_steps(&mut self, rest: &str) -> Result<(), String> {
        for token in rest.split(' ').filter(|t| !t.is_empty()) {
            let (thread, codes) = split_thread(token)?;
            let effects = self.push_effects(codes)?;
            self.steps.push(StepRec { thread, effects });
        }
        Ok(())
    }

    /// Parses the `S` line's tokens: one site per step, in order.
    pub fn push_step_sites(&mut self, rest: &str) -> Result<(), String> {
        for token in rest.split(' ').filter(|t| !t.is_empty()) {
            self.step_sites.push(token.parse().map_err(|_| format!("bad step site `{token}`"))?);
        }
        Ok(())
    }

    /// The site of step `k`'s point, when the run reported step sites and it has one.
    pub fn site_of(&self, k: usize) -> Option<u32> {
        self.step_sites.get(k).copied().filter(|&s| s != 0)
    }

    /// Parses one `P` line's tokens: `thread:codes` for each live thread.
    pub fn push_pending(&mut self, rest: &str) -> Result<(), String> {
        for token in rest.split(' ').filter(|t| !t.is_empty()) {
            let (thread, codes) = token.split_once(':').ok_or_else(|| format!("bad pending entry `{token}`"))?;
            let thread = thread.parse().map_err(|_| format!("bad pending entry `{token}`"))?;
            let effects = self.push_effects(codes)?;
            self.pending.push((thread, effects));
        }
        Ok(())
    }

    fn push_effects(&mut self, codes: &str) -> Result<Range<u32>, String> {
        let start = self.effects.len() as u32;
        let mut rest = codes;
        while !rest.is_empty() {
            let (effect, tail) = parse_code(rest).ok_or_else(|| format!("bad effect `{rest}`"))?;
            self.effects.push(effect);
            rest = tail;
        }
        Ok(start..self.effects.len() as u32)
    }
}

fn var(rest: &str) -> Option<(Var, &str)> {
    let (obj, rest) = int(rest)?;
    let (slot, rest) = int(rest.strip_prefix('.')?)?;
    Some((Var { obj, slot }, rest))
}

fn thread(rest: &str) -> Option<(ThreadId, &str)> {
    let (t, rest) = int(rest)?;
    Some((ThreadId::try_from(t).ok()?, rest))
}

fn split_thread(token: &str) -> Result<(ThreadId, &str), String> {
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    let thread = token[..digits].parse().map_err(|_| format!("bad step `{token}`"))?;
    Ok((thread, &token[digits..]))
}

/// A signed decimal number at the start of `s`, and the rest.
fn int(s: &str) -> Option<(i32, &str)> {
    let sign = usize::from(s.starts_with('-'));
    let len = sign + s[sign..].bytes().take_while(u8::is_ascii_digit).count();
    Some((s[..len].parse().ok()?, &s[len..]))
}

/// One effect code: `r<obj>.<slot>`, `w<obj>.<slot>`, `c<obj>.<slot>`, `a<obj>`, `u<obj>`, `s<thread>`,
/// `j<thread>`, `g`.
fn parse_code(s: &str) -> Option<(Effect, &str)> {
    let (kind, rest) = (s.as_bytes()[0], &s[1..]);
    Some(match kind {
        b'r' => var(rest).map(|(v, r)| (Effect { access: Access::Read, var: v }, r))?,
        b'w' => var(rest).map(|(v, r)| (Effect { access: Access::Write, var: v }, r))?,
        b'c' => var(rest).map(|(v, r)| (Effect { access: Access::Add, var: v }, r))?,
        b'a' => int(rest).map(|(o, r)| (Effect { access: Access::Acquire, var: Var::lock(o) }, r))?,
        b'u' => int(rest).map(|(o, r)| (Effect { access: Access::Release, var: Var::lock(o) }, r))?,
        b's' => thread(rest).map(|(t, r)| (Effect { access: Access::Start(t), var: Var::life(t) }, r))?,
        b'j' => thread(rest).map(|(t, r)| (Effect { access: Access::Join(t), var: Var::life(t) }, r))?,
        b'g' => (Effect { access: Access::Global, var: Var { obj: 0, slot: 0 } }, rest),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_pending_operations_are_parsed() {
        let mut t = Trace::default();
        t.push_steps("0 0r3.5 1w3.5r-2.1 0a4 0u4 0s2 2 1j2g").unwrap();
        t.push_pending("1:a4 2:").unwrap();
        assert_eq!(t.steps.len(), 8);
        assert_eq!(t.steps[2].thread, 1);
        assert_eq!(
            t.step_effects(2),
            &[
                Effect { access: Access::Write, var: Var { obj: 3, slot: 5 } },
                Effect { access: Access::Read, var: Var { obj: -2, slot: 1 } }
            ]
        );
        assert_eq!(t.step_effects(3), &[Effect { access: Access::Acquire, var: Var::lock(4) }]);
        assert_eq!(t.step_effects(5), &[Effect { access: Access::Start(2), var: Var::life(2) }]);
        assert!(t.step_effects(6).is_empty());
        assert_eq!(t.step_effects(7)[1].access, Access::Global);
        assert_eq!(t.effects_of(&t.pending[0].1), &[Effect { access: Access::Acquire, var: Var::lock(4) }]);
        assert!(t.effects_of(&t.pending[1].1).is_empty());
        assert!(t.clone().push_steps("x1").is_err());
        assert!(t.clone().push_steps("1q3").is_err());
    }
}
