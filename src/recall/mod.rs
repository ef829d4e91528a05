//! Fuzzy recall over entities with nucleo's matcher: the ranking `folio recall` and the TUI share.
use nucleo::Utf32String;
use nucleo::pattern::{CaseMatching, Normalization, Pattern};

use crate::store::Store;
use crate::store::entity::{Entity, EntityIdx};

/// Searchable text of one entity, one column per field; matching takes the best field, with
/// ids and titles weighted above tags and descriptions.
pub struct RecallItem {
    pub idx: EntityIdx,
    pub columns: [Utf32String; 4],
}

/// Column weights (id, title + aliases, tags, description), in percent of the raw score.
const WEIGHTS: [u32; 4] = [100, 100, 80, 60];

impl RecallItem {
    pub fn new(idx: EntityIdx, e: &Entity) -> Self {
        let mut title = e.title.clone();
        for a in &e.aliases {
            title.push_str(" · ");
            title.push_str(a);
        }
        RecallItem {
            idx,
            columns: [
                Utf32String::from(e.id.as_str()),
                Utf32String::from(title),
                Utf32String::from(e.tags.join(" ")),
                Utf32String::from(e.description.as_deref().unwrap_or("")),
            ],
        }
    }
}

/// One ranked result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub idx: EntityIdx,
    pub score: u32,
}

/// Rank every entity of the store against `query` (fzf syntax: words, `'exact`, `^prefix`,
/// `suffix$`, `!not`). Best first; ties by id. An empty query matches nothing.
pub fn recall(store: &Store, query: &str, limit: usize) -> Vec<Hit> {
    let items: Vec<RecallItem> =
        store.entities.iter().enumerate().map(|(i, e)| RecallItem::new(i as EntityIdx, e)).collect();
    rank(&items, query, limit, |i| store.entity(i).id.as_str())
}

/// Rank prepared items (kept by callers that query repeatedly).
pub fn rank<'a>(items: &[RecallItem], query: &str, limit: usize, id: impl Fn(EntityIdx) -> &'a str) -> Vec<Hit> {
    if query.trim().is_empty() {
        return Vec::new();
    }
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut matcher = nucleo::Matcher::new(nucleo::Config::DEFAULT);
    let mut hits: Vec<Hit> = items
        .iter()
        .filter_map(|item| {
            let best = item
                .columns
                .iter()
                .zip(WEIGHTS)
                .filter_map(|(col, w)| pattern.score(col.slice(..), &mut matcher).map(|s| s * w / 100))
                .max()?;
            Some(Hit { idx: item.idx, score: best })
        })
        .collect();
    hits.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| id(a.idx).cmp(id(b.idx))));
    hits.truncate(limit);
    hits
}
