//! Where the tests find the real example stores ("the corpora").
//!
//! The repository carries every corpus whose licence allows a copy in `tests/corpora`
//! (verbatim, with each source's licence and a PROVENANCE file). The rest are read from
//! `../shared/formats/corpora` beside the repository when it is there; when it is not, a test
//! that needs one says so in one line on stderr and returns, unless `FOLIO_REQUIRE_SHARED` or
//! `CI` is set, where it fails instead: CI must run everything.
//!
//! Included by `tests/common`, `tests/tui_support` and the store cache's unit tests, so it
//! depends on nothing but std.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// Corpora the repository may not carry, and why (a path under the corpora and all below it).
pub const NOT_COPIED: &[(&str, &str)] = &[
    ("aip-10/ts-fixtures", "agentproto/ts's LICENSE file could not be read to ship with a copy"),
    ("elophanto", "elophanto/EloPhanto is under the PolyForm Noncommercial licence"),
    ("evolve/public-repo-vinodmut", "vinodmut/test-evolve-guidelines has no licence"),
];

/// The workspace's root: the nearest folder up from the including crate's that holds
/// `Cargo.lock` (the tests are the root crate's, the cache's unit tests `crates/folio-core`'s).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().find(|d| d.join("Cargo.lock").is_file()).unwrap_or(here).to_path_buf()
}

/// The corpora the repository carries.
pub fn local_root() -> PathBuf {
    workspace_root().join("tests/corpora")
}

/// The full set beside the repository (it may be absent).
pub fn shared_root() -> PathBuf {
    workspace_root().join("../shared/formats/corpora")
}

/// Whether a missing `../shared` corpus fails the test rather than skipping it: when
/// `FOLIO_REQUIRE_SHARED` or `CI` is set to anything but empty, `0` or `false`.
pub fn shared_required() -> bool {
    ["FOLIO_REQUIRE_SHARED", "CI"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|s| !s.is_empty() && s != "0" && !s.eq_ignore_ascii_case("false")))
}

/// Why `rel` is not in `tests/corpora`, if it is one of the corpora the repository may not carry.
fn not_copied(rel: &str) -> Option<&'static str> {
    let rel = Path::new(rel);
    NOT_COPIED.iter().find(|(p, _)| rel.starts_with(p)).map(|(_, why)| *why)
}

/// A corpus the repository carries: `tests/corpora/<rel>` (or, for one added to `../shared` and
/// not yet copied, `../shared/formats/corpora/<rel>`). Panics when it is not there, and always
/// for a corpus the repository may not carry: a test needing one uses [`corpus_or_skip`].
pub fn corpus(rel: &str) -> PathBuf {
    if let Some(why) = not_copied(rel) {
        panic!(
            "corpus {rel} is not in tests/corpora ({why}): read it with corpus_or_skip, which skips the test without ../shared"
        );
    }
    let local = local_root().join(rel);
    if local.exists() {
        return local;
    }
    let shared = shared_root().join(rel);
    assert!(shared.exists(), "corpus {rel} is missing: neither {} nor {} exists", local.display(), shared.display());
    shared
}

/// A corpus, wherever it is: `tests/corpora/<rel>`, else `../shared/formats/corpora/<rel>`.
/// When neither has it, says in one line on stderr which corpus is missing and why the test is
/// not run, and returns None (the caller returns); under `FOLIO_REQUIRE_SHARED` or `CI` it
/// panics instead.
pub fn corpus_or_skip(rel: &str) -> Option<PathBuf> {
    let local = local_root().join(rel);
    if local.exists() {
        return Some(local);
    }
    let shared = shared_root().join(rel);
    if shared.exists() {
        return Some(shared);
    }
    let why = not_copied(rel).unwrap_or("it is not in tests/corpora");
    if shared_required() {
        panic!(
            "corpus {rel} is missing: {why}, and {} is absent (FOLIO_REQUIRE_SHARED or CI is set, so this fails)",
            shared.display()
        );
    }
    let thread = std::thread::current();
    let test = thread.name().filter(|n| *n != "main").map(|n| format!("{n}: ")).unwrap_or_default();
    // Straight to the process's stderr: the test harness captures eprintln! of a passing test.
    let _ = writeln!(
        std::io::stderr(),
        "{test}not run on corpus {rel}: {why}, and ../shared/formats/corpora is not beside the repository (FOLIO_REQUIRE_SHARED=1 makes this a failure)"
    );
    None
}

/// The folders to walk for "every corpus file": `tests/corpora`, and each corpus it may not
/// carry that `../shared` has (one stderr line for each that is missing; see [`corpus_or_skip`]).
pub fn corpus_roots() -> Vec<PathBuf> {
    let mut roots = vec![local_root()];
    roots.extend(NOT_COPIED.iter().filter_map(|(rel, _)| corpus_or_skip(rel)));
    roots
}

/// Every store of the corpora, as (`group/store`, folder): the folders two levels down, in
/// `tests/corpora` and, for the corpora the repository may not carry, in `../shared` (see
/// [`corpus_roots`]). Sorted by name.
pub fn corpus_stores() -> Vec<(String, PathBuf)> {
    let subdirs = |dir: &Path| -> Vec<(String, PathBuf)> {
        let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        out.sort();
        out
    };
    let mut stores = Vec::new();
    for (group, dir) in subdirs(&local_root()) {
        stores.extend(subdirs(&dir).into_iter().map(|(s, p)| (format!("{group}/{s}"), p)));
    }
    for (rel, _) in NOT_COPIED {
        let Some(dir) = corpus_or_skip(rel) else { continue };
        if rel.contains('/') {
            stores.push((rel.to_string(), dir));
        } else {
            stores.extend(subdirs(&dir).into_iter().map(|(s, p)| (format!("{rel}/{s}"), p)));
        }
    }
    stores.sort();
    stores
}

/// Every Obsidian vault the tests compare with obsidiantools, as (name, folder): the
/// repository's `tests/fixtures/obsidian-vault`, every folder holding `.obsidian/` among the
/// corpora (`tests/corpora`, `../shared/formats/corpora`, three levels deep), and the folders
/// `FOLIO_VAULT_CORPORA` names (`:`-separated), for a vault the corpora do not carry. Sorted.
pub fn vault_corpora() -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, depth: usize, name: &str, out: &mut Vec<(String, PathBuf)>) {
        if dir.join(".obsidian").is_dir() {
            out.push((name.to_string(), dir.to_path_buf()));
            return;
        }
        if depth == 0 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten().filter(|e| e.path().is_dir()) {
            let file = e.file_name().to_string_lossy().into_owned();
            if !file.starts_with('.') {
                let below = if name.is_empty() { file } else { format!("{name}/{file}") };
                walk(&e.path(), depth - 1, &below, out);
            }
        }
    }
    let mut out = vec![("fixtures/obsidian-vault".to_string(), workspace_root().join("tests/fixtures/obsidian-vault"))];
    walk(&local_root(), 3, "", &mut out);
    walk(&shared_root(), 3, "", &mut out);
    for dir in std::env::var("FOLIO_VAULT_CORPORA").unwrap_or_default().split(':').filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        out.push((format!("FOLIO_VAULT_CORPORA/{name}"), dir));
    }
    out.sort();
    // A corpus `tests/corpora` carries is in `../shared` too: one copy of each.
    out.dedup_by(|a, b| a.0 == b.0);
    out
}
