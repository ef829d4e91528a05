//! The catalog tree: groups with counts and open/closed state, entities with two marker columns
//! — lint (`!` a warning or error, a dim `·` only infos or store-wide rules) and review (`◌`
//! pending) — the filter/sort line on top, and the markers' legend on the bottom border.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};
use std::sync::atomic::Ordering;

use crate::app::model::{Model, Pane, Row};
use crate::markdown::sanitize;

use crate::app::layout;
use folio_core::store::lint::marks::Mark;

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let focused = model.focus == Pane::Tree && model.overlays.is_empty();
    let count = model.store.as_ref().map(|s| s.entities.len()).unwrap_or(0);
    let shown = model.tree.count();
    let title =
        if shown == count { format!(" 1 Catalog ({count}) ") } else { format!(" 1 Catalog ({shown}/{count}) ") };
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.style("border_focus") } else { t.style("border") })
        .title(Span::styled(title, if focused { t.style("accent") } else { t.style("muted") }));
    if model.store.is_some() {
        block = block.title_bottom(legend(model, area.width.saturating_sub(2)));
    }
    block.render(area, buf);
    let rows_area = layout::tree_rows(area);
    let filter_line = Rect { y: rows_area.y - 1, height: 1, ..rows_area };
    let filter = if model.filtering {
        Line::from(vec![
            Span::styled("/", t.style("accent")),
            Span::styled(sanitize::line(&model.filter.query), t.style("text")),
            Span::styled("▏", t.style("accent")),
        ])
    } else if !model.filter.query.is_empty() {
        Line::from(vec![
            Span::styled("filter: ", t.style("muted")),
            Span::styled(sanitize::line(&model.filter.query), t.style("accent")),
        ])
    } else {
        Line::styled(format!("sort: {} · f filter · / recall", model.filter.sort.name()), t.style("muted"))
    };
    buf.set_line(filter_line.x, filter_line.y, &filter, filter_line.width);

    if let (None, Some(choice)) = (&model.store, &model.store_choice) {
        let head = format!("{} {} here — choose one (Enter opens it):", choice.names.len(), choice.what);
        buf.set_line(rows_area.x, rows_area.y, &Line::styled(head, t.style("muted")), rows_area.width);
        for (i, name) in choice.names.iter().enumerate().take(rows_area.height.saturating_sub(1) as usize) {
            let style = if i == choice.selected { t.style("selection") } else { t.style("text") };
            let line = Line::styled(format!("  {}", sanitize::line(name)), style);
            buf.set_line(rows_area.x, rows_area.y + 1 + i as u16, &line, rows_area.width);
        }
        return;
    }
    let Some(store) = &model.store else {
        let text = match &model.load_error {
            Some(e) => Line::styled(sanitize::line(e), t.style("error")),
            None => {
                let done = model.progress.done.load(Ordering::Relaxed);
                let total = model.progress.total.load(Ordering::Relaxed);
                let text = if total == 0 { "loading…".to_string() } else { format!("loading… {done}/{total}") };
                Line::styled(text, t.style("muted"))
            }
        };
        buf.set_line(rows_area.x, rows_area.y, &text, rows_area.width);
        return;
    };
    if model.rows.is_empty() {
        let text = if model.filter.query.is_empty() { "no entities" } else { "nothing matches the filter" };
        buf.set_line(rows_area.x, rows_area.y, &Line::styled(text, t.style("muted")), rows_area.width);
        return;
    }
    let visible = model.rows.iter().enumerate().skip(model.catalog_scroll).take(rows_area.height as usize);
    for (n, (i, row)) in visible.enumerate() {
        let y = rows_area.y + n as u16;
        let selected = i == model.cursor;
        let line = match row {
            Row::Group { label, depth, count, open, .. } => Line::from(vec![
                Span::raw("  ".repeat(*depth)),
                Span::styled(if *open { "▾ " } else { "▸ " }, t.style("marker")),
                Span::styled(sanitize::line(label), t.style("accent")),
                Span::styled(format!(" {count}"), t.style("muted")),
            ]),
            Row::Entity { idx, depth } => {
                let e = store.entity(*idx);
                // The lint engine's findings once it has run; the loader's own until then.
                let mark = model.lint_marks.get(*idx);
                // Two columns: a lint mark never hides the pending one (issue 41).
                let (lint, lint_style) = match mark {
                    Mark::Issue => ("!", t.style("warn")),
                    Mark::Note => ("·", t.style("muted")),
                    Mark::None => (" ", Style::new()),
                };
                let review = if e.is_pending() { "◌" } else { " " };
                let open = model.open_entity() == Some(*idx);
                let mut spans = vec![
                    Span::raw("  ".repeat(*depth)),
                    Span::styled(lint, lint_style),
                    Span::styled(review, t.style("pending")),
                    Span::raw(" "),
                ];
                let text = if open { t.style("title") } else { t.style("text") };
                spans.extend(super::inline::title_spans(&e.title, text, t.style("code")));
                Line::from(spans)
            }
        };
        let line = super::inline::ellipsized(line, rows_area.width);
        if selected {
            let sel = if focused { t.style("selection") } else { t.style("selection").patch(t.style("muted")) };
            buf.set_style(Rect { y, height: 1, ..rows_area }, sel);
            let line = line.patch_style(sel);
            buf.set_line(rows_area.x, y, &line, rows_area.width);
        } else {
            buf.set_line(rows_area.x, y, &line, rows_area.width);
        }
    }
}

/// What the catalog's markers mean (also shown in the help).
pub const MARKS: &str = "! warn/error  · info  ◌ pending review";

/// The markers' meaning on the bottom border, with the rules set apart as store-wide (what the
/// dim mark stands for on most rows); shortened to what fits.
fn legend(model: &Model, width: u16) -> Line<'static> {
    let t = &model.theme;
    let wide: Vec<String> = model.lint_marks.store_wide.iter().map(|(rule, n)| format!("{rule} on {n}")).collect();
    let mut tries = Vec::new();
    if !wide.is_empty() {
        let wide = wide.join(", ");
        tries.push(format!(" ! warn/error  · info or store-wide: {wide}  ◌ pending review "));
        tries.push(format!(" ! warn  · info, {wide}  ◌ pending "));
        tries.push(format!(" · store-wide: {wide} "));
    }
    tries.push(format!(" {MARKS} "));
    tries.push(" ! warn  · info  ◌ pending ".to_string());
    let fits = |s: &String| unicode_width::UnicodeWidthStr::width(s.as_str()) <= usize::from(width);
    let text = tries.into_iter().find(fits).unwrap_or_default();
    Line::styled(sanitize::line(&text), t.style("muted"))
}
