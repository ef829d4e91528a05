//! Issue 41 in the real binary, in a tmux pane at 160×45: a reviewer opens the history of a
//! 57-line concept whose change is on line 38 and sees it at once, the changed words marked;
//! scrolls the diff with its own keys; reads the blame of a long line to its end; sees each
//! version credited to its git author with the frontmatter's agent apart as "written by"; and,
//! after restoring a version, sees the uncommitted change credited to themselves. The
//! repository is built with the real `git`; tmux is started privately per test.
use crate::support;
use crate::support::git as git_support;

use std::path::{Path, PathBuf};

use support::tui::tmux::{self, Tmux};

/// The concept's line 38 before and after Bob's commit: the change is at the line's end.
const OLD_38: &str = "Line 38: retries back off exponentially between tries.";
const NEW_38: &str = "Line 38: retries back off exponentially between tries, jittered, capped at thirty seconds, then the call is dropped and the owner on call paged.";
const AGENT: &str = "reference_agent/gemini-2.5-pro";

/// Why the test cannot run, when it cannot (it fails instead when `CI` is set).
fn cannot_run() -> bool {
    let why = if !tmux::available() {
        "tmux is not installed"
    } else if !git_support::available() {
        "the `git` binary is not installed"
    } else {
        return false;
    };
    assert!(std::env::var_os("CI").is_none(), "{why}: the history end-to-end tests must run in CI");
    eprintln!("SKIPPED: {why}; the history end-to-end test did not run");
    true
}

/// A copy of the acme_retail bundle in git: Ann's first commit adds the 57-line concept
/// `policies/retry.md` (written by an agent, says its frontmatter), Bob's changes its line 38.
/// The two commits' short ids.
fn retry_store(dir: &Path) -> (PathBuf, String, String) {
    let (_keep, src) = support::tui::scratch(&support::tui::corpus("okf-v0.2/acme_retail"));
    let root = dir.join("acme_retail");
    assert!(std::process::Command::new("cp").arg("-r").arg(&src).arg(&root).status().unwrap().success());
    let head = format!(
        "---\ntype: Concept\ntitle: Retry policy\ndescription: How the services retry calls to each other.\ngenerated: {{ by: {AGENT}, at: 2026-01-01T09:00:00Z }}\n---\n\n# Retry policy\n\n"
    );
    let body = |l38: &str| -> String {
        (10..=57)
            .map(|n| {
                if n == 38 { format!("{l38}\n") } else { format!("Line {n}: the services keep to the shared rules.\n") }
            })
            .collect()
    };
    support::tui::write(&root, "policies/retry.md", format!("{head}{}", body(OLD_38)));
    let text = std::fs::read_to_string(root.join("policies/retry.md")).unwrap();
    assert_eq!((text.lines().count(), text.lines().nth(37)), (57, Some(OLD_38)), "line 38 of 57");
    for args in [&["init", "-q", "-b", "main"][..], &["add", "-A"], &["commit", "-q", "-m", "first"]] {
        git_support::run_as(&root, "Ann", "2026-01-01T10:00:00Z", args);
    }
    support::tui::write(&root, "policies/retry.md", format!("{head}{}", body(NEW_38)));
    git_support::run_as(&root, "bob", "2026-01-02T10:00:00Z", &["commit", "-q", "-am", "cap the backoff"]);
    let short = |rev: &str| git_support::run(&root, &["rev-parse", "--short=7", rev]).trim().to_string();
    (root.clone(), short("HEAD~1"), short("HEAD"))
}

/// folio on `store` in a private tmux at `size`, as the person `carol`, with the concept open.
fn open_retry(name: &str, cfg: &Path, store: &Path, size: (u16, u16)) -> Tmux {
    let shell = format!(
        "env USER=carol FOLIO_CONFIG_DIR={cfg} XDG_DATA_HOME={cfg} FOLIO_STATE_DIR={cfg}/state {bin} {store}; echo FOLIO-EXIT=$?; sleep 30",
        cfg = cfg.display(),
        bin = env!("CARGO_BIN_EXE_folio"),
        store = store.display()
    );
    let t = Tmux::start(name, size, &shell);
    t.wait_for("BROWSE");
    t.keys(&["/"]);
    t.wait_for("Recall · entities");
    t.keys(&["-l", "retry policy"]);
    t.wait_for("Retry policy");
    t.keys(&["Enter"]);
    t.wait_for("policies/retry.md");
    t
}

