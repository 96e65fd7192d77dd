//! `[java] classpath_command`: any command that prints the classpath (entries separated
//! by `:` or new lines, relative ones taken from the root), run with `sh -c` in the root.
//! Its answer is cached like a build model: per command and content of the build files.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use racelens_analysis::cache_dir::stable_hash;

use super::cache;

/// The classpath a command printed, and how it was had.
#[derive(Clone, Debug)]
pub struct Printed {
    pub entries: Vec<PathBuf>,
    pub cached: bool,
    pub took: Duration,
}

impl Printed {
    /// `classpath: command `./cp.sh`, 12 entries, cached`.
    pub fn line(&self, command: &str) -> String {
        let n = self.entries.len();
        let how = if self.cached { "cached".to_string() } else { format!("read in {:.1} s", self.took.as_secs_f64()) };
        format!("classpath: command `{command}`, {n} entr{}, {how}", if n == 1 { "y" } else { "ies" })
    }
}

/// Runs `command` in `root` (or takes its cached answer), and checks every entry exists.
pub fn run(root: &Path, command: &str) -> Result<Printed, String> {
    let start = Instant::now();
    let key = stable_hash(format!("{command}\0{:016x}", cache::build_files_hash(root)).as_bytes());
    let file = cache::folder(root).join(format!("command-{key:016x}.txt"));
    if let Ok(text) = std::fs::read_to_string(&file) {
        let entries: Vec<PathBuf> = text.lines().map(PathBuf::from).collect();
        if entries.iter().all(|e| e.exists()) {
            return Ok(Printed { entries, cached: true, took: start.elapsed() });
        }
    }
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `[java] classpath_command` `{command}`: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let log = stdout.into_owned() + &String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "`[java] classpath_command` `{command}` failed ({}); its last lines:\n{}",
            out.status,
            super::tail_of(&log, 20)
        ));
    }
    let entries: Vec<PathBuf> = stdout
        .split(['\n', ':'])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| if Path::new(e).is_absolute() { PathBuf::from(e) } else { root.join(e) })
        .collect();
    if entries.is_empty() {
        return Err(format!("`[java] classpath_command` `{command}` printed no classpath"));
    }
    if let Some(missing) = entries.iter().find(|e| !e.exists()) {
        return Err(format!(
            "`[java] classpath_command` `{command}` printed {}, which does not exist",
            missing.display()
        ));
    }
    let _ = std::fs::create_dir_all(cache::folder(root));
    let text: String = entries.iter().map(|e| format!("{}\n", e.display())).collect();
    let _ = racelens_analysis::cache_dir::write_whole(&file, text);
    Ok(Printed { entries, cached: false, took: start.elapsed() })
}
