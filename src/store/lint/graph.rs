//! Graph rules: `orphan` (nothing links here) and `contradiction` (a declared, unresolved
//! `contradicts` edge), both over the links and backlinks computed at load time.
use std::collections::HashMap;

use super::Finding;
use super::manifest::{Kind, ManifestLints};
use crate::store::Store;
use crate::store::entity::{EntityIdx, rule};

pub fn check(store: &Store, manifest: &ManifestLints, out: &mut Vec<Finding>) {
    // Entries that share a file (memory logs) are records, not pages: nothing is expected to
    // link to each of them.
    let mut per_file: HashMap<&str, usize> = HashMap::new();
    for e in &store.entities {
        *per_file.entry(e.path.as_str()).or_insert(0) += 1;
    }
    for (i, e) in store.entities.iter().enumerate() {
        let idx = i as EntityIdx;
        if store.backlinks[i].is_empty() && per_file[e.path.as_str()] == 1 && !e.escapes_root() {
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
}
