//! Re-linting only what a change can affect. After a live reload (`Store::refreshed`) the
//! findings of unchanged entities are kept and only these are recomputed:
//!
//! - per-file problems of the changed entities;
//! - link findings of the changed entities and of every entity whose links or typed edges now
//!   resolve differently. Only an entity that linked to a changed entity (its old backlinks),
//!   links to one now (new backlinks) or, when files were added or removed, had a link that
//!   resolved to no entity (broken, a file, outside the root) can be one of those;
//! - `orphan` and `contradiction` of those entities and of every entity they linked or link
//!   to (whose backlinks may have changed);
//! - the duplicate groups a changed entity left or joined (found by key hash, see
//!   `duplicates::key_hash`);
//! - the catalogs the dialect says the changed paths touch, and reserved names among them;
//! - store-wide warnings and stale ignores (cheap, always);
//! - the content rules from the state the previous relint kept (`content`): the rarity
//!   table, LSH buckets and close pairs patched by the changed texts.
//!
//! The result is identical to a full `lint` of the new store (tests/store/relint.rs checks it
//! after random edits, creates and deletes).
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

mod content;
use content::{Change, ContentState};

use super::manifest::ManifestLints;
use super::{
    Finding, LintConfig, LintMemo, Origin, ProfileSource, Report, catalogs, configure, content, duplicates,
    entity_problems, graph, ignore, links, store_warnings, tagged,
};
use crate::store::Store;
use crate::store::model::entity::{Entity, EntityIdx, Resolution};
use crate::store::write::catalog;

const NONE: u32 = u32::MAX;

/// A lint report with what re-linting it after a change needs.
#[derive(Clone)]
pub struct Linted {
    pub report: Arc<Report>,
    /// The config it was computed with.
    pub config: LintConfig,
    manifest: ManifestLints,
    /// Per entity and duplicate rule, `duplicates::key_hash`.
    keys: [Vec<u64>; 2],
    /// Per entity: some link resolves to no entity (broken, a file, a folder, outside the
    /// root) — what adding or removing files can change.
    loose: Vec<bool>,
    /// The content rules' state, handed from one relint to the next: it describes the store
    /// of the report numbered as it is (`generation`). Shared, not copied: relinting an older
    /// report again finds it moved on and builds its own.
    content: Arc<Mutex<Option<(u64, ContentState)>>>,
    generation: u64,
    /// Per file with a reserved name: its `reserved-name` / `reserved-file` findings and
    /// whether it was reported as `reserved-name`. Kept for a dialect that cannot say which
    /// catalogs a change touches: its files need not all be looked at again.
    reserved: Arc<ReservedFiles>,
    /// The entity files that may be catalogs by their path (`Dialect::catalog_names`), sorted;
    /// `None` when the format cannot tell by the path.
    named_catalogs: Option<Arc<Vec<String>>>,
    /// The report this one was relinted from (its `generation`) and the entities, numbered alike
    /// in both stores and ascending, whose findings may differ from it: what a face patches its
    /// per-entity marks by. `None` after a full pass, when entity numbers moved or the config
    /// changed.
    changed_from: Option<(u64, Arc<[EntityIdx]>)>,
}

type ReservedFiles = std::collections::BTreeMap<String, (Vec<Finding>, bool)>;

/// Numbers reports, so that the content state knows which one it belongs to.
static GENERATION: AtomicU64 = AtomicU64::new(1);

impl Linted {
    /// Lint the whole store.
    pub fn full(store: &Store, config: &LintConfig) -> Linted {
        Linted::full_with(store, config, &|| super::near_duplicate::all_profiles(store))
    }

    /// `full`, the content rules taking their profiles from `profiles` (a cache's).
    pub fn full_with(store: &Store, config: &LintConfig, profiles: ProfileSource) -> Linted {
        Linted::full_using(store, config, profiles, None)
    }

