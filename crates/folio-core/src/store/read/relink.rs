//! Re-resolving a store after some of its files were read again — from disk by a refresh
//! (`keep::refresh`) or from a plan's bytes by an overlay (`write::overlay`).
//!
//! When the re-read files keep their entities (same count, same id, title, aliases: what
//! links resolve by) — the common case of an agent rewriting notes, or of a verdict — indices
//! and every other entity's links stay valid: only the re-read entities are resolved and their
//! backlinks patched, every other entity shared. Entity files removed and nothing else (an
//! agent deleting a note, a verdict archiving a database's node) renumber the entities after
//! them and resolve again only the links that led to what went. Anything else (files added,
//! a renamed title) re-resolves every link.
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;

use crate::store::Store;
use crate::store::dialect::FileRole;
use crate::store::model::entity::{Entity, EntityIdx, LinkSyntax, Resolution};
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
        if let Some(gone) = self.removed_alone(&targets, &fresh, &other, &report) {
            self.remove(&gone);
            // What was re-read besides keeps its shape (`removed_alone` checked): patched in.
            let rest = RefreshReport { removed: Vec::new(), ..report.clone() };
            if let Some(slots) = self.same_shape(&targets, &fresh, &other, &rest) {
                self.patch(slots, fresh);
                return report;
            }
            // Not expected (their shape was checked before): resolved whole below.
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

    /// When the plan takes entity files away and re-reads others without changing their shape
    /// (`same_shape`), nothing added: the indices of the entities that go, sorted.
    fn removed_alone(
        &self,
        targets: &HashSet<String>,
        fresh: &[Entity],
        other: &[(String, FileRole)],
        report: &RefreshReport,
    ) -> Option<Vec<usize>> {
        if !report.added.is_empty() {
            return None;
        }
        let refilled: HashSet<&str> = fresh.iter().map(|e| e.path.as_str()).collect();
        let mut gone = Vec::new();
        let mut rest = HashSet::new();
        for t in targets {
            let range = self.entity_range(t);
            let now_other = other.iter().any(|(p, _)| p == t);
            if !range.is_empty() && !refilled.contains(t.as_str()) && !now_other {
                gone.extend(range);
                continue;
            }
            // An other file gone changes what links to it resolve to: not followed here.
            if range.is_empty() && !now_other && self.other_files.binary_search_by(|(p, _)| p.as_str().cmp(t)).is_ok() {
                return None;
            }
            rest.insert(t.clone());
        }
        if gone.is_empty() {
            return None;
        }
        let rest_report = RefreshReport { removed: Vec::new(), ..report.clone() };
        self.same_shape(&rest, fresh, other, &rest_report)?;
        gone.sort_unstable();
        Some(gone)
    }

    /// Take the entities at `gone` (sorted) away. Every other entity keeps its links; those
    /// after the first gone are renumbered, and only links that led to one that went (or to a
    /// folder it was in, which may be gone with it) are resolved again, against the store as it
    /// is now (`SortedLookup`). A name a gone entity held passes to the next entity claiming it,
    /// as a full resolution would give it; no other link's answer changes, since removing an
    /// entity gives no name or path to anyone but the links that named it.
    fn remove(&mut self, gone: &[usize]) {
        let first = gone[0];
        let mut removed_paths: Vec<&str> = gone.iter().map(|&i| self.entities[i].path.as_str()).collect();
        removed_paths.dedup();
        let new_index = |i: EntityIdx| match gone.binary_search(&(i as usize)) {
            Ok(_) => None,
            Err(before) => Some(i - before as EntityIdx),
        };
        // A link to a folder (`dir/`, or the root `.`) that held a removed file: the folder may be gone.
        let in_gone_folder = |p: &str| p == "." || (p.ends_with('/') && removed_paths.iter().any(|r| r.starts_with(p)));
        let leads_away = |r: &Resolution| match r {
            Resolution::Entity(i) => *i as usize >= first,
            Resolution::File(p) => in_gone_folder(p),
            _ => false,
        };
        let mut kept: Vec<Arc<Entity>> = (0..self.entities.len())
            .filter(|i| gone.binary_search(i).is_err())
            .map(|i| Arc::clone(&self.entities[i]))
            .collect();
        // Renumbered in place; what led to a gone entity or folder is marked to resolve again
        // (a link as pending, an edge by its index in `again`).
        let again: Vec<(usize, Vec<usize>)> = kept
            .par_iter_mut()
            .enumerate()
            .filter_map(|(at, e)| {
                let touched = e.links.iter().any(|l| leads_away(&l.resolution))
                    || e.edges.iter().any(|d| d.resolved.is_some_and(|i| i as usize >= first));
                if !touched {
                    return None;
                }
                let e = Arc::make_mut(e);
                let mut again = false;
                for l in &mut e.links {
                    match &l.resolution {
                        Resolution::Entity(i) if *i as usize >= first => {
                            l.resolution = new_index(*i).map_or(Resolution::Pending, Resolution::Entity);
                        }
                        Resolution::File(p) if in_gone_folder(p) => l.resolution = Resolution::Pending,
                        _ => continue,
                    }
                    again |= l.resolution == Resolution::Pending;
                }
                let mut edges = Vec::new();
                for (k, d) in e.edges.iter_mut().enumerate() {
                    if let Some(i) = d.resolved.filter(|&i| i as usize >= first) {
                        d.resolved = new_index(i);
                        if d.resolved.is_none() {
                            edges.push(k);
                        }
                    }
                }
                (again || !edges.is_empty()).then_some((at, edges))
            })
            .collect();
        if !again.is_empty() {
            let context = self.link_context();
            let answers = {
                let recording = SortedLookup::recording(&kept, &self.other_files, &context);
                answers_for(&kept, &again, &recording);
                let lookup = recording.with_names();
                answers_for(&kept, &again, &lookup)
            };
            for ((at, edges), (links, targets)) in again.iter().zip(answers) {
                let e = Arc::make_mut(&mut kept[*at]);
                let pending = e.links.iter_mut().filter(|l| l.resolution == Resolution::Pending);
                for (l, r) in pending.zip(links) {
                    l.resolution = r;
                }
                for (&k, t) in edges.iter().zip(targets) {
                    e.edges[k].resolved = t;
                }
            }
        }
        self.entities = kept;
        self.index();
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
        // Backlink rows are shared with the old store: each row that changes is rebuilt once,
        // and the table stays shared when none does (an edit that changes no link).
        let mut moves: BTreeMap<EntityIdx, Vec<(EntityIdx, bool)>> = BTreeMap::new();
        for (slot, new) in slots.into_iter().zip(fresh) {
            let i = slot as EntityIdx;
            let (before, after) = (targets_of(&self.entities[slot]), targets_of(&new));
            if before != after {
                for t in before.into_iter().filter(|&t| t != i) {
                    moves.entry(t).or_default().push((i, false));
                }
                for t in after.into_iter().filter(|&t| t != i) {
                    moves.entry(t).or_default().push((i, true));
                }
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
            if *row != *self.backlinks[t as usize] {
                Arc::make_mut(&mut self.backlinks)[t as usize] = Arc::from(row);
            }
        }
    }
}

/// Resolve the links and edges of re-read entities (`fresh[k]` takes the place of
/// `old[slots[k]]`): as before when the old entity had the same one, else through `lookup`.
fn resolve_new(fresh: &mut [Entity], slots: &[usize], old: &[Arc<Entity>], lookup: &(dyn Lookup + Sync)) {
    fresh.par_iter_mut().zip(slots.par_iter()).for_each(|(e, &slot)| {
        let was = &old[slot];
        let before = Before::of(&was.links, |o| (o.syntax, o.target()));
        for l in &mut e.links {
            l.resolution = match before.find(&was.links, (l.syntax, l.target())) {
                Some(o) => o.resolution.clone(),
                None => match l.syntax {
                    LinkSyntax::Markdown => lookup.markdown(&e.path, l.target()),
                    LinkSyntax::Wiki => lookup.wiki(&e.path, l.target()),
                },
            };
        }
        let before = Before::of(&was.edges, |o| o.target.as_str());
        for edge in &mut e.edges {
            edge.resolved = match before.find(&was.edges, edge.target.as_str()) {
                Some(o) => o.resolved,
                None => lookup.edge_target(&edge.target),
            };
        }
    });
}

/// The first of an old entity's links (or edges) with a given key. A catalog of thousands of
/// links, re-read after an agent appended a line, would otherwise compare each link with each
/// (docs/benchmarks.md, "Thirty-seventh session").
enum Before<'a, T, K> {
    /// Few enough to search one by one.
    Few(fn(&'a T) -> K),
    Many(FastMap<K, &'a T>),
}

type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// Below this many, a linear search is cheaper than building the map.
const FEW: usize = 32;

impl<'a, T, K: Eq + std::hash::Hash> Before<'a, T, K> {
    fn of(items: &'a [T], key: fn(&'a T) -> K) -> Self {
        if items.len() <= FEW {
            return Before::Few(key);
        }
        let mut map = FastMap::with_capacity_and_hasher(items.len(), Default::default());
        for item in items {
            map.entry(key(item)).or_insert(item);
        }
        Before::Many(map)
    }

    fn find(&self, items: &'a [T], wanted: K) -> Option<&'a T> {
        match self {
            Before::Few(key) => items.iter().find(|o| key(o) == wanted),
            Before::Many(map) => map.get(&wanted).copied(),
        }
    }
}

/// What `lookup` answers for the pending links and the listed edges of the entities in `again`.
type Answers = Vec<(Vec<Resolution>, Vec<Option<EntityIdx>>)>;

fn answers_for(entities: &[Arc<Entity>], again: &[(usize, Vec<usize>)], lookup: &(dyn Lookup + Sync)) -> Answers {
    again
        .par_iter()
        .map(|(at, edges)| {
            let e = &entities[*at];
            let links = e
                .links
                .iter()
                .filter(|l| l.resolution == Resolution::Pending)
                .map(|l| match l.syntax {
                    LinkSyntax::Markdown => lookup.markdown(&e.path, l.target()),
                    LinkSyntax::Wiki => lookup.wiki(&e.path, l.target()),
                })
                .collect();
            (links, edges.iter().map(|&k| lookup.edge_target(&e.edges[k].target)).collect())
        })
        .collect()
}

/// The entities `e` links to or names in an edge, sorted, each once.
fn targets_of(e: &Entity) -> Vec<EntityIdx> {
    let mut targets: Vec<EntityIdx> =
        e.links.iter().filter_map(|l| l.entity()).chain(e.edges.iter().filter_map(|d| d.resolved)).collect();
    targets.sort_unstable();
    targets.dedup();
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The map used past `FEW` items answers as the linear search does: the first item with a
    /// key, and nothing for a key no item has.
    #[test]
    fn before_finds_the_first_item_with_a_key_either_way() {
        for n in [3, FEW, FEW + 1, 500] {
            let items: Vec<(u32, usize)> = (0..n).map(|i| ((i % 7) as u32, i)).collect();
            let before = Before::of(&items, |&(k, _)| k);
            assert_eq!(matches!(before, Before::Many(_)), n > FEW);
            for k in 0..7u32 {
                let want = items.iter().find(|(key, _)| *key == k);
                assert_eq!(before.find(&items, k), want, "{n} items, key {k}");
            }
            assert_eq!(before.find(&items, 99), None);
        }
    }
}
