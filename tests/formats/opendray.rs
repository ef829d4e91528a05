//! opendray exports: the homelab fixture loads with the right nodes, edges, statuses and
//! problems; the marker file identifies the export.
use crate::support;
use serde_json::{Value, json};
use support::*;

fn homelab() -> String {
    fixture("opendray-homelab").to_str().unwrap().to_string()
}

fn show(store: &str, id: &str) -> Value {
    folio_json(&["show", store, id, "--json"])
}

/// (type, target, resolved id) of every edge of a node.
fn edges(v: &Value) -> Vec<(String, String, Option<String>)> {
    v["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().map(str::to_string);
            (s("type").unwrap(), s("target").unwrap(), s("resolved"))
        })
        .collect()
}

fn edge(kind: &str, target: &str, resolved: Option<&str>) -> (String, String, Option<String>) {
    (kind.into(), target.into(), resolved.map(str::to_string))
}

#[test]
fn homelab_counts_by_kind_and_detection_by_marker() {
    let stats = folio_json(&["stats", &homelab(), "--json"]);
    assert_eq!(stats["dialect"], "opendray");
    assert_eq!(stats["detected_by"], "opendray-export.json found");
    assert_eq!(stats["entities"], 36);
    assert_eq!(
        stats["by_kind"],
        json!({"entity/decision": 2, "entity/host": 5, "entity/person": 1, "entity/project": 3,
               "entity/service": 7, "entity/tech": 2, "entity/tool": 3,
               "fact": 7, "playbook": 4, "skill": 2})
    );
    assert_eq!(stats["unresolved_links"], 0);
    assert_eq!(stats["problems"], 0);
    assert_eq!(stats["warnings"], json!([]));
}

