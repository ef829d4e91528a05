//! What folio last read of a database, in one file of its state folder: the three tables'
//! sums (`rows::tables`) and per visible node its version (`rows::Version`), where the export
//! would put it (`rows::Node::path`) and its rendering (`rows::Node::render`) — the bytes the
//! loader parses, so every output is what the export's parser makes of them. No file per
//! node. Written atomically (a temporary file renamed over it) with a CRC-32 of everything
//! after it: a torn, damaged or foreign file is never trusted, and the database is read again.
//! Its generation, new on every write, keys the store cache (`Format::files_token`).
use std::collections::HashMap;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::rows::{TableSum, Tables, Version};
use crate::store::dialect::MemoryFiles;

/// The versions say whether a row changed, not whether folio renders it differently: bump
/// the digit when `rows::Node::render` changes what it writes, so every node is read again.
const MAGIC: &[u8; 8] = b"FOLIOSN1";

/// The file, under the database folder's `.folio`.
const FILE: &str = "snapshot.bin";

/// Magic, CRC, generation, the tables' flag and sums, the payload's length.
const HEADER: usize = 8 + 4 + 8 + 1 + 6 * 8 + 8;

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
    pub nodes: Nodes,
}

/// What reading the snapshot found.
#[derive(Debug)]
pub enum Found {
    /// No snapshot yet.
    Missing,
    /// A file that cannot be trusted, and why: it is rebuilt from the database.
    Damaged(String),
    Intact(Snapshot),
}

pub fn path(root: &Path) -> PathBuf {
    root.join(".folio").join(FILE)
}

pub fn read(root: &Path) -> Found {
    match read_checked(root) {
        Checked::Missing => Found::Missing,
        Checked::Damaged(why) => Found::Damaged(why),
        Checked::Intact { bytes, .. } => match decode(&bytes) {
            Ok(s) => Found::Intact(s),
            Err(why) => Found::Damaged(why.to_string()),
        },
    }
}

/// The snapshot's bytes, checked (magic, checksum) but not decoded, with the tables it took:
/// an open whose tables did not change needs no node of it.
pub enum Checked {
    Missing,
    Damaged(String),
    Intact { tables: Option<Tables>, bytes: Vec<u8> },
}

pub fn read_checked(root: &Path) -> Checked {
    match std::fs::read(path(root)) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Checked::Missing,
        Err(e) => Checked::Damaged(format!("cannot read: {e}")),
        Ok(bytes) => match check(&bytes) {
            Ok((_, tables)) => Checked::Intact { tables, bytes },
            Err(why) => Checked::Damaged(why.to_string()),
        },
    }
}

/// Decode bytes `read_checked` found intact.
pub fn decode_checked(bytes: &[u8]) -> Result<Snapshot, String> {
    decode(bytes).map_err(str::to_string)
}

/// The generation of the snapshot on disk, from its header alone (a damaged one is found
/// and rebuilt by the open that reads it whole, before the cache asks this).
pub fn generation(root: &Path) -> Option<u64> {
    let mut head = [0u8; HEADER];
    std::fs::File::open(path(root)).ok()?.read_exact(&mut head).ok()?;
    head.starts_with(MAGIC).then(|| u64::from_le_bytes(head[12..20].try_into().unwrap_or_default()))
}

