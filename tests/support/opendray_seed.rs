//! Rows for the PostgreSQL tests: a small homelab brain as opendray's distiller writes it.
#![allow(dead_code)]

/// A private server with opendray's migrations and the `homelab` rows in database `brain`, a
/// client on it and its connection string; None where no server can be started (`pg::Pg::start`).
pub fn brain() -> Option<(super::pg::Pg, postgres::Client, String)> {
    let pg = super::pg::Pg::start()?;
    let mut c = pg.opendray_db("brain");
    homelab(&mut c);
    let url = pg.conninfo("brain");
    Some((pg, c, url))
}

/// Seven live nodes and one archived playbook, their edges and fact sources.
/// - `svc-pg` and `svc-pg-dup` are duplicate services by normalised title;
/// - `sk-stale` is a skill made 60 days ago, never used, failing more than succeeding;
/// - `pb-deploy` is a candidate made 20 days ago.
pub fn homelab(c: &mut postgres::Client) {
    c.batch_execute(
        "INSERT INTO knowledge_nodes (id, kind, entity_type, title, body, scope, scope_key, maturity, confidence, provenance) VALUES
           ('svc-pg', 'entity', 'service', 'PostgreSQL dev', 'The shared dev database.', 'project', 'homelab', 'candidate', 0.9, '{\"source\": \"distiller\"}'),
           ('svc-pg-dup', 'entity', 'service', '  postgresql DEV ', 'Dev DB, seen again.', 'project', 'homelab', 'candidate', 0.6, '{\"source\": \"distiller\", \"lifecycle\": \"pending-review\"}'),
           ('host-a', 'entity', 'host', 'host-a', 'A Proxmox node.', 'domain', 'homelab', 'fact', NULL, '{}'),
           ('tool-x', 'entity', 'tool', 'pgbackrest', 'Backups.', 'global', '', 'fact', NULL, '{}'),
           ('tool-y', 'entity', 'tool', 'psql', 'The client.', 'global', '', 'fact', NULL, '{}');
         INSERT INTO knowledge_nodes (id, kind, title, body, maturity, provenance, created_at, updated_at) VALUES
           ('pb-deploy', 'playbook', 'Deploy the dev DB', E'1. a\\n2. b\\n3. c\\n', 'candidate', '{\"source\": \"compiler\"}', now() - interval '20 days', now() - interval '20 days');
         INSERT INTO knowledge_nodes (id, kind, title, body, maturity, provenance, created_at, updated_at, use_count, success_count, failure_count) VALUES
           ('sk-stale', 'skill', 'Rotate certificates', 'steps', 'skill', '{}', now() - interval '60 days', now() - interval '60 days', 0, 1, 3);
         INSERT INTO knowledge_nodes (id, kind, title, body, maturity, provenance, archived_at) VALUES
           ('pb-old', 'playbook', 'Old one-liner', 'x', 'playbook', '{\"archived_reason\": \"distillation rework (0055)\"}', now());
         INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES
           ('svc-pg', 'runs_on', 'host-a'),
           ('svc-pg', 'uses', 'tool-x'),
           ('svc-pg-dup', 'runs_on', 'host-a'),
           ('svc-pg-dup', 'uses', 'tool-y'),
           ('svc-pg-dup', 'depends_on', 'svc-pg'),
           ('tool-x', 'used_by', 'svc-pg-dup'),
           ('pb-deploy', 'about', 'svc-pg');
         INSERT INTO knowledge_fact_sources (node_id, memory_id) VALUES ('svc-pg', 'mem-1'), ('svc-pg-dup', 'mem-2');",
    )
    .unwrap();
}

/// A node's row as JSON (without its embedding), to check what a decision wrote.
pub fn row(c: &mut postgres::Client, id: &str) -> serde_json::Value {
    let r =
        c.query_one("SELECT (to_jsonb(n) - 'embedding')::text FROM knowledge_nodes n WHERE id = $1", &[&id]).unwrap();
    serde_json::from_str(r.get::<_, &str>(0)).unwrap()
}
