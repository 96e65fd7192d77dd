//! The exploration queue of the language server: which tests wait, which run (one at a
//! time per workspace by default), and what each found. The core calls in here; workers
//! report through the core's channel ([`crate::explorations`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use racelens_explore::exploration::replay_command;
use racelens_explore::reports::{ResultKind, TestResult};
use racelens_explore::results::swimlane::{self, Section};

use crate::explorations::{self, Job};

/// A test of a workspace: the workspace root and `pkg.Test#method`.
pub type TestKey = (PathBuf, String);

pub struct Running {
    pub key: TestKey,
    pub cancel: Arc<AtomicBool>,
    pub replay: bool,
    pub fingerprint: u64,
    pub heuristic: String,
    pub seed: Option<u64>,
    pub schedules: u64,
    pub bound: u32,
    /// The test's dynamic impact, once the worker computed it.
    pub impact: Option<racelens_explore::reports::ImpactReport>,
    /// The progress token shown in the editor, when it has one.
    pub token: Option<String>,
}

impl Running {
    fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }
}

#[derive(Default)]
pub struct Jobs {
    next_id: u64,
    queue: Vec<(Job, TestKey)>,
    pub running: BTreeMap<u64, Running>,
    results: BTreeMap<PathBuf, BTreeMap<String, TestResult>>,
    /// `racelens:/schedule/<name>/...` documents: the markdown text, and the swimlane page.
    documents: BTreeMap<String, (String, Option<String>)>,
    next_document: u64,
    /// Names documents apart from those of earlier server runs (an editor may still show one).
    run: u64,
    /// The number of each test's latest result, in the order they were stored (none for a
    /// result kept from an earlier run).
    result_numbers: BTreeMap<TestKey, u64>,
    stored: u64,
}

impl Jobs {
    pub fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Queues a job, unless the same test is queued or running already (a cancelled job
    /// that has not stopped yet does not count).
    pub fn enqueue(&mut self, job: Job, key: TestKey) -> bool {
        if self.queue.iter().any(|(_, k)| *k == key)
            || self.running.values().any(|r| r.key == key && !r.replay && !r.is_cancelled())
                && matches!(job.kind, explorations::JobKind::Explore)
        {
            return false;
        }
        self.queue.push((job, key));
        // Most impacted first; stable for equal priorities (first come, first served).
        self.queue.sort_by_key(|(j, _)| std::cmp::Reverse(j.priority));
        true
    }

    /// Jobs to start now: at most `parallel` running per workspace.
    pub fn ready(&mut self, parallel: usize) -> Vec<(Job, TestKey)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.queue.len() {
            let root = &self.queue[i].1 .0;
            let busy = self.running.values().filter(|r| &r.key.0 == root).count()
                + out.iter().filter(|(_, k): &&(Job, TestKey)| &k.0 == root).count();
            if busy < parallel.max(1) {
                out.push(self.queue.remove(i));
            } else {
                i += 1;
            }
        }
        out
    }

    pub fn is_queued(&self, key: &TestKey) -> bool {
        self.queue.iter().any(|(_, k)| k == key)
    }

    pub fn running_for(&self, key: &TestKey) -> Option<&Running> {
        self.running.values().find(|r| &r.key == key && !r.replay && !r.is_cancelled())
    }

    /// Makes room for exploring a test again: drops its queued jobs and cancels its running
    /// exploration (a replay runs on).
    pub fn replace(&mut self, key: &TestKey) {
        self.queue.retain(|(_, k)| k != key);
        for r in self.running.values().filter(|r| &r.key == key && !r.replay) {
            r.cancel.store(true, Ordering::SeqCst);
        }
    }

    /// Cancels the jobs of a test (or all), queued and running; returns how many.
    pub fn cancel(&mut self, key: Option<&TestKey>) -> usize {
        let before = self.queue.len();
        self.queue.retain(|(_, k)| key.is_some_and(|key| k != key));
        let mut n = before - self.queue.len();
        for r in self.running.values().filter(|r| key.is_none_or(|k| &r.key == k)) {
            r.cancel.store(true, Ordering::SeqCst);
            n += 1;
        }
        n
    }

