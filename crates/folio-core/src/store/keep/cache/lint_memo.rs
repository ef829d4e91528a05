//! What one `folio lint` lends the next, beside the store's snapshot and never in the store:
//! the content rules' near-duplicate pairs and the findings of the rule families that depend
//! on the loaded model alone (links, graph, duplicates). A lint of a store whose entity files
//! and link resolutions are all as that pass saw them takes both from here: it decodes, weighs
//! and compares no profile and walks no link (they were most of what lint added to a cached
//! open, docs/benchmarks.md "Lint and recall").
//!
//! Both depend on the whole store (rarity weights, kinship and citations; backlinks, duplicate
//! keys), so they are kept for the store as a whole, not per entity: the file holds a digest of
//! what they were computed from — each entity's file (path, size, mtime) and id, where each of
//! its links and edges resolves, and the format's manifest rules — with the near-duplicate
//! threshold. One changed, added or removed file, or one link resolved elsewhere, makes the
//! digest differ: everything is computed anew (the profiles from `profiles`, which re-reads only
//! what changed) and the file written again. The findings the rest of lint makes (per-file
//! problems, store warnings, catalogs, the config's overrides and ignores) are made every pass.
//!
//! The pairs also outlive a change that leaves every profile as it was (an approval stamping a
//! field, a link edited): a second section keeps what they were judged from (`Basis`: each
//! entity's file stamp and profile hash, every pair found and what was judged of it,
//! `lint::judged_pairs`). A pass whose digest differs reads again only the entities whose file
//! changed; when their profiles hash as before and none is in a pair found, the pairs are judged
//! again from the record (who cites whom asked anew) instead of reading, weighing and comparing
//! every profile: the content rules' part of a lint after an edit of a large store
//! (docs/benchmarks.md, "Forty-first session").
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::side;
use super::{Cache, LINT_EXT, codec::Header};
use crate::store::Store;
use crate::store::lint::judged_pairs::{self, Judged};
use crate::store::lint::near_duplicate::{self, Profile};
use crate::store::lint::{Finding, LintMemo, Origin, Pair, manifest::ManifestLints, rules};
use crate::store::model::entity::{EntityIdx, Resolution, Severity};

const MAGIC: &[u8; 8] = b"FOLIOL1\n";
/// Bumped whenever the layout or what the kept results depend on changes.
pub const FORMAT: u32 = 2;
const WHAT: &str = "lint memo";
const LAYOUT: side::Layout = side::Layout { magic: MAGIC, format: FORMAT, what: WHAT };

/// What the file says besides its header.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Saved {
    /// `digest` of the store both were made over.
    digest: u64,
    pairs: Option<KeptPairs>,
    /// The link, graph and duplicate findings, in the order lint made them.
    families: Option<[Vec<Kept>; 3]>,
}

/// The threshold and the pairs reported at it, both as bits: exactly the `f64`s the rule
/// computed.
type KeptPairs = (u64, Vec<(u32, u32, u64)>);

/// What the pairs were judged from, the file's second section.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Basis {
    /// `names` of the store.
    names: u64,
    /// The threshold, as bits.
    threshold: u64,
    /// Per entity in store order: its file's size and mtime, and its profile's hash
    /// (`judged_pairs::profile_hash`).
    stamps: Vec<(u64, i64, u64)>,
    /// Every pair found: its entities, its similarity as bits, and what was judged of it
    /// (0: one cited the other, not judged; 1: not reported; 2: reported).
    judged: Vec<(u32, u32, u64, u8)>,
}

/// At most one entity in this many changed, their profiles are made to see whether the pairs
/// hold; more, and the whole comparison is cheaper than reading them twice.
const CHANGED_ONE_IN: usize = 8;

/// A finding as kept: its rule by id (findings with a fix are never kept).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Kept {
    rule: String,
    severity: Severity,
    entity: Option<u32>,
    path: Option<String>,
    line: u32,
    col: u32,
    message: String,
    origin: Origin,
    other: Option<u32>,
}

