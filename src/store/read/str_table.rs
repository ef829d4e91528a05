//! Names → entity index, with the names copied into one buffer.
//!
//! Resolving half a million links compares each looked-up path with a key of the table. With
//! `&str` keys borrowing the entities, every comparison reached a path scattered over the
//! heap (a cache miss: 15 % of the samples after loading at 100k entities, perf). Here the
//! keys sit together in a few megabytes, and lower-cased names need no `String` each.
//!
//! Even so, a lookup at 100k entities waits on two misses, its slot and its key (perf put
//! 80 % of the lookup's samples on those two loads). `get_each` looks up a batch of keys
//! with the loads of each step started for the whole batch before any is used, so they
//! overlap instead of following one another.
use std::hash::BuildHasher;

use foldhash::fast::RandomState;

use crate::store::model::entity::EntityIdx;
use crate::store::model::prefetch::prefetch;

/// Open addressing with linear probing, kept at most three quarters full: half full doubled
/// the 100k name table to 2^20 slots (16 MB) at the load's peak, and at ≤ 0.75 a probe still
/// ends within a cache line or two of 16-byte slots.
#[derive(Default)]
pub struct StrTable {
    keys: String,
    slots: Vec<Slot>,
    len: usize,
    state: RandomState,
}

/// A key's place in `keys`, its entity, and the high half of its hash (`len == 0` and
/// `start == u32::MAX` is an empty slot; an empty key is a key like any other).
#[derive(Clone, Copy)]
struct Slot {
    fingerprint: u32,
    start: u32,
    len: u32,
    entity: EntityIdx,
}

const EMPTY: Slot = Slot { fingerprint: 0, start: u32::MAX, len: 0, entity: 0 };

impl Slot {
    fn is_empty(&self) -> bool {
        self.start == u32::MAX
    }
}

impl StrTable {
    /// Room for `entries` keys of `bytes` in all: the keys' buffer grew by doubling, up to
    /// twice what it holds at the load's peak (15 MB for 100k entities' names).
    pub fn with_capacity_and_bytes(entries: usize, bytes: usize) -> StrTable {
        let mut t = StrTable { keys: String::with_capacity(bytes), ..StrTable::default() };
        t.grow_to(entries);
        t
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
        // Offsets are u32 (`u32::MAX` marks an empty slot): past 4 GB of names (never seen;
        // 100k entities hold 4 MB of paths) a name is left out rather than mapped wrong.
        let end = self.keys.len();
        let (Ok(start32), true) = (u32::try_from(start), end < u32::MAX as usize) else {
            self.keys.truncate(start);
            return;
        };
        let len = (end - start) as u32;
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow_to(self.len + 1);
        }
        let hash = self.state.hash_one(&self.keys[start..]);
        match self.probe(&self.keys[start..], hash) {
            Ok(_) => self.keys.truncate(start),
            Err(empty) => {
                self.slots[empty] = Slot { fingerprint: (hash >> 32) as u32, start: start32, len, entity: i };
                self.len += 1;
            }
        }
    }

    /// Room for `entries` keys at most three quarters full, the slots rehashed.
    fn grow_to(&mut self, entries: usize) {
        let want = (entries.max(3) * 4).div_ceil(3).next_power_of_two();
        if want <= self.slots.len() {
            return;
        }
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; want]);
        for s in old.into_iter().filter(|s| !s.is_empty()) {
            let hash = self.state.hash_one(self.text(&s));
            let mut at = hash as usize & self.mask();
            while !self.slots[at].is_empty() {
                at = (at + 1) & self.mask();
            }
            self.slots[at] = s;
        }
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    fn text(&self, s: &Slot) -> &str {
        &self.keys[s.start as usize..(s.start + s.len) as usize]
    }

    fn matches(&self, s: &Slot, key: &str, hash: u64) -> bool {
        s.fingerprint == (hash >> 32) as u32 && s.len as usize == key.len() && self.text(s) == key
    }

    /// The slot holding `key`, or the empty slot ending its probe sequence.
    fn probe(&self, key: &str, hash: u64) -> Result<usize, usize> {
        self.probe_from(hash as usize & self.mask(), key, hash)
    }

    fn probe_from(&self, mut at: usize, key: &str, hash: u64) -> Result<usize, usize> {
        loop {
            let s = &self.slots[at];
            if s.is_empty() {
                return Err(at);
            }
            if self.matches(s, key, hash) {
                return Ok(at);
            }
            at = (at + 1) & self.mask();
        }
    }

    pub fn get(&self, key: &str) -> Option<EntityIdx> {
        if self.slots.is_empty() {
            return None;
        }
        self.probe(key, self.state.hash_one(key)).ok().map(|at| self.slots[at].entity)
    }

    /// `get` for each key, appended to `out`: the same answers, with the memory loads of up
    /// to `BATCH` keys overlapping.
    pub fn get_each<'k>(&self, keys: impl IntoIterator<Item = &'k str>, out: &mut Vec<Option<EntityIdx>>) {
        let mut keys = keys.into_iter().peekable();
        while keys.peek().is_some() {
            let mut batch: [(&str, u64, usize); BATCH] = [("", 0, 0); BATCH];
            let n = batch.iter_mut().zip(&mut keys).map(|(slot, key)| slot.0 = key).count();
            self.get_batch(&mut batch[..n], out);
        }
    }

    fn get_batch(&self, batch: &mut [(&str, u64, usize)], out: &mut Vec<Option<EntityIdx>>) {
        if self.slots.is_empty() {
            out.extend(batch.iter().map(|_| None));
            return;
        }
        // Step 1: hash every key and start loading its first slot.
        for (key, hash, at) in batch.iter_mut() {
            *hash = self.state.hash_one(*key);
            *at = *hash as usize & self.mask();
            prefetch(&self.slots[*at]);
        }
        // Step 2: find the slot whose fingerprint and length match and start loading its key.
        for (key, hash, at) in batch.iter_mut() {
            loop {
                let s = &self.slots[*at];
                if s.is_empty() {
                    break;
                }
                if s.fingerprint == (*hash >> 32) as u32 && s.len as usize == key.len() {
                    prefetch(&self.keys.as_bytes()[s.start as usize..]);
                    break;
                }
                *at = (*at + 1) & self.mask();
            }
        }
        // Step 3: compare the keys, probing on past a fingerprint that was not the key.
        out.extend(
            batch.iter().map(|&(key, hash, at)| self.probe_from(at, key, hash).ok().map(|at| self.slots[at].entity)),
        );
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
