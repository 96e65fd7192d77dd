//! Every execution starts from the program's initial state (fixture `tests/fixtures/explore-statics`):
//! a test whose statics carry state between runs in one JVM (a singleton order book, a
//! process-wide counter, a pool its `@BeforeClass` starts, a count of its own runs) and a main
//! program that checks it runs first in its process pass every schedule, as they do alone in a
//! fresh JVM; the buggy variant's failure is real and replays in a fresh JVM.

use racelens_test_support as support;
mod common;

use support::*;

const FIXTURE: &str = "explore-statics";

#[test]
fn statics_start_from_their_initial_values_in_every_execution() {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    for test in [
        "org.example.orders.OrderBookTest#twoClerksPlaceTheFirstTwoOrders",
        "org.example.orders.OrderBookTest#ordersAreSettledOnThePool",
        "org.example.orders.Replenish",
    ] {
        let r = common::passes_every_schedule(repo.path(), test, &[]);
        assert!(common::claims_complete(&r, 2), "{test}: a complete claim: {r:#}");
    }
}

#[test]
fn a_lost_update_of_the_singleton_is_found_and_replays_in_a_fresh_jvm() {
    let repo = fixture_repo(FIXTURE);
    common::fails_and_replays(
        repo.path(),
        "org.example.orders.OrderBookTest#twoClerksPlaceTheFirstTwoOrders",
        "java.lang.AssertionError",
    );
}

#[test]
fn a_failure_that_only_state_left_in_the_jdk_makes_is_not_reported_as_one() {
    let repo = repo_from(&fixtures_dir().join(FIXTURE), false);
    let test = "org.example.orders.RegionTest#theRegionIsConfiguredOnce";
    let (code, r) = common::racelens(repo.path(), &["explore", "--test", test]);
    assert_eq!((code, r["outcome"].as_str()), (2, Some("unconfirmed")), "{r:#}");
    assert_eq!(r["checks"]["fresh_jvm"], "passes", "{r:#}");
    assert!(r["failure"]["message"].as_str().unwrap().contains("no region before the test"), "{r:#}");
    assert!(r["error"].as_str().unwrap().contains("state earlier executions left in the JVM"), "{r:#}");
    let out = common::racelens_command(repo.path(), &["explore", "--test", test]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("! not confirmed: java.lang.AssertionError: no region before the test"), "{text}");
    assert!(!text.contains('✗'), "{text}");
}
