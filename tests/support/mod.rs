//! Helpers shared by the integration tests: one module, included by each test binary.
#![allow(dead_code)]
pub mod corpus_paths;
pub mod git;
pub mod golden;
pub mod hostile;
pub mod opendray_seed;
pub mod pg;
pub mod reference;
pub mod tui;

/// The real example stores: `corpus(rel)` for one the repository carries (`tests/corpora`),
/// `corpus_or_skip(rel)` for one that may only be in `../shared` (see `corpus_paths`).
#[allow(unused_imports)] // each test binary uses some of them
pub use corpus_paths::{corpus, corpus_or_skip, corpus_roots, corpus_stores};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fixture store shipped in `tests/fixtures`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel)
}

/// Copy a directory tree (to get a scratch store that tests may write to). The copies are
/// writable by their owner whatever the source's bits: a test must not depend on whether
/// the corpora are read-only; one that needs a read-only file sets the bit itself.
pub fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dst.join(entry.file_name());
        let ft = entry.file_type().unwrap();
        if ft.is_dir() {
            copy_tree(&entry.path(), &to);
        } else if ft.is_file() {
            std::fs::copy(entry.path(), &to).unwrap();
            let mut perms = std::fs::metadata(&to).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&to, perms).unwrap();
        }
    }
}

/// A scratch copy of a store in a fresh temp dir; keep the TempDir alive while using it.
pub fn scratch(src: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join(src.file_name().unwrap());
    copy_tree(src, &dst);
    (dir, dst)
}

/// A temporary folder in memory where the system has one (`/dev/shm`), else in the system's
/// temporary folder: for tests that write a great deal and check what folio does, not what the
/// disk does (fsync on a shared VM's disk took 0.4–190 ms a call).
pub fn in_memory_tempdir(prefix: &str) -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(dir) = tempfile::Builder::new().prefix(prefix).tempdir_in(shm)
    {
        return dir;
    }
    tempfile::tempdir().unwrap()
}

/// Make every file and folder under `root` writable by its owner (the corpora are read-only).
pub fn make_writable(root: &Path) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let mut perms = e.metadata().unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(e.path(), perms).unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
}

/// A scratch copy that takes writes.
pub fn writable_scratch(src: &Path) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = scratch(src);
    make_writable(&root);
    (dir, root)
}

/// The instant folio's clock reads in every test (`FOLIO_NOW`), so ages and staleness do not
/// depend on the day the suite runs.
pub const PINNED_NOW: &str = "2026-11-27T12:00:00Z";

/// Run the folio binary with arguments.
pub fn folio(args: &[&str]) -> Output {
    // Data (the unpacked demo) and caches go to a folder of this run's own: a folder shared in
    // the temp dir would be raced by tests running in parallel and by other checkouts.
    let own = tempfile::tempdir().unwrap();
    folio_in(own.path()).args(args).env("FOLIO_NOW", PINNED_NOW).output().expect("folio runs")
}

/// The folio binary with its data, cache, state and config folders under `home` and none of
/// the caller's folio settings: what every test that runs folio starts from.
pub fn folio_in(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_folio"));
    c.env("NO_COLOR", "1")
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"));
    for v in [
        "FOLIO_CACHE_DIR",
        "FOLIO_NO_CACHE",
        "FOLIO_STATE_DIR",
        "FOLIO_DATABASE_URL",
        "PGPASSWORD",
        "FOLIO_FAULT",
        "FOLIO_CRASH_AT",
    ] {
        c.env_remove(v);
    }
    c
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Run folio and parse its stdout as JSON.
pub fn folio_json(args: &[&str]) -> serde_json::Value {
    let o = folio(args);
    assert!(o.status.code() != Some(2), "folio {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("folio {args:?}: bad JSON ({e}): {}", stdout(&o)))
}

/// Write a file (creating parents) inside a test store.
pub fn write(root: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// What a tree holds, for "nothing here changed" checks: every file's bytes, every folder
/// (`None`), every symlink's target (not followed). Paths are relative to `dir`; folders named
/// in `skip` (folio's own state, wherever it sits) are left out with everything under them.
pub fn tree(dir: &Path, skip: &[&Path]) -> std::collections::BTreeMap<String, Option<Vec<u8>>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if skip.contains(&p.as_path()) {
                continue;
            }
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let kind = e.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(rel, Some(format!("-> {}", target.display()).into_bytes()));
            } else if kind.is_dir() {
                out.insert(rel, None);
                stack.push(p);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

/// A vault (`.obsidian` in it) of `notes` notes `{name}-{i}.md`, note `i`'s text `text(i)`,
/// each written an hour ago as a real store's would be (files just written are never trusted
/// by folio's cache), in its own temporary folder: the folder, the vault's path and when the
/// notes were written.
pub fn vault_written_an_hour_ago(
    notes: usize,
    name: &str,
    text: impl Fn(usize) -> String,
) -> (tempfile::TempDir, PathBuf, std::time::SystemTime) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for i in 0..notes {
        let p = root.join(format!("{name}-{i}.md"));
        std::fs::write(&p, text(i)).unwrap();
        std::fs::File::options().write(true).open(&p).unwrap().set_modified(hour_ago).unwrap();
    }
    (dir, root, hour_ago)
}
