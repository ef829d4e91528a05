//! The only place the model changes. No I/O: anything that touches disk, the clipboard or the
//! terminal is returned as an `Effect`.
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind};
use ratatui::layout::{Position, Rect};

use crate::store::Store;
use crate::store::cache;
use crate::store::entity::{EntityIdx, Resolution};
use crate::store::tree::{self, Group};
use crate::ui::{layout, preview};

use super::action::Action;
use super::effects::Effect;
use super::event::Event;
use super::keymap::{Context, Key, Lookup};
use super::model::{Message, Model, Overlay, Pane, Preview, Row};
use super::theme::Theme;
use crate::store::lint::config::folio_dir;

mod graph;
mod lint;
mod recall;

/// Lines the mouse wheel scrolls.
const WHEEL: usize = 3;

/// Effects to run when the app starts.
pub fn init(model: &mut Model) -> Vec<Effect> {
    vec![Effect::Load(model.progress.clone(), model.config.cache)]
}

pub fn event(model: &mut Model, ev: Event) -> Vec<Effect> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => key(model, k),
        Event::Key(_) => Vec::new(),
        Event::Mouse(m) if model.mouse => mouse(model, m),
        Event::Mouse(_) => Vec::new(),
        Event::Resize(w, h) => {
            model.size = (w, h);
            clamp_scrolls(model);
            Vec::new()
        }
        Event::Paste(text) if super::review::paste(model, &text) => Vec::new(),
        Event::Paste(text) => {
            for c in text.chars().filter(|c| !c.is_control()) {
                type_char(model, c);
            }
            Vec::new()
        }
        Event::Loaded(Ok(store)) => {
            model.load_error = None;
            // A store read from its files is worth caching when large; one from the cache is
            // rewritten once its check has re-read what changed (`CacheChecked`).
            let save = (model.config.cache && !store.from_cache && store.entities.len() >= cache::MIN_ENTITIES)
                .then(|| Effect::SaveCache(store.clone()));
            let root = store.root.clone();
            model.store = Some(store);
            rebuild(model, None);
            // Start on the first entity rather than on a folder, with its preview open.
            let first = model.rows.iter().position(|r| matches!(r, Row::Entity { .. })).unwrap_or(0);
            let mut effects = select_row(model, first);
            if model.config.watch {
                effects.push(Effect::Watch(root));
            }
            effects.extend(after_store_change(model));
            if let Some(store) = &model.store {
                effects.push(Effect::LoadRecallHistory(folio_dir(&store.root, store.kind())));
            }
            effects.extend(super::review::on_store_changed(model));
            effects.extend(save);
            effects
        }
        Event::Loaded(Err(e)) => {
            model.load_error = Some(e);
            Vec::new()
        }
        Event::FilesChanged(paths) => {
            model.queued_changes.extend(paths);
            start_refresh(model)
        }
        Event::CacheChecked(paths) => {
            if paths.is_empty() {
                return Vec::new();
            }
            model.cache_stale = true;
            model.queued_changes.extend(paths);
            start_refresh(model)
        }
        Event::Refreshed(store, report) => {
            model.refreshing = false;
            let keep = selection_key(model);
            let old = model.store.replace(Arc::from(store));
            rebuild(model, keep);
            let mut effects = revalidate_preview(model, &report.changed);
            effects.extend(after_store_change(model));
            if !report.is_empty() {
                let n = report.changed.len() + report.added.len() + report.removed.len();
                model.message = Some(Message { text: format!("reloaded {n} changed file(s)"), warn: false });
            }
            effects.extend(start_refresh(model));
            effects.extend(super::review::on_store_changed(model));
            effects.extend(old.map(Effect::Discard));
            if model.cache_stale && !model.refreshing {
                model.cache_stale = false;
                effects.extend(model.store.clone().map(Effect::SaveCache));
            }
            effects
        }
        Event::BodyRead { path, body } => {
            if let Some(p) = model.preview.as_mut().filter(|p| p.path == path) {
                p.body = Some(body);
                model.invalidate_layout();
                clamp_scrolls(model);
                return place_mark(model);
            }
            Vec::new()
        }
        Event::Highlighted => {
            model.generation += 1;
            Vec::new()
        }
        Event::Review(outcome) => super::review::outcome(model, outcome),
        Event::Copied(result) => {
            model.message = Some(match result {
                Ok(what) => Message { text: format!("copied {what}"), warn: false },
                Err(e) => Message { text: e, warn: true },
            });
            Vec::new()
        }
        Event::RecallUpdated => {
            recall::tick(model);
            Vec::new()
        }
        Event::RecallHistory(recent) => {
            model.recall_recent = recent;
            Vec::new()
        }
        Event::Linted(Ok(report)) => lint::report(model, *report),
        Event::Linted(Err(e)) => {
            model.linting = false;
            model.message = Some(Message { text: format!("lint: {e}"), warn: true });
            Vec::new()
        }
        Event::GraphLaid(laid) => {
            model.graph.laid = Some(laid);
            Vec::new()
        }
        Event::ContextRead(Ok(c)) => {
            model.lint_view.context = Some(c);
            Vec::new()
        }
        Event::ContextRead(Err(e))
        | Event::FixPreview(Err(e))
        | Event::FixesApplied(Err(e))
        | Event::Exported(Err(e)) => {
            model.message = Some(Message { text: e, warn: true });
            Vec::new()
        }
        Event::FixPreview(Ok((title, diff, findings))) => {
            model.overlays.push(Overlay::Confirm { title, diff, scroll: 0, findings });
            Vec::new()
        }
        Event::FixesApplied(Ok((text, files))) => {
            model.message = Some(Message { text, warn: false });
            // Reload what was written now rather than waiting for the watcher (there may be none).
            model.queued_changes.extend(files);
            start_refresh(model)
        }
        Event::Exported(Ok(text)) => {
            model.message = Some(Message { text, warn: false });
            Vec::new()
        }
    }
}

