//! opendray's live brain in a real PostgreSQL: folio opens it by connection string (and
//! FOLIO_DATABASE_URL, and `--dialect opendray`), reads nodes, typed edges and fact sources,
//! hides archived nodes unless `--archived`, lints it with the brain's guards, and says in
//! one line (exit 2, no password) why a database cannot be read.
use crate::support::opendray_seed as seed;
use crate::support::pg;
use crate::support::pg::{files_under, folio_db, said};

use std::path::Path;
use std::process::Output;

use serde_json::Value;

fn json(state: &Path, args: &[&str]) -> Value {
    let o = folio_db(state, args, &[]);
    assert!(o.status.success() || o.status.code() == Some(1), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn the_brain_reads_as_a_store_by_every_way_of_naming_it() {
    let Some((_pg, _c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();

    let stats = json(s, &["stats", &url, "--json"]);
    assert_eq!(stats["dialect"], "opendray-pg");
    let by = stats["detected_by"].as_str().unwrap();
    assert!(by.starts_with("postgres://folio@") && by.ends_with("/brain (PostgreSQL)"), "{by}");
    // Seven live nodes; the archived playbook is hidden.
    assert_eq!(stats["entities"], 7, "{stats:#}");
    assert_eq!(stats["by_kind"]["entity/service"], 2);
    assert_eq!(stats["by_kind"]["skill"], 1);
    // The brain's edges are typed edges, counted as such beside the (absent) body links.
    assert_eq!(stats["typed_edges"], 7, "{stats:#}");
    let out = said(&folio_db(s, &["stats", &url], &[]));
    assert!(out.contains("7 typed edges, 0 to no entity"), "{out}");
    assert!(out.contains("entities with problems") && !out.contains("reading problems"), "{out}");

    let show = json(s, &["show", &url, "svc-pg", "--json"]);
    assert_eq!(show["title"], "PostgreSQL dev");
    // An edge's target is named by its title, its id once.
    let out = said(&folio_db(s, &["show", &url, "svc-pg"], &[]));
    assert!(out.contains("uses tool-x “pgbackrest”"), "{out}");
    assert!(!out.contains("tool-x -> tool-x"), "{out}");
    assert_eq!(show["status"], "candidate");
    let edges: Vec<(String, String)> = show["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["type"].as_str().unwrap().into(), e["resolved"].as_str().unwrap_or("-").into()))
        .collect();
    assert_eq!(edges, [("runs_on".to_string(), "host-a".to_string()), ("uses".into(), "tool-x".into())]);
    assert_eq!(show["sources"], serde_json::json!(["mem-1"]));

    // The same database by FOLIO_DATABASE_URL, and by `--dialect opendray` with the string.
    let o = folio_db(s, &["stats", "--json"], &[("FOLIO_DATABASE_URL", &url)]);
    assert!(o.status.success(), "{}", said(&o));
    assert_eq!(serde_json::from_slice::<Value>(&o.stdout).unwrap()["entities"], 7);
    assert_eq!(json(s, &["stats", &url, "--dialect", "opendray", "--json"])["dialect"], "opendray-pg");

    // --archived shows the archived playbook too.
    let all = json(s, &["stats", &url, "--archived", "--json"]);
    assert_eq!(all["entities"], 8);
    let archived = json(s, &["show", &url, "pb-old", "--archived", "--json"]);
    assert_eq!(archived["status"], "archived");
    assert_eq!(folio_db(s, &["show", &url, "pb-old"], &[]).status.code(), Some(2));

    // recall and graph work on it as on a folder.
    let r = folio_db(s, &["recall", &url, "postgres"], &[]);
    assert!(r.status.success() && said(&r).contains("svc-pg"), "{}", said(&r));
    let g = folio_db(s, &["graph", &url, "--format", "json"], &[]);
    assert!(g.status.success(), "{}", said(&g));
    let graph: Value = serde_json::from_slice(&g.stdout).unwrap();
    assert!(graph.to_string().contains("runs_on"), "{graph}");
}

#[test]
fn lint_finds_the_brains_own_guards() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    // What the schema's CHECKs forbid, in a database whose constraints were relaxed.
    c.batch_execute(
        "ALTER TABLE knowledge_nodes DROP CONSTRAINT knowledge_nodes_entity_type_ck;
         ALTER TABLE knowledge_edges DROP CONSTRAINT knowledge_edges_edge_type_check;
         INSERT INTO knowledge_nodes (id, kind, title) VALUES ('ent-untyped', 'entity', 'Mystery box');
         INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ('ent-untyped', 'likes', 'host-a');",
    )
    .unwrap();
    let state = tempfile::tempdir().unwrap();
    let v = json(state.path(), &["lint", &url, "--format", "json"]);
    let found: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{v:#}"))
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["entity"].as_str().unwrap_or("").to_string()))
        .collect();
    let has = |rule: &str, id: &str| found.iter().any(|(r, e)| r == rule && e == id);
    assert!(has("never-used", "sk-stale"), "{found:?}");
    assert!(has("failing", "sk-stale"), "{found:?}");
    assert!(has("old-candidate", "pb-deploy"), "{found:?}");
    assert!(has("orphan", "sk-stale"), "{found:?}");
    assert!(!has("old-candidate", "svc-pg"), "made today: {found:?}");
    // opendray's merge key: titles equal once case, spacing and punctuation are set aside.
    assert!(has("duplicate-title", "svc-pg-dup") || has("duplicate-title", "svc-pg"), "{found:?}");
    assert!(has("invalid-field", "ent-untyped"), "entity without entity_type, edge type `likes`: {found:?}");
    let untyped: Vec<&Value> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["entity"] == "ent-untyped").collect();
    let says = |needle: &str| untyped.iter().any(|f| f["message"].as_str().unwrap_or("").contains(needle));
    assert!(says("entity_type is missing") && says("`likes`"), "{untyped:#?}");
    // Fixes are worked out from the nodes' texts in the snapshot, as from a folder's files
    // (no node file exists to read).
    let fixable = v["summary"]["fixable"].as_u64().unwrap();
    let dry = folio_db(state.path(), &["lint", &url, "--fix", "--dry-run"], &[]);
    let out = said(&dry);
    assert_ne!(dry.status.code(), Some(2), "{out}");
    assert!(!out.contains("cannot read"), "{out}");
    assert!(out.contains("nothing written (--dry-run)"), "{out}");
    if fixable > 0 {
        assert!(out.contains("+++ "), "{fixable} fixable findings, no diff: {out}");
    }
    eprintln!("{fixable} fixable findings on the brain");
}

#[test]
fn unreadable_databases_are_one_line_and_exit_2() {
    let Some(pg) = pg::Pg::start() else { return };
    seed::homelab(&mut pg.opendray_db("brain"));
    pg.client("postgres").batch_execute("CREATE DATABASE empty").unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let one_line = |o: &Output| {
        assert_eq!(o.status.code(), Some(2), "{}", said(o));
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!err.contains(pg::PASSWORD) && !err.contains("wrong-pw"), "{err}");
        err
    };
    let wrong = one_line(&folio_db(s, &["stats", &pg.tcp_url("brain", "wrong-pw")], &[]));
    assert!(wrong.contains("password authentication failed"), "{wrong}");
    // The right password over TCP opens it, and is never written into folio's state.
    let ok = folio_db(s, &["stats", &pg.tcp_url("brain", pg::PASSWORD), "--json"], &[]);
    assert!(ok.status.success(), "{}", said(&ok));
    assert!(!said(&ok).contains(pg::PASSWORD));
    // Nor by a decision and its undo: journal, undo record, log, ledger, cache, the row.
    for args in [&["review", "approve", "svc-pg", "--as", "human:ann"][..], &["undo", "--as", "human:ann"]] {
        let url = pg.tcp_url("brain", pg::PASSWORD);
        let o = folio_db(s, &[&[args[0], url.as_str()][..], &args[1..]].concat(), &[]);
        assert!(o.status.success(), "{}", said(&o));
        assert!(!said(&o).contains(pg::PASSWORD), "{}", said(&o));
    }
    let row = seed::row(&mut pg.client("brain"), "svc-pg");
    assert!(!row.to_string().contains(pg::PASSWORD) && row["provenance"]["folio_history"].is_array(), "{row:#}");
    for f in files_under(s) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains(pg::PASSWORD), "{} holds the password", f.display());
    }
    let unreachable = one_line(&folio_db(s, &["stats", "postgres://folio@127.0.0.1:1/brain"], &[]));
    assert!(unreachable.contains("cannot connect"), "{unreachable}");
    let no_tables = one_line(&folio_db(s, &["stats", &pg.conninfo("empty")], &[]));
    assert!(no_tables.contains("no table `knowledge_nodes`"), "{no_tables}");
    pg.client("brain").batch_execute("ALTER TABLE knowledge_nodes ADD COLUMN decay_rate real").unwrap();
    let newer = one_line(&folio_db(s, &["stats", &pg.conninfo("brain")], &[]));
    assert!(newer.contains("knowledge_nodes.decay_rate` is newer than folio knows"), "{newer}");
    // A column of another type than folio reads it as: one line, not a panic on the first row.
    pg.client("brain")
        .batch_execute(
            "ALTER TABLE knowledge_nodes DROP COLUMN decay_rate; \
             ALTER TABLE knowledge_nodes ALTER COLUMN use_count TYPE bigint",
        )
        .unwrap();
    let other = one_line(&folio_db(s, &["stats", &pg.conninfo("brain")], &[]));
    assert!(other.contains("`knowledge_nodes.use_count` is bigint where opendray's schema has integer"), "{other}");
    // A text column declared `varchar` reads as text does.
    pg.client("brain")
        .batch_execute(
            "ALTER TABLE knowledge_nodes ALTER COLUMN use_count TYPE integer; \
             ALTER TABLE knowledge_nodes ALTER COLUMN title TYPE varchar(200)",
        )
        .unwrap();
    let read = folio_db(s, &["stats", &pg.conninfo("brain"), "--json"], &[]);
    assert!(read.status.success(), "{}", said(&read));
}

