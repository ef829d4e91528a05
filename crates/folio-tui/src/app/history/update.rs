//! The history pane in the update loop: ask a worker for the open entity's history when the
//! pane opens, the open entity changes or the store is re-read (a restore or an agent's edit is
//! a new version); show the versions it reports as it finds them until its answer comes; move
//! through versions or blamed lines; mark a version to compare with; scroll the comparison
//! (which opens at its first change) and jump from change to change. The versions and blame
//! come from the worker; nothing here reads a file.
use std::sync::Arc;

use ratatui::layout::Rect;

use super::HistoryData;
use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::layout;
use crate::app::model::{Message, Model, Overlay, Pane};
use folio_core::store::write::changeset::Changeset;

/// Open the pane on the versions (`blame`: on the blamed lines).
pub fn focus(model: &mut Model, blame: bool) -> Vec<Job> {
    model.main = Pane::History;
    model.focus = Pane::History;
    if model.history.blame != blame {
        model.history.blame = blame;
        model.history.cursor = 0;
    }
    let jobs = request(model, false);
    sync(model);
    jobs
}

/// Ask for the open entity's history unless the one held is its own (`again`: read anew).
fn request(model: &mut Model, again: bool) -> Vec<Job> {
    let (Some(store), Some(idx)) = (model.store.clone(), model.open_entity()) else { return Vec::new() };
    if model.main != Pane::History {
        return Vec::new();
    }
    let (path, id) = (store.entity(idx).path.clone(), store.entity(idx).id.clone());
    let h = &mut model.history;
    if h.path != path || h.id != id {
        *h = super::HistoryView { path, id, blame: h.blame, asked: h.asked, ..Default::default() };
    } else if h.data.is_some() && !again {
        return Vec::new();
    }
    h.reading = true;
    h.asked += 1;
    vec![Job::ReadHistory { store, idx, asked: h.asked }]
}

/// The open entity changed (a link followed, a catalog row opened).
pub fn entity_changed(model: &mut Model) -> Vec<Job> {
    request(model, false)
}

/// The store was re-read: the open entity's file may have a new version.
pub fn reread(model: &mut Model) -> Vec<Job> {
    request(model, true)
}

/// The versions a worker has found so far. Shown while nothing complete is held for the file:
/// an answer read before (the history before an edit) stays until the new one is whole.
pub fn found(model: &mut Model, asked: u64, data: Arc<HistoryData>) -> Vec<Job> {
    let h = &mut model.history;
    let complete_held = matches!(&h.data, Some(Ok(d)) if d.history.complete);
    if h.asked != asked || !h.reading || complete_held {
        return Vec::new();
    }
    show(model, Ok(data));
    Vec::new()
}

/// A worker's answer; one to a read asked before the newest (of an entity no longer open, or of
/// the file before a later change) is dropped.
pub fn read(model: &mut Model, asked: u64, data: Result<Arc<HistoryData>, String>) -> Vec<Job> {
    let h = &mut model.history;
    if h.asked != asked {
        return Vec::new();
    }
    h.reading = false;
    if let Err(e) = &data {
        model.message = Some(Message { text: format!("history: {e}"), warn: true });
    }
    show(model, data);
    Vec::new()
}

/// The rev of the version at row `i` of what is shown (versions view).
fn rev_at(data: &Option<Result<Arc<HistoryData>, String>>, i: usize) -> Option<String> {
    match data {
        Some(Ok(d)) => d.history.versions.get(i).map(|v| v.rev.clone()),
        _ => None,
    }
}

