//! App flows of the review pane on scratch copies of real stores: approve, veto with a reason,
//! edit then approve, merge with the target picked by fuzzy recall, bulk by filter, undo, a
//! conflict with an agent's edit, `$EDITOR`; and snapshots of the pane.
use crate::support;
use std::path::{Path, PathBuf};

use folio::app::App;
use folio::app::event::Event;
use support::tui::inbox::{go_to, masked, queued};
use support::tui::*;

fn demo() -> (tempfile::TempDir, PathBuf) {
    scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"))
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn confirm_text(app: &App) -> String {
    let c = app.model.review.confirm.as_ref().expect("a confirm dialog is open");
    format!("{}\n{}", c.title, c.lines.join("\n"))
}

#[test]
fn approve_veto_and_undo_restore_bytes() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    let before = queued(&app);
    assert_eq!(before.len(), 13);
    go_to(&mut app, "apis/refunds-v2");
    let original = read(&root, "apis/refunds-v2.md");
    press(&mut app, &["a"]);
    assert_eq!(app.model.mode(), "CONFIRM");
    let shown = confirm_text(&app);
    assert!(shown.starts_with("approve POST /v2/refunds (apis/refunds-v2)?"), "{shown}");
    assert!(shown.contains("  apis/refunds-v2.md"), "{shown}");
    assert!(shown.contains("log: approve by human:tester: approved"), "{shown}");
    assert!(shown.contains("+status: stable"), "{shown}");
    assert_eq!(read(&root, "apis/refunds-v2.md"), original, "nothing is written before y");
    press(&mut app, &["y"]);
    let approved = read(&root, "apis/refunds-v2.md");
    assert!(approved.contains("status: stable") && approved.contains("human:tester"), "{approved}");
    assert_eq!(queued(&app).len(), 12);
    assert!(!queued(&app).contains(&"apis/refunds-v2".to_string()));
    assert!(read(&root, "log.md").contains("apis/refunds-v2"));

    // Veto asks for a reason; an empty one is refused.
    go_to(&mut app, "apis/capture-payment");
    press(&mut app, &["x", "<Enter>"]);
    assert_eq!(app.model.message.as_ref().unwrap().text, "a veto needs a reason");
    type_text(&mut app, "wrong retry policy");
    press(&mut app, &["<Enter>"]);
    assert!(confirm_text(&app).contains("log: veto by human:tester: vetoed: wrong retry policy"));
    press(&mut app, &["y"]);
    assert!(read(&root, "apis/capture-payment.md").contains("wrong retry policy"));
    assert_eq!(queued(&app).len(), 11);

    // Undo (with its own confirm) restores the vetoed file byte-exact and re-queues it.
    let capture_before = std::fs::read(root.join("apis/capture-payment.md")).unwrap();
    press(&mut app, &["u"]);
    assert!(confirm_text(&app).starts_with("undo veto"), "{}", confirm_text(&app));
    press(&mut app, &["y"]);
    assert_ne!(std::fs::read(root.join("apis/capture-payment.md")).unwrap(), capture_before);
    assert!(!read(&root, "apis/capture-payment.md").contains("wrong retry policy"));
    assert_eq!(queued(&app).len(), 12);
    press(&mut app, &["u", "y"]);
    assert_eq!(read(&root, "apis/refunds-v2.md"), original, "undo is byte-exact");
    assert_eq!(queued(&app).len(), 13);
}

#[test]
fn cancel_writes_nothing_and_hidden_content_needs_two_confirmations() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "services/fraud-screening");
    let original = read(&root, "services/fraud-screening.md");
    press(&mut app, &["a", "n"]);
    assert!(app.model.review.confirm.is_none());
    assert_eq!(read(&root, "services/fraud-screening.md"), original);
    press(&mut app, &["a"]);
    assert!(confirm_text(&app).contains("hidden control characters"));
    press(&mut app, &["y"]);
    assert!(app.model.review.confirm.is_some(), "the first y only arms the second confirmation");
    assert_eq!(read(&root, "services/fraud-screening.md"), original);
    press(&mut app, &["y"]);
    assert!(app.model.review.confirm.is_none());
    assert!(read(&root, "services/fraud-screening.md").contains("human:tester"));
}

