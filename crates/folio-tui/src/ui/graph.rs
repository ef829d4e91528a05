//! The link graph pane: the open entity's neighbourhood drawn on a canvas (1–3 hops, rings
//! around the centre, ordered by id so the picture is stable between frames), and below it
//! the backlinks and outbound links as paged lists — the only view of dense hubs.
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Line as CanvasLine, Points};
use ratatui::widgets::{Block, Borders, Widget};

use crate::app::graph::neighbourhood::{GraphLayout, MAX_DRAWN, Node, areas, edge_kinds, is_dense, outbound};
use crate::app::model::{Model, Pane, Side};
use crate::markdown::sanitize;
use folio_core::store::Store;
use folio_core::store::model::entity::EntityIdx;

/// Labels on the canvas are cut to this many columns.
const LABEL_WIDTH: usize = 18;

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let focused = model.focus == Pane::Graph && model.overlays.is_empty();
    let border = if focused { t.style("border_focus") } else { t.style("border") };
    let (Some(store), Some(center)) = (&model.store, model.open_entity()) else {
        let block = Block::default().borders(Borders::ALL).border_style(border).title(" 3 Graph ");
        let inner = block.inner(area);
        block.render(area, buf);
        buf.set_line(inner.x, inner.y, &Line::styled("open an entity to see its links", t.style("muted")), inner.width);
        return;
    };
    let e = store.entity(center);
    let title = format!(" 3 Graph: {} · depth {} ", sanitize::line(&e.title), model.graph.depth);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Span::styled(title, if focused { t.style("accent") } else { t.style("muted") }));
    let inner = block.inner(area);
    block.render(area, buf);
    let (canvas, lists) = areas(inner, is_dense(model, center));
    if let Some(c) = canvas {
        draw_canvas(model, store, center, c, buf);
    }
    let [left, right] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(lists);
    let page = (lists.height as usize).saturating_sub(1).max(1);
    let g = &model.graph;
    let back = &store.backlinks[center as usize];
    let out = outbound(store, center);
    let head = |label: String, active: bool| {
        Line::styled(label, if active && focused { t.style("accent") } else { t.style("muted") })
    };
    let head = |label: String, active: bool, width: u16| super::inline::ellipsized(head(label, active), width);
    let back_head = head(format!("← backlinks ({})", back.len()), g.side == Side::Backlinks, left.width);
    buf.set_line(left.x, left.y, &back_head, left.width);
    let broken = out.iter().filter(|n| n.is_broken()).count();
    let merged = out.iter().filter(|n| n.is_merged()).count();
    let mut notes = String::new();
    if broken > 0 {
        notes += &format!(", {broken} broken");
    }
    if merged > 0 {
        notes += &format!(", {merged} merged in");
    }
    let out_head = format!("outbound ({}{notes}) →", out.len());
    let out_head = head(out_head, g.side == Side::Outbound, right.width.saturating_sub(1));
    buf.set_line(right.x + 1, right.y, &out_head, right.width.saturating_sub(1));
    let cursor_of = |side| if g.side == side { Some(g.cursor) } else { None };
    let back_rows = |first: usize| -> Vec<Line<'static>> {
        back.iter()
            .skip(first)
            .take(page)
            .map(|&b| {
                let kinds: Vec<String> = edge_kinds(store, b, center).into_iter().filter(|k| k != "link").collect();
                neighbour_line(model, Some(b), &kinds.join(","), &store.entity(b).id)
            })
            .collect()
    };
    let out_rows = |first: usize| -> Vec<Line<'static>> {
        out.iter()
            .skip(first)
            .take(page)
            .map(|n| match n.is_merged() {
                true => merged_line(model, &n.target),
                false => neighbour_line(model, n.idx, if n.kind == "link" { "" } else { &n.kind }, &n.target),
            })
            .collect()
    };
    let body = |r: Rect| Rect { y: r.y + 1, height: r.height.saturating_sub(1), ..r };
    draw_list(model, body(left), back.len(), cursor_of(Side::Backlinks), page, &back_rows, buf);
    let right_body = Rect { x: right.x + 1, width: right.width.saturating_sub(1), ..body(right) };
    draw_list(model, right_body, out.len(), cursor_of(Side::Outbound), page, &out_rows, buf);
}

fn neighbour_line(model: &Model, idx: Option<EntityIdx>, kind: &str, target: &str) -> Line<'static> {
    let t = &model.theme;
    let mut spans = Vec::new();
    if !kind.is_empty() {
        spans.push(Span::styled(format!("{} ", sanitize::line(kind)), t.style("tag")));
    }
    match (idx, &model.store) {
        (Some(i), Some(store)) => {
            let e = store.entity(i);
            spans.extend(super::inline::title_spans(&e.title, t.style("text"), t.style("code")));
            // The folder, dimmed: two pages of one title ("Hot Cache") are told apart (issue 23).
            let folder = folio_core::store::model::relpath::parent(&e.path);
            if !folder.is_empty() {
                spans.push(Span::styled(format!("  {}/", sanitize::line(folder)), t.style("muted")));
            }
        }
        _ => spans.push(Span::styled(format!("✗ {} (broken)", sanitize::line(target)), t.style("error"))),
    }
    Line::from(spans)
}

/// A page folded into the centre by a merge (`merged_from`): provenance, its page archived by
/// design, never shown as broken.
fn merged_line(model: &Model, target: &str) -> Line<'static> {
    let t = &model.theme;
    Line::from(vec![
        Span::styled("merged from ", t.style("tag")),
        Span::styled(format!("◇ {} (merged in, page archived)", sanitize::line(target)), t.style("muted")),
    ])
}

