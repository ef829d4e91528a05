//! Incremental reload: re-read only the files that changed on disk, then re-resolve links as
//! `read::relink` does (only the re-read entities' when they keep what links resolve by).
//!
//! Entity indices shift when files appear or vanish, so callers keep selections by id or path
//! and look them up again after a refresh.
use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use crate::store::Store;
use crate::store::dialect::{Dialect, FileRole};
use crate::store::read::load::{self, FoundFile};
use crate::store::read::relink::Plan;
pub use crate::store::read::relink::RefreshReport;

impl Store {
    /// A refreshed copy, leaving `self` untouched (the UI keeps drawing the old one meanwhile).
    pub fn refreshed<P: AsRef<Path>>(&self, paths: &[P]) -> (Store, RefreshReport) {
        let mut copy = self.copy_to_patch(Arc::default());
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
    /// hidden paths and directories are ignored; a path that no longer exists, or that is now a
    /// directory (or a symlink to one) where the store held a file, drops its entities.
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
            if rel.is_empty() || rel.split('/').any(|c| c.starts_with('.')) {
                continue;
            }
            // A folder is not re-read — unless it took the place of a file the store holds.
            if self.root.join(&rel).is_dir() && !self.has_file(&rel) {
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
            let gone = |report: &mut RefreshReport| {
                if had {
                    report.removed.push(rel.clone());
                }
            };
            let Ok(meta) = fs::symlink_metadata(&abs) else {
                gone(&mut report);
                continue;
            };
            if meta.is_dir() {
                gone(&mut report);
                continue;
            }
            let symlink_inside = if meta.file_type().is_symlink() {
                match fs::canonicalize(&abs) {
                    Ok(t) if t.is_dir() => {
                        gone(&mut report);
                        continue;
                    }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::entity::{EntityIdx, Resolution};

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

    #[cfg(unix)]
    #[test]
    fn a_file_that_became_a_folder_or_a_link_to_one_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a.md", "# A\n\n[[b]] [[c]]\n");
        write(root, "b.md", "# B\n");
        write(root, "c.md", "# C\n");
        let mut store = Store::load(root, crate::store::dialect::vault::KIND, "test".into());
        fs::remove_file(root.join("b.md")).unwrap();
        write(root, "b.md/inside.md", "# Inside\n");
        fs::remove_file(root.join("c.md")).unwrap();
        std::os::unix::fs::symlink(root.join("b.md"), root.join("c.md")).unwrap();
        let report = store.refresh(&["b.md", "c.md"]);
        assert_eq!(report.removed, vec!["b.md", "c.md"]);
        assert_eq!(store.entities.iter().map(|e| e.path.as_str()).collect::<Vec<_>>(), ["a.md"]);
        assert!(store.entity(store.find("a").unwrap()).links.iter().all(|l| l.is_unresolved()));
        // A folder the store held no file at is still not read, nor anything inside it.
        let again = store.refresh(&["b.md", "c.md"]);
        assert!(again.is_empty(), "{again:?}");
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
    fn files_removed_resolve_again_only_the_links_that_led_to_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let load = || Store::load(root, crate::store::dialect::vault::KIND, "test".into());
        write(root, "a.md", "# Alpha\n\n[[shared]] [[c]] [x](sub/x.md) [folder](sub/) [[z]]\n");
        write(root, "c.md", "# Gamma\n\n[[shared]] [[z]]\n");
        write(root, "deep/shared.md", "# Deep shared\n\n[[a]]\n");
        write(root, "shared.md", "# Shared\n");
        write(root, "sub/x.md", "# X\n\n[[a]]\n");
        write(root, "z.md", "# Zed\n\n[[a]] [[c]] [[x]]\n");
        let store = load();
        let link = |s: &Store, k: usize| s.entity(s.find("a").unwrap()).links[k].resolution.clone();
        assert_eq!(link(&store, 0), Resolution::Entity(store.find("shared").unwrap()), "the root's note first");
        fs::remove_file(root.join("shared.md")).unwrap();
        fs::remove_file(root.join("sub/x.md")).unwrap();
        fs::remove_dir(root.join("sub")).unwrap();
        let (patched, report) = store.refreshed(&[root.join("shared.md"), root.join("sub/x.md")]);
        assert!(!report.relinked_all, "only the links into what went are resolved again");
        assert_eq!(report.removed.len(), 2);
        assert_eq!(graph(&patched), graph(&load()), "as a load of the store as it is now");
        assert_eq!(link(&patched, 0), Resolution::Entity(patched.find("deep/shared").unwrap()), "the name passes on");
        assert_eq!(link(&patched, 2), Resolution::Broken, "the file went");
        assert_eq!(link(&patched, 3), Resolution::Broken, "the folder went with its last file");
        let (a, deep) = (store.find("a").unwrap() as usize, store.find("deep/shared").unwrap() as usize);
        assert!(Arc::ptr_eq(&store.entities[deep], &patched.entities[deep]), "links only before what went: shared");
        assert!(!Arc::ptr_eq(&store.entities[a], &patched.entities[a]), "a's links were renumbered");
        assert_eq!(store.entities.len(), 6, "the old store is untouched");
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
        assert!(!Arc::ptr_eq(&store.backlinks, &copy.backlinks), "a changed row: the table is the copy's own");
        assert_eq!(graph(&copy), graph(&Store::load(root, crate::store::dialect::vault::KIND, "test".into())));
        // Files added: every link is resolved again, still without touching the old store.
        write(root, "e.md", "# Epsilon\n\n[[a]]\n");
        let (grown, report) = copy.refreshed(&[root.join("e.md")]);
        assert!(report.relinked_all);
        assert_eq!(graph(&store), before);
        assert_eq!(copy.entities.len(), 4);
        assert_eq!(graph(&grown), graph(&Store::load(root, crate::store::dialect::vault::KIND, "test".into())));
        // A line added that changes no link (the same link twice counts once): the whole
        // backlink table is shared.
        write(root, "c.md", "# Gamma\n\n[[d]] and [[d]] again.\n\nA line an agent added.\n");
        let (same_links, report) = grown.refreshed(&[root.join("c.md")]);
        assert_eq!(report.changed, ["c.md"]);
        assert!(Arc::ptr_eq(&grown.backlinks, &same_links.backlinks), "no row changed: the table is shared");
        assert_eq!(graph(&same_links), graph(&Store::load(root, crate::store::dialect::vault::KIND, "test".into())));
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
