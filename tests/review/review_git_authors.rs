//! Issue 18: who wrote an entity comes from git when its format names nobody — the author of
//! the newest commit that changed its file — and that commit stands for the agent run, so
//! "everything the agent committed in its last run" is one batch (`--group session`,
//! `session:<commit>`, `gs` in the inbox). A file changed since its last commit is not
//! attributed: git does not know who changed it. The repository is made with the real git.
use crate::support;
use crate::support::git;

use std::path::{Path, PathBuf};

use support::tui::inbox::go_to;
use support::tui::*;

/// The demo bundle in git: imported by Ann Lee, then one file edited and committed by an agent,
/// then one file edited on disk and not committed. Three entities lose their `generated:` line,
/// so their formats name no author. Returns (dir, root, import commit, agent commit).
fn committed_demo() -> Option<(tempfile::TempDir, PathBuf, String, String)> {
    if !git::available() {
        eprintln!("SKIPPED: the `git` binary is not installed; this test builds its repository with it");
        return None;
    }
    let (dir, root) = scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
    for rel in ["apis/refunds.md", "apis/create-payment.md", "data/refunds-table.md"] {
        let p = root.join(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("generated:")).collect();
        assert_ne!(kept.len(), text.lines().count(), "{rel} named its author");
        std::fs::write(&p, kept.join("\n") + "\n").unwrap();
    }
    let g = |who: &str, date: &str, args: &[&str]| git::run_as(&root, who, date, args);
    g("Ann Lee", "2026-03-01T10:00:00Z", &["init", "-q"]);
    g("Ann Lee", "2026-03-01T10:00:00Z", &["add", "-A"]);
    g("Ann Lee", "2026-03-01T10:00:00Z", &["commit", "-qm", "import the bundle"]);
    let import = g("Ann Lee", "2026-03-01T10:00:00Z", &["rev-parse", "--short=8", "HEAD"]).trim().to_string();
    append(&root, "apis/create-payment.md", "\nThe agent's note from run 7.\n");
    g("scout-bot", "2026-03-02T10:00:00Z", &["commit", "-qam", "scout run 7: payments"]);
    let run = g("scout-bot", "2026-03-02T10:00:00Z", &["rev-parse", "--short=8", "HEAD"]).trim().to_string();
    append(&root, "data/refunds-table.md", "\nEdited on disk, not committed.\n");
    Some((dir, root, import, run))
}

fn append(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    let mut now = std::fs::read_to_string(&p).unwrap();
    now.push_str(text);
    std::fs::write(p, now).unwrap();
}

/// `review list --json` with its arguments after `list`.
fn list(root: &Path, more: &[&str]) -> serde_json::Value {
    let own = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["review", root.to_str().unwrap(), "list", "--json"])
        .args(more)
        .env("XDG_STATE_HOME", own.path().join("state"))
        .env("XDG_CACHE_HOME", own.path().join("cache"))
        .env_remove("GIT_DIR")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn item<'a>(v: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    v["items"].as_array().unwrap().iter().find(|i| i["id"] == id).unwrap_or_else(|| panic!("{id} queued"))
}

#[test]
fn git_names_the_author_and_run_where_the_format_names_none() {
    let Some((_d, root, import, run)) = committed_demo() else { return };
    let v = list(&root, &[]);
    let refunds = item(&v, "apis/refunds");
    assert_eq!(refunds["author"], "Ann Lee");
    assert_eq!(refunds["session"], format!("{import} import the bundle"));
    let payment = item(&v, "apis/create-payment");
    assert_eq!(payment["author"], "scout-bot", "the newest commit that changed the file");
    assert_eq!(payment["session"], format!("{run} scout run 7: payments"));
    // Changed since its last commit: git cannot say who wrote what is on disk.
    let table = item(&v, "data/refunds-table");
    assert!(table["author"].is_null() && table.get("session").is_none_or(|s| s.is_null()), "{table}");
    // The format's own author wins; the commit still names the run. (An entity a person
    // verified after its last change is not queued at all: OKF `verified`, issue 39.)
    let api = item(&v, "apis/capture-payment");
    assert_eq!(api["author"], "claude-code/1.0.58");
    assert_eq!(api["session"], format!("{import} import the bundle"));

    let by_run = list(&root, &["--filter", &format!("session:{run}")]);
    let ids: Vec<&str> = by_run["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["apis/create-payment"]);
    let grouped = list(&root, &["--group", "author"]);
    let scout =
        grouped["groups"].as_array().unwrap().iter().find(|g| g["key"] == "scout-bot").expect("a scout-bot group");
    assert_eq!(scout["count"], 1);
}

#[test]
fn gs_takes_the_selected_items_commit_as_one_batch() {
    let Some((_d, root, _import, run)) = committed_demo() else { return };
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "apis/create-payment");
    press(&mut app, &["g", "s"]);
    assert_eq!(app.model.review.filter, format!("session:{run}"));
    let shown: Vec<String> = app.model.review.visible().iter().map(|i| i.id.clone()).collect();
    assert_eq!(shown, ["apis/create-payment"]);
}

/// Set every file's mtime an hour back (files written within two seconds are never remembered).
fn age_files(dir: &Path) {
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if e.file_name() == ".git" {
            continue;
        }
        if p.is_dir() {
            age_files(&p);
        } else {
            std::fs::File::options().write(true).open(&p).unwrap().set_modified(then).unwrap();
        }
    }
}

/// The TUI lists the inbox again after every live reload, in the same process: what git said
/// of each file is remembered, and forgotten when the file's size or mtime changes or HEAD moves.
#[test]
fn a_rebuilt_inbox_follows_edits_and_new_commits() {
    use folio::store::history::attribution::inbox;
    let Some((_d, root, _import, _run)) = committed_demo() else { return };
    age_files(&root);
    let authors = || {
        let store = folio::store::Store::open(&root, None).unwrap();
        let items = inbox(&store);
        let of = |id: &str| items.iter().find(|i| i.id == id).unwrap_or_else(|| panic!("{id} queued")).author.clone();
        (of("apis/refunds"), of("apis/create-payment"), of("data/refunds-table"))
    };
    let named = |s: &str| Some(s.to_string());
    assert_eq!(authors(), (named("Ann Lee"), named("scout-bot"), None));
    assert_eq!(authors(), (named("Ann Lee"), named("scout-bot"), None), "asked again, the same answers");
    // Edited on disk since (an old mtime, another size): no longer what Ann Lee committed.
    append(&root, "apis/refunds.md", "\nAn agent's edit, not committed.\n");
    age_files(&root);
    assert_eq!(authors(), (None, named("scout-bot"), None));
    // A new commit moves HEAD: both edited files are now the fixer's.
    git::run_as(&root, "fixer", "2026-03-03T10:00:00Z", &["commit", "-qam", "fixer: tidy"]);
    assert_eq!(authors(), (named("fixer"), named("scout-bot"), named("fixer")));
}
