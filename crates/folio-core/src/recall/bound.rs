//! Upper bounds of nucleo's fuzzy score, cheap enough to skip most exact scores: the ranking
//! only needs the exact score of items that can reach the best `worker::TOP`, every other match
//! only has to be found (for the count) and carry a bound (scored if the list is ever scrolled
//! that far). Two bounds, from cheapest:
//! - `quick`, from a per-item `Sketch` (which letters and digits start a word, which pairs of
//!   characters start one, which appear near the start): no look at the haystack;
//! - `relaxed`, nucleo's own optimal-alignment recurrence over the occurrences of the needle's
//!   characters only, with its two context-dependent terms (the prefix bonus, a gap's length)
//!   replaced by their largest values: usually the exact score, at a fraction of the cost.
//!
//! Both follow nucleo-matcher 0.3's scoring (score.rs, fuzzy_optimal.rs) for ASCII haystacks
//! and needles with `rank::config()`; `tests` check them against nucleo on random haystacks and
//! `engine::tests` check the rankings they produce against full scoring.
use nucleo::Utf32Str;
use nucleo::pattern::{AtomKind, Pattern};

const SCORE_MATCH: u32 = 16;
const PENALTY_GAP_START: i32 = 3;
const BONUS_BOUNDARY: u32 = 8;
const BONUS_BOUNDARY_WHITE: u32 = BONUS_BOUNDARY + 2;
const BONUS_BOUNDARY_DELIMITER: u32 = BONUS_BOUNDARY + 1;
const BONUS_CAMEL123: u32 = BONUS_BOUNDARY - 3;
const BONUS_CONSECUTIVE: u32 = 4;
const BONUS_FIRST_CHAR_MULTIPLIER: u32 = 2;
/// `prefer_prefix`: a first character at position `p` earns at most `(16 - p) / 2`.
const PREFIX_REACH: usize = 16;
const MAX_PREFIX_BONUS: u32 = 8;
/// Upper bound of one more matched character: a match plus the largest bonus.
const MAX_CHAR: u32 = SCORE_MATCH + BONUS_BOUNDARY_WHITE;

/// nucleo's character classes for ASCII, in its order (`Letter` is never ASCII).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Whitespace,
    NonWord,
    Delimiter,
    Lower,
    Upper,
    Number,
}

fn class(c: u8) -> Class {
    match c {
        b'a'..=b'z' => Class::Lower,
        b'A'..=b'Z' => Class::Upper,
        b'0'..=b'9' => Class::Number,
        // The default config's delimiters.
        b'/' | b',' | b':' | b';' | b'|' => Class::Delimiter,
        _ if c.is_ascii_whitespace() => Class::Whitespace,
        _ => Class::NonWord,
    }
}

/// nucleo's `bonus_for`: what matching a character of class `cur` after one of class `prev` earns.
fn bonus_for(prev: Class, cur: Class) -> u32 {
    if cur > Class::Delimiter {
        match prev {
            Class::Whitespace => return BONUS_BOUNDARY_WHITE,
            Class::Delimiter => return BONUS_BOUNDARY_DELIMITER,
            Class::NonWord => return BONUS_BOUNDARY,
            _ => {}
        }
    }
    if (prev == Class::Lower && cur == Class::Upper) || (prev != Class::Number && cur == Class::Number) {
        BONUS_CAMEL123
    } else if cur == Class::Whitespace {
        BONUS_BOUNDARY_WHITE
    } else if cur == Class::NonWord {
        BONUS_BOUNDARY
    } else {
        0
    }
}

/// The bonus of position `p` (the start counts as after whitespace).
fn bonus_at(hay: &[u8], p: usize) -> u32 {
    let prev = if p == 0 { Class::Whitespace } else { class(hay[p - 1]) };
    bonus_for(prev, class(hay[p]))
}

/// A letter's or digit's bit in a sketch mask (letters case-folded); other characters have none
/// and are bounded by the largest bonus.
fn bit(c: u8) -> Option<u64> {
    match c {
        b'a'..=b'z' => Some(1 << (c - b'a')),
        b'A'..=b'Z' => Some(1 << (c - b'A')),
        b'0'..=b'9' => Some(1 << (26 + c - b'0')),
        _ => None,
    }
}

fn pair_bit(a: u8, b: u8) -> u64 {
    let h = (a.to_ascii_lowercase() as u32).wrapping_mul(31).wrapping_add(b.to_ascii_lowercase() as u32);
    1 << (h.wrapping_mul(0x9E37_79B1) >> 26)
}

