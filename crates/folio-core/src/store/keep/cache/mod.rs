//! An optional persistent cache of loaded stores, kept outside the store
//! (`$XDG_CACHE_HOME/folio/stores/`, or `$FOLIO_CACHE_DIR`), one file per store root and dialect.
//!
//! Opening from the cache is stale-while-revalidate: the snapshot is shown at once, then a stat
//! walk (`validate`) names the files whose size or mtime changed, which were added or removed,
//! and only those are re-read, through the same `Store::refresh` as live reload. A cache written
//! by another build, for another root or dialect, truncated or corrupt is ignored (with a
//! warning naming it) and rebuilt; nothing here ever stops folio from loading the store itself.
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, UNIX_EPOCH};

pub mod codec;
pub mod hashes;
pub mod lint_memo;
pub mod profiles;
pub mod side;
pub mod validate;

use crate::store::dialect::DialectKind;
use crate::store::write::catalog;
use crate::store::{Reads, Store};
use codec::Header;

/// Extension of the side file holding a store's text index (`Cache::side_file`).
pub const TEXT_EXT: &str = "folio-text";
/// Extension of the side file holding a store's near-duplicate profiles (`profiles`).
pub const PROFILES_EXT: &str = "folio-profiles";
/// Extension of the side file holding a store's content hashes (`hashes`, the inbox's).
pub const HASHES_EXT: &str = "folio-hashes";
/// Extension of the side file holding what the last lint pass may lend the next (`lint_memo`).
pub const LINT_EXT: &str = "folio-lint";
/// Every side file a snapshot may have beside it.
const SIDE_EXTS: [&str; 4] = [TEXT_EXT, PROFILES_EXT, HASHES_EXT, LINT_EXT];

/// Stores with fewer entities are not cached: they load from their files about as fast.
pub const MIN_ENTITIES: usize = 1000;
/// A snapshot older than this is rebuilt: some per-file checks depend on the clock (OKF
/// `stale_after`), which a size and mtime check cannot see.
const MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// The store at `root`: from the cache brought up to date (only files whose size or mtime
/// changed, and added or removed ones, are read), or loaded from its files when there is no
/// usable cache. The cache is written when it was missing or anything changed. The strings
/// are warnings for the person (an ignored cache file, one that could not be written).
/// A load from the files reads what `reads` asks.
pub fn open(
    cache: Option<&Cache>,
    root: &Path,
    kind: DialectKind,
    detected_by: String,
    reads: Reads<'_>,
) -> (Store, Vec<String>) {
    let Some(cache) = cache.filter(|_| cacheable(kind)) else {
        return (Store::load_with(root, kind, detected_by, None, reads), Vec::new());
    };
    let started = Instant::now();
    let mut checked = None;
    if let Some(lean) = &cache.lean {
        match open_lean(cache, root, kind, &detected_by, &AtomicBool::new(false)) {
            Lean::Open(store, digests) => {
                let _ = lean.set(digests);
                return (*store, Vec::new());
            }
            Lean::Changed(check) => checked = Some(check),
            Lean::Whole => {}
        }
    }
    let cached = cache.load_tokened(root, kind, detected_by.clone());
    finish(cache, cached, started, root, kind, detected_by, reads, checked)
}

/// A cached store as decoded, the files token its snapshot was taken at, and the snapshot.
type Cached = (Store, Option<u64>, codec::Earlier);

/// What the inbox's open without links (`open_lean`) came to.
enum Lean {
    /// The store, unchanged since its snapshot, and the snapshot's digests of it.
    Open(Box<Store>, codec::LintDigest),
    /// Files changed since the snapshot: the check that found them, which the whole open of
    /// the same snapshot takes instead of walking and stating every file again.
    Changed(Check),
    /// Not for this store or snapshot: the whole open, as usual.
    Whole,
}

/// A check of a snapshot's files against the disk (`validate`), and which snapshot it was of.
struct Check {
    validation: validate::Validation,
    /// When the check began: the store reads as of then once what it names is read again.
    began: std::time::SystemTime,
    /// The snapshot's own `read_since` and entity count, which tell it from another written
    /// meanwhile.
    snapshot: (std::time::SystemTime, usize),
}

/// The store at `root` from its cache without its entities' links and lint's memo digest of
/// it, when that store is exactly what `open` would give — no file changed since the snapshot,
/// which needs no write, its catalogs' verdict holding — and the snapshot kept the digest under
/// the manifest rules the format has now. The files are checked against the snapshot's file
/// stamps (`codec::Front`) before any entity is decoded (`codec::decode_file_lean_entities`):
/// when one changed, nothing else is decoded and the check goes to the whole open of the same
/// snapshot, which does not walk and stat every file again (docs/benchmarks.md, "The inbox,
/// sixth pass"). Anything else takes `open`'s usual way (which reads, warns and rewrites as it
/// must). Once `stop` is set, no more of the snapshot is decoded (`Lean::Whole`).
fn open_lean(cache: &Cache, root: &Path, kind: DialectKind, detected_by: &str, stop: &AtomicBool) -> Lean {
    match open_lean_checked(cache, root, kind, detected_by, stop) {
        Ok(Some((store, digests))) => Lean::Open(Box::new(store), digests),
        Ok(None) => Lean::Whole,
        Err(check) => Lean::Changed(check),
    }
}