#[test]
fn folio_gen_fills_an_empty_brain_deterministically() {
    let Some(pg) = pg::Pg::start() else { return };
    pg.opendray_db("a");
    pg.opendray_db("b");
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let kind = folio::store::dialect::by_name("opendray-pg").unwrap();
    for db in ["a", "b"] {
        folio_gen::fill_database(kind, 300, 5, &pg.conninfo(db)).unwrap();
    }
    let stats = json(s, &["stats", &pg.conninfo("a"), "--json"]);
    assert_eq!(stats["entities"], 300);
    assert_eq!(stats["unresolved_links"], 0, "{stats:#}");
    let dump = |db: &str| -> Vec<String> {
        pg.client(db)
            .query("SELECT n::text FROM knowledge_nodes n ORDER BY id", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    assert_eq!(dump("a"), dump("b"), "the same seed writes the same rows");
    let again = folio_gen::fill_database(kind, 300, 5, &pg.conninfo("a")).unwrap_err();
    assert!(again.contains("already holds 300 nodes"), "{again}");
}

#[test]
fn each_open_takes_what_agents_changed_since() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 7);
    c.batch_execute(
        "UPDATE knowledge_nodes SET title = 'PostgreSQL (dev)', updated_at = now() WHERE id = 'svc-pg';
         UPDATE knowledge_nodes SET archived_at = now() WHERE id = 'tool-y';
         UPDATE knowledge_nodes SET title = 'Host A' WHERE id = 'host-a';
         DELETE FROM knowledge_edges WHERE src_id = 'svc-pg';
         INSERT INTO knowledge_nodes (id, kind, title) VALUES ('sk-new', 'skill', 'Fresh skill');
         INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ('sk-new', 'about', 'host-a');",
    )
    .unwrap();
    let stats = json(s, &["stats", &url, "--json"]);
    assert_eq!(stats["entities"], 7, "one archived, one added");
    let svc = json(s, &["show", &url, "svc-pg", "--json"]);
    assert_eq!(svc["title"], "PostgreSQL (dev)");
    assert_eq!(svc["edges"], serde_json::json!([]), "its edges were removed: {svc:#}");
    // A write that leaves updated_at alone is seen too (the version is the row's xmin).
    assert_eq!(json(s, &["show", &url, "host-a", "--json"])["title"], "Host A");
    assert_eq!(folio_db(s, &["show", &url, "tool-y"], &[]).status.code(), Some(2));
    let new = json(s, &["show", &url, "sk-new", "--json"]);
    assert_eq!(new["edges"][0]["resolved"], "host-a");
    // No file per node: the nodes are in one snapshot of folio's state folder.
    let root = std::path::PathBuf::from(stats["root"].as_str().unwrap());
    let md: Vec<_> = files_under(s).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    assert!(md.is_empty(), "an open wrote node files: {md:?}");
    assert!(root.join(".folio/snapshot.bin").is_file());
    // A node file left in the folder (by an earlier build, or a decision cut short) is not
    // read — the snapshot is — and is removed on the next open.
    std::fs::create_dir_all(root.join("entities/host")).unwrap();
    std::fs::write(
        root.join("entities/host/stray.md"),
        "---\nid: stray\nkind: entity\nentity_type: host\ntitle: Stray\n---\n",
    )
    .unwrap();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 7);
    assert!(!root.join("entities/host/stray.md").exists(), "the stray file was removed");
    assert!(!root.join("entities").exists(), "the folder it left empty was removed");
}

