//! The one ranking: nucleo's score of the query on an item's haystack, best first, ties by the
//! shorter haystack, then by item order (entity order, an entity's own item before its sections,
//! sections by line). The headless `folio recall` and the TUI's streaming engine both score with
//! `score` and order with `order`, so they agree by construction.
use std::cell::RefCell;
use std::cmp::Ordering;

use nucleo::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo::{Config, Matcher};
use rayon::prelude::*;

use super::bound::{Bounds, Scratch};
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
    /// `score` is the item's score; otherwise only an upper bound of it (see `score_or_bound`).
    pub exact: bool,
    /// The part of the score from every query word but the last (`UNKNOWN` if not known): a
    /// query that only extends its last word, or adds words, rescores just those
    /// (`score_after`, when `head_exact`) or bounds them on top of it.
    pub head: u32,
    /// `head` is the exact part, not only an upper bound of it.
    pub head_exact: bool,
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
    Some(Scored {
        score,
        len: item.haystack.len() as u32,
        idx: item.idx,
        line,
        id,
        exact: true,
        head,
        head_exact: true,
    })
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
/// an ASCII needle (as `bound::Bounds`).
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

/// What a job knows of an item from the query the new one narrows (`Reuse`).
#[derive(Debug, Clone, Copy)]
pub struct Prior {
    /// The first `known` words' score (`head`): exact if `exact`, else an upper bound.
    pub known: usize,
    pub head: u32,
    pub exact: bool,
    /// An upper bound of the whole score (`gain_bound` over the old score), `UNKNOWN` if none.
    pub ceiling: u32,
}

impl Prior {
    pub const NONE: Prior = Prior { known: 0, head: 0, exact: true, ceiling: UNKNOWN };
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The score bounds of `pattern`, when they hold for it (see `bound`).
pub fn bounds(pattern: &Pattern) -> Option<Bounds> {
    Bounds::new(pattern)
}

/// Score `item`, unless a bound shows it cannot rank before `floor` (the `TOP`-th best exact
/// score so far): then it is only tested for a match and carries the bound (`exact: false`),
/// to be scored if it ever could rank. Cheapest bounds first: the sketch's, then the relaxed
/// recurrence; `None` when it does not match.
pub fn score_or_bound(
    item: &RecallItem,
    id: u32,
    pattern: &Pattern,
    bounds: Option<&Bounds>,
    prior: Prior,
    floor: Option<&Scored>,
) -> Option<Scored> {
    let head_known = prior.known > 0 && prior.head != UNKNOWN;
    let exact = || {
        if head_known && prior.exact {
            score_after(item, id, pattern, prior.known, prior.head)
        } else {
            score(item, id, pattern)
        }
    };
    let (Some(bounds), Some(floor)) = (bounds, floor) else { return exact() };
    let Some(hay) = bounds.haystack(item.haystack.slice(..)) else { return exact() };
    let known = if head_known { prior.known } else { 0 };
    let last = bounds.words() - 1;
    if known > last || !(known..=last).all(|w| bounds.matches(w, hay)) {
        return if known > last { exact() } else { None };
    }
    let line = item.section.as_ref().map_or(0, |s| s.line);
    let len = item.haystack.len() as u32;
    let head_exact = last == 0 || (known == last && prior.exact);
    let bounded =
        |score: u32, head: u32| Scored { score, len, idx: item.idx, line, id, exact: false, head, head_exact };
    let cannot_rank = |score: u32| order(&bounded(score, 0), floor) == Ordering::Greater;
    let head_of = |word: &mut dyn FnMut(usize) -> Option<u32>| -> Option<u32> {
        (known..last).try_fold(if known > 0 { prior.head } else { 0 }, |sum, w| Some(sum.saturating_add(word(w)?)))
    };

    let mut quick = |w| Some(bounds.quick(w, &item.sketch));
    let mut head = head_of(&mut quick)?;
    let mut total = head.saturating_add(bounds.quick(last, &item.sketch)).min(prior.ceiling);
    if cannot_rank(total) {
        return Some(bounded(total, head));
    }
    let relaxed = SCRATCH.with(|scratch| {
        let scratch = &mut scratch.borrow_mut();
        let mut word = |w: usize| {
            if bounds.single_char(w) {
                MATCHER.with(|m| pattern.atoms[w].score(item.haystack.slice(..), &mut m.borrow_mut())).map(u32::from)
            } else {
                bounds.relaxed(w, hay, scratch)
            }
        };
        Some((head_of(&mut word)?, word(last)?))
    });
    // The relaxed bound finds no match where the subsequence test did: never expected, but
    // the exact score decides.
    let Some((relaxed_head, relaxed_last)) = relaxed else { return exact() };
    head = head.min(relaxed_head);
    total = total.min(relaxed_head.saturating_add(relaxed_last));
    if cannot_rank(total) {
        return Some(bounded(total, head));
    }
    exact()
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
    use crate::store::model::entity::Entity;

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
    fn gain_bound_holds() {
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

    /// Against any floor, an item is either scored exactly or carries a bound at least its
    /// score that ranks after the floor; and it matches exactly when nucleo says so.
    #[test]
    fn score_or_bound_is_exact_or_an_upper_bound_behind_the_floor() {
        let hays = [
            "Gross margin  |  metrics/gm  |  #finance  |  revenue minus cost of goods",
            "Margin call  |  ops/margin-call  |  the broker asks for more collateral",
            "g-r-o-s-s  |  x/g-r-o-s-s  |  every letter of gross apart: g r o s s m a r g i n",
            "Daily Revenue 2024  |  metrics/daily-revenue-2024  |  daily revenue by region",
            "churn  |  growth/churn  |  customers who leave per month",
        ];
        let items: Vec<RecallItem> = hays.iter().enumerate().map(|(i, h)| item(i as u32, h)).collect();
        for q in ["g", "gr", "gross ma", "dai re 20", "mar", "GR", "cu mo", "'gro", "gro !x"] {
            let p = pattern(q);
            let b = bounds(&p);
            for floor_score in [0, 40, 70, 120, 400] {
                let floor = Scored { score: floor_score, len: 60, ..score(&items[0], 0, &pattern("g")).unwrap() };
                for (n, it) in items.iter().enumerate() {
                    let want = score(it, n as u32, &p);
                    let got = score_or_bound(it, n as u32, &p, b.as_ref(), Prior::NONE, Some(&floor));
                    assert_eq!(got.is_some(), want.is_some(), "{q:?} on {:?}", it.text());
                    let (Some(got), Some(want)) = (got, want) else { continue };
                    if got.exact {
                        assert_eq!(got, want);
                    } else {
                        assert!(got.score >= want.score, "{q:?} on {:?}", it.text());
                        assert_eq!(order(&got, &floor), Ordering::Greater);
                    }
                }
            }
        }
    }
}
