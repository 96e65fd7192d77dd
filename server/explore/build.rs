//! Builds the exploration agent (`server/agent`, Java) into `racelens-agent.jar`, which
//! the crate embeds: javac the agent against Debian's ASM, then relocate ASM into the jar
//! (`racelens.build.Shade`), so that a project's own ASM never clashes with ours.
//!
//! Needs a JDK (`javac`, `java`; `JAVA_HOME` or `PATH`) and `libasm-java`
//! (`/usr/share/java/asm*.jar`, or `RACELENS_ASM_DIR`).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let agent = manifest.join("../agent");
    println!("cargo:rerun-if-changed=../agent/src");
    println!("cargo:rerun-if-changed=../agent/build");
    println!("cargo:rerun-if-env-changed=RACELENS_ASM_DIR");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let jar = out.join("racelens-agent.jar");
    println!("cargo:rustc-env=RACELENS_AGENT_JAR={}", jar.display());
    println!("cargo:rerun-if-env-changed=RACELENS_SKIP_AGENT");
    // For work on the Rust side alone: an empty jar, and explorations say so.
    if env::var_os("RACELENS_SKIP_AGENT").is_some() {
        std::fs::write(&jar, b"").unwrap();
        return;
    }

    let asm_dir =
        env::var_os("RACELENS_ASM_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/share/java"));
    let asm: Vec<PathBuf> = ["asm.jar", "asm-commons.jar", "asm-tree.jar"].iter().map(|j| asm_dir.join(j)).collect();
    if let Some(missing) = asm.iter().find(|j| !j.is_file()) {
        fail(&format!(
            "{} is missing: install ASM with `apt-get install libasm-java` (or set RACELENS_ASM_DIR)",
            missing.display()
        ));
    }
    let javac = tool("javac");
    let java = tool("java");

    let classes = out.join("agent-classes");
    let shade = out.join("shade-classes");
    for dir in [&classes, &shade] {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).unwrap();
    }
    let mut sources = Vec::new();
    collect(&agent.join("src"), &mut sources);
    sources.sort();
    if sources.is_empty() {
        fail("no Java sources under server/agent/src");
    }
    let argfile = out.join("sources.txt");
    std::fs::write(&argfile, sources.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join("\n")).unwrap();
    let cp = join(&asm);
    run(
        Command::new(&javac)
            .args(["--release", "17", "-g", "-nowarn", "-encoding", "UTF-8", "-d"])
            .arg(&classes)
            .arg("-cp")
            .arg(&cp)
            .arg(format!("@{}", argfile.display())),
        "compiling the agent",
    );
    run(
        Command::new(&javac)
            .args(["--release", "17", "-nowarn", "-d"])
            .arg(&shade)
            .arg("-cp")
            .arg(&cp)
            .arg(agent.join("build/racelens/build/Shade.java")),
        "compiling the shading tool",
    );
    run(
        Command::new(&java)
            .arg("-cp")
            .arg(format!("{cp}:{}", shade.display()))
            .arg("racelens.build.Shade")
            .arg(&jar)
            .arg(&classes)
            .args(&asm),
        "packaging the agent",
    );
}

fn tool(name: &str) -> PathBuf {
    if let Some(home) = env::var_os("JAVA_HOME") {
        let p = PathBuf::from(home).join("bin").join(name);
        if p.is_file() {
            return p;
        }
    }
    if let Some(path) = env::var_os("PATH") {
        if let Some(p) = env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()) {
            return p;
        }
    }
    fail(&format!("`{name}` not found: racelens builds its exploration agent with a JDK; install one with `apt-get install openjdk-17-jdk-headless` or set JAVA_HOME"));
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(read) = std::fs::read_dir(dir) else { return };
    for e in read.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "java") {
            out.push(p);
        }
    }
}

fn join(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(":")
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| fail(&format!("{what}: cannot run {:?}: {e}", cmd.get_program())));
    if !out.status.success() {
        fail(&format!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: racelens agent: {message}");
    panic!("racelens agent: {message}");
}
