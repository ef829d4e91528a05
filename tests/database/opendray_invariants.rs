//! The invariants opendray's own store code keeps (`internal/knowledge/store.go`,
//! `service.go` at Opendray/opendray 3685167), checked on the live private PostgreSQL after
//! every verdict folio offers and after each one's undo (issue 39):
//!
//! - a global node's `scope_key` is `''` (`PromoteNode(…, ScopeGlobal, "")`, the duplicate
//!   merge and the anchorer write it so; its dedup looks global nodes up by that empty key);
//! - `maturity` is on the ladder candidate → fact → playbook → skill and a verdict never takes
//!   a node down it;
//! - a skill is live only when enabled (`gatherForSpawn` keeps enabled nodes; a disabled skill
//!   is never marked `active` by folio);
//! - archiving is soft: no row is deleted, an archived row has `archived_at` and
//!   `provenance.archived_reason`, a live one neither;
//! - an undo leaves every edge as it was: the same `(src_id, edge_type, dst_id)` rows with the
//!   same `created_at`.
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, folio_ok};

/// Every edge with its `created_at`, exactly.
fn edges(c: &mut postgres::Client) -> Vec<String> {
    c.query(
        "SELECT src_id || ' ' || edge_type || ' ' || dst_id || ' ' || \
         to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') FROM knowledge_edges ORDER BY 1",
        &[],
    )
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect()
}

/// Each node's maturity rank on opendray's ladder, by id.
fn maturity(c: &mut postgres::Client) -> Vec<(String, usize)> {
    const LADDER: &[&str] = &["candidate", "fact", "playbook", "skill"];
    c.query("SELECT id, maturity FROM knowledge_nodes ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| {
            let m: String = r.get(1);
            let rank = LADDER
                .iter()
                .position(|x| *x == m)
                .unwrap_or_else(|| panic!("{}: maturity `{m}` is off the ladder", r.get::<_, String>(0)));
            (r.get(0), rank)
        })
        .collect()
}

fn count(c: &mut postgres::Client, sql: &str) -> i64 {
    c.query_one(sql, &[]).unwrap().get(0)
}

/// The invariants that hold after any verdict or undo; `what` names the step.
fn invariants(c: &mut postgres::Client, nodes: i64, what: &str) {
    assert_eq!(count(c, "SELECT count(*) FROM knowledge_nodes"), nodes, "{what}: a row was deleted or added");
    assert_eq!(
        count(c, "SELECT count(*) FROM knowledge_nodes WHERE scope = 'global' AND scope_key <> ''"),
        0,
        "{what}: a global node with a scope_key"
    );
    assert_eq!(
        count(
            c,
            "SELECT count(*) FROM knowledge_nodes WHERE kind = 'skill' AND NOT enabled \
             AND provenance->>'lifecycle' = 'active'"
        ),
        0,
        "{what}: a disabled skill marked active"
    );
    assert_eq!(
        count(
            c,
            "SELECT count(*) FROM knowledge_nodes WHERE (archived_at IS NULL) <> (provenance->>'archived_reason' IS NULL)"
        ),
        0,
        "{what}: archived_at and provenance.archived_reason disagree"
    );
    maturity(c);
}

#[test]
fn every_verdict_keeps_opendrays_invariants_and_every_undo_keeps_the_edges() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    // A skill the in-session agent distilled: disabled until the operator enables it.
    c.batch_execute(
        "INSERT INTO knowledge_nodes (id, kind, title, body, scope, scope_key, maturity, enabled, provenance) VALUES
           ('sk-distilled', 'skill', 'Restore a container', 'steps', 'project', 'homelab', 'skill', false,
            '{\"source\": \"agent_distilled\", \"lifecycle\": \"pending-review\"}');
         UPDATE knowledge_edges SET created_at = '2026-01-02 03:04:05.678901+00';",
    )
    .unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let nodes = count(&mut c, "SELECT count(*) FROM knowledge_nodes");
    invariants(&mut c, nodes, "the seed");
    let verdicts: &[&[&str]] = &[
        &["approve", "svc-pg-dup"],
        &["approve", "sk-distilled"],
        &["approve", "pb-deploy"],
        &["promote", "pb-deploy"],
        &["promote", "svc-pg", "--to", "global"],
        &["promote", "host-a", "--to", "global"],
        &["promote", "svc-pg", "--to", "domain"],
        &["veto", "svc-pg-dup", "--reason", "seen twice"],
        &["forget", "tool-y"],
        &["merge", "svc-pg-dup", "svc-pg"],
        &["approve", "--filter", "reason:never-reviewed"],
    ];
    for v in verdicts {
        let edges_before = edges(&mut c);
        let ladder_before = maturity(&mut c);
        let mut args = vec!["review", url.as_str()];
        args.extend(*v);
        args.extend(["--as", "human:inv"]);
        let o = folio_db(s, &args, &[]);
        let what = format!("{v:?}");
        if o.status.code() == Some(2) {
            // A refusal writes nothing (a demotion, a promotion of an archived node).
            assert_eq!(edges(&mut c), edges_before, "{what}: refused, yet edges changed");
            continue;
        }
        assert!(o.status.success(), "{what}: {}", String::from_utf8_lossy(&o.stderr));
        invariants(&mut c, nodes, &what);
        for ((id, before), (_, after)) in ladder_before.iter().zip(maturity(&mut c)) {
            assert!(after >= *before, "{what}: {id} went down the maturity ladder");
        }
        folio_ok(s, &["undo", &url, "--as", "human:inv"]);
        invariants(&mut c, nodes, &format!("undo of {what}"));
        assert_eq!(edges(&mut c), edges_before, "undo of {what}: the edges are not as they were");
    }
}