/// A loaded or refreshed store: lint it again, restart recall on it, lay the graph out anew.
fn after_store_change(model: &mut Model) -> Vec<Effect> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    model.linting = true;
    model.graph.laid = None;
    recall::store_changed(model);
    let mut effects = vec![Effect::Lint(store)];
    effects.extend(graph::relayout(model));
    effects
}

/// Scroll the preview to its mark (a finding's line, a section heading) once the body is laid
/// out: the first row holding the marked text.
fn place_mark(model: &mut Model) -> Vec<Effect> {
    let Some(Preview { mark: Some(mark), body: Some(Ok(_)), .. }) = &model.preview else { return Vec::new() };
    if mark.row.is_some() {
        return Vec::new();
    }
    let needle: String = mark.text.trim().trim_start_matches(['#', '-', '*', '>', ' ']).chars().take(40).collect();
    let needle = needle.trim().to_string();
    let (w, h) = preview_width_height(model);
    let laid = model.laid_body(w);
    let head = model.preview.as_ref().map(|p| preview::header(model, p).len()).unwrap_or(0);
    let notice = matches!(&model.preview, Some(Preview { body: Some(Ok(b)), .. }) if b.notice.is_some());
    let found = if needle.is_empty() { None } else { laid.lines.iter().position(|l| l.text().contains(&needle)) };
    if let Some(p) = model.preview.as_mut()
        && let Some(m) = p.mark.as_mut()
    {
        m.row = Some(found.map(|r| head + usize::from(notice) + r).unwrap_or(head));
    }
    if let Some(row) = found {
        let row = head + usize::from(notice) + row;
        scroll_preview_to(model, row.saturating_sub(h / 3));
    }
    Vec::new()
}

fn start_refresh(model: &mut Model) -> Vec<Effect> {
    match &model.store {
        Some(store) if !model.refreshing && !model.queued_changes.is_empty() => {
            model.refreshing = true;
            vec![Effect::Refresh(store.clone(), std::mem::take(&mut model.queued_changes))]
        }
        _ => Vec::new(),
    }
}

/// After a refresh: find the open entity again by id; re-read it when its file changed.
fn revalidate_preview(model: &mut Model, changed: &[String]) -> Vec<Effect> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let Some(p) = model.preview.as_mut() else { return Vec::new() };
    let found = store.find(&p.id).filter(|&i| store.entity(i).id == p.id);
    p.idx = found;
    match found {
        Some(i) if changed.contains(&p.path) || store.entity(i).path != p.path => {
            p.path = store.entity(i).path.clone();
            read_body(model, &store, i)
        }
        _ => Vec::new(),
    }
}

