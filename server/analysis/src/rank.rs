//! Which tests can reveal what a change broke, and in what order to run them: SimRT's
//! Selector and Ranker (Yu et al., ICSE 2014, sections 3.5 and 3.6), whose coverage
//! targets are the impacted shared-variable pairs of its Matcher (section 3.4,
//! [`crate::impact`]): data pairs (RW, WW) and, after the thesis, WN and MM pairs.
//!
//! - **Evidence.** SimRT selects from a coverage history: which blocks each test ran, and in
//!   which threads. A [`Footprint`] is what selection and ranking need to know of one test,
//!   whatever the [`Evidence`]. [`Evidence::Coverage`]: the test's recorded run
//!   ([`crate::coverage`]), mapped onto the working tree. [`Evidence::Static`]: the test's
//!   static reach ([`select::reach`]), the project methods its call graph reaches and whether
//!   one of them starts a thread; used for a test without a record, and, pair by pair, for
//!   the pairs with an end in a file the record does not speak for (changed too much, new or
//!   renamed, stale). [`rank`] is the same whatever the evidence.
//! - **Selection** (Figure 4): a test is selected when it covers an impacted pair, that is,
//!   runs both of its ends in different threads. From coverage: some thread of its recorded
//!   run executed one end and another thread the other (Figure 4, line 53: both blocks
//!   covered, by different thread ids). Statically: its reach holds the methods of both ends
//!   and starts threads. The reach cannot tell whether the two ends run in different threads
//!   (a test may start a thread that runs neither end, or run both in the thread it started);
//!   a test that reaches both ends and starts threads is the static approximation, and
//!   selects more than a history would.
//! - **Ranking** (section 3.6): among the selected tests, additional coverage: first the test
//!   that covers the most pairs no test ranked before it covers, then again. When no remaining
//!   selected test adds a pair (every pair is covered), the coverage is reset and the rest are
//!   ranked the same way: SimRT keeps every test that covers a pair, since another input may
//!   make its two ends touch the same memory. SimRT breaks ties at random; here the test that
//!   reaches fewer methods goes first (it is cheaper to explore), then the name, so the order
//!   is the same on every run. Then the unselected tests: first those that start threads and
//!   touch impacted shared variables (fields with an impacted access) or undecided state, most
//!   first; then those that start threads and touch only other shared variables; then the
//!   single-threaded tests the same way (one thread cannot reveal a race: issue 21, item 4);
//!   then the rest, by name.
//! - **Targets beyond pairs** (issue 21, item 2): a warning of the change in a method no
//!   impacted pair has an end in is a target a test covers by starting threads and reaching
//!   that method; changed state whose sharing is undecided ([`crate::impact::Undecided`]) is
//!   named in the reasons and [`Selection::undecided`], never silently "no pair".
//! - **Text**: [`text`], the lines `racelens select` prints of a [`Selection`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use schemars::JsonSchema;
use serde::Serialize;

use crate::cancel::{Cancel, Cancelled};
use crate::coverage::{CoverageView, History, TestView};
use crate::host::Host;
use crate::impact::{Impact, Pair, PairEnd, Severity, Sharing, Undecided};
use crate::index::{FieldKey, MethodRef, Origin, ProjectIndex};
use crate::select::{self, ThreadTest};

/// Where what a [`Footprint`] says of a test comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Evidence {
    /// The test's static reach: both ends of a pair among the methods its call graph reaches,
    /// and a thread started somewhere in them.
    Static,
    /// The test's recorded run: which threads executed which ends (pairs with an end in a file
    /// the record does not speak for are decided statically, and the reason says so).
    Coverage,
}

/// What selection and ranking know of one test.
#[derive(Clone, Debug)]
pub struct Footprint {
    /// `pkg.PoolTest#borrow` ([`ThreadTest::display_name`]), declared by `method`.
    pub test: String,
    pub method: MethodRef,
    /// Where the rest comes from.
    pub evidence: Evidence,
    /// The test runs more than one thread.
    pub threads: bool,
    /// It starts threads in test code ([`crate::select::Reach::own_threads`]).
    pub own_threads: bool,
    /// The impacted pairs (indices into the pairs being ranked for) whose two ends it runs in
    /// different threads; it is selected when there is one.
    pub covers: Vec<usize>,
    /// How many impacted pairs it runs both ends of, but not in different threads.
    pub one_thread: usize,
    /// Shared variables it touches that have an impacted access, and the other ones.
    pub impacted_vars: BTreeSet<FieldKey>,
    pub other_vars: BTreeSet<FieldKey>,
    /// How much it runs (reached methods): the smaller of two tied tests goes first.
    pub size: usize,
    /// With [`Evidence::Coverage`], the short revision the record was made at.
    pub revision: Option<String>,
    /// Of `covers`, how many were decided statically for want of a usable record.
    pub static_pairs: usize,
    /// Why the record was not used for some pairs (or at all), to end the reason with.
    pub note: Option<String>,
    /// With threads: the change's undecided state ([`Impact::undecided`], indices) it runs.
    pub undecided: Vec<usize>,
    /// What the reason says of it: `` it runs `Key.hashCode`, where `Key.hash` is not known to be shared ``.
    pub undecided_text: Option<String>,
    /// Without threads: the change's undecided state it runs (indices), in one thread.
    pub undecided_alone: Vec<usize>,
}

