//! folio's own compact inverted index over every entity body (title and description too): one
//! posting list per word, entity numbers delta-encoded as varints with the word's count in the
//! entity, all lists in one byte buffer. Measured smaller and quicker to build than tantivy for
//! this (docs/benchmarks.md, "Design: folio's own index, not tantivy"), and it adds no heavy
//! dependency to a 2-core CI.
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::cached_index::CachedIndex;
use crate::store::Store;
use crate::store::model::entity::{Entity, EntityIdx};
use crate::store::read::body_text;
use crate::store::read::content::Content;
use crate::store::read::query_words::{QueryWords, WordCounts};

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// A title word counts as this many occurrences (BM25F's field weight, lengths included): a page
/// titled with the query's words outranks one whose body only repeats one of them.
pub const TITLE_BOOST: u32 = 3;

/// What an entity's postings count, as one text: its title `TITLE_BOOST` times, then its
/// description and body (`from_content` counts the same without building it).
pub fn weighted_text(store: &Store, idx: EntityIdx) -> String {
    let title = &store.entity(idx).title;
    let mut text = String::new();
    for _ in 0..TITLE_BOOST {
        text.push_str(title);
        text.push('\n');
    }
    text.push_str(&body_text::compared_text(store, idx));
    text
}

/// Entities per build task: large enough that merging task vocabularies stays cheap.
const CHUNK: usize = 512;

#[derive(Debug, Default, Clone)]
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
    /// The index read on demand from the persistent cache (`cached_index`): then `words`,
    /// `offsets`, `df` and `postings` are empty and each word is looked up in the file.
    file: Option<Arc<CachedIndex>>,
}

/// Two indexes are equal when they hold the same words with the same postings and lengths,
/// wherever they are read from.
impl PartialEq for TextIndex {
    fn eq(&self, other: &TextIndex) -> bool {
        let (a, b) = (self.in_memory(), other.in_memory());
        let (Some(a), Some(b)) = (a.as_deref(), b.as_deref()) else { return false };
        let mut words: Vec<&str> = a.words.keys().map(|w| &**w).collect();
        words.sort_unstable();
        a.words.len() == b.words.len()
            && words.iter().all(|w| a.postings(w) == b.postings(w))
            && a.lengths == b.lengths
            && a.average == b.average
    }
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

/// One posting list's bytes decoded (`df` of them expected).
pub(super) fn decode_list(bytes: &[u8], df: usize) -> Vec<Posting> {
    let mut out = Vec::with_capacity(df.min(bytes.len()));
    let (mut at, mut idx) = (0, 0u32);
    while at < bytes.len() {
        // Wrapping: a cached list is checked by its CRC, not trusted to be well formed.
        idx = idx.wrapping_add(read_varint(bytes, &mut at));
        let count = read_varint(bytes, &mut at);
        out.push(Posting { idx, count });
    }
    out
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
        TextIndex::from_content(store, &Content::build(store))
    }

