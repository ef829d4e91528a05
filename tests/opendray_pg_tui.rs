//! The review pane on opendray's live brain: approve, promote, veto, undo and merge by keys,
//! with the rows checked after each.
#[path = "support/pg.rs"]
mod pg;
#[path = "support/opendray_seed.rs"]
mod seed;
mod tui_support;

use std::path::Path;

use serde_json::json;
use tui_support::inbox::{go_to, queued};
use tui_support::*;

#[test]
fn the_inbox_decides_on_rows() {
    pg::state_dir();
    let Some(pg) = pg::Pg::start() else { return };
    let mut c = pg.opendray_db("brain");
    seed::homelab(&mut c);
    let mut app = inbox::open(Path::new(&pg.conninfo("brain")), (120, 40));
    let q = queued(&app);
    assert!(q.contains(&"svc-pg".to_string()) && q.contains(&"pb-deploy".to_string()), "{q:?}");

    go_to(&mut app, "svc-pg");
    press(&mut app, &["a", "y"]);
    assert_eq!(seed::row(&mut c, "svc-pg")["provenance"]["approved"]["by"], "human:tester");

    go_to(&mut app, "pb-deploy");
    press(&mut app, &["p", "<Enter>", "y"]);
    assert_eq!(seed::row(&mut c, "pb-deploy")["maturity"], "fact");

    go_to(&mut app, "svc-pg-dup");
    press(&mut app, &["x"]);
    type_text(&mut app, "seen twice");
    press(&mut app, &["<Enter>", "y"]);
    let v = seed::row(&mut c, "svc-pg-dup");
    assert!(v["archived_at"].is_string(), "{v:#}");
    assert_eq!(v["provenance"]["archived_reason"], "vetoed by human:tester: seen twice");
    assert!(!queued(&app).contains(&"svc-pg-dup".to_string()));

    press(&mut app, &["u", "y"]);
    assert!(seed::row(&mut c, "svc-pg-dup")["archived_at"].is_null());
    assert!(queued(&app).contains(&"svc-pg-dup".to_string()), "{:?}", queued(&app));

    // Merge the duplicate into the canonical node, the target picked by fuzzy recall.
    go_to(&mut app, "svc-pg-dup");
    press(&mut app, &["m"]);
    type_text(&mut app, "svc-pg");
    let picker = app.model.review.picker.as_ref().unwrap();
    let store = app.model.store.clone().unwrap();
    let hit = picker.hits.iter().position(|h| store.entity(*h).id == "svc-pg").expect("svc-pg is offered");
    for _ in 0..hit {
        press(&mut app, &["<Down>"]);
    }
    press(&mut app, &["<Enter>", "<C-s>", "y"]);
    assert_eq!(seed::row(&mut c, "svc-pg")["provenance"]["merged_from"], json!(["svc-pg-dup"]));
    assert!(seed::row(&mut c, "svc-pg-dup")["archived_at"].is_string());
}
