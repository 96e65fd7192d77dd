//! What changed in one file: a diff of significant tokens (comments and white space do
//! not count), reported as lines of the new text.
//!
//! CAPP section 3.1 starts from changed lines; its implementation used a structure
//! diff so that formatting is no change. A token diff gives the same: re-indenting,
//! re-flowing a statement over two lines, or editing a comment changes no token.
//!
//! A method moved within its class with every token as it was ("sort members", moving a
//! helper next to its caller) is no change either: Java does not care where a method
//! stands. Such methods are paired first (same class, same tokens) and left out of the
//! diff of the rest, their lines mapped one for one.

use std::collections::BTreeSet;

use imara_diff::{Algorithm, Diff, InternedInput};

use crate::java::FileFacts;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDiff {
    /// Lines of the new text that hold added or changed tokens.
    pub changed_lines: BTreeSet<u32>,
    /// Lines of the new text that stand where tokens were deleted.
    pub deletion_lines: BTreeSet<u32>,
    /// Lines of the old text that lost tokens.
    pub removed_old_lines: BTreeSet<u32>,
    /// For every old line (index = line), the new line that stands for it now.
    old_line_map: Vec<u32>,
    /// Lines of the old text that hold tokens (code, not blank or comment lines).
    old_code_lines: Vec<u32>,
    /// The file did not exist in the base: every line is new.
    pub is_new_file: bool,
    /// Where added or changed tokens of the new text start (sorted).
    changed_tokens: Vec<u32>,
    /// For each run of deleted tokens, where the new token after it starts (sorted).
    deletion_points: Vec<u32>,
}

impl FileDiff {
    /// The diff of a file that did not exist before (untracked, or added).
    pub fn new_file(new: &FileFacts) -> FileDiff {
        let mut changed_lines = BTreeSet::new();
        for t in &new.tokens {
            changed_lines.extend(t.line..=t.end_line);
        }
        FileDiff { changed_lines, is_new_file: true, ..FileDiff::default() }
    }

    /// Two levels, as a careful reviewer reads a diff: first whole lines (each line is its
    /// tokens, so indentation and comments do not count), then, inside each changed hunk,
    /// single tokens, so that re-flowing a statement over two lines is no change.
    pub fn between(old: &FileFacts, new: &FileFacts) -> FileDiff {
        let moved = intact_methods(old, new);
        // The tokens left for the diff: those of no intact method (a mask, one pass each).
        let kept = |count: usize, ranges: &mut dyn Iterator<Item = std::ops::Range<usize>>| -> Vec<usize> {
            let mut skip = vec![false; count];
            for r in ranges {
                skip[r].fill(true);
            }
            (0..count).filter(|&k| !skip[k]).collect()
        };
        let kept_old = kept(old.tokens.len(), &mut moved.iter().map(|(o, _)| o.clone()));
        let kept_new = kept(new.tokens.len(), &mut moved.iter().map(|(_, n)| n.clone()));
        let old_lines = token_lines(old, &kept_old);
        let new_lines = token_lines(new, &kept_new);
        let mut input: InternedInput<&str> = InternedInput::default();
        input.reserve(old_lines.len() as u32, new_lines.len() as u32);
        input.update_before(old_lines.iter().map(|l| l.text.as_str()));
        input.update_after(new_lines.iter().map(|l| l.text.as_str()));
        let mut line_diff = Diff::compute(Algorithm::Histogram, &input);
        line_diff.postprocess_no_heuristic(&input);

        let mut out = FileDiff::default();
        let mut aligner = Aligner {
            old,
            new,
            kept_old: &kept_old,
            kept_new: &kept_new,
            old_to_new_line: vec![None; old.tokens.len()],
            out: &mut out,
        };
        for (o, n) in &moved {
            for (i, j) in o.clone().zip(n.clone()) {
                aligner.old_to_new_line[i] = Some(new.tokens[j].line);
            }
        }
        let token_range = |lines: &[TokenLine], range: std::ops::Range<u32>, total: usize| -> std::ops::Range<usize> {
            let start = lines.get(range.start as usize).map_or(total, |l| l.tokens.start);
            let end =
                if range.end == 0 { start } else { lines.get(range.end as usize - 1).map_or(total, |l| l.tokens.end) };
            start..end.max(start)
        };
        let (mut i, mut j) = (0usize, 0usize);
        for hunk in line_diff.hunks() {
            let old_range = token_range(&old_lines, hunk.before.clone(), kept_old.len());
            let new_range = token_range(&new_lines, hunk.after.clone(), kept_new.len());
            aligner.same(i..old_range.start, j..new_range.start);
            aligner.align(old_range.clone(), new_range.clone());
            i = old_range.end;
            j = new_range.end;
        }
        aligner.same(i..kept_old.len(), j..kept_new.len());
        let old_to_new_line = aligner.old_to_new_line;
        out.old_line_map = old_line_map(old, &old_to_new_line, new);
        out.changed_tokens.sort_unstable();
        out.deletion_points.sort_unstable();
        out.old_code_lines = token_lines(old, &(0..old.tokens.len()).collect::<Vec<_>>())
            .iter()
            .map(|l| old.tokens[l.tokens.start].line)
            .collect();
        out
    }

