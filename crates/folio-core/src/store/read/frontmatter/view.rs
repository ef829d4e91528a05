//! Frontmatter fields as a view over the file text: what dialects read while a store loads.
//!
//! The simple reader's strings are slices of the block (only a folded plain scalar has to be
//! joined into a new string), keys are looked up by a linear scan of the few a file has (a hash table past 16), and
//! nothing is hashed. Building an owned `serde_json::Map` per entity instead — a `String` per
//! key and value, SipHash in its index — would be a large share of every load
//! (docs/benchmarks.md, "Load figures"). YAML beyond the simple reader is parsed by
//! serde_yaml_ng and viewed as owned values; `Fields` stays the API for `show`, edits and
//! everything outside the load path.
use std::borrow::Cow;

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use serde_json::{Map, Number, Value};

use super::{Fields, split_commas};
use crate::store::model::lines::trim;

/// One value, typed as `frontmatter::yaml_to_json` types it.
#[derive(Debug, Clone, PartialEq)]
pub enum Val<'a> {
    Null,
    Bool(bool),
    Num(Number),
    Str(Cow<'a, str>),
    List(Vec<Val<'a>>),
    Map(View<'a>),
}

/// Fields in file order, keys unique.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct View<'a> {
    entries: Vec<(Cow<'a, str>, Val<'a>)>,
    /// Positions by key, once a block has more keys than a linear scan handles well: with scans
    /// alone a hostile block of many keys is quadratic to read, since each insert checks for a
    /// duplicate (docs/benchmarks.md, "Load figures").
    index: KeyIndex,
    /// `key_bit` of every key: a key whose bit is clear is not there, without a scan (loading
    /// asks each view for a dozen edge keys it almost never holds).
    present: u64,
}

/// One of 64 bits, from a key's length and its first and last bytes.
fn key_bit(key: &str) -> u64 {
    let b = key.as_bytes();
    let (first, last) = (b.first().copied().unwrap_or(0) as usize, b.last().copied().unwrap_or(0) as usize);
    1 << ((b.len() * 7 + first * 3 + last) & 63)
}

/// Past this many keys, lookups go through a hash table.
const INDEXED_FROM: usize = 16;

#[derive(Debug, Clone, Default)]
struct KeyIndex(Option<Box<(HashTable<usize>, RandomState)>>);

/// Derived from the entries: two views with equal entries are equal whatever their index.
impl PartialEq for KeyIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<'a> View<'a> {
    pub fn new() -> Self {
        View { entries: Vec::new(), index: KeyIndex::default(), present: 0 }
    }

    pub fn with_capacity(keys: usize) -> Self {
        View { entries: Vec::with_capacity(keys), index: KeyIndex::default(), present: 0 }
    }

    fn with_entries(entries: Vec<(Cow<'a, str>, Val<'a>)>) -> Self {
        let present = entries.iter().fold(0, |bits, (k, _)| bits | key_bit(k));
        let mut view = View { entries, index: KeyIndex::default(), present };
        view.build_index();
        view
    }

    fn build_index(&mut self) {
        if self.entries.len() < INDEXED_FROM {
            return;
        }
        let state = RandomState::default();
        let mut table = HashTable::with_capacity(self.entries.len());
        for (i, (k, _)) in self.entries.iter().enumerate() {
            let entries = &self.entries;
            table.insert_unique(state.hash_one(k.as_ref()), i, |&j| state.hash_one(entries[j].0.as_ref()));
        }
        self.index = KeyIndex(Some(Box::new((table, state))));
    }

    fn position(&self, key: &str) -> Option<usize> {
        if self.present & key_bit(key) == 0 {
            return None;
        }
        match &self.index.0 {
            Some(ix) => ix.0.find(ix.1.hash_one(key), |&j| self.entries[j].0 == key).copied(),
            None => self.entries.iter().position(|(k, _)| k == key),
        }
    }

    fn push(&mut self, key: Cow<'a, str>, value: Val<'a>) {
        self.present |= key_bit(&key);
        self.entries.push((key, value));
        let i = self.entries.len() - 1;
        match &mut self.index.0 {
            Some(ix) => {
                let (table, state) = &mut **ix;
                let entries = &self.entries;
                table.insert_unique(state.hash_one(entries[i].0.as_ref()), i, |&j| {
                    state.hash_one(entries[j].0.as_ref())
                });
            }
            None => self.build_index(),
        }
    }

    /// Add a field; `false` (and nothing added) when the key is already there.
    pub fn insert(&mut self, key: impl Into<Cow<'a, str>>, value: Val<'a>) -> bool {
        let key = key.into();
        if self.position(&key).is_some() {
            return false;
        }
        self.push(key, value);
        true
    }

    /// Set a field, replacing the value of an existing key in place (a `Map::insert`).
    pub fn set(&mut self, key: impl Into<Cow<'a, str>>, value: Val<'a>) {
        let key = key.into();
        match self.position(&key) {
            Some(i) => self.entries[i].1 = value,
            None => self.push(key, value),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Val<'a>> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_ref())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Val<'a>)> {
        self.entries.iter().map(|(k, v)| (k.as_ref(), v))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The owned mapping (`Fields`) with the same keys, order and values.
    pub fn into_fields(self) -> Fields {
        let mut out = Map::with_capacity(self.entries.len());
        for (k, v) in self.entries {
            out.insert(k.into_owned(), v.into_json());
        }
        out
    }

    /// A view of owned fields (serde_yaml_ng's answer, or fields built elsewhere).
    pub fn from_fields(fields: Fields) -> View<'static> {
        View::with_entries(fields.into_iter().map(|(k, v)| (Cow::Owned(k), Val::from_json(v))).collect())
    }

    /// A view of owned fields without copying their strings.
    pub fn of(fields: &'a Fields) -> View<'a> {
        View::with_entries(fields.iter().map(|(k, v)| (Cow::Borrowed(k.as_str()), Val::of(v))).collect())
    }

    /// A field as a single string: strings (trimmed, non-empty), numbers and booleans — the
    /// view's `frontmatter::get_str`.
    pub fn str(&self, key: &str) -> Option<String> {
        self.get(key)?.as_text()
    }

    /// Whether `str(key)` is `Some`, without copying the text.
    pub fn has_text(&self, key: &str) -> bool {
        self.get(key).is_some_and(|v| match v {
            Val::Str(s) => !trim(s).is_empty(),
            Val::Num(_) | Val::Bool(_) => true,
            _ => false,
        })
    }

    /// A field as a list of strings: a list of scalars or a comma-separated string — the
    /// view's `frontmatter::get_list`.
    pub fn list(&self, key: &str) -> Vec<String> {
        self.get(key).map(Val::as_list).unwrap_or_default()
    }

    /// A numeric field (also a number written as a string) — the view's `frontmatter::get_f64`.
    pub fn f64(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            Val::Num(n) => n.as_f64(),
            Val::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
}

impl<'a> Val<'a> {
    pub fn from_json(v: Value) -> Val<'static> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(b),
            Value::Number(n) => Val::Num(n),
            Value::String(s) => Val::Str(Cow::Owned(s)),
            Value::Array(items) => Val::List(items.into_iter().map(Val::from_json).collect()),
            Value::Object(m) => Val::Map(View::from_fields(m)),
        }
    }

    /// A view of an owned value without copying its strings.
    pub fn of(v: &'a Value) -> Val<'a> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => Val::Num(n.clone()),
            Value::String(s) => Val::Str(Cow::Borrowed(s)),
            Value::Array(items) => Val::List(items.iter().map(Val::of).collect()),
            Value::Object(m) => Val::Map(View::of(m)),
        }
    }

    pub fn into_json(self) -> Value {
        match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(b),
            Val::Num(n) => Value::Number(n),
            Val::Str(s) => Value::String(s.into_owned()),
            Val::List(items) => Value::Array(items.into_iter().map(Val::into_json).collect()),
            Val::Map(m) => Value::Object(m.into_fields()),
        }
    }

    pub fn to_json(&self) -> Value {
        self.clone().into_json()
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// `frontmatter::json_type_name` of the same value.
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "boolean",
            Val::Num(_) => "number",
            Val::Str(_) => "string",
            Val::List(_) => "list",
            Val::Map(_) => "mapping",
        }
    }

    /// `frontmatter::scalar_text` of the same value: strings without quotes, collections as JSON.
    pub fn scalar_text(&self) -> String {
        match self {
            Val::Str(s) => s.to_string(),
            Val::Null => String::new(),
            Val::Bool(b) => b.to_string(),
            Val::Num(n) => n.to_string(),
            other => other.to_json().to_string(),
        }
    }

    fn as_text(&self) -> Option<String> {
        match self {
            Val::Str(s) => Some(trim(s)).filter(|s| !s.is_empty()).map(str::to_string),
            Val::Num(n) => Some(n.to_string()),
            Val::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// Each string `as_list` would give, in order, borrowed where the text is (a typed edge's
    /// targets are copied once, into the edge, not first into a list copied again).
    pub fn each_text(&self, mut f: impl FnMut(&str)) {
        match self {
            Val::List(items) => {
                for v in items {
                    match v {
                        Val::List(_) | Val::Map(_) | Val::Null => {}
                        Val::Str(s) => Some(trim(s)).filter(|s| !s.is_empty()).into_iter().for_each(&mut f),
                        other => f(&other.scalar_text()),
                    }
                }
            }
            Val::Str(s) => s.split(',').map(str::trim).filter(|t| !t.is_empty()).for_each(f),
            Val::Num(_) | Val::Bool(_) => f(&self.scalar_text()),
            _ => {}
        }
    }

    /// The value as a list of strings (see `View::list`).
    pub fn as_list(&self) -> Vec<String> {
        match self {
            Val::List(items) => {
                // Sized for every item: the list is kept, and growing it cost a reallocation
                // and a shrink for most entities' tags.
                let mut out = Vec::with_capacity(items.len());
                out.extend(items.iter().filter(|v| !matches!(v, Val::List(_) | Val::Map(_))).filter_map(|v| match v {
                    Val::Str(s) => Some(trim(s)).filter(|s| !s.is_empty()).map(str::to_string),
                    Val::Null => None,
                    other => Some(other.scalar_text()),
                }));
                out
            }
            Val::Str(s) => split_commas(s),
            Val::Num(_) | Val::Bool(_) => vec![self.scalar_text()],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::read::frontmatter::{get_f64, get_list, get_str, parse_yaml, scalar_text};

    const KEYS: [&str; 9] = ["a", "b", "c", "d", "e", "f", "g", "h", "missing"];

    /// `each_text` visits exactly what `as_list` returns, for every kind of value.
    #[test]
    fn each_text_visits_what_as_list_returns() {
        let yaml = "a: ' padded '\nb: 42\nc: [x, ' y ', 3, true, ~, '']\nd: p, q ,, r\ne: { k: v }\nf: true\ng: []\n";
        let view = crate::store::read::frontmatter::parse_yaml_view(yaml).unwrap();
        for key in ["a", "b", "c", "d", "e", "f", "g"] {
            let v = view.get(key).unwrap();
            let mut seen = Vec::new();
            v.each_text(|t| seen.push(t.to_string()));
            assert_eq!(seen, v.as_list(), "{key}");
        }
    }

    /// The view answers exactly what the owned accessors answer, for every kind of value.
    #[test]
    fn accessors_agree_with_the_owned_ones() {
        let yaml = "a: ' padded '\nb: 42\nc: [x, ' y ', 3, true, ~, '']\nd: p, q ,, r\ne: { k: v }\n\
                    f: 1.5\ng: '2.5'\nh: '  '\n";
        let fields = parse_yaml(yaml).unwrap();
        let view = View::from_fields(fields.clone());
        for key in KEYS {
            assert_eq!(view.str(key), get_str(&fields, key), "{key}");
            assert_eq!(view.has_text(key), view.str(key).is_some(), "{key}");
            assert_eq!(view.list(key), get_list(&fields, key), "{key}");
            assert_eq!(view.f64(key), get_f64(&fields, key), "{key}");
            if let Some(v) = fields.get(key) {
                assert_eq!(view.get(key).unwrap().scalar_text(), scalar_text(v), "{key}");
            }
        }
        assert_eq!(view.clone().into_fields(), fields);
        assert_eq!(View::of(&fields), view);
        assert_eq!(view.keys().collect::<Vec<_>>(), ["a", "b", "c", "d", "e", "f", "g", "h"]);
    }

    #[test]
    fn lookups_find_every_key_and_only_those() {
        let keys: Vec<String> = (0..40).map(|i| format!("k{}{}", "x".repeat(i % 7), i)).collect();
        let mut v = View::new();
        for (n, k) in keys.iter().enumerate() {
            assert!(v.insert(k.clone(), Val::Null));
            for (m, other) in keys.iter().enumerate() {
                assert_eq!(v.get(other).is_some(), m <= n, "{other} after inserting {n} keys");
            }
        }
        for missing in ["", "k", "k0x", "supersedes", "related", "K0"] {
            assert!(v.get(missing).is_none(), "{missing}");
        }
    }

    #[test]
    fn insert_refuses_a_duplicate_key() {
        let mut v = View::new();
        assert!(v.insert("k", Val::Null));
        assert!(!v.insert("k", Val::Bool(true)));
        assert_eq!(v.get("k"), Some(&Val::Null));
        assert_eq!(v.len(), 1);
        v.set("k", Val::Bool(true));
        v.set("j", Val::Null);
        assert_eq!(v.keys().collect::<Vec<_>>(), ["k", "j"]);
        assert_eq!(v.get("k"), Some(&Val::Bool(true)));
    }

    #[test]
    fn many_keys_go_through_the_index_with_the_same_answers() {
        let mut view = View::new();
        for i in 0..1000 {
            assert!(view.insert(format!("k{i}"), Val::Str(Cow::Owned(format!("v{i}")))));
        }
        assert!(!view.insert("k999", Val::Null), "a duplicate key is refused past the index threshold");
        assert!(!view.insert("k3", Val::Null), "and below it");
        view.set("k500", Val::Bool(true));
        view.set("new", Val::Bool(false));
        assert_eq!(view.len(), 1001);
        assert_eq!(view.get("k500"), Some(&Val::Bool(true)));
        assert_eq!(view.get("new"), Some(&Val::Bool(false)));
        assert_eq!(view.str("k7").as_deref(), Some("v7"));
        assert_eq!(view.get("k1000"), None);
        assert_eq!(view.keys().nth(1000), Some("new"), "file order kept");
        let fields = view.clone().into_fields();
        assert_eq!(View::of(&fields), view);
        assert_eq!(View::of(&fields).get("k999").and_then(Val::as_str), Some("v999"));
    }
}
