//! End to end: the real binary in a tmux pane approves, vetoes and merges on a scratch copy of
//! the demo store; the CLI then finds the decisions in the files, the log and the queue.
//! Skips (saying so) when tmux is not installed.
use crate::support;
use std::time::Duration;

use support::tui::tmux::{self, Tmux};
use support::*;

#[test]
fn approve_veto_and_merge_from_the_terminal() {
    if !tmux::available() {
        eprintln!("SKIPPED: tmux is not installed; the review end-to-end test did not run");
        return;
    }
    let (_dir, root) = scratch(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
    let cfg = tempfile::tempdir().unwrap();
    let shell = format!(
        "env FOLIO_CONFIG_DIR={} USER=e2e {} {}; echo FOLIO-EXIT=$?; sleep 30",
        cfg.path().display(),
        env!("CARGO_BIN_EXE_folio"),
        root.display()
    );
    let mut t = Tmux::start("folio-review-e2e", (120, 40), &shell);
    t.key_pause = Duration::from_millis(150);
    t.patience = Duration::from_secs(20);
    t.wait_for("okf · demo · 40 entities");
    t.keys(&["R"]);
    t.wait_for("Review inbox (13)");
    // The inbox is in order of need (hidden content first): pick each item by filtering.
    t.keys(&["f", "-l", "capture-payment", "Enter"]);
    t.wait_for("Review inbox (1 of 13");
    t.keys(&["a"]);
    t.wait_for("(apis/capture-payment)?");
    t.keys(&["y"]);
    t.wait_for("Review inbox (0 of 12");
    // Then data/settlement-batches: veto it with a reason.
    let mut refilter = vec!["f"];
    refilter.extend(std::iter::repeat_n("BSpace", "capture-payment".len()));
    t.keys(&refilter);
    t.keys(&["-l", "settlement-batches", "Enter"]);
    t.wait_for("Review inbox (1 of 12");
    t.keys(&["x"]);
    t.wait_for("(data/settlement-batches): reason");
    t.keys(&["-l", "duplicate of capture"]);
    // A second Enter (a double press) lands on the dialog the first one opened: it must not
    // apply the veto unseen.
    t.keys(&["Enter"]);
    t.wait_for("(data/settlement-batches)?");
    t.keys(&["Enter"]);
    t.wait_for("press y to apply");
    let unseen = std::fs::read_to_string(root.join("data/settlement-batches.md")).unwrap();
    assert!(!unseen.contains("duplicate of capture"), "a double Enter wrote the veto:\n{unseen}");
    t.keys(&["y"]);
    t.wait_for("Review inbox (0 of 11");
    // Then apis/refunds-v2: merge it into apis/refunds, picked by fuzzy recall.
    let mut refilter = vec!["f"];
    refilter.extend(std::iter::repeat_n("BSpace", "settlement-batches".len()));
    t.keys(&refilter);
    t.keys(&["-l", "refunds-v2", "Enter"]);
    t.wait_for("Review inbox (1 of 11");
    t.keys(&["m"]);
    t.wait_for("(apis/refunds-v2) into…");
    t.keys(&["-l", "apis/refunds"]);
    t.keys(&["Enter"]);
    t.wait_for("Merge apis/refunds-v2 into apis/refunds");
    t.keys(&["C-s"]);
    t.wait_for("merge POST /v2/refunds (apis/refunds-v2) into POST /v1/refunds (apis/refunds)?");
    t.keys(&["y"]);
    t.wait_for("merge 2 entities: merged");
    t.keys(&["Escape", "q"]);
    t.wait_for("FOLIO-EXIT=0");

    assert!(!root.join("apis/refunds-v2.md").exists(), "the merged entity is archived");
    assert!(std::fs::read_to_string(root.join("apis/refunds.md")).unwrap().contains("merged_from"));
    assert!(std::fs::read_to_string(root.join("data/settlement-batches.md")).unwrap().contains("duplicate of capture"));
    let log = stdout(&folio(&["log", root.to_str().unwrap()]));
    for needle in
        ["apis/capture-payment", "vetoed: duplicate of capture", "merged `apis/refunds-v2` into `apis/refunds`"]
    {
        assert!(log.contains(needle), "folio log lacks {needle:?}:\n{log}");
    }
    let list = folio_json(&["review", root.to_str().unwrap(), "list", "--json"]);
    let ids: Vec<&str> = list["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    for gone in ["apis/capture-payment", "data/settlement-batches", "apis/refunds-v2"] {
        assert!(!ids.contains(&gone), "{gone} is still queued: {ids:?}");
    }
}
