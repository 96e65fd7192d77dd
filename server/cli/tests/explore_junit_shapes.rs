//! Tests as JUnit runs them, through the `racelens` binary on real JVMs (fixture
//! `tests/fixtures/explore-junit-shapes`, whose tests all pass under plain JUnit): a test an
//! abstract class declares is explored by the name of each concrete subclass (the abstract
//! class itself is refused, naming them); every invocation of a JUnit 5 `@ParameterizedTest`,
//! a `@RepeatedTest` and a JUnit 4 `Parameterized` test is explored, and a failure names the
//! invocation, whose schedule replays; a `@Nested` test runs with its outer instance and
//! lifecycle; a JUnit 4 `@Rule` is honoured; a JUnit 5 extension and JUnit 4's `Timeout` rule
//! are refused by name before any schedule; `select` and `explore --affected` list the
//! inherited tests under the subclasses and never the abstract class.

use racelens_test_support as support;
mod common;

use serde_json::Value;
use support::*;

const FIXTURE: &str = "explore-junit-shapes";

fn name(test: &str) -> String {
    format!("org.example.shapes.{test}")
}

/// The base: every schedule of `test` passes, with a claim about every schedule.
fn passes_every_schedule(test: &str) -> Value {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    let r = common::passes_every_schedule(repo.path(), &name(test), &[]);
    assert_eq!(r["coverage"]["all_schedules"], true, "{test}: {r:#}");
    r
}

/// With the change, `test` fails in invocation `index` with `message`; the schedule replays
/// under the test's name and under the invocation's own (`test[index]`).
fn invocation_fails_and_replays(test: &str, index: u64, display: &str, message: &str) -> Value {
    let repo = fixture_repo(FIXTURE);
    let test = name(test);
    let r = common::fails_and_replays(repo.path(), &test, message);
    let invocation = &r["failure"]["invocation"];
    assert_eq!((invocation["index"].as_u64(), invocation["display"].as_str()), (Some(index), Some(display)), "{r:#}");
    let schedule = r["failure"]["schedule"].as_str().unwrap();
    assert!(schedule.starts_with(&format!("v1i{index}_")), "the schedule names its invocation: {schedule}");
    let (code, replayed) =
        common::racelens(repo.path(), &["replay", "--test", &format!("{test}[{index}]"), "--schedule", schedule]);
    assert_eq!((code, replayed["outcome"].as_str()), (1, Some("fail")), "{replayed:#}");
    // The text names the invocation too.
    let out = common::racelens_command(repo.path(), &["explore", "--test", &test]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().next().unwrap().contains(&format!("in invocation [{index}] ({display})")), "{text}");
    r
}

#[test]
fn an_inherited_test_runs_on_each_concrete_subclass_and_only_the_broken_one_fails() {
    for class in ["LockedHitCounterTest", "AtomicHitCounterTest"] {
        passes_every_schedule(&format!("{class}#hitsFromTwoThreadsAllCount"));
    }
    let repo = fixture_repo(FIXTURE);
    let r = common::fails_and_replays(
        repo.path(),
        &name("LockedHitCounterTest#hitsFromTwoThreadsAllCount"),
        "org.opentest4j.AssertionFailedError: two hits",
    );
    assert_eq!(r["failure"]["file"], "src/test/java/org/example/shapes/AbstractHitCounterTest.java", "{r:#}");
    assert!(r["failure"].get("invocation").is_none(), "a test JUnit runs once has no invocation: {r:#}");
    let r = common::passes_every_schedule(repo.path(), &name("AtomicHitCounterTest#hitsFromTwoThreadsAllCount"), &[]);
    assert_eq!(r["coverage"]["all_schedules"], true, "{r:#}");
    // The abstract class is never run: the error names the tests to explore instead.
    let error = common::setup_error(repo.path(), &name("AbstractHitCounterTest#hitsFromTwoThreadsAllCount"));
    assert!(
        error.contains("is abstract: JUnit does not run it")
            && error.contains("org.example.shapes.AtomicHitCounterTest#hitsFromTwoThreadsAllCount, org.example.shapes.LockedHitCounterTest#hitsFromTwoThreadsAllCount"),
        "{error}"
    );
}

#[test]
fn every_invocation_of_a_parameterized_test_is_explored_and_the_failure_names_its_invocation() {
    let r = passes_every_schedule("TallyTest#everyWorkersBatchIsCounted");
    assert_eq!(r["coverage"]["invocations"], 2, "{r:#}");
    invocation_fails_and_replays(
        "TallyTest#everyWorkersBatchIsCounted",
        2,
        "2",
        "org.opentest4j.AssertionFailedError: the total of 2 batches",
    );
    // One invocation alone: [1] has a single worker, so it passes even with the change.
    let repo = fixture_repo(FIXTURE);
    let r = common::passes_every_schedule(repo.path(), &name("TallyTest#everyWorkersBatchIsCounted[1]"), &[]);
    assert_eq!(
        (r["coverage"]["invocations"].as_u64(), r["coverage"]["all_schedules"].as_bool()),
        (Some(1), Some(true)),
        "{r:#}"
    );
    let error = common::setup_error(repo.path(), &name("TallyTest#everyWorkersBatchIsCounted[3]"));
    assert!(error.contains("has no invocation [3]: its invocations are [1] to [2]"), "{error}");
}

#[test]
fn every_repetition_of_a_repeated_test_is_explored_with_its_repetition_info() {
    passes_every_schedule("TallyTest#eachRepetitionAddsABatchPerWorker");
    invocation_fails_and_replays(
        "TallyTest#eachRepetitionAddsABatchPerWorker",
        2,
        "repetition 2 of 2",
        "org.opentest4j.AssertionFailedError: repetition 2",
    );
}

