//! Graph rules: `orphan` (nothing links here) and `contradiction` (a declared, unresolved
//! `contradicts` edge), both over the links and backlinks computed at load time.
use super::Finding;
use super::manifest::{Kind, ManifestLints};
use crate::store::Store;
use crate::store::model::entity::{EntityIdx, rule};

/// Whether other entities share this one's file (memory logs). Entities are sorted by path,
/// so those are its neighbours.
fn shares_file(store: &Store, i: usize) -> bool {
    let path = &store.entities[i].path;
    (i > 0 && store.entities[i - 1].path == *path) || store.entities.get(i + 1).is_some_and(|n| n.path == *path)
}

/// The graph findings of one entity.
pub fn check_entity(store: &Store, manifest: &ManifestLints, idx: EntityIdx, out: &mut Vec<Finding>) {
    let i = idx as usize;
    let e = store.entity(idx);
    // Entries that share a file (memory logs) are records, not pages: nothing is expected to
    // link to each of them.
    // A hub page (an LLM wiki's root `index.md`) is the entry point, not an orphan.
    let entry_point = store.kind().spec().hub_pages.contains(&e.path.as_str());
    // A format without links (an awareness home) has no orphans: nothing is meant to link.
    let links = store.kind().format().has_links();
    if links && store.backlinks[i].is_empty() && !shares_file(store, i) && !e.escapes_root() && !entry_point {
        out.push(
            Finding::on_entity(store, idx, rule::ORPHAN, e.line, 1, "no other entity links to this one".into())
                .with_severity(manifest.severity(Kind::Orphan, e.kind.as_deref())),
        );
    }
    for edge in e.edges.iter().filter(|d| d.kind == "contradicts") {
        let other = match edge.resolved {
            Some(t) => format!("`{}` ({})", store.entity(t).id, store.entity(t).path),
            None => format!("`{}` (not in the store)", edge.target),
        };
        out.push(Finding::on_entity(
            store,
            idx,
            rule::CONTRADICTION,
            e.line,
            1,
            format!("`{}` contradicts {other}; resolve it or record which one holds", e.id),
        ));
    }
}