/// A paged list: only the page holding the cursor is built (a hub may have thousands of rows).
fn draw_list(
    model: &Model,
    area: Rect,
    len: usize,
    cursor: Option<usize>,
    page: usize,
    rows: &dyn Fn(usize) -> Vec<Line<'static>>,
    buf: &mut Buffer,
) {
    let t = &model.theme;
    if len == 0 {
        buf.set_line(area.x, area.y, &Line::styled("none", t.style("muted")), area.width);
        return;
    }
    let cur = cursor.unwrap_or(0).min(len - 1);
    let first = cur - cur % page;
    let visible = rows(first);
    let room = area.height as usize;
    for (n, line) in visible.into_iter().enumerate().take(room) {
        let y = area.y + n as u16;
        let line = super::inline::ellipsized(line, area.width);
        if cursor == Some(first + n) {
            let sel = t.style("selection");
            buf.set_style(Rect { y, height: 1, ..area }, sel);
            buf.set_line(area.x, y, &line.patch_style(sel), area.width);
        } else {
            buf.set_line(area.x, y, &line, area.width);
        }
    }
    if len > page && room > 0 {
        let pages = format!(" {}/{} ", first / page + 1, len.div_ceil(page));
        let x = area.x + area.width.saturating_sub(pages.len() as u16);
        buf.set_string(x, area.y + area.height - 1, pages, t.style("muted"));
    }
}

fn draw_canvas(model: &Model, store: &Store, center: EntityIdx, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let laid = model.graph.laid.as_ref().filter(|l| l.center == center && l.depth == model.graph.depth);
    let Some(laid) = laid else {
        buf.set_line(area.x, area.y, &Line::styled("laying out…", t.style("muted")), area.width);
        return;
    };
    if laid.dense {
        let text = format!(
            "more than {MAX_DRAWN} entities within {}: too dense to draw — browse the lists below",
            folio_core::store::model::count::count(usize::from(laid.depth), "hop")
        );
        buf.set_line(area.x, area.y, &Line::styled(text, t.style("muted")), area.width);
        return;
    }
    let bound = f64::from(laid.depth) + 0.6;
    let colour = |s: Style| s.fg.unwrap_or(ratatui::style::Color::Reset);
    let link_colour = colour(t.style("border"));
    let typed_colour = colour(t.style("tag"));
    let node_colour = colour(t.style("accent"));
    Canvas::default()
        .x_bounds([-bound * 1.6, bound * 1.6])
        .y_bounds([-bound, bound])
        .marker(ratatui::symbols::Marker::Braille)
        .paint(|ctx| {
            for (a, b, kind) in &laid.edges {
                let (p, q) = (&laid.nodes[*a], &laid.nodes[*b]);
                let c = if kind == "link" { link_colour } else { typed_colour };
                ctx.draw(&CanvasLine { x1: p.x * 1.6, y1: p.y, x2: q.x * 1.6, y2: q.y, color: c });
            }
            let coords: Vec<(f64, f64)> = laid.nodes.iter().map(|n| (n.x * 1.6, n.y)).collect();
            ctx.draw(&Points { coords: &coords, color: node_colour });
        })
        .render(area, buf);
    draw_labels(model, store, laid, area, bound, buf);
}

/// Node labels placed greedily, centre first then ring by ring: a label that would overlap
/// one already placed moves a row up or down, or is left out (its node stays drawn). Labels are
/// drawn after the edges, each with a blank cell either side, so no edge runs into a label's
/// letters; one longer than `LABEL_WIDTH` (or the canvas) ends in `…`.
pub fn draw_labels(model: &Model, store: &Store, laid: &GraphLayout, area: Rect, bound: f64, buf: &mut Buffer) {
    let t = &model.theme;
    let mut taken: Vec<(u16, u16, u16)> = Vec::new();
    let mut order: Vec<&Node> = laid.nodes.iter().collect();
    order.sort_by_key(|n| n.hop);
    let room = (area.width as usize).saturating_sub(2).min(LABEL_WIDTH) as u16;
    if room == 0 {
        return;
    }
    for n in order {
        let title = sanitize::line(&super::inline::plain_title(&store.entity(n.idx).title));
        let label = super::inline::ellipsized(Line::raw(title), room).to_string();
        // `Idempotency keys…`, not `Idempotency keys …`.
        let label = match label.strip_suffix('…') {
            Some(kept) => format!("{}…", kept.trim_end()),
            None => label,
        };
        let w = unicode_width::UnicodeWidthStr::width(label.as_str()) as u16;
        if w == 0 {
            continue;
        }
        let cx = area.x as f64 + (n.x + bound) / (2.0 * bound) * f64::from(area.width.saturating_sub(1));
        let cy = area.y as f64 + (bound - n.y) / (2.0 * bound) * f64::from(area.height.saturating_sub(1));
        // The label and its margins stay inside the canvas.
        let (lo, hi) = (f64::from(area.x + 1), f64::from(area.right().saturating_sub(w + 1)));
        let x = (cx - f64::from(w) / 2.0).round().clamp(lo, hi.max(lo)) as u16;
        let y0 = cy.round() as u16;
        // A label's cells with its margins: two labels never touch.
        let (mx, mw) = (x - 1, w + 2);
        let free = |y: u16| {
            y >= area.y
                && y < area.bottom()
                && taken.iter().all(|&(ty, tx, tw)| ty != y || mx + mw <= tx || tx + tw <= mx)
        };
        let Some(y) = [y0, y0.saturating_sub(1), y0 + 1].into_iter().find(|&y| free(y)) else { continue };
        taken.push((y, mx, mw));
        let style = if n.hop == 0 { t.style("title") } else { t.style("text") };
        buf.set_string(mx, y, " ", Style::new());
        buf.set_string(x, y, &label, style);
        buf.set_string(x + w, y, " ", Style::new());
    }
}
