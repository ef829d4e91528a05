//! Full-text recall: every body searched for words and "phrases", ranked by BM25 over folio's
//! own inverted index (`index`) and combined with the fuzzy score of the entity's fields
//! (`super::rank`), each result with the body lines that hold the query's words.
pub mod bm25;
pub mod cache;
pub mod cached_index;
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
    /// The fields' fuzzy score; only an upper bound of it when not `exact`.
    pub fuzzy: u32,
    pub text: f32,
    /// `fuzzy` is the exact score. Hits past the requested `limit` (past every hit that could
    /// rank among the first `limit`) may carry a bound, and are ordered by it.
    pub exact: bool,
    pub lines: Vec<MatchLine>,
}

/// The fuzzy items of every entity, as recall ranks the fields.
fn items(store: &Store) -> Vec<RecallItem> {
    store.entities.par_iter().enumerate().map(|(i, e)| RecallItem::entity(i as EntityIdx, e)).collect()
}

/// What a full-text query runs against, built once per store: the text index and the fuzzy
/// items of every entity (building those per query would cost more than the query).
pub struct TextRecall {
    pub index: TextIndex,
    items: Vec<RecallItem>,
}

impl TextRecall {
    pub fn build(store: &Store) -> TextRecall {
        let (index, items) = rayon::join(|| TextIndex::build(store), || items(store));
        TextRecall { index, items }
    }

    /// `build`, with the index from the persistent cache where the store's files are unchanged
    /// (`cache::open`: only changed entities are read), and how it was made.
    pub fn open(
        cache: Option<&crate::store::keep::cache::Cache>,
        store: &Store,
    ) -> (TextRecall, crate::store::keep::cache::side::Made) {
        let ((index, made), items) = rayon::join(|| cache::open(cache, store), || items(store));
        (TextRecall { index, items }, made)
    }

    /// The words a query `text` looks up without a cache (`open_for`): those BM25 scores and
    /// those `field_text` asks about, lower case. A load told to count them
    /// (`Reads::EntitiesCountingWords`) saves `open_for` reading every body again.
    pub fn query_words(text: &str) -> Vec<String> {
        let mut wanted = Terms::parse(text).words;
        for w in text.replace('"', " ").split_whitespace() {
            let w = w.to_lowercase();
            if !wanted.contains(&w) {
                wanted.push(w);
            }
        }
        wanted
    }

    /// What `search` needs to answer `text` once (no typed prefix), with the index from the
    /// persistent cache as `open` when there is one to read or keep (a later query then reads
    /// it), or else only the query's words indexed (`TextIndex::of_words`): the same results
    /// and scores, without building the lists no word of the query reaches. A load for this
    /// need not make the term table: given the query's words (`Reads::EntitiesCountingWords`)
    /// it counts them as it reads; else the bodies are read again and counted here.
    pub fn open_for(
        cache: Option<&crate::store::keep::cache::Cache>,
        store: &Store,
        text: &str,
    ) -> (TextRecall, crate::store::keep::cache::side::Made) {
        let wanted = TextRecall::query_words(text);
        if cache.is_some_and(|_| crate::store::keep::cache::cacheable(store.kind())) {
            let ((index, made), items) = rayon::join(|| cache::open_for(cache, store, &wanted), || items(store));
            return (TextRecall { index, items }, made);
        }
        // The load's counts or term table when it made them; else the bodies are read and only
        // counted.
        let index = || {
            if let Some(counted) = store.take_loaded_word_counts(&wanted) {
                return TextIndex::of_word_counts(store, &wanted, counted);
            }
            match store.take_loaded_terms() {
                Some(content) => TextIndex::of_words(store, &content, &wanted),
                None => TextIndex::of_words_read(store, &wanted),
            }
        };
        let (index, items) = rayon::join(index, || items(store));
        let made = crate::store::keep::cache::side::Made { tokenised: store.entities.len(), ..Default::default() };
        (TextRecall { index, items }, made)
    }

