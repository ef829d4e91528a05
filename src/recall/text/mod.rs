//! Full-text recall: every body searched for words and "phrases", ranked by BM25 over folio's
//! own inverted index (`index`) and combined with the fuzzy score of the entity's fields
//! (`super::rank`), each result with the body lines that hold the query's words.
pub mod bm25;
pub mod index;
pub mod lines;
pub mod live;
pub mod terms;

use std::collections::{HashMap, HashSet};

pub use index::TextIndex;
pub use lines::MatchLine;
pub use terms::Terms;

use rayon::prelude::*;

use super::item::RecallItem;
use super::query::Query;
use super::{LintFlags, facts, rank};
use crate::store::Store;
use crate::store::lint::body_text;
use crate::store::model::entity::EntityIdx;

/// What one point of BM25 is worth against nucleo's fuzzy score (a whole-word title match
/// scores about 150, a scattered one 40 to 80): a word the body uses often outranks a scattered
/// fuzzy match in a description, an exact title match still counts.
pub const TEXT_WEIGHT: f32 = 200.0;

/// Body lines shown per result.
pub const LINES_PER_HIT: usize = 3;

/// One full-text result.
#[derive(Debug, Clone, PartialEq)]
pub struct TextHit {
    pub idx: EntityIdx,
    /// The ranking score: `fuzzy` plus `text` × `TEXT_WEIGHT`.
    pub score: u32,
    pub fuzzy: u32,
    pub text: f32,
    pub lines: Vec<MatchLine>,
}

/// What a full-text query runs against, built once per store: the text index and the fuzzy
/// items of every entity (building those per query would cost more than the query).
pub struct TextRecall {
    pub index: TextIndex,
    items: Vec<RecallItem>,
}

impl TextRecall {
    pub fn build(store: &Store) -> TextRecall {
        let (index, items) = rayon::join(
            || TextIndex::build(store),
            || store.entities.iter().enumerate().map(|(i, e)| RecallItem::entity(i as EntityIdx, e)).collect(),
        );
        TextRecall { index, items }
    }

    /// The text recall of `store`, which is `old_store` with the files at `changed` read again:
    /// only entities in those files are read and tokenised; the others keep their postings.
    pub fn update(&self, old_store: &Store, store: &Store, changed: &[String]) -> TextRecall {
        let changed: HashSet<&str> = changed.iter().map(String::as_str).collect();
        // (path, id) → new number, for entities in unchanged files; a pair seen twice is read again.
        let mut new_of: HashMap<(&str, &str), Option<EntityIdx>> = HashMap::new();
        for (i, e) in store.entities.iter().enumerate() {
            if !changed.contains(e.path.as_str()) {
                new_of.entry((&e.path, &e.id)).and_modify(|v| *v = None).or_insert(Some(i as EntityIdx));
            }
        }
        let keep: Vec<Option<EntityIdx>> = if old_store.entities.len() == self.index.len() {
            old_store
                .entities
                .iter()
                .map(|e| new_of.get(&(e.path.as_str(), e.id.as_str())).copied().flatten())
                .collect()
        } else {
            Vec::new()
        };
        let mut kept = vec![false; store.entities.len()];
        for &to in keep.iter().flatten() {
            kept[to as usize] = true;
        }
        let fresh: Vec<(EntityIdx, String)> = (0..store.entities.len() as EntityIdx)
            .into_par_iter()
            .filter(|&i| !kept[i as usize])
            .map(|i| (i, body_text::indexed_text(store, i)))
            .collect();
        let (index, items) = rayon::join(
            || self.index.update(&keep, &fresh, store.entities.len()),
            || store.entities.par_iter().enumerate().map(|(i, e)| RecallItem::entity(i as EntityIdx, e)).collect(),
        );
        TextRecall { index, items }
    }

    /// Rank the store against `query` over fields and bodies; best first, at most `limit`, each
    /// with its matching lines.
    pub fn search(&self, store: &Store, query: &Query, flags: &LintFlags, limit: usize) -> Vec<TextHit> {
        let mut hits = self.rank(store, query, flags, limit);
        hits.truncate(limit);
        let words = Terms::parse(&query.text).words;
        for h in &mut hits {
            h.lines = lines::matching_lines(store, h.idx, &words, LINES_PER_HIT);
        }
        hits
    }

    /// Every entity matching `query` over fields and bodies, best first, without lines (those
    /// are read from disk: `lines::matching_lines`). Phrases are checked for the best `limit`.
    pub fn rank(&self, store: &Store, query: &Query, flags: &LintFlags, limit: usize) -> Vec<TextHit> {
        if query.is_empty() {
            return Vec::new();
        }
        let accepts = |idx: EntityIdx| query.accepts(store.entity(idx), facts(flags, idx as usize));
        let terms = Terms::parse(&query.text);
        let mut combined: HashMap<EntityIdx, (u32, f32)> = HashMap::new();
        // Fuzzy over the fields, as `folio recall` without `--text`; phrases ask for the text.
        if terms.phrases.is_empty() {
            let pattern = rank::pattern(&Terms::fuzzy_text(&query.text));
            let scored: Vec<(EntityIdx, u32)> = self
                .items
                .par_iter()
                .filter_map(|item| rank::score(item, 0, &pattern).map(|s| (item.idx, s.score)))
                .filter(|&(idx, _)| accepts(idx))
                .collect();
            combined.extend(scored.into_iter().map(|(idx, score)| (idx, (score, 0.0))));
        }
        let phrase_words = terms.phrases.iter().flatten().collect::<std::collections::HashSet<_>>().len();
        let mut scored: Vec<(EntityIdx, f32, usize)> =
            bm25::scores(&self.index, &terms.words).into_iter().map(|(idx, (s, held))| (idx, s, held)).collect();
        scored.retain(|&(idx, _, held)| (terms.phrases.is_empty() || held >= phrase_words) && accepts(idx));
        if !terms.phrases.is_empty() {
            // Phrases are checked by reading the body: best first, and only until `limit` hold
            // them (with phrases the ranking is BM25 alone), not on every entity with the words.
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let mut kept = Vec::new();
            for s in scored {
                if kept.len() == limit {
                    break;
                }
                if lines::holds_phrases(store, s.0, &terms.phrases) {
                    kept.push(s);
                }
            }
            scored = kept;
        }
        for (idx, score, _) in scored {
            combined.entry(idx).or_default().1 = score;
        }
        let mut hits: Vec<TextHit> = combined
            .into_iter()
            .map(|(idx, (fuzzy, text))| TextHit {
                idx,
                score: fuzzy + (text * TEXT_WEIGHT).round() as u32,
                fuzzy,
                text,
                lines: Vec::new(),
            })
            .collect();
        hits.par_sort_unstable_by(|a, b| b.score.cmp(&a.score).then(a.idx.cmp(&b.idx)));
        hits
    }
}
