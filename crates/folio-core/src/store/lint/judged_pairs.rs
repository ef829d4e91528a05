//! The near-duplicate pairs a pass found, each with what was judged of it besides the two
//! profiles, so that lint's memo (`keep::cache::lint_memo`) can report them again after a change
//! that leaves every profile as it was: an approval that stamps a field, a link edited, a note's
//! words reordered elsewhere. What `near_duplicate::pairs_by` finds depends on the profiles
//! alone (and the threshold); whether a found pair is reported also depends on the store:
//! - whether either entity cites the other (sources, links, typed edges): asked again of the
//!   store every time, since a link may resolve elsewhere without its file changing;
//! - whether `kinship` lets it be reported (its two entities' ids, titles and texts, and the
//!   rarity of their words in the whole store): kept, and trusted only while neither entity's
//!   file changed and no profile in the store did.
use rayon::prelude::*;

use super::Pair;
use super::near_duplicate::{Rarity, cited, order, pairs_by};
use crate::store::Store;
use crate::store::read::content_words::Profile;

/// A pair found at the threshold, and whether it is reported when neither entity cites the
/// other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    pub a: u32,
    pub b: u32,
    pub s: f64,
    /// `None` where one cited the other when it was judged: `kinship` was not asked.
    pub reported: Option<bool>,
}

/// Every pair of `profiles` (the store's, in its order) alike from `threshold`, judged in
/// `store`; `compared` is the kinship question (`near_duplicate::check`'s).
pub fn judge(
    store: &Store,
    profiles: &[Profile],
    threshold: f64,
    compared: &(dyn Fn(u32, u32, f64, &Rarity) -> bool + Sync),
) -> Vec<Judged> {
    let rarity = Rarity::new(profiles);
    pairs_by(profiles, &rarity, threshold)
        .into_par_iter()
        .map(|(a, b, s)| Judged { a, b, s, reported: (!cited(store, a, b, s)).then(|| compared(a, b, s, &rarity)) })
        .collect()
}

/// The pairs to report of `judged`, judged in the store as it is: most alike first.
pub fn reported(judged: &[Judged]) -> Vec<Pair> {
    let mut pairs: Vec<Pair> = judged.iter().filter(|j| j.reported == Some(true)).map(|j| (j.a, j.b, j.s)).collect();
    order(&mut pairs);
    pairs
}

/// `judged` (made over an earlier state of `store` whose profiles and pairs' entities are as
/// they were) judged again in `store`: who cites whom asked anew. `None` when a pair that was
/// cited no longer is, so that its kinship, never asked, is needed.
pub fn again(store: &Store, judged: &[Judged]) -> Option<Vec<Judged>> {
    judged
        .iter()
        .map(|j| match (cited(store, j.a, j.b, j.s), j.reported) {
            (true, _) => Some(Judged { reported: None, ..*j }),
            (false, Some(r)) => Some(Judged { reported: Some(r), ..*j }),
            (false, None) => None,
        })
        .collect()
}

/// The hash `keep::cache::lint_memo` keeps of a profile, to tell a changed text whose profile
/// is the same. A fixed seed: the next process of this build must compute the same.
pub fn profile_hash(p: &Profile) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x666f_6c69_6f50_0002).hash_one(p)
}