/// `promote --to global` made a node global under its project's key (issue 39): opendray's
/// dedup, which looks global nodes up by the empty key, no longer found it.
#[test]
fn promote_to_global_empties_the_scope_key() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    folio_ok(state.path(), &["review", &url, "promote", "svc-pg", "--to", "global", "--as", "human:ann"]);
    let r = seed::row(&mut c, "svc-pg");
    assert_eq!((r["scope"].as_str(), r["scope_key"].as_str()), (Some("global"), Some("")), "{r:#}");
    assert_eq!(r["provenance"]["promoted_from"], serde_json::json!({"scope": "project", "scope_key": "homelab"}));
    folio_ok(state.path(), &["undo", &url, "--as", "human:ann"]);
    let r = seed::row(&mut c, "svc-pg");
    assert_eq!((r["scope"].as_str(), r["scope_key"].as_str()), (Some("project"), Some("homelab")));
}

/// A distilled skill (`pending-review`, disabled) stays disabled when approved, and folio says
/// why: opendray's enable is its approval and renders its SKILL.md, which folio does not write.
#[test]
fn approving_a_distilled_skill_says_it_stays_disabled() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute(
        "INSERT INTO knowledge_nodes (id, kind, title, body, maturity, enabled, provenance) VALUES
           ('sk-distilled', 'skill', 'Restore a container', 'steps', 'skill', false,
            '{\"source\": \"agent_distilled\", \"lifecycle\": \"pending-review\"}')",
    )
    .unwrap();
    let state = tempfile::tempdir().unwrap();
    let out = folio_ok(state.path(), &["review", &url, "approve", "sk-distilled", "--as", "human:ann"]);
    assert!(out.contains("`sk-distilled` stays disabled: opendray enables a skill itself"), "{out}");
    let r = seed::row(&mut c, "sk-distilled");
    assert_eq!(r["enabled"], false);
    assert_eq!(r["provenance"]["lifecycle"], "pending-review");
    assert_eq!(r["provenance"]["approved"]["by"], "human:ann");
    // It waits for opendray's enable now, not for a person: out of the inbox.
    let list = folio_ok(state.path(), &["review", &url, "list", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert!(!v["items"].as_array().unwrap().iter().any(|i| i["id"] == "sk-distilled"), "{list}");
}

/// Undoing a merge recreated the repointed edge as a new one (issue 39): its `created_at` was
/// the undo's. And the node whose edge was repointed had its row rewritten (`updated_at`, a
/// history entry) though only an edge moved.
#[test]
fn a_merge_moves_edges_alone_and_its_undo_brings_them_back_as_they_were() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute("UPDATE knowledge_edges SET created_at = '2026-01-02 03:04:05.678901+00'").unwrap();
    let state = tempfile::tempdir().unwrap();
    let edges_before = edges(&mut c);
    let tool_before = seed::row(&mut c, "tool-x");
    let xmin = |c: &mut postgres::Client| -> String {
        c.query_one("SELECT xmin::text FROM knowledge_nodes WHERE id = 'tool-x'", &[]).unwrap().get(0)
    };
    let xmin_before = xmin(&mut c);
    folio_ok(state.path(), &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"]);
    let e = edges(&mut c);
    assert!(e.iter().any(|x| x.starts_with("tool-x used_by svc-pg ")), "{e:?}");
    assert_eq!(seed::row(&mut c, "tool-x"), tool_before, "tool-x's row is as it was: only its edge moved");
    assert_eq!(xmin(&mut c), xmin_before, "tool-x's row was not rewritten");
    folio_ok(state.path(), &["undo", &url, "--as", "human:ann"]);
    assert_eq!(edges(&mut c), edges_before, "every edge back with its own created_at");
    assert_eq!(seed::row(&mut c, "tool-x"), tool_before);
}
