//! The database backend of the storage seam. A plan's node writes become one transaction:
//! each node is locked (`SELECT … FOR UPDATE`), rendered and compared with the digest folio
//! read — a node an agent changed since is a conflict and nothing is written — then updated
//! (`translate`), its edges and fact sources with it. The folder engine then journals the
//! nodes' renderings (laid down as files for the decision only, `staging`), the audit line,
//! the review ledger and the undo record, and commits the
//! transaction as its last step before its own commit (`apply_plan_committing`): a commit
//! the database refuses — a deferred trigger, a dropped connection, a restart — rolls all of
//! them back, so folio keeps no trace of a decision that did not happen. A connection lost
//! at the commit itself is settled by asking the server what became of the transaction
//! (`txid_status`). Undo is the same path run with the record's before-images, and gives
//! each node back its `updated_at` (and each edge its `created_at`) exactly.
use postgres::Transaction;
use serde_json::Value;

use super::conn::Locator;
use super::snapshot;
use super::mirror::Marker;
use super::settle::Pending;
use super::rows::{self, Node};
use super::translate::{self, Archived, Update};
use crate::store::Store;
use crate::store::dialect::FileRole;
use crate::store::model::digest;
use crate::store::read::{frontmatter, readonly};
use crate::store::write::changeset::{Applied, Write, WriteError, WriteOptions};
use crate::store::write::file_storage::{self, Uncommitted};
use crate::store::write::journal::Role;
use crate::store::write::state::State;
use crate::store::write::storage::{Plan, Storage};
use crate::store::write::undo;

pub struct PgStorage<'s> {
    store: &'s Store,
    marker: Option<Marker>,
}

impl<'s> PgStorage<'s> {
    pub fn new(store: &'s Store, marker: Option<Marker>) -> Self {
        PgStorage { store, marker }
    }

    fn locator(&self) -> Result<Locator, WriteError> {
        let m = self.marker.as_ref().ok_or_else(|| {
            WriteError::Invalid(format!(
                "{}: names no database ({} is missing); nothing was written",
                self.store.root.display(),
                super::mirror::MARKER
            ))
        })?;
        Locator::known(&m.database).map_err(WriteError::Invalid)
    }

    /// The node a write is about: the id its new text names, else the id of the file now —
    /// exactly as written, as `translate::update` reads it: the table's key takes any text
    /// (`''`, `' x '`), and one trimmed named another row or none.
    fn node_id(&self, w: &Write) -> Option<String> {
        let text = match &w.after {
            Some(b) => String::from_utf8_lossy(b).into_owned(),
            None => String::from_utf8(self.read(&w.path).ok()?).ok()?,
        };
        crate::store::dialect::yaml_fields(&text).get("id").filter(|v| !v.is_null()).map(frontmatter::scalar_text)
    }

    /// What the view shows of a node: its rendering, or nothing when it is archived and
    /// archived nodes are hidden.
    fn visible(&self, n: Option<&Node>) -> Option<String> {
        visible_in(n, self.archived())
    }

    fn archived(&self) -> bool {
        self.marker.as_ref().is_some_and(|m| m.archived)
    }
}

