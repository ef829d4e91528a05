//! Issue 26, the TUI side: a verdict's message survives the watcher's echo of folio's own write,
//! edit-then-approve is one previewed plan, and the keys that used to lose work (Enter in the
//! veto reason, Esc in the editor, q in the inbox, u in browse mode, the bulk dialog).
use crate::support;
use std::path::{Path, PathBuf};
use std::time::Duration;

use folio::app::App;
use folio::app::event::Event;
use support::tui::inbox::{self, go_to, queued};
use support::tui::*;

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
    assert!(said.starts_with("approve apis/refunds-v2: approved"), "{said}");
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
    // It is announced after what folio said last, which stays in view.
    assert_eq!(message(&app), format!("{said} · reloaded 1 changed file"));
}

#[test]
fn enter_answering_the_veto_reason_does_not_also_apply_the_veto() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "apis/capture-payment");
    let original = read(&root, "apis/capture-payment.md");
    press(&mut app, &["x"]);
    type_text(&mut app, "wrong retry policy");
    press(&mut app, &["<Enter>", "<Enter>"]);
    assert!(
        confirm_text(&app).starts_with("veto POST /v1/payments/{id}/capture (apis/capture-payment)?"),
        "the dialog is still shown"
    );
    assert_eq!(read(&root, "apis/capture-payment.md"), original, "a double Enter writes nothing");
    assert!(message(&app).contains("press y to apply"), "{}", message(&app));
    press(&mut app, &["y"]);
    assert!(read(&root, "apis/capture-payment.md").contains("wrong retry policy"));
}

#[test]
fn esc_in_the_editor_asks_before_discarding_edits() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "runbooks/rotate-webhook-signing-secret");
    // Nothing typed: Esc closes at once.
    press(&mut app, &["e", "<Esc>"]);
    assert!(app.model.editor.is_none());
    press(&mut app, &["e"]);
    let body_field = app.model.editor.as_ref().unwrap().fields.len();
    for _ in 0..body_field {
        press(&mut app, &["<Tab>"]);
    }
    type_text(&mut app, "Kept note. ");
    press(&mut app, &["<Esc>"]);
    let ed = app.model.editor.as_ref().expect("one Esc keeps the edit open");
    assert!(ed.body_text().contains("Kept note. "));
    assert!(message(&app).starts_with("unsaved edits: Esc again discards them"), "{}", message(&app));
    // Typing again disarms it; then two Esc discard.
    type_text(&mut app, "x");
    press(&mut app, &["<Esc>"]);
    assert!(app.model.editor.is_some());
    press(&mut app, &["<Esc>"]);
    assert!(app.model.editor.is_none());
    assert_eq!(message(&app), "edit discarded; nothing was written");
    assert!(!read(&root, "runbooks/rotate-webhook-signing-secret.md").contains("Kept note."));
}

#[test]
fn q_in_the_inbox_closes_it_rather_than_quitting() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    press(&mut app, &["q"]);
    assert!(!app.model.review.open, "q closes the inbox");
    assert!(!app.model.quit, "and does not quit folio");
    press(&mut app, &["q"]);
    assert!(app.model.quit, "outside the inbox q still quits");
}

#[test]
fn u_undoes_from_browse_mode_names_the_entity_and_is_in_help() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "apis/refunds-v2");
    let original = read(&root, "apis/refunds-v2.md");
    press(&mut app, &["a", "y", "R"]);
    assert!(!app.model.review.open);
    press(&mut app, &["u"]);
    let shown = confirm_text(&app);
    assert!(shown.starts_with("undo approve of POST /v2/refunds (apis/refunds-v2): approved"), "{shown}");
    press(&mut app, &["y"]);
    assert_eq!(read(&root, "apis/refunds-v2.md"), original);
    assert_eq!(message(&app), "undone · put back apis/refunds-v2.md as they were · logged to log.md");

    // Help, filtered by "undo", lists the key in browse mode.
    press(&mut app, &["?"]);
    type_text(&mut app, "undo");
    let context = app.model.focus.context();
    let rows = folio::app::input::help_rows(&app.model, context, "undo");
    assert!(rows.iter().any(|(_, keys, _, a)| keys == "u" && *a == folio::app::action::Action::Undo), "{rows:?}");
}

