//! Undo: the before- and after-images of every applied changeset are kept (as objects in the
//! folio state, a bounded number of records); undo reverts the newest one when its files still
//! hold what folio wrote, and reports a conflict otherwise. Regenerated catalogs are part of a
//! record (undo puts their old bytes back); the audit log is not: undo appends its own event.
//! Review verdicts the reverted changeset carried are dropped from the review ledger, so its
//! items return to the queue whichever face (`folio undo`, `folio review undo`, the TUI) undid it.
//! The ledger is rewritten in the same journaled changeset as the restored files: a crash leaves
//! both reverted or neither. Folders the changeset created for new files are removed with them
//! when they are empty.
use super::changeset::{self, Applied, WriteError, WriteOptions};
use super::journal::Role;
pub use super::journal::records::{Record, file_record, records};
use super::preview::Preview;
use super::state::State;
use crate::store::Store;

/// Revert the newest applied changeset (byte-exact) and forget the review verdicts it carried.
pub fn undo(store: &Store, by: &str, opts: &WriteOptions) -> Result<Applied, WriteError> {
    store.storage().undo(by, opts)
}

/// What an undo of the newest changeset of the store at `root` reads of its entities: the
/// paths it restores and the entities whose verdicts it carried (the review ledger names them,
/// as `file_storage::undo_plan` finds them), for a store opened on those alone
/// (`Store::open_part`). Empty when there is nothing to undo.
pub fn entities_read(root: &std::path::Path, kind: crate::store::dialect::DialectKind) -> Vec<String> {
    let state = State::for_store(root, kind);
    let Some(record) = records(&state).pop() else { return Vec::new() };
    let mut names: Vec<String> =
        record.entries.iter().filter(|e| e.role == Role::Edit).map(|e| e.path.clone()).collect();
    names.extend(
        std::fs::read_to_string(state.verdicts_path())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v.get("changeset").and_then(|c| c.as_str()) == Some(record.id.as_str()))
            .filter_map(|v| v.get("entity").and_then(|e| e.as_str()).map(str::to_string)),
    );
    names
}

/// What `undo` adds to restoring the record's files, made by `by` and logged at `at`: the
/// catalogs it regenerates and its own log event's bytes (pass `at` in `WriteOptions` to the
/// undo to write exactly those).
pub fn preview_extra(store: &Store, by: &str, at: time::OffsetDateTime) -> Result<Preview, WriteError> {
    let state = State::for_store(&store.root, store.kind());
    let Some(record) = records(&state).pop() else { return Err(WriteError::NothingToUndo) };
    let plan = super::file_storage::undo_plan(store, &state, &record, by)?;
    // The review ledger is folio's state, not a file of the store.
    let writes: Vec<_> = plan.writes.into_iter().filter(|w| w.role != Role::Ledger).collect();
    Ok(super::preview::of(store, &writes, &plan.event, at))
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
