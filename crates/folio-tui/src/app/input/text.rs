//! Typed text: characters and backspace go to the top overlay's query (help, palette, recall,
//! the lint ignore reason) or to the catalog filter while it is being typed.
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::model::{Model, Overlay};
use crate::app::recall::update as recall;

/// Keys typed as text: into the top overlay's query (not a dialog's) or the catalog filter,
/// unless a sequence is under way or a modifier is held; Enter or Esc ends the filter. False:
/// the key is not text here.
pub fn intercept_key(model: &mut Model, k: &KeyEvent) -> bool {
    let typing = model.review.confirm.is_none()
        && (model.filtering
            || model
                .overlays
                .last()
                .is_some_and(|o| !matches!(o, Overlay::Confirm { .. } | Overlay::Properties { .. })));
    if !typing || !model.pending_keys.is_empty() || k.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) {
        return false;
    }
    match k.code {
        KeyCode::Char(c) => type_char(model, c),
        KeyCode::Backspace => erase_char(model),
        KeyCode::Enter | KeyCode::Esc if model.filtering && model.overlays.is_empty() => {
            model.filtering = false;
            if k.code == KeyCode::Esc {
                model.filter.query.clear();
                model.refilter = true;
            }
        }
        _ => return false,
    }
    true
}

/// Pasted text, typed (control characters left out).
pub fn paste(model: &mut Model, text: &str) {
    for c in text.chars().filter(|c| !c.is_control()) {
        type_char(model, c);
    }
}

pub fn type_char(model: &mut Model, c: char) {
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
        Some(Overlay::Confirm { .. }) | Some(Overlay::Properties { .. }) => {}
        Some(Overlay::Reason { text, .. }) => text.push(c),
        None if model.filtering => {
            model.filter.query.push(c);
            model.refilter = true;
        }
        None => {}
    }
}

pub fn erase_char(model: &mut Model) {
    match model.overlays.last_mut() {
        Some(Overlay::Help { filter: s, .. }) | Some(Overlay::Palette { query: s, .. }) => {
            s.pop();
        }
        Some(Overlay::Recall { query, .. }) => {
            query.pop();
            recall::requery(model);
        }
        Some(Overlay::Confirm { .. }) | Some(Overlay::Properties { .. }) => {}
        Some(Overlay::Reason { text, .. }) => {
            text.pop();
        }
        None if model.filtering => {
            model.filter.query.pop();
            model.refilter = true;
        }
        None => {}
    }
}
