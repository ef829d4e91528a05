//! Overlays drawn over the panes: the help list, the command palette and the which-key hint.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::app::input::{help_rows, palette_rows};
use crate::app::model::{Model, Overlay};
use crate::markdown::sanitize;

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width.saturating_sub(2));
    let h = height.min(area.height.saturating_sub(2));
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

fn frame(model: &Model, rect: Rect, title: String, buf: &mut Buffer) -> Rect {
    let t = &model.theme;
    Clear.render(rect, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.style("border_focus"))
        .title(Span::styled(title, t.style("accent")));
    let inner = block.inner(rect);
    block.render(rect, buf);
    buf.set_style(inner, t.style("text"));
    inner
}

/// Draw a list with a selected row, scrolled to keep it visible.
fn list(model: &Model, area: Rect, rows: Vec<Line<'static>>, cursor: usize, buf: &mut Buffer) {
    let h = area.height as usize;
    let first = cursor.saturating_sub(h.saturating_sub(1));
    for (n, line) in rows.into_iter().enumerate().skip(first).take(h) {
        let y = area.y + (n - first) as u16;
        if n == cursor {
            let sel = model.theme.style("selection");
            buf.set_style(Rect { y, height: 1, ..area }, sel);
            buf.set_line(area.x, y, &line.patch_style(sel), area.width);
        } else {
            buf.set_line(area.x, y, &line, area.width);
        }
    }
}

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    match model.overlays.last() {
        Some(Overlay::Help { context, filter, cursor }) => {
            let rect = centered(area, 72, area.height.saturating_sub(4).max(8));
            let inner = frame(model, rect, format!(" Help: every key, {} first ", context.name()), buf);
            let prompt = Line::from(vec![
                Span::styled("filter: ", t.style("muted")),
                Span::styled(sanitize::line(filter), t.style("accent")),
                Span::styled("▏", t.style("accent")),
            ]);
            buf.set_line(inner.x, inner.y, &prompt, inner.width);
            // The catalog's markers, right of the filter: the one thing on screen no key explains.
            let marks = format!("marks {}", super::tree::MARKS);
            let w = unicode_width::UnicodeWidthStr::width(marks.as_str()) as u16;
            let typed = unicode_width::UnicodeWidthStr::width(filter.as_str()) as u16;
            if w + typed + 12 <= inner.width {
                let x = inner.x + inner.width - w;
                buf.set_line(x, inner.y, &Line::styled(marks, t.style("muted")), w);
            }
            // Grouped by context: each group's first row names it (after the description,
            // which takes what the keys and the group's name leave).
            let mut last = None;
            let desc_w = usize::from(inner.width).saturating_sub(14 + 11).max(10);
            let rows: Vec<Line> = help_rows(model, *context, filter)
                .into_iter()
                .map(|(ctx, keys, desc, _)| {
                    let group = if last == Some(ctx) { String::new() } else { format!(" {}", ctx.name()) };
                    last = Some(ctx);
                    Line::from(vec![
                        Span::styled(format!("{keys:>12}  "), t.style("accent")),
                        Span::styled(
                            format!("{:<desc_w$}", desc.chars().take(desc_w).collect::<String>()),
                            t.style("text"),
                        ),
                        Span::styled(group, t.style("heading")),
                    ])
                })
                .collect();
            let body = Rect { y: inner.y + 1, height: inner.height.saturating_sub(1), ..inner };
            if rows.is_empty() {
                buf.set_line(body.x, body.y, &Line::styled("no binding matches", t.style("muted")), body.width);
            }
            list(model, body, rows, *cursor, buf);
        }
        Some(Overlay::Palette { query, cursor }) => {
            let rect = centered(area, 80, 16);
            let inner = frame(model, rect, " Command palette ".into(), buf);
            let prompt = Line::from(vec![
                Span::styled(": ", t.style("accent")),
                Span::styled(sanitize::line(query), t.style("text")),
                Span::styled("▏", t.style("accent")),
            ]);
            buf.set_line(inner.x, inner.y, &prompt, inner.width);
            let contexts = model.contexts();
            let under: Vec<_> = [model.focus.context(), crate::app::settings::keymap::Context::Global].to_vec();
            // Each action's key: where it works now, else in the context that binds it (named).
            let all = crate::app::settings::keymap::Context::ALL;
            let rows: Vec<Line> = palette_rows(model, query)
                .into_iter()
                .map(|a| {
                    let here = model.keymap.key_for(&under, a).or_else(|| model.keymap.key_for(&contexts, a));
                    let key = here.or_else(|| {
                        all.iter().find_map(|&c| model.keymap.key_for(&[c], a).map(|k| format!("{k} ({})", c.name())))
                    });
                    let key = key.unwrap_or_default();
                    let room = usize::from(inner.width).saturating_sub(key.chars().count() + 1).max(10);
                    let desc: String = a.desc().chars().take(room).collect();
                    Line::from(vec![
                        Span::styled(format!("{desc:<room$} "), t.style("text")),
                        Span::styled(key, t.style("accent")),
                    ])
                })
                .collect();
            let body = Rect { y: inner.y + 1, height: inner.height.saturating_sub(1), ..inner };
            list(model, body, rows, *cursor, buf);
        }
        Some(Overlay::Recall { .. }) => super::recall::render(model, area, buf),
        Some(Overlay::Confirm { .. }) => super::fix_confirm::render(model, area, buf),
        Some(Overlay::Properties { .. }) => super::properties::render_overlay(model, area, buf),
        Some(Overlay::Reason { rule, entity, other, text }) => {
            // A pair's title names both entities.
            let rect = centered(area, if other.is_some() { 110 } else { 72 }, 5);
            let title = match other {
                Some(o) => format!(" Dismiss {rule} between {} and {} ", sanitize::line(entity), sanitize::line(o)),
                None => format!(" Ignore {rule} on {} ", sanitize::line(entity)),
            };
            let inner = frame(model, rect, title, buf);
            let prompt = Line::from(vec![
                Span::styled("reason: ", t.style("muted")),
                Span::styled(sanitize::line(text), t.style("text")),
                Span::styled("▏", t.style("accent")),
            ]);
            buf.set_line(inner.x, inner.y, &prompt, inner.width);
            // Every file the ignore writes, named before it is written.
            let help = match &model.store {
                Some(s) => {
                    let config = folio_core::store::lint::ignore::config_rel(s);
                    let log = folio_core::store::write::audit::log_path(&s.root, s.kind());
                    let log = folio_core::store::model::relpath::from_root(&s.root, &log);
                    format!("Enter: write it to {config}, logged in {log} · Esc: cancel")
                }
                None => "Enter: write it to the store's folio config · Esc: cancel".to_string(),
            };
            buf.set_line(inner.x, inner.y + 2, &Line::styled(help, t.style("muted")), inner.width);
        }
        None => {}
    }
    if !model.pending_keys.is_empty() {
        which_key(model, area, buf);
    }
}

/// After a prefix key: what each next key does.
fn which_key(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let next = model.keymap.continuations(&model.contexts(), &model.pending_keys);
    if next.is_empty() {
        return;
    }
    let h = next.len() as u16 + 2;
    let w = 36.min(area.width);
    let rect = Rect { x: area.x + area.width - w, y: area.y + area.height.saturating_sub(h + 1), width: w, height: h };
    let prefix: String = model.pending_keys.iter().map(|k| k.display()).collect();
    let inner = frame(model, rect, format!(" {prefix}… "), buf);
    for (n, b) in next.iter().enumerate().take(inner.height as usize) {
        let rest: String = b.keys[model.pending_keys.len()..].iter().map(|k| k.display()).collect();
        let line = Line::from(vec![Span::styled(format!("{rest:>4}  "), t.style("accent")), Span::raw(b.desc.clone())]);
        buf.set_line(inner.x, inner.y + n as u16, &line, inner.width);
    }
}
