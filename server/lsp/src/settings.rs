//! Settings from the editor (`initializationOptions`, `workspace/configuration` section
//! `racelens`): nested (`{"java": {"sourceRoots": [...]}}`) or dotted
//! (`{"java.sourceRoots": [...]}`) keys are both accepted. They take precedence over
//! `racelens.toml`.

use racelens_analysis::config::Overrides;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub base: String,
    pub overrides: Overrides,
    /// Show RL100 hints on changed lines that impact shared fields.
    pub hints: bool,
    pub code_lens: bool,
    pub explore: ExploreSettings,
}

/// `racelens.explore.*`: explorations started from the editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExploreSettings {
    /// Queue the tests that reach the changed code when a file is saved. Off by default:
    /// running project code is the user's decision.
    pub on_save: bool,
    /// Explorations running at once per workspace.
    pub parallel: usize,
    pub heuristic: String,
    pub bound: u32,
    pub max_schedules: u64,
}

impl Default for ExploreSettings {
    fn default() -> Self {
        ExploreSettings {
            on_save: false,
            parallel: 1,
            heuristic: racelens_explore::search::heuristics::DEFAULT.into(),
            bound: racelens_explore::explorer::DEFAULT_MAX_BOUND,
            max_schedules: 10_000,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            base: "HEAD".into(),
            overrides: Overrides::default(),
            hints: true,
            code_lens: true,
            explore: ExploreSettings::default(),
        }
    }
}

/// Looks up `a.b` as `{"a": {"b": ...}}` or `{"a.b": ...}`.
fn lookup<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    if let Some(direct) = v.get(path) {
        return Some(direct);
    }
    let (head, rest) = path.split_once('.')?;
    lookup(v.get(head)?, rest)
}

fn strings(v: &Value, path: &str) -> Option<Vec<String>> {
    lookup(v, path)?.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
}

fn string(v: &Value, path: &str) -> Option<String> {
    lookup(v, path)?.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

fn boolean(v: &Value, path: &str) -> Option<bool> {
    lookup(v, path)?.as_bool()
}

fn number(v: &Value, path: &str) -> Option<u64> {
    lookup(v, path)?.as_u64()
}

impl Settings {
    pub fn from_json(v: &Value) -> Settings {
        let d = Settings::default();
        Settings {
            base: string(v, "base").unwrap_or(d.base),
            overrides: Overrides {
                source_roots: strings(v, "java.sourceRoots").filter(|r| !r.is_empty()),
                classpath: strings(v, "java.classpath").filter(|r| !r.is_empty()),
                exclude: strings(v, "analysis.exclude").filter(|r| !r.is_empty()),
                jdk_sources: string(v, "analysis.jdkSources"),
            },
            hints: boolean(v, "diagnostics.hints").unwrap_or(d.hints),
            code_lens: boolean(v, "codeLens.enable").unwrap_or(d.code_lens),
            explore: ExploreSettings {
                on_save: boolean(v, "explore.onSave").unwrap_or(d.explore.on_save),
                parallel: number(v, "explore.parallel")
                    .filter(|&n| n >= 1)
                    .map_or(d.explore.parallel, |n| n.min(16) as usize),
                heuristic: string(v, "explore.heuristic").unwrap_or(d.explore.heuristic),
                bound: number(v, "explore.bound").map_or(d.explore.bound, |n| n.min(10) as u32),
                max_schedules: number(v, "explore.maxSchedules").filter(|&n| n >= 1).unwrap_or(d.explore.max_schedules),
            },
        }
    }

    /// Whether a change from `self` to `other` needs the workspace to be loaded again.
    pub fn needs_reload(&self, other: &Settings) -> bool {
        self.base != other.base || self.overrides != other.overrides
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_and_dotted_keys_both_work() {
        let nested = Settings::from_json(
            &json!({"base": "origin/main", "java": {"sourceRoots": ["app/src"]}, "diagnostics": {"hints": false}}),
        );
        let dotted = Settings::from_json(
            &json!({"base": "origin/main", "java.sourceRoots": ["app/src"], "diagnostics.hints": false}),
        );
        assert_eq!(nested, dotted);
        assert_eq!(nested.overrides.source_roots, Some(vec!["app/src".to_string()]));
        assert!(!nested.hints && nested.code_lens);
        assert_eq!(Settings::from_json(&Value::Null), Settings::default());
        // Wrong types are ignored, not fatal.
        assert_eq!(Settings::from_json(&json!({"base": 3, "codeLens": {"enable": "yes"}})), Settings::default());
        let explore =
            Settings::from_json(&json!({"explore": {"onSave": true, "parallel": 2}, "explore.bound": 3})).explore;
        assert!(explore.on_save);
        assert_eq!((explore.parallel, explore.bound), (2, 3));
        assert_eq!(Settings::from_json(&json!({"explore": {"parallel": 0}})).explore.parallel, 1);
    }
}
