//! The history pane: the open entity's versions (git, the store's log) and the blame of its
//! lines. `update` asks for them and moves through them; `jobs` read them and write a restore;
//! `diff` compares the selected version with its base, line by line.
//! This file: the pane's state and its geometry (how many rows its list and its diff page by).
pub mod diff;
pub mod jobs;
pub mod update;

use std::sync::Arc;

use ratatui::layout::{Constraint, Layout, Rect};

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
    /// The number of the newest read asked for: reads run side by side (an agent's edit and a
    /// restore each ask), and an older one's answer arriving last would show a stale history.
    pub asked: u64,
    /// The selected version compared with its base (None: an event, or contents not read yet).
    pub diff: Option<Arc<diff::Compared>>,
    /// The first line of the comparison shown: set to the first change whenever another pair of
    /// versions is compared, then moved by the diff's own keys.
    pub scroll: usize,
}

/// The most of the pane the list takes in the versions view (the diff takes the rest; a list
/// of fewer versions takes only their rows).
pub const LIST_PERCENT: u16 = 40;

/// Columns of a comparison line's gutter: its old and new numbers and its sign (`  12   12 + `).
pub const GUTTER: usize = 12;

/// Rows above the comparison's lines: a rule and the `base → version` heading.
pub const DIFF_HEAD: u16 = 2;

/// The versions view's list of `versions` rows and the comparison, within the pane's inner area.
pub fn split(inner: Rect, versions: usize) -> [Rect; 2] {
    let most = inner.height * LIST_PERCENT / 100;
    let list = u16::try_from(versions).unwrap_or(u16::MAX).clamp(1, most.max(1));
    Layout::vertical([Constraint::Length(list), Constraint::Min(1)]).areas::<2>(inner)
}

/// The pane's inner area (inside its border).
fn inner(area: Rect) -> Rect {
    Rect::new(area.x + 1, area.y + 1, area.width.saturating_sub(2), area.height.saturating_sub(2))
}

/// Rows of the list that fit in a pane of `area` (for paging).
pub fn page_rows(area: Rect, blame: bool, versions: usize) -> usize {
    let rows = if blame { inner(area).height } else { split(inner(area), versions)[0].height };
    usize::from(rows.max(1))
}

/// Rows of the comparison that fit in a pane of `area` (for paging the diff).
pub fn diff_rows(area: Rect, versions: usize) -> usize {
    usize::from(split(inner(area), versions)[1].height.saturating_sub(DIFF_HEAD).max(1))
}
