//! Properties drawn whole: `K` opens every property of the open entity in an overlay, each
//! value wrapped whole (as `app::reader::lines` wraps them, inline markdown rendered), where `y`
//! copies the selected one.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::app::model::{Model, Overlay};
use crate::app::reader::lines::wrapped;
use crate::app::reader::properties;

/// The `K` overlay: every property whole, the selected one highlighted.
pub fn render_overlay(model: &Model, area: Rect, buf: &mut Buffer) {
    let Some(Overlay::Properties { cursor }) = model.overlays.last() else { return };
    let t = &model.theme;
    let props = properties::of_open_entity(model);
    let w = area.width.saturating_sub(4).min(100);
    let inner_w = w.saturating_sub(2) as usize;
    // Every property's rows, and where each starts, to scroll the selected one into view.
    let mut lines: Vec<(usize, Line<'static>)> = Vec::new();
    for (n, p) in props.iter().enumerate() {
        lines.push((n, Line::styled(p.label.to_string(), t.style("accent"))));
        for row in wrapped(model, &p.shown(), false, t.style(p.style), inner_w.saturating_sub(2).max(8), None) {
            let mut spans = vec![Span::raw("  ")];
            spans.extend(row);
            lines.push((n, Line::from(spans)));
        }
    }
    let h = (lines.len() as u16 + 3).min(area.height.saturating_sub(2)).max(5);
    let rect =
        Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height.saturating_sub(h)) / 2, width: w, height: h };
    Clear.render(rect, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.style("border_focus"))
        .title(Span::styled(" Properties · y copy the selected value · Esc close ", t.style("accent")));
    let inner = block.inner(rect);
    block.render(rect, buf);
    buf.set_style(inner, t.style("text"));
    let first_of = lines.iter().position(|(n, _)| n == cursor).unwrap_or(0);
    let last_of = lines.iter().rposition(|(n, _)| n == cursor).unwrap_or(0);
    let height = inner.height as usize;
    let top = if last_of >= height { (last_of + 1 - height).min(first_of) } else { 0 };
    for (row, (n, line)) in lines.into_iter().skip(top).take(height).enumerate() {
        let y = inner.y + row as u16;
        if n == *cursor {
            let sel = t.style("selection");
            buf.set_style(Rect { y, height: 1, ..inner }, sel);
            buf.set_line(inner.x, y, &line.patch_style(sel), inner.width);
        } else {
            buf.set_line(inner.x, y, &line, inner.width);
        }
    }
}
