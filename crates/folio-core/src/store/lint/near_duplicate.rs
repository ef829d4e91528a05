//! `near-duplicate`: groups of entities whose texts (title, description, body) say nearly the
//! same thing in other words. Each text becomes a set of content words, weighted by how rare
//! they are in the store (words every entry shares, boilerplate and template headings, weigh
//! next to nothing) and down-weighted inside fenced code; two texts are near-duplicates when
//! their weighted Jaccard similarity reaches the threshold (`[lint.near-duplicate]`).
//! Candidate pairs come from all pairs in a small store, from MinHash banding (LSH) in a large
//! one, so the whole store is compared in about one pass over the bodies.
use std::collections::HashMap;

/// foldhash: keys are word hashes and entity numbers, not attacker-chosen table keys.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

use rayon::prelude::*;

use super::Finding;
use crate::store::Store;
use crate::store::model::entity::{EntityIdx, Severity};
use crate::store::read::body_text;
use crate::store::read::content::{Content, IN_CODE, IN_PROSE};
pub use crate::store::read::content_words::{CODE_WEIGHT, Profile, is_content, stem, word_hash};

pub const RULE: &str = "near-duplicate";

/// The similarity from which two texts are near-duplicates when the config sets none.
pub const DEFAULT_THRESHOLD: f64 = 0.2;
/// From this similarity two texts are reported as (near-)exact copies.
pub const NEAR_EXACT: f64 = 0.9;
/// Up to this many entities every pair is compared; beyond, candidates come from LSH.
pub(crate) const ALL_PAIRS_UP_TO: usize = 600;
/// MinHash bins (one-permutation hashing) and how they are banded.
const BINS: usize = 64;
const ROWS: usize = 4;
pub(crate) const BANDS: usize = BINS / ROWS;
/// A band bucket holding more entities than this is boilerplate every entry shares: skipped.
pub(crate) const MAX_BUCKET: usize = 32;
/// Fewer shared words than this (boilerplate aside) is chance, not duplication.
const MIN_SHARED: usize = 4;
/// Fewer content words than this: too little text to call anything a duplicate.
pub(crate) const MIN_WORDS: usize = 5;

/// Content words of `text`: no stopwords, no bare numbers, one-letter words dropped; a word
/// weighs `CODE_WEIGHT` when it only occurs inside fenced code.
pub fn profile(text: &str) -> Profile {
    let mut words: FastMap<u32, f32> = FastMap::default();
    let mut in_code = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        let weight = if in_code { CODE_WEIGHT } else { 1.0 };
        for (_, w) in body_text::words(line) {
            if !is_content(&w) {
                continue;
            }
            let slot = words.entry(word_hash(stem(&w))).or_insert(0.0);
            *slot = slot.max(weight);
        }
    }
    let mut words: Vec<(u32, f32)> = words.into_iter().collect();
    words.sort_unstable_by_key(|&(h, _)| h);
    Profile::of_sorted(words.into_iter().map(|(h, w)| (h, w != 1.0)))
}

/// The stems of `text`'s content words, as a near-duplicate pair is compared on them: what two
/// texts share is their overlap (the review shows it highlighted side by side).
pub fn content_stems(text: &str) -> std::collections::HashSet<String> {
    body_text::words(text).filter(|(_, w)| is_content(w)).map(|(_, w)| stem(&w).to_string()).collect()
}

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A word in more than this share of the texts (and more than `BOILERPLATE_MIN` of them) is
/// boilerplate (template headings, the store's own vocabulary): it weighs nothing. In a large
/// store a word in more than `BOILERPLATE_MAX` texts tells no pair apart either, and banding on
/// it would make most entities candidates of each other.
const BOILERPLATE_SHARE: f32 = 0.1;
const BOILERPLATE_MIN: f32 = 4.0;
const BOILERPLATE_MAX: f32 = 500.0;

/// Rarity weights: `ln(1 + n / df)`, so a word in two of ten thousand texts weighs about 8.5;
/// boilerplate words weigh 0.
pub struct Rarity {
    df: FastMap<u32, u32>,
    n: f32,
}