impl Storage for PgStorage<'_> {
    /// A node's bytes as the store holds them (`Dialect::memory_file`): a decision's own
    /// nodes as it read them from the database (`part`), else from the snapshot — one text read
    /// by its offset (`snapshot::text_at`), not the whole snapshot; one that does not check is
    /// read with all of them (`files_of`: the snapshot rebuilt from the database, with its
    /// warning), so a damaged snapshot does not stop a decision. There is no file per node.
    fn read(&self, rel: &str) -> std::io::Result<Vec<u8>> {
        let root = &self.store.root;
        match &self.marker {
            Some(_) => match self.store.dialect.memory_file(rel) {
                Some(Some(text)) => Ok(text.into_bytes()),
                // Not there (or its text did not check, and the database read again has not
                // got it either): as the snapshot says.
                _ => snapshot::text_at(root, rel).map(String::into_bytes),
            },
            None => std::fs::read(self.store.abs_path(rel)),
        }
    }

    fn apply(&self, plan: Plan, opts: &WriteOptions) -> Result<Applied, WriteError> {
        let store = self.store;
        let paths: Vec<&str> = plan.writes.iter().map(|w| w.path.as_str()).collect();
        if let Some(why) = readonly::refusal(&store.root, store.kind(), &paths, opts.read_only) {
            return Err(WriteError::ReadOnly(why));
        }
        let at = self.locator()?;
        let mut client = at.connect().map_err(WriteError::Invalid)?;
        // A decision left pending by an earlier session (its commit's fate unknown then) is
        // settled before this one is journaled.
        let state = State::for_store(&store.root, store.kind());
        super::settle::on_open(&mut client, &at, &state).map_err(WriteError::Invalid)?;
        if Pending::waiting(&state) {
            return Err(WriteError::Invalid(
                "an earlier decision's commit is not finished on the server yet; nothing was written — try again in \
                 a moment"
                    .into(),
            ));
        }
        let sql = |path: &str| {
            let at = &at;
            let path = path.to_string();
            move |e: postgres::Error| WriteError::Invalid(format!("{path}: {}; nothing was written", at.explain(&e)))
        };
        // The position (`quiet`), when the snapshot is vouched for there: asked outside the
        // transaction (an error there aborts nothing), then again as its first statement.
        let vouched = super::quiet::position(&mut client).filter(|p| super::quiet::holds(&store.root, p));
        let mut tx = client.transaction().map_err(sql("transaction"))?;
        let quiet = match &vouched {
            Some(p) => super::quiet::before_decision(&mut tx, p).map_err(sql("transaction"))?,
            None => None,
        };
        let stamp = crate::store::model::timestamp::now()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        let mut writes = Vec::new();
        let undo = plan.undoes.is_some();
        // Edges this changeset removes, with their `created_at`, kept so an undo recreates
        // each as it was (`removed_edges`); an undo reads them back.
        let ledger = removed_edges::path(store);
        let kept = if undo { removed_edges::read(&ledger) } else { Default::default() };
        let mut removed = Vec::new();
        // The snapshot this decision is worked out from: it takes the decision's nodes after
        // the commit (`snapshot::append`), their texts added, none of the others read.
        let base = snapshot::generation(&store.root).unwrap_or(0);
        // What each node write was compared with (the journal keeps it for undo), by path.
        let mut befores = file_storage::Rows::default();
        let mut changes: Vec<snapshot::Change> = Vec::new();
        let mut delta = snapshot::Delta::default();
        for w in plan.writes {
            let is_node = w.role == Role::Edit && store.dialect.role(&w.path) == FileRole::Entity;
            let Some(id) = is_node.then(|| self.node_id(&w)).flatten() else {
                writes.push(w);
                continue;
            };
            let now = rows::locked(&mut tx, &id).map_err(sql(&w.path))?;
            let shown = self.visible(now.as_ref());
            let digest_of = |t: &Option<String>| t.as_deref().map(|t| digest::of(t.as_bytes()));
            // Both views share one journal (`mirror::state_dir`): an undo may be of a decision
            // taken in the other view, whose record holds the node as that view showed it.
            let other_view = undo
                && digest_of(&shown) != w.expected
                && digest_of(&visible_in(now.as_ref(), !self.archived())) == w.expected;
            if digest_of(&shown) != w.expected && !other_view {
                return Err(WriteError::Conflict {
                    path: w.path.clone(),
                    on_disk: shown.map(String::into_bytes),
                    intended: w.after.clone(),
                    row: Some(id.clone()),
                });
            }
            // The row is as the record says; this view's node is then replaced as it shows it.
            let in_view = |path: &str| self.read(path).ok();
            let mut w = w;
            let before = if other_view { in_view(&w.path) } else { shown.map(String::into_bytes) };
            w.expected = before.as_deref().map(digest::of);
            let Some(old) = now else {
                return Err(WriteError::Invalid(format!(
                    "{}: no node `{id}` to write; folio never creates nodes",
                    w.path
                )));
            };
            let after = w.after.as_deref().map(String::from_utf8_lossy);
            let update = translate::update(&old, after.as_deref(), &plan.event, &stamp)
                .map_err(|why| WriteError::Invalid(format!("{}: {why}; nothing was written", w.path)))?;
            // A provenance folio could not read shows as `{}`: what a write would add to it,
            // no undo could see to take away.
            if let Some(why) = old.provenance_unreadable.as_deref().filter(|_| update.row) {
                return Err(WriteError::Invalid(format!(
                    "{}: node `{id}`'s provenance is JSON folio cannot read whole ({why}); nothing was written \
                     (opendray's own tools can change it)",
                    w.path
                )));
            }
            // An undo gives the row back the `updated_at` it had before the decision: a node
            // folio touched and untouched is as old as it was, and keeps its place in
            // opendray's newest-first lists.
            let restore_at = if undo { after.as_deref().and_then(updated_at_of) } else { None };
            let was = rows::stamp(&mut tx, &id).map_err(sql(&w.path))?;
            removed.extend(write_row(&mut tx, &id, &update, &old.provenance, &kept, restore_at.as_deref()).map_err(sql(&w.path))?);
            let fresh = rows::locked(&mut tx, &id).map_err(sql(&w.path))?;
            let is = rows::stamp(&mut tx, &id).map_err(sql(&w.path))?;
            delta.add(&was, &is);
            let shown = self.visible(fresh.as_ref());
            changes.retain(|c| c.id() != id);
            changes.push(match (&fresh, &shown) {
                (Some(n), Some(text)) => snapshot::Change::Put(
                    id.clone(),
                    snapshot::Node { version: is.version(), rel: n.path(), text: text.clone() },
                ),
                _ => snapshot::Change::Remove(id.clone()),
            });
            befores.insert(w.path.clone(), before);
            // The store shows the row as the database now has it (its updated_at, its history).
            match (fresh.as_ref().map(Node::path), shown) {
                (Some(p), Some(text)) if p != w.path => {
                    writes.push(Write { after: None, ..w.clone() });
                    let before = if other_view { in_view(&p) } else { None };
                    let expected = before.as_deref().map(digest::of);
                    befores.insert(p.clone(), before);
                    writes.push(Write { path: p, expected, after: Some(text.into_bytes()), role: Role::Edit });
                }
                (_, shown) => writes.push(Write { after: shown.map(String::into_bytes), ..w }),
            }
        }
        if !removed.is_empty() {
            writes.push(removed_edges::write(store, &ledger, &removed)?);
        }
        let event = plan.event;
        let written = Plan { writes, archived: plan.archived, event, undoes: plan.undoes, then: plan.then };
        let nodes: Vec<(String, Option<Vec<u8>>)> = written
            .writes
            .iter()
            .filter(|w| befores.contains_key(&w.path))
            .map(|w| (w.path.clone(), w.after.clone()))
            .collect();
        // Asked before the commit: what to look up should the connection drop during it.
        let txid: i64 = tx.query_one("SELECT txid_current()", &[]).map_err(sql("transaction"))?.get(0);
        let mut tx = Some(tx);
        let mut commit = |changeset: &str| {
            let Some(tx) = tx.take() else { return Ok(()) };
            // Should folio stop between the server's commit and the journal's, the next
            // open finds which transaction to ask about (`settle`).
            Pending { txid, changeset: changeset.to_string() }
                .write(&state)
                .map_err(|err| Uncommitted::Refused(WriteError::Io { path: "folio pending commit".into(), err }))?;
            let done = tx.commit().or_else(|e| settle(&at, txid, &e));
            match &done {
                Ok(()) => crate::store::write::failpoint::step("database commit"),
                Err(Uncommitted::Refused(_)) => Pending::clear(&state),
                // The marker stays: the next open asks the server (`settle::on_open`).
                Err(Uncommitted::Unknown(_)) => {}
            }
            done
        };
        // While the decision runs, this process's reads see its nodes as written (the review
        // ledger records the approved text); put back should it not stand.
        let shown = show_written(&store.root, &nodes);
        let _writing = super::writing::begin(
            &store.root,
            nodes.iter().map(|(rel, after)| (rel.clone(), after.as_deref().map(|b| String::from_utf8_lossy(b).into_owned()))),
        );
        let applied = file_storage::apply_rows_committing(store, written, opts, &mut commit, &befores);
        // Ended (committed, or rolled back here): the connection may ask again (`after_decision`).
        drop(tx);
        if applied.is_err() {
            snapshot::patch(&store.root, shown.into_iter().rev().collect());
        } else {
            Pending::clear(&state);
            // The snapshot takes the nodes as the database now has them; should this fail,
            // the next open reads them again (the tables' sums no longer match).
            match snapshot::append(&store.root, base, changes, snapshot::Sums::Moved(delta)) {
                Ok(Some((generation, _))) => {
                    snapshot::renumber(&store.root, generation);
                    // Nothing but this decision wrote since the vouched snapshot: the next
                    // open need not ask for the tables' sums.
                    if let Some(at) = quiet.and_then(|q| super::quiet::after_decision(&mut client, q, txid)) {
                        super::quiet::vouch(&store.root, generation, &at);
                    }
                }
                _ => snapshot::forget(&store.root),
            }
        }
        applied
    }

    fn undo(&self, by: &str, opts: &WriteOptions) -> Result<Applied, WriteError> {
        let state = State::for_store(&self.store.root, self.store.kind());
        let Some(record) = undo::records(&state).pop() else { return Err(WriteError::NothingToUndo) };
        let mut plan = file_storage::undo_plan(self.store, &state, &record, by)?;
        plan.event.at = opts.at;
        self.apply(plan, opts)
    }
}