/// One test's place in the ranking.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RankedTest {
    /// `pkg.PoolTest#borrow` (a `main` method: `pkg.Main`), as `racelens explore --test` takes it.
    pub test: String,
    pub selected: bool,
    /// 1-based, over every test.
    pub rank: usize,
    /// The targets it covers: impacted pairs, as [`pair_label`] writes them, then the
    /// methods with a warning of the change and no impacted pair (`RL004 Outbox.java:42
    /// (Outbox.flush)`).
    pub pairs: Vec<String>,
    /// How many of `pairs` are warned methods.
    #[serde(skip)]
    pub warned: usize,
    /// Why it is selected or not, and why it is ranked here.
    pub reason: String,
    pub evidence: Evidence,
    /// Why it is ranked here (the end of `reason`).
    #[serde(skip)]
    pub placed: String,
    /// With [`Evidence::Coverage`], the short revision its record was made at.
    #[serde(skip)]
    pub revision: Option<String>,
    /// Why its record was not used for some pairs, or at all (also at the end of `reason`).
    #[serde(skip)]
    pub note: Option<String>,
    /// The test's method (for an inherited test, the superclass's declaration).
    #[serde(skip)]
    pub method: MethodRef,
    /// The change's undecided state it runs in a test that starts threads (indices into
    /// [`Impact::undecided`]).
    #[serde(skip)]
    pub undecided: Vec<usize>,
    /// The change's undecided state it runs in a test that starts no thread.
    #[serde(skip)]
    pub undecided_alone: Vec<usize>,
}

/// Every test of the project, best first.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct Selection {
    pub tests: Vec<RankedTest>,
    /// How many tests are selected (they come first).
    pub selected: usize,
    pub total: usize,
    /// What the selection rests on: `static reachability; no coverage history`, or
    /// `coverage of 3 tests recorded at abc1234, static for 1`.
    pub evidence: String,
    /// Changed state whose sharing the analysis could not decide, where tests starting
    /// threads run it or the change has a warning in its method: `` `queue` in
    /// `Session.flush` is not known to be shared: reached only through
    /// `session.getAttribute(…)` ``. With nothing selected, the change has no evidence
    /// either way, which is not the same as needing no test.
    pub undecided: Vec<String>,
    /// How many methods with a warning of the change (and no impacted pair's end) were
    /// selection targets besides the impacted pairs.
    pub warned_methods: usize,
}

impl Selection {
    /// The ranking of the test named `test` (`pkg.PoolTest#borrow`, as
    /// [`ThreadTest::display_name`] names it): one method inherited by two classes is two
    /// tests.
    pub fn get(&self, test: &str) -> Option<&RankedTest> {
        self.tests.iter().find(|t| t.test == test)
    }
}

/// The selection for `impact` of the project `host` holds: the recorded coverage of the
/// tests `history` has a record of (`racelens record`, explorations), static reach for the
/// others. The one selection call of `racelens select`, `explore --affected` and the
/// language server; given up with [`Cancelled`] once `cancel` is.
pub fn select_for(
    host: &mut Host,
    impact: &Impact,
    history: &History,
    cancel: &Cancel,
) -> Result<Selection, Cancelled> {
    let sharing = host.sharing();
    let coverage = CoverageView::of(host, history, impact);
    select_cancellable(host.index(), &sharing, impact, &coverage, cancel)
}

/// Selects and ranks every test of the project (see [`select::tests_in`]) for the impacted
/// pairs of `impact`, from static reach.
pub fn select(index: &ProjectIndex, sharing: &Sharing, impact: &Impact) -> Selection {
    select_with(index, sharing, impact, &CoverageView::default())
}

/// [`select`], from the recorded coverage of the tests `coverage` holds a record of, and
/// from static reach for the others (and for the pairs a record does not speak for).
pub fn select_with(index: &ProjectIndex, sharing: &Sharing, impact: &Impact, coverage: &CoverageView) -> Selection {
    select_cancellable(index, sharing, impact, coverage, &Cancel::never()).expect("no edit cancels Cancel::never()")
}

/// [`select_with`], given up with [`Cancelled`] at the first file, test or ranking step after
/// `cancel` is: ranking every test of a large project takes long enough that the language
/// server lets a newer edit go first.
pub fn select_cancellable(
    index: &ProjectIndex,
    sharing: &Sharing,
    impact: &Impact,
    coverage: &CoverageView,
    cancel: &Cancel,
) -> Result<Selection, Cancelled> {
    let pairs: Vec<&Pair> = impact.pairs.iter().filter(|p| p.impacted()).collect();
    let mut ends: Vec<(Option<MethodRef>, Option<MethodRef>)> = pairs
        .iter()
        .map(|p| (index.method_of_place(p.a.file, p.a.span), index.method_of_place(p.b.file, p.b.span)))
        .collect();
    let mut labels: Vec<String> = pairs.iter().map(|p| pair_label(index, p)).collect();
    for (method, label) in warned_methods(index, impact, &ends) {
        ends.push((Some(method), Some(method)));
        labels.push(label);
    }
    let targets = Targets { labels, pairs: pairs.len() };
    let cx = StaticCx::new(index, sharing, impact, ends, targets.pairs, cancel)?;
    let mut footprints = Vec::new();
    let mut reach = select::ReachCache::default();
    for file in index.ids() {
        cancel.check()?;
        for t in select::tests_in_with(index, file, &mut reach) {
            cancel.check()?;
            let f = cx.footprint(&t);
            footprints.push(match coverage.get(&f.test) {
                Some(view) => from_coverage(index, &pairs, f, view),
                None => f,
            });
        }
    }
    let mut selection = rank(footprints, &targets, cancel)?;
    selection.undecided = cx.undecided_messages(index, &selection);
    Ok(selection)
}

