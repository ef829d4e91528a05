//! An open that finds the server's write-ahead log where an earlier open vouched for the
//! snapshot asks nothing of the tables (`opendray_pg::quiet`); a write is never missed,
//! whether it committed before, during or after an open.
use crate::support::opendray_seed as seed;
use crate::support::pg::folio_db;

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

#[test]
fn a_quiet_server_is_not_asked_for_the_tables_sums_and_a_write_is_never_missed() {
    let Some((pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute("ALTER DATABASE brain SET log_statement = 'all'").unwrap();
    // Nothing but the test's own statements moves the log (the last case counts on it).
    for t in ["knowledge_nodes", "knowledge_edges", "knowledge_fact_sources"] {
        c.batch_execute(&format!("ALTER TABLE {t} SET (autovacuum_enabled = false)")).unwrap();
    }
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    // The first open reads the tables and vouches for its snapshot at the log's position.
    let stats = json(s, &["stats", &url, "--json"]);
    assert_eq!(stats["entities"], 7, "{stats:#}");
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    assert!(root.join(".folio/snapshot.quiet").is_file(), "the open vouched for nothing");
    // Nothing written since: the next opens ask where the log is, not for the sums.
    let before = pg.server_log().len();
    assert_eq!(json(s, &["stats", &url, "--json"])["entities"], 7);
    assert_eq!(title(s, &url, "svc-pg"), "PostgreSQL dev");
    let asked = pg.server_log()[before..].to_string();
    assert!(asked.contains("pg_current_wal_insert_lsn"), "{asked}");
    assert!(!asked.contains(SUMS), "an unchanged open summed the tables:\n{asked}");

    // An agent's write moves the log: the next open sums, finds the row and vouches again.
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
