//! The one ranking: nucleo's score of the query on an item's haystack, best first, ties by the
//! shorter haystack, then by item order (entity order, an entity's own item before its sections,
//! sections by line). The headless `folio recall` and the TUI's streaming engine both score with
//! `score` and order with `order`, so they agree by construction.
use std::cell::RefCell;
use std::cmp::Ordering;

use nucleo::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo::{Config, Matcher};
use rayon::prelude::*;

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

/// One matched item: its score and what breaks ties, so ordering never looks items up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scored {
    pub score: u32,
    /// Haystack length in chars.
    pub len: u32,
    pub idx: u32,
    /// The section's heading line; 0 for the entity's own item.
    pub line: u32,
    /// Where the item lives in the caller's item list.
    pub id: u32,
    /// `score` is the item's score; otherwise only an upper bound of it (see `matches_within`).
    pub exact: bool,
    /// The exact part of the score from every query word but the last (`UNKNOWN` if not
    /// known): a query that only extends its last word, or adds words, rescores just those
    /// (`score_after`). Known even for a bounded score whose last word was only tested.
    pub head: u32,
}

/// `Scored::head` when it is not known.
pub const UNKNOWN: u32 = u32::MAX;

/// Best first: higher score, then shorter haystack, then item order.
pub fn order(a: &Scored, b: &Scored) -> Ordering {
    b.score.cmp(&a.score).then(a.len.cmp(&b.len)).then(a.idx.cmp(&b.idx)).then(a.line.cmp(&b.line))
}

thread_local! {
    /// One matcher per thread: it owns a scratch matrix that is costly to allocate per item.
    static MATCHER: RefCell<Matcher> = RefCell::new(Matcher::new(config()));
}

/// Score one item (`id` is its position in the caller's list); `None` when it does not match.
/// The score is nucleo's `Pattern::score`: the sum of its words' (atoms') scores.
pub fn score(item: &RecallItem, id: u32, pattern: &Pattern) -> Option<Scored> {
    score_after(item, id, pattern, 0, 0)
}

/// `score` when the first `known` words of `pattern` are known to match with a total of `head`.
pub fn score_after(item: &RecallItem, id: u32, pattern: &Pattern, known: usize, head: u32) -> Option<Scored> {
    let hay = item.haystack.slice(..);
    let (mut score, mut head) = (head, head);
    MATCHER.with(|m| {
        let m = &mut m.borrow_mut();
        for (n, atom) in pattern.atoms.iter().enumerate().skip(known) {
            if n + 1 == pattern.atoms.len() {
                head = score;
            }
            score += atom.score(hay, m)? as u32;
        }
        Some(())
    })?;
    let line = item.section.as_ref().map_or(0, |s| s.line);
    Some(Scored { score, len: item.haystack.len() as u32, idx: item.idx, line, id, exact: true, head })
}

/// How much of an old query's exact scores a new one can reuse: the new query's words up to its
/// last are the old query's words (the last one was extended: `Head`), or all of the old
/// query's words (words were added: `Whole`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    Head,
    Whole,
}

pub fn reuse(old: &Pattern, new: &Pattern) -> Option<(Reuse, usize)> {
    let (o, n) = (&old.atoms, &new.atoms);
    let known = n.len().checked_sub(1)?;
    if known == 0 {
        return None;
    }
    if o.len() == n.len() && o[..known] == n[..known] {
        Some((Reuse::Head, known))
    } else if o.len() == known && o[..] == n[..known] {
        Some((Reuse::Whole, known))
    } else {
        None
    }
}

/// The most one query character can add to an item's score (nucleo 0.5 scoring). Extending a
/// word of two or more characters: a match (16) plus the largest bonus (10) on nucleo's optimal
/// path, plus 8 because its contiguous-match path weighs the prefix bonus 8 lower.
pub const GAIN_EXTEND: u32 = 34;
/// Extending a one-character word: nucleo scores one character without the prefix bonus (16).
pub const GAIN_SECOND: u32 = 42;
/// Starting a new word: a one-character word scores at most a match with the first-character
/// bonus doubled (16 + 2 × 10), with no prefix bonus.
pub const GAIN_FIRST: u32 = 36;
/// Longer queries may take nucleo's greedy fallback, which has no such bound.
const MAX_BOUNDED_QUERY: usize = 32;