/// `open_lean`'s work; Err: files changed, with the check that found them.
fn open_lean_checked(
    cache: &Cache,
    root: &Path,
    kind: DialectKind,
    detected_by: &str,
    stop: &AtomicBool,
) -> Result<Option<(Store, codec::LintDigest)>, Check> {
    let started = Instant::now();
    let Ok((file, _, header, read_since)) = cache.open_file(root, kind) else { return Ok(None) };
    // As `finish`: the token read before any file is checked.
    let token = kind.format().files_token(root);
    // A database's changed rows, or a token to record: `open`'s way, which may write.
    if token.is_some() && header.files_token != token {
        return Ok(None);
    }
    // The format vouches that no file changed since the snapshot: the files' stamps, one path
    // per entity, are not needed.
    let stamps = if token.is_some() { codec::Stamps::Checked } else { codec::Stamps::Decoded };
    // The format opens while the snapshot's front is decoded, as in `load_as`.
    let (front, dialect) = rayon::join(|| codec::decode_file_front(&file, stamps), || kind.open(root));
    let Ok(front) = front else { return Ok(None) };
    // Parsed under another workspace policy (AIP-10): `load_as` refuses the snapshot.
    if dialect.parse_inputs() != front.parse_inputs {
        return Ok(None);
    }
    let Some(lint) = front.lint.filter(|l| l.manifest == codec::manifest_key(&dialect.manifest_lints())) else {
        return Ok(None);
    };
    // None: the format vouches that no file changed since the snapshot.
    let mut checked = None;
    if token.is_none() {
        // A token to forget, or entities with no files to check: `open`'s way.
        if dialect.in_memory() || header.files_token.is_some() {
            return Ok(None);
        }
        // As `Store::revalidate`, from the stamps alone.
        let began = std::time::SystemTime::now();
        let stamps = front.stamps.iter().map(|s| (s.path.as_str(), s.size, s.mtime_ns));
        let v = validate::validate_files(root, dialect.as_ref(), read_since, stamps, &front.other_files);
        if !v.paths.is_empty() {
            return Err(Check { validation: v, began, snapshot: (read_since, front.stamps.len()) });
        }
        checked = Some((v, began));
    }
    let Ok(entities) = codec::decode_file_lean_entities(&file, &front, stop) else { return Ok(None) };
    let codec::Front { other_files, walk_warnings, catalogs, .. } = front;
    let mut store = Store::from_parts(
        root,
        dialect,
        detected_by.to_string(),
        entities,
        other_files,
        walk_warnings,
        crate::store::Links::Dropped,
    );
    store.set_catalog_memo(catalogs);
    store.read_since = read_since;
    store.from_cache = false;
    if let Some((mut v, began)) = checked {
        // Unchanged files the clock has made parse otherwise (`Dialect::outdated`), which only
        // the entities tell.
        validate::add_outdated(&store, &mut v);
        if !v.paths.is_empty() {
            return Err(Check { validation: v, began, snapshot: (read_since, store.entities.len()) });
        }
        store.walk_warnings = v.walk_warnings;
        store.read_since = began;
    }
    // A verdict that no longer holds is computed and written by `finish`.
    if store.catalog_memo().saved().is_some() && catalog::remembered::recalled(&store).is_none() {
        return Ok(None);
    }
    store.load_ms = started.elapsed().as_millis();
    Ok(Some((store, lint)))
}

/// `open` for a store whose files `refresh` first brings up to date (a database read into
/// its snapshot; it answers how the store was found): the cached snapshot is decoded
/// on another thread meanwhile, then checked against the files as `open` does.
pub fn open_after<E>(
    cache: Option<&Cache>,
    root: &Path,
    kind: DialectKind,
    refresh: impl FnOnce() -> Result<String, E>,
    reads: Reads<'_>,
) -> Result<(Store, Vec<String>), E> {
    let Some(cache) = cache.filter(|_| cacheable(kind)) else {
        return Ok((Store::load_with(root, kind, refresh()?, None, reads), Vec::new()));
    };
    let started = Instant::now();
    // The inbox's open without links, when the snapshot was taken at the generation the
    // database's folder was last left at: tried beside the refresh, kept only when the
    // refresh found the database as it was (docs/benchmarks.md, "pglist, tenth session").
    let before = cache.lean.as_ref().and_then(|_| kind.format().files_token(root));
    if let (Some(lean), Some(before)) = (&cache.lean, before)
        && read_header(&cache.file_for(root, kind)).is_ok_and(|h| h.files_token == Some(before))
    {
        let stop = AtomicBool::new(false);
        let (refreshed, leaned) = std::thread::scope(|s| {
            let leaned = s.spawn(|| open_lean(cache, root, kind, "", &stop));
            let refreshed = refresh();
            // A generation is new on every write: the same one after the refresh is the same
            // database the snapshot was taken of. Else the store without links is of no use:
            // its decode stops where it is, rather than hold both cores while the whole open
            // waits (docs/benchmarks.md, "Twenty-third session").
            let same = refreshed.is_ok() && kind.format().files_token(root) == Some(before);
            stop.store(!same, Ordering::Relaxed);
            (refreshed.map(|r| (r, same)), leaned.join())
        });
        let (detected_by, same) = refreshed?;
        match (leaned, same) {
            (Ok(Lean::Open(mut store, digests)), true) => {
                store.detected_by = detected_by;
                let _ = lean.set(digests);
                return Ok((*store, Vec::new()));
            }
            // Decoded whole before the refresh ended: freed beside the whole open.
            (Ok(Lean::Open(store, _)), false) => drop(std::thread::spawn(move || drop(store))),
            _ => {}
        }
        let cached = cache.load_tokened(root, kind, detected_by.clone());
        return Ok(finish(cache, cached, started, root, kind, detected_by, reads, None));
    }
    let (refreshed, cached) = std::thread::scope(|s| {
        let cached = s.spawn(|| cache.load_tokened(root, kind, String::new()));
        (refresh(), cached.join())
    });
    let detected_by = refreshed?;
    let cached = cached.unwrap_or(Err(Miss::Absent)).map(|(mut store, token, earlier)| {
        store.detected_by = detected_by.clone();
        (store, token, earlier)
    });
    Ok(finish(cache, cached, started, root, kind, detected_by, reads, None))
}

