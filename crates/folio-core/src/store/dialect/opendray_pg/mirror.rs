//! The folder folio keeps for a database in its own state folder: its marker, its snapshot
//! (`snapshot`: each visible node rendered as an export file, `rows::Node::render`, with no
//! file per node) refreshed from the database on every open and by the live poller, and
//! folio's state (journal, log, undo, ledger). Everything that reads a store (lint, show,
//! recall, graph, the TUI) parses the snapshot's renderings as it parses a folder's files
//! (the rows this process just fetched are entities already: `direct`);
//! every write goes to the database first (`storage`), then to the snapshot. It holds no
//! password: its marker names the database by its redacted string.
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use postgres::Client;
use serde_json::json;

use super::conn::Locator;
use super::rows::Version;
use super::snapshot::{self, Snapshot};
use super::rows;
use crate::store::dialect::opendray::NODE_DIRS;

/// The mirror's marker: which database (redacted) and whether archived nodes are shown.
pub const MARKER: &str = "opendray-database.json";

/// Nodes per chunk a first open renders while the next is fetched (`rows::each_visible`).
const CHUNK: usize = 256;

/// What earlier builds kept beside their node files, under `.folio` (`retire_mirror`).
const GENERATION: &str = "generation";

/// foldhash: the keys are the paths of an old mirror folder's files (`retire_mirror`).
type FastSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;

/// What a mirror's marker says.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub database: String,
    pub archived: bool,
}

impl Marker {
    pub fn read(root: &Path) -> Option<Marker> {
        let v: serde_json::Value = serde_json::from_slice(&fs::read(root.join(MARKER)).ok()?).ok()?;
        Some(Marker {
            database: v.get("database")?.as_str()?.to_string(),
            archived: v.get("archived").and_then(|a| a.as_bool()).unwrap_or(false),
        })
    }
}

/// The mirror folder of a database: one per database and view (with or without archived
/// nodes) under folio's per-user state folder, named by a digest of its identity
/// (`Locator::identity`: cluster, database, schema), never by how the string spelled it.
pub fn dir_for(identity: &str, archived: bool) -> Result<PathBuf, String> {
    let d = crate::store::model::digest::of(identity.as_bytes());
    let db: String =
        identity.split('/').nth(1).unwrap_or("db").chars().filter(|c| c.is_ascii_alphanumeric()).take(24).collect();
    let view = if archived { ARCHIVED_VIEW } else { "" };
    Ok(databases()?.join(format!("{db}-{}{view}", &crate::store::model::digest::hex(&d)[..20])))
}

fn databases() -> Result<PathBuf, String> {
    let base = crate::store::keep::personal::base_from_env().ok_or_else(|| {
        "no folder for folio's state (set FOLIO_STATE_DIR, XDG_STATE_HOME or HOME) to read a database through"
            .to_string()
    })?;
    Ok(base.join("databases"))
}

/// Which database folder each spelling last reached (`spellings.json` beside them, keyed by
/// a digest of the redacted string): a hint that lets the cached store be decoded while the
/// database is asked who it is. The identity the server gives decides.
const SPELLINGS: &str = "spellings.json";

fn spelling_key(redacted: &str) -> String {
    crate::store::model::digest::hex(&crate::store::model::digest::of(redacted.as_bytes()))[..20].to_string()
}

/// The folder this spelling reached last time, if any.
pub fn known_dir(redacted: &str, archived: bool) -> Option<PathBuf> {
    let base = databases().ok()?;
    let map: serde_json::Value = serde_json::from_slice(&fs::read(base.join(SPELLINGS)).ok()?).ok()?;
    let plain = map.get(spelling_key(redacted))?.as_str()?;
    let view = if archived { ARCHIVED_VIEW } else { "" };
    Some(base.join(format!("{plain}{view}")))
}

/// Remember which folder a spelling reached (best effort: it is only a hint).
fn remember_spelling(redacted: &str, root: &Path) {
    let Ok(base) = databases() else { return };
    let Some(name) = root.file_name().and_then(|n| n.to_str()) else { return };
    let plain = name.strip_suffix(ARCHIVED_VIEW).unwrap_or(name);
    let path = base.join(SPELLINGS);
    let mut map: serde_json::Map<String, serde_json::Value> =
        fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    let key = spelling_key(redacted);
    if map.get(&key).and_then(|v| v.as_str()) == Some(plain) {
        return;
    }
    map.insert(key, json!(plain));
    let _ = fs::create_dir_all(&base);
    let _ = crate::store::read::fsio::write_atomic(&path, serde_json::Value::Object(map).to_string().as_bytes());
}