/// When `new` extends `old` by appending (see `engine::narrows`), an upper bound of how much
/// any item's score can grow, if one holds for this pattern: every atom a plain fuzzy one with
/// an ASCII needle (whose matching `matches_within` decides exactly).
pub fn gain_bound(old: &str, new: &str, pattern: &Pattern) -> Option<u32> {
    let plain = pattern
        .atoms
        .iter()
        .all(|a| !a.negative && a.kind == AtomKind::Fuzzy && matches!(a.needle_text(), nucleo::Utf32Str::Ascii(_)));
    let added = new.strip_prefix(old)?;
    if !plain || new.len() > MAX_BOUNDED_QUERY {
        return None;
    }
    // Length of the word being extended (0: the next character starts a word).
    let mut word = old.chars().rev().take_while(|c| !c.is_whitespace()).count();
    let mut gain = 0;
    for c in added.chars() {
        if c.is_whitespace() {
            word = 0;
            continue;
        }
        gain += match word {
            0 => GAIN_FIRST,
            1 => GAIN_SECOND,
            _ => GAIN_EXTEND,
        };
        word += 1;
    }
    Some(gain)
}

/// Haystacks this short may take nucleo's whole-haystack path; they are always scored.
pub const MIN_BOUNDED_HAYSTACK: usize = MAX_BOUNDED_QUERY + 1;

/// Whether `pattern` (a `gain_bound` pattern) matches an ASCII haystack, without scoring:
/// nucleo's fuzzy match of an ASCII needle succeeds exactly when the needle is a subsequence
/// of the haystack (ignoring ASCII case unless the needle has a capital, as `CaseMatching::Smart`).
/// `None` for a haystack this cannot decide (not ASCII).
pub fn matches_within(item: &RecallItem, pattern: &Pattern) -> Option<bool> {
    let nucleo::Utf32Str::Ascii(hay) = item.haystack.slice(..) else { return None };
    if hay.len() < MIN_BOUNDED_HAYSTACK {
        return None;
    }
    Some(pattern.atoms.iter().all(|a| {
        let nucleo::Utf32Str::Ascii(needle) = a.needle_text() else { return false };
        let ignore_case = !needle.iter().any(u8::is_ascii_uppercase);
        let mut rest = hay;
        needle.iter().all(|&n| {
            let found = if ignore_case && n.is_ascii_lowercase() {
                memchr::memchr2(n, n.to_ascii_uppercase(), rest)
            } else {
                memchr::memchr(n, rest)
            };
            found.map(|i| rest = &rest[i + 1..]).is_some()
        })
    }))
}

/// Score `items` in parallel on the current rayon pool; the matches in item order.
pub fn score_all(items: &[RecallItem], pattern: &Pattern) -> Vec<Scored> {
    items.par_iter().enumerate().filter_map(|(n, item)| score(item, n as u32, pattern)).collect()
}

/// Keep the best `k` of `hits`, sorted best first. Linear selection first: only the kept
/// part is sorted, whatever the number of matches.
pub fn keep_best(hits: &mut Vec<Scored>, k: usize) {
    if hits.len() > k && k > 0 {
        hits.select_nth_unstable_by(k - 1, order);
    }
    hits.truncate(k);
    hits.sort_unstable_by(order);
}

/// The position in `items` and the score of every match, best first (at most `limit`).
pub fn rank(items: &[RecallItem], text: &str, limit: usize) -> Vec<(usize, u32)> {
    let mut hits = score_all(items, &pattern(text));
    keep_best(&mut hits, limit);
    hits.into_iter().map(|h| (h.id as usize, h.score)).collect()
}

