//! Recall in the update loop: the overlay's query drives the engine, results are ticked in as
//! the matcher reports, Enter opens the result (a section result scrolls to its heading).
use std::sync::Arc;

use ratatui::layout::Rect;

use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::model::{Mark, Model, Overlay, Pane};
use folio_core::recall::engine::Engine;
use folio_core::recall::text::TextRecall;

/// Open the overlay (creating the engine for the loaded store on first use); the first time,
/// the store's text index is asked for, built off the UI thread.
pub fn open(model: &mut Model) -> Vec<Job> {
    if model.overlays.iter().any(|o| matches!(o, Overlay::Recall { .. })) {
        return Vec::new();
    }
    if model.recall.is_none()
        && let Some(store) = model.store.clone()
    {
        let mut engine =
            Engine::new(store.clone(), model.lint_flags.clone(), model.recall_notify.clone(), model.recall_synchronous);
        engine.set_sections(model.recall_sections, "");
        if let Some((_, text)) = model.text_index.as_ref().filter(|(s, _)| Arc::ptr_eq(s, &store)) {
            engine.set_text(text.clone(), "");
        }
        model.recall = Some(engine);
    }
    model.overlays.push(Overlay::Recall { query: String::new(), cursor: 0 });
    requery(model);
    let mut jobs = Vec::new();
    if !model.text_wanted
        && let Some(store) = model.store.clone()
    {
        model.text_wanted = true;
        model.text_changes.clear();
        jobs.push(Job::IndexText { store, base: None, changed: Vec::new() });
    }
    jobs
}

/// A text index came back: kept when it is of the store shown (an older store's is dropped: a
/// later update, asked for with every change since, is on its way).
pub fn text_indexed(model: &mut Model, store: Arc<folio_core::store::Store>, text: Arc<TextRecall>) {
    let Some(current) = model.store.clone().filter(|s| Arc::ptr_eq(s, &store)) else { return };
    model.text_index = Some((current, text.clone()));
    model.text_changes.clear();
    let q = query(model).unwrap_or_default();
    if let Some(e) = model.recall.as_mut() {
        e.set_text(text, &q);
    }
    clamp(model);
}

/// The store was refreshed, these paths read again: bring the text index up to date (from the
/// last one built, reading every file changed since).
pub fn text_store_changed(model: &mut Model, changed: impl IntoIterator<Item = String>) -> Vec<Job> {
    if !model.text_wanted {
        return Vec::new();
    }
    model.text_changes.extend(changed);
    let Some(store) = model.store.clone() else { return Vec::new() };
    let changed = model.text_changes.clone();
    vec![Job::IndexText { store, base: model.text_index.clone(), changed }]
}

/// A store newly loaded (not refreshed): its text index starts afresh.
pub fn text_store_loaded(model: &mut Model) -> Vec<Job> {
    model.text_index = None;
    model.text_changes.clear();
    match model.store.clone() {
        Some(store) if model.text_wanted => vec![Job::IndexText { store, base: None, changed: Vec::new() }],
        _ => Vec::new(),
    }
}

/// Keys of the open overlay; `None` when the action is not recall's.
pub fn handle(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    match a {
        Action::Down => move_cursor(model, 1),
        Action::Up => move_cursor(model, -1),
        Action::PageDown => move_cursor(model, isize::MAX),
        Action::PageUp => move_cursor(model, isize::MIN),
        Action::RecallSections => toggle_sections(model),
        Action::Open => return Some(choose(model)),
        _ => return None,
    }
    Some(Vec::new())
}

/// The store's recent queries, read by a worker.
pub fn history_loaded(model: &mut Model, recent: Vec<String>) -> Vec<Job> {
    model.recall_recent = recent;
    Vec::new()
}

/// The query text of the open overlay.
fn query(model: &Model) -> Option<String> {
    match model.overlays.last() {
        Some(Overlay::Recall { query, .. }) => Some(query.clone()),
        _ => None,
    }
}

/// The query changed: hand it to the engine and start at the best result.
pub fn requery(model: &mut Model) {
    model.recall_open_when_ready = false;
    let Some(q) = query(model) else { return };
    if let Some(e) = model.recall.as_mut() {
        e.set_query(&q);
    }
    if let Some(Overlay::Recall { cursor, .. }) = model.overlays.last_mut() {
        *cursor = 0;
    }
}

