//! The catalog tree: entities grouped the way their dialect groups them (OKF and vault folders,
//! AIP-10 and evolve kinds, opendray kind then maturity, awareness sections). UI-free: the TUI's
//! catalog pane draws it, tests check it without a terminal.
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::store::Store;
use crate::store::dialect::DialectKind;
use crate::store::model::entity::{Entity, EntityIdx};

/// One folder of the tree: named sub-groups first, then the entities directly inside it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    pub label: String,
    pub groups: Vec<Group>,
    pub entities: Vec<EntityIdx>,
}

impl Group {
    /// How many entities this group holds, sub-groups included.
    pub fn count(&self) -> usize {
        self.entities.len() + self.groups.iter().map(Group::count).sum::<usize>()
    }
}

/// Label used when an entity lacks the field its format groups by.
pub use crate::store::dialect::format::UNSORTED;

/// The labels from the root down to the group an entity belongs in (empty: at the root).
pub fn group_path(kind: DialectKind, e: &Entity) -> Vec<&str> {
    kind.format().group_path(e)
}

/// Which entities a tree shows and in what order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeFilter {
    /// Case-insensitive text matched against id, title, kind, status and tags; `kind:X`,
    /// `tag:X` and `status:X` words match only that field.
    pub query: String,
    pub sort: SortKey,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SortKey {
    #[default]
    Title,
    Id,
    /// Most recently updated first (entities without a date last).
    Updated,
}

impl SortKey {
    pub fn next(self) -> SortKey {
        match self {
            SortKey::Title => SortKey::Id,
            SortKey::Id => SortKey::Updated,
            SortKey::Updated => SortKey::Title,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Title => "title",
            SortKey::Id => "id",
            SortKey::Updated => "updated",
        }
    }
}

/// Whether an entity passes every word of the query.
pub fn matches(e: &Entity, query: &str) -> bool {
    query.split_whitespace().all(|word| {
        let word = word.to_lowercase();
        let has = |s: &str| s.to_lowercase().contains(word.split_once(':').map_or(word.as_str(), |(_, v)| v));
        let opt = |s: Option<&str>| s.is_some_and(has);
        match word.split_once(':') {
            Some(("kind", _)) | Some(("type", _)) => opt(e.kind.as_deref()),
            Some(("tag", _)) => e.tags.iter().any(|t| has(t)),
            Some(("status", _)) => opt(e.status.as_deref()),
            _ => {
                has(&e.id)
                    || has(&e.title)
                    || opt(e.kind.as_deref())
                    || opt(e.status.as_deref())
                    || e.tags.iter().any(|t| has(t))
            }
        }
    })
}

/// Whether `build` gives `new` the same tree as `old` whatever the filter: the same entities
/// at the same indices, each one shared (not re-read) or alike in every field the tree reads
/// (`group_path`, `matches`, the sort keys). After a live reload that only rewrote bodies,
/// the catalog keeps its tree: rebuilding it would be most of the UI thread's work for the
/// reload (docs/benchmarks.md, "Live reload figures").
pub fn unchanged(old: &Store, new: &Store) -> bool {
    old.kind() == new.kind()
        && old.entities.len() == new.entities.len()
        && old.entities.iter().zip(&new.entities).all(|(a, b)| Arc::ptr_eq(a, b) || alike(a, b))
}

/// Whether the tree reads `a` and `b` alike: every field `group_path`, `matches` and the sort
/// keys read.
fn alike(a: &Entity, b: &Entity) -> bool {
    a.path == b.path
        && a.id == b.id
        && a.title == b.title
        && a.kind == b.kind
        && a.status == b.status
        && a.tags == b.tags
        && a.updated == b.updated
}

/// Build the tree of every entity passing the filter.
pub fn build(store: &Store, filter: &TreeFilter) -> Group {
    build_from(store.kind(), &store.entities, filter)
}

/// `build` over a bare entity list (what the store holds, or a test's hand-made entities).
pub fn build_from(kind: DialectKind, entities: &[Arc<Entity>], filter: &TreeFilter) -> Group {
    // Labels borrow from the entities while grouping (no string per entity and level).
    #[derive(Default)]
    struct Node<'a> {
        groups: BTreeMap<&'a str, Node<'a>>,
        entities: Vec<EntityIdx>,
    }
    let mut root = Node::default();
    let everything = filter.query.trim().is_empty();
    for (i, e) in entities.iter().enumerate() {
        if !everything && !matches(e, &filter.query) {
            continue;
        }
        let mut node = &mut root;
        for label in group_path(kind, e) {
            node = node.groups.entry(label).or_default();
        }
        node.entities.push(i as EntityIdx);
    }
    fn finish(label: &str, node: Node, entities: &[Arc<Entity>], sort: SortKey) -> Group {
        let mut ids = node.entities;
        let at = |i: &EntityIdx| &entities[*i as usize];
        match sort {
            // Lower-cased once per entity, not once per comparison (100k entities: ~3M comparisons).
            SortKey::Title => ids.sort_by_cached_key(|i| (at(i).title.to_lowercase(), &at(i).id)),
            SortKey::Id => ids.sort_by(|a, b| at(a).id.cmp(&at(b).id)),
            SortKey::Updated => ids.sort_by(|a, b| {
                let (a, b) = (at(a), at(b));
                b.updated.is_some().cmp(&a.updated.is_some()).then(b.updated.cmp(&a.updated))
            }),
        }
        let groups = node.groups.into_iter().map(|(l, n)| finish(l, n, entities, sort)).collect();
        Group { label: label.to_string(), groups, entities: ids }
    }
    finish("", root, entities, filter.sort)
}

