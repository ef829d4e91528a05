//! The folder backend of the storage seam (`storage`): today's journaled changeset engine.
//! A plan is gated (`write_gate`), checked against every expected digest, journaled outside
//! the store, swapped in file by file (`swap`), followed by the catalogs whose bytes it
//! changes and the audit line in the format's own log; the journal is then committed and
//! filed as an undo record (`undo`). See `changeset` for the plan's vocabulary.
use std::path::Path;

use super::audit::{self, AuditEvent};
use super::catalog_writes;
use super::changeset::{self, Applied, Write, WriteError, WriteOptions, relative_to};
use super::changeset_lines;
use super::journal::records::{Record, records};
use super::journal::{Entry, Intent, Journal, Role};
use super::log_swap;
use super::state::State;
use super::storage::{Plan, Storage};
use super::swap::{self, SwapError};
use super::write_gate::WriteGate;
use super::write_lock::WriteLock;
use crate::store::{Store, model::digest, read::readonly, write::failpoint};

/// A store that is a folder on disk.
pub struct FileStorage<'s> {
    store: &'s Store,
}

impl<'s> FileStorage<'s> {
    pub fn new(store: &'s Store) -> Self {
        FileStorage { store }
    }
}

impl Storage for FileStorage<'_> {
    fn read(&self, rel: &str) -> std::io::Result<Vec<u8>> {
        std::fs::read(self.store.root.join(rel))
    }

    fn read_capped(&self, rel: &str, limit: u64) -> std::io::Result<(Vec<u8>, bool)> {
        crate::store::read::fsio::read_capped(&self.store.root.join(rel), limit)
    }

    fn apply(&self, plan: Plan, opts: &WriteOptions) -> Result<Applied, WriteError> {
        apply_plan(self.store, plan, opts)
    }

    fn undo(&self, by: &str, opts: &WriteOptions) -> Result<Applied, WriteError> {
        undo_in_folder(self, self.store, by, opts)
    }
}

fn io_err(path: &str) -> impl Fn(std::io::Error) -> WriteError + '_ {
    move |err| WriteError::Io { path: path.to_string(), err }
}

/// The journaled engine: gate, read-only refusal, archive copies, digest checks, journal,
/// swaps, catalogs, the audit line, the undo record.
pub fn apply_plan(store: &Store, plan: Plan, opts: &WriteOptions) -> Result<Applied, WriteError> {
    apply(store, plan, opts, None, None)
}

/// Why a backend's own commit (`apply_plan_committing`) did not go through.
pub enum Uncommitted {
    /// It did not take the changeset: every file is rolled back and nothing is kept.
    Refused(WriteError),
    /// Whether it took the changeset cannot be told now (its server cannot be asked): the
    /// journal is left as it is, uncommitted, for the backend to settle on its next open —
    /// finished when the change stands there, rolled back when it does not.
    Unknown(WriteError),
}

/// `apply_plan`, with `commit` (given the changeset's id) run once everything is written and
/// journaled, just before the journal's own commit: when it is refused, every file is rolled
/// back and nothing (log line, undo record) is kept. A database backend commits its
/// transaction there, so folio records a decision only once the database has taken it. Once
/// it did, the change stands whatever folio's disk does: a journal whose commit mark cannot be
/// written is not rolled back but left for the backend to settle on its next open.
pub fn apply_plan_committing(
    store: &Store,
    plan: Plan,
    opts: &WriteOptions,
    commit: &mut Commit,
) -> Result<Applied, WriteError> {
    apply(store, plan, opts, Some(commit), None)
}

/// The writes of a plan that are rows a backend writes in its own transaction, not files (a
/// database's nodes): by path, the bytes the backend compared them with (None: none there).
pub type Rows = std::collections::HashMap<String, Option<Vec<u8>>>;

/// `apply_plan_committing` for a plan whose writes at `rows` are rows, not files: the backend
/// has compared and written them in the transaction `commit` commits, so the engine only
/// journals them (their before and after images, for undo) and never reads, swaps or rolls
/// back a file for them; the other writes (folio's own state, the log) go as for any store.
pub fn apply_rows_committing(
    store: &Store,
    plan: Plan,
    opts: &WriteOptions,
    commit: &mut Commit,
    rows: &Rows,
) -> Result<Applied, WriteError> {
    apply(store, plan, opts, Some(commit), Some(rows))
}

/// A backend's own commit of a changeset, given its id (`apply_plan_committing`).
pub type Commit<'c> = dyn FnMut(&str) -> Result<(), Uncommitted> + 'c;