    /// Cancels the job showing this progress token.
    pub fn cancel_token(&mut self, token: &str) -> bool {
        match self.running.values().find(|r| r.token.as_deref() == Some(token)) {
            Some(r) => {
                r.cancel.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    pub fn results(&mut self, root: &Path) -> &BTreeMap<String, TestResult> {
        self.results.entry(root.to_path_buf()).or_insert_with(|| explorations::load_results(root))
    }

    /// A result, if results of `root` are loaded already (no disk access).
    pub fn peek_result(&self, root: &Path, test: &str) -> Option<&TestResult> {
        self.results.get(root)?.get(test)
    }

    pub fn store(&mut self, root: &Path, result: TestResult) {
        self.results(root);
        let map = self.results.get_mut(root).expect("loaded above");
        self.stored += 1;
        self.result_numbers.insert((root.to_path_buf(), result.test.clone()), self.stored);
        map.insert(result.test.clone(), result);
        explorations::save_results(root, map);
    }

    /// Which result `key` has: 1 for the first stored by this server, and so on; 0 for one
    /// kept from an earlier run.
    pub fn result_number(&self, key: &TestKey) -> u64 {
        self.result_numbers.get(key).copied().unwrap_or(0)
    }

    /// Registers the schedule document of `test`; returns its URI,
    /// `racelens:/schedule/<id>/<Class>.<method>.md`: the id finds it, the last segment is
    /// what an editor's tab shows.
    pub fn document(&mut self, test: &str, text: String) -> String {
        if self.run == 0 {
            self.run =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_millis() as u64);
        }
        self.next_document += 1;
        let name = format!("{:x}-{}", self.run, self.next_document);
        let simple = test.rsplit('.').next().unwrap_or(test).replace('#', ".");
        let title: String = simple
            .chars()
            .map(|c| if c.is_alphanumeric() || c == '.' || c == '_' || c == '$' { c } else { '_' })
            .collect();
        let uri = format!("racelens:/schedule/{name}/{title}.md");
        self.documents.insert(name, (text, None));
        uri
    }

    /// Adds the swimlane page to the document at `uri` (from [`Jobs::document`]); returns
    /// its URI, the same with `.html` for `.md`.
    pub fn attach_page(&mut self, uri: &str, page: String) -> Option<String> {
        let name = uri.strip_prefix("racelens:/schedule/")?.split('/').next()?;
        self.documents.get_mut(name)?.1 = Some(page);
        Some(format!("{}.html", uri.strip_suffix(".md")?))
    }

    pub fn document_text(&self, name: &str) -> Option<&String> {
        self.documents.get(name).map(|(text, _)| text)
    }

    pub fn document_page(&self, name: &str) -> Option<&String> {
        self.documents.get(name).and_then(|(_, page)| page.as_ref())
    }
}

/// The swimlane page of a failing result (none for other results, and for failures kept
/// by a racelens that did not record the picture's rows). `text_uri` is the markdown
/// document's, for the page's "Open as text"; the nonce is fresh for every page.
pub fn schedule_page(test: &str, root: &Path, result: &TestResult, text_uri: &str) -> Option<String> {
    let ResultKind::Failed { headline, schedules, schedule, lanes: Some(lanes), .. } = &result.kind else {
        return None;
    };
    let section = Section::Failure {
        test: test.to_string(),
        headline: format!(
            "✗ {headline} after {schedules} schedule{} by {}",
            if *schedules == 1 { "" } else { "s" },
            by(result)
        ),
        lanes: lanes.clone(),
        replay: Some(replay_command(&root.display().to_string(), test, schedule)),
    };
    let options = swimlane::Options {
        nonce: Some(nonce()),
        root: Some(root.display().to_string()),
        text_uri: Some(text_uri.to_string()),
    };
    Some(swimlane::html(test, &[section], &options))
}

/// 128 random bits in hex, from the standard library's randomly keyed hasher (no crate
/// needed for a Content-Security-Policy nonce).
fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let half = || std::collections::hash_map::RandomState::new().build_hasher().finish();
    format!("{:016x}{:016x}", half(), half())
}

/// `` `pct+LA` ``, or `` `basic` (seed 7) ``.
fn by(result: &TestResult) -> String {
    match result.seed {
        Some(seed) => format!("`{}` (seed {seed})", result.heuristic),
        None => format!("`{}`", result.heuristic),
    }
}

/// The text of a `racelens:/schedule/...` document for a failing result.
pub fn schedule_document(test: &str, root: &Path, result: &TestResult) -> String {
    let ResultKind::Failed { headline, schedules, preemptions, schedule, place, table, .. } = &result.kind else {
        return format!("# {test}\n\nNo failing schedule is known for this test.\n");
    };
    let mut out = format!(
        "# {test}: {headline}\n\nFound after {schedules} schedule{} by {}.\n",
        if *schedules == 1 { "" } else { "s" },
        by(result)
    );
    if let Some(p) = place {
        out += &format!("Raised at {}:{}.\n", p.file, p.line);
    }
    if !preemptions.is_empty() {
        out += "\nPreemptions:\n";
        for p in preemptions {
            let at = p.place.as_ref().map(|p| format!(" ({}:{})", p.file, p.line)).unwrap_or_default();
            out += &format!("- ⇄ {}{at}\n", p.text);
        }
    }
    out += &format!(
        "\n```\n{table}```\n\nReplay:\n\n    {}\n",
        replay_command(&root.display().to_string(), test, schedule)
    );
    out
}
