//! Connection strings: parsed, redacted, connected. The password never leaves this file: the
//! store is named by the redacted string (`postgres://user@host:port/db`, the store's
//! identity and what is printed), and the full string is kept in this process's memory only,
//! keyed by it, for the writes that reconnect.
//!
//! Every wait is bounded (docs/opendray-database.md, "Connection"): the whole connect —
//! TCP, TLS-less startup and authentication — within `FOLIO_PG_CONNECT_TIMEOUT` seconds
//! (10; a `connect_timeout` in the string wins), every statement within
//! `FOLIO_PG_STATEMENT_TIMEOUT` seconds (30, the server's `statement_timeout`).
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use postgres::config::Host;
use postgres::{Client, Config, NoTls};

/// Full connection strings by their redacted form (this process only; never written).
static SECRETS: Mutex<Option<HashMap<String, String>>> = Mutex::new(None);

/// A connection made ahead of its use (`connect_ahead`: while a decision reads its
/// snapshot), or one a read left for the write that follows it (`park`), by the redacted
/// name it reaches: a new server backend's start and first queries took 15–25 ms of a
/// 200 ms verdict, twice (docs/benchmarks.md, "Sixteenth session").
static PARKED: Mutex<Vec<(String, Parked)>> = Mutex::new(Vec::new());

enum Parked {
    /// Left idle at this moment.
    Ready(Instant, Box<Client>),
    /// Being made since this moment, on its own thread.
    Coming(Instant, Receiver<Result<Client, postgres::Error>>),
}

/// A connection left idle longer than this is closed rather than taken.
const PARKED_FOR: Duration = Duration::from_secs(5);

/// Whether `s` names a PostgreSQL database rather than a folder.
pub fn is_locator(s: &str) -> bool {
    let s = s.trim();
    s.starts_with("postgres://")
        || s.starts_with("postgresql://")
        || (s.contains('=') && (s.contains("dbname=") || s.contains("host=")))
}

/// A parsed connection string and the name it is shown by.
pub struct Locator {
    pub config: Config,
    /// `postgres://user@host:port/db`, no password.
    pub redacted: String,
}

impl Locator {
    pub fn parse(s: &str) -> Result<Locator, String> {
        // postgres' own parse error can quote the string; say only what kind of string it was.
        let mut config = Config::from_str(s.trim())
            .map_err(|_| "not a PostgreSQL connection string (postgres://user@host/db or key=value)".to_string())?;
        if config.get_password().is_none()
            && let Ok(pw) = std::env::var("PGPASSWORD")
        {
            config.password(pw);
        }
        if config.get_user().is_none() {
            let user = std::env::var("PGUSER").or_else(|_| std::env::var("USER")).unwrap_or_else(|_| "postgres".into());
            config.user(&user);
        }
        if config.get_hosts().is_empty() {
            config.host(&std::env::var("PGHOST").unwrap_or_else(|_| "localhost".into()));
        }
        if config.get_application_name().is_none() {
            config.application_name("folio");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(limit("FOLIO_PG_CONNECT_TIMEOUT", 10));
        }
        let redacted = redact(&config);
        remember(&redacted, s.trim());
        Ok(Locator { config, redacted })
    }

    /// The locator of a store opened earlier in this process, by its redacted name (a
    /// password given only in the original string is known from then on).
    pub fn known(redacted: &str) -> Result<Locator, String> {
        let full = SECRETS.lock().ok().and_then(|m| m.as_ref().and_then(|m| m.get(redacted).cloned()));
        Locator::parse(full.as_deref().unwrap_or(redacted))
    }