/// After a commit that failed: Ok when the database did take the transaction after all
/// (the connection dropped after the server committed), else the one line saying nothing
/// was written. A refusal from the server itself (a trigger, a constraint) is final; a lost
/// connection is settled by asking a new one about the transaction.
fn settle(at: &Locator, txid: i64, e: &postgres::Error) -> Result<(), Uncommitted> {
    let refused = |why: String| {
        Uncommitted::Refused(WriteError::Invalid(format!(
            "the database refused the commit ({why}); nothing was written: the rows are as they were and folio \
             recorded nothing"
        )))
    };
    // An error the server sent while the session lives (a trigger, a constraint) is its
    // verdict; a FATAL one ends the session, as a lost connection does.
    let fatal = e.as_db_error().is_some_and(|d| matches!(d.severity(), "FATAL" | "PANIC"));
    if e.as_db_error().is_some() && !fatal {
        return Err(refused(at.explain(e)));
    }
    let status = at.connect().and_then(|mut c| super::settle::status(&mut c, at, txid));
    match status {
        Ok(Some(s)) if s == "committed" => Ok(()),
        Ok(Some(s)) if s == "in progress" => Err(Uncommitted::Unknown(WriteError::Invalid(format!(
            "the connection was lost at the commit ({}) and the server has not finished the transaction yet; \
             folio keeps the decision pending and settles it with the database on the next open",
            at.explain(e)
        )))),
        Ok(_) => Err(refused(format!("{}; the server rolled the transaction back", at.explain(e)))),
        Err(why) => Err(Uncommitted::Unknown(WriteError::Invalid(format!(
            "the connection was lost at the commit ({}) and the database could not be asked whether it took the \
             decision ({why}); folio keeps the decision pending and settles it with the database on the next open \
             (recorded if the database took it, dropped if not)",
            at.explain(e)
        )))),
    }
}