/// Char positions of the haystack the query matched (sorted, for highlighting).
pub fn indices(item: &RecallItem, text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    MATCHER.with(|m| pattern(text).indices(item.haystack.slice(..), &mut m.borrow_mut(), &mut out));
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::entity::Entity;

    fn item(idx: u32, title: &str) -> RecallItem {
        RecallItem::entity(idx, &Entity { id: format!("e{idx}"), title: title.into(), ..Entity::default() })
    }

    #[test]
    fn scoring_the_last_word_again_adds_up() {
        let it = item(0, "gross margin of the quarter");
        for (old, new) in [("gross mar", "gross marg"), ("gross", "gross q"), ("gr ma", "gr ma qu")] {
            let (po, pn) = (pattern(old), pattern(new));
            let before = score(&it, 0, &po).unwrap();
            let (how, known) = reuse(&po, &pn).expect(new);
            let head = if how == Reuse::Head { before.head } else { before.score };
            assert_eq!(score_after(&it, 0, &pn, known, head), score(&it, 0, &pn), "{old:?} -> {new:?}");
        }
        assert_eq!(reuse(&pattern("gross"), &pattern("grossm")), None);
        assert_eq!(reuse(&pattern("gross ma"), &pattern("gross mA")), Some((Reuse::Head, 1)));
        assert_eq!(reuse(&pattern("gross ma"), &pattern("gros ma")), None);
    }

    #[test]
    fn best_first_ties_by_length_then_order() {
        let items = [item(0, "margin call"), item(1, "margin"), item(2, "churn"), item(3, "margin")];
        let ranked = rank(&items, "margin", 10);
        let positions: Vec<usize> = ranked.iter().map(|&(n, _)| n).collect();
        assert_eq!(positions, [1, 3, 0], "equal scores: shorter haystack, then item order");
        assert_eq!(rank(&items, "margin", 2).len(), 2);
        // Selection keeps exactly what a full sort would.
        let mut all = score_all(&items, &pattern("m"));
        let mut full = all.clone();
        full.sort_by(order);
        keep_best(&mut all, 2);
        assert_eq!(all, full[..2]);
    }

    #[test]
    fn subsequence_test_agrees_with_nucleo_and_bound_holds() {
        let hays = [
            "Gross margin  |  metrics/gm  |  #finance  |  revenue minus cost of goods",
            "Margin call  |  ops/margin-call  |  the broker asks for more collateral",
            "GROSS  |  upper/gross  |  shouting in the description, GROSS MARGIN",
            "g-r-o-s-s  |  x/g-r-o-s-s  |  every letter of gross apart: g r o s s m a r g i n",
            "churn  |  growth/churn  |  customers who leave per month",
            "Daily Revenue 2024  |  metrics/daily-revenue-2024  |  daily revenue by region",
        ];
        let items: Vec<RecallItem> = hays.iter().enumerate().map(|(i, h)| item(i as u32, h)).collect();
        let queries =
            ["g", "gr", "gro", "gross", "gross m", "gross ma", "gRo", "GR", "dai r", "dai re 20", "2", "24", "d", "da"];
        for q in queries {
            let p = pattern(q);
            for it in &items {
                let nucleo_says = score(it, 0, &p).is_some();
                assert_eq!(matches_within(it, &p), Some(nucleo_says), "{q:?} on {:?}", it.text());
            }
        }
        for pair in queries.windows(2) {
            let (old, new) = (pair[0], pair[1]);
            let Some(gain) = gain_bound(old, new, &pattern(new)) else { continue };
            for it in &items {
                if let (Some(a), Some(b)) = (score(it, 0, &pattern(old)), score(it, 0, &pattern(new))) {
                    assert!(b.score <= a.score + gain, "{old:?} -> {new:?} on {:?}", it.text());
                }
            }
        }
        assert_eq!(gain_bound("gro", "gross m", &pattern("gross m")), Some(2 * GAIN_EXTEND + GAIN_FIRST));
        assert_eq!(gain_bound("g", "gr", &pattern("gr")), Some(GAIN_SECOND));
        assert_eq!(gain_bound("gro", "'gro", &pattern("'gro")), None);
        assert_eq!(gain_bound("gro", "gro !x", &pattern("gro !x")), None);
    }
}
