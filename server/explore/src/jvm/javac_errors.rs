//! javac's errors, summarised for someone who has to fix the classpath: the packages and
//! classes that are missing, each with the files that need them, then the other errors.
//! A missing package almost always means a missing jar, and one missing jar makes dozens of
//! errors; the summary makes that one line. The full output stays in a file.

use std::collections::{BTreeMap, BTreeSet};

/// What javac reported, grouped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JavacSummary {
    pub errors: usize,
    /// Package -> files that import or name it.
    pub missing_packages: BTreeMap<String, BTreeSet<String>>,
    /// `class Logger`, `variable StringUtils` -> files.
    pub missing_symbols: BTreeMap<String, BTreeSet<String>>,
    /// `file:line: message` of every other error.
    pub other: Vec<String>,
}

/// `path/A.java:12: error: message`, split.
fn error_line(line: &str) -> Option<(&str, &str, &str)> {
    let (head, message) = line.split_once(": error: ")?;
    let (file, number) = head.rsplit_once(':')?;
    (file.ends_with(".java") && number.bytes().all(|b| b.is_ascii_digit())).then_some((file, number, message))
}

/// Groups javac's error output (`-Xdiags:compact`, the default).
pub fn summarize(log: &str) -> JavacSummary {
    let mut s = JavacSummary::default();
    let lines: Vec<&str> = log.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let Some((file, number, message)) = error_line(lines[i]) else {
            i += 1;
            continue;
        };
        s.errors += 1;
        // The lines up to the next error: the source line, the caret, `symbol:`, `location:`.
        let mut j = i + 1;
        let mut symbol = None;
        while j < lines.len() && error_line(lines[j]).is_none() {
            if let Some(sym) = lines[j].trim_start().strip_prefix("symbol:") {
                symbol = Some(sym.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            j += 1;
        }
        if let Some(package) = message.strip_prefix("package ").and_then(|m| m.strip_suffix(" does not exist")) {
            s.missing_packages.entry(package.to_string()).or_default().insert(file.to_string());
        } else if message == "cannot find symbol" && symbol.is_some() {
            s.missing_symbols.entry(symbol.unwrap_or_default()).or_default().insert(file.to_string());
        } else if let Some(class) = message.strip_prefix("cannot access ") {
            s.missing_symbols.entry(format!("class {class}")).or_default().insert(file.to_string());
        } else {
            s.other.push(format!("{file}:{number}: {message}"));
        }
        i = j;
    }
    s
}

fn files(list: &BTreeSet<String>) -> String {
    listed(list.iter().map(String::as_str), 4)
}

/// The first `shown` of `names` in order, with how many more there are:
/// `a.java, b.java and 2 more`.
pub fn listed<'a>(names: impl ExactSizeIterator<Item = &'a str>, shown: usize) -> String {
    let total = names.len();
    let mut out: Vec<&str> = names.take(shown).collect();
    let more = total.saturating_sub(shown);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    out.sort();
    format!("{}{more}", out.join(", "))
}

impl JavacSummary {
    /// The files with errors.
    pub fn file_count(&self) -> usize {
        self.error_files().len()
    }

    /// The files with an error, by name.
    pub fn error_files(&self) -> BTreeSet<&str> {
        let mut all: BTreeSet<&str> =
            self.missing_packages.values().chain(self.missing_symbols.values()).flatten().map(String::as_str).collect();
        all.extend(self.other.iter().filter_map(|o| o.split(':').next()));
        all
    }

    /// The summary's lines, indented by two spaces.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if !self.missing_packages.is_empty() {
            out.push_str("  missing packages (not on the classpath, and not in the sources compiled):\n");
            for (p, f) in &self.missing_packages {
                out.push_str(&format!("    {p}, needed by {}\n", files(f)));
            }
        }
        if !self.missing_symbols.is_empty() {
            out.push_str("  missing classes and names:\n");
            for (sym, f) in &self.missing_symbols {
                out.push_str(&format!("    {sym}, needed by {}\n", files(f)));
            }
        }
        if !self.other.is_empty() {
            out.push_str("  other errors:\n");
            for o in self.other.iter().take(8) {
                out.push_str(&format!("    {o}\n"));
            }
            if self.other.len() > 8 {
                out.push_str(&format!("    and {} more\n", self.other.len() - 8));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    const LOG: &str = r#"core/src/main/java/demo/Pool.java:3: error: package org.apache.commons.lang3 does not exist
import org.apache.commons.lang3.StringUtils;
                               ^
core/src/main/java/demo/Pool.java:9: error: cannot find symbol
        return StringUtils.capitalize(name);
               ^
  symbol:   variable StringUtils
  location: class Pool
core/src/test/java/demo/PoolTest.java:4: error: package org.apache.commons.lang3 does not exist
import org.apache.commons.lang3.Validate;
                               ^
core/src/test/java/demo/PoolTest.java:11: error: cannot find symbol
    private final Logger log = null;
                  ^
  symbol:   class Logger
  location: class PoolTest
core/src/test/java/demo/PoolTest.java:20: error: incompatible types: String cannot be converted to int
        int n = "x";
                ^
5 errors
"#;

    #[test]
    fn missing_packages_and_classes_are_grouped_with_their_files() {
        let s = summarize(LOG);
        assert_eq!((s.errors, s.file_count()), (5, 2));
        // A first line without indentation: expect-test strips what all lines share.
        expect![[r#"
            javac:
              missing packages (not on the classpath, and not in the sources compiled):
                org.apache.commons.lang3, needed by core/src/main/java/demo/Pool.java, core/src/test/java/demo/PoolTest.java
              missing classes and names:
                class Logger, needed by core/src/test/java/demo/PoolTest.java
                variable StringUtils, needed by core/src/main/java/demo/Pool.java
              other errors:
                core/src/test/java/demo/PoolTest.java:20: incompatible types: String cannot be converted to int
        "#]]
        .assert_eq(&format!("javac:\n{}", s.render()));
    }

    #[test]
    fn output_without_errors_summarises_to_nothing() {
        assert_eq!(summarize("warning: [options] bootstrap class path not set\n1 warning\n"), JavacSummary::default());
    }
}
