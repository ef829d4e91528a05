//! What the side files beside a store's snapshot share (the text index, the near-duplicate
//! profiles): which file and entity each per-entity record was made from, which records still
//! hold for a store as it is now, and the file layout — a magic line, then length-prefixed
//! sections each with a CRC-32, written atomically.
use std::collections::HashMap;
use std::fs;
use std::io::{Read, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{Cache, codec::Header};
use crate::store::Store;
use crate::store::model::entity::EntityIdx;

/// How a side file's records came to be this run (`recall --text --json`'s `index`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Made {
    /// Entities whose text was read from disk and tokenised (all of them without a usable cache).
    pub tokenised: usize,
    /// Entities whose record came from the cache file.
    pub reused: usize,
    /// Why a cache file was ignored or could not be written.
    pub warnings: Vec<String>,
}

/// A file modified this close before a side file's reads began may have changed again within
/// the same mtime tick: its entities are read again rather than trusted (as in the store cache).
const MTIME_SLACK_NS: i128 = 2_000_000_000;

/// Which text an entity's record was made from: its file as the store stat'ed it, and the
/// entity's id in that file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    path: String,
    id: String,
    size: u64,
    mtime_ns: i64,
}

impl Key {
    pub fn of(store: &Store, idx: EntityIdx) -> Key {
        let e = store.entity(idx);
        Key { path: e.path.clone(), id: e.id.clone(), size: e.file_size, mtime_ns: e.mtime_ns }
    }

    /// Every entity's key, in store order.
    pub fn all(store: &Store) -> Vec<Key> {
        (0..store.entities.len() as EntityIdx).map(|i| Key::of(store, i)).collect()
    }
}

/// The digest of what each entity's records were made from (`Key`: path, id, size, mtime), in
/// store order: a side file that holds it tells a store whose keys all match without reading
/// its keys section. A fixed seed: the next process of this build must compute the same.
pub fn keys_digest(store: &Store) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = foldhash::quality::FixedState::with_seed(0x666f_6c69_6f54_0003).build_hasher();
    store.entities.len().hash(&mut h);
    for e in &store.entities {
        (&e.path, &e.id, e.file_size, e.mtime_ns).hash(&mut h);
    }
    h.finish()
}

/// Whether a side file's records hold, each for its own entity, for a store: its keys' digest
/// (`keys_digest`) and whether every record was trusted for that very store as written
/// (`kept` mapped each to itself against the file's header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SameKeys {
    pub digest: u64,
    pub whole: bool,
}

impl SameKeys {
    /// What a file of `store`'s records, with `keys` (`Key::all`), read as of `read_since_ns`
    /// (its header's), says of them.
    pub fn of(store: &Store, keys: &[Key], read_since_ns: i128) -> SameKeys {
        SameKeys { digest: keys_digest(store), whole: unchanged(&kept(keys, read_since_ns, store), keys.len()) }
    }

    /// Every record its own entity's when they hold for `store` whole; None: the keys must be
    /// weighed one by one (`kept`). `known`: `store`'s `keys_digest` where it is known already.
    pub fn kept(&self, store: &Store, known: Option<u64>) -> Option<Vec<Option<EntityIdx>>> {
        (self.whole && self.digest == known.unwrap_or_else(|| keys_digest(store)))
            .then(|| (0..store.entities.len() as EntityIdx).map(Some).collect())
    }
}

