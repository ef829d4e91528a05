//! Typed text: characters and backspace go to the top overlay's query (help, palette, recall,
//! the lint ignore reason) or to the catalog filter while it is being typed.
use crate::app::catalog::update::{rebuild, selection_key};
use crate::app::model::{Model, Overlay};
use crate::app::recall::update as recall;

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
            rebuild(model, selection_key(model));
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
            rebuild(model, selection_key(model));
        }
        None => {}
    }
}