#[test]
fn edit_then_approve_is_one_previewed_change() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "runbooks/rotate-webhook-signing-secret");
    let original = read(&root, "runbooks/rotate-webhook-signing-secret.md");
    press(&mut app, &["e"]);
    assert_eq!(app.model.mode(), "EDIT");
    let ed = app.model.editor.as_ref().unwrap();
    assert!(ed.fields.iter().any(|f| f.key == "status" && f.original == "draft"));
    let body_field = ed.fields.len();
    for _ in 0..body_field {
        press(&mut app, &["<Tab>"]);
    }
    assert_eq!(app.model.editor.as_ref().unwrap().focus, body_field);
    type_text(&mut app, "Reviewed note. ");
    press(&mut app, &["<C-s>"]);
    assert!(app.model.editor.is_none());
    assert_eq!(read(&root, "runbooks/rotate-webhook-signing-secret.md"), original, "nothing is written before y");
    let shown = confirm_text(&app);
    assert!(
        shown.starts_with(
            "approve Rotate a merchant's webhook signing secret (runbooks/rotate-webhook-signing-secret)?"
        ),
        "{shown}"
    );
    assert!(shown.contains("1 file changes:") && shown.contains("+status: stable"), "{shown}");
    assert!(shown.contains("Reviewed note. "), "the edit is in the same diff: {shown}");
    press(&mut app, &["y"]);
    let saved = read(&root, "runbooks/rotate-webhook-signing-secret.md");
    assert!(saved.contains("status: stable") && saved.contains("Reviewed note. "), "{saved}");
    assert!(!queued(&app).contains(&"runbooks/rotate-webhook-signing-secret".to_string()));
    // One change, one undo.
    press(&mut app, &["u", "y"]);
    assert_eq!(read(&root, "runbooks/rotate-webhook-signing-secret.md"), original);
}

#[test]
fn merge_picks_the_target_by_fuzzy_recall_and_repoints_links() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "apis/refunds-v2");
    press(&mut app, &["m"]);
    type_text(&mut app, "apis/refunds");
    let picker = app.model.review.picker.as_ref().unwrap();
    let store = app.model.store.clone().unwrap();
    assert_eq!(store.entity(picker.hits[0]).id, "apis/refunds");
    press(&mut app, &["<Enter>"]);
    let ed = app.model.editor.as_ref().unwrap();
    assert!(ed.is_merge());
    assert!(ed.body_text().contains("## Merged from"), "pre-filled with both texts");
    press(&mut app, &["<C-s>"]);
    let shown = confirm_text(&app);
    assert!(
        shown.starts_with("merge POST /v2/refunds (apis/refunds-v2) into POST /v1/refunds (apis/refunds)?"),
        "{shown}"
    );
    assert!(shown.contains("apis/refunds-v2.md  (archived in the folio state)"), "{shown}");
    assert!(shown.contains("log: merge by human:tester: merged `apis/refunds-v2` into `apis/refunds`"), "{shown}");
    press(&mut app, &["y"]);
    assert!(!root.join("apis/refunds-v2.md").exists());
    assert!(read(&root, "apis/refunds.md").contains("merged_from"));
    let store = app.model.store.clone().unwrap();
    assert!(store.find("apis/refunds-v2").is_none_or(|i| store.entity(i).id != "apis/refunds-v2"));
}

#[test]
fn bulk_by_filter_previews_the_count() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    press(&mut app, &["f"]);
    type_text(&mut app, "status:draft");
    press(&mut app, &["<Enter>"]);
    assert_eq!(app.model.message.as_ref().unwrap().text, "3 of 13 queued items match");
    assert_eq!(app.model.review.visible().len(), 3);
    press(&mut app, &["A"]);
    let shown = confirm_text(&app);
    assert!(shown.starts_with("approve 3 entities?"), "{shown}");
    assert!(shown.contains("3 files change:"), "{shown}");
    press(&mut app, &["y"]);
    assert_eq!(app.model.review.visible().len(), 0);
    assert_eq!(app.model.review.items.len(), 10);
    for f in [
        "apis/refunds-v2.md",
        "decisions/adr-0012-multi-currency-settlement.md",
        "runbooks/rotate-webhook-signing-secret.md",
    ] {
        assert!(read(&root, f).contains("status: stable"), "{f}");
    }
}

#[test]
fn an_agent_edit_during_review_is_a_conflict_not_an_overwrite() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    go_to(&mut app, "apis/refunds-v2");
    press(&mut app, &["a"]);
    let agent = read(&root, "apis/refunds-v2.md").replace("status: draft", "status: draft\nnote: agent was here");
    write(&root, "apis/refunds-v2.md", &agent);
    press(&mut app, &["y"]);
    assert_eq!(read(&root, "apis/refunds-v2.md"), agent, "the agent's version is kept");
    let shown = confirm_text(&app);
    assert!(shown.contains("changed on disk since folio read it"), "{shown}");
    assert!(shown.contains("agent was here"), "{shown}");
    press(&mut app, &["<Esc>"]);
    assert!(queued(&app).contains(&"apis/refunds-v2".to_string()), "still awaiting a decision");
}

#[test]
fn live_reload_updates_the_queue() {
    let (_dir, root) = demo();
    let mut app = inbox::open(&root, (120, 40));
    write(
        &root,
        "apis/new-endpoint.md",
        "---\ntitle: New endpoint\ntype: API Endpoint\nstatus: draft\n---\nAn agent wrote this.\n",
    );
    app.handle(Event::FilesChanged(vec![root.join("apis/new-endpoint.md")]));
    app.settle(std::time::Duration::from_secs(10));
    assert_eq!(queued(&app).len(), 14);
    assert!(queued(&app).contains(&"apis/new-endpoint".to_string()));
}