fn apply(
    store: &Store,
    plan: Plan,
    opts: &WriteOptions,
    commit: Option<&mut Commit>,
    rows: Option<&Rows>,
) -> Result<Applied, WriteError> {
    let row = |path: &str| rows.and_then(|r| r.get(path));
    let Plan { writes, archived, event, undoes, then } = plan;
    let root = &store.root;
    let kind = store.kind();
    // The one gate, before anything (archive copies included) is written.
    let gate = WriteGate::for_store(store);
    let log_abs = audit::log_path(root, kind);
    let log_rel = relative_to(root, &log_abs);
    gate.check_all(writes.iter().map(|w| w.path.as_str()).chain([log_rel.as_str()]))?;
    let refuse_paths: Vec<&str> = writes.iter().map(|w| w.path.as_str()).collect();
    if let Some(why) = readonly::refusal(root, kind, &refuse_paths, opts.read_only) {
        return Err(WriteError::ReadOnly(why));
    }
    let state = State::for_store(root, kind);
    gate.check_no_link(&crate::store::model::relpath::from_root(root, &state.dir))?;
    // One writer at a time; a crashed writer's journal is resolved first, and a rollback that
    // could not finish stops every other write until it has.
    let _lock = WriteLock::acquire(&state).map_err(io_err("folio write lock"))?;
    let recovered = super::journal::recover_locked(root, &state).map_err(io_err("folio journal"))?;
    if let Some(r) = recovered.as_ref().filter(|r| !r.is_complete()) {
        return Err(WriteError::Unrecovered(r.to_string()));
    }
    for dir in super::journal::state_folders(&state) {
        super::journal::remove_temporaries_in(&dir);
    }
    for (path, expected) in &archived {
        let bytes = std::fs::read(root.join(path)).map_err(io_err(path))?;
        if digest::of(&bytes) != *expected {
            return Err(WriteError::Conflict { path: path.clone(), on_disk: Some(bytes), intended: None, row: None });
        }
        state.archive(path, &bytes).map_err(io_err(path))?;
    }
    // In a git work tree: what of folio's state to commit and how it merges (`team`), written
    // as part of this changeset (a crash or an undo takes them back with it).
    // An undo puts rules back as they were: it adds none, or it would re-create the
    // `.gitattributes` it takes away.
    let rules = match undoes {
        Some(_) => Vec::new(),
        None => super::team::writes(root, kind).map_err(io_err("folio git rules"))?,
    };
    gate.check_all(rules.iter().map(|w| w.path.as_str()))?;
    let writes: Vec<Write> = rules.into_iter().chain(writes).collect();
    // Every expected digest is checked before anything is written.
    for w in writes.iter().filter(|w| row(&w.path).is_none()) {
        let now = std::fs::read(root.join(&w.path)).ok();
        if now.as_deref().map(digest::of) != w.expected {
            return Err(WriteError::Conflict {
                path: w.path.clone(),
                on_disk: now,
                intended: w.after.clone(),
                row: None,
            });
        }
    }
    let intent = Intent {
        id: changeset_id(),
        verb: event.verb.clone(),
        summary: event.summary.clone(),
        by: event.by.clone(),
        undoes,
        keep_log: kind.format().undo_withdraws_log_lines(),
        ..Default::default()
    };
    let mut journal = match Journal::begin(&state, intent) {
        Ok(j) => j,
        Err(err) => {
            // Nothing was done yet: a torn first line is no intent to keep.
            let _ = super::fs_ops::remove_file(&state.journal_path());
            return Err(WriteError::Io { path: "folio journal".into(), err });
        }
    };
    let mut applied = Applied { recovered, ..Default::default() };
    for w in &writes {
        let written = match row(&w.path) {
            Some(before) => journal_row(&state, &mut journal, w, before.as_deref()),
            None => write_one(root, &state, &mut journal, w),
        };
        if let Err(e) = written {
            return Err(rolled_back(journal, root, &state, e));
        }
        // The ledger is folio's own state, not a file of the store.
        if w.role != Role::Ledger {
            applied.files.push(w.path.clone());
        }
    }
    // Only catalogs whose expected content this changeset changes are written.
    let mut unread = None;
    let catalogs = catalog_writes::after_edits(store, &writes, || {
        let fresh = Store::load(root, kind, store.detected_by.clone());
        unread = store.unread_file().or_else(|| fresh.unread_file());
        fresh
    });
    let catalogs = match catalogs {
        Ok(c) => c,
        Err(bad) => {
            unread = Some(bad);
            Vec::new()
        }
    };
    if let Some((path, why)) = unread {
        // Catalogs rendered from a partial read would drop what could not be read.
        let err = WriteError::Invalid(format!(
            "{path}: {why}; the catalogs cannot be brought up to date from an incomplete read, so nothing was written"
        ));
        return Err(rolled_back(journal, root, &state, err));
    }
    let mut written = writes;
    for w in catalogs {
        // Catalog places are known only now that the edits are in; one outside undoes them.
        if let Err(e) = gate.check(&w.path).and_then(|()| write_one(root, &state, &mut journal, &w)) {
            return Err(rolled_back(journal, root, &state, e));
        }
        applied.catalogs.push(w.path.clone());
        written.push(w);
    }
    if let Some(then) = then {
        // The store as the writes left it, from their bytes: no second load (nor, for a
        // database, a read outside the transaction under way).
        let after = store.overlaid_reporting(&written);
        let derived = match then.writes(&after.store, &journal.intent.id) {
            Ok(d) => d,
            Err(e) => return Err(rolled_back(journal, root, &state, e)),
        };
        for w in derived {
            if let Err(e) = gate.check(&w.path).and_then(|()| write_one(root, &state, &mut journal, &w)) {
                return Err(rolled_back(journal, root, &state, e));
            }
        }
        // Handed on only where a read of the store sees what the writes left (`read_again`).
        applied.overlaid = super::overlay::read_again(&written).then(|| std::sync::Arc::new(after));
    }
    if let Err(e) = write_log(root, &state, &mut journal, kind, &log_rel, &event) {
        return Err(rolled_back(journal, root, &state, e));
    }
    applied.log = log_rel;
    let external = commit.is_some();
    match commit.map(|c| c(&journal.intent.id)) {
        Some(Err(Uncommitted::Refused(e))) => return Err(rolled_back(journal, root, &state, e)),
        // Left as it is: the backend settles it on its next open.
        Some(Err(Uncommitted::Unknown(e))) => return Err(e),
        _ => {}
    }
    if let Err(err) = journal.commit() {
        if external {
            return Err(WriteError::Invalid(format!(
                "the database committed the change, but folio could not mark it done in its journal (folio \
                 journal: {err}); the next open settles it with the database and finishes folio's record (log \
                 line, undo record)"
            )));
        }
        return Err(rolled_back(journal, root, &state, WriteError::Io { path: "folio journal".into(), err }));
    }
    // Committed: the change stands. What is left is bookkeeping (the undo record), which the
    // next command finishes from the committed journal should it fail here.
    let _ = journal.finish(&state);
    Ok(applied)
}

