//! Everything that can happen to the UI: input from the terminal and results posted back by
//! the workers (loading, watching, reading, highlighting, the clipboard).
use std::path::PathBuf;

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::store::Store;
use crate::store::refresh::RefreshReport;

use super::model::Body;

pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Bracketed paste: typed into the filter or overlay when one takes text.
    Paste(String),
    /// The store finished loading, or could not be opened (the message names the path).
    Loaded(Result<Box<Store>, String>),
    /// The watcher saw these paths change.
    FilesChanged(Vec<PathBuf>),
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
}