/// Written atomically under a new generation (set in `s`): a reader sees the old snapshot or
/// the new one. Not synced to the disk: it is a cache of the database, and what a crash
/// leaves of it (nothing, or bytes that do not check) is read again from the database; a
/// sync of 100 MB on every changed open would cost more than reading the nodes did.
pub fn write(root: &Path, s: &mut Snapshot) -> io::Result<()> {
    s.generation = fresh_generation();
    let p = path(root);
    let dir = p.parent().unwrap_or(root);
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{FILE}.folio-tmp-{}", std::process::id()));
    let written = std::fs::write(&tmp, encode(s)).and_then(|()| std::fs::rename(&tmp, &p));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A new generation: unique enough across processes (the clock's nanoseconds mixed with the
/// process id), never 0.
fn fresh_generation() -> u64 {
    let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    (ns ^ u64::from(std::process::id()).rotate_left(40)).max(1)
}

fn encode(s: &Snapshot) -> Vec<u8> {
    let size: usize = s.nodes.iter().map(|(id, n)| 36 + id.len() + n.rel.len() + n.text.len()).sum();
    let mut out = Vec::with_capacity(HEADER + size);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&s.generation.to_le_bytes());
    let t = s.tables.unwrap_or_default();
    out.push(u8::from(s.tables.is_some()));
    for sum in [t.nodes, t.edges, t.sources] {
        out.extend_from_slice(&sum.rows.to_le_bytes());
        out.extend_from_slice(&sum.xor.to_le_bytes());
    }
    out.extend_from_slice(&(s.nodes.len() as u64).to_le_bytes());
    for (id, n) in &s.nodes {
        for v in [n.version.xmin, n.version.edges, n.version.sources] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for text in [id, &n.rel, &n.text] {
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        }
    }
    let crc = crc32fast::hash(&out[12..]);
    out[8..12].copy_from_slice(&crc.to_le_bytes());
    out
}

/// The header of bytes whose magic and checksum hold: the generation and the tables.
fn check(b: &[u8]) -> Result<(u64, Option<Tables>), &'static str> {
    let rest = b.strip_prefix(MAGIC).ok_or("not a snapshot of this folio version")?;
    if rest.len() < HEADER - 8 {
        return Err("cut short");
    }
    let crc = u32::from_le_bytes(rest[..4].try_into().map_err(|_| "cut short")?);
    if crc32fast::hash(&rest[4..]) != crc {
        return Err("its checksum does not match its bytes (torn or damaged)");
    }
    let bad = "its checksum matches but its contents do not parse";
    let mut r = Reader(&rest[4..]);
    let generation = r.u64().ok_or(bad)?;
    let known = r.take(1).ok_or(bad)? == [1];
    let mut sum = || Some(TableSum { rows: r.u64()? as i64, xor: r.u64()? as i64 });
    let tables = Tables { nodes: sum().ok_or(bad)?, edges: sum().ok_or(bad)?, sources: sum().ok_or(bad)? };
    Ok((generation, known.then_some(tables)))
}

fn decode(b: &[u8]) -> Result<Snapshot, &'static str> {
    check(b)?;
    let bad = "its checksum matches but its contents do not parse";
    let mut r = Reader(&b[MAGIC.len() + 4..]);
    let generation = r.u64().ok_or(bad)?;
    let known = match r.take(1).ok_or(bad)? {
        [0] => false,
        [1] => true,
        _ => return Err(bad),
    };
    let mut sum = || Some(TableSum { rows: r.u64()? as i64, xor: r.u64()? as i64 });
    let tables = Tables { nodes: sum().ok_or(bad)?, edges: sum().ok_or(bad)?, sources: sum().ok_or(bad)? };
    let n = r.u64().ok_or(bad)? as usize;
    // The count is checked against the bytes actually there before anything is reserved.
    let mut nodes = Nodes::with_capacity_and_hasher(n.min(b.len() / 36), Default::default());
    for _ in 0..n {
        let version = Version { xmin: r.u64().ok_or(bad)?, edges: r.u64().ok_or(bad)?, sources: r.u64().ok_or(bad)? };
        let id = r.string().ok_or(bad)?;
        let rel = r.string().ok_or(bad)?;
        let text = r.string().ok_or(bad)?;
        nodes.insert(id, Node { version, rel, text });
    }
    if !r.0.is_empty() {
        return Err(bad);
    }
    Ok(Snapshot { generation, tables: known.then_some(tables), nodes })
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

    fn string(&mut self) -> Option<String> {
        let len = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }
}

/// The snapshot's nodes as the loader reads them: each rendering by its path.
pub fn files(nodes: Nodes) -> MemoryFiles {
    nodes.into_values().map(|n| (n.rel, n.text)).collect()
}

/// The entity files this process last took for each database folder: an open, the live
/// poller and a decision publish what they wrote here, so the loader and every read of an
/// entity's bytes (`PgStorage::read`) find them without reading the snapshot again.
static TAKEN: Mutex<Vec<Taken>> = Mutex::new(Vec::new());

struct Taken {
    root: PathBuf,
    generation: u64,
    files: Arc<MemoryFiles>,
    /// The generation the snapshot had before, and the paths that changed from it.
    since: Option<(u64, Vec<String>)>,
}

/// Publish what was written at `generation` for the database folder `root`.
pub fn publish(root: &Path, generation: u64, files: MemoryFiles) -> Arc<MemoryFiles> {
    publish_change(root, generation, files, None)
}

