//! The content rules (`near-duplicate`, `possible-contradiction`) kept between live reloads.
//!
//! A full pass weighs every word by its rarity in the whole store, signs every text for LSH,
//! compares the candidate pairs and reads the texts of the close ones. After an agent rewrites
//! a few files only some of that can change, and this state keeps the rest:
//!
//! - every text's profile (its word hashes, and which weigh as code) and the rarity table,
//!   patched by the words of the changed texts;
//! - every text's LSH bucket key per band, and the candidate pairs (with how many bands make
//!   each). A text's keys change when it changed or when one of its words crossed the line
//!   into or out of the signatures (`Rarity::banded`); only those texts' buckets are redone;
//! - the similarity of every candidate pair reaching the threshold, computed again when one of
//!   the two changed or holds a word whose rarity changed (its weight did);
//! - per close pair, what `kinship` reads from the two texts (their template slots), and per
//!   reported pair its `possible-contradiction` findings, dropped when a text changed.
//!
//! Files added or removed change every weight (the count of texts is in it): the state is then
//! built again from the texts it holds and those read anew. Either way the findings are those
//! of a full pass (tests/store/live_reload.rs compares them after random edits).
use std::collections::HashMap;
use std::sync::Mutex;

use rayon::prelude::*;

use crate::store::Store;
use crate::store::lint::near_duplicate::{self, BANDS, MAX_BUCKET, MIN_WORDS, Profile, Rarity};
use crate::store::lint::{Finding, LintConfig, kinship, possible_contradiction};
use crate::store::model::entity::EntityIdx;
use crate::store::read::body_text;

/// foldhash: keys are word hashes and entity numbers, not attacker-chosen table keys.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type Pair = (u32, u32);
/// Band bucket keys and the texts in each.
type Buckets = FastMap<u64, Vec<u32>>;
/// A pair's template slots (`kinship::template_slots`); `None`: the texts share no skeleton.
type Slots = Option<(Box<[u32]>, Box<[u32]>)>;

/// Whether `p` holds any of the word hashes `sorted`.
fn has_any(p: &Profile, sorted: &[u32]) -> bool {
    sorted.iter().any(|h| p.hashes().binary_search(h).is_ok())
}

/// What the content rules of one store found, and what finding them again after a change needs.
pub(super) struct ContentState {
    profiles: Vec<Profile>,
    rarity: Rarity,
    /// Per band, per entity: its bucket key (meaningless where `signed` is false).
    keys: Vec<Vec<u64>>,
    signed: Vec<bool>,
    /// Candidate pairs (a < b), with the number of bands whose bucket holds both.
    candidates: FastMap<Pair, u8>,
    /// Candidate pairs of usable texts reaching the threshold, with their similarity.
    close: FastMap<Pair, f64>,
    slots: Mutex<FastMap<Pair, Slots>>,
    contradictions: FastMap<Pair, Vec<Finding>>,
    threshold: f64,
}

/// What changed between the store the state describes and the new one.
pub(super) struct Change<'a> {
    /// Entities read again (same indices in both stores).
    pub changed: &'a [EntityIdx],
    /// Per entity of the new store: its links or edges resolve differently (a `contradicts`
    /// edge decides whether a pair is already declared).
    pub relinked: &'a [bool],
}

impl ContentState {
    /// The state of `store`, from every text's profile (`profiles`, in entity order).
    pub(super) fn build(profiles: Vec<Profile>, config: &LintConfig) -> ContentState {
        let rarity = Rarity::new(&profiles);
        let n = profiles.len();
        let band_keys: Vec<Option<[u64; BANDS]>> =
            profiles.par_iter().map(|p| near_duplicate::band_keys(p, &rarity)).collect();
        let signed = band_keys.iter().map(Option::is_some).collect();
        let keys = (0..BANDS).map(|b| band_keys.iter().map(|k| k.map_or(0, |k| k[b])).collect()).collect();
        let mut state = ContentState {
            profiles,
            rarity,
            keys,
            signed,
            candidates: FastMap::default(),
            close: FastMap::default(),
            slots: Mutex::default(),
            contradictions: FastMap::default(),
            threshold: threshold(config),
        };
        for b in 0..BANDS {
            let mut buckets = Buckets::default();
            for i in 0..n {
                if state.signed[i] {
                    buckets.entry(state.keys[b][i]).or_default().push(i as u32);
                }
            }
            for members in buckets.values() {
                bucket_pairs(members, |p| *state.candidates.entry(p).or_default() += 1);
            }
        }
        let all: Vec<Pair> = state.candidates.keys().copied().collect();
        state.score(all);
        state
    }