    /// Connect, or one line saying why not (never the password). postgres' own
    /// `connect_timeout` covers only the socket's connect, not the startup after it (a
    /// server that accepts and never answers would hold folio forever): the whole connect
    /// runs on a thread of its own and is given up past the limit.
    pub fn connect(&self) -> Result<Client, String> {
        let (since, rx) = match self.unpark() {
            Some(Parked::Ready(_, client)) => return Ok(*client),
            Some(Parked::Coming(since, rx)) => (since, rx),
            None => self.start()?,
        };
        let within = self.config.get_connect_timeout().copied().unwrap_or(Duration::from_secs(10));
        match rx.recv_timeout(within.saturating_sub(since.elapsed())) {
            Ok(r) => r.map_err(|e| self.explain(&e)),
            Err(_) => Err(format!(
                "{}: the server did not answer within {} s (FOLIO_PG_CONNECT_TIMEOUT sets the limit)",
                self.redacted,
                within.as_secs_f64()
            )),
        }
    }

    /// Start connecting now, for this process's next `connect` to the same database (which
    /// waits for it within the same limit, or says why it failed).
    pub fn connect_ahead(&self) {
        if let Ok((since, rx)) = self.start() {
            self.leave(Parked::Coming(since, rx));
        }
    }

    /// The connect on a thread of its own, its session set up there.
    fn start(&self) -> Result<(Instant, Receiver<Result<Client, postgres::Error>>), String> {
        let (tx, rx) = std::sync::mpsc::channel();
        let config = self.config.clone();
        std::thread::Builder::new()
            .name("folio-pg-connect".into())
            .spawn(move || {
                // Timestamps are read and written in UTC whatever the server's zone; no
                // statement (a lock an agent holds, a slow scan) waits past the limit.
                let statement = limit("FOLIO_PG_STATEMENT_TIMEOUT", 30).as_millis();
                let _ = tx.send(config.connect(NoTls).and_then(|mut client| {
                    client.batch_execute(&format!("SET TIME ZONE 'UTC'; SET statement_timeout = {statement}"))?;
                    Ok(client)
                }));
            })
            .map_err(|e| format!("{}: cannot connect: {e}", self.redacted))?;
        Ok((Instant::now(), rx))
    }

    /// Leave `client` (idle, no transaction open) for this process's next `connect` to the
    /// same database within `PARKED_FOR`; one per database is kept, the one before closed.
    pub fn park(&self, client: Client) {
        if !client.is_closed() {
            self.leave(Parked::Ready(Instant::now(), Box::new(client)));
        }
    }