    pub fn is_empty(&self) -> bool {
        self.changed_lines.is_empty() && self.deletion_lines.is_empty() && !self.is_new_file
    }

    /// Whether the change added, changed or deleted something on this new line.
    pub fn touches(&self, line: u32) -> bool {
        self.changed_lines.contains(&line) || self.deletion_lines.contains(&line)
    }

    /// Whether the change added or changed a token in `span` of the new text, or deleted
    /// tokens from inside it (every token counts as changed in a new file).
    pub fn changes_within(&self, span: &crate::java::Span) -> bool {
        if self.is_new_file {
            return true;
        }
        let added = self.changed_tokens.partition_point(|&t| t < span.start);
        let deleted = self.deletion_points.partition_point(|&t| t <= span.start);
        self.changed_tokens.get(added).is_some_and(|&t| t < span.end)
            || self.deletion_points.get(deleted).is_some_and(|&t| t < span.end)
    }

    /// Lines the change touched, changed or standing for a deletion.
    pub fn touched_lines(&self) -> impl Iterator<Item = u32> + '_ {
        let mut all: Vec<u32> = self.changed_lines.iter().chain(self.deletion_lines.iter()).copied().collect();
        all.sort_unstable();
        all.dedup();
        all.into_iter()
    }

    /// How many of the old text's code lines (lines with tokens) the change touched, and how
    /// many code lines it had. A line is touched when it lost tokens, or when the new line
    /// that stands for it gained some.
    pub fn old_lines_changed(&self) -> (usize, usize) {
        let touched = |&&line: &&u32| {
            self.removed_old_lines.contains(&line) || self.changed_lines.contains(&self.map_old_line(line))
        };
        (self.old_code_lines.iter().filter(touched).count(), self.old_code_lines.len())
    }

    /// The new line that stands for an old line now (the line of its first surviving
    /// token, or of the first surviving token after it).
    pub fn map_old_line(&self, old_line: u32) -> u32 {
        match self.old_line_map.get(old_line as usize) {
            Some(&l) if l > 0 => l,
            _ => self.old_line_map.iter().rev().copied().find(|&l| l > 0).unwrap_or(1),
        }
    }
}

/// One line as the diff sees it: its significant tokens, joined.
struct TokenLine {
    text: String,
    tokens: std::ops::Range<usize>,
}

/// The lines of `kept` (indices into the file's tokens); each line's `tokens` are positions
/// in `kept`.
fn token_lines(facts: &FileFacts, kept: &[usize]) -> Vec<TokenLine> {
    let mut lines: Vec<TokenLine> = Vec::new();
    let mut current_line = 0;
    for (k, t) in kept.iter().map(|&i| &facts.tokens[i]).enumerate() {
        if t.line != current_line || lines.is_empty() {
            current_line = t.line;
            lines.push(TokenLine { text: String::new(), tokens: k..k });
        }
        let line = lines.last_mut().expect("pushed above");
        if !line.text.is_empty() {
            line.text.push('\u{1f}');
        }
        line.text.push_str(facts.token_text(t));
        line.tokens.end = k + 1;
    }
    lines
}

/// Aligns token ranges of the old and new text and records what changed.
struct Aligner<'a> {
    old: &'a FileFacts,
    new: &'a FileFacts,
    /// The tokens diffed (those of methods moved intact left out): ranges below are
    /// positions in these.
    kept_old: &'a [usize],
    kept_new: &'a [usize],
    old_to_new_line: Vec<Option<u32>>,
    out: &'a mut FileDiff,
}