impl Rarity {
    pub fn new(profiles: &[Profile]) -> Rarity {
        let mut df: FastMap<u32, u32> = FastMap::default();
        for p in profiles {
            for &h in p.hashes() {
                *df.entry(h).or_default() += 1;
            }
        }
        Rarity { df, n: profiles.len() as f32 }
    }

    pub(crate) fn weight(&self, h: u32) -> f32 {
        let df = self.df.get(&h).copied().unwrap_or(1);
        if !self.weighs(df) {
            return 0.0;
        }
        (1.0 + self.n / df.max(1) as f32).ln()
    }

    /// Whether a word of this document frequency weighs anything (is not boilerplate).
    pub(crate) fn weighs(&self, df: u32) -> bool {
        df.max(1) as f32 <= self.boilerplate()
    }

    /// The document frequency above which a word is boilerplate.
    fn boilerplate(&self) -> f32 {
        (self.n * BOILERPLATE_SHARE).clamp(BOILERPLATE_MIN, BOILERPLATE_MAX)
    }

    pub(crate) fn df(&self, h: u32) -> u32 {
        self.df.get(&h).copied().unwrap_or(0)
    }

    /// Whether a word of this document frequency goes into signatures: some other text shares
    /// it and it is not boilerplate.
    pub(crate) fn banded(&self, df: u32) -> bool {
        (2..=self.boilerplate() as u32).contains(&df)
    }

    /// Count one text's words in (`add`) or out, as `new` would over the changed texts (a live
    /// reload's relint keeps the table instead of building it again).
    pub(crate) fn count(&mut self, words: impl Iterator<Item = u32>, add: bool) {
        for h in words {
            if add {
                *self.df.entry(h).or_default() += 1;
            } else if let Some(c) = self.df.get_mut(&h) {
                *c -= 1;
                if *c == 0 {
                    self.df.remove(&h);
                }
            }
        }
    }
}

/// Weighted Jaccard similarity of two profiles (0 to 1); 0 when they share fewer than
/// `MIN_SHARED` words that are not boilerplate (two or three words in common by chance make
/// no duplicate, however short the texts).
pub fn similarity(a: &Profile, b: &Profile, rarity: &Rarity) -> f64 {
    let (mut shared, mut union) = (0f64, 0f64);
    let mut common = 0;
    let (mut i, mut j) = (0, 0);
    let (ha, hb) = (a.hashes(), b.hashes());
    while i < ha.len() || j < hb.len() {
        let (x, y) = (ha.get(i).map(|&h| (h, a.weight(i))), hb.get(j).map(|&h| (h, b.weight(j))));
        match (x, y) {
            (Some((hx, wx)), Some((hy, wy))) if hx == hy => {
                let r = f64::from(rarity.weight(hx));
                common += usize::from(r > 0.0);
                shared += r * f64::from(wx.min(wy));
                union += r * f64::from(wx.max(wy));
                i += 1;
                j += 1;
            }
            (Some((hx, wx)), Some((hy, _))) if hx < hy => {
                union += f64::from(rarity.weight(hx) * wx);
                i += 1;
            }
            (Some((hx, wx)), None) => {
                union += f64::from(rarity.weight(hx) * wx);
                i += 1;
            }
            (_, Some((hy, wy))) => {
                union += f64::from(rarity.weight(hy) * wy);
                j += 1;
            }
            (None, None) => break,
        }
    }
    if union == 0.0 || common < MIN_SHARED { 0.0 } else { shared / union }
}

