//! Catalog states remembered with everything they were computed from, so that a store opened
//! from the persistent cache with no file changed answers `catalog::states` without rendering
//! and comparing every catalog again (a large AIP-10 `_index.md` is a good share of a cached
//! `folio stats`: docs/benchmarks.md, "Catalog figures").
//!
//! A verdict holds for the entities it was computed with (the cache drops it as soon as any
//! file is re-read: `Store::refresh`), every catalog file as it was stat'ed (size and mtime,
//! or absent), and every answer `Store::file_exists` gave meanwhile (a curated catalog's entry
//! whose target the rendering lacks is looked up on disk: it is looked up again).
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::CatalogState;
use crate::store::Store;
use crate::store::read::fsio;

/// A catalog file modified this close before the states were computed may have changed again
/// within the same mtime tick: such a verdict is not remembered (as the cache's entity files).
const MTIME_SLACK_NS: i64 = 2_000_000_000;

/// Each catalog's state, and what it depends on besides the entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Remembered {
    states: Vec<(String, CatalogState)>,
    /// Each catalog file's size and mtime (ns) after the states were computed; `None`: absent.
    files: Vec<(String, Option<(u64, i64)>)>,
    /// Every path whose existence was asked while they were computed, with the answer.
    asked: Vec<(String, bool)>,
}

impl Remembered {
    /// The states, when every catalog file and every path asked about are as they were.
    fn states_if_holding(&self, store: &Store) -> Option<Vec<(String, CatalogState)>> {
        let files_same = self.files.iter().all(|(path, was)| stat(store, path) == *was);
        let answers_same = files_same && self.asked.iter().all(|(path, was)| store.file_exists(path) == *was);
        answers_same.then(|| self.states.clone())
    }

    /// Whether the states hold, asked of the files under `root` alone (an inbox answered
    /// without the entities, `keep::cache::inbox_memo`): no path was looked up while they were
    /// computed, and every catalog file is as it was.
    pub fn holds_on_disk(&self, root: &std::path::Path) -> bool {
        self.asked.is_empty() && self.files.iter().all(|(path, was)| stat_at(root, path) == *was)
    }
}

/// A store's remembered verdict (from the cache), and the existence answers recorded while one
/// is computed. Anything that changes a store's entities drops `saved`.
#[derive(Debug, Default)]
pub struct Memo {
    saved: Option<Remembered>,
    asking: Mutex<Option<Vec<(String, bool)>>>,
}

impl Memo {
    pub fn saved(&self) -> Option<&Remembered> {
        self.saved.as_ref()
    }

    pub fn set(&mut self, saved: Option<Remembered>) {
        self.saved = saved;
    }

    /// Note an answer of `Store::file_exists` (only while a verdict is being computed).
    pub fn note(&self, path: &str, exists: bool) {
        if let Ok(mut asking) = self.asking.lock()
            && let Some(asked) = asking.as_mut()
        {
            asked.push((path.to_string(), exists));
        }
    }
}

/// The remembered states when they still hold for `store` (None: compute them).
pub fn recalled(store: &Store) -> Option<Vec<(String, CatalogState)>> {
    store.catalog_memo().saved()?.states_if_holding(store)
}

/// Compute the store's catalog states and what they depend on; `None` when a catalog file
/// changed too recently to be trusted by its mtime.
pub fn remember(store: &Store) -> Option<Remembered> {
    let began = now_ns();
    let memo = store.catalog_memo();
    *memo.asking.lock().ok()? = Some(Vec::new());
    let states = store.dialect.catalog_states(store);
    let mut asked = memo.asking.lock().ok()?.take().unwrap_or_default();
    asked.sort();
    asked.dedup();
    let files: Vec<(String, Option<(u64, i64)>)> = states.iter().map(|(p, _)| (p.clone(), stat(store, p))).collect();
    let trusted_before = began.saturating_sub(MTIME_SLACK_NS);
    if files.iter().any(|(_, f)| f.is_some_and(|(_, mtime)| mtime >= trusted_before)) {
        return None;
    }
    Some(Remembered { states, files, asked })
}

fn stat(store: &Store, rel: &str) -> Option<(u64, i64)> {
    stat_at(&store.root, rel)
}