/// For each saved record (made from `keys`, read since `read_since_ns`), its entity's number in
/// `store` when the record still holds: the same file (path, size, mtime, not modified within
/// the slack of the saved reads) and the same id, one entity of that id in that file on both
/// sides.
pub fn kept(keys: &[Key], read_since_ns: i128, store: &Store) -> Vec<Option<EntityIdx>> {
    let trusted_before = read_since_ns - MTIME_SLACK_NS;
    // Usually the store holds the same entities in the same order as when the records were
    // made: then each record is its own entity's, and 100k paths need not be hashed twice.
    if keys.len() == store.entities.len()
        && keys.iter().zip(&store.entities).all(|(k, e)| k.path == e.path && k.id == e.id)
    {
        // One entity per file (sorted by path, no two alike): each (path, id) is unique. Files
        // of several entities take the general way below.
        let one_per_file = keys.windows(2).all(|w| w[0].path != w[1].path);
        if one_per_file {
            return keys
                .iter()
                .zip(&store.entities)
                .enumerate()
                .map(|(i, (k, e))| {
                    let same = e.file_size == k.size && e.mtime_ns == k.mtime_ns;
                    (same && i128::from(k.mtime_ns) < trusted_before).then_some(i as EntityIdx)
                })
                .collect();
        }
    }
    let mut old_of: HashMap<(&str, &str), Option<usize>> = HashMap::with_capacity(keys.len());
    for (old, k) in keys.iter().enumerate() {
        old_of.entry((&k.path, &k.id)).and_modify(|v| *v = None).or_insert(Some(old));
    }
    let mut new_of: HashMap<(&str, &str), Option<EntityIdx>> = HashMap::with_capacity(store.entities.len());
    for (i, e) in store.entities.iter().enumerate() {
        new_of.entry((&e.path, &e.id)).and_modify(|v| *v = None).or_insert(Some(i as EntityIdx));
    }
    keys.iter()
        .map(|k| {
            let old_unique = old_of.get(&(k.path.as_str(), k.id.as_str())).copied().flatten().is_some();
            let to = new_of.get(&(k.path.as_str(), k.id.as_str())).copied().flatten()?;
            let e = store.entity(to);
            let same = e.file_size == k.size && e.mtime_ns == k.mtime_ns;
            (old_unique && same && i128::from(k.mtime_ns) < trusted_before).then_some(to)
        })
        .collect()
}

/// `kept` decoded from a keys section as it is read, for the usual case `kept` takes first (the
/// store's entities in the saved order, one per file), without holding the keys: 100k paths and
/// ids decoded at once were the inbox's peak (issue 44). The value is `None` when the saved keys
/// are not in that order: then `kept` over the keys held says which records hold.
pub struct KeptInOrder<'s> {
    pub store: &'s Store,
    pub read_since_ns: i128,
}

impl<'de> serde::de::DeserializeSeed<'de> for KeptInOrder<'_> {
    type Value = Option<Vec<Option<EntityIdx>>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeptInOrder<'_> {
    type Value = Option<Vec<Option<EntityIdx>>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sequence of keys")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let entities = &self.store.entities;
        let trusted_before = self.read_since_ns - MTIME_SLACK_NS;
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(entities.len()));
        let mut in_order = true;
        // Each key is read, weighed against its entity as it is read (no string of it
        // allocated: 200k at 100k entities) and dropped; all are read, so the section is read
        // whole.
        loop {
            let i = out.len();
            let expected = entities.get(i).filter(|_| in_order);
            let seed = KeyAgainst { path: expected.map(|e| e.path.as_str()), id: expected.map(|e| e.id.as_str()) };
            let Some(k) = seq.next_element_seed(seed)? else { break };
            // One entity per file: the previous entity's path names another file.
            let e = expected.filter(|e| k.same_path && k.same_id && (i == 0 || entities[i - 1].path != e.path));
            let Some(e) = e else {
                in_order = false;
                continue;
            };
            let same = e.file_size == k.size && e.mtime_ns == k.mtime_ns;
            out.push((same && i128::from(k.mtime_ns) < trusted_before).then_some(i as EntityIdx));
        }
        Ok((in_order && out.len() == entities.len()).then_some(out))
    }
}

/// A `Key` as `KeptInOrder` reads it: its path and id compared with the expected entity's as
/// bincode hands them over (`Key`'s fields in `Key`'s order), nothing of them kept.
struct KeyAgainst<'e> {
    path: Option<&'e str>,
    id: Option<&'e str>,
}

/// What `KeyAgainst` keeps of a key.
struct WeighedKey {
    same_path: bool,
    same_id: bool,
    size: u64,
    mtime_ns: i64,
}