/// Roll the changeset back after `cause`; a rollback that cannot finish says so alongside it.
fn rolled_back(journal: Journal, root: &Path, state: &State, cause: WriteError) -> WriteError {
    let (verb, summary) = (journal.intent.verb.clone(), journal.intent.summary.clone());
    let outcome = journal.roll_back(root, state);
    if outcome.failed.is_empty() {
        return cause;
    }
    let journal = state.journal_path();
    let r = super::journal::Recovery::Incomplete { verb, summary, outcome, journal };
    WriteError::Unrecovered(format!("{cause}; {r}"))
}

/// Add the event to the store's log. Agents keep appending to it while people review: lines
/// they add between folio's plan and its write are no conflict (folio's event holds no one's
/// text); the log is read at the moment it is swapped and the agents' lines kept after it.
fn write_log(
    root: &Path,
    state: &State,
    journal: &mut Journal,
    kind: crate::store::dialect::DialectKind,
    log_rel: &str,
    event: &AuditEvent,
) -> Result<(), WriteError> {
    let abs = root.join(log_rel);
    let at = event.at.unwrap_or_else(audit::now);
    let render =
        |old: Option<&[u8]>| audit::append(kind, old.map(String::from_utf8_lossy).as_deref(), event, at).into_bytes();
    let created_dirs = missing_dirs(root, log_rel);
    let record = |before: Option<&[u8]>, after: &[u8]| {
        // Both images durable before the log changes: a crash rolls back to the one read.
        let before = before.map(|b| state.put_object(b)).transpose()?;
        let after = Some(state.put_object(after)?);
        let created_dirs = if before.is_none() { created_dirs.clone() } else { Vec::new() };
        journal.record(Entry { path: log_rel.to_string(), before, after, role: Role::Log, created_dirs, row: false })
    };
    log_swap::add_to_log(&abs, render, record).map_err(|err| WriteError::Io { path: log_rel.to_string(), err })?;
    failpoint::step("file written");
    Ok(())
}

