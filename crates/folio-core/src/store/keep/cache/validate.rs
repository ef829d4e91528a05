//! Checking a cached store against its files: a walk plus one `stat` per entity file (in
//! parallel: cold, each is a disk read), never reading a file's bytes. What it names is
//! re-read by `Store::refresh`, as when the watcher reports a change.
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use rayon::prelude::*;

use crate::store::Store;
use crate::store::dialect::{Dialect, FileRole, StoreWarning};
use crate::store::read::fsio::FolderStamper;
use crate::store::read::load::{self, FoundFile};

/// A file modified this close before the snapshot's reads began may have changed again within
/// the same mtime tick (coarse on some filesystems): it is re-read rather than trusted.
const MTIME_SLACK_NS: i64 = 2_000_000_000;

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

impl Validation {
    /// Whether the check names so many files that reading the whole store again costs less
    /// than patching the snapshot file by file: more than two in three of the entity files
    /// there are now (a checkout of another branch, a formatter or a copy that rewrote them
    /// all). At 100k notes, patching every file took 1.3–1.7× the time of reading them all and
    /// 1.4–1.6× the memory; patching 60 % of them 0.9–1.0× the time (docs/benchmarks.md,
    /// "Forty-fourth session"). A few hundred files are patched whatever the store's size:
    /// that costs milliseconds.
    pub fn names_most_files(&self) -> bool {
        self.paths.len() >= MOST_FILES_FLOOR && self.paths.len() > self.checked * 2 / 3
    }
}

/// Below this many files to re-read, a check never calls for the whole store
/// (`Validation::names_most_files`).
const MOST_FILES_FLOOR: usize = 256;

/// Whether a sample of the store's entity files, spread evenly over it, says that most of them
/// changed since the snapshot (`Validation::names_most_files`, estimated from `SAMPLE` stats
/// instead of a walk and a stat per file). The TUI shows a cached store before its check: a
/// store whose files nearly all changed was shown stale, linted whole, then patched file by
/// file, at twice the CPU and 1.7× the memory of a load from its files (docs/benchmarks.md,
/// "Forty-fifth session"). A wrong guess costs time only: either way the store is the same.
pub fn sample_names_most_files(store: &Store) -> bool {
    let entities = &store.entities;
    if entities.len() < SAMPLE_FROM {
        return false;
    }
    let since = nanos_since_epoch(store.read_since).saturating_sub(MTIME_SLACK_NS);
    let picked: Vec<usize> = (0..SAMPLE).map(|i| i * entities.len() / SAMPLE).collect();
    let changed = picked
        .par_iter()
        .map_init(
            || FolderStamper::new(&store.root),
            |folders, &i| {
                let e = &entities[i];
                // As `validate_files`: a file modified within the slack is re-read, and so is one
                // gone or unreadable.
                e.mtime_ns >= since || folders.stamp(&e.path).ok() != Some((e.file_size, e.mtime_ns))
            },
        )
        .filter(|&changed| changed)
        .count();
    changed * 3 > SAMPLE * 2
}

/// How many entity files `sample_names_most_files` stats.
const SAMPLE: usize = 256;

/// Stores of fewer entities are never guessed at: their check takes milliseconds.
const SAMPLE_FROM: usize = 1_024;

/// `when` in nanoseconds since the Unix epoch (0 before it), as `mtime_ns` counts.
fn nanos_since_epoch(when: SystemTime) -> i64 {
    when.duration_since(UNIX_EPOCH).map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)).unwrap_or(0)
}

/// Compare `store` (typically just opened from the cache) with what is on disk now.
pub fn validate(store: &Store) -> Validation {
    let stamps = store.entities.iter().map(|e| (e.path.as_str(), e.file_size, e.mtime_ns));
    let mut v = validate_files(&store.root, store.dialect.as_ref(), store.read_since, stamps, &store.other_files);
    add_outdated(store, &mut v);
    v
}

