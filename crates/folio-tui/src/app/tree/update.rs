//! The catalog tree in the update loop: the rows flattened from the tree (groups open or
//! collapsed), the cursor and its scroll, the filter and sort rebuilds that keep the selection,
//! and the moves that page the catalog or scroll the preview.
use ratatui::layout::Rect;

use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::layout;
use crate::app::model::{Message, Model, Pane, Row};
use crate::app::reader::update::{open_entity, scroll_preview_to};
use crate::app::tree::built::BuiltTree;
use folio_core::store::read::tree::{self, Group, TreeFilter};

/// The catalog's actions: moving its cursor (or, from the preview, scrolling it), opening and
/// folding groups, the filter and the sort. They work from every pane whose own keys did not
/// take them. None: not the catalog's.
pub fn handle(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    match a {
        Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::HalfPageUp | Action::HalfPageDown => {
            return Some(move_by(model, a));
        }
        Action::Top if model.focus == Pane::Tree => return Some(select_row(model, 0)),
        Action::Bottom if model.focus == Pane::Tree => {
            return Some(select_row(model, model.rows.len().saturating_sub(1)));
        }
        Action::Expand => set_group_open(model, true),
        Action::Collapse => set_group_open(model, false),
        Action::Open => return Some(open_selected(model)),
        Action::Filter => {
            model.focus = Pane::Tree;
            model.filtering = true;
        }
        Action::ClearFilter => {
            model.filter.query.clear();
            model.refilter = true;
            return Some(refilter(model));
        }
        Action::CycleSort => {
            model.filter.sort = model.filter.sort.next();
            model.message = Some(Message { text: format!("sorted by {}", model.filter.sort.name()), warn: false });
            model.refilter = true;
            return Some(refilter(model));
        }
        _ => return None,
    }
    Some(Vec::new())
}

pub fn page(model: &Model) -> usize {
    let area = Rect::new(0, 0, model.size.0, model.size.1);
    let Some(p) = layout::panes(area, model.sidebar) else { return 1 };
    let h = match model.focus {
        Pane::Tree => layout::tree_rows(p.tree).height,
        _ => layout::preview_body(p.preview).height,
    };
    (h as usize).max(1)
}

pub fn move_by(model: &mut Model, a: Action) -> Vec<Job> {
    let page = page(model);
    let delta: isize = match a {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -(page as isize),
        Action::PageDown => page as isize,
        Action::HalfPageUp => -((page / 2).max(1) as isize),
        _ => (page / 2).max(1) as isize,
    };
    match model.focus {
        Pane::Tree => {
            let last = model.rows.len().saturating_sub(1);
            return select_row(model, model.cursor.saturating_add_signed(delta).min(last));
        }
        _ => {
            let to = model.preview.as_ref().map(|p| p.scroll).unwrap_or(0).saturating_add_signed(delta);
            scroll_preview_to(model, to);
        }
    }
    Vec::new()
}

/// Move the catalog cursor; the preview follows it onto entities (without a history entry).
pub fn select_row(model: &mut Model, to: usize) -> Vec<Job> {
    set_cursor(model, to);
    match model.selected_row() {
        Some(Row::Entity { idx, .. }) => {
            let idx = *idx;
            open_entity(model, idx, false)
        }
        _ => Vec::new(),
    }
}

pub fn set_cursor(model: &mut Model, to: usize) {
    model.cursor = to.min(model.rows.len().saturating_sub(1));
    clamp_scrolls(model);
}

/// Keep the catalog cursor visible and the preview scroll in range (after moves and resizes).
pub fn clamp_scrolls(model: &mut Model) {
    let rows_h = layout::panes(Rect::new(0, 0, model.size.0, model.size.1), model.sidebar)
        .map(|p| layout::tree_rows(p.tree).height as usize)
        .unwrap_or(1)
        .max(1);
    if model.cursor < model.catalog_scroll {
        model.catalog_scroll = model.cursor;
    } else if model.cursor >= model.catalog_scroll + rows_h {
        model.catalog_scroll = model.cursor + 1 - rows_h;
    }
    model.catalog_scroll = model.catalog_scroll.min(model.rows.len().saturating_sub(rows_h));
    let scroll = model.preview.as_ref().map(|p| p.scroll).unwrap_or(0);
    scroll_preview_to(model, scroll);
}

/// What the catalog cursor is on, as a stable key (entity id or group key).
pub fn selection_key(model: &Model) -> Option<String> {
    let store = model.store.as_ref()?;
    match model.selected_row()? {
        Row::Group { key, .. } => Some(format!("group:{key}")),
        Row::Entity { idx, .. } => Some(format!("entity:{}", store.entity(*idx).id)),
    }
}