/// The cached store brought up to date (or loaded, when there is none), the cache written
/// again where it must be; `checked`: a check of the same snapshot's files already made
/// (`open_lean`'s), taken instead of walking and stating them again.
#[allow(clippy::too_many_arguments)]
fn finish(
    cache: &Cache,
    cached: Result<Cached, Miss>,
    started: Instant,
    root: &Path,
    kind: DialectKind,
    detected_by: String,
    reads: Reads<'_>,
    checked: Option<Check>,
) -> (Store, Vec<String>) {
    let mut warnings = Vec::new();
    // Read before any file is checked or read: a change after it makes it differ next time.
    let token = kind.format().files_token(root);
    let mut earlier = None;
    let (mut store, mut dirty) = match cached {
        // The format vouches that no file changed since the snapshot: no stat per file.
        Ok((mut store, saved, _)) if token.is_some() && saved == token => {
            store.from_cache = false;
            store.load_ms = started.elapsed().as_millis();
            (store, false)
        }
        // Entities held in memory (a database's snapshot) have no file to check one by one:
        // those the open found changed since the cached generation are re-read, or else the
        // snapshot is read whole.
        Ok((mut store, saved, was)) if store.dialect.in_memory() => {
            match saved.and_then(|s| kind.format().changed_since(root, s)) {
                Some(paths) => {
                    earlier = was.noted_for(&store, &paths);
                    store.refresh(&paths);
                    store.load_ms = started.elapsed().as_millis();
                    // A few rows changed: not the whole cache written again for them
                    // (docs/benchmarks.md, "Round: issue 43 … seventh session").
                    let lag = paths.len() <= LAG_PATHS
                        && saved.is_some_and(|s| kind.format().cached_may_lag(root, s, OPEN_AHEAD));
                    // The inbox over rows lint's memo was made for (a list after the list that
                    // followed a change): written, so that the next list opens without links.
                    let lag = lag && !(cache.lean.is_some() && lint_memo_holds(cache, &store));
                    (store, !lag)
                }
                None => (Store::load_with(root, kind, detected_by, None, reads), true),
            }
        }
        Ok((mut store, saved, was)) => {
            let (validation, began) = match checked {
                Some(mut c) if c.snapshot == (store.read_since, store.entities.len()) => {
                    // The check was made from the file stamps: what the entities tell is added.
                    validate::add_outdated(&store, &mut c.validation);
                    (c.validation, c.began)
                }
                _ => {
                    // As `Store::revalidate`: the store reads as of when the check began.
                    let began = std::time::SystemTime::now();
                    (validate::validate(&store), began)
                }
            };
            // The entities as decoded, before the files re-read change any: the write below
            // takes the earlier bytes of the chunks none of them is in.
            earlier = was.noted_for(&store, &validation.paths);
            let report = store.revalidate_checked(validation, began);
            store.load_ms = started.elapsed().as_millis();
            (store, !report.is_empty() || saved != token)
        }
        Err(miss) => {
            if let Miss::Invalid(why) = miss {
                warnings.push(why);
            }
            let store = Store::load_with(root, kind, detected_by, None, reads);
            let big = store.entities.len() >= MIN_ENTITIES;
            (store, big)
        }
    };
    // The catalogs' verdict, kept with the snapshot (and by this store, for the command that
    // opened it): computed for a snapshot about to be written, and when the one the snapshot
    // remembers no longer holds (then written even if none can be kept now, a catalog having
    // changed just now: the next open does not try again).
    let remembered = store.catalog_memo().saved().is_some();
    if (dirty || remembered) && catalog::remembered::recalled(&store).is_none() {
        let verdict = catalog::remembered::remember(&store);
        store.set_catalog_memo(verdict);
        dirty = true;
    }
    if dirty && let Err(e) = cache.write(&store, None, token, earlier.as_ref()) {
        warnings.push(e);
    }
    (store, warnings)
}

/// Whether lint's memo holds for `store` as it stands (its link, graph and duplicate findings
/// were made for these very entities and links).
fn lint_memo_holds(cache: &Cache, store: &Store) -> bool {
    use crate::store::lint::LintMemo;
    lint_memo::Memo::new(Some(cache), store).families(&store.dialect.manifest_lints()).is_some()
}

/// At most this many paths re-read over a cached store that may lag (`Format::cached_may_lag`)
/// and it is not written again.
const LAG_PATHS: usize = 64;

