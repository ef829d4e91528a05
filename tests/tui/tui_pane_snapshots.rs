//! Snapshots of the recall overlay, the graph pane, the lint panel and the confirm dialog at
//! 80×24 and 120×40.
use crate::support;
use support::tui::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn snap(name: &str, app: &folio::app::App) {
    let (w, h) = app.model.size;
    insta::assert_snapshot!(format!("{name}_{w}x{h}"), text(&render(app)));
}

#[test]
fn recall_overlay() {
    for size in SIZES {
        let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", size);
        press(&mut app, &["/"]);
        snap("recall_empty", &app);
        type_text(&mut app, "margin");
        snap("recall_margin", &app);
        press(&mut app, &["<Down>"]);
        type_text(&mut app, " kind:metric");
        snap("recall_filtered", &app);
        press(&mut app, &["<C-s>"]);
        for _ in 0.." kind:metric".len() + "margin".len() {
            press(&mut app, &["<Backspace>"]);
        }
        type_text(&mut app, "post-conditions");
        snap("recall_sections", &app);
    }
}

#[test]
fn graph_pane() {
    let (_dir, root) = tricky_vault();
    for size in SIZES {
        let mut app = app_on(&root, "dark", size);
        press(&mut app, &["3"]);
        snap("graph_alpha", &app);
        press(&mut app, &["+"]);
        snap("graph_alpha_depth2", &app);
        press(&mut app, &["h"]);
        snap("graph_backlinks", &app);
    }
    let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", (120, 40));
    press(&mut app, &["j", "j", "j", "3"]);
    snap("graph_okf_metric", &app);
}

#[test]
fn lint_panel_and_confirm() {
    let (_tmp, root) = support::scratch(&support::fixture("lint-okf"));
    for size in SIZES {
        let mut app = app_on(&root, "dark", size);
        press(&mut app, &["4"]);
        snap("lint_by_rule", &app);
        press(&mut app, &["b", "j"]);
        snap("lint_by_file", &app);
        let report = app.model.lint.clone().unwrap();
        let store = app.model.store.clone().unwrap();
        let target = report.findings.iter().position(|f| f.rule == "legacy-trigger").unwrap();
        let rows = folio::app::lint::rows(&app.model.lint_view, &store, &report);
        let at = rows.iter().position(|r| *r == folio::app::lint::LintRow::Finding(target)).unwrap();
        press(&mut app, &["g", "g"]);
        for _ in 0..at {
            press(&mut app, &["j"]);
        }
        snap("lint_legacy_trigger", &app);
        press(&mut app, &["f"]);
        snap("confirm_fix", &app);
    }
}