fn stat_at(root: &std::path::Path, rel: &str) -> Option<(u64, i64)> {
    std::fs::metadata(root.join(rel)).ok().map(|m| (m.len(), fsio::mtime_ns(&m)))
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;
    use std::time::{Duration, SystemTime};

    use crate::store::dialect::aip10;
    use crate::store::keep::cache::{self, Cache};
    use crate::store::write::catalog::{self, CatalogState};

    /// Every file under `dir` dated an hour back: nothing is within the mtime slack.
    fn age(dir: &Path) {
        for e in fs::read_dir(dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                age(&e.path());
            } else {
                age_file(&e.path());
            }
        }
    }

    fn age_file(path: &Path) {
        let f = fs::File::options().write(true).open(path).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(3600)).unwrap();
    }

    /// Opened through the cache as every command opens a store: its catalogs' states, which
    /// must be what computing them afresh gives.
    fn states(cache: &Cache, root: &Path) -> CatalogState {
        let (store, warnings) = cache::open(Some(cache), root, aip10::KIND, "t".into(), crate::store::Reads::Entities);
        assert!(warnings.is_empty(), "{warnings:?}");
        let states = catalog::states(&store);
        assert_eq!(states, store.dialect.catalog_states(&store));
        assert_eq!(states.len(), 1);
        states[0].1.clone()
    }

    /// What the snapshot remembers, as a store just decoded from it (not yet checked against
    /// its files) recalls it.
    fn snapshot_recalls(cache: &Cache, root: &Path) -> Option<CatalogState> {
        let store = cache.load(root, aip10::KIND, "t".into()).unwrap();
        super::recalled(&store).map(|mut s| s.remove(0).1)
    }

    /// The remembered verdict is used only while it is exactly right: an edit to the catalog,
    /// to a page, or to a path the catalog lists outside the pages changes the answer, and
    /// the snapshot then remembers the new one.
    #[test]
    fn the_remembered_verdict_follows_the_catalog_the_pages_and_the_paths_it_asked_about() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wiki");
        fs::create_dir_all(root.join("entries")).unwrap();
        fs::create_dir_all(root.join("assets/v1.2")).unwrap();
        fs::write(root.join("KNOWLEDGE.md"), "---\nname: w\n---\n").unwrap();
        let page = |i: usize, title: &str| {
            format!("---\nschema: knowledge.entry/v1\nslug: p{i}\nkind: entity\ntitle: {title}\n---\n# P\n")
        };
        // A curated catalog (not folio's grammar): fresh while it lists every page and its
        // one other entry, a folder the cache does not walk, is there.
        let mut index = String::from("# Pages\n\n* [assets](assets/v1.2)\n");
        for i in 0..cache::MIN_ENTITIES {
            fs::write(root.join(format!("entries/p{i}.md")), page(i, &format!("P {i}"))).unwrap();
            index.push_str(&format!("* [P {i}](entries/p{i}.md)\n"));
        }
        fs::write(root.join(crate::store::dialect::aip10::spec::CATALOG), &index).unwrap();
        age(&root);
        let cache_dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cache_dir.path());
        use CatalogState::{Fresh, Stale};

        assert_eq!(states(&cache, &root), Fresh);
        assert_eq!(snapshot_recalls(&cache, &root), Some(Fresh));
        assert_eq!(states(&cache, &root), Fresh);

        // The folder it lists goes: no file the cache walks changed, the answer does.
        fs::remove_dir(root.join("assets/v1.2")).unwrap();
        assert_eq!(snapshot_recalls(&cache, &root), None);
        assert_eq!(states(&cache, &root), Stale);
        assert_eq!(snapshot_recalls(&cache, &root), Some(Stale));
        fs::create_dir(root.join("assets/v1.2")).unwrap();
        assert_eq!(states(&cache, &root), Fresh);

        // The catalog loses a page's entry (dated as old as before: its size tells).
        fs::write(
            root.join(crate::store::dialect::aip10::spec::CATALOG),
            index.replace("* [P 7](entries/p7.md)\n", ""),
        )
        .unwrap();
        age(&root);
        assert_eq!(snapshot_recalls(&cache, &root), None);
        assert_eq!(states(&cache, &root), Stale);
        fs::write(root.join(crate::store::dialect::aip10::spec::CATALOG), &index).unwrap();
        age(&root);
        assert_eq!(states(&cache, &root), Fresh);
        assert_eq!(snapshot_recalls(&cache, &root), Some(Fresh));

        // A page the catalog does not list comes, then goes.
        fs::write(root.join("entries/new.md"), page(cache::MIN_ENTITIES, "New")).unwrap();
        age(&root);
        assert_eq!(states(&cache, &root), Stale);
        assert_eq!(snapshot_recalls(&cache, &root), Some(Stale));
        fs::remove_file(root.join("entries/new.md")).unwrap();
        assert_eq!(states(&cache, &root), Fresh);

        // Folio's own rendering as the catalog: a page's new title makes it stale, though the
        // catalog file is as it was (the re-read page drops the verdict).
        let loaded = crate::store::Store::load(&root, aip10::KIND, "t".into());
        fs::write(root.join(crate::store::dialect::aip10::spec::CATALOG), aip10::catalog::render(&loaded.entities))
            .unwrap();
        age(&root);
        assert_eq!(states(&cache, &root), Fresh);
        fs::write(root.join("entries/p3.md"), page(3, "P three")).unwrap();
        age_file(&root.join("entries/p3.md"));
        let mut unchecked = cache.load(&root, aip10::KIND, "t".into()).unwrap();
        assert_eq!(super::recalled(&unchecked).map(|mut s| s.remove(0).1), Some(Fresh), "as of the snapshot");
        unchecked.revalidate();
        assert!(super::recalled(&unchecked).is_none(), "a re-read page drops the verdict");
        assert_eq!(states(&cache, &root), Stale);
        assert_eq!(snapshot_recalls(&cache, &root), Some(Stale));

        // A catalog written just now cannot be vouched for by its mtime: nothing is remembered,
        // and the next open neither tries again nor rewrites the snapshot.
        fs::write(root.join(crate::store::dialect::aip10::spec::CATALOG), &index).unwrap();
        assert_eq!(states(&cache, &root), Fresh);
        assert_eq!(snapshot_recalls(&cache, &root), None);
        let snapshot = cache.file_for(&root, aip10::KIND);
        let written = fs::metadata(&snapshot).unwrap().modified().unwrap();
        assert_eq!(states(&cache, &root), Fresh);
        assert_eq!(fs::metadata(&snapshot).unwrap().modified().unwrap(), written);
    }

    /// A full load of a format whose catalogs read only the pages' fields computes their
    /// verdict beside the link resolution and remembers it, stale or fresh; `catalog::states`
    /// and lint then answer from it as from computing it afresh. A catalog written just now is
    /// not vouched for, and a format whose catalogs read links (the vault's hubs) waits.
    #[test]
    fn a_full_load_remembers_the_verdict_it_computed_beside_the_links() {
        use crate::store::lint::{LintConfig, lint};
        use crate::store::model::entity::rule;
        use crate::store::{Store, dialect::vault};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wiki");
        fs::create_dir_all(root.join("entries")).unwrap();
        fs::write(root.join("KNOWLEDGE.md"), "---\nname: w\n---\n").unwrap();
        let mut index = String::from("# Pages\n\n");
        for i in 0..5 {
            let page = format!("---\nschema: knowledge.entry/v1\nslug: p{i}\nkind: entity\ntitle: P {i}\n---\n# P\n");
            fs::write(root.join(format!("entries/p{i}.md")), page).unwrap();
            index.push_str(&format!("* [P {i}](entries/p{i}.md)\n"));
        }
        let stale_findings = |store: &Store| {
            lint(store, &LintConfig::default()).findings.iter().filter(|f| f.rule == rule::CATALOG_STALE).count()
        };
        let load = || Store::load(&root, aip10::KIND, "t".into());
        let index_state = |store: &Store| super::recalled(store).map(|mut s| s.remove(0));

        fs::write(root.join(crate::store::dialect::aip10::spec::CATALOG), &index).unwrap();
        age(&root);
        let store = load();
        assert_eq!(
            index_state(&store),
            Some((crate::store::dialect::aip10::spec::CATALOG.to_string(), CatalogState::Fresh))
        );
        assert_eq!(catalog::states(&store), store.dialect.catalog_states(&store));
        assert_eq!(stale_findings(&store), 0);

        fs::write(
            root.join(crate::store::dialect::aip10::spec::CATALOG),
            index.replace("* [P 3](entries/p3.md)\n", ""),
        )
        .unwrap();
        age(&root);
        let store = load();
        assert_eq!(
            index_state(&store),
            Some((crate::store::dialect::aip10::spec::CATALOG.to_string(), CatalogState::Stale))
        );
        assert_eq!(stale_findings(&store), 1);

        // Just written: computed again when asked, right all the same.
        fs::write(root.join(crate::store::dialect::aip10::spec::CATALOG), &index).unwrap();
        let store = load();
        assert_eq!(index_state(&store), None);
        assert_eq!(
            catalog::states(&store),
            vec![(crate::store::dialect::aip10::spec::CATALOG.to_string(), CatalogState::Fresh)]
        );
        fs::write(
            root.join(crate::store::dialect::aip10::spec::CATALOG),
            index.replace("* [P 3](entries/p3.md)\n", ""),
        )
        .unwrap();
        assert_eq!(stale_findings(&load()), 1);

        let vault_root = dir.path().join("vault");
        fs::create_dir_all(vault_root.join(".obsidian")).unwrap();
        fs::write(vault_root.join("a.md"), "# A\n\n[[b]]\n").unwrap();
        fs::write(vault_root.join("b.md"), "# B\n").unwrap();
        age(&vault_root);
        assert!(Store::load(&vault_root, vault::KIND, "t".into()).catalog_memo().saved().is_none());
    }
}
