//! The store's background work: loading it (through the persistent cache when allowed, its
//! files checked afterwards), re-reading changed files into a copy, and writing the cache.
use std::path::PathBuf;
use std::sync::Arc;

use crate::app::event::{Event, LoadedStore};
use crate::app::jobs::Source;
use crate::app::outbox::Outbox;
use folio_core::store::Reads;
use folio_core::store::Store;
use folio_core::store::keep::cache::{self, Cache, Miss};
use folio_core::store::read::detect;
use folio_core::store::read::load::LoadProgress;

/// Load the store, from the persistent cache when allowed and usable: then the cached store
/// is posted at once and its files, if it has any, are checked afterwards (a stat walk), the
/// paths that changed posted as `CacheChecked` to be re-read like any change the watcher reports.
pub fn load_and_check(source: &Source, progress: &LoadProgress, use_cache: bool, tx: &Outbox) {
    let cache = if use_cache && !source.no_cache { Cache::from_env() } else { None };
    let (store, warning, earlier) = match load(source, progress, cache.as_ref()) {
        Ok(loaded) => loaded,
        Err(LoadFailure::Several { what, names }) => {
            let _ = tx.send(Event::ChooseStore { what, names });
            return;
        }
        Err(LoadFailure::Message(e)) => {
            let _ = tx.send(Event::Loaded(Err(e)));
            return;
        }
    };
    if let Some(w) = warning {
        let _ = tx.send(Event::Copied(Err(format!("cache: {w}"))));
    }
    let store = Arc::new(store);
    // The catalog tree for the default filter is built here: a large store's is too slow for the UI thread.
    let tree = folio_core::store::read::tree::build(&store, &folio_core::store::read::tree::TreeFilter::default());
    let _ = tx.send(Event::Loaded(Ok(Box::new(LoadedStore { store: store.clone(), tree }))));
    // A store held in memory (a database) has no files to check: its cached open was brought
    // up by what its format records as changed (`Format::changed_since`, in `load`), and the
    // poller takes what agents write later. Walking for its files found none and re-read every node.
    if !store.from_cache || store.dialect.in_memory() {
        return;
    }
    let at = std::time::SystemTime::now();
    let checked = folio_core::store::keep::cache::validate::validate(&store);
    // The entities as decoded, before any re-read replaces them: the cache's rewrite after
    // the re-reads copies the chunks of those still in place (`Earlier::noted_for`).
    let earlier = earlier.and_then(|e| e.noted_for(&store, &checked.paths)).map(Arc::new);
    let root = store.root.clone();
    drop(store);
    let _ = tx.send(Event::CacheChecked(checked.paths.iter().map(|p| root.join(p)).collect(), at, earlier));
}

/// The store, a warning when a cache file had to be ignored, and the snapshot a store from the
/// cache was decoded from.
type Loaded = (Store, Option<String>, Option<cache::codec::Earlier>);

/// The store, and a warning when a cache file had to be ignored.
/// Why a store could not be loaded.
enum LoadFailure {
    /// The folder holds several stores: one is to be chosen.
    Several {
        what: String,
        names: Vec<String>,
    },
    Message(String),
}

impl From<String> for LoadFailure {
    fn from(message: String) -> Self {
        LoadFailure::Message(message)
    }
}

