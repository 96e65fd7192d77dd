//! Quick fixes: for the warnings whose fix is obvious from the code, the edits that make
//! it (an editor offers them as code actions). Each fix is worked out from the file's
//! current facts, and for a removed `synchronized` from the base's; never from the
//! message, beyond the diagnostic's code:
//!
//! - RL008 on `notify()` or `signal()`: wake every waiter (`notifyAll()`, `signalAll()`);
//! - RL008 on a `wait()` or `await()` under `if` (no `else`, no `break` or `continue` the
//!   loop would capture): wait in a `while` loop;
//! - RL001 and RL002 in a method the change made non-synchronized, and RL006 on `this`
//!   there: make the method `synchronized` again.
//!
//! Accesses and calls in lambdas get no `synchronized` fix: a lambda does not run holding
//! its enclosing method's monitor.

use super::matching::method_map;
use super::{ChangeSet, Diagnostic};
use crate::index::ProjectIndex;
use crate::java::{Call, CallKind, Expr, FileFacts, MethodKind, Span, Token, UnitIdx};

/// One fix: a title for the editor's menu and the edits that make it, all in the
/// diagnostic's file: byte spans of its current text (with their lines) and what replaces
/// them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<(Span, String)>,
}

/// The fixes of a diagnostic of the current analysis (none when there is no obvious one).
pub fn fixes(index: &ProjectIndex, changes: &ChangeSet, d: &Diagnostic) -> Vec<Fix> {
    let Some(entry) = index.entry(d.file) else { return Vec::new() };
    let facts = &entry.facts;
    let old = changes.get(d.file).and_then(|c| c.old.as_deref());
    let fix = match d.code {
        "RL008" => wake_all(facts, d.span).or_else(|| wait_in_loop(facts, d.span)),
        "RL001" | "RL002" => {
            old.zip(facts.unit_at(d.span.start)).and_then(|(old, unit)| synchronized_again(facts, old, unit))
        }
        "RL006" => old
            .zip(call_at(facts, d.span).filter(|(_, c)| matches!(c.receiver, None | Some(Expr::This))))
            .and_then(|(old, (_, call))| synchronized_again(facts, old, call.unit)),
        _ => None,
    };
    fix.into_iter().collect()
}

/// The method call whose name token is `span`, with its index.
fn call_at(facts: &FileFacts, span: Span) -> Option<(u32, &Call)> {
    let i = facts.calls.iter().position(|c| c.kind == CallKind::Method && c.span == span)?;
    Some((i as u32, &facts.calls[i]))
}

/// `notify()` -> `notifyAll()`, `signal()` -> `signalAll()`.
fn wake_all(facts: &FileFacts, span: Span) -> Option<Fix> {
    let (_, call) = call_at(facts, span)?;
    let all = match call.name.as_str() {
        "notify" => "notifyAll",
        "signal" => "signalAll",
        _ => return None,
    };
    if !call.args.is_empty() || facts.text_of(call.span) != call.name {
        return None;
    }
    Some(Fix { title: format!("Use {all}()"), edits: vec![(call.span, all.to_string())] })
}

/// `if (cond) wait();` -> `while (cond) wait();`, when the `if` has no `else` and its
/// body no `break` or `continue` (which the loop would capture).
fn wait_in_loop(facts: &FileFacts, span: Span) -> Option<Fix> {
    let (i, call) = call_at(facts, span)?;
    let guard = facts.wait_guards.iter().find(|g| g.call == i && !g.looped)?;
    let tokens = &facts.tokens;
    let text = |k: usize| tokens.get(k).map_or("", |t| facts.token_text(t));
    // The guard's span is the condition without its parentheses: `if` comes before them.
    let first = tokens.partition_point(|t| t.start < guard.span.start);
    let mut k = first;
    while k > 0 && text(k - 1) == "(" {
        k -= 1;
    }
    let parens = first - k;
    if parens == 0 || k == 0 || text(k - 1) != "if" {
        return None;
    }
    let keyword = tokens[k - 1];
    let mut body = tokens.partition_point(|t| t.start < guard.span.end);
    for _ in 0..parens {
        if text(body) != ")" {
            return None;
        }
        body += 1;
    }
    let end = statement_end(facts, body)?;
    if (body..=end).any(|k| matches!(text(k), "break" | "continue")) || text(end + 1) == "else" {
        return None;
    }
    // The wait is in the `if`'s body (not in an `else` branch).
    if !(tokens[body].start <= call.full.start && call.full.end <= tokens[end].end) {
        return None;
    }
    Some(Fix { title: "Wait in a while loop".into(), edits: vec![(span_of(&keyword), "while".into())] })
}