    /// Bring the state from the old store to `new`, in which only `change.changed` were read
    /// again (entity indices unchanged), their profiles being `fresh`.
    pub(super) fn update(&mut self, change: &Change, fresh: Vec<Profile>) {
        let changed = change.changed;
        // The rarity table: the changed texts' old words out, their new ones in. A word whose
        // count moved weighs otherwise now; one that crossed into or out of the signatures
        // changes the signature of every text holding it.
        let mut touched: Vec<u32> =
            changed.iter().flat_map(|&i| self.profiles[i as usize].hashes().iter().copied()).collect();
        touched.extend(fresh.iter().flat_map(|p| p.hashes().iter().copied()));
        touched.sort_unstable();
        touched.dedup();
        let before: Vec<u32> = touched.iter().map(|&h| self.rarity.df(h)).collect();
        for (&i, p) in changed.iter().zip(fresh) {
            let old = std::mem::replace(&mut self.profiles[i as usize], p);
            self.rarity.count(old.hashes().iter().copied(), false);
            self.rarity.count(self.profiles[i as usize].hashes().iter().copied(), true);
        }
        let mut reweighed = Vec::new();
        let mut crossed = Vec::new();
        for (&h, &was) in touched.iter().zip(&before) {
            let now = self.rarity.df(h);
            // A word that is boilerplate before and after weighs nothing either way.
            if now != was && (self.rarity.weighs(now) || self.rarity.weighs(was)) {
                reweighed.push(h);
            }
            if now != was && self.rarity.banded(now) != self.rarity.banded(was) {
                crossed.push(h);
            }
        }

        // Signatures: the changed texts and those holding a word that crossed.
        let mut resigned: Vec<u32> = changed.to_vec();
        if !crossed.is_empty() {
            resigned.extend(
                (0..self.profiles.len() as u32)
                    .into_par_iter()
                    .filter(|&i| has_any(&self.profiles[i as usize], &crossed))
                    .collect::<Vec<_>>(),
            );
            resigned.sort_unstable();
            resigned.dedup();
        }
        let added = self.rebucket(&resigned);

        // Similarities: pairs new to the candidates, and pairs with a changed text or a
        // reweighed word.
        let mut hit: FastMap<u32, bool> = changed.iter().map(|&i| (i, true)).collect();
        let mut rescore: Vec<Pair> = added;
        for &(a, b) in self.candidates.keys() {
            let mut holds = |i: u32| *hit.entry(i).or_insert_with(|| has_any(&self.profiles[i as usize], &reweighed));
            if holds(a) || holds(b) {
                rescore.push((a, b));
            }
        }
        self.close.retain(|p, _| self.candidates.contains_key(p));
        rescore.sort_unstable();
        rescore.dedup();
        self.score(rescore);

        // What was read from the texts: stale where a text changed; a pair's declared
        // contradiction also follows its edges.
        let is_changed = |i: u32| changed.binary_search(&i).is_ok();
        let slots = self.slots.get_mut().unwrap_or_else(|e| e.into_inner());
        slots.retain(|&(a, b), _| !is_changed(a) && !is_changed(b) && self.close.contains_key(&(a, b)));
        let relinked = |i: u32| change.relinked.get(i as usize).copied().unwrap_or(true);
        self.contradictions.retain(|&(a, b), _| {
            !is_changed(a) && !is_changed(b) && !relinked(a) && !relinked(b) && self.close.contains_key(&(a, b))
        });
    }

    /// Compute the similarity of `pairs` (candidates all) and keep those that reach the threshold.
    fn score(&mut self, pairs: Vec<Pair>) {
        let (profiles, rarity, threshold) = (&self.profiles, &self.rarity, self.threshold);
        let usable = |i: u32| profiles[i as usize].len() >= MIN_WORDS;
        let scored: Vec<(Pair, Option<f64>)> = pairs
            .into_par_iter()
            .map(|(a, b)| {
                let s = (usable(a) && usable(b))
                    .then(|| near_duplicate::similarity(&profiles[a as usize], &profiles[b as usize], rarity))
                    .filter(|&s| s >= threshold);
                ((a, b), s)
            })
            .collect();
        for (p, s) in scored {
            match s {
                Some(s) => {
                    self.close.insert(p, s);
                }
                None => {
                    self.close.remove(&p);
                }
            }
        }
    }

