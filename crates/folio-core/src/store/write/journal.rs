//! The write journal: the intent of a changeset, made durable before any file is touched.
//!
//! One JSON line per step, each fsynced before the step runs: `begin`, then one `write` per
//! file (path, digest before, digest after; both images are already kept as objects), written
//! once the file is found as planned and before it is touched (a `settled` line follows when its
//! swap met someone else's change and left the file to them), then `commit` once every file,
//! catalog and the audit line are in place. A journal left behind by
//! a crash is resolved on the next start: committed → finished (only bookkeeping was left),
//! otherwise → rolled back to the before-images, so the store is entirely old or entirely new.
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::state::{State, append_line};
use super::write_lock::WriteLock;
use crate::store::dialect::DialectKind;
use crate::store::{model::digest, write::failpoint, write::fs_ops};

pub mod records;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A file the changeset itself edits (kept for undo).
    Edit,
    /// A regenerated catalog.
    Catalog,
    /// The audit log.
    Log,
    /// The review ledger, rewritten by an undo in the same changeset as the files it restores.
    Ledger,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Relative to the store root (`../audit.log` for evolve's log beside the bundle).
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
    pub role: Role,
    /// Folders this write created to hold a new file, deepest first (relative to the root):
    /// rolling back or undoing the write removes them again when they are empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<String>,
    /// A row its backend wrote in its own transaction (a database's node), not a file: journaled
    /// for undo, never swapped nor put back on disk (the backend's commit or rollback decides).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub row: bool,
}

impl Entry {
    /// Remove the folders this entry created, deepest first, stopping at the first that is
    /// not empty (it holds someone else's files now, and so do its parents).
    pub fn remove_created_dirs(&self, root: &Path) {
        for d in &self.created_dirs {
            if fs_ops::remove_dir(&root.join(d)).is_err() {
                break;
            }
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "lowercase")]
enum Line {
    Begin {
        id: String,
        verb: String,
        summary: String,
        by: String,
        undoes: Option<String>,
    },
    Write(Entry),
    /// The write to `path` journaled last found the file changed by someone else and left it
    /// as they left it: nothing of it is to be rolled back.
    Settled {
        path: String,
    },
    Commit,
}

/// What a journal says about one changeset.
#[derive(Debug, Clone, Default)]
pub struct Intent {
    pub id: String,
    pub verb: String,
    pub summary: String,
    pub by: String,
    /// For an undo: the id of the undo record it reverts.
    pub undoes: Option<String>,
    pub entries: Vec<Entry>,
    pub committed: bool,
    /// The undo record keeps the log's images (`Format::undo_withdraws_log_lines`). Not in the
    /// journal's lines: a changeset finished by recovery after a crash keeps none.
    pub keep_log: bool,
}

pub struct Journal {
    path: PathBuf,
    pub intent: Intent,
}

impl Journal {
    pub fn begin(state: &State, intent: Intent) -> io::Result<Journal> {
        let path = state.journal_path();
        let line = Line::Begin {
            id: intent.id.clone(),
            verb: intent.verb.clone(),
            summary: intent.summary.clone(),
            by: intent.by.clone(),
            undoes: intent.undoes.clone(),
        };
        append_line(&path, &serde_json::to_string(&line)?)?;
        failpoint::step("journal begin");
        Ok(Journal { path, intent })
    }

    pub fn record(&mut self, entry: Entry) -> io::Result<()> {
        append_line(&self.path, &serde_json::to_string(&Line::Write(entry.clone()))?)?;
        self.intent.entries.push(entry);
        failpoint::step("journal entry");
        Ok(())
    }

    /// The last entry for `path` needs no rollback: its swap found someone else's change and
    /// left the file as they left it (put back, or theirs). Forgotten here at once; the line
    /// keeps a later recovery from the same mistake.
    pub fn settle(&mut self, path: &str) -> io::Result<()> {
        forget_last(&mut self.intent.entries, path);
        append_line(&self.path, &serde_json::to_string(&Line::Settled { path: path.to_string() })?)
    }