/// While a decision runs, this process's loader and reads see its nodes as written (as a
/// folder store's readers see the files the engine swapped in). Gives back what they were.
fn show_written(root: &std::path::Path, nodes: &[(String, Option<Vec<u8>>)]) -> Vec<(String, Option<String>)> {
    let changes = nodes
        .iter()
        .map(|(rel, after)| (rel.clone(), after.as_deref().map(|b| String::from_utf8_lossy(b).into_owned())))
        .collect();
    snapshot::patch(root, changes)
}

/// The `updated_at` a node's text names.
fn updated_at_of(text: &str) -> Option<String> {
    frontmatter::get_str(&crate::store::dialect::yaml_fields(text), "updated_at")
}

/// A node as a view shows it: its rendering, or nothing when it is archived and the view
/// hides archived nodes.
fn visible_in(n: Option<&Node>, archived: bool) -> Option<String> {
    n.filter(|n| archived || n.archived_at.is_none()).map(Node::render)
}

/// Write one node's update: its row (when its columns change), then its edges and fact
/// sources. The edges it removes come back with their `created_at`; an edge `kept` names (an
/// undo's, removed earlier by folio) is recreated with the `created_at` it had.
fn write_row(
    tx: &mut Transaction,
    id: &str,
    u: &Update,
    old_provenance: &Value,
    kept: &removed_edges::Kept,
    restore_at: Option<&str>,
) -> Result<Vec<removed_edges::Edge>, postgres::Error> {
    if u.row {
        update_columns(tx, id, u, old_provenance, restore_at)?;
    }
    let mut removed = Vec::new();
    for (t, dst) in &u.del_edges {
        let rows = tx.query(
            "DELETE FROM knowledge_edges WHERE src_id = $1 AND edge_type = $2 AND dst_id = $3 \
             RETURNING created_at",
            &[&id, t, dst],
        )?;
        for r in rows {
            let created_at = r.try_get::<_, super::timestamp::UtcText>(0)?.0;
            removed.push(removed_edges::Edge { src: id.into(), kind: t.clone(), dst: dst.clone(), created_at });
        }
    }
    // Self-edges are skipped (the table forbids them); an edge already there is kept as it is.
    for (t, dst) in u.add_edges.iter().filter(|(_, d)| d != id) {
        match kept.get(&(id.to_string(), t.clone(), dst.clone())) {
            Some(at) => tx.execute(
                "INSERT INTO knowledge_edges (src_id, edge_type, dst_id, created_at) \
                 VALUES ($1, $2, $3, $4::text::timestamptz) ON CONFLICT DO NOTHING",
                &[&id, t, dst, at],
            )?,
            None => tx.execute(
                "INSERT INTO knowledge_edges (src_id, edge_type, dst_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                &[&id, t, dst],
            )?,
        };
    }
    for m in &u.del_sources {
        tx.execute("DELETE FROM knowledge_fact_sources WHERE node_id = $1 AND memory_id = $2", &[&id, m])?;
    }
    for m in &u.add_sources {
        tx.execute(
            "INSERT INTO knowledge_fact_sources (node_id, memory_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&id, m],
        )?;
    }
    Ok(removed)
}

