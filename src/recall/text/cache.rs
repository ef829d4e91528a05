//! The text index in folio's persistent cache, beside the store's snapshot and never in the
//! store: a second `folio recall --text` or TUI `/` on an unchanged store reads no body. An
//! entity's postings are kept while its file has the size and mtime it had when it was indexed
//! (the store cache's own per-file check); the entities of changed, added or moved files are
//! read and tokenised again, and the file is rewritten when anything changed.
use std::collections::HashMap;
use std::fs;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::index::{Parts, TextIndex, weighted_text};
use crate::store::Store;
use crate::store::keep::cache::{self, Cache, TEXT_EXT, codec::Header};
use crate::store::model::entity::EntityIdx;

const MAGIC: &[u8; 8] = b"FOLIOT2\n";
/// Bumped whenever the layout or what is indexed (tokenizer, title weight) changes.
pub const FORMAT: u32 = 2;
/// A file modified this close before the index's reads began may have changed again within
/// the same mtime tick: its entities are read again rather than trusted (as in the store cache).
const MTIME_SLACK_NS: i128 = 2_000_000_000;

/// Which text an entity's postings were made from: its file as the store stat'ed it, and the
/// entity's id in that file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Key {
    path: String,
    id: String,
    size: u64,
    mtime_ns: i64,
}

impl Key {
    fn of(store: &Store, idx: EntityIdx) -> Key {
        let e = store.entity(idx);
        Key { path: e.path.clone(), id: e.id.clone(), size: e.file_size, mtime_ns: e.mtime_ns }
    }
}

/// How an index came to be.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// Entities whose text was read from disk and tokenised (all of them without a usable cache).
    pub tokenised: usize,
    /// Entities whose postings came from the cache file.
    pub reused: usize,
    /// Why a cache file was ignored or could not be written.
    pub warnings: Vec<String>,
}

/// A cached index and what its entities were indexed from.
struct Saved {
    index: TextIndex,
    keys: Vec<Key>,
    read_since_ns: i128,
}

/// The text index of `store`: from the cache file where its entities' files are unchanged,
/// the rest read and tokenised; written back when anything changed (only for stores the store
/// cache would keep: cacheable formats, `cache::MIN_ENTITIES` entities or more).
pub fn open(cache: Option<&Cache>, store: &Store) -> (TextIndex, Provenance) {
    let n = store.entities.len();
    let Some(cache) = cache.filter(|_| cache::cacheable(store.kind())) else {
        return (TextIndex::build(store), Provenance { tokenised: n, ..Provenance::default() });
    };
    let started = SystemTime::now();
    let path = cache.side_file(&store.root, store.kind(), TEXT_EXT);
    let mut made = Provenance::default();
    let saved = match read(&path, store) {
        Ok(saved) => saved,
        Err(why) => {
            made.warnings.push(format!("{}: {why}; ignored", path.display()));
            None
        }
    };
    let (index, unchanged) = match saved {
        None => (TextIndex::build(store), false),
        Some(saved) => {
            let keep = kept(&saved, store);
            let reused = keep.iter().flatten().count();
            made.reused = reused;
            if reused == n && saved.keys.len() == n && keep.iter().enumerate().all(|(i, k)| *k == Some(i as EntityIdx))
            {
                (saved.index, true)
            } else {
                let mut taken = vec![false; n];
                for &to in keep.iter().flatten() {
                    taken[to as usize] = true;
                }
                use rayon::prelude::*;
                let fresh: Vec<(EntityIdx, String)> = (0..n as EntityIdx)
                    .into_par_iter()
                    .filter(|&i| !taken[i as usize])
                    .map(|i| (i, weighted_text(store, i)))
                    .collect();
                (saved.index.update(&keep, &fresh, n), false)
            }
        }
    };
    made.tokenised = n - made.reused;
    if !unchanged && n >= cache::MIN_ENTITIES {
        // Fresh entities were read after `started`, their keys are the store's stat of them:
        // the older of the two instants is what the next open may trust mtimes against.
        let as_of = started.min(store.read_since);
        if let Err(e) = write(cache, &path, store, &index, as_of) {
            made.warnings.push(e);
        }
    }
    (index, made)
}