    pub fn commit(&mut self) -> io::Result<()> {
        append_line(&self.path, &serde_json::to_string(&Line::Commit)?)?;
        self.intent.committed = true;
        failpoint::step("journal commit");
        Ok(())
    }

    /// Finish a committed changeset: file the undo record, then drop the journal.
    pub fn finish(self, state: &State) -> io::Result<()> {
        records::file_record(state, &self.intent)?;
        failpoint::step("undo record");
        fs_ops::remove_file(&self.path)
    }

    /// Undo every step taken so far. The journal is dropped only when every file is back: a
    /// rollback that cannot finish (a full or read-only disk) keeps it, with every object it
    /// needs, for the next command to finish.
    pub fn roll_back(self, root: &Path, state: &State) -> RolledBack {
        let r = roll_back(root, state, &self.intent);
        clean_temporaries(root, state, &self.intent);
        if r.failed.is_empty() {
            let _ = fs_ops::remove_file(&self.path);
        }
        r
    }
}

fn read(path: &Path) -> io::Result<Option<Intent>> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut intent = Intent::default();
    for l in text.lines() {
        // A torn last line (crash mid-append) is an entry whose write never started.
        let Ok(line) = serde_json::from_str::<Line>(l) else { continue };
        match line {
            Line::Begin { id, verb, summary, by, undoes } => {
                intent = Intent { id, verb, summary, by, undoes, ..Default::default() };
            }
            Line::Write(e) => intent.entries.push(e),
            Line::Settled { path } => forget_last(&mut intent.entries, &path),
            Line::Commit => intent.committed = true,
        }
    }
    Ok(Some(intent))
}

fn forget_last(entries: &mut Vec<Entry>, path: &str) {
    if let Some(i) = entries.iter().rposition(|e| e.path == path) {
        entries.remove(i);
    }
}

/// Result of rolling back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RolledBack {
    /// Files put back to their before-image.
    pub restored: Vec<String>,
    /// Files someone else changed meanwhile: left as they are.
    pub kept: Vec<String>,
    /// Files that could not be put back yet, with why (the journal is kept for them).
    pub failed: Vec<(String, String)>,
}

/// What recovery did with a journal left by an interrupted write.
#[derive(Debug, Clone, PartialEq)]
pub enum Recovery {
    /// Every file had been written; the bookkeeping was completed.
    Finished { verb: String, summary: String, files: usize },
    /// The write had not completed; the store was put back as it was before.
    RolledBack { verb: String, summary: String, outcome: RolledBack },
    /// The write had not completed and some files could not be put back yet: the journal and
    /// its objects are kept, and no other write is made until a command finishes the rollback.
    Incomplete { verb: String, summary: String, outcome: RolledBack, journal: PathBuf },
}

impl Recovery {
    /// Whether the store is whole again (no write may start while it is not).
    pub fn is_complete(&self) -> bool {
        !matches!(self, Recovery::Incomplete { .. })
    }
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recovery::Finished { verb, summary, files } => {
                write!(f, "an interrupted `{verb}` ({summary}) had written all {files} files; it was finished")
            }
            Recovery::RolledBack { verb, summary, outcome } => {
                write!(
                    f,
                    "an interrupted `{verb}` ({summary}) was rolled back; {} files restored",
                    outcome.restored.len()
                )?;
                if !outcome.kept.is_empty() {
                    write!(f, "; changed by someone else meanwhile and left as they are: {}", outcome.kept.join(", "))?;
                }
                Ok(())
            }
            Recovery::Incomplete { verb, summary, outcome, journal } => {
                let failed: Vec<String> = outcome.failed.iter().map(|(p, why)| format!("{p} ({why})")).collect();
                write!(
                    f,
                    "an interrupted `{verb}` ({summary}) could not be rolled back yet: {} could not be put back; \
                     {} files restored so far. The journal {} and the copies it names are kept, and folio makes \
                     no other write to this store until the next command finishes the rollback (free some space \
                     or make the files writable, then run any folio command on the store)",
                    failed.join(", "),
                    outcome.restored.len(),
                    journal.display()
                )
            }
        }
    }
}