    /// `full_with`, taking from `memo` what an earlier pass over this very store computed
    /// (`lint_remembering`): an unchanged store's pairs and model findings are not computed
    /// again. The content rules' state for relints is built by the first relint, as after
    /// `full_with`.
    pub fn full_remembering(
        store: &Store,
        config: &LintConfig,
        profiles: ProfileSource,
        memo: &dyn LintMemo,
    ) -> Linted {
        Linted::full_using(store, config, profiles, Some(memo))
    }

    fn full_using(store: &Store, config: &LintConfig, profiles: ProfileSource, memo: Option<&dyn LintMemo>) -> Linted {
        let manifest = store.dialect.manifest_lints();
        let report = super::report_using(store, config, &manifest, profiles, memo, super::Reach::Everything);
        let keys = duplicates::RULES.map(|r| store.entities.iter().map(|e| duplicates::key_hash(r, e)).collect());
        let loose = store.entities.iter().map(|e| is_loose(e)).collect();
        let reserved_names = catalogs::reserved_names(store.kind());
        let files =
            store.other_files.iter().map(|(p, _)| p.as_str()).chain(store.entities.iter().map(|e| e.path.as_str()));
        let reserved = files.filter(|p| is_reserved(reserved_names, p)).map(|p| reserved_file(store, p)).collect();
        let named_catalogs = store.dialect.catalog_names().map(|named| {
            let mut paths: Vec<String> =
                store.entities.iter().map(|e| e.path.as_str()).filter(|p| named(p)).map(str::to_string).collect();
            paths.dedup();
            Arc::new(paths)
        });
        Linted {
            report: Arc::new(report),
            config: config.clone(),
            manifest,
            keys,
            loose,
            content: Arc::default(),
            generation: GENERATION.fetch_add(1, Ordering::Relaxed),
            reserved: Arc::new(reserved),
            named_catalogs,
            changed_from: None,
        }
    }