/// What selection covers: the impacted pairs, then the methods of the change's warnings
/// that no impacted pair has an end in (`labels[pairs..]`). A warning with no pair is the
/// analysis seeing a race it has no shared variable for (a check-then-act on a collection a
/// call returned): a test that starts threads and runs that method can still reveal it.
pub struct Targets {
    pub labels: Vec<String>,
    /// How many of `labels` are pairs.
    pub pairs: usize,
}

impl Targets {
    /// How many of `covers` (indices into `labels`) are warned methods.
    fn warned(&self, covers: &[usize]) -> usize {
        covers.iter().filter(|&&i| i >= self.pairs).count()
    }
}

/// The methods the change's warnings are in that no impacted pair has an end in, with a
/// label for each: `RL004 Outbox.java:42 (Outbox.flush)`.
fn warned_methods(
    index: &ProjectIndex,
    impact: &Impact,
    ends: &[(Option<MethodRef>, Option<MethodRef>)],
) -> Vec<(MethodRef, String)> {
    let paired: HashSet<MethodRef> = ends.iter().flat_map(|(a, b)| [*a, *b]).flatten().collect();
    let mut out: Vec<(MethodRef, String)> = Vec::new();
    for d in &impact.diagnostics {
        let Some(method) = index.method_of_place(d.file, d.span) else { continue };
        if paired.contains(&method) || out.iter().any(|(m, _)| *m == method) {
            continue;
        }
        let path = index.entry(d.file).map_or("?", |e| e.path.as_str());
        let label = format!(
            "{} {}:{} ({})",
            d.code,
            path.rsplit('/').next().unwrap_or(path),
            d.span.line,
            method_name(index, method)
        );
        out.push((method, label));
    }
    out
}

/// `Outbox.flush`
fn method_name(index: &ProjectIndex, m: MethodRef) -> String {
    let Some(facts) = index.facts(m.origin) else { return "?".into() };
    let method = &facts.methods[m.idx as usize];
    let class = &facts.classes[method.class as usize].simple_name;
    format!("{class}.{}", method.name)
}

/// A static footprint redone from a test's recorded run (SimRT Figure 4): a pair is covered
/// when one thread executed one end and another thread the other. Pairs with an end in a
/// file the record does not speak for keep the static decision; when that is every pair, the
/// footprint stays static and says why the record was not used.
fn from_coverage(index: &ProjectIndex, pairs: &[&Pair], stat: Footprint, view: &TestView) -> Footprint {
    // A run that failed stopped early, and the test fails already: what it executed is no
    // reason to leave it out (a field that starts hiding another fails a test on every
    // schedule, whatever its threads run).
    if view.outcome != "pass" {
        let note = format!(
            "its recorded run ({} at {}) ended with `{}`: static reach decides",
            view.source, view.revision, view.outcome
        );
        return Footprint { note: Some(note), ..stat };
    }
    let (mut covers, mut one_thread, mut static_pairs) = (Vec::new(), 0, 0);
    let mut fallback: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, p) in pairs.iter().enumerate() {
        match (view.threads_at(index, &p.field, &p.a), view.threads_at(index, &p.field, &p.b)) {
            (Ok(a), Ok(b)) => {
                if a.iter().any(|x| b.iter().any(|y| x != y)) {
                    covers.push(i);
                } else if !a.is_empty() && !b.is_empty() {
                    one_thread += 1;
                }
            }
            (Err(why), _) | (_, Err(why)) => {
                *fallback.entry(why).or_default() += 1;
                if stat.covers.contains(&i) {
                    covers.push(i);
                    static_pairs += 1;
                }
            }
        }
    }
    // Warned methods (the targets after the pairs) have no recorded end: static reach decides.
    for &i in stat.covers.iter().filter(|&&i| i >= pairs.len()) {
        covers.push(i);
        static_pairs += 1;
    }
    let why: Vec<String> = fallback.keys().map(|w| w.to_string()).collect();
    let decided_statically: usize = fallback.values().sum();
    if !pairs.is_empty() && decided_statically == pairs.len() {
        let note = format!("its coverage ({} at {}) was not used: {}", view.source, view.revision, why.join("; "));
        return Footprint { note: Some(note), ..stat };
    }
    let note = (decided_statically > 0)
        .then(|| format!("static for {}: {}", plural(decided_statically, "pair"), why.join("; ")));
    Footprint {
        evidence: Evidence::Coverage,
        threads: view.threads > 1,
        covers,
        one_thread,
        revision: Some(view.revision.clone()),
        static_pairs,
        note,
        ..stat
    }
}

/// `RW Pool.numIdle: write Pool.java:62 <-> read Pool.java:40`
pub fn pair_label(index: &ProjectIndex, p: &Pair) -> String {
    let end = |e: &PairEnd| {
        let path = index.entry(e.file).map_or("?", |entry| entry.path.as_str());
        format!("{} {}:{}", e.access.as_str(), path.rsplit('/').next().unwrap_or(path), e.span.line)
    };
    format!("{} {}: {} <-> {}", p.kind.as_str(), variable(&p.field), end(&p.a), end(&p.b))
}

/// `Pool.numIdle`
fn variable(field: &FieldKey) -> String {
    match field.short_class() {
        "" => field.display_name(),
        class => format!("{class}.{}", field.display_name()),
    }
}

/// What static footprints are made from: the method of each pair's ends, and the shared
/// variables each method touches.
struct StaticCx<'a> {
    index: &'a ProjectIndex,
    /// The methods of each target's two ends ([`Targets`]).
    ends: Vec<(Option<MethodRef>, Option<MethodRef>)>,
    /// How many of `ends` are pairs' (the rest are warned methods).
    pairs: usize,
    shared: HashMap<MethodRef, BTreeSet<&'a FieldKey>>,
    impacted: HashSet<&'a FieldKey>,
    undecided: &'a [Undecided],
    /// The methods the change's warnings are in: undecided state there is named even when
    /// no test that starts threads runs it.
    warned: HashSet<MethodRef>,
}

