//! `racelens explore` and `racelens replay` on real JVMs with the models of `Phaser`,
//! `StampedLock`, `SynchronousQueue`, `Exchanger`, `PriorityBlockingQueue` and `DelayQueue`
//! (fixture `tests/fixtures/explore-models`, one small project with a class and a test per
//! model): every test of the base passes every schedule with a complete claim (a call that
//! blocked in the JDK would end the run with an error instead, a wait in wall-clock time would
//! hit the run's time limit); the four buggy variants of its `change.patch` fail and their
//! schedules replay; two tests whose failing schedules only the StampedLock model's effects
//! reveal fail under the reduced searches too.

use racelens_test_support as support;
mod common;

use support::*;

const FIXTURE: &str = "explore-models";

fn test_name(test: &str) -> String {
    format!("org.example.sync.{test}")
}

/// Every schedule of the base's `test` passes, and the result claims it: all schedules up
/// to a preemption bound of at least 2, or every schedule.
fn passes_every_schedule(test: &str) {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    let test = test_name(test);
    let r = common::passes_every_schedule(repo.path(), &test, &[]);
    assert!(common::claims_complete(&r, 2), "{test}: a complete claim: {r:#}");
}

/// With the change applied, `test` fails with an assertion whose message starts with
/// `message`, and the failing schedule replays to the same failure.
fn buggy_fails_and_replays(test: &str, message: &str) {
    let repo = fixture_repo(FIXTURE);
    common::fails_and_replays(repo.path(), &test_name(test), message);
}

/// The base's `test` fails with `message` under each reduced search: `basic` orders the
/// schedules without preference, so only the reduction decides whether the failing one runs.
fn fails_under_every_search(test: &str, message: &str) {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    let test = test_name(test);
    for search in [&["--heuristic", "basic"][..], &["--heuristic", "basic", "--search", "dfs"], &[]] {
        let mut args = vec!["explore", "--test", &test];
        args.extend_from_slice(search);
        let (code, r) = common::racelens(repo.path(), &args);
        assert_eq!((code, r["outcome"].as_str()), (1, Some("fail")), "{search:?}: {r:#}");
        assert!(r["failure"]["message"].as_str().unwrap().starts_with(message), "{search:?}: {r:#}");
    }
}

#[test]
fn phaser_rounds_wait_for_every_contribution_across_tiers() {
    passes_every_schedule("RoundRunnerTest#everyRoundSeesEveryContribution");
}

#[test]
fn a_phaser_round_without_its_last_party_times_out_and_termination_releases_the_waiter() {
    passes_every_schedule("RoundRunnerTest#aRoundWithoutItsLastWorkerTimesOut");
}

#[test]
fn a_worker_that_arrives_without_waiting_breaks_the_round_totals() {
    buggy_fails_and_replays(
        "RoundRunnerTest#everyRoundSeesEveryContribution",
        "java.lang.AssertionError: expected:<[3, 6]>",
    );
}

#[test]
fn stamped_lock_snapshots_read_optimistically_and_fall_back_to_the_read_lock() {
    passes_every_schedule("PositionTest#snapshotsAreNeverTorn");
}

#[test]
fn stamped_lock_conversion_lets_exactly_one_caller_claim_the_origin() {
    passes_every_schedule("PositionTest#onlyOneCallerClaimsTheOrigin");
}

#[test]
fn an_optimistic_read_without_validation_is_torn_by_a_move() {
    buggy_fails_and_replays("PositionTest#snapshotsAreNeverTorn", "java.lang.AssertionError: x and y move together");
}

#[test]
fn an_optimistic_read_inside_a_write_section_is_tried_by_every_search() {
    // Before and after the section its stamp is valid; only inside it is it zero. The read
    // must be ordered against the release, not only against the acquisition.
    fails_under_every_search("PositionTest#aStillnessCheckNeverMeetsAMove", "java.lang.AssertionError");
}

#[test]
fn the_second_writer_taking_the_lock_first_is_tried_by_every_search() {
    fails_under_every_search(
        "PositionTest#movesTakeEffectInStartOrder",
        "java.lang.AssertionError: expected:<[1, 2]> but was:<[2, 1]>",
    );
}

#[test]
fn synchronous_queue_hands_each_parcel_to_the_waiting_courier_or_the_desk() {
    passes_every_schedule("CourierTest#everyParcelIsDeliveredOnce");
}

#[test]
fn synchronous_queue_timed_offer_waits_for_the_taker_and_a_timed_poll_times_out() {
    passes_every_schedule("CourierTest#aParcelWaitsForTheCourier");
}

#[test]
fn an_interrupted_synchronous_queue_taker_stops_waiting() {
    passes_every_schedule("CourierTest#anInterruptedCourierStopsWaiting");
}

#[test]
fn a_refused_hand_off_that_is_ignored_loses_a_parcel() {
    buggy_fails_and_replays(
        "CourierTest#everyParcelIsDeliveredOnce",
        "java.lang.AssertionError: expected:<2> but was:<1>",
    );
}

#[test]
fn exchanger_swaps_full_and_empty_buffers_and_a_timed_exchange_ends_the_writer() {
    passes_every_schedule("LogShipperTest#everyLineIsShippedOnceInOrder");
}

#[test]
fn reusing_a_buffer_after_handing_it_over_loses_lines() {
    let repo = fixture_repo(FIXTURE);
    let r = common::fails_and_replays(
        repo.path(),
        &test_name("LogShipperTest#everyLineIsShippedOnceInOrder"),
        "java.lang.AssertionError: expected:<[a, b, c, d]>",
    );
    // It fails on the schedule without preemptions: checked in a fresh JVM and against the test
    // run plainly, which fails too (the first plain run ends the comparison).
    assert_eq!(r["failure"]["preemptions"].as_array().map(Vec::len), Some(0), "{r:#}");
    assert_eq!(r["checks"]["fresh_jvm"], "same failure", "{r:#}");
    let plain: Vec<&str> = r["checks"]["plain_runs"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert!(
        matches!(plain.as_slice(), [only] if only.starts_with("failed with java.lang.AssertionError: expected:<[a, b, c, d]>")),
        "{r:#}"
    );
}

#[test]
fn priority_blocking_queue_serves_the_most_urgent_open_ticket_first() {
    passes_every_schedule("TicketDeskTest#theMostUrgentOpenTicketIsServedFirst");
}

#[test]
fn delay_queue_take_waits_for_each_delay_in_logical_time() {
    passes_every_schedule("RetrySchedulerTest#retriesRunWhenDueEarliestFirst");
}

#[test]
fn delay_queue_timed_poll_gives_up_before_the_head_is_due() {
    passes_every_schedule("RetrySchedulerTest#aTimedPollGivesUpBeforeTheDelay");
}
