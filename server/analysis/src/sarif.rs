//! SARIF 2.1.0 logs (OASIS Static Analysis Results Interchange Format), for GitHub code
//! scanning and IDEs: the subset racelens emits, as typed structs. `racelens check`'s log is
//! built from them by [`check`], an exploration's by its own module
//! (`racelens_explore::exploration::sarif`).
//!
//! What the logs keep to, because the consumers depend on it:
//! - Locations are relative to the work tree's root, under the base id `%SRCROOT%`, which
//!   `originalUriBaseIds` resolves to the root on this machine: code scanning resolves them
//!   against the checkout, wherever the analysis ran.
//! - Columns count Unicode characters (`columnKind`), as the text report prints them, and
//!   are 1-based; a region's end column is the character just past it.
//! - `partialFingerprints` hash what a result is about (its rule, file, method and the
//!   code it stands on), never its line: a result keeps its identity when code above it
//!   moves, so code scanning does not close it and open a new one.
//! - Rule texts come from `crate::impact::codes`, the one place they are written.
//!
//! The whole log is checked against the official schema by `tests/lsp/sarif.test.mjs`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::host::Host;
use crate::impact::codes::{self, Code};

mod check_log;
pub use check_log::check;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const SRCROOT: &str = "%SRCROOT%";
/// The key of our fingerprints; a new way of computing them gets a new version.
const FINGERPRINT: &str = "racelens/v1";

#[derive(Serialize)]
pub struct Log<P> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run<P>>,
}

impl<P: Serialize> Log<P> {
    /// A log of one run.
    pub fn of(run: Run<P>) -> Log<P> {
        Log { schema: SCHEMA, version: "2.1.0", runs: vec![run] }
    }

    pub fn print(&self) {
        println!("{}", serde_json::to_string_pretty(self).expect("SARIF logs serialize"));
    }
}

/// One run of racelens; `P` is what the command adds as the run's `properties`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run<P> {
    tool: Tool,
    original_uri_base_ids: BTreeMap<&'static str, ArtifactLocation>,
    column_kind: &'static str,
    results: Vec<Finding>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    invocations: Vec<Invocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<P>,
}

impl<P> Run<P> {
    /// A run over the work tree `root` whose rules are the codes `rules` and whose results
    /// are `results` (each names one of those rules).
    pub fn new(root: &Path, rules: &[&'static Code], results: Vec<Finding>) -> Run<P> {
        debug_assert!(
            results.iter().all(|r| rules.iter().any(|c| c.code == r.rule_id)),
            "a result names a rule of the run"
        );
        let results = results
            .into_iter()
            .map(|r| Finding { rule_index: rules.iter().position(|c| c.code == r.rule_id), ..r })
            .collect();
        Run {
            tool: Tool { driver: Driver::new(rules) },
            original_uri_base_ids: BTreeMap::from([(
                SRCROOT,
                ArtifactLocation { uri: root_uri(root), uri_base_id: None },
            )]),
            column_kind: "unicodeCodePoints",
            results,
            invocations: Vec::new(),
            properties: None,
        }
    }

    /// How the command ended: its exit status (2: a usage or setup error, or a test that
    /// could not be explored, which is no successful execution), and what it noted on the
    /// way (an unknown configuration key).
    pub fn invocation(self, exit_code: u8, notes: Vec<String>) -> Run<P> {
        let tool_execution_notifications =
            notes.into_iter().map(|n| Notification { level: Level::Note, message: Message::new(n) }).collect();
        let invocation = Invocation {
            execution_successful: exit_code != 2,
            exit_code: exit_code.into(),
            tool_execution_notifications,
        };
        Run { invocations: vec![invocation], ..self }
    }

    /// What the command adds to the run (an exploration's coverage claim).
    pub fn properties(self, properties: P) -> Run<P> {
        Run { properties: Some(properties), ..self }
    }
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'static str>,
    rules: Vec<Rule>,
}

impl Driver {
    fn new(rules: &[&'static Code]) -> Driver {
        Driver {
            name: "racelens",
            version: env!("CARGO_PKG_VERSION"),
            semantic_version: env!("CARGO_PKG_VERSION"),
            // The package's homepage, once the workspace names one; no address is made up.
            information_uri: Some(env!("CARGO_PKG_HOMEPAGE")).filter(|h| !h.is_empty()),
            rules: rules.iter().map(|&c| Rule::of(c)).collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: &'static str,
    short_description: Message,
    full_description: Message,
    help: Help,
    default_configuration: Configuration,
}

impl Rule {
    fn of(code: &'static Code) -> Rule {
        Rule {
            id: code.code,
            name: code.name,
            short_description: Message::new(code.title),
            full_description: Message::new(code.explanation),
            help: Help { text: code.explanation.to_string(), markdown: codes::markdown(code) },
            default_configuration: Configuration { level: default_level(code.code) },
        }
    }
}

/// How a code is reported unless a result says otherwise: warnings are warnings, the hint
/// and the exploration's notes (what was not explored or claimed) are notes, and a failing
/// schedule is an error (it happened on a real JVM).
fn default_level(code: &str) -> Level {
    match code {
        "RL200" => Level::Error,
        "RL100" | "RL201" | "RL202" => Level::Note,
        _ => Level::Warning,
    }
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: Level,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Note,
}

#[derive(Clone, Serialize)]
pub struct Message {
    text: String,
}

impl Message {
    pub fn new(text: impl Into<String>) -> Message {
        Message { text: text.into() }
    }
}

/// A SARIF `result` (named so as not to shadow `std::result::Result`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    rule_id: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: Level,
    message: Message,
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    code_flows: Vec<CodeFlow>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<ScheduleFacts>,
}

/// What a failing schedule's result carries besides its message: the schedule (for
/// `racelens replay --schedule`), the schedules run to find it, its preemptions.
#[derive(Serialize)]
pub struct ScheduleFacts {
    pub schedule: String,
    pub schedules: u64,
    pub preemptions: usize,
}

impl Finding {
    /// A result of `rule` at `location` (none: the run as a whole), with no fingerprint yet.
    pub fn new(rule: &'static str, level: Level, message: impl Into<String>, location: Option<Location>) -> Finding {
        Finding {
            rule_id: rule,
            rule_index: None,
            level,
            message: Message::new(message),
            locations: location.into_iter().collect(),
            related_locations: Vec::new(),
            code_flows: Vec::new(),
            partial_fingerprints: BTreeMap::new(),
            properties: None,
        }
    }

    /// Related locations, numbered from 0 in the given order.
    pub fn related(self, related: Vec<Location>) -> Finding {
        let related_locations = related.into_iter().enumerate().map(|(i, l)| Location { id: Some(i), ..l }).collect();
        Finding { related_locations, ..self }
    }

    pub fn code_flow(self, flow: CodeFlow) -> Finding {
        Finding { code_flows: vec![flow], ..self }
    }

    /// The failing schedule this result is, under `properties`.
    pub fn schedule(self, facts: ScheduleFacts) -> Finding {
        Finding { properties: Some(facts), ..self }
    }
}

#[derive(Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<PhysicalLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message>,
}

impl Location {
    /// `file` (relative to the work tree) and, when known, the region in it.
    pub fn file(file: &str, region: Option<Region>) -> Location {
        let artifact_location = ArtifactLocation { uri: uri_path(file), uri_base_id: Some(SRCROOT) };
        Location { physical_location: Some(PhysicalLocation { artifact_location, region }), ..Location::default() }
    }

