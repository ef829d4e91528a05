//! The node files earlier builds laid down for the length of a decision (their folder
//! engine swapped files; a decision now journals its rows without any, `storage`). While
//! such a build's marker is fresh, an open leaves the files alone (`mirror::retire_mirror`):
//! that build's journal recovers them first.
use std::path::Path;

/// The marker beside the snapshot while a decision's node files are laid down.
pub const MARKER: &str = "staging";

/// Whether a decision has node files laid down in `root` now (a marker younger than ten
/// minutes: one left by a process that died is not obeyed for ever).
pub fn under_way(root: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(root.join(".folio").join(MARKER)) else { return false };
    meta.modified().ok().and_then(|t| t.elapsed().ok()).is_none_or(|age| age.as_secs() < 600)
}
