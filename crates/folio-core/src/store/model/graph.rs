//! The link graph: neighbourhoods and exports (DOT, Mermaid, JSON).
use std::collections::{BTreeSet, VecDeque};

use serde_json::json;

use super::entity::EntityIdx;
use crate::store::Store;

/// A directed edge between two entities: a body link (`kind` = "link") or a typed edge.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct GraphEdge {
    pub from: EntityIdx,
    pub to: EntityIdx,
    pub kind: String,
}

/// Edge kinds that record where a page came from, not what it points to: `merged_from` names the
/// pages folio folded into this one and archived (docs/review.md, "Merge"), gone by design.
/// Their unresolved targets are provenance, never broken links.
pub const PROVENANCE: &[&str] = &["merged_from"];

/// Whether edges of `kind` record provenance (`PROVENANCE`).
pub fn is_provenance(kind: &str) -> bool {
    PROVENANCE.contains(&kind)
}

/// A subgraph: nodes and the edges among them.
#[derive(Debug, Default)]
pub struct Subgraph {
    pub nodes: BTreeSet<EntityIdx>,
    pub edges: BTreeSet<GraphEdge>,
    /// Unresolved targets named by the nodes: (from, target as written).
    pub broken: BTreeSet<(EntityIdx, String)>,
    /// Pages merged into the nodes and no longer in the store: (node, merged id as written).
    pub merged: BTreeSet<(EntityIdx, String)>,
}

/// Outgoing edges of one entity (links deduplicated per target and kind).
pub fn outgoing(store: &Store, i: EntityIdx) -> Vec<GraphEdge> {
    let e = store.entity(i);
    let mut out = BTreeSet::new();
    for l in &e.links {
        if let Some(t) = l.entity().filter(|&t| t != i) {
            out.insert(GraphEdge { from: i, to: t, kind: "link".into() });
        }
    }
    for d in &e.edges {
        if let Some(t) = d.resolved.filter(|&t| t != i) {
            out.insert(GraphEdge { from: i, to: t, kind: d.kind.clone() });
        }
    }
    out.into_iter().collect()
}

/// The whole store as a graph.
pub fn whole(store: &Store) -> Subgraph {
    let mut g = Subgraph::default();
    for i in 0..store.entities.len() as EntityIdx {
        g.nodes.insert(i);
        g.edges.extend(outgoing(store, i));
        collect_broken(store, i, &mut g);
    }
    g
}

/// Everything within `depth` hops of `center`, following links in both directions.
pub fn around(store: &Store, center: EntityIdx, depth: usize) -> Subgraph {
    let mut g = Subgraph::default();
    let mut queue = VecDeque::from([(center, 0usize)]);
    g.nodes.insert(center);
    while let Some((n, d)) = queue.pop_front() {
        if d == depth {
            continue;
        }
        let mut neighbours: Vec<EntityIdx> = outgoing(store, n).into_iter().map(|e| e.to).collect();
        neighbours.extend(store.backlinks[n as usize].iter().copied());
        for m in neighbours {
            if g.nodes.insert(m) {
                queue.push_back((m, d + 1));
            }
        }
    }
    for &n in &g.nodes {
        for e in outgoing(store, n) {
            if g.nodes.contains(&e.to) {
                g.edges.insert(e);
            }
        }
    }
    let nodes: Vec<_> = g.nodes.iter().copied().collect();
    for n in nodes {
        collect_broken(store, n, &mut g);
    }
    g
}

fn collect_broken(store: &Store, i: EntityIdx, g: &mut Subgraph) {
    let e = store.entity(i);
    for l in e.links.iter().filter(|l| l.is_unresolved()) {
        g.broken.insert((i, l.target().to_string()));
    }
    for d in e.edges.iter().filter(|d| d.resolved.is_none()) {
        let gone = if is_provenance(&d.kind) { &mut g.merged } else { &mut g.broken };
        gone.insert((i, d.target.clone()));
    }
}