#[test]
fn bulk_approve_lists_the_entities_it_approves() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    press(&mut app, &["f"]);
    type_text(&mut app, "status:draft");
    press(&mut app, &["<Enter>", "A"]);
    let shown = confirm_text(&app);
    // In inbox order: newest draft first.
    let listed = "3 entities:\n  Rotate a merchant's webhook signing secret (runbooks/rotate-webhook-signing-secret)\n  \
                  POST /v2/refunds (apis/refunds-v2)\n  \
                  ADR-0012: Multi-currency settlement (decisions/adr-0012-multi-currency-settlement)\n3 files change:";
    assert!(shown.contains(listed), "{shown}");
}

/// Every file under `dir` (hidden folio state included) with its bytes, sorted.
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

/// Open the editor on the selected item, move to the body and type `text` at its start.
fn edit_body(app: &mut App, text: &str) {
    press(app, &["e"]);
    let body_field = app.model.editor.as_ref().expect("the editor is open").fields.len();
    for _ in 0..body_field {
        press(app, &["<Tab>"]);
    }
    type_text(app, text);
}

#[test]
fn edit_then_approve_cancelled_writes_nothing_at_all() {
    let (_dir, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "skills/run-on-bq");
    let before = snapshot(&root);
    edit_body(&mut app, "Checked by hand. ");
    press(&mut app, &["<C-s>"]);
    let shown = confirm_text(&app);
    assert!(shown.contains("Checked by hand. "), "{shown}");
    assert!(!shown.contains("0 files change"), "{shown}");
    press(&mut app, &["n"]);
    assert_eq!(message(&app), "cancelled; nothing was written");
    assert!(snapshot(&root) == before, "n wrote nothing: no edit, no catalog");
}

#[test]
fn awareness_edit_then_approve_keeps_the_entry_one_line_and_approves_it() {
    let (_dir, root) = scratch(&fixture("awareness-home"));
    let mut app = inbox::open(&root, (120, 40));
    let id = app
        .model
        .review
        .items
        .iter()
        .find(|i| i.status.as_deref() == Some("candidate") && i.title.contains("Grafana"))
        .map(|i| i.id.clone())
        .expect("the Grafana candidate");
    go_to(&mut app, &id);
    press(&mut app, &["e"]);
    // The framework files a promoted entry under a kind (`memory promote --kind`): asked first.
    let label = app.model.review.prompt.as_ref().unwrap().label();
    assert!(label.contains("(1 Preferences · 2 Patterns · 3 Project Conventions · 4 Review Guidance"), "{label}");
    type_text(&mut app, "pattern");
    press(&mut app, &["<Enter>"]);
    let body_field = app.model.editor.as_ref().unwrap().fields.len();
    for _ in 0..body_field {
        press(&mut app, &["<Tab>"]);
    }
    press(&mut app, &["<End>"]);
    type_text(&mut app, " [checked]");
    press(&mut app, &["<C-s>"]);
    let shown = confirm_text(&app);
    assert!(shown.starts_with("approve ") && shown.contains(&format!("({id})?")), "{shown}");
    press(&mut app, &["y"]);
    let text = read(&root, "memory/long-term.md");
    let edited = "- 2026-08-11: Grafana dashboards are exported to git every night (evidence: memory note) [checked]";
    let at = text.find(edited).unwrap_or_else(|| panic!("the edited entry is written once: {text}"));
    let candidates = text.find("## Promotion Candidates").unwrap();
    assert!(at < candidates, "approved: the entry left Promotion Candidates\n{text}");
    let section = &text[candidates..text.find("## Review Notes").unwrap()];
    assert!(!section.contains("Grafana"), "{section}");
    let entries: Vec<&str> = section.trim_end().lines().skip(2).collect();
    assert!(entries.iter().all(|l| l.starts_with("- ")), "no blank line inside: {section}");
    // The edit gave the entry a new key: the approval is remembered under it, so it leaves the inbox.
    let left: Vec<_> = app.model.review.items.iter().filter(|i| i.title.contains("Grafana")).map(|i| &i.id).collect();
    assert!(left.is_empty(), "approved under its new key: {left:?}");
}