/// An open keeps a lagging cached store only while the format remembers the changes since
/// it for this many more writes than a decision needs (`store::DECISION_AHEAD`): the
/// decisions made after any open all open their parts, none the whole store (one in every
/// 32 did: docs/benchmarks.md, "Sixteenth session").
const OPEN_AHEAD: usize = crate::store::DECISION_AHEAD + 16;

/// Why no cached store was used.
#[derive(Debug)]
pub enum Miss {
    /// Caching is off, the dialect is not cacheable, or no cache file exists for this store.
    Absent,
    /// A cache file exists but cannot be used (the message names the file and says why).
    Invalid(String),
}

/// The cache directory and whether to use it.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    /// Set for the review inbox (`for_inbox`): `open` may give a store without its links,
    /// and then holds here the snapshot's digests of it (lint's memo, the keys).
    lean: Option<Arc<OnceLock<codec::LintDigest>>>,
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into(), lean: None }
    }

    /// This cache for a command that reads no entity's links (the review inbox): a store it
    /// opens unchanged since its snapshot may come without them (`lean_digest` then says so),
    /// the snapshot's links parsed and never held (issue 44). Such a store must not be saved,
    /// refreshed or linted but through lint's memo.
    pub fn for_inbox(&self) -> Cache {
        Cache { dir: self.dir.clone(), lean: Some(Arc::new(OnceLock::new())) }
    }

    /// Lint's memo digest of the store this cache opened without its links (None: it was
    /// opened whole, or not through `for_inbox`).
    pub fn lean_digest(&self) -> Option<u64> {
        self.lean.as_ref().and_then(|l| l.get()).map(|d| d.digest)
    }

    /// `side::keys_digest` of the store this cache opened without its links, as its snapshot
    /// recorded it (None as for `lean_digest`).
    pub fn lean_keys_digest(&self) -> Option<u64> {
        self.lean.as_ref().and_then(|l| l.get()).map(|d| d.keys)
    }

    /// The user's cache (`$FOLIO_CACHE_DIR`, else `$XDG_CACHE_HOME/folio`), unless
    /// `FOLIO_NO_CACHE` is set to anything but `0` or there is no home to put it in.
    pub fn from_env() -> Option<Cache> {
        if std::env::var_os("FOLIO_NO_CACHE").is_some_and(|v| !v.is_empty() && v != "0") {
            return None;
        }
        if let Some(dir) = std::env::var_os("FOLIO_CACHE_DIR").filter(|d| !d.is_empty()) {
            return Some(Cache::new(dir));
        }
        use etcetera::BaseStrategy;
        etcetera::choose_base_strategy().ok().map(|s| Cache::new(s.cache_dir().join("folio")))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn stores_dir(&self) -> PathBuf {
        self.dir.join("stores")
    }

    /// The cache file for a store: a readable name plus a digest of the canonical root.
    pub fn file_for(&self, root: &Path, kind: DialectKind) -> PathBuf {
        let root = canonical(root);
        let name: String = root
            .file_name()
            .map(|n| n.to_string_lossy().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(32).collect())
            .unwrap_or_default();
        let digest = crate::store::model::digest::of(root.as_os_str().as_encoded_bytes());
        let hex = &crate::store::model::digest::hex(&digest)[..20];
        self.stores_dir().join(format!("{name}-{kind}-{hex}.folio-cache"))
    }

    /// A file kept beside a store's snapshot for what folio derives from the store elsewhere
    /// (the text index): the snapshot's name with extension `ext`. `clear` removes it too.
    pub fn side_file(&self, root: &Path, kind: DialectKind, ext: &str) -> PathBuf {
        self.file_for(root, kind).with_extension(ext)
    }

    /// The store as cached, unvalidated (its files may have changed since: see `validate`).
    pub fn load(&self, root: &Path, kind: DialectKind, detected_by: String) -> Result<Store, Miss> {
        self.load_tokened(root, kind, detected_by).map(|(store, ..)| store)
    }

    /// `load`, with the snapshot the store was decoded from, for a write after its files are
    /// checked and re-read (`Earlier::noted_for`, `save_reusing`).
    pub fn load_keeping(
        &self,
        root: &Path,
        kind: DialectKind,
        detected_by: String,
    ) -> Result<(Store, codec::Earlier), Miss> {
        self.load_tokened(root, kind, detected_by).map(|(store, _, earlier)| (store, earlier))
    }

    /// `load`, with the files token the snapshot was taken at (`Format::files_token`) and the
    /// snapshot it was decoded from.
    fn load_tokened(&self, root: &Path, kind: DialectKind, detected_by: String) -> Result<Cached, Miss> {
        self.load_as(root, kind, detected_by, codec::decode_file)
    }

    /// The store's cache file, when there is one for this build, root and dialect young enough
    /// to use: the file, its path, its header and the instant its snapshot reads as of. The
    /// header is read first (64 KiB at most), so another store's or build's file is rejected
    /// before anything else of it is read.
    fn open_file(
        &self,
        root: &Path,
        kind: DialectKind,
    ) -> Result<(fs::File, PathBuf, Header, std::time::SystemTime), Miss> {
        if !cacheable(kind) {
            return Err(Miss::Absent);
        }
        let path = self.file_for(root, kind);
        let file = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Miss::Absent),
            Err(e) => return Err(Miss::Invalid(format!("{}: {e}", path.display()))),
        };
        let invalid = |why: String| Miss::Invalid(format!("{}: {why}; ignored", path.display()));
        let header = read_header(&path).map_err(invalid)?;
        if let Some(why) = mismatch(&header, root, kind) {
            return Err(invalid(why));
        }
        let read_since = UNIX_EPOCH + Duration::from_nanos(header.read_since_ns.max(0) as u64);
        if read_since.elapsed().is_ok_and(|age| age > MAX_AGE) {
            return Err(Miss::Absent);
        }
        Ok((file, path, header, read_since))
    }

    /// `load_tokened` decoding the snapshot with `decode`.
    fn load_as(
        &self,
        root: &Path,
        kind: DialectKind,
        detected_by: String,
        decode: fn(&fs::File) -> Result<codec::Snapshot, String>,
    ) -> Result<Cached, Miss> {
        let started = Instant::now();
        let (file, path, header, read_since) = self.open_file(root, kind)?;
        let invalid = |why: String| Miss::Invalid(format!("{}: {why}; ignored", path.display()));
        // The format opens while the snapshot is decoded: AIP-10 walks the whole workspace for
        // views and tombstones on one thread, a walk worth hiding (docs/benchmarks.md,
        // "Cache figures").
        let (snapshot, dialect) = rayon::join(|| decode(&file), || kind.open(root));
        let snapshot = snapshot.map_err(invalid)?;
        let (inputs, catalogs) = (snapshot.parse_inputs, snapshot.catalogs);
        let earlier = codec::Earlier::new(file, snapshot.chunks);
        let mut store = Store::from_parts(
            root,
            dialect,
            detected_by,
            snapshot.entities,
            snapshot.other_files,
            snapshot.walk_warnings,
            crate::store::Links::Resolved,
        );
        store.set_catalog_memo(catalogs);
        // Parsed under another workspace policy (AIP-10): any page may read differently now.
        if store.dialect.parse_inputs() != inputs {
            return Err(Miss::Absent);
        }
        store.read_since = read_since;
        store.from_cache = true;
        store.load_ms = started.elapsed().as_millis();
        Ok((store, header.files_token, earlier))
    }

    /// Write the store's snapshot atomically (temporary file, then rename over the old one).
    pub fn save(&self, store: &Store) -> Result<PathBuf, String> {
        self.save_as_of(store, None)
    }

    /// `save`, recording that the store reads as of `as_of` (a check began then and every file
    /// it doubted was read again) instead of the store's own `read_since`.
    pub fn save_as_of(&self, store: &Store, as_of: Option<std::time::SystemTime>) -> Result<PathBuf, String> {
        self.write(store, as_of, None, None)
    }

    /// `save_as_of`, the chunks of entities the store still holds as `earlier` decoded them
    /// (`Earlier::noted_for`) copied from it rather than encoded again.
    pub fn save_reusing(
        &self,
        store: &Store,
        as_of: Option<std::time::SystemTime>,
        earlier: Option<&codec::Earlier>,
    ) -> Result<PathBuf, String> {
        self.write(store, as_of, None, earlier)
    }

    /// `save_as_of`, with the store's files token read before its files were (None: the
    /// next open checks every file), the chunks of entities `earlier` decoded taken from it.
    fn write(
        &self,
        store: &Store,
        as_of: Option<std::time::SystemTime>,
        files_token: Option<u64>,
        earlier: Option<&codec::Earlier>,
    ) -> Result<PathBuf, String> {
        if self.lean_digest().is_some() {
            return Err("a store opened without its links is never written to the cache".into());
        }
        let path = self.file_for(&store.root, store.kind());
        let dir = self.stores_dir();
        let header = Header {
            format: codec::FORMAT,
            build: build_id().to_string(),
            dialect: store.kind().name().to_string(),
            root: canonical(&store.root).to_string_lossy().into_owned(),
            read_since_ns: as_of
                .unwrap_or(store.read_since)
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as i128)
                .unwrap_or(0),
            files_token,
            entities: 0,
            chunks: 0,
        };
        let inputs = store.dialect.parse_inputs();
        let catalogs = store.catalog_memo().saved();
        // For the inbox's open without links (`open_lean`), which cannot take it itself.
        let manifest = store.dialect.manifest_lints();
        let (digest, keys) = rayon::join(|| lint_memo::digest(store, &manifest), || side::keys_digest(store));
        let lint = codec::LintDigest { manifest: codec::manifest_key(&manifest), digest, keys };
        let sections = codec::encode(
            header,
            &store.entities,
            &store.other_files,
            &store.walk_warnings,
            inputs,
            catalogs,
            Some(lint),
            earlier,
        )?;
        let fail = |e: std::io::Error| format!("{}: cannot write the cache ({e})", dir.display());
        fs::create_dir_all(&dir).map_err(fail)?;
        let tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(&dir).map_err(fail)?;
        sections.write_to(tmp.as_file()).map_err(fail)?;
        tmp.persist(&path).map_err(|e| fail(e.error))?;
        Ok(path)
    }

    /// Remove the cache file of one store, or every cache file, with their side files; returns
    /// how many snapshots went.
    pub fn clear(&self, only: Option<(&Path, DialectKind)>) -> std::io::Result<usize> {
        let files = match only {
            Some((root, kind)) => vec![self.file_for(root, kind)],
            None => self.entries().into_iter().map(|e| e.path).collect(),
        };
        let side = |p: &Path| SIDE_EXTS.iter().any(|ext| p.extension() == Some(ext.as_ref()));
        let sides: Vec<PathBuf> = match only {
            Some(_) => files.iter().flat_map(|f| SIDE_EXTS.map(|ext| f.with_extension(ext))).collect(),
            None => fs::read_dir(self.stores_dir())
                .map(|d| d.flatten().map(|e| e.path()).filter(|p| side(p)).collect())
                .unwrap_or_default(),
        };
        let remove = |f: &Path| match fs::remove_file(f) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(std::io::Error::new(e.kind(), format!("{}: {e}", f.display()))),
        };
        let mut n = 0;
        for f in files {
            n += usize::from(remove(&f)?);
        }
        for f in sides {
            remove(&f)?;
        }
        Ok(n)
    }

    /// Every cache file in the directory, with its header when it can be read.
    pub fn entries(&self) -> Vec<Entry> {
        let Ok(dir) = fs::read_dir(self.stores_dir()) else { return Vec::new() };
        let mut out: Vec<Entry> = dir
            .flatten()
            .filter(|d| d.file_name().to_string_lossy().ends_with(".folio-cache"))
            .map(|d| {
                let path = d.path();
                let bytes = d.metadata().map(|m| m.len()).unwrap_or(0);
                let header = read_header(&path);
                let side = |ext: &str| fs::metadata(path.with_extension(ext)).ok().map(|m| m.len());
                let (text_index_bytes, profiles_bytes) = (side(TEXT_EXT), side(PROFILES_EXT));
                Entry { path, bytes, header, text_index_bytes, profiles_bytes }
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }
}

/// One cache file as `folio cache info` lists it.
#[derive(Debug)]
pub struct Entry {
    pub path: PathBuf,
    pub bytes: u64,
    pub header: Result<Header, String>,
    /// The size of the store's text index beside it (full-text recall), when one was written.
    pub text_index_bytes: Option<u64>,
    /// The size of its near-duplicate profiles beside it (`folio lint`), when written.
    pub profiles_bytes: Option<u64>,
}

/// Read just enough of a cache file for its header.
pub fn read_header(path: &Path) -> Result<Header, String> {
    use std::io::Read;
    let mut head = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(64 * 1024).read_to_end(&mut head))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    codec::decode_header(&head)
}