/// Graphviz DOT. Node names are entity ids, quoted and escaped.
pub fn to_dot(store: &Store, g: &Subgraph) -> String {
    let mut s = String::from("digraph folio {\n  rankdir=LR;\n  node [shape=box];\n");
    for &n in &g.nodes {
        let e = store.entity(n);
        s += &format!("  {} [label={}];\n", dot_quote(&e.id), dot_quote(&e.title));
    }
    for e in &g.edges {
        let (a, b) = (&store.entity(e.from).id, &store.entity(e.to).id);
        if e.kind == "link" {
            s += &format!("  {} -> {};\n", dot_quote(a), dot_quote(b));
        } else {
            s += &format!("  {} -> {} [label={}];\n", dot_quote(a), dot_quote(b), dot_quote(&e.kind));
        }
    }
    for (from, target) in &g.broken {
        let ghost = format!("broken:{target}");
        s += &format!(
            "  {} [label={}, style=dashed, color=red];\n  {} -> {} [style=dashed, color=red];\n",
            dot_quote(&ghost),
            dot_quote(target),
            dot_quote(&store.entity(*from).id),
            dot_quote(&ghost)
        );
    }
    for (into, target) in &g.merged {
        let ghost = format!("merged:{target}");
        s += &format!(
            "  {} [label={}, style=dotted, color=gray];\n  {} -> {} [label=\"merged from\", style=dotted, color=gray];\n",
            dot_quote(&ghost),
            dot_quote(&format!("{target} (merged in)")),
            dot_quote(&store.entity(*into).id),
            dot_quote(&ghost)
        );
    }
    s + "}\n"
}

fn dot_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Mermaid flowchart. Nodes get positional names (`n0`, `n1`…) because ids hold characters
/// Mermaid does not allow; labels carry the titles.
pub fn to_mermaid(store: &Store, g: &Subgraph) -> String {
    let names: std::collections::HashMap<EntityIdx, String> =
        g.nodes.iter().enumerate().map(|(k, &n)| (n, format!("n{k}"))).collect();
    let mut s = String::from("flowchart LR\n");
    for &n in &g.nodes {
        s += &format!("  {}[\"{}\"]\n", names[&n], mermaid_text(&store.entity(n).title));
    }
    for e in &g.edges {
        if e.kind == "link" {
            s += &format!("  {} --> {}\n", names[&e.from], names[&e.to]);
        } else {
            s += &format!("  {} -- \"{}\" --> {}\n", names[&e.from], mermaid_text(&e.kind), names[&e.to]);
        }
    }
    for (k, (from, target)) in g.broken.iter().enumerate() {
        s += &format!("  b{k}[\"{} (broken)\"]\n  {} -.-> b{k}\n", mermaid_text(target), names[from]);
    }
    for (k, (into, target)) in g.merged.iter().enumerate() {
        s += &format!("  m{k}[\"{} (merged in)\"]\n  {} -. merged from .-> m{k}\n", mermaid_text(target), names[into]);
    }
    s
}

fn mermaid_text(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .map(|c| match c {
            '"' => '\'',
            '[' | '{' | '(' => '⟨',
            ']' | '}' | ')' => '⟩',
            c => c,
        })
        .collect()
}

/// JSON: `{"nodes": [{"id","path","kind","title"}], "edges": [{"from","to","type"}],
/// "broken": [{"from","target"}], "merged_from": [{"from","target"}]}`.
pub fn to_json(store: &Store, g: &Subgraph) -> serde_json::Value {
    let nodes: Vec<_> = g
        .nodes
        .iter()
        .map(|&n| {
            let e = store.entity(n);
            json!({"id": e.id, "path": e.path, "kind": e.kind, "title": e.title})
        })
        .collect();
    let edges: Vec<_> = g
        .edges
        .iter()
        .map(|e| json!({"from": store.entity(e.from).id, "to": store.entity(e.to).id, "type": e.kind}))
        .collect();
    let broken: Vec<_> = g.broken.iter().map(|(f, t)| json!({"from": store.entity(*f).id, "target": t})).collect();
    let merged: Vec<_> = g.merged.iter().map(|(f, t)| json!({"from": store.entity(*f).id, "target": t})).collect();
    json!({"nodes": nodes, "edges": edges, "broken": broken, "merged_from": merged})
}
