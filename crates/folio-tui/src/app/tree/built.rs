//! A catalog tree built off the UI thread, beside the store it is of.
use folio_core::store::Store;
use folio_core::store::read::tree::{self, Group, TreeFilter};

/// A catalog tree, and the filter it was built for.
pub struct BuiltTree {
    pub filter: TreeFilter,
    pub tree: Group,
}

/// The tree of `fresh` for `filter` when what the catalog shows changed from `old`: built by the
/// job that made `fresh`, since a large store's takes a tenth of a second (docs/benchmarks.md,
/// "Fifteenth session"), which on the UI thread held the frame after every veto.
pub fn beside(old: &Store, fresh: &Store, filter: &TreeFilter) -> Option<Box<BuiltTree>> {
    let changed = !tree::unchanged(old, fresh);
    changed.then(|| Box::new(BuiltTree { filter: filter.clone(), tree: tree::build(fresh, filter) }))
}