    /// Build now the content rules' state the first relint of this report would build (its
    /// profiles from `profiles`), so that the first change after a full pass costs what later
    /// ones do. An interactive face calls it off its UI thread once the report is shown. Does
    /// nothing where a relint keeps no state (a small store, body rules off) or when one was
    /// built already: a relint leaves the state of its own report, never none. Returns whether
    /// it built the state.
    pub fn prepare_relint(&self, store: &Store, profiles: ProfileSource) -> bool {
        if !self.config.reads_bodies() || store.entities.len() <= super::near_duplicate::ALL_PAIRS_UP_TO {
            return false;
        }
        let mut slot = self.content.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return false;
        }
        let mut state = ContentState::build(profiles(), &self.config);
        // The texts of the close pairs are read here too, as the relint's findings would.
        state.findings(store, &self.config, &mut Vec::new());
        *slot = Some((self.generation, state));
        true
    }

    /// This report's number, as `changed_from` names it.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The report this one was relinted from and the entities whose findings may differ from
    /// it (see the field).
    pub fn changed_from(&self) -> Option<(u64, &[EntityIdx])> {
        self.changed_from.as_ref().map(|(g, t)| (*g, &t[..]))
    }

    /// The findings of `new`, which is `old` (the store this report was computed on) with the
    /// files `changed` (relative paths: edited, created or deleted) read again.
    pub fn relint(&self, old: &Store, new: &Store, changed: &[String], config: &LintConfig) -> Linted {
        self.relint_with(old, new, changed, config, &|| super::near_duplicate::all_profiles(new))
    }

    /// `relint`, the content rules taking the profiles of `new` from `profiles` (a cache's,
    /// where only the changed files are read again).
    pub fn relint_with(
        &self,
        old: &Store,
        new: &Store,
        changed: &[String],
        config: &LintConfig,
        profiles: ProfileSource,
    ) -> Linted {
        let manifest = new.dialect.manifest_lints();
        let fits = self.loose.len() == old.entities.len() && old.root == new.root && manifest == self.manifest;
        if !fits || !self.config.same_rules(config) {
            return Linted::full_with(new, config, profiles);
        }
        let mut paths: Vec<&str> = changed.iter().map(String::as_str).collect();
        paths.sort_unstable();
        paths.dedup();
        let Some(map) = IndexMap::new(old, new, &paths) else { return Linted::full_with(new, config, profiles) };
        let dirty = Dirty::find(self, old, new, &map, &paths);

        let mut keys = [0, 1].map(|r| map.carry(&self.keys[r], 0));
        let mut loose = map.carry(&self.loose, false);
        for &n in &map.changed_new {
            for (r, k) in duplicates::RULES.iter().zip(keys.iter_mut()) {
                k[n as usize] = duplicates::key_hash(r, new.entity(n));
            }
        }
        for &n in &dirty.link_list {
            loose[n as usize] = is_loose(new.entity(n));
        }
        let members = self.dup_members(&map, &keys);

        // `None`: the dialect cannot tell which catalogs a change touches; all are recomputed.
        let (covered, plans) = match new.dialect.catalogs_touched(new, changed) {
            Some((covered, plans)) => (Some(covered), plans),
            None => (None, Vec::new()),
        };
        let mut catalog_paths: HashSet<&str> = paths.iter().copied().collect();
        catalog_paths.extend(covered.iter().flatten().map(String::as_str));
        let mut dup_dirty: [Vec<bool>; 2] = duplicates::RULES.map(|_| vec![false; new.entities.len()]);
        for (flags, m) in dup_dirty.iter_mut().zip(&members) {
            for &j in m {
                flags[j as usize] = true;
            }
        }

        // Keep what the change cannot have touched, with entity indices moved to the new store
        // (shown and suppressed apart: each stays in the report's order).
        // The entities whose findings may differ: those of every finding dropped or recomputed.
        let dropped = std::cell::RefCell::new(Vec::new());
        let keep = |f: &Finding| {
            let keep = match (f.origin, f.entity) {
                // Content rules weigh words by their rarity in the whole store: any change can
                // move any pair across the threshold, so they are recomputed (below).
                (Origin::Store | Origin::Ignore | Origin::Content, _) => false,
                (Origin::Catalog, _) => {
                    covered.is_some() && f.path.as_deref().is_none_or(|p| !catalog_paths.contains(p))
                }
                (_, None) => true,
                (origin, Some(o)) => {
                    let n = map.fwd[o as usize];
                    n != NONE
                        && match origin {
                            Origin::Link => !dirty.link[n as usize],
                            Origin::Graph => !dirty.graph[n as usize],
                            Origin::Duplicate => {
                                let r = duplicates::RULES.iter().position(|r| *r == f.rule).unwrap_or(0);
                                !dup_dirty[r][n as usize]
                            }
                            _ => true,
                        }
                }
            };
            if !keep && let Some(o) = f.entity {
                dropped.borrow_mut().push(o);
            }
            keep.then(|| {
                let mut f = f.clone();
                f.entity = f.entity.map(|o| map.fwd[o as usize]);
                f.other = f.other.map(|o| map.fwd[o as usize]).filter(|&n| n != NONE);
                f
            })
        };
        // Made at the old report's size: most findings are kept, and a vector grown by doubling
        // would copy them again as it grows.
        let mut kept_shown = Vec::with_capacity(self.report.findings.len());
        kept_shown.extend(self.report.findings.iter().filter_map(keep));
        let mut kept_suppressed = Vec::with_capacity(self.report.suppressed.len());
        kept_suppressed.extend(self.report.suppressed.iter().filter_map(|s| keep(&s.finding)));

        // Recompute the rest.
        let mut fresh = Vec::new();
        for &n in &map.changed_new {
            entity_problems(new, n, &mut fresh);
        }
        store_warnings(new, &mut fresh);
        tagged(&mut fresh, Origin::Link, |out| {
            for &n in &dirty.link_list {
                links::check_entity(new, &manifest, n, out);
            }
        });
        tagged(&mut fresh, Origin::Graph, |out| {
            for &n in &dirty.graph_list {
                graph::check_entity(new, &manifest, n, out);
            }
        });
        tagged(&mut fresh, Origin::Duplicate, |out| {
            for (r, m) in duplicates::RULES.iter().zip(members) {
                duplicates::check_among(new, r, m, out);
            }
        });
        // The reserved files among the changed ones looked at again (whichever way the catalogs
        // are checked below, so that the next relint may use them).
        let mut reserved = Arc::clone(&self.reserved);
        let names = catalogs::reserved_names(new.kind());
        if paths.iter().any(|p| is_reserved(names, p) || reserved.contains_key(*p)) {
            let files = Arc::make_mut(&mut reserved);
            for p in &paths {
                files.remove(*p);
                if is_reserved(names, p) && has_file(new, p) {
                    let (k, v) = reserved_file(new, p);
                    files.insert(k, v);
                }
            }
        }
        let named_catalogs = self.named_catalogs.as_ref().and_then(|kept| {
            let named = new.dialect.catalog_names()?;
            Some(patch_named(kept, new, &paths, named))
        });
        tagged(&mut fresh, Origin::Catalog, |out| match covered {
            None => {
                // `catalogs::check`, from the reserved files' kept findings.
                let mut reported = HashSet::new();
                for (p, (found, named)) in reserved.iter() {
                    out.extend(found.iter().cloned());
                    if *named {
                        reported.insert(p.clone());
                    }
                }
                let all_fresh = catalog::remembered::recalled(new)
                    .is_some_and(|states| states.iter().all(|(_, state)| *state == catalog::CatalogState::Fresh));
                if !all_fresh {
                    let statuses = match &named_catalogs {
                        Some(named) => new.dialect.catalog_status_among(new, named),
                        None => catalog::status(new),
                    };
                    catalogs::statuses(new, statuses, &reported, out);
                }
            }
            Some(_) => {
                let mut reported = HashSet::new();
                let mut checked: Vec<&str> = catalog_paths.iter().copied().filter(|p| has_file(new, p)).collect();
                checked.sort_unstable();
                for p in checked {
                    catalogs::reserved_check(new, p, &mut reported, out);
                }
                catalogs::statuses(new, catalog::status_of(new, plans), &reported, out);
            }
        });
        let generation = GENERATION.fetch_add(1, Ordering::Relaxed);
        tagged(&mut fresh, Origin::Content, |out| {
            self.relint_content(new, &map, &dirty, config, profiles, generation, out);
        });
        configure(new, config, &mut fresh);
        let same_numbers = map.changed_old == map.changed_new && map.fwd.len() == new.entities.len();
        let changed_from = (same_numbers && self.config == *config).then(|| {
            let mut touched = dropped.into_inner();
            touched.extend(fresh.iter().filter_map(|f| f.entity));
            touched.extend(&map.changed_new);
            touched.sort_unstable();
            touched.dedup();
            (self.generation, Arc::from(touched))
        });
        super::sort(&mut fresh);
        let report = ignore::partition_runs(new, config, vec![kept_shown, kept_suppressed, fresh]);
        let content = Arc::clone(&self.content);
        Linted {
            report: Arc::new(report),
            config: config.clone(),
            manifest,
            keys,
            loose,
            content,
            generation,
            reserved,
            named_catalogs,
            changed_from,
        }
    }

    /// The content rules on `new`: from the kept state where it describes this report's store
    /// (patched when only texts changed, rebuilt from the texts it holds when files came or
    /// went), else from every profile; small stores compare all pairs without keeping state.
    #[allow(clippy::too_many_arguments)]
    fn relint_content(
        &self,
        new: &Store,
        map: &IndexMap,
        dirty: &Dirty,
        config: &LintConfig,
        profiles: ProfileSource,
        generation: u64,
        out: &mut Vec<Finding>,
    ) {
        let n = new.entities.len();
        if !config.reads_bodies() || n <= super::near_duplicate::ALL_PAIRS_UP_TO {
            return content(new, config, profiles, out);
        }
        let mut slot = self.content.lock().unwrap_or_else(|e| e.into_inner());
        let kept = slot.take().filter(|(g, _)| *g == self.generation).map(|(_, s)| s);
        let same_places = map.changed_old == map.changed_new && map.fwd.len() == n;
        let mut state = match kept {
            Some(mut state) if same_places && state.fits(n, config) => {
                let fresh = super::near_duplicate::profiles_of(new, &map.changed_new);
                state.update(&Change { changed: &map.changed_new, relinked: &dirty.link }, fresh);
                state
            }
            Some(state) => {
                let mut read = super::near_duplicate::profiles_of(new, &map.changed_new).into_iter();
                let all = map
                    .back
                    .iter()
                    .map(|&o| if o == NONE { read.next().unwrap_or_default() } else { state.profile(o) });
                let all = all.collect();
                drop(state);
                ContentState::build(all, config)
            }
            None => ContentState::build(profiles(), config),
        };
        state.findings(new, config, out);
        *slot = Some((generation, state));
    }

    /// Per duplicate rule, the entities (new indices, ascending) sharing a key hash with a
    /// changed entity's old or new key: every group that can have changed, whole.
    fn dup_members(&self, map: &IndexMap, keys: &[Vec<u64>; 2]) -> [Vec<EntityIdx>; 2] {
        let mut out = [Vec::new(), Vec::new()];
        for (r, members) in out.iter_mut().enumerate() {
            let mut wanted: Vec<u64> = map.changed_old.iter().map(|&o| self.keys[r][o as usize]).collect();
            wanted.extend(map.changed_new.iter().map(|&n| keys[r][n as usize]));
            wanted.retain(|&h| h != 0);
            wanted.sort_unstable();
            wanted.dedup();
            if wanted.is_empty() {
                continue;
            }
            // Usually one or two keys: a linear look beats a binary search then.
            let wanted = |h: &u64| if wanted.len() <= 8 { wanted.contains(h) } else { wanted.binary_search(h).is_ok() };
            for (j, h) in keys[r].iter().enumerate() {
                if wanted(h) {
                    members.push(j as EntityIdx);
                }
            }
        }
        out
    }
}

