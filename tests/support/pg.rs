//! A private PostgreSQL server for a test: a cluster of its own in a temporary folder, started
//! with `pg_ctl` on a Unix socket in that folder and a free local port, stopped (and removed)
//! when dropped. The cluster is a copy of one `initdb` kept under the target folder, given a
//! system identifier of its own (`fresh_identity`): an `initdb` per test was most of the
//! database binary's CPU (docs/benchmarks.md, "CI time"). PostgreSQL refuses to run as root, so under root the server runs as the
//! `postgres` user (or `nobody`) owning the folder. Without PostgreSQL's binaries the tests
//! are skipped with a line saying why — except in CI (`CI` set), where they must run.
#![allow(dead_code)]

use std::ffi::CString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The superuser the tests connect as, and its password (TCP connections ask for it).
pub const USER: &str = "folio";
pub const PASSWORD: &str = "test-secret-9f2c";

pub struct Pg {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
    /// Who the server runs as (None: as ourselves).
    owner: Option<(u32, u32)>,
}

/// Where PostgreSQL's server binaries (`initdb`, `pg_ctl`, `pg_resetwal`) are: on PATH, else Debian's `/usr/lib/postgresql/N/bin`.
fn bin_dir() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            if ["initdb", "pg_ctl", "pg_resetwal"].iter().all(|t| d.join(t).is_file()) {
                return Some(d);
            }
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").is_file())
        .collect();
    found.sort_by_key(|p| p.parent().and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok()).unwrap_or(0));
    found.pop()
}

/// An unprivileged user to run the server as when we are root.
fn unprivileged() -> (u32, u32) {
    for name in ["postgres", "nobody"] {
        let c = CString::new(name).unwrap();
        // SAFETY: getpwnam returns a pointer into static storage or null; read at once.
        let pw = unsafe { libc::getpwnam(c.as_ptr()) };
        if !pw.is_null() {
            // SAFETY: non-null, as checked.
            let pw = unsafe { &*pw };
            return (pw.pw_uid, pw.pw_gid);
        }
    }
    panic!("running as root and there is no `postgres` or `nobody` user to run PostgreSQL as");
}