/// Why a header does not describe this store as this build reads it (None: it does).
pub fn mismatch(header: &Header, root: &Path, kind: DialectKind) -> Option<String> {
    if header.build != build_id() {
        return Some(format!("written by another folio build ({})", header.build));
    }
    if header.dialect != kind.name() {
        return Some(format!("written for dialect {}", header.dialect));
    }
    let root = canonical(root);
    if header.root != root.to_string_lossy() {
        return Some(format!("written for {}", header.root));
    }
    None
}

/// Whether stores of `kind` are cached: only where entities depend on their own file's bytes
/// alone (the format says; see `Format::cacheable`).
pub fn cacheable(kind: DialectKind) -> bool {
    kind.format().cacheable()
}

/// This build: version plus the executable's size and mtime (a rebuilt binary may parse
/// differently, and a cache is never worth a wrong answer).
pub fn build_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().and_then(fs::metadata);
        let stamp = exe.map(|m| format!("{}-{}", m.len(), crate::store::read::fsio::mtime_ns(&m))).unwrap_or_default();
        format!("folio {} {stamp}", env!("CARGO_PKG_VERSION"))
    })
}

fn canonical(root: &Path) -> PathBuf {
    fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
}

/// The tests' example stores: tests/corpora, and ../shared for those the repository may not
/// carry (tests/support/corpus_paths.rs, shared with the integration tests).
#[cfg(test)]
#[path = "../../../../../../tests/support/corpus_paths.rs"]
mod test_corpora;

