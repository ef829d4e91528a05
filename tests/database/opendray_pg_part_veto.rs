//! A veto or forget on a database reads its node and the nodes that may link into it
//! (`opendray_pg::inbound`), not the cached store of every node, and says and writes what the
//! whole store does: each kind of link into the node (a typed edge, a wikilink by id or alias,
//! a markdown link, a fact source naming its file) is listed and left broken alike; a name
//! another node claims first is not the node's. The whole store's answer is the same command
//! naming the node by its path, which the part never takes.
use crate::opendray_pg_part::{cached_brain, spoil_cache};
use crate::support::PINNED_NOW;
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, said};

use std::path::Path;

/// A live entity of the generated brain and its path; nodes linking into it every way a
/// brain can, one that claims its title first (a node whose id is that title), an archived
/// one linking in (not shown, so not listed) and an archived one named as it is.
fn link_into(c: &mut postgres::Client, s: &Path, url: &str) -> (String, String, Vec<String>) {
    let r = c
        .query_one(
            "SELECT id, title FROM knowledge_nodes WHERE archived_at IS NULL AND kind = 'entity' ORDER BY id LIMIT 1",
            &[],
        )
        .unwrap();
    let (id, title): (String, String) = (r.get(0), r.get(1));
    let shown = folio_db(s, &["show", url, &id, "--json"], &[]);
    let path =
        serde_json::from_slice::<serde_json::Value>(&shown.stdout).unwrap()["path"].as_str().unwrap().to_string();
    c.execute(
        "UPDATE knowledge_nodes SET provenance = provenance || '{\"aliases\": [\"Main-Store\"]}' WHERE id = $1",
        &[&id],
    )
    .unwrap();
    let node = |c: &mut postgres::Client, nid: &str, body: &str, archived: bool| {
        c.execute(
            "INSERT INTO knowledge_nodes (id, kind, title, body, maturity, provenance, archived_at) \
             VALUES ($1, 'playbook', $1, $2, 'candidate', '{}', CASE WHEN $3 THEN now() END)",
            &[&nid, &body, &archived],
        )
        .unwrap();
    };
    node(c, "zz-edge", "Uses it.", false);
    c.execute("INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ('zz-edge', 'uses', $1)", &[&id])
        .unwrap();
    node(c, "zz-wiki", &format!("See [[{}]].", id.to_uppercase()), false);
    node(c, "zz-alias", "See [[main-store]].", false);
    node(c, "zz-md", &format!("See [it](../{path})."), false);
    node(c, "zz-src", "Cites it.", false);
    c.execute("INSERT INTO knowledge_fact_sources (node_id, memory_id) VALUES ('zz-src', $1)", &[&path]).unwrap();
    // An edge and a fact source added to nodes whose rows do not change (their renderings in
    // the snapshot do not show them).
    let others: Vec<String> = c
        .query("SELECT id FROM knowledge_nodes WHERE archived_at IS NULL AND id <> $1 AND id NOT LIKE 'zz-%' ORDER BY id DESC LIMIT 4", &[&id])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    c.execute("INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ($1, 'about', $2)", &[&others[0], &id])
        .unwrap();
    c.execute("INSERT INTO knowledge_fact_sources (node_id, memory_id) VALUES ($1, $2)", &[&others[1], &path]).unwrap();
    node(c, &title.to_lowercase(), "Claims the title first.", false);
    node(c, "zz-title", &format!("See [[{title}]]."), false);
    node(c, "zz-gone", &format!("See [[{id}]]."), true);
    // An archived node whose id is the alias: hidden, it claims nothing, but an edge to it
    // names it by id, not the node by its alias (the last test below).
    node(c, "main-store", "Archived.", true);
    (id, path, others)
}

/// `folio review <url> <verdict> <name> …` with the clock pinned.
fn review(s: &Path, url: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec!["review", url];
    all.extend_from_slice(args);
    folio_db(s, &all, &[("FOLIO_NOW", PINNED_NOW)])
}