    /// This recall with its index built anew, when the cache file it read on demand was found
    /// damaged (`TextIndex::damaged`) after it was opened; the index is written back.
    pub fn rebuilt(
        self,
        cache: Option<&crate::store::keep::cache::Cache>,
        store: &Store,
        why: &str,
    ) -> (TextRecall, crate::store::keep::cache::side::Made) {
        let (index, made) = cache::rebuild(cache, store, why);
        (TextRecall { index, items: self.items }, made)
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
        let update = || match self.index.update(&keep, &fresh, store.entities.len()) {
            // The cache file it read on demand cannot be read whole any more.
            index if index.damaged().is_some() => TextIndex::build(store),
            index => index,
        };
        let (index, items) = rayon::join(update, || items(store));
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
                let mut more = self.index.starting_with_df(&w);
                more.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                more.truncate(PREFIX_WORDS);
                let mut more: Vec<String> = more.into_iter().map(|(w, _)| w).collect();
                if !more.contains(&w) {
                    more.push(w);
                }
                more
            })
            .collect()
    }

    /// The query as the fields are matched beside the bodies (`Terms::field_text`).
    pub fn field_text(&self, text: &str) -> String {
        Terms::field_text(text, |w| self.index.df(w) > 0)
    }

    /// Every word a line may hold to match (the query's, and a typed prefix's completions).
    pub fn words(&self, text: &str, prefix: bool) -> Vec<String> {
        self.groups(text, prefix).into_iter().flatten().collect()
    }

    fn rank_with(&self, store: &Store, query: &Query, flags: &LintFlags, limit: usize, prefix: bool) -> Vec<TextHit> {
        if query.is_empty() {
            return Vec::new();
        }
        let filtered = query.has_filters();
        let accepts = |idx: EntityIdx| !filtered || query.accepts(store.entity(idx), facts(flags, idx as usize));
        let terms = Terms::parse(&query.text);
        let n = self.items.len().min(store.entities.len());
        let phrase_words = terms.phrases.iter().flatten().collect::<HashSet<_>>().len();
        let mut text: Vec<f32> = bm25::scores_any(&self.index, &self.groups(&query.text, prefix))
            .into_iter()
            .enumerate()
            .map(|(idx, (s, held))| {
                let wanted = held > 0 && (terms.phrases.is_empty() || held >= phrase_words);
                if wanted && idx < n && accepts(idx as EntityIdx) { s } else { 0.0 }
            })
            .collect();
        text.resize(n, 0.0);
        if !terms.phrases.is_empty() {
            // Phrases are checked by reading the body: best first, and only until `limit` hold
            // them (with phrases the ranking is BM25 alone), not on every entity with the words.
            let mut order: Vec<EntityIdx> = (0..n as EntityIdx).filter(|&i| text[i as usize] > 0.0).collect();
            order.sort_by(|&a, &b| text[b as usize].total_cmp(&text[a as usize]).then(a.cmp(&b)));
            let mut kept = vec![0.0; n];
            let mut held = 0;
            for idx in order {
                if held == limit {
                    break;
                }
                if lines::holds_phrases(store, idx, &terms.phrases) {
                    kept[idx as usize] = text[idx as usize];
                    held += 1;
                }
            }
            text = kept;
        }
        // Fuzzy over the fields, as `folio recall` without `--text` (phrases ask for the text):
        // first only an upper bound of each item's score (`rank::score_or_bound` against a floor
        // nothing reaches), the exact score later and only for what can rank among the best.
        let pattern = rank::pattern(&self.field_text(&query.text));
        let bounds = rank::bounds(&pattern);
        let fuzzy = |idx: EntityIdx, floor: Option<&rank::Scored>| {
            rank::score_or_bound(&self.items[idx as usize], 0, &pattern, bounds.as_ref(), rank::Prior::NONE, floor)
        };
        let ceiling =
            rank::Scored { score: u32::MAX, len: 0, idx: 0, line: 0, id: 0, exact: true, head: 0, head_exact: true };
        let mut hits: Vec<TextHit> = (0..n as EntityIdx)
            .into_par_iter()
            .filter_map(|idx| {
                let t = text[idx as usize];
                let f = if terms.phrases.is_empty() { fuzzy(idx, Some(&ceiling)) } else { None };
                if t == 0.0 && (f.is_none() || !accepts(idx)) {
                    return None;
                }
                let (score, exact) = f.map_or((0, true), |f| (f.score, f.exact));
                Some(TextHit {
                    idx,
                    score: score + (t * TEXT_WEIGHT).round() as u32,
                    fuzzy: score,
                    text: t,
                    exact,
                    lines: Vec::new(),
                })
            })
            .collect();
        let best_first = |a: &TextHit, b: &TextHit| b.score.cmp(&a.score).then(a.idx.cmp(&b.idx));
        hits.par_sort_unstable_by(best_first);
        // Threshold: exact scores in bound order until no bound left can reach the `limit`-th
        // best exact score; those after it keep their bounds, in bound order.
        let k = limit.max(1);
        let mut exact: Vec<u32> = Vec::new();
        let mut done = 0;
        while done < hits.len() {
            if exact.len() >= k && hits[done].score < exact[k - 1] {
                break;
            }
            let batch = (done + EXACT_BATCH).min(hits.len());
            // Once `k` are known, the tighter bound first: an item whose fields cannot lift it
            // past the `k`-th best (ties included) keeps that bound and is not scored.
            let kth = (exact.len() >= k).then(|| exact[k - 1]);
            hits[done..batch].par_iter_mut().filter(|h| !h.exact).for_each(|h| {
                let body = h.score - h.fuzzy;
                let floor = kth.map(|kth| rank::Scored { score: kth.saturating_sub(body + 1), ..ceiling });
                let scored = fuzzy(h.idx, floor.as_ref().filter(|f| f.score > 0));
                let (fuzzy, exact) = scored.map_or((0, true), |f| (f.score, f.exact));
                h.score = body + fuzzy;
                h.fuzzy = fuzzy;
                h.exact = exact;
            });
            exact.extend(hits[done..batch].iter().filter(|h| h.exact).map(|h| h.score));
            exact.sort_unstable_by(|a, b| b.cmp(a));
            exact.truncate(k);
            done = batch;
        }
        // A bound's subsequence test matched where the exact matcher did not (not expected).
        let unmatched = |h: &TextHit| h.exact && h.fuzzy == 0 && h.text == 0.0;
        let done = done - hits[..done].iter().filter(|h| unmatched(h)).count();
        hits.retain(|h| !unmatched(h));
        hits[..done].par_sort_unstable_by(best_first);
        hits
    }
}

