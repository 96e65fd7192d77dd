//! Change-Aware Preemption Prioritization (CAPP, Jagannath et al., ISSTA 2011), section
//! 3.2, Figure 4: at a decision point where a preemption is possible,
//! `partitionPrioritized` splits the enabled transitions into those explored in the
//! current iteration and those postponed to the next, by whether each thread is executing
//! change-impacted code (an impacted code point, ICP).
//!
//! Seven ICP match modes × two prioritization modes = the paper's 14 heuristics, named
//! as in the paper (CA, CS, COA, COS, MA, MS, MOA, MOS, LA, LS, LOA, LOS, FA, FS), plus
//! `basic` (no prioritization). Runtime positions are matched to ICPs by source file and
//! line range rather than by method name, so that lambdas and anonymous classes (which
//! javac compiles to synthetic methods) match the code they were written in.

use std::collections::{BTreeSet, HashMap};

use crate::jvm::protocol::{SiteOp, ThreadId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PMode {
    /// Keep all transitions if *all* execute impacted code, else only one that does not.
    All,
    /// Keep all transitions if *some* executes impacted code, else only the current thread's.
    Some,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatchMode {
    Class,
    ClassOnStack,
    Method,
    MethodOnStack,
    Line,
    LineOnStack,
    Field,
}

/// One of the 14 heuristics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Heuristic {
    pub pmode: PMode,
    pub mmode: MatchMode,
}

pub const HEURISTICS: &[&str] =
    &["CA", "CS", "COA", "COS", "MA", "MS", "MOA", "MOS", "LA", "LS", "LOA", "LOS", "FA", "FS"];

impl Heuristic {
    /// `LOA` is LINE_ON_STACK with ALL.
    pub fn parse(name: &str) -> Option<Heuristic> {
        let name = name.to_ascii_uppercase();
        let (m, p) = name.split_at(name.len().checked_sub(1)?);
        let pmode = match p {
            "A" => PMode::All,
            "S" => PMode::Some,
            _ => return None,
        };
        let mmode = match m {
            "C" => MatchMode::Class,
            "CO" => MatchMode::ClassOnStack,
            "M" => MatchMode::Method,
            "MO" => MatchMode::MethodOnStack,
            "L" => MatchMode::Line,
            "LO" => MatchMode::LineOnStack,
            "F" => MatchMode::Field,
            _ => return None,
        };
        Some(Heuristic { pmode, mmode })
    }

    pub fn name(&self) -> String {
        let m = match self.mmode {
            MatchMode::Class => "C",
            MatchMode::ClassOnStack => "CO",
            MatchMode::Method => "M",
            MatchMode::MethodOnStack => "MO",
            MatchMode::Line => "L",
            MatchMode::LineOnStack => "LO",
            MatchMode::Field => "F",
        };
        let p = match self.pmode {
            PMode::All => "A",
            PMode::Some => "S",
        };
        format!("{m}{p}")
    }

    pub fn needs_stacks(&self) -> bool {
        matches!(self.mmode, MatchMode::ClassOnStack | MatchMode::MethodOnStack | MatchMode::LineOnStack)
    }
}

/// A position of a thread: the class and source file of a frame, the method of the source
/// (lambdas are their enclosing method), the line, and, for a field access, the field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Binary name of the class that declares the code (`pkg.Pool`, `pkg.Pool$1`).
    pub class: String,
    /// The project file (`src/main/java/pkg/Pool.java`), when known.
    pub file: Option<String>,
    pub line: u32,
    /// The declaring class and simple name of the field accessed here.
    pub field: Option<(String, String)>,
    /// The method called here, for a call into a class racelens does not instrument.
    pub callee: Option<String>,
}

/// What a thread is about to do at a decision point: its pending operation and, for the
/// on-stack modes, the frames below it (innermost first, the pending one included).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadState {
    pub pc: Option<Position>,
    pub stack: Vec<Position>,
}

/// An impacted code point as the index takes it: `(class, file, line, field, method range)`,
/// `None` for what is unknown (⊥).
pub type IcpTuple = (Option<String>, Option<String>, Option<u32>, Option<String>, Option<(String, u32, u32)>);

/// The impacted code points, indexed for matching at run time.
#[derive(Clone, Debug, Default)]
pub struct IcpIndex {
    classes: BTreeSet<String>,
    /// Methods, as the line ranges of their source: `(file, first, last)` with the
    /// method's class and name.
    methods: Vec<(String, u32, u32)>,
    lines: BTreeSet<(String, u32)>,
    fields: BTreeSet<(String, String)>,
    /// Methods whose read/write sets hold impacted fields (step 4): a call to one is a
    /// field access the agent cannot see inside the JDK.
    callees: BTreeSet<String>,
    count: usize,
}