/// The tree for the filter and sort as they are now, when they changed (`model.refilter`):
/// built in the background, one build at a time (`tree_building`), since a large store's
/// takes longer than a frame; the rows shown meanwhile are the last tree's.
pub fn refilter(model: &mut Model) -> Vec<Job> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    if !model.refilter || model.tree_building {
        return Vec::new();
    }
    model.refilter = false;
    model.tree_building = true;
    vec![Job::BuildTree(store, model.filter.clone())]
}

/// A tree built for a filter or sort: shown when it is of the filter shown now and of the
/// store shown now (or one whose tree is the same: a refresh meanwhile that only re-read
/// bodies keeps the tree it found, which was the last filter's); then the next one when the
/// filter changed meanwhile. A refresh that changed the tree built it for the filter then.
pub fn built_tree(model: &mut Model, store: &std::sync::Arc<folio_core::store::Store>, built: BuiltTree) -> Vec<Job> {
    model.tree_building = false;
    let current = model.store.as_ref().is_some_and(|s| std::sync::Arc::ptr_eq(s, store) || tree::unchanged(store, s));
    if current && built.filter == model.filter {
        let keep = selection_key(model);
        show_tree(model, built.tree, built.filter, keep);
    }
    refilter(model)
}

/// Rebuild the tree and visible rows, keeping the cursor on `keep` when it is still there.
pub fn rebuild(model: &mut Model, keep: Option<String>) {
    let Some(store) = model.store.as_ref() else { return };
    let tree = tree::build(store, &model.filter);
    show_tree(model, tree, model.filter.clone(), keep);
}

/// Show `tree` in the catalog, keeping the selection on `keep` when it is still there.
pub fn show_tree(model: &mut Model, tree: Group, built_for: TreeFilter, keep: Option<String>) {
    let Some(store) = model.store.clone() else { return };
    model.tree = tree;
    model.tree_filter = built_for;
    let mut rows = Vec::new();
    flatten(&model.tree, "", 0, &model.collapsed, &mut rows);
    model.rows = rows;
    if let Some(keep) = keep {
        // Compared without a string per row (100k rows at a large store).
        let (group, entity) = (keep.strip_prefix("group:"), keep.strip_prefix("entity:"));
        let found = model.rows.iter().position(|r| match r {
            Row::Group { key, .. } => group == Some(key.as_str()),
            Row::Entity { idx, .. } => entity == Some(store.entity(*idx).id.as_str()),
        });
        if let Some(i) = found {
            model.cursor = i;
        }
    }
    model.cursor = model.cursor.min(model.rows.len().saturating_sub(1));
    clamp_scrolls(model);
}

pub fn flatten(
    g: &Group,
    prefix: &str,
    depth: usize,
    collapsed: &std::collections::HashSet<String>,
    out: &mut Vec<Row>,
) {
    for sub in &g.groups {
        let key = if prefix.is_empty() { sub.label.clone() } else { format!("{prefix}/{}", sub.label) };
        let open = !collapsed.contains(&key);
        out.push(Row::Group { key: key.clone(), label: sub.label.clone(), depth, count: sub.count(), open });
        if open {
            flatten(sub, &key, depth + 1, collapsed, out);
        }
    }
    out.extend(g.entities.iter().map(|&idx| Row::Entity { idx, depth }));
}

pub fn set_group_open(model: &mut Model, open: bool) {
    if model.focus != Pane::Tree {
        return;
    }
    let keep = selection_key(model);
    match model.selected_row().cloned() {
        Some(Row::Group { key, open: is_open, depth, .. }) => {
            if open == is_open && !open {
                move_to_parent(model, depth);
                return;
            }
            if open {
                model.collapsed.remove(&key);
            } else {
                model.collapsed.insert(key);
            }
            // Which rows show changed, not the tree: flattened again, not built again.
            let tree = std::mem::take(&mut model.tree);
            show_tree(model, tree, model.tree_filter.clone(), keep);
        }
        Some(Row::Entity { depth, .. }) if !open => move_to_parent(model, depth),
        _ => {}
    }
}

pub fn move_to_parent(model: &mut Model, depth: usize) {
    if depth == 0 {
        return;
    }
    let parent =
        model.rows[..model.cursor].iter().rposition(|r| matches!(r, Row::Group { depth: d, .. } if *d + 1 == depth));
    if let Some(i) = parent {
        set_cursor(model, i);
    }
}

pub fn open_selected(model: &mut Model) -> Vec<Job> {
    match model.selected_row().cloned() {
        Some(Row::Group { open, .. }) => {
            set_group_open(model, !open);
            Vec::new()
        }
        Some(Row::Entity { idx, .. }) => {
            model.focus = Pane::Preview;
            open_entity(model, idx, true)
        }
        None => Vec::new(),
    }
}
