//! Everything that can happen to the UI: input from the terminal and results posted back by
//! the workers (loading, watching, reading, highlighting, the clipboard).
use std::path::PathBuf;

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::store::Store;
use crate::store::refresh::RefreshReport;

use super::model::{Body, FindingContext};
use crate::store::lint::{Finding, Report};
use crate::ui::graph::GraphLayout;

pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Bracketed paste: typed into the filter or overlay when one takes text.
    Paste(String),
    /// The store finished loading, or could not be opened (the message names the path).
    Loaded(Result<std::sync::Arc<Store>, String>),
    /// The watcher saw these paths change.
    FilesChanged(Vec<PathBuf>),
    /// A store opened from the persistent cache was checked against its files: these changed
    /// since the snapshot (re-read like `FilesChanged`, then the cache is rewritten).
    CacheChecked(Vec<PathBuf>),
    /// A refreshed copy of the store, with what changed.
    Refreshed(Box<Store>, RefreshReport),
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
    Review(super::review_jobs::Outcome),
    /// The recall matcher has new results to tick in.
    RecallUpdated,
    /// The store's recent recall queries, newest first.
    RecallHistory(Vec<String>),
    /// The lint engine finished a pass over the store (or its config could not be read).
    Linted(Result<Box<Report>, String>),
    /// The neighbourhood of `center` laid out for the graph canvas.
    GraphLaid(std::sync::Arc<GraphLayout>),
    /// The lines around a finding, for the lint panel.
    ContextRead(Result<FindingContext, String>),
    /// The diff a fix would make, to confirm.
    FixPreview(Result<(String, Vec<String>, Vec<Finding>), String>),
    /// Fixes were written (what, and the files to reload) or refused.
    FixesApplied(Result<(String, Vec<PathBuf>), String>),
    /// A graph export was written to this path, or failed.
    Exported(Result<String, String>),
}
