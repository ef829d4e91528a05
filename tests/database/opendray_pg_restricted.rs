//! A server folio may only read, and a role with fewer rights than the default: opens work,
//! a decision is refused with a message that says why and where to go, and folio asks the
//! server nothing that would write an error to its log at every open.
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, folio_ok, said};

#[test]
fn a_read_only_server_is_read_and_a_decision_on_it_says_to_decide_on_the_primary() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    // As a hot standby answers every write (a standby itself is tried by hand:
    // docs/benchmarks.md, "Thirty-fifth session").
    c.batch_execute("ALTER DATABASE brain SET default_transaction_read_only = on").unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    assert!(folio_ok(s, &["stats", &url]).contains("7 entities"));
    let before = seed::row(&mut c, "pb-deploy");
    let o = folio_db(s, &["review", &url, "approve", "pb-deploy", "--as", "human:ann"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("read-only transaction") && err.contains("decide on the primary"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(seed::row(&mut c, "pb-deploy"), before, "the row changed");
    assert!(folio_ok(s, &["log", &url]).contains("no events"), "a refused decision was logged");
}

#[test]
fn a_role_that_may_not_ask_where_the_log_is_opens_without_an_error_in_the_servers_log() {
    let Some((pg, mut c, _)) = seed::brain() else { return };
    c.batch_execute(
        "CREATE ROLE reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader; \
         REVOKE EXECUTE ON FUNCTION pg_current_wal_insert_lsn() FROM PUBLIC",
    )
    .unwrap();
    let url = format!("host={} port={} user=reader dbname=brain", pg.socket_dir().display(), pg.port);
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let logged = pg.server_log().len();
    for _ in 0..2 {
        assert!(folio_ok(s, &["stats", &url]).contains("7 entities"));
    }
    let asked = pg.server_log()[logged..].to_string();
    assert!(!asked.contains("ERROR"), "{asked}");
    c.execute("UPDATE knowledge_nodes SET title = 'PostgreSQL (read)' WHERE id = 'svc-pg'", &[]).unwrap();
    assert!(folio_ok(s, &["show", &url, "svc-pg"]).contains("PostgreSQL (read)"), "a write was missed");
}
