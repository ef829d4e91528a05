//! Every write command, against every file-system step it performs (issue 38; the method of
//! SQLite's crash and I/O-error tests and of the ALICE study): the real binary is run once with
//! `FOLIO_FAULT=trace` to count its steps, then for each step N it is SIGKILLed just before N,
//! just after N, and N fails with ENOSPC, EIO, EACCES and EROFS. After each case the next folio
//! command (`folio log`, which resolves an interrupted write) must leave the store exactly as
//! before the command or exactly as after it — every file byte-compared, the log, catalogs and
//! the shared review state included — with no temporary file of folio's anywhere, no journal
//! left, and as many undo records as that outcome implies.
//!
//! By default every step is killed after it (and the first before it: a kill before step N
//! leaves the disk as one after step N-1) and fails with one of the four errors or a disk full
//! from there on (`full:N`, which fails rollback's writes too) in turn — the write path treats
//! the errors alike; `FOLIO_FAULT_SWEEP=full` runs every step killed before and after and with
//! all five,
//! `FOLIO_FAULT_SWEEP=quick` checks every third step only (a fast local run), and
//! `FOLIO_FAULT_CASES="okf set,okf mv"` sweeps only the commands named. scripts/fault-sweep runs the same commands with faults injected by strace
//! at the system-call level instead.

use crate::support;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use support::{PINNED_NOW, copy_tree, fixture};

/// One write command to sweep: the store it runs on, what to do to the store first (outside
/// the sweep), and its arguments (`{S}` stands for the store's path).
struct Case {
    name: &'static str,
    /// The folder copied (the whole tree is compared), and the store inside it.
    source: PathBuf,
    store: &'static str,
    /// Commands run first without faults (their writes are part of "before").
    setup: Vec<Vec<String>>,
    /// A change to the store's files before the command (also part of "before").
    prepare: fn(&Path),
    args: Vec<String>,
}

fn args(s: &[&str]) -> Vec<String> {
    s.iter().map(|a| a.to_string()).collect()
}

fn nothing(_: &Path) {}

/// A root catalog line that no entity backs: `index` and `lint --fix` have work to do.
fn stale_catalog(store: &Path) {
    let index = store.join("index.md");
    let mut text = std::fs::read_to_string(&index).unwrap();
    text.push_str("\n* [Gone](gone.md) - an entry the catalog no longer backs\n");
    std::fs::write(index, text).unwrap();
}

/// The store in git with two commits of `apis/refunds.md`; the first one's rev, which
/// `restore` writes back, is left beside the copy (`{REV}` in the arguments).
fn git_history(store: &Path) {
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .args(["-c", "user.name=Ann", "-c", "user.email=ann@example.org", "-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(store)
            .env("GIT_AUTHOR_DATE", "2026-11-20T10:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-11-20T10:00:00Z")
            .output()
            .expect("git runs");
        assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "one"]);
    let path = store.join("apis/refunds.md");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\nAn agent's later paragraph.\n");
    std::fs::write(path, text).unwrap();
    let first = Command::new("git").args(["rev-parse", "--short", "HEAD"]).current_dir(store).output().unwrap();
    std::fs::write(store.parent().unwrap().join("rev"), String::from_utf8_lossy(&first.stdout).trim()).unwrap();
    git(&["commit", "-q", "-am", "two"]);
}