    /// Sign `texts` again and move them between buckets, band by band; the candidate pairs
    /// follow (a bucket counts only with 2 to `MAX_BUCKET` members). Returns the pairs that
    /// became candidates.
    fn rebucket(&mut self, texts: &[u32]) -> Vec<Pair> {
        let fresh: Vec<(u32, Option<[u64; BANDS]>)> = texts
            .par_iter()
            .map(|&i| (i, near_duplicate::band_keys(&self.profiles[i as usize], &self.rarity)))
            .collect();
        let mut added = Vec::new();
        for b in 0..BANDS {
            let moved: Vec<(u32, Option<u64>)> = fresh
                .iter()
                .map(|&(i, k)| (i, k.map(|k| k[b])))
                .filter(|&(i, k)| k != self.signed[i as usize].then(|| self.keys[b][i as usize]))
                .collect();
            if moved.is_empty() {
                continue;
            }
            let mut buckets: Vec<u64> = moved
                .iter()
                .flat_map(|&(i, k)| [self.signed[i as usize].then(|| self.keys[b][i as usize]), k])
                .flatten()
                .collect();
            buckets.sort_unstable();
            buckets.dedup();
            let (old, new) = self.bucket_members(b, &moved, &buckets);
            let column = &mut self.keys[b];
            for &(i, k) in &moved {
                column[i as usize] = k.unwrap_or(0);
            }
            for m in old.values() {
                bucket_pairs(m, |p| {
                    if let Some(c) = self.candidates.get_mut(&p) {
                        *c -= 1;
                        if *c == 0 {
                            self.candidates.remove(&p);
                        }
                    }
                });
            }
            for m in new.values() {
                bucket_pairs(m, |p| {
                    let c = self.candidates.entry(p).or_default();
                    *c += 1;
                    if *c == 1 {
                        added.push(p);
                    }
                });
            }
        }
        for (i, k) in fresh {
            self.signed[i as usize] = k.is_some();
        }
        added.retain(|p| self.candidates.contains_key(p));
        added
    }

    /// The members, ascending, of the buckets `keys` (sorted) of band `b`, before and after the
    /// texts `moved` (ascending) take their new keys (`None`: no longer signed). One pass over
    /// the band, most keys passed over by a bit test: two searching passes per band were most
    /// of a 100k store's relint after an edit (docs/benchmarks.md, thirty-eighth session).
    fn bucket_members(&self, b: usize, moved: &[(u32, Option<u64>)], keys: &[u64]) -> (Buckets, Buckets) {
        let mut filter = [0u64; 64];
        let slot = |k: u64| (((k >> 6) & 63) as usize, 1u64 << (k & 63));
        for &k in keys {
            let (word, bit) = slot(k);
            filter[word] |= bit;
        }
        let (mut old, mut new) = (Buckets::default(), Buckets::default());
        debug_assert!(moved.is_sorted_by_key(|&(i, _)| i));
        for (i, &k) in self.keys[b].iter().enumerate() {
            let (word, bit) = slot(k);
            if filter[word] & bit == 0 || !self.signed[i] || keys.binary_search(&k).is_err() {
                continue;
            }
            // A moved text is placed below, by its old key and its new one.
            if moved.binary_search_by_key(&(i as u32), |&(m, _)| m).is_ok() {
                continue;
            }
            old.entry(k).or_default().push(i as u32);
            new.entry(k).or_default().push(i as u32);
        }
        for &(i, k) in moved {
            if self.signed[i as usize] {
                old.entry(self.keys[b][i as usize]).or_default().push(i);
            }
            if let Some(k) = k {
                new.entry(k).or_default().push(i);
            }
        }
        for members in old.values_mut().chain(new.values_mut()) {
            members.sort_unstable();
        }
        (old, new)
    }

    /// The findings of both content rules on `store` (the one this state describes).
    pub(super) fn findings(&mut self, store: &Store, config: &LintConfig, out: &mut Vec<Finding>) {
        let threshold = self.threshold;
        let close: Vec<(u32, u32, f64)> = self.close.iter().map(|(&(a, b), &s)| (a, b, s)).collect();
        let slots = &self.slots;
        let siblings = |a: u32, b: u32, rarity: &Rarity| {
            let known = slots.lock().unwrap_or_else(|e| e.into_inner()).get(&(a, b)).cloned();
            let pair_slots = known.unwrap_or_else(|| {
                let (ta, tb) = (body_text::compared_text(store, a), body_text::compared_text(store, b));
                let s: Slots = kinship::template_slots(&ta, &tb).map(|(x, y)| (x.into(), y.into()));
                slots.lock().unwrap_or_else(|e| e.into_inner()).insert((a, b), s.clone());
                s
            });
            pair_slots.is_some_and(|(sa, sb)| kinship::slots_differ(&sa, &sb, rarity, threshold))
        };
        let compared = |a, b, s, rarity: &Rarity| kinship::reported_by(store, a, b, s, || siblings(a, b, rarity));
        let reported = near_duplicate::report_pairs(store, close, &self.rarity, &compared);
        near_duplicate::report(store, &reported, out);
        let dismissed = config.dismissed_pairs();
        let missing: Vec<(u32, u32, f64)> =
            reported.iter().copied().filter(|&(a, b, _)| !self.contradictions.contains_key(&(a, b))).collect();
        let made: Vec<(Pair, Vec<Finding>)> = missing
            .into_par_iter()
            .map(|pair| {
                let mut found = Vec::new();
                possible_contradiction::check(store, &[pair], &dismissed, &mut found);
                ((pair.0, pair.1), found)
            })
            .collect();
        self.contradictions.extend(made);
        for &(a, b, _) in &reported {
            out.extend(self.contradictions[&(a, b)].iter().cloned());
        }
        self.contradictions.retain(|p, _| self.close.contains_key(p));
    }

