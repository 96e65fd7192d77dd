//! Test selection and ranking for a change (SimRT sections 3.5 and 3.6, from static reach),
//! on a real git repository of independent subsystems (`support::subsystems`): a pool, a
//! counter and a registry, each with its own multithreaded test, single-threaded tests, and
//! a test that runs two subsystems.

use racelens_test_support as support;

use expect_test::{expect, Expect};
use racelens_analysis::cancel::{Cancelled, Edits};
use racelens_analysis::coverage::CoverageView;
use racelens_analysis::host::Host;
use racelens_analysis::impact::Impact;
use racelens_analysis::rank::{self, Selection};
use support::subsystems::*;
use support::*;

fn selection_of(change: &[(&str, &str)]) -> (Selection, Host, Impact) {
    let repo = repo_with(&subsystems(), change);
    let (mut host, impact) = analyze(repo.path());
    let sharing = host.sharing();
    (rank::select(host.index(), &sharing, &impact), host, impact)
}

/// One line per test, best first: rank, selected or not, the number of pairs, the reason.
fn check(selection: &Selection, expected: Expect) {
    let mut out = format!("{} of {} selected\n", selection.selected, selection.total);
    for t in &selection.tests {
        let mark = if t.selected { "selected" } else { "-" };
        out += &format!("#{} {mark} {} ({} pairs, {:?}): {}\n", t.rank, t.test, t.pairs.len(), t.evidence, t.reason);
    }
    expected.assert_eq(&out);
}

#[test]
fn an_edit_cancels_the_ranking_and_an_uncancelled_token_ranks_the_same() {
    let repo = repo_with(&subsystems(), &[(POOL_PATH, &pool_unlocked())]);
    let (mut host, impact) = analyze(repo.path());
    let sharing = host.sharing();
    let coverage = CoverageView::default();
    let edits = Edits::default();
    let cancel = edits.token();
    let complete = rank::select_with(host.index(), &sharing, &impact, &coverage);
    let uncancelled = rank::select_cancellable(host.index(), &sharing, &impact, &coverage, &cancel).unwrap();
    assert_eq!(serde_json::to_value(&uncancelled).unwrap(), serde_json::to_value(&complete).unwrap());
    assert_eq!(complete.selected, 4);
    // An edit arrives: the ranking stops and says so; no partial selection comes back.
    edits.bump();
    assert_eq!(
        rank::select_cancellable(host.index(), &sharing, &impact, &coverage, &cancel).map(|s| s.total),
        Err(Cancelled)
    );
    // A token taken after the edit ranks the same again.
    let again = rank::select_cancellable(host.index(), &sharing, &impact, &coverage, &edits.token()).unwrap();
    assert_eq!(serde_json::to_value(&again).unwrap(), serde_json::to_value(&complete).unwrap());
}

