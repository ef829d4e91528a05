//! App flows of the recall overlay, the graph pane and the lint panel, through the real keymap.
use crate::support;
use std::time::Duration;

use folio::app::App;
use folio::app::model::{Overlay, Pane, Side};
use support::tui::*;

fn open_id(app: &App) -> String {
    app.model.preview.as_ref().map(|p| p.id.clone()).unwrap_or_default()
}

fn result_ids(app: &App) -> Vec<String> {
    let store = app.model.store.clone().unwrap();
    let engine = app.model.recall.as_ref().expect("recall engine");
    engine.results(0, 50).into_iter().map(|(h, _, _)| store.entity(h.idx).id.clone()).collect()
}

#[test]
fn recall_finds_opens_and_remembers() {
    let (_tmp, root) = support::scratch(&corpus("okf-v0.2/acme_retail"));
    let mut app = app_on(&root, "dark", (100, 30));
    // The person's state folder, this test's own; the store must stay as it was.
    let state = tempfile::tempdir().unwrap();
    app.model.state_dir = Some(state.path().to_path_buf());
    let before = support::tree(&root, &[]);
    press(&mut app, &["/"]);
    assert_eq!(app.model.mode(), "RECALL");
    type_text(&mut app, "gross margin");
    let ids = result_ids(&app);
    assert_eq!(ids[0], "metrics/gross-margin", "{ids:?}");
    assert!(ids.contains(&"metrics/gross-margin-legacy".to_string()));
    // The TUI ranks exactly as `folio recall --text` does: fields and bodies.
    let store = app.model.store.clone().unwrap();
    let index = folio::recall::text::TextRecall::build(&store);
    let q = folio::recall::Query::parse("gross margin");
    let headless: Vec<String> =
        index.search_as_typed(&store, &q, &[], 50).iter().map(|h| store.entity(h.idx).id.clone()).collect();
    assert_eq!(ids, headless);
    let screen = text(&render(&app));
    assert!(screen.contains("Recall · entities"), "{screen}");
    assert!(screen.contains("[Metric]"), "kind badge: {screen}");
    press(&mut app, &["<Enter>"]);
    assert!(app.model.overlays.is_empty());
    assert_eq!(open_id(&app), "metrics/gross-margin");
    assert_eq!(app.model.focus, Pane::Preview);
    let dir = folio::store::keep::personal::store_dir(state.path(), &root);
    let history = std::fs::read_to_string(dir.join("recall-history")).unwrap();
    assert_eq!(history, "gross margin\n");
    assert_eq!(support::tree(&root, &[]), before, "recall wrote nothing into the store");
    assert!(!root.join(".folio").exists());
    // Reopened with an empty query, recall lists the recent query; Enter puts it back.
    press(&mut app, &["<C-p>"]);
    assert!(text(&render(&app)).contains("recent queries"));
    press(&mut app, &["<Enter>"]);
    assert!(matches!(app.model.overlays.last(), Some(Overlay::Recall { query, .. }) if query == "gross margin"));
    press(&mut app, &["<Esc>"]);
    assert!(app.model.overlays.is_empty());
}

#[test]
fn recall_filters_combine_with_text() {
    // A concept without a description, so that `has:lint` has something to find.
    let (_tmp, root) = support::scratch(&corpus("okf-v0.2/acme_retail"));
    write(
        &root,
        "policies/draft-policy.md",
        "---\ntype: Policy\ntitle: Draft policy\n---\n# Draft\n\nSee [margin](margin-standard.md).\n",
    );
    let mut app = app_on(&root, "dark", (100, 30));
    let store = app.model.store.clone().unwrap();
    let metrics = store.entities.iter().filter(|e| e.kind.as_deref() == Some("Metric")).count();
    press(&mut app, &["/"]);
    type_text(&mut app, "kind:metric");
    assert_eq!(app.model.recall.as_ref().unwrap().matched(), metrics);
    assert!(metrics >= 3);
    type_text(&mut app, " revenue");
    let ids = result_ids(&app);
    assert_eq!(ids[0], "metrics/revenue", "{ids:?}");
    assert!(ids.iter().all(|id| id.starts_with("metrics/")), "{ids:?}");
    // has:lint follows the lint engine's findings.
    for _ in 0.." revenue".len() + "kind:metric".len() {
        press(&mut app, &["<Backspace>"]);
    }
    type_text(&mut app, "has:lint");
    let flagged = app.model.lint_flags.iter().filter(|&&f| f).count();
    assert!(flagged > 0);
    assert_eq!(app.model.recall.as_ref().unwrap().matched(), flagged);
}