impl<'de> serde::de::DeserializeSeed<'de> for KeyAgainst<'_> {
    type Value = WeighedKey;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<WeighedKey, D::Error> {
        d.deserialize_tuple(4, self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeyAgainst<'_> {
    type Value = WeighedKey;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<WeighedKey, A::Error> {
        let missing = || serde::de::Error::custom("a key cut short");
        let same_path = seq.next_element_seed(Same(self.path))?.ok_or_else(missing)?;
        let same_id = seq.next_element_seed(Same(self.id))?.ok_or_else(missing)?;
        let size = seq.next_element()?.ok_or_else(missing)?;
        let mtime_ns = seq.next_element()?.ok_or_else(missing)?;
        Ok(WeighedKey { same_path, same_id, size, mtime_ns })
    }
}

/// A string read and compared with the expected one (`None`: nothing is expected, never equal).
struct Same<'e>(Option<&'e str>);

impl<'de> serde::de::DeserializeSeed<'de> for Same<'_> {
    type Value = bool;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Same<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(self.0 == Some(v))
    }
}

/// A sequence section decoded into a vector of exactly its length, at most `at_most` (the
/// header's entity count, so a damaged length allocates no more than the store's size). serde's
/// own `Vec` reserves at most 1 MiB ahead and then doubles: 100k facts of 104 bytes grew through
/// five reallocations to a capacity of 161k, the last one holding the old and new tables at
/// once (the inbox's peak, issue 44).
pub struct Exactly<T> {
    pub at_most: usize,
    pub of: std::marker::PhantomData<T>,
}

impl<T> Exactly<T> {
    pub fn at_most(at_most: usize) -> Exactly<T> {
        Exactly { at_most, of: std::marker::PhantomData }
    }
}

impl<'de, T: Deserialize<'de>> serde::de::DeserializeSeed<'de> for Exactly<T> {
    type Value = Vec<T>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Exactly<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(self.at_most));
        while let Some(x) = seq.next_element()? {
            out.push(x);
        }
        Ok(out)
    }
}

/// Whether a file last modified at `mtime_ns` is trusted unchanged by a record made from reads
/// begun at `read_since_ns` (not within the mtime slack before them).
pub fn trusted(mtime_ns: i64, read_since_ns: i128) -> bool {
    i128::from(mtime_ns) < read_since_ns - MTIME_SLACK_NS
}

/// Whether `keep` maps every one of `n` entities to itself (nothing to read or rewrite).
pub fn unchanged(keep: &[Option<EntityIdx>], n: usize) -> bool {
    keep.len() == n && keep.iter().enumerate().all(|(i, k)| *k == Some(i as EntityIdx))
}

/// One kind of side file: its magic line, its own layout's version and what messages call it.
/// Each file is its header (`header`), then the sections its kind writes after it.
pub struct Layout {
    pub magic: &'static [u8; 8],
    pub format: u32,
    pub what: &'static str,
}

/// A side file opened for `store`, past a header that describes it.
pub struct Opened<R> {
    pub header: Header,
    r: R,
}

impl<R: Read> Opened<R> {
    /// The next section, decoded (`name` says which, in an error).
    pub fn next<T: serde::de::DeserializeOwned>(&mut self, name: &str) -> Result<T, String> {
        use bincode::Options;
        options().deserialize(&section(&mut self.r)?).map_err(|e| format!("{name}: {e}"))
    }

    /// `next`, decoded as it is read instead of from the section's bytes held whole (the
    /// inbox's facts are 12 MB at 100k entities, held beside what they decode to): the checksum
    /// is checked once the section is read, and what was decoded is dropped when it is wrong.
    pub fn next_streamed<T: serde::de::DeserializeOwned>(&mut self, name: &str) -> Result<T, String> {
        self.next_streamed_seed(name, std::marker::PhantomData::<T>)
    }

