//! Every write folio makes is a `Changeset`: file edits, each with the content digest it
//! expects to find, plus one audit event. It becomes a `storage::Plan` that the store's
//! backend applies; for a folder (`file_storage`) that means:
//!
//! 1. refuse up front a path outside the store (`write_gate`), or a read-only store (`readonly`);
//! 2. check every expected digest — a file changed since folio read it is a conflict carrying
//!    both versions, and nothing is written;
//! 3. journal the intent (`journal`), keep before/after images as objects, then swap each file
//!    in with a compare-and-swap (`swap`);
//! 4. regenerate exactly the catalogs whose bytes change;
//! 5. append the audit event in the dialect's own log format (`audit`);
//! 6. commit the journal, file the undo record, clear the journal.
//!
//! ```ignore
//! let cs = Changeset::new(AuditEvent::new("fix", "human:ann", "added missing type"))
//!     .replace("notes/a.md", digest::of(&old), new_bytes);
//! let applied = store.apply(cs, &WriteOptions::default())?;
//! ```
use std::path::{Component, Path};

use super::audit::AuditEvent;
use super::journal::{Recovery, Role};
use crate::store::Store;

/// What to do with one file.
#[derive(Debug, Clone, PartialEq)]
pub enum EditKind {
    /// A new file (the path must not exist).
    Create(Vec<u8>),
    Replace(Vec<u8>),
    /// Move to `to` (which must not exist) with `bytes` as its new content.
    Move {
        to: String,
        bytes: Vec<u8>,
    },
    /// Take the file out of the store into the folio archive.
    Archive,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileEdit {
    /// Relative to the store root, `/`-separated.
    pub path: String,
    /// Digest (`digest::of`) of the content the caller read; None for a create.
    pub expected: Option<String>,
    pub kind: EditKind,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Changeset {
    pub event: AuditEvent,
    pub edits: Vec<FileEdit>,
}

impl Changeset {
    pub fn new(event: AuditEvent) -> Self {
        Changeset { event, edits: Vec::new() }
    }
    pub fn create(mut self, path: &str, bytes: impl Into<Vec<u8>>) -> Self {
        self.edits.push(FileEdit { path: path.into(), expected: None, kind: EditKind::Create(bytes.into()) });
        self
    }
    pub fn replace(mut self, path: &str, expected: String, bytes: impl Into<Vec<u8>>) -> Self {
        self.edits.push(FileEdit {
            path: path.into(),
            expected: Some(expected),
            kind: EditKind::Replace(bytes.into()),
        });
        self
    }
    pub fn move_to(mut self, from: &str, expected: String, to: &str, bytes: impl Into<Vec<u8>>) -> Self {
        let kind = EditKind::Move { to: to.into(), bytes: bytes.into() };
        self.edits.push(FileEdit { path: from.into(), expected: Some(expected), kind });
        self
    }
    pub fn archive(mut self, path: &str, expected: String) -> Self {
        self.edits.push(FileEdit { path: path.into(), expected: Some(expected), kind: EditKind::Archive });
        self
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// The file writes this changeset makes (a move is a removal plus a create).
    pub fn writes(&self) -> Vec<Write> {
        let mut out = Vec::new();
        for e in &self.edits {
            let w = |path: &str, expected: Option<String>, after: Option<Vec<u8>>| Write {
                path: path.to_string(),
                expected,
                after,
                role: Role::Edit,
            };
            match &e.kind {
                EditKind::Create(b) => out.push(w(&e.path, None, Some(b.clone()))),
                EditKind::Replace(b) => out.push(w(&e.path, e.expected.clone(), Some(b.clone()))),
                EditKind::Move { to, bytes } => {
                    out.push(w(to, None, Some(bytes.clone())));
                    out.push(w(&e.path, e.expected.clone(), None));
                }
                EditKind::Archive => out.push(w(&e.path, e.expected.clone(), None)),
            }
        }
        out
    }

    /// A unified diff of every file edit (what else the write touches — catalogs, the log,
    /// folio's git rules — is `preview::also_written`).
    pub fn diff(&self, store: &Store) -> String {
        let mut out = String::new();
        for e in &self.edits {
            let old = store.storage().read(&e.path).unwrap_or_default();
            let old = String::from_utf8_lossy(&old);
            let (a, b, new) = match &e.kind {
                EditKind::Create(b) => ("/dev/null".to_string(), format!("b/{}", e.path), String::from_utf8_lossy(b)),
                EditKind::Replace(b) => (format!("a/{}", e.path), format!("b/{}", e.path), String::from_utf8_lossy(b)),
                EditKind::Move { to, bytes } => {
                    (format!("a/{}", e.path), format!("b/{to}"), String::from_utf8_lossy(bytes))
                }
                EditKind::Archive => (format!("a/{}", e.path), "/dev/null".to_string(), "".into()),
            };
            let old = if matches!(e.kind, EditKind::Create(_)) { "".into() } else { old };
            out += &unified_diff(&old, &new, &a, &b);
        }
        out
    }
}

/// A unified diff in `git diff` style (`--- a` / `+++ b` headers, 3 lines of context).
pub fn unified_diff(old: &str, new: &str, a: &str, b: &str) -> String {
    if old == new && a.trim_start_matches("a/") == b.trim_start_matches("b/") {
        return String::new();
    }
    let diff = similar::TextDiff::from_lines(old, new);
    let body = diff.unified_diff().context_radius(3).header(a, b).to_string();
    if body.is_empty() { format!("--- {a}\n+++ {b}\n") } else { body }
}

/// One file write as the engine performs it.
#[derive(Debug, Clone)]
pub struct Write {
    pub path: String,
    /// What the file must hold first (None: must not exist).
    pub expected: Option<String>,
    /// What it holds afterwards (None: removed).
    pub after: Option<Vec<u8>>,
    pub role: Role,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct WriteOptions {
    /// `--read-only`: refuse every write.
    pub read_only: bool,
    /// When an undo logs its event (None: at the write): the time its preview showed.
    #[serde(skip)]
    pub at: Option<time::OffsetDateTime>,
}

use serde::Serialize;

/// What an applied changeset wrote.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// Files the changeset edited (relative to the root).
    pub files: Vec<String>,
    /// Catalogs regenerated because their bytes changed.
    pub catalogs: Vec<String>,
    /// The log the audit event went to.
    pub log: String,
    /// A leftover journal resolved before this write.
    pub recovered: Option<Recovery>,
    /// The store as the plan's writes and catalogs left it, when the plan derived writes from
    /// it (a verdict's ledger lines): a caller that shows the store next starts from it rather
    /// than deriving it a second time (`Overlaid::refreshed`).
    pub overlaid: Option<std::sync::Arc<super::overlaid::Overlaid>>,
}

impl Applied {
    /// What was written where, for a status line: `wrote a.md, .gitattributes · regenerated
    /// index.md · logged to log.md` (at most `MAX` file names, then how many more).
    pub fn summary(&self) -> String {
        const MAX: usize = 4;
        let names = |files: &[String]| {
            let mut s = files.iter().take(MAX).cloned().collect::<Vec<_>>().join(", ");
            if files.len() > MAX {
                s.push_str(&format!(" and {} more", files.len() - MAX));
            }
            s
        };
        let mut parts = Vec::new();
        if !self.files.is_empty() {
            parts.push(format!("wrote {}", names(&self.files)));
        }
        if !self.catalogs.is_empty() {
            parts.push(format!("regenerated {}", names(&self.catalogs)));
        }
        if !self.log.is_empty() {
            parts.push(format!("logged to {}", self.log));
        }
        parts.join(" · ")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{0}")]
    ReadOnly(String),
    #[error("{}", conflict_line(path, row.as_deref()))]
    Conflict {
        path: String,
        /// What the file holds now (None: it is gone).
        on_disk: Option<Vec<u8>>,
        /// What folio meant to write (None: remove it).
        intended: Option<Vec<u8>>,
        /// The database row the write is about, when the store is a database: the change was
        /// made there, not on disk.
        row: Option<String>,
    },
    #[error("{0}")]
    Invalid(String),
    /// A path of the plan leads outside the store (see `write_gate`).
    #[error("{0}")]
    Outside(String),
    /// A path of the plan, or folio's state folder, is or goes through a symbolic link.
    #[error("{0}")]
    Link(String),
    #[error("nothing to undo")]
    NothingToUndo,
    /// An interrupted write could not be rolled back yet: no write may start before it is.
    #[error("{0}")]
    Unrecovered(String),
    /// A file-system error; the change was refused or rolled back (a rollback that cannot
    /// finish is `Unrecovered` instead).
    #[error("{path}: {err}; nothing was written")]
    Io { path: String, err: std::io::Error },
}

fn conflict_line(path: &str, row: Option<&str>) -> String {
    match row {
        Some(id) => format!("{path}: node `{id}` changed in the database since folio read it; nothing was written"),
        None => format!("{path}: changed on disk since folio read it; nothing was overwritten"),
    }
}

impl WriteError {
    /// For a conflict: a diff from what is on disk to what folio meant to write.
    pub fn conflict_diff(&self) -> Option<String> {
        let WriteError::Conflict { path, on_disk, intended, .. } = self else { return None };
        let theirs = on_disk.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
        let ours = intended.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
        Some(unified_diff(&theirs, &ours, &format!("on-disk/{path}"), &format!("folio/{path}")))
    }
}

/// Paths a changeset may name: relative, inside the root, no `..`.
fn check_path(p: &str) -> Result<(), WriteError> {
    let path = Path::new(p);
    let ok = !p.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)));
    if ok { Ok(()) } else { Err(WriteError::Invalid(format!("{p}: not a path inside the store; nothing was written"))) }
}

impl Store {
    /// Apply a changeset (see the module documentation).
    pub fn apply(&self, changeset: Changeset, opts: &WriteOptions) -> Result<Applied, WriteError> {
        for e in &changeset.edits {
            check_path(&e.path)?;
            if let EditKind::Move { to, .. } = &e.kind {
                check_path(to)?;
            }
        }
        let mut named: Vec<&str> = Vec::new();
        for e in &named_paths(&changeset) {
            if named.contains(e) {
                return Err(WriteError::Invalid(format!("{e}: named twice in one changeset; nothing was written")));
            }
            named.push(e);
        }
        let archived = changeset
            .edits
            .iter()
            .filter(|e| e.kind == EditKind::Archive)
            .map(|e| (e.path.clone(), e.expected.clone().unwrap_or_default()))
            .collect();
        let plan = Plan { writes: changeset.writes(), archived, event: changeset.event, undoes: None, then: None };
        self.storage().apply(plan, opts)
    }
}

/// Every path a changeset names (a move names two).
fn named_paths(cs: &Changeset) -> Vec<&str> {
    cs.edits
        .iter()
        .flat_map(|e| match &e.kind {
            EditKind::Move { to, .. } => vec![e.path.as_str(), to.as_str()],
            _ => vec![e.path.as_str()],
        })
        .collect()
}

/// Apply `writes` and log `event` through the store's backend (plans built as writes: review
/// verdicts, lint ignores, undo).
pub fn apply_writes(
    store: &Store,
    writes: Vec<Write>,
    event: AuditEvent,
    undoes: Option<String>,
    opts: &WriteOptions,
) -> Result<Applied, WriteError> {
    store.storage().apply(Plan { writes, archived: Vec::new(), event, undoes, then: None }, opts)
}

/// `apply_writes`, followed inside the same changeset by the writes `then` derives from the
/// store as the others left it (a verdict's ledger lines).
pub fn apply_writes_then(
    store: &Store,
    writes: Vec<Write>,
    event: AuditEvent,
    then: std::sync::Arc<dyn Then>,
    opts: &WriteOptions,
) -> Result<Applied, WriteError> {
    store.storage().apply(Plan { writes, archived: Vec::new(), event, undoes: None, then: Some(then) }, opts)
}

/// Writes a plan derives from the store as its other writes left it — the review ledger's
/// lines name an entity's text after the change and the changeset that carried it. The
/// backend computes them after the other writes and journals them with them, so a crash or a
/// failed disk keeps or drops the verdict and its record together.
pub trait Then: Send + Sync + std::fmt::Debug {
    /// The writes, given the store as it reads now and the id of the changeset under way.
    fn writes(&self, written: &Store, changeset: &str) -> Result<Vec<Write>, WriteError>;
}

/// `path` relative to `root`, with `..` when it lies beside it (evolve's audit.log).
pub(super) fn relative_to(root: &Path, path: &Path) -> String {
    crate::store::model::relpath::from_root(root, path)
}

/// One write plan as a backend applies it: every write with the digest it expects to
/// replace, the files that leave the store for folio's archive, and the audit event.
#[derive(Debug, Clone)]
pub struct Plan {
    pub writes: Vec<Write>,
    /// Files taken out of the store (already among `writes` as removals), each with the
    /// digest it must hold: the backend keeps their bytes for good before removing them.
    pub archived: Vec<(String, String)>,
    pub event: AuditEvent,
    /// For an undo: the id of the record it reverts.
    pub undoes: Option<String>,
    /// Writes derived from the store once the others are in (see `Then`).
    pub then: Option<std::sync::Arc<dyn Then>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write::state::State;
    use crate::store::{model::digest, write::undo};