/// The tree `build(new, filter)` gives, derived from `shown` (the tree `build(old, filter)`
/// gave) when few entities changed between `old` and `new` (both sorted by path and line):
/// the entities alike in both keep their places, renumbered; those removed or changed leave;
/// those changed or added are placed as `build` places them. None when too many changed (a
/// build is then as quick). A large store's build takes a tenth of a second (docs/benchmarks.md,
/// "Fifteenth session"); this costs the change and one pass over the tree.
pub fn rederived(
    kind: DialectKind,
    old: &[Arc<Entity>],
    shown: &Group,
    new: &[Arc<Entity>],
    filter: &TreeFilter,
) -> Option<Group> {
    fn at(e: &Entity) -> (&str, u32) {
        (e.path.as_str(), e.line)
    }
    // Old index → new index for the entities alike in both; the new ones to place.
    let mut moved: Vec<Option<EntityIdx>> = vec![None; old.len()];
    let mut placed: Vec<EntityIdx> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if at(a) == at(b) => {
                if Arc::ptr_eq(a, b) || alike(a, b) {
                    moved[i] = Some(j as EntityIdx);
                } else {
                    placed.push(j as EntityIdx);
                }
                (i, j) = (i + 1, j + 1);
            }
            (Some(a), Some(b)) if at(a) < at(b) => i += 1,
            (Some(_), None) => i += 1,
            (_, Some(_)) => {
                placed.push(j as EntityIdx);
                j += 1;
            }
            (None, None) => break,
        }
        if placed.len() > MAX_PLACED {
            return None;
        }
    }
    let mut tree = renumbered(shown, &moved);
    let everything = filter.query.trim().is_empty();
    for idx in placed {
        let e = &new[idx as usize];
        if !everything && !matches(e, &filter.query) {
            continue;
        }
        let mut group = &mut tree;
        for label in group_path(kind, e) {
            let found = group.groups.binary_search_by(|g| g.label.as_str().cmp(label));
            let k = found.unwrap_or_else(|k| {
                group.groups.insert(k, Group { label: label.to_string(), ..Group::default() });
                k
            });
            group = &mut group.groups[k];
        }
        let before = |&other: &EntityIdx| order(filter.sort, &new[other as usize], other, e, idx).is_lt();
        let k = group.entities.partition_point(before);
        group.entities.insert(k, idx);
    }
    Some(tree)
}

/// Changed entities past which `rederived` leaves it to a build.
const MAX_PLACED: usize = 2_000;

/// `shown` with each entity renumbered by `moved` (None: it leaves) and the groups left empty
/// dropped, as a build leaves none.
fn renumbered(shown: &Group, moved: &[Option<EntityIdx>]) -> Group {
    let groups = shown.groups.iter().map(|g| renumbered(g, moved)).filter(|g| g.count() > 0).collect();
    let entities = shown.entities.iter().filter_map(|&i| moved.get(i as usize).copied().flatten()).collect();
    Group { label: shown.label.clone(), groups, entities }
}