/// Items given their exact fuzzy score at once, best bound first (in parallel).
const EXACT_BATCH: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `limit` hits are those of scoring every entity exactly (the fuzzy score of
    /// its fields plus BM25), in the same order, whatever the bounds skipped.
    #[test]
    fn the_best_hits_equal_exact_scoring_of_every_entity() {
        let dir = tempfile::tempdir().unwrap();
        let words = ["margin", "gross", "revenue", "daily", "churn", "snapshot", "stale", "ledger", "refund", "cohort"];
        for i in 0..300usize {
            let pick = |k: usize| words[(i * 7 + k * 3 + i / 11) % words.len()];
            let title = format!("{} {} note {i}", pick(0), pick(1));
            let body = format!("{} and {} {}; {} again.\n", pick(2), pick(3), pick(4).repeat(1 + i % 2), pick(5));
            let desc = if i % 3 == 0 { format!("description: about {}\n", pick(6)) } else { String::new() };
            std::fs::write(dir.path().join(format!("n{i}.md")), format!("---\ntitle: {title}\n{desc}---\n{body}"))
                .unwrap();
        }
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let text = TextRecall::build(&store);
        for q in ["margin", "gross rev", "daily revenue", "mrgn", "stale churn", "ledger note 1", "refund cohort"] {
            let query = Query::parse(q);
            let pattern = rank::pattern(&text.field_text(q));
            let bm25 = bm25::scores_any(&text.index, &text.groups(q, false));
            let mut want: Vec<(EntityIdx, u32)> = (0..store.entities.len())
                .filter_map(|i| {
                    let f = rank::score(&text.items[i], 0, &pattern).map(|s| s.score);
                    let t = bm25[i].0;
                    (f.is_some() || t > 0.0)
                        .then(|| (i as EntityIdx, f.unwrap_or(0) + (t * TEXT_WEIGHT).round() as u32))
                })
                .collect();
            want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for limit in [1, 5, 20] {
                let got: Vec<(EntityIdx, u32)> =
                    text.rank(&store, &query, &[], limit).iter().take(limit).map(|h| (h.idx, h.score)).collect();
                assert_eq!(got, want[..limit.min(want.len())], "{q} limit {limit}");
            }
            assert_eq!(text.rank(&store, &query, &[], 5).len(), want.len(), "{q}: every match is listed");
        }
    }

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
    /// Read on demand from the cache (as the TUI's `/` and the CLI read it), the index answers
    /// every query, typed prefixes included, as the one built in memory.
    #[test]
    fn the_index_read_from_the_cache_answers_as_the_one_built() {
        let dir = crate::store::keep::cache::side::fixture::aged_vault(|i| {
            (format!("Ledger {i}"), format!("Body of note {i} about w{} and screening {}.", i % 37, i % 5))
        });
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let cdir = tempfile::tempdir().unwrap();
        let cache = crate::store::keep::cache::Cache::new(cdir.path());
        let built = TextRecall::build(&store);
        TextRecall::open(Some(&cache), &store);
        let (read, made) = TextRecall::open(Some(&cache), &store);
        assert_eq!(made.reused, store.entities.len(), "{:?}", made.warnings);
        assert!(read.index.heap_bytes() < built.index.heap_bytes() / 4, "read on demand");
        for q in ["w1", "screening 3", "ledger w2", "scr", "w", "absent", "\"note 12\""] {
            let query = Query::parse(q);
            assert_eq!(
                read.search_as_typed(&store, &query, &[], 20),
                built.search_as_typed(&store, &query, &[], 20),
                "{q}"
            );
            let (once, _) = TextRecall::open_for(Some(&cache), &store, q);
            assert_eq!(once.search(&store, &query, &[], 20), built.search(&store, &query, &[], 20), "{q}");
            assert_eq!(once.index.damaged(), None);
        }
    }
}