/// Whether some link of `e` resolves to no entity in a way other files can change.
fn is_loose(e: &Entity) -> bool {
    e.links.iter().any(|l| matches!(l.resolution, Resolution::Broken | Resolution::File(_) | Resolution::Escapes))
}

/// Whether the file's name is one the dialect reserves (as `catalogs::check` looks for them).
fn is_reserved(names: &[&str], path: &str) -> bool {
    names.contains(&path.rsplit('/').next().unwrap_or(path))
}

/// A reserved file's `reserved-name` / `reserved-file` findings, and whether it is reported as
/// `reserved-name` (then no catalog refusal names it again).
fn reserved_file(store: &Store, path: &str) -> (String, (Vec<Finding>, bool)) {
    let (mut found, mut reported) = (Vec::new(), HashSet::new());
    catalogs::reserved_check(store, path, &mut reported, &mut found);
    (path.to_string(), (found, !reported.is_empty()))
}

/// The entity files of `new` that `named` accepts: `kept` (those of the store before) with the
/// changed `paths` looked at again.
fn patch_named(kept: &Arc<Vec<String>>, new: &Store, paths: &[&str], named: fn(&str) -> bool) -> Arc<Vec<String>> {
    if !paths.iter().any(|p| named(p) || kept.binary_search_by(|k| k.as_str().cmp(p)).is_ok()) {
        return Arc::clone(kept);
    }
    let is_entity =
        |p: &str| new.entities.get(new.entities.partition_point(|e| e.path.as_str() < p)).is_some_and(|e| e.path == p);
    let mut out: Vec<String> = kept.iter().filter(|k| paths.binary_search(&k.as_str()).is_err()).cloned().collect();
    out.extend(paths.iter().filter(|p| named(p) && is_entity(p)).map(|p| p.to_string()));
    out.sort_unstable();
    out.dedup();
    Arc::new(out)
}

