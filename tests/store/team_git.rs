//! Team state through git: two reviewers decide in two clones of an OKF store, commit, and
//! one merges the other with plain `git merge`. The review ledger and the store's log merge
//! without a conflict (`merge=union`); decisions on different entities both hold; an approve
//! and a veto on the same entity show in the inbox as a conflict with both verdicts. What
//! `git status` shows after folio's writes is only what the README says to commit.
use crate::support;
use crate::support::git as git_support;
use support::*;

use std::path::{Path, PathBuf};

/// The real git, with no global or system config (the test sets what it needs per repo).
fn git(dir: &Path, args: &[&str]) -> (bool, String) {
    let o = git_support::command(dir, args).output().expect("git runs");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    (o.status.success(), text)
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let (ok, text) = git(dir, args);
    assert!(ok, "git {args:?} in {}: {text}", dir.display());
    text
}

use git_support::available as git_available;

fn as_user(dir: &Path, name: &str) {
    git_ok(dir, &["config", "user.name", name]);
    git_ok(dir, &["config", "user.email", &format!("{name}@example.com")]);
}

/// An OKF store committed in `origin`, cloned as `a` and `b`.
fn two_clones(t: &Path) -> (PathBuf, PathBuf) {
    let origin = t.join("origin");
    copy_tree(&corpus("okf-v0.2/acme_retail"), &origin);
    git_ok(&origin, &["init", "-q", "-b", "main"]);
    as_user(&origin, "origin");
    git_ok(&origin, &["add", "-A"]);
    git_ok(&origin, &["commit", "-q", "-m", "store"]);
    let (a, b) = (t.join("a"), t.join("b"));
    for (clone, who) in [(&a, "ann"), (&b, "bob")] {
        git_ok(t, &["clone", "-q", origin.to_str().unwrap(), clone.to_str().unwrap()]);
        as_user(clone, who);
    }
    (a, b)
}

