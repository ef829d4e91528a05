//! The lint panel's ignore flow (`i` asks why, `v` shows ignored findings, `I` stops ignoring)
//! and live re-linting of changed files, through the real keymap; snapshots of the reason
//! prompt and of the ignored group.
use crate::support;
use std::sync::Arc;
use std::time::Duration;

use folio::app::App;
use folio::app::event::Event;
use folio::app::lint::{LintRow, rows};
use folio::app::model::Overlay;
use folio::store::lint::{LintConfig, Linted};
use support::tui::*;

fn snap(name: &str, app: &App) {
    let (w, h) = app.model.size;
    insta::assert_snapshot!(format!("{name}_{w}x{h}"), text(&render(app)));
}

/// Move the panel's cursor onto `row`.
fn select(app: &mut App, row: &LintRow) {
    let (store, report) = (app.model.store.clone().unwrap(), app.model.lint.clone().unwrap());
    let at = rows(&app.model.lint_view, &store, &report).iter().position(|r| r == row).expect("row shown");
    press(app, &["g", "g"]);
    for _ in 0..at {
        press(app, &["j"]);
    }
}

fn orphan_row(app: &App) -> LintRow {
    let report = app.model.lint.clone().unwrap();
    let store = app.model.store.clone().unwrap();
    let i = report
        .findings
        .iter()
        .position(|f| f.rule == "orphan" && f.entity.is_some_and(|e| store.entity(e).id == "orphan"))
        .expect("the fixture's orphan");
    LintRow::Finding(i)
}

#[test]
fn ignore_with_a_reason_show_it_and_stop_ignoring() {
    let (_tmp, root) = support::scratch(&support::fixture("lint-okf"));
    let mut app = app_on(&root, "dark", (120, 40));
    press(&mut app, &["4"]);
    let before = app.model.lint.clone().unwrap();
    let row = orphan_row(&app);
    select(&mut app, &row);

    press(&mut app, &["i"]);
    assert!(matches!(app.model.overlays.last(), Some(Overlay::Reason { rule: "orphan", .. })));
    // A reason is required; typed keys (even bound ones like q) go into it.
    press(&mut app, &["<Enter>"]);
    assert_eq!(app.model.message.as_ref().unwrap().text, "an ignore needs a reason");
    type_text(&mut app, "entry point, q is typed");
    snap("ignore_reason_prompt", &app);
    press(&mut app, &["<Enter>"]);
    assert!(app.model.overlays.is_empty());
    // Issue 41: the status line says what was written where.
    let said = app.model.message.as_ref().unwrap().text.clone();
    assert!(said.starts_with("ignoring orphan on orphan · wrote .folio/config.toml"), "{said}");
    assert!(said.contains("logged to log.md"), "{said}");

    let config = std::fs::read_to_string(root.join(".folio/config.toml")).unwrap();
    assert!(
        config.contains("rule = \"orphan\"") && config.contains("reason = \"entry point, q is typed\""),
        "{config}"
    );
    let after = app.model.lint.clone().unwrap();
    assert_eq!(after.findings.len() + 1, before.findings.len());
    assert_eq!(after.suppressed.len(), 1);
    assert_eq!(after.suppressed[0].reason, "entry point, q is typed");
    assert!(text(&render(&app)).contains("· 1 ignored"));

    // v lists the ignored findings in their own group; I on one stops ignoring it.
    press(&mut app, &["v"]);
    assert!(app.model.lint_view.show_ignored);
    select(&mut app, &LintRow::Ignored(0));
    snap("lint_ignored_shown", &app);
    press(&mut app, &["i"]);
    assert!(app.model.message.as_ref().unwrap().text.contains("already ignored"));
    press(&mut app, &["I"]);
    let said = app.model.message.as_ref().unwrap().text.clone();
    assert!(said.starts_with("no longer ignoring orphan on orphan · wrote .folio/config.toml"), "{said}");
    let back = app.model.lint.clone().unwrap();
    assert!(back.suppressed.is_empty());
    assert_eq!(back.findings, before.findings);
    assert!(!std::fs::read_to_string(root.join(".folio/config.toml")).unwrap().contains("[[ignore]]"));
    // Both writes are in the store's log.
    let log = std::fs::read_to_string(root.join("log.md")).unwrap();
    assert!(log.contains("Ignore") && log.contains("Unignore"), "{log}");
}

