//! Issue 18: take what one agent wrote as one batch — `author:` in the review filter (CLI and
//! TUI), and `ga` in the inbox narrowing it to the selected item's author, after which the bulk
//! verdicts decide exactly those items.
mod tui_support;
use std::path::Path;

use tui_support::inbox::go_to;
use tui_support::*;

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
