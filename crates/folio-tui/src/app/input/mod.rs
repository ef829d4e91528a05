//! What a person types or clicks that no pane owns: the mouse, typed text (the top overlay's
//! query or the catalog filter), and the help and palette overlays. This file: the rows those
//! two overlays list, which the view draws and `palette` moves through.
pub mod mouse;
pub mod palette;
pub mod text;

use crate::app::action::Action;
use crate::app::model::Model;
use crate::app::settings::keymap::Context;

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
