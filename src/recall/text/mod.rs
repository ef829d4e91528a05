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
use crate::store::model::entity::EntityIdx;

/// What one point of BM25 is worth against nucleo's fuzzy score (a whole-word title match
/// scores about 150 to 400, a scattered one 40 to 80): a word the body uses often outranks a
/// scattered fuzzy match in a description; a title holding the query's words counts in both
/// (`index::TITLE_BOOST`), so it outranks a body that only keeps repeating one of them.
pub const TEXT_WEIGHT: f32 = 100.0;

/// Most completions of a typed last word searched (the commonest): "t" alone would be all.
const PREFIX_WORDS: usize = 64;

/// Whether the last word of `text` is still being typed: it ends in a letter or digit outside
/// an open quote (a closed phrase or a trailing space means the word is complete).
pub fn typing(text: &str) -> bool {
    text.chars().last().is_some_and(char::is_alphanumeric) && text.matches('"').count().is_multiple_of(2)
}

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
            .map(|i| (i, index::weighted_text(store, i)))
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
        self.search_with(store, query, flags, limit, false)
    }

    /// `search` as the TUI ranks while the person types: the last word, still being typed, also
    /// matches the indexed words it starts (`scr` finds `screening`).
    pub fn search_as_typed(&self, store: &Store, query: &Query, flags: &LintFlags, limit: usize) -> Vec<TextHit> {
        self.search_with(store, query, flags, limit, typing(&query.text))
    }

    fn search_with(&self, store: &Store, query: &Query, flags: &LintFlags, limit: usize, prefix: bool) -> Vec<TextHit> {
        let mut hits = self.rank_with(store, query, flags, limit, prefix);
        hits.truncate(limit);
        let words = self.words(&query.text, prefix);
        for h in &mut hits {
            h.lines = lines::matching_lines(store, h.idx, &words, LINES_PER_HIT);
        }
        hits
    }

    /// Every entity matching `query` over fields and bodies, best first, without lines (those
    /// are read from disk: `lines::matching_lines`). Phrases are checked for the best `limit`.
    pub fn rank(&self, store: &Store, query: &Query, flags: &LintFlags, limit: usize) -> Vec<TextHit> {
        self.rank_with(store, query, flags, limit, false)
    }

    /// `rank` as the TUI ranks while the person types (`search_as_typed`).
    pub fn rank_as_typed(&self, store: &Store, query: &Query, flags: &LintFlags, limit: usize) -> Vec<TextHit> {
        self.rank_with(store, query, flags, limit, typing(&query.text))
    }

    /// The query's words as BM25 takes them: each word alone, and with `prefix` the last one
    /// also as every indexed word it starts (the most common `PREFIX_WORDS`; two letters at least).
    fn groups(&self, text: &str, prefix: bool) -> Vec<Vec<String>> {
        let words = Terms::parse(text).words;
        let n = words.len();
        words
            .into_iter()
            .enumerate()
            .map(|(k, w)| {
                if !prefix || k + 1 < n || w.chars().count() < 2 {
                    return vec![w];
                }
                let mut more = self.index.starting_with(&w);
                more.sort_by(|a, b| self.index.df(b).cmp(&self.index.df(a)).then(a.cmp(b)));
                more.truncate(PREFIX_WORDS);
                if !more.contains(&w) {
                    more.push(w);
                }
                more
            })
            .collect()
    }

    /// Every word a line may hold to match (the query's, and a typed prefix's completions).
    pub fn words(&self, text: &str, prefix: bool) -> Vec<String> {
        self.groups(text, prefix).into_iter().flatten().collect()
    }

    fn rank_with(&self, store: &Store, query: &Query, flags: &LintFlags, limit: usize, prefix: bool) -> Vec<TextHit> {
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
        let mut scored: Vec<(EntityIdx, f32, usize)> = bm25::scores_any(&self.index, &self.groups(&query.text, prefix))
            .into_iter()
            .map(|(idx, (s, held))| (idx, s, held))
            .collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_being_typed_also_matches_the_words_it_starts() {
        assert!(typing("fraud scr") && !typing("fraud scr ") && !typing("\"fraud scr") && !typing(""));
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
        w("screening.md", "---\ntitle: Fraud Screening\n---\nScreening scores each payment for fraud.\n");
        w("rules.md", "---\ntitle: Rules as code\n---\nFraud rules: fraud, fraud and fraud again.\n");
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let text = TextRecall::build(&store);
        let q = Query::parse("fraud scr");
        let ids = |hits: Vec<TextHit>| hits.iter().map(|h| store.entity(h.idx).id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(text.search_as_typed(&store, &q, &[], 5))[0], "screening");
        let typed = text.search_as_typed(&store, &q, &[], 5);
        assert!(typed[0].lines[0].marks.len() == 2, "screening and fraud marked: {:?}", typed[0].lines);
        // The CLI's exact words: `scr` is no word of either body.
        assert_eq!(text.words("fraud scr", false), ["fraud", "scr"]);
        assert!(text.words("fraud scr", true).contains(&"screening".to_string()));
    }
}
