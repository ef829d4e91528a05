//! One connection per decision: the connection a decision begins while it reads its snapshot
//! (`Locator::connect_ahead`) is the one its read takes, and the read leaves it to the write
//! (`Locator::park`) — but never one the server ended, one to another database, or a wait
//! past the connect limit.
use crate::support::pg::{self, Pg};

use folio::store::dialect::opendray_pg::conn::Locator;
use std::time::{Duration, Instant};

fn backend(c: &mut postgres::Client) -> i32 {
    c.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0)
}

/// folio's sessions on the server (its application name), other than `admin`'s.
fn folio_sessions(admin: &mut postgres::Client) -> i64 {
    admin.query_one("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'folio'", &[]).unwrap().get(0)
}

#[test]
fn the_connection_begun_ahead_and_parked_is_the_one_taken() {
    let Some(pg) = Pg::start() else { return };
    let mut admin = pg.client("postgres");
    let at = Locator::parse(&pg.conninfo("postgres")).unwrap();
    at.connect_ahead();
    let mut c = at.connect().unwrap();
    let first = backend(&mut c);
    // Set up as every connection is: UTC, the statement limit.
    let zone: String = c.query_one("SHOW TIME ZONE", &[]).unwrap().get(0);
    assert_eq!(zone, "UTC");
    at.park(c);
    let mut again = at.connect().unwrap();
    assert_eq!(backend(&mut again), first, "the parked connection is taken, not a new one");
    assert_eq!(folio_sessions(&mut admin), 1, "one connection made in all");
}

#[test]
fn a_parked_connection_the_server_ended_is_replaced() {
    let Some(pg) = Pg::start() else { return };
    let mut admin = pg.client("postgres");
    let at = Locator::parse(&pg.conninfo("postgres")).unwrap();
    let mut c = at.connect().unwrap();
    let first = backend(&mut c);
    at.park(c);
    admin.execute("SELECT pg_terminate_backend($1)", &[&first]).unwrap();
    let started = Instant::now();
    while folio_sessions(&mut admin) > 0 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut c = at.connect().expect("a new connection instead of the ended one");
    assert_ne!(backend(&mut c), first);
    assert_eq!(c.query_one("SELECT 1", &[]).unwrap().get::<_, i32>(0), 1);
}

#[test]
fn a_connection_parked_for_one_database_is_not_taken_for_another() {
    let Some(pg) = Pg::start() else { return };
    pg.client("postgres").batch_execute("CREATE DATABASE other").unwrap();
    let one = Locator::parse(&pg.conninfo("postgres")).unwrap();
    let other = Locator::parse(&pg.conninfo("other")).unwrap();
    one.park(one.connect().unwrap());
    let mut c = other.connect().unwrap();
    let db: String = c.query_one("SELECT current_database()::text", &[]).unwrap().get(0);
    assert_eq!(db, "other");
}

#[test]
fn a_connection_begun_ahead_to_a_silent_server_is_given_up() {
    let port = pg::silent_server();
    pg::state_dir();
    let at = Locator::parse(&format!("postgres://folio@127.0.0.1:{port}/brain?connect_timeout=1")).unwrap();
    at.connect_ahead();
    let err = at.connect().err().expect("no connection to a silent server");
    assert!(err.contains("did not answer within 1 s"), "{err}");
}

/// A connection the server ended after it was made (a restart, an administrator) is said to be
/// lost, not "cannot connect", which would send the person to check an address that answered;
/// a server that refuses the connect is still "cannot connect".
#[test]
fn a_connection_ended_after_the_connect_is_said_to_be_lost() {
    let Some(pg) = Pg::start() else { return };
    let mut admin = pg.client("postgres");
    let at = Locator::parse(&pg.conninfo("postgres")).unwrap();
    let mut c = at.connect().unwrap();
    let pid = backend(&mut c);
    admin.execute("SELECT pg_terminate_backend($1)", &[&pid]).unwrap();
    let started = Instant::now();
    let e = loop {
        match c.query_one("SELECT 1", &[]) {
            Err(e) if e.as_db_error().is_none() => break e,
            _ if started.elapsed() > Duration::from_secs(20) => panic!("the ended connection still answers"),
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let said = at.explain(&e);
    assert!(said.contains("the connection was lost"), "{said}");
    assert!(!said.contains("cannot connect"), "{said}");
    let refused = Locator::parse("postgres://folio@127.0.0.1:1/brain").unwrap();
    let said = refused.connect().err().expect("nothing listens on port 1");
    assert!(said.contains("cannot connect"), "{said}");
}
