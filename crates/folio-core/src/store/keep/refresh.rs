//! Incremental reload: re-read only the files that changed on disk, then re-resolve links.
//!
//! When the changed files keep their entities (same count, same id, title, aliases: what
//! links resolve by) — the common case of an agent rewriting notes — indices and every other
//! entity's links stay valid: only the re-read entities are resolved and their backlinks
//! patched. Anything else (files added or removed, a renamed title) re-resolves every link.
//!
//! Entity indices shift when files appear or vanish, so callers keep selections by id or path
//! and look them up again after a refresh.
use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use crate::store::Store;
use crate::store::dialect::{Dialect, FileRole};
use crate::store::model::entity::{Entity, EntityIdx, LinkSyntax};
use crate::store::read::load::{self, FoundFile};
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
    /// A refreshed copy, leaving `self` untouched (the UI keeps drawing the old one meanwhile).
    pub fn refreshed<P: AsRef<Path>>(&self, paths: &[P]) -> (Store, RefreshReport) {
        let mut copy = Store {
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
            overlay: Arc::default(),
            catalog_memo: Default::default(),
            loaded_terms: Default::default(),
        };
        // Planned with the dialect opened now: a changed workspace policy (AIP-10) changes how
        // every page reads, so then every entity file is read again; a tombstone written or
        // removed changes the role of a file that is not among `paths`.
        let mut all: Vec<&Path> = paths.iter().map(AsRef::as_ref).collect();
        if copy.dialect.parse_inputs() != self.dialect.parse_inputs() {
            all.extend(self.entities.iter().map(|e| Path::new(&e.path)));
        }
        let recast = if copy.dialect.role_inputs() == self.dialect.role_inputs() {
            Vec::new()
        } else {
            self.roles_changed(copy.dialect.as_ref())
        };
        all.extend(recast.iter().map(Path::new));
        let plan = copy.plan(&all);
        let report = copy.apply_plan(plan);
        (copy, report)
    }

    /// Re-read the given paths (absolute, or relative to the root). Paths outside the root,
    /// hidden paths and directories are ignored; a path that no longer exists drops its entities.
    pub fn refresh<P: AsRef<Path>>(&mut self, paths: &[P]) -> RefreshReport {
        let plan = self.plan(paths);
        self.apply_plan(plan)
    }

    fn plan<P: AsRef<Path>>(&self, paths: &[P]) -> Plan {
        let canonical_root = fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        let mut rels: Vec<String> = Vec::new();
        let mut targets: HashSet<String> = HashSet::new();
        for p in paths {
            let p = p.as_ref();
            let rel = p.strip_prefix(&self.root).or_else(|_| p.strip_prefix(&canonical_root)).unwrap_or(p);
            if rel.is_absolute() {
                continue;
            }
            let Some(rel) = crate::store::model::relpath::from_path(rel) else { continue };
            if rel.is_empty() || rel.split('/').any(|c| c.starts_with('.')) || self.root.join(&rel).is_dir() {
                continue;
            }
            if targets.insert(rel.clone()) {
                rels.push(rel);
            }
        }
        let mut report = RefreshReport::default();
        let mut other = Vec::new();
        let mut found = Vec::new();
        // Entity files held in memory (a database's snapshot) are there when it holds them;
        // each is read alone (`Dialect::memory_file`), not every one.
        let in_memory = self.dialect.in_memory();
        let mut held: Vec<(String, String)> = Vec::new();
        for rel in &rels {
            let had = self.has_file(rel);
            if in_memory && self.dialect.role(rel) == FileRole::Entity {
                let text = self.dialect.memory_file(rel).flatten();
                match (text.is_some(), had) {
                    (true, true) => report.changed.push(rel.clone()),
                    (true, false) => report.added.push(rel.clone()),
                    (false, true) => report.removed.push(rel.clone()),
                    (false, false) => {}
                }
                if let Some(text) = text {
                    held.push((rel.clone(), text));
                }
                continue;
            }
            let abs = self.root.join(rel);
            let Ok(meta) = fs::symlink_metadata(&abs) else {
                if had {
                    report.removed.push(rel.clone());
                }
                continue;
            };
            let symlink_inside = if meta.file_type().is_symlink() {
                match fs::canonicalize(&abs) {
                    Ok(t) if t.is_dir() => continue,
                    Ok(t) => Some(t.starts_with(&canonical_root)),
                    Err(_) => Some(true),
                }
            } else {
                None
            };
            if had {
                report.changed.push(rel.clone());
            } else {
                report.added.push(rel.clone());
            }
            match self.dialect.role(rel) {
                FileRole::Entity => found.push(FoundFile { rel: rel.clone(), role: FileRole::Entity, symlink_inside }),
                role => other.push((rel.clone(), role)),
            }
        }
        report.parsed = found.len();
        report.parsed += held.len();
        // None to read from the folder: a store held in memory is not asked for all its files.
        let mut fresh = match found.is_empty() {
            true => Vec::new(),
            false => load::read_entities(&self.root, &found, self.dialect.as_ref(), None),
        };
        fresh.extend(load::read_held(&held, self.dialect.as_ref()));
        fresh.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
        Plan { targets, fresh, other, report }
    }

    /// The files whose role `dialect` gives otherwise than the store holds them in.
    fn roles_changed(&self, dialect: &dyn Dialect) -> Vec<String> {
        let entity_files = self.entities.iter().map(|e| (e.path.as_str(), FileRole::Entity));
        let others = self.other_files.iter().map(|(p, role)| (p.as_str(), *role));
        let mut changed: Vec<String> = entity_files
            .chain(others)
            .filter(|&(p, role)| dialect.role(p) != role)
            .map(|(p, _)| p.to_string())
            .collect();
        changed.dedup();
        changed
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
        // The load's term table holds the bodies as they were.
        drop(self.take_loaded_terms());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn refresh_adds_changes_and_removes_only_named_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a.md", "# Alpha\n\nSee [[b]].\n");
        write(root, "b.md", "# Beta\n");
        let store = Store::load(root, crate::store::dialect::vault::KIND, "test".into());
        assert_eq!(store.entities.len(), 2);
        let a = store.find("a").unwrap();
        assert!(store.entity(a).links[0].entity().is_some());

        write(root, "b.md", "# Beta renamed\n");
        write(root, "c.md", "# Gamma\n\n[[a]]\n");
        let (copy, report) = store.refreshed(&[root.join("b.md"), root.join("c.md")]);
        assert_eq!(store.entities.len(), 2, "the original is untouched");
        let mut store = copy;
        assert_eq!(report.changed, vec!["b.md"]);
        assert_eq!(report.added, vec!["c.md"]);
        assert_eq!(store.entities.len(), 3);
        assert_eq!(store.entity(store.find("b").unwrap()).title, "Beta renamed");
        // Backlinks are recomputed: c now links to a.
        let a = store.find("a").unwrap();
        assert_eq!(*store.backlinks[a as usize], [store.find("c").unwrap()]);

        fs::remove_file(root.join("b.md")).unwrap();
        let report = store.refresh(&["b.md"]);
        assert_eq!(report.removed, vec!["b.md"]);
        assert_eq!(store.entities.len(), 2);
        let a = store.find("a").unwrap();
        assert!(store.entity(a).links[0].is_unresolved());
    }

    #[test]
    fn refresh_ignores_hidden_outside_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a.md", "# A\n");
        write(root, ".git/x.md", "# hidden\n");
        let mut store = Store::load(root, crate::store::dialect::vault::KIND, "test".into());
        let report = store.refresh(&[root.join(".git/x.md"), root.to_path_buf(), "/etc/passwd".into()]);
        assert!(report.is_empty());
        assert_eq!(store.entities.len(), 1);
    }

    fn graph(s: &Store) -> String {
        format!("{:?}\n{:?}\n{:?}", s.entities, s.backlinks, s.other_files)
    }

    #[test]
    fn rewritten_bodies_patch_only_their_entities_and_equal_a_full_load() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a.md", "# Alpha\n\nSee [[b]] and [[c]].\n");
        write(root, "b.md", "# Beta\n\n[[a]]\n");
        write(root, "c.md", "# Gamma\n");
        write(root, "d.md", "# Delta\n\n[[c]] [[missing]]\n");
        let store = Store::load(root, crate::store::dialect::vault::KIND, "test".into());
        // Same titles, other links: b now links to c and d instead of a.
        write(root, "b.md", "# Beta\n\n[[c]], [[d]] and [[nowhere]]\n");
        write(root, "d.md", "# Delta\n\nno links now\n");
        let (patched, report) = store.refreshed(&[root.join("b.md"), root.join("d.md")]);
        assert!(!report.relinked_all, "a body rewrite resolves only the re-read entities");
        assert_eq!(report.parsed, 2);
        assert_eq!(graph(&patched), graph(&Store::load(root, crate::store::dialect::vault::KIND, "test".into())));
        let c = patched.find("c").unwrap();
        assert_eq!(*patched.backlinks[c as usize], [patched.find("a").unwrap(), patched.find("b").unwrap()]);
        // Prose rewritten, the same links: their resolutions are kept as they were.
        write(root, "a.md", "# Alpha\n\nRewritten: [[c]] first, then [[b]].\n");
        let (patched, report) = patched.refreshed(&[root.join("a.md")]);
        assert!(!report.relinked_all);
        assert_eq!(graph(&patched), graph(&Store::load(root, crate::store::dialect::vault::KIND, "test".into())));
        // A new title changes what wikilinks resolve to: everything is resolved again.
        write(root, "c.md", "---\naliases: [nowhere]\n---\n# Gamma\n");
        let (relinked, report) = patched.refreshed(&[root.join("c.md")]);
        assert!(report.relinked_all);
        assert_eq!(graph(&relinked), graph(&Store::load(root, crate::store::dialect::vault::KIND, "test".into())));
    }

    #[test]
    fn a_refreshed_copy_shares_what_it_did_not_reread_and_leaves_the_old_store_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a.md", "# Alpha\n\n[[b]]\n");
        write(root, "b.md", "# Beta\n");
        write(root, "c.md", "# Gamma\n\n[[b]]\n");
        write(root, "d.md", "# Delta\n");
        let store = Store::load(root, crate::store::dialect::vault::KIND, "test".into());
        let before = graph(&store);
        let (a, b, c, d) = (0, 1, 2, 3);
        // c now links to d instead of b: c's entity and the rows of b and d change.
        write(root, "c.md", "# Gamma\n\n[[d]]\n");
        let (copy, report) = store.refreshed(&[root.join("c.md")]);
        assert!(!report.relinked_all);
        assert_eq!(graph(&store), before, "the old store is untouched");
        assert_eq!(store.backlinks[b].as_ref(), [a as EntityIdx, c as EntityIdx]);
        for i in [a, b, d] {
            assert!(Arc::ptr_eq(&store.entities[i], &copy.entities[i]), "entity {i} is shared, not copied");
        }
        assert!(!Arc::ptr_eq(&store.entities[c], &copy.entities[c]), "the re-read entity is new");
        assert!(Arc::ptr_eq(&store.backlinks[a], &copy.backlinks[a]), "an unchanged backlink row is shared");
        assert!(Arc::ptr_eq(&store.backlinks[c], &copy.backlinks[c]));
        assert_eq!(copy.backlinks[b].as_ref(), [a as EntityIdx]);
        assert_eq!(copy.backlinks[d].as_ref(), [c as EntityIdx]);
        assert_eq!(graph(&copy), graph(&Store::load(root, crate::store::dialect::vault::KIND, "test".into())));
        // Files added: every link is resolved again, still without touching the old store.
        write(root, "e.md", "# Epsilon\n\n[[a]]\n");
        let (grown, report) = copy.refreshed(&[root.join("e.md")]);
        assert!(report.relinked_all);
        assert_eq!(graph(&store), before);
        assert_eq!(copy.entities.len(), 4);
        assert_eq!(graph(&grown), graph(&Store::load(root, crate::store::dialect::vault::KIND, "test".into())));
    }

    #[test]
    fn the_catalog_tree_is_kept_only_when_nothing_it_shows_changed() {
        use crate::store::read::tree::{self, TreeFilter};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "x/a.md", "# Alpha\n");
        write(root, "x/b.md", "# Beta\n");
        let store = Store::load(root, crate::store::dialect::vault::KIND, "test".into());
        write(root, "x/a.md", "# Alpha\n\nA new paragraph and [[b]].\n");
        let (body, _) = store.refreshed(&[root.join("x/a.md")]);
        assert!(tree::unchanged(&store, &body));
        let f = TreeFilter::default();
        assert_eq!(tree::build(&store, &f), tree::build(&body, &f));
        write(root, "x/a.md", "# Zeta\n");
        let (renamed, _) = body.refreshed(&[root.join("x/a.md")]);
        assert!(!tree::unchanged(&body, &renamed), "a new title re-sorts the folder");
        assert_ne!(tree::build(&body, &f), tree::build(&renamed, &f));
        write(root, "x/c.md", "# Gamma\n");
        let (grown, _) = renamed.refreshed(&[root.join("x/c.md")]);
        assert!(!tree::unchanged(&renamed, &grown));
    }

    /// An AIP-10 tombstone hides a page that is not among the paths that changed: a live reload
    /// that sees only the marker drops the page, and brings it back when the marker goes.
    #[test]
    fn a_tombstone_written_or_removed_under_a_live_store_hides_or_restores_its_page() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let kind = crate::store::dialect::aip10::KIND;
        write(root, "KNOWLEDGE.md", "---\nname: w\n---\n");
        write(root, "entries/a.md", "---\nslug: a\n---\n# A\n\n[b](b.md)\n");
        write(root, "entries/b.md", "---\nslug: b\n---\n# B\n");
        let store = Store::load(root, kind, "test".into());
        assert_eq!(store.entities.len(), 2);
        write(root, "entries/b.md.whiteout", "");
        let (hidden, report) = store.refreshed(&[root.join("entries/b.md.whiteout")]);
        assert_eq!(report.added, ["entries/b.md.whiteout"]);
        assert_eq!(report.changed, ["entries/b.md"], "the page hidden by the marker is read again");
        assert_eq!(graph(&hidden), graph(&Store::load(root, kind, "test".into())));
        assert_eq!(hidden.entities.len(), 1);
        fs::remove_file(root.join("entries/b.md.whiteout")).unwrap();
        let (back, report) = hidden.refreshed(&[root.join("entries/b.md.whiteout")]);
        assert_eq!(report.removed, ["entries/b.md.whiteout"]);
        assert_eq!(report.changed, ["entries/b.md"]);
        assert_eq!(graph(&back), graph(&store));
        // A marker that is no tombstone (it has bytes) changes no role: only it is looked at.
        write(root, "entries/a.md.whiteout", "not empty");
        let (same, report) = back.refreshed(&[root.join("entries/a.md.whiteout")]);
        assert_eq!((report.added.len(), report.changed.len()), (1, 0));
        assert_eq!(same.entities.len(), 2);
        assert_eq!(graph(&same), graph(&Store::load(root, kind, "test".into())));
    }
}