    /// Index the store from its term table (description and body) and its titles, in memory:
    /// the same index as `from_texts` over `body_text::indexed_text`, without reading a body.
    pub fn from_content(store: &Store, content: &Content) -> TextIndex {
        let n = content.len();
        let mut words: FastMap<Box<str>, u32> =
            content.words.iter().enumerate().map(|(id, w)| (w.clone(), id as u32)).collect();
        // Title words: looked up in the table's vocabulary, new ones numbered after it.
        let mut titles: Vec<Vec<u32>> = Vec::with_capacity(n);
        let mut next = content.words.len() as u32;
        for e in store.entities.iter().take(n) {
            let ids = body_text::words(&e.title)
                .map(|(_, w)| match words.get(w.as_ref()) {
                    Some(&id) => id,
                    None => {
                        words.insert(w.into_owned().into_boxed_str(), next);
                        next += 1;
                        next - 1
                    }
                })
                .collect();
            titles.push(ids);
        }
        // Postings by counting: each entity's words (body terms with its title's added) are
        // listed twice, once for the document frequencies, once to fill every word's list in
        // place in one flat array (no list per entity or per word: a large store has millions of postings).
        let mut df = vec![0u32; next as usize];
        let mut lengths = Vec::with_capacity(n);
        // Per word: the entity (plus one) whose list last took it, and where.
        let mut seen: Vec<(u32, u32)> = vec![(0, 0); next as usize];
        let mut list: Vec<(u32, u32)> = Vec::new();
        let entity_words = |i: usize, seen: &mut Vec<(u32, u32)>, list: &mut Vec<(u32, u32)>, pass: u32| {
            // Stamps of the second pass follow those of the first.
            let stamp = pass * n as u32 + i as u32 + 1;
            list.clear();
            // Title words add to the body's counts, or get a posting of their own.
            for (id, count) in content
                .terms(i)
                .iter()
                .map(|t| (t.id, u32::from(t.count)))
                .chain(titles[i].iter().map(|&id| (id, TITLE_BOOST)))
            {
                let s = &mut seen[id as usize];
                if s.0 == stamp {
                    list[s.1 as usize].1 += count;
                } else {
                    *s = (stamp, list.len() as u32);
                    list.push((id, count));
                }
            }
        };
        for (i, title) in titles.iter().enumerate() {
            entity_words(i, &mut seen, &mut list, 0);
            for &(id, _) in &list {
                df[id as usize] += 1;
            }
            lengths.push(content.length(i) + TITLE_BOOST * title.len() as u32);
        }
        let mut ends: Vec<usize> = df
            .iter()
            .scan(0usize, |at, &d| {
                *at += d as usize;
                Some(*at - d as usize)
            })
            .collect();
        let mut flat = vec![(0u32, 0u32); df.iter().map(|&d| d as usize).sum()];
        for i in 0..n {
            entity_words(i, &mut seen, &mut list, 1);
            for &(id, count) in &list {
                flat[ends[id as usize]] = (i as u32, count);
                ends[id as usize] += 1;
            }
        }
        TextIndex::encode_flat(words, &df, &flat, lengths)
    }

    /// The part of `from_content`'s index a query reads: the postings of `wanted` words only
    /// (lower case; those no entity holds are left out, as there), with every entity's length.
    /// For a query answered once and never cached, most of the full index's cost is lists no
    /// query word reaches (docs/benchmarks.md, "Round: issue 44"); each list and length here is
    /// the full index's, so BM25 scores alike. `starting_with` knows only these words.
    pub fn of_words(store: &Store, content: &Content, wanted: &[String]) -> TextIndex {
        let n = content.len();
        // Term number in the table → slot in `wanted` (a query has a few words: a short scan).
        let mut ids: Vec<(u32, usize)> = Vec::new();
        for (id, w) in content.words.iter().enumerate() {
            if let Some(slot) = wanted.iter().position(|q| **q == **w) {
                ids.push((id as u32, slot));
            }
        }
        // Each entity's (slot, count) pairs and length, in parallel over entities.
        let per_entity: Vec<(Vec<(usize, u32)>, u32)> = store
            .entities
            .par_iter()
            .take(n)
            .enumerate()
            .map(|(i, e)| {
                let mut counts: Vec<(usize, u32)> = Vec::new();
                let mut add = |slot: usize, count: u32| match counts.iter_mut().find(|(s, _)| *s == slot) {
                    Some((_, c)) => *c += count,
                    None => counts.push((slot, count)),
                };
                for t in content.terms(i) {
                    if let Some(&(_, slot)) = ids.iter().find(|&&(id, _)| id == t.id) {
                        add(slot, u32::from(t.count));
                    }
                }
                let mut title_words = 0;
                for (_, w) in body_text::words(&e.title) {
                    title_words += 1;
                    if let Some(slot) = wanted.iter().position(|q| *q == w) {
                        add(slot, TITLE_BOOST);
                    }
                }
                (counts, content.length(i) + TITLE_BOOST * title_words)
            })
            .collect();
        TextIndex::of_counts(wanted, per_entity)
    }