#[test]
fn in_app_and_external_edits_from_the_preview() {
    let (_dir, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let mut app = app_on(&root, "dark", (120, 40));
    let id = app.model.preview.as_ref().unwrap().id.clone();
    let path = app.model.preview.as_ref().unwrap().path.clone();
    let before = read(&root, &path);
    press(&mut app, &["e"]);
    assert!(app.model.editor.as_ref().is_some_and(|e| e.seed.id == id && !e.then_approve));
    press(&mut app, &["<Esc>"]);
    assert!(app.model.editor.is_none());
    assert_eq!(read(&root, &path), before, "a discarded edit writes nothing");
    app.model.review.editor_command = Some("sed -i 's/$/ /;1s/ $//'".into());
    press(&mut app, &["E"]);
    folio::tui::external_editor::run_pending(&mut app);
    app.settle(std::time::Duration::from_secs(10));
    let after = read(&root, &path);
    assert_ne!(after, before, "{:?}", app.model.message);
    assert_eq!(after.lines().next(), before.lines().next());
    assert!(app.model.message.as_ref().unwrap().text.starts_with("saved "), "{:?}", app.model.message);
}

#[test]
fn snapshots_of_the_pane() {
    for size in [(80, 24), (120, 40)] {
        let (_dir, root) = demo();
        let mut app = inbox::open(&root, size);
        go_to(&mut app, "apis/refunds-v2");
        insta::assert_snapshot!(format!("review_demo_{}x{}", size.0, size.1), masked(&text(&render(&app))));
        press(&mut app, &["a"]);
        insta::assert_snapshot!(format!("review_confirm_{}x{}", size.0, size.1), masked(&text(&render(&app))));
        let (_dir2, fixture) = scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opendray-homelab"));
        let app = inbox::open(&fixture, size);
        insta::assert_snapshot!(format!("review_opendray_{}x{}", size.0, size.1), masked(&text(&render(&app))));
    }
}

/// The ids the catalog shows, in order.
fn catalog_ids(app: &App) -> Vec<String> {
    let store = app.model.store.clone().unwrap();
    let rows = app.model.rows.iter();
    rows.filter_map(|r| match r {
        folio::app::model::Row::Entity { idx, .. } => Some(store.entity(*idx).id.clone()),
        _ => None,
    })
    .collect()
}

/// The ids a catalog built now from the store for the model's filter shows.
fn catalog_built_now(app: &App) -> Vec<String> {
    let store = app.model.store.clone().unwrap();
    let tree = folio::store::read::tree::build(&store, &app.model.filter);
    let mut rows = Vec::new();
    folio::app::tree::update::flatten(&tree, "", 0, &app.model.collapsed, &mut rows);
    rows.iter()
        .filter_map(|r| match r {
            folio::app::model::Row::Entity { idx, .. } => Some(store.entity(*idx).id.clone()),
            _ => None,
        })
        .collect()
}

/// A veto that takes its entity out of the store changes the catalog: its tree is built by
/// the background job beside the store (for the filter then shown), not on the UI thread, and
/// it is the tree the store and filter give; a tree built for a filter no longer shown is not
/// taken.
#[test]
fn a_veto_that_takes_its_entity_away_shows_the_catalog_of_the_store_after_it() {
    let (_dir, root) = scratch(&support::fixture("evolve-project"));
    let mut app = app_on(&root, "dark", (120, 40));
    app.model.review.actor = "human:tester".into();
    press(&mut app, &["f"]);
    type_text(&mut app, "git");
    press(&mut app, &["<Enter>", "R"]);
    let id = "guideline/prefer-git-worktrees-for-parallel-branches";
    assert!(catalog_ids(&app).contains(&id.to_string()), "{:?}", catalog_ids(&app));
    go_to(&mut app, id);
    press(&mut app, &["x"]);
    type_text(&mut app, "wrong");
    press(&mut app, &["<Enter>"]);
    assert_eq!(app.model.mode(), "CONFIRM");
    press(&mut app, &["y"]);
    let shown = catalog_ids(&app);
    assert!(!shown.contains(&id.to_string()), "the vetoed entity is still in the catalog: {shown:?}");
    assert!(!shown.is_empty());
    assert_eq!(shown, catalog_built_now(&app));
    assert_eq!(app.model.filter.query, "git");

    // A tree that came with a store for another filter (the person typed meanwhile) is not
    // shown: the catalog is built for the filter shown.
    let gone = root.join(".evolve/entities/guideline/run-focused-tests-on-shared-machines.md");
    std::fs::remove_file(&gone).unwrap();
    let (fresh, report) = app.model.store.clone().unwrap().refreshed(&[gone]);
    let other = folio::store::read::tree::TreeFilter { query: "nothing matches this".into(), ..Default::default() };
    let stale = folio::store::read::tree::build(&fresh, &other);
    let built = folio::app::tree::built::BuiltTree { filter: other, tree: stale };
    app.handle(Event::Refreshed(Box::new(fresh), report, Vec::new(), Some(Box::new(built))));
    app.settle(std::time::Duration::from_secs(10));
    let shown = catalog_ids(&app);
    assert!(!shown.is_empty(), "a tree built for another filter was shown");
    assert_eq!(shown, catalog_built_now(&app));
}
