//! The cache file's bytes: a magic line, then length-prefixed sections each with a CRC-32 —
//! a header (what the snapshot is of), the non-entity files, each entity's file stamp (`stamps`:
//! what `validate` checks, readable without the entities), then the entities in chunks that
//! encode and decode in parallel (bincode, varint lengths). A truncated file, a flipped byte or
//! a header for another store, dialect or build is an error, never a panic.
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Deserializer, Serialize};

use crate::store::dialect::{FileRole, StoreWarning};
use crate::store::model::entity::{Entity, Problem, Resolution, Severity};
use crate::store::model::shared_values::SharedValues;
use crate::store::write::catalog::remembered::Remembered;

mod earlier;
mod lean;
mod stamps;
mod written;

pub use earlier::Earlier;
pub use stamps::Stamp;
pub use written::Encoded;

/// First bytes of every cache file; the trailing number moves with `FORMAT`.
const MAGIC: &[u8; 8] = b"FOLIOC10";
/// Bumped whenever the layout or the model's serialized shape changes.
pub const FORMAT: u32 = 10;
/// Entities per chunk: small enough to spread over the cores, large enough to amortise.
const CHUNK: usize = 2048;

/// What a snapshot is of; a cache whose header does not match the store being opened is ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub format: u32,
    /// The folio build that wrote it (version plus the executable's size and mtime): parsing
    /// rules change between builds, so another build's cache is never trusted.
    pub build: String,
    pub dialect: String,
    /// The store root, canonical, as the cache key was derived from it.
    pub root: String,
    /// No entity in the snapshot was read before this instant (ns since the Unix epoch): a
    /// file whose mtime is this recent may have changed again within the same mtime tick.
    pub read_since_ns: i128,
    /// The store's files token when the snapshot was taken (`Format::files_token`), read
    /// before its files were: while the store answers the same, no file changed since.
    pub files_token: Option<u64>,
    pub entities: u64,
    pub chunks: u32,
}

/// Everything a `Store` holds that is not derived (backlinks and the id index are rebuilt).
#[derive(Debug)]
pub struct Snapshot {
    pub header: Header,
    pub entities: Vec<Arc<Entity>>,
    pub other_files: Vec<(String, FileRole)>,
    pub walk_warnings: Vec<StoreWarning>,
    /// What the entities were parsed under besides their files (`Dialect::parse_inputs`).
    pub parse_inputs: u64,
    /// The catalogs' states for these entities, with what else they depend on.
    pub catalogs: Option<Remembered>,
    /// Lint's memo digest of these entities (`LintDigest`), when it was taken.
    pub lint: Option<LintDigest>,
    /// Each entity chunk's section in the source: (offset of its body, length, stored CRC).
    pub chunks: Vec<(u64, u64, u32)>,
}

/// `lint_memo::digest` of the snapshot's entities, taken as it was written, with what the
/// format's manifest rules were then: a snapshot decoded without its links (`decode_file_lean_entities`)
/// cannot compute it, and lint's memo holds for the store only where it equals the memo's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintDigest {
    /// A hash of the manifest rules the digest was taken under (`manifest_key`).
    pub manifest: u64,
    pub digest: u64,
    /// `side::keys_digest` of the same entities: the inbox's side files are checked against it
    /// rather than 100k paths and ids hashed again on the open's critical path.
    pub keys: u64,
}

/// The manifest rules as `LintDigest::manifest` keeps them.
pub fn manifest_key(manifest: &crate::store::lint::manifest::ManifestLints) -> u64 {
    use std::hash::BuildHasher;
    // A fixed seed: the next process of this build must compute the same key.
    foldhash::quality::FixedState::with_seed(0x666f_6c69_6f43_0008).hash_one(format!("{manifest:?}"))
}

#[derive(Serialize, Deserialize)]
struct Files {
    other: Vec<(String, u8)>,
    /// (code, message, path) of each walk warning.
    warnings: Vec<(String, String, Option<String>)>,
    parse_inputs: u64,
    catalogs: Option<Remembered>,
    lint: Option<LintDigest>,
}

fn options() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

