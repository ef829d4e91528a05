//! The link graph pane: the open entity's neighbourhood drawn on a canvas (1–3 hops, rings
//! around the centre, ordered by id so the picture is stable between frames), and below it
//! the backlinks and outbound links as paged lists — the only view of dense hubs.
use std::collections::{BTreeMap, BTreeSet};

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Line as CanvasLine, Points};
use ratatui::widgets::{Block, Borders, Widget};

use crate::app::model::{Model, Pane, Side};
use crate::markdown::sanitize;
use folio_core::store::Store;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::model::graph::outgoing;

/// More nodes than this within the chosen depth: the canvas gives way to the lists.
pub const MAX_DRAWN: usize = 40;
/// Labels on the canvas are cut to this many columns.
const LABEL_WIDTH: usize = 18;

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub idx: EntityIdx,
    pub hop: u8,
    pub x: f64,
    pub y: f64,
}

/// A neighbourhood placed on rings: hop `h` on the circle of radius `h`.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphLayout {
    pub center: EntityIdx,
    pub depth: u8,
    pub nodes: Vec<Node>,
    /// (from, to, edge kind) as positions in `nodes`.
    pub edges: Vec<(usize, usize, String)>,
    /// More than `MAX_DRAWN` nodes: nothing is drawn.
    pub dense: bool,
}

/// Breadth-first to `depth` hops both ways, stopping once the node count passes `MAX_DRAWN`
/// (a hub with thousands of backlinks is never walked whole).
pub fn layout(store: &Store, center: EntityIdx, depth: u8) -> GraphLayout {
    let mut hops: BTreeMap<EntityIdx, u8> = BTreeMap::from([(center, 0)]);
    let mut frontier = vec![center];
    let mut dense = false;
    'walk: for hop in 1..=depth {
        let mut next = BTreeSet::new();
        for &n in &frontier {
            let out = outgoing(store, n).into_iter().map(|e| e.to);
            for m in out.chain(store.backlinks[n as usize].iter().copied()) {
                if !hops.contains_key(&m) && next.insert(m) && hops.len() + next.len() > MAX_DRAWN {
                    dense = true;
                    break 'walk;
                }
            }
        }
        frontier = next.iter().copied().collect();
        hops.extend(next.into_iter().map(|m| (m, hop)));
    }
    if dense {
        return GraphLayout { center, depth, nodes: Vec::new(), edges: Vec::new(), dense };
    }
    let mut rings: BTreeMap<u8, Vec<EntityIdx>> = BTreeMap::new();
    for (&n, &h) in &hops {
        rings.entry(h).or_default().push(n);
    }
    let mut nodes = Vec::new();
    for (&hop, members) in &mut rings {
        members.sort_by(|a, b| store.entity(*a).id.cmp(&store.entity(*b).id));
        let count = members.len() as f64;
        for (k, &idx) in members.iter().enumerate() {
            // Rings are turned against each other so labels of neighbouring rings do not line up.
            let angle = std::f64::consts::TAU * k as f64 / count + f64::from(hop) * 0.35 + 0.2;
            let r = f64::from(hop);
            nodes.push(Node { idx, hop, x: r * angle.cos(), y: r * angle.sin() });
        }
    }
    let at: BTreeMap<EntityIdx, usize> = nodes.iter().enumerate().map(|(k, n)| (n.idx, k)).collect();
    let mut edges = Vec::new();
    for (k, n) in nodes.iter().enumerate() {
        for e in outgoing(store, n.idx) {
            if let Some(&to) = at.get(&e.to) {
                edges.push((k, to, e.kind));
            }
        }
    }
    GraphLayout { center, depth, nodes, edges, dense }
}

/// One row of the outbound list: a resolved neighbour or a broken target.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    pub idx: Option<EntityIdx>,
    /// `link` or the typed edge's name.
    pub kind: String,
    pub target: String,
}