impl Aligner<'_> {
    /// Ranges whose tokens are equal one for one.
    fn same(&mut self, old: std::ops::Range<usize>, new: std::ops::Range<usize>) {
        for (i, j) in old.zip(new) {
            self.old_to_new_line[self.kept_old[i]] = Some(self.new.tokens[self.kept_new[j]].line);
        }
    }

    fn align(&mut self, old: std::ops::Range<usize>, new: std::ops::Range<usize>) {
        let (o, n) = (self.old, self.new);
        let (ko, kn) = (self.kept_old, self.kept_new);
        let mut input: InternedInput<&str> = InternedInput::default();
        input.update_before(ko[old.clone()].iter().map(|&i| o.token_text(&o.tokens[i])));
        input.update_after(kn[new.clone()].iter().map(|&j| n.token_text(&n.tokens[j])));
        // Myers on tokens (histogram's heuristics are meant for lines); postprocessing slides
        // ambiguous hunks down, so that deleting `b;` in `a; b; c;` removes `b ;`, not `; b`.
        let mut diff = Diff::compute(Algorithm::Myers, &input);
        diff.postprocess_no_heuristic(&input);
        let (mut i, mut j) = (old.start, new.start);
        for hunk in diff.hunks() {
            let before = hunk.before.start as usize + old.start..hunk.before.end as usize + old.start;
            let after = hunk.after.start as usize + new.start..hunk.after.end as usize + new.start;
            self.same(i..before.start, j..after.start);
            for k in after.clone() {
                let t = n.tokens[kn[k]];
                self.out.changed_lines.extend(t.line..=t.end_line);
                self.out.changed_tokens.push(t.start);
            }
            if !before.is_empty() {
                for k in before.clone() {
                    let t = o.tokens[ko[k]];
                    self.out.removed_old_lines.extend(t.line..=t.end_line);
                }
                if after.is_empty() {
                    self.out.deletion_lines.insert(self.deletion_anchor(before.start, after.start));
                    let next = kn.get(after.start).map_or(u32::MAX, |&j| n.tokens[j].start);
                    self.out.deletion_points.push(next);
                }
            }
            i = before.end;
            j = after.end;
        }
        self.same(i..old.end, j..new.end);
    }

    /// The new line standing where old tokens from `old_start` were deleted, just before
    /// new token `new_at`. A deletion that starts in the middle of a line stays on that
    /// line; deleted whole lines are replaced by the line that follows them.
    fn deletion_anchor(&self, old_start: usize, new_at: usize) -> u32 {
        let (o, n) = (self.old, self.new);
        let (ko, kn) = (self.kept_old, self.kept_new);
        let line_of_new =
            |k: usize| kn.get(k).or(kn.last()).map(|&j| n.tokens[j]).or(n.tokens.last().copied()).map_or(1, |t| t.line);
        let starts_mid_line =
            old_start > 0 && new_at > 0 && o.tokens[ko[old_start - 1]].end_line == o.tokens[ko[old_start]].line;
        if starts_mid_line {
            line_of_new(new_at - 1)
        } else {
            line_of_new(new_at)
        }
    }
}

/// Methods of named classes that stand in both versions with every token the same (the
/// declaration, annotations and body), paired one for one in order: their token ranges in
/// the old and the new file. A method inside another method (an anonymous or local class)
/// goes with its enclosing method.
fn intact_methods(old: &FileFacts, new: &FileFacts) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    use std::collections::HashMap;
    let methods = |f: &FileFacts| -> Vec<(String, std::ops::Range<usize>)> {
        let spans: Vec<_> = f.methods.iter().map(|m| m.span).collect();
        f.methods
            .iter()
            .filter(|m| {
                let class = &f.classes[m.class as usize];
                class.kind != crate::java::ClassKind::Anonymous
                    && !spans.iter().any(|s| *s != m.span && s.contains_span(&m.span))
            })
            .map(|m| {
                let from = f.tokens.partition_point(|t| t.start < m.span.start);
                let to = f.tokens.partition_point(|t| t.end <= m.span.end);
                let text: Vec<&str> = f.tokens[from..to.max(from)].iter().map(|t| f.token_text(t)).collect();
                (
                    format!("{}\u{1e}{}", f.classes[m.class as usize].binary_name, text.join("\u{1f}")),
                    from..to.max(from),
                )
            })
            .filter(|(_, r)| !r.is_empty())
            .collect()
    };
    let mut olds: HashMap<String, Vec<std::ops::Range<usize>>> = HashMap::new();
    for (key, range) in methods(old) {
        olds.entry(key).or_default().push(range);
    }
    for ranges in olds.values_mut() {
        ranges.reverse();
    }
    let mut out = Vec::new();
    for (key, range) in methods(new) {
        if let Some(o) = olds.get_mut(&key).and_then(|v| v.pop()) {
            out.push((o, range));
        }
    }
    out
}

