//! Issue 26, what the person sees before a verdict that takes an entity away: every inbound
//! reference and the ones left broken, the catalogs the write regenerates (listed and diffed)
//! and the exact bytes it adds to the store's log — all before `y`, and nothing written on `n`.
use crate::support;
use std::path::{Path, PathBuf};

use folio::app::App;
use support::tui::inbox::go_to;
use support::tui::*;

fn aip10() -> (tempfile::TempDir, PathBuf) {
    scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aip10-wiki"))
}

fn confirm_lines(app: &App) -> Vec<String> {
    app.model.review.confirm.as_ref().expect("a confirm dialog is open").lines.clone()
}

/// Every file under `dir` (folio's state included) with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            out.extend(snapshot(&path));
        } else {
            out.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    out.sort();
    out
}

/// The log bytes the dialog shows (its `  | ` lines after the "gains these bytes" heading).
fn shown_log_bytes(lines: &[String]) -> String {
    let at = lines.iter().position(|l| l == "_log.md gains these bytes:").expect("the log's bytes are shown");
    let mut out = String::new();
    for l in lines[at + 1..].iter().take_while(|l| l.starts_with("  |")) {
        out += l.strip_prefix("  | ").or_else(|| l.strip_prefix("  |")).unwrap();
        out += "\n";
    }
    out
}

#[test]
fn forget_shows_inbound_references_catalogs_and_log_bytes_before_writing() {
    let (_dir, root) = aip10();
    let mut app = inbox::open(&root, (140, 40));
    go_to(&mut app, "alex-park");
    let before = snapshot(&root);
    press(&mut app, &["d"]);
    let lines = confirm_lines(&app);
    let shown = lines.join("\n");
    for expected in [
        "6 inbound references:",
        "  _index.md:22 catalog entry → alex-park (entities/alex-park.md)",
        "  entities/lead-investor.md:1 edge links → alex-park (alex-park)",
        "  summaries/2026-04-27-investor-call.md:14 link → alex-park (alex-park)",
        "⚠ 5 left broken (logged; lint reports them):",
        "1 catalog regenerated:\n  _index.md",
        "+++ b/_index.md",
    ] {
        assert!(shown.contains(expected), "{expected:?} missing from:\n{shown}");
    }
    let log_bytes = shown_log_bytes(&lines);
    assert!(log_bytes.contains("5 inbound links left broken"), "{log_bytes}");
    press(&mut app, &["n"]);
    assert_eq!(snapshot(&root), before, "n writes nothing");

    press(&mut app, &["d"]);
    let lines = confirm_lines(&app);
    let log_bytes = shown_log_bytes(&lines);
    let log_before = std::fs::read_to_string(root.join("_log.md")).unwrap();
    let index_shown: Vec<String> =
        lines.iter().filter(|l| l.starts_with("-") && l.contains("alex-park")).cloned().collect();
    press(&mut app, &["y"]);
    let log_after = std::fs::read_to_string(root.join("_log.md")).unwrap();
    assert_eq!(log_after, format!("{log_before}{log_bytes}"), "the log gains exactly the bytes shown");
    let index = std::fs::read_to_string(root.join("_index.md")).unwrap();
    assert!(!index.contains("entities/alex-park.md"), "the regenerated catalog was written: {index}");
    assert!(index_shown.iter().any(|l| l.contains("entities/alex-park.md")), "its removed entry was in the diff");

    // The undo dialog shows the bytes its own event adds to the restored log, and writes them.
    press(&mut app, &["u"]);
    let lines = confirm_lines(&app);
    let undo_bytes = shown_log_bytes(&lines);
    assert!(undo_bytes.contains("| undo alex-park") && undo_bytes.contains("undid forget"), "{undo_bytes}");
    press(&mut app, &["y"]);
    let log_undone = std::fs::read_to_string(root.join("_log.md")).unwrap();
    // Undo keeps the log's history: the forget's entry stays and the undo's follows it.
    assert_eq!(log_undone, format!("{log_after}{undo_bytes}"), "the undo logs exactly the bytes shown");
}

#[test]
fn an_approval_that_keeps_the_entity_in_place_has_no_impact_list() {
    let (_dir, root) = aip10();
    let mut app = inbox::open(&root, (140, 40));
    go_to(&mut app, "alex-park");
    press(&mut app, &["a"]);
    let shown = confirm_lines(&app).join("\n");
    assert!(!shown.contains("inbound reference"), "{shown}");
    assert!(shown.contains("_log.md gains these bytes:"), "{shown}");
}

/// The dialog of a forget that breaks links offers the three ways out; `s` plans it again with
/// a stub in the file's place, which the second dialog shows and `y` writes.
#[test]
fn s_in_the_dialog_leaves_a_stub_instead_of_breaking_the_links() {
    let (_dir, root) = aip10();
    let mut app = inbox::open(&root, (140, 40));
    go_to(&mut app, "alex-park");
    press(&mut app, &["d"]);
    let shown = confirm_lines(&app).join("\n");
    assert!(shown.contains("⚠ 5 left broken"), "{shown}");
    assert!(shown.contains("s: leave a stub in its place instead"), "{shown}");
    press(&mut app, &["s"]);
    let shown = confirm_lines(&app).join("\n");
    assert!(!shown.contains("left broken"), "{shown}");
    assert!(shown.contains("note: a stub stays at entities/alex-park.md"), "{shown}");
    assert!(app.model.message.is_none(), "the dialog answers \"planning it again…\": {:?}", app.model.message);
    press(&mut app, &["y"]);
    let stub = std::fs::read_to_string(root.join("entities/alex-park.md")).unwrap();
    assert!(stub.contains("Removed from the knowledge base"), "{stub}");
}