/// Outbound links and typed edges of `center`, then its unresolved targets: one row per
/// neighbour, naming every way it is linked (`related, link` for a page named in `related:`
/// and linked in the body).
pub fn outbound(store: &Store, center: EntityIdx) -> Vec<Neighbour> {
    let mut out: Vec<Neighbour> = Vec::new();
    let mut add = |idx: Option<EntityIdx>, kind: String, target: String| {
        let same =
            |n: &&mut Neighbour| if idx.is_some() { n.idx == idx } else { n.idx.is_none() && n.target == target };
        match out.iter_mut().find(|n| same(n)) {
            Some(n) if !n.kind.split(", ").any(|k| k == kind) => n.kind = format!("{}, {kind}", n.kind),
            Some(_) => {}
            None => out.push(Neighbour { idx, kind, target }),
        }
    };
    let mut edges = outgoing(store, center);
    // Typed edges name the relation: listed before a plain link to the same neighbour.
    edges.sort_by_key(|e| (e.to, e.kind == "link"));
    for e in edges {
        add(Some(e.to), e.kind, store.entity(e.to).id.clone());
    }
    let e = store.entity(center);
    let mut broken = BTreeSet::new();
    for d in e.edges.iter().filter(|d| d.resolved.is_none()) {
        broken.insert((d.target.clone(), 0, d.kind.clone()));
    }
    for l in e.links.iter().filter(|l| l.is_unresolved()) {
        broken.insert((l.target().to_string(), 1, "link".to_string()));
    }
    for (target, _, kind) in broken {
        add(None, kind, target);
    }
    out
}

/// How many rows the active list has.
pub fn side_len(store: &Store, center: EntityIdx, side: Side) -> usize {
    match side {
        Side::Backlinks => store.backlinks[center as usize].len(),
        Side::Outbound => outbound(store, center).len(),
    }
}

/// The entity at row `n` of the active list (`None` for a broken target).
pub fn neighbour_at(store: &Store, center: EntityIdx, side: Side, n: usize) -> Option<EntityIdx> {
    match side {
        Side::Backlinks => store.backlinks[center as usize].get(n).copied(),
        Side::Outbound => outbound(store, center).get(n).and_then(|x| x.idx),
    }
}

/// The kinds of the edges from `from` to `to` (`link`, `supersedes`, …).
fn edge_kinds(store: &Store, from: EntityIdx, to: EntityIdx) -> Vec<String> {
    outgoing(store, from).into_iter().filter(|e| e.to == to).map(|e| e.kind).collect()
}

/// The canvas and list areas inside the pane.
/// The canvas above and the lists below. A neighbourhood too dense to draw gets one row for
/// saying so, and the lists take the rest of the height.
pub fn areas(inner: Rect, dense: bool) -> (Option<Rect>, Rect) {
    if inner.height < 14 {
        return (None, inner);
    }
    if dense {
        let [note, lists] = Layout::vertical([Constraint::Length(2), Constraint::Min(4)]).areas(inner);
        return (Some(note), lists);
    }
    let [canvas, lists] = Layout::vertical([Constraint::Percentage(55), Constraint::Min(4)]).areas(inner);
    (Some(canvas), lists)
}

/// Rows of one list that fit in the pane at `area` (border and list header excluded).
pub fn page_rows(area: Rect, dense: bool) -> usize {
    let inner = Rect {
        x: area.x + 1,
        y: area.y + 1,
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    };
    let (_, lists) = areas(inner, dense);
    (lists.height as usize).saturating_sub(1).max(1)
}

