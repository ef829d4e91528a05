//! The history pane's disk work, off the UI thread: the diff a restore would make (the changeset
//! travels with the confirm dialog, so what is confirmed is what was shown, checked against the
//! digest of the file as it was then), and writing it through the changeset path.
use crate::store::Store;
use crate::store::keep::history::{self, restore};
use crate::store::model::entity::EntityIdx;
use crate::store::write::changeset::{Changeset, WriteOptions};

/// What restoring version `rev` of the entity would write: a title, the diff, the changeset.
pub fn preview(
    store: &Store,
    idx: EntityIdx,
    rev: &str,
    by: &str,
) -> Result<(String, Vec<String>, Box<Changeset>), String> {
    let path = store.entity(idx).path.clone();
    let h = history::of_entity(store, idx).map_err(|e| format!("{path}: {e}"))?;
    match restore::plan(store, &h, rev, by)? {
        Some(cs) => {
            let diff = cs.diff(store).lines().map(str::to_string).collect();
            Ok((format!("Restore {path} to version {rev}?"), diff, Box::new(cs)))
        }
        None => Err(format!("{path} already holds version {rev}; nothing to change")),
    }
}

/// Write the restore; what was done, the files to reload and the digests written.
pub fn apply(store: &Store, cs: Changeset) -> Result<super::pane_effects::FixesWritten, String> {
    let applied = store.apply(cs, &WriteOptions::default()).map_err(|e| e.to_string())?;
    let text = format!("restored {} (u undoes it)", applied.files.join(", "));
    let written: Vec<String> = applied.files.iter().chain(std::iter::once(&applied.log)).cloned().collect();
    let own = super::own_writes::fingerprints(&store.root, &written);
    Ok((text, applied.files.iter().map(|f| store.abs_path(f)).collect(), own))
}