fn key(model: &mut Model, k: KeyEvent) -> Vec<Effect> {
    model.message = None;
    if let Some(effects) = super::review::intercept_key(model, k) {
        return effects;
    }
    let pressed = Key::from_event(&k);
    let typing = model.review.confirm.is_none()
        && (model.filtering || model.overlays.last().is_some_and(|o| !matches!(o, Overlay::Confirm { .. })));
    if typing && model.pending_keys.is_empty() && !k.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) {
        match k.code {
            KeyCode::Char(c) => {
                type_char(model, c);
                return Vec::new();
            }
            KeyCode::Backspace => {
                erase_char(model);
                return Vec::new();
            }
            KeyCode::Enter | KeyCode::Esc if model.filtering && model.overlays.is_empty() => {
                model.filtering = false;
                if k.code == KeyCode::Esc {
                    model.filter.query.clear();
                    rebuild(model, selection_key(model));
                }
                return Vec::new();
            }
            _ => {}
        }
    }
    model.pending_keys.push(pressed);
    let contexts = model.contexts();
    match model.keymap.lookup(&contexts, &model.pending_keys) {
        Lookup::Action(a) => {
            model.pending_keys.clear();
            action(model, a)
        }
        Lookup::Prefix => Vec::new(),
        Lookup::None => {
            let was_sequence = model.pending_keys.len() > 1;
            model.pending_keys.clear();
            if was_sequence {
                // An unfinished sequence followed by an unbound key: try the key on its own.
                return key(model, k);
            }
            Vec::new()
        }
    }
}

fn type_char(model: &mut Model, c: char) {
    match model.overlays.last_mut() {
        Some(Overlay::Help { filter, cursor, .. }) => {
            filter.push(c);
            *cursor = 0;
        }
        Some(Overlay::Palette { query, cursor }) => {
            query.push(c);
            *cursor = 0;
        }
        Some(Overlay::Recall { query, .. }) => {
            query.push(c);
            recall::requery(model);
        }
        Some(Overlay::Confirm { .. }) => {}
        None if model.filtering => {
            model.filter.query.push(c);
            rebuild(model, selection_key(model));
        }
        None => {}
    }
}

fn erase_char(model: &mut Model) {
    match model.overlays.last_mut() {
        Some(Overlay::Help { filter: s, .. }) | Some(Overlay::Palette { query: s, .. }) => {
            s.pop();
        }
        Some(Overlay::Recall { query, .. }) => {
            query.pop();
            recall::requery(model);
        }
        Some(Overlay::Confirm { .. }) => {}
        None if model.filtering => {
            model.filter.query.pop();
            rebuild(model, selection_key(model));
        }
        None => {}
    }
}

