//! Pairs alike in form rather than in subject, which `near-duplicate` and
//! `possible-contradiction` leave alone (docs/lint.md "Templated stores"):
//! - entries of one dated log (`worklog/2026-11-12` and `worklog/2026-11-13`, named by their
//!   date and a few words): a journal repeats its days' vocabulary by nature;
//! - siblings filled in from one template (the GA4 bundle's metric references: one sentence
//!   frame, one SQL skeleton, a different metric in the slots): most of their running text is
//!   the same words in the same order, and what they fill the slots with differs.
//!
//! A pair of either kind is still reported when its texts are (near-)copies of each other.
use std::sync::LazyLock;

use regex::Regex;
use similar::{Algorithm, DiffOp};

use super::near_duplicate::{NEAR_EXACT, Rarity, is_content, stem, word_hash};
use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::read::body_text;

/// Why a pair is alike in form only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kinship {
    /// Two entries of one dated series: names equal but for their dates.
    DatedSeries,
    /// Two fillings of one template: a shared skeleton, different slots.
    TemplateSiblings,
}

/// From this share of aligned running text (as `similar`'s ratio), two texts share a skeleton.
pub const SKELETON: f64 = 0.5;
/// From this share of aligned running text two texts are one text edited, not two fillings.
pub const EDITED: f64 = 0.9;
/// A skeleton is at least this many words: two one-line notes that say one thing with
/// different annotations are one fact told twice, not two fillings of a template.
pub const SKELETON_WORDS: usize = 40;
/// The words are compared in at most this many leading words of each text: a template's
/// skeleton shows well within it, and the alignment stays cheap on multi-megabyte pages.
const ALIGN_WORDS: usize = 4_000;

/// A calendar date in a name: `2026-11-12`, `2026_11_12`, `2026.11.12`, `20261112`.
static DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:19|20)\d\d(?:[-_./](?:1[0-2]|0?[1-9])[-_./](?:3[01]|[12]\d|0?[1-9])|(?:1[0-2]|0[1-9])(?:3[01]|[12]\d|0[1-9]))").unwrap()
});

/// From this similarity a pair is one text edited, whatever its form: two template siblings
/// this alike are duplicates.
pub const SAME_WORDS: f64 = 2.0 / 3.0;

/// Whether `near-duplicate` reports the pair `a`, `b` of similarity `s`: (near-)exact copies
/// always; entries of one dated series never; template siblings from `SAME_WORDS`.
pub fn reported(store: &Store, a: EntityIdx, b: EntityIdx, s: f64, rarity: &Rarity, threshold: f64) -> bool {
    reported_by(store, a, b, s, || siblings(store, a, b, rarity, threshold))
}

/// `reported`, `siblings` saying whether the two are template siblings (asked only when it matters).
pub fn reported_by(store: &Store, a: EntityIdx, b: EntityIdx, s: f64, siblings: impl FnOnce() -> bool) -> bool {
    s >= NEAR_EXACT
        || match of_by(store, a, b, siblings) {
            Some(Kinship::DatedSeries) => false,
            Some(Kinship::TemplateSiblings) => s >= SAME_WORDS,
            None => true,
        }
}

/// Whether entities `a` and `b` are alike in form only (`threshold` is the rule's similarity
/// threshold, applied to what the two texts fill a shared skeleton with).
pub fn of(store: &Store, a: EntityIdx, b: EntityIdx, rarity: &Rarity, threshold: f64) -> Option<Kinship> {
    of_by(store, a, b, || siblings(store, a, b, rarity, threshold))
}

fn of_by(store: &Store, a: EntityIdx, b: EntityIdx, siblings: impl FnOnce() -> bool) -> Option<Kinship> {
    let (ea, eb) = (store.entity(a), store.entity(b));
    if dated_series(&ea.id, &eb.id) || dated_series(&ea.title, &eb.title) {
        return Some(Kinship::DatedSeries);
    }
    siblings().then_some(Kinship::TemplateSiblings)
}

/// `template_siblings` of the two entities' compared texts.
fn siblings(store: &Store, a: EntityIdx, b: EntityIdx, rarity: &Rarity, threshold: f64) -> bool {
    let (ta, tb) = (body_text::compared_text(store, a), body_text::compared_text(store, b));
    template_siblings(&ta, &tb, rarity, threshold)
}

/// Words a series' name may hold besides its date (`Daily Worklog - `, `standup-`, `worklog/`);
/// a longer name says what the entry is about, and two entries about one thing are compared.
const SERIES_WORDS: usize = 3;

/// Whether two names are one series' name with different dates in it.
pub fn dated_series(a: &str, b: &str) -> bool {
    if a == b || !DATE.is_match(a) {
        return false;
    }
    let series = DATE.replace_all(a, "\u{0}");
    series == DATE.replace_all(b, "\u{0}")
        && body_text::words(&series).filter(|(_, w)| is_content(w)).count() <= SERIES_WORDS
}

/// Whether two texts share a skeleton (`SKELETON` of their words, at least `SKELETON_WORDS`,
/// short of `EDITED`) and the words outside it, where they
/// differ, overlap less than `threshold` (weighted by rarity, as the rule weighs words).
pub fn template_siblings(a: &str, b: &str, rarity: &Rarity, threshold: f64) -> bool {
    template_slots(a, b).is_some_and(|(sa, sb)| slots_differ(&sa, &sb, rarity, threshold))
}

