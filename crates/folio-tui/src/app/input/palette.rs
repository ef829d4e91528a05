//! The help and palette overlays: their rows (key bindings, matching actions), the cursor over
//! them, and Enter, which closes the overlay and runs the chosen action.
use super::{help_rows, palette_rows};
use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::model::{Model, Overlay};
use crate::app::recall::update as recall;
use crate::app::update::action;

/// Actions inside the help, palette or properties overlay: move the cursor; Enter runs the
/// chosen action. None: not theirs.
pub fn handle(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    if !overlay_action(model, a) {
        return None;
    }
    Some(match a {
        Action::Open => run_palette_choice(model),
        _ => Vec::new(),
    })
}

/// Actions inside the help or palette overlay; returns false when the action is not theirs.
fn overlay_action(model: &mut Model, a: Action) -> bool {
    let count = overlay_len(model);
    let Some(top) = model.overlays.last_mut() else { return false };
    let cursor = match top {
        Overlay::Help { cursor, .. } | Overlay::Palette { cursor, .. } | Overlay::Properties { cursor } => cursor,
        Overlay::Recall { .. } | Overlay::Confirm { .. } | Overlay::Reason { .. } => return false,
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
fn overlay_len(model: &Model) -> usize {
    match model.overlays.last() {
        Some(Overlay::Help { context, filter, .. }) => help_rows(model, *context, filter).len(),
        Some(Overlay::Palette { query, .. }) => palette_rows(model, query).len(),
        Some(Overlay::Recall { .. }) => recall::len(model),
        Some(Overlay::Confirm { diff, .. }) => diff.len(),
        Some(Overlay::Properties { .. }) => crate::app::reader::properties::of_open_entity(model).len(),
        Some(Overlay::Reason { .. }) | None => 0,
    }
}

/// Enter in the palette (or help): close it and run the selected action.
fn run_palette_choice(model: &mut Model) -> Vec<Job> {
    let choice = match model.overlays.last() {
        Some(Overlay::Palette { query, cursor }) => palette_rows(model, query).get(*cursor).copied(),
        Some(Overlay::Help { context, filter, cursor }) => {
            help_rows(model, *context, filter).get(*cursor).map(|(_, _, _, a)| *a)
        }
        Some(Overlay::Recall { .. }) | Some(Overlay::Confirm { .. }) | Some(Overlay::Reason { .. }) => None,
        Some(Overlay::Properties { .. }) | None => return Vec::new(),
    };
    model.overlays.pop();
    match choice {
        Some(a) => action(model, a),
        None => Vec::new(),
    }
}