/// What `quick` knows of a haystack: 48 bytes per item, built once with it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sketch {
    /// Letters and digits at a word start (bonus ≥ 8).
    strong: u64,
    /// Letters and digits with a camel-case or digit bonus (5).
    camel: u64,
    /// Letters and digits at positions 1..16 (where a first match still earns a prefix bonus).
    near: u64,
    /// The same, at a word start.
    near_strong: u64,
    /// Pairs (a word-starting character, the next one), hashed into 64 bits.
    pairs: u64,
    /// The first character, lower-cased.
    first: u8,
}

impl Sketch {
    pub fn new(hay: Utf32Str<'_>) -> Sketch {
        let Utf32Str::Ascii(hay) = hay else { return Sketch::default() };
        let mut s = Sketch { first: hay.first().map_or(0, u8::to_ascii_lowercase), ..Sketch::default() };
        for (p, &c) in hay.iter().enumerate() {
            let Some(b) = bit(c) else { continue };
            let bonus = bonus_at(hay, p);
            let near = (1..PREFIX_REACH).contains(&p);
            if bonus >= BONUS_BOUNDARY {
                s.strong |= b;
                if near {
                    s.near_strong |= b;
                }
                if let Some(&next) = hay.get(p + 1) {
                    s.pairs |= pair_bit(c, next);
                }
            } else if bonus > 0 {
                s.camel |= b;
            }
            if near {
                s.near |= b;
            }
        }
        s
    }

    fn has(mask: u64, c: u8) -> bool {
        bit(c).is_none_or(|b| mask & b != 0)
    }

    /// The largest bonus `c` can earn anywhere in the haystack.
    fn max_bonus(&self, c: u8) -> u32 {
        match bit(c) {
            None => BONUS_BOUNDARY_WHITE,
            Some(b) if self.strong & b != 0 => BONUS_BOUNDARY_WHITE,
            Some(b) if self.camel & b != 0 => BONUS_CAMEL123,
            Some(_) => 0,
        }
    }
}

/// One word of the query, as the bounds need it.
#[derive(Debug, Clone)]
struct Needle {
    bytes: Vec<u8>,
    ignore_case: bool,
}

/// The bounds of one pattern: `None` from `new` unless every word is a plain (not negated)
/// fuzzy one with an ASCII needle.
#[derive(Debug, Clone)]
pub struct Bounds {
    needles: Vec<Needle>,
}

/// Reusable scratch space for `relaxed` (one per thread).
#[derive(Default)]
pub struct Scratch {
    prev: Vec<Cell>,
    cur: Vec<Cell>,
}

/// A needle character's occurrence: its position, an upper bound of the best alignment of the
/// needle so far ending there, and of the consecutive bonus that alignment carries.
#[derive(Debug, Clone, Copy)]
struct Cell {
    at: u32,
    score: i32,
    consecutive: u32,
}