/// What ends the name of a mirror folder that shows archived nodes too (`--archived`).
const ARCHIVED_VIEW: &str = "-archived";

/// Where folio keeps its state — journal, undo records, review ledger, log — for a mirror
/// folder: one per database, in the plain view's folder, whichever view the decision was
/// taken in, so `folio undo` with or without `--archived` undoes the last one.
pub fn state_dir(root: &Path) -> PathBuf {
    let plain = root.file_name().and_then(|n| n.to_str()?.strip_suffix(ARCHIVED_VIEW)).map(|n| root.with_file_name(n));
    plain.unwrap_or_else(|| root.to_path_buf()).join(".folio")
}

/// Read every visible node of the database into its folder's snapshot; the folder's root.
pub fn sync(at: &Locator, archived: bool) -> Result<PathBuf, String> {
    let mut client = at.connect()?;
    super::schema::check(&mut client, at)?;
    let root = dir_for(&at.identity(&mut client)?, archived)?;
    remember_spelling(&at.redacted, &root);
    let state = crate::store::write::state::State { dir: state_dir(&root) };
    super::settle::on_open(&mut client, at, &state)?;
    sync_into(&mut client, at, archived, &root)?;
    Ok(root)
}

/// What changes whenever a node, edge or fact source is written, added or removed: each
/// table's row count and the sum of its rows' `xmin` (every UPDATE and INSERT gives a row the
/// writing transaction's id, whoever writes and whatever columns it sets). One query.
fn fingerprint(c: &mut Client) -> Result<String, postgres::Error> {
    let r = c.query_one(
        "SELECT (SELECT count(*) || ' ' || coalesce(sum(xmin::text::int8), 0) FROM knowledge_nodes) || ' ' || \
                (SELECT count(*) || ' ' || coalesce(sum(xmin::text::int8), 0) FROM knowledge_edges) || ' ' || \
                (SELECT count(*) || ' ' || coalesce(sum(xmin::text::int8), 0) FROM knowledge_fact_sources)",
        &[],
    )?;
    Ok(r.get(0))
}

/// The channel the trigger folio documents announces writes on (scripts/opendray-notify.sql,
/// docs/opendray-database.md, "Live").
pub const CHANNEL: &str = "folio_knowledge";

/// Whether the brain announces its writes (the trigger is on all three tables): then this
/// session listens for them.
fn listens(c: &mut Client) -> bool {
    let installed = c
        .query_one(
            "SELECT count(DISTINCT tgrelid) FROM pg_trigger WHERE tgname = 'folio_notify' AND tgrelid IN \
             (to_regclass('knowledge_nodes'), to_regclass('knowledge_edges'), to_regclass('knowledge_fact_sources'))",
            &[],
        )
        .is_ok_and(|r| r.get::<_, i64>(0) == 3);
    installed && c.batch_execute(&format!("LISTEN {CHANNEL}")).is_ok()
}

