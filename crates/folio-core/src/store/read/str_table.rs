//! Names → entity index, with the names copied into one buffer.
//!
//! Resolving half a million links compares each looked-up path with a key of the table. With
//! `&str` keys borrowing the entities, every comparison would reach a path scattered over the
//! heap, a cache miss each (docs/benchmarks.md, "Link resolution figures"). Here the keys sit
//! together in one buffer, and lower-cased names need no `String` each.
//!
//! Even so, a lookup at 100k entities waits on misses: its control bytes, its slot, then its
//! key. `get_each` looks up a batch of keys with the loads of each step started for the whole
//! batch before any is used, so they overlap instead of following one another.
use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use crate::store::model::entity::EntityIdx;
use crate::store::model::prefetch::prefetch;

/// A hashbrown `HashTable` of 12-byte slots: a key that is absent — most of a vault's lookups
/// (`Lookup::wiki` tries the linking file's folder, then the name) — ends on one group of
/// control bytes (1 byte a slot) without touching a slot, where a linear-probing table of
/// 16-byte slots takes more memory and probes dearer (docs/benchmarks.md,
/// "Link resolution figures").
#[derive(Default)]
pub struct StrTable {
    keys: String,
    slots: HashTable<Slot>,
    state: RandomState,
}

/// A key's place in `keys`, and its entity.
#[derive(Clone, Copy)]
struct Slot {
    start: u32,
    len: u32,
    entity: EntityIdx,
}

impl StrTable {
    /// Room for `entries` keys of `bytes` in all: grown by doubling, the keys' buffer would
    /// hold up to twice its text at the load's peak (docs/benchmarks.md, "Link resolution figures").
    pub fn with_capacity_and_bytes(entries: usize, bytes: usize) -> StrTable {
        StrTable {
            keys: String::with_capacity(bytes),
            slots: HashTable::with_capacity(entries),
            state: RandomState::default(),
        }
    }

    /// Map `key` to `i` unless it is mapped already (the first entity to claim a name keeps it).
    pub fn insert_first(&mut self, key: &str, i: EntityIdx) {
        let start = self.keys.len();
        self.keys.push_str(key);
        self.claim(start, i);
    }

    /// `insert_first` with `key` lower-cased (`str::to_lowercase`).
    pub fn insert_first_lowercase(&mut self, key: &str, i: EntityIdx) {
        let start = self.keys.len();
        if key.is_ascii() {
            self.keys.push_str(key);
            self.keys[start..].make_ascii_lowercase();
        } else {
            self.keys.push_str(&key.to_lowercase());
        }
        self.claim(start, i);
    }

    /// Claim the key that ends `keys` from `start`; it is taken back off when already mapped.
    fn claim(&mut self, start: usize, i: EntityIdx) {
        // Offsets are u32: past 4 GB of names (far beyond any store's paths) a name is left
        // out rather than mapped wrong.
        let end = self.keys.len();
        let (Ok(start32), Ok(end32)) = (u32::try_from(start), u32::try_from(end)) else {
            self.keys.truncate(start);
            return;
        };
        let len = end32 - start32;
        let StrTable { keys, slots, state } = self;
        let key = &keys[start..];
        let hash = state.hash_one(key);
        let text = |s: &Slot| &keys[s.start as usize..(s.start + s.len) as usize];
        match slots.entry(hash, |s| text(s) == key, |s| state.hash_one(text(s))) {
            Entry::Occupied(_) => keys.truncate(start),
            Entry::Vacant(slot) => {
                slot.insert(Slot { start: start32, len, entity: i });
            }
        }
    }

    fn text(&self, s: &Slot) -> &str {
        &self.keys[s.start as usize..(s.start + s.len) as usize]
    }

    fn find(&self, key: &str, hash: u64) -> Option<EntityIdx> {
        self.slots.find(hash, |s| s.len as usize == key.len() && self.text(s) == key).map(|s| s.entity)
    }

    pub fn get(&self, key: &str) -> Option<EntityIdx> {
        self.find(key, self.state.hash_one(key))
    }