impl Kept {
    fn of(f: &Finding) -> Option<Kept> {
        // A rule the next build would not know, or a fix bound to the bytes read: not kept.
        rules::lookup(f.rule).filter(|_| f.fix.is_none())?;
        Some(Kept {
            rule: f.rule.to_string(),
            severity: f.severity,
            entity: f.entity,
            path: f.path.as_deref().map(str::to_string),
            line: f.line,
            col: f.col,
            message: f.message.to_string(),
            origin: f.origin,
            other: f.other,
        })
    }

    /// The finding, its texts copied once into their shared form (not cloned first).
    fn finding(&self) -> Option<Finding> {
        Some(Finding {
            rule: rules::lookup(&self.rule)?.id,
            severity: self.severity,
            entity: self.entity,
            path: self.path.as_deref().map(Into::into),
            line: self.line,
            col: self.col,
            message: self.message.as_str().into(),
            fix: None,
            origin: self.origin,
            other: self.other,
        })
    }
}

/// The lint memo of one store for one pass: what the file held for it, what this pass made,
/// and the warnings of a file it could not read or write. `save` writes what was made.
pub struct Memo<'a> {
    store: &'a Store,
    cache: Option<&'a Cache>,
    path: PathBuf,
    /// Before this pass read any body: what the next pass may trust mtimes against.
    started: SystemTime,
    /// The file's results when they hold for this store (read once, on the first question).
    recalled: OnceLock<Option<Saved>>,
    /// `digest` of the store, computed once.
    digest: OnceLock<u64>,
    made: Mutex<Saved>,
    /// What this pass judged its pairs from (or judged again from the file's).
    made_basis: Mutex<Option<Basis>>,
    /// The pairs judged again from the file's basis, once asked.
    from_basis: OnceLock<Option<Vec<Pair>>>,
    /// A store opened without its links (`with_digest`): who cites whom cannot be asked of it.
    lean: bool,
    /// The file could not be read: its basis is not asked either (one warning for the file).
    damaged: std::sync::atomic::AtomicBool,
    /// Whether this pass made anything the file does not hold.
    changed: Mutex<bool>,
    warnings: Mutex<Vec<String>>,
}

impl<'a> Memo<'a> {
    /// The memo of `store` in `cache`; one that never recalls nor keeps anything when there is
    /// no cache, the format is not cached or the store is smaller than what the cache keeps.
    pub fn new(cache: Option<&'a Cache>, store: &'a Store) -> Memo<'a> {
        let cache = cache.filter(|_| super::cacheable(store.kind()) && store.entities.len() >= super::MIN_ENTITIES);
        let path = cache.map(|c| c.side_file(&store.root, store.kind(), LINT_EXT)).unwrap_or_default();
        Memo {
            store,
            cache,
            path,
            started: SystemTime::now(),
            recalled: OnceLock::new(),
            digest: OnceLock::new(),
            made: Mutex::new(Saved::default()),
            made_basis: Mutex::new(None),
            from_basis: OnceLock::new(),
            lean: false,
            damaged: Default::default(),
            changed: Mutex::new(false),
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// `new` for a store whose digest is already known: one opened without its links
    /// (`Cache::for_inbox`), from which `digest` cannot be computed, with the digest the store
    /// cache kept for its snapshot.
    pub fn with_digest(self, digest: u64) -> Memo<'a> {
        let _ = self.digest.set(digest);
        Memo { lean: true, ..self }
    }

    /// Whether `families` will answer for this store, asked without converting what it keeps
    /// (the inbox asks before it lints, and lint then converts them once; issue 44).
    pub fn holds_families(&self, manifest: &ManifestLints) -> bool {
        let kept = self.recalled(manifest).and_then(|r| r.families.as_ref());
        kept.is_some_and(|k| k.iter().flatten().all(|f| rules::lookup(&f.rule).is_some()))
    }