/// Add to `v` the unchanged files whose entities the dialect would now parse otherwise (the
/// clock moved): what `validate` finds beyond `validate_files`.
pub fn add_outdated(store: &Store, v: &mut Validation) {
    let dialect = store.dialect.as_ref();
    let before = v.paths.len();
    v.paths.par_extend(store.entities.par_iter().filter(|e| dialect.outdated(e)).map(|e| e.path.clone()));
    if v.paths.len() > before {
        v.paths.sort();
        v.paths.dedup();
    }
}

/// A file the snapshot knows, its size and mtime then, and its size and mtime now (None: not
/// stat'ed, being within the slack, or gone or unreadable).
type KnownNow<'a> = (&'a str, u64, i64, Option<(u64, i64)>);

/// `validate` from what a snapshot kept of its files alone — each entity's (path, size, mtime)
/// in the entities' order (sorted by path), and the other files — without its entities: a walk
/// and a stat per file, the dialect's `outdated` left to `add_outdated`.
pub fn validate_files<'a>(
    root: &Path,
    dialect: &dyn Dialect,
    read_since: SystemTime,
    stamps: impl ExactSizeIterator<Item = (&'a str, u64, i64)>,
    other_files: &'a [(String, FileRole)],
) -> Validation {
    let read_since = nanos_since_epoch(read_since).saturating_sub(MTIME_SLACK_NS);
    // (path, size, mtime, now): 40 bytes a file, its stamp now taken in place (an i128 mtime
    // made it 48 without it, 100k of them at once).
    let mut known: Vec<KnownNow<'_>> = Vec::with_capacity(stamps.len());
    for (path, size, mtime) in stamps {
        if known.last().is_none_or(|k| k.0 != path) {
            known.push((path, size, mtime, None));
        }
    }
    // A little over what the store holds: the files an agent added meanwhile.
    let expected = known.len() + other_files.len();
    // The folders are listed while the files the snapshot knows are stat'ed (each thread
    // keeping the folder of its last file open): one after the other, the listing left a core
    // idle (docs/benchmarks.md, "Twentieth session"). A file modified within the slack of the
    // snapshot's reads is re-read whatever its stamp says, so it is not stat'ed.
    let ((found, walk_warnings), ()) = rayon::join(
        || load::walk(root, dialect, expected + expected / 64),
        || {
            known.par_iter_mut().for_each_init(
                || FolderStamper::new(root),
                |folders, k| {
                    if k.2 < read_since {
                        k.3 = folders.stamp(k.0).ok();
                    }
                },
            )
        },
    );
    // The walk, the entities and the other files are all sorted by path: one merge pass pairs
    // each file found with what the store knows of it, without hashing 100k paths.
    let (entity_found, other_found): (Vec<&FoundFile>, Vec<&FoundFile>) =
        found.iter().partition(|f| f.role == FileRole::Entity);
    let other: Vec<(&str, FileRole)> = other_files.iter().map(|(p, r)| (p.as_str(), *r)).collect();

    let checked = entity_found.len();
    let mut paths: Vec<String> = Vec::new();
    merge(
        &entity_found,
        &known,
        |f| f.rel.as_str(),
        |k| k.0,
        |f, k| match (f, k) {
            (Some(f), k) => {
                let changed = match k {
                    // New since the snapshot.
                    None => true,
                    // Symlinks are cheap to re-read and their targets' changes are not ours to track.
                    Some(_) if f.symlink_inside.is_some() => true,
                    // Within the slack (not stat'ed), or gone or unreadable when stat'ed.
                    Some((_, _, _, None)) => true,
                    Some(&(_, size, mtime, Some(now))) => now != (size, mtime),
                };
                if changed {
                    paths.push(f.rel.clone());
                }
            }
            (None, Some(k)) => paths.push(k.0.to_string()),
            (None, None) => {}
        },
    );
    merge(
        &other_found,
        &other,
        |f| f.rel.as_str(),
        |o| o.0,
        |f, o| match (f, o) {
            (Some(f), None) => paths.push(f.rel.clone()),
            (None, Some(o)) => paths.push(o.0.to_string()),
            // A role the dialect now gives otherwise (an AIP-10 tombstone hiding `_index.md`).
            (Some(f), Some(o)) if f.role != o.1 => paths.push(f.rel.clone()),
            _ => {}
        },
    );
    paths.sort();
    paths.dedup();
    Validation { paths, walk_warnings, checked }
}

