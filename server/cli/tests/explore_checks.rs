//! A failure racelens reports is one the program can have: a failure raised inside
//! racelens's model of the JDK, where the test passes when run plainly, is reported as a
//! limitation of racelens (fixture `tests/fixtures/explore-limitation`), never as a failure of
//! the test. (A failure that does not replay in a fresh JVM: `explore_statics.rs`.)

use racelens_test_support as support;
mod common;

use support::*;

#[test]
fn a_failure_raised_in_a_model_where_plain_runs_pass_is_a_limitation_of_racelens() {
    let repo = repo_from(&fixtures_dir().join("explore-limitation"), false);
    let test = "org.example.locks.BlockerTest#aThreadWaitingForALockNamesWhatItIsParkedOn";
    let (code, r) = common::racelens(repo.path(), &["explore", "--test", test]);
    assert_eq!((code, r["outcome"].as_str()), (2, Some("limitation")), "{r:#}");
    let checks = &r["checks"];
    assert_eq!(checks["fresh_jvm"], "same failure", "{r:#}");
    assert_eq!(checks["plain_runs"], serde_json::json!(["passed", "passed", "passed"]), "{r:#}");
    assert!(checks["model"].as_str().unwrap().starts_with("racelens.rt."), "{r:#}");
    assert!(r["error"].as_str().unwrap().contains("raised inside racelens's model of the JDK"), "{r:#}");
    let out = common::racelens_command(repo.path(), &["explore", "--test", test]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("! racelens limitation: java.lang.UnsupportedOperationException: racelens: LockSupport.getBlocker(waiter) is not modelled"), "{text}");
    assert!(!text.contains('✗'), "{text}");
}