    /// Why the file was ignored or could not be written (for the person).
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.lock().map(|w| w.clone()).unwrap_or_default()
    }

    fn warn(&self, why: String) {
        if let Ok(mut w) = self.warnings.lock() {
            w.push(why);
        }
    }

    fn digest(&self, manifest: &ManifestLints) -> u64 {
        if let Some(&d) = self.digest.get() {
            return d;
        }
        // Hashed before the cell is filled, not in `get_or_init`: it runs on rayon's threads,
        // and a pool thread waiting on a cell could be handed work that waits on the same cell.
        let d = digest(self.store, manifest);
        *self.digest.get_or_init(|| d)
    }

    /// What the file holds for this very store (with `manifest`), once read.
    fn recalled(&self, manifest: &ManifestLints) -> Option<&Saved> {
        if self.cache.is_some() && self.recalled.get().is_none() {
            // Outside the cell below, as `digest` says.
            self.digest(manifest);
        }
        self.recalled
            .get_or_init(|| {
                self.cache?;
                let (header, saved) = read(&self.path, self.store).unwrap_or_else(|why| {
                    self.warn(format!("{}: {why}; ignored", self.path.display()));
                    self.damaged.store(true, std::sync::atomic::Ordering::Relaxed);
                    None
                })?;
                let holds = trusted(self.store, header.read_since_ns) && saved.digest == self.digest(manifest);
                holds.then_some(saved)
            })
            .as_ref()
    }

    fn made(&self, manifest: &ManifestLints, fill: impl FnOnce(&mut Saved)) {
        if self.cache.is_none() {
            return;
        }
        let digest = self.digest(manifest);
        if let (Ok(mut made), Ok(mut changed)) = (self.made.lock(), self.changed.lock()) {
            made.digest = digest;
            fill(&mut made);
            *changed = true;
        }
    }

    /// Write what this pass made, with what it recalled, when it made anything.
    pub fn save(&self) {
        let Some(cache) = self.cache else { return };
        if !self.changed.lock().is_ok_and(|c| *c) {
            return;
        }
        let Ok(made) = self.made.lock() else { return };
        let mut saved = made.clone();
        let mut basis = self.made_basis.lock().ok().and_then(|b| b.clone());
        if let Some(Some(old)) = self.recalled.get() {
            saved.pairs = saved.pairs.or_else(|| old.pairs.clone());
            saved.families = saved.families.or_else(|| old.families.clone());
            // The pairs kept are the file's: so is what they were judged from.
            if basis.is_none() && saved.pairs.is_some() {
                basis = read_basis(&self.path, self.store).ok().flatten().map(|(_, b)| b);
            }
        }
        // The entities' files were stat'ed by the store's open and their bodies read after it
        // or after this pass began: the older instant is what the next pass trusts mtimes against.
        let as_of = self.started.min(self.store.read_since);
        if let Err(e) = write(cache, &self.path, self.store, &saved, basis.as_ref(), as_of) {
            self.warn(e);
        }
    }

    /// The pairs at `threshold` judged again from the file's basis, when no entity whose file
    /// changed since has another profile or is in a pair found (then the profiles and pairs are
    /// as the basis says, and so is every kinship it kept).
    fn pairs_from_basis(&self, manifest: &ManifestLints, threshold: f64) -> Option<Vec<Pair>> {
        let (header, basis) = read_basis(&self.path, self.store).unwrap_or_else(|why| {
            self.warn(format!("{}: {why}; ignored", self.path.display()));
            None
        })?;
        let n = self.store.entities.len();
        if basis.threshold != threshold.to_bits()
            || basis.stamps.len() != n
            || basis.names != names(self.store, manifest)
        {
            return None;
        }
        let changed: Vec<EntityIdx> = (0..n as EntityIdx)
            .filter(|&i| {
                let (e, &(size, mtime_ns, _)) = (self.store.entity(i), &basis.stamps[i as usize]);
                !(e.file_size == size && e.mtime_ns == mtime_ns && side::trusted(mtime_ns, header.read_since_ns))
            })
            .collect();
        if changed.len() * CHANGED_ONE_IN > n {
            return None;
        }
        let mut in_pair = vec![false; n];
        for &(a, b, _, _) in &basis.judged {
            in_pair[a as usize] = true;
            in_pair[b as usize] = true;
        }
        if changed.iter().any(|&i| in_pair[i as usize]) {
            return None;
        }
        let fresh = near_duplicate::profiles_of(self.store, &changed);
        let mut stamps = basis.stamps;
        for (&i, p) in changed.iter().zip(&fresh) {
            if judged_pairs::profile_hash(p) != stamps[i as usize].2 {
                return None;
            }
            let e = self.store.entity(i);
            stamps[i as usize] = (e.file_size, e.mtime_ns, stamps[i as usize].2);
        }
        let judged: Vec<Judged> = basis
            .judged
            .iter()
            .map(|&(a, b, s, r)| Judged { a, b, s: f64::from_bits(s), reported: (r != 0).then_some(r == 2) })
            .collect();
        let judged = judged_pairs::again(self.store, &judged)?;
        let pairs = judged_pairs::reported(&judged);
        // Kept for this store as it is: the next pass finds them by its digest.
        self.keep(manifest, threshold, &pairs, Basis { stamps, judged: encoded(&judged), ..basis });
        Some(pairs)
    }

    fn keep(&self, manifest: &ManifestLints, threshold: f64, pairs: &[Pair], basis: Basis) {
        let kept = pairs.iter().map(|&(a, b, s)| (a, b, s.to_bits())).collect();
        self.made(manifest, |m| m.pairs = Some((threshold.to_bits(), kept)));
        if let Ok(mut made) = self.made_basis.lock() {
            *made = Some(basis);
        }
    }
}

