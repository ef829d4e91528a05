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
//!
//! Reading is here; the index's bytes are `codec`'s, writing and appending `write`'s, and what
//! this process holds of the snapshot (the loader's files, one text by path) `held`'s.
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{FileExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::rows::{TableSum, Tables, Version};
use crate::store::dialect::MemoryFiles;

mod codec;
mod held;
mod write;

pub use codec::*;
pub use held::*;
pub use write::*;

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


#[cfg(test)]
pub(crate) mod tests;
