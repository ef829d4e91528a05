//! What folio last read of a database, in two files of its state folder, read in parts:
//! - `snapshot.bin`, the index: a header (the three tables' sums, `rows::tables`; where the
//!   texts end; its own CRC-32) and per visible node its id, version (`rows::Version`), where
//!   the export would put it (`rows::Node::path`) and where its rendering
//!   (`rows::Node::render`) lies in the texts file, with that text's CRC-32; the index has a
//!   CRC-32 of its own. An open whose tables did not change reads the header alone.
//! - `snapshot.texts`, the renderings one after another, appended to: a decision or a
//!   refresh of a few rows adds their new texts at its end and writes a new index
//!   (atomically: a temporary file renamed over it), so a torn append is bytes no index
//!   names. When more than half of it is texts no index names, it is written anew.
//!
//! A text is read by its offset and checked by its own CRC. A torn, damaged or foreign file
//! is never trusted, and the database is read again. The index's generation, new on every
//! write, keys the store cache (`Format::files_token`).
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{FileExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::rows::{TableSum, Tables, Version};
use crate::store::dialect::MemoryFiles;

/// The versions say whether a row changed, not whether folio renders it differently: bump
/// the digit when `rows::Node::render` changes what it writes, so every node is read again
/// (and when the layout changes: 4 keeps more generations, `SINCE_KEPT`; 5 shows a provenance
/// that is not an object as it is; 6 an `aliases` that is not a list inside it).
const MAGIC: &[u8; 8] = b"FOLIOSN6";
/// The texts file's first bytes, then its epoch (which index it belongs to).
const TEXTS_MAGIC: &[u8; 8] = b"FOLIOTX1";
const TEXTS_HEAD: u64 = 16;

/// The index, under the database folder's `.folio`.
const FILE: &str = "snapshot.bin";
/// The renderings.
const TEXTS: &str = "snapshot.texts";
/// Held (an OS file lock) while the two are written: one writer at a time.
const LOCK: &str = "snapshot.lock";

/// Magic, the header's CRC, generation, the tables' flag and sums, the horizon, the texts'
/// epoch, end and dead bytes, the index's length and CRC, the tail's length and CRC.
const HEADER: usize = 8 + 4 + 8 + 1 + 6 * 8 + 8 + 8 + 8 + 8 + 8 + 4 + 8 + 4;

/// The tail (changes appended after the index, `append`) is folded into a new index once it
/// is longer than this or than an eighth of the index.
const TAIL_MAX: u64 = 4 << 20;

/// How many earlier generations the index remembers the changed paths since
/// (`changed_since`): a store cached a few decisions ago is brought up by those alone. A
/// decision opens its part only while the cached store lags by at most half of these
/// (`may_lag`), else the whole store: at 16, every fifth decision and undo took 1.4 s
/// instead of 0.1 (docs/benchmarks.md, "pgonce"). An open keeps a lagging store only while
/// it lags by a quarter, so that the next 16 decisions all open their parts.
const SINCE_KEPT: usize = 64;

/// The texts file is written anew when more than half of it is dead and it is bigger than this.
const COMPACT_ABOVE: u64 = 1 << 20;

/// One node as last read.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub version: Version,
    /// Its path as the export lays it out (`rows::Node::path`).
    pub rel: String,
    /// Its rendering (`rows::Node::render`).
    pub text: String,
}

/// The nodes by id. foldhash: 100k ids on every open that changed something.
pub type Nodes = HashMap<String, Node, foldhash::fast::RandomState>;

/// What an open took: the tables as they read then (None: not known, compare every node),
/// and each visible node.
#[derive(Debug, Default, PartialEq)]
pub struct Snapshot {
    /// New on every write; 0 for one never written.
    pub generation: u64,
    pub tables: Option<Tables>,
    /// The oldest transaction still running when the tables were read (`since::horizon`; 0:
    /// not known): every row written after them has an `xmin` at or after it.
    pub horizon: u64,
    pub nodes: Nodes,
}

/// What reading something of the snapshot found.
#[derive(Debug)]
pub enum Found<T> {
    /// No snapshot yet.
    Missing,
    /// A file that cannot be trusted, and why: it is rebuilt from the database.
    Damaged(String),
    Intact(T),
}

/// The index's header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    pub generation: u64,
    pub tables: Option<Tables>,
    /// As `Snapshot::horizon`.
    pub horizon: u64,
    /// Which texts file the index names (written at its start).
    epoch: u64,
    /// Where the texts the index names end.
    texts_end: u64,
    /// Bytes of the texts file no index entry names any more.
    dead: u64,
    index_len: u64,
    index_crc: u32,
    /// The changes appended after the index (`Tail`), and their CRC.
    tail_len: u64,
    tail_crc: u32,
}

/// One node in the index: its text is `len` bytes at `at` in the texts file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: String,
    pub version: Version,
    pub rel: String,
    at: u64,
    len: u32,
    crc: u32,
}

/// The header and every node's entry, no text.
#[derive(Debug, Clone)]
pub struct Index {
    pub header: Header,
    pub entries: Vec<Entry>,
    /// Per earlier generation, the paths changed from it to the next one (oldest first).
    since: Vec<(u64, Vec<String>)>,
}

impl Entry {
    /// Where its text lies in the texts file.
    pub fn span(&self) -> std::ops::Range<usize> {
        self.at as usize..(self.at + u64::from(self.len)) as usize
    }
}

impl Index {
    pub fn by_rel(&self, rel: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.rel == rel)
    }
}

pub fn path(root: &Path) -> PathBuf {
    root.join(".folio").join(FILE)
}

fn texts_path(root: &Path) -> PathBuf {
    root.join(".folio").join(TEXTS)
}

const BAD: &str = "its checksum matches but its contents do not parse";

/// The header alone, checked (magic, its CRC): an open whose tables did not change reads
/// nothing else.
pub fn header(root: &Path) -> Found<Header> {
    match stamped_header(root) {
        Found::Intact((h, _)) => Found::Intact(h),
        Found::Missing => Found::Missing,
        Found::Damaged(why) => Found::Damaged(why),
    }
}

/// The index file as found on disk: its inode, length and modification time. With the header,
/// it tells whether bytes read earlier are still the file's (a file damaged or cut in place
/// keeps its header).
#[derive(Debug, Clone, Copy, PartialEq)]
struct FileStamp(u64, u64, u64, i64, i64);

fn stamped_header(root: &Path) -> Found<(Header, FileStamp)> {
    let mut head = [0u8; HEADER];
    let read = File::open(path(root)).and_then(|mut f| {
        f.read_exact(&mut head)?;
        let m = f.metadata()?;
        Ok(FileStamp(m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
    });
    match read {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Found::Missing,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Found::Damaged("cut short".into()),
        Err(e) => Found::Damaged(format!("cannot read: {e}")),
        Ok(stamp) => match decode_header(&head) {
            Ok(h) => Found::Intact((h, stamp)),
            Err(why) => Found::Damaged(why.into()),
        },
    }
}

fn decode_header(b: &[u8]) -> Result<Header, &'static str> {
    let rest = b.strip_prefix(MAGIC).ok_or("not a snapshot of this folio version")?;
    if rest.len() < HEADER - 8 {
        return Err("cut short");
    }
    let crc = u32::from_le_bytes(rest[..4].try_into().map_err(|_| "cut short")?);
    if crc32fast::hash(&rest[4..HEADER - 8]) != crc {
        return Err("its header's checksum does not match its bytes (torn or damaged)");
    }
    let mut r = Reader(&rest[4..]);
    let generation = r.u64().ok_or(BAD)?;
    let known = match r.take(1).ok_or(BAD)? {
        [0] => false,
        [1] => true,
        _ => return Err(BAD),
    };
    let mut sum = || Some(TableSum { rows: r.u64()? as i64, xor: r.u64()? as i64 });
    let tables = Tables { nodes: sum().ok_or(BAD)?, edges: sum().ok_or(BAD)?, sources: sum().ok_or(BAD)? };
    Ok(Header {
        generation,
        tables: known.then_some(tables),
        horizon: r.u64().ok_or(BAD)?,
        epoch: r.u64().ok_or(BAD)?,
        texts_end: r.u64().ok_or(BAD)?,
        dead: r.u64().ok_or(BAD)?,
        index_len: r.u64().ok_or(BAD)?,
        index_crc: r.u32().ok_or(BAD)?,
        tail_len: r.u64().ok_or(BAD)?,
        tail_crc: r.u32().ok_or(BAD)?,
    })
}

fn encode_header(h: &Header) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&h.generation.to_le_bytes());
    let t = h.tables.unwrap_or_default();
    out.push(u8::from(h.tables.is_some()));
    for sum in [t.nodes, t.edges, t.sources] {
        out.extend_from_slice(&sum.rows.to_le_bytes());
        out.extend_from_slice(&sum.xor.to_le_bytes());
    }
    for v in [h.horizon, h.epoch, h.texts_end, h.dead, h.index_len] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&h.index_crc.to_le_bytes());
    out.extend_from_slice(&h.tail_len.to_le_bytes());
    out.extend_from_slice(&h.tail_crc.to_le_bytes());
    let crc = crc32fast::hash(&out[12..]);
    out[8..12].copy_from_slice(&crc.to_le_bytes());
    out
}