/// Show `data`; in the versions view the selected and marked versions stay selected and marked
/// (the answer merges log events between the versions reported before it).
fn show(model: &mut Model, data: Result<Arc<HistoryData>, String>) {
    let h = &mut model.history;
    let keep = (!h.blame).then(|| (rev_at(&h.data, h.cursor), h.marked.and_then(|m| rev_at(&h.data, m))));
    h.data = Some(data);
    if let (Some((cursor, marked)), Some(Ok(d))) = (keep, &h.data) {
        let at = |rev: Option<String>| rev.and_then(|r| d.history.versions.iter().position(|v| v.rev == r));
        if let Some(i) = at(cursor) {
            h.cursor = i;
        }
        h.marked = h.marked.and(at(marked));
    }
    let n = len(model);
    let h = &mut model.history;
    h.cursor = h.cursor.min(n.saturating_sub(1));
    if h.marked.is_some_and(|m| m >= n) {
        h.marked = None;
    }
    sync(model);
}

/// Compare what is selected now (a new pair opens at its first change, in this pane's room).
fn sync(model: &mut Model) {
    let (rows, width) = (diff_page(model), diff_width(model));
    super::diff::sync(&mut model.history, super::diff::Room { rows, width });
}

/// Columns a line of the comparison wraps at: the pane's inside less the line numbers.
fn diff_width(model: &Model) -> usize {
    layout::panes(Rect::new(0, 0, model.size.0, model.size.1), model.sidebar)
        .map(|p| usize::from(p.preview.width.saturating_sub(2)).saturating_sub(super::GUTTER))
        .unwrap_or(1)
}

/// Versions in the list (what the pane's geometry depends on).
fn versions(model: &Model) -> usize {
    match &model.history.data {
        Some(Ok(d)) => d.history.versions.len(),
        _ => 0,
    }
}

/// Rows in the list shown: versions, or blamed lines.
fn len(model: &Model) -> usize {
    match &model.history.data {
        Some(Ok(d)) if model.history.blame => d.blame.len(),
        Some(Ok(d)) => d.history.versions.len(),
        _ => 0,
    }
}

fn page(model: &Model) -> usize {
    layout::panes(Rect::new(0, 0, model.size.0, model.size.1), model.sidebar)
        .map(|p| super::page_rows(p.preview, model.history.blame, versions(model)))
        .unwrap_or(1)
}

/// Rows the comparison shows (what its page keys move by).
fn diff_page(model: &Model) -> usize {
    layout::panes(Rect::new(0, 0, model.size.0, model.size.1), model.sidebar)
        .map(|p| super::diff_rows(p.preview, versions(model)))
        .unwrap_or(1)
}

/// The history pane's actions, while it has the focus and no overlay is open. None: not its own.
pub fn handle(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    match a {
        Action::Down | Action::Up | Action::PageDown | Action::PageUp => Some(act(model, a)),
        Action::HalfPageDown | Action::HalfPageUp | Action::Top | Action::Bottom => Some(act(model, a)),
        Action::MarkVersion | Action::Blame | Action::RestoreVersion => Some(act(model, a)),
        Action::DiffDown | Action::DiffUp | Action::DiffPageDown | Action::DiffPageUp => Some(scroll(model, a)),
        Action::DiffHalfPageDown | Action::DiffHalfPageUp => Some(scroll(model, a)),
        Action::NextChange | Action::PrevChange => Some(scroll(model, a)),
        _ => None,
    }
}

/// The mouse wheel over the pane (`area`) at screen row `row`: over the versions' diff it
/// scrolls the diff a few lines, elsewhere it moves through the versions or blamed lines.
pub fn wheel(model: &mut Model, area: Rect, row: u16, down: bool) -> Vec<Job> {
    let inner = Rect::new(area.x + 1, area.y + 1, area.width.saturating_sub(2), area.height.saturating_sub(2));
    let diff = super::split(inner, versions(model))[1];
    if model.history.blame || row < diff.y || model.history.diff.is_none() {
        return act(model, if down { Action::Down } else { Action::Up });
    }
    let a = if down { Action::DiffDown } else { Action::DiffUp };
    (0..3).flat_map(|_| scroll(model, a)).collect()
}