/// Resolve a leftover journal, if there is one (waiting for a writer still at work).
pub fn recover(root: &Path, kind: DialectKind) -> io::Result<Option<Recovery>> {
    recover_in(root, &State::for_store(root, kind))
}

/// Resolve a journal in `folder`'s own `.folio` before the store is read at all: a crash can
/// leave aside the very file its format is recognised by (an OKF bundle's root `index.md`).
pub fn recover_before_open(folder: &Path) -> io::Result<Option<Recovery>> {
    recover_in(folder, &State { dir: folder.join(".folio") })
}

fn recover_in(root: &Path, state: &State) -> io::Result<Option<Recovery>> {
    // A linked state folder is never written through (every write refuses, naming it).
    if fs_ops::link_on_the_way(root, Path::new(&crate::store::model::relpath::from_root(root, &state.dir))).is_some() {
        return Ok(None);
    }
    // A crashed writer's temporaries go whether or not it got as far as its journal (the
    // root holds the writability probe).
    for dir in state_folders(state).iter().map(PathBuf::as_path).chain([root]) {
        remove_abandoned_temporaries_in(dir);
    }
    if !state.journal_path().exists() {
        return Ok(None);
    }
    let _lock = WriteLock::acquire(state)?;
    recover_locked(root, state)
}

/// `recover` for a writer that holds the store's write lock.
pub fn recover_locked(root: &Path, state: &State) -> io::Result<Option<Recovery>> {
    let path = state.journal_path();
    let Some(intent) = read(&path)? else { return Ok(None) };
    let (verb, summary) = (intent.verb.clone(), intent.summary.clone());
    let recovery = if intent.committed {
        let files = intent.entries.len();
        clean_temporaries(root, state, &intent);
        Journal { path, intent }.finish(state)?;
        Recovery::Finished { verb, summary, files }
    } else {
        let outcome = Journal { path: path.clone(), intent }.roll_back(root, state);
        if outcome.failed.is_empty() {
            Recovery::RolledBack { verb, summary, outcome }
        } else {
            Recovery::Incomplete { verb, summary, outcome, journal: path }
        }
    };
    Ok(Some(recovery))
}

/// The id of the changeset a leftover journal holds and whether it was committed (None: no
/// journal). A database backend settles its own commit against it (`commit_leftover`).
pub fn leftover(state: &State) -> io::Result<Option<(String, bool)>> {
    Ok(read(&state.journal_path())?.map(|i| (i.id, i.committed)))
}