/// `Judged` as the basis keeps them.
fn encoded(judged: &[Judged]) -> Vec<(u32, u32, u64, u8)> {
    judged.iter().map(|j| (j.a, j.b, j.s.to_bits(), j.reported.map_or(0, |r| 1 + u8::from(r)))).collect()
}

impl LintMemo for Memo<'_> {
    fn pairs(&self, manifest: &ManifestLints, threshold: f64) -> Option<Vec<Pair>> {
        let kept = self.recalled(manifest).and_then(|r| r.pairs.as_ref());
        if let Some((_, pairs)) = kept.filter(|(at, _)| *at == threshold.to_bits()) {
            return Some(pairs.iter().map(|&(a, b, s)| (a, b, f64::from_bits(s))).collect());
        }
        if self.cache.is_none() || self.lean || self.damaged.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        if self.from_basis.get().is_none() {
            // Made outside the cell, as `digest` says: profiles are made on rayon's threads.
            let pairs = self.pairs_from_basis(manifest, threshold);
            let _ = self.from_basis.set(pairs);
        }
        self.from_basis.get().cloned().flatten()
    }

    fn keep_pairs(
        &self,
        manifest: &ManifestLints,
        threshold: f64,
        pairs: &[Pair],
        judged: &[Judged],
        profiles: &[Profile],
    ) {
        use rayon::prelude::*;
        if self.cache.is_none() || profiles.len() != self.store.entities.len() {
            return;
        }
        let hashes: Vec<u64> = profiles.par_iter().map(judged_pairs::profile_hash).collect();
        let stamps = self.store.entities.iter().zip(hashes).map(|(e, h)| (e.file_size, e.mtime_ns, h)).collect();
        let basis = Basis {
            names: names(self.store, manifest),
            threshold: threshold.to_bits(),
            stamps,
            judged: encoded(judged),
        };
        self.keep(manifest, threshold, pairs, basis);
    }

    fn families(&self, manifest: &ManifestLints) -> Option<[Vec<Finding>; 3]> {
        let kept = self.recalled(manifest)?.families.as_ref()?;
        let back = |k: &Vec<Kept>| k.iter().map(Kept::finding).collect::<Option<Vec<_>>>();
        Some([back(&kept[0])?, back(&kept[1])?, back(&kept[2])?])
    }

    fn keep_families(&self, manifest: &ManifestLints, families: [&[Finding]; 3]) {
        let keep = |f: &[Finding]| f.iter().map(Kept::of).collect::<Option<Vec<_>>>();
        let (Some(a), Some(b), Some(c)) = (keep(families[0]), keep(families[1]), keep(families[2])) else { return };
        self.made(manifest, |m| m.families = Some([a, b, c]));
    }

    fn prepare(&self, manifest: &ManifestLints) {
        // Both sides of lint ask at once; the digest is made here, on both cores, first.
        if self.cache.is_some() {
            self.digest(manifest);
        }
    }
}

/// Whether every entity's file was last modified well before the memo's pass read it: a file
/// changed within the same mtime tick as that read cannot be told from the one read.
fn trusted(store: &Store, read_since_ns: i128) -> bool {
    store.entities.iter().all(|e| side::trusted(e.mtime_ns, read_since_ns))
}

