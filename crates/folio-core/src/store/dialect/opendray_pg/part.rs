//! A decision's part of the database: the nodes it is about, read from the snapshot by their
//! entries (no other entry decoded, no other text read), instead of the cached store of every
//! node. Decoding that store (100k entities, ≈ 0.2 s of CPU) was most of a verdict's time
//! (docs/benchmarks.md, "Round: issue 43 (eighth session: a verdict and the list without the
//! whole store)"). The write itself locks and compares each node's row as for any decision
//! (`storage`), so a part read from a stale snapshot is refused as a conflict, never written.
//!
//! A part holds only what a decision about its nodes reads: their own fields, texts, links and
//! edges. Backlinks into them are not in it — a decision that looks at them (a veto's or a
//! forget's inbound links left broken, a merge's repointing) opens the whole store
//! (`Store::open_part` callers choose).
use std::path::Path;

use super::{OpendrayPg, snapshot};
use crate::store::dialect::Dialect;

/// The format opened on the nodes `names` names (ids or paths) in the snapshot of the
/// database folder `root`; None when one is not there (archived and hidden, unknown, a title
/// rather than an id) or the snapshot cannot be trusted: the whole store is opened then, which
/// finds it or says why not.
pub fn open(root: &Path, names: &[String]) -> Option<Box<dyn Dialect>> {
    if names.is_empty() {
        return None;
    }
    let files = snapshot::texts_named(root, names)?;
    Some(Box::new(OpendrayPg::open_on(root, files)))
}