#[test]
fn a_change_to_the_pool_selects_the_tests_that_run_it_in_threads_and_ranks_by_new_pairs() {
    // giveBack() loses `synchronized`: its updates race with borrow() and idle(), and its
    // notifyAll() pairs with borrow()'s wait().
    let (selection, host, impact) = selection_of(&[(POOL_PATH, &pool_unlocked())]);
    check(
        &selection,
        expect![[r#"
        4 of 10 selected
        #1 selected org.x.pool.PoolTest#borrowersAndReturners (14 pairs, Static): selected: starts threads and reaches both ends of 14 impacted pairs; 14 new (not covered by a test ranked before it)
        #2 selected org.x.EndToEndTest#borrowAndCount (13 pairs, Static): selected: starts threads and reaches both ends of 13 impacted pairs; none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 13 not covered since
        #3 selected org.x.pool.PoolTest#threeReturners (4 pairs, Static): selected: starts threads and reaches both ends of 4 impacted pairs; none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 4 not covered since; tied with org.x.pool.PoolTest#twoReturners (both reach 4 methods), first by name
        #4 selected org.x.pool.PoolTest#twoReturners (4 pairs, Static): selected: starts threads and reaches both ends of 4 impacted pairs; none new (every pair is covered by a test ranked before it): ranked after a coverage reset by the 4 not covered since
        #5 - org.x.pool.PoolTest#idleWatcher (0 pairs, Static): not selected: reaches both ends of no impacted pair; touches 1 impacted shared variable (Pool.numIdle)
        #6 - org.x.registry.RegistryTest#testConcurrentRegistrations (0 pairs, Static): not selected: reaches both ends of no impacted pair; touches no impacted shared variable and 2 other shared variables (Registry.names[], Registry.registrations)
        #7 - org.x.metrics.CounterTest#concurrentIncrements (0 pairs, Static): not selected: reaches both ends of no impacted pair; touches no impacted shared variable and 1 other shared variable (Counter.count)
        #8 - org.x.pool.PoolTest#borrowThenGiveBackAlone (0 pairs, Static): not selected: starts no thread (it reaches both ends of 14 impacted pairs); touches 2 impacted shared variables (Pool.numActive, Pool.numIdle)
        #9 - org.x.text.SlugsTest#keepsDigits (0 pairs, Static): not selected: starts no thread; touches no shared variable
        #10 - org.x.text.SlugsTest#lowercases (0 pairs, Static): not selected: starts no thread; touches no shared variable
    "#]],
    );
    // The first test covers every impacted pair, of three kinds.
    let impacted: Vec<String> =
        impact.pairs.iter().filter(|p| p.impacted()).map(|p| rank::pair_label(host.index(), p)).collect();
    assert_eq!(selection.tests[0].pairs, impacted);
    let kinds: Vec<&str> = impacted.iter().map(|p| p.split(' ').next().unwrap()).collect();
    assert_eq!(
        [
            kinds.iter().filter(|k| **k == "RW").count(),
            kinds.iter().filter(|k| **k == "WW").count(),
            kinds.iter().filter(|k| **k == "WN").count()
        ],
        [9, 4, 1]
    );
    assert_eq!(impacted.last().unwrap(), "WN Pool.this: notify Pool.java:30 <-> wait Pool.java:15");
}

#[test]
fn an_unchanged_tree_selects_nothing() {
    // RTSCheck R5: no change, no impacted pair, no test selected; the order is by the
    // shared variables each test touches.
    let (selection, ..) = selection_of(&[]);
    check(
        &selection,
        expect![[r#"
        0 of 10 selected
        #1 - org.x.EndToEndTest#borrowAndCount (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no impacted shared variable and 3 other shared variables (Counter.count, Pool.numActive, Pool.numIdle)
        #2 - org.x.pool.PoolTest#threeReturners (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no impacted shared variable and 2 other shared variables (Pool.numActive, Pool.numIdle)
        #3 - org.x.pool.PoolTest#twoReturners (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no impacted shared variable and 2 other shared variables (Pool.numActive, Pool.numIdle)
        #4 - org.x.registry.RegistryTest#testConcurrentRegistrations (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no impacted shared variable and 2 other shared variables (Registry.names[], Registry.registrations)
        #5 - org.x.pool.PoolTest#borrowersAndReturners (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no impacted shared variable and 2 other shared variables (Pool.numActive, Pool.numIdle)
        #6 - org.x.metrics.CounterTest#concurrentIncrements (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no impacted shared variable and 1 other shared variable (Counter.count)
        #7 - org.x.pool.PoolTest#idleWatcher (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no impacted shared variable and 1 other shared variable (Pool.numIdle)
        #8 - org.x.pool.PoolTest#borrowThenGiveBackAlone (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no impacted shared variable and 2 other shared variables (Pool.numActive, Pool.numIdle)
        #9 - org.x.text.SlugsTest#keepsDigits (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no shared variable
        #10 - org.x.text.SlugsTest#lowercases (0 pairs, Static): not selected: the change impacts no shared-variable pair; touches no shared variable
    "#]],
    );
}

#[test]
fn a_field_that_starts_hiding_an_inherited_one_impacts_the_accesses_it_rebinds() {
    // `BatchTally` declares its own `count`: its unchanged `addPair()` now writes that field
    // while the inherited `count()` reads `Tally`'s (JLS 8.3). Not a line of `addPair()`
    // changed, but its accesses mean another variable: the test that runs them in two
    // threads is selected (found first by rtscheck's field-hiding operator).
    let tally = "package t;\n\npublic class Tally {\n    protected int count;\n\n    public synchronized void add() {\n        count++;\n    }\n\n    public synchronized int count() {\n        return count;\n    }\n}\n";
    let batch = "package t;\n\npublic class BatchTally extends Tally {\n    public synchronized void addPair() {\n        count += 2;\n    }\n}\n";
    let test = "package t;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class TallyTest {\n    @Test\n    public void pairsFromTwoThreads() throws Exception {\n        BatchTally tally = new BatchTally();\n        Thread a = new Thread(tally::addPair);\n        Thread b = new Thread(tally::addPair);\n        a.start();\n        b.start();\n        a.join();\n        b.join();\n        assertEquals(4, tally.count());\n    }\n}\n";
    let hiding = batch.replace("extends Tally {\n", "extends Tally {\n    protected int count;\n\n");
    let files = [("src/t/Tally.java", tally), ("src/t/BatchTally.java", batch), ("src/t/TallyTest.java", test)];
    let repo = repo_with(&files, &[("src/t/BatchTally.java", &hiding)]);
    let (mut host, impact) = analyze(repo.path());
    let sharing = host.sharing();
    let selection = rank::select(host.index(), &sharing, &impact);
    check(
        &selection,
        expect![[r#"
        1 of 1 selected
        #1 selected t.TallyTest#pairsFromTwoThreads (2 pairs, Static): selected: starts threads and reaches both ends of 2 impacted pairs; 2 new (not covered by a test ranked before it)
    "#]],
    );
    // Without the new declaration nothing is impacted, and nothing selected.
    let unchanged = repo_with(&files, &[]);
    let (mut host, impact) = analyze(unchanged.path());
    let sharing = host.sharing();
    assert_eq!(rank::select(host.index(), &sharing, &impact).selected, 0);
}
