//! Everything that can happen to the UI: input from the terminal and results posted back by
//! the workers (loading, watching, reading, highlighting, the clipboard).
use std::path::PathBuf;

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use folio_core::store::Store;
use folio_core::store::keep::refresh::RefreshReport;

use super::model::{Body, FindingContext};
use crate::app::graph::neighbourhood::GraphLayout;
use folio_core::store::lint::{Finding, Linted};

/// What a write of folio's own did (lint fixes, a restore): the message, the files to reload
/// and the digests of every file it wrote (so the watcher's echo of them stays quiet).
pub type Written = (String, Vec<PathBuf>, Vec<super::platform::own_writes::Fingerprint>);

/// A loaded store and its catalog tree for the default filter, built on the loading thread
/// (a large store's tree takes too long for the UI thread: docs/benchmarks.md, "TUI figures").
pub struct LoadedStore {
    pub store: std::sync::Arc<Store>,
    pub tree: folio_core::store::read::tree::Group,
}

pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Bracketed paste: typed into the filter or overlay when one takes text.
    Paste(String),
    /// The store finished loading, or could not be opened (the message names the path).
    Loaded(Result<Box<LoadedStore>, String>),
    /// The folder holds several stores side by side (a folder of OKF bundles): one is to be
    /// chosen (`what` names them, "OKF bundles").
    ChooseStore {
        what: String,
        names: Vec<String>,
    },
    /// The watcher saw these paths change.
    FilesChanged(Vec<PathBuf>),
    /// A store opened from the persistent cache was checked against its files: these changed
    /// since the snapshot (re-read like `FilesChanged`, then the cache is rewritten).
    /// The files a cached store's check found changed, when the check began, and the snapshot
    /// the store was decoded from, noted for the cache's rewrite (`Earlier::noted_for`).
    CacheChecked(
        Vec<PathBuf>,
        std::time::SystemTime,
        Option<std::sync::Arc<folio_core::store::keep::cache::codec::Earlier>>,
    ),
    /// A refreshed copy of the store, with what changed and the digest of each file it found
    /// changed (to tell folio's own writes from outside ones).
    /// The store's catalog tree comes along when the job found it changed (`tree::built::beside`).
    Refreshed(
        Box<Store>,
        RefreshReport,
        Vec<super::platform::own_writes::Fingerprint>,
        Option<Box<super::tree::built::BuiltTree>>,
    ),
    /// The catalog tree asked for by a filter or sort (`Job::BuildTree`), of that store.
    TreeBuilt(std::sync::Arc<Store>, Box<super::tree::built::BuiltTree>),
    /// The body of the entity at `path` was read and parsed.
    BodyRead {
        path: String,
        body: Result<Body, String>,
    },
    /// A code block finished highlighting.
    Highlighted,
    /// The clipboard took the text (`Ok(what)`) or could not (`Err(why)`).
    Copied(Result<String, String>),
    /// A review job finished (queue, detail, plan, write, editor).
    Review(super::review::jobs::Outcome),
    /// The recall matcher has new results to tick in.
    RecallUpdated,
    /// The store's recent recall queries, newest first.
    RecallHistory(Vec<String>),
    /// The text index of this store was built (or updated), for recall over the bodies.
    TextIndexed(std::sync::Arc<Store>, std::sync::Arc<folio_core::recall::text::TextRecall>),
    /// The lint engine finished a pass over this store (or its config could not be read).
    Linted(Result<(std::sync::Arc<Store>, Box<Linted>), String>),
    /// An ignore was added to or removed from the store's config (what was done), or refused.
    IgnoreChanged(Result<String, String>),
    /// The neighbourhood of `center` laid out for the graph canvas.
    GraphLaid(std::sync::Arc<GraphLayout>),
    /// The versions of the open entity that the read numbered `asked` has found so far (no
    /// contents, summaries or blame yet); its `HistoryRead` follows.
    HistoryFound {
        asked: u64,
        data: std::sync::Arc<super::history::HistoryData>,
    },
    /// The history the read numbered `asked` found (versions and blame), or why not.
    HistoryRead {
        asked: u64,
        data: Result<std::sync::Arc<super::history::HistoryData>, String>,
    },
    /// What restoring a version would write (title, diff, the changeset), or why it cannot.
    RestorePreview(Result<(String, Vec<String>, Box<folio_core::store::write::changeset::Changeset>), String>),
    /// The lines around a finding, for the lint panel.
    ContextRead(Result<FindingContext, String>),
    /// The diff a fix would make, to confirm.
    FixPreview(Result<(String, Vec<String>, Vec<Finding>), String>),
    /// Fixes were written (what, and the files to reload) or refused.
    FixesApplied(Result<Written, String>),
    /// A graph export was written to this path, or failed.
    Exported(Result<String, String>),
}

impl Event {
    /// A short name for logs (the frame log's trigger column).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Key(_) => "key",
            Event::Mouse(_) => "mouse",
            Event::Resize(..) => "resize",
            Event::Paste(_) => "paste",
            Event::Loaded(_) => "loaded",
            Event::ChooseStore { .. } => "choose_store",
            Event::FilesChanged(_) => "files-changed",
            Event::CacheChecked(..) => "cache-checked",
            Event::Refreshed(..) => "refreshed",
            Event::TreeBuilt(..) => "tree-built",
            Event::BodyRead { .. } => "body-read",
            Event::Highlighted => "highlighted",
            Event::Copied(_) => "copied",
            Event::Review(o) => o.kind(),
            Event::RecallUpdated => "recall-updated",
            Event::RecallHistory(_) => "recall-history",
            Event::TextIndexed(..) => "text-indexed",
            Event::Linted(_) => "linted",
            Event::GraphLaid(_) => "graph-laid",
            Event::HistoryFound { .. } => "history-found",
            Event::HistoryRead { .. } => "history-read",
            Event::RestorePreview(_) => "restore-preview",
            Event::ContextRead(_) => "context-read",
            Event::FixPreview(_) => "fix-preview",
            Event::FixesApplied(_) => "fixes-applied",
            Event::Exported(_) => "exported",
            Event::IgnoreChanged(_) => "ignore-changed",
        }
    }
}
