//! Issue 18: take what one agent wrote as one batch — `author:` in the review filter (CLI and
//! TUI), and `ga` in the inbox narrowing it to the selected item's author, after which the bulk
//! verdicts decide exactly those items.
use crate::support;
use std::path::Path;

use support::tui::inbox::go_to;
use support::tui::*;

fn demo() -> (tempfile::TempDir, std::path::PathBuf) {
    scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"))
}

/// The queued ids whose author contains `who`, from `review list --json`.
fn queued_by(root: &Path, who: &str) -> Vec<String> {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["review", root.to_str().unwrap(), "list", "--json"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["author"].as_str().is_some_and(|a| a.contains(who)))
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_cli_filter_takes_one_authors_items() {
    let (_d, root) = demo();
    let r = root.to_str().unwrap();
    let want = queued_by(&root, "codex-cli");
    assert!(want.len() >= 2, "the demo has several codex-cli items: {want:?}");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["review", r, "list", "--json", "--filter", "author:codex-cli"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let got: Vec<String> =
        v["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect();
    let (mut got_sorted, mut want_sorted) = (got.clone(), want.clone());
    got_sorted.sort();
    want_sorted.sort();
    assert_eq!(got_sorted, want_sorted);
}

#[test]
fn ga_narrows_the_inbox_to_the_selected_items_author_and_the_bulk_approve_takes_that_batch() {
    let (_d, root) = demo();
    // Every item of the one exact author `ga` takes from the first codex-cli item.
    let want = queued_by(&root, "codex-cli/0.41.0");
    assert!(want.len() >= 2, "{want:?}");
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, &want[0]);
    press(&mut app, &["g", "a"]);
    let mut shown: Vec<String> = app.model.review.visible().iter().map(|i| i.id.clone()).collect();
    let mut expected = want.clone();
    shown.sort();
    expected.sort();
    assert_eq!(shown, expected, "only codex-cli's items");
    assert_eq!(app.model.review.filter, "author:codex-cli/0.41.0");
    // The bulk approve lists exactly that batch.
    press(&mut app, &["A"]);
    let c = app.model.review.confirm.as_ref().expect("the bulk dialog");
    let text = c.lines.join("\n");
    for id in &want {
        assert!(text.contains(id.as_str()), "{id} in the batch:\n{text}");
    }
    press(&mut app, &["y"]);
    assert!(queued_by(&root, "codex-cli/0.41.0").is_empty(), "the batch was approved");
    assert!(!queued_by(&root, "claude-code").is_empty(), "other authors' items stay");
}

/// Issue 18's `g`: the inbox grouped by author and by the agent run that wrote each item (evolve
/// `trajectory`, a `session_id`), in the TUI (`gb`, `gs`) and in `review list --group`; with the
/// inbox grouped, a bulk verdict takes the selected item's group only.
fn runs_store() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("okf");
    for (n, (by, session)) in
        [("agent:scout", "run-1"), ("agent:scout", "run-2"), ("agent:mason", "run-1"), ("agent:scout", "run-1")]
            .iter()
            .enumerate()
    {
        write(
            &root,
            &format!("notes/n{n}.md"),
            format!(
                "---\ntype: Note\ntitle: Note {n}\ndescription: note {n}\nstatus: draft\ngenerated:\n  by: {by}\n  session: {session}\n---\n# Note {n}\n\nBody {n}.\n"
            ),
        );
    }
    (dir, root)
}

#[test]
fn review_list_groups_by_author_and_by_run() {
    let (_d, root) = runs_store();
    let r = root.to_str().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio")).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let by_run = json(&["review", r, "list", "--json", "--group", "session"]);
    assert_eq!(by_run["group_by"], "session");
    let groups: Vec<(String, u64)> = by_run["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap().to_string(), g["count"].as_u64().unwrap()))
        .collect();
    let mut sorted = groups.clone();
    sorted.sort();
    assert_eq!(sorted, vec![("run-1".to_string(), 3), ("run-2".to_string(), 1)]);
    assert!(by_run["items"].as_array().unwrap().iter().all(|i| i["session"].is_string()));
    let by_author = json(&["review", r, "list", "--json", "--group", "author"]);
    assert_eq!(by_author["groups"].as_array().unwrap().len(), 2);
    let filtered = json(&["review", r, "list", "--json", "--filter", "session:run-2"]);
    assert_eq!(filtered["count"], 1);
    // Text: one header per group.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["review", r, "list", "--group", "session"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("== run-1 (3 items)") && text.contains("== run-2 (1 item)"), "{text}");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["review", r, "list", "--group", "colour"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "an unknown grouping is refused");
}

#[test]
fn gb_groups_the_inbox_and_a_bulk_verdict_takes_the_selected_group() {
    let (_d, root) = runs_store();
    let mut app = inbox::open(&root, (120, 40));
    press(&mut app, &["g", "b"]);
    assert_eq!(app.model.review.group, Some(folio::store::review::group::Grouping::Author));
    let screen = text(&render(&app));
    assert!(screen.contains("── agent:scout · 3 items") && screen.contains("── agent:mason · 1 item"), "{screen}");
    press(&mut app, &["g", "b"]);
    let screen = text(&render(&app));
    assert!(screen.contains("── run-1 · 3 items") && screen.contains("── run-2 · 1 item"), "{screen}");
    // The selected item's run is the batch: A lists its three items and not the other run's.
    go_to(&mut app, "notes/n1");
    press(&mut app, &["A"]);
    let c = app.model.review.confirm.as_ref().expect("the bulk dialog");
    let dialog = c.lines.join("\n");
    assert!(dialog.contains("1 file changes") || dialog.contains("notes/n1"), "{dialog}");
    assert!(!dialog.contains("notes/n0") && !dialog.contains("notes/n2"), "only run-2:\n{dialog}");
    press(&mut app, &["n"]);
    go_to(&mut app, "notes/n0");
    press(&mut app, &["A"]);
    let dialog = app.model.review.confirm.as_ref().expect("the bulk dialog").lines.join("\n");
    for id in ["notes/n0", "notes/n2", "notes/n3"] {
        assert!(dialog.contains(id), "{id} is in run-1:\n{dialog}");
    }
    assert!(!dialog.contains("notes/n1"), "{dialog}");
    press(&mut app, &["n", "g", "b"]);
    assert_eq!(app.model.review.group, None, "a third gb ungroups");
    // gs narrows to the selected item's run.
    go_to(&mut app, "notes/n1");
    press(&mut app, &["g", "s"]);
    assert_eq!(app.model.review.filter, "session:run-2");
    assert_eq!(app.model.review.visible().len(), 1);
}