    fn vault() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "---\ntitle: A\n---\nsee [[b]]\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "# B\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        (dir, store)
    }

    fn event() -> AuditEvent {
        AuditEvent::new("set", "human:ann", "title = A2").entity("a", "A", "a.md")
    }

    #[test]
    fn applies_logs_and_undoes() {
        let (dir, store) = vault();
        let old = std::fs::read(dir.path().join("a.md")).unwrap();
        let cs = Changeset::new(event()).replace("a.md", digest::of(&old), "---\ntitle: A2\n---\nsee [[b]]\n");
        let applied = store.apply(cs, &WriteOptions::default()).unwrap();
        assert_eq!(applied.files, ["a.md"]);
        assert_eq!(applied.log, ".folio/audit.jsonl");
        assert_eq!(std::fs::read_to_string(dir.path().join("a.md")).unwrap(), "---\ntitle: A2\n---\nsee [[b]]\n");
        let log = std::fs::read_to_string(dir.path().join(".folio/audit.jsonl")).unwrap();
        assert_eq!(log.lines().count(), 1);
        assert!(log.contains("\"event\":\"set\""));
        let state = State::for_store(dir.path(), crate::store::dialect::vault::KIND);
        assert!(!state.journal_path().exists());
        assert_eq!(undo::records(&state).len(), 1);
        undo::undo(&store, "human:ann", &WriteOptions::default()).unwrap();
        assert_eq!(std::fs::read(dir.path().join("a.md")).unwrap(), old);
        assert_eq!(undo::records(&state).len(), 0);
        assert!(matches!(undo::undo(&store, "human:ann", &WriteOptions::default()), Err(WriteError::NothingToUndo)));
        assert_eq!(std::fs::read_to_string(dir.path().join(".folio/audit.jsonl")).unwrap().lines().count(), 2);
    }