fn old_line_map(old: &FileFacts, old_to_new_line: &[Option<u32>], new: &FileFacts) -> Vec<u32> {
    let lines = old.lines.line_count() as usize + 2;
    let mut map = vec![0u32; lines];
    let mut next = new.lines.line_count();
    let mut t = old.tokens.len();
    for line in (1..lines).rev() {
        while t > 0 && old.tokens[t - 1].line >= line as u32 {
            t -= 1;
            if let Some(n) = old_to_new_line[t] {
                next = n;
            }
        }
        map[line] = next;
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::facts_of;

    fn diff(old: &str, new: &str) -> FileDiff {
        FileDiff::between(&facts_of(old), &facts_of(new))
    }

    #[test]
    fn formatting_and_comments_are_no_change() {
        let old = "class A {\n  void m() { int x = 1; x++; }\n}\n";
        let new = "class A {\n  // a comment\n  void m() {\n      int x =\n          1;\n      x++; /* c */\n  }\n}\n";
        assert!(diff(old, new).is_empty());
        assert!(diff(old, old).is_empty());
    }

    #[test]
    fn changed_and_deleted_lines_are_lines_of_the_new_text() {
        let old = "class A {\n  void m() {\n    a();\n    b();\n    c();\n  }\n}\n";
        let new = "class A {\n  void m() {\n    a();\n    c();\n    d();\n  }\n}\n";
        let d = diff(old, new);
        assert_eq!(d.changed_lines.iter().copied().collect::<Vec<_>>(), vec![5]);
        // `b();` was deleted: the line now standing in its place is `c();`.
        assert_eq!(d.deletion_lines.iter().copied().collect::<Vec<_>>(), vec![4]);
        assert_eq!(d.removed_old_lines.iter().copied().collect::<Vec<_>>(), vec![4]);
        assert_eq!(d.map_old_line(5), 4);
        assert_eq!(d.map_old_line(3), 3);
    }

    #[test]
    fn a_method_moved_intact_is_no_change() {
        let old = "class A {\n  int n;\n  void a() {\n    n++;\n  }\n  void b() {\n    n--;\n  }\n  void c() {}\n}\n";
        // `a` moved to the end, `c` written on three lines: nothing changed.
        let new =
            "class A {\n  int n;\n  void b() {\n    n--;\n  }\n  void c() {\n  }\n  void a() {\n    n++;\n  }\n}\n";
        let d = diff(old, new);
        assert!(d.is_empty(), "{d:?}");
        // Its old lines map to where it stands now.
        assert_eq!(d.map_old_line(4), 9);
        // Moved and changed: the change shows where it stands now.
        let changed = new.replace("    n++;", "    n += 2;");
        let d = diff(old, &changed);
        assert!(d.changed_lines.contains(&9), "{d:?}");
        // A copy of a method is new, whichever of the two is the original.
        let copied = new
            .replace("  void a() {\n    n++;\n  }\n}", "  void a() {\n    n++;\n  }\n  void d() {\n    n++;\n  }\n}");
        assert!(!diff(old, &copied).changed_lines.is_empty());
        // The same tokens in another class are no move.
        let other = "class A {\n  int n;\n  void b() {\n    n--;\n  }\n  void c() {}\n  static class B {\n    int n;\n    void a() {\n      n++;\n    }\n  }\n}\n";
        assert!(!diff(old, other).changed_lines.is_empty());
    }

    #[test]
    fn a_deleted_modifier_stays_on_its_line() {
        let old = "class A {\n  private volatile int x;\n  int y;\n}\n";
        let new = "class A {\n  private int x;\n  int y;\n}\n";
        let d = diff(old, new);
        assert!(d.changed_lines.is_empty());
        assert_eq!(d.deletion_lines.iter().copied().collect::<Vec<_>>(), vec![2]);
    }
}
