//! Review decisions on opendray's live brain through the CLI, checked in the rows after
//! each: approve, promote (maturity and scope), veto, forget, merge, and undo of each; a
//! conflict when an agent changed a node between folio's read and its write.
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, folio_ok};

use serde_json::{Value, json};

fn edges(c: &mut postgres::Client) -> Vec<String> {
    c.query("SELECT src_id || ' ' || edge_type || ' ' || dst_id FROM knowledge_edges ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

fn history(v: &Value) -> Vec<String> {
    v["provenance"]["folio_history"]
        .as_array()
        .map(|h| h.iter().map(|e| format!("{} {}", e["by"].as_str().unwrap(), e["event"].as_str().unwrap())).collect())
        .unwrap_or_default()
}

#[test]
fn approve_promote_veto_forget_and_undo_write_the_rows() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let before = seed::row(&mut c, "svc-pg-dup");

    // approve: the reviewer stamped into provenance.approved, every other key kept; a
    // pending-review lifecycle becomes active.
    folio_ok(s, &["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"]);
    let after = seed::row(&mut c, "svc-pg-dup");
    assert_eq!(after["provenance"]["approved"]["by"], "human:ann");
    assert_eq!(after["provenance"]["source"], "distiller");
    assert_eq!(after["provenance"]["lifecycle"], "active");
    assert_eq!(after["maturity"], "candidate");
    assert_ne!(after["updated_at"], before["updated_at"]);
    assert_eq!(history(&after), ["human:ann approve"]);

    // promote: maturity one rung up, then scope by --to.
    folio_ok(s, &["review", &url, "promote", "pb-deploy", "--as", "human:ann"]);
    let p = seed::row(&mut c, "pb-deploy");
    assert_eq!((p["maturity"].as_str(), p["scope"].as_str()), (Some("fact"), Some("project")));
    assert_eq!(p["provenance"]["promoted_from"], json!({"maturity": "candidate"}));
    folio_ok(s, &["review", &url, "promote", "pb-deploy", "--to", "domain", "--as", "human:ann"]);
    let p = seed::row(&mut c, "pb-deploy");
    assert_eq!((p["maturity"].as_str(), p["scope"].as_str()), (Some("fact"), Some("domain")));
    let down = folio_db(s, &["review", &url, "promote", "pb-deploy", "--to", "project", "--as", "human:ann"], &[]);
    assert_eq!(down.status.code(), Some(2), "a demotion is refused");

    // veto: the soft archive, never a DELETE; the node leaves the view.
    folio_ok(s, &["review", &url, "veto", "pb-deploy", "--reason", "one-liner", "--as", "human:bo"]);
    let v = seed::row(&mut c, "pb-deploy");
    assert!(v["archived_at"].is_string(), "{v:#}");
    assert_eq!(v["provenance"]["archived_reason"], "vetoed by human:bo: one-liner");
    assert_eq!(v["provenance"]["source"], "compiler");
    assert_eq!(folio_db(s, &["show", &url, "pb-deploy"], &[]).status.code(), Some(2));

    // undo: the row is live again as it was, the decision and its undo in the history.
    folio_ok(s, &["undo", &url, "--as", "human:bo"]);
    let u = seed::row(&mut c, "pb-deploy");
    assert!(u["archived_at"].is_null(), "{u:#}");
    assert!(u["provenance"].get("archived_reason").is_none(), "{u:#}");
    assert_eq!((u["maturity"].as_str(), u["scope"].as_str()), (Some("fact"), Some("domain")));
    assert_eq!(history(&u), ["human:ann promote", "human:ann promote", "human:bo veto", "human:bo undo"]);
    folio_ok(s, &["show", &url, "pb-deploy"]);

    // forget: archived too, with its own reason.
    folio_ok(s, &["review", &url, "forget", "tool-y", "--as", "human:bo"]);
    let f = seed::row(&mut c, "tool-y");
    assert!(f["archived_at"].is_string());
    assert_eq!(f["provenance"]["archived_reason"], "forgotten by human:bo");
    let n: i64 = c.query_one("SELECT count(*) FROM knowledge_nodes", &[]).unwrap().get(0);
    assert_eq!(n, 8, "nothing is ever deleted");
}

#[test]
fn merge_repoints_edges_archives_the_duplicate_and_undoes() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let edges_before = edges(&mut c);

    folio_ok(s, &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"]);
    let canonical = seed::row(&mut c, "svc-pg");
    assert_eq!(canonical["provenance"]["merged_from"], json!(["svc-pg-dup"]));
    let dup = seed::row(&mut c, "svc-pg-dup");
    assert!(dup["archived_at"].is_string(), "the duplicate is archived, not deleted: {dup:#}");
    assert!(
        dup["provenance"]["archived_reason"].as_str().unwrap().contains("merged `svc-pg-dup` into `svc-pg`"),
        "{dup:#}"
    );
    let e = edges(&mut c);
    // Inbound edges re-pointed; the duplicate's own edges onto the canonical node, less the
    // self-edge (svc-pg depends_on svc-pg) and the one it already had (runs_on host-a).
    assert!(e.contains(&"tool-x used_by svc-pg".to_string()), "{e:?}");
    assert!(!e.contains(&"tool-x used_by svc-pg-dup".to_string()), "{e:?}");
    assert!(e.contains(&"svc-pg uses tool-y".to_string()), "{e:?}");
    assert!(!e.iter().any(|x| x == "svc-pg depends_on svc-pg"), "{e:?}");
    assert_eq!(e.iter().filter(|x| *x == "svc-pg runs_on host-a").count(), 1);
    let sources: Vec<String> = c
        .query("SELECT memory_id FROM knowledge_fact_sources WHERE node_id = 'svc-pg' ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(sources, ["mem-1", "mem-2"]);

    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert!(seed::row(&mut c, "svc-pg-dup")["archived_at"].is_null());
    assert!(seed::row(&mut c, "svc-pg")["provenance"].get("merged_from").is_none());
    assert_eq!(edges(&mut c), edges_before);
}

#[test]
fn edits_write_columns_and_edges_and_refuse_what_opendray_keeps() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();

    folio_ok(s, &["set", &url, "svc-pg", "title", "PostgreSQL (dev, shared)", "--as", "human:ann"]);
    folio_ok(s, &["set", &url, "svc-pg", "confidence", "0.75", "--as", "human:ann"]);
    folio_ok(s, &["set", &url, "sk-stale", "enabled", "false", "--as", "human:ann"]);
    folio_ok(
        s,
        &["set", &url, "svc-pg", "relations", "{runs_on: [host-a], depends_on: [tool-y]}", "--as", "human:ann"],
    );
    let r = seed::row(&mut c, "svc-pg");
    assert_eq!(r["title"], "PostgreSQL (dev, shared)");
    assert_eq!(r["confidence"], 0.75);
    assert_eq!(seed::row(&mut c, "sk-stale")["enabled"], false);
    let e = edges(&mut c);
    assert!(
        e.contains(&"svc-pg depends_on tool-y".to_string()) && !e.contains(&"svc-pg uses tool-x".to_string()),
        "{e:?}"
    );
    // The relations set changed edge rows only: the node's row is not rewritten for it, as
    // opendray's CreateEdge leaves it (issue 39); the set is in folio's log.
    assert_eq!(history(&r), ["human:ann set", "human:ann set"]);

    for (key, value, why) in [
        ("use_count", "9", "counted by opendray"),
        ("colour", "red", "no column for `colour`"),
        ("relations", "{likes: [host-a]}", "edge type `likes`"),
        ("kind", "banana", "violates check constraint"),
    ] {
        let o = folio_db(s, &["set", &url, "svc-pg", key, value, "--as", "human:ann"], &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{key}: {err}");
        assert!(err.contains(why), "{key}: {err}");
    }
    assert_eq!(seed::row(&mut c, "svc-pg")["title"], "PostgreSQL (dev, shared)", "refused writes change nothing");
    assert_eq!(history(&seed::row(&mut c, "svc-pg")).len(), 2);
}

/// One journal per database: a decision taken without `--archived` is undone with it, and
/// the other way round, the rows checked after each.
#[test]
fn undo_takes_the_last_decision_whichever_view_it_was_taken_in() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();

    folio_ok(s, &["review", &url, "veto", "svc-pg-dup", "--reason", "seen twice", "--as", "human:ann"]);
    assert!(seed::row(&mut c, "svc-pg-dup")["archived_at"].is_string());
    folio_ok(s, &["undo", &url, "--archived", "--as", "human:ann"]);
    let u = seed::row(&mut c, "svc-pg-dup");
    assert!(u["archived_at"].is_null(), "{u:#}");
    assert!(u["provenance"].get("archived_reason").is_none(), "{u:#}");
    assert_eq!(history(&u), ["human:ann veto", "human:ann undo"]);
    folio_ok(s, &["show", &url, "svc-pg-dup"]);

    // An archived node approved where it is shown, the approval undone where it is hidden.
    folio_ok(s, &["review", &url, "approve", "pb-old", "--archived", "--as", "human:bo"]);
    assert_eq!(seed::row(&mut c, "pb-old")["provenance"]["approved"]["by"], "human:bo");
    folio_ok(s, &["undo", &url, "--as", "human:bo"]);
    let o = seed::row(&mut c, "pb-old");
    assert!(o["provenance"].get("approved").is_none(), "{o:#}");
    assert!(o["archived_at"].is_string(), "still archived: {o:#}");
    assert_eq!(o["provenance"]["archived_reason"], "distillation rework (0055)");
    assert_eq!(folio_db(s, &["show", &url, "pb-old"], &[]).status.code(), Some(2));
    // Both views read the one log (each names the file from its own folder).
    let log = |args: &[&str]| -> Vec<String> {
        folio_ok(s, args).lines().map(|l| l.rsplit_once("  (").map_or(l, |(event, _)| event).to_string()).collect()
    };
    let plain = log(&["log", &url]);
    assert_eq!(plain.len(), 4, "{plain:?}");
    assert_eq!(plain, log(&["log", &url, "--archived"]));
}

/// opendray's `memory_id` takes any text: an approval and its undo leave every fact source
/// row as it was (an empty id and one with spaces were dropped and trimmed: rows deleted).
#[test]
fn fact_sources_are_written_back_exactly() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute(
        "INSERT INTO knowledge_fact_sources VALUES ('svc-pg', ''), ('svc-pg', '  mem-x  '), ('svc-pg', 'null')",
    )
    .unwrap();
    let rows = |c: &mut postgres::Client| -> Vec<String> {
        let sql = "SELECT memory_id, ctid::text FROM knowledge_fact_sources WHERE node_id = 'svc-pg' ORDER BY 1";
        c.query(sql, &[])
            .unwrap()
            .iter()
            .map(|r| format!("{:?} {}", r.get::<_, String>(0), r.get::<_, String>(1)))
            .collect()
    };
    let before = rows(&mut c);
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    folio_ok(s, &["review", &url, "approve", "svc-pg", "--as", "human:ann"]);
    assert!(seed::row(&mut c, "svc-pg")["provenance"]["approved"].is_object(), "approved");
    assert_eq!(rows(&mut c), before, "the same rows, untouched (their ctid too)");
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert_eq!(rows(&mut c), before);
}