    /// A method named by its class's binary name and its own (`pkg.Pool$Worker.run`): for
    /// places that are in no project file, and to say which method a place is in.
    pub fn method(self, qualified_name: String) -> Location {
        let mut logical_locations = self.logical_locations;
        logical_locations.push(LogicalLocation { fully_qualified_name: qualified_name, kind: "function" });
        Location { logical_locations, ..self }
    }

    pub fn message(self, text: impl Into<String>) -> Location {
        Location { message: Some(Message::new(text)), ..self }
    }
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    fully_qualified_name: String,
    kind: &'static str,
}

/// Lines and columns are 1-based; `end_column` is the column just past the region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<u32>,
}

impl Region {
    /// A whole line (what the exploration knows of a place).
    pub fn line(line: u32) -> Region {
        Region { start_line: line.max(1), start_column: None, end_line: None, end_column: None }
    }

    /// From `(start_line, start_column)` to just before `(end_line, end_column)`, 1-based
    /// characters (an end before the start is the start).
    pub fn range(start: (u32, u32), end: (u32, u32)) -> Region {
        let ((start_line, start_column), (end_line, end_column)) = (start, end);
        Region {
            start_line,
            start_column: Some(start_column),
            end_line: Some(end_line),
            end_column: Some(end_column.max(start_column)),
        }
    }
}

/// The steps of one execution, a thread flow per thread.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeFlow {
    message: Message,
    thread_flows: Vec<ThreadFlow>,
}

impl CodeFlow {
    pub fn new(message: impl Into<String>, thread_flows: Vec<ThreadFlow>) -> CodeFlow {
        CodeFlow { message: Message::new(message), thread_flows }
    }
}

#[derive(Serialize)]
pub struct ThreadFlow {
    id: String,
    message: Message,
    locations: Vec<ThreadFlowLocation>,
}

impl ThreadFlow {
    pub fn new(id: String, message: impl Into<String>, locations: Vec<ThreadFlowLocation>) -> ThreadFlow {
        ThreadFlow { id, message: Message::new(message), locations }
    }
}

/// One step of a thread: `execution_order` orders the steps of all threads of the flow.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadFlowLocation {
    location: Location,
    execution_order: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    kinds: Vec<&'static str>,
}

