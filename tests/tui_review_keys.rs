//! Issue 26, the TUI side: a verdict's message survives the watcher's echo of folio's own write,
//! edit-then-approve is one previewed plan, and the keys that used to lose work (Enter in the
//! veto reason, Esc in the editor, q in the inbox, u in browse mode, the bulk dialog).
mod tui_support;
use std::path::{Path, PathBuf};
use std::time::Duration;

use folio::app::App;
use folio::app::event::Event;
use tui_support::inbox::{go_to, queued};
use tui_support::*;

fn demo() -> (tempfile::TempDir, PathBuf) {
    scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"))
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn message(app: &App) -> String {
    app.model.message.as_ref().map(|m| m.text.clone()).unwrap_or_default()
}

fn confirm_text(app: &App) -> String {
    let c = app.model.review.confirm.as_ref().expect("a confirm dialog is open");
    format!("{}\n{}", c.title, c.lines.join("\n"))
}

#[test]
fn the_watchers_echo_of_folios_own_write_keeps_the_verdicts_message() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "apis/refunds-v2");
    press(&mut app, &["a", "y"]);
    let said = message(&app);
    assert!(said.starts_with("approve: approved"), "{said}");
    // The watcher reports the files folio just wrote: reloaded, not announced.
    app.handle(Event::FilesChanged(vec![root.join("apis/refunds-v2.md"), root.join("log.md")]));
    app.settle(Duration::from_secs(10));
    assert_eq!(message(&app), said, "folio's own write is not an outside change");
    assert!(!queued(&app).contains(&"apis/refunds-v2".to_string()));

    // An agent's write after folio's is announced.
    let text = read(&root, "apis/refunds-v2.md").replace("status: stable", "status: draft");
    write(&root, "apis/refunds-v2.md", text);
    app.handle(Event::FilesChanged(vec![root.join("apis/refunds-v2.md")]));
    app.settle(Duration::from_secs(10));
    assert_eq!(message(&app), "reloaded 1 changed file(s)");
}
