//! Re-resolving a store after some of its files were read again — from disk by a refresh
//! (`keep::refresh`) or from a plan's bytes by an overlay (`write::overlay`).
//!
//! When the re-read files keep their entities (same count, same id, title, aliases: what
//! links resolve by) — the common case of an agent rewriting notes, or of a verdict — indices
//! and every other entity's links stay valid: only the re-read entities are resolved and their
//! backlinks patched, every other entity shared. Anything else (files added or removed, a
//! renamed title) re-resolves every link.
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;

use crate::store::Store;
use crate::store::dialect::FileRole;
use crate::store::model::entity::{Entity, EntityIdx, LinkSyntax};
use crate::store::read::resolve::Lookup;

mod lookup;
use lookup::SortedLookup;

/// What a refresh changed, by relative path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RefreshReport {
    pub changed: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Entity files read and parsed (only the changed and added ones).
    pub parsed: usize,
    /// Whether every link was resolved again (false: only the re-read entities' links).
    pub relinked_all: bool,
}

impl RefreshReport {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }
}

/// The named files, read and parsed; nothing in the store has changed yet.
pub(crate) struct Plan {
    /// Every path refreshed, relative, unique.
    pub targets: HashSet<String>,
    /// Entities of the target files that are entity files now, sorted by path and line.
    pub fresh: Vec<Entity>,
    /// Target files that are other files now (catalogs, logs, sources…).
    pub other: Vec<(String, FileRole)>,
    pub report: RefreshReport,
}

impl Store {
    /// A copy to patch by a plan (a refresh, an overlay): every entity, link table and file list
    /// shared with `self`, the dialect opened again, nothing memoised carried over.
    pub(crate) fn copy_to_patch(&self, overlay: Arc<std::collections::HashMap<String, bool>>) -> Store {
        Store {
            root: self.root.clone(),
            dialect: self.kind().open(&self.root),
            detected_by: self.detected_by.clone(),
            entities: self.entities.clone(),
            other_files: self.other_files.clone(),
            walk_warnings: self.walk_warnings.clone(),
            backlinks: self.backlinks.clone(),
            load_ms: self.load_ms,
            read_since: self.read_since,
            from_cache: false,
            by_id: Arc::clone(&self.by_id),
            overlay,
            catalog_memo: Default::default(),
            loaded_terms: Default::default(),
            loaded_facts: Default::default(),
        }
    }

    /// Whether the store knows the file (as an entity file or another file).
    pub(crate) fn has_file(&self, rel: &str) -> bool {
        !self.entity_range(rel).is_empty() || self.other_files.binary_search_by(|(p, _)| p.as_str().cmp(rel)).is_ok()
    }

    /// The indices of the entities in file `rel` (entities are sorted by path).
    fn entity_range(&self, rel: &str) -> std::ops::Range<usize> {
        let start = self.entities.partition_point(|e| e.path.as_str() < rel);
        let end = start + self.entities[start..].partition_point(|e| e.path == rel);
        start..end
    }

    pub(crate) fn apply_plan(&mut self, plan: Plan) -> RefreshReport {
        let Plan { targets, fresh, other, mut report } = plan;
        if targets.is_empty() {
            return report;
        }
        // Entities are re-read: the catalogs' remembered verdict no longer describes them.
        self.set_catalog_memo(None);
        // The load's term table and text facts hold the bodies as they were.
        drop(self.take_loaded_terms());
        drop(self.take_loaded_facts());
        if let Some(slots) = self.same_shape(&targets, &fresh, &other, &report) {
            self.patch(slots, fresh);
            return report;
        }
        report.relinked_all = true;
        self.entities.retain(|e| !targets.contains(e.path.as_str()));
        self.other_files.retain(|(p, _)| !targets.contains(p.as_str()));
        self.entities.extend(fresh.into_iter().map(Arc::new));
        self.other_files.extend(other);
        self.entities.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
        self.other_files.sort_by(|a, b| a.0.cmp(&b.0));
        self.link(false);
        report
    }