    /// `next_streamed` through `seed`, which may make of the section something else than the
    /// value written (`KeptInOrder`: which records hold, without the keys).
    pub fn next_streamed_seed<T>(
        &mut self,
        name: &str,
        seed: impl for<'de> serde::de::DeserializeSeed<'de, Value = T>,
    ) -> Result<T, String> {
        use bincode::Options;
        let (len, crc) = section_head(&mut self.r)?;
        let checked = Checked { inner: (&mut self.r).take(len), crc: crc32fast::Hasher::new(), read: 0 };
        // Buffered: bincode reads a reader a field at a time.
        let mut buffered = std::io::BufReader::with_capacity(1 << 16, checked);
        // Trailing bytes are allowed while decoding from a reader; they are refused below.
        let value: Result<T, _> = options().allow_trailing_bytes().deserialize_from_seed(seed, &mut buffered);
        let rest = std::io::copy(&mut buffered, &mut std::io::sink()).map_err(|e| e.to_string())?;
        let r = buffered.into_inner();
        // As `next` would say it: truncated, then a wrong checksum, then what decoding found.
        if r.read != len {
            return Err("truncated".into());
        }
        if r.crc.finalize() != crc {
            return Err("checksum mismatch".into());
        }
        let value = value.map_err(|e| format!("{name}: {e}"))?;
        if rest > 0 {
            return Err(format!("{name}: {rest} bytes past its end"));
        }
        Ok(value)
    }

    /// Past the next section, unread (its checksum unchecked): the reader wants what follows.
    pub fn skip(&mut self) -> Result<(), String> {
        let (len, _) = section_head(&mut self.r)?;
        let skipped = std::io::copy(&mut (&mut self.r).take(len), &mut std::io::sink()).map_err(|e| e.to_string())?;
        if skipped != len {
            return Err("truncated".into());
        }
        Ok(())
    }

    /// The next section's bytes, as written.
    pub fn next_raw(&mut self) -> Result<Vec<u8>, String> {
        section(&mut self.r)
    }
}

impl Layout {
    /// The side file at `path` for `store`, past its header; `None` when there is no file; an
    /// error says why a file present cannot be used (another build, store or format, truncated,
    /// corrupt).
    pub fn open(&self, path: &Path, store: &Store) -> Result<Option<Opened<impl Read>>, String> {
        use bincode::Options;
        let Some(mut r) = open(path, self.magic, self.what)? else { return Ok(None) };
        let header: Header = options().deserialize(&section(&mut r)?).map_err(|e| format!("header: {e}"))?;
        if let Some(why) = invalid_header(&header, self.format, self.what, store) {
            return Err(why);
        }
        Ok(Some(Opened { header, r }))
    }

    /// Which records of the file at `path` hold for `store` (`kept`), for a file whose sections
    /// after the header are `SameKeys` (`same`, read), `between` more (read by `r`), then the
    /// keys: from `same` alone when the store's keys all match, else from the keys weighed as
    /// they are decoded, or held (the file opened again) when the store's order is another.
    /// `None` when the file went meanwhile. `known`: `store`'s `keys_digest` where it is known.
    #[allow(clippy::too_many_arguments)]
    pub fn kept<R: Read>(
        &self,
        path: &Path,
        store: &Store,
        same: SameKeys,
        known: Option<u64>,
        r: &mut Opened<R>,
        between: usize,
    ) -> Result<Option<Vec<Option<EntityIdx>>>, String> {
        if let Some(kept) = same.kept(store, known) {
            return Ok(Some(kept));
        }
        let read_since_ns = r.header.read_since_ns;
        if let Some(kept) = r.next_streamed_seed("keys", KeptInOrder { store, read_since_ns })? {
            return Ok(Some(kept));
        }
        let Some(mut again) = self.open(path, store)? else { return Ok(None) };
        for _ in 0..=between {
            again.skip()?;
        }
        let keys: Vec<Key> = again.next_streamed("keys")?;
        Ok(Some(kept(&keys, read_since_ns, store)))
    }

    /// Write the file of `store` atomically: its header (reading as of `as_of`), then `sections`.
    pub fn write(
        &self,
        cache: &Cache,
        path: &Path,
        store: &Store,
        as_of: SystemTime,
        sections: &[&[u8]],
    ) -> Result<(), String> {
        let header = encode(&header(store, self.format, as_of))?;
        let all: Vec<&[u8]> = std::iter::once(header.as_slice()).chain(sections.iter().copied()).collect();
        write(cache, path, self.magic, &all, self.what)
    }
}

/// `value` as a section's bytes.
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, String> {
    use bincode::Options;
    options().serialize(value).map_err(|e| e.to_string())
}