/// One-permutation MinHash of the profile's words that some other text shares and that are not
/// boilerplate (those decide nothing), with empty bins filled from their right neighbour.
fn signature(p: &Profile, rarity: &Rarity) -> Option<[u64; BINS]> {
    let mut bins = [u64::MAX; BINS];
    let mut any = false;
    for &h in p.hashes() {
        if !rarity.banded(rarity.df(h)) {
            continue;
        }
        let x = mix(u64::from(h));
        let bin = (x % BINS as u64) as usize;
        bins[bin] = bins[bin].min(x / BINS as u64);
        any = true;
    }
    if !any {
        return None;
    }
    for k in 0..BINS {
        let mut step = 1;
        while bins[k] == u64::MAX {
            let from = bins[(k + step) % BINS];
            if from != u64::MAX {
                bins[k] = mix(from ^ step as u64);
            }
            step += 1;
        }
    }
    Some(bins)
}

/// Candidate pairs (i < j) by LSH: entities that agree on every bin of some band. Each text
/// keeps only its band keys (128 bytes, not its 64-bin signature), and each band's buckets are
/// runs of one sorted array of (key, entity), not a map of vectors: no allocation per bucket
/// and far fewer fresh pages (docs/benchmarks.md, "Lint without the cache, eighth session").
fn lsh_candidates(profiles: &[Profile], rarity: &Rarity) -> Vec<(u32, u32)> {
    let keys: Vec<Option<[u64; BANDS]>> = profiles.par_iter().map(|p| band_keys(p, rarity)).collect();
    let per_band: Vec<Vec<(u32, u32)>> = (0..BANDS)
        .into_par_iter()
        .map(|band| {
            let mut keyed: Vec<(u64, u32)> =
                keys.iter().enumerate().filter_map(|(i, k)| k.map(|k| (k[band], i as u32))).collect();
            keyed.sort_unstable();
            let mut pairs = Vec::new();
            for members in keyed.chunk_by(|x, y| x.0 == y.0).filter(|m| m.len() > 1 && m.len() <= MAX_BUCKET) {
                for (k, &(_, a)) in members.iter().enumerate() {
                    pairs.extend(members[k + 1..].iter().map(|&(_, b)| (a, b)));
                }
            }
            pairs
        })
        .collect();
    let mut all: Vec<(u32, u32)> = per_band.into_iter().flatten().collect();
    all.par_sort_unstable();
    all.dedup();
    all
}

/// A text's LSH bucket key in `band`.
fn band_key(s: &[u64; BINS], band: usize) -> u64 {
    s[band * ROWS..(band + 1) * ROWS].iter().fold(band as u64, |acc, &v| mix(acc ^ v))
}

/// A text's bucket key in every band; `None` when it has no signature (no word another text shares).
pub(crate) fn band_keys(p: &Profile, rarity: &Rarity) -> Option<[u64; BANDS]> {
    let s = signature(p, rarity)?;
    Some(std::array::from_fn(|band| band_key(&s, band)))
}

/// Every pair of entities whose similarity reaches `threshold`, with it; pairs in index order.
pub fn pairs(profiles: &[Profile], threshold: f64) -> Vec<(u32, u32, f64)> {
    pairs_by(profiles, &Rarity::new(profiles), threshold)
}