/// For each cached entity, its number in `store` when its postings still hold: the same file
/// (path, size, mtime, not modified within the slack of the cached reads) and the same id, one
/// entity of that id in that file on both sides.
fn kept(saved: &Saved, store: &Store) -> Vec<Option<EntityIdx>> {
    let trusted_before = saved.read_since_ns - MTIME_SLACK_NS;
    let mut old_of: HashMap<(&str, &str), Option<usize>> = HashMap::with_capacity(saved.keys.len());
    for (old, k) in saved.keys.iter().enumerate() {
        old_of.entry((&k.path, &k.id)).and_modify(|v| *v = None).or_insert(Some(old));
    }
    let mut new_of: HashMap<(&str, &str), Option<EntityIdx>> = HashMap::with_capacity(store.entities.len());
    for (i, e) in store.entities.iter().enumerate() {
        new_of.entry((&e.path, &e.id)).and_modify(|v| *v = None).or_insert(Some(i as EntityIdx));
    }
    saved
        .keys
        .iter()
        .map(|k| {
            let old_unique = old_of.get(&(k.path.as_str(), k.id.as_str())).copied().flatten().is_some();
            let to = new_of.get(&(k.path.as_str(), k.id.as_str())).copied().flatten()?;
            let e = store.entity(to);
            let same = e.file_size == k.size && e.mtime_ns == k.mtime_ns;
            (old_unique && same && i128::from(k.mtime_ns) < trusted_before).then_some(to)
        })
        .collect()
}

fn invalid_header(header: &Header, store: &Store) -> Option<String> {
    if header.format != FORMAT {
        return Some(format!("text index format {} (this folio reads {FORMAT})", header.format));
    }
    cache::mismatch(header, &store.root, store.kind())
}

/// The cached index of `store`, `None` when there is no file; an error says why a file
/// present cannot be used (another build, store or format, truncated, corrupt).
fn read(path: &Path, store: &Store) -> Result<Option<Saved>, String> {
    use bincode::Options;
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic).map_err(|_| "truncated".to_string())?;
    if &magic != MAGIC {
        return Err("not a folio text index".into());
    }
    let header: Header = options().deserialize(&section(&mut r)?).map_err(|e| format!("header: {e}"))?;
    if let Some(why) = invalid_header(&header, store) {
        return Err(why);
    }
    let keys: Vec<Key> = options().deserialize(&section(&mut r)?).map_err(|e| format!("keys: {e}"))?;
    let parts: Parts = options().deserialize(&section(&mut r)?).map_err(|e| format!("index: {e}"))?;
    let postings = section(&mut r)?;
    let index = TextIndex::from_parts(parts, postings)?;
    if index.len() != keys.len() || keys.len() as u64 != header.entities {
        return Err(format!("{} entities indexed, {} listed", index.len(), keys.len()));
    }
    Ok(Some(Saved { index, keys, read_since_ns: header.read_since_ns }))
}

/// Write the index atomically beside the store's snapshot (temporary file, then rename).
fn write(cache: &Cache, path: &Path, store: &Store, index: &TextIndex, as_of: SystemTime) -> Result<(), String> {
    use bincode::Options;
    let header = Header {
        format: FORMAT,
        build: cache::build_id().to_string(),
        dialect: store.kind().name().to_string(),
        root: fs::canonicalize(&store.root).unwrap_or_else(|_| store.root.clone()).to_string_lossy().into_owned(),
        read_since_ns: as_of.duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as i128).unwrap_or(0),
        files_token: None,
        entities: store.entities.len() as u64,
        chunks: 0,
    };
    let keys: Vec<Key> = (0..store.entities.len() as EntityIdx).map(|i| Key::of(store, i)).collect();
    let (parts, postings) = index.parts();
    let encoded = [
        options().serialize(&header).map_err(|e| e.to_string())?,
        options().serialize(&keys).map_err(|e| e.to_string())?,
        options().serialize(&parts).map_err(|e| e.to_string())?,
    ];
    let dir = path.parent().unwrap_or(cache.dir());
    let fail = |e: std::io::Error| format!("{}: cannot write the text index ({e})", dir.display());
    fs::create_dir_all(dir).map_err(fail)?;
    let tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir).map_err(fail)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp);
    w.write_all(MAGIC).map_err(fail)?;
    for s in encoded.iter().map(Vec::as_slice).chain([postings]) {
        w.write_all(&(s.len() as u64).to_le_bytes()).map_err(fail)?;
        w.write_all(&crc32fast::hash(s).to_le_bytes()).map_err(fail)?;
        w.write_all(s).map_err(fail)?;
    }
    let tmp = w.into_inner().map_err(|e| fail(e.into_error()))?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// One length-prefixed section, its CRC checked.