/// Apply one action.
pub fn action(model: &mut Model, a: Action) -> Vec<Effect> {
    // The editor and the review's confirm dialog come first (and the inbox when it is open);
    // otherwise the lint-fix confirm (`Overlay::Confirm`) handles `confirm`/`close`.
    if let Some(effects) = super::review::action(model, a) {
        return effects;
    }
    match model.overlays.last() {
        Some(Overlay::Recall { .. }) => {
            if let Some(effects) = recall::act(model, a) {
                return effects;
            }
        }
        Some(Overlay::Confirm { .. }) => {
            if let Some(effects) = lint::confirm_action(model, a) {
                return effects;
            }
        }
        _ => {}
    }
    if model.overlays.is_empty() {
        match (model.focus, a) {
            (Pane::Graph, Action::Down | Action::Up | Action::PageDown | Action::PageUp)
            | (Pane::Graph, Action::HalfPageDown | Action::HalfPageUp | Action::Top | Action::Bottom)
            | (Pane::Graph, Action::Open | Action::SwitchSide | Action::DepthUp | Action::DepthDown)
            | (Pane::Graph, Action::ExportGraph) => return graph::act(model, a),
            (Pane::Lint, Action::Down | Action::Up | Action::PageDown | Action::PageUp)
            | (Pane::Lint, Action::HalfPageDown | Action::HalfPageUp | Action::Top | Action::Bottom)
            | (Pane::Lint, Action::Open | Action::GroupBy | Action::FilterSeverity | Action::FilterRule)
            | (Pane::Lint, Action::FilterKind | Action::ApplyFix | Action::FixRule) => return lint::act(model, a),
            _ => {}
        }
    }
    if !model.overlays.is_empty() && overlay_action(model, a) {
        return match a {
            Action::Open => run_palette_choice(model),
            _ => Vec::new(),
        };
    }
    match a {
        Action::Quit => model.quit = true,
        Action::Suspend => return vec![Effect::Suspend],
        Action::FocusNext | Action::FocusPrev => {
            model.focus = if model.focus == Pane::Catalog { model.main } else { Pane::Catalog }
        }
        Action::FocusCatalog => model.focus = Pane::Catalog,
        Action::FocusPreview => {
            model.focus = Pane::Preview;
            model.main = Pane::Preview;
        }
        Action::FocusGraph => return graph::focus(model),
        Action::FocusLint => return lint::focus(model),
        Action::Recall => recall::open(model),
        Action::RecallSections => {
            model.recall_sections = !model.recall_sections;
            let on = if model.recall_sections { "on" } else { "off" };
            model.message = Some(Message { text: format!("recall over body sections {on}"), warn: false });
        }
        Action::SwitchSide
        | Action::DepthUp
        | Action::DepthDown
        | Action::ExportGraph
        | Action::GroupBy
        | Action::FilterSeverity
        | Action::FilterRule
        | Action::FilterKind
        | Action::ApplyFix
        | Action::FixRule => {}
        Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::HalfPageUp | Action::HalfPageDown => {
            return move_by(model, a);
        }
        Action::Top => match model.focus {
            Pane::Catalog => return select_row(model, 0),
            _ => scroll_preview_to(model, 0),
        },
        Action::Bottom => match model.focus {
            Pane::Catalog => return select_row(model, model.rows.len().saturating_sub(1)),
            _ => scroll_preview_to(model, usize::MAX),
        },
        Action::Expand => set_group_open(model, true),
        Action::Collapse => set_group_open(model, false),
        Action::Open => return open_selected(model),
        Action::NextLink => step_link(model, true),
        Action::PrevLink => step_link(model, false),
        Action::FollowLink => return follow_link(model),
        Action::Back => return history_step(model, true),
        Action::Forward => return history_step(model, false),
        Action::Filter => {
            model.focus = Pane::Catalog;
            model.filtering = true;
        }
        Action::ClearFilter => {
            model.filter.query.clear();
            rebuild(model, selection_key(model));
        }
        Action::CycleSort => {
            model.filter.sort = model.filter.sort.next();
            rebuild(model, selection_key(model));
            model.message = Some(Message { text: format!("sorted by {}", model.filter.sort.name()), warn: false });
        }
        Action::Help => {
            let context = if model.review.open { Context::Review } else { model.focus.context() };
            model.overlays.push(Overlay::Help { context, filter: String::new(), cursor: 0 })
        }
        Action::Palette => model.overlays.push(Overlay::Palette { query: String::new(), cursor: 0 }),
        Action::Close => {
            if model.overlays.pop().is_none() && model.filtering {
                model.filtering = false;
            }
        }
        Action::YankId | Action::YankPath | Action::YankLink => return yank(model, a),
        Action::ToggleMouse => {
            model.mouse = !model.mouse;
            let state = if model.mouse { "on" } else { "off" };
            model.message = Some(Message { text: format!("mouse {state}"), warn: false });
        }
        Action::CycleTheme => {
            let next = match model.theme.name.as_str() {
                "dark" => "light",
                "light" => "mono",
                _ => "dark",
            };
            model.theme = Theme::builtin(next).unwrap_or_else(Theme::dark);
            model.invalidate_layout();
            model.message = Some(Message { text: format!("theme {next}"), warn: false });
        }
        // The review pane and the editors handle these (`review::action`; `confirm` also the lint-fix
        // dialog); elsewhere they do nothing.
        Action::Review
        | Action::Approve
        | Action::ApproveOver
        | Action::Veto
        | Action::Forget
        | Action::EditApprove
        | Action::Merge
        | Action::Promote
        | Action::Skip
        | Action::Undo
        | Action::BulkFilter
        | Action::BulkApprove
        | Action::BulkVeto
        | Action::BulkForget
        | Action::Edit
        | Action::EditExternal
        | Action::Save
        | Action::NextField
        | Action::PrevField
        | Action::Confirm
        | Action::Noop => {}
    }
    Vec::new()
}

