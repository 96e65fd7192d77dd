//! ReConTest's phase I (§III, Definition 2): the accesses of the new version's execution
//! that can take part in interleavings the base version could not have, found by aligning
//! the two executions of the same test.
//!
//! An access of the new execution is *impacted* when
//! - it is **new** (`IN`): its statement was added or changed, or its statement is
//!   unchanged but the base execution has no access that corresponds to it (a new path:
//!   another branch taken, a loop run more often); or
//! - its **concurrency context changed** (`IC`): the corresponding base access held other
//!   locks, took part in another sequence of start/join/wait/notify events, or its thread
//!   released other locks since its previous access (a lock released earlier).
//!
//! Two accesses correspond (the relation `≈`) when their statements correspond (the line is
//! unchanged by the diff), they are the same kind on the same target, and they are the same
//! occurrence in corresponding threads. The base execution's statements, objects and threads
//! are first rewritten in the working tree's lines ([`Versions`]), so that the heap
//! abstraction compares (§III.B).

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::impact::recording::{AbsObj, Access, Message, Op, Recording, Statement, ThreadKey};

/// What the diff says about statements.
pub trait Versions {
    /// Whether the working tree's statement at `line` of `class` was added or changed.
    fn is_changed(&self, class: &str, line: u32) -> bool;
    /// The working tree's line of an unchanged base statement; `None` when the change
    /// removed or changed it.
    fn base_to_new(&self, class: &str, line: u32) -> Option<u32>;
}

/// Why an access is impacted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Reason {
    /// Its statement was added or changed.
    NewStatement,
    /// Its statement is unchanged, but the base execution never reached it this often.
    NewPath,
    /// Other locks are held (`old` and `new`: the locks, displayed).
    LocksetChanged { old: Vec<String>, new: Vec<String> },
    /// Another sequence of start/join/wait/notify events of its thread precedes it: the
    /// first message where the two differ (`-` when one sequence ends there).
    HappensBeforeChanged { old: String, new: String },
    /// Its thread released other locks since its previous access.
    LockReleasedEarlier { old: Vec<String>, new: Vec<String> },
}

impl Reason {
    /// The kind as JSON and the CLI name it.
    pub fn kind(&self) -> &'static str {
        match self {
            Reason::NewStatement => "new_statement",
            Reason::NewPath => "new_path",
            Reason::LocksetChanged { .. } => "lockset_changed",
            Reason::HappensBeforeChanged { .. } => "happens_before_changed",
            Reason::LockReleasedEarlier { .. } => "lock_released_earlier",
        }
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        let set = |v: &[String]| if v.is_empty() { "no lock".to_string() } else { v.join(", ") };
        match self {
            Reason::NewStatement => "new statement: the change added or changed it".into(),
            Reason::NewPath => "new path: the base version never ran it here this often".into(),
            Reason::LocksetChanged { old, new } => {
                format!("lockset changed: held {} before, {} now", set(old), set(new))
            }
            Reason::HappensBeforeChanged { old, new } => format!("happens-before changed: {old} before, {new} now"),
            Reason::LockReleasedEarlier { old, new } => format!(
                "lock released earlier: since its previous access the thread released {} before, {} now",
                set(old),
                set(new)
            ),
        }
    }
}

/// One impacted access of the new execution.
#[derive(Clone, Debug)]
pub struct Impacted<'a> {
    pub access: &'a Access,
    pub reasons: Vec<Reason>,
}

