//! Every entity's past (issue 20): the versions of its file in git, following renames, the
//! uncommitted change on disk, and the events the store's own log and folio's journal record
//! about it — merged newest first. `blame` attributes each line to the version that brought it,
//! `restore` turns a past version into an ordinary folio write.
//!
//! Reading never writes to the repository; a store outside any repository has its current file
//! and its log events only.
use serde::Serialize;

use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::model::timestamp;
use crate::store::review::diff::{self as word_diff, Op};

mod assemble;
pub mod attribution;
pub mod blame;
pub mod events;
pub mod git;
mod git_error;
pub mod line_diff;
pub mod lines;
mod objects;
pub mod own_change;
pub mod restore;
pub mod summary;

pub use git::GitError;

/// Where a version comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A commit that touched the file.
    Commit,
    /// The file on disk: not committed yet, or the store is in no repository.
    Worktree,
    /// An event in the store's log or folio's journal that names the entity.
    Log,
}

/// One version of an entity, or one event about it.
#[derive(Debug, Clone, Serialize)]
pub struct Version {
    /// How to name it: a commit's 7-digit prefix, `worktree`, or `LOGFILE:LINE`.
    pub rev: String,
    pub source: Source,
    /// The full commit id.
    pub commit: Option<String>,
    /// RFC 3339 in UTC for commits and the file on disk; as the log wrote it for events.
    pub when: Option<String>,
    #[serde(skip)]
    pub unix: Option<i64>,
    /// Who the version is credited to: the commit's author, the actor an event names, or, for
    /// the file on disk, the person folio's journal says wrote it (`own_change`).
    pub author: Option<String>,
    pub email: Option<String>,
    /// Who the entity's own frontmatter says wrote this version (`generated.by`, `author`, …).
    pub agent: Option<String>,
    /// The file's path in this version, relative to the store root.
    pub path: Option<String>,
    /// `added`, `modified`, `renamed`, `deleted`; `event` for an event.
    pub status: String,
    /// An event's type (`set`, `approve`, `ingest`, …) and where it is logged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub renamed_from: Option<String>,
    /// The commit's subject, or the event in one line.
    pub subject: String,
    /// Against the previous version with content: fields that changed, lines added and removed.
    pub fields_changed: Vec<String>,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// The file's bytes in this version (None: an event, or a deletion).
    #[serde(skip)]
    pub bytes: Option<Vec<u8>>,
    /// Its git object id, when git holds it.
    #[serde(skip)]
    pub object: Option<String>,
    /// The objects of the file in the versions this one was made from (each parent commit's; for
    /// the file on disk, HEAD's; None in the list: absent there). None: not known (no git), so
    /// blame takes the previous version.
    #[serde(skip)]
    pub parents: Option<Vec<Option<String>>>,
}

impl Version {
    /// Whether the version holds the file's content (commits and the file on disk, not deletions).
    pub fn has_content(&self) -> bool {
        self.bytes.is_some()
    }

    /// One line: `title, tags; +3 -1` for a version, the event in words for an event.
    pub fn change_line(&self) -> String {
        if self.source == Source::Log {
            return self.subject.clone();
        }
        summary::Summary { fields: self.fields_changed.clone(), added: self.lines_added, removed: self.lines_removed }
            .line()
    }

    /// The version as a report made while reading lists it: without its content.
    fn without_content(&self) -> Version {
        Version { bytes: None, ..self.clone() }
    }

    pub fn text(&self) -> String {
        self.bytes.as_deref().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default()
    }
}

/// An entity's past, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub id: String,
    /// The file now (or, for a deleted entity, where it last was), relative to the store root.
    pub path: String,
    /// Whether the store lies in a git repository, and where in it.
    pub git: bool,
    /// The store root within the repository (`""` at its top).
    pub prefix: Option<String>,
    /// A shallow clone: history stops at its boundary.
    pub shallow: bool,
    pub versions: Vec<Version>,
    /// False in a report made while reading: the versions found so far, without their content
    /// and summaries (no events yet); true in the answer.
    #[serde(skip)]
    pub complete: bool,
}

impl History {
    /// The version a rev names: exact (`worktree`, `log.md:12`) or a commit id's prefix (4+
    /// digits) that only one version has.
    pub fn find(&self, rev: &str) -> Result<usize, String> {
        if let Some(i) = self.versions.iter().position(|v| v.rev == rev) {
            return Ok(i);
        }
        let rev_l = rev.to_ascii_lowercase();
        let hits: Vec<usize> = (0..self.versions.len())
            .filter(|&i| rev_l.len() >= 4 && self.versions[i].commit.as_deref().is_some_and(|c| c.starts_with(&rev_l)))
            .collect();
        match hits.as_slice() {
            [one] => Ok(*one),
            [] => Err(format!("no version `{rev}` in the history of {}", self.id)),
            _ => Err(format!("`{rev}` names more than one version of {}; give more digits", self.id)),
        }
    }