#[test]
fn the_marker_wins_over_sniffing_and_its_problems_are_warnings() {
    let (_tmp, store) = scratch(&fixture("opendray-homelab"));
    let s = store.to_str().unwrap();
    // Without the marker the node frontmatter still sniffs as opendray, for another reason.
    std::fs::remove_file(store.join("opendray-export.json")).unwrap();
    let sniffed = folio_json(&["stats", s, "--json"]);
    assert_eq!(sniffed["dialect"], "opendray");
    assert!(sniffed["detected_by"].as_str().unwrap().contains("sampled files have opendray frontmatter"));
    // A marker that is not the v1 format is reported, not fatal.
    write(&store, "opendray-export.json", r#"{"format": "opendray-export/v9"}"#);
    let v = folio_json(&["stats", s, "--json"]);
    assert_eq!(v["detected_by"], "opendray-export.json found");
    assert_eq!(v["entities"], 36);
    let codes: Vec<&str> = v["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["export-marker", "export-marker"]);
    // A marker alone (any folder name) is enough to detect the export.
    let bare = tempfile::tempdir().unwrap();
    write(
        bare.path(),
        "opendray-export.json",
        r#"{"format":"opendray-export/v1","exported_at":"2026-08-20T09:14:00Z"}"#,
    );
    write(bare.path(), "notes.md", "# not a node\n");
    let v = folio_json(&["stats", bare.path().to_str().unwrap(), "--json"]);
    assert_eq!((v["dialect"].as_str(), v["entities"].as_u64()), (Some("opendray"), Some(0)));
}

#[test]
fn entity_node_fields_aliases_and_edges() {
    let v = show(&homelab(), "svc-postgres-dev");
    assert_eq!(v["path"], "entities/service/svc-postgres-dev.md");
    assert_eq!(v["kind"], "entity/service");
    assert_eq!(v["title"], "PostgreSQL (Dev)");
    assert_eq!(v["status"], "fact");
    assert_eq!(v["confidence"], 0.97);
    assert_eq!(v["aliases"], json!(["dev-db", "192.168.3.88:5432"]));
    assert_eq!(v["fields"]["scope"], "global");
    assert_eq!(v["fields"]["provenance"]["source"], "human");
    assert_eq!(
        edges(&v),
        [
            edge("runs_on", "host-192.168.3.88", Some("host-192.168.3.88")),
            edge("used_by", "proj-materialscout", Some("proj-materialscout")),
            edge("used_by", "proj-flashmind", Some("proj-flashmind")),
        ]
    );
    let mut back: Vec<&str> = v["backlinks"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    back.sort();
    assert_eq!(
        back,
        [
            "fact-pg-per-project-user",
            "fact-pg-version",
            "pb-deploy-go-proxmox",
            "pb-rotate-pg-password",
            "proj-flashmind",
            "proj-materialscout",
            "svc-gitea"
        ]
    );
}

#[test]
fn edges_and_wikilinks_resolve_by_alias() {
    let v = show(&homelab(), "proj-flashmind");
    // `uses: [dev-db]` names the database only by its alias.
    assert_eq!(edges(&v), [edge("uses", "dev-db", Some("svc-postgres-dev")), edge("uses", "tech-go", Some("tech-go"))]);
    let links = v["links"].as_array().unwrap();
    assert_eq!(links.len(), 1);
    assert_eq!((links[0]["target"].as_str(), links[0]["resolved"].as_str()), (Some("golang"), Some("tech-go")));
    let v = show(&homelab(), "proj-materialscout");
    let l = &v["links"][0];
    assert_eq!(l["target"], "pb-deploy-go-proxmox");
    assert_eq!(l["label"], "the Proxmox playbook");
    assert_eq!(l["resolved"], "pb-deploy-go-proxmox");
}

#[test]
fn broken_edge_and_supersedes() {
    let v = show(&homelab(), "pb-rotate-pg-password");
    assert_eq!(
        edges(&v),
        [edge("uses", "svc-postgres-dev", Some("svc-postgres-dev")), edge("depends_on", "svc-vault", None)]
    );
    let v = show(&homelab(), "fact-backup-nightly-0230");
    assert!(edges(&v).contains(&edge("supersedes", "fact-backup-nightly-0100", Some("fact-backup-nightly-0100"))));
    assert_eq!(v["sources"], json!(["mem_9300", "mem_9301"]));
    assert_eq!(v["description"], "Nightly restic backups run at 02:30, after the ZFS scrub window");
    let old = show(&homelab(), "fact-backup-nightly-0100");
    assert_eq!(old["status"], "stale");
    assert_eq!(old["backlinks"], json!(["fact-backup-nightly-0230"]));
}

#[test]
fn statuses_from_maturity_and_lifecycle() {
    let store = homelab();
    for (id, status) in [
        ("pb-restore-from-restic", "pending-review"),
        ("pb-deploy-go-proxmox", "playbook"),
        ("skill-check-backups", "stale"),
        ("skill-provision-lxc", "skill"),
        ("fact-grafana-port", "candidate"),
        ("host-edge01", "candidate"),
        ("fact-pg-per-project-user", "fact"),
    ] {
        assert_eq!(show(&store, id)["status"], status, "{id}");
    }
    let skill = show(&store, "skill-provision-lxc");
    assert_eq!(skill["path"], "skills/provision-lxc/SKILL.md");
    assert_eq!(skill["title"], "provision-lxc");
    assert_eq!(skill["fields"]["params"], json!(["project", "role", "node"]));
}

#[test]
fn graph_around_a_service_two_hops() {
    let g = folio_json(&["graph", &homelab(), "--around", "svc-restic-rest", "--depth", "2", "--format", "json"]);
    let mut nodes: Vec<&str> = g["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    nodes.sort();
    assert_eq!(
        nodes,
        [
            "fact-backup-nightly-0100",
            "fact-backup-nightly-0230",
            "host-nas01",
            "pb-restore-from-restic",
            "proj-homelab-infra",
            "skill-check-backups",
            "svc-restic-rest",
            "tool-pct",
            "tool-restic"
        ]
    );
    let has = |from: &str, kind: &str, to: &str| {
        g["edges"].as_array().unwrap().iter().any(|e| e["from"] == from && e["type"] == kind && e["to"] == to)
    };
    assert!(has("svc-restic-rest", "runs_on", "host-nas01"));
    assert!(has("fact-backup-nightly-0230", "supersedes", "fact-backup-nightly-0100"));
    assert!(has("skill-check-backups", "derived_from", "pb-restore-from-restic"));
    assert!(has("host-nas01", "part_of", "proj-homelab-infra"));
    assert_eq!(g["edges"].as_array().unwrap().len(), 18);
    assert_eq!(g["broken"], json!([]));
}

/// Rule ids and lines of the problems of one node file written into a fresh export.
fn problems_of(node: &str) -> Vec<(String, u64)> {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "opendray-export.json",
        r#"{"format":"opendray-export/v1","exported_at":"2026-08-20T09:14:00Z"}"#,
    );
    write(tmp.path(), "facts/x.md", node);
    let v = folio_json(&["show", tmp.path().to_str().unwrap(), "x", "--json"]);
    v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["rule"].as_str().unwrap().to_string(), p["line"].as_u64().unwrap()))
        .collect()
}

fn one(rule: &str, line: u64) -> Vec<(String, u64)> {
    vec![(rule.to_string(), line)]
}

#[test]
fn every_per_file_problem_with_positive_and_negative_cases() {
    let ok: Vec<(String, u64)> = Vec::new();
    // kind
    assert_eq!(problems_of("---\nid: x\nkind: fact\n---\n"), ok);
    assert_eq!(problems_of("---\nid: x\nscope: global\n---\n"), one("missing-type", 2));
    assert_eq!(problems_of("---\nid: x\nkind: memory\n---\n"), one("invalid-field", 3));
    // entity_type: required iff kind=entity, from the closed list
    assert_eq!(problems_of("---\nid: x\nkind: entity\nentity_type: tool\n---\n"), ok);
    assert_eq!(problems_of("---\nid: x\nkind: entity\n---\n"), one("invalid-field", 3));
    assert_eq!(problems_of("---\nid: x\nkind: entity\nentity_type: vm\n---\n"), one("invalid-field", 4));
    assert_eq!(problems_of("---\nid: x\nkind: playbook\nentity_type: tool\n---\n"), one("invalid-field", 4));
    // maturity, scope, lifecycle
    assert_eq!(problems_of("---\nid: x\nkind: fact\nmaturity: candidate\nscope: domain:go\n---\n"), ok);
    assert_eq!(problems_of("---\nid: x\nkind: fact\nmaturity: confirmed\n---\n"), one("invalid-field", 4));
    assert_eq!(problems_of("---\nid: x\nkind: fact\nscope: team\n---\n"), one("invalid-field", 4));
    assert_eq!(
        problems_of("---\nid: x\nkind: fact\nprovenance: { lifecycle: deleted }\n---\n"),
        one("invalid-field", 4)
    );
    // confidence in 0..1
    assert_eq!(problems_of("---\nid: x\nkind: fact\nconfidence: 0\n---\n"), ok);
    assert_eq!(problems_of("---\nid: x\nkind: fact\nconfidence: 1.5\n---\n"), one("invalid-field", 4));
    // relations: only the closed edge vocabulary
    assert_eq!(problems_of("---\nid: x\nkind: fact\nrelations: { about: [a], part_of: [b] }\n---\n"), ok);
    assert_eq!(
        problems_of("---\nid: x\nkind: fact\nrelations:\n  about: [a]\n  mentions: [b]\n---\n"),
        one("invalid-field", 6)
    );
    // broken YAML is reported as such, and the node is still listed
    assert_eq!(problems_of("---\nid: x\nkind: [fact\n---\n"), one("invalid-frontmatter", 4));
}

/// An export of two nodes to decide on (issue 39).
fn two_nodes() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("export");
    write(
        &root,
        "opendray-export.json",
        r#"{"format": "opendray-export/v1", "exported_at": "2026-08-20T09:14:00+02:00"}"#,
    );
    write(
        &root,
        "facts/fact-lxc-range.md",
        "---\nid: fact-lxc-range\nkind: fact\ntitle: LXC ids 200-299 are services\nscope: project\nscope_key: homelab\nmaturity: fact\nprovenance: { source: reflection }\n---\nIds 200-299.\n",
    );
    write(
        &root,
        "skills/restore/SKILL.md",
        "---\nid: sk-restore\nkind: skill\nname: restore\ndescription: \"Restore a container\"\nmaturity: skill\nenabled: false\nprovenance: { source: agent_distilled, lifecycle: pending-review }\n---\n# restore\n\nsteps\n",
    );
    (dir, root)
}

