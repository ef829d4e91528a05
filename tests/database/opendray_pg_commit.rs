//! Issue 43's correctness items on a live server: a decision the database refuses at its
//! commit (a deferred trigger; the connection dropped at the commit) leaves no trace in
//! folio; three spellings of one database share one history; a server that accepts and never
//! answers, and a statement that waits on an agent's lock, each end in one line and exit 2;
//! undo gives back `updated_at` and edges' `created_at` exactly; merge stays within a kind
//! and its preview and log count edges, not YAML lines.
use crate::support::opendray_seed as seed;
use crate::support::pg::{files_under, folio_db, folio_ok, said};

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Every node's and edge's timestamps, to compare before and after.
fn stamps(c: &mut postgres::Client) -> Vec<String> {
    let mut out: Vec<String> = c
        .query(
            "SELECT id || ' ' || updated_at::text || ' ' || coalesce(archived_at::text, '-') FROM knowledge_nodes",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    out.extend(
        c.query(
            "SELECT src_id || ' ' || edge_type || ' ' || dst_id || ' ' || created_at::text FROM knowledge_edges",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0)),
    );
    out.sort();
    out
}

/// What `folio log --json` lists: each event's kind.
fn log_verbs(state: &Path, url: &str) -> Vec<String> {
    let o = folio_db(state, &["log", url, "--json"], &[]);
    assert!(o.status.success(), "{}", said(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", said(&o)));
    let list = v.as_array().cloned().unwrap_or_else(|| panic!("not a list: {v}"));
    list.iter().map(|e| e["kind"].as_str().map(str::to_string).unwrap_or_else(|| panic!("no kind: {e}"))).collect()
}

/// Refuse the commit of any node update with `body` run in a deferred constraint trigger.
fn refuse_at_commit(c: &mut postgres::Client, body: &str) {
    c.batch_execute(&format!(
        "CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body} RETURN NULL; END $$;
         CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER UPDATE ON knowledge_nodes
           DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_at_commit();"
    ))
    .unwrap();
}

fn allow_commits(c: &mut postgres::Client) {
    c.batch_execute("DROP TRIGGER refuse_at_commit ON knowledge_nodes; DROP FUNCTION refuse_at_commit();").unwrap();
}

/// The failed commit leaves nothing: the rows, folio's log, what `show` says after reopening,
/// and the next decision and its undo all behave as if the refused one was never tried.
fn nothing_kept(c: &mut postgres::Client, s: &Path, url: &str, before: &Value, o: &Output) {
    assert_eq!(o.status.code(), Some(2), "{}", said(o));
    assert!(said(o).contains("nothing was written"), "{}", said(o));
    assert_eq!(&seed::row(c, "svc-pg-dup"), before);
    assert!(!log_verbs(s, url).iter().any(|v| v.contains("approve")), "{:?}", log_verbs(s, url));
    let shown = folio_ok(s, &["show", url, "svc-pg-dup", "--json"]);
    assert!(!shown.contains("\"approved\""), "{shown}");
    assert!(folio_db(s, &["undo", url, "--as", "human:ann"], &[]).status.code() != Some(0), "nothing to undo");
    allow_commits(c);
    folio_ok(s, &["review", url, "approve", "svc-pg-dup", "--as", "human:ann"]);
    assert_eq!(seed::row(c, "svc-pg-dup")["provenance"]["approved"]["by"], "human:ann");
    folio_ok(s, &["undo", url, "--as", "human:ann"]);
    assert!(seed::row(c, "svc-pg-dup")["provenance"].get("approved").is_none());
}

#[test]
fn a_commit_a_deferred_trigger_refuses_leaves_no_trace() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    folio_ok(s, &["stats", &url]);
    let before = seed::row(&mut c, "svc-pg-dup");
    refuse_at_commit(&mut c, "RAISE EXCEPTION 'the brain is frozen';");
    let o = folio_db(s, &["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"], &[]);
    assert!(said(&o).contains("the brain is frozen"), "{}", said(&o));
    nothing_kept(&mut c, s, &url, &before, &o);
}

#[test]
fn a_connection_dropped_at_the_commit_leaves_no_trace() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    folio_ok(s, &["stats", &url]);
    let before = seed::row(&mut c, "svc-pg-dup");
    // The backend committing folio's transaction is terminated while it commits.
    refuse_at_commit(&mut c, "PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5);");
    let o = folio_db(s, &["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"], &[]);
    assert!(said(&o).contains("rolled the transaction back"), "{}", said(&o));
    nothing_kept(&mut c, s, &url, &before, &o);
}

