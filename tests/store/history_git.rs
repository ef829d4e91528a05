//! `folio history`, `blame` and `restore` (issue 20): an entity's past from git (following
//! renames), the store's own log and folio's journal. The repositories are built here with the
//! real `git` (test setup only; folio reads them with gitoxide), each in its own temp dir with
//! its own HOME, no global config, fixed author dates and an odd time zone; folio's answers are
//! checked against `git log --follow` and `git blame --porcelain` on the same repository.
use crate::support;
use support::*;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The zone every command runs in: folio's times must not depend on it.
const TZ: &str = "Pacific/Chatham";

use crate::support::git as git_support;
use git_support::{available as git_available, blame_commits as git_blame};

/// Skip (loudly) where git is missing; CI machines have it.
macro_rules! need_git {
    () => {
        if !git_available() {
            eprintln!("SKIPPED: the `git` binary is not installed; these tests build their repositories with it");
            return;
        }
    };
}

/// Run git in `dir` as `who` at `date`, in the tests' time zone.
fn git_at(dir: &Path, who: &str, date: &str, args: &[&str]) -> String {
    let mut c = git_support::command_as(dir, who, date, args);
    c.env("TZ", TZ);
    git_support::stdout(c, args)
}

fn git(dir: &Path, args: &[&str]) -> String {
    git_at(dir, "Setup", "2026-01-01T00:00:00Z", args)
}

/// folio with its own HOME, caches and time zone.
fn run(args: &[&str]) -> Output {
    let own = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("HOME", own.path())
        .env("TZ", TZ)
        .env("USER", "tester")
        .env("XDG_DATA_HOME", own.path().join("data"))
        .env("XDG_CACHE_HOME", own.path().join("cache"))
        .env("XDG_STATE_HOME", own.path().join("state"))
        .env("XDG_CONFIG_HOME", own.path().join("config"))
        .env_remove("FOLIO_CACHE_DIR")
        .env_remove("FOLIO_STATE_DIR")
        .env_remove("GIT_DIR")
        .output()
        .expect("folio runs")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).unwrap_or_else(|e| panic!("folio {args:?}: {e}"))
}

const ALPHA_1: &str = "---\ntitle: Alpha\nauthor: agent:scout\n---\n# Alpha\n\nRun the nightly backup at 01:00.\nKeep seven copies.\nCheck the disk first.\n";
const ALPHA_2: &str = "---\ntitle: Alpha\nauthor: agent:scout\n---\n# Alpha\n\nRun the nightly backup at 02:30.\nKeep seven copies.\nCheck the disk first.\nMail the on-call when it fails.\n";
const ALPHA_4: &str = "---\ntitle: Alpha backups\nauthor: agent:scout\n---\n# Alpha\n\nRun the nightly backup at 02:30.\nKeep seven copies.\nCheck the disk first.\nMail the on-call when it fails.\n";
const ALPHA_7: &str = "---\ntitle: Alpha backups\nauthor: agent:tidy\n---\n# Alpha\n\nRun the nightly backup at 02:30.\nKeep nine copies.\nCheck the disk first.\nMail the on-call when it fails.\nRotate the keys monthly.\n";

