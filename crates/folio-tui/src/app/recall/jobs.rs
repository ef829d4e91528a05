//! Recall's background work: the recent queries of a store, read from and written to the
//! person's state folder (never inside the store), and the text index over bodies.
use std::path::Path;
use std::sync::Arc;

use folio_core::recall::text::TextRecall;
use folio_core::store::Store;
use folio_core::store::keep::cache::Cache;

/// The recent queries of the store at `root`.
pub fn load_history(state: &Path, root: &Path) -> Vec<String> {
    let dir = folio_core::store::keep::personal::store_dir(state, root);
    folio_core::recall::history::load(&dir)
}

/// Remember the recent queries of the store at `root`; the error names the folder.
pub fn save_history(state: &Path, root: &Path, recent: &[String]) -> Result<(), String> {
    let dir = folio_core::store::keep::personal::store_dir(state, root);
    folio_core::recall::history::save(&dir, recent)
        .map_err(|e| format!("{}: cannot remember recall queries ({e})", dir.display()))
}

/// `store`'s text index: by updating `base`'s (reading only the files at `changed` again), else
/// from the persistent cache where the files are unchanged.
pub fn index_text(
    store: &Store,
    base: Option<(Arc<Store>, Arc<TextRecall>)>,
    changed: &[String],
    no_cache: bool,
) -> TextRecall {
    match base {
        Some((old, index)) => index.update(&old, store, changed),
        // From the persistent cache where the files are unchanged; a bad cache file is
        // rewritten, never a reason to go without the index.
        None => {
            let cache = if no_cache { None } else { Cache::from_env() };
            TextRecall::open(cache.as_ref(), store).0
        }
    }
}
