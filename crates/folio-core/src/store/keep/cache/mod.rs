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
pub mod inbox_memo;
pub mod lint_memo;
mod opening;
pub mod profiles;
pub mod side;
pub mod validate;

pub use opening::*;

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
/// Extension of the side file holding the last review listing (`inbox_memo`).
pub const INBOX_EXT: &str = "folio-inbox";
/// Every side file a snapshot may have beside it.
const SIDE_EXTS: [&str; 5] = [TEXT_EXT, PROFILES_EXT, HASHES_EXT, LINT_EXT, INBOX_EXT];

/// Stores with fewer entities are not cached: they load from their files about as fast.
pub const MIN_ENTITIES: usize = 1000;
/// A snapshot older than this is rebuilt: some per-file checks depend on the clock (OKF
/// `stale_after`), which a size and mtime check cannot see.
const MAX_AGE: Duration = Duration::from_secs(24 * 3600);

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
    /// Set by `review list` (`asking`): the listing it asks for, answered from the one kept
    /// for an unchanged store (`inbox_memo`) before the store is decoded.
    inbox: Option<Arc<inbox_memo::Ask>>,
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into(), lean: None, inbox: None }
    }

    /// This cache for a command that reads no entity's links (the review inbox): a store it
    /// opens unchanged since its snapshot may come without them (`lean_digest` then says so),
    /// the snapshot's links parsed and never held (issue 44). Such a store must not be saved,
    /// refreshed or linted but through lint's memo.
    pub fn for_inbox(&self) -> Cache {
        Cache { dir: self.dir.clone(), lean: Some(Arc::new(OnceLock::new())), inbox: None }
    }

    /// This inbox cache (`for_inbox`) for a listing of `request` (what of the command line
    /// changes its bytes): an open of a store unchanged since its snapshot answers with the
    /// listing kept for it (`inbox_answer`) without decoding it, and otherwise says under
    /// which key the listing it makes may be kept (`inbox_memo::keep`).
    pub fn asking(mut self, request: String) -> Cache {
        self.inbox = Some(Arc::new(inbox_memo::Ask::new(request)));
        self
    }

    /// Whether the listing this cache's open leads to may be kept (`inbox_memo::keep`).
    pub fn inbox_keepable(&self) -> bool {
        self.inbox.as_ref().is_some_and(|a| a.keyed_for_keeping())
    }

    fn answered(&self, listing: Vec<u8>) {
        if let Some(ask) = &self.inbox {
            ask.answered(listing);
        }
    }

    fn keyed(&self, key: Option<inbox_memo::Key>) {
        if let (Some(ask), Some(key)) = (&self.inbox, key) {
            ask.keyed(key);
        }
    }

    /// The listing kept for this cache's request (`asking`), when its open answered with it:
    /// the store it gave then is a stand-in without entities, to be left unread.
    pub fn inbox_answer(&self) -> Option<&[u8]> {
        self.inbox.as_ref().and_then(|a| a.answer())
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
        remove_abandoned_temporaries(&dir);
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
                Entry {
                    text_index_bytes: side(TEXT_EXT),
                    profiles_bytes: side(PROFILES_EXT),
                    facts_bytes: side(HASHES_EXT),
                    lint_memo_bytes: side(LINT_EXT),
                    listing_bytes: side(INBOX_EXT),
                    path,
                    bytes,
                    header,
                }
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
    /// The size of the review inbox's facts beside it (`hashes`), when written.
    pub facts_bytes: Option<u64>,
    /// The size of lint's memo beside it (`lint_memo`), when written.
    pub lint_memo_bytes: Option<u64>,
    /// The size of the last review listing kept beside it (`inbox_memo`), when written.
    pub listing_bytes: Option<u64>,
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

/// How long a temporary cache file may go unwritten before it is taken for abandoned: a
/// writer busy with one keeps its time current.
const ABANDONED_AFTER: Duration = Duration::from_secs(10 * 60);

/// A write killed part way leaves its temporary file (`.tmp-…`, tens of MB for a large
/// store) in the cache folder, where nothing would ever read or remove it: those older than
/// `ABANDONED_AFTER` go before the next snapshot or side file is written.
fn remove_abandoned_temporaries(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let now = std::time::SystemTime::now();
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with(".tmp-") {
            continue;
        }
        let age = e.metadata().and_then(|m| m.modified()).ok().and_then(|t| now.duration_since(t).ok());
        if age.is_some_and(|age| age >= ABANDONED_AFTER) {
            // Another process may have removed it meanwhile: nothing to report.
            let _ = fs::remove_file(e.path());
        }
    }
}

/// The tests' example stores: tests/corpora, and ../shared for those the repository may not
/// carry (tests/support/corpus_paths.rs, shared with the integration tests).
#[cfg(test)]
#[path = "../../../../../../tests/support/corpus_paths.rs"]
mod test_corpora;

#[cfg(test)]
mod tests;