/// Walk two lists sorted by key together, calling `each` with the items that share a key (or
/// the one that has no partner).
fn merge<'x, A, B>(
    a: &'x [A],
    b: &'x [B],
    ka: impl Fn(&A) -> &str,
    kb: impl Fn(&B) -> &str,
    mut each: impl FnMut(Option<&'x A>, Option<&'x B>),
) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let order = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => ka(x).cmp(kb(y)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                each(Some(&a[i]), None);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                each(None, Some(&b[j]));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                each(Some(&a[i]), Some(&b[j]));
                i += 1;
                j += 1;
            }
        }
    }
}

impl Store {
    /// Bring a store opened from the cache up to date with its files: only what `validate`
    /// names is re-read. Returns what changed.
    pub fn revalidate(&mut self) -> crate::store::keep::refresh::RefreshReport {
        let started = std::time::SystemTime::now();
        let v = validate(self);
        self.revalidate_checked(v, started)
    }

    /// `revalidate` with the check `v`, begun at `started`, already made of this snapshot's
    /// files (on a copy of it decoded without links: `cache::open`).
    pub(super) fn revalidate_checked(
        &mut self,
        v: Validation,
        started: std::time::SystemTime,
    ) -> crate::store::keep::refresh::RefreshReport {
        self.walk_warnings = v.walk_warnings;
        self.from_cache = false;
        let report = self.refresh(&v.paths);
        // Every file modified near the snapshot's reads was just read again and every other one
        // was found unchanged, so the store now reads as of `started`. Keeping the old instant
        // would re-read those files on every open — and rewrite the whole cache each time: a
        // store an agent had just written (or folio-gen) would open slower from its cache than
        // from scratch (docs/benchmarks.md, "Cache figures").
        self.read_since = started;
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::Duration;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Sets a file's mtime `secs` seconds before now, as a file written long before the snapshot.
    fn age(root: &Path, rel: &str, secs: u64) {
        let when = SystemTime::now() - Duration::from_secs(secs);
        fs::File::options().write(true).open(root.join(rel)).unwrap().set_modified(when).unwrap();
    }

    /// A check calls for the whole store past two thirds of the files there are now, and never
    /// for a few hundred files (`names_most_files`).
    #[test]
    fn most_files_means_over_two_thirds_and_some_hundreds() {
        let check = |paths: usize, checked: usize| {
            Validation { paths: (0..paths).map(|i| format!("n{i}.md")).collect(), checked, ..Validation::default() }
                .names_most_files()
        };
        assert!(check(100_000, 100_000));
        assert!(check(66_667, 100_000));
        assert!(!check(66_666, 100_000));
        assert!(!check(1, 100_000));
        // Removed files count (named, not found): a checkout that drops most of the notes.
        assert!(check(9_000, 1_000));
        assert!(!check(255, 300), "a few hundred are patched");
        assert!(check(256, 300));
    }

    /// The sample's guess follows the share of files changed, counts a file gone or written
    /// within the slack as changed, and is never made for a store of a few hundred files.
    #[test]
    fn a_sample_of_the_files_says_when_most_of_them_changed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let rels: Vec<String> = (0..1_600).map(|i| format!("n/{i:04}.md")).collect();
        for rel in &rels {
            write(root, rel, "# Note\n");
            age(root, rel, 3600);
        }
        let mut store = Store::load(root, crate::store::dialect::vault::KIND, "t".into());
        assert_eq!(store.entities.len(), 1_600);
        store.read_since = SystemTime::now();
        assert!(!sample_names_most_files(&store), "nothing changed");
        // Every other file: half the store, spread evenly.
        for rel in rels.iter().step_by(2) {
            age(root, rel, 60);
        }
        assert!(!sample_names_most_files(&store), "half is not most");
        // Three files in four: one more in four gone.
        for rel in rels.iter().skip(1).step_by(4) {
            fs::remove_file(root.join(rel)).unwrap();
        }
        assert!(sample_names_most_files(&store), "three in four");
        // Written within the slack before the snapshot's reads: re-read whatever the stamps say.
        for rel in rels.iter().filter(|rel| root.join(rel).exists()) {
            write(root, rel, "# Note\n");
        }
        let mut recent = Store::load(root, crate::store::dialect::vault::KIND, "t".into());
        assert!(sample_names_most_files(&recent), "1,200 files just written");
        recent.read_since = SystemTime::now() + std::time::Duration::from_secs(3600);
        assert!(!sample_names_most_files(&recent), "their stamps hold an hour later");
        // A few hundred files, all changed: patched, not guessed at.
        let mut small = Store::load(root, crate::store::dialect::vault::KIND, "t".into());
        small.entities.truncate(SAMPLE_FROM - 1);
        small.read_since = SystemTime::now() + std::time::Duration::from_secs(3600);
        for e in &small.entities {
            age(root, &e.path, 30);
        }
        assert!(!sample_names_most_files(&small));
    }

