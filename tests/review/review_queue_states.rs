//! How earlier verdicts and agents' later edits put items back in the inbox (issue 26, defect
//! 10): an edit of a vetoed item re-queues it as `changed-since-veto`, never as
//! `changed-since-approval` when nothing was approved; evolve's own `review` rows count as
//! verdicts in either tense.
use crate::support;
use support::*;

use std::path::Path;

use serde_json::Value;

fn run(args: &[&str]) -> String {
    let o = folio(args);
    assert!(o.status.success(), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

/// The reasons `id` is queued for, or None when it is not in the inbox.
fn reasons(store: &Path, id: &str) -> Option<Vec<String>> {
    let v = folio_json(&["review", store.to_str().unwrap(), "list", "--json"]);
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id)
        .map(|i| i["reasons"].as_array().unwrap().iter().filter_map(Value::as_str).map(str::to_string).collect())
}

fn demo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo")
}

#[test]
fn an_agents_edit_of_a_vetoed_item_requeues_it() {
    let (_d, root) = writable_scratch(&demo());
    let r = root.to_str().unwrap();
    let id = "apis/refunds-v2";
    run(&["review", r, "veto", id, "--reason", "not shipped", "--as", "human:ann"]);
    assert_eq!(reasons(&root, id), None, "a vetoed item is out of the inbox");
    let file = root.join("apis/refunds-v2.md");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\nAn agent added this line after the veto.\n");
    std::fs::write(&file, &text).unwrap();
    let got = reasons(&root, id).expect("edited after the veto: back in the inbox");
    assert!(got.contains(&"changed-since-veto".to_string()), "{got:?}");
    assert!(!got.contains(&"changed-since-approval".to_string()), "never approved: {got:?}");
}

#[test]
fn a_reset_to_draft_of_a_never_approved_item_is_not_changed_since_approval() {
    let (_d, root) = writable_scratch(&demo());
    let r = root.to_str().unwrap();
    let id = "apis/refunds-v2";
    run(&["review", r, "veto", id, "--reason", "not shipped", "--as", "human:ann"]);
    let file = root.join("apis/refunds-v2.md");
    let text = std::fs::read_to_string(&file).unwrap().replace("status: deprecated", "status: draft");
    std::fs::write(&file, text).unwrap();
    let got = reasons(&root, id).expect("reset to draft: back in the inbox");
    assert!(got.contains(&"draft".to_string()), "{got:?}");
    assert!(got.contains(&"changed-since-veto".to_string()), "{got:?}");
    assert!(!got.contains(&"changed-since-approval".to_string()), "{got:?}");
    // Approved, then changed: that one is changed since approval.
    run(&["review", r, "approve", id, "--as", "human:ann"]);
    assert_eq!(reasons(&root, id), None);
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\nchanged again\n");
    std::fs::write(&file, text).unwrap();
    assert!(reasons(&root, id).unwrap().contains(&"changed-since-approval".to_string()));
}

#[test]
fn evolve_review_rows_count_as_verdicts_in_either_tense() {
    let (_d, root) = writable_scratch(&fixture("evolve-project"));
    let store = root.join(".evolve/entities");
    // The fixture's own row approved another version of this guideline.
    let g = "guideline/prefer-git-worktrees-for-parallel-branches";
    assert_eq!(reasons(&store, g), Some(vec!["changed-since-approval".to_string()]));
    // A row in evolve's words naming the guideline's current hash takes it out of the inbox.
    let other = "guideline/run-focused-tests-on-shared-machines";
    assert!(reasons(&store, other).unwrap().contains(&"never-reviewed".to_string()));
    let text = std::fs::read(store.join(format!("{other}.md"))).unwrap();
    let hash = folio::store::model::digest::of(&text);
    let log = root.join(".evolve/audit.log");
    let mut rows = std::fs::read_to_string(&log).unwrap();
    rows += &format!(
        "{{\"event\": \"review\", \"verdict\": \"approved\", \"entity\": \"{other}\", \"hash\": \"{hash}\", \"by\": \"human:maria\", \"ts\": \"2026-09-01T10:00:00.000000Z\"}}\n"
    );
    std::fs::write(&log, rows).unwrap();
    assert_eq!(reasons(&store, other), None, "approved by evolve's own row");
    // folio writes evolve's word, and an undo takes its row back.
    let s = store.to_str().unwrap();
    let ripgrep = "guideline/prefer-ripgrep-over-grep-for-code-search";
    run(&["review", s, "approve", ripgrep, "--as", "human:ann"]);
    let last = std::fs::read_to_string(&log).unwrap().lines().last().unwrap().to_string();
    assert!(last.contains("\"verdict\":\"approved\""), "{last}");
    assert_eq!(reasons(&store, ripgrep), None);
    run(&["undo", s, "--as", "human:ann"]);
    assert!(reasons(&store, ripgrep).is_some(), "undone: back in the inbox");
}

#[test]
fn undo_log_lines_name_the_entities_they_give_back() {
    let (_d, root) = writable_scratch(&fixture("opendray-homelab"));
    let r = root.to_str().unwrap();
    run(&["review", r, "approve", "fact-pg-version", "--as", "human:ann"]);
    run(&["undo", r, "--as", "human:ann"]);
    let log = std::fs::read_to_string(root.join(".folio/audit.jsonl")).unwrap();
    let undo: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(undo["event"], "undo");
    assert_eq!(undo["entity"], "fact-pg-version", "{undo}");
}

/// opendray's veto is opendray's own soft archive, which folio's lint accepts.
#[test]
fn an_opendray_veto_writes_values_lint_accepts() {
    let (_d, root) = writable_scratch(&fixture("opendray-homelab"));
    let r = root.to_str().unwrap();
    run(&["review", r, "veto", "fact-grafana-port", "--reason", "port moved", "--as", "human:ann"]);
    let text = std::fs::read_to_string(root.join("facts/fact-grafana-port.md")).unwrap();
    assert!(text.contains("archived_at: "), "{text}");
    assert!(!text.contains("lifecycle: vetoed"), "{text}");
    let lint = folio_json(&["lint", r, "--format", "json"]);
    let mine: Vec<&Value> =
        lint["findings"].as_array().unwrap().iter().filter(|f| f["entity"] == "fact-grafana-port").collect();
    assert!(mine.is_empty(), "{mine:?}");
    assert_eq!(reasons(&root, "fact-grafana-port"), None);
}

/// Issue 41: an evolve `review` row approved an entity whose text folio never kept (the row
/// names a hash): the item is `changed-since-approval`, and `show` says who approved it rather
/// than "never approved", so the reason and the detail agree.
#[test]
fn an_approval_whose_text_is_not_kept_is_named_not_called_never_approved() {
    let store = fixture("evolve-project");
    let s = store.to_str().unwrap();
    let id = "guideline/prefer-git-worktrees-for-parallel-branches";
    let got = reasons(&store, id).expect("queued");
    assert!(got.contains(&"changed-since-approval".to_string()), "{got:?}");
    let shown = run(&["review", s, "show", id]);
    assert!(!shown.contains("never approved"), "{shown}");
    assert!(
        shown.contains(
            "--- approved by human:maria at 2026-08-22T15:03:11.220871Z; that text is not kept: whole text ---"
        ),
        "{shown}"
    );
    // A never-reviewed item still says so.
    let never = run(&["review", s, "show", "guideline/prefer-ripgrep-over-grep-for-code-search"]);
    assert!(never.contains("--- never approved: whole text ---"), "{never}");
}