fn chown_tree(p: &Path, (uid, gid): (u32, u32)) {
    std::os::unix::fs::chown(p, Some(uid), Some(gid)).unwrap();
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap().flatten() {
            chown_tree(&e.path(), (uid, gid));
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Pg {
    /// A running server, or None (with the reason printed) when PostgreSQL is not installed
    /// outside CI.
    pub fn start() -> Option<Pg> {
        let Some(bin) = bin_dir() else {
            let why = "PostgreSQL's initdb/pg_ctl are not installed (Debian: apt-get install postgresql)";
            if std::env::var_os("CI").is_some() {
                panic!("{why}; in CI the PostgreSQL tests must run");
            }
            eprintln!("skipping the PostgreSQL test: {why}");
            return None;
        };
        // SAFETY: geteuid has no preconditions.
        let owner = (unsafe { libc::geteuid() } == 0).then(unprivileged);
        let template = template(&bin, owner);
        let dir = tempfile::Builder::new().prefix("folio-pg").tempdir().unwrap();
        let pg = Pg { dir, bin, port: free_port(), owner };
        if let Some(o) = owner {
            chown_tree(pg.dir.path(), o);
        }
        let data = pg.data();
        // `cp -a` keeps the owner (we are root when there is one) and the folder's 0700.
        let out = Command::new("cp").arg("-a").arg(template.join("data")).arg(&data).output().unwrap();
        assert!(out.status.success(), "copying the cluster failed: {}", String::from_utf8_lossy(&out.stderr));
        fresh_identity(&data);
        // The WAL names the identifier too: pg_resetwal writes it anew from pg_control (the
        // copy was shut down cleanly, so nothing is lost; pg_upgrade does the same).
        let out = pg.run("pg_resetwal", &["-f", "-D", data.to_str().unwrap()]);
        assert!(out.status.success(), "pg_resetwal failed: {}", String::from_utf8_lossy(&out.stderr));
        let opts = format!(
            "-k {} -p {} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
            pg.dir.path().display(),
            pg.port
        );
        let log = pg.dir.path().join("server.log");
        let out =
            pg.run("pg_ctl", &["-D", data.to_str().unwrap(), "-o", &opts, "-l", log.to_str().unwrap(), "-w", "start"]);
        assert!(
            out.status.success(),
            "pg_ctl start failed: {}{}",
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        Some(pg)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn run(&self, tool: &str, args: &[&str]) -> Output {
        let mut c = Command::new(self.bin.join(tool));
        c.args(args).env("LC_ALL", "C").env_remove("PGDATA");
        if let Some((uid, gid)) = self.owner {
            c.uid(uid).gid(gid).current_dir(self.dir.path());
        }
        c.output().unwrap_or_else(|e| panic!("{tool}: {e}"))
    }

    /// The Unix socket's folder.
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// What the server has written to its log so far (with `log_statement`, each statement
    /// it was asked).
    pub fn server_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// A key=value connection string over the socket (no password needed there).
    pub fn conninfo(&self, db: &str) -> String {
        format!("host={} port={} user={USER} dbname={db}", self.socket_dir().display(), self.port)
    }

    /// A URL over TCP with `password`.
    pub fn tcp_url(&self, db: &str, password: &str) -> String {
        format!("postgres://{USER}:{password}@127.0.0.1:{}/{db}", self.port)
    }

    pub fn client(&self, db: &str) -> postgres::Client {
        postgres::Client::connect(&self.conninfo(db), postgres::NoTls).unwrap()
    }

    /// A new database with opendray's knowledge migrations applied (the copies in
    /// tests/corpora/opendray-pg, Apache-2.0), pgvector's `vector` stood in by a domain (folio
    /// never reads it).
    pub fn opendray_db(&self, name: &str) -> postgres::Client {
        self.client("postgres").batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let mut c = self.client(name);
        c.batch_execute("CREATE DOMAIN vector AS real[]").unwrap();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora/opendray-pg/migrations");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "sql"))
            .collect();
        files.sort();
        assert!(files.len() >= 7, "the opendray migrations are missing from {}", dir.display());
        for f in files {
            c.batch_execute(&std::fs::read_to_string(&f).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        }
        c
    }
}

/// One cluster made by `initdb` for every test run against this PostgreSQL (kept in the target
/// folder's tmp, by the server binaries' folder), made at the first test that needs it.
fn template(bin: &Path, owner: Option<(u32, u32)>) -> PathBuf {
    static MADE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = MADE.lock().unwrap_or_else(|p| p.into_inner());
    // By the binaries' folder and their version: a server upgraded in place cannot start an
    // older major version's cluster.
    let version = Command::new(bin.join("initdb")).arg("--version").output().map(|o| o.stdout).unwrap_or_default();
    let named = format!("{}{}", bin.display(), String::from_utf8_lossy(&version).trim());
    let key: String = named.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let kept = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pg-template-v1{key}"));
    if kept.join("data/PG_VERSION").is_file() {
        return kept;
    }
    // initdb writes where the server's user can reach (a folder in the system's temp), and the
    // result is copied next to `kept` and renamed there, so a half-made template is never used.
    let made = tempfile::Builder::new().prefix("folio-pg-initdb").tempdir().unwrap();
    std::fs::write(made.path().join("pw"), PASSWORD).unwrap();
    if let Some(o) = owner {
        chown_tree(made.path(), o);
    }
    let mut c = Command::new(bin.join("initdb"));
    c.env("LC_ALL", "C").env_remove("PGDATA");
    if let Some((uid, gid)) = owner {
        c.uid(uid).gid(gid).current_dir(made.path());
    }
    let out = c
        .arg("-D")
        .arg(made.path().join("data"))
        .args(["-U", USER, "--pwfile"])
        .arg(made.path().join("pw"))
        .args(["--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8", "--no-locale", "--no-sync"])
        .output()
        .unwrap_or_else(|e| panic!("initdb: {e}"));
    assert!(out.status.success(), "initdb failed: {}", String::from_utf8_lossy(&out.stderr));
    let parent = kept.parent().unwrap();
    std::fs::create_dir_all(parent).unwrap();
    let staging = tempfile::Builder::new().prefix("pg-template-new").tempdir_in(parent).unwrap().keep();
    let out = Command::new("cp").arg("-a").arg(made.path().join("data")).arg(staging.join("data")).output().unwrap();
    assert!(out.status.success(), "copying the template failed: {}", String::from_utf8_lossy(&out.stderr));
    // Another test binary may have placed one meanwhile: then ours goes.
    if std::fs::rename(&staging, &kept).is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    kept
}

/// Gives the cluster at `data` a system identifier of its own, as `initdb` would have: folio
/// tells databases apart by it (one identity per database), so copies of one template must not
/// share it. It is pg_control's first 8 bytes, under the CRC-32C that follows the control data
/// (found by where it matches, so no version's layout is assumed).
fn fresh_identity(data: &Path) {
    static COPIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let path = data.join("global/pg_control");
    let mut b = std::fs::read(&path).unwrap();
    let at = (8..b.len().min(4096) - 4)
        .step_by(4)
        .find(|&k| crc32c(&b[..k]) == u32::from_ne_bytes(b[k..k + 4].try_into().unwrap()))
        .unwrap_or_else(|| panic!("{}: no CRC-32C found over the control data", path.display()));
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    let n = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id =
        (now.as_secs() << 32) | (u64::from(now.subsec_micros()) << 12) | ((u64::from(std::process::id()) + n) & 0xFFF);
    b[..8].copy_from_slice(&id.to_ne_bytes());
    let crc = crc32c(&b[..at]);
    b[at..at + 4].copy_from_slice(&crc.to_ne_bytes());
    std::fs::write(&path, b).unwrap();
}

/// CRC-32C (Castagnoli), bit by bit: over a few hundred bytes per test, no table is worth it.
fn crc32c(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &x in bytes {
        c ^= u32::from(x);
        for _ in 0..8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0x82F6_3B78 } else { c >> 1 };
        }
    }
    !c
}

impl Drop for Pg {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self.run("pg_ctl", &["-D", data.to_str().unwrap(), "-m", "immediate", "-w", "stop"]);
    }
}

/// The port of a TCP listener that accepts connections and never says a word, as a hung
/// server or a dead tunnel does; it listens as long as the test process runs.
pub fn silent_server() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().flatten() {
            held.push(conn);
        }
    });
    port
}

/// folio's state folder for a test binary that runs folio in-process, set once before any of
/// its tests reads the environment (each calls this first; each test's database has its own
/// mirror in it).
pub fn state_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        // SAFETY: inside the OnceLock, which every test of the binary enters first, before it
        // touches the environment or starts a thread that does.
        unsafe { std::env::set_var("FOLIO_STATE_DIR", d.path()) };
        d
    })
    .path()
}

/// folio against a database, `state` its state folder and home (as `super::folio_in`), with
/// `env` added.
pub fn folio_db(state: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = super::folio_in(state);
    c.args(args).env("FOLIO_STATE_DIR", state);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// What folio said: its output, then its errors.
pub fn said(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// `folio_db` without extra variables, which must succeed; what it said.
pub fn folio_ok(state: &Path, args: &[&str]) -> String {
    let o = folio_db(state, args, &[]);
    assert!(o.status.success(), "folio {args:?}: {}", said(&o));
    said(&o)
}

/// Every file under `dir`, folders walked depth first.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}