impl Bounds {
    pub fn new(pattern: &Pattern) -> Option<Bounds> {
        let needles = pattern
            .atoms
            .iter()
            .map(|a| match a.needle_text() {
                Utf32Str::Ascii(n) if !a.negative && a.kind == AtomKind::Fuzzy && !n.is_empty() => {
                    Some(Needle { bytes: n.to_vec(), ignore_case: !n.iter().any(u8::is_ascii_uppercase) })
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        (!needles.is_empty()).then_some(Bounds { needles })
    }

    pub fn words(&self) -> usize {
        self.needles.len()
    }

    /// The haystack as ASCII bytes, if the bounds hold for it: ASCII and longer than every
    /// needle (a needle as long as the haystack takes nucleo's exact-match path).
    pub fn haystack<'a>(&self, hay: Utf32Str<'a>) -> Option<&'a [u8]> {
        match hay {
            Utf32Str::Ascii(h) if self.needles.iter().all(|n| n.bytes.len() < h.len()) => Some(h),
            _ => None,
        }
    }

    /// Whether word `w` matches: for an ASCII needle and haystack nucleo's fuzzy match succeeds
    /// exactly when the needle is a subsequence (ignoring ASCII case unless it has a capital).
    pub fn matches(&self, w: usize, hay: &[u8]) -> bool {
        let n = &self.needles[w];
        let mut rest = hay;
        n.bytes.iter().all(|&c| find(c, rest, n.ignore_case).map(|i| rest = &rest[i + 1..]).is_some())
    }

    /// Upper bound of word `w`'s score from the sketch alone (the word matches).
    pub fn quick(&self, w: usize, sketch: &Sketch) -> u32 {
        let n = &self.needles[w].bytes;
        let c0 = n[0];
        if n.len() == 1 {
            // nucleo scores one character without the prefix bonus.
            return SCORE_MATCH + BONUS_FIRST_CHAR_MULTIPLIER * sketch.max_bonus(c0);
        }
        let first = c0.to_ascii_lowercase();
        if bit(c0).is_none() {
            return SCORE_MATCH
                + BONUS_FIRST_CHAR_MULTIPLIER * BONUS_BOUNDARY_WHITE
                + MAX_PREFIX_BONUS
                + MAX_CHAR * (n.len() as u32 - 1);
        }
        let c1 = n[1];
        let rest = |mut cap: u32| -> u32 {
            n[1..]
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    cap = cap.max(sketch.max_bonus(c));
                    // The second character's own term is counted by the caller.
                    if i == 0 { 0 } else { SCORE_MATCH + cap }
                })
                .sum()
        };
        // A gapped second character: its own bonus, less the gap's opening penalty.
        let gapped = SCORE_MATCH + sketch.max_bonus(c1) - PENALTY_GAP_START as u32;
        // The first character at a word start (bonus ≤ 10)…
        let at_start = Sketch::has(sketch.strong, c0).then(|| {
            let prefix = if sketch.first == first {
                MAX_PREFIX_BONUS
            } else if Sketch::has(sketch.near_strong, c0) {
                MAX_PREFIX_BONUS - 1
            } else {
                0
            };
            let next = if sketch.pairs & pair_bit(c0, c1) != 0 { MAX_CHAR } else { gapped };
            SCORE_MATCH
                + BONUS_FIRST_CHAR_MULTIPLIER * BONUS_BOUNDARY_WHITE
                + prefix
                + next
                + rest(BONUS_BOUNDARY_WHITE)
        });
        // …or inside a word (bonus ≤ 5, never at position 0, which is a word start).
        let bonus = if Sketch::has(sketch.camel, c0) { BONUS_CAMEL123 } else { 0 };
        let prefix = if Sketch::has(sketch.near, c0) { MAX_PREFIX_BONUS - 1 } else { 0 };
        // Right after a letter or digit, a letter or digit earns at most the camel bonus.
        let adjacent = SCORE_MATCH + if bit(c1).is_some() { BONUS_CAMEL123 } else { BONUS_BOUNDARY_WHITE };
        let inside = SCORE_MATCH
            + BONUS_FIRST_CHAR_MULTIPLIER * bonus
            + prefix
            + adjacent.max(gapped)
            + rest(bonus.max(BONUS_CONSECUTIVE));
        at_start.map_or(inside, |s| s.max(inside))
    }

    /// Upper bound of word `w`'s score: nucleo's recurrence over the needle characters'
    /// occurrences, with the prefix bonus and gap lengths at their most favourable. `None`
    /// when the word does not match. Words of one character are left to nucleo (exact and cheap).
    pub fn relaxed(&self, w: usize, hay: &[u8], scratch: &mut Scratch) -> Option<u32> {
        let Needle { bytes: n, ignore_case } = &self.needles[w];
        let ic = *ignore_case;
        let Scratch { prev, cur } = scratch;
        prev.clear();
        // First row: every occurrence where the rest of the needle still fits.
        let limit = hay.len() + 1 - n.len();
        let mut at = 0;
        while at < limit
            && let Some(i) = find(n[0], &hay[at..limit], ic)
        {
            let p = at + i;
            at = p + 1;
            let bonus = bonus_at(hay, p);
            let prefix = (PREFIX_REACH.saturating_sub(p) / 2) as u32;
            let score = (SCORE_MATCH + BONUS_FIRST_CHAR_MULTIPLIER * bonus + prefix) as i32;
            prev.push(Cell { at: p as u32, score, consecutive: bonus });
        }
        for &c in &n[1..] {
            cur.clear();
            let mut at = prev.first()?.at as usize + 1;
            // Best `score + at` over the previous row's cells at least two columns back: a gap
            // from cell q' to column q costs at least 1 + (q - q') (nucleo: 3, then 1 per column).
            let (mut next_gapped, mut gapped) = (0, i32::MIN);
            let mut next_adjacent = 0;
            while let Some(i) = find(c, &hay[at..], ic) {
                let q = at + i;
                at = q + 1;
                while next_gapped < prev.len() && prev[next_gapped].at as usize + 2 <= q {
                    gapped = gapped.max(prev[next_gapped].score + prev[next_gapped].at as i32);
                    next_gapped += 1;
                }
                let bonus = bonus_at(hay, q);
                let (mut score, mut consecutive) = (i32::MIN, bonus);
                if gapped != i32::MIN {
                    score = (gapped - 1 - q as i32).max(0) + (bonus + SCORE_MATCH) as i32;
                }
                while next_adjacent < prev.len() && (prev[next_adjacent].at as usize) + 1 < q {
                    next_adjacent += 1;
                }
                if let Some(p) = prev.get(next_adjacent).filter(|p| p.at as usize + 1 == q) {
                    let run = p.consecutive.max(BONUS_CONSECUTIVE).max(bonus);
                    score = score.max(p.score + (SCORE_MATCH + run) as i32);
                    consecutive = run;
                }
                if score != i32::MIN {
                    cur.push(Cell { at: q as u32, score, consecutive });
                }
            }
            std::mem::swap(prev, cur);
        }
        prev.iter().map(|c| c.score.max(0) as u32).max()
    }

    pub fn single_char(&self, w: usize) -> bool {
        self.needles[w].bytes.len() == 1
    }
}

