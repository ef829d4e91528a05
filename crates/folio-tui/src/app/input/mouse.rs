//! The mouse (when turned on): a click focuses a pane and selects a catalog row; the wheel moves
//! the catalog cursor, the graph or lint list, or scrolls the preview; a drag of the catalog's
//! border (or, in the review inbox, of its list's) sizes it.
use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::layout;
use crate::app::model::{Model, Pane, Row};
use crate::app::reader::update::scroll_preview_to;
use crate::app::tree::update::{open_selected, select_row, set_cursor};
use crate::app::update::action;

/// Lines the mouse wheel scrolls.
const WHEEL: usize = 3;

/// A click or a wheel turn (only while mouse support is on).
pub fn input(model: &mut Model, m: MouseEvent) -> Vec<Job> {
    let Some(p) = layout::panes(Rect::new(0, 0, model.size.0, model.size.1), model.sidebar) else { return Vec::new() };
    if !model.overlays.is_empty() {
        return Vec::new();
    }
    if model.review.open
        && let Some(jobs) = drag_inbox_list(model, m, p.tree.union(p.preview))
    {
        return jobs;
    }
    // The catalog's right border is a handle: press on it and drag.
    let on_border = m.column + 1 == p.tree.x + p.tree.width && m.row < p.tree.y + p.tree.height;
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) if on_border => {
            model.dragging_sidebar = true;
            return Vec::new();
        }
        MouseEventKind::Drag(MouseButton::Left) if model.dragging_sidebar => {
            let width = u32::from(model.size.0.max(1));
            let percent = ((u32::from(m.column) + 1) * 100 + width / 2) / width;
            model.sidebar = crate::app::settings::sidebar::clamp(percent as u16);
            return Vec::new();
        }
        MouseEventKind::Up(MouseButton::Left) if model.dragging_sidebar => {
            model.dragging_sidebar = false;
            return set_sidebar(model, model.sidebar);
        }
        _ => {}
    }
    let at = Position::new(m.column, m.row);
    let pane = if p.tree.contains(at) {
        Pane::Tree
    } else if p.preview.contains(at) {
        model.main
    } else {
        return Vec::new();
    };
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) => {
            model.focus = pane;
            let rows = layout::tree_rows(p.tree);
            if pane == Pane::Tree && rows.contains(at) {
                let row = model.catalog_scroll + (m.row - rows.y) as usize;
                if row < model.rows.len() {
                    set_cursor(model, row);
                    return match model.rows[row] {
                        Row::Group { .. } => open_selected(model),
                        Row::Entity { .. } => select_row(model, row),
                    };
                }
            }
            Vec::new()
        }
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            let down = m.kind == MouseEventKind::ScrollDown;
            match pane {
                Pane::Tree => {
                    let last = model.rows.len().saturating_sub(1);
                    let to = if down { (model.cursor + WHEEL).min(last) } else { model.cursor.saturating_sub(WHEEL) };
                    return select_row(model, to);
                }
                Pane::History => return crate::app::history::update::wheel(model, p.preview, m.row, down),
                Pane::Graph | Pane::Lint => {
                    let a = if down { Action::Down } else { Action::Up };
                    return action(model, a);
                }
                Pane::Preview => {
                    let cur = model.preview.as_ref().map(|p| p.scroll).unwrap_or(0);
                    scroll_preview_to(model, if down { cur + WHEEL } else { cur.saturating_sub(WHEEL) });
                }
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// In the review inbox the list's right border is the handle (over `area`, the inbox): press on
/// it and drag to size the list; None when the event is not such a drag.
fn drag_inbox_list(model: &mut Model, m: MouseEvent, area: Rect) -> Option<Vec<Job>> {
    let (list, _) = layout::inbox_split(area, model.review.list_width);
    let on_border = m.column + 1 == list.x + list.width && m.row < list.y + list.height;
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) if on_border => model.dragging_sidebar = true,
        MouseEventKind::Drag(MouseButton::Left) if model.dragging_sidebar => {
            let width = u32::from(area.width.max(1));
            let percent = ((u32::from(m.column.saturating_sub(area.x)) + 1) * 100 + width / 2) / width;
            model.review.list_width = crate::app::settings::sidebar::clamp(percent as u16);
        }
        MouseEventKind::Up(MouseButton::Left) if model.dragging_sidebar => {
            model.dragging_sidebar = false;
            return Some(match &model.state_dir {
                Some(state) => vec![Job::RememberSidebar {
                    file: crate::app::settings::sidebar::inbox_file(state),
                    percent: model.review.list_width,
                }],
                None => Vec::new(),
            });
        }
        _ => return None,
    }
    Some(Vec::new())
}

/// Set the catalog's width (percent, clamped), and remember it for the next run.
pub fn set_sidebar(model: &mut Model, percent: u16) -> Vec<Job> {
    model.sidebar = crate::app::settings::sidebar::clamp(percent);
    crate::app::tree::update::clamp_scrolls(model);
    match &model.state_dir {
        Some(state) => {
            vec![Job::RememberSidebar { file: crate::app::settings::sidebar::file(state), percent: model.sidebar }]
        }
        None => Vec::new(),
    }
}