fn cases() -> Vec<Case> {
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("demo");
    let okf = |name, prepare: fn(&Path), setup: Vec<Vec<String>>, a: &[&str]| Case {
        name,
        source: demo.clone(),
        store: "",
        setup,
        prepare,
        args: args(a),
    };
    vec![
        okf("okf set", nothing, vec![], &["set", "{S}", "apis/refunds-v2", "status", "stable"]),
        okf("okf unset", nothing, vec![], &["unset", "{S}", "apis/refunds-v2", "tags"]),
        okf("okf mv", nothing, vec![], &["mv", "{S}", "apis/refunds-v2", "apis/refunds-next"]),
        okf("okf index", stale_catalog, vec![], &["index", "{S}"]),
        okf("okf lint --fix", stale_catalog, vec![], &["lint", "{S}", "--fix"]),
        okf("okf approve", nothing, vec![], &["review", "approve", "{S}", "apis/refunds-v2"]),
        okf("okf veto", nothing, vec![], &["review", "veto", "{S}", "apis/webhooks", "--reason", "wrong retry policy"]),
        okf("okf merge", nothing, vec![], &["review", "merge", "{S}", "apis/refunds-v2", "apis/refunds"]),
        okf("okf undo", nothing, vec![args(&["set", "{S}", "apis/refunds-v2", "status", "stable"])], &["undo", "{S}"]),
        okf("okf forget", nothing, vec![], &["review", "forget", "{S}", "apis/webhooks"]),
        okf("okf promote", nothing, vec![], &["review", "promote", "{S}", "apis/refunds-v2"]),
        okf("okf baseline", nothing, vec![], &["review", "{S}", "baseline", "--filter", "reason:never-reviewed"]),
        okf("okf restore", git_history, vec![], &["restore", "{S}", "apis/refunds", "{REV}"]),
        Case {
            name: "vault approve",
            source: fixture("obsidian-vault"),
            store: "wiki",
            setup: vec![],
            prepare: nothing,
            args: args(&["review", "{S}", "approve", "--filter", "reason:never-reviewed"]),
        },
        Case {
            name: "aip10 veto",
            source: fixture("aip10-wiki"),
            store: "",
            setup: vec![],
            prepare: nothing,
            args: args(&["review", "veto", "{S}", "cost-cut-plan", "--reason", "not sourced"]),
        },
        Case {
            name: "awareness approve",
            source: fixture("awareness-home"),
            store: "",
            setup: vec![],
            prepare: nothing,
            args: args(&["review", "approve", "{S}", "1xbgsit", "--kind", "pattern"]),
        },
        Case {
            name: "elophanto approve",
            source: fixture("elophanto-knowledge"),
            store: "",
            setup: vec![],
            prepare: nothing,
            args: args(&["review", "approve", "{S}", "system/identity"]),
        },
        Case {
            name: "opendray export approve",
            source: fixture("opendray-homelab"),
            store: "",
            setup: vec![],
            prepare: nothing,
            args: args(&["review", "approve", "{S}", "dec-split-dns"]),
        },
        Case {
            name: "evolve migrate",
            source: fixture("evolve-project"),
            store: ".evolve/entities",
            setup: vec![],
            prepare: nothing,
            args: args(&["migrate", "{S}", "--to", "okf"]),
        },
    ]
}

/// Run folio on a store with a pinned clock, a reviewer, no cache, and an optional fault.
fn folio(home: &Path, args: &[String], store: &Path, fault: Option<&str>) -> Output {
    let rev = std::fs::read_to_string(home.join("rev")).unwrap_or_default();
    let args: Vec<String> =
        args.iter().map(|a| a.replace("{S}", &store.to_string_lossy()).replace("{REV}", &rev)).collect();
    let mut cmd = crate::support::folio_in(home);
    cmd.args(&args).env("FOLIO_NOW", PINNED_NOW).env("USER", "tester").env("FOLIO_NO_CACHE", "1");
    if let Some(f) = fault {
        cmd.env("FOLIO_FAULT", f);
    }
    cmd.output().expect("folio runs")
}

/// folio's personal state, which differs run to run by design (object copies, undo records,
/// the journal, the lock); the shared state (review ledger, approved texts, audit trail,
/// config) is compared like any store file.
fn personal(rel: &str) -> bool {
    let at = rel.find(".evolve/folio/").map(|i| i + 14).or_else(|| rel.find(".folio/").map(|i| i + 7));
    at.is_some_and(|i| {
        let s = &rel[i..];
        ["objects/", "undo/", "archive/", "exports/"].iter().any(|p| s.starts_with(p))
            || ["journal.jsonl", "write-lock.tmp"].contains(&s)
    })
}

fn is_temporary(name: &str) -> bool {
    name.contains(".folio-tmp-") || name.contains(".folio-new-") || name.contains(".folio-old-")
}

