//! The answer racelens's Maven extension and Gradle init script write: one record per
//! line, fields separated by tabs, with `\\`, `\t`, `\n` and `\r` escaped. The last line
//! is `end`; a file without it was cut short and is not used.
//!
//! | record | fields |
//! |---|---|
//! | `tool` | name, version |
//! | `module` | id, name, folder |
//! | `src`, `res` | module id, source set (`main`, `test`, ...), folder |
//! | `target` | module id, source set: where the test is |
//! | `reactor` | module id, source set: a module of the build the target depends on |
//! | `cp` | a jar or class folder from outside the build |
//! | `proc` | `path` (processors from `proc_path` only) or `none` |
//! | `proc_path` | a jar of the annotation processor path |
//! | `argline` | Surefire's argLine, to split as Surefire splits it |
//! | `jvm_arg` | one JVM option (Gradle) |
//! | `sysprop` | name, value |
//! | `workdir` | folder |
//! | `assertions` | `true` or `false` |
//! | `error` | a message: the answer must not be used |
//! | `end` | |

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{BuildModel, Located, ModuleSources, Processors, TestSettings, Tool};

/// One line's fields, unescaped.
fn fields(line: &str) -> Vec<String> {
    line.split('\t')
        .map(|f| {
            let mut out = String::with_capacity(f.len());
            let mut chars = f.chars();
            while let Some(c) = chars.next() {
                if c != '\\' {
                    out.push(c);
                    continue;
                }
                match chars.next() {
                    Some('t') => out.push('\t'),
                    Some('n') => out.push('\n'),
                    Some('r') => out.push('\r'),
                    Some(other) => out.push(other),
                    None => out.push('\\'),
                }
            }
            out
        })
        .collect()
}

#[derive(Default)]
struct Module {
    name: String,
    dir: PathBuf,
    /// Source set -> (sources, resources).
    sets: BTreeMap<String, (Vec<PathBuf>, Vec<PathBuf>)>,
}

/// The model in `text` (the file the tool wrote; `None` when it wrote none), or why there
/// is none.
pub fn parse(text: Option<&str>, located: &Located, file: &Path) -> Result<BuildModel, String> {
    let text = text.ok_or_else(|| {
        "it wrote no answer (racelens's reader did not run: the build failed before it, see the last lines)".to_string()
    })?;
    let mut modules: BTreeMap<String, Module> = BTreeMap::new();
    let (mut tool, mut version) = (None, String::new());
    let mut target = None;
    let mut reactor: Vec<(String, String)> = Vec::new();
    let mut classpath = Vec::new();
    let mut processors = Processors::Classpath;
    let mut test = TestSettings::default();
    let mut errors = Vec::new();
    let mut complete = false;
    for line in text.lines() {
        let f = fields(line);
        let at = |i: usize| f.get(i).map(String::as_str).unwrap_or("");
        match at(0) {
            "tool" => {
                tool = match at(1) {
                    "maven" => Some(Tool::Maven),
                    "gradle" => Some(Tool::Gradle),
                    _ => None,
                };
                version = at(2).to_string();
            }
            "module" => {
                let m = modules.entry(at(1).to_string()).or_default();
                m.name = at(2).to_string();
                m.dir = PathBuf::from(at(3));
            }
            kind @ ("src" | "res") => {
                let set = modules.entry(at(1).to_string()).or_default().sets.entry(at(2).to_string()).or_default();
                let list = if kind == "src" { &mut set.0 } else { &mut set.1 };
                if !list.iter().any(|p| p == Path::new(at(3))) {
                    list.push(PathBuf::from(at(3)));
                }
            }
            "target" => target = Some((at(1).to_string(), at(2).to_string())),
            "reactor" => reactor.push((at(1).to_string(), at(2).to_string())),
            "cp" => classpath.push(PathBuf::from(at(1))),
            "proc" if at(1) == "none" => processors = Processors::None,
            "proc" => processors = Processors::Path(Vec::new()),
            "proc_path" => {
                if let Processors::Path(p) = &mut processors {
                    p.push(PathBuf::from(at(1)));
                }
            }
            "argline" => test.jvm_args.extend(split_arg_line(at(1))),
            "jvm_arg" => test.jvm_args.push(at(1).to_string()),
            "sysprop" => {
                test.system_properties.retain(|(k, _)| k != at(1));
                test.system_properties.push((at(1).to_string(), at(2).to_string()));
            }
            "workdir" if !at(1).is_empty() => test.working_dir = Some(PathBuf::from(at(1))),
            "assertions" => test.assertions = Some(at(1) != "false"),
            "error" => errors.push(at(1).to_string()),
            "end" => complete = true,
            _ => {}
        }
    }
    if !errors.is_empty() {
        // One error a paragraph: its own lines indented under it.
        let listed: Vec<String> =
            errors.iter().map(|e| e.trim_end().lines().map(str::trim).collect::<Vec<_>>().join("\n      ")).collect();
        return Err(format!("it could not resolve what the test needs:\n  - {}", listed.join("\n  - ")));
    }
    if !complete {
        return Err("its answer was cut short (no `end` line)".into());
    }
    let tool = tool.ok_or("its answer names no build tool")?;
    debug_assert_eq!(tool, located.tool);
    let (target, set) = target.ok_or_else(|| format!("no module of the build holds {}", file.display()))?;
    let sources = |id: &str, sets: &[&str]| -> Result<ModuleSources, String> {
        let m = modules.get(id).ok_or_else(|| format!("the answer names a module `{id}` it does not list"))?;
        let mut out = ModuleSources {
            id: id.to_string(),
            name: m.name.clone(),
            dir: m.dir.clone(),
            sources: Vec::new(),
            resources: Vec::new(),
        };
        for s in sets {
            if let Some((src, res)) = m.sets.get(*s) {
                out.sources.extend(src.iter().cloned());
                out.resources.extend(res.iter().cloned());
            }
        }
        Ok(out)
    };
    let module = if set == "main" { sources(&target, &["main"])? } else { sources(&target, &["main", set.as_str()])? };
    let mut dependencies: Vec<ModuleSources> = Vec::new();
    for (id, set) in &reactor {
        let sets: &[&str] = if set == "main" { &["main"] } else { &[set.as_str()] };
        let more = sources(id, sets)?;
        match dependencies.iter_mut().find(|d| d.id == *id) {
            Some(d) => {
                d.sources.extend(more.sources);
                d.resources.extend(more.resources);
            }
            None => dependencies.push(more),
        }
    }
    Ok(BuildModel {
        tool,
        version,
        build_root: located.build_root.clone(),
        module,
        dependencies,
        classpath,
        processors,
        test,
    })
}

