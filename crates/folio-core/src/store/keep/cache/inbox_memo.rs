//! The review inbox as `review list` last wrote it, beside the store's snapshot (issues 43 and
//! 44): a list asked again of a store no file or row of which changed since answers with those
//! bytes, checked before any entity of the snapshot is decoded, instead of decoding the store,
//! linting it from lint's memo, taking every entity's facts and writing 100k lines again.
//!
//! The answer is kept under a key of everything the listing reads besides the snapshot it
//! came from: the snapshot itself (its file and header, and lint's digest of the store it
//! holds), folio's review ledger, the lint config, the format's own log of verdicts, today's
//! date (ages are counted in days) and the request (text or JSON, the filter, the grouping).
//! It is kept and used only where nothing else can move the listing:
//! - the store opened without its links as its snapshot holds it (`open_lean`), nothing
//!   changed since, for the dialects whose parse of an unchanged file never depends on the
//!   clock (`Dialect::may_outdate`);
//! - a catalog verdict remembered with the snapshot that holds by its files alone (no path was
//!   looked up while it was computed);
//! - not in a git repository (the listing attributes its items from git's history).
//!
//! Anything else lists as before; a file that cannot be read or does not match is ignored.
use std::fs;
use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;
use std::sync::OnceLock;

use sha2::{Digest as _, Sha256};

use super::{Cache, INBOX_EXT, codec};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::write::catalog::remembered::Remembered;

const MAGIC: &[u8; 8] = b"FOLIOI1\n";
const WHAT: &str = "inbox memo";

/// A listing's key: the SHA-256 of what it was made from.
pub type Key = [u8; 32];

/// What `review list` asks of the cache's inbox open (`Cache::asking`): the request, and once
/// the store is open, either the answer kept for it or the key to keep the new one under.
#[derive(Debug, Default)]
pub struct Ask {
    request: String,
    /// The bytes kept for this request, when they answer for the store as it is.
    answer: OnceLock<Vec<u8>>,
    /// The key this store's listing is kept under, when it may be kept.
    key: OnceLock<Key>,
}

impl Ask {
    /// `request` names everything of the command line that changes the listing's bytes.
    pub fn new(request: String) -> Ask {
        Ask { request, ..Ask::default() }
    }

    pub(super) fn request(&self) -> &str {
        &self.request
    }

    pub(super) fn answered(&self, bytes: Vec<u8>) {
        let _ = self.answer.set(bytes);
    }

    pub(super) fn keyed(&self, key: Key) {
        let _ = self.key.set(key);
    }

    /// Whether the open gave a key to keep this request's listing under.
    pub fn keyed_for_keeping(&self) -> bool {
        self.key.get().is_some()
    }

    /// The listing kept for this request, when the open answered with it.
    pub fn answer(&self) -> Option<&[u8]> {
        self.answer.get().map(Vec::as_slice)
    }
}

/// Whether a listing of the store at `root` may be kept and answered with (see the module
/// comment): its format opened as `dialect`, `catalogs` the verdict its snapshot remembers.
pub(super) fn answerable(root: &Path, dialect: &dyn Dialect, catalogs: Option<&Remembered>) -> bool {
    catalogs.is_none_or(|c| c.holds_on_disk(root))
        && !dialect.may_outdate()
        && matches!(crate::store::history::git::open(root), Ok(None))
}

/// The key of the listing of the store at `root` whose snapshot is `snapshot` (its `header`,
/// lint's digest `lint` of it) for `request`; None when something it reads cannot be read.
pub(super) fn key(
    root: &Path,
    kind: DialectKind,
    snapshot: &fs::File,
    header: &codec::Header,
    lint: &codec::LintDigest,
    request: &str,
) -> Option<Key> {
    let meta = snapshot.metadata().ok()?;
    let mut h = Sha256::new();
    h.update(super::build_id().as_bytes());
    h.update([0]);
    h.update(request.as_bytes());
    h.update([0]);
    for n in [meta.len(), meta.ino(), meta.dev(), lint.manifest, lint.digest, lint.keys, header.entities] {
        h.update(n.to_le_bytes());
    }
    h.update(meta.mtime().to_le_bytes());
    h.update(meta.mtime_nsec().to_le_bytes());
    h.update(header.read_since_ns.to_le_bytes());
    h.update(header.files_token.unwrap_or(0).to_le_bytes());
    h.update([u8::from(header.files_token.is_some())]);
    let today = crate::store::write::audit::now().date().to_julian_day();
    h.update(today.to_le_bytes());
    let state = crate::store::write::state::State::for_store(root, kind);
    let config = crate::store::lint::config::config_path(root, kind);
    let log = kind.format().review().logged_verdicts_file(root);
    for file in [Some(state.verdicts_path()), Some(config), log] {
        hash_file(&mut h, file.as_deref())?;
    }
    Some(h.finalize().into())
}

/// `path`'s bytes into `h`, a missing file told from an empty one; None when it cannot be read.
fn hash_file(h: &mut Sha256, path: Option<&Path>) -> Option<()> {
    let Some(path) = path else {
        h.update([0]);
        return Some(());
    };
    match fs::File::open(path) {
        Ok(mut f) => {
            h.update([1]);
            let mut buf = vec![0u8; 1 << 16];
            loop {
                match f.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => h.update(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return None,
                }
            }
            h.update(b"\0end");
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => h.update([2]),
        Err(_) => return None,
    }
    Some(())
}

/// The listing kept at `path` under `key`; None when there is none, it is damaged or it was
/// kept under another key.
pub(super) fn kept(path: &Path, key: &Key) -> Option<Vec<u8>> {
    let mut r = super::side::open(path, MAGIC, WHAT).ok()??;
    let kept_key = super::side::section(&mut r).ok()?;
    if kept_key != key {
        return None;
    }
    let bytes = super::side::section(&mut r).ok()?;
    // Nothing after the listing: a file written whole.
    let mut rest = [0u8; 1];
    matches!(r.read(&mut rest), Ok(0)).then_some(bytes)
}

/// Keep `listing` as the answer of the store at `root` the cache opened for `ask`, when the
/// open gave a key for it and the key holds still (nothing the listing read changed while it
/// was written). Returns why it could not be written.
pub fn keep(cache: &Cache, root: &Path, kind: DialectKind, listing: &[u8]) -> Result<(), String> {
    let (Some(ask), Some(lint)) = (cache.inbox.as_deref(), cache.lean.as_ref().and_then(|l| l.get())) else {
        return Ok(());
    };
    let Some(want) = ask.key.get() else { return Ok(()) };
    let Ok((file, _, header, _)) = cache.open_file(root, kind) else { return Ok(()) };
    if key(root, kind, &file, &header, lint, ask.request()).as_ref() != Some(want) {
        return Ok(());
    }
    let path = cache.side_file(root, kind, INBOX_EXT);
    super::side::write(cache, &path, MAGIC, &[want.as_slice(), listing], WHAT)
}

#[cfg(test)]
mod tests;