    /// A word-level diff between two versions with content (`a` older, `b` newer, as given).
    pub fn diff(&self, a: &str, b: &str) -> Result<Vec<(Op, String)>, String> {
        let (ia, ib) = (self.find(a)?, self.find(b)?);
        for i in [ia, ib] {
            let v = &self.versions[i];
            if v.source == Source::Log {
                return Err(format!("`{}` is a log event; it records no content to compare", v.rev));
            }
        }
        Ok(word_diff::words(&self.versions[ia].text(), &self.versions[ib].text()))
    }
}

/// The history of one entity of the store.
pub fn of_entity(store: &Store, idx: EntityIdx) -> Result<History, GitError> {
    of_entity_reporting(store, idx, None)
}

/// What a reading history reports before its answer: the versions found so far.
pub struct Progress<'a> {
    /// Once the first version is found, then at most this often, and once the walk is done.
    pub every: std::time::Duration,
    pub report: &'a mut dyn FnMut(History),
}

/// `of_entity`, reporting the versions found so far as the walk through the commits finds them
/// (the pane shows them while the contents are read and summarised).
pub fn of_entity_reporting(store: &Store, idx: EntityIdx, progress: Option<Progress>) -> Result<History, GitError> {
    let e = store.entity(idx);
    build(store, Some(&e.id), &e.path, progress, None)
}

/// `of_entity`, handing each version to `emit`, finished (contents, summary) and in the
/// answer's order, as soon as the walk has found the next older one: `folio history` prints
/// them as they come. The answer lists exactly what was emitted.
pub fn of_entity_streaming(store: &Store, idx: EntityIdx, emit: &mut dyn FnMut(&Version)) -> Result<History, GitError> {
    let e = store.entity(idx);
    build(store, Some(&e.id), &e.path, None, Some(emit))
}

/// The history of a file that may no longer exist (a deleted entity), by its path relative to
/// the store root; its id is what the format reads from its newest version.
pub fn of_file(store: &Store, rel: &str) -> Result<History, GitError> {
    build(store, None, rel, None, None)
}

/// The id the store's format gives the file `rel` holding `bytes` (its first entity's).
fn id_of(store: &Store, rel: &str, bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let lines = crate::store::model::lines::LineIndex::new(&text);
    let file = crate::store::dialect::SourceFile { rel, text: &text, lines: &lines, problems: &[], parseable: true };
    store.dialect.parse(&file).into_iter().next().map(|e| e.id)
}

/// Files the store's git history deleted and that are gone still, newest deletion first.
pub fn deleted(store: &Store) -> Result<Vec<git::DeletedFile>, GitError> {
    let Some(repo) = git::open(&store.root)? else { return Ok(Vec::new()) };
    Ok(repo.deleted()?.into_iter().filter(|d| !store.abs_path(&d.path).exists()).collect())
}

fn short(id: &gix::ObjectId) -> String {
    id.to_hex_with_len(7).to_string()
}

fn iso(unix: i64) -> Option<String> {
    time::OffsetDateTime::from_unix_timestamp(unix).ok().map(timestamp::iso)
}

fn commit_version(fc: &git::FileCommit) -> Version {
    Version {
        rev: short(&fc.commit.id),
        source: Source::Commit,
        commit: Some(fc.commit.id.to_string()),
        when: iso(fc.commit.time),
        unix: Some(fc.commit.time),
        author: Some(fc.commit.author.clone()),
        email: Some(fc.commit.email.clone()),
        agent: None,
        path: Some(fc.path.clone()),
        status: fc.change.word().to_string(),
        kind: None,
        log: None,
        line: None,
        renamed_from: match &fc.change {
            git::Change::Renamed(from) => Some(from.clone()),
            _ => None,
        },
        subject: fc.commit.subject.clone(),
        fields_changed: Vec::new(),
        lines_added: 0,
        lines_removed: 0,
        bytes: None,
        object: fc.blob.map(|b| b.to_string()),
        parents: Some(fc.parents.iter().map(|p| p.map(|b| b.to_string())).collect()),
    }
}