/// The header and the index, both checked; no text is read.
pub fn index(root: &Path) -> Found<Index> {
    match index_bytes(root) {
        Found::Intact(bytes) => match decode_index(bytes.parts()) {
            Ok(i) => Found::Intact(i),
            Err(why) => Found::Damaged(why.into()),
        },
        Found::Missing => Found::Missing,
        Found::Damaged(why) => Found::Damaged(why),
    }
}

/// The index file's bytes, checked (`parts`): read once per process while its header on
/// disk stays the same. A decision asked for them up to four times (the cache's check, the
/// search for links in, the write's lookup, the append: docs/benchmarks.md, "pgonce").
pub fn index_bytes(root: &Path) -> Found<Checked> {
    /// The folder, the header and stamp the bytes were read under, the bytes.
    type Read = (PathBuf, Header, FileStamp, Checked);
    static READ: Mutex<Option<Read>> = Mutex::new(None);
    let now = match stamped_header(root) {
        Found::Intact(h) => h,
        Found::Missing => return Found::Missing,
        Found::Damaged(why) => return Found::Damaged(why),
    };
    let mut cached = READ.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((r, was, stamp, bytes)) = cached.as_ref()
        && r == root
        && (*was, *stamp) == now
    {
        return Found::Intact(bytes.clone());
    }
    let read = File::open(path(root)).and_then(|mut f| {
        let m = f.metadata()?;
        let mut bytes = Vec::with_capacity(m.len() as usize);
        f.read_to_end(&mut bytes)?;
        Ok((bytes, FileStamp(m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec())))
    });
    let (bytes, stamp) = match read {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Found::Missing,
        Err(e) => return Found::Damaged(format!("cannot read: {e}")),
        Ok(b) => b,
    };
    // Keyed by the header and stamp read with the bytes (a writer may have come since `now`).
    let checked = match Checked::new(bytes) {
        Ok(c) => c,
        Err(why) => return Found::Damaged(why.into()),
    };
    *cached = Some((root.to_path_buf(), checked.header, stamp, checked.clone()));
    Found::Intact(checked)
}

/// The index file's bytes, their parts checked once (`parts`): split again without their
/// CRCs, which cost ≈ 3 ms per 10 MB each time a decision looked (docs/benchmarks.md,
/// "Sixteenth session").
#[derive(Clone)]
pub struct Checked {
    bytes: Arc<Vec<u8>>,
    header: Header,
}

impl Checked {
    pub fn new(bytes: Vec<u8>) -> Result<Checked, &'static str> {
        let header = parts(&bytes)?.header;
        Ok(Checked { bytes: Arc::new(bytes), header })
    }

    pub fn header(&self) -> Header {
        self.header
    }

    fn parts(&self) -> Parts<'_> {
        let body_end = HEADER + self.header.index_len as usize;
        let tail_end = body_end + self.header.tail_len as usize;
        Parts { header: self.header, body: &self.bytes[HEADER..body_end], tail: &self.bytes[body_end..tail_end] }
    }
}

/// The index's entries borrowed from its bytes (`index_bytes`), its tail applied, each
/// its id and where its text lies: what a search of every text reads (`entries_where`),
/// without owning 100k ids or checking 100k paths as UTF-8 first (the whole entries took
/// 25 ms before a veto's search could start; docs/benchmarks.md, "Sixteenth session").
pub struct Lean<'a> {
    pub header: Header,
    /// In the order of their texts in the texts file.
    pub entries: Vec<Slim<'a>>,
}

/// An entry of `Lean`.
#[derive(Debug, Clone, Copy)]
pub struct Slim<'a> {
    pub id: &'a str,
    at: u64,
    len: u32,
    crc: u32,
}

impl<'a> Slim<'a> {
    /// The entry at `r` (the id `id` read past it by `skim`).
    fn at(id: &'a [u8], mut r: Reader<'a>, texts_end: u64) -> Result<Slim<'a>, &'static str> {
        r.take(3 * 8).ok_or(BAD)?;
        let (at, len, crc) = (r.u64().ok_or(BAD)?, r.u32().ok_or(BAD)?, r.u32().ok_or(BAD)?);
        if at < TEXTS_HEAD || at + u64::from(len) > texts_end {
            return Err(BAD);
        }
        Ok(Slim { id: std::str::from_utf8(id).map_err(|_| BAD)?, at, len, crc })
    }
}

impl<'a> Lean<'a> {
    pub fn of(bytes: &'a Checked) -> Result<Lean<'a>, &'static str> {
        let p = bytes.parts();
        let end = p.header.texts_end;
        let n = p.body.get(..8).map_or(0, |c| u64::from_le_bytes(c.try_into().unwrap_or_default())) as usize;
        let mut entries = Vec::with_capacity(n.min(p.body.len() / 48));
        skim(p.body, |id, _, r| {
            entries.push(Slim::at(id, r, end)?);
            Ok(())
        })?;
        if !p.tail.is_empty() {
            let mut gone = vec![false; entries.len()];
            let mut pos: HashMap<&str, usize, foldhash::fast::RandomState> =
                entries.iter().enumerate().map(|(k, e)| (e.id, k)).collect();
            told(p.tail, end, |c| match c {
                Told::Put(raw) => {
                    let slim = Slim { id: raw.id, at: raw.at, len: raw.len, crc: raw.crc };
                    match pos.get(raw.id) {
                        Some(&k) => {
                            entries[k] = slim;
                            gone[k] = false;
                        }
                        None => {
                            pos.insert(raw.id, entries.len());
                            entries.push(slim);
                            gone.push(false);
                        }
                    }
                }
                Told::Remove(id) => {
                    if let Some(&k) = pos.get(id) {
                        gone[k] = true;
                    }
                }
                Told::Version(..) | Told::Since(..) => {}
            })?;
            let mut k = 0;
            entries.retain(|_| {
                k += 1;
                !gone[k - 1]
            });
        }
        // Written in the order of their texts; a tail's texts come later in the file.
        if !entries.is_sorted_by_key(|e| e.at) {
            entries.sort_unstable_by_key(|e| e.at);
        }
        Ok(Lean { header: p.header, entries })
    }
}

/// The index file's parts, each checked: the header, the index and the tail. Bytes past the
/// tail are an append that stopped before its header was written: nobody's.
struct Parts<'a> {
    header: Header,
    body: &'a [u8],
    tail: &'a [u8],
}

fn parts(b: &[u8]) -> Result<Parts<'_>, &'static str> {
    let header = decode_header(b)?;
    let body_end = (HEADER as u64).checked_add(header.index_len).ok_or(BAD)?;
    let tail_end = body_end.checked_add(header.tail_len).ok_or(BAD)?;
    if (b.len() as u64) < tail_end {
        return Err("its index is cut short (torn or damaged)");
    }
    let body = &b[HEADER..body_end as usize];
    if crc32fast::hash(body) != header.index_crc {
        return Err("its index's checksum does not match its bytes (torn or damaged)");
    }
    let tail = &b[body_end as usize..tail_end as usize];
    if crc32fast::hash(tail) != header.tail_crc {
        return Err("its tail of changes does not match its checksum (torn or damaged)");
    }
    Ok(Parts { header, body, tail })
}