/// The live-reload call for a database folder (`Format::poll_source`): the paths of the
/// nodes it found changed. Where the brain announces its writes (`listens`), a poll only
/// takes the notifications already in — no query at all while nothing is written — and
/// re-reads the database when one came; elsewhere, while the server's log is where an open
/// vouched for the snapshot (`quiet`), it asks nothing more, and otherwise re-reads when the
/// tables' fingerprint changed. Errors (the server restarting) wait for the next poll; the
/// connection is made again then, and the first poll on it re-reads (a change meanwhile is
/// not missed).
pub fn poller(root: &Path) -> Option<Box<dyn FnMut() -> Vec<PathBuf> + Send>> {
    let marker = Marker::read(root)?;
    let root = root.to_path_buf();
    let mut client: Option<Client> = None;
    let mut listening = false;
    let mut synced = false;
    let mut last: Option<String> = None;
    let mut pace = Pace::default();
    // After a failed connect, a pause: a server that never answers holds each attempt for
    // the whole connect limit (and its thread until the server lets go).
    let mut quiet_until: Option<std::time::Instant> = None;
    let folder = root.clone();
    let shown = root.clone();
    let mut seen = generation(&root);
    let sync = move |c: &mut Client, at: &Locator| {
        sync_into(c, at, marker.archived, &root).map(|rels| rels.iter().map(|r| root.join(r)).collect::<Vec<_>>())
    };
    let mut poll = move || {
        let Ok(at) = Locator::known(&marker.database) else { return Vec::new() };
        if client.as_ref().is_none_or(|c| c.is_closed()) {
            if quiet_until.is_some_and(|t| std::time::Instant::now() < t) {
                return Vec::new();
            }
            client = at.connect().ok();
            quiet_until = client.is_none().then(|| std::time::Instant::now() + std::time::Duration::from_secs(10));
            listening = client.as_mut().is_some_and(listens);
            (synced, last) = (false, None);
        }
        let Some(c) = client.as_mut() else { return Vec::new() };
        if listening {
            use postgres::fallible_iterator::FallibleIterator;
            // A short wait, not `iter()`: the client's runtime reads the socket only while it
            // waits, and a non-blocking look can miss a notification already sent.
            let heard = c.notifications().timeout_iter(std::time::Duration::from_millis(20)).count();
            return match heard {
                Err(_) => {
                    client = None;
                    Vec::new()
                }
                Ok(0) if synced => Vec::new(),
                Ok(_) => {
                    let changed = sync(c, &at);
                    synced = changed.is_ok();
                    changed.unwrap_or_default()
                }
            };
        }
        // The server's log where an open vouched for the snapshot: nothing written since
        // (`quiet`), told without scanning the tables.
        if super::quiet::position(c).is_some_and(|p| super::quiet::holds(&folder, &p)) {
            return Vec::new();
        }
        if !pace.ready(std::time::Instant::now()) {
            return Vec::new();
        }
        let started = std::time::Instant::now();
        let Ok(now) = fingerprint(c) else {
            client = None;
            return Vec::new();
        };
        pace.took(started, std::time::Instant::now());
        // The first poll syncs too: a change between the open and it is not missed.
        if last.as_ref() == Some(&now) {
            return Vec::new();
        }
        let changed = sync(c, &at);
        if changed.is_ok() {
            last = Some(now);
        }
        changed.unwrap_or_default()
    };
    Some(Box::new(move || {
        let mut changed = poll();
        let now = generation(&shown);
        if now != seen {
            changed.extend(taken_elsewhere(&shown, seen, now));
            changed.sort();
            changed.dedup();
            seen = now;
        }
        changed
    }))
}

/// The nodes whose renderings changed between the snapshot generation this process last saw
/// and `now`'s on disk. Another folio (a command in another terminal, a second TUI) may take
/// an agent's write into the snapshot first: this process's own read of the database then
/// finds the tables as the snapshot has them, and nothing new. What this process holds of
/// the snapshot is dropped unless it is `now`'s, so the nodes are read as they are now.
fn taken_elsewhere(root: &Path, seen: Option<u64>, now: Option<u64>) -> Vec<PathBuf> {
    // No intact snapshot: the next open reads the database again.
    let Some(now) = now else { return Vec::new() };
    if !snapshot::holds(root, now) {
        snapshot::forget(root);
    }
    // The index remembers `SINCE_KEPT` generations back; past that, every node is told.
    let rels = seen
        .and_then(|s| snapshot::changed_since(root, s))
        .unwrap_or_else(|| snapshot::files_of(root).keys().cloned().collect());
    rels.into_iter().map(|r| root.join(r)).collect()
}

/// How often the fingerprint is asked for: it scans the three tables (130–170 ms of the
/// server's CPU at 100,000 nodes, docs/benchmarks.md), so after each query the poller rests
/// `RESTS` times as long as it took, keeping its share of a server core to about a tenth
/// however large the brain; a small brain's query (a millisecond) is asked at every poll.
#[derive(Debug, Default)]
struct Pace {
    not_before: Option<std::time::Instant>,
}

impl Pace {
    const RESTS: u32 = 9;

    fn ready(&self, now: std::time::Instant) -> bool {
        self.not_before.is_none_or(|t| now >= t)
    }