fn find(c: u8, hay: &[u8], ignore_case: bool) -> Option<usize> {
    if ignore_case && c.is_ascii_lowercase() {
        memchr::memchr2(c, c.to_ascii_uppercase(), hay)
    } else {
        memchr::memchr(c, hay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nucleo::{Matcher, Utf32String};

    /// A deterministic generator (no dependency for a test).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick(&mut self, from: &[u8]) -> u8 {
            from[(self.next() % from.len() as u64) as usize]
        }
    }

    /// Haystacks and needles over a small alphabet with every character class, so matches,
    /// word starts, camel case, digits, delimiters and long gaps all occur often.
    #[test]
    fn bounds_hold_and_match_agrees_with_nucleo() {
        let alphabet = b"aabbcdeeeegrsmAGRBC019  /|:-_#.xq";
        let mut rng = Rng(0x5eed);
        let mut matcher = Matcher::new(crate::recall::rank::config());
        let (mut tight, mut total) = (0, 0);
        for round in 0..6_000 {
            let len = 1 + (rng.next() % if round % 3 == 0 { 60 } else { 260 }) as usize;
            let hay: String = (0..len).map(|_| rng.pick(alphabet) as char).collect();
            let hay32 = Utf32String::from(hay.as_str());
            let sketch = Sketch::new(hay32.slice(..));
            for _ in 0..8 {
                let words = 1 + rng.next() % 3;
                let query: Vec<String> = (0..words)
                    .map(|_| (0..1 + rng.next() % 5).map(|_| rng.pick(b"abcegrsmAGR019-_#.x") as char).collect())
                    .collect();
                let query = query.join(" ");
                let pattern = crate::recall::rank::pattern(&query);
                let Some(bounds) = Bounds::new(&pattern) else { continue };
                let Some(h) = bounds.haystack(hay32.slice(..)) else { continue };
                let mut scratch = Scratch::default();
                for (w, atom) in pattern.atoms.iter().enumerate() {
                    let exact = atom.score(hay32.slice(..), &mut matcher);
                    assert_eq!(bounds.matches(w, h), exact.is_some(), "{query:?} word {w} on {hay:?}");
                    let Some(exact) = exact.map(u32::from) else { continue };
                    let quick = bounds.quick(w, &sketch);
                    assert!(quick >= exact, "quick {quick} < {exact}: {query:?} word {w} on {hay:?}");
                    if !bounds.single_char(w) {
                        let relaxed = bounds.relaxed(w, h, &mut scratch).expect("a match");
                        assert!(relaxed >= exact, "relaxed {relaxed} < {exact}: {query:?} word {w} on {hay:?}");
                        total += 1;
                        tight += usize::from(relaxed == exact);
                    }
                }
            }
        }
        assert!(total > 10_000, "enough matching words were tried ({total})");
        // Not a correctness property, but the point of the relaxed bound.
        assert!(tight * 2 > total, "the relaxed bound is mostly exact ({tight} of {total})");
    }

    #[test]
    fn only_plain_fuzzy_ascii_words_are_bounded() {
        let b = |q: &str| Bounds::new(&crate::recall::rank::pattern(q)).map(|b| b.words());
        assert_eq!(b("gross ma"), Some(2));
        assert_eq!(b("gross !ma"), None);
        assert_eq!(b("'gross"), None);
        assert_eq!(b("^gr"), None);
        assert_eq!(b("grüß"), None);
    }
}