/// Whether the graph pane shows `center`'s neighbourhood as too dense to draw.
pub fn is_dense(model: &Model, center: EntityIdx) -> bool {
    model.graph.laid.as_ref().is_some_and(|l| l.center == center && l.depth == model.graph.depth && l.dense)
}

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
    buf.set_line(left.x, left.y, &head(format!("← backlinks ({})", back.len()), g.side == Side::Backlinks), left.width);
    let broken = out.iter().filter(|n| n.idx.is_none()).count();
    let out_head = if broken > 0 {
        format!("outbound ({}, {broken} broken) →", out.len())
    } else {
        format!("outbound ({}) →", out.len())
    };
    buf.set_line(right.x + 1, right.y, &head(out_head, g.side == Side::Outbound), right.width.saturating_sub(1));
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
            .map(|n| neighbour_line(model, n.idx, if n.kind == "link" { "" } else { &n.kind }, &n.target))
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
            "more than {MAX_DRAWN} entities within {} hop(s): too dense to draw — browse the lists below",
            laid.depth
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
/// one already placed moves a row up or down, or is left out (its node stays drawn).
pub fn draw_labels(model: &Model, store: &Store, laid: &GraphLayout, area: Rect, bound: f64, buf: &mut Buffer) {
    let t = &model.theme;
    let mut taken: Vec<(u16, u16, u16)> = Vec::new();
    let mut order: Vec<&Node> = laid.nodes.iter().collect();
    order.sort_by_key(|n| n.hop);
    for n in order {
        let label: String =
            sanitize::line(&super::inline::plain_title(&store.entity(n.idx).title)).chars().take(LABEL_WIDTH).collect();
        let w = unicode_width::UnicodeWidthStr::width(label.as_str()).min(area.width as usize) as u16;
        let cx = area.x as f64 + (n.x + bound) / (2.0 * bound) * f64::from(area.width.saturating_sub(1));
        let cy = area.y as f64 + (bound - n.y) / (2.0 * bound) * f64::from(area.height.saturating_sub(1));
        let x =
            (cx - f64::from(w) / 2.0).round().clamp(area.x as f64, f64::from(area.right().saturating_sub(w))) as u16;
        let y0 = cy.round() as u16;
        let free = |y: u16| {
            y >= area.y && y < area.bottom() && taken.iter().all(|&(ty, tx, tw)| ty != y || x + w <= tx || tx + tw <= x)
        };
        let Some(y) = [y0, y0.saturating_sub(1), y0 + 1].into_iter().find(|&y| free(y)) else { continue };
        taken.push((y, x, w));
        let style = if n.hop == 0 { t.style("title") } else { t.style("text") };
        buf.set_string(x, y, label, style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub(backlinks: usize) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hub.md"), "# Hub\n\nSee [[gone]].\n").unwrap();
        for n in 0..backlinks {
            std::fs::write(dir.path().join(format!("n{n:04}.md")), "---\nsupersedes: hub\n---\n# N\n\n[[hub]]\n")
                .unwrap();
        }
        let s = Store::load(dir.path(), folio_core::store::dialect::vault::KIND, "test".into());
        (dir, s)
    }

    #[test]
    fn rings_are_stable_and_dense_hubs_stop_early() {
        let (_d, s) = hub(6);
        let h = s.find("hub").unwrap();
        let a = layout(&s, h, 1);
        assert_eq!(a, layout(&s, h, 1), "the same input lays out the same");
        assert_eq!(a.nodes.len(), 7);
        assert_eq!((a.nodes[0].idx, a.nodes[0].x, a.nodes[0].y), (h, 0.0, 0.0));
        assert!(a.nodes[1..].iter().all(|n| n.hop == 1 && ((n.x * n.x + n.y * n.y).sqrt() - 1.0).abs() < 1e-9));
        assert!(a.edges.iter().any(|(_, to, k)| *to == 0 && k == "link"));
        let (_d, big) = hub(60);
        let h = big.find("hub").unwrap();
        assert!(layout(&big, h, 2).dense);
        let out = outbound(&big, h);
        assert_eq!(out, [Neighbour { idx: None, kind: "link".into(), target: "gone".into() }]);
        assert_eq!(side_len(&big, h, Side::Backlinks), 60);
        assert_eq!(neighbour_at(&big, h, Side::Backlinks, 59), big.find("n0059"));
    }

    /// Issue 25: a neighbour named in `related:` and linked in the body is one row.
    #[test]
    fn a_neighbour_linked_twice_is_one_row() {
        let dir = tempfile::tempdir().unwrap();
        let page = "---\nrelated: [\"[[b]]\", \"[[Nowhere]]\"]\n---\n# A\n\nSee [[b]], [[B|bee]] and [[Nowhere]].\n";
        std::fs::write(dir.path().join("a.md"), page).unwrap();
        std::fs::write(dir.path().join("b.md"), "# B\n").unwrap();
        let s = Store::load(dir.path(), folio_core::store::dialect::vault::KIND, "test".into());
        let a = s.find("a").unwrap();
        let rows = outbound(&s, a);
        let row = |idx, kind: &str, target: &str| Neighbour { idx, kind: kind.into(), target: target.into() };
        assert_eq!(rows, [row(s.find("b"), "related, link", "b"), row(None, "related, link", "Nowhere")]);
        assert_eq!(side_len(&s, a, Side::Outbound), 2);
    }
}
