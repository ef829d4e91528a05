//! The preview pane: a properties table from the entity's fields, the rendered markdown body,
//! and a footer of outbound links and backlinks, scrolled as one column of lines.
use std::collections::HashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState, StatefulWidget, Widget, Wrap,
};

use crate::app::model::{Model, Pane, Preview};
use crate::app::settings::theme::Theme;
use crate::markdown::layout::{Piece, Role};
use crate::markdown::sanitize;
use folio_core::store::model::entity::{Entity, Resolution};

use super::properties;
use crate::app::layout;

/// The lines above the body at `width`: a notice when the entity is gone, then its title and
/// properties, each wrapped (see `properties`).
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
    out.extend(properties::wrapped(model, &e.title, true, t.style("title"), width, None).into_iter().map(Line::from));
    out.extend(properties::header_lines(model, &crate::app::reader::properties::of(store, e), width));
    for p in &e.problems {
        // "⚠ rule message (line N)", the message wrapped under the rule with a hanging indent.
        let text = format!("{} {} (line {})", p.rule, p.message, p.line);
        let rows = properties::wrapped(model, &text, false, t.style("text"), width.saturating_sub(2).max(8), Some(3));
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

/// Whether the catalog marks the entity with a lint finding.
pub fn has_findings(e: &Entity) -> bool {
    !e.problems.is_empty() || e.links.iter().any(|l| l.is_unresolved())
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

/// How each link of the open document resolved, by its target as written.
pub fn link_states(model: &Model) -> HashMap<String, Resolution> {
    let (Some(store), Some(idx)) = (&model.store, model.open_entity()) else { return HashMap::new() };
    store.entity(idx).links.iter().map(|l| (l.target().to_string(), l.resolution.clone())).collect()
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

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let focused = model.focus == Pane::Preview && model.overlays.is_empty();
    let title = model.preview.as_ref().map(|p| sanitize::line(&p.path)).unwrap_or_else(|| "preview".into());
    Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.style("border_focus") } else { t.style("border") })
        .title(Span::styled(format!(" 2 {title} "), if focused { t.style("accent") } else { t.style("muted") }))
        .render(area, buf);
    let body = layout::preview_body(area);
    let Some(p) = &model.preview else {
        let text = match (&model.store, &model.load_error) {
            (_, Some(e)) => Line::styled(format!("could not open the store: {}", sanitize::line(e)), t.style("error")),
            (Some(_), None) => Line::styled("Select an entity and press Enter.", t.style("muted")),
            (None, None) => Line::styled("loading…", t.style("muted")),
        };
        Paragraph::new(text).wrap(Wrap { trim: false }).render(body, buf);
        return;
    };
    let head = header(model, p, body.width);
    let foot = footer(model, p);
    let mut middle: Vec<Line<'static>> = Vec::new();
    let laid = model.laid_body(body.width);
    match &p.body {
        None => middle.push(Line::styled("reading…", t.style("muted"))),
        Some(Err(e)) => middle.push(Line::styled(sanitize::line(e), t.style("error"))),
        Some(Ok(b)) => {
            if let Some(n) = &b.notice {
                middle.push(Line::styled(format!("⚠ {}", sanitize::line(n)), t.style("warn")));
            }
        }
    }
    let states = link_states(model);
    let links = match &p.body {
        Some(Ok(b)) => &b.doc.links[..],
        _ => &[],
    };
    let total = head.len() + middle.len() + laid.lines.len() + foot.len();
    let first_body = head.len() + middle.len();
    for row in 0..body.height as usize {
        let n = p.scroll + row;
        let y = body.y + row as u16;
        let line = if n < head.len() {
            head[n].clone()
        } else if n < first_body {
            middle[n - head.len()].clone()
        } else if n < first_body + laid.lines.len() {
            let pieces = &laid.lines[n - first_body].0;
            Line::from(pieces.iter().map(|piece| span(t, piece, links, &states, p.link)).collect::<Vec<_>>())
        } else if n < total {
            foot[n - first_body - laid.lines.len()].clone()
        } else {
            break;
        };
        buf.set_line(body.x, y, &line, body.width);
    }
    if total > body.height as usize {
        let mut state = ScrollbarState::new(total.saturating_sub(body.height as usize)).position(p.scroll);
        let bar = Rect { x: body.x + body.width, width: 1, ..body };
        Scrollbar::new(ScrollbarOrientation::VerticalRight)
            .begin_symbol(None)
            .end_symbol(None)
            .thumb_style(t.style("border_focus"))
            .track_style(t.style("border"))
            .render(bar, buf, &mut state);
    }
}

fn role_style(t: &Theme, role: Role) -> Style {
    match role {
        Role::Text => t.style("text"),
        Role::Heading(_) => t.style("heading"),
        Role::Code => t.style("code"),
        Role::Syntax(rgb) => t.syntax_style(rgb),
        Role::CodeFrame => t.style("code_frame"),
        Role::Marker | Role::TaskOpen => t.style("marker"),
        Role::TaskDone => t.style("task_done"),
        Role::Quote => t.style("quote"),
        Role::Callout | Role::Tag => t.style("accent"),
        Role::Rule | Role::TableBorder => t.style("border"),
        Role::TableHeader => t.style("accent"),
        Role::Hostile => t.style("hostile"),
    }
}

fn span(
    t: &Theme,
    piece: &Piece,
    links: &[crate::markdown::doc::DocLink],
    states: &HashMap<String, Resolution>,
    selected: Option<usize>,
) -> Span<'static> {
    let mut style = role_style(t, piece.role);
    if piece.style.highlight {
        style = style.add_modifier(Modifier::REVERSED);
    }
    if piece.style.strong {
        style = style.add_modifier(Modifier::BOLD);
    }
    if piece.style.emphasis {
        style = style.add_modifier(Modifier::ITALIC);
    }
    if piece.style.strike {
        style = style.add_modifier(Modifier::CROSSED_OUT);
    }
    if let Some(l) = piece.style.link {
        let broken = links
            .get(l as usize)
            .and_then(|dl| states.get(&dl.target))
            .is_some_and(|r| matches!(r, Resolution::Broken | Resolution::Escapes));
        style = style.patch(if broken { t.style("link_broken") } else { t.style("link") });
        if selected == Some(l as usize) {
            style = style.patch(t.style("link_selected"));
        }
    }
    Span::styled(piece.text.clone(), style)
}