/// The order `build` gives two entities of one group (its sorts are stable over the
/// entities' order, so equal keys keep their indices' order).
fn order(sort: SortKey, a: &Entity, ai: EntityIdx, b: &Entity, bi: EntityIdx) -> std::cmp::Ordering {
    let by_key = match sort {
        SortKey::Title => (a.title.to_lowercase(), &a.id).cmp(&(b.title.to_lowercase(), &b.id)),
        SortKey::Id => a.id.cmp(&b.id),
        SortKey::Updated => b.updated.is_some().cmp(&a.updated.is_some()).then(b.updated.cmp(&a.updated)),
    };
    by_key.then(ai.cmp(&bi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(path: &str, kind: Option<&str>, status: Option<&str>, title: &str) -> Arc<Entity> {
        Arc::new(Entity {
            id: path.trim_end_matches(".md").into(),
            path: path.into(),
            kind: kind.map(Into::into),
            status: status.map(Into::into),
            title: title.into(),
            ..Entity::default()
        })
    }

    #[test]
    fn okf_groups_by_folder_with_counts() {
        let es = vec![
            entity("tables/users.md", Some("table"), None, "Users"),
            entity("tables/orders.md", Some("table"), None, "Orders"),
            entity("metrics/revenue.md", Some("metric"), None, "Revenue"),
            entity("readme.md", None, None, "Readme"),
        ];
        let t = build_from(crate::store::dialect::okf::KIND, &es, &TreeFilter::default());
        assert_eq!(t.count(), 4);
        assert_eq!(t.entities, vec![3]);
        let labels: Vec<_> = t.groups.iter().map(|g| (g.label.as_str(), g.count())).collect();
        assert_eq!(labels, vec![("metrics", 1), ("tables", 2)]);
        // Sorted by title inside the folder: Orders before Users.
        assert_eq!(t.groups[1].entities, vec![1, 0]);
    }

    #[test]
    fn opendray_groups_by_kind_then_maturity() {
        let es = vec![
            entity("a.md", Some("decision"), Some("confirmed"), "A"),
            entity("b.md", Some("decision"), Some("draft"), "B"),
            entity("c.md", None, None, "C"),
        ];
        let t = build_from(crate::store::dialect::opendray::KIND, &es, &TreeFilter::default());
        assert_eq!(t.groups.len(), 2);
        assert_eq!(t.groups[0].label, UNSORTED);
        let decision = &t.groups[1];
        assert_eq!(decision.label, "decision");
        let mats: Vec<_> = decision.groups.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(mats, vec!["confirmed", "draft"]);
    }

    /// Random stores changed at random (entities removed, added, retitled, re-kinded, their
    /// status or date changed, bodies re-read), under every sort and a few filters: the tree
    /// derived from the one shown is the one a build gives.
    #[test]
    fn a_tree_derived_from_the_one_shown_is_the_one_built() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let words = ["alpha", "beta", "Gamma", "delta", "Beta"];
        let kinds = [None, Some("decision"), Some("fact"), Some("skill")];
        let statuses = [None, Some("draft"), Some("confirmed"), Some("candidate")];
        let random_entity = |next: &mut dyn FnMut(usize) -> usize, path: String, line: u32| {
            let mut e = entity(&path, kinds[next(4)], statuses[next(4)], words[next(5)]);
            let e_mut = Arc::make_mut(&mut e);
            e_mut.line = line;
            e_mut.updated = [None, Some("2026-01-02".into()), Some("2026-03-04".into())][next(3)].clone();
            e_mut.tags = if next(3) == 0 { vec!["billing".into()] } else { Vec::new() };
            e
        };
        let sorted = |mut es: Vec<Arc<Entity>>| {
            es.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
            es
        };
        let filters = ["", "beta", "kind:fact", "tag:bill", "status:draft alpha"];
        for kind in [crate::store::dialect::okf::KIND, crate::store::dialect::opendray::KIND] {
            for round in 0..60 {
                let n = 1 + next(60);
                let old = sorted(
                    (0..n)
                        .map(|k| {
                            let dir = ["a", "b/c", "b", "d"][next(4)];
                            let line = 1 + next(2) as u32;
                            random_entity(&mut next, format!("{dir}/n{k}.md"), line)
                        })
                        .collect(),
                );
                let mut new: Vec<Arc<Entity>> = Vec::new();
                for e in &old {
                    match next(8) {
                        0 => {}
                        1 => new.push(random_entity(&mut next, e.path.clone(), e.line)),
                        2 => {
                            let mut c = Arc::new((**e).clone());
                            Arc::make_mut(&mut c).body_start += 1;
                            new.push(c);
                        }
                        _ => new.push(Arc::clone(e)),
                    }
                }
                for k in 0..next(4) {
                    new.push(random_entity(&mut next, format!("b/z{round}-{k}.md"), 1));
                }
                let new = sorted(new);
                for sort in [SortKey::Title, SortKey::Id, SortKey::Updated] {
                    for q in filters {
                        let filter = TreeFilter { query: q.into(), sort };
                        let shown = build_from(kind, &old, &filter);
                        let derived = rederived(kind, &old, &shown, &new, &filter).expect("few changed");
                        assert_eq!(derived, build_from(kind, &new, &filter), "round {round} {kind} {filter:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn filter_words_select_fields() {
        let mut tagged = entity("x.md", Some("note"), Some("draft"), "Pricing rules");
        Arc::make_mut(&mut tagged).tags = vec!["billing".into()];
        let es = vec![tagged, entity("y.md", Some("table"), None, "Users")];
        let count = |q: &str| {
            build_from(
                crate::store::dialect::aip10::KIND,
                &es,
                &TreeFilter { query: q.into(), ..TreeFilter::default() },
            )
            .count()
        };
        assert_eq!(count(""), 2);
        assert_eq!(count("pricing"), 1);
        assert_eq!(count("tag:bill"), 1);
        assert_eq!(count("kind:table"), 1);
        assert_eq!(count("status:draft kind:table"), 0);
        assert_eq!(count("USERS"), 1);
    }
}