pub(crate) fn pairs_by(profiles: &[Profile], rarity: &Rarity, threshold: f64) -> Vec<(u32, u32, f64)> {
    let usable = |i: u32| profiles[i as usize].len() >= MIN_WORDS;
    let candidates: Vec<(u32, u32)> = if profiles.len() <= ALL_PAIRS_UP_TO {
        let n = profiles.len() as u32;
        (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect()
    } else {
        lsh_candidates(profiles, rarity)
    };
    candidates
        .into_par_iter()
        .filter(|&(a, b)| usable(a) && usable(b))
        .filter_map(|(a, b)| {
            let s = similarity(&profiles[a as usize], &profiles[b as usize], rarity);
            (s >= threshold).then_some((a, b, s))
        })
        .collect()
}

/// The content profile of every entity (description and body) from the store's term table: each distinct word is judged, stemmed and
/// hashed once, not at every occurrence, and no body is read again.
pub fn profiles_from(content: &Content) -> Vec<Profile> {
    let hashes: Vec<Option<u32>> =
        content.words.par_iter().map(|w| is_content(w).then(|| word_hash(stem(w)))).collect();
    (0..content.len())
        .into_par_iter()
        .map(|i| {
            let words: Vec<(u32, f32)> = content
                .terms(i)
                .iter()
                .filter_map(|t| {
                    let weight = if t.places & IN_PROSE != 0 {
                        1.0
                    } else if t.places & IN_CODE != 0 {
                        CODE_WEIGHT
                    } else {
                        return None;
                    };
                    hashes[t.id as usize].map(|h| (h, weight))
                })
                .collect();
            Profile::of_weighed(words)
        })
        .collect()
}

/// The profiles of the entities `idxs` (in that order), their bodies read from disk.
pub fn profiles_of(store: &Store, idxs: &[EntityIdx]) -> Vec<Profile> {
    profiles_from(&Content::build_of(store, idxs))
}

/// The profile of every entity: those the load made while it read the files
/// (`Reads::EntitiesAndProfiles`), or every body read from disk.
pub fn all_profiles(store: &Store) -> Vec<Profile> {
    if let Some(made) = store.take_loaded_profiles() {
        return made;
    }
    profiles_from(&Content::build(store))
}

/// Groups of near-duplicates: connected pairs, members in index order, groups by first member.
pub fn groups(pairs: &[(u32, u32, f64)]) -> Vec<Vec<u32>> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    fn root(parent: &mut HashMap<u32, u32>, x: u32) -> u32 {
        let p = *parent.entry(x).or_insert(x);
        if p == x {
            return x;
        }
        let r = root(parent, p);
        parent.insert(x, r);
        r
    }
    for &(a, b, _) in pairs {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent.insert(ra.max(rb), ra.min(rb));
        }
    }
    let mut by_root: HashMap<u32, Vec<u32>> = HashMap::new();
    let members: Vec<u32> = parent.keys().copied().collect();
    for m in members {
        let r = root(&mut parent, m);
        by_root.entry(r).or_default().push(m);
    }
    let mut out: Vec<Vec<u32>> = by_root.into_values().collect();
    for g in &mut out {
        g.sort_unstable();
    }
    out.sort();
    out
}

/// How a pair is named in a finding: exact copies first.
pub fn label(similarity: f64) -> &'static str {
    if similarity >= 0.999 {
        "exact copy"
    } else if similarity >= NEAR_EXACT {
        "near-exact copy"
    } else {
        "near-duplicate"
    }
}

/// The findings: one per entity in a pair, naming the other entity and the similarity. Returns
/// the pairs too, for the contradiction rule.
/// `compared` says whether a pair (with its similarity) is one to report at all.
pub fn check(
    store: &Store,
    profiles: &[Profile],
    threshold: f64,
    compared: &(dyn Fn(u32, u32, f64, &Rarity) -> bool + Sync),
    out: &mut Vec<Finding>,
) -> Vec<(u32, u32, f64)> {
    let found = reported(store, profiles, threshold, compared);
    report(store, &found, out);
    found
}

/// The pairs `check` reports, in its order (most alike first): what a pass over an unchanged
/// store may take from the cache instead (`keep::cache::pairs`).
pub fn reported(
    store: &Store,
    profiles: &[Profile],
    threshold: f64,
    compared: &(dyn Fn(u32, u32, f64, &Rarity) -> bool + Sync),
) -> Vec<(u32, u32, f64)> {
    let rarity = Rarity::new(profiles);
    let found = pairs_by(profiles, &rarity, threshold);
    report_pairs(store, found, &rarity, compared)
}

/// `reported` from the pairs whose similarity reaches the threshold (any order): the pairs to
/// report, in `report`'s order.
pub(crate) fn report_pairs(
    store: &Store,
    mut found: Vec<(u32, u32, f64)>,
    rarity: &Rarity,
    compared: &(dyn Fn(u32, u32, f64, &Rarity) -> bool + Sync),
) -> Vec<(u32, u32, f64)> {
    found.retain(|&(a, b, s)| !cited(store, a, b, s));
    // Pairs alike in form only (`kinship`: two days of one log, two fillings of a template).
    found = found.into_par_iter().filter(|&(a, b, s)| compared(a, b, s, rarity)).collect();
    order(&mut found);
    found
}