/// The comparison's own keys. In blame, whose lines are the pane, they move through the lines.
fn scroll(model: &mut Model, a: Action) -> Vec<Job> {
    if model.history.blame {
        let list = match a {
            Action::DiffDown => Action::Down,
            Action::DiffUp => Action::Up,
            Action::DiffPageDown => Action::PageDown,
            Action::DiffPageUp => Action::PageUp,
            Action::DiffHalfPageDown => Action::HalfPageDown,
            Action::DiffHalfPageUp => Action::HalfPageUp,
            _ => return Vec::new(),
        };
        return act(model, list);
    }
    let rows = diff_page(model);
    let h = &mut model.history;
    let Some(d) = h.diff.clone() else { return Vec::new() };
    let at = h.scroll;
    let to = match a {
        Action::DiffDown => Some(at + 1),
        Action::DiffUp => Some(at.saturating_sub(1)),
        Action::DiffPageDown => Some(at + rows),
        Action::DiffPageUp => Some(at.saturating_sub(rows)),
        Action::DiffHalfPageDown => Some(at + rows.div_ceil(2)),
        Action::DiffHalfPageUp => Some(at.saturating_sub(rows.div_ceil(2))),
        Action::NextChange => d.next_change(at),
        Action::PrevChange => d.prev_change(at),
        _ => None,
    };
    match to {
        Some(to) => h.scroll = to.min(d.last()),
        None if d.changes.is_empty() => {
            model.message = Some(Message { text: "no change between these versions".into(), warn: false });
        }
        None => {
            let which = if a == Action::NextChange { "the last" } else { "the first" };
            model.message = Some(Message { text: format!("this is {which} change"), warn: false });
        }
    }
    Vec::new()
}

fn act(model: &mut Model, a: Action) -> Vec<Job> {
    let jobs = act_on_list(model, a);
    sync(model);
    jobs
}

fn act_on_list(model: &mut Model, a: Action) -> Vec<Job> {
    let (n, page) = (len(model), page(model));
    let h = &mut model.history;
    if let Some(to) = crate::app::paged_list::move_cursor(h.cursor, a, n, page) {
        h.cursor = to;
        return Vec::new();
    }
    match a {
        Action::Blame => {
            h.blame = !h.blame;
            h.cursor = 0;
        }
        Action::MarkVersion if !h.blame => {
            h.marked = if h.marked == Some(h.cursor) || n == 0 { None } else { Some(h.cursor) };
        }
        Action::RestoreVersion if !h.blame => return restore(model),
        _ => {}
    }
    Vec::new()
}

/// A worker computed the diff a restore would make: show it to confirm (the changeset travels
/// with the dialog, so what is confirmed is what was shown).
pub fn restore_previewed(model: &mut Model, (title, diff, cs): (String, Vec<String>, Box<Changeset>)) -> Vec<Job> {
    model.overlays.push(Overlay::Confirm {
        title,
        diff,
        scroll: 0,
        findings: Vec::new(),
        restore: Some(cs),
        second: None,
    });
    Vec::new()
}

/// `r` on a version: ask for the diff its restore would make (the confirm dialog shows it).
fn restore(model: &mut Model) -> Vec<Job> {
    let (Some(store), Some(idx)) = (model.store.clone(), model.open_entity()) else { return Vec::new() };
    let Some(Ok(data)) = &model.history.data else { return Vec::new() };
    if !data.history.complete {
        model.message =
            Some(Message { text: "the history is still being read: restore when it is".into(), warn: true });
        return Vec::new();
    }
    let Some(v) = data.history.versions.get(model.history.cursor) else { return Vec::new() };
    if !v.has_content() {
        let why = if v.source == folio_core::store::history::Source::Log {
            "a log event records no content to restore"
        } else {
            "this version deleted the file: restore the one before it"
        };
        model.message = Some(Message { text: why.into(), warn: true });
        return Vec::new();
    }
    // Who restores: the reviewer the session knows, else the default actor (as lint fixes do).
    let by = match model.review.actor.as_str() {
        crate::app::settings::reviewer::UNKNOWN => folio_core::store::write::audit::default_actor(),
        known => known.to_string(),
    };
    vec![Job::PreviewRestore { store, idx, rev: v.rev.clone(), by }]
}
