//! Timestamps as the server itself prints them. folio reads each `timestamptz` column's stored
//! value and writes its UTC text (`opendray_pg::timestamp`); every node's timestamps must read
//! as PostgreSQL's own `to_char(col AT TIME ZONE 'UTC', …)` prints them, at the ends of the
//! type's range too, on a first open and from the cache alike. An infinite timestamp, which
//! `NOT NULL` columns accept and `to_char` prints as NULL, reads as PostgreSQL spells it: a
//! row holding one was a panic, the whole brain unreadable.
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, folio_ok, said};

use serde_json::Value;

/// Values at the ends of the range and in between, with the offsets an agent may write.
const VALUES: &[&str] = &[
    "2026-11-30 12:34:56.000001+00",
    "2000-02-29 01:02:03.5+05:30",
    "1999-12-31 23:59:59.999999-08",
    "1970-01-01 00:00:00+00",
    "1969-12-31 23:59:59.999999+00",
    "0001-01-01 00:00:00+00",
    "0044-03-15 12:00:00+00 BC",
    "4713-11-24 00:00:00+00 BC",
    "9999-12-31 23:59:59.999999+00",
    "10000-01-01 00:00:00+00",
    "294276-12-31 23:59:59.999999+00",
];

/// The server's text of node `id`'s timestamp column `col`.
fn printed(c: &mut postgres::Client, id: &str, col: &str) -> Option<String> {
    let sql = format!(
        "SELECT to_char({col} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM knowledge_nodes WHERE id = $1"
    );
    c.query_one(&sql, &[&id]).unwrap().get(0)
}

fn shown(state: &std::path::Path, url: &str, id: &str) -> Value {
    serde_json::from_str(&folio_ok(state, &["show", url, id, "--json"])).unwrap()
}

#[test]
fn timestamps_read_as_the_server_prints_them() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    for (i, v) in VALUES.iter().enumerate() {
        c.execute(
            "INSERT INTO knowledge_nodes (id, kind, title, body, maturity, created_at, updated_at, last_used_at) \
             VALUES ($1, 'fact', $1, 'x', 'fact', $2::text::timestamptz, $2::text::timestamptz, $2::text::timestamptz)",
            &[&format!("ts-{i}"), v],
        )
        .unwrap();
    }
    let state = tempfile::tempdir().unwrap();
    // The first `show` is the first open (rows straight into the model); the others read the
    // snapshot folio kept of it.
    for (i, v) in VALUES.iter().enumerate() {
        let id = format!("ts-{i}");
        let fields = &shown(state.path(), &url, &id)["fields"];
        for col in ["created_at", "updated_at", "last_used_at"] {
            let want = printed(&mut c, &id, col);
            assert!(want.is_some(), "the server prints {v}");
            assert_eq!(fields[col].as_str(), want.as_deref(), "{col} of {v}");
        }
    }
}

#[test]
fn an_infinite_timestamp_reads_as_postgresql_spells_it_and_undo_keeps_it() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    c.batch_execute(
        "UPDATE knowledge_nodes SET created_at = '-infinity', updated_at = 'infinity' WHERE id = 'svc-pg-dup';
         UPDATE knowledge_edges SET created_at = 'infinity' WHERE src_id = 'tool-x' AND dst_id = 'svc-pg-dup';",
    )
    .unwrap();
    assert_eq!(printed(&mut c, "svc-pg-dup", "updated_at"), None, "to_char prints infinity as NULL");
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let fields = &shown(s, &url, "svc-pg-dup")["fields"];
    assert_eq!(fields["updated_at"], "infinity");
    assert_eq!(fields["created_at"], "-infinity");
    // The whole brain reads, and lint and the inbox with it.
    let stats: Value = serde_json::from_str(&folio_ok(s, &["stats", &url, "--json"])).unwrap();
    assert_eq!(stats["entities"], 7, "{stats}");
    let listed = folio_db(s, &["review", &url, "list"], &[]);
    assert!(
        listed.status.success() && String::from_utf8_lossy(&listed.stdout).contains("svc-pg-dup"),
        "{}",
        said(&listed)
    );
    // A merge re-points the infinite edge (removes it, adds one to the node merged into) and
    // its undo gives it back as it was.
    let edge = |c: &mut postgres::Client| -> Vec<String> {
        c.query("SELECT created_at::text FROM knowledge_edges WHERE src_id = 'tool-x' AND dst_id = 'svc-pg-dup'", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    assert_eq!(edge(&mut c), ["infinity"]);
    folio_ok(s, &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"]);
    assert!(edge(&mut c).is_empty(), "the merge re-pointed the edge");
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert_eq!(edge(&mut c), ["infinity"]);
    let back: Vec<String> = c
        .query("SELECT created_at::text || ' ' || updated_at::text FROM knowledge_nodes WHERE id = 'svc-pg-dup'", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(back, ["-infinity infinity"]);
}