/// Whether the pair is left alone because one of the two cites the other: an entity restating
/// the source it cites is a summary, not an accidental duplicate; only a (near-)exact copy of
/// its own source is still worth a word.
pub(crate) fn cited(store: &Store, a: u32, b: u32, s: f64) -> bool {
    s < NEAR_EXACT && (cites(store, a, b) || cites(store, b, a))
}

/// Pairs in `report`'s order: exact and near-exact copies first within an entity's findings.
pub(crate) fn order(pairs: &mut [(u32, u32, f64)]) {
    pairs.sort_by(|x, y| y.2.total_cmp(&x.2).then((x.0, x.1).cmp(&(y.0, y.1))));
}

/// The findings of the pairs `reported` gave: one per entity in a pair.
pub fn report(store: &Store, found: &[(u32, u32, f64)], out: &mut Vec<Finding>) {
    let groups = groups(found);
    let group_of: HashMap<u32, usize> =
        groups.iter().enumerate().flat_map(|(n, g)| g.iter().map(move |&m| (m, n))).collect();
    for &(a, b, s) in found {
        for (me, other) in [(a, b), (b, a)] {
            let o = store.entity(other);
            let size = group_of.get(&me).map_or(2, |&g| groups[g].len());
            let group = if size > 2 { format!("; one of a group of {size}") } else { String::new() };
            let mut f = Finding::on_entity(
                store,
                me,
                RULE,
                store.entity(me).line,
                1,
                format!(
                    "{} of `{}` ({}): {:.0}% weighted word overlap{group}; merge one into the other or tell them apart",
                    label(s),
                    o.id,
                    o.path,
                    s * 100.0
                ),
            );
            f.severity = if s >= NEAR_EXACT { Severity::Warn } else { f.severity };
            f.other = Some(other);
            out.push(f);
        }
    }
}