    #[test]
    fn a_stale_digest_is_a_conflict_and_nothing_is_written() {
        let (dir, store) = vault();
        let b_old = std::fs::read(dir.path().join("b.md")).unwrap();
        let cs = Changeset::new(event()).replace("b.md", digest::of(&b_old), "# B2\n").replace(
            "a.md",
            digest::of(b"what folio read earlier"),
            "x",
        );
        let err = store.apply(cs, &WriteOptions::default()).unwrap_err();
        assert!(matches!(&err, WriteError::Conflict { path, .. } if path == "a.md"));
        assert!(err.conflict_diff().unwrap().contains("+x"));
        assert_eq!(std::fs::read(dir.path().join("b.md")).unwrap(), b_old);
        assert!(!dir.path().join(".folio/audit.jsonl").exists());
    }

    #[test]
    fn undo_refuses_when_the_file_changed_since() {
        let (dir, store) = vault();
        let old = std::fs::read(dir.path().join("b.md")).unwrap();
        store
            .apply(Changeset::new(event()).replace("b.md", digest::of(&old), "# B2\n"), &WriteOptions::default())
            .unwrap();
        std::fs::write(dir.path().join("b.md"), "# agent rewrote it\n").unwrap();
        let err = undo::undo(&store, "human:ann", &WriteOptions::default()).unwrap_err();
        assert!(matches!(err, WriteError::Conflict { ref path, .. } if path == "b.md"));
        assert_eq!(std::fs::read_to_string(dir.path().join("b.md")).unwrap(), "# agent rewrote it\n");
    }

