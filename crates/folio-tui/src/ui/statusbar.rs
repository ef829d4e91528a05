//! The status bar: mode, store and dialect, entity count or load progress, then either the
//! latest message or 4–6 hints for the focused context, taken from the keymap.
use std::sync::atomic::Ordering;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::action::Action;
use crate::app::model::{Model, Pane};
use crate::markdown::sanitize;

/// The actions hinted for each context, most useful first.
fn hinted(model: &Model) -> &'static [Action] {
    match model.overlays.last() {
        Some(crate::app::model::Overlay::Recall { .. }) => {
            return &[Action::Open, Action::RecallSections, Action::Down, Action::Close];
        }
        Some(crate::app::model::Overlay::Confirm { .. }) => return &[Action::Confirm, Action::Close, Action::Down],
        Some(crate::app::model::Overlay::Reason { .. }) => return &[Action::Open, Action::Close],
        Some(crate::app::model::Overlay::Properties { .. }) => {
            return &[Action::YankProperty, Action::Down, Action::Up, Action::Close];
        }
        Some(_) => return &[Action::Close, Action::Down, Action::Up, Action::Open],
        None => {}
    }
    if model.editor.is_some() {
        return &[Action::Save, Action::NextField, Action::Close];
    }
    if model.review.confirm.is_some() {
        // An approval filed under a section: Tab picks another.
        if model.review.section.is_some() {
            return &[Action::Confirm, Action::Close, Action::NextSection, Action::Down];
        }
        return &[Action::Confirm, Action::Close, Action::Down];
    }
    if model.review.open {
        return &[
            Action::Approve,
            Action::Veto,
            Action::EditApprove,
            Action::Merge,
            Action::Skip,
            Action::Undo,
            Action::Help,
        ];
    }
    match model.focus {
        Pane::Tree => &[Action::Open, Action::Filter, Action::CycleSort, Action::YankId, Action::Help, Action::Quit],
        Pane::Preview => {
            &[Action::NextLink, Action::FollowLink, Action::Back, Action::YankId, Action::Help, Action::Quit]
        }
        Pane::Graph => {
            &[Action::Open, Action::SwitchSide, Action::DepthUp, Action::ExportGraph, Action::Back, Action::Help]
        }
        Pane::History if model.history.blame => &[Action::Blame, Action::FocusPreview, Action::Help],
        Pane::History => &[
            Action::NextChange,
            Action::DiffPageDown,
            Action::Blame,
            Action::MarkVersion,
            Action::RestoreVersion,
            Action::FocusPreview,
            Action::Help,
        ],
        Pane::Lint => &[
            Action::Open,
            Action::ApplyFix,
            Action::IgnoreFinding,
            Action::GroupBy,
            Action::FilterSeverity,
            Action::FilterRule,
            Action::Help,
        ],
    }
}

/// `(keys, short description)` for the hints shown now.
pub fn hints(model: &Model) -> Vec<(String, String)> {
    let contexts = model.contexts();
    hinted(model)
        .iter()
        .filter_map(|&a| {
            let key = model.keymap.key_for(&contexts, a)?;
            let desc = contexts
                .iter()
                .find_map(|c| model.keymap.bindings(*c).find(|b| b.action == a).map(|b| b.desc.clone()))
                .unwrap_or_else(|| a.desc().to_string());
            Some((key, desc.to_lowercase()))
        })
        .collect()
}

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    buf.set_style(area, t.style("status"));
    let mut spans = vec![Span::styled(format!(" {} ", model.mode()), t.style("status_key")), Span::raw(" ")];
    match &model.store {
        Some(store) => {
            let name = store.root.file_name().map(|n| n.to_string_lossy().into_owned());
            let root = sanitize::line(&name.unwrap_or_else(|| store.root.display().to_string()));
            spans.push(Span::styled(
                format!("{} · {root} · {} entities", store.kind(), store.entities.len()),
                t.style("status"),
            ));
            if model.refreshing {
                spans.push(Span::styled(" · reloading", t.style("status")));
            }
        }
        None => {
            let done = model.progress.done.load(Ordering::Relaxed);
            let total = model.progress.total.load(Ordering::Relaxed);
            let what = sanitize::line(&model.source_label);
            let text = match &model.load_error {
                Some(_) => format!("{what} · could not open"),
                None if total > 0 => format!("{what} · loading {done}/{total}"),
                None => format!("{what} · loading…"),
            };
            spans.push(Span::styled(text, t.style("status")));
        }
    }
    spans.push(Span::raw("  "));
    match &model.message {
        Some(m) => spans.push(Span::styled(
            sanitize::line(&m.text),
            if m.warn { t.style("status").patch(t.style("warn")) } else { t.style("status") },
        )),
        None => {
            if !model.pending_keys.is_empty() {
                let keys: String = model.pending_keys.iter().map(|k| k.display()).collect();
                spans.push(Span::styled(format!("{keys}…"), t.style("status")));
            }
            for (key, desc) in hints(model) {
                spans.push(Span::styled(format!(" {key} "), t.style("status_key")));
                spans.push(Span::styled(format!(" {desc}  "), t.style("status")));
            }
        }
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}
