//! Undo: the before- and after-images of every applied changeset are kept (as objects in the
//! folio state, a bounded number of records); undo reverts the newest one when its files still
//! hold what folio wrote, and reports a conflict otherwise. Regenerated catalogs are part of a
//! record (undo puts their old bytes back); the audit log is not: undo appends its own event.
//! Review verdicts the reverted changeset carried are dropped from the review ledger, so its
//! items return to the queue whichever face (`folio undo`, `folio review undo`, the TUI) undid it.
//! The ledger is rewritten in the same journaled changeset as the restored files: a crash leaves
//! both reverted or neither. Folders the changeset created for new files are removed with them
//! when they are empty.
use std::collections::HashSet;
use std::fs;
use std::io;

use serde::{Deserialize, Serialize};

use super::audit::AuditEvent;
use super::changeset::{self, Applied, Write, WriteError, WriteOptions};
use super::file_storage::FileStorage;
use super::journal::{Entry, Intent, Role};
use super::state::State;
use super::storage::{Plan, Storage};
use crate::store::Store;
use crate::store::review::ledger;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    pub verb: String,
    pub summary: String,
    pub by: String,
    pub entries: Vec<Entry>,
}

/// File the undo record of a finished changeset (an undo instead consumes the one it reverts).
pub fn file_record(state: &State, intent: &Intent) -> io::Result<()> {
    let dir = state.undo_dir();
    if let Some(undone) = &intent.undoes {
        let _ = fs::remove_file(dir.join(format!("{undone}.json")));
    } else {
        // A log-only changeset (an evolve or vault approval) is filed too: undoing it reverts no
        // file but takes its verdict back, instead of silently undoing an older change.
        let entries: Vec<Entry> =
            intent.entries.iter().filter(|e| !matches!(e.role, Role::Log | Role::Ledger)).cloned().collect();
        let record = Record {
            id: intent.id.clone(),
            verb: intent.verb.clone(),
            summary: intent.summary.clone(),
            by: intent.by.clone(),
            entries,
        };
        crate::store::read::fsio::write_atomic(
            &dir.join(format!("{}.json", record.id)),
            serde_json::to_string_pretty(&record)?.as_bytes(),
        )?;
    }
    trim(state);
    Ok(())
}

/// Every kept record, oldest first.
pub fn records(state: &State) -> Vec<Record> {
    let Ok(entries) = fs::read_dir(state.undo_dir()) else { return Vec::new() };
    let mut out: Vec<Record> = entries
        .flatten()
        .filter_map(|e| fs::read(e.path()).ok())
        .filter_map(|b| serde_json::from_slice(&b).ok())
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// Keep the newest `undo_depth` records and only the objects they (or a live journal) need.
fn trim(state: &State) {
    let mut all = records(state);
    let depth = state.undo_depth();
    if all.len() > depth {
        for old in all.drain(..all.len() - depth) {
            let _ = fs::remove_file(state.undo_dir().join(format!("{}.json", old.id)));
        }
    }
    if state.journal_path().exists() {
        return;
    }
    let keep: HashSet<String> =
        all.iter().flat_map(|r| &r.entries).flat_map(|e| [e.before.clone(), e.after.clone()]).flatten().collect();
    state.collect_garbage(&keep);
}

/// Revert the newest applied changeset (byte-exact) and forget the review verdicts it carried.
pub fn undo(store: &Store, by: &str, opts: &WriteOptions) -> Result<Applied, WriteError> {
    store.storage().undo(by, opts)
}

/// `undo` for a folder store: the record's before-images become the writes of a new plan.
pub(super) fn undo_in_folder(
    storage: &FileStorage,
    store: &Store,
    by: &str,
    opts: &WriteOptions,
) -> Result<Applied, WriteError> {
    let state = State::for_store(&store.root, store.kind());
    let Some(record) = records(&state).pop() else { return Err(WriteError::NothingToUndo) };
    let mut writes = Vec::new();
    for e in record.entries.iter().rev() {
        let before = match &e.before {
            Some(d) => Some(state.object(d).map_err(|err| WriteError::Io { path: e.path.clone(), err })?),
            None => None,
        };
        writes.push(Write { path: e.path.clone(), expected: e.after.clone(), after: before, role: e.role });
    }
    // After the files, so a crash between them rolls the files back with the ledger untouched.
    let ledger = ledger::without_changeset(store, &record.id)
        .map_err(|err| WriteError::Io { path: "folio review ledger (nothing was written)".into(), err })?;
    if let Some(l) = ledger {
        let path = changeset::relative_to(&store.root, &l.path);
        writes.push(Write { path, expected: Some(l.expected), after: Some(l.bytes), role: Role::Ledger });
    }
    let event = AuditEvent::new("undo", by, format!("undid {}: {}", record.verb, record.summary))
        .detail("undoes", record.id.clone());
    let plan = Plan { writes, archived: Vec::new(), event, undoes: Some(record.id.clone()) };
    let applied = storage.apply(plan, opts)?;
    // The files the changeset created are gone again; so go the folders it made for them
    // (only those, and only when empty: a file someone put there since keeps its folder).
    for e in record.entries.iter().rev().filter(|e| e.before.is_none()) {
        e.remove_created_dirs(&store.root);
    }
    Ok(applied)
}

/// What `undo` would do: the record it reverts and a diff from the files now to their
/// before-images.
pub fn preview(store: &Store) -> Result<(Record, String), WriteError> {
    let state = State::for_store(&store.root, store.kind());
    let Some(record) = records(&state).pop() else { return Err(WriteError::NothingToUndo) };
    let mut diff = String::new();
    for e in &record.entries {
        let now = store.storage().read(&e.path).unwrap_or_default();
        let before = match &e.before {
            Some(d) => state.object(d).map_err(|err| WriteError::Io { path: e.path.clone(), err })?,
            None => Vec::new(),
        };
        let a = if e.after.is_some() { format!("a/{}", e.path) } else { "/dev/null".into() };
        let b = if e.before.is_some() { format!("b/{}", e.path) } else { "/dev/null".into() };
        diff += &changeset::unified_diff(&String::from_utf8_lossy(&now), &String::from_utf8_lossy(&before), &a, &b);
    }
    Ok((record, diff))
}