#[test]
fn an_unknown_reviewer_is_asked_once_and_remembered() {
    let (dir, root) = demo();
    let mut app = app_on(&root, "dark", (120, 40));
    app.model.review.actor = folio::app::settings::reviewer::UNKNOWN.into();
    let file = dir.path().join("config/folio/reviewer");
    app.model.review.reviewer_file = Some(file.clone());
    // Undo from browse mode records who undid it too: it asks first (Esc drops the question).
    press(&mut app, &["u"]);
    assert!(app.model.review.prompt.as_ref().unwrap().label().starts_with("who is reviewing?"));
    press(&mut app, &["<Esc>"]);
    assert!(app.model.review.prompt.is_none() && app.model.review.confirm.is_none());
    press(&mut app, &["R"]);
    go_to(&mut app, "apis/refunds-v2");
    press(&mut app, &["a"]);
    assert!(app.model.review.confirm.is_none(), "nothing is planned for human:unknown");
    assert!(app.model.review.prompt.as_ref().unwrap().label().starts_with("who is reviewing?"));
    type_text(&mut app, "ann lee");
    press(&mut app, &["<Enter>"]);
    assert!(message(&app).contains("without spaces"), "{}", message(&app));
    press(&mut app, &["<Backspace>", "<Backspace>", "<Backspace>", "<Backspace>", "<Enter>"]);
    assert!(confirm_text(&app).contains("log: approve by human:ann:"), "{}", confirm_text(&app));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "human:ann\n");
    assert_eq!(folio::app::settings::reviewer::load(&file).as_deref(), Some("human:ann"));
    // Asked once: the next verdict goes straight to its dialog.
    press(&mut app, &["n", "x"]);
    assert_eq!(app.model.review.prompt.as_ref().unwrap().label(), "veto POST /v2/refunds (apis/refunds-v2): reason");
}

#[test]
fn awareness_edit_then_approve_without_a_change_keeps_the_entry_key() {
    let (_dir, root) = scratch(&fixture("awareness-home"));
    let mut app = inbox::open(&root, (120, 40));
    let id = app
        .model
        .review
        .items
        .iter()
        .find(|i| i.status.as_deref() == Some("candidate") && i.title.contains("Grafana"))
        .map(|i| i.id.clone())
        .expect("the Grafana candidate");
    go_to(&mut app, &id);
    let before = read(&root, "memory/long-term.md");
    let line = before.lines().find(|l| l.contains("Grafana")).unwrap().to_string();
    press(&mut app, &["e"]);
    type_text(&mut app, "project");
    press(&mut app, &["<Enter>", "<C-s>"]);
    let shown = confirm_text(&app);
    assert!(shown.starts_with("approve ") && shown.contains(&format!("({id})?")), "{shown}");
    press(&mut app, &["y"]);
    let text = read(&root, "memory/long-term.md");
    assert_eq!(text.matches(&line).count(), 1, "the entry moved as it was, one line: {text}");
    assert_eq!(text.lines().count(), before.lines().count(), "no line added or lost");
    let store = folio::store::Store::open(&root, None).unwrap();
    assert!(store.find(&id).is_some_and(|i| store.entity(i).id == id), "{id} keeps its key");
    assert!(!app.model.review.items.iter().any(|i| i.id == id), "approved under {id}");
}