/// Phase I: the impacted accesses of `new`, in execution order.
pub fn impacted<'a>(base: &Recording, new: &'a Recording, versions: &dyn Versions) -> Vec<Impacted<'a>> {
    let base = rebase(base, versions);
    let base_hb = prefix_hashes(&base.messages);
    let new_hb = prefix_hashes(&new.messages);
    let index: HashMap<AlignKey, &Access> = base.accesses.iter().map(|a| (align_key(a), a)).collect();
    let mut out = Vec::new();
    for a in &new.accesses {
        let mut reasons = Vec::new();
        if versions.is_changed(&a.at.class, a.at.line) {
            reasons.push(Reason::NewStatement);
        } else {
            match index.get(&align_key(a)) {
                None => reasons.push(Reason::NewPath),
                Some(b) => {
                    if a.lockset != b.lockset {
                        reasons.push(Reason::LocksetChanged { old: names(&b.lockset), new: names(&a.lockset) });
                    }
                    if hb_of(&base_hb, b) != hb_of(&new_hb, a) {
                        let (old, new_m) =
                            first_difference(base.messages.get(&b.thread), b.hb, new.messages.get(&a.thread), a.hb);
                        reasons.push(Reason::HappensBeforeChanged { old, new: new_m });
                    }
                    if a.released != b.released {
                        reasons.push(Reason::LockReleasedEarlier {
                            old: b.released.iter().map(AbsObj::display).collect(),
                            new: a.released.iter().map(AbsObj::display).collect(),
                        });
                    }
                }
            }
        }
        if !reasons.is_empty() {
            out.push(Impacted { access: a, reasons });
        }
    }
    out
}

type AlignKey = (ThreadKey, Statement, Op, String, u32);

fn align_key(a: &Access) -> AlignKey {
    (a.thread.clone(), a.at.clone(), a.op, a.target.clone(), a.occurrence)
}

fn names(set: &BTreeSet<AbsObj>) -> Vec<String> {
    set.iter().map(AbsObj::display).collect()
}

/// For each thread, the hash of every prefix of its message sequence (`[0]`: empty).
fn prefix_hashes(messages: &HashMap<ThreadKey, Vec<Message>>) -> HashMap<ThreadKey, Vec<u64>> {
    messages
        .iter()
        .map(|(k, ms)| {
            let mut out = vec![0u64];
            for m in ms {
                let mut h = DefaultHasher::new();
                out.last().copied().unwrap_or(0).hash(&mut h);
                m.hash(&mut h);
                out.push(h.finish());
            }
            (k.clone(), out)
        })
        .collect()
}

fn hb_of(hashes: &HashMap<ThreadKey, Vec<u64>>, a: &Access) -> u64 {
    hashes.get(&a.thread).and_then(|h| h.get(a.hb)).copied().unwrap_or(0)
}

fn first_difference(
    old: Option<&Vec<Message>>,
    old_len: usize,
    new: Option<&Vec<Message>>,
    new_len: usize,
) -> (String, String) {
    let old = old.map(|v| &v[..old_len.min(v.len())]).unwrap_or(&[]);
    let new = new.map(|v| &v[..new_len.min(v.len())]).unwrap_or(&[]);
    let i = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let show = |m: Option<&Message>| m.map(Message::display).unwrap_or_else(|| "nothing".into());
    (show(old.get(i)), show(new.get(i)))
}