/// The dry runs of a veto and a forget by id (the part) and by path (the whole store) print
/// the same, every link into the node listed; the part never decodes the cached store.
fn dry_runs_agree(s: &Path, url: &str, id: &str, path: &str, others: &[String], also: &[String], not: &[String]) {
    for verdict in [&["veto", "--reason", "wrong"][..], &["forget"][..]] {
        assert!(spoil_cache(s) >= 1, "no store cache was written");
        let by = |name: &str| {
            let mut args = vec![verdict[0], name];
            args.extend_from_slice(&verdict[1..]);
            args.extend_from_slice(&["--as", "human:ann", "--dry-run"]);
            let o = review(s, url, &args);
            assert!(o.status.success(), "{}", said(&o));
            o
        };
        let part = by(id);
        assert!(!String::from_utf8_lossy(&part.stderr).contains("cache"), "the cached store was read: {}", said(&part));
        let whole = by(path);
        assert!(
            String::from_utf8_lossy(&whole.stderr).contains("cache"),
            "the whole store was not read: {}",
            said(&whole)
        );
        let out = String::from_utf8_lossy(&part.stdout);
        assert_eq!(out, String::from_utf8_lossy(&whole.stdout), "{verdict:?}");
        assert_eq!(
            String::from_utf8_lossy(&part.stderr),
            String::from_utf8_lossy(&whole.stderr)
                .lines()
                .filter(|l| !l.contains("cache"))
                .map(|l| format!("{l}\n"))
                .collect::<String>(),
            "{verdict:?}"
        );
        for from in ["zz-edge.md:1 edge uses", "zz-wiki.md", "zz-alias.md", "zz-md.md", "zz-src.md:1 source"] {
            assert!(out.contains(&format!("playbooks/{from}")), "{from} is not listed: {out}");
        }
        assert!(out.contains(&format!("{}.md:1 edge about", others[0])), "{out}");
        assert!(out.contains(&format!("{}.md:1 source", others[1])), "{out}");
        for from in also {
            assert!(out.contains(from.as_str()), "{from} is not listed: {out}");
        }
        for from in not {
            assert!(!out.contains(from.as_str()), "{from} is listed: {out}");
        }
        assert!(!out.contains("zz-title") && !out.contains("zz-gone"), "{out}");
    }
}

#[test]
fn a_veto_and_a_forget_by_id_list_every_link_in_as_the_whole_store_does() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some((_pg, mut c, url, _)) = cached_brain(s) else { return };
    let (id, path, others) = link_into(&mut c, s, &url);
    // The linking nodes written since the snapshot (found among the rows written since it)…
    dry_runs_agree(s, &url, &id, &path, &others, &[], &[]);
    // …and once the snapshot holds them (found in its texts).
    let o = folio_db(s, &["stats", &url], &[("FOLIO_NOW", PINNED_NOW)]);
    assert!(o.status.success(), "{}", said(&o));
    dry_runs_agree(s, &url, &id, &path, &others, &[], &[]);
}