/// Whether `rel` is a file of the store (an entity file or another file).
fn has_file(store: &Store, rel: &str) -> bool {
    store.other_files.binary_search_by(|(p, _)| p.as_str().cmp(rel)).is_ok()
        || store.entities.get(store.entities.partition_point(|e| e.path.as_str() < rel)).is_some_and(|e| e.path == rel)
}

/// Entity indices of the old store mapped to the new one. Both lists are sorted by path and
/// only the changed paths differ, so the unchanged runs between them line up one to one.
struct IndexMap {
    fwd: Vec<u32>,
    back: Vec<u32>,
    changed_old: Vec<EntityIdx>,
    changed_new: Vec<EntityIdx>,
}

impl IndexMap {
    fn new(old: &Store, new: &Store, changed: &[&str]) -> Option<IndexMap> {
        let (o, n) = (&old.entities, &new.entities);
        let mut map =
            IndexMap { fwd: vec![NONE; o.len()], back: vec![NONE; n.len()], changed_old: vec![], changed_new: vec![] };
        let range = |list: &[Arc<Entity>], from: usize, p: &str| {
            let lo = from + list[from..].partition_point(|e| e.path.as_str() < p);
            (lo, lo + list[lo..].partition_point(|e| e.path == p))
        };
        let (mut oi, mut ni) = (0, 0);
        for p in changed {
            let (olo, ohi) = range(o, oi, p);
            let (nlo, nhi) = range(n, ni, p);
            map.pair(old, new, oi..olo, ni..nlo)?;
            map.changed_old.extend(olo as u32..ohi as u32);
            map.changed_new.extend(nlo as u32..nhi as u32);
            (oi, ni) = (ohi, nhi);
        }
        map.pair(old, new, oi..o.len(), ni..n.len())?;
        Some(map)
    }

