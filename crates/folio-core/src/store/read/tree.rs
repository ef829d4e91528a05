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
    fn alike(a: &Entity, b: &Entity) -> bool {
        a.path == b.path
            && a.id == b.id
            && a.title == b.title
            && a.kind == b.kind
            && a.status == b.status
            && a.tags == b.tags
            && a.updated == b.updated
    }
    old.kind() == new.kind()
        && old.entities.len() == new.entities.len()
        && old.entities.iter().zip(&new.entities).all(|(a, b)| Arc::ptr_eq(a, b) || alike(a, b))
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
