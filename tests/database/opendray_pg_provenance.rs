//! A decision writes only the provenance keys it changes: every other key stays exactly as the
//! server holds it (long decimals, 30-digit integers). A provenance folio cannot read whole —
//! JSON nested deeper than its JSON parser goes, a number beyond an `f64`, both shown as `{}` —
//! is never written: the decision is refused in one line. Before, the whole provenance was
//! written back as folio had read it: an agent's deep provenance became `{}` with one
//! approval, and long decimals were rounded.
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, folio_ok, said};

/// Node `id`'s provenance without folio's history and the other keys `drop`, as the server
/// prints it.
fn rest(c: &mut postgres::Client, id: &str, drop: &[&str]) -> String {
    let drop: Vec<&str> = [&["folio_history"][..], drop].concat();
    c.query_one("SELECT (provenance - $2::text[])::text FROM knowledge_nodes WHERE id = $1", &[&id, &drop])
        .unwrap()
        .get(0)
}

fn maturity(c: &mut postgres::Client, id: &str) -> String {
    c.query_one("SELECT maturity FROM knowledge_nodes WHERE id = $1", &[&id]).unwrap().get(0)
}

/// The events of node `id`'s `folio_history`, in order.
fn history(c: &mut postgres::Client, id: &str) -> Vec<String> {
    let sql = "SELECT coalesce(jsonb_agg(e->>'event'), '[]')::text \
               FROM knowledge_nodes, jsonb_array_elements(coalesce(provenance->'folio_history', '[]')) e WHERE id = $1";
    serde_json::from_str(&c.query_one(sql, &[&id]).unwrap().get::<_, String>(0)).unwrap()
}

#[test]
fn a_decision_leaves_every_other_provenance_key_exactly_and_an_unreadable_one_alone() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let mut deep = r#"{"leaf": 1}"#.to_string();
    for _ in 0..200 {
        deep = format!(r#"{{"n": {deep}}}"#);
    }
    let deep_node = format!(r#"{{"source": "distiller", "tree": {deep}, "note": "kept"}}"#);
    let lossy_node = r#"{"source": "distiller", "exact": 0.1000000000000000055511151231257827,
        "big": 123456789012345678901234567890, "huge": 1e400, "aliases": ["dev-db"]}"#;
    let lossless_only = r#"{"source": "distiller", "exact": 0.1000000000000000055511151231257827,
        "big": 123456789012345678901234567890}"#;
    for (id, provenance) in [("svc-pg", deep_node.as_str()), ("svc-pg-dup", lossy_node), ("pb-deploy", lossless_only)] {
        c.execute("UPDATE knowledge_nodes SET provenance = $2::text::jsonb WHERE id = $1", &[&id, &provenance])
            .unwrap();
    }
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    for id in ["svc-pg", "svc-pg-dup"] {
        let before = rest(&mut c, id, &[]);
        let was = maturity(&mut c, id);
        let o = folio_db(s, &["review", &url, "promote", id, "--as", "human:ann"], &[]);
        assert!(!o.status.success() && said(&o).contains("cannot read whole"), "{id}: {}", said(&o));
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end().lines().count(), 1, "{}", said(&o));
        assert_eq!((rest(&mut c, id, &[]), maturity(&mut c, id)), (before, was), "{id}: nothing was written");
        assert!(history(&mut c, id).is_empty(), "{id}");
    }
    let id = "pb-deploy";
    let before = rest(&mut c, id, &[]);
    let was = maturity(&mut c, id);
    folio_ok(s, &["review", &url, "promote", id, "--as", "human:ann"]);
    assert_ne!(maturity(&mut c, id), was, "promoted");
    // The promotion adds the key it means to (the maturity it came from) and no other.
    assert_eq!(rest(&mut c, id, &["promoted_from"]), before, "the promotion kept every other key");
    assert_ne!(rest(&mut c, id, &[]), before, "promoted_from");
    assert_eq!(history(&mut c, id).len(), 1);
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert_eq!(rest(&mut c, id, &[]), before, "the undo gave every key back");
    assert_eq!(maturity(&mut c, id), was, "the undo gave the row back");
    assert_eq!(history(&mut c, id).len(), 2, "the undo's entry follows the promotion's");
}