/// `publish`, with the generation it replaced and the paths that changed from it (a store
/// cached at that generation is brought up to this one by re-reading them, `changed_since`).
pub fn publish_change(
    root: &Path,
    generation: u64,
    files: MemoryFiles,
    since: Option<(u64, Vec<String>)>,
) -> Arc<MemoryFiles> {
    let files = Arc::new(files);
    let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    taken.retain(|t| t.root != root);
    taken.push(Taken { root: root.to_path_buf(), generation, files: files.clone(), since });
    files
}

/// The paths whose renderings changed between the snapshot at generation `from` and the
/// one this process last published, when it knows (it published the change itself).
pub fn changed_since(root: &Path, from: u64) -> Option<Vec<String>> {
    let taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    let t = taken.iter().find(|t| t.root == root)?;
    if t.generation == from {
        return Some(Vec::new());
    }
    t.since.as_ref().filter(|(was, _)| *was == from && from != 0).map(|(_, paths)| paths.clone())
}

/// The entity files of the database folder `root`: as this process last took them, else read
/// from its snapshot (an empty store when there is none or it cannot be trusted: the next
/// open reads the database again, `snapshot_warning` says so).
pub fn files_of(root: &Path) -> Arc<MemoryFiles> {
    {
        let taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = taken.iter().find(|t| t.root == root) {
            return t.files.clone();
        }
    }
    match read(root) {
        Found::Intact(s) => publish(root, s.generation, files(s.nodes)),
        _ => Arc::new(MemoryFiles::new()),
    }
}

/// Replace, in place, the renderings at these paths (None: gone) in what this process
/// publishes for `root`; what they were comes back (`patch` it back to undo).
pub fn patch(root: &Path, changes: Vec<(String, Option<String>)>) -> Vec<(String, Option<String>)> {
    let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    let Some(t) = taken.iter_mut().find(|t| t.root == root) else { return Vec::new() };
    let files = Arc::make_mut(&mut t.files);
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

/// What this process publishes for `root` is now the snapshot at `generation` (a decision
/// patched it as it wrote it there).
pub fn renumber(root: &Path, generation: u64) {
    let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = taken.iter_mut().find(|t| t.root == root) {
        (t.generation, t.since) = (generation, None);
    }
}

/// The generation this process last published for `root`, if any.
pub fn published(root: &Path) -> Option<u64> {
    let taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    taken.iter().find(|t| t.root == root).map(|t| t.generation)
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
mod tests {
    use super::*;

    fn node(xmin: u64, rel: &str, text: &str) -> Node {
        Node { version: Version { xmin, edges: 3, sources: u64::MAX }, rel: rel.into(), text: text.into() }
    }

    #[test]
    fn a_snapshot_reads_back_and_a_damaged_one_is_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut s = Snapshot::default();
        s.nodes.insert("svc-pg".into(), node(7, "entities/service/svc-pg.md", "---\nid: svc-pg\n---\nBody\n"));
        s.nodes.insert("ünïcode".into(), node(u64::MAX, "facts/_n_code-0123456789.md", "---\nid: ü\n---\n"));
        let sum = |rows, xor| TableSum { rows, xor };
        s.tables = Some(Tables { nodes: sum(2, -5), edges: sum(0, 0), sources: sum(1, i64::MIN) });
        write(root, &mut s).unwrap();
        assert_ne!(s.generation, 0);
        assert_eq!(generation(root), Some(s.generation));
        let Found::Intact(back) = read(root) else { panic!("{:?}", read(root)) };
        assert_eq!(back, s);
        let bytes = std::fs::read(path(root)).unwrap();
        for cut in [0, 7, 8, 20, HEADER, bytes.len() - 1] {
            std::fs::write(path(root), &bytes[..cut]).unwrap();
            assert!(matches!(read(root), Found::Damaged(_)), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        let last = flipped.len() - 2;
        flipped[last] ^= 1;
        std::fs::write(path(root), &flipped).unwrap();
        let Found::Damaged(why) = read(root) else { panic!("a flipped bit was trusted") };
        assert!(why.contains("checksum"), "{why}");
        std::fs::write(path(root), b"FOLIOMR2 the manifest of earlier builds").unwrap();
        assert!(matches!(read(root), Found::Damaged(_)));
        std::fs::remove_file(path(root)).unwrap();
        assert!(matches!(read(root), Found::Missing));
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
