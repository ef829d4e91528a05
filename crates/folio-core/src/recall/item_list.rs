//! The items the streaming engine matches, shared with its workers: every entity's item (built
//! once per store, in parallel, not once per query or filter) and, while body sections are on,
//! section items appended as a loader reads the bodies. An item's position in the item_list is its
//! id; items are only ever appended, except that switching sections off removes them (the
//! engine starts a new query generation first, so no worker still holds their ids).
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard};

use rayon::prelude::*;

use super::item::RecallItem;
use crate::store::Store;
use crate::store::model::entity::EntityIdx;

#[derive(Default)]
pub struct ItemList {
    items: RwLock<Vec<RecallItem>>,
    /// The entity items are in (until then every query is still running).
    ready: AtomicBool,
}

/// How many entities' sections the loader reads before it hands them to the matcher.
const SECTION_BATCH: usize = 2_000;

impl ItemList {
    pub fn read(&self) -> RwLockReadGuard<'_, Vec<RecallItem>> {
        self.items.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn len(&self) -> usize {
        self.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn append(&self, more: Vec<RecallItem>) {
        self.items.write().unwrap_or_else(|e| e.into_inner()).extend(more);
    }

    /// One item per entity, built on the current rayon pool.
    pub fn add_entities(&self, store: &Store) {
        let items: Vec<RecallItem> =
            store.entities.par_iter().enumerate().map(|(i, e)| RecallItem::entity(i as EntityIdx, e)).collect();
        self.append(items);
        self.ready.store(true, Ordering::Release);
    }

    pub fn ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Read every entity's H2 sections and append them, a batch at a time, calling `added`
    /// after each batch. Stops when `stop` is set.
    pub fn add_sections(&self, store: &Store, stop: &AtomicBool, added: &dyn Fn()) {
        let mut batch = Vec::new();
        for i in 0..store.entities.len() {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            batch.extend(super::section_items(store, i as EntityIdx));
            if (i + 1) % SECTION_BATCH == 0 && !batch.is_empty() {
                self.append(std::mem::take(&mut batch));
                added();
            }
        }
        if !batch.is_empty() {
            self.append(batch);
        }
        added();
    }

    /// Sections are switched off: keep the entity items only.
    pub fn remove_sections(&self) {
        self.items.write().unwrap_or_else(|e| e.into_inner()).retain(|it| it.section.is_none());
    }
}