/// An open reads the tables' sums first and groups again only a table whose sum changed;
/// each table changed alone (the other two as the mirror took them) is still seen, and so
/// is a node shown again whose edges never changed.
#[test]
fn a_change_to_one_table_alone_is_taken() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let edges = |id: &str| -> Vec<String> {
        let v = json(s, &["show", &url, id, "--json"]);
        v["edges"].as_array().unwrap().iter().map(|e| format!("{} {}", e["type"], e["target"])).collect()
    };
    assert_eq!(edges("host-a"), Vec::<String>::new());
    // Edges alone: no node row changes when an agent links two nodes.
    c.batch_execute("INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ('host-a', 'part_of', 'svc-pg')")
        .unwrap();
    assert_eq!(edges("host-a"), [r#""part_of" "svc-pg""#]);
    // Fact sources alone.
    c.batch_execute("INSERT INTO knowledge_fact_sources (node_id, memory_id) VALUES ('host-a', 'mem-9')").unwrap();
    assert_eq!(json(s, &["show", &url, "host-a", "--json"])["sources"], serde_json::json!(["mem-9"]));
    c.batch_execute("DELETE FROM knowledge_fact_sources WHERE node_id = 'svc-pg'").unwrap();
    assert_eq!(json(s, &["show", &url, "svc-pg", "--json"])["sources"], serde_json::json!([]));
    // Nodes alone: the archived playbook shown again (its edge was there all along), then
    // its edge removed alone — which its version must have counted when it came back.
    c.batch_execute(
        "INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ('pb-old', 'about', 'tool-x');
         UPDATE knowledge_nodes SET archived_at = NULL WHERE id = 'pb-deploy'",
    )
    .unwrap();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 7);
    c.batch_execute("UPDATE knowledge_nodes SET archived_at = NULL WHERE id = 'pb-old'").unwrap();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 8);
    assert_eq!(edges("pb-old"), [r#""about" "tool-x""#]);
    c.batch_execute("DELETE FROM knowledge_edges WHERE src_id = 'pb-old'").unwrap();
    assert_eq!(edges("pb-old"), Vec::<String>::new());
    // Nothing changed: nothing in the database's folder is written.
    let root = std::path::PathBuf::from(json(s, &["stats", &url, "--json"])["root"].as_str().unwrap().to_string());
    let before: Vec<_> =
        files_under(&root).iter().map(|p| (p.clone(), std::fs::metadata(p).unwrap().modified().unwrap())).collect();
    json(s, &["stats", &url, "--json"]);
    let after: Vec<_> =
        files_under(&root).iter().map(|p| (p.clone(), std::fs::metadata(p).unwrap().modified().unwrap())).collect();
    assert_eq!(before, after);
}

#[test]
fn a_large_brain_reopens_through_the_cache_and_still_sees_changes() {
    let Some(pg) = pg::Pg::start() else { return };
    let mut c = pg.opendray_db("brain");
    let url = pg.conninfo("brain");
    folio_gen::fill_database(folio::store::dialect::by_name("opendray-pg").unwrap(), 1500, 1, &url).unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 1500);
    let id: String = c.query_one("SELECT min(id) FROM knowledge_nodes", &[]).unwrap().get(0);
    c.execute("UPDATE knowledge_nodes SET title = 'Renamed by an agent', updated_at = now() WHERE id = $1", &[&id])
        .unwrap();
    c.execute("UPDATE knowledge_nodes SET archived_at = now() WHERE id = (SELECT max(id) FROM knowledge_nodes)", &[])
        .unwrap();
    // The second open is served by the persistent cache, revalidated against the re-synced files.
    let o = folio_db(s, &["stats", &url, "--json"], &[]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", said(&o));
    let stats: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(stats["entities"], 1499);
    assert_eq!(json(s, &["show", &url, &id, "--json"])["title"], "Renamed by an agent");
    let caches: Vec<_> =
        files_under(&s.join("cache")).into_iter().filter(|p| p.to_string_lossy().ends_with(".folio-cache")).collect();
    assert_eq!(caches.len(), 1, "the store cache was written: {caches:?}");
    // Unchanged since: the snapshot is used as it is and not written again.
    let saved = std::fs::metadata(&caches[0]).unwrap().modified().unwrap();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 1499);
    assert_eq!(std::fs::metadata(&caches[0]).unwrap().modified().unwrap(), saved);
    // folio's own write changes the mirror's files: the next open through the cache sees it,
    // and so does the one after (whose snapshot was taken after the write).
    let o = folio_db(s, &["review", &url, "approve", &id, "--as", "human:ann"], &[]);
    assert!(o.status.success(), "{}", said(&o));
    for _ in 0..2 {
        let shown = json(s, &["show", &url, &id, "--json"]);
        assert!(shown.to_string().contains("human:ann"), "{shown:#}");
        assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 1499);
    }
    // An agent's edge alone (no node row changes) reaches the cached store too.
    let other: String =
        c.query_one("SELECT max(id) FROM knowledge_nodes WHERE archived_at IS NULL", &[]).unwrap().get(0);
    c.execute("DELETE FROM knowledge_edges WHERE src_id = $1", &[&other]).unwrap();
    c.execute("INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ($1, 'about', $2)", &[&other, &id])
        .unwrap();
    let edges = json(s, &["show", &url, &other, "--json"])["edges"].clone();
    assert_eq!(edges.as_array().map(Vec::len), Some(1), "{edges:#}");
    assert_eq!(edges[0]["target"], id.as_str());
}