/// Actions inside the help or palette overlay; returns false when the action is not theirs.
fn overlay_action(model: &mut Model, a: Action) -> bool {
    let count = overlay_len(model);
    let Some(top) = model.overlays.last_mut() else { return false };
    let cursor = match top {
        Overlay::Help { cursor, .. } | Overlay::Palette { cursor, .. } => cursor,
        Overlay::Recall { .. } | Overlay::Confirm { .. } => return false,
    };
    match a {
        Action::Down => *cursor = (*cursor + 1).min(count.saturating_sub(1)),
        Action::Up => *cursor = cursor.saturating_sub(1),
        Action::PageDown => *cursor = (*cursor + 10).min(count.saturating_sub(1)),
        Action::PageUp => *cursor = cursor.saturating_sub(10),
        Action::Open => {}
        _ => return false,
    }
    true
}

/// How many rows the top overlay lists now.
pub fn overlay_len(model: &Model) -> usize {
    match model.overlays.last() {
        Some(Overlay::Help { context, filter, .. }) => help_rows(model, *context, filter).len(),
        Some(Overlay::Palette { query, .. }) => palette_rows(model, query).len(),
        Some(Overlay::Recall { .. }) => recall::len(model),
        Some(Overlay::Confirm { diff, .. }) => diff.len(),
        None => 0,
    }
}

/// Help rows: (context, keys, description, action), focused context first, then global.
pub fn help_rows(model: &Model, context: Context, filter: &str) -> Vec<(Context, String, String, Action)> {
    let needle = filter.to_lowercase();
    [context, Context::Global]
        .into_iter()
        .flat_map(|ctx| model.keymap.bindings(ctx).map(move |b| (ctx, b.keys_display(), b.desc.clone(), b.action)))
        .filter(|(_, keys, desc, a)| {
            needle.is_empty()
                || desc.to_lowercase().contains(&needle)
                || keys.to_lowercase().contains(&needle)
                || a.name().contains(&needle)
        })
        .collect()
}

/// Palette rows: every action whose description or name matches the query (all words).
pub fn palette_rows(_model: &Model, query: &str) -> Vec<Action> {
    let q = query.to_lowercase();
    Action::ALL
        .iter()
        .copied()
        .filter(|a| !matches!(a, Action::Noop | Action::Palette | Action::Close))
        .filter(|a| {
            let hay = format!("{} {}", a.desc().to_lowercase(), a.name());
            q.split_whitespace().all(|w| hay.contains(w))
        })
        .collect()
}

/// Enter in the palette (or help): close it and run the selected action.
fn run_palette_choice(model: &mut Model) -> Vec<Effect> {
    let choice = match model.overlays.last() {
        Some(Overlay::Palette { query, cursor }) => palette_rows(model, query).get(*cursor).copied(),
        Some(Overlay::Help { context, filter, cursor }) => {
            help_rows(model, *context, filter).get(*cursor).map(|(_, _, _, a)| *a)
        }
        Some(Overlay::Recall { .. }) | Some(Overlay::Confirm { .. }) | None => None,
    };
    model.overlays.pop();
    match choice {
        Some(a) => action(model, a),
        None => Vec::new(),
    }
}

fn page(model: &Model) -> usize {
    let area = Rect::new(0, 0, model.size.0, model.size.1);
    let Some(p) = layout::panes(area) else { return 1 };
    let h = match model.focus {
        Pane::Catalog => layout::catalog_rows(p.catalog).height,
        _ => layout::preview_body(p.preview).height,
    };
    (h as usize).max(1)
}