/// Encode `header` (its `chunks` and `entities` are filled in here) and the store's parts,
/// parsed under `parse_inputs` (`Snapshot::parse_inputs`), their catalogs' verdict `catalogs`,
/// lint's memo digest of them `lint`; each chunk whose entities are those `earlier` decoded
/// there is taken from its file rather than encoded again (the sections keep `earlier` to
/// be written from). The first chunks are encoded here, the others as they are written.
#[allow(clippy::too_many_arguments)]
pub fn encode<'e>(
    mut header: Header,
    entities: &'e [Arc<Entity>],
    other_files: &[(String, FileRole)],
    walk_warnings: &[StoreWarning],
    parse_inputs: u64,
    catalogs: Option<&Remembered>,
    lint: Option<LintDigest>,
    earlier: Option<&'e Earlier>,
) -> Result<Encoded<'e>, String> {
    use bincode::Options;
    use written::Section;
    header.entities = entities.len() as u64;
    header.chunks = entities.len().div_ceil(CHUNK) as u32;
    let files = Files {
        other: other_files.iter().map(|(p, r)| (p.clone(), role_code(*r))).collect(),
        warnings: walk_warnings.iter().map(|w| (w.code.clone(), w.message.clone(), w.path.clone())).collect(),
        parse_inputs,
        catalogs: catalogs.cloned(),
        lint,
    };
    let (first, stamps) = rayon::join(
        || encode_chunks(entities, 0..CHUNKS_AT_ONCE, earlier),
        || stamps::encode(entities.iter().map(|e| &**e)),
    );
    let (first, stamps) = (first?, stamps?);
    let head = options().serialize(&header).map_err(|e| e.to_string())?;
    let files = options().serialize(&files).map_err(|e| e.to_string())?;
    let mut sections = Vec::with_capacity(3 + first.len());
    sections.extend([head, files, stamps].map(Section::fresh));
    sections.extend(first);
    Ok(Encoded { sections, chunks: written::Chunks { entities, next: CHUNKS_AT_ONCE, earlier } })
}

/// How many chunks are encoded before they are written: the whole store's encoded at once
/// was a sixth of a first open's peak memory (docs/benchmarks.md, "Thirty-third session").
const CHUNKS_AT_ONCE: usize = 4;

/// The sections of chunks `range` (those past the end are none), each encoded on rayon's
/// threads or, when `earlier` decoded the very same entities there, taken from its file.
fn encode_chunks(
    entities: &[Arc<Entity>],
    range: std::ops::Range<usize>,
    earlier: Option<&Earlier>,
) -> Result<Vec<written::Section>, String> {
    use bincode::Options;
    use written::Section;
    let from = (range.start * CHUNK).min(entities.len());
    let to = (range.end * CHUNK).min(entities.len());
    entities[from..to]
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(i, c)| match earlier.and_then(|earlier| earlier.chunk(range.start + i, c)) {
            Some((at, len, crc)) => Ok(Section::Earlier { at, len, crc }),
            // Encoded as a sequence of entities (what `decode` reads back), not of pointers.
            None => options().serialize(&c.iter().map(|e| &**e).collect::<Vec<&Entity>>()).map(Section::fresh),
        })
        .collect::<Result<Vec<Section>, _>>()
        .map_err(|e| e.to_string())
}

/// Only the header (cheap: for `folio cache info` and for rejecting a mismatched file early).
pub fn decode_header(bytes: &[u8]) -> Result<Header, String> {
    use bincode::Options;
    let mut sections = Sections::new(bytes)?;
    let head = sections.next_checked()?.ok_or("no header")?;
    let header: Header = options().deserialize(head).map_err(|e| format!("header: {e}"))?;
    if header.format != FORMAT {
        return Err(format!("cache format {} (this folio reads {FORMAT})", header.format));
    }
    Ok(header)
}

/// Decode a whole snapshot held in memory, checking every section's CRC and every entity index.
pub fn decode(bytes: &[u8]) -> Result<Snapshot, String> {
    decode_from(bytes, Links::Kept)
}

/// Decode a snapshot straight from its file, one chunk at a time: the file is never held in
/// memory whole, so opening from the cache peaks at the store's own size plus a chunk per core
/// (read whole first, the file would make a cached open peak above a load from scratch:
/// docs/benchmarks.md, "Cache figures").
pub fn decode_file(file: &std::fs::File) -> Result<Snapshot, String> {
    decode_from(&FileSource::new(file)?, Links::Kept)
}