/// The snapshot is never trusted when its bytes do not check: a torn or damaged one is
/// rebuilt from the database, and the open says so, naming the file.
#[test]
fn a_torn_or_damaged_snapshot_is_rebuilt_with_a_warning() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let stats = json(s, &["stats", &url, "--json"]);
    assert_eq!(stats["warnings"], serde_json::json!([]), "{stats:#}");
    let root = std::path::PathBuf::from(stats["root"].as_str().unwrap());
    let snap = root.join(".folio/snapshot.bin");
    let whole = std::fs::read(&snap).unwrap();
    // An agent's change meanwhile: the rebuilt snapshot has it.
    c.batch_execute("UPDATE knowledge_nodes SET title = 'Host A' WHERE id = 'host-a'").unwrap();
    let damaged = {
        let mut b = whole.clone();
        let at = b.len() / 2;
        b[at] ^= 0x20;
        b
    };
    for (what, bytes) in [("torn", whole[..whole.len() / 2].to_vec()), ("damaged", damaged)] {
        std::fs::write(&snap, &bytes).unwrap();
        let stats = json(s, &["stats", &url, "--json"]);
        assert_eq!(stats["entities"], 7, "{what}: {stats:#}");
        let out = stats["warnings"].to_string();
        assert!(out.contains("snapshot.bin") && out.contains("rebuilt from the database"), "{what}: {out}");
        assert_eq!(json(s, &["show", &url, "host-a", "--json"])["title"], "Host A", "{what}");
        // Said once: the next open finds it intact.
        assert_eq!(json(s, &["stats", &url, "--json"])["warnings"], serde_json::json!([]), "{what}");
    }
}

