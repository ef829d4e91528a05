//! The folder folio reads a database through: each visible node rendered as an export file
//! (`rows::Node::render`) in folio's own state folder, refreshed from the database on every
//! open. Everything that reads a store (lint, show, recall, graph, the TUI) reads it as it
//! reads a folder; every write goes to the database first (`storage`), then here. It holds
//! no password: its marker names the database by its redacted string.
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use postgres::Client;
use serde_json::json;

use super::conn::Locator;
use super::rows::Version;
use super::{manifest, rows};
use crate::store::dialect::opendray::NODE_DIRS;

/// The mirror's marker: which database (redacted) and whether archived nodes are shown.
pub const MARKER: &str = "opendray-database.json";

/// What the folder last took (`manifest`), under its `.folio` folder.
const MANIFEST: &str = "mirror.bin";

/// Which state the mirror's files are in (`generation`), under its `.folio` folder.
const GENERATION: &str = "generation";

/// foldhash: the keys are the mirror's own paths, 100k of them on every open.
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

/// Read every visible node of the database into its mirror folder; the folder's root.
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

/// The live-reload call for a mirror folder (`Format::poll_source`). Where the brain
/// announces its writes (`listens`), a poll only takes the notifications already in —
/// no query at all while nothing is written — and re-reads the database when one came;
/// elsewhere it re-reads when the tables' fingerprint changed. Errors (the server
/// restarting) wait for the next poll; the connection is made again then, and the first
/// poll on it re-reads (a change meanwhile is not missed).
pub fn poller(root: &Path) -> Option<Box<dyn FnMut() + Send>> {
    let marker = Marker::read(root)?;
    let root = root.to_path_buf();
    let mut client: Option<Client> = None;
    let mut listening = false;
    let mut synced = false;
    let mut last: Option<String> = None;
    // After a failed connect, a pause: a server that never answers holds each attempt for
    // the whole connect limit (and its thread until the server lets go).
    let mut quiet_until: Option<std::time::Instant> = None;
    Some(Box::new(move || {
        let Ok(at) = Locator::known(&marker.database) else { return };
        if client.as_ref().is_none_or(|c| c.is_closed()) {
            if quiet_until.is_some_and(|t| std::time::Instant::now() < t) {
                return;
            }
            client = at.connect().ok();
            quiet_until = client.is_none().then(|| std::time::Instant::now() + std::time::Duration::from_secs(10));
            listening = client.as_mut().is_some_and(listens);
            (synced, last) = (false, None);
        }
        let Some(c) = client.as_mut() else { return };
        if listening {
            use postgres::fallible_iterator::FallibleIterator;
            // A short wait, not `iter()`: the client's runtime reads the socket only while it
            // waits, and a non-blocking look can miss a notification already sent.
            let heard = c.notifications().timeout_iter(std::time::Duration::from_millis(20)).count();
            match heard {
                Err(_) => client = None,
                Ok(0) if synced => {}
                Ok(_) => synced = sync_into(c, &at, marker.archived, &root).is_ok(),
            }
            return;
        }
        let Ok(now) = fingerprint(c) else {
            client = None;
            return;
        };
        // The first poll syncs too: a change between the open and it is not missed.
        if last.as_ref() != Some(&now) && sync_into(c, &at, marker.archived, &root).is_ok() {
            last = Some(now);
        }
    }))
}