#[test]
fn junit4_parameterized_runs_each_parameter_set_with_its_rule() {
    // The @Rule stocks the shelf: without it the test has no shelf and fails on every schedule.
    passes_every_schedule("ShelfTest#everyPickerGetsAnItemAndTheShelfEmpties");
    invocation_fails_and_replays(
        "ShelfTest#everyPickerGetsAnItemAndTheShelfEmpties",
        1,
        "2 pickers",
        "java.lang.AssertionError: items left",
    );
}

#[test]
fn every_common_argument_source_gives_its_invocations_fresh_in_every_execution() {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    for (test, invocations) in [
        ("twoBatchesAddUp", 2),               // @CsvSource
        ("aBatchAddsToTheOpeningBalance", 2), // @MethodSource with Arguments
        ("dayShiftsReportTwice", 2),          // @EnumSource, TestInfo
        ("blankNotesAddNothing", 3),          // @NullAndEmptySource, @ValueSource
        ("listsOfBatches", 2),                // @MethodSource("Class#method")
    ] {
        let r = common::passes_every_schedule(repo.path(), &name(&format!("TallySourcesTest#{test}")), &[]);
        assert_eq!(
            (r["coverage"]["invocations"].as_u64(), r["coverage"]["all_schedules"].as_bool()),
            (Some(invocations), Some(true)),
            "{test}: {r:#}"
        );
    }
    // A failing invocation of an @EnumSource test is named by its constant.
    invocation_fails_and_replays(
        "TallySourcesTest#dayShiftsReportTwice",
        1,
        "EARLY",
        "org.opentest4j.AssertionFailedError: expected: <2> but was: <1>",
    );
}

#[test]
fn junit4_class_rules_and_rules_are_honoured() {
    // The @ClassRule opens the stockroom and the TestName @Rule names the test: without either
    // the test fails on every schedule.
    passes_every_schedule("StockroomTest#twoPickersEmptyAShelfOfTwo");
    let repo = fixture_repo(FIXTURE);
    common::fails_and_replays(
        repo.path(),
        &name("StockroomTest#twoPickersEmptyAShelfOfTwo"),
        "java.lang.AssertionError: expected:<0> but was:<1>",
    );
}

#[test]
fn a_nested_test_runs_inside_its_outer_instance_and_lifecycle() {
    // The outer @BeforeEach opens the mailbox, the nested one fills it, the outer @AfterEach
    // checks it is empty: each must run, in Jupiter's order, for the base to pass.
    passes_every_schedule("MailboxTest$WhenFull#aTakeLetsAWaitingPutIn");
    let repo = fixture_repo(FIXTURE);
    let (code, r) =
        common::racelens(repo.path(), &["explore", "--test", &name("MailboxTest.WhenFull#aTakeLetsAWaitingPutIn")]);
    assert_eq!((code, r["failure"]["kind"].as_str()), (1, Some("deadlock")), "{r:#}");
    assert_eq!(r["test"], "org.example.shapes.MailboxTest$WhenFull#aTakeLetsAWaitingPutIn", "{r:#}");
}

#[test]
fn extensions_and_thread_starting_rules_are_refused_by_name_before_any_schedule() {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    let error = common::setup_error(repo.path(), &name("ReceiptTest#twoTillsAddTheirLines"));
    assert!(
        error.contains("not explored: racelens cannot honour JUnit 5 extensions")
            && error.contains("@ExtendWith(FixedClockExtension.class) on org.example.shapes.ReceiptTest"),
        "{error}"
    );
    let error = common::setup_error(repo.path(), &name("SlowShelfTest#aPickerInAnotherThreadTakesTheLastItem"));
    assert!(
        error.contains("not explored: racelens cannot honour the @Rule Timeout of org.example.shapes.SlowShelfTest"),
        "{error}"
    );
}

#[test]
fn select_and_explore_affected_list_inherited_tests_under_the_subclasses_only() {
    let repo = fixture_repo(FIXTURE);
    let (code, selection) = common::racelens(repo.path(), &["select"]);
    assert_eq!(code, 0, "{selection:#}");
    let tests: Vec<&str> = selection["tests"].as_array().unwrap().iter().map(|t| t["test"].as_str().unwrap()).collect();
    for expected in [
        "LockedHitCounterTest#hitsFromTwoThreadsAllCount",
        "AtomicHitCounterTest#hitsFromTwoThreadsAllCount",
        "LockedHitCounterTest#aNewCounterHasNoHits",
        "MailboxTest$WhenFull#aTakeLetsAWaitingPutIn",
        "TallyTest#everyWorkersBatchIsCounted",
    ] {
        assert!(tests.contains(&name(expected).as_str()), "{expected} in {tests:#?}");
    }
    assert!(!tests.iter().any(|t| t.contains("AbstractHitCounterTest")), "{tests:#?}");
    let (code, run) = common::racelens(repo.path(), &["explore", "--affected", "--max-schedules", "400"]);
    assert_eq!(code, 1, "{run:#}");
    let explored: Vec<&Value> = run["tests"].as_array().unwrap().iter().collect();
    assert!(!explored.iter().any(|t| t["test"].as_str().unwrap().contains("AbstractHitCounterTest")), "{run:#}");
    let locked = explored
        .iter()
        .find(|t| t["test"] == name("LockedHitCounterTest#hitsFromTwoThreadsAllCount"))
        .unwrap_or_else(|| panic!("explored: {run:#}"));
    assert_eq!(locked["result"]["outcome"], "fail", "{locked:#}");
}
