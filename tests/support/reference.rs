//! The formats' own tools (okf-cli, obsidiantools, altk-evolve-core), which `.ci/reference-tools`
//! installs, pinned, in a private virtual environment: `$FOLIO_REFERENCE_TOOLS`, else
//! `target/reference-tools` in the workspace. A test that needs one and finds it missing says
//! so in one line and returns — except in CI (`CI` or `FOLIO_REQUIRE_SHARED` set), where it
//! fails: CI must check folio against them.
use std::path::PathBuf;

/// The virtual environment's folder.
pub fn venv() -> PathBuf {
    match std::env::var_os("FOLIO_REFERENCE_TOOLS").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => super::corpus_paths::workspace_root().join("target/reference-tools"),
    }
}

/// The executable `name` from the environment's `bin/` (`python`, `okf`), or None after saying
/// why (a panic in CI).
pub fn tool(name: &str) -> Option<PathBuf> {
    let path = venv().join("bin").join(name);
    if path.is_file() {
        return Some(path);
    }
    let why = format!("{} is not installed: run .ci/reference-tools", path.display());
    if super::corpus_paths::shared_required() {
        panic!("{why} (CI checks folio against the formats' own tools)");
    }
    eprintln!("not run: {why}");
    None
}

/// The environment's Python, for a reference reader used as a library
/// (`altk_evolve.viz.data`, `obsidiantools.api`).
pub fn python() -> Option<PathBuf> {
    tool("python")
}
