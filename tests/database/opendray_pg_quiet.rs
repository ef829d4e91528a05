//! An open that finds the server's write-ahead log where an earlier open vouched for the
//! snapshot asks nothing of the tables (`opendray_pg::quiet`); a write is never missed,
//! whether it committed before, during or after an open.
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, folio_ok};

use std::path::{Path, PathBuf};

use serde_json::Value;

fn json(state: &Path, args: &[&str]) -> Value {
    let o = folio_db(state, args, &[]);
    assert!(o.status.success() || o.status.code() == Some(1), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn title(state: &Path, url: &str, id: &str) -> String {
    json(state, &["show", url, id, "--json"])["title"].as_str().unwrap_or_default().to_string()
}

/// The query that sums the three tables (`rows::tables`), as the server logs it.
const SUMS: &str = "hashtextextended(id || ' ' || xmin::text, 0)";

/// The seeded brain with every statement in the server's log, and no autovacuum: nothing but
/// the test's own statements gives a transaction id or moves the write-ahead log.
fn logged_brain() -> Option<(crate::support::pg::Pg, postgres::Client, String)> {
    let (pg, mut c, url) = seed::brain()?;
    c.batch_execute("ALTER DATABASE brain SET log_statement = 'all'").unwrap();
    for t in ["knowledge_nodes", "knowledge_edges", "knowledge_fact_sources"] {
        c.batch_execute(&format!("ALTER TABLE {t} SET (autovacuum_enabled = false)")).unwrap();
    }
    Some((pg, c, url))
}

#[test]
fn a_quiet_server_is_not_asked_for_the_tables_sums_and_a_write_is_never_missed() {
    let Some((pg, mut c, url)) = logged_brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    // The first open reads the tables and vouches for its snapshot at the position.
    let stats = json(s, &["stats", &url, "--json"]);
    assert_eq!(stats["entities"], 7, "{stats:#}");
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    assert!(root.join(".folio/snapshot.quiet").is_file(), "the open vouched for nothing");
    // Nothing written since: the next opens ask for the position, not for the sums.
    let before = pg.server_log().len();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 7);
    assert_eq!(title(s, &url, "svc-pg"), "PostgreSQL dev");
    let asked = pg.server_log()[before..].to_string();
    assert!(asked.contains("pg_current_wal_insert_lsn"), "{asked}");
    assert!(!asked.contains(SUMS), "an unchanged open summed the tables:\n{asked}");

    // An agent's write is given a transaction id: the next open sums, finds the row and vouches again.
    c.execute("UPDATE knowledge_nodes SET title = 'PostgreSQL one' WHERE id = 'svc-pg'", &[]).unwrap();
    let before = pg.server_log().len();
    assert_eq!(title(s, &url, "svc-pg"), "PostgreSQL one");
    assert!(pg.server_log()[before..].contains(SUMS), "a moved log was trusted");

    // A commit whose record is in the log but which no snapshot sees yet: it waits for a
    // synchronous standby that never comes. An open meanwhile does not see its row and, a
    // transaction running at its snapshot, vouches for nothing; when the wait is cancelled
    // the row is committed without another byte of log — the next open must still find it.
    c.batch_execute("ALTER SYSTEM SET synchronous_standby_names = 'folio_none'").unwrap();
    c.batch_execute("SELECT pg_reload_conf()").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut writer = pg.client("brain");
    let pid: i32 = writer.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let committing = std::thread::spawn(move || {
        writer.batch_execute("SET synchronous_commit = on").unwrap();
        let mut tx = writer.transaction().unwrap();
        tx.execute("UPDATE knowledge_nodes SET title = 'PostgreSQL two' WHERE id = 'svc-pg'", &[]).unwrap();
        // Returns once the wait is cancelled: committed locally.
        let _ = tx.commit();
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let waits = "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'SyncRep'";
    while c.query_one(waits, &[&pid]).unwrap().get::<_, i64>(0) == 0 {
        assert!(std::time::Instant::now() < deadline, "the commit never waited for the standby");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(title(s, &url, "svc-pg"), "PostgreSQL one", "a commit not yet visible was read");
    let at = c.query_one("SELECT pg_current_wal_insert_lsn()::text", &[]).unwrap().get::<_, String>(0);
    c.execute("SELECT pg_cancel_backend($1)", &[&pid]).unwrap();
    committing.join().unwrap();
    let now = c.query_one("SELECT pg_current_wal_insert_lsn()::text", &[]).unwrap().get::<_, String>(0);
    assert_eq!(at, now, "the log moved after the commit record: this case tests nothing");
    assert_eq!(title(s, &url, "svc-pg"), "PostgreSQL two", "a commit the log had already written was missed");
}

/// Who approved node `id`, as the open shows it (null: nobody).
fn approved_by(state: &Path, url: &str, id: &str) -> Value {
    json(state, &["show", url, id, "--json"])["fields"]["provenance"]["approved"]["by"].clone()
}

/// Runs `review approve id` while `hold` holds a lock on the nodes that stops the decision
/// part-way (`stop`: at its first row lock, or at its UPDATE), then writes another node's
/// title in that same transaction (given a transaction id now), and commits it.
fn approve_beside_a_writer(pg: &crate::support::pg::Pg, s: &Path, url: &str, id: &str, stop: &str, title: &str) {
    let mut hold = pg.client("brain");
    let mut tx = hold.transaction().unwrap();
    // A table lock gives the transaction no id: the decision's first statement finds it quiet.
    tx.batch_execute(&format!("LOCK TABLE knowledge_nodes IN {stop} MODE")).unwrap();
    let (state, url2, id2) = (s.to_path_buf(), url.to_string(), id.to_string());
    let deciding =
        std::thread::spawn(move || folio_db(&state, &["review", &url2, "approve", &id2, "--as", "human:ann"], &[]));
    let mut c = pg.client("brain");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let waiting = "SELECT count(*) FROM pg_stat_activity WHERE datname = 'brain' AND wait_event_type = 'Lock'";
    while c.query_one(waiting, &[]).unwrap().get::<_, i64>(0) == 0 {
        assert!(std::time::Instant::now() < deadline, "the decision never waited for the lock ({stop})");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    tx.execute("UPDATE knowledge_nodes SET title = $1 WHERE id = 'tool-x'", &[&title]).unwrap();
    tx.commit().unwrap();
    let o = deciding.join().unwrap();
    assert!(o.status.success(), "approve {id}: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_decision_alone_vouches_for_what_it_wrote_and_a_write_beside_it_is_never_missed() {
    let Some((pg, mut c, url)) = logged_brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 7);
    // The server appends to its log with no transaction (a checkpoint here; a record of the
    // running transactions within 15 s of any write): no row changed, so nothing is summed.
    c.batch_execute("CHECKPOINT").unwrap();
    let before = pg.server_log().len();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 7);
    assert!(!pg.server_log()[before..].contains(SUMS), "a checkpoint made the next open sum the tables");

    // A decision that alone wrote vouches for the snapshot it left: the next open asks
    // nothing of the tables, and shows the decision.
    folio_ok(s, &["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"]);
    let before = pg.server_log().len();
    assert_eq!(approved_by(s, &url, "svc-pg-dup"), "human:ann");
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 7);
    let asked = pg.server_log()[before..].to_string();
    assert!(!asked.contains(SUMS), "the open after a decision that alone wrote summed the tables:\n{asked}");
    // So does its undo.
    folio_ok(s, &["undo", &url]);
    let before = pg.server_log().len();
    assert_eq!(approved_by(s, &url, "svc-pg-dup"), Value::Null, "the undo is not shown");
    assert!(!pg.server_log()[before..].contains(SUMS), "the open after an undo summed the tables");

    // Another transaction given an id while the decision waits at its first row lock (after
    // its first statement found the server quiet), or at its UPDATE (its own id given): each
    // writes a row the decision never reads, which the next open must show.
    for (stop, written) in [("EXCLUSIVE", "Tool X one"), ("SHARE ROW EXCLUSIVE", "Tool X two")] {
        approve_beside_a_writer(&pg, s, &url, "pb-deploy", stop, written);
        assert_eq!(title(s, &url, "tool-x"), written, "a write beside a decision ({stop}) was missed");
        assert_eq!(approved_by(s, &url, "pb-deploy"), "human:ann");
        folio_ok(s, &["undo", &url]);
    }
}