    /// `get` for each key, appended to `out`: the same answers, with the memory loads of up
    /// to `BATCH` keys overlapping.
    pub fn get_each<'k>(&self, keys: impl IntoIterator<Item = &'k str>, out: &mut Vec<Option<EntityIdx>>) {
        let mut keys = keys.into_iter().peekable();
        while keys.peek().is_some() {
            let mut batch: [(&str, u64); BATCH] = [("", 0); BATCH];
            let n = batch.iter_mut().zip(&mut keys).map(|(slot, key)| slot.0 = key).count();
            self.get_batch(&mut batch[..n], out);
        }
    }

    fn get_batch(&self, batch: &mut [(&str, u64)], out: &mut Vec<Option<EntityIdx>>) {
        // Step 1: hash every key, find its first slot of the same length and start loading
        // that slot's key.
        for (key, hash) in batch.iter_mut() {
            *hash = self.state.hash_one(*key);
            if let Some(s) = self.slots.iter_hash(*hash).find(|s| s.len as usize == key.len()) {
                prefetch(&self.keys.as_bytes()[s.start as usize..]);
            }
        }
        // Step 2: compare the keys.
        out.extend(batch.iter().map(|&(key, hash)| self.find(key, hash)));
    }
}

/// Keys looked up together by `get_each`: about as many misses as a core keeps in flight.
const BATCH: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_claim_wins_and_lookups_are_exact() {
        let mut t = StrTable::with_capacity_and_bytes(4, 0);
        for (i, k) in ["a/b.md", "c.md", "a/b.md", "", "c"].iter().enumerate() {
            t.insert_first(k, i as EntityIdx);
        }
        assert_eq!(t.get("a/b.md"), Some(0));
        assert_eq!(t.get("c.md"), Some(1));
        assert_eq!(t.get(""), Some(3));
        assert_eq!(t.get("c"), Some(4));
        assert_eq!(t.get("a/b"), None);
        assert_eq!(t.keys, "a/b.mdc.mdc", "a repeated key is not kept twice");
        assert_eq!(StrTable::default().get(""), None, "an empty table holds nothing");
    }

    #[test]
    fn lower_cased_keys_match_to_lowercase() {
        let mut t = StrTable::default();
        for (i, k) in (0..).zip(["Users Table", "ÉTÉ", "users table", "ΣΑΣ", "\u{212a}elvin"]) {
            t.insert_first_lowercase(k, i);
        }
        assert_eq!(t.get("users table"), Some(0));
        assert_eq!(t.get("été"), Some(1));
        assert_eq!(t.get(&"ΣΑΣ".to_lowercase()), Some(3));
        assert_eq!(t.get("kelvin"), Some(4));
        assert_eq!(t.get("Users Table"), None);
    }

    #[test]
    fn growing_and_batches_agree_with_a_hash_map() {
        // Grown from nothing through many rehashes, with repeated and absent keys looked up.
        let mut t = StrTable::default();
        let mut reference = std::collections::HashMap::new();
        for i in 0..5000u32 {
            let key = format!("dir{}/note-{}.md", i % 37, (i * 7919) % 3001);
            t.insert_first(&key, i);
            reference.entry(key).or_insert(i);
        }
        let asked: Vec<String> = (0..4000u32).map(|i| format!("dir{}/note-{}.md", i % 41, i % 3100)).collect();
        let mut out = Vec::new();
        // Batches shorter and longer than `BATCH`.
        for batch in asked.chunks(7).chain(asked.chunks(BATCH * 2 + 3)) {
            out.clear();
            t.get_each(batch.iter().map(String::as_str), &mut out);
            assert_eq!(out.len(), batch.len());
            for (key, got) in batch.iter().zip(&out) {
                assert_eq!(*got, reference.get(key).copied(), "{key}");
                assert_eq!(t.get(key), *got, "{key}");
            }
        }
        assert!(reference.len() > 2000 && asked.iter().any(|k| !reference.contains_key(k)));
        out.clear();
        StrTable::default().get_each(["a", ""], &mut out);
        assert_eq!(out, [None, None]);
    }
}