impl<'a> StaticCx<'a> {
    fn new(
        index: &'a ProjectIndex,
        sharing: &Sharing,
        impact: &'a Impact,
        ends: Vec<(Option<MethodRef>, Option<MethodRef>)>,
        pairs: usize,
        cancel: &Cancel,
    ) -> Result<StaticCx<'a>, Cancelled> {
        let mut shared: HashMap<MethodRef, BTreeSet<&FieldKey>> = HashMap::new();
        for (file, entry) in index.entries() {
            cancel.check()?;
            for site in &entry.resolved.sites {
                if sharing.is_shared(index, file, site) {
                    let method =
                        MethodRef { origin: Origin::Project(file), idx: entry.facts.units[site.unit as usize].method };
                    shared.entry(method).or_default().insert(&site.field);
                }
            }
        }
        let warned = impact
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .filter_map(|d| index.method_of_place(d.file, d.span))
            .collect();
        Ok(StaticCx {
            index,
            ends,
            pairs,
            shared,
            impacted: impact.impacted_fields.iter().collect(),
            undecided: &impact.undecided,
            warned,
        })
    }

    fn footprint(&self, test: &ThreadTest) -> Footprint {
        let reach = &test.reach;
        let reached = |m: &Option<MethodRef>| m.is_some_and(|m| reach.methods.contains(&m));
        let both: Vec<usize> =
            self.ends.iter().enumerate().filter(|(_, (a, b))| reached(a) && reached(b)).map(|(i, _)| i).collect();
        let (mut impacted_vars, mut other_vars) = (BTreeSet::new(), BTreeSet::new());
        for field in reach.methods.iter().filter_map(|m| self.shared.get(m)).flatten() {
            match self.impacted.contains(field) {
                true => impacted_vars.insert((*field).clone()),
                false => other_vars.insert((*field).clone()),
            };
        }
        let threads = reach.starts_threads;
        let runs: Vec<usize> = self
            .undecided
            .iter()
            .enumerate()
            .filter(|(_, u)| reach.methods.contains(&u.method))
            .map(|(i, _)| i)
            .collect();
        let (undecided, undecided_alone) = if threads { (runs, Vec::new()) } else { (Vec::new(), runs) };
        Footprint {
            test: test.display_name(),
            method: test.method,
            evidence: Evidence::Static,
            threads,
            own_threads: reach.own_threads,
            one_thread: if threads { 0 } else { both.iter().filter(|&&i| i < self.pairs).count() },
            covers: if threads { both } else { Vec::new() },
            impacted_vars,
            other_vars,
            size: reach.methods.len(),
            revision: None,
            static_pairs: 0,
            note: None,
            undecided_text: undecided.first().map(|&i| {
                let u = &self.undecided[i];
                let more =
                    if undecided.len() > 1 { format!(" (and {} more)", undecided.len() - 1) } else { String::new() };
                format!(
                    "it runs `{}`, where {} is not known to be shared{more}",
                    method_name(self.index, u.method),
                    u.what
                )
            }),
            undecided,
            undecided_alone,
        }
    }

    /// What the selection says of the undecided state that tests starting threads reach:
    /// how the code gets the object, or else the project method through which the first
    /// such test reaches the changed one. State no such test reaches is named only where the
    /// change has a warning (LANG-481: a hash cached in steps, and no test hashes from two
    /// threads): elsewhere it is any field of any class not seen escaping, and naming it
    /// would turn every single-threaded edit into "no evidence".
    fn undecided_messages(&self, index: &ProjectIndex, selection: &Selection) -> Vec<String> {
        let mut out = Vec::new();
        for (i, u) in self.undecided.iter().enumerate() {
            match selection.tests.iter().find(|t| t.undecided.contains(&i)) {
                Some(test) => out.push(undecided_message(index, u, test)),
                None if self.warned.contains(&u.method) => {
                    let alone = selection.tests.iter().filter(|t| t.undecided_alone.contains(&i)).count();
                    out.push(unreached_undecided_message(index, u, alone));
                }
                None => {}
            }
        }
        out
    }
}

/// `` `queue` in `Session.flush` is not known to be shared: reached only through
/// `session.getAttribute(…)` ``
fn undecided_message(index: &ProjectIndex, u: &Undecided, test: &RankedTest) -> String {
    let head = format!("{} in `{}` is not known to be shared", u.what, method_name(index, u.method));
    if let Some(through) = &u.through {
        return format!("{head}: reached only through {through}");
    }
    let class = u.what.trim_matches('`').split('.').next().unwrap_or("");
    match caller_in_reach(index, &select::reach(index, test.method).methods, u.method) {
        Some(caller) => format!("{head}: no `{class}` object is seen reaching another thread; reached only through `{caller}`"),
        None => format!("{head}: no `{class}` object is seen reaching another thread, and no project code calls `{}` (the JDK or a library does)", method_name(index, u.method)),
    }
}

/// `` `Key.hash` in `Key.hash` is not known to be shared, and no test that starts threads
/// runs `Key.hash` (2 tests run it in one thread, which cannot reveal a race) ``
fn unreached_undecided_message(index: &ProjectIndex, u: &Undecided, alone: usize) -> String {
    let method = method_name(index, u.method);
    let one_thread = match alone {
        0 => String::new(),
        n => format!(" ({} run it in one thread, which cannot reveal a race)", plural(n, "test")),
    };
    format!("{} in `{method}` is not known to be shared, and no test that starts threads runs `{method}`{one_thread}: a test that calls it on one object from two threads would tell", u.what)
}

