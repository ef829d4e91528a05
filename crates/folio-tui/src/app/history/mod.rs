//! The history pane: the open entity's versions (git, the store's log) and the blame of its
//! lines. `update` asks for them and moves through them; `jobs` read them and write a restore.
//! This file: the pane's state and how many rows its list pages by.
pub mod jobs;
pub mod update;

use std::sync::Arc;

use ratatui::layout::Rect;

/// An entity's history as a worker read it: its versions and the blame of its newest content.
#[derive(Debug, Clone)]
pub struct HistoryData {
    pub history: folio_core::store::history::History,
    pub blame: Vec<folio_core::store::history::blame::Line>,
}

/// The history pane's state.
#[derive(Debug, Clone, Default)]
pub struct HistoryView {
    /// The file the history is of (or is being read for)…
    pub path: String,
    /// …and the entity: a file can hold several (an awareness home's long-term memory), each
    /// with the log events that name it.
    pub id: String,
    /// `None` while a worker reads it; `Err` says why it could not be read.
    pub data: Option<Result<Arc<HistoryData>, String>>,
    /// Row in the versions list (or, in blame, the first line shown).
    pub cursor: usize,
    /// A version marked to compare the selected one with (`m`); else the one before it.
    pub marked: Option<usize>,
    /// Show the blame instead of the versions.
    pub blame: bool,
    /// A worker is reading it (what was read before stays shown meanwhile).
    pub reading: bool,
}

/// The list's share of the pane in the versions view (the diff takes the rest).
pub const LIST_PERCENT: u16 = 40;

/// Rows of the list that fit in a pane of `area` (for paging).
pub fn page_rows(area: Rect, blame: bool) -> usize {
    let inner = area.height.saturating_sub(2);
    let rows = if blame { inner } else { inner * LIST_PERCENT / 100 };
    usize::from(rows.max(1))
}