fn write_one(root: &Path, state: &State, journal: &mut Journal, w: &Write) -> Result<(), WriteError> {
    let abs = root.join(&w.path);
    if let Some(after) = &w.after {
        state.put_object(after).map_err(io_err("folio state"))?;
    }
    let (mut journaled, mut failed_in) = (false, None);
    let swapped = swap::swap(&abs, w.expected.as_deref(), w.after.as_deref(), |before| {
        // The before-image (the bytes just compared) durable before the file is touched: a
        // rollback needs it.
        if let Some(before) = before {
            failed_in = Some("folio state");
            state.put_object(before)?;
        }
        failed_in = Some("folio journal");
        journal.record(Entry {
            path: w.path.clone(),
            before: w.expected.clone(),
            after: w.after.as_deref().map(digest::of),
            role: w.role,
            created_dirs: if w.after.is_some() { missing_dirs(root, &w.path) } else { Vec::new() },
            row: false,
        })?;
        (journaled, failed_in) = (true, None);
        Ok(())
    });
    match swapped {
        Ok(()) => {
            failpoint::step("file written");
            Ok(())
        }
        Err(SwapError::Conflict { on_disk }) => {
            if journaled {
                journal.settle(&w.path).map_err(io_err("folio journal"))?;
            }
            Err(WriteError::Conflict { path: w.path.clone(), on_disk, intended: w.after.clone(), row: None })
        }
        Err(SwapError::Io(err)) => Err(WriteError::Io { path: failed_in.unwrap_or(&w.path).to_string(), err }),
    }
}

/// Journal a row its backend wrote (`apply_rows_committing`): both images kept for undo.
fn journal_row(state: &State, journal: &mut Journal, w: &Write, before: Option<&[u8]>) -> Result<(), WriteError> {
    if let Some(after) = &w.after {
        state.put_object(after).map_err(io_err("folio state"))?;
    }
    if w.expected.is_some() {
        let before = before.ok_or_else(|| WriteError::Invalid(format!("{}: no before-image to keep", w.path)))?;
        state.put_object(before).map_err(io_err("folio state"))?;
    }
    let entry = Entry {
        path: w.path.clone(),
        before: w.expected.clone(),
        after: w.after.as_deref().map(digest::of),
        role: w.role,
        created_dirs: Vec::new(),
        row: true,
    };
    journal.record(entry).map_err(io_err("folio journal"))?;
    failpoint::step("file written");
    Ok(())
}

/// The folders writing `rel` will create (its missing ancestors), deepest first.
fn missing_dirs(root: &Path, rel: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut dir = Path::new(rel).parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        if root.join(d).exists() {
            break;
        }
        out.push(d.to_string_lossy().replace('\\', "/"));
        dir = d.parent();
    }
    out
}

/// Sortable and unique: time, then process id.
fn changeset_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("{nanos:024}-{}", std::process::id())
}

impl Store {
    /// The backend of this store: its format's own (a database) or the folder engine.
    pub fn storage(&self) -> Box<dyn Storage + '_> {
        self.dialect.storage(self).unwrap_or_else(|| Box::new(FileStorage::new(self)))
    }
}

/// `undo` for a folder store: the record's before-images become the writes of a new plan.
fn undo_in_folder(storage: &FileStorage, store: &Store, by: &str, opts: &WriteOptions) -> Result<Applied, WriteError> {
    let state = State::for_store(&store.root, store.kind());
    let Some(record) = records(&state).pop() else { return Err(WriteError::NothingToUndo) };
    let mut plan = undo_plan(store, &state, &record, by)?;
    plan.event.at = opts.at;
    let applied = storage.apply(plan, opts)?;
    // The files the changeset created are gone again; so go the folders it made for them
    // (only those, and only when empty: a file someone put there since keeps its folder).
    for e in record.entries.iter().rev().filter(|e| e.before.is_none()) {
        e.remove_created_dirs(&store.root);
    }
    Ok(applied)
}

