//! The content hashes of a store's entities in folio's persistent cache, beside its snapshot
//! (issue 44): the inbox names every queued item by the hash of its text, and hashing every
//! file of a large store on each `review list` cost more than opening it. An entity's hash is
//! kept while its file has the size and mtime it had when it was hashed (the store cache's
//! per-file check, `side::kept`); the others are hashed from their text again and the file is
//! rewritten when any was.
use std::path::Path;
use std::time::SystemTime;

use super::side::{self, Key};
use super::{Cache, HASHES_EXT, codec::Header};
use crate::store::Store;
use crate::store::history::attribution;
use crate::store::model::digest;
use crate::store::model::entity::EntityIdx;
use crate::store::review::queue::QueueItem;

const MAGIC: &[u8; 8] = b"FOLIOH1\n";
/// Bumped whenever the layout or what is hashed changes.
pub const FORMAT: u32 = 1;
const WHAT: &str = "content hashes";
/// A SHA-256 digest.
const LEN: usize = 32;

/// The entities' hashes as the cache knew them, and those computed since, for one store.
pub struct Hashes {
    path: Option<std::path::PathBuf>,
    slots: Vec<Option<[u8; LEN]>>,
    /// Hashes computed this run (not taken from the file).
    pub computed: usize,
    /// Hashes taken from the file.
    pub reused: usize,
    /// Why the file was ignored or could not be written.
    pub warnings: Vec<String>,
    started: SystemTime,
}

impl Hashes {
    /// The saved hash of every entity of `store` whose file is unchanged since it was hashed
    /// (none without a cache, or for a store the store cache does not keep).
    pub fn open(cache: Option<&Cache>, store: &Store) -> Hashes {
        let n = store.entities.len();
        let started = SystemTime::now();
        let mut out =
            Hashes { path: None, slots: vec![None; n], computed: 0, reused: 0, warnings: Vec::new(), started };
        let Some(cache) = cache.filter(|_| super::cacheable(store.kind()) && n >= super::MIN_ENTITIES) else {
            return out;
        };
        let path = cache.side_file(&store.root, store.kind(), HASHES_EXT);
        match read(&path, store) {
            Ok(Some((keys, read_since_ns, saved))) => {
                for (old, to) in side::kept(&keys, read_since_ns, store).into_iter().enumerate() {
                    if let Some(to) = to {
                        out.slots[to as usize] = saved.get(old).copied().flatten();
                    }
                }
            }
            Ok(None) => {}
            Err(why) => out.warnings.push(format!("{}: {why}; ignored", path.display())),
        }
        out.reused = out.slots.iter().flatten().count();
        out.path = Some(path);
        out
    }

    /// The entity's hash (`sha256:<hex>`), from the cache or else of `text` (its own text, as
    /// `Store::read_entity_text` gives it).
    pub fn hash(&mut self, idx: EntityIdx, text: &str) -> String {
        if let Some(h) = self.slots.get(idx as usize).copied().flatten() {
            return format!("sha256:{}", hex(&h));
        }
        let hash = digest::of(text.as_bytes());
        if let Some(slot) = self.slots.get_mut(idx as usize) {
            *slot = unhex(digest::hex(&hash));
            self.computed += 1;
        }
        hash
    }

    /// Write the file back when any hash was computed this run.
    pub fn save(&mut self, cache: Option<&Cache>, store: &Store) {
        let (Some(cache), Some(path)) = (cache, self.path.as_deref()) else { return };
        if self.computed == 0 {
            return;
        }
        // Entities hashed now were read after `started`, their keys are the store's stat of
        // them: the older of the two instants is what the next run may trust mtimes against.
        if let Err(e) = write(cache, path, store, &self.slots, self.started.min(store.read_since)) {
            self.warnings.push(e);
        }
    }
}

/// The review inbox (`attribution::inbox`) with the near-duplicate profiles and the hashes of
/// unchanged files from the cache, the hashes written back when any was computed (issue 44).
pub fn inbox(cache: Option<&Cache>, store: &Store) -> (Vec<QueueItem>, Vec<String>) {
    let mut hashes = Hashes::open(cache, store);
    let profiles = || super::profiles::open(cache, store).0;
    let items = attribution::inbox_using(store, &profiles, &mut |i, text| hashes.hash(i, text));
    hashes.save(cache, store);
    (items, hashes.warnings)
}

/// The cached hashes with the keys they were made from and since when; `None` when there is no
/// file; an error says why a file present cannot be used.
type Saved = (Vec<Key>, i128, Vec<Option<[u8; LEN]>>);