    /// `of_words` without the term table: each entity's description and body read (as
    /// `Content::build_of` reads them) and only counted (`QueryWords::count`), every word against
    /// the `wanted` ones' keys, instead of each word looked up in a vocabulary and kept.
    pub fn of_words_read(store: &Store, wanted: &[String]) -> TextIndex {
        let query = QueryWords::new(wanted);
        let counted: Vec<WordCounts> = (0..store.entities.len() as EntityIdx)
            .into_par_iter()
            .map_init(
                || (crate::store::read::fsio::FolderOpener::default(), String::new()),
                |(opener, scratch), idx| {
                    let e = store.entity(idx);
                    let body = body_text::body_bytes(store, idx, opener);
                    query.count(e.description.as_deref(), body.as_ref().map(|b| b.text()).as_deref(), scratch)
                },
            )
            .collect();
        TextIndex::of_word_counts(store, wanted, counted)
    }

    /// The index of `wanted` from each entity's counts of them in its description and body
    /// (`QueryWords::count`, in the store's entity order): what the load counted while it held
    /// each file's bytes (`Reads::EntitiesCountingWords`), or `of_words_read`'s.
    pub fn of_word_counts(store: &Store, wanted: &[String], counted: Vec<WordCounts>) -> TextIndex {
        let per_entity =
            counted.into_iter().enumerate().map(|(i, c)| with_title(wanted, store.entity(i as EntityIdx), c)).collect();
        TextIndex::of_counts(wanted, per_entity)
    }

    /// The index of `wanted` from each entity's (slot in `wanted`, count) pairs and length.
    fn of_counts(wanted: &[String], per_entity: Vec<(Vec<(usize, u32)>, u32)>) -> TextIndex {
        let mut lists: Vec<Vec<(u32, u32)>> = vec![Vec::new(); wanted.len()];
        let mut lengths = Vec::with_capacity(per_entity.len());
        for (i, (counts, len)) in per_entity.into_iter().enumerate() {
            lengths.push(len);
            for (slot, count) in counts {
                lists[slot].push((i as u32, count));
            }
        }
        let words = wanted.iter().enumerate().map(|(slot, w)| (w.as_str().into(), slot as u32)).collect();
        TextIndex::encode(words, lists, lengths)
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
        let mut words: FastMap<Box<str>, u32> = FastMap::default();
        let mut lists: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut lengths = Vec::with_capacity(n);
        for (vocab, part_lengths) in parts {
            lengths.extend(part_lengths);
            for (w, mut list) in vocab {
                let next = lists.len() as u32;
                let id = *words.entry(w.into_boxed_str()).or_insert(next);
                if id == next {
                    lists.push(Vec::new());
                }
                // Tasks are taken in entity order: each list stays sorted.
                list.sort_unstable();
                lists[id as usize].append(&mut list);
            }
        }
        TextIndex::encode(words, lists, lengths)
    }

