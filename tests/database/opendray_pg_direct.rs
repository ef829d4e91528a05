//! Rows straight into the model (`opendray_pg::direct`): a first open hands each node's
//! fields to the loader as built from its row, where any later open without the store cache
//! parses the same rendering back from the snapshot. Every output must be the same either
//! way, over rows of every shape.
use crate::support::opendray_seed as seed;
use crate::support::pg::folio_db;

use std::path::Path;
use std::process::Output;

fn folio(state: &Path, args: &[&str], no_cache: bool) -> Output {
    let folio_state = state.join("folio-state");
    let mut env = vec![("FOLIO_STATE_DIR", folio_state.to_str().unwrap())];
    if no_cache {
        env.push(("FOLIO_NO_CACHE", "1"));
    }
    folio_db(state, args, &env)
}

/// What a command printed and how it ended, less the timings (`…_ms` numbers).
fn outcome(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    let mut kept = String::with_capacity(out.len());
    let mut rest: &str = &out;
    while let Some(at) = rest.find("_ms\":") {
        let (head, tail) = rest.split_at(at + 5);
        kept.push_str(head);
        let tail = tail.trim_start();
        let n = tail.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(tail.len());
        kept.push('…');
        rest = &tail[n..];
    }
    kept.push_str(rest);
    format!("{:?}\n{kept}\n{}", o.status.code(), String::from_utf8_lossy(&o.stderr))
}

/// Nodes of every column shape beside the homelab brain: null and present optional columns,
/// unicode and multi-line titles and bodies, titles YAML would read as other types unless
/// quoted, nested and odd provenance (aliases, tags, numbers, nulls, booleans), every edge
/// type, fact sources, counters, an archived node, and characters YAML escapes (carriage
/// return, NEL, a BOM) whose fields are parsed back rather than handed over.
fn shapes(c: &mut postgres::Client) {
    c.batch_execute(
        r##"INSERT INTO knowledge_nodes (id, kind, entity_type, title, body, scope, scope_key, maturity, confidence, provenance, last_used_at, use_count, success_count, failure_count, enabled) VALUES
          ('ent-uni', 'entity', 'person', 'Zoë Ålander — 東京 🚀', E'# Zoë\n\nWorks on [[svc-pg]] and [the client](tool-y).\n\n```\ncode: yes\n```\n', 'domain', 'людей', 'fact', 1, '{"aliases": ["Zoe", "ゾエ"], "tags": ["people", "ops"], "source": "distiller", "weights": [1, 2.5, -3], "nested": {"a": {"b": null, "c": true}}, "lifecycle": "stale"}', now() - interval '3 days', 4, 2, 1, false),
          ('ent-yaml', 'entity', 'decision', 'yes', E'line one\r\nline two\n', 'project', 'k: v', 'candidate', 0, '{"note": "null", "n": "1.0", "t": "true", "empty": "", "quote": "it''s \"quoted\"", "colon": "a: b", "dash": "- x", "hash": "# not a comment"}', NULL, 0, 0, 0, true),
          ('ent-multi', 'entity', 'tech', E'Two\nlines', E'Body with trailing spaces   \n\n\n', 'global', '', 'skill', 0.333333, '{"multi": "a\nb\n", "lead": "  spaced", "aliases": []}', NULL, 0, 0, 0, true),
          ('fact-odd', 'fact', NULL, E'Carriage\rreturn and NEL\u0085 and BOM\ufeff', 'Odd.', 'project', 'homelab', 'fact', 0.5, '{"why": "tab\there"}', NULL, 0, 0, 0, true),
          ('fact-empty', 'fact', NULL, '', '', 'project', '', 'fact', NULL, '{}', NULL, 0, 0, 0, true),
          ('pb-1', 'playbook', NULL, '1.0', E'1. step\n2. step\n', 'project', 'homelab', 'playbook', 0.99, '{"big": 12345678901234567890, "small": -1e-9}', NULL, 0, 0, 0, true),
          ('sk-used', 'skill', NULL, 'Used skill: rotate', 'steps', 'global', '', 'skill', NULL, '{"lifecycle": "auto-disabled"}', now() - interval '1 day', 17, 12, 5, false);
        INSERT INTO knowledge_nodes (id, kind, entity_type, title, body, maturity, provenance, archived_at) VALUES
          ('ent-gone', 'entity', 'host', 'Retired host', 'Gone.', 'fact', '{"archived_reason": "decommissioned"}', now() - interval '2 days');
        INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES
          ('ent-uni', 'runs_on', 'host-a'), ('ent-uni', 'uses', 'tool-x'), ('ent-uni', 'about', 'svc-pg'),
          ('ent-uni', 'part_of', 'ent-multi'), ('ent-uni', 'depends_on', 'svc-pg'), ('ent-uni', 'supersedes', 'ent-gone'),
          ('ent-uni', 'derived_from', 'fact-odd'), ('ent-uni', 'used_by', 'sk-used'),
          ('ent-yaml', 'supersedes', 'ent-multi'), ('ent-yaml', 'supersedes', 'fact-empty'),
          ('fact-odd', 'derived_from', 'ent-gone'), ('ent-gone', 'runs_on', 'host-a');
        INSERT INTO knowledge_fact_sources (node_id, memory_id) VALUES
          ('fact-odd', 'mem-9'), ('fact-odd', 'mem-10'), ('fact-empty', 'mém-ü'), ('ent-uni', 'mem-1');"##,
    )
    .unwrap();
}

