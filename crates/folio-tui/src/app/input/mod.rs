//! What a person types or clicks that no pane owns: the mouse, typed text (the top overlay's
//! query or the catalog filter), and the help and palette overlays. This file: the rows those
//! two overlays list, which the view draws and `palette` moves through.
pub mod mouse;
pub mod palette;
pub mod text;

use crate::app::action::Action;
use crate::app::model::Model;
use crate::app::settings::keymap::Context;

/// Help rows: (context, keys, description, action), every context's keys, grouped by context:
/// the focused one first, then global, then the others (so the review keys are found from the
/// catalog, and the catalog's from the inbox).
pub fn help_rows(model: &Model, context: Context, filter: &str) -> Vec<(Context, String, String, Action)> {
    let needle = filter.to_lowercase();
    let first = if context == Context::Global { vec![context] } else { vec![context, Context::Global] };
    let rest = Context::ALL.into_iter().filter(|c| !first.contains(c));
    let order = first.clone().into_iter().chain(rest);
    order
        .flat_map(|ctx| model.keymap.bindings(ctx).map(move |b| (ctx, b.keys_display(), b.desc.clone(), b.action)))
        .filter(|(ctx, keys, desc, a)| {
            needle.is_empty()
                || desc.to_lowercase().contains(&needle)
                || keys.to_lowercase().contains(&needle)
                || a.name().contains(&needle)
                || ctx.name() == needle
        })
        .collect()
}

/// Palette rows: every action whose description or name matches the query (all words), the
/// closest names first: the exact name, then a name with a word the query names
/// (`history` → `focus_history`), then names holding it, then descriptions.
pub fn palette_rows(_model: &Model, query: &str) -> Vec<Action> {
    ranked(query)
}

fn ranked(query: &str) -> Vec<Action> {
    let q = query.to_lowercase();
    let words: Vec<&str> = q.split_whitespace().collect();
    let exact = words.join("_");
    let mut rows: Vec<(u8, Action)> = Action::ALL
        .iter()
        .copied()
        .filter(|a| !matches!(a, Action::Noop | Action::Palette | Action::Close))
        .filter_map(|a| {
            let name = a.name();
            let hay = format!("{} {name}", a.desc().to_lowercase());
            if !words.iter().all(|w| hay.contains(w)) {
                return None;
            }
            let segments: Vec<&str> = name.split('_').collect();
            let rank = if words.is_empty() || name == exact {
                0
            } else if words.iter().all(|w| segments.contains(w)) {
                1
            } else if words.iter().all(|w| name.contains(w)) {
                2
            } else {
                3
            };
            Some((rank, a))
        })
        .collect();
    rows.sort_by_key(|(rank, _)| *rank);
    rows.into_iter().map(|(_, a)| a).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_palette_puts_the_exact_name_first_then_names_with_the_word() {
        assert_eq!(ranked("approve")[0], Action::Approve, "the exact name first");
        assert_eq!(ranked("bulk approve")[0], Action::BulkApprove, "words joined as a name");
        let history = ranked("history");
        let named = history.iter().position(|&a| a == Action::FocusHistory).unwrap();
        let said = history.iter().position(|&a| a == Action::Back).unwrap();
        assert!(named < said, "an action named history before one only saying it: {history:?}");
        assert_eq!(ranked("").len(), Action::ALL.len() - 3, "everything but noop, palette, close");
    }
}