#[test]
fn recall_sections_open_at_their_heading() {
    // A scratch copy: choosing a result remembers the query in the store's .folio dir.
    let (_tmp, root) = support::scratch(&corpus("okf-v0.2/acme_retail"));
    let mut app = app_on(&root, "dark", (100, 30));
    press(&mut app, &["/", "<C-s>"]);
    assert!(app.model.recall_sections);
    type_text(&mut app, "post-conditions");
    let engine = app.model.recall.as_ref().unwrap();
    let (hit, _, _) = engine.results(0, 1).remove(0);
    let section = hit.section.expect("a section result first");
    assert_eq!((section.heading.as_str(), section.line), ("Post-conditions", 40));
    press(&mut app, &["<Enter>"]);
    assert_eq!(open_id(&app), "skills/run-on-bq");
    let p = app.model.preview.as_ref().unwrap();
    let row = p.mark.as_ref().and_then(|m| m.row).expect("the heading was found in the preview");
    assert!(p.scroll > 0 && p.scroll <= row, "scrolled to the heading: scroll {} row {row}", p.scroll);
    assert!(text(&render(&app)).contains("Post-conditions"));
}

#[test]
fn graph_recentres_goes_back_and_exports() {
    let (_dir, root) = tricky_vault();
    let mut app = app_on(&root, "dark", (100, 30));
    assert_eq!(open_id(&app), "notes/alpha");
    press(&mut app, &["3"]);
    assert_eq!((app.model.focus, app.model.main), (Pane::Graph, Pane::Graph));
    let laid = app.model.graph.laid.clone().expect("laid out by the worker");
    assert_eq!(laid.nodes.len(), 2, "alpha and beta");
    let screen = text(&render(&app));
    assert!(screen.contains("3 Graph: Alpha · depth 1"), "{screen}");
    assert!(screen.contains("outbound (2, 1 broken)"), "{screen}");
    assert!(screen.contains("✗ missing-page (broken)"), "{screen}");
    assert!(screen.contains("← backlinks (1)"), "{screen}");
    // Outbound row 0 is Beta: Enter re-centres on it; Backspace comes back.
    press(&mut app, &["<Enter>"]);
    assert_eq!(open_id(&app), "notes/beta");
    assert!(text(&render(&app)).contains("3 Graph: Beta"));
    press(&mut app, &["<Backspace>"]);
    assert_eq!(open_id(&app), "notes/alpha");
    // The broken target cannot be a centre.
    press(&mut app, &["j", "<Enter>"]);
    assert_eq!(open_id(&app), "notes/alpha");
    assert!(app.model.message.as_ref().unwrap().warn);
    press(&mut app, &["h"]);
    assert_eq!(app.model.graph.side, Side::Backlinks);
    press(&mut app, &["+", "+", "+"]);
    assert_eq!(app.model.graph.depth, 3);
    assert_eq!(app.model.graph.laid.as_ref().unwrap().depth, 3);
    press(&mut app, &["-", "e"]);
    let dot = std::fs::read_to_string(root.join(".folio/exports/notes-alpha-d2.dot")).unwrap();
    assert!(dot.contains("\"notes/alpha\" -> \"notes/beta\";"), "{dot}");
    assert!(app.model.message.as_ref().unwrap().text.starts_with("exported 2 nodes to "));
}

#[test]
fn dense_hub_pages_its_backlinks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("hub-vault");
    write(&root, "hub.md", "# Hub\n");
    for n in 0..9000 {
        write(&root, &format!("n/{n:04}.md"), "[[hub]]\n");
    }
    let mut app = app_on(&root, "dark", (100, 30));
    let hub = app.model.store.as_ref().unwrap().find("hub").unwrap();
    // Open the hub through recall, then browse its backlinks a page at a time.
    press(&mut app, &["/"]);
    type_text(&mut app, "hub");
    press(&mut app, &["<Enter>", "3", "h"]);
    assert_eq!(app.model.open_entity(), Some(hub));
    assert!(app.model.graph.laid.as_ref().unwrap().dense);
    press(&mut app, &["<PageDown>", "<PageDown>"]);
    let screen = text(&render(&app));
    assert!(screen.contains("← backlinks (9000)"), "{screen}");
    assert!(screen.contains("too dense to draw"), "{screen}");
    let page = folio::app::graph::neighbourhood::page_rows(
        folio::app::layout::panes(ratatui::layout::Rect::new(0, 0, 100, 30), folio::app::settings::sidebar::DEFAULT)
            .unwrap()
            .preview,
        true,
    );
    // The lists take the height the canvas would have: "too dense to draw" is one line.
    assert!(page >= 20, "{page}");
    assert_eq!(app.model.graph.cursor, 2 * page);
    assert!(screen.contains(&format!(" 3/{} ", 9000usize.div_ceil(page))), "{screen}");
    press(&mut app, &["G"]);
    assert_eq!(app.model.graph.cursor, 8999);
}

