//! The graph pane in the update loop: cursor over backlinks or outbound links, re-centring on
//! a neighbour (through the preview's history), depth, export. The canvas layout is computed by
//! a worker; this only asks for it.
use ratatui::layout::Rect;

use crate::app::action::Action;
use crate::app::graph::neighbourhood as graph;
use crate::app::jobs::Job;
use crate::app::layout;
use crate::app::model::{Message, Model, Pane, Side};

pub fn focus(model: &mut Model) -> Vec<Job> {
    model.main = Pane::Graph;
    model.focus = Pane::Graph;
    relayout(model)
}

/// Ask for the canvas layout of the open entity when the one we have is for another.
pub fn relayout(model: &mut Model) -> Vec<Job> {
    let (Some(store), Some(center)) = (model.store.clone(), model.open_entity()) else { return Vec::new() };
    if model.main != Pane::Graph {
        return Vec::new();
    }
    let depth = model.graph.depth;
    if model.graph.laid.as_ref().is_some_and(|l| l.center == center && l.depth == depth) {
        return Vec::new();
    }
    vec![Job::LayoutGraph { store, center, depth }]
}

fn page(model: &Model) -> usize {
    layout::panes(Rect::new(0, 0, model.size.0, model.size.1), model.sidebar)
        .map(|p| graph::page_rows(p.preview, model.open_entity().is_some_and(|c| graph::is_dense(model, c))))
        .unwrap_or(1)
}

fn len(model: &Model) -> usize {
    match (&model.store, model.open_entity()) {
        (Some(s), Some(c)) => graph::side_len(s, c, model.graph.side),
        _ => 0,
    }
}

/// The graph pane's actions, while it has the focus and no overlay is open. None: not its own.
pub fn handle(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    match a {
        Action::Down | Action::Up | Action::PageDown | Action::PageUp => Some(act(model, a)),
        Action::HalfPageDown | Action::HalfPageUp | Action::Top | Action::Bottom => Some(act(model, a)),
        Action::Open | Action::SwitchSide | Action::DepthUp | Action::DepthDown => Some(act(model, a)),
        Action::ExportGraph => Some(act(model, a)),
        _ => None,
    }
}

fn act(model: &mut Model, a: Action) -> Vec<Job> {
    let (n, page) = (len(model), page(model));
    let g = &mut model.graph;
    if let Some(to) = crate::app::paged_list::move_cursor(g.cursor, a, n, page) {
        g.cursor = to;
        return Vec::new();
    }
    match a {
        Action::SwitchSide => {
            g.side = if g.side == Side::Backlinks { Side::Outbound } else { Side::Backlinks };
            g.cursor = 0;
        }
        Action::DepthUp | Action::DepthDown => {
            g.depth = if a == Action::DepthUp { (g.depth + 1).min(3) } else { g.depth.saturating_sub(1).max(1) };
            return relayout(model);
        }
        Action::Open => return recenter(model),
        Action::ExportGraph => {
            let (Some(store), Some(center)) = (model.store.clone(), model.open_entity()) else { return Vec::new() };
            return vec![Job::ExportGraph { store, center, depth: model.graph.depth }];
        }
        _ => {}
    }
    Vec::new()
}

/// Enter on a neighbour: it becomes the centre (and the open entity, with a history entry).
fn recenter(model: &mut Model) -> Vec<Job> {
    let (Some(store), Some(center)) = (model.store.clone(), model.open_entity()) else { return Vec::new() };
    let Some(next) = graph::neighbour_at(&store, center, model.graph.side, model.graph.cursor) else {
        let merged =
            graph::gone_at(&store, center, model.graph.side, model.graph.cursor).is_some_and(|n| n.is_merged());
        let text = if merged {
            "merged into this page: its own page was archived by the merge (folio history keeps it)"
        } else {
            "a broken link: nothing to centre on"
        };
        model.message = Some(Message { text: text.into(), warn: !merged });
        return Vec::new();
    };
    let mut jobs = crate::app::reader::update::open_entity(model, next, true);
    jobs.extend(centre_moved(model));
    jobs
}

/// A worker laid the neighbourhood out for the canvas.
pub fn laid(model: &mut Model, laid: std::sync::Arc<super::neighbourhood::GraphLayout>) -> Vec<Job> {
    model.graph.laid = Some(laid);
    Vec::new()
}

/// The open entity changed: start the lists at the top and lay the new centre out.
pub fn centre_moved(model: &mut Model) -> Vec<Job> {
    model.graph.cursor = 0;
    relayout(model)
}