    fn took(&mut self, started: std::time::Instant, finished: std::time::Instant) {
        self.not_before = Some(finished + finished.saturating_duration_since(started) * Self::RESTS);
    }
}

/// Bring the snapshot up to the database; the paths of the nodes whose rendering changed,
/// appeared or went (for the watcher). When the tables' sums (`rows::tables`) are the ones
/// the snapshot took, nothing is read but those sums. Otherwise only nodes whose version
/// (`rows::Version`) differs from the snapshot's are fetched and rendered — a table whose sum
/// did not change keeps its per-node part from the snapshot instead of being grouped again —
/// and nodes no longer visible are dropped. One read-only transaction, no lock on anyone's
/// rows. No file per node is written: one snapshot (`snapshot`), rewritten only when
/// something changed.
fn sync_into(client: &mut Client, at: &Locator, archived: bool, root: &Path) -> Result<Vec<String>, String> {
    sync_with(client, at, archived, root, None)
}

/// `sync_into`; with `damaged`, the snapshot is not trusted (why) and is read whole again.
fn sync_with(
    client: &mut Client,
    at: &Locator,
    archived: bool,
    root: &Path,
    damaged: Option<&str>,
) -> Result<Vec<String>, String> {
    let sql = |e: postgres::Error| at.explain(&e);
    let err = |e: io::Error| format!("{}: {e}", root.display());
    fs::create_dir_all(root).map_err(err)?;
    let marker = json!({"database": at.redacted, "archived": archived});
    write_if_changed(&root.join(MARKER), marker.to_string().as_bytes()).map_err(err)?;
    retire_mirror(root).map_err(err)?;
    // Read before the transaction's snapshot is taken (`quiet`): while the server's log is
    // where an open vouched for the index, the tables are as that index took them.
    let position = if damaged.is_none() { super::quiet::position(client) } else { None };
    if position.as_deref().is_some_and(|p| super::quiet::holds(root, p)) {
        snapshot::clear_rebuilt(root);
        return Ok(Vec::new());
    }
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .start()
        .map_err(sql)?;
    let rebuilt = |why: &str| {
        let why = format!("{}: {why}; it was rebuilt from the database", snapshot::path(root).display());
        snapshot::note_rebuilt(root, &why);
        None
    };
    // While the server sums, the snapshot's header is read and checked: when the sums are
    // the ones it took, nothing else of it is read.
    let (tables, head) = std::thread::scope(|s| {
        let head = s.spawn(|| snapshot::header(root));
        (rows::tables(&mut tx), head.join())
    });
    let tables = tables.map_err(sql)?;
    // Every row written after this transaction's snapshot has an `xmin` at or after it.
    let horizon = super::since::horizon(&mut tx).map_err(sql)?;
    let head = head.map_err(|_| format!("{}: reading the snapshot failed", root.display()))?;
    let base: Option<(snapshot::Index, snapshot::Texts)> = match (damaged, head) {
        (Some(why), _) => rebuilt(why),
        (None, snapshot::Found::Intact(h)) if h.tables == Some(tables) => {
            snapshot::clear_rebuilt(root);
            let quiet_at = super::quiet::vouchable(&mut tx, &position).map_err(sql)?;
            tx.commit().map_err(sql)?;
            if let Some(p) = &quiet_at {
                super::quiet::vouch(root, h.generation, p);
            }
            return Ok(Vec::new());
        }
        (None, snapshot::Found::Intact(h)) => match super::since::refresh(&mut tx, archived, root, &h, tables, horizon) {
            // A few rows written since: those alone (`since`).
            Ok(Some((generation, changed))) => {
                snapshot::clear_rebuilt(root);
                let quiet_at = super::quiet::vouchable(&mut tx, &position).map_err(sql)?;
                tx.commit().map_err(sql)?;
                if let Some(p) = &quiet_at {
                    super::quiet::vouch(root, generation, p);
                }
                return Ok(changed);
            }
            Err(super::since::Failed::Sql(e)) => return Err(sql(e)),
            Err(super::since::Failed::Io(why)) => return Err(why),
            Ok(None) => match snapshot::index(root) {
            snapshot::Found::Intact(i) => match snapshot::Texts::open(root, &i.header) {
                Ok(t) => {
                    snapshot::clear_rebuilt(root);
                    Some((i, t))
                }
                Err(why) => rebuilt(&why),
            },
            snapshot::Found::Damaged(why) => rebuilt(&why),
            snapshot::Found::Missing => None,
            },
        },
        (None, snapshot::Found::Missing) => None,
        (None, snapshot::Found::Damaged(why)) => rebuilt(&why),
    };
    // Rendering is a large share of a first open: in parallel. Each node is made an entity
    // from its row's fields at once (`direct`), not parsed back from its rendering.
    use rayon::prelude::*;
    let dialect = super::OpendrayPg::open(root);
    let make = |values: &mut crate::store::model::shared_values::SharedValues, (n, version): (rows::Node, Version)| {
        let (rel, id) = (n.path(), n.id.clone());
        let (fields, body) = n.into_view();
        let text = rows::render_with(&fields, &body);
        drop(body);
        let handed = super::direct::Handed::new(&dialect, &rel, &text, fields, values);
        ((id, snapshot::Node { version, rel, text }), handed)
    };
    let Some((base, texts)) = &base else {
        // Nothing to add to: every visible node, with its version, by one scan
        // (`rows::each_visible`), each chunk rendered by rayon's pool while the next arrives —
        // unless this thread is one of the pool's (a rebuild asked for by a parallel read): it
        // would wait on the fetch while the chunks wait for a free thread, so all are fetched
        // first and rendered after.
        let quiet_at: Option<String>;
        let (nodes, handed): (snapshot::Nodes, Vec<super::direct::Handed>) = if rayon::current_thread_index().is_none() {
            // The rows are decoded where they are made entities (`rows::Arrived`).
            // Their rows come back to this thread to be freed (`Arrived::decode_keeping_row`).
            let (send, chunks) = std::sync::mpsc::sync_channel::<Vec<rows::Arrived>>(8);
            let (give_back, returned) = std::sync::mpsc::channel::<Vec<postgres::Row>>();
            let (fetched, made) = std::thread::scope(|s| {
                let made = s.spawn(|| {
                    let init = || (crate::store::model::shared_values::SharedValues::default(), give_back.clone());
                    chunks
                        .into_iter()
                        .par_bridge()
                        .map_init(init, |(values, back), chunk| {
                            let mut done = Vec::with_capacity(chunk.len());
                            let made = chunk
                                .into_iter()
                                .map(|a| {
                                    let (n, v, row) = a.decode_keeping_row()?;
                                    done.push(row);
                                    Ok(make(values, (n, v)))
                                })
                                .collect::<Result<Vec<_>, _>>();
                            let _ = back.send(done);
                            made
                        })
                        .collect::<Result<Vec<_>, _>>()
                });
                let fetched = rows::each_arrived(&mut tx, archived, CHUNK, |c| {
                    returned.try_iter().for_each(drop);
                    send.send(c).is_ok()
                });
                drop(send);
                (fetched, made.join())
            });
            fetched.map_err(sql)?;
            let made = made.unwrap_or_else(|p| std::panic::resume_unwind(p)).map_err(sql)?;
            quiet_at = super::quiet::vouchable(&mut tx, &position).map_err(sql)?;
            tx.commit().map_err(sql)?;
            made.into_iter().flatten().unzip()
        } else {
            let mut all = Vec::new();
            rows::each_visible(&mut tx, archived, CHUNK, |c| {
                all.extend(c);
                true
            })
            .map_err(sql)?;
            quiet_at = super::quiet::vouchable(&mut tx, &position).map_err(sql)?;
            tx.commit().map_err(sql)?;
            all.into_par_iter().map_init(Default::default, make).unzip()
        };
        // Written whole (while the entities are handed over), and kept for the loader that
        // follows; the files' map is in path order, which is the order `changed` wants.
        let mut now = Snapshot { generation: 0, tables: Some(tables), horizon, nodes };
        std::thread::scope(|s| {
            s.spawn(|| super::direct::hand_over(root, handed));
            snapshot::write(root, &mut now)
        })
        .map_err(err)?;
        if let Some(p) = &quiet_at {
            super::quiet::vouch(root, now.generation, p);
        }
        let files = snapshot::files(now.nodes);
        let changed = files.keys().cloned().collect();
        snapshot::publish(root, now.generation, files);
        return Ok(changed);
    };
    let entries: HashMap<&str, &snapshot::Entry, foldhash::fast::RandomState> =
        base.entries.iter().map(|e| (e.id.as_str(), e)).collect();
    let was = base.header.tables.unwrap_or_default();
    let known = base.header.tables.is_some();
    let ids: Vec<(String, u64)> = if known && was.nodes == tables.nodes {
        entries.values().map(|e| (e.id.clone(), e.version.xmin)).collect()
    } else {
        rows::xmins(&mut tx, archived).map_err(sql)?
    };
    let new_ids: Vec<String> =
        ids.iter().filter(|(id, _)| !entries.contains_key(id.as_str())).map(|(id, _)| id.clone()).collect();
    // A table unchanged since the snapshot: its per-node sets are the snapshot's, and only
    // nodes it does not have (new, or shown again) are grouped on the server.
    let sets = |tx: &mut postgres::Transaction, same: bool, part: rows::Part, of: fn(&Version) -> u64| {
        if !(known && same) {
            return rows::sets(tx, part, None);
        }
        let mut m: rows::Sets = entries.values().map(|e| (e.id.clone(), of(&e.version))).collect();
        if !new_ids.is_empty() {
            m.extend(rows::sets(tx, part, Some(&new_ids))?);
        }
        Ok(m)
    };
    let edges = sets(&mut tx, was.edges == tables.edges, rows::Part::Edges, |v| v.edges).map_err(sql)?;
    let sources = sets(&mut tx, was.sources == tables.sources, rows::Part::Sources, |v| v.sources).map_err(sql)?;
    let versions: Vec<(String, Version)> = ids
        .into_iter()
        .map(|(id, xmin)| {
            let v = Version {
                xmin,
                edges: edges.get(&id).copied().unwrap_or(0),
                sources: sources.get(&id).copied().unwrap_or(0),
            };
            (id, v)
        })
        .collect();
    let stale: Vec<String> = versions
        .iter()
        .filter(|(id, v)| entries.get(id.as_str()).is_none_or(|e| e.version != *v))
        .map(|(id, _)| id.clone())
        .collect();
    // The nodes found changed, fetched by id; each takes its version below.
    let fetched = rows::by_ids(&mut tx, &stale).map_err(sql)?;
    tx.commit().map_err(sql)?;
    let (mut rendered, handed): (snapshot::Nodes, Vec<super::direct::Handed>) =
        fetched.into_par_iter().map(|n| (n, Version::default())).map_init(Default::default, make).unzip();
    super::direct::hand_over(root, handed);
    let mut changes = Vec::new();
    let mut seen: std::collections::HashSet<&str, foldhash::fast::RandomState> = Default::default();
    for (id, v) in &versions {
        seen.insert(id.as_str());
        let Some(mut n) = rendered.remove(id) else { continue };
        n.version = *v;
        let same = entries.get(id.as_str()).is_some_and(|e| e.rel == n.rel && texts.text(e).is_ok_and(|t| t == n.text));
        changes.push(if same { snapshot::Change::Version(id.clone(), *v) } else { snapshot::Change::Put(id.clone(), n) });
    }
    // Gone from the view (or a row gone between the versions and the fetch).
    changes.extend(entries.keys().filter(|id| !seen.contains(*id)).map(|id| snapshot::Change::Remove(id.to_string())));
    let texts_now: Vec<(String, Option<String>)> = changes
        .iter()
        .flat_map(|c| match c {
            snapshot::Change::Put(id, n) => {
                let old = entries.get(id.as_str()).filter(|e| e.rel != n.rel).map(|e| (e.rel.clone(), None));
                old.into_iter().chain([(n.rel.clone(), Some(n.text.clone()))]).collect::<Vec<_>>()
            }
            snapshot::Change::Remove(id) => entries.get(id.as_str()).map(|e| (e.rel.clone(), None)).into_iter().collect(),
            snapshot::Change::Version(..) => Vec::new(),
        })
        .collect();
    let from = base.header.generation;
    match snapshot::append(root, from, changes, snapshot::Sums::Are(tables, horizon)).map_err(err)? {
        Some((generation, changed)) => {
            // What this process holds of the nodes follows, or is read again when asked for.
            if snapshot::holds(root, from) {
                snapshot::patch(root, texts_now);
                snapshot::renumber(root, generation);
            } else {
                snapshot::forget(root);
            }
            Ok(changed)
        }
        // The snapshot went from under this open: the next one reads the database again.
        None => {
            snapshot::forget(root);
            let _ = fs::remove_file(snapshot::path(root));
            Ok(texts_now.into_iter().map(|(rel, _)| rel).collect())
        }
    }
}

