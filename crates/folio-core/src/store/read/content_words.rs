//! What the near-duplicate rule keeps of a text: its content words as stem hashes, each with
//! the weight of where it occurs (`Profile`). Here, beside the tokeniser, so the load can make
//! the profiles while it holds each file's bytes (`Reads::EntitiesAndProfiles`) instead of a
//! term table the rule would turn into profiles afterwards (docs/benchmarks.md, "Lint without
//! the cache, eighth session"); `lint::near_duplicate` compares them.
use super::body_text;

/// What a word inside fenced code weighs against one in prose.
pub const CODE_WEIGHT: f32 = 0.3;

/// One entity's content words as stem hashes, sorted, each once, with the weight of where it
/// occurs: 1, or `CODE_WEIGHT` for a word met only inside fenced code. A hash and a bit per
/// word, where (hash, weight) pairs took twice the memory: the profiles of every entity are
/// held through a lint of the whole store (docs/benchmarks.md, "Thirty-sixth session").
#[derive(Debug, Clone, Default, PartialEq, Hash)]
pub struct Profile {
    hashes: Box<[u32]>,
    /// Bit `i % 32` of entry `i / 32` set: word `i` weighs `CODE_WEIGHT`. Empty when none does.
    code: Box<[u32]>,
}

impl Profile {
    /// The profile of words met as (stem hash, weight), in any order and repeated: the heavier
    /// weight of each hash, sorted by hash (words sharing a stem meet).
    pub fn of_weighed(mut words: Vec<(u32, f32)>) -> Profile {
        words.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        words.dedup_by_key(|w| w.0);
        Profile::of_sorted(words.into_iter().map(|(h, w)| (h, w != 1.0)))
    }

    /// The profile of words sorted by hash, each given once with whether it weighs
    /// `CODE_WEIGHT`.
    pub fn of_sorted(words: impl ExactSizeIterator<Item = (u32, bool)>) -> Profile {
        let mut hashes = Vec::with_capacity(words.len());
        let mut code = vec![0u32; words.len().div_ceil(32)];
        for (i, (h, in_code)) in words.enumerate() {
            hashes.push(h);
            code[i / 32] |= u32::from(in_code) << (i % 32);
        }
        let code = if code.iter().any(|&bits| bits != 0) { code.into_boxed_slice() } else { Box::default() };
        Profile { hashes: hashes.into_boxed_slice(), code }
    }

    /// The word hashes, sorted.
    pub fn hashes(&self) -> &[u32] {
        &self.hashes
    }

    /// The weight of word `i` (of `hashes`).
    pub fn weight(&self, i: usize) -> f32 {
        match self.code.get(i / 32) {
            Some(bits) if bits >> (i % 32) & 1 == 1 => CODE_WEIGHT,
            _ => 1.0,
        }
    }

    /// Each word as (hash, weight), in hash order.
    pub fn words(&self) -> impl ExactSizeIterator<Item = (u32, f32)> + '_ {
        self.hashes.iter().enumerate().map(|(i, &h)| (h, self.weight(i)))
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_keeps_each_words_weight_past_the_first_bits() {
        let code_at = [0, 31, 32, 69];
        // Out of order, repeated, a code word also met in prose (it weighs 1).
        let mut met: Vec<(u32, f32)> = (0..70u32)
            .rev()
            .map(|i| (i * 3, if code_at.contains(&(i as usize)) { CODE_WEIGHT } else { 1.0 }))
            .collect();
        met.push((5 * 3, CODE_WEIGHT));
        met.push((31 * 3, CODE_WEIGHT));
        let p = Profile::of_weighed(met);
        assert_eq!(p.len(), 70);
        assert_eq!(p.hashes(), (0..70).map(|i| i * 3).collect::<Vec<_>>());
        for (i, (h, w)) in p.words().enumerate() {
            assert_eq!(h, i as u32 * 3);
            let want = if code_at.contains(&i) { CODE_WEIGHT } else { 1.0 };
            assert_eq!(w, want, "word {i}");
        }
        let prose = Profile::of_weighed(vec![(2, 1.0), (1, 1.0)]);
        assert!(prose.code.is_empty(), "no bits kept where no word is code's");
        assert_eq!(prose, Profile::of_sorted([(1, false), (2, false)].into_iter()));
    }
}
