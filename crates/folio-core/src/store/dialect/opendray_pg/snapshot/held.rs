//! The snapshot's renderings held in this process (the loader's files), what changed since a
//! generation, one text or id by path, and the note that the snapshot was rebuilt.
use super::*;

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
pub(super) static TAKEN: Mutex<Vec<Taken>> = Mutex::new(Vec::new());

pub(super) struct Taken {
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
            match super::super::mirror::rebuild(root, &why) {
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
    if let Some(written) = super::super::writing::text(root, rel) {
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
pub(super) fn lookup_rel(p: &Parts<'_>, rel: &str) -> Result<Option<Entry>, &'static str> {
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
pub(super) type Opened = (Checked, Arc<Texts>);
pub(super) static TEXTS_OPEN: Mutex<Option<(PathBuf, Header, Arc<Texts>)>> = Mutex::new(None);

pub(super) fn cached_index(root: &Path) -> Option<Opened> {
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
pub(super) const REBUILT: &str = "snapshot-rebuilt";

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