/// All of a snapshot but its entities, with each entity's file stamp: what the review inbox
/// checks the files against before it decides whether to decode the entities at all.
#[derive(Debug)]
pub struct Front {
    pub header: Header,
    pub other_files: Vec<(String, FileRole)>,
    pub walk_warnings: Vec<StoreWarning>,
    pub parse_inputs: u64,
    pub catalogs: Option<Remembered>,
    pub lint: Option<LintDigest>,
    /// Each entity's file as the snapshot saw it, in the entities' order (empty when not asked).
    pub stamps: Vec<Stamp>,
}

/// The front of a snapshot (`Front`) from its file, its file stamps decoded or only checked
/// (`want`); no entity chunk is read.
pub fn decode_file_front(file: &std::fs::File, want: Stamps) -> Result<Front, String> {
    let source = FileSource::new(file)?;
    decode_front(&source, &sections(&source)?, want)
}

/// The entities, without their links, of the snapshot in `file` whose front is `front`
/// (`decode_file_front` of the same open file): each link is parsed in place and dropped
/// (`lean`), for the review inbox, which reads none (issue 44). Such a store is never written
/// back. Once `stop` is set no further chunk is decoded and the decode fails: the store is no
/// longer wanted.
pub fn decode_file_lean_entities(
    file: &std::fs::File,
    front: &Front,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Vec<Arc<Entity>>, String> {
    let source = FileSource::new(file)?;
    decode_entities(&source, &sections(&source)?, &front.header, Links::Skipped(stop))
}

/// Whether the entities' links are decoded; skipped, until when.
#[derive(Clone, Copy)]
enum Links<'s> {
    Kept,
    Skipped(&'s std::sync::atomic::AtomicBool),
}

/// Whether the file stamps are decoded, or only their CRC checked (a whole open has them in
/// its entities; a store whose format vouches for its files needs none).
#[derive(Clone, Copy, PartialEq)]
pub enum Stamps {
    Decoded,
    Checked,
}

fn decode_from(source: &(impl Source + ?Sized), links: Links<'_>) -> Result<Snapshot, String> {
    let sections = sections(source)?;
    let front = decode_front(source, &sections, Stamps::Checked)?;
    let entities = decode_entities(source, &sections, &front.header, links)?;
    let Front { header, other_files, walk_warnings, parse_inputs, catalogs, lint, stamps: _ } = front;
    let chunks = sections.get(3..).unwrap_or_default().to_vec();
    Ok(Snapshot { header, entities, other_files, walk_warnings, parse_inputs, catalogs, lint, chunks })
}

/// A section's bytes, once its CRC matches.
fn read_checked<'s>(
    source: &'s (impl Source + ?Sized),
    &(at, len, crc): &(u64, u64, u32),
) -> Result<std::borrow::Cow<'s, [u8]>, String> {
    let bytes = source.read(at, len)?;
    if crc32fast::hash(&bytes) != crc {
        return Err("checksum mismatch".into());
    }
    Ok(bytes)
}

fn decode_front(source: &(impl Source + ?Sized), sections: &[(u64, u64, u32)], want: Stamps) -> Result<Front, String> {
    use bincode::Options;
    let [head, files, stamps_at, ..] = sections else { return Err("truncated: no file stamps".into()) };
    let header: Header = options().deserialize(&read_checked(source, head)?).map_err(|e| format!("header: {e}"))?;
    if header.format != FORMAT {
        return Err(format!("cache format {} (this folio reads {FORMAT})", header.format));
    }
    let files: Files = options().deserialize(&read_checked(source, files)?).map_err(|e| format!("file list: {e}"))?;
    let stamps_bytes = read_checked(source, stamps_at).map_err(|e| format!("{e} in the file stamps"))?;
    let stamps = match want {
        Stamps::Decoded => {
            let stamps = stamps::decode(&stamps_bytes)?;
            if stamps.len() as u64 != header.entities {
                return Err(format!("{} file stamps where the header says {} entities", stamps.len(), header.entities));
            }
            stamps
        }
        Stamps::Checked => Vec::new(),
    };
    let other_files = files
        .other
        .into_iter()
        .map(|(p, r)| role_from(r).map(|r| (p, r)).ok_or_else(|| format!("unknown file role {r}")))
        .collect::<Result<_, _>>()?;
    let walk_warnings =
        files.warnings.into_iter().map(|(code, message, path)| StoreWarning { code, message, path }).collect();
    let (parse_inputs, catalogs, lint) = (files.parse_inputs, files.catalogs, files.lint);
    Ok(Front { header, other_files, walk_warnings, parse_inputs, catalogs, lint, stamps })
}

