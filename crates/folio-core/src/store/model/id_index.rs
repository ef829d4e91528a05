//! Entity indices by exact id, without a copy of the ids: the table holds only indices and
//! hashes each entity's own id when it needs to. A `HashMap<String, EntityIdx>` would keep a
//! second copy of every id at the load's peak (docs/benchmarks.md, "Load figures").
use std::hash::BuildHasher;
use std::sync::Arc;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use super::entity::{Entity, EntityIdx};

#[derive(Default, Clone)]
pub struct IdIndex {
    table: HashTable<EntityIdx>,
    state: RandomState,
}

impl IdIndex {
    /// Index `entities` by id; when ids repeat, the later entity wins (as a map's `collect` did).
    pub fn build(entities: &[Arc<Entity>]) -> IdIndex {
        let state = RandomState::default();
        let mut table = HashTable::with_capacity(entities.len());
        let id_of = |j: EntityIdx| entities[j as usize].id.as_str();
        for (i, e) in entities.iter().enumerate() {
            super::prefetch::entity_ahead(entities, i, |e| e.id.as_str());
            let hash = state.hash_one(e.id.as_str());
            match table.entry(hash, |&j| id_of(j) == e.id, |&j| state.hash_one(id_of(j))) {
                Entry::Occupied(mut slot) => *slot.get_mut() = i as EntityIdx,
                Entry::Vacant(slot) => {
                    slot.insert(i as EntityIdx);
                }
            }
        }
        IdIndex { table, state }
    }

    /// The entity of `entities` (the slice the index was built from, or one with the same ids
    /// at the same places) whose id is exactly `id`.
    pub fn get(&self, entities: &[Arc<Entity>], id: &str) -> Option<EntityIdx> {
        let hash = self.state.hash_one(id);
        self.table.find(hash, |&j| entities.get(j as usize).is_some_and(|e| e.id == id)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: &str) -> Arc<Entity> {
        Arc::new(Entity { id: id.into(), path: format!("{id}.md"), ..Entity::default() })
    }

    #[test]
    fn finds_every_id_and_nothing_else() {
        let entities: Vec<_> = (0..1000).map(|i| entity(&format!("note-{i}"))).collect();
        let index = IdIndex::build(&entities);
        for (i, e) in entities.iter().enumerate() {
            assert_eq!(index.get(&entities, &e.id), Some(i as EntityIdx));
        }
        assert_eq!(index.get(&entities, "note-1000"), None);
        assert_eq!(index.get(&entities, "Note-1"), None);
        assert_eq!(IdIndex::default().get(&entities, "note-1"), None);
    }

    #[test]
    fn a_repeated_id_finds_the_later_entity() {
        let entities = vec![entity("a"), entity("b"), entity("a")];
        assert_eq!(IdIndex::build(&entities).get(&entities, "a"), Some(2));
    }
}