/// Every file below `root` (symlinks as their targets' names), changeset ids masked.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let ft = e.file_type().unwrap();
            // git's own files hold each copy's stat data (folio only reads them).
            if ft.is_dir() && rel == ".git" {
                continue;
            }
            if ft.is_dir() {
                walk(root, &path, out);
            } else if !personal(&rel) {
                let bytes = std::fs::read(&path).unwrap_or_else(|e| format!("<unreadable: {e}>").into_bytes());
                out.insert(rel, mask_ids(&bytes));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Changeset ids (`<24 digits>-<pid>`) differ between runs: masked.
fn mask_ids(bytes: &[u8]) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(bytes) else { return bytes.to_vec() };
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let run = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if run == 24 && b.get(i + 24) == Some(&b'-') {
            let pid = b[i + 25..].iter().take_while(|c| c.is_ascii_digit()).count();
            out.push_str("<changeset>");
            i += 25 + pid;
        } else if run > 0 {
            out.push_str(&text[i..i + run]);
            i += run;
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out.into_bytes()
}

fn temporaries(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                walk(&e.path(), out);
            } else if is_temporary(&name) {
                out.push(e.path().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &mut out);
    out
}

fn undo_records(copy: &Path) -> usize {
    let count = |d: PathBuf| {
        std::fs::read_dir(d)
            .map_or(0, |r| r.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "json")).count())
    };
    count(copy.join(".folio/undo")) + count(copy.join("wiki/.folio/undo")) + count(copy.join(".evolve/folio/undo"))
}

fn journal_left(copy: &Path) -> bool {
    [".folio/journal.jsonl", "wiki/.folio/journal.jsonl", ".evolve/folio/journal.jsonl"]
        .iter()
        .any(|j| copy.join(j).exists())
}

/// A scratch folder for one run, in memory where the system has one: the faults are injected
/// at folio's own file-system seam, so what the disk is changes nothing of what is checked, and
/// thousands of runs do not wait on fsync (the real disk's faults are scripts/fault-sweep's,
/// tests/store/failure.rs's).
fn scratch() -> tempfile::TempDir {
    support::in_memory_tempdir("folio-faults-")
}

/// A fresh copy of the case's source with its setup done: (tempdir, copy root, store path).
fn prepared(case: &Case) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = scratch();
    let copy = dir.path().join("copy");
    copy_tree(&case.source, &copy);
    let store = copy.join(case.store);
    (case.prepare)(&store);
    for s in &case.setup {
        let o = folio(dir.path(), s, &store, None);
        assert!(o.status.success(), "{}: setup {s:?} failed: {}", case.name, String::from_utf8_lossy(&o.stderr));
    }
    (dir, copy, store)
}

#[derive(Default, Debug)]
struct Tally {
    steps: usize,
    cases: usize,
    before: usize,
    after: usize,
    bad: Vec<String>,
}

/// A case traced without a fault: the store before and after, its undo records, its steps.
struct Traced {
    before: BTreeMap<String, Vec<u8>>,
    after: BTreeMap<String, Vec<u8>>,
    records_before: usize,
    records_after: usize,
    steps: usize,
}

fn trace(case: &Case) -> Traced {
    let (dir, copy, store) = prepared(case);
    let before = snapshot(&copy);
    let records_before = undo_records(&copy);
    let traced = folio(dir.path(), &case.args, &store, Some("trace"));
    // `lint --fix` exits 1 when findings remain; 2 is a failure.
    assert!(traced.status.code().is_some_and(|c| c < 2), "{}: {}", case.name, String::from_utf8_lossy(&traced.stderr));
    let after = snapshot(&copy);
    let records_after = undo_records(&copy);
    assert!(before != after, "{}: the command changed nothing, so the sweep would prove nothing", case.name);
    let steps = String::from_utf8_lossy(&traced.stderr).lines().filter(|l| l.starts_with("folio-step ")).count();
    assert!(steps > 0, "{}: no step traced", case.name);
    Traced { before, after, records_before, records_after, steps }
}