fn build(
    store: &Store,
    id: Option<&str>,
    path: &str,
    mut progress: Option<Progress>,
    emit: Option<&mut dyn FnMut(&Version)>,
) -> Result<History, GitError> {
    let repo = git::open(&store.root)?;
    let on_disk = store.storage().read(path).ok();
    let shell = |versions: Vec<Version>, id: String, complete: bool| History {
        id,
        path: path.to_string(),
        git: repo.is_some(),
        prefix: repo.as_ref().map(|r| r.prefix().trim_end_matches('/').to_string()),
        shallow: repo.as_ref().is_some_and(git::Repo::is_shallow),
        versions,
        complete,
    };
    let stem = || path.strip_suffix(".md").unwrap_or(path).to_string();
    // Versions streamed to `emit` are finished during the walk (each commit's content read as it
    // is found); otherwise the walk lists them first and the contents are read after it.
    let streaming = emit.is_some();
    let mut asm = assemble::Assembler::new(store, path, id.map(str::to_string), emit);
    if let Some(repo) = &repo {
        let head_blob = repo.head_blob(path)?;
        let head = match head_blob {
            Some(b) => Some(repo.read(b)?),
            None => None,
        };
        let mut listed: Vec<Version> = Vec::new();
        if on_disk != head {
            let status = match (&on_disk, &head) {
                (None, _) => "deleted",
                (Some(_), None) => "added",
                _ => "modified",
            };
            let mut v = worktree(store, path, on_disk.clone(), status, "uncommitted change");
            v.parents = Some(vec![head_blob.map(|b| b.to_string())]);
            listed.push(v);
        }
        drop(head);
        if streaming {
            listed.drain(..).for_each(|v| asm.push(v));
        }
        let mut last: Option<std::time::Instant> = None;
        let mut found = |fc: &git::FileCommit| -> Result<(), GitError> {
            let mut v = commit_version(fc);
            if streaming {
                v.bytes = fc.blob.map(|b| repo.read(b)).transpose()?;
                asm.push(v);
                return Ok(());
            }
            listed.push(v);
            if let Some(p) = progress.as_mut()
                && last.is_none_or(|t| t.elapsed() >= p.every)
            {
                let partial: Vec<Version> = listed.iter().map(Version::without_content).collect();
                (p.report)(shell(partial, id.map_or_else(stem, str::to_string), false));
                last = Some(std::time::Instant::now());
            }
            Ok(())
        };
        repo.file_history(path, &mut found)?;
        if let Some(p) = progress.as_mut() {
            let partial: Vec<Version> = listed.iter().map(Version::without_content).collect();
            (p.report)(shell(partial, id.map_or_else(stem, str::to_string), false));
        }
        for mut v in listed {
            if v.source == Source::Commit
                && let Some(object) = &v.object
            {
                let oid = gix::ObjectId::from_hex(object.as_bytes()).map_err(|e| GitError(e.to_string()))?;
                v.bytes = Some(repo.read(oid)?);
            }
            asm.push(v);
        }
    } else if on_disk.is_some() {
        asm.push(worktree(store, path, on_disk, "current", "the file on disk (the store is not in git)"));
    }
    let (id, versions) = asm.finish();
    Ok(shell(versions, id, true))
}

fn worktree(store: &Store, path: &str, bytes: Option<Vec<u8>>, status: &str, subject: &str) -> Version {
    let unix = std::fs::metadata(store.abs_path(path))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    // Git names nobody for it; folio's journal names the person when the change was folio's.
    let author = bytes.as_deref().and_then(|b| own_change::author(store, path, b));
    Version {
        rev: "worktree".into(),
        source: Source::Worktree,
        commit: None,
        when: unix.and_then(iso),
        unix,
        author,
        email: None,
        agent: None,
        path: Some(path.to_string()),
        status: status.into(),
        kind: None,
        log: None,
        line: None,
        renamed_from: None,
        subject: subject.into(),
        fields_changed: Vec::new(),
        lines_added: 0,
        lines_removed: 0,
        bytes,
        object: None,
        parents: None,
    }
}

fn event(e: &crate::store::model::history::HistoryEvent) -> Version {
    Version {
        rev: format!("{}:{}", e.path, e.line),
        source: Source::Log,
        commit: None,
        when: e.ts.clone(),
        unix: events::unix_time(e),
        author: events::actor(e),
        email: None,
        agent: None,
        path: None,
        status: "event".into(),
        kind: Some(e.kind.clone()),
        log: Some(e.path.clone()),
        line: Some(e.line),
        renamed_from: None,
        subject: events::describe(e),
        fields_changed: Vec::new(),
        lines_added: 0,
        lines_removed: 0,
        bytes: None,
        object: None,
        parents: None,
    }
}
