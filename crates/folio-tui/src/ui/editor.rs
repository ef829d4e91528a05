//! The in-app editor over the main area: the frontmatter fields as a form (key, one-line
//! value) above the body as text, the focused one highlighted; a merge editor shows the merged
//! body only.
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::app::model::Model;
use crate::markdown::sanitize;

/// Width of the key column of the form.
const KEY_WIDTH: u16 = 16;

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let Some(ed) = &model.editor else { return };
    let t = &model.theme;
    Clear.render(area, buf);
    let what = match (&ed.seed.merge_from, ed.then_approve) {
        (Some((_, from)), _) => format!("Merge {from} into {}", ed.seed.id),
        (None, true) => format!("Edit, then approve {}", ed.seed.id),
        (None, false) => format!("Edit {}", ed.seed.id),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.style("border_focus"))
        .title(Span::styled(
            format!(" {} · {} ", sanitize::line(&what), sanitize::line(&ed.seed.path)),
            t.style("accent"),
        ))
        .title_bottom(Span::styled(" Ctrl-S save · Tab next field · Esc discard ", t.style("muted")));
    let inner = block.inner(area);
    block.render(area, buf);
    buf.set_style(inner, t.style("text"));
    let form_h = (ed.fields.len() as u16).min(inner.height / 2);
    let error_h = u16::from(ed.error.is_some());
    let [form, error, body] =
        Layout::vertical([Constraint::Length(form_h), Constraint::Length(error_h), Constraint::Min(1)]).areas(inner);
    let first = ed.focus.min(ed.fields.len()).saturating_sub(form_h.saturating_sub(1) as usize);
    for (n, f) in ed.fields.iter().enumerate().skip(first).take(form_h as usize) {
        let y = form.y + (n - first) as u16;
        let focused = n == ed.focus;
        let key_style = if focused { t.style("accent") } else { t.style("muted") };
        buf.set_line(
            form.x,
            y,
            &Line::styled(format!("{:<w$}", sanitize::line(&f.key), w = KEY_WIDTH as usize), key_style),
            KEY_WIDTH,
        );
        let value = Rect { x: form.x + KEY_WIDTH, y, width: form.width.saturating_sub(KEY_WIDTH), height: 1 };
        let mut input = f.input.clone();
        input.set_cursor_line_style(Style::default());
        if !focused {
            input.set_cursor_style(Style::default());
        }
        input.render(value, buf);
    }
    if let Some(e) = &ed.error {
        buf.set_line(error.x, error.y, &Line::styled(format!("⚠ {}", sanitize::line(e)), t.style("warn")), error.width);
    }
    let body_block = Block::default()
        .borders(Borders::TOP)
        .border_style(if ed.focus == ed.fields.len() { t.style("border_focus") } else { t.style("border") })
        .title(Span::styled(" body ", t.style("muted")));
    let body_inner = body_block.inner(body);
    body_block.render(body, buf);
    let mut text = ed.body.clone();
    text.set_cursor_line_style(Style::default());
    if ed.focus != ed.fields.len() {
        text.set_cursor_style(Style::default());
    }
    text.render(body_inner, buf);
}