/// The faults a case is swept with: a kill before the first step and after each step, and one
/// I/O error per step in turn (all five with `all_errors`). A kill just before step N leaves the
/// disk as a kill just after step N-1 does (every file-system change is a step; only reads and
/// computing lie between two steps), so it is swept for the first step only unless steps are
/// skipped (`quick`) or `all_errors` asks for everything.
fn faults(steps: usize, every: usize, all_errors: bool) -> Vec<String> {
    let mut faults: Vec<String> = Vec::new();
    for n in (1..=steps).filter(|n| n % every == 0 || *n == steps) {
        if n == 1 || every > 1 || all_errors {
            faults.push(format!("kill-before:{n}"));
        }
        faults.push(format!("kill-after:{n}"));
        let errors = ["fail:{n}:ENOSPC", "fail:{n}:EIO", "fail:{n}:EACCES", "fail:{n}:EROFS", "full:{n}"];
        for (i, e) in errors.iter().enumerate() {
            if all_errors || i == n % errors.len() {
                faults.push(e.replace("{n}", &n.to_string()));
            }
        }
    }
    faults
}

/// Where one faulted run left the store.
enum Outcome {
    Before,
    After,
    Neither,
}

/// Runs the case with `fault`, then the next command, and judges what is left: where the
/// store is, and what is wrong (None: nothing).
fn run_faulted(case: &Case, traced: &Traced, fault: &str) -> (Outcome, Option<String>) {
    let (dir, copy, store) = prepared(case);
    let run = folio(dir.path(), &case.args, &store, Some(fault));
    let next = folio(dir.path(), &args(&["log", "{S}"]), &store, None);
    let now = snapshot(&copy);
    let what = format!("{} {fault} (exit {:?})", case.name, run.status.code());
    let records = undo_records(&copy);
    let mut wrong = Vec::new();
    if !next.status.success() {
        wrong.push(format!("the next command failed: {}", String::from_utf8_lossy(&next.stderr).trim()));
    }
    let outcome = if now == traced.before {
        if records != traced.records_before {
            wrong.push(format!("store as before but {records} undo records (had {})", traced.records_before));
        }
        Outcome::Before
    } else if now == traced.after {
        if records != traced.records_after {
            wrong.push(format!("store as after but {records} undo records (expected {})", traced.records_after));
        }
        if run.status.code() == Some(2) {
            // A command may report a failure (exit 2) only if nothing of it stands.
            wrong.push("the command failed, yet its change stands".into());
        }
        Outcome::After
    } else {
        let differ: Vec<&String> = now
            .keys()
            .chain(traced.before.keys())
            .filter(|k| now.get(*k) != traced.before.get(*k) && now.get(*k) != traced.after.get(*k))
            .collect();
        wrong.push(format!("neither before nor after: {differ:?}"));
        Outcome::Neither
    };
    let temps = temporaries(dir.path());
    if !temps.is_empty() {
        wrong.push(format!("temporaries left: {temps:?}"));
    }
    if journal_left(&copy) {
        wrong.push("a journal is left".into());
    }
    (outcome, (!wrong.is_empty()).then(|| format!("{what}: {}", wrong.join("; "))))
}