/// The matcher has news; an Enter that came before the results opens the result now.
pub fn tick(model: &mut Model) -> Vec<Job> {
    if let Some(e) = model.recall.as_mut() {
        e.tick();
    }
    clamp(model);
    if !model.recall_open_when_ready {
        return Vec::new();
    }
    let Some(Overlay::Recall { cursor, .. }) = model.overlays.last() else {
        model.recall_open_when_ready = false;
        return Vec::new();
    };
    let (found, done) = match model.recall.as_ref() {
        Some(e) => (e.fresh() && e.get(*cursor).is_some(), e.fresh() && !e.running()),
        None => (false, true),
    };
    if found || done {
        model.recall_open_when_ready = false;
    }
    if found { choose(model) } else { Vec::new() }
}

fn toggle_sections(model: &mut Model) {
    model.recall_sections = !model.recall_sections;
    let q = query(model).unwrap_or_default();
    if let Some(e) = model.recall.as_mut() {
        e.set_sections(model.recall_sections, &q);
    }
    clamp(model);
}

/// How many rows the overlay lists now (results, or recent queries for an empty query).
pub fn len(model: &Model) -> usize {
    match query(model) {
        Some(q) if q.trim().is_empty() => model.recall_recent.len(),
        Some(_) => model.recall.as_ref().map(Engine::matched).unwrap_or(0),
        None => 0,
    }
}

fn clamp(model: &mut Model) {
    let n = len(model);
    if let Some(Overlay::Recall { cursor, .. }) = model.overlays.last_mut() {
        *cursor = (*cursor).min(n.saturating_sub(1));
    }
}

fn move_cursor(model: &mut Model, delta: isize) {
    let page = super::page(model, Rect::new(0, 0, model.size.0, model.size.1)) as isize;
    let delta = match delta {
        isize::MAX => page,
        isize::MIN => -page,
        d => d,
    };
    let n = len(model);
    if let Some(Overlay::Recall { cursor, .. }) = model.overlays.last_mut() {
        *cursor = cursor.saturating_add_signed(delta).min(n.saturating_sub(1));
    }
}

/// Enter: a recent query fills the prompt; a result opens in the preview and is remembered.
fn choose(model: &mut Model) -> Vec<Job> {
    let Some(Overlay::Recall { query, cursor }) = model.overlays.last().cloned() else { return Vec::new() };
    if query.trim().is_empty() {
        if let Some(q) = model.recall_recent.get(cursor).cloned() {
            if let Some(Overlay::Recall { query, .. }) = model.overlays.last_mut() {
                *query = q;
            }
            requery(model);
        }
        return Vec::new();
    }
    // Only a result of the query as typed (the rows shown may still be the previous query's).
    let Some(hit) = model.recall.as_ref().filter(|e| e.fresh()).and_then(|e| e.get(cursor)) else {
        // Typed and entered faster than the matcher answers: open what it finds.
        model.recall_open_when_ready = model.recall.as_ref().is_some_and(Engine::running);
        return Vec::new();
    };
    model.overlays.pop();
    model.recall_recent = folio_core::recall::history::remember(&model.recall_recent, &query);
    let mut jobs = Vec::new();
    if let (Some(store), Some(state)) = (&model.store, &model.state_dir) {
        let (state, root) = (state.clone(), store.root.clone());
        jobs.push(Job::SaveRecallHistory { state, root, recent: model.recall_recent.clone() });
    }
    model.focus = Pane::Preview;
    model.main = Pane::Preview;
    jobs.extend(crate::app::reader::update::open_entity(model, hit.idx, true));
    if let (Some(section), Some(p)) = (hit.section, model.preview.as_mut()) {
        p.mark = Some(Mark { text: section.heading, anchor: false, row: None });
    }
    jobs.extend(crate::app::reader::update::place_mark(model));
    jobs
}

/// A new store (loaded or refreshed): the engine restarts on it, keeping the query.
pub fn store_changed(model: &mut Model) {
    model.recall = None;
    if let Some(pos) = model.overlays.iter().position(|o| matches!(o, Overlay::Recall { .. })) {
        let Overlay::Recall { query, cursor } = model.overlays.remove(pos) else { return };
        // The text index of the new store is asked for by the caller (`text_store_*`).
        let _ = open(model);
        if let Some(Overlay::Recall { query: q, cursor: c }) = model.overlays.last_mut() {
            *q = query;
            *c = cursor;
        }
        let cursor_kept = cursor;
        requery(model);
        if let Some(Overlay::Recall { cursor, .. }) = model.overlays.last_mut() {
            *cursor = cursor_kept;
        }
        clamp(model);
    }
}

/// New lint findings: `has:lint` follows them.
pub fn flags_changed(model: &mut Model, flags: Arc<Vec<bool>>) {
    model.lint_flags = flags.clone();
    let q = query(model).unwrap_or_default();
    if let Some(e) = model.recall.as_mut() {
        e.set_flags(flags, &q);
    }
    clamp(model);
}