fn read(path: &Path, store: &Store) -> Result<Option<Saved>, String> {
    use bincode::Options;
    let Some(mut r) = side::open(path, MAGIC, WHAT)? else { return Ok(None) };
    let header: Header = side::options().deserialize(&side::section(&mut r)?).map_err(|e| format!("header: {e}"))?;
    if let Some(why) = side::invalid_header(&header, FORMAT, WHAT, store) {
        return Err(why);
    }
    let keys: Vec<Key> = side::options().deserialize(&side::section(&mut r)?).map_err(|e| format!("keys: {e}"))?;
    let bytes = side::section(&mut r)?;
    if bytes.len() != keys.len() * (LEN + 1) || keys.len() as u64 != header.entities {
        return Err(format!("{} bytes of hashes, {} entities listed", bytes.len(), keys.len()));
    }
    let hashes =
        bytes.chunks_exact(LEN + 1).map(|c| (c[0] == 1).then(|| c[1..].try_into().unwrap_or([0; LEN]))).collect();
    Ok(Some((keys, header.read_since_ns, hashes)))
}

fn write(
    cache: &Cache,
    path: &Path,
    store: &Store,
    slots: &[Option<[u8; LEN]>],
    as_of: SystemTime,
) -> Result<(), String> {
    use bincode::Options;
    let mut hashes = Vec::with_capacity(slots.len() * (LEN + 1));
    for s in slots {
        hashes.push(u8::from(s.is_some()));
        hashes.extend_from_slice(&s.unwrap_or([0; LEN]));
    }
    let encoded = [
        side::options().serialize(&side::header(store, FORMAT, as_of)).map_err(|e| e.to_string())?,
        side::options().serialize(&Key::all(store)).map_err(|e| e.to_string())?,
        hashes,
    ];
    let sections: Vec<&[u8]> = encoded.iter().map(Vec::as_slice).collect();
    side::write(cache, path, MAGIC, &sections, WHAT)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(2 * LEN), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(s: &str) -> Option<[u8; LEN]> {
    let mut out = [0u8; LEN];
    if s.len() != 2 * LEN {
        return None;
    }
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::Duration;

    /// A vault of `MIN_ENTITIES` + 1 notes written an hour ago.
    fn vault() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let then = SystemTime::now() - Duration::from_secs(3600);
        for i in 0..=super::super::MIN_ENTITIES {
            let p = dir.path().join(format!("note-{i}.md"));
            fs::write(&p, format!("---\ntitle: Note {i}\n---\nBody of note {i}.\n")).unwrap();
            fs::File::options().write(true).open(&p).unwrap().set_modified(then).unwrap();
        }
        dir
    }

    /// Every entity's hash, through `Hashes`.
    fn all(cache: Option<&Cache>, store: &Store) -> (Vec<Option<String>>, usize, usize) {
        let mut h = Hashes::open(cache, store);
        let out = (0..store.entities.len() as EntityIdx)
            .map(|i| Some(h.hash(i, &store.read_entity_text(i).unwrap())))
            .collect();
        h.save(cache, store);
        (out, h.computed, h.reused)
    }

    #[test]
    fn a_second_run_hashes_nothing_and_an_edited_file_is_hashed_again() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let load = || Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let store = load();
        let n = store.entities.len();
        let want: Vec<Option<String>> =
            (0..n as EntityIdx).map(|i| Some(digest::of(store.read_entity_text(i).unwrap().as_bytes()))).collect();
        assert_eq!(all(None, &store), (want.clone(), n, 0), "without a cache every entity is hashed");
        assert_eq!(all(Some(&cache), &store), (want.clone(), n, 0));
        assert_eq!(all(Some(&cache), &store), (want, 0, n), "the second run takes every hash from the file");

        let edited = dir.path().join("note-3.md");
        fs::write(&edited, "---\ntitle: Note 3\n---\nNow longer than it was.\n").unwrap();
        let earlier = SystemTime::now() - Duration::from_secs(1800);
        fs::File::options().write(true).open(&edited).unwrap().set_modified(earlier).unwrap();
        let store = load();
        let (hashes, computed, reused) = all(Some(&cache), &store);
        assert_eq!((computed, reused), (1, n - 1));
        let i = store.entities.iter().position(|e| e.path == "note-3.md").unwrap() as EntityIdx;
        assert_eq!(hashes[i as usize], Some(digest::of(store.read_entity_text(i).unwrap().as_bytes())));

        // A corrupt file is ignored with a warning naming it, and every hash is made again.
        let file = cache.side_file(&store.root, store.kind(), HASHES_EXT);
        fs::write(&file, b"FOLIOH1\nbroken").unwrap();
        let h = Hashes::open(Some(&cache), &store);
        assert_eq!(h.reused, 0);
        assert!(h.warnings.len() == 1 && h.warnings[0].contains(&file.display().to_string()), "{:?}", h.warnings);
    }
}