/// The first method of a test's reach that calls `target`.
fn caller_in_reach(index: &ProjectIndex, reach: &BTreeSet<MethodRef>, target: MethodRef) -> Option<String> {
    let r = index.resolver();
    reach.iter().filter(|&&m| m != target).find_map(|&m| {
        let facts = index.facts(m.origin)?;
        let calls = facts.calls_of(m.idx).any(|call| r.callees(m.origin, &facts, call).contains(&target));
        calls.then(|| method_name(index, m))
    })
}

/// Ranks tests by what their footprints cover of the targets (see the module
/// documentation): the selected ones by additional coverage with resets, then the others.
/// Each round of the additional coverage sorts the tests left, so many selected tests take
/// long: `cancel` is polled at every round.
pub fn rank(footprints: Vec<Footprint>, targets: &Targets, cancel: &Cancel) -> Result<Selection, Cancelled> {
    let labels = &targets.labels;
    let mut placed: Vec<(usize, String)> = Vec::with_capacity(footprints.len());
    let mut left: Vec<usize> = (0..footprints.len()).filter(|&i| !footprints[i].covers.is_empty()).collect();
    let mut covered: HashSet<usize> = HashSet::new();
    let mut reset = false;
    while !left.is_empty() {
        cancel.check()?;
        let gain = |i: usize| footprints[i].covers.iter().filter(|p| !covered.contains(p)).count();
        // Tests that start their threads themselves go first (issue 21, item 4): the additional
        // coverage of SimRT §3.6 runs among them, resets included, before the tests whose only
        // thread start is deep in project code, however many pairs those reach statically.
        let own = left.iter().any(|&i| footprints[i].own_threads);
        let mut gains: Vec<(usize, usize)> =
            left.iter().filter(|&&i| footprints[i].own_threads == own).map(|&i| (gain(i), i)).collect();
        gains.sort_by(|&(ga, a), &(gb, b)| gb.cmp(&ga).then_with(|| by_size_then_name(&footprints[a], &footprints[b])));
        let (new, best) = gains[0];
        if new == 0 {
            // Every pair is covered and no remaining test adds one: SimRT's reset.
            covered.clear();
            reset = true;
            continue;
        }
        let mut why = match reset {
            false => format!("{new} new (not covered by a test ranked before it)"),
            true => format!("none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the {new} not covered since"),
        };
        if let Some(&(_, other)) = gains.get(1).filter(|(g, _)| *g == new) {
            why += &tie(&footprints[best], &footprints[other]);
        }
        if !own && placed.iter().any(|&(i, _)| footprints[i].own_threads) {
            why += "; after the tests that start threads themselves: its threads start only in project code";
        }
        covered.extend(footprints[best].covers.iter().copied());
        left.retain(|&i| i != best);
        placed.push((best, why));
    }
    let selected = placed.len();

    // The unselected tests by their evidence (issue 21, item 4): a test that starts threads
    // and touches what the change impacted can still reveal it with other inputs; a
    // single-threaded test cannot reveal a race, and never goes above a multithreaded one
    // with evidence.
    let mut rest: Vec<usize> = (0..footprints.len()).filter(|&i| footprints[i].covers.is_empty()).collect();
    rest.sort_by(|&a, &b| {
        let (fa, fb) = (&footprints[a], &footprints[b]);
        let ((ta, na), (tb, nb)) = (evidence_tier(fa), evidence_tier(fb));
        ta.cmp(&tb)
            .then(fb.own_threads.cmp(&fa.own_threads))
            .then(nb.cmp(&na))
            .then(fb.threads.cmp(&fa.threads))
            .then_with(|| if ta == Tier::Nothing { fa.test.cmp(&fb.test) } else { by_size_then_name(fa, fb) })
    });
    for i in rest {
        let f = &footprints[i];
        let why = match (f.impacted_vars.len(), f.other_vars.len()) {
            (0, 0) if f.undecided.is_empty() => "touches no shared variable".to_string(),
            (0, 0) => "touches no known shared variable".to_string(),
            (0, n) => format!(
                "touches no impacted shared variable and {} ({})",
                plural(n, "other shared variable"),
                variables(&f.other_vars)
            ),
            (n, _) => format!("touches {} ({})", plural(n, "impacted shared variable"), variables(&f.impacted_vars)),
        };
        placed.push((i, why));
    }

    let total = footprints.len();
    let tests = placed
        .into_iter()
        .enumerate()
        .map(|(r, (i, placed))| {
            let f = &footprints[i];
            let selected = !f.covers.is_empty();
            let mut reason = match selected {
                true => format!("selected: {}; {placed}", covered_because(f, targets)),
                false => {
                    let but = f.undecided_text.as_ref().map_or(String::new(), |text| format!(", but {text}"));
                    format!("not selected: {}{but}; {placed}", not_covered_because(f, targets))
                }
            };
            if let Some(note) = &f.note {
                reason += &format!("; {note}");
            }
            RankedTest {
                test: f.test.clone(),
                selected,
                rank: r + 1,
                pairs: f.covers.iter().map(|&p| labels[p].clone()).collect(),
                warned: targets.warned(&f.covers),
                reason,
                evidence: f.evidence,
                placed,
                revision: f.revision.clone(),
                note: f.note.clone(),
                method: f.method,
                undecided: f.undecided.clone(),
                undecided_alone: f.undecided_alone.clone(),
            }
        })
        .collect();
    let evidence = evidence_summary(&footprints);
    Ok(Selection {
        tests,
        selected,
        total,
        evidence,
        undecided: Vec::new(),
        warned_methods: targets.labels.len() - targets.pairs,
    })
}