    /// The walk and the stamps, taken side by side, are merged as one pass took them: what
    /// changed, was added, removed, replaced by a symlink or written within the slack is named,
    /// and nothing else.
    #[test]
    fn the_check_names_exactly_the_files_that_may_have_changed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in ["a/same.md", "a/grown.md", "a/touched.md", "a/gone.md", "b/linked.md", "b/recent.md", "root.md"] {
            write(root, rel, "# Note\n");
            age(root, rel, 3600);
        }
        let dialect = crate::store::dialect::vault::KIND.open(root);
        let stamp = |rel: &str| {
            let meta = fs::metadata(root.join(rel)).unwrap();
            (rel.to_string(), meta.len(), crate::store::read::fsio::mtime_ns(&meta))
        };
        let mut stamps: Vec<(String, u64, i64)> =
            ["a/gone.md", "a/grown.md", "a/same.md", "a/touched.md", "b/linked.md", "root.md"].map(stamp).to_vec();
        // Written within the slack before the snapshot's reads: re-read whatever its stamp says.
        write(root, "b/recent.md", "# Note\n");
        stamps.push(stamp("b/recent.md"));
        stamps.sort();
        let read_since = SystemTime::now();

        // Unchanged since the snapshot: only the file within the slack is named.
        let check = |stamps: &[(String, u64, i64)]| {
            let v = validate_files(
                root,
                dialect.as_ref(),
                read_since,
                stamps.iter().map(|(p, s, m)| (p.as_str(), *s, *m)),
                &[],
            );
            (v.paths, v.checked)
        };
        assert_eq!(check(&stamps), (vec!["b/recent.md".to_string()], 7));

        write(root, "a/grown.md", "# Note, grown\n");
        age(root, "a/grown.md", 3600);
        // The same size, another mtime.
        age(root, "a/touched.md", 60);
        fs::remove_file(root.join("a/gone.md")).unwrap();
        write(root, "a/new.md", "# New\n");
        fs::remove_file(root.join("b/linked.md")).unwrap();
        std::os::unix::fs::symlink(root.join("root.md"), root.join("b/linked.md")).unwrap();
        let (paths, checked) = check(&stamps);
        assert_eq!(paths, ["a/gone.md", "a/grown.md", "a/new.md", "a/touched.md", "b/linked.md", "b/recent.md"]);
        assert_eq!(checked, 7, "the entity files found: six known and the new one");
    }
}
