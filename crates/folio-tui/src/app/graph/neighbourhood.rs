//! The open entity's neighbourhood, as the graph pane shows it and its cursor moves through it:
//! laid out on rings for the canvas (1–3 hops, ordered by id so the picture is stable between
//! frames; a worker runs `layout`), and the backlinks and outbound links as paged lists.
use std::collections::{BTreeMap, BTreeSet};

use ratatui::layout::{Constraint, Layout, Rect};

use crate::app::model::{Model, Side};
use folio_core::store::Store;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::model::graph::{is_provenance, outgoing};

/// More nodes than this within the chosen depth: the canvas gives way to the lists.
pub const MAX_DRAWN: usize = 40;
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

/// One row of the outbound list: a resolved neighbour, a broken target, or a page merged into
/// the centre (named by `merged_from`, gone by design).
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    pub idx: Option<EntityIdx>,
    /// `link` or the typed edge's name.
    pub kind: String,
    pub target: String,
}

impl Neighbour {
    /// A target not in the store that only provenance names (`merged_from`): a merged page,
    /// not a broken link.
    pub fn is_merged(&self) -> bool {
        self.idx.is_none() && self.kind.split(", ").all(is_provenance)
    }

    /// A target not in the store that some link or edge expects to find.
    pub fn is_broken(&self) -> bool {
        self.idx.is_none() && !self.is_merged()
    }
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

/// The row `n` of the active list when it names no entity: a broken or merged target.
pub fn gone_at(store: &Store, center: EntityIdx, side: Side, n: usize) -> Option<Neighbour> {
    match side {
        Side::Backlinks => None,
        Side::Outbound => outbound(store, center).into_iter().nth(n).filter(|x| x.idx.is_none()),
    }
}

/// The entity at row `n` of the active list (`None` for a broken or merged target).
pub fn neighbour_at(store: &Store, center: EntityIdx, side: Side, n: usize) -> Option<EntityIdx> {
    match side {
        Side::Backlinks => store.backlinks[center as usize].get(n).copied(),
        Side::Outbound => outbound(store, center).get(n).and_then(|x| x.idx),
    }
}

/// The kinds of the edges from `from` to `to` (`link`, `supersedes`, …).
pub fn edge_kinds(store: &Store, from: EntityIdx, to: EntityIdx) -> Vec<String> {
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

    /// Issue 41: `merged_from` names pages folded into this one; they are merged, not broken.
    #[test]
    fn a_merged_page_is_provenance_not_a_broken_link() {
        let dir = tempfile::tempdir().unwrap();
        let page = "---\nmerged_from: [memory]\nrelated: [gone]\n---\n# Kept\n\nSee [[b]].\n";
        std::fs::write(dir.path().join("kept.md"), page).unwrap();
        std::fs::write(dir.path().join("b.md"), "# B\n").unwrap();
        let s = Store::load(dir.path(), folio_core::store::dialect::vault::KIND, "test".into());
        let kept = s.find("kept").unwrap();
        let rows = outbound(&s, kept);
        let merged: Vec<&str> = rows.iter().filter(|n| n.is_merged()).map(|n| n.target.as_str()).collect();
        let broken: Vec<&str> = rows.iter().filter(|n| n.is_broken()).map(|n| n.target.as_str()).collect();
        assert_eq!((merged, broken), (vec!["memory"], vec!["gone"]));
        let at = rows.iter().position(|n| n.target == "memory").unwrap();
        assert!(gone_at(&s, kept, Side::Outbound, at).is_some_and(|n| n.is_merged()));
        assert_eq!(gone_at(&s, kept, Side::Outbound, 0), None, "b resolves");
    }
}
