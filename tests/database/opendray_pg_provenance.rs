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

fn provenance(c: &mut postgres::Client, id: &str) -> String {
    c.query_one("SELECT provenance::text FROM knowledge_nodes WHERE id = $1", &[&id]).unwrap().get(0)
}

/// jsonb takes any JSON as a provenance. One that is not an object is shown as the agent wrote
/// it (it showed as `{}`), a merge that only moves an edge of it keeps it, and a decision that
/// would record itself in it is refused in one line: one approval replaced an agent's string
/// with folio's record, and the undo did not bring it back. `null` holds nothing and takes
/// the record.
#[test]
fn a_provenance_that_is_not_an_object_is_shown_kept_and_never_replaced() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let told = r#""imported from the ops wiki, 2025""#;
    for (id, p) in [("tool-x", told), ("tool-y", r#"["run-1", "run-2"]"#), ("host-a", "null")] {
        c.execute("UPDATE knowledge_nodes SET provenance = $2::text::jsonb WHERE id = $1", &[&id, &p]).unwrap();
    }
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let shown = folio_ok(s, &["show", &url, "tool-x"]);
    assert!(shown.contains("provenance: imported from the ops wiki, 2025"), "{shown}");
    assert!(folio_ok(s, &["show", &url, "tool-y"]).contains("provenance: [\"run-1\",\"run-2\"]"));

    let list_before = provenance(&mut c, "tool-y");
    let o = folio_db(s, &["review", &url, "veto", "tool-y", "--reason", "wrong", "--as", "human:ann"], &[]);
    assert!(!o.status.success(), "{}", said(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("`provenance` is a list, not a mapping") && err.contains("nothing was written"), "{err}");
    assert_eq!(provenance(&mut c, "tool-y"), list_before);
    assert!(seed::row(&mut c, "tool-y")["archived_at"].is_null(), "not archived");

    // The merge moves `tool-x used_by svc-pg-dup` onto svc-pg: tool-x's row is not written.
    folio_ok(s, &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"]);
    let edge = "SELECT count(*) FROM knowledge_edges WHERE src_id = 'tool-x' AND dst_id = 'svc-pg'";
    assert_eq!(c.query_one(edge, &[]).unwrap().get::<_, i64>(0), 1, "the edge moved");
    assert_eq!(provenance(&mut c, "tool-x"), told, "the agent's words are kept");
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert_eq!(provenance(&mut c, "tool-x"), told);

    // Any decision that writes the row is refused as it is planned, before the confirm dialog
    // shows it: the decision and folio's history go in the provenance.
    c.execute("UPDATE knowledge_nodes SET provenance = $1::text::jsonb WHERE id = 'pb-deploy'", &[&told]).unwrap();
    for (id, verb) in [("tool-x", "promote"), ("pb-deploy", "approve")] {
        let o = folio_db(s, &["review", &url, verb, id, "--as", "human:ann"], &[]);
        assert!(!o.status.success(), "{}", said(&o));
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end().lines().count(), 1, "{}", said(&o));
        let why = "`provenance` is a string, not a mapping";
        assert!(said(&o).contains(why) && said(&o).contains("nothing was written"), "{}", said(&o));
        assert_eq!(provenance(&mut c, id), told);
    }
    assert_eq!(maturity(&mut c, "pb-deploy"), "candidate");

    folio_ok(s, &["review", &url, "promote", "host-a", "--to", "global", "--as", "human:ann"]);
    assert_eq!(seed::row(&mut c, "host-a")["provenance"]["promoted_from"]["scope"], "domain");
    assert_eq!(history(&mut c, "host-a"), ["promote"]);
}

/// `provenance.folio_history` is where folio appends every write; one an agent or an import
/// wrote as something else (a string) was replaced by a list of folio's entry, and undo did
/// not give it back. Any decision writing the row is refused, as it is planned.
#[test]
fn a_history_that_is_not_a_list_is_never_replaced() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let told = r#"{"source": "compiler", "folio_history": "imported from v1"}"#;
    c.execute("UPDATE knowledge_nodes SET provenance = $1::text::jsonb WHERE id = 'pb-deploy'", &[&told]).unwrap();
    let before = provenance(&mut c, "pb-deploy");
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    for verb in [&["approve"][..], &["promote"], &["veto", "--reason", "wrong"], &["forget"]] {
        let args = [&["review", &url, verb[0], "pb-deploy"][..], &verb[1..], &["--as", "human:ann"]].concat();
        let o = folio_db(s, &args, &[]);
        assert!(!o.status.success(), "{}", said(&o));
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end().lines().count(), 1, "{}", said(&o));
        let why = "`provenance.folio_history` is a string, not a list";
        assert!(said(&o).contains(why) && said(&o).contains("nothing was written"), "{}", said(&o));
        assert_eq!(provenance(&mut c, "pb-deploy"), before, "{verb:?}");
    }
    assert!(seed::row(&mut c, "pb-deploy")["archived_at"].is_null());
}

/// folio keeps a node's aliases in `provenance.aliases` as a list; one an agent wrote as
/// something else (a string, `[]`, `null`) was dropped by any write of the row, and not given
/// back by undo. It is kept through a decision and its undo, and a merge that would give the
/// node aliases over it is refused.
#[test]
fn aliases_that_are_not_a_list_are_kept() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    for (id, p) in [
        ("pb-deploy", r#"{"source": "compiler", "aliases": "deploy-db"}"#),
        ("tool-x", r#"{"aliases": []}"#),
        ("svc-pg", r#"{"source": "distiller", "aliases": "pg-dev"}"#),
    ] {
        c.execute("UPDATE knowledge_nodes SET provenance = $2::text::jsonb WHERE id = $1", &[&id, &p]).unwrap();
    }
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    for id in ["pb-deploy", "tool-x"] {
        let before = seed::row(&mut c, id)["provenance"]["aliases"].clone();
        folio_ok(s, &["review", &url, "approve", id, "--as", "human:ann"]);
        let after = seed::row(&mut c, id)["provenance"].clone();
        assert!(after["approved"].is_object() && after["aliases"] == before, "{id}: {after}");
        folio_ok(s, &["undo", &url, "--as", "human:ann"]);
        assert_eq!(seed::row(&mut c, id)["provenance"]["aliases"], before, "{id}");
    }
    let before = provenance(&mut c, "svc-pg");
    // Refused as it is planned (a dry run shows the plan the TUI's confirm dialog shows).
    for dry in [&["--dry-run"][..], &[]] {
        let args = [&["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"][..], dry].concat();
        let o = folio_db(s, &args, &[]);
        assert!(!o.status.success(), "{}", said(&o));
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end().lines().count(), 1, "{}", said(&o));
        assert!(said(&o).contains("`provenance.aliases` is a string, not a list"), "{}", said(&o));
    }
    assert_eq!(provenance(&mut c, "svc-pg"), before);
    assert!(seed::row(&mut c, "svc-pg-dup")["archived_at"].is_null(), "nothing merged");
}