/// A veto by id writes, logs and undoes what a veto by path does: the row, the log line with
/// the links it leaves broken, the printed lines.
#[test]
fn a_veto_by_id_writes_logs_and_undoes_as_the_whole_store_does() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some((_pg, mut c, url, _)) = cached_brain(s) else { return };
    let (id, path, _) = link_into(&mut c, s, &url);
    let before = seed::row(&mut c, &id);
    let mut seen = Vec::new();
    for name in [id.as_str(), path.as_str()] {
        let o = review(s, &url, &["veto", name, "--reason", "wrong", "--as", "human:ann"]);
        assert!(o.status.success(), "{}", said(&o));
        let row = seed::row(&mut c, &id);
        let undo = folio_db(s, &["undo", &url, "--as", "human:ann"], &[]);
        assert!(undo.status.success(), "{}", said(&undo));
        let after = seed::row(&mut c, &id);
        assert!(after["archived_at"].is_null(), "{after:#}");
        assert_eq!((&after["updated_at"], &after["body"]), (&before["updated_at"], &before["body"]));
        seen.push((
            String::from_utf8_lossy(&o.stdout).to_string(),
            row["archived_at"].clone(),
            row["provenance"]["archived_reason"].clone(),
        ));
    }
    let (part, whole) = (&seen[0], &seen[1]);
    assert!(part.0.contains("playbooks/zz-edge.md") && part.0.contains("playbooks/zz-src.md"), "{}", part.0);
    assert_eq!(part.0, whole.0);
    // Archived both times (at the server's clock), for the same reason.
    assert!(part.1.is_string() && whole.1.is_string(), "{} {}", part.1, whole.1);
    assert_eq!((&part.2, &whole.2), (&serde_json::json!("vetoed by human:ann: wrong"), &part.2));
    // The log line, less the digest of the text decided on: the undo between the two vetoes
    // left its own entry in the node's `provenance.folio_history`.
    let log = folio_db(s, &["log", &url, "--json"], &[]);
    assert!(log.status.success(), "{}", said(&log));
    let log: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    let event = |e: &serde_json::Value| {
        let mut raw = match &e["raw"] {
            serde_json::Value::String(line) => serde_json::from_str(line).unwrap_or(serde_json::Value::Null),
            other => other.clone(),
        };
        if let Some(o) = raw.as_object_mut() {
            o.remove("hash");
        }
        (e["entities"].clone(), raw)
    };
    let vetoes: Vec<_> = log.as_array().unwrap().iter().filter(|e| e["kind"] == "veto").map(event).collect();
    assert_eq!(vetoes.len(), 2, "{log:#}");
    assert!(vetoes[0].1["summary"].as_str().is_some_and(|s| s.starts_with("vetoed")), "{:#}", vetoes[0].1);
    assert_eq!(vetoes[0], vetoes[1]);
}

/// A wikilink into the node written as a path is one the part does not prove (the first
/// place it is tried from may hold a node the part lacks): the whole store decides.
#[test]
fn a_wikilink_written_as_a_path_leaves_the_veto_to_the_whole_store() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some((_pg, mut c, url, _)) = cached_brain(s) else { return };
    let (id, path, _) = link_into(&mut c, s, &url);
    let body = format!("See [[{}]].", path.trim_end_matches(".md"));
    c.execute(
        "INSERT INTO knowledge_nodes (id, kind, title, body, maturity, provenance) VALUES ('zz-path', 'playbook', 'p', $1, 'candidate', '{}')",
        &[&body],
    )
    .unwrap();
    assert!(spoil_cache(s) >= 1);
    let o = review(s, &url, &["veto", &id, "--reason", "wrong", "--as", "human:ann", "--dry-run"]);
    assert!(o.status.success(), "{}", said(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cache"), "the whole store was not read: {}", said(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("playbooks/zz-path.md"), "{}", said(&o));
}

/// Edges added since the snapshot from nodes whose rows did not change (their kept
/// renderings do not show them): one to the node, which is a link in, found by the ids
/// holding a name in the snapshot's index; and one to an archived node whose id is one of the
/// node's names, which is not: an edge is a row naming its end by id, and that row is
/// untouched by the veto (it was read as a link into the node, by its alias, until edges
/// resolved by id alone).
#[test]
fn edges_added_since_to_the_node_or_an_archived_node_named_so_are_links_in() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some((_pg, mut c, url, _)) = cached_brain(s) else { return };
    let (id, path, others) = link_into(&mut c, s, &url);
    let o = folio_db(s, &["stats", &url], &[("FOLIO_NOW", PINNED_NOW)]);
    assert!(o.status.success(), "{}", said(&o));
    let edge = "INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ($1, $2, $3)";
    c.execute(edge, &[&others[2], &"uses", &"main-store"]).unwrap();
    c.execute(edge, &[&others[3], &"depends_on", &id]).unwrap();
    let also = [format!("{}.md:1 edge depends_on", others[3])];
    let not = [format!("{}.md:1 edge uses", others[2])];
    dry_runs_agree(s, &url, &id, &path, &others, &also, &not);
}
