//! One file's versions in the git repository that holds the store, read with gitoxide from
//! refs and objects only: never the index, never a lock file, never a write. Works on a
//! detached HEAD, a shallow clone (its boundary commits have no parents) and a store in a
//! subfolder of a larger repository.
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use gix::ObjectId;

pub use super::git_error::GitError;
use super::git_error::err;
use super::objects::Objects;

/// A commit as history shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitInfo {
    pub id: ObjectId,
    pub author: String,
    pub email: String,
    /// Author time, seconds since the epoch (what `git log` shows).
    pub time: i64,
    /// First line of the message.
    pub subject: String,
}

/// What a commit did to the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Added,
    Modified,
    /// Renamed from this path (relative to the store root, or to the repository when outside it).
    Renamed(String),
    Deleted,
    /// A merge whose file differs from every parent's (both sides' edits, or a resolution).
    /// `git log --follow` leaves merges out; folio lists them, as blame needs them.
    Merged,
}

impl Change {
    pub fn word(&self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Modified => "modified",
            Change::Renamed(_) => "renamed",
            Change::Deleted => "deleted",
            Change::Merged => "merged",
        }
    }
}

/// One commit that touched the file.
#[derive(Debug, Clone)]
pub struct FileCommit {
    pub commit: CommitInfo,
    /// The file's path in this commit, relative to the store root.
    pub path: String,
    /// Its content's object (None: the commit deleted it).
    pub blob: Option<ObjectId>,
    pub change: Change,
    /// Its content in each parent (for a rename, the source's in the first parent; None: absent),
    /// which blame takes lines from.
    pub parents: Vec<Option<ObjectId>>,
}

/// A file the history deleted and nothing brought back.
#[derive(Debug, Clone)]
pub struct DeletedFile {
    /// Relative to the store root.
    pub path: String,
    /// The commit that deleted it.
    pub commit: CommitInfo,
    /// Its content just before.
    pub blob: ObjectId,
}

/// Renames are matched as git does by default: same content, or at least half the lines alike.
const SIMILAR: f32 = 0.5;
/// Candidates compared by content per rename, at most (git's `diff.renameLimit` is similar).
const RENAME_CANDIDATES: usize = 400;

/// A commit in the walk: its tree and its parents.
struct Node {
    id: ObjectId,
    tree: ObjectId,
    parents: Vec<ObjectId>,
    /// The tree of each parent, in the same order.
    parent_trees: Vec<ObjectId>,
}

/// A node in the walk's queue, ordered by the fields before it alone.
struct NodeBox(Node);

impl PartialEq for NodeBox {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for NodeBox {}
impl PartialOrd for NodeBox {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for NodeBox {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

/// A map keyed by object ids, hashed by their first bytes (they are hashes already).
type IdMap<V> = gix::hashtable::HashMap<ObjectId, V>;

/// An entry in a tree: its object and whether it is a tree (None: nothing there).
type Entry = Option<(ObjectId, bool)>;
/// A file that changed between two trees: its path, its old blob and its new one.
type BlobChange = (String, Option<ObjectId>, Option<ObjectId>);

/// The repository around a store.
pub struct Repo {
    repo: gix::Repository,
    /// The store root relative to the work tree, `/`-separated, ending in `/` (empty at the top).
    prefix: String,
    /// tree → (path below it, the entry there): one folder's tree is shared by many commits,
    /// so a file's history decodes each changed tree once. Keyed by the id (hashed by its first
    /// bytes), then the few paths asked below it: no key to allocate on a hit.
    entries: RefCell<IdMap<Vec<(String, Entry)>>>,
    objects: Objects,
}

/// The repository whose work tree holds `root` (None: not inside one, or a bare one).
pub fn open(root: &Path) -> Result<Option<Repo>, GitError> {
    let root = root.canonicalize().map_err(err)?;
    // Finding no repository upward is the ordinary "not in git"; failing to open one found is an error.
    if gix::discover::upwards(&root).is_err() {
        return Ok(None);
    }
    let repo = gix::discover(&root).map_err(err)?;
    let Some(work) = repo.workdir() else { return Ok(None) };
    let work = work.canonicalize().map_err(err)?;
    let Ok(rel) = root.strip_prefix(&work) else { return Ok(None) };
    let mut prefix = rel.to_string_lossy().replace('\\', "/");
    if !prefix.is_empty() {
        prefix.push('/');
    }
    let mut repo = repo;
    repo.object_cache_size_if_unset(8 * 1024 * 1024);
    Ok(Some(Repo { objects: Objects::new(repo.clone()), repo, prefix, entries: RefCell::new(IdMap::default()) }))
}

impl Repo {
    /// Whether the clone is shallow (its history stops at the boundary commits).
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow().unwrap_or(false)
    }