/// Splits Surefire's `argLine` the way Surefire hands it to the forked JVM (plexus-utils'
/// `translateCommandline`): on white space, with single or double quotes grouping.
pub fn split_arg_line(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                any = false;
            }
            (None, c) => current.push(c),
        }
    }
    if any || !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arg_lines_split_like_surefire() {
        assert_eq!(
            split_arg_line("  -Xmx1g\n -Dname=\"a b\" '-Dq=x y' @{argLine}"),
            vec!["-Xmx1g", "-Dname=a b", "-Dq=x y", "@{argLine}"]
        );
        assert_eq!(split_arg_line(""), Vec::<String>::new());
        assert_eq!(split_arg_line("-Dempty=\"\" \"\""), vec!["-Dempty=", ""]);
    }

    fn located() -> Located {
        Located { tool: Tool::Maven, build_root: PathBuf::from("/r") }
    }

    #[test]
    fn a_complete_answer_becomes_the_module_its_dependencies_and_settings() {
        let text = "tool\tmaven\t3.8.7\n\
            module\tg:core\tcore\t/r/core\n\
            src\tg:core\tmain\t/r/core/src/main/java\nsrc\tg:core\ttest\t/r/core/src/test/java\nres\tg:core\ttest\t/r/core/src/test/res\n\
            module\tg:util\tutil\t/r/util\nsrc\tg:util\tmain\t/r/util/src/main/java\nsrc\tg:util\ttest\t/r/util/src/test/java\n\
            target\tg:core\ttest\nreactor\tg:util\tmain\ncp\t/m2/a\\tb.jar\n\
            argline\t-Xmx1g -Dx=\"1 2\"\nsysprop\tk\tv\nsysprop\tk\tw\nworkdir\t/r/core\nassertions\tfalse\nend\n";
        let m = parse(Some(text), &located(), Path::new("/r/core/src/test/java/T.java")).unwrap();
        assert_eq!(
            m.module.sources,
            vec![PathBuf::from("/r/core/src/main/java"), PathBuf::from("/r/core/src/test/java")]
        );
        assert_eq!(m.module.resources, vec![PathBuf::from("/r/core/src/test/res")]);
        assert_eq!(m.dependencies.len(), 1);
        assert_eq!(
            m.dependencies[0].sources,
            vec![PathBuf::from("/r/util/src/main/java")],
            "a dependency's tests are not compiled"
        );
        assert_eq!(m.classpath, vec![PathBuf::from("/m2/a\tb.jar")]);
        assert_eq!(m.test.jvm_args, vec!["-Xmx1g", "-Dx=1 2"]);
        assert_eq!(m.test.system_properties, vec![("k".to_string(), "w".to_string())]);
        assert_eq!((m.test.assertions, m.test.working_dir.as_deref()), (Some(false), Some(Path::new("/r/core"))));
    }

    #[test]
    fn errors_and_cut_answers_are_refused() {
        let file = Path::new("/r/T.java");
        let err = parse(Some("tool\tmaven\t3\nerror\tCannot access central in offline mode\nend\n"), &located(), file)
            .unwrap_err();
        assert!(err.contains("Cannot access central in offline mode"), "{err}");
        assert!(parse(Some("tool\tmaven\t3\nmodule\tg:a\ta\t/r\ntarget\tg:a\ttest\n"), &located(), file)
            .unwrap_err()
            .contains("cut short"));
        assert!(parse(None, &located(), file).unwrap_err().contains("wrote no answer"));
        assert!(parse(Some("tool\tmaven\t3\nend\n"), &located(), file).unwrap_err().contains("no module"));
    }
}
