//! opendray's live brain through folio's library, where a test must act between folio's
//! steps: an agent's write between folio's read and its write is a conflict; agents' writes
//! reach a watched store while it is open (live reload; how soon is docs/opendray-database.md's figure).
use crate::support::opendray_seed as seed;
use crate::support::pg;

use std::path::Path;

/// How long a write may take to reach the watcher before the test calls it lost: a hang guard,
/// not the promise (agents' writes show within a second or two, docs/opendray-database.md),
/// which a loaded CI machine must not turn into a failure.
const HANG: std::time::Duration = std::time::Duration::from_secs(20);

#[test]
fn an_agents_write_between_read_and_write_is_a_conflict() {
    pg::state_dir();
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let store = folio::store::Store::open(Path::new(&url), None).unwrap();
    let idx = store.find("svc-pg").unwrap();
    let reviewer = folio::store::review::Reviewer::now("human:ann");
    let plan = folio::store::review::verdict::plan(
        &store,
        &[idx],
        &folio::store::review::Verdict::approve(),
        &reviewer,
        false,
    )
    .unwrap();
    // opendray's distiller bumps the node after folio read it.
    c.execute(
        "UPDATE knowledge_nodes SET body = 'rewritten by the agent', updated_at = now() WHERE id = 'svc-pg'",
        &[],
    )
    .unwrap();
    let err = plan.apply(&store, &Default::default()).unwrap_err().to_string();
    // A row changed, not a file on disk: the message says where the change was made.
    assert!(err.contains("node `svc-pg` changed in the database since folio read it"), "{err}");
    assert!(!err.contains("on disk"), "{err}");
    let r = seed::row(&mut c, "svc-pg");
    assert_eq!(r["body"], "rewritten by the agent", "the agent's write stands");
    assert!(r["provenance"].get("approved").is_none());
    assert!(r["provenance"].get("folio_history").is_none());
}

#[test]
fn agents_writes_reach_a_watched_store_while_it_is_open() {
    pg::state_dir();
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let store = folio::store::Store::open(Path::new(&url), None).unwrap();
    let (_w, rx) = watched(&store);
    // The second write leaves updated_at alone, as opendray's usage counters and archive do.
    for (sql, title) in [
        (
            "UPDATE knowledge_nodes SET title = 'PostgreSQL (dev)', updated_at = now() WHERE id = 'svc-pg'",
            "PostgreSQL (dev)",
        ),
        ("UPDATE knowledge_nodes SET title = 'PostgreSQL (shared)' WHERE id = 'svc-pg'", "PostgreSQL (shared)"),
    ] {
        while rx.try_recv().is_ok() {}
        c.execute(sql, &[]).unwrap();
        heard(&rx, "entities/service/svc-pg.md");
        let fresh = folio::store::Store::load(&store.root, store.kind(), String::new());
        assert_eq!(fresh.entity(fresh.find("svc-pg").unwrap()).title, title);
    }
    // Without folio's trigger the poller scans the tables' change markers when the server's
    // log moved (each write above); while nothing is written it asks where the log is and
    // finds it where the last read vouched for the snapshot (`opendray_pg::quiet`).
    let idle = poller_statements(&mut c);
    assert!(idle.iter().any(|q| q.contains("pg_current_wal_insert_lsn")), "{idle:?}");
    assert!(idle.iter().all(|q| !q.contains("sum(xmin")), "{idle:?}");
}

/// An agent's write that another folio process took into the snapshot first (a command in
/// another terminal): the watched store's own read of the database then finds nothing new,
/// yet the write reaches it, and its text is read as it is now.
#[test]
fn a_write_another_folio_took_in_first_still_reaches_a_watched_store() {
    let state = pg::state_dir();
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let store = folio::store::Store::open(Path::new(&url), None).unwrap();
    let (_w, rx) = watched(&store);
    // Twice: the second time the first one's text is what this process holds.
    for title in ["PostgreSQL (elsewhere)", "PostgreSQL (elsewhere again)"] {
        while rx.try_recv().is_ok() {}
        c.execute("UPDATE knowledge_nodes SET title = $1 WHERE id = 'svc-pg'", &[&title]).unwrap();
        pg::folio_ok(state, &["stats", &url]);
        heard(&rx, "entities/service/svc-pg.md");
        let fresh = folio::store::Store::load(&store.root, store.kind(), String::new());
        assert_eq!(fresh.entity(fresh.find("svc-pg").unwrap()).title, title);
    }
}