/// What the kept results were computed from, as one number: every entity's file (path, size,
/// mtime) and id, whether it lies outside the root, what each of its links and edges resolves
/// to, and the format's manifest rules; in store order. Everything else the rules read comes
/// from the entity's own file.
pub fn digest(store: &Store, manifest: &ManifestLints) -> u64 {
    // A fixed seed: the digest must be the same in the next process of this build (the
    // header rejects another build's file).
    hashed(store, manifest, 0x666f_6c69_6f4c_0001, |e, h| entity_into(e, h))
}

/// What `each` reads of every entity, with the manifest rules and the number of entities, as
/// one number. Runs of entities are hashed on rayon's threads, then their hashes in order: one
/// thread over 100k entities and their half a million links was a twentieth of a cached `lint`
/// (docs/benchmarks.md, "Twenty-first session"). Fixed runs: the same number on any core count.
fn hashed(
    store: &Store,
    manifest: &ManifestLints,
    seed: u64,
    each: impl Fn(&crate::store::model::entity::Entity, &mut foldhash::quality::FoldHasher<'_>) + Sync,
) -> u64 {
    use rayon::prelude::*;
    use std::hash::{BuildHasher, Hash, Hasher};
    let state = foldhash::quality::FixedState::with_seed(seed);
    let runs: Vec<u64> = store
        .entities
        .par_chunks(DIGEST_RUN)
        .map(|run| {
            let mut h = state.build_hasher();
            run.iter().for_each(|e| each(e, &mut h));
            h.finish()
        })
        .collect();
    let mut h = state.build_hasher();
    format!("{manifest:?}").hash(&mut h);
    store.entities.len().hash(&mut h);
    runs.hash(&mut h);
    h.finish()
}

/// Entities hashed together in `digest`.
const DIGEST_RUN: usize = 4096;

/// What `digest` reads of one entity.
fn entity_into(e: &crate::store::model::entity::Entity, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    (&e.path, &e.id, e.file_size, e.mtime_ns, e.escapes_root()).hash(h);
    h.write_usize(e.links.len());
    for l in &e.links {
        match &l.resolution {
            Resolution::Entity(t) => h.write_u64(u64::from(*t)),
            Resolution::File(p) => p.hash(h),
            Resolution::Pending => h.write_u64(u64::MAX),
            Resolution::External => h.write_u64(u64::MAX - 1),
            Resolution::Anchor => h.write_u64(u64::MAX - 2),
            Resolution::Broken => h.write_u64(u64::MAX - 3),
            Resolution::Escapes => h.write_u64(u64::MAX - 4),
        }
    }
    h.write_usize(e.edges.len());
    for edge in &e.edges {
        edge.resolved.hash(h);
    }
}

fn read(path: &Path, store: &Store) -> Result<Option<(Header, Saved)>, String> {
    let Some(mut r) = LAYOUT.open(path, store)? else { return Ok(None) };
    if r.header.entities != store.entities.len() as u64 {
        // Another number of entities: the store changed since; nothing to warn about.
        return Ok(None);
    }
    let saved: Saved = r.next("memo")?;
    Ok(Some((r.header, saved)))
}

/// The file's basis (its second section), with the file's header; `None` when there is no
/// file, it was made for another number of entities or holds none.
fn read_basis(path: &Path, store: &Store) -> Result<Option<(Header, Basis)>, String> {
    let Some(mut r) = LAYOUT.open(path, store)? else { return Ok(None) };
    if r.header.entities != store.entities.len() as u64 {
        return Ok(None);
    }
    r.skip()?;
    let basis: Option<Basis> = r.next("basis")?;
    Ok(basis.map(|b| (r.header, b)))
}

/// Who the entities are, in store order, with the format's manifest rules: a basis answers
/// only for the same entities numbered alike.
fn names(store: &Store, manifest: &ManifestLints) -> u64 {
    use std::hash::Hash;
    hashed(store, manifest, 0x666f_6c69_6f4e_0001, |e, h| (&e.path, &e.id).hash(h))
}

fn write(
    cache: &Cache,
    path: &Path,
    store: &Store,
    saved: &Saved,
    basis: Option<&Basis>,
    as_of: SystemTime,
) -> Result<(), String> {
    LAYOUT.write(cache, path, store, as_of, &[&side::encode(saved)?, &side::encode(&basis)?])
}

#[cfg(test)]
mod tests;
