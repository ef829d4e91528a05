//! The folder folio reads a database through: each visible node rendered as an export file
//! (`rows::Node::render`) in folio's own state folder, refreshed from the database on every
//! open. Everything that reads a store (lint, show, recall, graph, the TUI) reads it as it
//! reads a folder; every write goes to the database first (`storage`), then here. It holds
//! no password: its marker names the database by its redacted string.
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use postgres::Client;
use serde_json::json;

use super::conn::Locator;
use super::rows;
use crate::store::dialect::opendray::NODE_DIRS;

/// The mirror's marker: which database (redacted) and whether archived nodes are shown.
pub const MARKER: &str = "opendray-database.json";

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
/// nodes) under folio's per-user state folder, named by a digest of the redacted string.
pub fn dir_for(redacted: &str, archived: bool) -> Result<PathBuf, String> {
    let base = crate::store::keep::personal::base_from_env().ok_or_else(|| {
        "no folder for folio's state (set FOLIO_STATE_DIR, XDG_STATE_HOME or HOME) to read a database through"
            .to_string()
    })?;
    let d = crate::store::model::digest::of(redacted.as_bytes());
    let db: String =
        redacted.rsplit('/').next().unwrap_or("db").chars().filter(|c| c.is_ascii_alphanumeric()).take(24).collect();
    let view = if archived { "-archived" } else { "" };
    Ok(base.join("databases").join(format!("{db}-{}{view}", &crate::store::model::digest::hex(&d)[..20])))
}

/// Read every visible node of the database into its mirror folder; the folder's root.
pub fn sync(at: &Locator, archived: bool) -> Result<PathBuf, String> {
    let mut client = at.connect()?;
    super::schema::check(&mut client, at)?;
    let root = dir_for(&at.redacted, archived)?;
    sync_into(&mut client, at, archived, &root)?;
    Ok(root)
}

/// What changes whenever a node, edge or fact source is written, added or removed: the
/// row counts and the newest `updated_at`/`archived_at`/edge time (one cheap query).
fn fingerprint(c: &mut Client) -> Result<String, postgres::Error> {
    let r = c.query_one(
        "SELECT (SELECT count(*) || ' ' || coalesce(max(greatest(updated_at, archived_at))::text, '') \
                   FROM knowledge_nodes) || ' ' || \
                (SELECT count(*) || ' ' || coalesce(max(created_at)::text, '') FROM knowledge_edges) || ' ' || \
                (SELECT count(*) FROM knowledge_fact_sources)",
        &[],
    )?;
    Ok(r.get(0))
}

/// The live-reload call for a mirror folder (`Format::poll_source`): re-read the database
/// into it when its fingerprint changed. Errors (the server restarting) wait for the next
/// poll; the connection is made again then.
pub fn poller(root: &Path) -> Option<Box<dyn FnMut() + Send>> {
    let marker = Marker::read(root)?;
    let root = root.to_path_buf();
    let mut client: Option<Client> = None;
    let mut last: Option<String> = None;
    Some(Box::new(move || {
        let Ok(at) = Locator::known(&marker.database) else { return };
        if client.as_ref().is_none_or(|c| c.is_closed()) {
            client = at.connect().ok();
        }
        let Some(c) = client.as_mut() else { return };
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

/// Bring the folder up to the database: only nodes whose version (`rows::versions`) differs
/// from the one the folder last took, or whose file is gone, are fetched and rendered; files
/// of nodes no longer visible are removed. One read-only snapshot, no lock on anyone's rows.
fn sync_into(client: &mut Client, at: &Locator, archived: bool, root: &Path) -> Result<(), String> {
    let sql = |e: postgres::Error| at.explain(&e);
    let err = |e: io::Error| format!("{}: {e}", root.display());
    fs::create_dir_all(root).map_err(err)?;
    let marker = json!({"database": at.redacted, "archived": archived});
    write_if_changed(&root.join(MARKER), marker.to_string().as_bytes()).map_err(err)?;
    let manifest_path = root.join(".folio").join("mirror.json");
    let taken: HashMap<String, (String, String)> =
        fs::read(&manifest_path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .start()
        .map_err(sql)?;
    let versions = rows::versions(&mut tx, archived).map_err(sql)?;
    let stale: Vec<String> = versions
        .iter()
        .filter(|(id, v)| taken.get(id).is_none_or(|(was, rel)| was != v || !root.join(rel).is_file()))
        .map(|(id, _)| id.clone())
        .collect();
    let nodes = rows::by_ids(&mut tx, &stale).map_err(sql)?;
    tx.commit().map_err(sql)?;
    // Rendering and writing each file is most of a sync: in parallel.
    use rayon::prelude::*;
    let written: HashMap<String, String> = nodes
        .par_iter()
        .map(|n| {
            let rel = n.path();
            write_if_changed(&root.join(&rel), n.render().as_bytes()).map(|()| (n.id.clone(), rel))
        })
        .collect::<io::Result<_>>()
        .map_err(err)?;
    let mut now: HashMap<String, (String, String)> = HashMap::with_capacity(versions.len());
    for (id, v) in versions {
        let rel = written.get(&id).or_else(|| taken.get(&id).map(|(_, rel)| rel));
        if let Some(rel) = rel.cloned() {
            now.insert(id, (v, rel));
        }
    }
    let keep: HashSet<String> = now.values().map(|(_, rel)| rel.clone()).collect();
    for dir in NODE_DIRS {
        remove_others(root, dir, &keep).map_err(err)?;
    }
    let manifest = serde_json::to_vec(&now).map_err(|e| e.to_string())?;
    if let Some(dir) = manifest_path.parent() {
        fs::create_dir_all(dir).map_err(err)?;
    }
    fs::write(&manifest_path, manifest).map_err(err)
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

/// Remove the `.md` files under `rel` that are no longer a visible node.
fn remove_others(root: &Path, rel: &str, keep: &HashSet<String>) -> io::Result<()> {
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
            remove_others(root, &child, keep)?;
        } else if name.ends_with(".md") && !keep.contains(&child) {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}
