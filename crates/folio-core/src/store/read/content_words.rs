//! What the near-duplicate rule keeps of a text: its content words as stem hashes, each with
//! the weight of where it occurs (`Profile`). Here, beside the tokeniser, so the load can make
//! the profiles while it holds each file's bytes (`Reads::EntitiesAndProfiles`) instead of a
//! term table the rule would turn into profiles afterwards (docs/benchmarks.md, "Lint without
//! the cache, eighth session"); `lint::near_duplicate` compares them.
use super::body_text;

/// What a word inside fenced code weighs against one in prose.
pub const CODE_WEIGHT: f32 = 0.3;

/// One entity's content words: (word hash, weight before rarity), sorted by hash.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    pub words: Vec<(u32, f32)>,
}

impl Profile {
    /// The profile of words met as (stem hash, weight), in any order and repeated: the heavier
    /// weight of each hash, sorted by hash (words sharing a stem meet).
    pub fn of_weighed(mut words: Vec<(u32, f32)>) -> Profile {
        words.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        words.dedup_by_key(|w| w.0);
        Profile { words }
    }
}

/// Whether a word counts as content: no stopwords, no bare numbers, no one-letter words.
pub fn is_content(w: &str) -> bool {
    !(w.len() < 2 || body_text::is_stopword(w) || w.bytes().all(|b| b.is_ascii_digit()))
}

/// A crude English stem, enough that paraphrases meet: `installed`/`install`/`installing`,
/// `images`/`image`, `failed`/`fail`. Words shorter than six letters stay whole.
pub fn stem(w: &str) -> &str {
    if w.len() < 6 || !w.is_ascii() {
        return w;
    }
    for suffix in ["ing", "ed", "es", "s", "ly"] {
        if let Some(s) = w.strip_suffix(suffix)
            && s.len() >= 4
        {
            return s;
        }
    }
    w
}

/// FNV-1a: stable across runs, so findings never depend on a random seed.
pub fn word_hash(w: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in w.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The hash a (lower-case) word goes into a profile under, `None` when it is no content word.
pub fn profile_hash(w: &str) -> Option<u32> {
    is_content(w).then(|| word_hash(stem(w)))
}