/// Each command in a state folder of its own, first on an empty one (the first open: the rows
/// go straight into the model), then again in the same folder without the store cache (the
/// snapshot's renderings parsed back): the same output, byte for byte. A merged node is made
/// first, through folio itself, so its rows (archived, its edges moved) are among those read.
#[test]
fn a_first_open_reads_rows_as_the_renderings_parse_back() {
    let Some((pg, mut c, url)) = seed::brain() else { return };
    shapes(&mut c);
    let setup = tempfile::tempdir().unwrap();
    let merged = folio(setup.path(), &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"], false);
    assert!(merged.status.success(), "merge: {}", outcome(&merged));
    let commands: Vec<Vec<&str>> = vec![
        vec!["stats", &url, "--json"],
        vec!["stats", &url, "--archived", "--json"],
        vec!["show", &url, "ent-uni", "--json"],
        vec!["show", &url, "ent-yaml", "--json"],
        vec!["show", &url, "ent-multi", "--json"],
        vec!["show", &url, "fact-odd", "--json"],
        vec!["show", &url, "fact-empty", "--json"],
        vec!["show", &url, "pb-1", "--json"],
        vec!["show", &url, "sk-used", "--json"],
        vec!["show", &url, "svc-pg", "--json"],
        vec!["show", &url, "svc-pg-dup", "--archived", "--json"],
        vec!["show", &url, "ent-gone", "--archived", "--json"],
        vec!["show", &url, "ent-uni"],
        vec!["lint", &url, "--format", "json"],
        vec!["lint", &url, "--archived", "--format", "json"],
        vec!["review", &url, "list", "--json"],
        vec!["graph", &url, "--format", "json"],
        vec!["recall", &url, "postgres"],
        vec!["recall", &url, "Zoë"],
    ];
    for args in commands {
        let state = tempfile::tempdir().unwrap();
        let first = folio(state.path(), &args, false);
        let root = state.path().join("folio-state/databases");
        assert!(root.is_dir(), "{args:?}: no database folder after the first open: {}", outcome(&first));
        let again = folio(state.path(), &args, true);
        assert_eq!(outcome(&first), outcome(&again), "{args:?}: the first open and a parse of the snapshot differ");
        assert!(first.status.success() || first.status.code() == Some(1), "{args:?}: {}", outcome(&first));
    }
    drop(pg);
}

/// The inbox's facts of a brain opened from the store cache are read from the snapshot's
/// renderings — past a few dozen, all at once (`Store::hold_texts`) rather than one by its
/// offset — and must be those a first open takes from its rows: the same listing, over more
/// nodes than are read one by one, every one with a provenance mapping.
#[test]
fn the_inbox_reads_facts_from_the_snapshot_as_a_first_open_does() {
    let Some((pg, mut c, url)) = seed::brain() else { return };
    shapes(&mut c);
    c.batch_execute(
        "INSERT INTO knowledge_nodes (id, kind, entity_type, title, body, provenance) \
         SELECT 'gen-' || g, 'entity', 'tech', 'Generated ' || g, 'Body of ' || g || E'.\n', \
                jsonb_build_object('source', 'gen', 'run', g, 'tags', jsonb_build_array('a', 'b')) \
         FROM generate_series(1, 120) g",
    )
    .unwrap();
    let list = ["review", url.as_str(), "list", "--json"];
    let first = tempfile::tempdir().unwrap();
    let from_rows = folio(first.path(), &list, false);
    let cached = tempfile::tempdir().unwrap();
    let stats = folio(cached.path(), &["stats", &url], false);
    assert!(stats.status.success(), "stats: {}", outcome(&stats));
    let from_snapshot = folio(cached.path(), &list, false);
    assert_eq!(outcome(&from_rows), outcome(&from_snapshot), "the facts of a first open and of the snapshot differ");
    let listed = String::from_utf8_lossy(&from_rows.stdout);
    assert!(listed.contains("\"gen-120\"") && listed.contains("\"ent-uni\""), "{listed}");
    drop(pg);
}

/// A first open fetches every visible node by one scan of the table, in chunks as the rows
/// arrive (`rows::each_visible`), where an open that found a few nodes changed fetches them
/// by id (`rows::by_ids`): both read each node of every shape — its columns, its edges and
/// fact sources in order — the same, with and without the archived ones, whatever the chunk;
/// and the scan gives each node the version `xmins` and `sets` give it.
/// A consumer that stops early leaves the connection usable.
#[test]
fn one_scan_reads_each_node_as_fetching_it_by_id_does() {
    use folio::store::dialect::opendray_pg::rows;
    let Some((pg, mut c, url)) = seed::brain() else { return };
    shapes(&mut c);
    let setup = tempfile::tempdir().unwrap();
    let merged = folio(setup.path(), &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"], false);
    assert!(merged.status.success(), "merge: {}", outcome(&merged));
    for archived in [false, true] {
        let xmins = rows::xmins(&mut c, archived).unwrap();
        let ids: Vec<String> = xmins.iter().map(|(id, _)| id.clone()).collect();
        let mut by_id = rows::by_ids(&mut c, &ids).unwrap();
        by_id.sort_by(|a, b| a.id.cmp(&b.id));
        // Each node's version as an open with a snapshot reads it: `xmins`, then `sets`.
        let (edges, sources) = (
            rows::sets(&mut c, rows::Part::Edges, None).unwrap(),
            rows::sets(&mut c, rows::Part::Sources, None).unwrap(),
        );
        let mut versions: Vec<(String, rows::Version)> = xmins
            .into_iter()
            .map(|(id, xmin)| {
                let v = rows::Version {
                    xmin,
                    edges: edges.get(&id).copied().unwrap_or(0),
                    sources: sources.get(&id).copied().unwrap_or(0),
                };
                (id, v)
            })
            .collect();
        versions.sort_by(|a, b| a.0.cmp(&b.0));
        assert!(versions.iter().any(|(_, v)| v.edges != 0) && versions.iter().any(|(_, v)| v.sources != 0));
        assert!(by_id.iter().any(|n| !n.edges.is_empty()) && by_id.iter().any(|n| !n.sources.is_empty()));
        assert_eq!(by_id.iter().any(|n| n.archived_at.is_some()), archived, "archived nodes shown only when asked");
        for chunk in [1, 3, 1000] {
            let mut scanned = Vec::new();
            let mut sizes = Vec::new();
            rows::each_visible(&mut c, archived, chunk, |c| {
                sizes.push(c.len());
                scanned.extend(c);
                true
            })
            .unwrap();
            scanned.sort_by(|a, b| a.0.id.cmp(&b.0.id));
            let (nodes, scanned_versions): (Vec<rows::Node>, Vec<rows::Version>) = scanned.into_iter().unzip();
            assert_eq!(nodes, by_id, "archived {archived}, chunks of {chunk}");
            let scanned_versions: Vec<(String, rows::Version)> =
                nodes.iter().map(|n| n.id.clone()).zip(scanned_versions).collect();
            assert_eq!(scanned_versions, versions, "archived {archived}, chunks of {chunk}: the versions");
            assert!(sizes.iter().all(|&n| n >= 1 && n <= chunk), "chunks of {chunk}: {sizes:?}");
        }
        let mut first = 0;
        rows::each_visible(&mut c, archived, 2, |c| {
            first += c.len();
            false
        })
        .unwrap();
        assert_eq!(first, 2, "stopped after the first chunk");
        assert_eq!(rows::xmins(&mut c, archived).unwrap().len(), ids.len(), "the connection is usable after a stop");
    }
    drop(pg);
}

/// A rebuild asked for from inside rayon's pool (a parallel read that found a text damaged)
/// does not wait on the pool it runs in: here every other thread of the pool is kept busy
/// until the rebuild ends (or a minute passes), so rendering chunks on the pool while this
/// thread fetches would wait for them. It makes the snapshot the first open wrote.
#[test]
fn a_rebuild_from_inside_the_pool_makes_the_same_snapshot() {
    use folio::store::dialect::opendray_pg::{mirror, snapshot};
    use std::sync::{Condvar, Mutex};
    let Some((pg, mut c, url)) = seed::brain() else { return };
    shapes(&mut c);
    let state = tempfile::tempdir().unwrap();
    let first = folio(state.path(), &["stats", &url, "--json"], false);
    assert!(first.status.success(), "stats: {}", outcome(&first));
    let databases = state.path().join("folio-state/databases");
    let root = std::fs::read_dir(&databases)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join(mirror::MARKER).is_file())
        .expect("a database folder");
    let snapshot::Found::Intact(written) = snapshot::read(&root) else { panic!("no intact snapshot in {root:?}") };
    let written: folio::store::dialect::MemoryFiles = snapshot::files(written.nodes);
    assert!(written.len() >= 10, "{} nodes", written.len());
    let finished = (Mutex::new(false), Condvar::new());
    let each = rayon::broadcast(|ctx| {
        if ctx.index() == 0 {
            let rebuilt = mirror::rebuild(&root, "a test").map(|files| (*files).clone());
            *finished.0.lock().unwrap() = true;
            finished.1.notify_all();
            Ok(Some(rebuilt))
        } else {
            let held = finished.0.lock().unwrap();
            let (held, waited) =
                finished.1.wait_timeout_while(held, std::time::Duration::from_secs(60), |done| !*done).unwrap();
            drop(held);
            if waited.timed_out() { Err(ctx.index()) } else { Ok(None) }
        }
    });
    let mut rebuilt = None;
    for r in each {
        match r {
            Ok(Some(r)) => rebuilt = Some(r),
            Ok(None) => {}
            Err(i) => panic!("pool thread {i} waited a minute for the rebuild: it waited on the pool"),
        }
    }
    assert_eq!(rebuilt.expect("thread 0 rebuilt").unwrap(), written);
    drop(pg);
}