fn ok(args: &[&str]) -> String {
    let o = folio(args);
    assert_eq!(o.status.code(), Some(0), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

/// Every path `git status` reports must be one the README says to commit.
fn only_files_to_commit(repo: &Path) {
    let status = git_ok(repo, &["status", "--porcelain", "--untracked-files=all"]);
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    for line in status.lines() {
        let path = line[3..].trim();
        let allowed = if let Some(state) = path.strip_prefix(".folio/") {
            let named = [".gitignore", ".gitattributes", "config.toml", "review/verdicts.jsonl"];
            named.contains(&state) || state.starts_with("review/approved/")
        } else {
            // The store's own files (entities, catalogs, its log) and the log's merge rule.
            path.ends_with(".md") || path == ".gitattributes"
        };
        assert!(allowed, "`{path}` is not a file to commit:\n{status}");
    }
    for named in
        [".folio/review/verdicts.jsonl", ".folio/review/approved/", ".folio/.gitignore", ".folio/.gitattributes"]
    {
        assert!(readme.contains(named), "the README names {named} among the files to commit");
    }
}

fn commit_all(repo: &Path, msg: &str) {
    git_ok(repo, &["add", "-A"]);
    git_ok(repo, &["commit", "-q", "-m", msg]);
}

/// `git merge` of b's main into a, plainly: it must merge without a conflict.
fn merge_b_into_a(a: &Path, b: &Path) -> String {
    git_ok(a, &["fetch", "-q", b.to_str().unwrap(), "main"]);
    let (merged, text) = git(a, &["merge", "--no-edit", "FETCH_HEAD"]);
    assert!(merged, "git merge conflicts:\n{text}\n{}", git(a, &["diff"]).1);
    text
}

fn inbox(root: &Path) -> serde_json::Value {
    folio_json(&["review", root.to_str().unwrap(), "list", "--json"])
}

fn queued(v: &serde_json::Value) -> Vec<String> {
    v["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn decisions_in_two_clones_merge_without_a_conflict() {
    if !git_available() {
        eprintln!("SKIPPED: git is not installed");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (a, b) = two_clones(t.path());
    let (ra, rb) = (a.to_str().unwrap(), b.to_str().unwrap());
    // Both were verified by a person after their last change (OKF `verified`), so neither is
    // queued; a decision on each still lands, and is merged.
    assert!(queued(&inbox(&a)).contains(&"skills/run-on-bq".to_string()));
    ok(&["review", ra, "approve", "metrics/revenue", "--as", "human:ann"]);
    ok(&["review", rb, "veto", "tables/orders", "--reason", "wrong grain", "--as", "human:bob"]);
    // A few more of folio's actions: a baseline of one path, an undo, a set.
    ok(&["review", rb, "baseline", "--filter", "path:skills/", "--as", "human:bob"]);
    ok(&["undo", rb, "--as", "human:bob"]);
    only_files_to_commit(&a);
    only_files_to_commit(&b);
    commit_all(&a, "ann reviews");
    commit_all(&b, "bob reviews");
    merge_b_into_a(&a, &b);
    let list = inbox(&a);
    let ids = queued(&list);
    assert!(!ids.contains(&"metrics/revenue".to_string()) && !ids.contains(&"tables/orders".to_string()), "{ids:?}");
    let log = ok(&["log", ra]);
    assert!(log.contains("human:ann") && log.contains("human:bob"), "both decisions are in the log:\n{log}");
    let ledger = std::fs::read_to_string(a.join(".folio/review/verdicts.jsonl")).unwrap();
    assert!(ledger.contains("\"verdict\":\"approve\"") && ledger.contains("\"verdict\":\"veto\""), "{ledger}");
    assert!(git_ok(&a, &["status", "--porcelain"]).trim().is_empty(), "the merge left nothing behind");
}

#[test]
fn an_approve_and_a_veto_on_one_entity_show_as_a_conflict() {
    if !git_available() {
        eprintln!("SKIPPED: git is not installed");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (a, b) = two_clones(t.path());
    let (ra, rb) = (a.to_str().unwrap(), b.to_str().unwrap());
    ok(&["review", ra, "approve", "metrics/revenue", "--as", "human:ann"]);
    ok(&["review", rb, "veto", "metrics/revenue", "--reason", "double counts refunds", "--as", "human:bob"]);
    commit_all(&a, "ann approves");
    commit_all(&b, "bob vetoes");
    // Both wrote the entity's frontmatter (OKF: `verified`, `status`/`vetoed`): git stops on that
    // file alone. The ledger and the log merge line by line; the person settles the file.
    git_ok(&a, &["fetch", "-q", rb, "main"]);
    let (merged, text) = git(&a, &["merge", "--no-edit", "FETCH_HEAD"]);
    assert!(!merged, "{text}");
    let conflicted = git_ok(&a, &["diff", "--name-only", "--diff-filter=U"]);
    assert_eq!(conflicted.trim(), "metrics/revenue.md", "{text}");
    git_ok(&a, &["checkout", "--theirs", "metrics/revenue.md"]);
    commit_all(&a, "merge bob");
    let list = inbox(&a);
    let item = list["items"].as_array().unwrap().iter().find(|i| i["id"] == "metrics/revenue");
    let item = item.unwrap_or_else(|| panic!("the disagreement is in the inbox: {list}"));
    assert_eq!(item["reasons"][0], "verdict-conflict", "{item}");
    assert_eq!(item["priority"], 1, "{item}");
    let verdicts: Vec<&str> = item["verdicts"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(verdicts.len(), 2, "{verdicts:?}");
    assert!(verdicts.iter().any(|v| v.starts_with("approve by human:ann")), "{verdicts:?}");
    assert!(verdicts.iter().any(|v| v.starts_with("veto by human:bob")), "{verdicts:?}");
    // A copy outside git (whose inbox is listed item by item as written, not held for git's
    // authors) lists the disagreement alike.
    let plain = t.path().join("plain");
    copy_tree(&a, &plain);
    std::fs::remove_dir_all(plain.join(".git")).unwrap();
    let copied = inbox(&plain);
    let same = copied["items"].as_array().unwrap().iter().find(|i| i["id"] == "metrics/revenue");
    let same = same.unwrap_or_else(|| panic!("the disagreement is in the copy's inbox: {copied}"));
    assert_eq!((&same["reasons"], &same["verdicts"]), (&item["reasons"], &item["verdicts"]), "{same}");
    // The TUI's inbox is built the same way: the detail names both verdicts.
    let mut app = support::tui::inbox::open(&a, (160, 45));
    support::tui::inbox::go_to(&mut app, "metrics/revenue");
    let screen = support::tui::text(&support::tui::render(&app));
    assert!(screen.contains("verdict-conflict"), "{screen}");
    assert!(screen.contains("approve by human:ann") && screen.contains("veto by human:bob"), "{screen}");
    let log = ok(&["log", ra]);
    assert!(log.contains("human:ann") && log.contains("human:bob"), "{log}");
    // A person settles it: a decision made after seeing both ends the conflict.
    ok(&["review", ra, "veto", "metrics/revenue", "--reason", "agreed with bob", "--as", "human:ann"]);
    assert!(!queued(&inbox(&a)).contains(&"metrics/revenue".to_string()));
}