fn move_by(model: &mut Model, a: Action) -> Vec<Effect> {
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
        Pane::Catalog => {
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
fn select_row(model: &mut Model, to: usize) -> Vec<Effect> {
    set_cursor(model, to);
    match model.selected_row() {
        Some(Row::Entity { idx, .. }) => {
            let idx = *idx;
            open_entity(model, idx, false)
        }
        _ => Vec::new(),
    }
}

fn set_cursor(model: &mut Model, to: usize) {
    model.cursor = to.min(model.rows.len().saturating_sub(1));
    clamp_scrolls(model);
}

fn preview_width_height(model: &Model) -> (u16, usize) {
    let area = Rect::new(0, 0, model.size.0, model.size.1);
    match layout::panes(area) {
        Some(p) => {
            let body = layout::preview_body(p.preview);
            (body.width, body.height as usize)
        }
        None => (40, 1),
    }
}

fn scroll_preview_to(model: &mut Model, to: usize) {
    let (w, h) = preview_width_height(model);
    let max = preview::total_lines(model, w).saturating_sub(h);
    if let Some(p) = model.preview.as_mut() {
        p.scroll = to.min(max);
    }
}

/// Keep the catalog cursor visible and the preview scroll in range (after moves and resizes).
fn clamp_scrolls(model: &mut Model) {
    let rows_h = layout::panes(Rect::new(0, 0, model.size.0, model.size.1))
        .map(|p| layout::catalog_rows(p.catalog).height as usize)
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
fn selection_key(model: &Model) -> Option<String> {
    let store = model.store.as_ref()?;
    match model.selected_row()? {
        Row::Group { key, .. } => Some(format!("group:{key}")),
        Row::Entity { idx, .. } => Some(format!("entity:{}", store.entity(*idx).id)),
    }
}

/// Rebuild the tree and visible rows, keeping the cursor on `keep` when it is still there.
pub fn rebuild(model: &mut Model, keep: Option<String>) {
    let Some(store) = model.store.clone() else { return };
    model.tree = tree::build(&store, &model.filter);
    let mut rows = Vec::new();
    flatten(&model.tree, "", 0, &model.collapsed, &mut rows);
    model.rows = rows;
    if let Some(keep) = keep {
        let found = model.rows.iter().position(|r| match r {
            Row::Group { key, .. } => keep == format!("group:{key}"),
            Row::Entity { idx, .. } => keep == format!("entity:{}", store.entity(*idx).id),
        });
        if let Some(i) = found {
            model.cursor = i;
        }
    }
    model.cursor = model.cursor.min(model.rows.len().saturating_sub(1));
    clamp_scrolls(model);
}

fn flatten(g: &Group, prefix: &str, depth: usize, collapsed: &std::collections::HashSet<String>, out: &mut Vec<Row>) {
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

fn set_group_open(model: &mut Model, open: bool) {
    if model.focus != Pane::Catalog {
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
            rebuild(model, keep);
        }
        Some(Row::Entity { depth, .. }) if !open => move_to_parent(model, depth),
        _ => {}
    }
}

fn move_to_parent(model: &mut Model, depth: usize) {
    if depth == 0 {
        return;
    }
    let parent =
        model.rows[..model.cursor].iter().rposition(|r| matches!(r, Row::Group { depth: d, .. } if *d + 1 == depth));
    if let Some(i) = parent {
        set_cursor(model, i);
    }
}

fn open_selected(model: &mut Model) -> Vec<Effect> {
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

/// Show an entity in the preview; `record` pushes the previous one on the back stack.
fn open_entity(model: &mut Model, idx: EntityIdx, record: bool) -> Vec<Effect> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let e = store.entity(idx);
    if let Some(prev) = &model.preview {
        if prev.id == e.id && prev.idx.is_some() {
            return Vec::new();
        }
        if record {
            model.back.push(prev.id.clone());
            model.forward.clear();
        }
    }
    // A symlink leading out of the store is never read: say so instead of waiting for a body.
    let body = e.escapes_root().then(|| Err(format!("{}: symlink points outside the store; not read", e.path)));
    model.preview = Some(Preview {
        id: e.id.clone(),
        path: e.path.clone(),
        idx: Some(idx),
        body,
        scroll: 0,
        link: None,
        mark: None,
    });
    model.invalidate_layout();
    let mut effects = read_body(model, &store, idx);
    effects.extend(graph::centre_moved(model));
    effects
}

fn read_body(model: &Model, store: &Store, idx: EntityIdx) -> Vec<Effect> {
    let e = store.entity(idx);
    if e.escapes_root() {
        return Vec::new();
    }
    vec![Effect::ReadBody {
        rel: e.path.clone(),
        abs: store.abs_path(&e.path),
        start: e.body_start.max(e.span.start),
        end: e.span.end,
        limit: model.config.preview_limit_kb * 1024,
    }]
}

fn step_link(model: &mut Model, forward: bool) {
    let (w, h) = preview_width_height(model);
    let laid = model.laid_body(w);
    let head = model.preview.as_ref().map(|p| preview::header(model, p).len()).unwrap_or(0);
    let notice = matches!(&model.preview, Some(Preview { body: Some(Ok(b)), .. }) if b.notice.is_some());
    let Some(p) = model.preview.as_mut() else { return };
    let n = laid.link_rows.len();
    if n == 0 {
        return;
    }
    let next = match (p.link, forward) {
        (None, true) => 0,
        (None, false) => n - 1,
        (Some(i), true) => (i + 1) % n,
        (Some(i), false) => (i + n - 1) % n,
    };
    p.link = Some(next);
    // Scroll so the selected link is on screen.
    if let Some(row) = laid.link_rows[next] {
        let row = head + usize::from(notice) + row;
        if row < p.scroll || row >= p.scroll + h {
            p.scroll = row.saturating_sub(h / 3);
        }
    }
    model.focus = Pane::Preview;
}

fn follow_link(model: &mut Model) -> Vec<Effect> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let Some(Preview { body: Some(Ok(body)), link: Some(l), .. }) = &model.preview else { return Vec::new() };
    let Some(target) = body.doc.links.get(*l).map(|d| d.target.clone()) else { return Vec::new() };
    let resolution = model
        .open_entity()
        .and_then(|i| store.entity(i).links.iter().find(|x| x.target == target).map(|x| x.resolution.clone()));
    let shown = crate::markdown::sanitize::line(&target);
    let (text, warn) = match resolution {
        Some(Resolution::Entity(i)) => return open_entity(model, i, true),
        Some(Resolution::External) => (format!("external link {shown} (not opened)"), false),
        Some(Resolution::File(f)) => {
            (format!("{} is a file, not an entity", crate::markdown::sanitize::line(&f)), false)
        }
        Some(Resolution::Anchor) => (format!("anchor {shown} in this document"), false),
        Some(Resolution::Escapes) => (format!("{shown} leaves the store; not followed"), true),
        Some(Resolution::Broken) | Some(Resolution::Pending) | None => (format!("broken link: {shown}"), true),
    };
    model.message = Some(Message { text, warn });
    Vec::new()
}

fn history_step(model: &mut Model, back: bool) -> Vec<Effect> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let (from, to) = if back { (&mut model.back, &mut model.forward) } else { (&mut model.forward, &mut model.back) };
    let Some(id) = from.pop() else { return Vec::new() };
    if let Some(cur) = &model.preview {
        to.push(cur.id.clone());
    }
    match store.find(&id) {
        Some(i) => open_entity(model, i, false),
        None => {
            model.message = Some(Message { text: format!("{id} no longer exists"), warn: true });
            Vec::new()
        }
    }
}

fn yank(model: &mut Model, a: Action) -> Vec<Effect> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let idx = match (model.focus, model.selected_row(), model.open_entity()) {
        (Pane::Catalog, Some(Row::Entity { idx, .. }), _) => *idx,
        (_, _, Some(i)) => i,
        (_, Some(Row::Entity { idx, .. }), None) => *idx,
        _ => {
            model.message = Some(Message { text: "nothing to copy: select an entity".into(), warn: true });
            return Vec::new();
        }
    };
    let e = store.entity(idx);
    let (text, what) = match a {
        Action::YankPath => (store.abs_path(&e.path).display().to_string(), "path"),
        Action::YankLink => (format!("[[{}]]", e.id), "link"),
        _ => (e.id.clone(), "id"),
    };
    let what = format!("{what} {}", crate::markdown::sanitize::line(&text));
    vec![Effect::Copy { text, what }]
}

fn mouse(model: &mut Model, m: ratatui::crossterm::event::MouseEvent) -> Vec<Effect> {
    let Some(p) = layout::panes(Rect::new(0, 0, model.size.0, model.size.1)) else { return Vec::new() };
    if !model.overlays.is_empty() {
        return Vec::new();
    }
    let at = Position::new(m.column, m.row);
    let pane = if p.catalog.contains(at) {
        Pane::Catalog
    } else if p.preview.contains(at) {
        model.main
    } else {
        return Vec::new();
    };
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) => {
            model.focus = pane;
            let rows = layout::catalog_rows(p.catalog);
            if pane == Pane::Catalog && rows.contains(at) {
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
                Pane::Catalog => {
                    let last = model.rows.len().saturating_sub(1);
                    let to = if down { (model.cursor + WHEEL).min(last) } else { model.cursor.saturating_sub(WHEEL) };
                    return select_row(model, to);
                }
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