/// The entity chunks: every section after the front.
fn decode_entities(
    source: &(impl Source + ?Sized),
    sections: &[(u64, u64, u32)],
    header: &Header,
    links: Links<'_>,
) -> Result<Vec<Arc<Entity>>, String> {
    use bincode::Options;
    let chunks = sections.get(3..).unwrap_or_default();
    if chunks.len() != header.chunks as usize {
        return Err(format!("truncated: {} of {} entity chunks", chunks.len(), header.chunks));
    }
    let chunks: Vec<Vec<Arc<Entity>>> = chunks
        .par_iter()
        .map(|section| {
            if let Links::Skipped(stop) = links
                && stop.load(std::sync::atomic::Ordering::Relaxed)
            {
                return Err("stopped: no longer wanted".to_string());
            }
            let bytes = read_checked(source, section).map_err(|e| format!("{e} in an entity chunk"))?;
            let entities = match links {
                Links::Kept => options().deserialize::<Vec<Entity>>(&bytes),
                Links::Skipped(_) => options()
                    .deserialize::<Vec<lean::Lean>>(&bytes)
                    .map(|lean| lean.into_iter().map(lean::Lean::into_entity).collect()),
            }
            .map_err(|e| format!("entities: {e}"))?;
            // Kinds, statuses and tags held once, as a load holds them. Pushed into a Vec of
            // its own: `into_iter().map(Arc::new).collect()` reuses the decoded chunk's buffer
            // (2,048 entities inline) for 2,048 pointers, and every chunk's buffer would be alive
            // at once until they are joined, at the cached open's peak (docs/benchmarks.md,
            // "Cache figures").
            let mut values = SharedValues::default();
            let mut shared = Vec::with_capacity(entities.len());
            for mut e in entities {
                values.share(&mut e);
                shared.push(Arc::new(e));
            }
            Ok::<_, String>(shared)
        })
        .collect::<Result<_, _>>()?;
    let mut entities = Vec::with_capacity(header.entities as usize);
    for c in chunks {
        entities.extend(c);
    }
    if entities.len() as u64 != header.entities {
        return Err(format!("{} entities where the header says {}", entities.len(), header.entities));
    }
    check_indices(&entities)?;
    Ok(entities)
}

/// Where a cache's bytes are read from: memory, or the file itself a section at a time.
trait Source: Sync {
    fn len(&self) -> u64;
    /// `len` bytes from `at` (already checked to lie inside).
    fn read(&self, at: u64, len: u64) -> Result<std::borrow::Cow<'_, [u8]>, String>;
}

impl Source for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read(&self, at: u64, len: u64) -> Result<std::borrow::Cow<'_, [u8]>, String> {
        Ok(std::borrow::Cow::Borrowed(&self[at as usize..(at + len) as usize]))
    }
}

/// A cache file read with positional reads (no shared cursor: chunks are read in parallel).
struct FileSource<'a> {
    file: &'a std::fs::File,
    len: u64,
}

impl<'a> FileSource<'a> {
    fn new(file: &'a std::fs::File) -> Result<Self, String> {
        let len = file.metadata().map_err(|e| e.to_string())?.len();
        Ok(FileSource { file, len })
    }
}

impl Source for FileSource<'_> {
    fn len(&self) -> u64 {
        self.len
    }
    fn read(&self, at: u64, len: u64) -> Result<std::borrow::Cow<'_, [u8]>, String> {
        let mut buf = vec![0; usize::try_from(len).map_err(|_| "a section too large to read")?];
        read_exact_at(self.file, &mut buf, at).map_err(|e| format!("reading the cache: {e}"))?;
        Ok(std::borrow::Cow::Owned(buf))
    }
}

#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(not(unix))]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    let mut remaining = buf;
    let mut at = at;
    while !remaining.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_read(file, remaining, at)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        remaining = &mut remaining[n..];
        at += n as u64;
    }
    Ok(())
}

