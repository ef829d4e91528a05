//! Checking a cached store against its files: a walk plus one `stat` per entity file (in
//! parallel: cold, each is a disk read), never reading a file's bytes. What it names is
//! re-read by `Store::refresh`, as when the watcher reports a change.
use std::collections::{HashMap, HashSet};
use std::fs;
use std::time::UNIX_EPOCH;

use rayon::prelude::*;

use crate::store::Store;
use crate::store::dialect::{FileRole, StoreWarning};
use crate::store::load;

/// A file modified this close before the snapshot's reads began may have changed again within
/// the same mtime tick (coarse on some filesystems): it is re-read rather than trusted.
const MTIME_SLACK_NS: i128 = 2_000_000_000;

/// What differs between a store and its files on disk.
#[derive(Debug, Default)]
pub struct Validation {
    /// Relative paths to re-read: changed, added or removed since the snapshot.
    pub paths: Vec<String>,
    /// The walk's warnings now (folders that could not be listed).
    pub walk_warnings: Vec<StoreWarning>,
    /// Entity files whose size and mtime were compared.
    pub checked: usize,
}

/// Compare `store` (typically just opened from the cache) with what is on disk now.
pub fn validate(store: &Store) -> Validation {
    let (found, walk_warnings) = load::walk(&store.root, store.dialect.as_ref());
    let read_since =
        store.read_since.duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as i128).unwrap_or(0) - MTIME_SLACK_NS;
    // One (size, mtime) per file: a file holding several entities recorded the same for each.
    let mut known: HashMap<&str, (u64, i128)> = HashMap::with_capacity(store.entities.len());
    for e in &store.entities {
        known.entry(e.path.as_str()).or_insert((e.file_size, e.mtime_ns));
    }
    let other: HashSet<&str> = store.other_files.iter().map(|(p, _)| p.as_str()).collect();
    let seen: HashSet<&str> = found.iter().map(|f| f.rel.as_str()).collect();

    let entity_files: Vec<_> = found.iter().filter(|f| f.role == FileRole::Entity).collect();
    let mut paths: Vec<String> = entity_files
        .par_iter()
        .filter(|f| {
            let Some(&(size, mtime)) = known.get(f.rel.as_str()) else { return true };
            // Symlinks are cheap to re-read and their targets' changes are not ours to track.
            if f.symlink_inside.is_some() || mtime >= read_since {
                return true;
            }
            match fs::metadata(store.root.join(&f.rel)) {
                Ok(m) => m.len() != size || crate::store::fsio::mtime_ns(&m) != mtime,
                Err(_) => true,
            }
        })
        .map(|f| f.rel.clone())
        .collect();
    // A file that is no longer an entity file (or became one) is re-read too: the refresh files
    // it under its role now.
    paths.extend(
        found.iter().filter(|f| f.role != FileRole::Entity && !other.contains(f.rel.as_str())).map(|f| f.rel.clone()),
    );
    paths.extend(known.keys().chain(other.iter()).filter(|p| !seen.contains(*p)).map(|p| p.to_string()));
    paths.sort();
    paths.dedup();
    Validation { paths, walk_warnings, checked: entity_files.len() }
}

impl Store {
    /// Bring a store opened from the cache up to date with its files: only what `validate`
    /// names is re-read. Returns what changed.
    pub fn revalidate(&mut self) -> crate::store::refresh::RefreshReport {
        let v = validate(self);
        self.walk_warnings = v.walk_warnings;
        self.from_cache = false;
        self.refresh(&v.paths)
    }
}
