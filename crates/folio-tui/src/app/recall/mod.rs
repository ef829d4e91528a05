//! Recall: the fuzzy search overlay over titles, ids and bodies; `update` drives the engine
//! from the typed query and opens the chosen result. This file: where the overlay goes and how
//! many results it pages by.
pub mod jobs;
pub mod update;

use ratatui::layout::Rect;

use crate::app::model::Model;

/// Where the overlay goes on a screen of `area`.
pub fn rect(area: Rect) -> Rect {
    let w = area.width.saturating_sub(4).min(110);
    let h = area.height.saturating_sub(2).min(30);
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

/// Result rows that fit in the list.
pub fn list_rows(area: Rect) -> usize {
    (rect(area).height as usize).saturating_sub(3).max(1)
}

/// Screen rows per result: two when bodies were searched (the result, then its best matching
/// line), else one.
pub fn rows_per_result(model: &Model) -> usize {
    if model.recall.as_ref().is_some_and(|e| e.text_mode()) { 2 } else { 1 }
}

/// Results that fit in the list.
pub fn page(model: &Model, area: Rect) -> usize {
    (list_rows(area) / rows_per_result(model)).max(1)
}