/// The folder an earlier folio mirrored a database into (a file per node, its manifest and
/// generation) loses its node files on the first open by this one; folio's state there —
/// log, undo records, review ledger — is kept, and the last decision still undoes.
#[test]
fn an_old_mirror_folder_loses_its_node_files_and_keeps_its_state() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let o = folio_db(s, &["review", &url, "approve", "svc-pg", "--as", "human:ann"], &[]);
    assert!(o.status.success(), "{}", said(&o));
    let root = std::path::PathBuf::from(json(s, &["stats", &url, "--json"])["root"].as_str().unwrap());
    let kept: Vec<_> = files_under(&root.join(".folio"))
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("snapshot"))
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    assert!(kept.iter().any(|(p, _)| p.to_string_lossy().contains("undo")), "{kept:?}");
    // What an earlier build left: node files, its manifest and generation; and a file of
    // someone else's beside them, not a node file.
    for (rel, body) in [
        ("entities/service/svc-pg.md", "---\nid: svc-pg\n---\nold\n"),
        ("skills/sk-x.md", "---\nid: sk-x\n---\n"),
        (".folio/mirror.bin", "FOLIOMR2"),
        (".folio/generation", "12345\n"),
        ("notes/mine.txt", "not folio's"),
    ] {
        std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
        std::fs::write(root.join(rel), body).unwrap();
    }
    let stats = json(s, &["stats", &url, "--json"]);
    assert_eq!(stats["entities"], 7);
    for gone in ["entities", "skills", ".folio/mirror.bin", ".folio/generation"] {
        assert!(!root.join(gone).exists(), "{gone} is still there");
    }
    assert!(root.join("notes/mine.txt").exists(), "a file that is no node file was removed");
    for (p, bytes) in &kept {
        assert_eq!(&std::fs::read(p).unwrap(), bytes, "{} changed", p.display());
    }
    let o = folio_db(s, &["undo", &url, "--as", "human:ann"], &[]);
    assert!(o.status.success(), "{}", said(&o));
    let r = seed::row(&mut c, "svc-pg");
    assert!(r["provenance"].get("approved").is_none(), "{r:#}");
}
