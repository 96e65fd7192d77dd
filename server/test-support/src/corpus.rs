//! The benchmark corpus: the JDK's `java.util` sources (from `openjdk-17-source`) in a
//! temporary git repository. Shared by the benchmarks of the analysis and of the server.

use std::io::Read;
use std::path::Path;
use std::process::Command;

pub fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=bench", "-c", "user.email=bench@racelens.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// Copies `java/util/**.java` out of src.zip into `dir/src/`, in archive order, until
/// `max_lines` (all of it when `None`); returns the line count.
pub fn extract_java_util(zip_path: &Path, dir: &Path, max_lines: Option<usize>, keep: &[&str]) -> usize {
    extract_packages(zip_path, dir, &["java/util/"], max_lines, keep)
}

/// Copies the `java.base` sources under any of `prefixes` (`java/util/`) out of src.zip
/// into `dir/src/`, in archive order, until `max_lines` (all of them when `None`; files
/// ending in one of `keep` always); returns the line count.
pub fn extract_packages(
    zip_path: &Path,
    dir: &Path,
    prefixes: &[&str],
    max_lines: Option<usize>,
    keep: &[&str],
) -> usize {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(zip_path).unwrap()).unwrap();
    let mut lines = 0;
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).unwrap();
        let Ok(name) = f.name().map(|n| n.to_string()) else { continue };
        let Some(rel) = name.strip_prefix("java.base/") else { continue };
        if !prefixes.iter().any(|p| rel.starts_with(p)) || !rel.ends_with(".java") {
            continue;
        }
        let wanted = keep.iter().any(|k| rel.ends_with(k));
        if max_lines.is_some_and(|m| lines >= m) && !wanted {
            continue;
        }
        let mut text = String::new();
        if f.read_to_string(&mut text).is_err() {
            continue;
        }
        lines += text.lines().count();
        let dest = dir.join("src").join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, text).unwrap();
    }
    lines
}

/// A temporary git repository holding the corpus, committed.
pub fn repository(zip_path: &Path, max_lines: Option<usize>, keep: &[&str]) -> (tempfile::TempDir, usize) {
    let dir = tempfile::tempdir().unwrap();
    let lines = extract_java_util(zip_path, dir.path(), max_lines, keep);
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "java.util"]);
    (dir, lines)
}