/// What the selection rests on, over every test: `static reachability; no coverage
/// history`, or `coverage of 3 tests recorded at abc1234, static for 1`.
fn evidence_summary(footprints: &[Footprint]) -> String {
    let coverage: Vec<&Footprint> = footprints.iter().filter(|f| f.evidence == Evidence::Coverage).collect();
    let unused = footprints.iter().filter(|f| f.evidence == Evidence::Static && f.note.is_some()).count();
    if coverage.is_empty() {
        return match unused {
            0 => "static reachability; no coverage history".to_string(),
            n => format!("static reachability; the coverage history of {} was not usable", plural(n, "test")),
        };
    }
    let revisions: BTreeSet<&str> = coverage.iter().filter_map(|f| f.revision.as_deref()).collect();
    let revisions: Vec<&str> = revisions.into_iter().collect();
    let mut out = format!("coverage of {} recorded at {}", plural(coverage.len(), "test"), revisions.join(", "));
    let partly = coverage.iter().filter(|f| f.note.is_some()).count();
    if partly > 0 {
        out += &format!(" ({} partly static)", partly);
    }
    out += &format!(", static for {}", footprints.len() - coverage.len());
    out
}

/// How much an unselected test's footprint says it may reveal, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    /// Starts threads and touches impacted shared variables, or runs undecided state.
    ThreadsImpacted,
    ThreadsOther,
    OneThreadImpacted,
    OneThreadOther,
    Nothing,
}

/// A test's tier, and how many variables it touches there (more first).
fn evidence_tier(f: &Footprint) -> (Tier, usize) {
    let (impacted, other) = (f.impacted_vars.len() + f.undecided.len(), f.other_vars.len());
    match (f.threads, impacted, other) {
        (true, n, _) if n > 0 => (Tier::ThreadsImpacted, n),
        (true, 0, n) if n > 0 => (Tier::ThreadsOther, n),
        (false, n, _) if n > 0 => (Tier::OneThreadImpacted, n),
        (false, 0, n) if n > 0 => (Tier::OneThreadOther, n),
        _ => (Tier::Nothing, 0),
    }
}

/// SimRT's ties, made deterministic: fewer reached methods first, then the name.
fn by_size_then_name(a: &Footprint, b: &Footprint) -> std::cmp::Ordering {
    a.size.cmp(&b.size).then_with(|| a.test.cmp(&b.test)).then(a.method.cmp(&b.method))
}

fn tie(first: &Footprint, other: &Footprint) -> String {
    match first.size == other.size {
        false => {
            format!("; tied with {}, first for reaching fewer methods ({} vs {})", other.test, first.size, other.size)
        }
        true => format!("; tied with {} (both reach {} methods), first by name", other.test, first.size),
    }
}

/// `both ends of 2 impacted pairs`, `1 method with a warning of the change`, or both.
fn targets_text(pairs: usize, warned: usize) -> String {
    match (pairs, warned) {
        (p, 0) => format!("both ends of {}", plural(p, "impacted pair")),
        (0, w) => plural(w, "method with a warning of the change and no impacted pair"),
        (p, w) => format!(
            "both ends of {} and {}",
            plural(p, "impacted pair"),
            plural(w, "method with a warning of the change")
        ),
    }
}

fn covered_because(f: &Footprint, targets: &Targets) -> String {
    let warned = targets.warned(&f.covers);
    match f.evidence {
        Evidence::Static => format!("starts threads and reaches {}", targets_text(f.covers.len() - warned, warned)),
        Evidence::Coverage => {
            let by_coverage = plural(f.covers.len() - f.static_pairs, "impacted pair");
            let run = format!(
                "its recorded run (at {}) executed both ends of {by_coverage} in different threads",
                f.revision.as_deref().unwrap_or("?")
            );
            match f.static_pairs {
                0 => run,
                n => format!("{run}, and it starts threads and reaches {} more", targets_text(n - warned, warned)),
            }
        }
    }
}

fn not_covered_because(f: &Footprint, targets: &Targets) -> String {
    if targets.labels.is_empty() {
        return "the change impacts no shared-variable pair".to_string();
    }
    let none = match targets.pairs {
        0 => "no method with a warning of the change".to_string(),
        _ => "both ends of no impacted pair".to_string(),
    };
    match (f.evidence, f.threads, f.one_thread) {
        (Evidence::Static, false, 0) => "starts no thread".to_string(),
        (Evidence::Static, false, n) => format!("starts no thread (it reaches {})", targets_text(n, 0)),
        (Evidence::Static, true, _) => format!("reaches {none}"),
        (Evidence::Coverage, false, n) => {
            let run = format!("its recorded run (at {}) ran one thread", f.revision.as_deref().unwrap_or("?"));
            match n {
                0 => run,
                n => format!("{run} (it executed both ends of {} there)", plural(n, "impacted pair")),
            }
        }
        (Evidence::Coverage, true, 0) => format!(
            "its recorded run (at {}) executed both ends of no impacted pair",
            f.revision.as_deref().unwrap_or("?")
        ),
        (Evidence::Coverage, true, n) => format!(
            "its recorded run (at {}) executed both ends of {} in one thread only",
            f.revision.as_deref().unwrap_or("?"),
            plural(n, "impacted pair")
        ),
    }
}

