//! folio's own compact inverted index over every entity body (title and description too): one
//! posting list per word, entity numbers delta-encoded as varints with the word's count in the
//! entity, all lists in one byte buffer. Measured smaller and quicker to build than tantivy for
//! this (docs/benchmarks.md), and it adds no heavy dependency to a 2-core CI.
use std::borrow::Cow;
use std::collections::HashMap;

use rayon::prelude::*;

use crate::store::Store;
use crate::store::lint::body_text;
use crate::store::model::entity::EntityIdx;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Entities per build task: large enough that merging task vocabularies stays cheap.
const CHUNK: usize = 512;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct TextIndex {
    /// Word → its number (position in `offsets`).
    words: FastMap<Box<str>, u32>,
    /// Where each word's posting list starts in `postings` (one more entry than words).
    offsets: Vec<u32>,
    /// Entities holding each word.
    df: Vec<u32>,
    /// Every posting list: (entity delta, count) pairs as varints.
    postings: Vec<u8>,
    /// Words in each entity's indexed text.
    lengths: Vec<u32>,
    average: f32,
}

/// One posting: the entity and how often the word occurs in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    pub idx: EntityIdx,
    pub count: u32,
}

/// Words of one entity with their counts (borrowed from the text where already lower case: no
/// allocation per word), and its length in words.
fn count_words(text: &str) -> (FastMap<Cow<'_, str>, u32>, u32) {
    let mut counts: FastMap<Cow<'_, str>, u32> = FastMap::default();
    let mut len = 0;
    for (_, w) in body_text::words(text) {
        len += 1;
        *counts.entry(w).or_insert(0) += 1;
    }
    (counts, len)
}

fn push_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> u32 {
    let mut v = 0u32;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        v |= u32::from(b & 0x7f) << shift;
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    v
}

impl TextIndex {
    /// Index every entity of the store, reading the bodies (in parallel on the current pool).
    pub fn build(store: &Store) -> TextIndex {
        let n = store.entities.len();
        let texts = |range: std::ops::Range<usize>| range.map(|i| body_text::indexed_text(store, i as EntityIdx));
        TextIndex::from_texts(n, |start, end| texts(start..end).collect())
    }

    /// Index `n` texts, `chunk(start, end)` giving those of entities `start..end`.
    pub fn from_texts(n: usize, chunk: impl Fn(usize, usize) -> Vec<String> + Sync) -> TextIndex {
        // Each task: its own vocabulary with (entity, count) lists, and its entities' lengths.
        type Part = (FastMap<String, Vec<(u32, u32)>>, Vec<u32>);
        let parts: Vec<Part> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let start = c * CHUNK;
                let mut vocab: FastMap<String, Vec<(u32, u32)>> = FastMap::default();
                let mut lengths = Vec::new();
                for (k, text) in chunk(start, (start + CHUNK).min(n)).iter().enumerate() {
                    let (counts, len) = count_words(text);
                    lengths.push(len);
                    for (w, count) in counts {
                        let posting = ((start + k) as u32, count);
                        match vocab.get_mut(w.as_ref()) {
                            Some(list) => list.push(posting),
                            None => {
                                vocab.insert(w.into_owned(), vec![posting]);
                            }
                        }
                    }
                }
                (vocab, lengths)
            })
            .collect();
        let mut index = TextIndex::default();
        let mut lists: Vec<Vec<(u32, u32)>> = Vec::new();
        for (vocab, lengths) in parts {
            index.lengths.extend(lengths);
            for (w, mut list) in vocab {
                let next = lists.len() as u32;
                let id = *index.words.entry(w.into_boxed_str()).or_insert(next);
                if id == next {
                    lists.push(Vec::new());
                }
                // Tasks are taken in entity order: each list stays sorted.
                list.sort_unstable();
                lists[id as usize].append(&mut list);
            }
        }
        for list in lists {
            index.offsets.push(index.postings.len() as u32);
            index.df.push(list.len() as u32);
            let mut last = 0;
            for (idx, count) in list {
                push_varint(&mut index.postings, idx - last);
                push_varint(&mut index.postings, count);
                last = idx;
            }
        }
        index.offsets.push(index.postings.len() as u32);
        index.postings.shrink_to_fit();
        let total: u64 = index.lengths.iter().map(|&l| u64::from(l)).sum();
        index.average = if index.lengths.is_empty() { 0.0 } else { total as f32 / index.lengths.len() as f32 };
        index
    }

    /// Entities indexed.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Words in entity `idx`'s indexed text.
    pub fn length(&self, idx: EntityIdx) -> u32 {
        self.lengths.get(idx as usize).copied().unwrap_or(0)
    }

    pub fn average_length(&self) -> f32 {
        self.average
    }

    /// How many entities hold `word` (lower case).
    pub fn df(&self, word: &str) -> u32 {
        self.words.get(word).map_or(0, |&id| self.df[id as usize])
    }

    /// The postings of `word` (lower case), in entity order.
    pub fn postings(&self, word: &str) -> Vec<Posting> {
        let Some(&id) = self.words.get(word) else { return Vec::new() };
        let (start, end) = (self.offsets[id as usize] as usize, self.offsets[id as usize + 1] as usize);
        let bytes = &self.postings[start..end];
        let mut out = Vec::with_capacity(self.df[id as usize] as usize);
        let (mut at, mut idx) = (0, 0);
        while at < bytes.len() {
            idx += read_varint(bytes, &mut at);
            let count = read_varint(bytes, &mut at);
            out.push(Posting { idx, count });
        }
        out
    }

    /// Bytes the index holds in memory: postings, offsets, counts and the vocabulary with its
    /// table (an estimate of the allocator's share, for the size budget).
    pub fn heap_bytes(&self) -> usize {
        let vocab: usize = self.words.keys().map(|w| w.len() + std::mem::size_of::<(Box<str>, u32)>() + 1).sum();
        self.postings.capacity() + 4 * (self.offsets.capacity() + self.df.capacity() + self.lengths.capacity()) + vocab
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(texts: &[&str]) -> TextIndex {
        let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        TextIndex::from_texts(owned.len(), |s, e| owned[s..e].to_vec())
    }

    #[test]
    fn postings_list_every_entity_with_its_count() {
        let i = index(&["Pillow pillow exif", "exif data", "nothing here"]);
        assert_eq!(i.postings("pillow"), [Posting { idx: 0, count: 2 }]);
        assert_eq!(i.postings("exif"), [Posting { idx: 0, count: 1 }, Posting { idx: 1, count: 1 }]);
        assert_eq!(i.postings("absent"), []);
        assert_eq!((i.df("exif"), i.length(0), i.length(2), i.len()), (2, 3, 2, 3));
        assert!((i.average_length() - 7.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn lists_across_build_tasks_stay_in_entity_order() {
        let texts: Vec<String> =
            (0..CHUNK * 3 + 7).map(|i| format!("common w{} {}", i % 5, "x ".repeat(i % 3))).collect();
        let i = TextIndex::from_texts(texts.len(), |s, e| texts[s..e].to_vec());
        let common = i.postings("common");
        assert_eq!(common.len(), texts.len());
        assert!(common.iter().enumerate().all(|(n, p)| p.idx == n as u32 && p.count == 1));
        let w3: Vec<u32> = i.postings("w3").iter().map(|p| p.idx).collect();
        assert_eq!(w3, (0..texts.len() as u32).filter(|n| n % 5 == 3).collect::<Vec<_>>());
        assert_eq!(i.postings("x").iter().find(|p| p.idx == 2).map(|p| p.count), Some(2));
    }
}
