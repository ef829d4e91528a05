//! The inbox's author and agent run from git when the format names none (issue 18): the author
//! of the newest commit that changed the entity's file, and that commit as the run — an agent
//! that commits its work once per run groups as one batch. A file changed since its last commit
//! (or never committed) keeps what its fields say: git does not know who changed it.
use std::collections::HashMap;

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

/// Fills `author` and `session` of the items whose format names none from the newest commit
/// that changed their file; returns how many items git attributed.
pub fn from_git(store: &Store, items: &mut [QueueItem]) -> Result<usize, GitError> {
    if items.iter().all(|i| i.author.is_some() && i.session.is_some()) {
        return Ok(0);
    }
    let Some(repo) = git::open(&store.root)? else { return Ok(0) };
    let head = repo.head_files()?;
    // Several entities can share a file (AIP-10, awareness): each file is read and hashed once.
    let mut committed: HashMap<&str, bool> = HashMap::new();
    for item in items.iter().filter(|i| i.author.is_none() || i.session.is_none()) {
        if committed.contains_key(item.path.as_str()) {
            continue;
        }
        let same = match std::fs::read(store.abs_path(&item.path)) {
            Ok(bytes) => head.get(&item.path) == Some(&repo.blob_id(&bytes)?),
            Err(_) => false,
        };
        committed.insert(&item.path, same);
    }
    let paths: Vec<String> = committed.iter().filter(|(_, same)| **same).map(|(p, _)| p.to_string()).collect();
    let found = repo.last_commits(&paths)?;
    let mut attributed = 0;
    for item in items.iter_mut() {
        let Some(commit) = found.get(&item.path) else { continue };
        if item.author.is_some() && item.session.is_some() {
            continue;
        }
        item.author.get_or_insert_with(|| commit.author.clone());
        item.session.get_or_insert_with(|| run_name(commit));
        attributed += 1;
    }
    Ok(attributed)
}

/// A commit as an agent run: its short id (what `session:` filters on) and its subject.
fn run_name(c: &CommitInfo) -> String {
    let id = c.id.to_hex_with_len(8);
    if c.subject.is_empty() { id.to_string() } else { format!("{id} {}", c.subject) }
}