/// One entry as the index holds it, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Raw<'a> {
    pub id: &'a str,
    pub rel: &'a str,
    pub version: Version,
    at: u64,
    len: u32,
    crc: u32,
}

impl Raw<'_> {
    fn owned(&self) -> Entry {
        Entry { id: self.id.into(), version: self.version, rel: self.rel.into(), at: self.at, len: self.len, crc: self.crc }
    }
}

fn raw_entry<'a>(r: &mut Reader<'a>, texts_end: u64) -> Result<Raw<'a>, &'static str> {
    let version = Version { xmin: r.u64().ok_or(BAD)?, edges: r.u64().ok_or(BAD)?, sources: r.u64().ok_or(BAD)? };
    let at = r.u64().ok_or(BAD)?;
    let len = r.u32().ok_or(BAD)?;
    let crc = r.u32().ok_or(BAD)?;
    let id = r.str().ok_or(BAD)?;
    let rel = r.str().ok_or(BAD)?;
    if at < TEXTS_HEAD || at + u64::from(len) > texts_end {
        return Err(BAD);
    }
    Ok(Raw { id, rel, version, at, len, crc })
}

/// Every entry of the index (not the tail) in order, unowned; then the changed paths it
/// remembers.
fn scan<'a>(
    body: &'a [u8],
    texts_end: u64,
    mut each: impl FnMut(Raw<'a>),
) -> Result<Vec<(u64, Vec<String>)>, &'static str> {
    let mut r = Reader(body);
    let n = r.u64().ok_or(BAD)?;
    for _ in 0..n {
        each(raw_entry(&mut r, texts_end)?);
    }
    since_links(r)
}