    fn leave(&self, parked: Parked) {
        let mut all = PARKED.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|(name, _)| *name != self.redacted);
        all.push((self.redacted.clone(), parked));
    }

    /// The connection parked for this database: one coming, or one left idle recently and
    /// still answering (a server restarted since, or a connection dropped, is found here
    /// and a new one made).
    fn unpark(&self) -> Option<Parked> {
        let parked = {
            let mut all = PARKED.lock().unwrap_or_else(|e| e.into_inner());
            let at = all.iter().position(|(name, _)| *name == self.redacted)?;
            all.swap_remove(at).1
        };
        match parked {
            Parked::Ready(at, mut client) => (at.elapsed() < PARKED_FOR && client.is_valid(Duration::from_secs(1)).is_ok())
                .then_some(Parked::Ready(at, client)),
            coming => Some(coming),
        }
    }

    /// Who the database is, whatever the string that reached it: the cluster's
    /// `system_identifier`, the database and the schema (`127.0.0.1`, `localhost` and the
    /// Unix socket reach one database and share one history). A role that may not read the
    /// control data (`pg_control_system()`) falls back to the server's address as it sees it.
    pub fn identity(&self, client: &mut Client) -> Result<String, String> {
        let control = client.query_one("SELECT system_identifier::text FROM pg_control_system()", &[]);
        let cluster: String = match control {
            Ok(r) => r.get(0),
            Err(_) => client
                .query_one(
                    "SELECT coalesce(host(inet_server_addr()), 'socket') || ':' || current_setting('port')",
                    &[],
                )
                .map_err(|e| self.explain(&e))?
                .get(0),
        };
        let r = client
            .query_one("SELECT current_database()::text, coalesce(current_schema()::text, '')", &[])
            .map_err(|e| self.explain(&e))?;
        let (db, schema): (String, String) = (r.get(0), r.get(1));
        Ok(format!("{cluster}/{db}/{schema}"))
    }

    /// One line for a connection or query error.
    pub fn explain(&self, e: &postgres::Error) -> String {
        let who = self.config.get_user().unwrap_or("?");
        let db = self.config.get_dbname().unwrap_or(who);
        match e.as_db_error() {
            Some(d) if d.code() == &postgres::error::SqlState::INVALID_PASSWORD => {
                format!("{}: password authentication failed for user `{who}`", self.redacted)
            }
            Some(d) if d.code() == &postgres::error::SqlState::INVALID_CATALOG_NAME => {
                format!("{}: database `{db}` does not exist", self.redacted)
            }
            Some(d) if d.code() == &postgres::error::SqlState::QUERY_CANCELED => format!(
                "{}: {} (past {} s; FOLIO_PG_STATEMENT_TIMEOUT sets the limit)",
                self.redacted,
                d.message(),
                limit("FOLIO_PG_STATEMENT_TIMEOUT", 30).as_secs_f64()
            ),
            // A hot standby, or a server or role set to `default_transaction_read_only`.
            Some(d) if d.code() == &postgres::error::SqlState::READ_ONLY_SQL_TRANSACTION => format!(
                "{}: {} (this server takes no writes here: a standby, or read-only by default; decide on the primary)",
                self.redacted,
                d.message()
            ),
            Some(d) => format!("{}: {}", self.redacted, d.message()),
            None => {
                let cause = std::error::Error::source(e).map(|s| s.to_string()).unwrap_or_else(|| e.to_string());
                // Past the connect (a server restarted or a backend ended mid-read), "cannot
                // connect" would send the person to check an address that was reached.
                let shown = e.to_string();
                let lost = e.is_closed()
                    || ["error communicating with the server", "error parsing response from server"]
                        .iter()
                        .any(|k| shown.starts_with(k));
                match lost {
                    true => format!("{}: the connection was lost: {cause}", self.redacted),
                    false => format!("{}: cannot connect: {cause}", self.redacted),
                }
            }
        }
    }
}

/// A limit in seconds from the environment (fractions allowed), else `default`.
fn limit(var: &str, default: u64) -> Duration {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(Duration::from_secs(default), Duration::from_secs_f64)
}

fn remember(redacted: &str, full: &str) {
    if let Ok(mut m) = SECRETS.lock() {
        m.get_or_insert_with(HashMap::new).insert(redacted.to_string(), full.to_string());
    }
}

/// `postgres://user@host:port/db` from a parsed config (a socket folder's `/` as `%2F`).
fn redact(c: &Config) -> String {
    let user = c.get_user().unwrap_or("");
    let host = match c.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.to_string_lossy().replace('%', "%25").replace('/', "%2F"),
        None => String::new(),
    };
    let port = c.get_ports().first().copied().unwrap_or(5432);
    let db = c.get_dbname().unwrap_or(user);
    format!("postgres://{user}@{host}:{port}/{db}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_drops_the_password_in_both_forms() {
        let l = Locator::parse("postgres://ann:s3cret@db.example:6000/brain").unwrap();
        assert_eq!(l.redacted, "postgres://ann@db.example:6000/brain");
        let l = Locator::parse("host=/tmp/pg port=7000 user=bob password=hunter2 dbname=kb").unwrap();
        assert_eq!(l.redacted, "postgres://bob@%2Ftmp%2Fpg:7000/kb");
        assert!(!l.redacted.contains("hunter2"));
        // The full string is found again by the redacted name alone.
        assert_eq!(Locator::known(&l.redacted).unwrap().config.get_password(), Some(&b"hunter2"[..]));
    }

    #[test]
    fn locators_are_told_from_paths() {
        assert!(is_locator("postgres://a@b/c"));
        assert!(is_locator("postgresql://a@b/c"));
        assert!(is_locator("host=/tmp dbname=x"));
        assert!(!is_locator("./notes"));
        assert!(!is_locator("/srv/wiki=old"));
        let err = Locator::parse("postgres://a:pw@[bad").err().unwrap();
        assert!(!err.contains("pw"), "{err}");
    }
}