/// The words two texts fill a shared skeleton with (each sorted, unique), when they share one:
/// what `template_siblings` weighs, which depends on the texts alone.
pub fn template_slots(a: &str, b: &str) -> Option<(Vec<u32>, Vec<u32>)> {
    let (wa, wb) = (tokens(a), tokens(b));
    if wa.is_empty() || wb.is_empty() {
        return None;
    }
    let ops = similar::capture_diff_slices(Algorithm::Myers, &wa, &wb);
    let (mut in_a, mut in_b) = (vec![false; wa.len()], vec![false; wb.len()]);
    let mut aligned = 0;
    for op in &ops {
        if let DiffOp::Equal { old_index, new_index, len } = *op {
            aligned += len;
            in_a[old_index..old_index + len].fill(true);
            in_b[new_index..new_index + len].fill(true);
        }
    }
    let ratio = 2.0 * aligned as f64 / (wa.len() + wb.len()) as f64;
    if !(SKELETON..EDITED).contains(&ratio) || aligned < SKELETON_WORDS {
        return None;
    }
    let slots = |words: &[u64], aligned: &[bool]| {
        let mut s: Vec<u32> =
            words.iter().zip(aligned).filter_map(|(&w, &al)| u32::try_from(w).ok().filter(|_| !al)).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    Some((slots(&wa, &in_a), slots(&wb, &in_b)))
}

/// Whether the slot words of two skeleton-sharing texts overlap less than `threshold`, weighed
/// by rarity.
pub fn slots_differ(sa: &[u32], sb: &[u32], rarity: &Rarity, threshold: f64) -> bool {
    let (mut shared, mut union) = (0f64, 0f64);
    let (mut i, mut j) = (0, 0);
    while i < sa.len() || j < sb.len() {
        match (sa.get(i), sb.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                let r = f64::from(rarity.weight(x));
                shared += r;
                union += r;
                i += 1;
                j += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                union += f64::from(rarity.weight(x));
                i += 1;
            }
            (Some(&x), None) => {
                union += f64::from(rarity.weight(x));
                i += 1;
            }
            (_, Some(&y)) => {
                union += f64::from(rarity.weight(y));
                j += 1;
            }
            (None, None) => break,
        }
    }
    // Nothing differs (or only numbers): a copy, not two fillings.
    union > 0.0 && shared / union < threshold
}

/// Every number is this token: a template's numbers fill its slots but weigh nothing.
const NUMBER: u64 = 1 << 33;
/// Marks a stopword's token: it holds the skeleton together but is no slot word.
const STOPWORD: u64 = 1 << 32;

/// The text's words in order: a content word as the rule hashes it (stemmed), a stopword or a
/// number above `u32` (so that the skeleton is the running text), at most `ALIGN_WORDS`.
fn tokens(text: &str) -> Vec<u64> {
    body_text::words(text)
        .take(ALIGN_WORDS)
        .map(|(_, w)| {
            if w.bytes().all(|b| b.is_ascii_digit()) {
                NUMBER
            } else if is_content(&w) {
                u64::from(word_hash(stem(&w)))
            } else {
                STOPWORD | u64::from(word_hash(&w))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::lint::near_duplicate::profile;

    #[test]
    fn dated_series_are_names_equal_but_for_their_dates() {
        assert!(dated_series("worklog/2026-11-12", "worklog/2026-11-13"));
        assert!(dated_series("Daily Worklog - 2026-11-12", "Daily Worklog - 2026-11-30"));
        assert!(dated_series("standup-20261112", "standup-20261113"));
        assert!(!dated_series("worklog/2026-11-12", "worklog/2026-11-12"), "one entry");
        assert!(!dated_series("2026-11-12-use-postgres", "2026-11-13-use-sqlite"), "dated records of two subjects");
        assert!(!dated_series("metrics/revenue", "metrics/revenue-ytd"), "no date");
        assert!(
            !dated_series(
                "2026-08-09: Prefer pnpm over npm in the web projects",
                "2026-08-11: Prefer pnpm over npm in the web projects"
            ),
            "one fact learned on two days"
        );
    }

    #[test]
    fn siblings_share_a_skeleton_and_differ_in_their_slots() {
        let frame = |who: &str, rule: &str| {
            format!(
                "Builds an audience of {who} users, defined as users who have logged at least one event {rule}.\n\
                 This reference describes a query pattern and does not map to a single database schema.\n\
                 SELECT COUNT(DISTINCT user_id) AS {who}_users_count FROM events WHERE event_params.key = 'engagement' AND {rule}"
            )
        };
        let texts = [
            frame("frequently active", "on 4 of the last 10 days"),
            frame("highly active", "with engagement above the 90th percentile"),
            "Parse EXIF metadata with Pillow: exiftool is not installed in the sandbox.".to_string(),
            "Read image EXIF tags using Pillow since the sandbox lacks exiftool entirely.".to_string(),
        ];
        let profiles: Vec<_> = texts.iter().map(|t| profile(t)).collect();
        let rarity = Rarity::new(&profiles);
        assert!(template_siblings(&texts[0], &texts[1], &rarity, 0.2));
        assert!(!template_siblings(&texts[2], &texts[3], &rarity, 0.2), "a paraphrase shares no skeleton");
        assert!(!template_siblings(&texts[0], &texts[0], &rarity, 0.2), "a copy fills the slots alike");
    }
}
