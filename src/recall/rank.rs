//! The one ranking: nucleo's score of the query on an item's haystack, best first, ties by the
//! shorter haystack, then by item order. This is the order `nucleo::Nucleo` sorts its matches
//! in, so the headless `folio recall` and the TUI's streaming engine agree by construction.
use nucleo::pattern::{CaseMatching, Normalization, Pattern};
use nucleo::{Config, Matcher};

use super::item::RecallItem;

/// The matcher configuration both paths use. Haystacks start with the title (then id,
/// aliases, tags, description), and preferring matches near the start is what ranks a title
/// hit above the same word deep in a description.
pub fn config() -> Config {
    let mut c = Config::DEFAULT;
    c.prefer_prefix = true;
    c
}

pub fn pattern(text: &str) -> Pattern {
    Pattern::parse(text, CaseMatching::Smart, Normalization::Smart)
}

/// The position in `items` and the score of every match, best first (at most `limit`).
pub fn rank(items: &[RecallItem], text: &str, limit: usize) -> Vec<(usize, u32)> {
    let pattern = pattern(text);
    let mut matcher = Matcher::new(config());
    let mut hits: Vec<(usize, u32)> = items
        .iter()
        .enumerate()
        .filter_map(|(n, item)| pattern.score(item.haystack.slice(..), &mut matcher).map(|s| (n, s)))
        .collect();
    hits.sort_by(|a, b| {
        b.1.cmp(&a.1).then_with(|| items[a.0].haystack.len().cmp(&items[b.0].haystack.len())).then(a.0.cmp(&b.0))
    });
    hits.truncate(limit);
    hits
}

/// Char positions of the haystack the query matched (sorted, for highlighting).
pub fn indices(item: &RecallItem, text: &str) -> Vec<u32> {
    let mut matcher = Matcher::new(config());
    let mut out = Vec::new();
    pattern(text).indices(item.haystack.slice(..), &mut matcher, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}