#[test]
fn lint_panel_groups_jumps_and_fixes_with_a_diff() {
    let (_tmp, root) = support::scratch(&support::fixture("lint-okf"));
    let mut app = app_on(&root, "dark", (120, 40));
    let report = app.model.lint.clone().expect("linted after load");
    press(&mut app, &["4"]);
    assert_eq!(app.model.main, Pane::Lint);
    let screen = text(&render(&app));
    let s = report.summary();
    assert!(screen.contains(&format!("4 Lint: {} errors · {} warnings", s.errors, s.warnings)), "{screen}");
    assert!(screen.contains("by rule · severity all"), "{screen}");
    // Severity filter: only errors remain.
    press(&mut app, &["s"]);
    assert!(text(&render(&app)).contains("severity error"));
    let store = app.model.store.clone().unwrap();
    let rows = folio::app::lint::rows(&app.model.lint_view, &store, &report);
    let shown = rows.iter().filter(|r| matches!(r, folio::app::lint::LintRow::Finding(_))).count();
    assert_eq!(shown, s.errors);
    press(&mut app, &["s", "s", "s", "b"]);
    assert!(app.model.lint_view.by_file && app.model.lint_view.severity.is_none());
    // Walk to wiki.md's wikilink finding: its context shows the line with the span marked.
    let target = report.findings.iter().position(|f| f.rule == "wikilink-syntax").unwrap();
    let rows = folio::app::lint::rows(&app.model.lint_view, &store, &report);
    let at = rows.iter().position(|r| *r == folio::app::lint::LintRow::Finding(target)).unwrap();
    for _ in 0..at {
        press(&mut app, &["j"]);
    }
    let f = &report.findings[target];
    let ctx = app.model.lint_view.context.clone().expect("context read");
    assert_eq!((ctx.path.as_str(), ctx.line), ("wiki.md", f.line));
    assert!(text(&render(&app)).contains(&format!("{:>5}▶│ ", f.line)));
    // Enter jumps to the entity with the offending line marked in the preview.
    press(&mut app, &["<Enter>"]);
    assert_eq!(app.model.main, Pane::Preview);
    assert_eq!(open_id(&app), store.entity(f.entity.unwrap()).id);
    assert!(app.model.preview.as_ref().unwrap().mark.as_ref().unwrap().row.is_some());
    // Back in the panel, f shows the diff and y writes it.
    press(&mut app, &["4", "f"]);
    let Some(Overlay::Confirm { diff, .. }) = app.model.overlays.last().cloned() else { panic!("a confirm dialog") };
    assert!(diff.iter().any(|l| l == "+++ b/wiki.md"), "{diff:?}");
    assert!(diff.iter().any(|l| l.starts_with('+') && l.contains("[good](/good.md)")), "{diff:?}");
    assert!(text(&render(&app)).contains("y write · n cancel"));
    let before = std::fs::read_to_string(root.join("wiki.md")).unwrap();
    press(&mut app, &["n"]);
    assert_eq!(std::fs::read_to_string(root.join("wiki.md")).unwrap(), before, "cancel writes nothing");
    press(&mut app, &["f", "y"]);
    app.settle(Duration::from_secs(10));
    let after = std::fs::read_to_string(root.join("wiki.md")).unwrap();
    assert_eq!(after, before.replacen("[[good]]", "[good](/good.md)", 1));
    // The write reloaded the fixed file at once (no watcher runs in tests) and linted again; the
    // fix's own message stays (folio's own write is not announced as an outside change).
    assert_eq!(
        app.model.message.as_ref().unwrap().text,
        "fixed 1 finding in 1 file · wrote wiki.md · logged to log.md"
    );
    let relinted = app.model.lint.clone().unwrap();
    let wikilinks = |r: &folio::store::lint::Report| r.findings.iter().filter(|f| f.rule == "wikilink-syntax").count();
    assert_eq!(wikilinks(&relinted), wikilinks(&report) - 1, "[[nowhere]] does not resolve and stays");
}

/// On a store large enough for the content rules' kept state, the state is built once the first
/// report is shown, not by the first change an agent makes (which would then cost more than the
/// next ones).
#[test]
fn a_large_store_prepares_its_first_relint_once_linted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    folio_gen::generate_shaped(folio::store::dialect::vault::KIND, 640, 5, &root, folio_gen::Shape::Wild).unwrap();
    let app = app_on(&root, "dark", (120, 40));
    let (store, linted) = app.model.lint_base.clone().expect("linted after load");
    assert!(linted.changed_from().is_none(), "a full pass");
    let profiles = || folio::store::lint::near_duplicate::all_profiles(&store);
    assert!(!linted.prepare_relint(&store, &profiles), "the app built the content rules' state already");
}
