//! Crash safety: `folio mv` of an entity with 50 inbound links is killed (SIGKILL) at every
//! durable step of its changeset; the next start must leave the store entirely old or entirely
//! new, with the journal resolved and no temporary file left.
//!
//! The kill point comes from `FOLIO_CRASH_AT=N` (see `store::failpoint`): the N-th step
//! announces itself on stderr and blocks until this harness kills the process.
mod common;
use common::*;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const REFERRERS: usize = 50;

fn build_store(root: &Path) {
    write(root, "hub.md", "---\ntitle: Hub\n---\n# Hub\n");
    for i in 0..REFERRERS {
        write(
            root,
            &format!("notes/n{i:02}.md"),
            format!("---\ntitle: N{i}\n---\nSee [[hub]] and [hub](../hub.md).\n"),
        );
    }
}

/// Every file of the store outside folio's own state.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel == ".folio" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

/// Run the move, killing it at step `n`; true when the step was reached (false: it finished).
fn run_killed_at(root: &Path, n: u32) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["mv", root.to_str().unwrap(), "hub", "moved/center", "--as", "human:crash"])
        .env("FOLIO_CRASH_AT", n.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut said = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if line.contains("folio: crash point") {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            return true;
        }
        said.push(line);
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "an uninterrupted run must succeed (crash point {n}): {status:?}\n{}", said.join("\n"));
    false
}

#[test]
fn killed_at_every_step_the_store_is_entirely_old_or_entirely_new() {
    let base = tempfile::tempdir().unwrap();
    let reference = base.path().join("reference");
    build_store(&reference);
    let old = snapshot(&reference);
    let o = folio(&["mv", reference.to_str().unwrap(), "hub", "moved/center", "--as", "human:crash"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let new = snapshot(&reference);
    assert_ne!(old, new);
    assert_eq!(new.len(), old.len());
    assert!(String::from_utf8_lossy(&new["notes/n07.md"]).contains("[[center]] and [hub](../moved/center.md)"));

    let (mut saw_old, mut saw_new) = (0, 0);
    let mut n = 1;
    loop {
        let root = base.path().join(format!("run{n}"));
        build_store(&root);
        if !run_killed_at(&root, n) {
            break;
        }
        // The next start resolves the journal.
        let o = folio(&["log", root.to_str().unwrap()]);
        assert!(o.status.success(), "step {n}: {}", String::from_utf8_lossy(&o.stderr));
        let after = snapshot(&root);
        if after == old {
            saw_old += 1;
        } else if after == new {
            saw_new += 1;
        } else {
            let differing: Vec<_> = after.keys().filter(|k| old.get(*k) != after.get(*k)).take(5).collect();
            panic!("step {n}: the store is neither old nor new (differs from old in {differing:?})");
        }
        assert!(!root.join(".folio/journal.jsonl").exists(), "step {n}: journal left behind");
        let second = folio(&["log", root.to_str().unwrap()]);
        assert!(second.status.success());
        assert!(!String::from_utf8_lossy(&second.stderr).contains("interrupted"), "step {n}: recovery ran twice");
        std::fs::remove_dir_all(&root).unwrap();
        n += 1;
    }
    // begin + (journal entry, file swap) per file written + log + commit + undo record.
    assert!(n > 2 * (REFERRERS as u32 + 2), "only {n} steps were exercised");
    assert!(saw_old > 0 && saw_new > 0, "old {saw_old}, new {saw_new}");
}