/// Runs `jobs` on `threads` threads; the results in the jobs' order.
fn in_parallel<J: Sync, R: Send>(jobs: &[J], threads: usize, run: impl Fn(&J) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(jobs.len()));
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let r = run(job);
                    results.lock().unwrap().push((i, r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn every_write_survives_a_kill_or_an_io_error_at_every_step() {
    let mode = std::env::var("FOLIO_FAULT_SWEEP").unwrap_or_default();
    let every = if mode == "quick" { 3 } else { 1 };
    let all_errors = mode == "full";
    // `FOLIO_FAULT_CASES="okf set,okf mv"` sweeps only those (a local run).
    let only = std::env::var("FOLIO_FAULT_CASES").unwrap_or_default();
    let cases: Vec<Case> =
        cases().into_iter().filter(|c| only.is_empty() || only.split(',').any(|o| o.trim() == c.name)).collect();
    // Every faulted run is independent, so they are spread over the threads one by one (a
    // command with many steps does not hold one thread); each waits on fsync much of its
    // time, so twice as many threads as cores keep the cores busy.
    let threads = 2 * std::thread::available_parallelism().map_or(2, |n| n.get());
    let traced = in_parallel(&cases, threads, trace);
    let jobs: Vec<(usize, String)> = traced
        .iter()
        .enumerate()
        .flat_map(|(c, t)| faults(t.steps, every, all_errors).into_iter().map(move |f| (c, f)))
        .collect();
    let outcomes = in_parallel(&jobs, threads, |(c, fault)| run_faulted(&cases[*c], &traced[*c], fault));
    let mut results: Vec<(&str, Tally)> =
        cases.iter().zip(&traced).map(|(c, t)| (c.name, Tally { steps: t.steps, ..Tally::default() })).collect();
    for ((c, _), (outcome, wrong)) in jobs.iter().zip(outcomes) {
        let tally = &mut results[*c].1;
        tally.cases += 1;
        match outcome {
            Outcome::Before => tally.before += 1,
            Outcome::After => tally.after += 1,
            Outcome::Neither => {}
        }
        tally.bad.extend(wrong);
    }
    println!("| command | steps | cases | as before | as after | lost or left anything |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut bad = Vec::new();
    for (name, t) in &results {
        println!("| {name} | {} | {} | {} | {} | {} |", t.steps, t.cases, t.before, t.after, t.bad.len());
        bad.extend(t.bad.iter().cloned());
    }
    assert!(bad.is_empty(), "{} cases lost or left something:\n{}", bad.len(), bad.join("\n"));
}

/// `folio mv` on a disk that fills up after the old file is gone (issue 38: the entity was lost
/// in 12 of 16 fill levels): the rollback cannot write the old file back, so it says so, keeps
/// its journal and the objects it needs, refuses every other write while the disk is full, and
/// the first command that has room finishes it — the entity back, byte for byte.
#[test]
fn a_rollback_the_full_disk_stops_is_kept_and_finished_later() {
    let case = &cases()[2];
    assert_eq!(case.name, "okf mv");
    let (dir, copy, store) = prepared(case);
    let traced = folio(dir.path(), &case.args, &store, Some("trace"));
    let steps = String::from_utf8_lossy(&traced.stderr).lines().filter(|l| l.starts_with("folio-step ")).count();
    let mut stopped = 0;
    for n in 1..=steps {
        let (dir, copy, store) = prepared(case);
        let before = snapshot(&copy);
        let run = folio(dir.path(), &case.args, &store, Some(&format!("full:{n}")));
        let said = String::from_utf8_lossy(&run.stderr);
        if !said.contains("could not be rolled back yet") {
            continue;
        }
        stopped += 1;
        assert_eq!(run.status.code(), Some(2), "full:{n}: {said}");
        assert!(journal_left(&copy), "full:{n}: the journal is kept: {said}");
        // Still full: another write is refused, naming why, and changes nothing.
        let set = args(&["set", "{S}", "apis/refunds", "status", "deprecated"]);
        let refused = folio(dir.path(), &set, &store, Some("full:1"));
        let why = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "full:{n}, then set: {why}");
        assert!(why.contains("could not be rolled back yet"), "full:{n}, then set: {why}");
        assert!(journal_left(&copy), "the journal stays until the rollback is done");
        // Room again: the next command finishes the rollback; nothing is left to undo.
        let next = folio(dir.path(), &args(&["log", "{S}"]), &store, None);
        assert!(next.status.success(), "{}", String::from_utf8_lossy(&next.stderr));
        assert!(String::from_utf8_lossy(&next.stderr).contains("rolled back"), "the recovery says what it did");
        assert_eq!(snapshot(&copy), before, "full:{n}: the store is as it was before the mv");
        assert!(!journal_left(&copy) && temporaries(dir.path()).is_empty());
        let undo = folio(dir.path(), &args(&["undo", "{S}"]), &store, None);
        assert!(String::from_utf8_lossy(&undo.stderr).contains("nothing to undo"), "{undo:?}");
    }
    assert!(stopped > 0, "no fill level stopped the rollback, so this proved nothing");
    drop((dir, copy));
}