    /// Map one run of unchanged entities; `None` when the runs do not line up.
    fn pair(&mut self, old: &Store, new: &Store, o: std::ops::Range<usize>, n: std::ops::Range<usize>) -> Option<()> {
        if o.len() != n.len() {
            return None;
        }
        if !o.is_empty()
            && (old.entities[o.start].path != new.entities[n.start].path
                || old.entities[o.end - 1].path != new.entities[n.end - 1].path)
        {
            return None;
        }
        for (a, b) in o.zip(n) {
            self.fwd[a] = b as u32;
            self.back[b] = a as u32;
        }
        Some(())
    }

    /// A per-entity vector of the old store laid out for the new one (`fill` for the changed).
    fn carry<T: Copy>(&self, old: &[T], fill: T) -> Vec<T> {
        self.back.iter().map(|&o| if o == NONE { fill } else { old[o as usize] }).collect()
    }
}

/// The entities (new indices) whose link and graph findings must be recomputed.
struct Dirty {
    link: Vec<bool>,
    link_list: Vec<EntityIdx>,
    graph: Vec<bool>,
    graph_list: Vec<EntityIdx>,
}

impl Dirty {
    fn find(prev: &Linted, old: &Store, new: &Store, map: &IndexMap, paths: &[&str]) -> Dirty {
        let n = new.entities.len();
        let mut d = Dirty { link: vec![false; n], link_list: vec![], graph: vec![false; n], graph_list: vec![] };
        // Entities that may resolve a link or edge differently now.
        let mut candidates: Vec<EntityIdx> = Vec::new();
        for &o in &map.changed_old {
            candidates.extend(old.backlinks[o as usize].iter().map(|&b| map.fwd[b as usize]).filter(|&b| b != NONE));
        }
        for &c in &map.changed_new {
            candidates.extend(new.backlinks[c as usize].iter().copied().filter(|&b| map.back[b as usize] != NONE));
        }
        if structural(old, new, map, paths) {
            candidates.extend(
                prev.loose.iter().enumerate().filter(|(_, l)| **l).map(|(o, _)| map.fwd[o]).filter(|&b| b != NONE),
            );
        }
        candidates.sort_unstable();
        candidates.dedup();
        for &c in &map.changed_new {
            d.mark_link(c);
        }
        for &c in &candidates {
            // Backlinks include typed edges: a `contradicts` message names its target.
            d.mark_graph(c);
            if resolves_differently(old, map.back[c as usize], new, c) {
                d.mark_link(c);
            }
        }
        // Whatever these linked to, or link to now, may have gained or lost its last backlink.
        for i in 0..d.link_list.len() {
            let c = d.link_list[i];
            d.mark_graph(c);
            for t in targets(new, c) {
                d.mark_graph(t);
            }
            let o = map.back[c as usize];
            if o != NONE {
                for t in targets(old, o).map(|t| map.fwd[t as usize]).filter(|&t| t != NONE) {
                    d.mark_graph(t);
                }
            }
        }
        for &o in &map.changed_old {
            for t in targets(old, o).map(|t| map.fwd[t as usize]).filter(|&t| t != NONE) {
                d.mark_graph(t);
            }
        }
        d.graph_list.sort_unstable();
        d
    }

