//! Crash safety: `folio mv` of an entity with 50 inbound links, and `folio undo` of a review
//! verdict, are killed (SIGKILL) at every durable step of their changeset; the next start must
//! leave the store (and, for undo, the review ledger with it) entirely old or entirely new, with
//! the journal resolved and no temporary file left.
//!
//! The kill point comes from `FOLIO_CRASH_AT=N` (see `store::failpoint`): the N-th step
//! announces itself on stderr and blocks until this harness kills the process.
use crate::support;
use support::*;

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

/// Run folio with `args`, killing it at step `n`; true when the step was reached (false: it finished).
fn run_killed_at(args: &[&str], n: u32) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(args)
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

/// Where a run killed at a step left the store, once the next start resolved it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Left {
    Old,
    New,
}

/// Runs `at(n)` for every step n from 1 until a run finishes before its step (None), the runs
/// side by side (each waits on its process): what each killed run left, in step order.
fn at_every_step(at: impl Fn(u32) -> Option<Left> + Sync) -> Vec<Left> {
    use std::sync::atomic::{AtomicU32, Ordering};
    let next = AtomicU32::new(1);
    let finished_at = AtomicU32::new(u32::MAX);
    let left = std::sync::Mutex::new(Vec::new());
    let threads = 2 * std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= finished_at.load(Ordering::Relaxed) {
                        break;
                    }
                    match at(n) {
                        Some(l) => left.lock().unwrap().push((n, l)),
                        None => {
                            finished_at.fetch_min(n, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    let finished_at = finished_at.into_inner();
    let mut left: Vec<(u32, Left)> = left.into_inner().unwrap().into_iter().filter(|(n, _)| *n < finished_at).collect();
    left.sort_by_key(|(n, _)| *n);
    assert_eq!(left.len() as u32, finished_at - 1, "every step before the last was reached");
    left.into_iter().map(|(_, l)| l).collect()
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

    let left = at_every_step(|n| {
        let root = base.path().join(format!("run{n}"));
        build_store(&root);
        if !run_killed_at(&["mv", root.to_str().unwrap(), "hub", "moved/center", "--as", "human:crash"], n) {
            return None;
        }
        // The next start resolves the journal.
        let o = folio(&["log", root.to_str().unwrap()]);
        assert!(o.status.success(), "step {n}: {}", String::from_utf8_lossy(&o.stderr));
        let after = snapshot(&root);
        let left = if after == old {
            Left::Old
        } else if after == new {
            Left::New
        } else {
            let differing: Vec<_> = after.keys().filter(|k| old.get(*k) != after.get(*k)).take(5).collect();
            panic!("step {n}: the store is neither old nor new (differs from old in {differing:?})");
        };
        assert!(!root.join(".folio/journal.jsonl").exists(), "step {n}: journal left behind");
        let second = folio(&["log", root.to_str().unwrap()]);
        assert!(second.status.success());
        assert!(!String::from_utf8_lossy(&second.stderr).contains("interrupted"), "step {n}: recovery ran twice");
        std::fs::remove_dir_all(&root).unwrap();
        Some(left)
    });
    let n = left.len() as u32 + 1;
    let saw_old = left.iter().filter(|l| **l == Left::Old).count();
    let saw_new = left.iter().filter(|l| **l == Left::New).count();
    // begin + (journal entry, file swap) per file written + log + commit + undo record.
    assert!(n > 2 * (REFERRERS as u32 + 2), "only {n} steps were exercised");
    assert!(saw_old > 0 && saw_new > 0, "old {saw_old}, new {saw_new}");
}

/// The review ledger's bytes (empty when there is none).
fn ledger(root: &Path) -> String {
    std::fs::read_to_string(root.join(".folio/review/verdicts.jsonl")).unwrap_or_default()
}

#[test]
fn undo_killed_at_every_step_restores_the_files_and_the_ledger_together() {
    let base = tempfile::tempdir().unwrap();
    let vetoed = base.path().join("vetoed");
    copy_tree(&fixture("opendray-homelab"), &vetoed);
    let v = vetoed.to_str().unwrap();
    let o = folio(&["review", v, "veto", "fact-pg-version", "--reason", "wrong", "--as", "human:crash"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let old = (snapshot(&vetoed), ledger(&vetoed));
    assert!(old.1.contains("fact-pg-version"), "the veto is not in the ledger: {}", old.1);

    let reference = base.path().join("reference");
    copy_tree(&vetoed, &reference);
    let o = folio(&["undo", reference.to_str().unwrap(), "--as", "human:crash"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let new = (snapshot(&reference), ledger(&reference));
    assert_ne!(old.0, new.0);
    assert!(!new.1.contains("fact-pg-version"), "undo left the veto in the ledger: {}", new.1);

    let left = at_every_step(|n| {
        let root = base.path().join(format!("run{n}"));
        copy_tree(&vetoed, &root);
        if !run_killed_at(&["undo", root.to_str().unwrap(), "--as", "human:crash"], n) {
            return None;
        }
        let o = folio(&["log", root.to_str().unwrap()]);
        assert!(o.status.success(), "step {n}: {}", String::from_utf8_lossy(&o.stderr));
        let after = (snapshot(&root), ledger(&root));
        let left = match (after.0 == old.0, after.1 == old.1, after.0 == new.0, after.1 == new.1) {
            (true, true, _, _) => Left::Old,
            (_, _, true, true) => Left::New,
            (files_old, ledger_old, files_new, ledger_new) => panic!(
                "step {n}: files old {files_old} / new {files_new}, ledger old {ledger_old} / new {ledger_new}: \
                 the undo and the ledger were not kept together (ledger: {:?})",
                after.1
            ),
        };
        assert!(!root.join(".folio/journal.jsonl").exists(), "step {n}: journal left behind");
        std::fs::remove_dir_all(&root).unwrap();
        Some(left)
    });
    let n = left.len() as u32 + 1;
    let saw_old = left.iter().filter(|l| **l == Left::Old).count();
    let saw_new = left.iter().filter(|l| **l == Left::New).count();
    // begin + (journal entry, swap) for the restored file, the ledger and the log + commit + undo record.
    assert!(n > 9, "only {n} steps were exercised: is the ledger written in the undo's changeset?");
    assert!(saw_old > 0 && saw_new > 0, "old {saw_old}, new {saw_new}");
}