/// `double precision` holds NaN and ±infinity, which folio shows as `confidence: null`; an
/// approval set the column to NULL, and undo did not bring the value back.
#[test]
fn a_confidence_json_cannot_hold_survives_a_decision() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let confidence = |c: &mut postgres::Client| -> Option<String> {
        c.query_one("SELECT confidence::text FROM knowledge_nodes WHERE id = 'svc-pg'", &[]).unwrap().get(0)
    };
    for value in ["NaN", "-Infinity"] {
        c.execute("UPDATE knowledge_nodes SET confidence = $1::text::float8 WHERE id = 'svc-pg'", &[&value]).unwrap();
        let state = tempfile::tempdir().unwrap();
        let s = state.path();
        folio_ok(s, &["review", &url, "approve", "svc-pg", "--as", "human:ann"]);
        assert!(seed::row(&mut c, "svc-pg")["provenance"]["approved"].is_object(), "approved");
        assert_eq!(confidence(&mut c).as_deref(), Some(value), "the approval kept it");
        folio_ok(s, &["undo", &url, "--as", "human:ann"]);
        assert_eq!(confidence(&mut c).as_deref(), Some(value), "and so did undo");
    }
}

/// opendray's key takes any text: a decision writes the row its file names exactly — an id
/// that is empty, or one with spaces around it beside a twin without them. The id was read
/// trimmed: the empty one named no row (the decision went to a file in the state folder and
/// was refused as "changed on disk"), the spaced one named its twin and was refused.
#[test]
fn a_decision_writes_the_row_its_exact_id_names() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute(
        "INSERT INTO knowledge_nodes (id, kind, title, body, maturity) VALUES
           ('', 'playbook', 'Empty id', 'x', 'candidate'),
           (' pb-deploy ', 'playbook', 'Spaced twin', 'y', 'candidate')",
    )
    .unwrap();
    let approved = |c: &mut postgres::Client| -> Vec<String> {
        let sql = "SELECT '[' || id || ']' FROM knowledge_nodes WHERE provenance ? 'approved' ORDER BY 1";
        c.query(sql, &[]).unwrap().iter().map(|r| r.get(0)).collect()
    };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let list = folio_ok(s, &["review", &url, "list", "--json"]);
    let paths: Vec<String> = serde_json::from_str::<serde_json::Value>(&list).unwrap()["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| ["Empty id", "Spaced twin"].contains(&i["title"].as_str().unwrap()))
        .map(|i| i["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(paths.len(), 2, "{list}");
    for p in &paths {
        folio_ok(s, &["review", &url, "approve", "--as", "human:ann", "--", p]);
    }
    assert_eq!(approved(&mut c), ["[ pb-deploy ]", "[]"], "each its own row, the twin untouched");
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert!(approved(&mut c).is_empty());
    // By id (a verdict reading its own rows): the same rows.
    for id in [" pb-deploy ", ""] {
        folio_ok(s, &["review", &url, "approve", id, "--as", "human:ann"]);
    }
    assert_eq!(approved(&mut c), ["[ pb-deploy ]", "[]"], "by id, each its own row");
}

/// A verdict by id reads only its own nodes (`part`); the review ledger hashed the text the row
/// had before the decision, so every node approved so showed as changed since its approval at
/// once — and a node added since the last open could not be approved by id at all ("no such
/// node in the database's snapshot").
#[test]
fn an_approval_by_id_leaves_the_inbox() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let queued = |s: &std::path::Path| -> Vec<String> {
        let list = folio_ok(s, &["review", &url, "list", "--json"]);
        let items = serde_json::from_str::<Value>(&list).unwrap()["items"].as_array().unwrap().clone();
        items.iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()
    };
    assert!(queued(s).contains(&"svc-pg".to_string()));
    c.batch_execute("INSERT INTO knowledge_nodes (id, kind, title, body) VALUES ('pb-new', 'playbook', 'New', 'x')")
        .unwrap();
    folio_ok(s, &["review", &url, "approve", "svc-pg", "--as", "human:ann"]);
    folio_ok(s, &["review", &url, "approve", "pb-new", "--as", "human:ann"]);
    let now = queued(s);
    assert!(!now.contains(&"svc-pg".to_string()) && !now.contains(&"pb-new".to_string()), "{now:?}");
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert!(queued(s).contains(&"pb-new".to_string()), "back in the inbox after undo");
}

/// Two reviewers of one database, each with folio's state in their own folder (their own
/// ledger): an approval one of them made is on the row, and the other's inbox reads it there.
#[test]
fn another_reviewers_approval_on_the_row_leaves_my_inbox_until_the_row_changes() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let (ann, bo) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let queued = |s: &std::path::Path| -> Vec<(String, Value)> {
        let list = folio_ok(s, &["review", &url, "list", "--json"]);
        let items = serde_json::from_str::<Value>(&list).unwrap()["items"].as_array().unwrap().clone();
        items.iter().map(|i| (i["id"].as_str().unwrap().to_string(), i["reasons"].clone())).collect()
    };
    let has = |list: &[(String, Value)], id: &str| list.iter().any(|(i, _)| i == id);
    assert!(has(&queued(bo.path()), "svc-pg-dup"), "a candidate nobody approved is queued");
    folio_ok(ann.path(), &["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"]);
    assert!(!has(&queued(ann.path()), "svc-pg-dup"), "left the inbox of the reviewer who approved it");
    assert!(!has(&queued(bo.path()), "svc-pg-dup"), "the approval on the row is read by the other reviewer");
    // An agent's write in a later second: queued again for both.
    c.batch_execute("UPDATE knowledge_nodes SET body = body || ' more', updated_at = now() + interval '2 seconds' WHERE id = 'svc-pg-dup'")
        .unwrap();
    let bo_now = queued(bo.path());
    let reasons = &bo_now.iter().find(|(i, _)| i == "svc-pg-dup").expect("queued again after a write").1;
    assert!(reasons.to_string().contains("candidate"), "{reasons}");
    assert!(has(&queued(ann.path()), "svc-pg-dup"), "changed since the approval");
    // An approval no person signs (an agent's), dated after the write, answers for nothing.
    c.batch_execute(
        "UPDATE knowledge_nodes SET provenance = jsonb_set(provenance, '{approved}', \
         jsonb_build_object('by', 'agent:x', 'at', to_char(now() + interval '1 minute', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'))), \
         updated_at = now() + interval '3 seconds' WHERE id = 'svc-pg-dup'",
    )
    .unwrap();
    assert!(has(&queued(bo.path()), "svc-pg-dup"), "an agent's approval took the node out of the inbox");
}