/// The base recording in the working tree's lines: every statement (of an access, of an
/// allocation, of a thread's start) moved to the line that stands for it now, or marked gone
/// so that it matches nothing.
fn rebase(base: &Recording, versions: &dyn Versions) -> Recording {
    let stmt = |s: &Statement| match versions.base_to_new(&s.class, s.line) {
        Some(line) => Statement { class: s.class.clone(), line },
        None => Statement { class: format!("{} (base, gone)", s.class), line: s.line },
    };
    let key = |k: &ThreadKey| ThreadKey(k.0.iter().map(|(s, n)| (stmt(s), *n)).collect());
    let obj = |o: &AbsObj| match o {
        AbsObj::Alloc { class, at, occurrence } => {
            AbsObj::Alloc { class: class.clone(), at: stmt(at), occurrence: *occurrence }
        }
        AbsObj::Thread(k) => AbsObj::Thread(key(k)),
        other => other.clone(),
    };
    let message = |m: &Message| Message { obj: obj(&m.obj), kind: m.kind.clone() };
    Recording {
        accesses: base
            .accesses
            .iter()
            .map(|a| Access {
                thread: key(&a.thread),
                thread_name: a.thread_name.clone(),
                at: stmt(&a.at),
                method: a.method.clone(),
                op: a.op,
                target: a.target.clone(),
                obj: obj(&a.obj),
                occurrence: a.occurrence,
                lockset: a.lockset.iter().map(obj).collect(),
                hb: a.hb,
                released: a.released.iter().map(obj).collect(),
                step: a.step,
            })
            .collect(),
        messages: base.messages.iter().map(|(k, ms)| (key(k), ms.iter().map(message).collect())).collect(),
        outcome: base.outcome.clone(),
        steps: base.steps,
        threads: base.threads,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impact::recording::SyncKind;

    /// Lines of class `A` from 100 up are new; base line `l` is line `l + shift` now, except
    /// the removed ones.
    struct Shift {
        shift: u32,
        removed: Vec<u32>,
    }

    impl Versions for Shift {
        fn is_changed(&self, _: &str, line: u32) -> bool {
            line >= 100
        }
        fn base_to_new(&self, _: &str, line: u32) -> Option<u32> {
            (!self.removed.contains(&line)).then_some(line + self.shift)
        }
    }

    fn at(line: u32) -> Statement {
        Statement { class: "p.A".into(), line }
    }

    fn lock(line: u32) -> AbsObj {
        AbsObj::Alloc { class: "java.lang.Object".into(), at: at(line), occurrence: 0 }
    }

    fn access(line: u32, locks: &[AbsObj], hb: usize, released: &[AbsObj]) -> Access {
        Access {
            thread: ThreadKey::default(),
            thread_name: "main".into(),
            at: at(line),
            method: "m".into(),
            op: Op::Write,
            target: "p.A.x".into(),
            obj: AbsObj::Class("p.A".into()),
            occurrence: 0,
            lockset: locks.iter().cloned().collect(),
            hb,
            released: released.to_vec(),
            step: 0,
        }
    }

    fn recording(accesses: Vec<Access>, messages: Vec<Message>) -> Recording {
        Recording { accesses, messages: HashMap::from([(ThreadKey::default(), messages)]), ..Recording::default() }
    }

    fn kinds(v: &[Impacted]) -> Vec<(u32, Vec<&'static str>)> {
        v.iter().map(|i| (i.access.at.line, i.reasons.iter().map(Reason::kind).collect())).collect()
    }

    #[test]
    fn unchanged_accesses_in_shifted_lines_are_not_impacted() {
        let base = recording(vec![access(10, &[lock(5)], 0, &[])], vec![]);
        let new = recording(vec![access(12, &[lock(7)], 0, &[])], vec![]);
        assert!(impacted(&base, &new, &Shift { shift: 2, removed: vec![] }).is_empty());
    }

    #[test]
    fn each_way_of_being_impacted_is_told() {
        let notify = Message { obj: lock(5), kind: SyncKind::Notify };
        let base = recording(
            vec![access(10, &[lock(5)], 0, &[]), access(11, &[], 0, &[]), access(20, &[lock(5)], 0, &[])],
            vec![],
        );
        let new = recording(
            vec![
                access(10, &[], 0, &[]),
                access(11, &[], 1, &[]),
                access(100, &[], 1, &[]),
                access(20, &[lock(5)], 1, &[lock(5)]),
                access(30, &[], 1, &[]),
            ],
            vec![notify],
        );
        let got = impacted(&base, &new, &Shift { shift: 0, removed: vec![] });
        assert_eq!(
            kinds(&got),
            vec![
                (10, vec!["lockset_changed"]),
                (11, vec!["happens_before_changed"]),
                (100, vec!["new_statement"]),
                (20, vec!["happens_before_changed", "lock_released_earlier"]),
                (30, vec!["new_path"]),
            ]
        );
        assert_eq!(got[1].reasons[0].describe(), "happens-before changed: nothing before, Object@A.java:5.notify now");
    }

    #[test]
    fn a_lock_allocated_by_a_changed_statement_is_another_lock() {
        let base = recording(vec![access(10, &[lock(5)], 0, &[])], vec![]);
        let new = recording(vec![access(10, &[lock(5)], 0, &[])], vec![]);
        let got = impacted(&base, &new, &Shift { shift: 0, removed: vec![5] });
        assert_eq!(kinds(&got), vec![(10, vec!["lockset_changed"])]);
    }
}