/// Read the database again into a snapshot found damaged only when its texts were read
/// (`snapshot::files_of`), noting why; its files.
pub fn rebuild(root: &Path, why: &str) -> Result<std::sync::Arc<crate::store::dialect::MemoryFiles>, String> {
    let marker = Marker::read(root).ok_or_else(|| format!("{}: names no database", root.display()))?;
    let at = Locator::known(&marker.database)?;
    let mut client = at.connect()?;
    snapshot::forget(root);
    sync_with(&mut client, &at, marker.archived, root, Some(why))?;
    Ok(snapshot::files_of(root))
}

/// The node files an earlier folio wrote here (a mirror folder, with its `.folio/mirror.bin`
/// and `.folio/generation`), or a decision cut short left (`staging`): their `.md` files and
/// the folders left empty are removed, and the old manifest last. The state — the journal,
/// undo records, log, review ledger under `.folio` — is kept. Only this database folder,
/// only a folder folio made (`dir_for`, with its marker), only `.md` files under the node
/// folders.
fn retire_mirror(root: &Path) -> io::Result<()> {
    let dot = root.join(".folio");
    let old = [dot.join("mirror.bin"), dot.join(GENERATION), dot.join("mirror.json")];
    let files_here = NODE_DIRS.iter().any(|d| root.join(d).is_dir());
    if !root.join(MARKER).is_file() || !(files_here || old.iter().any(|p| p.exists())) {
        return Ok(());
    }
    // A decision cut short is recovered from its journal first (on the next write): its
    // files are not touched.
    if state_dir(root).join("journal.jsonl").exists() || super::staging::under_way(root) {
        return Ok(());
    }
    let mut files = FastSet::default();
    for dir in NODE_DIRS {
        list_md(root, dir, &mut files)?;
    }
    for rel in &files {
        match fs::remove_file(root.join(rel)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    for dir in NODE_DIRS {
        remove_empty_dirs(&root.join(dir));
    }
    for p in old {
        match fs::remove_file(&p) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// `dir` and the folders under it, each removed when empty (deepest first).
fn remove_empty_dirs(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_dirs(&e.path());
            }
        }
    }
    let _ = fs::remove_dir(dir);
}

/// The snapshot's generation, or None when there is none (`Format::files_token`): a store
/// cached at the same generation holds what the snapshot holds.
pub fn generation(root: &Path) -> Option<u64> {
    snapshot::generation(root)
}

/// A small file of the folder (its marker): written only when its bytes differ.
fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    crate::store::read::fsio::write_atomic(path, bytes)
}

/// The `.md` files under `rel`, as paths relative to the root, into `found`.
fn list_md(root: &Path, rel: &str, found: &mut FastSet<String>) -> io::Result<()> {
    let entries = match fs::read_dir(root.join(rel)) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let child = format!("{rel}/{name}");
        if entry.file_type()?.is_dir() {
            list_md(root, &child, found)?;
        } else if name.ends_with(".md") {
            found.insert(child);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Pace;
    use std::time::{Duration, Instant};

    #[test]
    fn the_poller_rests_in_proportion_to_the_fingerprints_cost() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut pace = Pace::default();
        assert!(pace.ready(t0), "the first poll asks at once");
        // A large brain's query: 150 ms, then 1.35 s of rest.
        pace.took(ms(0), ms(150));
        assert!(!pace.ready(ms(900)), "asked again within nine times its cost");
        assert!(!pace.ready(ms(1499)));
        assert!(pace.ready(ms(1500)));
        // A small brain's: every poll (0.75 s apart) asks.
        pace.took(ms(2000), ms(2001));
        assert!(pace.ready(ms(2750)));
    }
}

