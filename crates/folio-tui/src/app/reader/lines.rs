//! The preview's column of lines around the body: above it the title, the properties (each
//! value wrapped under its label to at most three rows, the last ending in `…` when there is
//! more; inline markdown in titles and descriptions rendered) and the entity's problems; below
//! it the links out and the backlinks. Laid out here rather than in the view because scrolling
//! (`update`) counts the same lines the view draws.
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::properties::{self, Property};
use crate::app::model::{Model, Preview};
use crate::app::settings::theme::Theme;
use crate::markdown::doc::{self, Block as MdBlock, Doc, Inline, InlineStyle};
use crate::markdown::layout::{self as md_layout, Role};
use crate::markdown::sanitize;
use folio_core::store::model::entity::Resolution;

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
        let rows =
            wrapped(model, &p.shown(), p.label == "description", t.style(p.style), value_width, Some(HEADER_ROWS));
        for (n, row) in rows.into_iter().enumerate() {
            let label = if n == 0 { format!("{:<LABEL$}", p.label) } else { " ".repeat(LABEL) };
            let mut spans = vec![Span::styled(label, t.style("muted"))];
            spans.extend(row);
            out.push(Line::from(spans));
        }
    }
    out
}

/// The lines above the body at `width`: a notice when the entity is gone, then its title and
/// properties, each wrapped (see `wrapped`).
pub fn header(model: &Model, preview: &Preview, width: u16) -> Vec<Line<'static>> {
    let t = &model.theme;
    let mut out = Vec::new();
    let Some(store) = &model.store else { return out };
    let Some(idx) = preview.idx else {
        out.push(Line::styled(
            format!("⚠ {} was deleted on disk; this is what it held", sanitize::line(&preview.path)),
            t.style("warn"),
        ));
        out.push(Line::default());
        return out;
    };
    let width = usize::from(width).max(8);
    let e = store.entity(idx);
    out.extend(wrapped(model, &e.title, true, t.style("title"), width, None).into_iter().map(Line::from));
    out.extend(header_lines(model, &properties::of(store, e), width));
    for p in &e.problems {
        // "⚠ rule message (line N)", the message wrapped under the rule with a hanging indent.
        let text = format!("{} {} (line {})", p.rule, p.message, p.line);
        let rows = wrapped(model, &text, false, t.style("text"), width.saturating_sub(2).max(8), Some(3));
        for (n, mut row) in rows.into_iter().enumerate() {
            if n == 0
                && let Some(first) = row.first_mut()
            {
                first.style = t.style("warn");
            }
            let mut spans = vec![Span::styled(if n == 0 { "⚠ " } else { "  " }, t.style("warn"))];
            spans.extend(row);
            out.push(Line::from(spans));
        }
    }
    out.push(Line::styled("─".repeat(40.min(width)), t.style("border")));
    out
}

/// The lines below the body: outbound links with their state, then backlinks.
pub fn footer(model: &Model, preview: &Preview) -> Vec<Line<'static>> {
    let t = &model.theme;
    let (Some(store), Some(idx)) = (&model.store, preview.idx) else { return Vec::new() };
    let e = store.entity(idx);
    let mut out = vec![Line::default(), Line::styled("─".repeat(40), t.style("border"))];
    let internal: Vec<_> = e.links.iter().filter(|l| l.is_internal()).collect();
    out.push(Line::styled(format!("Links out ({})", internal.len()), t.style("accent")));
    for l in internal {
        let (target, style) = match &l.resolution {
            Resolution::Entity(i) => (format!("→ {}", store.entity(*i).id), t.style("link")),
            Resolution::File(f) => (format!("→ {f} (file)"), t.style("muted")),
            Resolution::Escapes => (format!("✗ {} (leaves the store)", l.target()), t.style("link_broken")),
            _ => (format!("✗ {} (broken)", l.target()), t.style("link_broken")),
        };
        out.push(Line::from(vec![Span::raw("  "), Span::styled(sanitize::line(&target), style)]));
    }
    let back = &store.backlinks[idx as usize];
    out.push(Line::styled(format!("Backlinks ({})", back.len()), t.style("accent")));
    for &b in back.iter() {
        let src = store.entity(b);
        out.push(Line::from(vec![
            Span::raw("  ← "),
            Span::styled(sanitize::line(&src.title), t.style("text")),
            Span::styled(format!("  {}", sanitize::line(&src.id)), t.style("muted")),
        ]));
    }
    out
}

/// Number of lines in the preview at `width` (for scrolling limits).
pub fn total_lines(model: &Model, width: u16) -> usize {
    let Some(p) = &model.preview else { return 0 };
    let body = match &p.body {
        Some(Ok(b)) => model.laid_body(width).lines.len() + usize::from(b.notice.is_some()),
        _ => 1,
    };
    header(model, p, width).len() + body + footer(model, p).len()
}