/// A vault store at the top of a repository (or in `sub` of a larger one): alpha is edited by
/// two authors, renamed as is, renamed with an edit, edited again; gamma is deleted; beta is
/// edited in a commit that leaves alpha alone. Returns (repo, store root, commit ids c1..c7).
fn build(t: &Path, sub: &str) -> (PathBuf, PathBuf, Vec<String>) {
    let repo = t.join("repo");
    let store = if sub.is_empty() { repo.clone() } else { repo.join(sub) };
    fs::create_dir_all(store.join("notes")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    if !sub.is_empty() {
        write(&repo, "tools/build.sh", "echo build\n");
    }
    write(&store, "notes/alpha.md", ALPHA_1);
    write(&store, "notes/beta.md", "---\ntitle: Beta\n---\nfirst\n");
    write(&store, "notes/gamma.md", "---\ntitle: Gamma\n---\nGamma was here.\nAnd said so.\n");
    let mut ids = Vec::new();
    let mut commit = |who: &str, day: u32, msg: &str| {
        let date = format!("2026-01-0{day}T10:00:00+05:00");
        git_at(&repo, who, &date, &["add", "-A"]);
        git_at(&repo, who, &date, &["commit", "-q", "-m", msg]);
        ids.push(git(&repo, &["rev-parse", "HEAD"]).trim().to_string());
    };
    commit("Ann", 1, "add notes");
    write(&store, "notes/alpha.md", ALPHA_2);
    commit("Bob", 2, "alpha: later backup, mail on failure");
    fs::create_dir_all(store.join("notes/renamed")).unwrap();
    fs::rename(store.join("notes/alpha.md"), store.join("notes/renamed/alpha.md")).unwrap();
    commit("Ann", 3, "move alpha");
    fs::remove_file(store.join("notes/renamed/alpha.md")).unwrap();
    write(&store, "notes/alpha-final.md", ALPHA_4);
    commit("Bob", 4, "rename alpha and retitle it");
    fs::remove_file(store.join("notes/gamma.md")).unwrap();
    commit("Ann", 5, "drop gamma");
    write(&store, "notes/beta.md", "---\ntitle: Beta\n---\nsecond\n");
    commit("Bob", 6, "beta only");
    write(&store, "notes/alpha-final.md", ALPHA_7);
    commit("Ann", 7, "alpha: nine copies, rotate keys");
    (repo, store, ids)
}

/// Every file under `.git`, with its bytes: reading history must leave it exactly so.
fn git_dir(repo: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    tree(&repo.join(".git"), &[])
}

fn commits(h: &Value) -> Vec<String> {
    h["versions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["source"] == "commit")
        .map(|v| v["commit"].as_str().unwrap().to_string())
        .collect()
}

fn git_log_follow(repo: &Path, file: &str) -> Vec<String> {
    git(repo, &["log", "--follow", "--format=%H", "--", file]).lines().map(str::to_string).collect()
}

#[test]
fn history_follows_renames_and_agrees_with_git_log_follow() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, store, c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    let before = git_dir(&repo);
    let h = json(&["history", r, "notes/alpha-final", "--json"]);
    assert_eq!(commits(&h), git_log_follow(&repo, "notes/alpha-final.md"));
    assert_eq!(commits(&h), [c[6].clone(), c[3].clone(), c[2].clone(), c[1].clone(), c[0].clone()]);
    let v = h["versions"].as_array().unwrap();
    assert_eq!(h["git"], true);
    assert_eq!(h["shallow"], false);
    // Two authors, as git records them; the agent the entity's own frontmatter names.
    let authors: Vec<&str> = v.iter().map(|v| v["author"].as_str().unwrap()).collect();
    assert_eq!(authors, ["Ann", "Bob", "Ann", "Bob", "Ann"]);
    assert_eq!(v[0]["agent"], "agent:tidy");
    assert_eq!(v[1]["agent"], "agent:scout");
    // Times in UTC whatever the zone the commit or the reader is in.
    assert_eq!(v[0]["when"], "2026-01-07T05:00:00Z");
    let status: Vec<&str> = v.iter().map(|v| v["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["modified", "renamed", "renamed", "modified", "added"]);
    assert_eq!(v[1]["renamed_from"], "notes/renamed/alpha.md");
    assert_eq!(v[2]["renamed_from"], "notes/alpha.md");
    assert_eq!(v[4]["path"], "notes/alpha.md");
    // One-line summaries: fields changed, lines added and removed.
    assert_eq!(v[0]["fields_changed"], serde_json::json!(["author"]));
    assert_eq!((v[0]["lines_added"].as_u64(), v[0]["lines_removed"].as_u64()), (Some(3), Some(2)));
    assert_eq!(v[0]["summary"], "author; +3 -2");
    assert_eq!(v[1]["summary"], "title; +1 -1");
    assert_eq!(v[2]["summary"], "+0 -0");
    // The text form names the same versions.
    let text = ok(&["history", r, "notes/alpha-final"]);
    assert!(text.lines().next().unwrap().starts_with(&c[6][..7]), "{text}");
    assert!(text.contains("renamed from notes/alpha.md"), "{text}");
    assert_eq!(git_dir(&repo), before, "reading history wrote into .git");
}

#[test]
fn blame_attributes_each_line_as_git_blame_does() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, store, c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    let before = git_dir(&repo);
    let b = json(&["blame", r, "notes/alpha-final", "--json"]);
    let lines = b["lines"].as_array().unwrap();
    let ours: Vec<String> = lines.iter().map(|l| l["commit"].as_str().unwrap().to_string()).collect();
    assert_eq!(ours, git_blame(&repo, "notes/alpha-final.md"));
    assert_eq!(lines.len(), ALPHA_7.lines().count());
    // The first lines come from the first commit, through both renames.
    assert_eq!(lines[0]["commit"].as_str(), Some(c[0].as_str()));
    assert_eq!(lines[1]["text"], "title: Alpha backups");
    assert_eq!(lines[1]["commit"].as_str(), Some(c[3].as_str()));
    assert_eq!(lines[6]["text"], "Run the nightly backup at 02:30.");
    assert_eq!(lines[6]["author"], "Bob");
    assert_eq!(git_dir(&repo), before, "blame wrote into .git");
    // An uncommitted line belongs to the file on disk, as git's "Not Committed Yet".
    fs::write(store.join("notes/alpha-final.md"), format!("{ALPHA_7}Uncommitted line.\n")).unwrap();
    let b = json(&["blame", r, "notes/alpha-final", "--json"]);
    let last = b["lines"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["rev"], "worktree");
    assert_eq!(last["text"], "Uncommitted line.");
    let porcelain = git_blame(&repo, "notes/alpha-final.md");
    assert_eq!(porcelain.last().map(String::as_str), Some("0000000000000000000000000000000000000000"));
}

#[test]
fn blame_cuts_lines_at_newlines_alone_as_git_does() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, store, _c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    // A lone carriage return is inside a line for git, not the end of one.
    write(&store, "notes/cr.md", "---\ntitle: CR\n---\none\rtwo\nthree\n");
    git_at(&repo, "Ann", "2026-01-08T10:00:00Z", &["add", "-A"]);
    git_at(&repo, "Ann", "2026-01-08T10:00:00Z", &["commit", "-q", "-m", "cr"]);
    write(&store, "notes/cr.md", "---\ntitle: CR\n---\none\rtwo\nTHREE\nfour\n");
    git_at(&repo, "Bob", "2026-01-09T10:00:00Z", &["commit", "-q", "-am", "cr again"]);
    let b = json(&["blame", r, "notes/cr", "--json"]);
    let lines = b["lines"].as_array().unwrap();
    let ours: Vec<String> = lines.iter().map(|l| l["commit"].as_str().unwrap().to_string()).collect();
    assert_eq!(ours, git_blame(&repo, "notes/cr.md"));
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[3]["text"], "one\rtwo");
    assert_eq!(lines[3]["author"], "Ann");
    assert_eq!(lines[4]["author"], "Bob");
}