type Heard = std::sync::mpsc::Receiver<Vec<std::path::PathBuf>>;

/// The store watched (the watcher, which the caller keeps alive, and what it hears), given a
/// moment to start.
fn watched(store: &folio::store::Store) -> (folio::store::keep::watch::StoreWatcher, Heard) {
    let (tx, rx) = std::sync::mpsc::channel();
    let w = folio::store::keep::watch::watch(&store.root, move |paths| {
        let _ = tx.send(paths);
    })
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    (w, rx)
}

/// Every path the watcher reports until one ends with `path` (a write just made), which must
/// come within `HANG`.
fn heard(rx: &Heard, path: &str) -> Vec<std::path::PathBuf> {
    let written = std::time::Instant::now();
    let mut changed: Vec<std::path::PathBuf> = Vec::new();
    while written.elapsed() < HANG && !changed.iter().any(|p| p.ends_with(path)) {
        if let Ok(paths) = rx.recv_timeout(std::time::Duration::from_millis(100)) {
            changed.extend(paths);
        }
    }
    assert!(changed.iter().any(|p| p.ends_with(path)), "{path} never reached the watcher");
    eprintln!("{path} reached the watcher after {:?}", written.elapsed());
    changed
}

/// The last statement of each of folio's sessions on the server other than this one, once
/// its poller has been idle for a few polls.
fn poller_statements(c: &mut postgres::Client) -> Vec<String> {
    std::thread::sleep(folio::store::keep::watch::POLL * 3);
    c.query("SELECT query FROM pg_stat_activity WHERE application_name = 'folio' AND pid <> pg_backend_pid()", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// With the trigger folio documents (scripts/opendray-notify.sql) the watched store hears
/// each write at once, and while nothing is written its session sends no query at all.
#[test]
fn with_folios_trigger_a_watched_store_listens_instead_of_scanning() {
    pg::state_dir();
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let sql = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/opendray-notify.sql");
    c.batch_execute(&std::fs::read_to_string(sql).unwrap()).unwrap();
    let store = folio::store::Store::open(Path::new(&url), None).unwrap();
    let (_w, rx) = watched(&store);
    for (sql, path) in [
        (
            "INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ('host-a', 'uses', 'tool-y')",
            "entities/host/host-a.md",
        ),
        ("UPDATE knowledge_nodes SET title = 'PostgreSQL (heard)' WHERE id = 'svc-pg'", "entities/service/svc-pg.md"),
    ] {
        while rx.try_recv().is_ok() {}
        c.execute(sql, &[]).unwrap();
        heard(&rx, path);
    }
    let idle = poller_statements(&mut c);
    assert!(!idle.is_empty(), "folio's session is there");
    assert!(idle.iter().all(|q| !q.contains("sum(xmin")), "{idle:?}");
}

/// A node a veto or a merge takes out of view, changed by an agent after folio read it: the
/// refusal says it changed in the database (a row), not on disk.
#[test]
fn a_vetoed_or_merged_node_an_agent_changed_is_named_as_a_row() {
    pg::state_dir();
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let store = folio::store::Store::open(Path::new(&url), None).unwrap();
    let reviewer = folio::store::review::Reviewer::now("human:ann");
    let (dup, pg) = (store.find("svc-pg-dup").unwrap(), store.find("svc-pg").unwrap());
    let veto = folio::store::review::Verdict::Veto { reason: "a copy".into() };
    let vetoing = folio::store::review::verdict::plan(&store, &[dup], &veto, &reviewer, false).unwrap();
    let merging = folio::store::review::merge::plan(&store, dup, pg, None, &reviewer).unwrap();
    c.execute("UPDATE knowledge_nodes SET body = 'seen a third time' WHERE id = 'svc-pg-dup'", &[]).unwrap();
    // Another session of folio reads the change.
    folio::store::Store::open(Path::new(&url), None).unwrap();
    for plan in [vetoing, merging] {
        let err = plan.apply(&store, &Default::default()).unwrap_err().to_string();
        assert!(err.contains("node `svc-pg-dup` changed in the database since folio read it"), "{err}");
        assert!(!err.contains("on disk"), "{err}");
    }
    let r = seed::row(&mut c, "svc-pg-dup");
    assert_eq!(r["body"], "seen a third time", "the agent's write stands");
    assert!(r["archived_at"].is_null(), "{r}");
}

/// A verdict hands back the store as its writes left it (`Applied::overlaid`), which the TUI
/// shows refreshed on the files written instead of deriving the store a second time: it is the
/// store the database shows after the commit (a refresh of the store before, a fresh open).
#[test]
fn a_verdict_hands_back_the_store_the_database_shows_after_it() {
    pg::state_dir();
    let Some((_pg, _c, url)) = seed::brain() else { return };
    let graph = |s: &folio::store::Store| format!("{:?}\n{:?}\n{:?}", s.entities, s.backlinks, s.other_files);
    let links = |s: &folio::store::Store| {
        format!("{:?}", s.entities.iter().map(|e| (&e.id, &e.links, &e.edges, &e.problems)).collect::<Vec<_>>())
    };
    let reviewer = folio::store::review::Reviewer::now("human:ann");
    let verdicts = [
        ("svc-pg-dup", folio::store::review::Verdict::Veto { reason: "a copy".into() }),
        ("svc-pg", folio::store::review::Verdict::approve()),
        ("svc-pg", folio::store::review::Verdict::Forget),
    ];
    for (id, verdict) in verdicts {
        let store = folio::store::Store::open(Path::new(&url), None).unwrap();
        let idx = store.find(id).unwrap();
        let plan = folio::store::review::verdict::plan(&store, &[idx], &verdict, &reviewer, true).unwrap();
        let applied = plan.apply(&store, &Default::default()).unwrap();
        let after = applied.overlaid.as_ref().unwrap_or_else(|| panic!("{id} {verdict:?}: no store handed back"));
        let mut touched: Vec<&String> = applied.files.iter().chain(&applied.catalogs).collect();
        touched.extend((!applied.log.is_empty()).then_some(&applied.log));
        let paths: Vec<_> = touched.iter().map(|f| store.abs_path(f)).collect();
        let (handed, mut report) = after.refreshed(&paths);
        let (again, mut expected) = store.refreshed(&paths);
        assert_eq!(graph(&handed), graph(&again), "{id} {verdict:?}: the handed-back store differs from a refresh");
        for r in [&mut report, &mut expected] {
            r.changed.sort();
            r.added.sort();
            r.removed.sort();
            r.relinked_all = false;
            r.parsed = 0;
        }
        assert_eq!(report, expected, "{id} {verdict:?}");
        let fresh = folio::store::Store::open(Path::new(&url), None).unwrap();
        assert_eq!(links(&handed), links(&fresh), "{id} {verdict:?}: the handed-back store differs from an open");
        assert_eq!(handed.backlinks, fresh.backlinks, "{id} {verdict:?}");
    }
}

/// An edge an agent adds while the store is open reaches the node its end names exactly once
/// the live reload takes it in: the refresh resolves the changed node's edges through the
/// sorted store's lookup (`relink::lookup`), by id as a fresh load does — ' pb-deploy ', not
/// 'pb-deploy'.
#[test]
fn an_edge_an_agent_adds_reaches_its_exact_id_on_reload() {
    pg::state_dir();
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute(
        "INSERT INTO knowledge_nodes (id, kind, title, body, maturity) VALUES (' pb-deploy ', 'playbook', 'Spaced twin', 'y', 'candidate')",
    )
    .unwrap();
    let store = folio::store::Store::open(Path::new(&url), None).unwrap();
    let (_w, rx) = watched(&store);
    c.execute(
        "INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ('svc-pg', 'used_by', ' pb-deploy ')",
        &[],
    )
    .unwrap();
    let changed = heard(&rx, "entities/service/svc-pg.md");
    let (refreshed, _) = store.refreshed(&changed);
    let fresh = folio::store::Store::load(&store.root, store.kind(), String::new());
    let used_by = |s: &folio::store::Store| -> Vec<(String, Option<String>)> {
        let e = s.entity(s.by_id("svc-pg").unwrap());
        e.edges
            .iter()
            .filter(|d| d.kind == "used_by")
            .map(|d| (d.target.clone(), d.resolved.map(|i| s.entity(i).id.clone())))
            .collect()
    };
    assert_eq!(used_by(&refreshed), [(" pb-deploy ".to_string(), Some(" pb-deploy ".to_string()))]);
    assert_eq!(used_by(&refreshed), used_by(&fresh), "the reload resolves as a fresh load");
}