/// The header a side file of `store` is written with (`format` is the side file's own).
pub fn header(store: &Store, format: u32, as_of: SystemTime) -> Header {
    Header {
        format,
        build: super::build_id().to_string(),
        dialect: store.kind().name().to_string(),
        root: fs::canonicalize(&store.root).unwrap_or_else(|_| store.root.clone()).to_string_lossy().into_owned(),
        read_since_ns: as_of.duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as i128).unwrap_or(0),
        files_token: None,
        entities: store.entities.len() as u64,
        chunks: 0,
    }
}

/// Why a side file's header does not describe `store` as this build reads it (None: it does).
pub fn invalid_header(header: &Header, format: u32, what: &str, store: &Store) -> Option<String> {
    if header.format != format {
        return Some(format!("{what} format {} (this folio reads {format})", header.format));
    }
    super::mismatch(header, &store.root, store.kind())
}

/// Write `magic` and `sections` to `path` atomically (temporary file, then rename).
pub fn write(cache: &Cache, path: &Path, magic: &[u8; 8], sections: &[&[u8]], what: &str) -> Result<(), String> {
    let dir = path.parent().unwrap_or(cache.dir());
    let fail = |e: std::io::Error| format!("{}: cannot write the {what} ({e})", dir.display());
    fs::create_dir_all(dir).map_err(fail)?;
    super::remove_abandoned_temporaries(dir);
    let tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir).map_err(fail)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp);
    w.write_all(magic).map_err(fail)?;
    for s in sections {
        w.write_all(&(s.len() as u64).to_le_bytes()).map_err(fail)?;
        w.write_all(&crc32fast::hash(s).to_le_bytes()).map_err(fail)?;
        w.write_all(s).map_err(fail)?;
    }
    let tmp = w.into_inner().map_err(|e| fail(e.into_error()))?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// The side file at `path` opened past its magic line; `None` when there is no file.
pub fn open(path: &Path, magic: &[u8; 8], what: &str) -> Result<Option<impl Read>, String> {
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let mut r = std::io::BufReader::with_capacity(1 << 20, file);
    let mut head = [0u8; 8];
    r.read_exact(&mut head).map_err(|_| "truncated".to_string())?;
    if &head != magic {
        return Err(format!("not a folio {what}"));
    }
    Ok(Some(r))
}

/// A section's length and CRC.
fn section_head(r: &mut impl Read) -> Result<(u64, u32), String> {
    let mut head = [0u8; 12];
    r.read_exact(&mut head).map_err(|_| "truncated".to_string())?;
    let len = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
    let crc = u32::from_le_bytes(head[8..].try_into().unwrap_or_default());
    Ok((len, crc))
}

/// A section's reader that sums what passes through it (`Opened::next_streamed`).
struct Checked<R> {
    inner: R,
    crc: crc32fast::Hasher,
    read: u64,
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        self.read += n as u64;
        Ok(n)
    }
}

/// One length-prefixed section, its CRC checked.
pub fn section(r: &mut impl Read) -> Result<Vec<u8>, String> {
    let (len, crc) = section_head(r)?;
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

/// bincode as every side file encodes its sections.
pub fn options() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

/// The stores the side files' tests start from.
#[cfg(test)]
pub mod fixture {
    use std::time::{Duration, SystemTime};

    /// Where each section's bytes lie in a side file's `bytes`: the header's, then the file's
    /// own, in order.
    pub fn sections(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
        let (mut at, mut out) = (8, Vec::new());
        while at + 12 <= bytes.len() {
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            out.push(at + 12..at + 12 + len);
            at += 12 + len;
        }
        out
    }

    /// A vault of `MIN_ENTITIES` + 1 notes `note-{i}.md`, note `i` titled and with the body
    /// `note(i)` gives, written an hour ago (older than any read's slack: a cache trusts them).
    pub fn aged_vault(note: impl Fn(usize) -> (String, String)) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let then = SystemTime::now() - Duration::from_secs(3600);
        for i in 0..=super::super::MIN_ENTITIES {
            let p = dir.path().join(format!("note-{i}.md"));
            let (title, body) = note(i);
            std::fs::write(&p, format!("---\ntitle: {title}\n---\n{body}\n")).unwrap();
            std::fs::File::options().write(true).open(&p).unwrap().set_modified(then).unwrap();
        }
        dir
    }
}