impl IcpIndex {
    /// `icps`: `(class, file, line, field)` as the analysis reports them (⊥ = `None`), and
    /// `method_range` the source lines of an ICP's method (file, first, last).
    pub fn new(icps: impl IntoIterator<Item = IcpTuple>) -> IcpIndex {
        let mut idx = IcpIndex::default();
        idx.extend(icps);
        idx
    }

    /// Adds impacted code points (another source of impact: `--icps both`).
    pub fn extend(&mut self, icps: impl IntoIterator<Item = IcpTuple>) {
        let idx = self;
        for (class, file, line, field, method_range) in icps {
            idx.count += 1;
            if let Some(c) = &class {
                idx.classes.insert(outer(c).to_string());
            }
            if let (Some(f), Some(l)) = (&file, line) {
                idx.lines.insert((f.clone(), l));
            }
            if let Some(m) = method_range {
                if !idx.methods.contains(&m) {
                    idx.methods.push(m);
                }
            }
            if let (Some(c), Some(f)) = (class, field) {
                idx.fields.insert((c, f));
            }
        }
    }

    /// Calls to these methods count as accesses to impacted fields.
    pub fn with_callees(mut self, callees: impl IntoIterator<Item = String>) -> IcpIndex {
        self.callees.extend(callees);
        self
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn class(&self, p: &Position) -> bool {
        self.classes.contains(outer(&p.class))
    }

    fn method(&self, p: &Position) -> bool {
        p.file.as_ref().is_some_and(|f| self.methods.iter().any(|(mf, a, b)| mf == f && *a <= p.line && p.line <= *b))
    }

    fn line(&self, p: &Position) -> bool {
        p.file.as_ref().is_some_and(|f| self.lines.contains(&(f.clone(), p.line)))
    }

    fn field(&self, p: &Position) -> bool {
        p.field.as_ref().is_some_and(|f| self.fields.contains(f))
            || p.callee.as_ref().is_some_and(|c| self.callees.contains(c))
    }

    /// Figure 4's `matchICPs` for one thread.
    pub fn matches(&self, mode: MatchMode, t: &ThreadState) -> bool {
        let on_stack = |f: &dyn Fn(&Position) -> bool| t.pc.iter().chain(t.stack.iter()).any(f);
        match mode {
            MatchMode::Class => t.pc.as_ref().is_some_and(|p| self.class(p)),
            MatchMode::ClassOnStack => on_stack(&|p| self.class(p)),
            MatchMode::Method => t.pc.as_ref().is_some_and(|p| self.method(p)),
            MatchMode::MethodOnStack => on_stack(&|p| self.method(p)),
            MatchMode::Line => t.pc.as_ref().is_some_and(|p| self.line(p)),
            MatchMode::LineOnStack => on_stack(&|p| self.line(p)),
            MatchMode::Field => t.pc.as_ref().is_some_and(|p| self.field(p)),
        }
    }
}

/// Nested and anonymous classes count as their top-level class's code.
fn outer(class: &str) -> &str {
    class.split('$').next().unwrap_or(class)
}

/// Figure 4's `partitionPrioritized`: of the enabled `threads` (with what each is about to
/// do) at a decision point whose running thread was `current`, the ones explored in this
/// iteration. The rest are postponed to the next.
pub fn partition_prioritized(
    heuristic: Option<Heuristic>,
    icps: &IcpIndex,
    threads: &[(ThreadId, ThreadState)],
    current: Option<ThreadId>,
    pick: &mut dyn FnMut(&[ThreadId]) -> ThreadId,
) -> Vec<ThreadId> {
    let all: Vec<ThreadId> = threads.iter().map(|(t, _)| *t).collect();
    let Some(h) = heuristic else { return all };
    // A preemption is possible only if the current thread is among the enabled.
    let Some(current) = current.filter(|c| all.contains(c)) else { return all };
    let impacted: Vec<ThreadId> = threads.iter().filter(|(_, s)| icps.matches(h.mmode, s)).map(|(t, _)| *t).collect();
    match h.pmode {
        PMode::All => {
            if impacted.len() == all.len() {
                all
            } else {
                let rest: Vec<ThreadId> = all.iter().copied().filter(|t| !impacted.contains(t)).collect();
                vec![pick(&rest)]
            }
        }
        PMode::Some => {
            if !impacted.is_empty() {
                all
            } else {
                vec![current]
            }
        }
    }
}

/// Counts how often decision points matched an ICP, for reports.
#[derive(Clone, Debug, Default)]
pub struct MatchStats {
    pub decisions: u64,
    pub matched: u64,
}

/// ICP index plus the lookups that turn agent sites into positions.
pub struct SiteMap {
    /// Class binary name -> project file.
    pub files: HashMap<String, String>,
}

impl SiteMap {
    pub fn position(&self, site: &crate::jvm::protocol::Site) -> Position {
        let file = self.files.get(outer(&site.class)).cloned();
        let field = site.field().map(|f| {
            let owner = site.target.rsplit_once('.').map(|(o, _)| o.to_string()).unwrap_or_default();
            (owner, f.to_string())
        });
        let callee =
            (site.op == SiteOp::Call).then(|| site.target.rsplit('.').next().unwrap_or(&site.target).to_string());
        Position { class: site.class.clone(), file, line: site.line, field, callee }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(class: &str, line: u32, field: Option<&str>) -> Position {
        Position {
            class: class.into(),
            file: Some(format!("src/{}.java", outer(class))),
            line,
            field: field.map(|f| (class.to_string(), f.to_string())),
            callee: None,
        }
    }

    fn state(class: &str, line: u32, field: Option<&str>) -> ThreadState {
        ThreadState { pc: Some(pos(class, line, field)), stack: vec![] }
    }

    /// ICPs: line 10 of `A` (in method lines 5-20), and field `A.f`.
    fn icps() -> IcpIndex {
        IcpIndex::new([
            (
                Some("A".to_string()),
                Some("src/A.java".to_string()),
                Some(10),
                None,
                Some(("src/A.java".to_string(), 5, 20)),
            ),
            (Some("A".to_string()), None, None, Some("f".to_string()), None),
        ])
    }

    fn lowest(ts: &[ThreadId]) -> ThreadId {
        *ts.iter().min().unwrap()
    }

    #[test]
    fn heuristic_names_round_trip() {
        for name in HEURISTICS {
            assert_eq!(Heuristic::parse(name).unwrap().name(), *name);
        }
        assert!(Heuristic::parse("XA").is_none() && Heuristic::parse("").is_none());
    }

    #[test]
    fn all_keeps_all_when_all_match_else_one_unmatched() {
        let la = Heuristic::parse("LA");
        let both = [(0, state("A", 10, None)), (1, state("A", 10, None))];
        assert_eq!(partition_prioritized(la, &icps(), &both, Some(0), &mut lowest), vec![0, 1]);
        let one = [(0, state("A", 10, None)), (1, state("B", 3, None)), (2, state("B", 4, None))];
        // Only one of the unmatched transitions is kept.
        assert_eq!(partition_prioritized(la, &icps(), &one, Some(0), &mut lowest), vec![1]);
    }

    #[test]
    fn some_keeps_all_when_any_matches_else_only_the_current_thread() {
        let ls = Heuristic::parse("LS");
        let one = [(0, state("B", 1, None)), (1, state("A", 10, None))];
        assert_eq!(partition_prioritized(ls, &icps(), &one, Some(0), &mut lowest), vec![0, 1]);
        let none = [(0, state("B", 1, None)), (1, state("B", 2, None))];
        assert_eq!(partition_prioritized(ls, &icps(), &none, Some(1), &mut lowest), vec![1]);
    }

    #[test]
    fn no_prioritization_when_no_preemption_is_possible() {
        let ls = Heuristic::parse("LS");
        let none = [(1, state("B", 1, None)), (2, state("B", 2, None))];
        // The current thread (0) is not enabled: no preemption, everything is kept.
        assert_eq!(partition_prioritized(ls, &icps(), &none, Some(0), &mut lowest), vec![1, 2]);
        assert_eq!(partition_prioritized(ls, &icps(), &none, None, &mut lowest), vec![1, 2]);
        assert_eq!(partition_prioritized(None, &icps(), &none, Some(1), &mut lowest), vec![1, 2]);
    }

    #[test]
    fn match_modes() {
        let idx = icps();
        let t = ThreadState { pc: Some(pos("A$1", 12, None)), stack: vec![pos("B", 1, None), pos("A", 10, None)] };
        assert!(idx.matches(MatchMode::Class, &t), "anonymous classes count as their class");
        assert!(idx.matches(MatchMode::Method, &t), "line 12 of A's file is in the method of lines 5-20");
        assert!(!idx.matches(MatchMode::Line, &t));
        assert!(idx.matches(MatchMode::LineOnStack, &t));
        assert!(!idx.matches(MatchMode::Field, &t));
        assert!(idx.matches(MatchMode::Field, &state("A", 99, Some("f"))));
        let elsewhere = ThreadState { pc: Some(pos("B", 1, None)), stack: vec![pos("C", 2, None)] };
        for m in [
            MatchMode::Class,
            MatchMode::ClassOnStack,
            MatchMode::Method,
            MatchMode::MethodOnStack,
            MatchMode::Line,
            MatchMode::LineOnStack,
            MatchMode::Field,
        ] {
            assert!(!idx.matches(m, &elsewhere), "{m:?}");
        }
    }
}

/// The CAPP search: [`partition_prioritized`] at every decision point, with the
/// impacted code points the analysis computed for the current change.
pub struct CappPrioritizer {
    pub heuristic: Option<Heuristic>,
    icps: IcpIndex,
    map: SiteMap,
    rng: Option<crate::search::rng::XorShift>,
    pub stats: MatchStats,
}

impl CappPrioritizer {
    pub fn new(heuristic: Option<Heuristic>, icps: IcpIndex, map: SiteMap, seed: Option<u64>) -> CappPrioritizer {
        CappPrioritizer {
            heuristic,
            icps,
            map,
            rng: seed.map(crate::search::rng::XorShift::new),
            stats: MatchStats::default(),
        }
    }