/// The last token of the statement starting at token `k`: a block's closing brace, or the
/// `;` of a simple statement (compound statements other than blocks are left alone).
fn statement_end(facts: &FileFacts, k: usize) -> Option<usize> {
    let tokens = &facts.tokens;
    let text = |k: usize| facts.token_text(&tokens[k]);
    let mut depth = 0i32;
    for j in k..tokens.len() {
        match text(j) {
            "{" if j == k || depth > 0 => depth += 1,
            "{" => return None,
            "}" if depth == 0 => return None,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            ";" if depth == 0 => return Some(j),
            "if" | "for" | "while" | "do" | "try" | "switch" | "synchronized" if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

const MODIFIERS: &[&str] =
    &["public", "protected", "private", "abstract", "static", "final", "native", "strictfp", "default"];

/// Inserts `synchronized` into the modifiers of the method running `unit` when the base
/// version of the method was synchronized and the current one is not.
fn synchronized_again(facts: &FileFacts, old: &FileFacts, unit: UnitIdx) -> Option<Fix> {
    let u = facts.units.get(unit as usize)?;
    let method = &facts.methods[u.method as usize];
    if u.is_lambda || method.kind != MethodKind::Method || method.is_synchronized {
        return None;
    }
    let was = *method_map(old, facts).get(&u.method)?;
    if !old.methods[was as usize].is_synchronized {
        return None;
    }
    let at = modifiers_end(facts, method.span.start, method.name_span.start)?;
    let edit = (Span { start: at.start, end: at.start, line: at.line, end_line: at.line }, "synchronized ".to_string());
    Some(Fix { title: format!("Make `{}()` synchronized again", method.name), edits: vec![edit] })
}

/// Where `synchronized` goes in a method declaration starting at `start`: after its last
/// modifier keyword (`public static final`), else after its annotations; before the type
/// parameters and the return type. The token it goes before.
fn modifiers_end(facts: &FileFacts, start: u32, name: u32) -> Option<Token> {
    let from = facts.tokens.partition_point(|t| t.start < start);
    let to = facts.tokens.partition_point(|t| t.start < name);
    let tokens = facts.tokens.get(from..to)?;
    let text = |k: usize| tokens.get(k).map_or("", |t| facts.token_text(t));
    let (mut k, mut after_keyword) = (0, None);
    while k < tokens.len() {
        match text(k) {
            "@" => {
                // `@Name`, `@a.b.Name`, then its arguments in balanced parentheses.
                k += 2;
                while text(k) == "." {
                    k += 2;
                }
                if text(k) == "(" {
                    let mut depth = 0;
                    while k < tokens.len() {
                        depth += match text(k) {
                            "(" => 1,
                            ")" => -1,
                            _ => 0,
                        };
                        k += 1;
                        if depth == 0 {
                            break;
                        }
                    }
                }
            }
            t if MODIFIERS.contains(&t) => {
                k += 1;
                after_keyword = Some(k);
            }
            _ => break,
        }
    }
    tokens.get(after_keyword.unwrap_or(k)).copied()
}

fn span_of(t: &Token) -> Span {
    Span { start: t.start, end: t.end, line: t.line, end_line: t.end_line }
}
