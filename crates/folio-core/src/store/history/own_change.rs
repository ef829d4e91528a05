//! Who made the uncommitted change of a file, when folio made it: git knows nobody for a change
//! not committed yet, and the frontmatter names the agent that first wrote the entity, not the
//! person who restored or edited it in folio. Folio's undo records keep, for each change it
//! wrote, who made it and the digest of what it wrote: when the newest record touching the file
//! wrote exactly what is on disk, the change is that person's.
use crate::store::Store;
use crate::store::model::digest;
use crate::store::write::state::State;
use crate::store::write::undo::records;

/// Who folio's journal says wrote `bytes` into `path` (None: folio's newest write of the file
/// left something else there, or folio never wrote it).
pub fn author(store: &Store, path: &str, bytes: &[u8]) -> Option<String> {
    let state = State::for_store(&store.root, store.kind());
    let newest = records(&state).into_iter().rev().find_map(|r| {
        let after = r.entries.iter().find(|e| e.path == path).map(|e| e.after.clone())?;
        Some((r.by, after))
    });
    let (by, after) = newest?;
    (after.as_deref() == Some(digest::of(bytes).as_str()) && !by.is_empty()).then_some(by)
}