    /// When the re-read entities can take the places of the old ones without changing what any
    /// other link resolves to: their indices (same count per file, no file added or removed)
    /// and everything the resolver keys on. Returns the index for each fresh entity.
    fn same_shape(
        &self,
        targets: &HashSet<String>,
        fresh: &[Entity],
        other: &[(String, FileRole)],
        report: &RefreshReport,
    ) -> Option<Vec<usize>> {
        if !report.added.is_empty() || !report.removed.is_empty() {
            return None;
        }
        for (rel, role) in other {
            let at = self.other_files.binary_search_by(|(p, _)| p.as_str().cmp(rel)).ok()?;
            if self.other_files[at].1 != *role || !self.entity_range(rel).is_empty() {
                return None;
            }
        }
        let mut slots = Vec::with_capacity(fresh.len());
        let mut i = 0;
        while i < fresh.len() {
            let path = &fresh[i].path;
            let n = fresh[i..].iter().take_while(|e| &e.path == path).count();
            let range = self.entity_range(path);
            if range.len() != n {
                return None;
            }
            for (new, old) in fresh[i..i + n].iter().zip(&self.entities[range.clone()]) {
                let same = new.id == old.id
                    && new.title == old.title
                    && new.aliases == old.aliases
                    && new.escapes_root() == old.escapes_root();
                if !same {
                    return None;
                }
            }
            slots.extend(range);
            i += n;
        }
        // Every target that held entities must still hold them (a removed file shifts indices).
        let refilled: HashSet<&str> = fresh.iter().map(|e| e.path.as_str()).collect();
        let emptied = targets.iter().any(|t| !refilled.contains(t.as_str()) && !self.entity_range(t).is_empty());
        (!emptied).then_some(slots)
    }

    /// Put the re-read entities in their slots, resolve their links and edges, and move their
    /// backlink contributions from the old targets to the new ones. A link or edge the entity
    /// already had (same syntax and target, from the same file) resolves as before, since
    /// nothing it resolves by changed; new ones are resolved against the sorted store
    /// (`SortedLookup`), which builds nothing proportional to the store.
    fn patch(&mut self, slots: Vec<usize>, mut fresh: Vec<Entity>) {
        let context = self.link_context();
        let recording = SortedLookup::recording(&self.entities, &self.other_files, &context);
        resolve_new(&mut fresh, &slots, &self.entities, &recording);
        let lookup = recording.with_names();
        resolve_new(&mut fresh, &slots, &self.entities, &lookup);
        drop(lookup);
        // Backlink rows are shared with the old store: each row that changes is rebuilt once.
        let mut moves: BTreeMap<EntityIdx, Vec<(EntityIdx, bool)>> = BTreeMap::new();
        for (slot, new) in slots.into_iter().zip(fresh) {
            let i = slot as EntityIdx;
            for t in targets_of(&self.entities[slot]).into_iter().filter(|&t| t != i) {
                moves.entry(t).or_default().push((i, false));
            }
            for t in targets_of(&new).into_iter().filter(|&t| t != i) {
                moves.entry(t).or_default().push((i, true));
            }
            self.entities[slot] = Arc::new(new);
        }
        for (t, changes) in moves {
            let mut row = self.backlinks[t as usize].to_vec();
            for (i, add) in changes {
                match (row.binary_search(&i), add) {
                    (Ok(at), false) => {
                        row.remove(at);
                    }
                    (Err(at), true) => row.insert(at, i),
                    _ => {}
                }
            }
            self.backlinks[t as usize] = Arc::from(row);
        }
    }
}

/// Resolve the links and edges of re-read entities (`fresh[k]` takes the place of
/// `old[slots[k]]`): as before when the old entity had the same one, else through `lookup`.
fn resolve_new(fresh: &mut [Entity], slots: &[usize], old: &[Arc<Entity>], lookup: &(dyn Lookup + Sync)) {
    fresh.par_iter_mut().zip(slots.par_iter()).for_each(|(e, &slot)| {
        let was = &old[slot];
        for l in &mut e.links {
            l.resolution = match was.links.iter().find(|o| o.syntax == l.syntax && o.target() == l.target()) {
                Some(o) => o.resolution.clone(),
                None => match l.syntax {
                    LinkSyntax::Markdown => lookup.markdown(&e.path, l.target()),
                    LinkSyntax::Wiki => lookup.wiki(&e.path, l.target()),
                },
            };
        }
        for edge in &mut e.edges {
            edge.resolved = match was.edges.iter().find(|o| o.target == edge.target) {
                Some(o) => o.resolved,
                None => lookup.edge_target(&edge.target),
            };
        }
    });
}

/// The entities an entity links to or names in a typed edge.
fn targets_of(e: &Entity) -> Vec<EntityIdx> {
    e.links.iter().filter_map(|l| l.entity()).chain(e.edges.iter().filter_map(|d| d.resolved)).collect()
}