/// The screen once `done` holds of it (failing, with the screen, when it never does).
fn wait_until(t: &Tmux, done: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + t.patience;
    loop {
        let s = t.screen();
        if done(&s) {
            return s;
        }
        assert!(std::time::Instant::now() < deadline, "the screen never changed as expected:\n{s}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The line drawn on screen row `at` and the rows it wraps onto (`↪`), as one line: the text
/// after the blame's `│ ` and each continuation's `↪ `, up to the pane's right border.
fn wrapped_line(screen: &str, at: usize) -> String {
    let rows: Vec<&str> = screen.lines().collect();
    let text = |row: &str, mark: &str| -> String {
        let pane = row.rsplit_once("││").map_or(row, |(_, p)| p);
        let after = pane.split_once(mark).map_or("", |(_, t)| t);
        after.trim_end_matches('│').trim_end().to_string()
    };
    let mut line = text(rows[at], "│ ");
    for row in rows.iter().skip(at + 1).take_while(|r| r.contains("↪ ")) {
        line = format!("{line} {}", text(row, "↪ "));
    }
    line
}

#[test]
fn the_diff_opens_at_a_change_on_line_38_and_scrolls_with_its_own_keys() {
    if cannot_run() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (store, ann, bob) = retry_store(dir.path());
    let t = open_retry("folio-hist-diff", &dir.path().join("cfg"), &store, (160, 45));
    t.keys(&["5"]);
    t.wait_for("change 1 of 1");
    // The diff's header can be caught on screen before its lines (a frame read while drawn):
    // the screen read is one with the changed line in it.
    let s = t.wait_for("Line 38: retries back off exponentially");
    // Opened at the change: line 38 removed and added, numbered, with a few lines above it;
    // the top of the file is scrolled past.
    assert!(s.contains(&format!("{ann} → {bob}")), "{s}");
    assert!(s.contains(&format!("  38      - {OLD_38}")), "{s}");
    assert!(s.contains("       38 + Line 38: retries back off exponentially between tries, jittered,"), "{s}");
    assert!(s.contains("Line 35: the services") && !s.contains("Line 20: the services"), "{s}");
    assert!(s.contains("change 1 of 1, line 35 of 57"), "{s}");
    // The diff's own keys are hinted in the status bar…
    assert!(s.contains(" ]  next change ") && s.contains(" <PageDown>  diff: page down "), "{s}");
    // …and move the diff, not the version selected.
    t.keys(&["PPage"]);
    let s = t.wait_for("line 1 of 57");
    assert!(s.contains("   1    1   ---") && s.contains("   8    8   # Retry policy"), "{s}");
    assert!(s.contains(&format!("{bob}  2026-01-02 bob")), "Bob's version still selected:\n{s}");
    t.keys(&["]"]);
    let s = t.wait_for("line 35 of 57");
    assert!(s.contains("       38 + "), "{s}");
    t.keys(&["NPage"]);
    let s = t.wait_for("line 57 of 57");
    assert!(s.contains("Line 57: the services") && !s.contains("Line 35: the services"), "{s}");
    // Half pages and single lines back up, the selection unmoved.
    t.keys(&["C-u", "C-u", "K"]);
    let s = wait_until(&t, |s| !s.contains("line 57 of 57"));
    assert!(s.contains("change 1 of 1, line "), "{s}");
    assert!(s.contains(&format!("{bob}  2026-01-02 bob")), "{s}");
    // Help names the keys.
    t.keys(&["?"]);
    let s = t.wait_for("Help:");
    assert!(s.contains("Diff: page down") && s.contains("Next change"), "{s}");
}

#[test]
fn blame_shows_a_long_lines_end_and_versions_credit_their_git_author() {
    if cannot_run() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (store, ann, bob) = retry_store(dir.path());
    let t = open_retry("folio-hist-blame", &dir.path().join("cfg"), &store, (160, 45));
    t.keys(&["5"]);
    let s = t.wait_for("change 1 of 1");
    // Each version is its git author's; the agent the frontmatter names is shown apart.
    let row = |who: &str, rev: &str, date: &str| format!("{rev}  {date} {who} ");
    assert!(s.contains(&row("bob", &bob, "2026-01-02")), "{s}");
    assert!(s.contains(&row("Ann", &ann, "2026-01-01")), "{s}");
    assert!(s.contains(&format!("{ann} → {bob} · change 1 of 1, line 35 of 57 · bob · written by {AGENT}")), "{s}");
    assert!(!s.contains("bob (reference"), "{s}");
    // Blame: line 38 is Bob's, and its end, past the pane's width, wraps into view.
    t.keys(&["b"]);
    let s = t.wait_for("5 Blame: policies/retry");
    let at = s.lines().position(|l| l.contains("  38│ Line 38: retries")).unwrap_or_else(|| panic!("{s}"));
    assert!(s.lines().nth(at).unwrap().contains(&format!("{bob}  bob ")), "{s}");
    assert!(s.lines().nth(at + 1).unwrap().contains("↪"), "{s}");
    assert!(wrapped_line(&s, at).ends_with("then the call is dropped and the owner on call paged."), "{s}");
}

#[test]
fn after_a_restore_the_uncommitted_change_is_the_persons() {
    if cannot_run() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (store, ann, _bob) = retry_store(dir.path());
    let t = open_retry("folio-hist-restore", &dir.path().join("cfg"), &store, (160, 45));
    t.keys(&["5"]);
    t.wait_for("change 1 of 1");
    // Restore Ann's version: the diff first, then written on a yes.
    t.keys(&["j", "r"]);
    t.wait_for(&format!("Restore policies/retry.md to version {ann}?"));
    t.keys(&["y"]);
    // The file's change can be seen (and its history read) before folio's record of it is
    // whole; the history read after the restore is the one that stays on screen.
    let worktree_row = |s: &str| s.lines().find(|l| l.contains("worktree ")).map(str::to_string);
    let s = wait_until(&t, |s| worktree_row(s).is_some_and(|r| r.contains("human:carol")));
    let text = std::fs::read_to_string(store.join("policies/retry.md")).unwrap();
    assert!(text.contains(OLD_38), "restored on disk");
    // The uncommitted row is the person's who restored it, the agent shown apart.
    let row = worktree_row(&s).unwrap();
    assert!(row.contains("human:carol") && row.contains("uncommitted change [+1 -1] · written by"), "{s}");
    t.keys(&["g", "g"]);
    let s = t.wait_for(" → worktree · ");
    assert!(
        s.contains(&format!(" → worktree · change 1 of 1, line 35 of 57 · human:carol · written by {AGENT}")),
        "{s}"
    );
    // An edit folio did not make is nobody's it knows.
    let edited = text.replace("Line 12:", "Line twelve:");
    std::fs::write(store.join("policies/retry.md"), edited).unwrap();
    let s = t.wait_for("uncommitted change [+2 -2]");
    let row = s.lines().find(|l| l.contains("worktree ")).unwrap();
    assert!(!row.contains("human:carol"), "{s}");
    assert!(s.contains(&format!(" of 57 · - · written by {AGENT}")), "{s}");
}
