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

use crate::app::layout;
use crate::app::model::{Model, Pane};
use crate::app::reader::lines::{footer, header};
use crate::app::settings::theme::Theme;
use crate::markdown::layout::{Piece, Role};
use crate::markdown::sanitize;
use folio_core::store::model::entity::Resolution;

/// How each link of the open document resolved, by its target as written.
pub fn link_states(model: &Model) -> HashMap<String, Resolution> {
    let (Some(store), Some(idx)) = (&model.store, model.open_entity()) else { return HashMap::new() };
    store.entity(idx).links.iter().map(|l| (l.target().to_string(), l.resolution.clone())).collect()
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
