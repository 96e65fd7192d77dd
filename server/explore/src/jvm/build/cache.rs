//! Build models kept between runs, in the work tree's cache folder
//! (`<cache>/projects/<tree>/build-model/`): one JSON file per key, holding the model of
//! each module a test was explored in. A test's model is the one whose module's source
//! roots hold the test's file (a Gradle subproject may have no build file of its own, so
//! the folder does not tell the module).
//!
//! The key hashes what the answer depends on: the content of every build file of the build
//! (`pom.xml`, `*.gradle`, `*.gradle.kts`, `gradle.properties`, version catalogs, wrapper
//! properties, `.mvn/` configuration), the user's `~/.m2/settings.xml` and
//! `~/.gradle/gradle.properties`, `MAVEN_OPTS`/`GRADLE_OPTS`, the racelens.toml keys that
//! change the command, and racelens's own reader. A cached model whose jars are gone (a
//! cleaned local repository) is read again. What the key cannot see: a `-SNAPSHOT`
//! dependency updated in the local repository, and Gradle plugin code in `buildSrc` other
//! than its build scripts.

use std::path::{Path, PathBuf};

use racelens_analysis::cache_dir::{project_cache, stable_hash};
use racelens_analysis::config::Config;

use super::{gradle, maven, BuildModel, Located, Tool};

/// Folders never searched for build files: outputs, VCS, and the bulk of the sources.
const SKIP: &[&str] = &["target", "build", "out", "node_modules", ".git", ".gradle", ".idea", ".svn"];

/// Model files (and `classpath_command` answers) kept per work tree, newest first; older
/// ones are removed.
const KEEP: usize = 16;

fn is_build_file(name: &str) -> bool {
    matches!(
        name,
        "pom.xml"
            | "gradle.properties"
            | "gradle-wrapper.properties"
            | "maven-wrapper.properties"
            | "maven.config"
            | "jvm.config"
            | "extensions.xml"
    ) || name.ends_with(".gradle")
        || name.ends_with(".gradle.kts")
        || name.ends_with(".versions.toml")
}

/// The build files under `dir`, sorted (relative order fixed, so the key is stable).
fn build_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            let hidden = name.starts_with('.') && name != ".mvn";
            // `src/<set>/java` holds sources only; `src/main/groovy` may hold convention plugins.
            let sources = matches!(name.as_str(), "java" | "resources")
                && dir.parent().is_some_and(|p| p.file_name().is_some_and(|n| n == "src"));
            if !hidden && !sources && !SKIP.contains(&name.as_str()) {
                build_files(&e.path(), out);
            }
        } else if is_build_file(&name) {
            out.push(e.path());
        }
    }
}

/// A hash of the content of every build file under `dir`.
pub fn build_files_hash(dir: &Path) -> u64 {
    let mut files = Vec::new();
    build_files(dir, &mut files);
    let mut bytes = Vec::new();
    for f in &files {
        bytes.extend_from_slice(f.to_string_lossy().as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&stable_hash(&std::fs::read(f).unwrap_or_default()).to_le_bytes());
    }
    stable_hash(&bytes)
}

/// The cache key of the models of a build.
pub fn key(located: &Located, config: &Config) -> String {
    let mut bytes: Vec<u8> = Vec::new();
    let mut add = |label: &str, data: &[u8]| {
        bytes.extend_from_slice(label.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
        bytes.extend_from_slice(data);
    };
    add("tool", located.tool.name().as_bytes());
    add("build root", located.build_root.to_string_lossy().as_bytes());
    add("build files", &build_files_hash(&located.build_root).to_le_bytes());
    if let Some(home) = std::env::var_os("HOME") {
        for f in [".m2/settings.xml", ".gradle/gradle.properties"] {
            add(f, &std::fs::read(Path::new(&home).join(f)).unwrap_or_default());
        }
    }
    for var in ["MAVEN_OPTS", "MAVEN_ARGS", "GRADLE_OPTS", "GRADLE_USER_HOME"] {
        add(var, std::env::var(var).unwrap_or_default().as_bytes());
    }
    let args = match located.tool {
        Tool::Maven => &config.maven_args,
        Tool::Gradle => &config.gradle_args,
    };
    add("args", args.join("\0").as_bytes());
    add("offline", &[config.offline.unwrap_or(true) as u8]);
    add(
        "reader",
        match located.tool {
            Tool::Maven => maven::EXTENSION_SOURCE.as_bytes(),
            Tool::Gradle => gradle::INIT_SCRIPT.as_bytes(),
        },
    );
    format!("{}-{:016x}", located.tool.name(), stable_hash(&bytes))
}

pub(super) fn folder(root: &Path) -> PathBuf {
    project_cache(root).join("build-model")
}

/// The file the tool writes its answer to (in the cache, outside the work tree).
pub fn scratch(root: &Path, key: &str) -> Result<PathBuf, String> {
    let dir = folder(root);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir.join(format!("{key}.{}.answer", std::process::id())))
}

