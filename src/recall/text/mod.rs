//! Full-text recall: every body searched for words and "phrases", ranked by BM25 over folio's
//! own inverted index (`index`) and combined with the fuzzy score of the entity's fields
//! (`super::rank`), each result with the body lines that hold the query's words.
pub mod bm25;
pub mod index;
pub mod lines;
pub mod terms;

use std::collections::HashMap;

pub use index::TextIndex;
pub use lines::MatchLine;
pub use terms::Terms;

use super::query::Query;
use super::{LintFlags, facts, rank};
use crate::store::Store;
use crate::store::entity::EntityIdx;

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

/// Rank the store against `query` over fields and bodies; best first, at most `limit`.
pub fn recall_text(store: &Store, index: &TextIndex, query: &Query, flags: &LintFlags, limit: usize) -> Vec<TextHit> {
    if query.is_empty() {
        return Vec::new();
    }
    let terms = Terms::parse(&query.text);
    let fuzzy_text = Terms::fuzzy_text(&query.text);
    let mut combined: HashMap<EntityIdx, (u32, f32)> = HashMap::new();
    // Fuzzy over the fields, as `folio recall` without `--text`; phrases ask for the text itself.
    if terms.phrases.is_empty() {
        let mut items = Vec::new();
        super::for_each_item(store, query, flags, false, |item| {
            items.push(item);
            true
        });
        for (n, score) in rank::rank(&items, &fuzzy_text, usize::MAX) {
            combined.entry(items[n].idx).or_default().0 = score;
        }
    }
    for (idx, (score, held)) in bm25::scores(index, &terms.words) {
        let e = store.entity(idx);
        if !query.accepts(e, facts(flags, idx as usize)) {
            continue;
        }
        let phrase_words = terms.phrases.iter().flatten().collect::<std::collections::HashSet<_>>().len();
        if !terms.phrases.is_empty() && (held < phrase_words || !lines::holds_phrases(store, idx, &terms.phrases)) {
            continue;
        }
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
    hits.sort_by(|a, b| b.score.cmp(&a.score).then(a.idx.cmp(&b.idx)));
    hits.truncate(limit);
    for h in &mut hits {
        h.lines = lines::matching_lines(store, h.idx, &terms.words, LINES_PER_HIT);
    }
    hits
}
