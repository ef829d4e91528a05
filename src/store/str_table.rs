//! Names → entity index, with the names copied into one buffer.
//!
//! Resolving half a million links compares each looked-up path with a key of the table. With
//! `&str` keys borrowing the entities, every comparison reached a path scattered over the
//! heap (a cache miss: 15 % of the samples after loading at 100k entities, perf). Here the
//! keys sit together in a few megabytes, and lower-cased names need no `String` each.
use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use super::entity::EntityIdx;

#[derive(Default)]
pub struct StrTable {
    keys: String,
    /// Where each key starts in `keys`, its length, and its entity.
    table: HashTable<(usize, u32, EntityIdx)>,
    state: RandomState,
}

impl StrTable {
    pub fn with_capacity(entries: usize) -> StrTable {
        StrTable { table: HashTable::with_capacity(entries), ..StrTable::default() }
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
        let keys = &self.keys;
        let key = &keys[start..];
        let text = |&(s, len, _): &(usize, u32, EntityIdx)| &keys[s..s + len as usize];
        let hash = self.state.hash_one(key);
        let state = &self.state;
        let fresh = match self.table.entry(hash, |e| text(e) == key, |e| state.hash_one(text(e))) {
            Entry::Occupied(_) => false,
            Entry::Vacant(slot) => {
                slot.insert((start, key.len() as u32, i));
                true
            }
        };
        if !fresh {
            self.keys.truncate(start);
        }
    }

    pub fn get(&self, key: &str) -> Option<EntityIdx> {
        let hash = self.state.hash_one(key);
        self.table.find(hash, |&(s, len, _)| &self.keys[s..s + len as usize] == key).map(|&(_, _, i)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_claim_wins_and_lookups_are_exact() {
        let mut t = StrTable::with_capacity(4);
        for (i, k) in ["a/b.md", "c.md", "a/b.md", "", "c"].iter().enumerate() {
            t.insert_first(k, i as EntityIdx);
        }
        assert_eq!(t.get("a/b.md"), Some(0));
        assert_eq!(t.get("c.md"), Some(1));
        assert_eq!(t.get(""), Some(3));
        assert_eq!(t.get("c"), Some(4));
        assert_eq!(t.get("a/b"), None);
        assert_eq!(t.keys, "a/b.mdc.mdc", "a repeated key is not kept twice");
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
}