fn models(dir: &Path, key: &str) -> Vec<BuildModel> {
    let text = std::fs::read_to_string(dir.join(format!("{key}.json"))).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_default()
}

/// The cached model of the module whose sources hold `file`, if its jars are all still there.
pub fn load(root: &Path, key: &str, file: &Path) -> Option<BuildModel> {
    load_in(&folder(root), key, file)
}

fn load_in(dir: &Path, key: &str, file: &Path) -> Option<BuildModel> {
    let model = models(dir, key).into_iter().find(|m| m.module.sources.iter().any(|s| file.starts_with(s)))?;
    let present = |p: &PathBuf| p.exists();
    let processors_present = match &model.processors {
        super::Processors::Path(p) => p.iter().all(present),
        _ => true,
    };
    (model.classpath.iter().all(present) && processors_present).then_some(model)
}

/// Keeps `model` under `key` with the build's other modules (written aside, then renamed),
/// and removes the oldest keys' files.
pub fn store(root: &Path, key: &str, model: &BuildModel) {
    store_in(&folder(root), key, model)
}

fn store_in(dir: &Path, key: &str, model: &BuildModel) {
    let mut all = models(dir, key);
    all.retain(|m| m.module.id != model.module.id);
    all.push(model.clone());
    let Ok(text) = serde_json::to_string(&all) else { return };
    let _ = racelens_analysis::cache_dir::write_whole(&dir.join(format!("{key}.json")), text);
    let mut models: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name().to_string_lossy().ends_with(".json") || e.file_name().to_string_lossy().ends_with(".txt")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    models.sort_by(|a, b| b.cmp(a));
    for (_, old) in models.into_iter().skip(KEEP) {
        let _ = std::fs::remove_file(old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_follows_build_files_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        for (f, text) in [
            ("pom.xml", "<project/>"),
            ("core/pom.xml", "<project/>"),
            ("core/src/test/java/T.java", "class T {}"),
            ("core/target/x.pom.xml", ""),
            (".mvn/maven.config", "-Pa"),
        ] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), text).unwrap();
        }
        let located = Located { tool: Tool::Maven, build_root: root.to_path_buf() };
        let config = Config::default();
        let k = key(&located, &config);
        std::fs::write(root.join("core/src/test/java/T.java"), "class T { int x; }").unwrap();
        std::fs::create_dir_all(root.join("core/target")).unwrap();
        std::fs::write(root.join("core/target/pom.xml"), "changed output").unwrap();
        assert_eq!(key(&located, &config), k, "sources and outputs are not build files");
        std::fs::write(root.join(".mvn/maven.config"), "-Pb").unwrap();
        let k2 = key(&located, &config);
        assert_ne!(k2, k);
        std::fs::write(root.join("core/pom.xml"), "<project><!-- x --></project>").unwrap();
        assert_ne!(key(&located, &config), k2);
        let other = Config { maven_args: vec!["-Pfast".into()], ..Config::default() };
        assert_ne!(key(&located, &other), key(&located, &config));
    }

    fn module(root: &Path, name: &str) -> BuildModel {
        let dir = root.join(name);
        BuildModel {
            tool: Tool::Gradle,
            version: "4.4.1".into(),
            build_root: root.to_path_buf(),
            module: super::super::ModuleSources {
                id: format!(":{name}"),
                name: name.into(),
                sources: vec![dir.join("src/main/java"), dir.join("src/test/java")],
                resources: Vec::new(),
                dir,
            },
            dependencies: Vec::new(),
            classpath: vec![root.to_path_buf()],
            processors: super::super::Processors::Classpath,
            test: Default::default(),
        }
    }

    #[test]
    fn each_module_of_a_build_has_its_model_found_by_the_test_file() {
        let t = tempfile::tempdir().unwrap();
        let (root, dir) = (t.path().join("tree"), t.path().join("cache"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (module(&root, "a"), module(&root, "b"));
        store_in(&dir, "gradle-1", &a);
        store_in(&dir, "gradle-1", &b);
        store_in(&dir, "gradle-1", &a);
        assert_eq!(models(&dir, "gradle-1").len(), 2);
        assert_eq!(load_in(&dir, "gradle-1", &root.join("b/src/test/java/p/T.java")), Some(b.clone()));
        assert_eq!(load_in(&dir, "gradle-1", &root.join("a/src/main/java/p/Main.java")), Some(a));
        assert_eq!(load_in(&dir, "gradle-1", &root.join("c/src/test/java/p/T.java")), None);
        assert_eq!(load_in(&dir, "gradle-2", &root.join("b/src/test/java/p/T.java")), None);
        let mut gone = b;
        gone.classpath = vec![root.join("deleted.jar")];
        store_in(&dir, "gradle-3", &gone);
        assert_eq!(
            load_in(&dir, "gradle-3", &root.join("b/src/test/java/p/T.java")),
            None,
            "a jar is gone: read again"
        );
    }
}