#[test]
fn findings_not_about_an_entity_cannot_be_ignored() {
    let (_tmp, root) = support::scratch(&support::fixture("lint-okf"));
    let mut app = app_on(&root, "dark", (120, 40));
    press(&mut app, &["4"]);
    let report = app.model.lint.clone().unwrap();
    let i = report.findings.iter().position(|f| f.entity.is_none()).expect("a file-level finding");
    select(&mut app, &LintRow::Finding(i));
    press(&mut app, &["i"]);
    assert!(app.model.overlays.is_empty());
    assert!(app.model.message.as_ref().unwrap().text.contains("not about an entity"));
}

#[test]
fn changed_files_are_relinted_incrementally_and_match_a_full_pass() {
    let (_tmp, root) = support::scratch(&support::fixture("lint-okf"));
    let mut app = app_on(&root, "dark", (120, 40));
    let first = app.model.store.clone().unwrap();
    assert!(app.model.lint_base.as_ref().is_some_and(|(s, _)| Arc::ptr_eq(s, &first)));
    // An agent edits one file (a new broken link) and adds another linking to the orphan.
    let good = std::fs::read_to_string(root.join("good.md")).unwrap();
    write(&root, "good.md", format!("{good}\nSee [later](/not-yet.md).\n"));
    write(&root, "fan.md", "---\ntype: Note\ntitle: Fan\ndescription: Links.\n---\n[o](/orphan.md)\n");
    app.handle(Event::FilesChanged(vec![root.join("good.md"), root.join("fan.md")]));
    app.settle(Duration::from_secs(10));
    let store = app.model.store.clone().unwrap();
    assert!(!Arc::ptr_eq(&store, &first), "the store was refreshed");
    assert!(app.model.lint_base.as_ref().is_some_and(|(s, _)| Arc::ptr_eq(s, &store)), "linted the new store");
    let report = app.model.lint.clone().unwrap();
    let full = Linted::full(&store, &LintConfig::load(&root, store.kind()).unwrap());
    assert_eq!(*report, *full.report);
    assert!(report.findings.iter().any(|f| f.message.contains("/not-yet.md")));
    let orphaned = |id: &str| {
        report.findings.iter().any(|f| f.rule == "orphan" && f.entity.is_some_and(|e| store.entity(e).id == id))
    };
    assert!(!orphaned("orphan"), "now linked from fan.md");
    assert!(orphaned("fan"));
}

/// Issue 41: a finding's key on a group's header row says why it does nothing.
#[test]
fn finding_keys_on_a_group_header_say_it_is_a_header() {
    let (_tmp, root) = support::scratch(&support::fixture("lint-okf"));
    let mut app = app_on(&root, "dark", (120, 40));
    press(&mut app, &["4"]);
    let (store, report) = (app.model.store.clone().unwrap(), app.model.lint.clone().unwrap());
    let header = rows(&app.model.lint_view, &store, &report)
        .into_iter()
        .find(|r| matches!(r, LintRow::Group { .. }))
        .expect("findings grouped under headers");
    select(&mut app, &header);
    for (key, says) in [("i", "i ignores a finding"), ("f", "f fixes a finding"), ("I", "I stops ignoring a finding")] {
        app.model.message = None;
        press(&mut app, &[key]);
        let said = app.model.message.as_ref().map(|m| m.text.clone()).unwrap_or_default();
        assert!(said.starts_with(says) && said.contains("group's header"), "{key}: {said:?}");
        assert!(app.model.overlays.is_empty(), "{key} opened something on a header");
    }
}