    fn mark_link(&mut self, i: EntityIdx) {
        if !std::mem::replace(&mut self.link[i as usize], true) {
            self.link_list.push(i);
        }
    }

    fn mark_graph(&mut self, i: EntityIdx) {
        if !std::mem::replace(&mut self.graph[i as usize], true) {
            self.graph_list.push(i);
        }
    }
}

/// Whether a link that resolved to no entity (broken, a file, a folder, outside the root) can
/// resolve differently now: only when a file that is not an entity appeared or vanished, a
/// folder did, or a symlink's escape changed. Entities appearing or vanishing otherwise are
/// covered by their backlinks.
fn structural(old: &Store, new: &Store, map: &IndexMap, paths: &[&str]) -> bool {
    let escapes = |s: &Store, list: &[EntityIdx]| list.iter().any(|&i| s.entity(i).escapes_root());
    let other_file = |s: &Store, p: &str| s.other_files.binary_search_by(|(f, _)| f.as_str().cmp(p)).is_ok();
    escapes(old, &map.changed_old)
        || escapes(new, &map.changed_new)
        || paths.iter().any(|p| {
            other_file(old, p) != other_file(new, p)
                || (has_file(old, p) != has_file(new, p)
                    && crate::store::model::relpath::ancestors(p).any(|d| has_folder(old, d) != has_folder(new, d)))
        })
}

/// Whether any file of the store lies under the folder `dir`.
fn has_folder(store: &Store, dir: &str) -> bool {
    let prefix = format!("{dir}/");
    let under = |p: &str| p.starts_with(&prefix);
    store.entities.get(store.entities.partition_point(|e| e.path < prefix)).is_some_and(|e| under(&e.path))
        || store.other_files.get(store.other_files.partition_point(|(p, _)| *p < prefix)).is_some_and(|(p, _)| under(p))
}

/// Entities `i` links to or names in a typed edge (itself excluded), as backlinks count them.
fn targets(store: &Store, i: EntityIdx) -> impl Iterator<Item = EntityIdx> + '_ {
    let e = store.entity(i);
    e.links.iter().filter_map(|l| l.entity()).chain(e.edges.iter().filter_map(|d| d.resolved)).filter(move |&t| t != i)
}

/// Whether an unchanged entity's links or edges resolve differently in the new store
/// (targets compared by path: indices shift).
fn resolves_differently(old: &Store, o: EntityIdx, new: &Store, n: EntityIdx) -> bool {
    let (a, b) = (old.entity(o), new.entity(n));
    if a.links.len() != b.links.len() || a.edges.len() != b.edges.len() {
        return true;
    }
    let same_target = |x: EntityIdx, y: EntityIdx| old.entity(x).path == new.entity(y).path;
    let links_differ = a.links.iter().zip(&b.links).any(|(x, y)| match (&x.resolution, &y.resolution) {
        (Resolution::Entity(s), Resolution::Entity(t)) => !same_target(*s, *t),
        (Resolution::File(p), Resolution::File(q)) => p != q,
        (r, s) => std::mem::discriminant(r) != std::mem::discriminant(s),
    });
    links_differ
        || a.edges.iter().zip(&b.edges).any(|(x, y)| match (x.resolved, y.resolved) {
            (Some(s), Some(t)) => !same_target(s, t),
            (s, t) => s.is_some() != t.is_some(),
        })
}