/// `Pool.numActive, Pool.numIdle`, the first three.
fn variables(fields: &BTreeSet<FieldKey>) -> String {
    let mut names: Vec<String> = fields.iter().map(variable).collect();
    names.sort();
    if names.len() > 3 {
        names.truncate(3);
        names.push("…".to_string());
    }
    names.join(", ")
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `racelens select`'s text: one line per test, best first, then a summary.
pub fn text(selection: &Selection) -> String {
    let mut out = String::new();
    for t in &selection.tests {
        out += &match t.selected {
            true => format!(
                "#{} selected {} — covers {} ({}); {}{}\n",
                t.rank,
                t.test,
                covers_text(t),
                first_pairs(t),
                t.placed,
                evidence_text(t)
            ),
            false => format!("#{} {} — {}{}\n", t.rank, t.test, t.reason, evidence_text(t)),
        };
    }
    for undecided in &selection.undecided {
        out += &format!("racelens: {undecided}\n");
    }
    out += &format!(
        "racelens: {} of {} selected for this change ({})\n",
        selection.selected,
        plural(selection.total, "test"),
        selection.evidence
    );
    if selection.selected == 0 && !selection.undecided.is_empty() {
        out += "racelens: no evidence either way: the analysis could not tell whether other threads share the changed state (above), and no selected test runs it in two threads\n";
    }
    out
}

/// `2 impacted pairs`, `1 method with a warning`, or both.
fn covers_text(t: &RankedTest) -> String {
    match (t.pairs.len() - t.warned, t.warned) {
        (p, 0) => plural(p, "impacted pair"),
        (0, w) => plural(w, "method with a warning"),
        (p, w) => format!("{} and {}", plural(p, "impacted pair"), plural(w, "method with a warning")),
    }
}

/// A test's evidence, as its line ends: ` [static]`, ` [coverage at abc1234]`, with why
/// the record was not used for some pairs (or at all) when it was not.
fn evidence_text(t: &RankedTest) -> String {
    match (t.evidence, &t.note) {
        (Evidence::Coverage, None) => format!(" [coverage at {}]", t.revision.as_deref().unwrap_or("?")),
        (Evidence::Coverage, Some(note)) => format!(" [coverage at {}; {note}]", t.revision.as_deref().unwrap_or("?")),
        (Evidence::Static, Some(_)) => " [static: coverage not used]".to_string(),
        (Evidence::Static, None) => " [static]".to_string(),
    }
}

/// The first two pairs, and how many more.
fn first_pairs(t: &RankedTest) -> String {
    let mut shown = t.pairs.iter().take(2).cloned().collect::<Vec<_>>().join(", ");
    if t.pairs.len() > 2 {
        shown += &format!(", and {} more", t.pairs.len() - 2);
    }
    shown
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;
    use crate::index::FileId;

    fn footprint(test: &str, covers: &[usize], size: usize) -> Footprint {
        Footprint {
            test: test.to_string(),
            method: MethodRef { origin: Origin::Project(FileId(0)), idx: 0 },
            evidence: Evidence::Static,
            threads: true,
            own_threads: true,
            covers: covers.to_vec(),
            one_thread: 0,
            impacted_vars: BTreeSet::new(),
            other_vars: BTreeSet::new(),
            size,
            revision: None,
            static_pairs: 0,
            note: None,
            undecided: Vec::new(),
            undecided_text: None,
            undecided_alone: Vec::new(),
        }
    }

    fn targets(n: usize) -> Targets {
        Targets { labels: (0..n).map(|i| format!("P{i}")).collect(), pairs: n }
    }

    fn check(footprints: Vec<Footprint>, expected: Expect) {
        let selection = rank(footprints, &targets(4), &Cancel::never()).unwrap();
        let lines: Vec<String> = selection
            .tests
            .iter()
            .map(|t| format!("#{} {} [{}] {}\n", t.rank, t.test, t.pairs.join(" "), t.reason))
            .collect();
        expected.assert_eq(&lines.concat());
    }

    #[test]
    fn a_cancelled_ranking_stops_with_no_partial_selection() {
        let edits = crate::cancel::Edits::default();
        let cancel = edits.token();
        let footprints = || vec![footprint("tc2", &[0], 5), footprint("tc1", &[0], 5), footprint("tc3", &[1, 2], 5)];
        assert_eq!(rank(footprints(), &targets(3), &cancel).map(|s| s.selected), Ok(3));
        edits.bump();
        assert_eq!(rank(footprints(), &targets(3), &cancel).map(|s| s.selected), Err(Cancelled));
    }

    #[test]
    fn simrt_example_ranks_tc3_then_tc1_and_tc2_after_a_reset() {
        // Section 3.6: tc1 and tc2 cover (SV3, SV6); tc3 covers (SV7, SV8) and (SV8, SV8).
        check(
            vec![footprint("tc2", &[0], 5), footprint("tc1", &[0], 5), footprint("tc3", &[1, 2], 5)],
            expect![[r#"
                #1 tc3 [P1 P2] selected: starts threads and reaches both ends of 2 impacted pairs; 2 new (not covered by a test ranked before it)
                #2 tc1 [P0] selected: starts threads and reaches both ends of 1 impacted pair; 1 new (not covered by a test ranked before it); tied with tc2 (both reach 5 methods), first by name
                #3 tc2 [P0] selected: starts threads and reaches both ends of 1 impacted pair; none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 1 not covered since
            "#]],
        );
    }

    #[test]
    fn reasons_and_the_summary_say_which_evidence_decided() {
        let recorded =
            |test: &str, covers: &[usize], one_thread: usize, note: Option<&str>, static_pairs: usize| Footprint {
                evidence: Evidence::Coverage,
                revision: Some("abc1234".into()),
                one_thread,
                static_pairs,
                note: note.map(str::to_string),
                ..footprint(test, covers, 3)
            };
        let stale = Footprint {
            note: Some("its coverage (record at abc1234) was not used: the recording of A.java is stale".into()),
            ..footprint("stale", &[1], 4)
        };
        let footprints = vec![
            recorded("two", &[0], 0, None, 0),
            recorded("one", &[], 2, None, 0),
            recorded("mixed", &[0, 2], 0, Some("static for 1 pair: B.java is new or renamed since the recording"), 1),
            stale,
            footprint("plain", &[], 2),
        ];
        let selection = rank(footprints, &targets(4), &Cancel::never()).unwrap();
        let lines: Vec<String> =
            selection.tests.iter().map(|t| format!("#{} {} {:?} {}\n", t.rank, t.test, t.evidence, t.reason)).collect();
        expect![[r#"
            #1 mixed Coverage selected: its recorded run (at abc1234) executed both ends of 1 impacted pair in different threads, and it starts threads and reaches both ends of 1 impacted pair more; 2 new (not covered by a test ranked before it); static for 1 pair: B.java is new or renamed since the recording
            #2 stale Static selected: starts threads and reaches both ends of 1 impacted pair; 1 new (not covered by a test ranked before it); its coverage (record at abc1234) was not used: the recording of A.java is stale
            #3 two Coverage selected: its recorded run (at abc1234) executed both ends of 1 impacted pair in different threads; none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 1 not covered since
            #4 one Coverage not selected: its recorded run (at abc1234) executed both ends of 2 impacted pairs in one thread only; touches no shared variable
            #5 plain Static not selected: reaches both ends of no impacted pair; touches no shared variable
        "#]]
        .assert_eq(&lines.concat());
        assert_eq!(selection.evidence, "coverage of 3 tests recorded at abc1234 (1 partly static), static for 2");
    }

    #[test]
    fn additional_coverage_beats_total_coverage_and_smaller_tests_win_ties() {
        // After `wide` (P0, P1, P2), `small` and `large` both add P3 and the smaller goes first;
        // `same` covers two pairs but adds none: it waits for the reset, then goes before
        // `large` (two pairs against one).
        check(
            vec![
                footprint("wide", &[0, 1, 2], 9),
                footprint("same", &[0, 1], 3),
                footprint("large", &[3], 8),
                footprint("small", &[3], 2),
            ],
            expect![[r#"
                #1 wide [P0 P1 P2] selected: starts threads and reaches both ends of 3 impacted pairs; 3 new (not covered by a test ranked before it)
                #2 small [P3] selected: starts threads and reaches both ends of 1 impacted pair; 1 new (not covered by a test ranked before it); tied with large, first for reaching fewer methods (2 vs 8)
                #3 same [P0 P1] selected: starts threads and reaches both ends of 2 impacted pairs; none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 2 not covered since
                #4 large [P3] selected: starts threads and reaches both ends of 1 impacted pair; none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 1 not covered since
            "#]],
        );
    }

    #[test]
    fn a_single_threaded_test_never_ranks_above_a_multithreaded_one_with_evidence() {
        // Nothing is selected; `alone` touches three impacted variables in one thread, `two`
        // one of them in two threads, `other` starts threads and touches an unimpacted one.
        let vars = |names: &[&str]| {
            names
                .iter()
                .map(|n| FieldKey { class: "demo.Pool".into(), name: (*n).into(), element: false })
                .collect::<BTreeSet<_>>()
        };
        let alone = Footprint { threads: false, impacted_vars: vars(&["a", "b", "c"]), ..footprint("alone", &[], 1) };
        let two = Footprint { impacted_vars: vars(&["a"]), ..footprint("two", &[], 9) };
        let other = Footprint { other_vars: vars(&["z"]), ..footprint("other", &[], 2) };
        let plain = Footprint { threads: false, ..footprint("plain", &[], 1) };
        check(
            vec![plain, alone, other, two],
            expect![[r#"
                #1 two [] not selected: reaches both ends of no impacted pair; touches 1 impacted shared variable (Pool.a)
                #2 other [] not selected: reaches both ends of no impacted pair; touches no impacted shared variable and 1 other shared variable (Pool.z)
                #3 alone [] not selected: starts no thread; touches 3 impacted shared variables (Pool.a, Pool.b, Pool.c)
                #4 plain [] not selected: starts no thread; touches no shared variable
            "#]],
        );
    }

    #[test]
    fn a_warned_method_without_a_pair_selects_the_tests_that_run_it_in_threads() {
        let targets = Targets { labels: vec!["RL004 Outbox.java:12 (Outbox.flush)".into()], pairs: 0 };
        let undecided = Footprint {
            undecided: vec![0],
            undecided_text: Some("it runs `Key.hashCode`, where `Key.hash` is not known to be shared".into()),
            ..footprint("undecided", &[], 3)
        };
        let footprints =
            vec![footprint("drains", &[0], 4), undecided, Footprint { threads: false, ..footprint("alone", &[], 2) }];
        let selection = rank(footprints, &targets, &Cancel::never()).unwrap();
        let lines: Vec<String> = selection
            .tests
            .iter()
            .map(|t| format!("#{} {} [{}] {}\n", t.rank, t.test, t.pairs.join(" "), t.reason))
            .collect();
        expect![[r#"
            #1 drains [RL004 Outbox.java:12 (Outbox.flush)] selected: starts threads and reaches 1 method with a warning of the change and no impacted pair; 1 new (not covered by a test ranked before it)
            #2 undecided [] not selected: reaches no method with a warning of the change, but it runs `Key.hashCode`, where `Key.hash` is not known to be shared; touches no known shared variable
            #3 alone [] not selected: starts no thread; touches no shared variable
        "#]].assert_eq(&lines.concat());
    }
}