fn load(source: &Source, progress: &LoadProgress, cache: Option<&Cache>) -> Result<Loaded, LoadFailure> {
    let start = if source.demo {
        folio_core::demo::materialize().map_err(|e| format!("cannot unpack the demo store: {e}"))?
    } else {
        match &source.path {
            Some(p) => p.clone(),
            None if detect::database_from_env().is_some() => detect::database_from_env().unwrap_or_default(),
            None => {
                let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
                detect::find_upward(&cwd).ok_or_else(|| folio_core::store::StoreError::NoStoreFound(cwd).to_string())?
            }
        }
    };
    // A connection string: read into a folder of its own by the format that claims it.
    let located = detect::locate(&start, source.dialect).transpose().map_err(LoadFailure::Message)?;
    let located_db = located.is_some();
    if located.is_none() {
        match std::fs::metadata(&start) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(format!("{}: not a directory", start.display()).into()),
            Err(e) => return Err(format!("{}: {e}", start.display()).into()),
        }
    }
    let start = if located.is_some() {
        start
    } else if source.dialect.is_none() || source.bundle.is_some() {
        folio_core::store::choose_store(&start, source.bundle.as_deref()).map_err(|e| match e {
            folio_core::store::StoreError::SeveralStores { what, names, .. } => {
                LoadFailure::Several { what: what.to_string(), names }
            }
            other => LoadFailure::Message(other.to_string()),
        })?
    } else {
        start
    };
    let detection = match (located, source.dialect) {
        (Some(found), _) => found,
        (None, Some(kind)) => {
            detect::Detection { kind, root: detect::root_for(kind, &start), reason: format!("--dialect {kind}") }
        }
        (None, None) => detect::detect(&start),
    };
    let mut warning = None;
    // A database's cached store is brought up to its snapshot by the rows changed since (the
    // open `folio stats` makes), which writes the cache where it must: nothing is left for
    // the TUI to check or save. Taken only when there is a cached store: a first open loads
    // below, with its progress shown.
    let database = located_db.then_some(cache).flatten();
    if let Some(cache) = database.filter(|c| c.file_for(&detection.root, detection.kind).exists()) {
        let (mut store, warnings) =
            cache::open(Some(cache), &detection.root, detection.kind, detection.reason, Reads::Entities);
        store.from_cache = true;
        return Ok((store, (!warnings.is_empty()).then(|| warnings.join("; ")), None));
    }
    if let Some(cache) = cache {
        match cache.load_keeping(&detection.root, detection.kind, detection.reason.clone()) {
            // Most of its files changed since the snapshot (a checkout of another branch, a
            // formatter): read from the files, with progress shown, as if there were no cache,
            // rather than shown stale, linted, then patched file by file. The decoded store is
            // freed beside the load.
            Ok(decoded) if cache::validate::sample_names_most_files(&decoded.0) => {
                drop(std::thread::spawn(move || drop(decoded)));
            }
            Ok((store, earlier)) => return Ok((store, None, Some(earlier))),
            Err(Miss::Invalid(why)) => warning = Some(why),
            Err(Miss::Absent) => {}
        }
    }
    let store = Store::load_with(&detection.root, detection.kind, detection.reason, Some(progress), Reads::Entities);
    Ok((store, warning, None))
}

/// Write the store's cache; `as_of`: it reads as of then (after a cache check's re-reads).
/// `earlier`: the snapshot the store was loaded from, its chunks still in place copied.
pub fn save_cache(
    store: &Store,
    as_of: Option<std::time::SystemTime>,
    earlier: Option<&cache::codec::Earlier>,
    source: &Source,
) -> Option<Event> {
    let cache = if source.no_cache { None } else { Cache::from_env() }?;
    cache.save_reusing(store, as_of, earlier).err().map(|e| Event::Copied(Err(format!("cache: {e}"))))
}

/// Re-read the changed paths into a copy of the store, with the digests of what it found changed
/// (folio's own writes among them are told apart) and its tree (for the filter `catalog` shows)
/// when that changed.
pub fn refresh(store: &Store, paths: &[PathBuf], catalog: &crate::app::tree::built::Catalog) -> Event {
    let (fresh, report) = store.refreshed(paths);
    let found: Vec<String> = report.changed.iter().chain(&report.added).chain(&report.removed).cloned().collect();
    let found = crate::app::platform::own_writes::fingerprints(&fresh.root, &found);
    let tree = crate::app::tree::built::beside(store, &fresh, catalog);
    Event::Refreshed(Box::new(fresh), report, found, tree)
}