/// The changed paths the index remembers, after its entries (`r` at them).
fn since_links(mut r: Reader<'_>) -> Result<Vec<(u64, Vec<String>)>, &'static str> {
    let links = r.u32().ok_or(BAD)?;
    let mut since = Vec::new();
    for _ in 0..links.min(SINCE_KEPT as u32) {
        since.push(since_link(&mut r)?);
    }
    if !r.0.is_empty() {
        return Err(BAD);
    }
    Ok(since)
}

/// An entry's bytes before its id: its version, where its text lies, its length and CRC.
const ENTRY_FIXED: usize = 3 * 8 + 8 + 4 + 4;

/// Every entry of the index (not the tail) seen as its id's and path's bytes and a reader at
/// its start (`raw_entry` decodes it), nothing checked as UTF-8: looking for a few ids or paths,
/// or for the changed paths after the entries, so costs a few milliseconds at 100k nodes
/// where decoding every entry cost 15–25 (docs/benchmarks.md, "Sixteenth session"). The reader
/// after the entries comes back.
fn skim<'a>(
    body: &'a [u8],
    mut each: impl FnMut(&'a [u8], &'a [u8], Reader<'a>) -> Result<(), &'static str>,
) -> Result<Reader<'a>, &'static str> {
    let mut r = Reader(body);
    let n = r.u64().ok_or(BAD)?;
    for _ in 0..n {
        let start = Reader(r.0);
        r.take(ENTRY_FIXED).ok_or(BAD)?;
        let id = r.bytes().ok_or(BAD)?;
        let rel = r.bytes().ok_or(BAD)?;
        each(id, rel, start)?;
    }
    Ok(r)
}

fn since_link(r: &mut Reader<'_>) -> Result<(u64, Vec<String>), &'static str> {
    let from = r.u64().ok_or(BAD)?;
    let count = r.u32().ok_or(BAD)? as usize;
    let mut paths = Vec::with_capacity(count.min(r.0.len() / 4));
    for _ in 0..count {
        paths.push(r.string().ok_or(BAD)?);
    }
    Ok((from, paths))
}

/// A change as the tail keeps it (`Tail`), borrowed.
enum Told<'a> {
    Put(Raw<'a>),
    Version(&'a str, Version),
    Remove(&'a str),
    Since(u64, Vec<String>),
}

const PUT: u8 = 1;
const VERSION: u8 = 2;
const REMOVE: u8 = 3;
const SINCE: u8 = 4;

/// The tail's changes in the order they were appended.
fn told<'a>(tail: &'a [u8], texts_end: u64, mut each: impl FnMut(Told<'a>)) -> Result<(), &'static str> {
    let mut r = Reader(tail);
    while !r.0.is_empty() {
        match r.take(1).ok_or(BAD)?[0] {
            PUT => each(Told::Put(raw_entry(&mut r, texts_end)?)),
            VERSION => {
                let id = r.str().ok_or(BAD)?;
                each(Told::Version(id, Version { xmin: r.u64().ok_or(BAD)?, edges: r.u64().ok_or(BAD)?, sources: r.u64().ok_or(BAD)? }))
            }
            REMOVE => each(Told::Remove(r.str().ok_or(BAD)?)),
            SINCE => {
                let (from, paths) = since_link(&mut r)?;
                each(Told::Since(from, paths))
            }
            _ => return Err(BAD),
        }
    }
    Ok(())
}

fn put_entry(out: &mut Vec<u8>, e: &Entry) {
    for v in [e.version.xmin, e.version.edges, e.version.sources, e.at] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&e.len.to_le_bytes());
    out.extend_from_slice(&e.crc.to_le_bytes());
    for s in [&e.id, &e.rel] {
        put_string(out, s);
    }
}

fn put_since(out: &mut Vec<u8>, from: u64, paths: &[String]) {
    out.extend_from_slice(&from.to_le_bytes());
    out.extend_from_slice(&(paths.len() as u32).to_le_bytes());
    for p in paths {
        put_string(out, p);
    }
}

fn keep_since(since: &mut Vec<(u64, Vec<String>)>) {
    if since.len() > SINCE_KEPT {
        since.drain(..since.len() - SINCE_KEPT);
    }
}

fn decode_index(p: Parts<'_>) -> Result<Index, &'static str> {
    let (header, raws, gone, since) = decode_raws(p)?;
    let entries = raws.iter().zip(&gone).filter(|(_, gone)| !**gone).map(|(raw, _)| raw.owned()).collect();
    Ok(Index { header, entries, since })
}

/// Every entry borrowed, with the tail applied: those the tail removed are marked `gone`.
type Raws<'a> = (Header, Vec<Raw<'a>>, Vec<bool>, Vec<(u64, Vec<String>)>);

fn decode_raws(p: Parts<'_>) -> Result<Raws<'_>, &'static str> {
    let end = p.header.texts_end;
    // The count is checked against the bytes actually there before anything is reserved.
    let n = p.body.get(..8).map_or(0, |c| u64::from_le_bytes(c.try_into().unwrap_or_default())) as usize;
    // The tail applied to entries still borrowed from the bytes, each owned once at the end
    // (an owned copy of every id for the tail's map was most of a decision's index read).
    let mut raws = Vec::with_capacity(n.min(p.body.len() / 48));
    let mut since = scan(p.body, end, |raw| raws.push(raw))?;
    let mut gone = vec![false; raws.len()];
    if !p.tail.is_empty() {
        let mut pos: HashMap<&str, usize, foldhash::fast::RandomState> =
            raws.iter().enumerate().map(|(k, e)| (e.id, k)).collect();
        told(p.tail, end, |c| match c {
            Told::Put(raw) => match pos.get(raw.id) {
                Some(&k) => {
                    raws[k] = raw;
                    gone[k] = false;
                }
                None => {
                    pos.insert(raw.id, raws.len());
                    raws.push(raw);
                    gone.push(false);
                }
            },
            Told::Version(id, v) => {
                if let Some(&k) = pos.get(id) {
                    raws[k].version = v;
                }
            }
            Told::Remove(id) => {
                if let Some(&k) = pos.get(id) {
                    gone[k] = true;
                }
            }
            Told::Since(from, paths) => {
                since.push((from, paths));
                keep_since(&mut since);
            }
        })?;
    }
    Ok((p.header, raws, gone, since))
}

/// The entries of these ids, from the index and its tail, without decoding the others.
fn lookup(p: &Parts<'_>, ids: &[&str]) -> Result<HashMap<String, Entry>, &'static str> {
    let ids: std::collections::HashSet<&[u8], foldhash::fast::RandomState> = ids.iter().map(|id| id.as_bytes()).collect();
    let mut found: HashMap<String, Entry> = HashMap::new();
    skim(p.body, |id, _, mut at| {
        if ids.contains(id) {
            let raw = raw_entry(&mut at, p.header.texts_end)?;
            found.insert(raw.id.to_string(), raw.owned());
        }
        Ok(())
    })?;
    told(p.tail, p.header.texts_end, |c| match c {
        Told::Put(raw) if ids.contains(raw.id.as_bytes()) => {
            found.insert(raw.id.to_string(), raw.owned());
        }
        Told::Version(id, v) => {
            if let Some(e) = found.get_mut(id) {
                e.version = v;
            }
        }
        Told::Remove(id) => {
            found.remove(id);
        }
        _ => {}
    })?;
    Ok(found)
}

/// The changed paths the index and its tail remember, without decoding the entries.
fn since_of(p: &Parts<'_>) -> Result<Vec<(u64, Vec<String>)>, &'static str> {
    let mut since = since_links(skim(p.body, |_, _, _| Ok(()))?)?;
    told(p.tail, p.header.texts_end, |c| {
        if let Told::Since(from, paths) = c {
            since.push((from, paths));
            keep_since(&mut since);
        }
    })?;
    Ok(since)
}

/// The index file's bytes for `header` (its index length and CRC set here) and `entries`.
fn encode_index(header: &mut Header, entries: &[Entry], since: &[(u64, Vec<String>)]) -> Vec<u8> {
    let size: usize = entries.iter().map(|e| 48 + e.id.len() + e.rel.len()).sum();
    let mut body = Vec::with_capacity(size + 16);
    body.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for e in entries {
        put_entry(&mut body, e);
    }
    body.extend_from_slice(&(since.len() as u32).to_le_bytes());
    for (from, paths) in since {
        put_since(&mut body, *from, paths);
    }
    header.index_len = body.len() as u64;
    header.index_crc = crc32fast::hash(&body);
    header.tail_len = 0;
    header.tail_crc = crc32fast::hash(&[]);
    let mut out = encode_header(header);
    out.extend_from_slice(&body);
    out
}

fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The texts file of an index, open for reads by offset.
pub struct Texts(File);

impl Texts {
    pub fn open(root: &Path, header: &Header) -> Result<Texts, String> {
        let f = File::open(texts_path(root)).map_err(|e| format!("its texts cannot be read: {e}"))?;
        let mut head = [0u8; TEXTS_HEAD as usize];
        f.read_exact_at(&mut head, 0).map_err(|_| "its texts are cut short".to_string())?;
        let len = f.metadata().map_err(|e| format!("its texts cannot be read: {e}"))?.len();
        if !head.starts_with(TEXTS_MAGIC) || head[8..] != header.epoch.to_le_bytes() || len < header.texts_end {
            return Err("its texts are not the ones its index names (torn or damaged)".into());
        }
        Ok(Texts(f))
    }

    /// A node's rendering, checked by its own CRC.
    pub fn text(&self, e: &Entry) -> Result<String, String> {
        let mut bytes = vec![0u8; e.len as usize];
        self.0.read_exact_at(&mut bytes, e.at).map_err(|err| format!("the text of node `{}`: {err}", e.id))?;
        text_of(e, bytes)
    }
}

fn text_of(e: &Entry, bytes: Vec<u8>) -> Result<String, String> {
    if crc32fast::hash(&bytes) != e.crc {
        return Err(format!("the text of node `{}` does not match its checksum (torn or damaged)", e.id));
    }
    String::from_utf8(bytes).map_err(|_| format!("the text of node `{}` is not UTF-8", e.id))
}

/// The whole snapshot: the index and every text, each checked.
pub fn read(root: &Path) -> Found<Snapshot> {
    let i = match index(root) {
        Found::Intact(i) => i,
        Found::Missing => return Found::Missing,
        Found::Damaged(why) => return Found::Damaged(why),
    };
    match texts_of(root, &i) {
        Ok(nodes) => Found::Intact(Snapshot {
            generation: i.header.generation,
            tables: i.header.tables,
            horizon: i.header.horizon,
            nodes,
        }),
        Err(why) => Found::Damaged(why),
    }
}

/// Every node of `i` with its text (the texts file read once, each text checked).
fn texts_of(root: &Path, i: &Index) -> Result<Nodes, String> {
    let t = Texts::open(root, &i.header)?;
    let mut all = vec![0u8; i.header.texts_end as usize];
    t.0.read_exact_at(&mut all, 0).map_err(|e| format!("its texts cannot be read: {e}"))?;
    let mut nodes = Nodes::with_capacity_and_hasher(i.entries.len(), Default::default());
    for e in &i.entries {
        let bytes = all[e.at as usize..(e.at + u64::from(e.len)) as usize].to_vec();
        let text = text_of(e, bytes)?;
        nodes.insert(e.id.clone(), Node { version: e.version, rel: e.rel.clone(), text });
    }
    Ok(nodes)
}

/// Bytes of texts `entries_where` reads at a time, per core.
const SCAN_CHUNK: u64 = 1 << 20;

/// The entries of `index` whose texts `keep` chooses (given each text checked by its CRC, theirs
/// to change): what a veto's part searches for the nodes that may link into its own
/// (`inbound`). The texts are read a megabyte at a time on every core, not whole: at 100k
/// nodes the whole was 100 MB, most of a verdict's memory and system time
/// (docs/benchmarks.md, "pgscan").
pub fn entries_where<'i, 'b>(
    root: &Path,
    index: &'i Lean<'b>,
    keep: impl Fn(&mut [u8]) -> bool + Sync,
) -> Result<Vec<&'i Slim<'b>>, String> {
    entries_where_in(root, index, SCAN_CHUNK, keep)
}

fn entries_where_in<'i, 'b>(
    root: &Path,
    index: &'i Lean<'b>,
    chunk: u64,
    keep: impl Fn(&mut [u8]) -> bool + Sync,
) -> Result<Vec<&'i Slim<'b>>, String> {
    use rayon::prelude::*;
    let texts = Texts::open(root, &index.header)?;
    let order: Vec<&Slim> = index.entries.iter().collect();
    // Runs of neighbouring texts spanning at most `chunk` bytes (a longer text alone).
    let mut runs: Vec<&[&Slim]> = Vec::new();
    let mut rest = &order[..];
    while let Some(first) = rest.first() {
        let n = rest.iter().position(|e| e.at + u64::from(e.len) > first.at + chunk).unwrap_or(rest.len());
        let (run, tail) = rest.split_at(n.max(1));
        runs.push(run);
        rest = tail;
    }
    let kept = runs
        .par_iter()
        .map_init(Vec::new, |buf: &mut Vec<u8>, run| -> Result<Vec<&'i Slim<'b>>, String> {
            let start = run[0].at;
            let end = run.iter().map(|e| e.at + u64::from(e.len)).max().unwrap_or(start);
            buf.resize((end - start) as usize, 0);
            texts.0.read_exact_at(buf, start).map_err(|e| format!("its texts cannot be read: {e}"))?;
            let mut out = Vec::new();
            for e in run.iter().copied() {
                let text = &mut buf[(e.at - start) as usize..][..e.len as usize];
                if crc32fast::hash(text) != e.crc {
                    return Err(format!("the text of node `{}` does not match its checksum (torn or damaged)", e.id));
                }
                if keep(text) {
                    out.push(e);
                }
            }
            Ok(out)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(kept.into_iter().flatten().collect())
}

/// The generation of the snapshot on disk, from its header alone (a damaged one is found
/// and rebuilt by the open that reads it, before the cache asks this).
pub fn generation(root: &Path) -> Option<u64> {
    match header(root) {
        Found::Intact(h) => Some(h.generation),
        _ => None,
    }
}

/// The writers' lock, held while it lives.
struct Locked(#[allow(dead_code)] File);

fn lock(root: &Path) -> io::Result<Locked> {
    let dir = root.join(".folio");
    std::fs::create_dir_all(&dir)?;
    let f = File::options().create(true).truncate(false).write(true).open(dir.join(LOCK))?;
    // Blocking: writers hold it for one append or one write of the snapshot.
    // SAFETY: flock on a descriptor this function owns; no memory is shared.
    if unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&f), libc::LOCK_EX) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Locked(f))
}

/// Written whole under a new generation (set in `s`): new texts, then the index naming them.
/// Not synced to the disk: it is a cache of the database, and what a crash leaves of it
/// (nothing, or bytes that do not check) is read again from the database.
pub fn write(root: &Path, s: &mut Snapshot) -> io::Result<()> {
    let _lock = lock(root)?;
    write_locked(root, s, Vec::new())
}

fn write_locked(root: &Path, s: &mut Snapshot, since: Vec<(u64, Vec<String>)>) -> io::Result<()> {
    s.generation = fresh_generation();
    let epoch = fresh_generation();
    let mut head = Vec::with_capacity(TEXTS_HEAD as usize);
    head.extend_from_slice(TEXTS_MAGIC);
    head.extend_from_slice(&epoch.to_le_bytes());
    // The texts are written from the nodes as they are, not gathered into one buffer first
    // (100 MB copied and paged in at 100k nodes: docs/benchmarks.md, "Round: issue 43 (ninth
    // session: the first open)").
    let mut texts: Vec<&[u8]> = Vec::with_capacity(1 + s.nodes.len());
    texts.push(&head);
    let mut at = TEXTS_HEAD;
    let mut entries = Vec::with_capacity(s.nodes.len());
    for (id, n) in &s.nodes {
        entries.push(entry_at(id, n, at));
        texts.push(n.text.as_bytes());
        at += n.text.len() as u64;
    }
    let mut header = Header {
        generation: s.generation,
        tables: s.tables,
        horizon: s.horizon,
        epoch,
        texts_end: at,
        dead: 0,
        index_len: 0,
        index_crc: 0,
        tail_len: 0,
        tail_crc: 0,
    };
    let index = encode_index(&mut header, &entries, &since);
    replace_with(&texts_path(root), &texts)?;
    replace(&path(root), &index)
}

fn entry_at(id: &str, n: &Node, at: u64) -> Entry {
    Entry {
        id: id.to_string(),
        version: n.version,
        rel: n.rel.clone(),
        at,
        len: n.text.len() as u32,
        crc: crc32fast::hash(n.text.as_bytes()),
    }
}

/// A file replaced atomically (a temporary renamed over it).
fn replace(p: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_with(p, &[bytes])
}

/// `replace` with these parts one after another, written as they are (no copy of them
/// gathered first).
fn replace_with(p: &Path, parts: &[&[u8]]) -> io::Result<()> {
    let dir = p.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.folio-tmp-{}", std::process::id()));
    let written = File::create(&tmp).and_then(|mut f| write_parts(&mut f, parts)).and_then(|()| std::fs::rename(&tmp, p));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Every byte of `parts`, in order, a few hundred parts to a system call (`writev`).
fn write_parts(f: &mut File, parts: &[&[u8]]) -> io::Result<()> {
    use std::io::IoSlice;
    for group in parts.chunks(512) {
        let mut slices: Vec<IoSlice<'_>> = group.iter().map(|b| IoSlice::new(b)).collect();
        let mut left: &mut [IoSlice<'_>] = &mut slices;
        IoSlice::advance_slices(&mut left, 0);
        while !left.is_empty() {
            match f.write_vectored(left) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => IoSlice::advance_slices(&mut left, n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// A change to one node of the snapshot.
#[derive(Debug, Clone)]
pub enum Change {
    /// Its version, path and rendering now.
    Put(String, Node),
    /// Its version only (its rendering is the same).
    Version(String, Version),
    /// It left the view.
    Remove(String),
}

impl Change {
    pub fn id(&self) -> &str {
        match self {
            Change::Put(id, _) | Change::Version(id, _) | Change::Remove(id) => id,
        }
    }
}

/// How the tables' sums of an appended snapshot follow from the ones it had.
pub enum Sums {
    /// As the open read them, at this horizon (`Snapshot::horizon`).
    Are(Tables, u64),
    /// The ones it had, changed by what a decision wrote (`Delta`).
    Moved(Delta),
}

/// What a decision's transaction changed in the tables' sums (`rows::tables`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Delta {
    pub nodes: (i64, i64),
    pub edges: (i64, i64),
    pub sources: (i64, i64),
}

impl Delta {
    /// What writing one node moved, from its stamps before and after (`rows::stamp`).
    pub fn add(&mut self, was: &super::rows::Stamp, is: &super::rows::Stamp) {
        self.nodes.0 += i64::from(is.exists) - i64::from(was.exists);
        self.nodes.1 ^= was.node ^ is.node;
        self.edges.0 += is.edges.0 - was.edges.0;
        self.edges.1 ^= was.edges.2 ^ is.edges.2;
        self.sources.0 += is.sources.0 - was.sources.0;
        self.sources.1 ^= was.sources.2 ^ is.sources.2;
    }

    fn apply(&self, t: Tables) -> Tables {
        let m = |s: TableSum, (rows, xor): (i64, i64)| TableSum { rows: s.rows + rows, xor: s.xor ^ xor };
        Tables { nodes: m(t.nodes, self.nodes), edges: m(t.edges, self.edges), sources: m(t.sources, self.sources) }
    }
}

/// Take `changes` into the snapshot at generation `base` without rewriting it: their texts
/// appended to the texts file and the changes to the index's tail (`Told`), then the header
/// naming them written in place — a change of a few rows costs their bytes, not the 100k
/// entries' (docs/benchmarks.md, "Round: issue 43 … seventh session"). A tail grown past an
/// eighth of the index (or `TAIL_MAX`), or texts more than half dead, is folded into a new
/// index and texts written whole. `base` is the generation they were worked out from; if
/// another writer came between, the sums are left unknown (the next open compares every
/// node's version). The new generation and the paths that changed; None when there is no
/// intact snapshot to add to (the next open reads the database again).
pub fn append(root: &Path, base: u64, changes: Vec<Change>, sums: Sums) -> io::Result<Option<(u64, Vec<String>)>> {
    let _lock = lock(root)?;
    let Found::Intact(bytes) = index_bytes(root) else { return Ok(None) };
    let p = bytes.parts();
    if Texts::open(root, &p.header).is_err() {
        return Ok(None);
    }
    let ids: Vec<&str> = changes.iter().map(Change::id).collect();
    let Ok(mut now) = lookup(&p, &ids) else { return Ok(None) };
    let mut out = File::options().append(true).open(texts_path(root))?;
    let mut at = out.metadata()?.len();
    // A torn tail of an earlier append is past `texts_end` and named by no index: dead too.
    let mut dead = p.header.dead + (at - p.header.texts_end);
    let mut paths = Vec::new();
    let mut tail = Vec::new();
    let mut buf = Vec::new();
    for c in &changes {
        match c {
            Change::Put(id, n) => {
                if let Some(e) = now.get(id.as_str()) {
                    dead += u64::from(e.len);
                    paths.push(e.rel.clone());
                }
                let e = entry_at(id, n, at + buf.len() as u64);
                buf.extend_from_slice(n.text.as_bytes());
                paths.push(n.rel.clone());
                tail.push(PUT);
                put_entry(&mut tail, &e);
                now.insert(id.clone(), e);
            }
            Change::Version(id, v) => {
                if let Some(e) = now.get_mut(id.as_str()) {
                    e.version = *v;
                    tail.push(VERSION);
                    put_string(&mut tail, id);
                    for x in [v.xmin, v.edges, v.sources] {
                        tail.extend_from_slice(&x.to_le_bytes());
                    }
                }
            }
            Change::Remove(id) => {
                if let Some(e) = now.remove(id.as_str()) {
                    dead += u64::from(e.len);
                    paths.push(e.rel);
                    tail.push(REMOVE);
                    put_string(&mut tail, id);
                }
            }
        }
    }
    out.write_all(&buf)?;
    at += buf.len() as u64;
    drop(out);
    paths.sort();
    paths.dedup();
    tail.push(SINCE);
    put_since(&mut tail, p.header.generation, &paths);
    let (tables, horizon) = match sums {
        Sums::Are(t, h) if p.header.generation == base => (Some(t), h),
        // A decision's own rows are at or after the horizon: the next open finds them there
        // as the snapshot has them.
        Sums::Moved(d) if p.header.generation == base => (p.header.tables.map(|t| d.apply(t)), p.header.horizon),
        _ => (None, 0),
    };
    let generation = fresh_generation();
    let tail_at = HEADER as u64 + p.header.index_len;
    let old_end = tail_at + p.header.tail_len;
    let mut all_tail = Vec::with_capacity(p.tail.len() + tail.len());
    all_tail.extend_from_slice(p.tail);
    all_tail.extend_from_slice(&tail);
    let mut header = Header {
        generation,
        tables,
        horizon,
        texts_end: at,
        dead,
        tail_len: all_tail.len() as u64,
        tail_crc: crc32fast::hash(&all_tail),
        ..p.header
    };
    let compact_texts = header.dead > at / 2 && at > COMPACT_ABOVE;
    if compact_texts || header.tail_len > (p.header.index_len / 8).clamp(64 << 10, TAIL_MAX) {
        // Folded: the index with every change of its tail, written anew.
        let mut whole = encode_header(&header);
        whole.extend_from_slice(p.body);
        whole.extend_from_slice(&all_tail);
        let i = parts(&whole).and_then(decode_index).map_err(io::Error::other)?;
        if compact_texts {
            let nodes = texts_of(root, &i).map_err(io::Error::other)?;
            let mut s = Snapshot { generation: 0, tables, horizon, nodes };
            write_locked(root, &mut s, i.since)?;
            return Ok(Some((s.generation, paths)));
        }
        replace(&path(root), &encode_index(&mut header, &i.entries, &i.since))?;
        return Ok(Some((generation, paths)));
    }
    // The tail's new bytes first (past what the old header names: a stop now leaves bytes
    // nobody reads), then the header naming them.
    let f = File::options().write(true).open(path(root))?;
    f.set_len(old_end)?;
    f.write_all_at(&tail, old_end)?;
    f.write_all_at(&encode_header(&header), 0)?;
    Ok(Some((generation, paths)))
}

/// The entries of these ids as the snapshot has them (the index and its tail), without
/// decoding the others', with the header. Missing or Damaged as `index`.
pub fn entries_of(root: &Path, ids: &[&str]) -> Found<(Header, HashMap<String, Entry>)> {
    let bytes = match index_bytes(root) {
        Found::Intact(b) => b,
        Found::Missing => return Found::Missing,
        Found::Damaged(why) => return Found::Damaged(why),
    };
    let p = bytes.parts();
    let found = lookup(&p, ids).map(|found| (p.header, found));
    match found {
        Ok(f) => Found::Intact(f),
        Err(why) => Found::Damaged(why.into()),
    }
}

/// A new generation: unique enough across processes (the clock's nanoseconds mixed with the
/// process id), never 0.
fn fresh_generation() -> u64 {
    static LAST: Mutex<u64> = Mutex::new(0);
    let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let g = (ns ^ u64::from(std::process::id()).rotate_left(40)).max(1);
    // Two in one clock tick of this process are still two.
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    *last = if g == *last { g.wrapping_add(1).max(1) } else { g };
    *last
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn string(&mut self) -> Option<String> {
        self.str().map(str::to_string)
    }

    fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }

    /// A string's bytes, unchecked.
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }
}

/// The snapshot's nodes as the loader reads them: each rendering by its path.
pub fn files(nodes: Nodes) -> MemoryFiles {
    // Sorted on every core first: the map is then built from a sorted run (a first open
    // gathers 100k paths here while the other core is idle).
    use rayon::prelude::*;
    let mut files: Vec<(String, String)> = nodes.into_values().map(|n| (n.rel, n.text)).collect();
    files.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    files.into_iter().collect()
}

/// The entity files this process last took for each database folder: an open, the live
/// poller and a decision publish what they wrote here, so the loader and every read of an
/// entity's bytes (`PgStorage::read`) find them without reading the snapshot again.
static TAKEN: Mutex<Vec<Taken>> = Mutex::new(Vec::new());

struct Taken {
    root: PathBuf,
    generation: u64,
    /// Every file, once something of this process read them all (the loader).
    files: Option<Arc<MemoryFiles>>,
}

/// Publish what was written at `generation` for the database folder `root`.
pub fn publish(root: &Path, generation: u64, files: MemoryFiles) -> Arc<MemoryFiles> {
    let files = Arc::new(files);
    let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    taken.retain(|t| t.root != root);
    taken.push(Taken { root: root.to_path_buf(), generation, files: Some(files.clone()) });
    files
}

/// The paths whose renderings changed between the snapshot at generation `from` and the
/// one on disk, when its index remembers (`SINCE_KEPT` generations back).
pub fn changed_since(root: &Path, from: u64) -> Option<Vec<String>> {
    if from == 0 {
        return None;
    }
    let Found::Intact(bytes) = index_bytes(root) else { return None };
    let p = bytes.parts();
    if p.header.generation == from {
        return Some(Vec::new());
    }
    let since = since_of(&p).ok()?;
    let start = since.iter().position(|(g, _)| *g == from)?;
    let mut paths: Vec<String> = since[start..].iter().flat_map(|(_, p)| p.iter().cloned()).collect();
    paths.sort();
    paths.dedup();
    Some(paths)
}

/// Whether a store cached at generation `from` may stay as it is: the index remembers the
/// changes since it and will for at least `ahead` more writes.
pub fn may_lag(root: &Path, from: u64, ahead: usize) -> bool {
    let Found::Intact(bytes) = index_bytes(root) else { return false };
    let Ok(since) = since_of(&bytes.parts()) else { return false };
    since.iter().position(|(g, _)| *g == from).is_some_and(|at| since.len() - at + ahead <= SINCE_KEPT)
}

/// The entity files of the database folder `root`: as this process last took them, else read
/// from its snapshot (an empty store when there is none or it cannot be trusted: it is noted
/// and removed, and the next open reads the database again).
pub fn files_of(root: &Path) -> Arc<MemoryFiles> {
    {
        let taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(files) = taken.iter().find(|t| t.root == root).and_then(|t| t.files.clone()) {
            return files;
        }
    }
    match read(root) {
        Found::Intact(s) => publish(root, s.generation, files(s.nodes)),
        Found::Missing => Arc::new(MemoryFiles::new()),
        Found::Damaged(why) => {
            // A text that does not check is found only when it is read: the database is
            // read again now, else the next open does.
            match super::mirror::rebuild(root, &why) {
                Ok(files) => files,
                Err(_) => {
                    let _ = std::fs::remove_file(path(root));
                    Arc::new(MemoryFiles::new())
                }
            }
        }
    }
}

/// The rendering at `rel` as this process or the snapshot has it: one text read by its
/// offset, its entry found by a scan of the index's bytes (no 100k entries built: a decision
/// reads its node so) — until a few hundred were read so in this process (a pass over many
/// nodes: the inbox, a lint of every body), when all are read at once instead.
pub fn text_at(root: &Path, rel: &str) -> io::Result<String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SINGLE_READS: AtomicUsize = AtomicUsize::new(0);
    let missing = || io::Error::new(io::ErrorKind::NotFound, "no such node in the database's snapshot");
    // The text is copied after the lock is let go: the inbox's threads read 100k so.
    let all = TAKEN.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|t| t.root == root).and_then(|t| t.files.clone());
    if let Some(files) = all {
        return files.get(rel).cloned().ok_or_else(missing);
    }
    if let Some(written) = super::writing::text(root, rel) {
        return written.ok_or_else(missing);
    }
    if SINGLE_READS.fetch_add(1, Ordering::Relaxed) >= 256 {
        return files_of(root).get(rel).cloned().ok_or_else(missing);
    }
    // An index that does not check is not a node missing: the caller reads every text
    // (`files_of`, which reads the database again).
    let unread = || io::Error::new(io::ErrorKind::InvalidData, "the database's snapshot cannot be read");
    let (bytes, texts) = cached_index(root).ok_or_else(unread)?;
    let e = lookup_rel(&bytes.parts(), rel).map_err(io::Error::other)?.ok_or_else(missing)?;
    texts.text(&e).map_err(io::Error::other)
}

/// The ids of the nodes the snapshot has at the paths `rels` (the index and its tail, the
/// other entries not decoded); none when it cannot be read or trusted.
pub fn ids_at(root: &Path, rels: &[String]) -> Vec<String> {
    let Some((bytes, _)) = cached_index(root) else { return Vec::new() };
    let p = bytes.parts();
    let wanted: std::collections::HashSet<&str> = rels.iter().map(String::as_str).collect();
    // By path: a later entry at a path (the tail's) replaces an earlier one.
    let mut at: HashMap<String, String> = HashMap::new();
    let found = skim(p.body, |_, rel, mut entry| {
        if std::str::from_utf8(rel).is_ok_and(|rel| wanted.contains(rel)) {
            let raw = raw_entry(&mut entry, p.header.texts_end)?;
            at.insert(raw.rel.to_string(), raw.id.to_string());
        }
        Ok(())
    })
    .and_then(|_| {
        told(p.tail, p.header.texts_end, |c| match c {
            Told::Put(raw) => {
                at.retain(|_, id| id != raw.id);
                if wanted.contains(raw.rel) {
                    at.insert(raw.rel.to_string(), raw.id.to_string());
                }
            }
            Told::Remove(id) => at.retain(|_, was| was != id),
            _ => {}
        })
    });
    match found {
        Ok(()) => at.into_values().collect(),
        Err(_) => Vec::new(),
    }
}

/// The entry at path `rel`, from the index and its tail, without decoding the others'.
fn lookup_rel(p: &Parts<'_>, rel: &str) -> Result<Option<Entry>, &'static str> {
    let mut found: Option<Entry> = None;
    skim(p.body, |_, at_rel, mut at| {
        if at_rel == rel.as_bytes() {
            found = Some(raw_entry(&mut at, p.header.texts_end)?.owned());
        }
        Ok(())
    })?;
    told(p.tail, p.header.texts_end, |c| match c {
        Told::Put(raw) if raw.rel == rel => found = Some(raw.owned()),
        // Moved elsewhere, or gone.
        Told::Put(raw) if found.as_ref().is_some_and(|e| e.id == raw.id) => found = None,
        Told::Remove(id) if found.as_ref().is_some_and(|e| e.id == id) => found = None,
        Told::Version(id, v) => {
            if let Some(e) = found.as_mut().filter(|e| e.id == id) {
                e.version = v;
            }
        }
        _ => {}
    })?;
    Ok(found)
}

/// The index file of `root` as last read by this process (checked) and its texts file, while
/// its header is the one on disk.
type Opened = (Checked, Arc<Texts>);
static TEXTS_OPEN: Mutex<Option<(PathBuf, Header, Arc<Texts>)>> = Mutex::new(None);

fn cached_index(root: &Path) -> Option<Opened> {
    let Found::Intact(bytes) = index_bytes(root) else { return None };
    let header = bytes.header();
    let mut cached = TEXTS_OPEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((r, was, t)) = cached.as_ref()
        && r == root
        && *was == header
    {
        return Some((bytes, t.clone()));
    }
    let t = Arc::new(Texts::open(root, &header).ok()?);
    *cached = Some((root.to_path_buf(), header, t.clone()));
    Some((bytes, t))
}

/// Replace, in place, the renderings at these paths (None: gone) in what this process
/// publishes for `root`; what they were comes back (`patch` it back to undo).
pub fn patch(root: &Path, changes: Vec<(String, Option<String>)>) -> Vec<(String, Option<String>)> {
    let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    let Some(files) = taken.iter_mut().find(|t| t.root == root).and_then(|t| t.files.as_mut()) else {
        return Vec::new();
    };
    let files = Arc::make_mut(files);
    changes
        .into_iter()
        .map(|(rel, text)| {
            let was = match text {
                Some(text) => files.insert(rel.clone(), text),
                None => files.remove(&rel),
            };
            (rel, was)
        })
        .collect()
}

/// What this process publishes for `root` is now the snapshot at `generation` (a decision or
/// a refresh patched it as it wrote it there).
pub fn renumber(root: &Path, generation: u64) {
    let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = taken.iter_mut().find(|t| t.root == root) {
        t.generation = generation;
    }
}

/// Whether this process holds every file of `root` at `generation` (a refresh then patches
/// them; else they are read from the snapshot when asked for).
pub fn holds(root: &Path, generation: u64) -> bool {
    let taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    taken.iter().any(|t| t.root == root && t.generation == generation && t.files.is_some())
}

/// Forget what this process holds of `root` (the snapshot changed under it).
pub fn forget(root: &Path) {
    TAKEN.lock().unwrap_or_else(|e| e.into_inner()).retain(|t| t.root != root);
}

/// Where the last open noted a damaged snapshot it rebuilt (`note_rebuilt`), under `.folio`.
const REBUILT: &str = "snapshot-rebuilt";

/// Note that the snapshot could not be trusted and was rebuilt (the store opened then says so).
pub fn note_rebuilt(root: &Path, why: &str) {
    let _ = crate::store::read::fsio::write_atomic(&root.join(".folio").join(REBUILT), why.as_bytes());
}

/// The note `note_rebuilt` left: the store opened by the open that rebuilt says why.
pub fn rebuilt_note(root: &Path) -> Option<String> {
    std::fs::read_to_string(root.join(".folio").join(REBUILT)).ok()
}

/// The next open that finds the snapshot intact drops the note.
pub fn clear_rebuilt(root: &Path) {
    let _ = std::fs::remove_file(root.join(".folio").join(REBUILT));
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn node(xmin: u64, rel: &str, text: &str) -> Node {
        Node { version: Version { xmin, edges: 3, sources: u64::MAX }, rel: rel.into(), text: text.into() }
    }

    fn sample(root: &Path) -> Snapshot {
        let mut s = Snapshot::default();
        s.nodes.insert("svc-pg".into(), node(7, "entities/service/svc-pg.md", "---\nid: svc-pg\n---\nBody\n"));
        s.nodes.insert("ünïcode".into(), node(u64::MAX, "facts/_n_code-0123456789.md", "---\nid: ü\n---\n"));
        let sum = |rows, xor| TableSum { rows, xor };
        s.tables = Some(Tables { nodes: sum(2, -5), edges: sum(0, 0), sources: sum(1, i64::MIN) });
        write(root, &mut s).unwrap();
        s
    }

    fn index_of(root: &Path) -> Index {
        match index(root) {
            Found::Intact(i) => i,
            other => panic!("{other:?}"),
        }
    }

    fn whole(root: &Path) -> Snapshot {
        match read(root) {
            Found::Intact(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_snapshot_reads_back_and_a_damaged_index_is_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let s = sample(root);
        assert_ne!(s.generation, 0);
        assert_eq!(generation(root), Some(s.generation));
        assert_eq!(whole(root), s);
        let bytes = std::fs::read(path(root)).unwrap();
        for cut in [0, 7, 8, 20, HEADER - 1, HEADER, bytes.len() - 1] {
            std::fs::write(path(root), &bytes[..cut]).unwrap();
            assert!(matches!(read(root), Found::Damaged(_)), "cut at {cut}");
        }
        // A flipped bit in the header, and one in the index.
        for at in [30, bytes.len() - 2] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1;
            std::fs::write(path(root), &flipped).unwrap();
            let Found::Damaged(why) = read(root) else { panic!("a flipped bit at {at} was trusted") };
            assert!(why.contains("checksum"), "{why}");
        }
        // The header alone checks with a damaged index: an unchanged open reads nothing else.
        let mut flipped = bytes.clone();
        flipped[bytes.len() - 2] ^= 1;
        std::fs::write(path(root), &flipped).unwrap();
        assert!(matches!(header(root), Found::Intact(_)));
        assert!(matches!(index(root), Found::Damaged(_)));
        std::fs::write(path(root), b"FOLIOSN1 the single file of earlier builds").unwrap();
        assert!(matches!(read(root), Found::Damaged(_)));
        std::fs::remove_file(path(root)).unwrap();
        assert!(matches!(read(root), Found::Missing));
    }

    #[test]
    fn a_text_that_does_not_match_its_checksum_is_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        sample(root);
        let Found::Intact(i) = index(root) else { panic!() };
        let e = i.by_rel("entities/service/svc-pg.md").unwrap().clone();
        let mut texts = std::fs::read(texts_path(root)).unwrap();
        texts[e.at as usize + 5] ^= 0x20;
        std::fs::write(texts_path(root), &texts).unwrap();
        // The index still checks; the text read by its offset does not, nor the whole.
        let t = Texts::open(root, &i.header).unwrap();
        let why = t.text(&e).unwrap_err();
        assert!(why.contains("svc-pg") && why.contains("checksum"), "{why}");
        let Found::Damaged(why) = read(root) else { panic!("a damaged text was trusted") };
        assert!(why.contains("svc-pg"), "{why}");
        // Texts of another snapshot (another epoch) are not these.
        sample(root);
        let Found::Intact(new) = index(root) else { panic!() };
        std::fs::write(path(root), encode_index(&mut i.header.clone(), &i.entries, &[])).unwrap();
        assert!(matches!(read(root), Found::Damaged(_)));
        drop(new);
    }

    #[test]
    fn a_scan_in_runs_keeps_the_texts_chosen_and_never_a_damaged_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut s = Snapshot::default();
        for k in 0..50 {
            let body = if k % 7 == 3 { "links to svc-pg" } else { "nothing" };
            let text = format!("---\nid: n{k}\n---\n{body} {}\n", "x".repeat(k * 3));
            s.nodes.insert(format!("n{k}"), node(k as u64, &format!("facts/n{k}.md"), &text));
        }
        write(root, &mut s).unwrap();
        // A later text for one node (appended: its old text is dead bytes between live ones).
        let new = node(99, "facts/n10.md", "---\nid: n10\n---\nnow svc-pg too\n");
        let d = Delta { nodes: (0, 0), ..Delta::default() };
        // And one node gone (a veto), one whose text no longer names it.
        let n52 = node(98, "facts/n52.md", "---\nid: n52\n---\nsvc-pg, a node added since\n");
        let n3 = node(97, "facts/n3.md", "---\nid: n3\n---\nnothing now\n");
        let changes = vec![
            Change::Put("n10".into(), new),
            Change::Remove("n17".into()),
            Change::Put("n52".into(), n52),
            Change::Put("n3".into(), n3),
        ];
        append(root, s.generation, changes, Sums::Moved(d)).unwrap().unwrap();
        let i = index_of(root);
        let bytes = Checked::new(std::fs::read(path(root)).unwrap()).unwrap();
        let lean = Lean::of(&bytes).unwrap();
        assert_eq!(lean.entries.len(), 50, "the tail's removal and addition applied");
        assert!(lean.entries.is_sorted_by_key(|e| e.at), "in the order of their texts");
        let want: Vec<&str> = vec!["n10", "n24", "n31", "n38", "n45", "n52"];
        // Runs of one text each, of a few, and the whole file at once: the same entries.
        for chunk in [1, 200, 1 << 30] {
            let kept = entries_where_in(root, &lean, chunk, |t| memchr::memmem::find(t, b"svc-pg").is_some()).unwrap();
            let mut ids: Vec<&str> = kept.iter().map(|e| e.id).collect();
            ids.sort();
            assert_eq!(ids, want, "runs of {chunk} bytes");
        }
        let e = i.by_rel("facts/n24.md").unwrap().clone();
        let mut texts = std::fs::read(texts_path(root)).unwrap();
        texts[e.at as usize + 3] ^= 0x20;
        std::fs::write(texts_path(root), &texts).unwrap();
        for chunk in [1, 200, 1 << 30] {
            let why = entries_where_in(root, &lean, chunk, |_| true).unwrap_err();
            assert!(why.contains("`n24`") && why.contains("checksum"), "{why}");
        }
    }

    #[test]
    fn an_append_adds_texts_and_a_torn_one_leaves_the_last_index_whole() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let s = sample(root);
        let texts_before = std::fs::read(texts_path(root)).unwrap();
        let new = node(9, "entities/service/svc-pg.md", "---\nid: svc-pg\n---\nApproved\n");
        let v = Version { xmin: 11, edges: 0, sources: 0 };
        let changes = vec![Change::Put("svc-pg".into(), new.clone()), Change::Version("ünïcode".into(), v)];
        let d = Delta { nodes: (0, 6), ..Delta::default() };
        let (g, paths) = append(root, s.generation, changes, Sums::Moved(d)).unwrap().unwrap();
        assert_eq!(paths, ["entities/service/svc-pg.md"]);
        let after = whole(root);
        assert_eq!(after.generation, g);
        assert_eq!(after.nodes["svc-pg"], new);
        assert_eq!(after.nodes["ünïcode"].version, v);
        assert_eq!(after.tables.unwrap().nodes, TableSum { rows: 2, xor: -5 ^ 6 });
        // The texts were appended to, not rewritten.
        let texts = std::fs::read(texts_path(root)).unwrap();
        assert!(texts.starts_with(&texts_before) && texts.len() > texts_before.len());
        assert_eq!(changed_since(root, s.generation), Some(paths.clone()));
        assert_eq!(changed_since(root, g), Some(Vec::new()));
        assert_eq!(changed_since(root, 12345), None);
        // A torn append (texts added, no new index): the index read is the last one, whole;
        // the next append counts the torn bytes dead and names none of them.
        let mut f = File::options().append(true).open(texts_path(root)).unwrap();
        f.write_all(b"---\nid: torn").unwrap();
        assert_eq!(whole(root), after);
        let by_path = |rel: &str| {
            let bytes = Checked::new(std::fs::read(path(root)).unwrap()).unwrap();
            lookup_rel(&bytes.parts(), rel).unwrap()
        };
        let rel = "facts/_n_code-0123456789.md";
        assert_eq!(by_path(rel).map(|e| e.version), Some(v), "a version in the tail");
        let e = by_path("entities/service/svc-pg.md").unwrap();
        let t = Texts::open(root, &index_of(root).header).unwrap();
        assert_eq!(t.text(&e).unwrap(), new.text, "a put in the tail");
        let changes = vec![Change::Remove("ünïcode".into())];
        let (g2, _) = append(root, g, changes, Sums::Are(Tables::default(), 0)).unwrap().unwrap();
        assert_eq!(by_path(rel), None, "a removal in the tail");
        let last = whole(root);
        assert_eq!(last.nodes.len(), 1);
        assert_eq!(last.tables, Some(Tables::default()));
        assert_eq!(changed_since(root, s.generation).unwrap().len(), 2);
        // A base another writer moved past: the sums are not known any more.
        let changes = vec![Change::Version("svc-pg".into(), v)];
        append(root, g, changes, Sums::Are(Tables::default(), 0)).unwrap().unwrap();
        assert_eq!(whole(root).tables, None);
        assert_ne!(g2, g);
    }

    #[test]
    fn compaction_keeps_every_nodes_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut s = Snapshot::default();
        for n in 0..300 {
            let text = format!("---\nid: n{n}\n---\n{}\n", "x".repeat(4000 + n));
            s.nodes.insert(format!("n{n}"), node(n as u64, &format!("facts/n{n}.md"), &text));
        }
        write(root, &mut s).unwrap();
        let size = std::fs::metadata(texts_path(root)).unwrap().len();
        let mut expected = whole(root).nodes;
        // Rewrite most nodes, a few at a time: the dead bytes pass half and it is compacted.
        let mut compacted = false;
        for round in 0..4 {
            let base = generation(root).unwrap();
            let changes: Vec<Change> = (0..100)
                .map(|k| {
                    let id = format!("n{}", (round * 100 + k) % 300);
                    let text = format!("---\nid: {id}\n---\nround {round} {}\n", "y".repeat(3000));
                    let n = node(round as u64, &format!("facts/{id}.md"), &text);
                    expected.insert(id.clone(), n.clone());
                    Change::Put(id, n)
                })
                .collect();
            append(root, base, changes, Sums::Are(Tables::default(), 0)).unwrap().unwrap();
            let now = std::fs::metadata(texts_path(root)).unwrap().len();
            compacted |= now < size;
            assert_eq!(whole(root).nodes, expected, "round {round}");
        }
        assert!(compacted, "the texts were never compacted");
        let Found::Intact(i) = index(root) else { panic!() };
        assert!(i.header.dead <= i.header.texts_end / 2);
    }

    #[test]
    fn its_files_are_the_renderings_by_path() {
        let mut nodes = Nodes::default();
        nodes.insert("b".into(), node(1, "facts/b.md", "B"));
        nodes.insert("a".into(), node(2, "entities/host/a.md", "A"));
        let f = files(nodes);
        assert_eq!(f.keys().collect::<Vec<_>>(), ["entities/host/a.md", "facts/b.md"]);
        assert_eq!(f["facts/b.md"], "B");
    }
}
