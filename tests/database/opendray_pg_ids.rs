//! A node's id is its row's key exactly: opendray's `knowledge_nodes.id` takes any text, so
//! `' pb-deploy '` and `'pb-deploy'` are two nodes and `''` is one. The model read the id
//! trimmed (as a file's frontmatter value is read), so the twins were listed as one id with a
//! false `duplicate-id` error on both, and the empty one took its file's name.
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, said};

use serde_json::Value;

fn json(state: &std::path::Path, args: &[&str], no_cache: bool) -> Value {
    let env: &[(&str, &str)] = if no_cache { &[("FOLIO_NO_CACHE", "1")] } else { &[] };
    let o = folio_db(state, args, env);
    // lint exits 1 when it finds errors; anything else is a failure of the command.
    assert!(matches!(o.status.code(), Some(0 | 1)), "folio {args:?}: {}", said(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("folio {args:?}: {e}: {}", said(&o)))
}

fn ids_of(items: &Value, title: &str) -> Vec<String> {
    let items = items.as_array().unwrap();
    items.iter().filter(|i| i["title"] == title).map(|i| i["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn ids_are_read_exactly_as_the_table_holds_them() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute(
        "INSERT INTO knowledge_nodes (id, kind, title, body, maturity) VALUES
           ('', 'playbook', 'Empty id', 'x', 'candidate'),
           (' pb-deploy ', 'playbook', 'Spaced twin', 'y', 'candidate'),
           (E'tab\\tid', 'playbook', 'Tabbed', 'z', 'candidate');
         INSERT INTO knowledge_nodes (id, kind, title, body, archived_at) VALUES
           ('deploy the dev db', 'fact', 'Archived', 'w', now());
         INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES
           ('svc-pg', 'used_by', ' pb-deploy '), ('svc-pg', 'used_by', ''), (' pb-deploy ', 'about', 'pb-deploy'),
           ('svc-pg', 'depends_on', 'deploy the dev db')",
    )
    .unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    // The first open (rows handed to the model) and a later one parsing the snapshot's
    // renderings without the store cache must agree.
    for no_cache in [false, true, false] {
        let list = json(s, &["review", &url, "list", "--json"], no_cache);
        let items = &list["items"];
        assert_eq!(ids_of(items, "Spaced twin"), [" pb-deploy "], "no_cache {no_cache}");
        assert_eq!(ids_of(items, "Empty id"), [""], "no_cache {no_cache}");
        assert_eq!(ids_of(items, "Tabbed"), ["tab\tid"], "no_cache {no_cache}");
        assert_eq!(ids_of(items, "Deploy the dev DB"), ["pb-deploy"], "no_cache {no_cache}");

        let lint = json(s, &["lint", &url, "--format", "json"], no_cache);
        let findings = lint["findings"].as_array().unwrap();
        let dup: Vec<&Value> = findings.iter().filter(|f| f["rule"] == "duplicate-id").collect();
        assert!(dup.is_empty(), "no_cache {no_cache}: {dup:?}");
        let self_edges: Vec<&Value> =
            findings.iter().filter(|f| f["message"].as_str().unwrap().contains("itself")).collect();
        assert!(self_edges.is_empty(), "' pb-deploy ' → 'pb-deploy' is no self-edge: {self_edges:?}");

        // Each edge reaches the row its end names, the spaced and the empty one included.
        let show = json(s, &["show", &url, "svc-pg", "--json"], no_cache);
        let used_by: Vec<(String, String)> = show["edges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "used_by")
            .map(|e| (e["target"].as_str().unwrap().into(), e["resolved"].as_str().unwrap_or("(none)").into()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let want = [("", ""), (" pb-deploy ", " pb-deploy ")].map(|(a, b)| (a.to_string(), b.to_string()));
        assert_eq!(used_by, want, "no_cache {no_cache}");
        if no_cache {
            // In text, an id whose ends a reader cannot see is quoted.
            let o = folio_db(s, &["show", &url, "svc-pg"], &[("FOLIO_NO_CACHE", "1")]);
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(text.contains("  used_by \" pb-deploy \" “Spaced twin”"), "{text}");
            assert!(text.contains("  used_by \"\" “Empty id”"), "{text}");
            let o = folio_db(s, &["show", &url, " pb-deploy "], &[]);
            assert!(String::from_utf8_lossy(&o.stdout).contains("  id: \" pb-deploy \"   path: "), "{}", said(&o));
            let o = folio_db(s, &["review", &url, "list"], &[]);
            let list = String::from_utf8_lossy(&o.stdout);
            for line in ["\" pb-deploy \"  [", "\"\"  [", "\"tab\\tid\"  [", "pb-deploy  ["] {
                assert!(list.lines().any(|l| l.starts_with(line)), "{line}: {list}");
            }
        }
        // An edge to a hidden (archived) node reaches nothing: not the live node whose title
        // its id spells, case aside.
        let depends: Vec<&Value> =
            show["edges"].as_array().unwrap().iter().filter(|e| e["type"] == "depends_on").collect();
        assert_eq!(depends.len(), 1, "{show:#}");
        assert!(depends[0]["resolved"].is_null(), "{show:#}");
    }
}

/// A brain whose every edge ends at an id written like a path (`a/b.md`) and whose bodies hold
/// no wikilink still resolves its edges: by id, which a path-like target skipped building.
#[test]
fn edges_to_path_like_ids_resolve_by_id() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute(
        "DELETE FROM knowledge_edges;
         INSERT INTO knowledge_nodes (id, kind, title, body, maturity) VALUES
           ('a/b.md', 'playbook', 'Slashed', 'x', 'candidate'), ('../up.md', 'playbook', 'Dotted', 'y', 'candidate');
         INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ('svc-pg', 'about', 'a/b.md'), ('a/b.md', 'uses', '../up.md')",
    )
    .unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    for no_cache in [false, true] {
        for (from, to) in [("svc-pg", "a/b.md"), ("a/b.md", "../up.md")] {
            let show = json(s, &["show", &url, from, "--json"], no_cache);
            let edges = show["edges"].as_array().unwrap();
            assert_eq!(edges.len(), 1, "{show:#}");
            assert_eq!(edges[0]["resolved"], to, "no_cache {no_cache}: {show:#}");
        }
    }
}