/// Approving an awareness candidate whose section folio cannot infer asks for it, as the
/// framework's `memory promote --kind` does (issue 39: a plain approve filed everything under
/// Patterns), listing the long-term memory's sections by number, and files it there.
#[test]
fn awareness_approve_asks_for_the_kind() {
    let (_dir, root) = scratch(&fixture("awareness-home"));
    let mut app = inbox::open(&root, (120, 40));
    let id = app
        .model
        .review
        .items
        .iter()
        .find(|i| i.status.as_deref() == Some("candidate") && i.title.contains("Grafana"))
        .map(|i| i.id.clone())
        .expect("the Grafana candidate");
    go_to(&mut app, &id);
    press(&mut app, &["a"]);
    assert!(app.model.review.confirm.is_none(), "nothing is planned before the kind is known");
    let label = app.model.review.prompt.as_ref().unwrap().label().to_string();
    assert_eq!(
        label,
        format!(
            "file Grafana dashboards are exported to git every night ({id}) under \
             (1 Preferences · 2 Patterns · 3 Project Conventions · 4 Review Guidance: a number or a name)"
        )
    );
    press(&mut app, &["<Enter>"]);
    assert!(message(&app).contains("type its number or name"), "{}", message(&app));
    type_text(&mut app, "1");
    press(&mut app, &["<Enter>"]);
    assert!(confirm_text(&app).contains(&format!("({id})?")), "{}", confirm_text(&app));
    press(&mut app, &["y"]);
    let text = read(&root, "memory/long-term.md");
    let grafana = text.find("Grafana dashboards").unwrap();
    assert!(grafana < text.find("## Patterns").unwrap(), "filed under Preferences: {text}");
}

/// Issue 41: a verdict moves the selection to the next item (`a`, `y` decides one item after
/// another), and `u` brings the decided item back selected.
#[test]
fn after_a_verdict_the_next_item_is_selected_and_u_returns_to_the_decided_one() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "apis/refunds-v2");
    let at = app.model.review.cursor;
    let next = app.model.review.visible()[at + 1].id.clone();
    press(&mut app, &["a", "y"]);
    assert!(!queued(&app).contains(&"apis/refunds-v2".to_string()));
    assert_eq!(inbox::selected(&app), next, "the item after the decided one is selected");
    press(&mut app, &["u", "y"]);
    assert!(queued(&app).contains(&"apis/refunds-v2".to_string()), "the undo brought it back");
    assert_eq!(inbox::selected(&app), "apis/refunds-v2", "the cursor is back on the restored item");
}

/// Issue 41: promoting an awareness candidate offers every section of the long-term memory —
/// by number in the prompt when folio cannot infer one, straight to the dialog (Tab for the
/// others) when it can.
#[test]
fn awareness_promote_offers_every_section() {
    let (_dir, root) = scratch(&fixture("awareness-home"));
    let mut app = inbox::open(&root, (120, 40));
    let find = |app: &folio::app::App, words: &str| {
        app.model.review.items.iter().find(|i| i.title.contains(words)).map(|i| i.id.clone()).expect(words)
    };
    let grafana = find(&app, "Grafana");
    go_to(&mut app, &grafana);
    press(&mut app, &["p"]);
    let label = app.model.review.prompt.as_ref().unwrap().label();
    assert_eq!(
        label,
        "promote to (1 Preferences · 2 Patterns · 3 Project Conventions · 4 Review Guidance: a number or a name)"
    );
    type_text(&mut app, "3");
    press(&mut app, &["<Enter>"]);
    let shown = confirm_text(&app);
    assert!(shown.contains("files under: ## Project Conventions (chosen)"), "{shown}");
    press(&mut app, &["y"]);
    let text = read(&root, "memory/long-term.md");
    let at = text.find("Grafana dashboards").unwrap();
    assert!(
        text.find("## Project Conventions").unwrap() < at && at < text.find("## Review Guidance").unwrap(),
        "{text}"
    );
    // Inferred: the dialog at once, Tab to the next section.
    let restic = find(&app, "restic");
    go_to(&mut app, &restic);
    press(&mut app, &["p"]);
    assert!(app.model.review.prompt.is_none(), "no question first");
    assert!(
        confirm_text(&app).contains("files under: ## Patterns (inferred: a repeated candidate"),
        "{}",
        confirm_text(&app)
    );
    press(&mut app, &["<Tab>"]);
    assert!(confirm_text(&app).contains("files under: ## Project Conventions (chosen; folio inferred Patterns)"));
    assert!(confirm_text(&app).starts_with("promote "), "{}", confirm_text(&app));
}