#[test]
fn diff_between_two_versions_is_word_level() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (_repo, store, c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    let range = format!("{}..{}", &c[0][..7], &c[1][..8]);
    let text = ok(&["history", r, "notes/alpha-final", "--diff", &range]);
    assert!(text.contains("backup at [-01:00.-]{+02:30.+}"), "{text}");
    assert!(text.contains("{+Mail the on-call when it fails.\n+}") || text.contains("{+Mail"), "{text}");
    let j = json(&["history", r, "notes/alpha-final", "--diff", &range, "--json"]);
    let removed: Vec<&str> = j["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["op"] == "removed")
        .map(|o| o["text"].as_str().unwrap())
        .collect();
    assert_eq!(removed, ["01:00."]);
    let bad = run(&["history", r, "notes/alpha-final", "--diff", "nope..worktree"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no version `nope`"));
}

#[test]
fn deleted_entities_are_listed_and_restore_brings_one_back_undoably() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, store, c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    let d = json(&["history", r, "--deleted", "--json"]);
    let paths: Vec<&str> = d.as_array().unwrap().iter().map(|x| x["path"].as_str().unwrap()).collect();
    // Renamed files are not deleted ones: only gamma.
    assert_eq!(paths, ["notes/gamma.md"]);
    assert_eq!(d[0]["commit"].as_str(), Some(c[4].as_str()));
    assert_eq!(d[0]["author"], "Ann");
    let index_before = fs::read(repo.join(".git/index")).unwrap();
    let h = json(&["history", r, "notes/gamma.md", "--json"]);
    assert_eq!(h["id"], "notes/gamma");
    assert_eq!(h["versions"][0]["status"], "deleted");
    let out = ok(&["restore", r, "notes/gamma.md", "last", "--as", "human:ann"]);
    assert!(out.contains("wrote notes/gamma.md"), "{out}");
    let want = git(&repo, &["show", &format!("{}:notes/gamma.md", c[0])]);
    assert_eq!(fs::read_to_string(store.join("notes/gamma.md")).unwrap(), want);
    assert_eq!(fs::read(repo.join(".git/index")).unwrap(), index_before, "restore touched git's index");
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]).trim(), c[6], "restore made a commit");
    // Logged in the store's log, so the entity's history shows the restore.
    let h = json(&["history", r, "notes/gamma", "--json"]);
    assert_eq!(h["versions"][0]["source"], "worktree");
    assert!(h["versions"].as_array().unwrap().iter().any(|v| v["kind"] == "restore"), "{h}");
    assert!(json(&["history", r, "--deleted", "--json"]).as_array().unwrap().is_empty());
    ok(&["undo", r, "--as", "human:ann"]);
    assert!(!store.join("notes/gamma.md").exists(), "undo takes the restored file away again");
}