    /// The index of a changed store without reading the unchanged bodies again: `keep[old]` is
    /// the new number of old entity `old` when its text is unchanged (`None`: gone or changed),
    /// `fresh` the texts of the new or changed entities; `n` entities in all.
    /// An index read from a cache file is read whole first; when that fails the result is
    /// this index, `damaged`, for the caller to build anew.
    pub fn update(&self, keep: &[Option<EntityIdx>], fresh: &[(EntityIdx, String)], n: usize) -> TextIndex {
        if self.file.is_some() {
            return match self.in_memory() {
                Some(whole) => whole.update(keep, fresh, n),
                None => self.clone(),
            };
        }
        let mut lists: Vec<Vec<(u32, u32)>> = (0..self.df.len() as u32)
            .into_par_iter()
            .map(|id| {
                self.decode(id)
                    .into_iter()
                    .filter_map(|p| keep.get(p.idx as usize).copied().flatten().map(|to| (to, p.count)))
                    .collect()
            })
            .collect();
        let mut words = self.words.clone();
        let mut lengths = vec![0u32; n];
        for (old, to) in keep.iter().enumerate() {
            if let Some(to) = to {
                lengths[*to as usize] = self.length(old as EntityIdx);
            }
        }
        let counted: Vec<(EntityIdx, FastMap<Cow<'_, str>, u32>, u32)> = fresh
            .par_iter()
            .map(|(idx, text)| {
                let (counts, len) = count_words(text);
                (*idx, counts, len)
            })
            .collect();
        for (idx, counts, len) in counted {
            lengths[idx as usize] = len;
            for (w, count) in counts {
                let next = lists.len() as u32;
                let id = match words.get(w.as_ref()) {
                    Some(&id) => id,
                    None => {
                        words.insert(w.into_owned().into_boxed_str(), next);
                        lists.push(Vec::new());
                        next
                    }
                };
                lists[id as usize].push((idx, count));
            }
        }
        // Kept entities may be renumbered out of order, fresh ones land anywhere.
        lists.par_iter_mut().for_each(|l| l.sort_unstable());
        TextIndex::encode(words, lists, lengths)
    }

    /// The index from each word's sorted (entity, count) list; words no entity holds any more
    /// are dropped.
    fn encode(words: FastMap<Box<str>, u32>, lists: Vec<Vec<(u32, u32)>>, lengths: Vec<u32>) -> TextIndex {
        TextIndex::encode_lists(words, lists.iter().map(Vec::as_slice), lengths)
    }

    /// `encode` with the lists one after another in `flat`, word `id`'s `df[id]` long.
    fn encode_flat(words: FastMap<Box<str>, u32>, df: &[u32], flat: &[(u32, u32)], lengths: Vec<u32>) -> TextIndex {
        let mut rest = flat;
        let lists = df.iter().map(|&d| {
            let (list, after) = rest.split_at(d as usize);
            rest = after;
            list
        });
        TextIndex::encode_lists(words, lists, lengths)
    }

    fn encode_lists<'a>(
        words: FastMap<Box<str>, u32>,
        lists: impl ExactSizeIterator<Item = &'a [(u32, u32)]>,
        lengths: Vec<u32>,
    ) -> TextIndex {
        let mut index = TextIndex { lengths, ..TextIndex::default() };
        let mut renumber = vec![u32::MAX; lists.len()];
        for (id, list) in lists.enumerate() {
            if list.is_empty() {
                continue;
            }
            renumber[id] = index.df.len() as u32;
            index.offsets.push(index.postings.len() as u32);
            index.df.push(list.len() as u32);
            let mut last = 0;
            for &(idx, count) in list {
                push_varint(&mut index.postings, idx - last);
                push_varint(&mut index.postings, count);
                last = idx;
            }
        }
        index.words = words
            .into_iter()
            .filter_map(|(w, id)| {
                let to = renumber[id as usize];
                (to != u32::MAX).then_some((w, to))
            })
            .collect();
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

    /// Indexed words that start with `prefix` (lower case), itself included when indexed.
    pub fn starting_with(&self, prefix: &str) -> Vec<String> {
        self.starting_with_df(prefix).into_iter().map(|(w, _)| w).collect()
    }

    /// `starting_with`, each word with how many entities hold it.
    pub fn starting_with_df(&self, prefix: &str) -> Vec<(String, u32)> {
        if let Some(file) = &self.file {
            return file.noting(file.starting_with(prefix)).unwrap_or_default();
        }
        self.words
            .iter()
            .filter(|(w, _)| w.starts_with(prefix))
            .map(|(w, &id)| (w.to_string(), self.df[id as usize]))
            .collect()
    }

    /// How many entities hold `word` (lower case).
    pub fn df(&self, word: &str) -> u32 {
        if let Some(file) = &self.file {
            return file.noting(file.entry(word)).flatten().map_or(0, |e| e.df);
        }
        self.words.get(word).map_or(0, |&id| self.df[id as usize])
    }

    /// The postings of `word` (lower case), in entity order.
    pub fn postings(&self, word: &str) -> Vec<Posting> {
        if let Some(file) = &self.file {
            return file.noting(file.postings(word)).unwrap_or_default();
        }
        match self.words.get(word) {
            Some(&id) => self.decode(id),
            None => Vec::new(),
        }
    }

    /// The postings of word number `id`.
    fn decode(&self, id: u32) -> Vec<Posting> {
        let (start, end) = (self.offsets[id as usize] as usize, self.offsets[id as usize + 1] as usize);
        decode_list(&self.postings[start..end], self.df[id as usize] as usize)
    }

    /// The index read on demand from `file` (its lengths already read).
    pub(super) fn of_file(file: CachedIndex) -> TextIndex {
        let lengths = file.lengths.clone();
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        let average = if lengths.is_empty() { 0.0 } else { total as f32 / lengths.len() as f32 };
        TextIndex { lengths, average, file: Some(Arc::new(file)), ..TextIndex::default() }
    }

    /// Why a part of the cache file read since the open was unusable (the answers that read
    /// it are not to be trusted); `None` for an index in memory.
    pub fn damaged(&self) -> Option<String> {
        self.file.as_ref().and_then(|f| f.damaged())
    }

    /// This index with every list in memory (itself when it is), `None` when the cache file it
    /// reads cannot be read whole.
    pub fn in_memory(&self) -> Option<Cow<'_, TextIndex>> {
        let Some(file) = &self.file else { return Some(Cow::Borrowed(self)) };
        let all = file.noting(file.all())?;
        let mut index = TextIndex { lengths: self.lengths.clone(), average: self.average, ..TextIndex::default() };
        for (id, (word, df, list)) in all.into_iter().enumerate() {
            index.words.insert(word, id as u32);
            index.offsets.push(index.postings.len() as u32);
            index.df.push(df);
            index.postings.extend_from_slice(&list);
        }
        index.offsets.push(index.postings.len() as u32);
        if index.words.len() != index.df.len() {
            file.noting::<()>(Err("a word listed twice".into()));
            return None;
        }
        Some(Cow::Owned(index))
    }

