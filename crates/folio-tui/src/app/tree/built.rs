//! A catalog tree built off the UI thread, beside the store it is of.
use crate::app::model::Model;
use folio_core::store::Store;
use folio_core::store::read::tree::{self, Group, TreeFilter};

/// A catalog tree, and the filter it was built for.
pub struct BuiltTree {
    pub filter: TreeFilter,
    pub tree: Group,
}

/// What a job that changes the store takes along for the catalog's next tree: the filter the
/// catalog shows, and the tree it shows when that tree was built for that filter.
pub struct Catalog {
    pub filter: TreeFilter,
    pub shown: Option<Group>,
}

/// The catalog as the model shows it now, for a job (`Catalog`).
pub fn catalog(model: &Model) -> Catalog {
    let shown = (model.tree_filter == model.filter).then(|| model.tree.clone());
    Catalog { filter: model.filter.clone(), shown }
}

/// The tree of `fresh` for the catalog's filter when what the catalog shows changed from
/// `old`: made by the job that made `fresh`, since a large store's build takes a tenth of a
/// second (docs/benchmarks.md, "Fifteenth session"), which on the UI thread held the frame
/// after every veto; derived from the tree shown when few entities changed (`tree::rederived`).
pub fn beside(old: &Store, fresh: &Store, catalog: &Catalog) -> Option<Box<BuiltTree>> {
    if tree::unchanged(old, fresh) {
        return None;
    }
    let filter = &catalog.filter;
    let derived = catalog
        .shown
        .as_ref()
        .filter(|_| old.kind() == fresh.kind())
        .and_then(|shown| tree::rederived(fresh.kind(), &old.entities, shown, &fresh.entities, filter));
    let tree = derived.unwrap_or_else(|| tree::build(fresh, filter));
    Some(Box::new(BuiltTree { filter: filter.clone(), tree }))
}