#[test]
fn restore_is_byte_exact_and_undo_brings_back_the_bytes_before() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, store, c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    // CRLF and a missing final newline on disk: undo must give back exactly these bytes.
    let now = b"---\r\ntitle: Alpha backups\r\n---\r\nlocal edit, not committed".to_vec();
    fs::write(store.join("notes/alpha-final.md"), &now).unwrap();
    let index_before = fs::read(repo.join(".git/index")).unwrap();
    let dry = ok(&["restore", r, "notes/alpha-final", &c[1][..7], "--dry-run"]);
    assert!(dry.contains("+Run the nightly backup at 02:30."), "{dry}");
    assert_eq!(fs::read(store.join("notes/alpha-final.md")).unwrap(), now, "a dry run writes nothing");
    ok(&["restore", r, "notes/alpha-final", &c[1][..7], "--as", "human:ann"]);
    assert_eq!(fs::read_to_string(store.join("notes/alpha-final.md")).unwrap(), ALPHA_2);
    assert_eq!(fs::read(repo.join(".git/index")).unwrap(), index_before, "restore touched git's index");
    let again = ok(&["restore", r, "notes/alpha-final", &c[1][..7], "--as", "human:ann"]);
    assert!(again.contains("nothing to change"), "{again}");
    ok(&["undo", r, "--as", "human:ann"]);
    assert_eq!(fs::read(store.join("notes/alpha-final.md")).unwrap(), now);
    // A log event is no version to restore.
    let h = json(&["history", r, "notes/alpha-final", "--json"]);
    let event = h["versions"].as_array().unwrap().iter().find(|v| v["source"] == "log").unwrap()["rev"].clone();
    let o = run(&["restore", r, "notes/alpha-final", event.as_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("log event"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_detached_head_and_uncommitted_changes() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, store, c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    git(&repo, &["checkout", "-q", "--detach", &c[5]]);
    fs::write(store.join("notes/alpha-final.md"), format!("{ALPHA_4}One more line.\n")).unwrap();
    let before = git_dir(&repo);
    let h = json(&["history", r, "notes/alpha-final", "--json"]);
    let v = h["versions"].as_array().unwrap();
    assert_eq!(v[0]["source"], "worktree");
    assert_eq!(v[0]["status"], "modified");
    assert_eq!(v[0]["summary"], "+1 -0");
    assert_eq!(commits(&h), git_log_follow(&repo, "notes/alpha-final.md"));
    assert_eq!(commits(&h)[0], c[3], "HEAD is c6: c7 is not in its past");
    assert_eq!(git_dir(&repo), before, "reading history with a dirty tree wrote into .git");
}

#[test]
fn a_shallow_clone_stops_at_its_boundary() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, _store, c) = build(t.path(), "");
    let shallow = t.path().join("shallow");
    let url = format!("file://{}", repo.display());
    git(t.path(), &["clone", "-q", "--depth", "2", &url, shallow.to_str().unwrap()]);
    let s = shallow.to_str().unwrap();
    let h = json(&["history", s, "notes/alpha-final", "--json"]);
    assert_eq!(h["shallow"], true);
    assert_eq!(commits(&h), git_log_follow(&shallow, "notes/alpha-final.md"));
    // c6 is the boundary: it holds the file with no parent, so it is where the file appears.
    assert_eq!(commits(&h), [c[6].clone(), c[5].clone()]);
    assert_eq!(h["versions"][1]["status"], "added");
    let b = json(&["blame", s, "notes/alpha-final", "--json"]);
    let ours: Vec<String> =
        b["lines"].as_array().unwrap().iter().map(|l| l["commit"].as_str().unwrap().into()).collect();
    assert_eq!(ours, git_blame(&shallow, "notes/alpha-final.md"));
}