fn section(r: &mut impl Read) -> Result<Vec<u8>, String> {
    let mut head = [0u8; 12];
    r.read_exact(&mut head).map_err(|_| "truncated".to_string())?;
    let len = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
    let crc = u32::from_le_bytes(head[8..].try_into().unwrap_or_default());
    // Read through `take`, so a corrupt length cannot make us allocate it up front.
    let mut bytes = Vec::new();
    r.take(len).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 != len {
        return Err("truncated".into());
    }
    if crc32fast::hash(&bytes) != crc {
        return Err("checksum mismatch".into());
    }
    Ok(bytes)
}

fn options() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A vault of `MIN_ENTITIES` + 1 notes (enough to be cached with one removed), written an
    /// hour ago.
    fn vault() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let then = SystemTime::now() - Duration::from_secs(3600);
        for i in 0..=cache::MIN_ENTITIES {
            let p = dir.path().join(format!("note-{i}.md"));
            fs::write(&p, format!("---\ntitle: Note {i}\n---\nBody of note {i} about w{} and ledgers.\n", i % 37))
                .unwrap();
            fs::File::options().write(true).open(&p).unwrap().set_modified(then).unwrap();
        }
        dir
    }

    fn load(dir: &Path) -> Store {
        Store::load(dir, crate::store::dialect::vault::KIND, "test".into())
    }

    /// Every word's postings and every entity's length, whatever the words' numbers.
    fn same(a: &TextIndex, b: &TextIndex) {
        let (mut wa, mut wb) = (a.starting_with(""), b.starting_with(""));
        wa.sort();
        wb.sort();
        assert_eq!(wa, wb);
        for w in &wa {
            assert_eq!(a.postings(w), b.postings(w), "{w}");
        }
        assert_eq!(a.len(), b.len());
        assert!((0..a.len() as EntityIdx).all(|i| a.length(i) == b.length(i)));
    }

    #[test]
    fn a_second_open_reads_no_body_and_an_edited_file_is_read_again() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let (first, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (store.entities.len(), 0), "{:?}", made.warnings);
        assert!(cache.side_file(&store.root, store.kind(), TEXT_EXT).exists());
        let (second, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (0, store.entities.len()), "{:?}", made.warnings);
        assert_eq!(first, second);

        // One note gains a word, one goes: only the edited one is read again.
        let edited = dir.path().join("note-3.md");
        fs::write(&edited, "---\ntitle: Note 3\n---\nNow about zanzibar.\n").unwrap();
        // Older than the slack of the next reads, so the open after the next trusts it.
        let earlier = SystemTime::now() - Duration::from_secs(1800);
        fs::File::options().write(true).open(&edited).unwrap().set_modified(earlier).unwrap();
        fs::remove_file(dir.path().join("note-4.md")).unwrap();
        let store = load(dir.path());
        let (third, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (1, store.entities.len() - 1));
        let edited = store.find("note-3").unwrap();
        assert_eq!(third.postings("zanzibar"), [super::super::index::Posting { idx: edited, count: 1 }]);
        same(&third, &TextIndex::build(&store));
        // …and the rewritten file answers the next open without reading anything.
        let (fourth, made) = open(Some(&cache), &store);
        assert_eq!(made.tokenised, 0);
        same(&fourth, &third);
    }

    #[test]
    fn a_corrupt_or_foreign_index_file_is_rebuilt_with_a_warning() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let (good, _) = open(Some(&cache), &store);
        let file = cache.side_file(&store.root, store.kind(), TEXT_EXT);
        let bytes = fs::read(&file).unwrap();
        let mut flipped = bytes.clone();
        let at = flipped.len() - 5;
        flipped[at] ^= 1;
        for (bad, why) in [(flipped, "checksum"), (bytes[..bytes.len() / 2].to_vec(), "truncated"), (b"x".to_vec(), "")]
        {
            fs::write(&file, &bad).unwrap();
            let (index, made) = open(Some(&cache), &store);
            assert_eq!(made.tokenised, store.entities.len());
            assert!(made.warnings.len() == 1 && made.warnings[0].contains(why), "{:?}", made.warnings);
            same(&index, &good);
        }
        // Another store's index under this store's name is not used.
        let other = vault();
        let moved = load(other.path());
        fs::copy(&file, cache.side_file(&moved.root, moved.kind(), TEXT_EXT)).unwrap();
        let (_, made) = open(Some(&cache), &moved);
        assert!(made.warnings.iter().any(|w| w.contains("written for")), "{:?}", made.warnings);
        // `cache clear` takes the index with the snapshot.
        cache.save(&store).unwrap();
        assert_eq!(cache.clear(Some((&store.root, store.kind()))).unwrap(), 1);
        assert!(!file.exists());
    }
}
