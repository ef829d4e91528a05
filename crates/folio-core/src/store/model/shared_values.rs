//! Values that repeat across a store's entities — kinds, statuses, tags — held once: a store
//! of 100k entities names a few dozen kinds and a few hundred tags, and one small allocation
//! per entity and value (≥ 32 bytes each with the allocator's header) was ≈ 120 bytes of every
//! OKF entity's share of the peak RSS.
use std::sync::Arc;

use hashbrown::HashSet;

use super::entity::Entity;

/// Owned items of a list, ready to be shared (`SharedValues::share` later swaps each for the
/// store's one copy).
pub fn shared_list(items: Vec<String>) -> Vec<Arc<str>> {
    items.into_iter().map(Arc::from).collect()
}

/// One copy of each value met so far (one per loading thread: a value met on two threads is
/// held twice, which is bounded by the threads, not the entities).
#[derive(Debug, Default)]
pub struct SharedValues {
    seen: HashSet<Arc<str>, foldhash::fast::RandomState>,
}

impl SharedValues {
    /// The one copy of `value`.
    fn get(&mut self, value: &Arc<str>) -> Arc<str> {
        match self.seen.get(&**value) {
            Some(one) => one.clone(),
            None => {
                self.seen.insert(value.clone());
                value.clone()
            }
        }
    }

    /// Point `e`'s kind, status and tags at the copies already held.
    pub fn share(&mut self, e: &mut Entity) {
        for v in e.kind.iter_mut().chain(e.status.iter_mut()).chain(e.tags.iter_mut()) {
            *v = self.get(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_of_different_entities_become_one_allocation() {
        let mut shared = SharedValues::default();
        let mut a = Entity {
            kind: Some("Metric".into()),
            tags: shared_list(vec!["x".into(), "y".into()]),
            ..Entity::default()
        };
        let mut b = Entity {
            kind: Some("Metric".into()),
            status: Some("x".into()),
            tags: shared_list(vec!["y".into()]),
            ..Entity::default()
        };
        shared.share(&mut a);
        shared.share(&mut b);
        assert!(Arc::ptr_eq(a.kind.as_ref().unwrap(), b.kind.as_ref().unwrap()));
        assert!(Arc::ptr_eq(&a.tags[1], &b.tags[0]));
        assert!(Arc::ptr_eq(&a.tags[0], b.status.as_ref().unwrap()), "one table for every field");
        assert_eq!((&*a.tags[0], &*a.tags[1], b.status.as_deref()), ("x", "y", Some("x")));
    }
}