    fn state(&self, site: u32, stack: Option<u32>, known: crate::jvm::protocol::Known) -> ThreadState {
        let pc = known.sites.get(&site).map(|s| self.map.position(s));
        let stack = stack
            .and_then(|k| known.stacks.get(&k))
            .map(|frames| {
                frames
                    .iter()
                    .map(|f| Position {
                        class: f.class.clone(),
                        file: self.map.files.get(outer(&f.class)).cloned(),
                        line: f.line,
                        field: None,
                        callee: None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        ThreadState { pc, stack }
    }
}

impl crate::search::Prioritizer for CappPrioritizer {
    fn partition(
        &mut self,
        exec: &crate::jvm::protocol::Execution,
        index: usize,
        alternatives: Vec<ThreadId>,
        known: crate::jvm::protocol::Known,
    ) -> (Vec<ThreadId>, Vec<ThreadId>) {
        let d = &exec.decisions[index];
        let threads: Vec<(ThreadId, ThreadState)> = if d.pending.is_empty() {
            // An agent without pending sites: only the running thread's position is known.
            std::iter::once((d.thread, self.state(d.site, None, known)))
                .chain(alternatives.iter().map(|&t| (t, ThreadState::default())))
                .collect()
        } else {
            d.pending.iter().map(|p| (p.thread, self.state(p.site, p.stack, known))).collect()
        };
        self.stats.decisions += 1;
        if let Some(h) = self.heuristic {
            if threads.iter().any(|(_, s)| self.icps.matches(h.mmode, s)) {
                self.stats.matched += 1;
            }
        }
        let current = d.current;
        let rng = &mut self.rng;
        // pickOne: the current thread when it is among them (the path this execution
        // already took), else the lowest (or a seeded random one).
        let mut pick = |rest: &[ThreadId]| -> ThreadId {
            match (current.filter(|c| rest.contains(c)), rng.as_mut()) {
                (Some(c), _) => c,
                (None, Some(r)) => rest[r.below(rest.len())],
                (None, None) => *rest.iter().min().expect("rest is not empty"),
            }
        };
        let keep = partition_prioritized(self.heuristic, &self.icps, &threads, current, &mut pick);
        alternatives.into_iter().partition(|t| keep.contains(t))
    }

    fn matched(&self) -> u64 {
        self.stats.matched
    }

    fn run_options(&self) -> Vec<String> {
        if self.heuristic.is_some_and(|h| h.needs_stacks()) {
            vec!["stacks".to_string()]
        } else {
            Vec::new()
        }
    }

    fn impacted_site(&self, site: u32, known: crate::jvm::protocol::Known) -> bool {
        let s = self.state(site, None, known);
        self.icps.matches(MatchMode::Line, &s) || self.icps.matches(MatchMode::Field, &s)
    }
}