    /// Whether this state can be brought to a store of `n` entities by `update`.
    pub(super) fn fits(&self, n: usize, config: &LintConfig) -> bool {
        self.profiles.len() == n && self.threshold == threshold(config)
    }

    /// Every text's profile, for building the state of a store with files added or removed.
    pub(super) fn profile(&self, i: EntityIdx) -> Profile {
        self.profiles[i as usize].clone()
    }
}

fn threshold(config: &LintConfig) -> f64 {
    config.near_duplicate_threshold.unwrap_or(near_duplicate::DEFAULT_THRESHOLD)
}

/// The pairs (a < b) a bucket makes: every two of its members when it holds 2 to `MAX_BUCKET`.
fn bucket_pairs(members: &[u32], mut each: impl FnMut(Pair)) {
    if members.len() < 2 || members.len() > MAX_BUCKET {
        return;
    }
    for (k, &a) in members.iter().enumerate() {
        for &b in &members[k + 1..] {
            each((a, b));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: the same seed, the same texts.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
        }
    }

    /// A text of cluster `c` (its 24 words, most of them) with a few words of its own.
    fn text(rng: &mut Rng, c: u64) -> Profile {
        let mut words: Vec<(u32, f32)> =
            (0..24).filter(|_| rng.below(8) != 0).map(|w| ((c * 1000 + w) as u32, 1.0)).collect();
        words.extend((0..3).map(|_| ((1_000_000 + rng.below(50_000)) as u32, 1.0)));
        Profile::of_weighed(words)
    }

    fn sorted<V: Copy>(m: &FastMap<Pair, V>) -> Vec<(Pair, V)> {
        let mut v: Vec<(Pair, V)> = m.iter().map(|(&p, &v)| (p, v)).collect();
        v.sort_unstable_by_key(|&(p, _)| p);
        v
    }

    /// After texts move between clusters (and so between buckets), grow a cluster past
    /// `MAX_BUCKET` or lose their words, the patched candidates and close pairs are those a state
    /// built from the new texts has.
    #[test]
    fn an_updated_state_has_the_candidates_and_close_pairs_of_one_built_anew() {
        let mut rng = Rng(0x5eed);
        let n = 900;
        let config = LintConfig::default();
        let profiles: Vec<Profile> = (0..n).map(|i| text(&mut rng, i % 60)).collect();
        let mut state = ContentState::build(profiles, &config);
        let relinked = vec![false; n as usize];
        let mut seen = std::collections::HashSet::new();
        for round in 0..12 {
            let mut changed: Vec<u32> = (0..1 + rng.below(12)).map(|_| rng.below(n) as u32).collect();
            changed.sort_unstable();
            changed.dedup();
            let fresh: Vec<Profile> = changed
                .iter()
                .map(|_| match rng.below(4) {
                    0 => Profile::of_weighed(vec![(7, 1.0)]),
                    // Cluster 3 grows past `MAX_BUCKET` over the rounds.
                    1 => text(&mut rng, 3),
                    _ => {
                        let c = rng.below(60);
                        text(&mut rng, c)
                    }
                })
                .collect();
            state.update(&Change { changed: &changed, relinked: &relinked }, fresh);
            let anew = ContentState::build(state.profiles.clone(), &config);
            assert_eq!(sorted(&state.candidates), sorted(&anew.candidates), "round {round}: candidates");
            assert_eq!(sorted(&state.close), sorted(&anew.close), "round {round}: close pairs");
            seen.extend(state.candidates.keys().copied());
        }
        assert!(seen.len() > 1000, "the rounds moved texts among many candidate pairs: {}", seen.len());
    }
}