    #[test]
    fn moves_archives_and_bad_paths() {
        let (dir, store) = vault();
        let b = std::fs::read(dir.path().join("b.md")).unwrap();
        let cs = Changeset::new(event()).move_to("b.md", digest::of(&b), "sub/c.md", b.clone());
        store.apply(cs, &WriteOptions::default()).unwrap();
        assert!(!dir.path().join("b.md").exists());
        assert_eq!(std::fs::read(dir.path().join("sub/c.md")).unwrap(), b);
        let a = std::fs::read(dir.path().join("a.md")).unwrap();
        store.apply(Changeset::new(event()).archive("a.md", digest::of(&a)), &WriteOptions::default()).unwrap();
        assert!(!dir.path().join("a.md").exists());
        let kept = dir.path().join(".folio/archive").join(digest::hex(&digest::of(&a)));
        assert_eq!(std::fs::read(kept).unwrap(), a);
        let bad = Changeset::new(event()).create("../escape.md", "x");
        assert!(matches!(store.apply(bad, &WriteOptions::default()), Err(WriteError::Invalid(_))));
        let ro = Changeset::new(event()).create("new.md", "x");
        assert!(matches!(
            store.apply(ro, &WriteOptions { read_only: true, ..Default::default() }),
            Err(WriteError::ReadOnly(_))
        ));
        assert!(!dir.path().join("new.md").exists());
    }

    #[test]
    fn okf_catalogs_whose_bytes_change_are_regenerated() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(crate::store::dialect::okf::spec::CATALOG), "# T\n\n* [A](a.md) - old\n")
            .unwrap();
        std::fs::write(dir.path().join("a.md"), "---\ntype: T\ntitle: A\ndescription: old\n---\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::okf::KIND, "test".into());
        let a = std::fs::read(dir.path().join("a.md")).unwrap();
        let cs =
            Changeset::new(event()).replace("a.md", digest::of(&a), "---\ntype: T\ntitle: A\ndescription: new\n---\n");
        let applied = store.apply(cs, &WriteOptions::default()).unwrap();
        assert_eq!(applied.catalogs, [crate::store::dialect::okf::spec::CATALOG]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(crate::store::dialect::okf::spec::CATALOG)).unwrap(),
            "# T\n\n* [A](a.md) - new\n"
        );
        assert!(
            std::fs::read_to_string(dir.path().join(crate::store::dialect::okf::spec::LOG))
                .unwrap()
                .contains("* **Set**: [A](/a.md)")
        );
    }
}