/// Every section after the magic bytes as (offset of its body, length, stored CRC), read from
/// the 12-byte section headers alone.
fn sections(source: &(impl Source + ?Sized)) -> Result<Vec<(u64, u64, u32)>, String> {
    let total = source.len();
    let magic = source.read(0, (MAGIC.len() as u64).min(total))?;
    if magic.as_ref() != MAGIC.as_slice() {
        return Err(if magic.starts_with(b"FOLIOC") {
            "written by another cache format".into()
        } else {
            "not a folio cache file".into()
        });
    }
    let mut out = Vec::new();
    let mut at = MAGIC.len() as u64;
    while at < total {
        if total - at < 12 {
            return Err("truncated section header".into());
        }
        let head = source.read(at, 12)?;
        let len = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
        let body = at + 12;
        if len > total - body {
            return Err(format!("truncated: a section of {len} bytes has {} left", total - body));
        }
        out.push((body, len, crc));
        at = body + len;
    }
    Ok(out)
}

/// Every entity index a link or edge holds must point inside the store (the views index with it).
fn check_indices(entities: &[Arc<Entity>]) -> Result<(), String> {
    let n = entities.len() as u64;
    let bad = entities.par_iter().any(|e| {
        e.links.iter().any(|l| matches!(l.resolution, Resolution::Entity(i) if u64::from(i) >= n))
            || e.edges.iter().any(|d| d.resolved.is_some_and(|i| u64::from(i) >= n))
    });
    if bad { Err("an entity index out of range".into()) } else { Ok(()) }
}

/// Walks the sections after the magic bytes.
struct Sections<'a> {
    rest: &'a [u8],
}

impl<'a> Sections<'a> {
    fn new(bytes: &'a [u8]) -> Result<Self, String> {
        match bytes.strip_prefix(MAGIC.as_slice()) {
            Some(rest) => Ok(Sections { rest }),
            None if bytes.starts_with(b"FOLIOC") => Err("written by another cache format".into()),
            None => Err("not a folio cache file".into()),
        }
    }

    /// The next section and its stored CRC (checked by the caller, in parallel).
    fn next_unchecked(&mut self) -> Result<Option<(u32, &'a [u8])>, String> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        if self.rest.len() < 12 {
            return Err("truncated section header".into());
        }
        let len = u64::from_le_bytes(self.rest[..8].try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(self.rest[8..12].try_into().expect("4 bytes"));
        let body = &self.rest[12..];
        if len > body.len() as u64 {
            return Err(format!("truncated: a section of {len} bytes has {} left", body.len()));
        }
        let (section, rest) = body.split_at(len as usize);
        self.rest = rest;
        Ok(Some((crc, section)))
    }

    fn next_checked(&mut self) -> Result<Option<&'a [u8]>, String> {
        match self.next_unchecked()? {
            Some((crc, s)) if crc32fast::hash(s) == crc => Ok(Some(s)),
            Some(_) => Err("checksum mismatch".into()),
            None => Ok(None),
        }
    }
}

fn role_code(r: FileRole) -> u8 {
    match r {
        FileRole::Entity => 0,
        FileRole::Catalog => 1,
        FileRole::Log => 2,
        FileRole::Other => 3,
    }
}

fn role_from(c: u8) -> Option<FileRole> {
    Some(match c {
        0 => FileRole::Entity,
        1 => FileRole::Catalog,
        2 => FileRole::Log,
        3 => FileRole::Other,
        _ => return None,
    })
}

/// `Problem` as serialized, with its rule id owned.
#[derive(Deserialize)]
struct ProblemRepr {
    rule: String,
    severity: Option<Severity>,
    message: String,
    line: u32,
    col: u32,
    bytes: Option<std::ops::Range<u32>>,
}

/// A problem's `rule` is read back as the matching constant; an id this build does not know is
/// an error (the cache was written by other code and is rebuilt).
impl<'de> Deserialize<'de> for Problem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Problem, D::Error> {
        let r = ProblemRepr::deserialize(d)?;
        let rule = crate::store::lint::rules::lookup(&r.rule)
            .map(|known| known.id)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown rule id `{}`", r.rule)))?;
        Ok(Problem { rule, severity: r.severity, message: r.message, line: r.line, col: r.col, bytes: r.bytes })
    }
}

#[cfg(test)]
mod tests;