    /// The store root within the repository (`""` at the top, else ending in `/`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The commit checked out (None: no commit yet).
    pub fn head(&self) -> Result<Option<ObjectId>, GitError> {
        let head = self.repo.head().map_err(err)?;
        Ok(head.id().map(|id| id.detach()))
    }

    fn full(&self, store_rel: &str) -> String {
        format!("{}{store_rel}", self.prefix)
    }

    /// A repository path relative to the store root (kept whole when outside it).
    fn rel(&self, full: &str) -> String {
        full.strip_prefix(&self.prefix).unwrap_or(full).to_string()
    }

    fn object_of(&self, id: ObjectId, kind: gix::objs::Kind) -> Result<Vec<u8>, GitError> {
        self.objects.object_of(id, kind)
    }

    /// A commit's tree.
    fn tree_of(&self, commit: ObjectId) -> Result<ObjectId, GitError> {
        let data = self.object_of(commit, gix::objs::Kind::Commit)?;
        gix::objs::CommitRefIter::from_bytes(&data, commit.kind()).tree_id().map_err(err)
    }

    /// The entry at `path` below `tree`: its object and whether it is a tree.
    fn entry(&self, tree: ObjectId, path: &str) -> Result<Entry, GitError> {
        if path.is_empty() {
            return Ok(Some((tree, true)));
        }
        if let Some(hit) = self.entries.borrow().get(&tree).and_then(|l| l.iter().find(|(p, _)| p == path)) {
            return Ok(hit.1);
        }
        let (first, rest) = match path.split_once('/') {
            Some((f, r)) => (f, Some(r)),
            None => (path, None),
        };
        let data = self.object_of(tree, gix::objs::Kind::Tree)?;
        // Entries are read up to the one wanted, not the whole folder decoded.
        let mut found = None;
        for e in gix::objs::TreeRefIter::from_bytes(&data, tree.kind()) {
            let e = e.map_err(err)?;
            if e.filename == first.as_bytes() {
                found = Some((e.oid.to_owned(), e.mode));
                break;
            }
        }
        let out = match (found, rest) {
            (Some((id, mode)), None) if mode.is_tree() => Some((id, true)),
            (Some((id, mode)), None) if mode.is_blob() => Some((id, false)),
            (Some((id, mode)), Some(rest)) if mode.is_tree() => self.entry(id, rest)?,
            _ => None,
        };
        self.entries.borrow_mut().entry(tree).or_default().push((path.to_string(), out));
        Ok(out)
    }

    fn blob_at(&self, tree: ObjectId, path: &str) -> Result<Option<ObjectId>, GitError> {
        Ok(self.entry(tree, path)?.filter(|(_, is_tree)| !is_tree).map(|(id, _)| id))
    }

    /// A blob's bytes.
    pub fn read(&self, blob: ObjectId) -> Result<Vec<u8>, GitError> {
        self.object_of(blob, gix::objs::Kind::Blob)
    }

    /// The file's content in the commit checked out (None: not there).
    pub fn head_blob(&self, store_rel: &str) -> Result<Option<ObjectId>, GitError> {
        let Some(head) = self.head()? else { return Ok(None) };
        self.blob_at(self.tree_of(head)?, &self.full(store_rel))
    }

    fn commit_info(&self, id: ObjectId) -> Result<CommitInfo, GitError> {
        let data = self.object_of(id, gix::objs::Kind::Commit)?;
        let a = gix::objs::CommitRefIter::from_bytes(&data, id.kind()).author().map_err(err)?.trim();
        let time = a.time().map(|t| t.seconds).unwrap_or(0);
        // The message as git shows it, even when a header does not parse: after the first blank line.
        let message = data
            .windows(2)
            .position(|w| w == b"\n\n")
            .map(|p| String::from_utf8_lossy(&data[p + 2..]).into_owned())
            .unwrap_or_default();
        let subject = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
        Ok(CommitInfo { id, author: a.name.to_string(), email: a.email.to_string(), time, subject })
    }