#[test]
fn three_spellings_of_one_database_share_one_history() {
    let Some((pg, mut c, socket)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let ip = pg.tcp_url("brain", crate::support::pg::PASSWORD);
    let name = ip.replace("127.0.0.1", "localhost");
    folio_ok(s, &["review", &ip, "approve", "svc-pg-dup", "--as", "human:ann"]);
    assert_eq!(log_verbs(s, &socket), log_verbs(s, &name));
    let approvals = log_verbs(s, &socket).iter().filter(|l| l.contains("approve")).count();
    assert_eq!(approvals, 1, "{:?}", log_verbs(s, &socket));
    folio_ok(s, &["undo", &name, "--as", "human:ann"]);
    assert!(seed::row(&mut c, "svc-pg-dup")["provenance"].get("approved").is_none());
    // Undone once, by any name: nothing is left to undo through the third.
    assert!(!folio_db(s, &["undo", &socket, "--as", "human:ann"], &[]).status.success());
    let folders: Vec<String> = std::fs::read_dir(s.join("databases"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(folders.len(), 1, "one folder for one database: {folders:?}");
    // The password is written nowhere in folio's state.
    for f in files_under(s) {
        let bytes = std::fs::read(&f).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains(crate::support::pg::PASSWORD), "{}", f.display());
    }
}

/// Run folio, killing it (and failing) should it still run after a minute: the point of the
/// test is that it does not hang.
fn bounded(state: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = crate::support::folio_in(state);
    c.args(args).env("FOLIO_STATE_DIR", state).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("folio {args:?} still waits after a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_server_that_never_answers_is_one_line_and_exit_2() {
    let port = crate::support::pg::silent_server();
    let state = tempfile::tempdir().unwrap();
    let url = format!("postgres://folio@127.0.0.1:{port}/brain");
    let o = bounded(state.path(), &["stats", &url], &[("FOLIO_PG_CONNECT_TIMEOUT", "1")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(err.contains("did not answer within 1 s"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_statement_waiting_on_an_agents_lock_gives_up() {
    let Some((pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    folio_ok(s, &["stats", &url]);
    // An agent holds the row folio is about to write.
    let mut agent = pg.client("brain");
    let mut tx = agent.transaction().unwrap();
    tx.query("SELECT 1 FROM knowledge_nodes WHERE id = 'svc-pg-dup' FOR UPDATE", &[]).unwrap();
    let before = seed::row(&mut c, "svc-pg-dup");
    let o = bounded(
        s,
        &["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"],
        &[("FOLIO_PG_STATEMENT_TIMEOUT", "0.5")],
    );
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(said(&o).contains("FOLIO_PG_STATEMENT_TIMEOUT"), "{}", said(&o));
    tx.rollback().unwrap();
    assert_eq!(seed::row(&mut c, "svc-pg-dup"), before);
    assert!(log_verbs(s, &url).is_empty());
}

#[test]
fn undo_gives_back_updated_at_and_created_at_exactly() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let before = stamps(&mut c);
    folio_ok(s, &["review", &url, "promote", "pb-deploy", "--as", "human:ann"]);
    assert_ne!(stamps(&mut c), before);
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert_eq!(stamps(&mut c), before);
    // The 20-day-old playbook reads as 20 days old again.
    let shown: Value = serde_json::from_str(&folio_ok(s, &["show", &url, "pb-deploy", "--json"])).unwrap();
    let row = seed::row(&mut c, "pb-deploy");
    let days: i64 = c
        .query_one("SELECT extract(day FROM now() - updated_at)::int8 FROM knowledge_nodes WHERE id = 'pb-deploy'", &[])
        .unwrap()
        .get(0);
    assert_eq!(days, 20, "{row}");
    assert_eq!(shown["fields"]["updated_at"].as_str().map(|t| &t[..19]), row["updated_at"].as_str().map(|t| &t[..19]));
    // A merge re-points, removes and archives; its undo gives every stamp back.
    folio_ok(s, &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"]);
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert_eq!(stamps(&mut c), before);
}

#[test]
fn merge_stays_within_a_kind() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let before = stamps(&mut c);
    for (from, into) in [("sk-stale", "svc-pg"), ("svc-pg", "pb-deploy"), ("host-a", "svc-pg")] {
        let o = folio_db(s, &["review", &url, "merge", from, into, "--as", "human:ann"], &[]);
        assert!(!o.status.success(), "merge {from} into {into}: {}", said(&o));
        assert!(said(&o).contains("opendray merges"), "{}", said(&o));
    }
    assert_eq!(stamps(&mut c), before);
    assert!(log_verbs(s, &url).is_empty());
}

#[test]
fn a_merge_preview_lists_edges_and_the_log_counts_those_moved() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    // INTO itself points at FROM (that edge is dropped: it would point at itself), and one
    // more node does (re-aimed), beside tool-x's.
    c.batch_execute(
        "INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES
           ('svc-pg', 'depends_on', 'svc-pg-dup'), ('host-a', 'used_by', 'svc-pg-dup');",
    )
    .unwrap();
    let preview = folio_ok(s, &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann", "--dry-run"]);
    let lines: Vec<&str> = preview.lines().filter(|l| l.starts_with("repoint ")).collect();
    assert_eq!(
        lines,
        [
            "repoint entities/host/host-a.md: used_by svc-pg-dup → used_by svc-pg",
            "repoint entities/service/svc-pg.md: depends_on svc-pg-dup → (removed)",
            "repoint entities/tool/tool-x.md: used_by svc-pg-dup → used_by svc-pg",
        ],
        "{preview}"
    );
    assert!(preview.contains("\"repointed\":2"), "{preview}");
    folio_ok(s, &["review", &url, "merge", "svc-pg-dup", "svc-pg", "--as", "human:ann"]);
    let o = folio_db(s, &["log", &url, "--json"], &[]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let merge = v.as_array().unwrap().iter().find(|e| e["kind"] == "merge").cloned().unwrap();
    assert_eq!(merge["raw"]["repointed"], 2, "{merge}");
}

/// folio killed after the server committed a decision and before its journal's own commit
/// mark: the next open asks the server, finds the transaction committed, and finishes the
/// decision (log line, undo record) instead of rolling its files back.
#[test]
fn a_decision_the_server_committed_before_folio_died_is_finished_on_the_next_open() {
    use std::io::BufRead;
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    folio_ok(s, &["stats", &url]);
    let mut reached = false;
    for n in 1..80 {
        let mut cmd = crate::support::folio_in(s);
        cmd.args(["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"])
            .env("FOLIO_STATE_DIR", s)
            .env("FOLIO_CRASH_AT", n.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut said = String::new();
        let label = loop {
            said.clear();
            if err.read_line(&mut said).unwrap() == 0 {
                break None;
            }
            if let Some(rest) = said.trim().strip_prefix(&format!("folio: crash point {n} (")) {
                break Some(rest.trim_end_matches(')').to_string());
            }
        };
        let _ = child.kill();
        let _ = child.wait();
        match label.as_deref() {
            Some("database commit") => {
                reached = true;
                break;
            }
            // Killed before the commit: the server rolls the transaction back with the
            // connection, the next open rolls the files back; the next step is tried.
            Some(_) => {
                assert!(seed::row(&mut c, "svc-pg-dup")["provenance"].get("approved").is_none(), "step {n}");
                folio_ok(s, &["stats", &url]);
                assert!(log_verbs(s, &url).is_empty(), "step {n}: {:?}", log_verbs(s, &url));
            }
            None => panic!("the approval finished before reaching the database commit (step {n})"),
        }
    }
    assert!(reached, "no crash point at the database commit");
    // The server has the approval; folio's next open finishes it.
    assert_eq!(seed::row(&mut c, "svc-pg-dup")["provenance"]["approved"]["by"], "human:ann");
    let shown = folio_ok(s, &["show", &url, "svc-pg-dup", "--json"]);
    assert!(shown.contains("\"approved\""), "{shown}");
    assert!(log_verbs(s, &url).iter().any(|v| v.contains("approve")), "{:?}", log_verbs(s, &url));
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert!(seed::row(&mut c, "svc-pg-dup")["provenance"].get("approved").is_none());
}

/// Which folder a spelling reached last is only a hint: a stale one (the database at that
/// address recreated, a new cluster) never stops the open, which follows the server's word.
#[test]
fn a_stale_hint_for_a_spelling_is_followed_by_the_servers_identity() {
    let Some((_pg, _c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    folio_ok(s, &["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"]);
    let hints = s.join("databases/spellings.json");
    let map: serde_json::Map<String, Value> = serde_json::from_slice(&std::fs::read(&hints).unwrap()).unwrap();
    assert_eq!(map.len(), 1, "{map:?}");
    let stale: serde_json::Map<String, Value> =
        map.keys().map(|k| (k.clone(), Value::from("brain-00000000000000000000"))).collect();
    std::fs::write(&hints, Value::Object(stale).to_string()).unwrap();
    let o = folio_db(s, &["stats", &url, "--json"], &[]);
    assert!(o.status.success(), "{}", said(&o));
    let stats: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(stats["entities"], 7, "{stats}");
    assert!(log_verbs(s, &url).iter().any(|v| v.contains("approve")), "the history is the database's own");
    let healed: serde_json::Map<String, Value> = serde_json::from_slice(&std::fs::read(&hints).unwrap()).unwrap();
    assert_eq!(healed, map, "the hint is the server's answer again");
}

/// A TCP relay to the server that the test can cut: every connection through it is shut, and
/// new ones are closed at once until it is mended — the network between folio and the
/// server gone, the server itself alive.
struct Relay {
    port: u16,
    cut: std::sync::Arc<std::sync::atomic::AtomicBool>,
    open: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Relay {
    fn to(server: u16) -> Relay {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let relay = Relay { port, cut: Default::default(), open: Default::default() };
        let (cut, open) = (relay.cut.clone(), relay.open.clone());
        std::thread::spawn(move || {
            for inbound in listener.incoming().flatten() {
                if cut.load(Ordering::SeqCst) {
                    continue;
                }
                let Ok(outbound) = std::net::TcpStream::connect(("127.0.0.1", server)) else { continue };
                open.lock().unwrap().extend([inbound.try_clone().unwrap(), outbound.try_clone().unwrap()]);
                for (mut from, mut to) in
                    [(inbound.try_clone().unwrap(), outbound.try_clone().unwrap()), (outbound, inbound)]
                {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        relay
    }

    fn cut(&self) {
        self.cut.store(true, std::sync::atomic::Ordering::SeqCst);
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    fn mend(&self) {
        self.cut.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The connection lost during the commit and the server out of reach, so folio cannot ask
/// what became of the transaction: the decision is kept pending, not dropped, and the next
/// open asks the server — which did commit it — and finishes folio's record.
#[test]
fn a_commit_whose_fate_cannot_be_asked_is_settled_on_the_next_open() {
    let Some((pg, mut c, _)) = seed::brain() else { return };
    let relay = Relay::to(pg.port);
    let url = format!("postgres://folio:{}@127.0.0.1:{}/brain", crate::support::pg::PASSWORD, relay.port);
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    folio_ok(s, &["stats", &url]);
    // folio's commit waits in a deferred trigger on a lock this test holds.
    c.batch_execute("SELECT pg_advisory_lock(4343)").unwrap();
    refuse_at_commit(&mut c, "PERFORM pg_advisory_xact_lock(4343);");
    let mut cmd = crate::support::folio_in(s);
    cmd.args(["review", &url, "approve", "svc-pg-dup", "--as", "human:ann"])
        .env("FOLIO_STATE_DIR", s)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    wait_for("folio's commit to reach the trigger", Duration::from_secs(60), || {
        c.query_one("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", &[])
            .unwrap()
            .get::<_, i64>(0)
            > 0
    });
    // The network goes while the server commits: folio can neither hear the answer nor ask.
    relay.cut();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(said(&o).contains("settles it with the database on the next open"), "{}", said(&o));
    c.batch_execute("SELECT pg_advisory_unlock(4343)").unwrap();
    wait_for("the server to commit", Duration::from_secs(30), || {
        seed::row(&mut c, "svc-pg-dup")["provenance"].get("approved").is_some()
    });
    allow_commits(&mut c);
    relay.mend();
    // The next open asks the server, which committed: folio's record is finished, not dropped.
    assert!(log_verbs(s, &url).iter().any(|v| v.contains("approve")), "{:?}", log_verbs(s, &url));
    let shown = folio_ok(s, &["show", &url, "svc-pg-dup", "--json"]);
    assert!(shown.contains("\"approved\""), "{shown}");
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    assert!(seed::row(&mut c, "svc-pg-dup")["provenance"].get("approved").is_none());
}

/// folio's disk fails after the server committed a decision, as folio marks its journal
/// committed: the decision is not rolled back in folio's files while it stands in the
/// database; the message says the database took it, and the next open finishes the record.
#[test]
fn a_disk_failure_after_the_database_commit_is_finished_on_the_next_open() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    folio_ok(s, &["stats", &url]);
    let approve = ["review", url.as_str(), "approve", "svc-pg-dup", "--as", "human:ann"];
    // The steps of an approval, then (undone) the same approval failing at each of its last
    // steps in turn until one fails after the database's commit.
    let traced = folio_db(s, &approve, &[("FOLIO_FAULT", "trace")]);
    assert!(traced.status.success(), "{}", said(&traced));
    folio_ok(s, &["undo", &url, "--as", "human:ann"]);
    let steps = String::from_utf8_lossy(&traced.stderr).lines().filter(|l| l.starts_with("folio-step ")).count();
    assert!(steps > 5, "{}", said(&traced));
    let mut found = false;
    let approvals = |s: &Path| log_verbs(s, &url).iter().filter(|v| v.contains("approve")).count();
    for n in (steps.saturating_sub(15)..=steps + 2).rev() {
        let logged = approvals(s);
        let o = folio_db(s, &approve, &[("FOLIO_FAULT", &format!("fail:{n}:EIO"))]);
        let approved = seed::row(&mut c, "svc-pg-dup")["provenance"].get("approved").is_some();
        match (o.status.success(), approved) {
            (true, true) => {
                folio_ok(s, &["undo", &url, "--as", "human:ann"]);
            }
            (false, false) => {
                assert!(said(&o).contains("nothing was written"), "step {n}: {}", said(&o));
                assert_eq!(approvals(s), logged, "step {n}");
            }
            (false, true) => {
                assert!(said(&o).contains("the database committed the change"), "step {n}: {}", said(&o));
                assert!(said(&o).contains("next open"), "step {n}: {}", said(&o));
                assert_eq!(approvals(s), logged + 1, "step {n}: {:?}", log_verbs(s, &url));
                let shown = folio_ok(s, &["show", &url, "svc-pg-dup", "--json"]);
                assert!(shown.contains("\"approved\""), "{shown}");
                folio_ok(s, &["undo", &url, "--as", "human:ann"]);
                assert!(seed::row(&mut c, "svc-pg-dup")["provenance"].get("approved").is_none(), "step {n}");
                found = true;
                break;
            }
            (true, false) => panic!("step {n}: approve succeeded but the row is not approved: {}", said(&o)),
        }
    }
    assert!(found, "no step after the database commit failed the approval");
}

/// Poll `done` until it holds; a hang guard, not a measurement: past `limit` the test fails
/// saying what never happened.
fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        if Instant::now() > deadline {
            panic!("gave up waiting for {what} after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
