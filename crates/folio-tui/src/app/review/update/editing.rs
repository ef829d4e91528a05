//! The editors: `e` opens the in-app editor on the selected item (or the open entity outside
//! the inbox), `E` hands it to $EDITOR; saving goes out as a conflict-checked changeset (a merge
//! body as the merge).
use super::{say, store};
use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::model::{Model, Pane, Row};
use crate::app::review::jobs::{EditSeed, ReviewJob};
use folio_core::store::model::entity::EntityIdx;

pub(super) fn open_editor(model: &mut Model, idx: Option<EntityIdx>, then_approve: bool, external: bool) -> Vec<Job> {
    match (idx, store(model)) {
        (Some(idx), Some(store)) => {
            vec![Job::Review(Box::new(ReviewJob::OpenEditor { store, idx, then_approve, external }))]
        }
        _ => Vec::new(),
    }
}

/// `e` / `E` outside the inbox: the entity in the preview (or under the catalog cursor).
pub(super) fn edit_open_entity(model: &mut Model, external: bool) -> Vec<Job> {
    let idx = match (model.focus, model.selected_row(), model.open_entity()) {
        (Pane::Tree, Some(Row::Entity { idx, .. }), _) => Some(*idx),
        (_, _, Some(i)) => Some(i),
        _ => None,
    };
    if idx.is_none() {
        say(model, "nothing to edit: select an entity", true);
    }
    open_editor(model, idx, false, external)
}

/// Keys in the in-app editor (it takes every action while open).
pub(super) fn action(model: &mut Model, a: Action) -> Vec<Job> {
    let Some(ed) = model.editor.as_mut() else { return Vec::new() };
    match a {
        Action::NextField => ed.focus_next(true),
        Action::PrevField => ed.focus_next(false),
        // Unsaved edits are not thrown away by one stray Esc: the first one asks.
        Action::Close if ed.has_unsaved_edits() && !ed.discard_armed => {
            ed.discard_armed = true;
            say(model, "unsaved edits: Esc again discards them, Ctrl-S saves", true);
        }
        Action::Close => {
            model.editor = None;
            say(model, "edit discarded; nothing was written", false);
        }
        Action::Save => {
            let Some(store) = model.store.clone() else { return Vec::new() };
            let by = model.review.actor.clone();
            if let (Some((from, _)), Some(into)) = (ed.seed.merge_from.clone(), ed.seed.merge_into) {
                let body = Some(ed.body_text());
                return vec![Job::Review(Box::new(ReviewJob::Merge { store, from, into, body, by }))];
            }
            let seed = Box::new(ed.seed.clone());
            if ed.then_approve {
                // Nothing is written yet: the edit and the approval come back as one plan to confirm.
                let edits = Box::new(ed.edits());
                let kind = model.review.approve_kind.clone();
                return vec![Job::Review(Box::new(ReviewJob::EditApprove { store, seed, edits, by, kind }))];
            }
            match ed.entity_text() {
                Ok(entity_text) => {
                    let catalog = crate::app::tree::built::catalog(model);
                    return vec![Job::Review(Box::new(ReviewJob::Save { store, seed, entity_text, by, catalog }))];
                }
                Err(e) => ed.error = Some(e),
            }
        }
        _ => {}
    }
    Vec::new()
}

pub(super) fn external_done(
    model: &mut Model,
    seed: Box<EditSeed>,
    result: Result<Option<String>, String>,
) -> Vec<Job> {
    match (result, store(model)) {
        (Ok(Some(entity_text)), Some(store)) => {
            let (by, catalog) = (model.review.actor.clone(), crate::app::tree::built::catalog(model));
            vec![Job::Review(Box::new(ReviewJob::Save { store, seed, entity_text, by, catalog }))]
        }
        (Ok(None), _) => {
            say(model, format!("{}: no change in the editor; nothing was written", seed.path), false);
            Vec::new()
        }
        (Err(e), _) => {
            say(model, e, true);
            Vec::new()
        }
        (Ok(Some(_)), None) => Vec::new(),
    }
}