#[test]
fn a_store_in_a_subfolder_of_a_larger_repository() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, store, c) = build(t.path(), "kb/memory");
    let r = store.to_str().unwrap();
    let h = json(&["history", r, "notes/alpha-final", "--json"]);
    assert_eq!(h["prefix"], "kb/memory");
    assert_eq!(h["path"], "notes/alpha-final.md");
    assert_eq!(commits(&h), git_log_follow(&repo, "kb/memory/notes/alpha-final.md"));
    assert_eq!(commits(&h).len(), 5);
    let v = h["versions"].as_array().unwrap();
    assert_eq!(v[2]["renamed_from"], "notes/alpha.md", "paths are the store's, not the repository's");
    let b = json(&["blame", r, "notes/alpha-final", "--json"]);
    let ours: Vec<String> =
        b["lines"].as_array().unwrap().iter().map(|l| l["commit"].as_str().unwrap().into()).collect();
    assert_eq!(ours, git_blame(&repo, "kb/memory/notes/alpha-final.md"));
    let d = json(&["history", r, "--deleted", "--json"]);
    assert_eq!(d[0]["path"], "notes/gamma.md");
    assert_eq!(d[0]["commit"].as_str(), Some(c[4].as_str()));
}

#[test]
fn a_store_outside_git_has_its_file_and_its_log() {
    let t = tempfile::tempdir().unwrap();
    let store = t.path().join("plain");
    write(&store, "notes/alpha.md", ALPHA_1);
    let r = store.to_str().unwrap();
    let h = json(&["history", r, "notes/alpha", "--json"]);
    assert_eq!(h["git"], false);
    let v = h["versions"].as_array().unwrap();
    assert_eq!(v.len(), 1, "{h}");
    assert_eq!(v[0]["source"], "worktree");
    ok(&["set", r, "notes/alpha", "status", "draft", "--as", "human:ann"]);
    let h = json(&["history", r, "notes/alpha", "--json"]);
    let v = h["versions"].as_array().unwrap();
    assert_eq!(v.len(), 2, "{h}");
    assert_eq!(v[1]["kind"], "set");
    assert_eq!(v[1]["author"], "human:ann");
    assert!(json(&["history", r, "--deleted", "--json"]).as_array().unwrap().is_empty());
    let b = json(&["blame", r, "notes/alpha", "--json"]);
    assert!(b["lines"].as_array().unwrap().iter().all(|l| l["rev"] == "worktree"));
}