/// Bring the folder up to the database. When the tables' sums (`rows::tables`) are the ones
/// the manifest says the folder took and every file it names is there, nothing is read but
/// those sums. Otherwise only nodes whose version (`rows::Version`) differs from the
/// manifest's, or whose file is not there, are fetched and rendered — a table whose sum did
/// not change keeps its per-node part from the manifest instead of being grouped again —
/// and files of nodes no longer visible (and strays a torn sync left) are removed. One
/// read-only snapshot, no lock on anyone's rows. Nothing is written when nothing changed.
fn sync_into(client: &mut Client, at: &Locator, archived: bool, root: &Path) -> Result<(), String> {
    let sql = |e: postgres::Error| at.explain(&e);
    let err = |e: io::Error| format!("{}: {e}", root.display());
    fs::create_dir_all(root).map_err(err)?;
    let marker = json!({"database": at.redacted, "archived": archived});
    if fs::read(root.join(MARKER)).ok().as_deref() != Some(marker.to_string().as_bytes()) {
        let _changing = Changing::begin(root).map_err(err)?;
        write_if_changed(&root.join(MARKER), marker.to_string().as_bytes()).map_err(err)?;
    }
    // The JSON manifest of earlier builds is not read any more: the binary one replaced it.
    let _ = fs::remove_file(root.join(".folio").join("mirror.json"));
    let manifest_path = root.join(".folio").join(MANIFEST);
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .start()
        .map_err(sql)?;
    // While the server sums, the manifest is read and the node folders listed (names only,
    // no stat per file): which files are there.
    let (tables, local) = std::thread::scope(|s| {
        let local = s.spawn(|| {
            let mut present = FastSet::default();
            NODE_DIRS
                .iter()
                .try_for_each(|dir| list_md(root, dir, &mut present))
                .map(|()| (manifest::read(&manifest_path), present))
        });
        (rows::tables(&mut tx), local.join())
    });
    let tables = tables.map_err(sql)?;
    let (taken, present) =
        local.map_err(|_| format!("{}: listing the mirror folder failed", root.display()))?.map_err(err)?;
    let all_there = present.len() == taken.nodes.len() && taken.nodes.values().all(|(_, rel)| present.contains(rel));
    if taken.tables == Some(tables) && all_there {
        tx.commit().map_err(sql)?;
        // A folder synced before generations were kept gets its first one.
        Changing::first(root);
        return Ok(());
    }
    let was = taken.tables.unwrap_or_default();
    let known = taken.tables.is_some();
    let ids: Vec<(String, u64)> = if known && was.nodes == tables.nodes {
        taken.nodes.iter().map(|(id, (v, _))| (id.clone(), v.xmin)).collect()
    } else {
        rows::xmins(&mut tx, archived).map_err(sql)?
    };
    let new_ids: Vec<String> =
        ids.iter().filter(|(id, _)| !taken.nodes.contains_key(id)).map(|(id, _)| id.clone()).collect();
    // A table unchanged since the manifest: its per-node sets are the manifest's, and only
    // nodes the manifest does not have (new, or shown again) are grouped on the server.
    let sets = |tx: &mut postgres::Transaction, same: bool, part: rows::Part, of: fn(&Version) -> u64| {
        if !(known && same) {
            return rows::sets(tx, part, None);
        }
        let mut m: rows::Sets = taken.nodes.iter().map(|(id, (v, _))| (id.clone(), of(v))).collect();
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
        .filter(|(id, v)| taken.nodes.get(id).is_none_or(|(was, rel)| was != v || !present.contains(rel)))
        .map(|(id, _)| id.clone())
        .collect();
    let nodes = rows::by_ids(&mut tx, &stale).map_err(sql)?;
    tx.commit().map_err(sql)?;
    // No node to write and as many files as nodes, each there: no file changes.
    let changes = !stale.is_empty() || present.len() != versions.len() || taken.nodes.len() != versions.len();
    let _changing = changes.then(|| Changing::begin(root)).transpose().map_err(err)?;
    // Rendering and writing each file is most of a first sync: in parallel.
    use rayon::prelude::*;
    let written: HashMap<String, String> = nodes
        .par_iter()
        .map(|n| {
            let rel = n.path();
            write_if_changed(&root.join(&rel), n.render().as_bytes()).map(|()| (n.id.clone(), rel))
        })
        .collect::<io::Result<_>>()
        .map_err(err)?;
    let mut now = manifest::Nodes::with_capacity_and_hasher(versions.len(), Default::default());
    for (id, v) in versions {
        let rel = written.get(&id).or_else(|| taken.nodes.get(&id).map(|(_, rel)| rel));
        if let Some(rel) = rel.cloned() {
            now.insert(id, (v, rel));
        }
    }
    if !stale.is_empty() || present.len() != now.len() {
        let keep: FastSet<&str> = now.values().map(|(_, rel)| rel.as_str()).collect();
        for rel in present.iter().filter(|rel| !keep.contains(rel.as_str())) {
            match fs::remove_file(root.join(rel)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(err(e)),
                _ => {}
            }
        }
    }
    // Written last: a sync cut short leaves the old sums, so the next one compares again.
    let now = manifest::Taken { tables: Some(tables), nodes: now };
    if now != taken {
        manifest::write(&manifest_path, &now).map_err(err)?;
    }
    Ok(())
}

/// The mirror's generation: a number that changes whenever its files may have changed, so
/// the store cache can trust a snapshot taken at the same generation without a stat per
/// file (`Format::files_token`). None while a writer is changing them (`Changing`), or when
/// one was cut short: then the files are checked one by one.
pub fn generation(root: &Path) -> Option<u64> {
    fs::read_to_string(root.join(".folio").join(GENERATION)).ok()?.trim().parse().ok()
}

/// Held while the mirror's files change: the generation reads as changing from `begin` on,
/// and as a new number once this is dropped (also on an error or a panic: the files are as
/// they are then, and a new number makes every cached snapshot check them).
pub struct Changing(PathBuf);

impl Changing {
    pub fn begin(root: &Path) -> io::Result<Changing> {
        let path = root.join(".folio").join(GENERATION);
        crate::store::read::fsio::write_atomic(&path, b"changing\n")?;
        Ok(Changing(path))
    }

    /// A first generation where there is none at all (never where a writer left "changing":
    /// it may be changing the files now, or have stopped halfway). Created, never replaced;
    /// a torn one reads as none.
    fn first(root: &Path) {
        use std::io::Write;
        let path = root.join(".folio").join(GENERATION);
        if let Ok(mut f) = fs::OpenOptions::new().write(true).create_new(true).open(path) {
            let _ = f.write_all(fresh().as_bytes());
        }
    }
}

/// A new generation: unique enough across processes (the clock's nanoseconds mixed with the
/// process id).
fn fresh() -> String {
    let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    format!("{}\n", ns ^ u64::from(std::process::id()).rotate_left(40))
}

impl Drop for Changing {
    fn drop(&mut self) {
        // A generation that cannot be written stays "changing": the files are then checked.
        let _ = crate::store::read::fsio::write_atomic(&self.0, fresh().as_bytes());
    }
}

/// A cache file: written plainly (the database is the truth; a torn file is rewritten on the
/// next open), and only when its bytes differ.
fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(path, bytes)
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
