//! Selection from a coverage history (SimRT Figure 4) on a real git repository, with records
//! written by hand (no JVM): which lines of a record made on the base stand for the change's
//! lines (SimRT section 3.3), and when a record does not speak for a file.

use racelens_test_support as support;

use std::collections::BTreeMap;

use racelens_analysis::coverage::{content_hash, Access, CoverageView, History, Snapshot, TestRun, HISTORY_VERSION};
use racelens_analysis::rank::{self, Evidence, Selection};
use support::*;

const BOX_PATH: &str = "src/main/java/p/Box.java";
const TEST_PATH: &str = "src/test/java/p/BoxTest.java";

/// `x = 1` on line 9, `y = x` on line 11.
const BOX: &str = r#"package p;

public class Box {
    private int x;
    private int y;

    public synchronized void work(int mode) {
        if (mode == 0) {
            x = 1;
        } else if (mode == 1) {
            y = x;
        }
    }
}
"#;

/// The test's thread runs both branches; the thread it starts runs `work` and neither branch.
const BOX_TEST: &str = r#"package p;

import org.junit.Test;

public class BoxTest {
    @Test
    public void t() throws Exception {
        Box b = new Box();
        Thread th = new Thread(() -> b.work(2));
        th.start();
        b.work(0);
        b.work(1);
        th.join();
    }
}
"#;

const TEST: &str = "p.BoxTest#t";

/// What the recorded run of `t` executed on the base: thread 0 wrote `x` (line 9) and read it
/// (line 11); thread 1 entered `work` (its monitor, on line 8) and nothing else.
fn recorded(files: &[(&str, &str)]) -> History {
    let snapshot =
        Snapshot { files: files.iter().map(|(p, text)| (p.to_string(), content_hash(text.as_bytes()))).collect() };
    let point = |line: u32, op: &str, target: &str, thread: u16| Access {
        file: BOX_PATH.into(),
        line,
        op: op.into(),
        target: target.into(),
        class: "p.Box".into(),
        method: "work".into(),
        thread,
    };
    let run = TestRun {
        revision: Some("0123456789abcdef".into()),
        source: "record".into(),
        outcome: "pass".into(),
        snapshot: snapshot.id(),
        threads: BTreeMap::from([(0, "main".into()), (1, "Thread-0".into())]),
        accesses: vec![
            point(8, "LOCK", "this", 0),
            point(8, "LOCK", "this", 1),
            point(9, "WRITE", "p.Box.x", 0),
            point(11, "READ", "p.Box.x", 0),
            point(11, "WRITE", "p.Box.y", 0),
        ],
        ..TestRun::default()
    };
    let mut history = History { version: HISTORY_VERSION, ..History::default() };
    history.add(&snapshot, vec![(TEST.into(), run)]);
    history
}

fn select(change: &str, history: &History) -> Selection {
    let repo = repo_with(&[(BOX_PATH, BOX), (TEST_PATH, BOX_TEST)], &[(BOX_PATH, change)]);
    let (mut host, impact) = analyze(repo.path());
    let sharing = host.sharing();
    let coverage = CoverageView::of(&mut host, history, &impact);
    rank::select_with(host.index(), &sharing, &impact, &coverage)
}

/// `work` without its monitor, and two lines inserted above it.
fn unlocked_and_shifted() -> String {
    BOX.replace("    public synchronized void work", "    private int z;\n\n    public void work")
}

#[test]
fn a_record_on_the_base_maps_through_the_diff_and_its_threads_decide() {
    let selection = select(&unlocked_and_shifted(), &recorded(&[(BOX_PATH, BOX), (TEST_PATH, BOX_TEST)]));
    let t = selection.get_by_name(TEST);
    // Both ends of `x`'s pair ran in thread 0 only: on the mapped lines 11 and 13. Were the
    // recorded lines not shifted, neither end's line would have run, and `work`, which both
    // threads entered, would stand for them: the test would be selected.
    assert_eq!((t.selected, t.evidence), (false, Evidence::Coverage), "{}", t.reason);
    assert!(
        t.reason.starts_with(
            "not selected: its recorded run (at 0123456) executed both ends of 3 impacted pairs in one thread only"
        ),
        "{}",
        t.reason
    );
    assert_eq!(selection.evidence, "coverage of 1 test recorded at 0123456, static for 0");
}

#[test]
fn an_end_on_a_line_no_thread_ran_counts_for_the_threads_that_ran_its_method() {
    // A new write in the else branch: the recorded run cannot have run its line, but both
    // threads ran `work`.
    let change = unlocked_and_shifted().replace("            y = x;\n", "            y = x;\n            x = 2;\n");
    let selection = select(&change, &recorded(&[(BOX_PATH, BOX), (TEST_PATH, BOX_TEST)]));
    let t = selection.get_by_name(TEST);
    assert_eq!((t.selected, t.evidence), (true, Evidence::Coverage), "{}", t.reason);
    assert!(t.pairs.iter().any(|p| p.contains("write Box.java:14")), "{:?}", t.pairs);
}

#[test]
fn a_file_new_since_the_record_or_recorded_on_other_contents_is_decided_statically() {
    // The record lists no Box.java: new or renamed since.
    let selection = select(&unlocked_and_shifted(), &recorded(&[(TEST_PATH, BOX_TEST)]));
    let t = selection.get_by_name(TEST);
    assert_eq!((t.selected, t.evidence), (true, Evidence::Static), "{}", t.reason);
    assert!(
        t.reason
            .ends_with("its coverage (record at 0123456) was not used: Box.java is new or renamed since the recording"),
        "{}",
        t.reason
    );
    assert_eq!(selection.evidence, "static reachability; the coverage history of 1 test was not usable");

    // Recorded on contents that are neither the base's nor the working tree's.
    let other = BOX.replace("x = 1;", "x = 3;");
    let selection = select(&unlocked_and_shifted(), &recorded(&[(BOX_PATH, &other), (TEST_PATH, BOX_TEST)]));
    let t = selection.get_by_name(TEST);
    assert_eq!((t.selected, t.evidence), (true, Evidence::Static), "{}", t.reason);
    assert!(
        t.reason.ends_with(
            "the recording of Box.java is stale (made on contents that are neither the base's nor the working tree's)"
        ),
        "{}",
        t.reason
    );

    // Recorded on the working tree's own contents: taken as they are (no diff).
    let change = unlocked_and_shifted();
    let selection = select(&change, &recorded(&[(BOX_PATH, &change), (TEST_PATH, BOX_TEST)]));
    assert_eq!(selection.get_by_name(TEST).evidence, Evidence::Coverage);
}

trait ByName {
    fn get_by_name(&self, test: &str) -> &rank::RankedTest;
}

impl ByName for Selection {
    fn get_by_name(&self, test: &str) -> &rank::RankedTest {
        self.tests
            .iter()
            .find(|t| t.test == test)
            .unwrap_or_else(|| panic!("no {test} in {:?}", self.tests.iter().map(|t| &t.test).collect::<Vec<_>>()))
    }
}