#[test]
fn history_lists_the_log_events_that_name_the_entity_and_only_those() {
    let (_d, root) = writable_scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    let events = |h: &Value| -> Vec<Value> {
        h["versions"].as_array().unwrap().iter().filter(|v| v["source"] == "log").cloned().collect()
    };
    let before = events(&json(&["history", r, "tables/orders", "--json"]));
    ok(&["set", r, "tables/orders", "status", "draft", "--as", "human:ann"]);
    let h = json(&["history", r, "tables/orders", "--json"]);
    assert_eq!(h["id"], "tables/orders");
    let after = events(&h);
    assert_eq!(after.len(), before.len() + 1, "{h}");
    // Newest first: the set just made leads.
    assert_eq!(after[0]["kind"], "set");
    assert!(after[0]["summary"].as_str().unwrap().contains("set `status` to `draft` (human:ann)"), "{h}");
    assert!(after.iter().all(|v| v["log"] == "log.md"));
}

#[test]
fn merges_are_walked_as_git_log_follow_walks_them() {
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (repo, store, _c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    // A side branch edits alpha and beta; main edits alpha elsewhere; the merge takes both.
    git(&repo, &["checkout", "-q", "-b", "side"]);
    write(&store, "notes/alpha-final.md", ALPHA_7.replace("Check the disk first.", "Check the disk twice."));
    write(&store, "notes/beta.md", "---\ntitle: Beta\n---\nthird\n");
    git_at(&repo, "Bob", "2026-01-08T10:00:00Z", &["commit", "-q", "-am", "side: disk twice"]);
    git(&repo, &["checkout", "-q", "main"]);
    write(&store, "notes/alpha-final.md", ALPHA_7.replace("Rotate the keys monthly.", "Rotate the keys weekly."));
    git_at(&repo, "Ann", "2026-01-09T10:00:00Z", &["commit", "-q", "-am", "main: weekly"]);
    git_at(&repo, "Ann", "2026-01-10T10:00:00Z", &["merge", "-q", "--no-edit", "side"]);
    // A merge that leaves alpha as main had it is no version of alpha.
    git(&repo, &["checkout", "-q", "-b", "other", "HEAD~1"]);
    write(&store, "notes/beta.md", "---\ntitle: Beta\n---\nfourth\n");
    git_at(&repo, "Bob", "2026-01-11T10:00:00Z", &["commit", "-q", "-am", "other: beta only"]);
    git(&repo, &["checkout", "-q", "main"]);
    git_at(&repo, "Ann", "2026-01-12T10:00:00Z", &["merge", "-q", "--no-edit", "-X", "ours", "other"]);
    let h = json(&["history", r, "notes/alpha-final", "--json"]);
    // git log --follow leaves merges out; folio lists the one whose file differs from both sides.
    let merged: Vec<&Value> = h["versions"].as_array().unwrap().iter().filter(|v| v["status"] == "merged").collect();
    assert_eq!(merged.len(), 1, "{h}");
    assert_eq!(merged[0]["commit"].as_str().unwrap(), git(&repo, &["rev-parse", "HEAD~1"]).trim());
    let listed: Vec<String> = commits(&h).into_iter().filter(|c| c != merged[0]["commit"].as_str().unwrap()).collect();
    assert_eq!(listed, git_log_follow(&repo, "notes/alpha-final.md"));
    let b = json(&["blame", r, "notes/alpha-final", "--json"]);
    let ours: Vec<String> =
        b["lines"].as_array().unwrap().iter().map(|l| l["commit"].as_str().unwrap().into()).collect();
    assert_eq!(ours, git_blame(&repo, "notes/alpha-final.md"));
    // The same answers once git has written a commit-graph (the walk takes commits from it).
    git(&repo, &["commit-graph", "write", "--reachable"]);
    assert!(repo.join(".git/objects/info/commit-graph").is_file());
    assert_eq!(json(&["history", r, "notes/alpha-final", "--json"]), h);
    assert_eq!(json(&["blame", r, "notes/alpha-final", "--json"]), b);
}

#[test]
fn a_history_read_with_reports_lists_the_versions_as_the_walk_finds_them() {
    use folio::store::Store;

    use folio::store::history::{self, History, Progress};
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (_repo, store, c) = build(t.path(), "");
    fs::write(store.join("notes/alpha-final.md"), ALPHA_7.replace("monthly", "weekly")).unwrap();
    let s = Store::load(&store, folio::store::dialect::vault::KIND, "test".into());
    let idx = s.find("notes/alpha-final").expect("alpha is in the store");
    let mut reports: Vec<History> = Vec::new();
    let mut report = |h: History| reports.push(h);
    let progress = Progress { every: std::time::Duration::ZERO, report: &mut report };
    let answer = history::of_entity_reporting(&s, idx, Some(progress)).unwrap();
    // One report per commit found (the uncommitted change is known from the start), then one at
    // the walk's end; each lists more, newest first, without contents or summaries yet.
    let lens: Vec<usize> = reports.iter().map(|h| h.versions.len()).collect();
    assert_eq!(lens, [2, 3, 4, 5, 6, 6]);
    let revs = |h: &History| h.versions.iter().map(|v| v.rev.clone()).collect::<Vec<_>>();
    let last = revs(reports.last().unwrap());
    let want: Vec<String> =
        ["worktree".to_string()].into_iter().chain([6, 3, 2, 1, 0].map(|i| c[i][..7].to_string())).collect();
    assert_eq!(last, want);
    for r in &reports {
        assert!(!r.complete && r.versions.iter().all(|v| !v.has_content() && v.lines_added == 0));
        assert_eq!(revs(r), last[..r.versions.len()]);
    }
    // The answer is what a read without reports gives, contents included.
    let plain = history::of_entity(&s, idx).unwrap();
    assert!(answer.complete && plain.complete);
    assert_eq!(serde_json::to_value(&answer).unwrap(), serde_json::to_value(&plain).unwrap());
    let bytes = |h: &History| h.versions.iter().map(|v| v.bytes.clone()).collect::<Vec<_>>();
    assert_eq!(bytes(&answer), bytes(&plain));
    assert_eq!(revs(&answer)[..6], want[..]);
    assert_eq!(answer.versions[0].lines_added, 1);
}

#[test]
fn a_streamed_history_emits_the_answer_version_by_version_in_its_order() {
    use folio::store::Store;

    use folio::store::history::{self, Version};
    need_git!();
    let t = tempfile::tempdir().unwrap();
    let (_repo, store, c) = build(t.path(), "");
    let r = store.to_str().unwrap();
    // An uncommitted edit through folio: a version on disk and an event in the journal.
    ok(&["set", r, "notes/alpha-final", "status", "draft", "--as", "human:ann"]);
    let s = Store::load(&store, folio::store::dialect::vault::KIND, "test".into());
    let idx = s.find("notes/alpha-final").expect("alpha is in the store");
    let mut emitted: Vec<Version> = Vec::new();
    let answer = history::of_entity_streaming(&s, idx, &mut |v| emitted.push(v.clone())).unwrap();
    let plain = history::of_entity(&s, idx).unwrap();
    let as_json = |v: &[Version]| serde_json::to_value(v).unwrap();
    // Finished as emitted (summaries, agents, contents), in the answer's order: the same list a
    // read without streaming gives.
    assert_eq!(as_json(&emitted), as_json(&answer.versions));
    assert_eq!(as_json(&answer.versions), as_json(&plain.versions));
    let bytes = |v: &[Version]| v.iter().map(|v| v.bytes.clone()).collect::<Vec<_>>();
    assert_eq!(bytes(&emitted), bytes(&plain.versions));
    let revs: Vec<&str> = emitted.iter().map(|v| v.rev.as_str()).collect();
    assert_eq!(revs[0], "worktree");
    assert!(emitted.iter().any(|v| v.kind.as_deref() == Some("set")), "{revs:?}");
    let oldest = emitted.iter().rfind(|v| v.commit.is_some()).unwrap();
    assert_eq!(oldest.commit.as_deref(), Some(c[0].as_str()));
    assert_eq!(oldest.change_line(), format!("title, author; +{} -0", ALPHA_1.lines().count()));
    assert_eq!(emitted[0].fields_changed, ["status"]);
    // `folio history` prints these rows, one per version, as they come.
    let text = ok(&["history", r, "notes/alpha-final"]);
    assert_eq!(text.lines().count(), emitted.len(), "{text}");
    assert!(text.lines().next().unwrap().starts_with("worktree"), "{text}");
}