/// Mark the leftover journal of changeset `id` committed, so that recovery finishes it
/// instead of rolling it back: its change stands elsewhere (a database committed it before
/// folio could). False when there is no such uncommitted journal. Under the write lock.
pub fn commit_leftover(state: &State, id: &str) -> io::Result<bool> {
    let _lock = WriteLock::acquire(state)?;
    match read(&state.journal_path())? {
        Some(i) if i.id == id && !i.committed => {
            // A commit mark torn by a failing disk would swallow this one: it starts a line.
            let torn = fs::read(state.journal_path())?.last().is_some_and(|b| *b != b'\n');
            let mark = serde_json::to_string(&Line::Commit)?;
            append_line(&state.journal_path(), &if torn { format!("\n{mark}") } else { mark })?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

fn roll_back(root: &Path, state: &State, intent: &Intent) -> RolledBack {
    let mut out = RolledBack::default();
    // Newest first; files the changeset created go before the ones it replaced or removed,
    // so the room they free on a full disk is there when the old files come back.
    let newest_first: Vec<&Entry> = intent.entries.iter().rev().collect();
    let (created, replaced): (Vec<&Entry>, Vec<&Entry>) = newest_first.into_iter().partition(|e| e.before.is_none());
    for e in created.into_iter().chain(replaced).filter(|e| !e.row) {
        let abs = root.join(&e.path);
        let now = match fs::read(&abs) {
            Ok(b) => Some(digest::of(&b)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(err) => {
                out.failed.push((e.path.clone(), err.to_string()));
                continue;
            }
        };
        let holds_after = now == e.after;
        // A crash between taking the old file aside and linking the new one leaves nothing.
        let vanished_mid_swap = now.is_none() && e.before.is_some();
        if now == e.before {
            if now.is_none() {
                e.remove_created_dirs(root);
            }
            continue;
        }
        if !(holds_after || vanished_mid_swap) {
            out.kept.push(e.path.clone());
            continue;
        }
        let restored = match &e.before {
            Some(d) if vanished_mid_swap => put_aside_back(&abs, d, e.role)
                .unwrap_or_else(|| state.object(d).and_then(|bytes| fs_ops::write_atomic(&abs, &bytes))),
            Some(d) => state.object(d).and_then(|bytes| fs_ops::write_atomic(&abs, &bytes)),
            None => match fs_ops::remove_file(&abs) {
                Ok(()) => {
                    e.remove_created_dirs(root);
                    Ok(())
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(err) => Err(err),
            },
        };
        match restored {
            Ok(()) => out.restored.push(e.path.clone()),
            Err(err) => out.failed.push((e.path.clone(), err.to_string())),
        }
    }
    out
}

/// A file a crash caught while it was taken aside (`.name.folio-old-…` beside it) is renamed
/// back — no new room needed — when it holds the journaled before-image (for the log: that
/// image followed by lines agents appended meanwhile). None: no such file.
fn put_aside_back(abs: &Path, before: &str, role: Role) -> Option<io::Result<()>> {
    let dir = abs.parent()?;
    let prefix = format!(".{}.folio-old-", abs.file_name()?.to_string_lossy());
    let entries = fs::read_dir(dir).ok()?;
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(&prefix) {
            continue;
        }
        let Ok(bytes) = fs::read(entry.path()) else { continue };
        let holds = digest::of(&bytes) == before
            || (role == Role::Log
                && (1..bytes.len()).rev().any(|n| bytes[n - 1] == b'\n' && digest::of(&bytes[..n]) == before));
        if holds {
            return Some(fs_ops::rename(&entry.path(), abs).and_then(|()| fs_ops::sync_parent(abs)));
        }
    }
    None
}

/// Temporary files a killed or failed writer left: beside the journaled paths and in folio's
/// own state folders. Only a gone process's, or this one's (it holds the write lock).
fn clean_temporaries(root: &Path, state: &State, intent: &Intent) {
    let mut dirs: Vec<PathBuf> = intent
        .entries
        .iter()
        .filter(|e| !e.row)
        .filter_map(|e| root.join(&e.path).parent().map(Path::to_path_buf))
        .collect();
    dirs.extend(state_folders(state));
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        remove_temporaries_in(&d);
    }
}

/// The folders of folio's state where its own writes leave temporaries.
pub fn state_folders(state: &State) -> Vec<PathBuf> {
    ["", "objects", "archive", "undo", "review", "review/approved"].iter().map(|d| state.dir.join(d)).collect()
}

/// Remove folio's temporaries in `dir` whose writer is gone (safe without the write lock).
fn remove_abandoned_temporaries_in(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if fs_ops::is_abandoned_temporary(&entry.file_name().to_string_lossy()) {
            let _ = fs_ops::remove_file(&entry.path());
        }
    }
}

/// Remove folio's temporaries in `dir` whose writer is gone or is this process.
pub fn remove_temporaries_in(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let mine = fs_ops::temporary_owner(&name) == Some(std::process::id());
        if mine || fs_ops::is_abandoned_temporary(&name) {
            let _ = fs_ops::remove_file(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, State, Journal) {
        let dir = tempfile::tempdir().unwrap();
        let state = State::for_store(dir.path(), crate::store::dialect::vault::KIND);
        fs::write(dir.path().join("a.md"), "old a").unwrap();
        let intent = Intent { id: "1".into(), verb: "set".into(), summary: "s".into(), ..Default::default() };
        let mut j = Journal::begin(&state, intent).unwrap();
        let before = state.put_object(b"old a").unwrap();
        let after = state.put_object(b"new a").unwrap();
        j.record(Entry {
            path: "a.md".into(),
            before: Some(before),
            after: Some(after.clone()),
            role: Role::Edit,
            created_dirs: vec![],
            row: false,
        })
        .unwrap();
        let entry = Entry {
            path: "new/b.md".into(),
            before: None,
            after: Some(after),
            role: Role::Edit,
            created_dirs: vec!["new".into()],
            row: false,
        };
        j.record(entry).unwrap();
        (dir, state, j)
    }

    #[test]
    fn an_uncommitted_journal_is_rolled_back() {
        let (dir, state, _j) = setup();
        fs::write(dir.path().join("a.md"), "new a").unwrap();
        fs::create_dir(dir.path().join("new")).unwrap();
        fs::write(dir.path().join("new/b.md"), "new a").unwrap();
        let r = recover(dir.path(), crate::store::dialect::vault::KIND).unwrap().unwrap();
        let Recovery::RolledBack { outcome, .. } = &r else { panic!("{r:?}") };
        assert_eq!(outcome.restored, ["new/b.md", "a.md"]);
        assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"old a");
        assert!(!dir.path().join("new").exists(), "the folder the write created goes with its file");
        assert!(!state.journal_path().exists());
        assert!(r.to_string().contains("rolled back; 2 files restored"));
        assert_eq!(recover(dir.path(), crate::store::dialect::vault::KIND).unwrap(), None);
    }

    #[test]
    fn a_file_someone_else_changed_is_kept_and_named() {
        let (dir, _state, _j) = setup();
        fs::write(dir.path().join("a.md"), "agent wrote this").unwrap();
        let r = recover(dir.path(), crate::store::dialect::vault::KIND).unwrap().unwrap();
        let Recovery::RolledBack { outcome, .. } = r else { panic!() };
        assert_eq!(outcome.kept, ["a.md"]);
        assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"agent wrote this");
    }

    #[test]
    fn a_write_settled_by_its_swap_is_not_rolled_back() {
        // The swap of a.md found an agent's change and left the file to the agent, who then
        // deleted it: the recovery must not take that delete for a swap cut short.
        let (dir, state, mut j) = setup();
        j.settle("a.md").unwrap();
        assert_eq!(j.intent.entries.iter().map(|e| e.path.as_str()).collect::<Vec<_>>(), ["new/b.md"]);
        fs::remove_file(dir.path().join("a.md")).unwrap();
        let r = recover(dir.path(), crate::store::dialect::vault::KIND).unwrap().unwrap();
        let Recovery::RolledBack { outcome, .. } = &r else { panic!("{r:?}") };
        assert!(outcome.restored.is_empty() && outcome.kept.is_empty(), "{outcome:?}");
        assert!(!dir.path().join("a.md").exists(), "the agent's delete stands");
        assert!(!state.journal_path().exists());
    }

    #[test]
    fn a_committed_journal_is_finished_and_filed_for_undo() {
        let (dir, state, mut j) = setup();
        fs::write(dir.path().join("a.md"), "new a").unwrap();
        fs::create_dir(dir.path().join("new")).unwrap();
        fs::write(dir.path().join("new/b.md"), "new a").unwrap();
        j.commit().unwrap();
        let r = recover(dir.path(), crate::store::dialect::vault::KIND).unwrap().unwrap();
        assert!(matches!(r, Recovery::Finished { files: 2, .. }), "{r:?}");
        assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"new a");
        assert_eq!(records::records(&state).len(), 1);
    }
}
