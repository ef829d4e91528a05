//! The inbox's author and agent run from git when the format names none (issue 18): the author
//! of the newest commit that changed the entity's file, and that commit as the run — an agent
//! that commits its work once per run groups as one batch. A file changed since its last commit
//! (or never committed) keeps what its fields say: git does not know who changed it.
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use gix::ObjectId;

use super::git::{self, CommitInfo, GitError};
use crate::store::Store;
use crate::store::review::queue::{self, QueueItem};

/// The review queue in order of need, with git's author and commit filled in where the format
/// names none. Every face lists the inbox through this, so a filter on `author:` or `session:`
/// takes the same items in the CLI and the TUI. A repository git cannot read leaves the items
/// as their fields describe them: attribution is a help, never a reason to hide the inbox.
pub fn inbox(store: &Store) -> Vec<QueueItem> {
    let mut items = queue::build(store);
    let _ = from_git(store, &mut items);
    items
}

/// `inbox` with the store's lint report already at hand (`queue::build_with`).
pub fn inbox_with(store: &Store, report: &crate::store::lint::Report) -> Vec<QueueItem> {
    let mut items = queue::build_with(store, report);
    let _ = from_git(store, &mut items);
    items
}

/// Fills `author` and `session` of the items whose format names none from the newest commit
/// that changed their file; returns how many items git attributed.
pub fn from_git(store: &Store, items: &mut [QueueItem]) -> Result<usize, GitError> {
    if items.iter().all(|i| i.author.is_some() && i.session.is_some()) {
        return Ok(0);
    }
    let Some(repo) = git::open(&store.root)? else { return Ok(0) };
    let head = repo.head()?;
    let memos = MEMOS.get_or_init(Mutex::default);
    let mut memos = memos.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let memo = memos.entry(store.root.clone()).or_default();
    if memo.head != head {
        *memo = Memo { head, files: HashMap::new() };
    }
    // Several entities can share a file (AIP-10, awareness): each file is looked at once.
    let mut known: HashMap<String, Option<CommitInfo>> = HashMap::new();
    let mut unknown: Vec<(String, Option<Stamp>)> = Vec::new();
    let mut looked: HashSet<&str> = HashSet::new();
    for item in items.iter().filter(|i| i.author.is_none() || i.session.is_none()) {
        let path = item.path.as_str();
        if !looked.insert(path) {
            continue;
        }
        let stamp = Stamp::of(&store.abs_path(path));
        match memo.files.get(path) {
            Some((seen, commit)) if stamp.as_ref() == Some(seen) => {
                known.insert(path.to_string(), commit.clone());
            }
            _ => unknown.push((path.to_string(), stamp)),
        }
    }
    if !unknown.is_empty() {
        let head_files = repo.head_files()?;
        let mut committed = Vec::new();
        for (path, _) in &unknown {
            let same = match store.storage().read(path) {
                Ok(bytes) => head_files.get(path) == Some(&repo.blob_id(&bytes)?),
                Err(_) => false,
            };
            if same {
                committed.push(path.clone());
            }
        }
        let found = repo.last_commits(&committed)?;
        for (path, stamp) in unknown {
            let commit = found.get(&path).cloned();
            // A file written within the last moments may change again within its mtime tick
            // with the same size: it is looked at again next time.
            if let Some(stamp) = stamp.filter(Stamp::settled) {
                memo.files.insert(path.clone(), (stamp, commit.clone()));
            }
            known.insert(path, commit);
        }
    }
    let mut attributed = 0;
    for item in items.iter_mut() {
        if item.author.is_some() && item.session.is_some() {
            continue;
        }
        let Some(Some(commit)) = known.get(item.path.as_str()) else { continue };
        item.author.get_or_insert_with(|| commit.author.clone());
        item.session.get_or_insert_with(|| run_name(commit));
        attributed += 1;
    }
    Ok(attributed)
}

/// What git said of each file at one HEAD, per store, kept between inbox rebuilds: the TUI
/// rebuilds the inbox after every live reload, and reading and hashing every queued file and
/// walking for their commits each time would cost every reload of a large inbox dearly
/// (docs/benchmarks.md, "History figures").
#[derive(Default)]
struct Memo {
    head: Option<ObjectId>,
    /// Per file: its size and mtime when git was asked, and the commit git gave (None: the
    /// file differs from HEAD's or is not in it).
    files: HashMap<String, (Stamp, Option<CommitInfo>)>,
}

static MEMOS: OnceLock<Mutex<HashMap<PathBuf, Memo>>> = OnceLock::new();

/// A file's size and mtime: a file whose stamp is unchanged is taken to be unchanged.
#[derive(Debug, Clone, PartialEq)]
struct Stamp {
    size: u64,
    mtime: SystemTime,
}

impl Stamp {
    fn of(path: &std::path::Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp { size: meta.len(), mtime: meta.modified().ok()? })
    }

    /// Written more than two seconds ago (mtime ticks are coarse on some file systems).
    fn settled(&self) -> bool {
        SystemTime::now().duration_since(self.mtime).is_ok_and(|age| age > Duration::from_secs(2))
    }
}

/// A commit as an agent run: its short id (what `session:` filters on) and its subject.
fn run_name(c: &CommitInfo) -> String {
    let id = c.id.to_hex_with_len(8);
    if c.subject.is_empty() { id.to_string() } else { format!("{id} {}", c.subject) }
}