    /// Every word (sorted) with its df and list bytes, for the cache file; an index read from
    /// a file is read whole first.
    pub(super) fn sorted_lists(&self) -> Vec<(&str, u32, &[u8])> {
        let mut out: Vec<(&str, u32, &[u8])> = self
            .words
            .iter()
            .map(|(w, &id)| {
                let (start, end) = (self.offsets[id as usize] as usize, self.offsets[id as usize + 1] as usize);
                (&**w, self.df[id as usize], &self.postings[start..end])
            })
            .collect();
        out.par_sort_unstable_by(|a, b| a.0.cmp(b.0));
        out
    }

    /// Words in each entity's indexed text, in entity order.
    pub(super) fn lengths(&self) -> &[u32] {
        &self.lengths
    }

    /// Bytes the index holds in memory: postings, offsets, counts and the vocabulary with its
    /// table (an estimate of the allocator's share, for the size budget).
    pub fn heap_bytes(&self) -> usize {
        let vocab: usize = self.words.keys().map(|w| w.len() + std::mem::size_of::<(Box<str>, u32)>() + 1).sum();
        let file = self.file.as_ref().map_or(0, |f| {
            f.meta
                .blocks
                .iter()
                .map(|b| b.first.len() + std::mem::size_of::<super::cached_index::Block>())
                .sum::<usize>()
                + 4 * f.lengths.capacity()
        });
        self.postings.capacity()
            + 4 * (self.offsets.capacity() + self.df.capacity() + self.lengths.capacity())
            + vocab
            + file
    }
}

/// `counted` (an entity's description and body, `QueryWords::count`) with its title's words
/// added `TITLE_BOOST` times: the (slot, count) pairs and length `of_words` gives it.
fn with_title(wanted: &[String], e: &Entity, counted: WordCounts) -> (Vec<(usize, u32)>, u32) {
    let WordCounts { mut counts, length } = counted;
    let mut title_words = 0;
    for (_, w) in body_text::words(&e.title) {
        title_words += 1;
        if let Some(slot) = wanted.iter().position(|q| *q == w) {
            match counts.iter_mut().find(|(s, _)| *s == slot) {
                Some((_, c)) => *c += TITLE_BOOST,
                None => counts.push((slot, TITLE_BOOST)),
            }
        }
    }
    (counts, length + TITLE_BOOST * title_words)
}

#[cfg(test)]
mod tests;