#[cfg(test)]
mod tests {
    use super::test_corpora::{corpus, corpus_or_skip};
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    fn scratch_copy(src: &Path) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let dst = dir.path().join("store");
        let ok = std::process::Command::new("cp").arg("-r").arg(src).arg(&dst).status().unwrap().success();
        assert!(ok);
        std::process::Command::new("chmod").args(["-R", "u+w"]).arg(&dst).status().unwrap();
        (dir, dst)
    }

    /// Everything a loaded store holds, in a comparable form.
    fn fingerprint(s: &Store) -> String {
        format!("{:?}\n{:?}\n{:?}\n{:?}", s.entities, s.other_files, s.backlinks, s.walk_warnings)
    }

    #[test]
    fn a_cached_store_equals_a_fresh_load_for_every_cacheable_corpus() {
        let fixture =
            |rel: &str| Some(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures").join(rel));
        let carried = |rel: &str| Some(corpus(rel));
        // The corpora the repository may not carry are read from ../shared; without it each is
        // named on stderr and left out (a failure under FOLIO_REQUIRE_SHARED or CI).
        for (root, kind) in [
            (carried("okf-v0.2/acme_retail"), crate::store::dialect::okf::KIND),
            (carried("okf-v0.1"), crate::store::dialect::okf::KIND),
            (corpus_or_skip("elophanto/knowledge"), crate::store::dialect::elophanto::KIND),
            (carried("okf-v0.2/ga4"), crate::store::dialect::vault::KIND),
            (corpus_or_skip("evolve/public-repo-vinodmut"), crate::store::dialect::evolve::KIND),
            (fixture("evolve-project/.evolve/entities"), crate::store::dialect::evolve::KIND),
            (fixture("opendray-homelab"), crate::store::dialect::opendray::KIND),
            (fixture("awareness-home"), crate::store::dialect::awareness::KIND),
            (fixture("aip10-wiki"), crate::store::dialect::aip10::KIND),
            (corpus_or_skip("aip-10/ts-fixtures"), crate::store::dialect::aip10::KIND),
        ] {
            let Some(root) = root else { continue };
            assert!(cacheable(kind), "{kind}");
            let rel = root.display().to_string();
            let dir = tempfile::tempdir().unwrap();
            let cache = Cache::new(dir.path());
            let fresh = Store::load(&root, kind, "t".into());
            cache.save(&fresh).unwrap();
            let cached = cache.load(&root, kind, "t".into()).unwrap_or_else(|e| panic!("{rel}: {e:?}"));
            assert!(cached.from_cache);
            assert_eq!(fingerprint(&cached), fingerprint(&fresh), "{rel}");
            for e in &fresh.entities {
                assert_eq!(
                    cached.find(&e.id).map(|i| &cached.entity(i).path),
                    fresh.find(&e.id).map(|i| &fresh.entity(i).path)
                );
            }
            assert!(
                validate::validate(&cached).paths.is_empty()
                    || fresh.read_since.elapsed().unwrap() < Duration::from_secs(3)
            );
        }
    }

    /// An AIP-10 snapshot taken under another workspace policy is not used, and pages whose
    /// `max-age` findings the clock has changed since (here: parsed "a day earlier", one day
    /// fewer in their message) are read again, so the store equals a full load.
    #[test]
    fn aip10_snapshots_follow_the_policy_and_the_clock() {
        let (_keep, root) =
            scratch_copy(&Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/aip10-wiki"));
        let kind = crate::store::dialect::aip10::KIND;
        let manifest = root.join("KNOWLEDGE.md");
        let text = fs::read_to_string(&manifest).unwrap().replace("days: 3650", "days: 30");
        fs::write(&manifest, text).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let mut store = Store::load(&root, kind, "t".into());
        store.read_since = std::time::SystemTime::now() + Duration::from_secs(5);
        let stale = |s: &Store| -> Vec<String> {
            s.entities
                .iter()
                .filter(|e| e.problems.iter().any(|p| p.message.contains("days ago")))
                .map(|e| e.path.clone())
                .collect()
        };
        let aged = stale(&store);
        assert!(aged.len() > 3, "{aged:?}");
        // The snapshot as a load a day earlier would have left it.
        for e in store.entities.iter_mut().filter(|e| aged.contains(&e.path)) {
            for p in &mut Arc::make_mut(e).problems {
                if let Some(rest) = p.message.strip_prefix("last updated ") {
                    let (days, tail) = rest.split_once(' ').unwrap();
                    p.message = format!("last updated {} {tail}", days.parse::<i64>().unwrap() - 1);
                }
            }
        }
        cache.save(&store).unwrap();
        let mut cached = cache.load(&root, kind, "t".into()).unwrap();
        assert_eq!(validate::validate(&cached).paths, aged, "exactly the aged pages are read again");
        cached.revalidate();
        assert_eq!(fingerprint(&cached), fingerprint(&Store::load(&root, kind, "t".into())));
        // Up to date now: nothing is read again. A new policy: the snapshot is not used.
        cached.read_since = std::time::SystemTime::now() + Duration::from_secs(5);
        cache.save(&cached).unwrap();
        assert!(validate::validate(&cache.load(&root, kind, "t".into()).unwrap()).paths.is_empty());
        let text = fs::read_to_string(&manifest).unwrap().replace("min: 0.5", "min: 0.95");
        fs::write(&manifest, text).unwrap();
        assert!(matches!(cache.load(&root, kind, "t".into()), Err(Miss::Absent)));
    }

    /// Files written just before the snapshot was read are doubted once (their mtime is within
    /// the slack of the reads), re-read, and the rewritten cache reads as of that check: the
    /// next open trusts them and writes nothing.
    #[test]
    fn files_doubted_for_their_recent_mtime_are_reread_once_not_on_every_open() {
        let (_keep, root) = scratch_copy(&corpus("okf-v0.2/acme_retail"));
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let kind = crate::store::dialect::okf::KIND;
        // Touch every file now, load, cache: all of them are within the slack of the reads.
        for e in Store::load(&root, kind, "t".into()).entities.iter() {
            let p = root.join(&e.path);
            let text = std::fs::read(&p).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        cache.save(&Store::load(&root, kind, "t".into())).unwrap();
        std::thread::sleep(Duration::from_millis(2300));
        let file = cache.file_for(&root, kind);
        let mut doubted = cache.load(&root, kind, "t".into()).unwrap();
        assert!(!validate::validate(&doubted).paths.is_empty(), "recent files are doubted");
        doubted.revalidate();
        cache.save(&doubted).unwrap();
        let written = std::fs::metadata(&file).unwrap().modified().unwrap();
        let again = cache.load(&root, kind, "t".into()).unwrap();
        assert_eq!(validate::validate(&again).paths, Vec::<String>::new(), "nothing doubted twice");
        let (_, warnings) = open(Some(&cache), &root, kind, "t".into(), Reads::Entities);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), written, "the cache is not rewritten");
    }

    #[test]
    fn changed_added_and_removed_files_are_found_and_reread() {
        let (_keep, root) = scratch_copy(&corpus("okf-v0.2/acme_retail"));
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let mut store = Store::load(&root, crate::store::dialect::okf::KIND, "t".into());
        // Pretend the snapshot was taken long after the files were written (no mtime slack).
        store.read_since = std::time::SystemTime::now() + Duration::from_secs(5);
        cache.save(&store).unwrap();
        let paths: Vec<String> = store.entities.iter().map(|e| e.path.clone()).collect();
        let (grown, touched, gone) = (&paths[0], &paths[1], &paths[2]);
        let text = fs::read_to_string(root.join(grown)).unwrap();
        fs::write(root.join(grown), format!("{text}\nmore\n")).unwrap();
        // Same size, other mtime.
        let t = fs::File::options().write(true).open(root.join(touched)).unwrap();
        t.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600)).unwrap();
        fs::remove_file(root.join(gone)).unwrap();
        let parent = crate::store::model::relpath::parent(grown);
        let added = if parent.is_empty() { "added-note.md".to_string() } else { format!("{parent}/added-note.md") };
        fs::write(root.join(&added), "---\ntype: note\ntitle: Added\n---\n# Added\n").unwrap();

        let mut cached = cache.load(&root, crate::store::dialect::okf::KIND, "t".into()).unwrap();
        let mut expected = vec![grown.clone(), touched.clone(), gone.clone(), added.clone()];
        expected.sort();
        assert_eq!(validate::validate(&cached).paths, expected);
        let report = cached.revalidate();
        assert_eq!(report.parsed, 3, "only the grown, touched and added files are read");
        assert!(!cached.from_cache);
        let fresh = Store::load(&root, crate::store::dialect::okf::KIND, "t".into());
        assert_eq!(fingerprint(&cached), fingerprint(&fresh));
    }

    #[test]
    fn a_corrupt_truncated_or_foreign_cache_is_ignored_with_a_reason() {
        let root = corpus("okf-v0.2/acme_retail");
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let store = Store::load(&root, crate::store::dialect::okf::KIND, "t".into());
        let file = cache.save(&store).unwrap();
        let good = fs::read(&file).unwrap();
        let reason = |c: &Cache| match c.load(&root, crate::store::dialect::okf::KIND, "t".into()) {
            Err(Miss::Invalid(why)) => why,
            Err(Miss::Absent) => "absent".into(),
            Ok(_) => "loaded".into(),
        };
        fs::write(&file, &good[..good.len() / 2]).unwrap();
        assert!(reason(&cache).contains("truncated"), "{}", reason(&cache));
        let mut flipped = good.clone();
        let n = flipped.len();
        flipped[n - 10] ^= 1;
        fs::write(&file, &flipped).unwrap();
        assert!(reason(&cache).contains("checksum"), "{}", reason(&cache));
        fs::write(&file, b"garbage").unwrap();
        assert!(reason(&cache).contains("not a folio cache"), "{}", reason(&cache));
        // Another store's cache under this store's name (a moved store, a copied cache dir).
        let other = tempfile::tempdir().unwrap();
        let moved = other.path().join("moved");
        fs::create_dir(&moved).unwrap();
        fs::write(cache.file_for(&moved, crate::store::dialect::okf::KIND), &good).unwrap();
        let why = match cache.load(&moved, crate::store::dialect::okf::KIND, "t".into()) {
            Err(Miss::Invalid(why)) => why,
            _ => panic!("a cache written for another root was used"),
        };
        assert!(why.contains("written for"), "{why}");
        assert!(matches!(cache.load(&root, crate::store::dialect::vault::KIND, "t".into()), Err(Miss::Absent)));
    }

    #[test]
    fn an_unwritable_cache_dir_is_an_error_not_a_panic_and_open_still_loads() {
        let root = corpus("okf-v0.2/acme_retail");
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        fs::write(&blocker, "not a directory").unwrap();
        let cache = Cache::new(blocker.join("sub"));
        let store = Store::load(&root, crate::store::dialect::okf::KIND, "t".into());
        let e = cache.save(&store).unwrap_err();
        assert!(e.contains("cannot write the cache"), "{e}");
        let (opened, _) = open(Some(&cache), &root, crate::store::dialect::okf::KIND, "t".into(), Reads::Entities);
        assert_eq!(opened.entities.len(), store.entities.len());
    }

    #[test]
    fn clear_removes_one_store_or_all() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let a = corpus("okf-v0.2/acme_retail");
        let b = corpus("okf-v0.2/ga4");
        cache.save(&Store::load(&a, crate::store::dialect::okf::KIND, "t".into())).unwrap();
        cache.save(&Store::load(&b, crate::store::dialect::okf::KIND, "t".into())).unwrap();
        assert_eq!(cache.entries().len(), 2);
        assert!(cache.entries().iter().all(|e| e.header.as_ref().is_ok_and(|h| h.build == build_id())));
        assert_eq!(cache.clear(Some((&a, crate::store::dialect::okf::KIND))).unwrap(), 1);
        assert_eq!(cache.entries().len(), 1);
        assert_eq!(cache.clear(None).unwrap(), 1);
        assert!(cache.entries().is_empty());
    }
}
