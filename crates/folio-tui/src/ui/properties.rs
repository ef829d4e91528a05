//! Properties drawn whole: in the preview's header each value wraps under its label to at most
//! three rows (the last ends in `…` when there is more), titles wrap whole, and inline markdown
//! in titles and descriptions (code spans, emphasis) is rendered, not shown as backticks.
//! `K` opens them all in an overlay, each whole, where `y` copies the selected one.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use unicode_width::UnicodeWidthStr;

use crate::app::model::{Model, Overlay};
use crate::app::reader::properties::{self, Property};
use crate::app::settings::theme::Theme;
use crate::markdown::doc::{self, Block as MdBlock, Doc, Inline, InlineStyle};
use crate::markdown::layout::{self as md_layout, Role};

/// Width of the label column.
pub const LABEL: usize = 12;
/// Rows a value may take in the preview's header before it is cut with `…`.
pub const HEADER_ROWS: usize = 3;

/// `text` laid out at `width` in `base` style: inline markdown rendered when `markdown` is set
/// and the text is one paragraph, else taken literally; at most `max_rows` rows, the last
/// ending in `…` when more was cut.
pub fn wrapped(
    model: &Model,
    text: &str,
    markdown: bool,
    base: Style,
    width: usize,
    max_rows: Option<usize>,
) -> Vec<Vec<Span<'static>>> {
    let literal = || Doc {
        blocks: vec![MdBlock::Paragraph(vec![Inline { text: text.to_string(), style: InlineStyle::default() }])],
        links: Vec::new(),
    };
    let marked = markdown && text.contains(['`', '*', '_', '=']);
    let doc = match marked.then(|| doc::parse(text)) {
        Some(d) if matches!(d.blocks.as_slice(), [MdBlock::Paragraph(_)]) => d,
        _ => literal(),
    };
    let opts = md_layout::Options {
        width: width.clamp(1, u16::MAX as usize) as u16,
        highlighter: &model.highlighter,
        syntax_theme: &model.theme.syntax,
    };
    let laid = md_layout::layout(&doc, &opts);
    let t = &model.theme;
    let mut rows: Vec<Vec<Span<'static>>> = laid
        .lines
        .iter()
        .map(|l| l.0.iter().map(|p| Span::styled(p.text.clone(), piece_style(t, p.role, p.style, base))).collect())
        .collect();
    if let Some(max) = max_rows.filter(|&m| rows.len() > m) {
        rows.truncate(max);
        if let Some(last) = rows.last_mut() {
            ellipsize(last, width);
        }
    }
    rows
}

fn piece_style(t: &Theme, role: Role, style: InlineStyle, base: Style) -> Style {
    let mut s = match role {
        Role::Code => t.style("code"),
        Role::Hostile => t.style("hostile"),
        _ => base,
    };
    if style.strong {
        s = s.add_modifier(Modifier::BOLD);
    }
    if style.emphasis {
        s = s.add_modifier(Modifier::ITALIC);
    }
    if style.strike {
        s = s.add_modifier(Modifier::CROSSED_OUT);
    }
    if style.highlight {
        s = s.add_modifier(Modifier::REVERSED);
    }
    s
}

/// End a row in `…`, dropping characters from its end until it fits `width`.
fn ellipsize(row: &mut Vec<Span<'static>>, width: usize) {
    let style = row.last().map(|s| s.style).unwrap_or_default();
    while row.iter().map(|s| s.content.width()).sum::<usize>() + 1 > width {
        let Some(last) = row.last_mut() else { break };
        let mut text = last.content.to_string();
        if text.pop().is_none() || text.is_empty() {
            row.pop();
        } else {
            last.content = text.into();
        }
    }
    row.push(Span::styled("…", style));
}

/// The header's property lines: each value under its label, wrapped to `width`.
pub fn header_lines(model: &Model, props: &[Property], width: usize) -> Vec<Line<'static>> {
    let t = &model.theme;
    let mut out = Vec::new();
    for p in props {
        let value_width = width.saturating_sub(LABEL).max(8);
        let rows = wrapped(model, &p.value, p.label == "description", t.style(p.style), value_width, Some(HEADER_ROWS));
        for (n, row) in rows.into_iter().enumerate() {
            let label = if n == 0 { format!("{:<LABEL$}", p.label) } else { " ".repeat(LABEL) };
            let mut spans = vec![Span::styled(label, t.style("muted"))];
            spans.extend(row);
            out.push(Line::from(spans));
        }
    }
    out
}

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
        for row in wrapped(model, &p.value, false, t.style(p.style), inner_w.saturating_sub(2).max(8), None) {
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
