//! The status bar: mode, store and dialect, entity count or load progress, then either the
//! latest message or 4–6 hints for the focused context, taken from the keymap.
use std::sync::atomic::Ordering;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::action::Action;
use crate::app::model::{Model, Pane};
use crate::markdown::sanitize;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
    let mode = format!(" {} ", model.mode());
    let mut spans = vec![Span::styled(mode.clone(), t.style("status_key")), Span::raw(" ")];
    let place = where_the_store_is(model);
    match &model.message {
        Some(m) => {
            let text = sanitize::line(&m.text);
            let style = if m.warn { t.style("status").patch(t.style("warn")) } else { t.style("status") };
            // A message is read whole (a refusal's end says why and what to do): the store's
            // part gives way to it, and one wider than the bar takes rows above it.
            let room = usize::from(area.width).saturating_sub(mode.width() + 1);
            if place.width() + 2 + text.width() <= room {
                spans.push(Span::styled(place, t.style("status")));
                spans.push(Span::raw("  "));
            }
            let rows = message_rows(&text, room, usize::from(area.y.min(MESSAGE_ROWS - 1)) + 1);
            let top = area.y - (rows.len() as u16 - 1);
            let indent = " ".repeat(mode.width() + 1);
            for (n, row) in rows.into_iter().enumerate() {
                let y = top + n as u16;
                // Cleared whole: a row broken at a space does not reach the edge.
                buf.set_string(area.x, y, " ".repeat(usize::from(area.width)), t.style("status"));
                let mut line = if n == 0 { std::mem::take(&mut spans) } else { vec![Span::raw(indent.clone())] };
                line.push(Span::styled(row, style));
                buf.set_line(area.x, y, &Line::from(line), area.width);
            }
            return;
        }
        None => {
            spans.push(Span::styled(place, t.style("status")));
            spans.push(Span::raw("  "));
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

/// The store's kind, name and size (or how its loading goes).
fn where_the_store_is(model: &Model) -> String {
    match &model.store {
        Some(store) => {
            let name = store.root.file_name().map(|n| n.to_string_lossy().into_owned());
            let root = sanitize::line(&name.unwrap_or_else(|| store.root.display().to_string()));
            let reloading = if model.refreshing { " · reloading" } else { "" };
            format!("{} · {root} · {} entities{reloading}", store.kind(), store.entities.len())
        }
        None => {
            let done = model.progress.done.load(Ordering::Relaxed);
            let total = model.progress.total.load(Ordering::Relaxed);
            let what = sanitize::line(&model.source_label);
            match &model.load_error {
                Some(_) => format!("{what} · could not open"),
                None if total > 0 => format!("{what} · loading {done}/{total}"),
                None => format!("{what} · loading…"),
            }
        }
    }
}

/// The most rows a message takes, the status bar's included.
const MESSAGE_ROWS: u16 = 3;

/// `text` in rows of `room` columns (`prose_rows`), at most `most` of them: one longer than
/// that loses its middle (`middle_cut`).
fn message_rows(text: &str, room: usize, most: usize) -> Vec<String> {
    let most = most.max(1);
    let mut rows = prose_rows(text, room);
    // What `most` rows hold, each after the first spending two columns on its mark; less by
    // a column while a row broken at a space or before a wide character leaves one unused.
    let mut fits = room + (most - 1) * room.saturating_sub(2);
    while rows.len() > most && fits > 0 {
        rows = prose_rows(&middle_cut(text, fits), room);
        fits -= 1;
    }
    rows.truncate(most);
    rows
}

/// Where a continuation row starts, as the diff dialogs mark theirs (`wrapped_lines`).
const MARK: &str = "↪ ";

/// `text` in rows of at most `room` columns (at least 4), each after the first starting with
/// `MARK`; a row breaks after its last space when that lies in its second half (a message is
/// prose: words are read whole), else where the room ends.
fn prose_rows(text: &str, room: usize) -> Vec<String> {
    let room = room.max(4);
    let (mut rows, mut rest, mut width) = (Vec::new(), text, room);
    loop {
        let (mut end, mut used, mut after_space) = (0, 0, None);
        for (i, c) in rest.char_indices() {
            let w = c.width().unwrap_or(0);
            if used + w > width {
                break;
            }
            used += w;
            end = i + c.len_utf8();
            if c == ' ' && used > width / 2 {
                after_space = Some(end);
            }
        }
        let mark = if rows.is_empty() { "" } else { MARK };
        if end == rest.len() {
            rows.push(format!("{mark}{rest}"));
            return rows;
        }
        // A character wider than the row still moves the text on.
        let cut = after_space.unwrap_or(end).max(rest.chars().next().map_or(1, char::len_utf8));
        rows.push(format!("{mark}{}", &rest[..cut]));
        rest = &rest[cut..];
        width = room - MARK.width();
    }
}

/// `text` within `room` columns: whole when it fits, else its first third and its end with
/// `…` between.
fn middle_cut(text: &str, room: usize) -> String {
    if text.width() <= room {
        return text.to_string();
    }
    let Some(room) = room.checked_sub(1) else { return String::new() };
    let head_room = room / 3;
    let (mut head, mut used) = (0, 0);
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > head_room {
            break;
        }
        used += w;
        head = i + c.len_utf8();
    }
    let mut tail = text.len();
    for (i, c) in text.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > room || i < head {
            break;
        }
        used += w;
        tail = i;
    }
    format!("{}…{}", &text[..head], &text[tail..])
}

#[cfg(test)]
mod tests {
    use super::{message_rows, middle_cut};
    use unicode_width::UnicodeWidthStr;

    #[test]
    fn a_cut_keeps_both_ends_within_the_room() {
        assert_eq!(middle_cut("short", 10), "short");
        assert_eq!(middle_cut("abcdefghij", 7), "ab…ghij");
        assert_eq!(middle_cut("abcdefghij", 1), "…");
        assert_eq!(middle_cut("abcdefghij", 0), "");
        for room in 0..30 {
            let cut = middle_cut("東京 and Zoë Ålander — 🚀 launched", room);
            assert!(cut.width() <= room, "{room}: {cut}");
        }
        assert_eq!(middle_cut("東京東京東京東京", 7), "東…東京", "a wide character is never split");
    }

    #[test]
    fn a_message_takes_at_most_its_rows_and_keeps_its_ends() {
        let text = format!("start {} end", "word ".repeat(100));
        for (room, most) in [(40, 3), (40, 1), (10, 2), (5, 3)] {
            let rows = message_rows(&text, room, most);
            assert!(rows.len() <= most, "{room} {most}: {rows:?}");
            assert!(rows.iter().all(|r| r.width() <= room.max(4)), "{room} {most}: {rows:?}");
            assert!(rows[0].starts_with("st") && rows.last().unwrap().ends_with("end"), "{rows:?}");
        }
        assert_eq!(message_rows("short", 40, 3), ["short"]);
        assert_eq!(message_rows("one two three four", 10, 3), ["one two ", "↪ three ", "↪ four"], "after a space");
        assert_eq!(message_rows("a verylongword", 8, 3), ["a verylo", "↪ ngword"], "no space in the second half");
        assert_eq!(message_rows("abcdefgh", 4, 2), ["a…ef", "↪ gh"]);
        assert_eq!(message_rows("abcdef", 4, 2), ["abcd", "↪ ef"]);
    }
}