    /// Every commit reachable from HEAD, newest first by commit time (as `git log` orders
    /// them), each handed to `visit` with its tree, its parents (a shallow clone's boundary
    /// commits have none) and their trees; `visit` answers whether to go on (the walk stops,
    /// reading no more, when it says no). Each commit is read once: its tree and parents are kept
    /// from the read that queued it, and come from the commit-graph file when git wrote one (no
    /// commit object to inflate then).
    ///
    /// The commits are read on a thread of their own while `visit` reads trees on this one: in a
    /// repository without a commit-graph the two halve the walk between them (each commit is an
    /// object to read, and so is its root tree).
    fn walk(&self, mut visit: impl FnMut(&Node) -> Result<bool, GitError>) -> Result<(), GitError> {
        let Some(head) = self.head()? else { return Ok(()) };
        let reader = self.objects.for_thread();
        // Commits go across in batches (a thread woken per commit costs as much as reading it),
        // growing from one, so the first is visited at once; a few batches ahead keep both
        // threads busy and the reading stops soon after `visit` says no.
        let (send, receive) = std::sync::mpsc::sync_channel::<Result<Vec<Node>, GitError>>(4);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut batch = Vec::new();
                let mut size = 1;
                let mut emit = |n: Node| {
                    batch.push(n);
                    if batch.len() < size {
                        return Ok(true);
                    }
                    size = (size * 2).min(64);
                    // A send fails once `visit` has said no: the walk is over.
                    Ok(send.send(Ok(std::mem::take(&mut batch))).is_ok())
                };
                let done = commits(&reader, head, &mut emit);
                let _ = match done {
                    Ok(()) => send.send(Ok(batch)),
                    Err(e) => send.send(Err(e)),
                };
            });
            for batch in receive {
                for node in batch? {
                    if !visit(&node)? {
                        return Ok(());
                    }
                }
            }
            Ok(())
        })
    }

    /// The commits that touched the file now at `store_rel` (relative to the store root),
    /// newest first, following it back through renames as `git log --follow` does. A commit
    /// whose file matches one of its parents' is left out (a merge that took one side); a merge
    /// whose file matches none is listed as `Merged` (git leaves it out). Each is handed to
    /// `found` as the walk finds it (an error it returns ends the walk).
    pub fn file_history(
        &self,
        store_rel: &str,
        found: &mut dyn FnMut(&FileCommit) -> Result<(), GitError>,
    ) -> Result<Vec<FileCommit>, GitError> {
        let mut path = self.full(store_rel);
        let mut out = Vec::new();
        self.walk(|&Node { id, tree, ref parents, ref parent_trees }| {
            let here = self.blob_at(tree, &path)?;
            let mut before = Vec::with_capacity(parents.len());
            for pt in parent_trees {
                before.push(self.blob_at(*pt, &path)?);
            }
            if before.contains(&here) || (parents.is_empty() && here.is_none()) {
                return Ok(true);
            }
            let change = match (here, before.first().copied().flatten()) {
                (None, _) => Change::Deleted,
                (Some(_), _) if parents.len() > 1 => Change::Merged,
                (Some(_), Some(_)) => Change::Modified,
                (Some(blob), None) => match parent_trees.first() {
                    Some(pt) => match self.rename_source(*pt, tree, &path, blob)? {
                        Some(from) => {
                            before[0] = self.blob_at(*pt, &from)?;
                            Change::Renamed(from)
                        }
                        None => Change::Added,
                    },
                    None => Change::Added,
                },
            };
            let next = match &change {
                Change::Renamed(from) => Some(from.clone()),
                _ => None,
            };
            let change = match change {
                Change::Renamed(from) => Change::Renamed(self.rel(&from)),
                c => c,
            };
            let commit = self.commit_info(id)?;
            let fc = FileCommit { commit, path: self.rel(&path), blob: here, change, parents: before };
            found(&fc)?;
            out.push(fc);
            if let Some(from) = next {
                path = from;
            }
            Ok(true)
        })?;
        Ok(out)
    }

    /// The path (in the repository) that `path` was renamed from between two trees.
    fn rename_source(
        &self,
        old: ObjectId,
        new: ObjectId,
        path: &str,
        blob: ObjectId,
    ) -> Result<Option<String>, GitError> {
        let mut changes = Vec::new();
        self.changes(Some(old), Some(new), "", &mut changes)?;
        let gone: Vec<(String, ObjectId)> =
            changes.into_iter().filter_map(|(p, o, n)| if n.is_none() { o.map(|o| (p, o)) } else { None }).collect();
        if let Some((p, _)) = gone.iter().find(|(_, o)| *o == blob) {
            return Ok(Some(p.clone()));
        }
        let ext = extension(path);
        let text = self.read(blob)?;
        let mut best: Option<(f32, String)> = None;
        for (p, o) in gone.iter().filter(|(p, _)| extension(p) == ext).take(RENAME_CANDIDATES) {
            let score = similarity(&self.read(*o)?, &text);
            if score >= SIMILAR && best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, p.clone()));
            }
        }
        Ok(best.map(|(_, p)| p))
    }

    /// Blob changes between two trees as `(path, old blob, new blob)`, descending only into
    /// folders whose trees differ.
    fn changes(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        base: &str,
        out: &mut Vec<BlobChange>,
    ) -> Result<(), GitError> {
        if old == new {
            return Ok(());
        }
        let entries = |t: Option<ObjectId>| -> Result<Vec<(String, ObjectId, bool)>, GitError> {
            let Some(t) = t else { return Ok(Vec::new()) };
            let data = self.object_of(t, gix::objs::Kind::Tree)?;
            let decoded = gix::objs::TreeRef::from_bytes(&data, t.kind()).map_err(err)?;
            Ok(decoded
                .entries
                .iter()
                .filter(|e| e.mode.is_tree() || e.mode.is_blob())
                .map(|e| (e.filename.to_string(), e.oid.to_owned(), e.mode.is_tree()))
                .collect())
        };
        let (mut a, mut b) = (entries(old)?, entries(new)?);
        // Both sides sorted by name and walked together: a folder of n files costs n, not n².
        a.sort_unstable_by(|x, y| x.0.cmp(&y.0));
        b.sort_unstable_by(|x, y| x.0.cmp(&y.0));
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let order = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => x.0.cmp(&y.0),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let (pa, pb) = match order {
                std::cmp::Ordering::Less => (a.get(i), None),
                std::cmp::Ordering::Greater => (None, b.get(j)),
                std::cmp::Ordering::Equal => (a.get(i), b.get(j)),
            };
            i += usize::from(pa.is_some());
            j += usize::from(pb.is_some());
            let name = &pa.or(pb).expect("one side has the entry").0;
            let path = format!("{base}{name}");
            let (ta, ba) = split(pa);
            let (tb, bb) = split(pb);
            if ta.is_some() || tb.is_some() {
                self.changes(ta, tb, &format!("{path}/"), out)?;
            }
            if ba != bb {
                out.push((path, ba, bb));
            }
        }
        Ok(())
    }

    /// Files under the store root that a commit deleted and HEAD does not hold again, newest
    /// deletion first. A file that moved elsewhere (same or similar content added by the same
    /// commit) was renamed, not deleted. Merge commits are not read for deletions.
    pub fn deleted(&self) -> Result<Vec<DeletedFile>, GitError> {
        let Some(head) = self.head()? else { return Ok(Vec::new()) };
        let head_tree = self.tree_of(head)?;
        let prefix = self.prefix.trim_end_matches('/').to_string();
        let mut seen: HashSet<String> = HashSet::new();
        let mut out = Vec::new();
        self.walk(|&Node { id, tree, ref parent_trees, .. }| {
            let [parent_tree] = *parent_trees.as_slice() else { return Ok(true) };
            let sub = |t: ObjectId| -> Result<Option<ObjectId>, GitError> {
                Ok(self.entry(t, &prefix)?.filter(|(_, t)| *t).map(|(i, _)| i))
            };
            let mut changes = Vec::new();
            self.changes(sub(parent_tree)?, sub(tree)?, &self.prefix, &mut changes)?;
            let added: Vec<&BlobChange> = changes.iter().filter(|(_, o, n)| o.is_none() && n.is_some()).collect();
            for (p, o, n) in &changes {
                let (Some(o), None) = (o, n) else { continue };
                if !p.ends_with(".md") || !seen.insert(p.clone()) {
                    continue;
                }
                if self.blob_at(head_tree, p)?.is_some() || self.moved(*o, p, &added)? {
                    continue;
                }
                out.push(DeletedFile { path: self.rel(p), commit: self.commit_info(id)?, blob: *o });
            }
            Ok(true)
        })?;
        Ok(out)
    }

    /// Whether a removed blob reappears among a commit's added files (a rename).
    fn moved(&self, blob: ObjectId, path: &str, added: &[&BlobChange]) -> Result<bool, GitError> {
        if added.iter().any(|(_, _, n)| *n == Some(blob)) {
            return Ok(true);
        }
        let old = self.read(blob)?;
        for (_, _, n) in added.iter().filter(|(p, _, _)| extension(p) == extension(path)).take(RENAME_CANDIDATES) {
            let Some(n) = n else { continue };
            if similarity(&old, &self.read(*n)?) >= SIMILAR {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The newest commit that changed each of `paths` (relative to the store root), as
    /// `git log -1 -- PATH` names it, found in one walk that stops once every path is found:
    /// each commit's changes against its first parent under the store root. Merges are left out:
    /// the commit on the side that made a change is in the walk too.
    pub fn last_commits(&self, paths: &[String]) -> Result<HashMap<String, CommitInfo>, GitError> {
        let mut pending: HashMap<String, String> = paths.iter().map(|p| (self.full(p), p.clone())).collect();
        let mut out = HashMap::new();
        if pending.is_empty() {
            return Ok(out);
        }
        let prefix = self.prefix.trim_end_matches('/').to_string();
        let sub = |t: ObjectId| -> Result<Option<ObjectId>, GitError> {
            Ok(self.entry(t, &prefix)?.filter(|(_, t)| *t).map(|(i, _)| i))
        };
        self.walk(|&Node { id, tree, ref parent_trees, .. }| {
            if parent_trees.len() > 1 {
                return Ok(true);
            }
            let before = match parent_trees.first() {
                Some(pt) => sub(*pt)?,
                None => None,
            };
            let mut changes = Vec::new();
            self.changes(before, sub(tree)?, &self.prefix, &mut changes)?;
            let mut info = None;
            for (full, _, new) in changes {
                if new.is_none() {
                    continue;
                }
                if let Some(rel) = pending.remove(&full) {
                    if info.is_none() {
                        info = Some(self.commit_info(id)?);
                    }
                    out.insert(rel, info.clone().expect("read just above"));
                }
            }
            // Once every path is found, no older commit is read.
            Ok(!pending.is_empty())
        })?;
        Ok(out)
    }

    /// Every file under the store root in the commit checked out, by its path relative to the
    /// store root, with its content's object (one pass over the trees).
    pub fn head_files(&self) -> Result<HashMap<String, ObjectId>, GitError> {
        let Some(head) = self.head()? else { return Ok(HashMap::new()) };
        let prefix = self.prefix.trim_end_matches('/');
        let root = self.entry(self.tree_of(head)?, prefix)?.filter(|(_, t)| *t).map(|(i, _)| i);
        let mut all = Vec::new();
        self.changes(None, root, &self.prefix, &mut all)?;
        Ok(all.into_iter().filter_map(|(p, _, blob)| Some((self.rel(&p), blob?))).collect())
    }

    /// The object id git gives `bytes` as a file's content (to tell a committed file from one
    /// changed since).
    pub fn blob_id(&self, bytes: &[u8]) -> Result<ObjectId, GitError> {
        gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes).map_err(err)
    }

    /// The file's content in one commit (for a deleted file's last version).
    pub fn blob_in(&self, commit: ObjectId, store_rel: &str) -> Result<Option<ObjectId>, GitError> {
        self.blob_at(self.tree_of(commit)?, &self.full(store_rel))
    }
}

/// The commits reachable from `head`, newest first (see `Repo::walk`), each handed to `emit`
/// until it answers no.
fn commits(
    objects: &Objects,
    head: ObjectId,
    emit: &mut dyn FnMut(Node) -> Result<bool, GitError>,
) -> Result<(), GitError> {
    let repo = objects.repo();
    // The boundary of a shallow clone: commits whose parents are not in the repository.
    let boundary: HashSet<ObjectId> = match repo.shallow_commits().map_err(err)? {
        Some(list) => list.iter().copied().collect(),
        None => HashSet::new(),
    };
    // A commit-graph that cannot be read is only a missed shortcut.
    let graph = repo.commit_graph_if_enabled().ok().flatten();
    let read = |id: ObjectId| -> Result<(i64, Node), GitError> {
        if let Some(c) = graph.as_ref().and_then(|g| g.commit_by_id(id).map(|c| (g, c))) {
            let (g, c) = c;
            let parents = if boundary.contains(&id) {
                Vec::new()
            } else {
                c.iter_parents().map(|p| p.map(|p| g.id_at(p).to_owned())).collect::<Result<_, _>>().map_err(err)?
            };
            let node = Node { id, tree: c.root_tree_id().to_owned(), parents, parent_trees: Vec::new() };
            return Ok((c.committer_timestamp() as i64, node));
        }
        let data = objects.object_of(id, gix::objs::Kind::Commit)?;
        let d = gix::objs::CommitRef::from_bytes(&data, id.kind()).map_err(err)?;
        let time = d.time().map(|t| t.seconds).unwrap_or(0);
        let parents = if boundary.contains(&id) { Vec::new() } else { d.parents().collect() };
        Ok((time, Node { id, tree: d.tree(), parents, parent_trees: Vec::new() }))
    };
    let mut queue = std::collections::BinaryHeap::new();
    // The tree of every commit read so far (a parent's is known before its children are sent).
    let mut trees: IdMap<ObjectId> = IdMap::default();
    let mut order = 0u64;
    let (t, node) = read(head)?;
    trees.insert(head, node.tree);
    // Newest first; among equal times, the one queued first (a stable order).
    queue.push((t, std::cmp::Reverse(order), NodeBox(node)));
    while let Some((_, _, NodeBox(mut node))) = queue.pop() {
        for p in &node.parents {
            let tree = match trees.get(p) {
                Some(t) => *t,
                None => {
                    let (t, parent) = read(*p)?;
                    let tree = parent.tree;
                    trees.insert(*p, tree);
                    order += 1;
                    queue.push((t, std::cmp::Reverse(order), NodeBox(parent)));
                    tree
                }
            };
            node.parent_trees.push(tree);
        }
        if !emit(node)? {
            break;
        }
    }
    Ok(())
}

/// An entry as (its tree, its blob).
fn split(e: Option<&(String, ObjectId, bool)>) -> (Option<ObjectId>, Option<ObjectId>) {
    match e {
        Some((_, id, true)) => (Some(*id), None),
        Some((_, id, false)) => (None, Some(*id)),
        None => (None, None),
    }
}

fn extension(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map(|(_, e)| e).unwrap_or("")
}

/// How alike two files are, 0 to 1, by lines.
pub fn similarity(a: &[u8], b: &[u8]) -> f32 {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let (la, lb) = (a.lines().count().max(1), b.lines().count().max(1));
    if la.min(lb) * 2 < la.max(lb) {
        return 0.0;
    }
    similar::TextDiff::from_lines(a.as_ref(), b.as_ref()).ratio()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loose objects read from their files are what gitoxide reads: every kind, sizes from empty
    /// to larger than the read buffer's first size, and the header split from the data at any
    /// point of the first inflated chunk.
    #[test]
    fn loose_objects_read_from_their_files_match_gitoxide() {
        let dir = tempfile::tempdir().unwrap();
        let repo = gix::init(dir.path()).unwrap();
        let mut editor = repo.empty_tree().edit().unwrap();
        let mut ids = Vec::new();
        for (i, size) in [0usize, 1, 40, 57, 64, 300, 9_000, 200_000].into_iter().enumerate() {
            // Text that compresses poorly enough to need several reads and inflate calls.
            let bytes: Vec<u8> = (0..size).map(|j| b'a' + ((j * 7919 + i * 31) % 26) as u8).collect();
            let id = repo.write_blob(&bytes).unwrap().detach();
            editor.upsert(format!("f{i}.md"), gix::object::tree::EntryKind::Blob, id).unwrap();
            ids.push(id);
        }
        let tree = editor.write().unwrap().detach();
        let sig = gix::actor::SignatureRef { name: "Ann".into(), email: "ann@example.com".into(), time: "1 +0000" };
        let commit = repo.commit_as(sig, sig, "HEAD", "first\n\nbody", tree, None::<ObjectId>).unwrap().detach();
        ids.extend([tree, commit]);
        let ours = open(dir.path()).unwrap().expect("a repository");
        assert!(ours.objects.reads_loose_files(), "a repository without packs is read from its files");
        for id in ids {
            let theirs = repo.find_object(id).unwrap();
            let (kind, data) = ours.objects.object(id).unwrap();
            assert_eq!((kind, data.as_slice()), (theirs.kind, &theirs.data[..]), "{id}");
        }
        assert_eq!(ours.tree_of(commit).unwrap(), tree);
        assert_eq!(ours.commit_info(commit).unwrap().subject, "first");
        assert!(ours.read(tree).is_err(), "a tree is no blob");
        // A file that is no zlib stream is an error, not a panic or a wrong object.
        let missing = ObjectId::from_hex(b"0123456789012345678901234567890123456789").unwrap();
        let path = dir.path().join(".git/objects/01/23456789012345678901234567890123456789");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"not zlib").unwrap();
        assert!(ours.objects.object(missing).is_err());
    }
}