impl ThreadFlowLocation {
    pub fn new(location: Location, execution_order: u32, kinds: Vec<&'static str>) -> ThreadFlowLocation {
        ThreadFlowLocation { location, execution_order, kinds }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    exit_code: i32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: Level,
    message: Message,
}

/// FNV-1a, the hash of the `racelens/v1` fingerprints: code scanning matches a result with
/// the alerts of earlier runs by it, so it may never change (a new hash would be `racelens/v2`
/// and reopen every alert once); on-disk keys use [`crate::cache_dir::stable_hash`].
fn fingerprint_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

/// Gives each result its fingerprint: a hash of its rule and what it is about, and, for
/// results about the same thing, their order (`:2`, `:3`), as code scanning's own
/// fingerprints do.
#[derive(Default)]
pub struct Fingerprints {
    seen: BTreeMap<u64, usize>,
}

impl Fingerprints {
    pub fn give(&mut self, finding: Finding, about: &[&str]) -> Finding {
        let parts: Vec<&str> = std::iter::once(finding.rule_id).chain(about.iter().copied()).collect();
        let hash = fingerprint_hash(parts.join("\u{0}").as_bytes());
        let n = self.seen.entry(hash).or_default();
        *n += 1;
        let value = if *n == 1 { format!("{hash:016x}") } else { format!("{hash:016x}:{n}") };
        let mut partial_fingerprints = finding.partial_fingerprints;
        partial_fingerprints.insert(FINGERPRINT, value);
        Finding { partial_fingerprints, ..finding }
    }
}

/// A relative path as a URI reference: `/` kept, everything outside RFC 3986's unreserved
/// characters percent-encoded (a space, `#`, `%` or a non-ASCII letter in a path).
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The `file:` URI of the work tree's root, ending in `/` as a base URI must.
fn root_uri(root: &Path) -> String {
    let path = root.to_string_lossy().replace('\\', "/");
    let path = if path.starts_with('/') { path } else { format!("/{path}") };
    let path = uri_path(&path);
    format!("file://{path}{}", if path.ends_with('/') { "" } else { "/" })
}

/// The codes `check` reports: the analysis' (RL2xx are the exploration's).
pub fn check_rules() -> Vec<&'static Code> {
    codes::CODES.iter().filter(|c| c.code < "RL200").collect()
}

/// The codes `explore` reports.
pub fn explore_rules() -> Vec<&'static Code> {
    // RL210 (the dynamic impact's hints) is the editor's only.
    codes::CODES.iter().filter(|c| c.code >= "RL200" && c.code < "RL210").collect()
}

/// What the host noted while loading, as `check` prints it on stderr.
pub fn notes(host: &Host) -> Vec<String> {
    host.notes()
        .iter()
        .map(|n| n.path.as_ref().map_or_else(|| n.message.clone(), |p| format!("{p}: {}", n.message)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v1_fingerprint_hash_never_changes() {
        // FNV-1a of "racelens", as every racelens/v1 fingerprint so far was made.
        assert_eq!(fingerprint_hash(b"racelens"), 5059823186637676820);
    }

    #[test]
    fn paths_become_uri_references_and_the_root_a_base_uri() {
        assert_eq!(uri_path("src/main/java/a/B.java"), "src/main/java/a/B.java");
        assert_eq!(uri_path("my src/Ça#1%.java"), "my%20src/%C3%87a%231%25.java");
        assert_eq!(root_uri(Path::new("/tmp/work tree")), "file:///tmp/work%20tree/");
        assert_eq!(root_uri(Path::new("/")), "file:///");
    }

    #[test]
    fn fingerprints_name_what_a_result_is_about_and_count_repeats() {
        let mut fingerprints = Fingerprints::default();
        let mut give = |rule: &'static str, about: &[&str]| {
            fingerprints.give(Finding::new(rule, Level::Warning, "m", None), about).partial_fingerprints[FINGERPRINT]
                .clone()
        };
        let first = give("RL001", &["A.java", "A.run", "count++"]);
        assert_eq!(first.len(), 16);
        assert_eq!(give("RL001", &["A.java", "A.run", "count++"]), format!("{first}:2"));
        assert_ne!(give("RL002", &["A.java", "A.run", "count++"]), first);
        // Parts are separated: moving a character from one part to the next is another result.
        assert_ne!(give("RL001", &["A.java", "A.ru", "ncount++"]), first);
    }

    #[test]
    fn rules_are_the_codes_with_their_texts() {
        let check: Vec<&str> = check_rules().iter().map(|c| c.code).collect();
        assert_eq!(
            check,
            ["RL001", "RL002", "RL003", "RL004", "RL005", "RL006", "RL007", "RL008", "RL009", "RL010", "RL100"]
        );
        let explore: Vec<&str> = explore_rules().iter().map(|c| c.code).collect();
        assert_eq!(explore, ["RL200", "RL201", "RL202"]);
        let rule = Rule::of(codes::find("RL007").unwrap());
        assert_eq!(
            (rule.name, rule.short_description.text.as_str()),
            ("LockOrderInversion", "a lock-order inversion (deadlock)")
        );
        assert!(rule.help.markdown.starts_with("# RL007 — ") && rule.full_description.text.contains("Fix:"));
    }
}