/// Whether entity `a` names `b` as its source, links to it or has an edge to it.
fn cites(store: &Store, a: u32, b: u32) -> bool {
    let (ea, eb) = (store.entity(a), store.entity(b));
    let names_b = |s: &str| {
        let s = s.trim_start_matches("./");
        s == eb.path || s == eb.id || s.strip_suffix(".md") == Some(eb.id.as_str())
    };
    ea.sources.iter().any(|s| names_b(s))
        || ea.links.iter().any(|l| matches!(l.resolution, crate::store::model::entity::Resolution::Entity(t) if t == b))
        || ea.edges.iter().any(|e| e.resolved == Some(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(a: &str, b: &str, others: &[&str]) -> f64 {
        let mut ps: Vec<Profile> = [a, b].iter().chain(others).map(|t| profile(t)).collect();
        let r = Rarity::new(&ps);
        let (pa, pb) = (ps.remove(0), ps.remove(0));
        similarity(&pa, &pb, &r)
    }

    #[test]
    fn shared_rare_words_make_texts_similar_and_shared_boilerplate_does_not() {
        let boiler = "## Rationale\nThis guideline was recorded by the agent during a session.";
        let a = format!("Parse EXIF metadata with Pillow before exiftool.\n{boiler}");
        let b = format!("Read the EXIF metadata using Pillow instead of exiftool.\n{boiler}");
        let c = format!("Push to GitHub over SSH when HTTPS credentials are missing.\n{boiler}");
        let others: Vec<String> = (0..20).map(|i| format!("Topic {i} word{i} thing{i}.\n{boiler}")).collect();
        let others: Vec<&str> = others.iter().map(String::as_str).collect();
        assert!(sim(&a, &b, &others) > 2.0 * DEFAULT_THRESHOLD, "{}", sim(&a, &b, &others));
        assert!(sim(&a, &c, &others) < 0.2, "{}", sim(&a, &c, &others));
        assert!((sim(&a, &a, &others) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn code_blocks_weigh_less_than_prose() {
        let prose = "install the pillow package and parse exif tags quickly";
        let code = "```\ninstall the pillow package and parse exif tags quickly\n```";
        let pp = profile(prose);
        let pc = profile(code);
        assert!(pp.words().all(|(_, w)| w == 1.0));
        assert!(pc.words().all(|(_, w)| w == CODE_WEIGHT));
        assert_eq!(pp.len(), pc.len());
    }

    #[test]
    fn lsh_finds_the_same_pairs_as_all_pairs_on_clear_duplicates() {
        let mut texts: Vec<String> = (0..ALL_PAIRS_UP_TO + 200)
            .map(|i| format!("entry {i} about alpha{} beta{} gamma{} delta{} epsilon{}", i, i * 3, i * 7, i + 1, i + 2))
            .collect();
        texts.push(texts[10].replace("entry", "note"));
        texts.push(texts[500].clone());
        let profiles: Vec<Profile> = texts.iter().map(|t| profile(t)).collect();
        let found = pairs(&profiles, 0.8);
        let got: Vec<(u32, u32)> = found.iter().map(|&(a, b, _)| (a, b)).collect();
        let n = texts.len() as u32;
        assert!(got.contains(&(10, n - 2)) && got.contains(&(500, n - 1)), "{got:?}");
    }

    #[test]
    fn profiles_from_the_term_table_equal_those_of_the_texts() {
        let texts = [
            "Installing Pillow: install pillow, installed PILLOW.\n```python\nimport exif  # 42\n```\nthe end",
            "~~~\ncode only words\n~~~\n",
            "a b 12 x9 über Überall",
            "",
        ];
        let content = Content::from_texts(texts.len(), |i| texts[i].to_string());
        let from_table = profiles_from(&content);
        for (i, t) in texts.iter().enumerate() {
            assert_eq!(from_table[i], profile(t), "{t:?}");
        }
        assert!(!from_table[0].is_empty() && from_table[3].is_empty());
    }

    /// The profiles the load makes while it reads (`Reads::EntitiesAndProfiles`) are those of
    /// the term table read back from disk afterwards, entity by entity, in every store of
    /// `stores_cutting_bodies` (bodies cut at a NUL, at the read limit, not UTF-8, CRLF, …).
    #[test]
    fn the_profiles_made_while_loading_are_those_read_afterwards() {
        use crate::store::Reads;
        use crate::store::read::content::tests::stores_cutting_bodies;
        let dir = tempfile::tempdir().unwrap();
        let (mut checked, mut words) = (0, 0);
        for (root, kind, reason) in stores_cutting_bodies(dir.path()) {
            let store = Store::load_with(&root, kind, reason, None, Reads::EntitiesAndProfiles);
            assert!(store.take_loaded_terms().is_none(), "no term table beside the profiles");
            let made = store.take_loaded_profiles().expect("the load made the profiles");
            assert!(store.take_loaded_profiles().is_none(), "the profiles are taken once");
            let all: Vec<EntityIdx> = (0..store.entities.len() as EntityIdx).collect();
            let read = profiles_from(&Content::build_of(&store, &all));
            assert_eq!(made.len(), read.len(), "{}", root.display());
            for (i, (m, r)) in made.iter().zip(&read).enumerate() {
                assert_eq!(m, r, "{}", store.entity(i as EntityIdx).path);
                words += m.len();
            }
            checked += made.len();
        }
        assert!(checked > 400 && words > 4_000, "{checked} entities, {words} words");
    }

    #[test]
    fn groups_join_connected_pairs() {
        assert_eq!(groups(&[(3, 5, 0.9), (1, 2, 0.8), (5, 9, 0.7)]), [vec![1, 2], vec![3, 5, 9]]);
        assert_eq!((label(1.0), label(0.95), label(0.6)), ("exact copy", "near-exact copy", "near-duplicate"));
    }
}
