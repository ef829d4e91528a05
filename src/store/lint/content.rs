//! Every entity's description and body tokenised once into one per-store term table: a
//! vocabulary (each distinct word once) and, per entity, its words as (term number, count,
//! where it occurs). The near-duplicate pass and the full-text index both derive from it, so a
//! store's bodies are read and tokenised once, and per-word work (stopwords, stems, hashes)
//! happens once per distinct word instead of once per occurrence.
use std::collections::HashMap;

use rayon::prelude::*;

use super::body_text;
use crate::store::Store;
use crate::store::model::entity::EntityIdx;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Entities per build task: enough that merging the tasks' vocabularies stays cheap.
const CHUNK: usize = 512;

/// The word occurs in prose (outside fenced code and its fence lines).
pub const IN_PROSE: u8 = 1;
/// The word occurs inside fenced code.
pub const IN_CODE: u8 = 2;

/// One word of one entity (8 bytes: the table holds one per distinct word of every entity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    pub id: u32,
    /// Occurrences, saturating (BM25 saturates long before).
    pub count: u16,
    /// `IN_PROSE` | `IN_CODE`; 0 when it only occurs on a fence line (```` ```python ````).
    pub places: u8,
}

#[derive(Debug, Default)]
pub struct Content {
    /// Term number → word (lower case).
    pub words: Vec<Box<str>>,
    /// Where each entity's terms start in `terms` (one more entry than entities).
    starts: Vec<u32>,
    terms: Vec<Term>,
    /// Words in each entity's description and body.
    lengths: Vec<u32>,
}

/// What one build task found: its own vocabulary and its entities' terms in local numbers.
struct Part {
    vocab: Vec<Box<str>>,
    starts: Vec<u32>,
    terms: Vec<Term>,
    lengths: Vec<u32>,
}

impl Content {
    /// Read and tokenise the description and body of every entity (in parallel).
    pub fn build(store: &Store) -> Content {
        Content::from_texts(store.entities.len(), |i| body_text::compared_text(store, i as EntityIdx))
    }

    /// The table of `n` texts, `text(i)` giving entity `i`'s.
    pub fn from_texts(n: usize, text: impl Fn(usize) -> String + Sync) -> Content {
        let parts: Vec<Part> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| tokenise_chunk(c * CHUNK..((c + 1) * CHUNK).min(n), &text))
            .collect();
        // Local term numbers to global ones, task by task (each task's words looked up once).
        let mut lookup: FastMap<Box<str>, u32> = FastMap::default();
        let mut words: Vec<Box<str>> = Vec::new();
        let maps: Vec<Vec<u32>> = parts
            .iter()
            .map(|p| {
                p.vocab
                    .iter()
                    .map(|w| {
                        *lookup.entry(w.clone()).or_insert_with(|| {
                            words.push(w.clone());
                            (words.len() - 1) as u32
                        })
                    })
                    .collect()
            })
            .collect();
        let mut content = Content { words, ..Content::default() };
        content.starts.push(0);
        for (part, map) in parts.into_iter().zip(maps) {
            let base = content.terms.len() as u32;
            content.starts.extend(part.starts[1..].iter().map(|s| base + s));
            content.terms.extend(part.terms.into_iter().map(|t| Term { id: map[t.id as usize], ..t }));
            content.lengths.extend(part.lengths);
        }
        content
    }

    /// Entities in the table.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The terms of entity `i`, in no particular order.
    pub fn terms(&self, i: usize) -> &[Term] {
        &self.terms[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Words in entity `i`'s description and body.
    pub fn length(&self, i: usize) -> u32 {
        self.lengths[i]
    }
}

/// Tokenise entities `range`: counts per word in a dense table indexed by local term number.
fn tokenise_chunk(range: std::ops::Range<usize>, text: &(impl Fn(usize) -> String + Sync)) -> Part {
    let mut local: FastMap<Box<str>, u32> = FastMap::default();
    let mut part = Part { vocab: Vec::new(), starts: vec![0], terms: Vec::new(), lengths: Vec::new() };
    // Per local term: count and places in the current entity; `touched` lists those set.
    let mut counts: Vec<(u16, u8)> = Vec::new();
    let mut touched: Vec<u32> = Vec::new();
    for i in range {
        let text = text(i);
        let mut len = 0u32;
        let mut in_code = false;
        for line in text.lines() {
            let t = line.trim_start();
            let fence = t.starts_with("```") || t.starts_with("~~~");
            if fence {
                in_code = !in_code;
            }
            let place = match (fence, in_code) {
                (true, _) => 0,
                (false, true) => IN_CODE,
                (false, false) => IN_PROSE,
            };
            for (_, w) in body_text::words(line) {
                len += 1;
                let id = match local.get(w.as_ref()) {
                    Some(&id) => id,
                    None => {
                        let id = part.vocab.len() as u32;
                        let owned: Box<str> = w.into_owned().into_boxed_str();
                        local.insert(owned.clone(), id);
                        part.vocab.push(owned);
                        counts.push((0, 0));
                        id
                    }
                };
                let slot = &mut counts[id as usize];
                if slot.0 == 0 {
                    touched.push(id);
                }
                slot.0 = slot.0.saturating_add(1);
                slot.1 |= place;
            }
        }
        for id in touched.drain(..) {
            let (count, places) = std::mem::take(&mut counts[id as usize]);
            part.terms.push(Term { id, count, places });
        }
        part.starts.push(part.terms.len() as u32);
        part.lengths.push(len);
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_counted_once_per_entity_with_where_it_occurs() {
        let texts = ["Pillow pillow exif\n```python\nimport pillow\n```\n", "exif only"];
        let c = Content::from_texts(2, |i| texts[i].to_string());
        let word = |i: usize, w: &str| c.terms(i).iter().find(|t| &*c.words[t.id as usize] == w).copied();
        let pillow = word(0, "pillow").unwrap();
        assert_eq!((pillow.count, pillow.places), (3, IN_PROSE | IN_CODE));
        assert_eq!(word(0, "import").unwrap().places, IN_CODE);
        assert_eq!(word(0, "python").unwrap().places, 0, "a fence line's words are neither");
        assert_eq!(word(0, "exif").unwrap().id, word(1, "exif").unwrap().id, "one vocabulary");
        assert_eq!((c.length(0), c.length(1), c.len()), (6, 2, 2));
        assert!(word(1, "pillow").is_none());
    }

    #[test]
    fn tasks_share_one_vocabulary() {
        let texts: Vec<String> = (0..CHUNK * 2 + 3).map(|i| format!("common w{}", i % 7)).collect();
        let c = Content::from_texts(texts.len(), |i| texts[i].clone());
        assert_eq!(c.words.len(), 8);
        let common: Vec<u32> = (0..texts.len())
            .map(|i| c.terms(i).iter().find(|t| &*c.words[t.id as usize] == "common").unwrap().id)
            .collect();
        assert!(common.iter().all(|&id| id == common[0]));
    }
}