/// The plan that reverts `record` (what `undo` applies and its preview shows).
pub fn undo_plan(store: &Store, state: &State, record: &Record, by: &str) -> Result<Plan, WriteError> {
    let mut writes = Vec::new();
    for e in record.entries.iter().rev() {
        let before = match &e.before {
            Some(d) => Some(state.object(d).map_err(|err| WriteError::Io { path: e.path.clone(), err })?),
            None => None,
        };
        writes.push(Write { path: e.path.clone(), expected: e.after.clone(), after: before, role: e.role });
    }
    // After the files, so a crash between them rolls the files back with the ledger untouched.
    for tagged in state.changeset_tagged_files() {
        let rewrite = changeset_lines::without_changeset(&tagged, &record.id)
            .map_err(|err| WriteError::Io { path: tagged.display().to_string(), err })?;
        if let Some(l) = rewrite {
            let path = changeset::relative_to(&store.root, &l.path);
            writes.push(Write { path, expected: Some(l.expected), after: Some(l.bytes), role: Role::Ledger });
        }
    }
    let mut event = AuditEvent::new("undo", by, format!("undid {}: {}", record.verb, record.summary))
        .detail("undoes", record.id.clone());
    // The log as the changeset found and left it, for a format that takes its lines back out.
    if let Some(log) = &record.log {
        let text = |d: &Option<String>| match d {
            Some(d) => state.object(d).ok().map(|b| String::from_utf8_lossy(&b).into_owned()),
            None => Some(String::new()),
        };
        if let (Some(before), Some(after)) = (text(&log.before), text(&log.after)) {
            event.undone_log = Some(super::audit::UndoneLog { before, after });
        }
    }
    for (id, title, path) in undone_entities(store, state, record) {
        event = event.entity(&id, &title, &path);
    }
    Ok(Plan { writes, archived: Vec::new(), event, undoes: Some(record.id.clone()), then: None })
}

/// The entities an undo gives back, for its log line: those whose verdicts the changeset
/// carried (the ledger names them), then those whose files it touched.
fn undone_entities(
    store: &Store,
    state: &State,
    record: &super::journal::records::Record,
) -> Vec<(String, String, String)> {
    let mut ids: Vec<String> = std::fs::read_to_string(state.verdicts_path())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v.get("changeset").and_then(|c| c.as_str()) == Some(record.id.as_str()))
        .filter_map(|v| v.get("entity").and_then(|e| e.as_str()).map(str::to_string))
        .collect();
    let edited = record.entries.iter().filter(|e| e.role == Role::Edit);
    for e in edited {
        ids.extend(store.entities.iter().filter(|x| x.path == e.path).map(|x| x.id.clone()));
    }
    let mut out: Vec<(String, String, String)> = Vec::new();
    for id in ids {
        if out.iter().any(|(known, _, _)| *known == id) {
            continue;
        }
        let (title, path) = match store.find(&id).map(|i| store.entity(i)).filter(|e| e.id == id) {
            Some(e) => (e.title.clone(), e.path.clone()),
            None => (String::new(), String::new()),
        };
        out.push((id, title, path));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write::audit::AuditEvent;

    #[test]
    fn a_folder_store_reads_applies_and_undoes_through_the_seam() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let storage: Box<dyn Storage + '_> = store.storage();
        assert_eq!(storage.read("a.md").unwrap(), b"# A\n");
        let write = |path: &str, expected: Option<&[u8]>, after: &[u8]| Write {
            path: path.into(),
            expected: expected.map(digest::of),
            after: Some(after.to_vec()),
            role: Role::Edit,
        };
        let writes = vec![write("a.md", Some(b"# A\n"), b"# A2\n"), write("new/b.md", None, b"# B\n")];
        let event = AuditEvent::new("set", "human:ann", "two files");
        let plan = Plan { writes, archived: Vec::new(), event, undoes: None, then: None };
        let applied = storage.apply(plan, &WriteOptions::default()).unwrap();
        assert_eq!(applied.files, ["a.md", "new/b.md"]);
        assert_eq!(storage.read("new/b.md").unwrap(), b"# B\n");
        storage.undo("human:ann", &WriteOptions::default()).unwrap();
        assert_eq!(storage.read("a.md").unwrap(), b"# A\n");
        assert!(!dir.path().join("new").exists(), "the folder the plan created went with it");
    }

    #[test]
    fn a_plan_with_one_path_outside_writes_nothing() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("store");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.md"), "# A\n").unwrap();
        let store = Store::load(&root, crate::store::dialect::vault::KIND, "test".into());
        let inside = Write { path: "b.md".into(), expected: None, after: Some(b"x".to_vec()), role: Role::Edit };
        let outside = Write { path: "../c.md".into(), ..inside.clone() };
        let plan = Plan {
            writes: vec![inside, outside],
            archived: vec![("a.md".into(), digest::of(b"# A\n"))],
            event: AuditEvent::new("set", "human:ann", "escape"),
            undoes: None,
            then: None,
        };
        let err = store.storage().apply(plan, &WriteOptions::default()).unwrap_err();
        assert!(matches!(&err, WriteError::Outside(m) if m.starts_with("../c.md: ")), "{err}");
        let left: Vec<_> = std::fs::read_dir(t.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, ["store"]);
        let in_root: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(in_root, ["a.md"], "no archive copy, no state folder, no b.md");
    }
}
