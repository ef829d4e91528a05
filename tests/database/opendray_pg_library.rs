//! opendray's live brain through folio's library, where a test must act between folio's
//! steps: an agent's write between folio's read and its write is a conflict; agents' writes
//! reach a watched store within 2 s (live reload).
use crate::support::opendray_seed as seed;
use crate::support::pg;

use std::path::Path;

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
fn agents_writes_reach_a_watched_store_within_two_seconds() {
    pg::state_dir();
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let store = folio::store::Store::open(Path::new(&url), None).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let _w = folio::store::keep::watch::watch(&store.root, move |paths| {
        let _ = tx.send(paths);
    })
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    // The second write leaves updated_at alone, as opendray's usage counters and archive do.
    for (sql, title) in [
        (
            "UPDATE knowledge_nodes SET title = 'PostgreSQL (dev)', updated_at = now() WHERE id = 'svc-pg'",
            "PostgreSQL (dev)",
        ),
        ("UPDATE knowledge_nodes SET title = 'PostgreSQL (shared)' WHERE id = 'svc-pg'", "PostgreSQL (shared)"),
    ] {
        while rx.try_recv().is_ok() {}
        let written = std::time::Instant::now();
        c.execute(sql, &[]).unwrap();
        let mut seen = false;
        while written.elapsed() < std::time::Duration::from_secs(2) && !seen {
            if let Ok(paths) = rx.recv_timeout(std::time::Duration::from_millis(100)) {
                seen = paths.iter().any(|p| p.ends_with("entities/service/svc-pg.md"));
            }
        }
        assert!(seen, "`{sql}` reached the watcher within 2 s");
        let fresh = folio::store::Store::load(&store.root, store.kind(), String::new());
        assert_eq!(fresh.entity(fresh.find("svc-pg").unwrap()).title, title);
    }
}