/// The row's columns; `updated_at` is `now()`, or `restore_at` (an undo's).
fn update_columns(
    tx: &mut Transaction,
    id: &str,
    u: &Update,
    old_provenance: &Value,
    restore_at: Option<&str>,
) -> Result<(), postgres::Error> {
    let (mode, at): (i32, Option<&str>) = match &u.archived {
        Archived::Keep => (0, None),
        Archived::Clear => (1, None),
        Archived::Now => (2, None),
        Archived::At(t) => (3, Some(t.as_str())),
    };
    // The provenance as a patch of the keys the update changes: every other key stays as the
    // server holds it (`translate::provenance_patch`); one that is not an object is replaced.
    let whole = u.provenance.to_string();
    let patch = translate::provenance_patch(old_provenance, &u.provenance);
    let set = Value::Object(patch.set).to_string();
    let appended = patch.appended.map(|a| Value::Array(a).to_string());
    tx.execute(
        "UPDATE knowledge_nodes SET kind = $2, entity_type = $3, title = $4, body = $5, scope = $6, \
         scope_key = $7, maturity = $8, confidence = $9::float8, enabled = $10, \
         provenance = CASE WHEN jsonb_typeof(provenance) = 'object' THEN \
                        ((provenance - $15::text[]) || $16::text::jsonb) || CASE WHEN $17::text IS NULL THEN '{}'::jsonb \
                          ELSE jsonb_build_object('folio_history', CASE WHEN jsonb_typeof(provenance->'folio_history') = 'array' \
                            THEN provenance->'folio_history' ELSE '[]'::jsonb END || $17::text::jsonb) END \
                      ELSE $11::text::jsonb END, \
         archived_at = CASE $12::int4 WHEN 0 THEN archived_at WHEN 1 THEN NULL WHEN 2 THEN now() \
                       ELSE $13::text::timestamptz END, \
         updated_at = coalesce($14::text::timestamptz, now()) WHERE id = $1",
        &[
            &id,
            &u.kind,
            &u.entity_type,
            &u.title,
            &u.body,
            &u.scope,
            &u.scope_key,
            &u.maturity,
            &u.confidence,
            &u.enabled,
            &whole,
            &mode,
            &at,
            &restore_at,
            &patch.removed,
            &set,
            &appended,
        ],
    )?;
    Ok(())
}

/// The edges folio removed, with the `created_at` each had: `removed-edges.jsonl` in the
/// database's state folder, one JSON line per edge, written in the changeset that removed it
/// (journaled with it; an undo does not take lines back). An undo recreating an edge takes
/// the newest line naming it, so the edge comes back as it was, not as a new one.
mod removed_edges {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Serialize};

    use crate::store::Store;
    use crate::store::model::digest;
    use crate::store::write::changeset::{Write, WriteError};
    use crate::store::write::journal::Role;
    use crate::store::write::state::State;

    #[derive(Debug, Clone, Serialize, Deserialize)]
    pub struct Edge {
        pub src: String,
        pub kind: String,
        pub dst: String,
        pub created_at: String,
    }

    /// `(src, type, dst)` → its `created_at`.
    pub type Kept = HashMap<(String, String, String), String>;

    pub fn path(store: &Store) -> PathBuf {
        State::for_store(&store.root, store.kind()).dir.join("removed-edges.jsonl")
    }

    /// Every edge the file names, the newest line winning.
    pub fn read(path: &Path) -> Kept {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Edge>(l).ok())
            .map(|e| ((e.src, e.kind, e.dst), e.created_at))
            .collect()
    }

    /// The write that adds `edges` to the file.
    pub fn write(store: &Store, path: &Path, edges: &[Edge]) -> Result<Write, WriteError> {
        let old = std::fs::read(path).ok();
        let mut after = old.clone().unwrap_or_default();
        for e in edges {
            let line = serde_json::to_string(e).map_err(|err| WriteError::Invalid(err.to_string()))?;
            after.extend_from_slice(line.as_bytes());
            after.push(b'\n');
        }
        Ok(Write {
            path: crate::store::model::relpath::from_root(&store.root, path),
            expected: old.as_deref().map(digest::of),
            after: Some(after),
            role: Role::Ledger,
        })
    }
}