/// `promote --to global` in the export: the scope widens and the node keeps no `scope_key`,
/// as opendray's store writes every global node (it was refused as "not a maturity", or set
/// `maturity: global` on an entity).
#[test]
fn promote_to_global_in_an_export_drops_the_scope_key() {
    let (_dir, root) = two_nodes();
    let r = root.to_str().unwrap();
    let o = folio(&["review", r, "promote", "fact-lxc-range", "--to", "global", "--as", "human:ann"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(root.join("facts/fact-lxc-range.md")).unwrap();
    assert!(text.contains("\nscope: global\n") && !text.contains("\nscope_key:"), "{text}");
    assert!(text.contains("promoted_from: { scope: project, scope_key: homelab }"), "{text}");
    assert!(text.contains("\nmaturity: fact\n"), "{text}");
    let o = folio(&["review", r, "promote", "fact-lxc-range", "--to", "project", "--as", "human:ann"]);
    assert_eq!(o.status.code(), Some(2), "never narrowed");
}

/// Approving a distilled skill in the export records the approval and says it stays disabled.
#[test]
fn approving_a_distilled_skill_in_an_export_says_it_stays_disabled() {
    let (_dir, root) = two_nodes();
    let r = root.to_str().unwrap();
    let o = folio(&["review", r, "approve", "sk-restore", "--as", "human:ann"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("`sk-restore` stays disabled"), "{out}");
    let text = std::fs::read_to_string(root.join("skills/restore/SKILL.md")).unwrap();
    assert!(text.contains("enabled: false") && text.contains("lifecycle: pending-review"), "{text}");
    assert!(text.contains("approved: { by: \"human:ann\""), "{text}");
    let list = folio_json(&["review", r, "list", "--json"]);
    assert!(!list["items"].as_array().unwrap().iter().any(|i| i["id"] == "sk-restore"), "{list}");
}
