//! The undo records: what each finished changeset replaced, filed by the journal when it
//! commits, so `undo` can put the before-images back.
use std::collections::HashSet;
use std::fs;
use std::io;

use serde::{Deserialize, Serialize};

use super::{Entry, Intent, Role};
use crate::store::write::{fs_ops, state::State};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    pub verb: String,
    pub summary: String,
    pub by: String,
    pub entries: Vec<Entry>,
    /// The store's log as the changeset found and left it (its before and after images): an
    /// undo in a format with no undo event of its own takes the changeset's lines back out of
    /// it (`Format::append_event` with `AuditEvent::undone_log`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<Entry>,
}

/// File the undo record of a finished changeset (an undo instead consumes the one it reverts).
pub fn file_record(state: &State, intent: &Intent) -> io::Result<()> {
    let dir = state.undo_dir();
    if let Some(undone) = &intent.undoes {
        // Left behind, the record would offer to undo the same change twice: a failure here
        // keeps the committed journal, and the next command files the undo again.
        match fs_ops::remove_file(&dir.join(format!("{undone}.json"))) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
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
            log: intent.entries.iter().find(|e| e.role == Role::Log && intent.keep_log).cloned(),
        };
        fs_ops::write_atomic(
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
            let _ = fs_ops::remove_file(&state.undo_dir().join(format!("{}.json", old.id)));
        }
    }
    if state.journal_path().exists() {
        return;
    }
    let keep: HashSet<String> = all
        .iter()
        .flat_map(|r| r.entries.iter().chain(&r.log))
        .flat_map(|e| [e.before.clone(), e.after.clone()])
        .flatten()
        .collect();
    state.collect_garbage(&keep);
}
