//! Writing the snapshot: whole, or a few changed nodes appended, under the writers' lock.
use super::*;

/// The writers' lock, held while it lives.
pub(super) struct Locked(#[allow(dead_code)] File);

pub(super) fn lock(root: &Path) -> io::Result<Locked> {
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

pub(super) fn write_locked(root: &Path, s: &mut Snapshot, since: Vec<(u64, Vec<String>)>) -> io::Result<()> {
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

pub(super) fn entry_at(id: &str, n: &Node, at: u64) -> Entry {
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
pub(super) fn replace(p: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_with(p, &[bytes])
}

/// `replace` with these parts one after another, written as they are (no copy of them
/// gathered first).
pub(super) fn replace_with(p: &Path, parts: &[&[u8]]) -> io::Result<()> {
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
pub(super) fn write_parts(f: &mut File, parts: &[&[u8]]) -> io::Result<()> {
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
    pub fn add(&mut self, was: &super::super::rows::Stamp, is: &super::super::rows::Stamp) {
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


/// A new generation: unique enough across processes (the clock's nanoseconds mixed with the
/// process id), never 0.
pub(super) fn fresh_generation() -> u64 {
    static LAST: Mutex<u64> = Mutex::new(0);
    let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let g = (ns ^ u64::from(std::process::id()).rotate_left(40)).max(1);
    // Two in one clock tick of this process are still two.
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    *last = if g == *last { g.wrapping_add(1).max(1) } else { g };
    *last
}
