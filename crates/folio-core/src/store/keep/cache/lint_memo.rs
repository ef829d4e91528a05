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
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::side;
use super::{Cache, LINT_EXT, codec::Header};
use crate::store::Store;
use crate::store::lint::{Finding, LintMemo, Origin, Pair, manifest::ManifestLints, rules};
use crate::store::model::entity::{Resolution, Severity};

const MAGIC: &[u8; 8] = b"FOLIOL1\n";
/// Bumped whenever the layout or what the kept results depend on changes.
pub const FORMAT: u32 = 1;
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
            changed: Mutex::new(false),
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// `new` for a store whose digest is already known: one opened without its links
    /// (`Cache::for_inbox`), from which `digest` cannot be computed, with the digest the store
    /// cache kept for its snapshot.
    pub fn with_digest(self, digest: u64) -> Memo<'a> {
        let _ = self.digest.set(digest);
        self
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
        if let Some(Some(old)) = self.recalled.get() {
            saved.pairs = saved.pairs.or_else(|| old.pairs.clone());
            saved.families = saved.families.or_else(|| old.families.clone());
        }
        // The entities' files were stat'ed by the store's open and their bodies read after it
        // or after this pass began: the older instant is what the next pass trusts mtimes against.
        let as_of = self.started.min(self.store.read_since);
        if let Err(e) = write(cache, &self.path, self.store, &saved, as_of) {
            self.warn(e);
        }
    }
}

impl LintMemo for Memo<'_> {
    fn pairs(&self, manifest: &ManifestLints, threshold: f64) -> Option<Vec<Pair>> {
        let (at, pairs) = self.recalled(manifest)?.pairs.as_ref()?;
        (*at == threshold.to_bits()).then(|| pairs.iter().map(|&(a, b, s)| (a, b, f64::from_bits(s))).collect())
    }

    fn keep_pairs(&self, manifest: &ManifestLints, threshold: f64, pairs: &[Pair]) {
        let kept = pairs.iter().map(|&(a, b, s)| (a, b, s.to_bits())).collect();
        self.made(manifest, |m| m.pairs = Some((threshold.to_bits(), kept)));
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
    use rayon::prelude::*;
    use std::hash::{BuildHasher, Hash, Hasher};
    // A fixed seed: the digest must be the same in the next process of this build (the
    // header rejects another build's file).
    let state = foldhash::quality::FixedState::with_seed(0x666f_6c69_6f4c_0001);
    // Runs of entities hashed on rayon's threads, then their hashes in order: one thread over
    // 100k entities and their half a million links was a twentieth of a cached `lint`
    // (docs/benchmarks.md, "Twenty-first session"). Fixed runs: the same digest on any core count.
    let runs: Vec<u64> = store
        .entities
        .par_chunks(DIGEST_RUN)
        .map(|run| {
            let mut h = state.build_hasher();
            run.iter().for_each(|e| entity_into(e, &mut h));
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

fn write(cache: &Cache, path: &Path, store: &Store, saved: &Saved, as_of: SystemTime) -> Result<(), String> {
    LAYOUT.write(cache, path, store, as_of, &[&side::encode(saved)?])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::lint::{self, LintConfig, Report, near_duplicate};
    use std::fs;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// A vault of `MIN_ENTITIES` + 1 notes written an hour ago: two near-duplicates, two
    /// notes of one title, a link to a picture that is not there, and links between notes.
    fn vault() -> tempfile::TempDir {
        side::fixture::aged_vault(|i| match i {
            1 | 2 => (
                "Exif".to_string(),
                "Parse the EXIF metadata with Pillow before exiftool; pillow reads orientation tags.".into(),
            ),
            3 => ("Pictures".into(), "The chart: [pic](pic.png), and [[note-4]].".into()),
            8 | 9 => ("Same title".into(), format!("Entry {i} on q{i} and r{i}.")),
            _ => (
                format!("Note {i}"),
                format!("Body of note {i} about w{} and ledgers q{i} r{i} s{i}; see [[note-{}]].", i % 37, i + 1),
            ),
        })
    }

    fn load(dir: &Path) -> Store {
        Store::load(dir, crate::store::dialect::vault::KIND, "test".into())
    }

    /// A remembering lint of `store` and how many times it asked for the profiles.
    fn lint_counting(cache: &Cache, store: &Store) -> (Report, usize, Vec<String>) {
        let asked = AtomicUsize::new(0);
        let profiles = || {
            asked.fetch_add(1, Ordering::Relaxed);
            near_duplicate::all_profiles(store)
        };
        let memo = Memo::new(Some(cache), store);
        let report = lint::lint_remembering(store, &LintConfig::default(), &profiles, &memo);
        memo.save();
        (report, asked.into_inner(), memo.warnings())
    }

    #[test]
    fn an_unchanged_store_lints_from_the_memo_alike_and_a_changed_one_anew() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let want = lint::lint(&store, &LintConfig::default());
        for rule in [near_duplicate::RULE, "broken-link", "duplicate-title", "orphan"] {
            assert!(want.findings.iter().any(|f| f.rule == rule), "{rule} is planted");
        }
        let (first, asked, warnings) = lint_counting(&cache, &store);
        assert_eq!((first == want, asked, warnings.len()), (true, 1, 0), "{warnings:?}");
        let (second, asked, warnings) = lint_counting(&cache, &store);
        assert_eq!(asked, 0, "the pairs came from the memo: {warnings:?}");
        assert_eq!(second, want);
        let manifest = store.dialect.manifest_lints();
        let memo = Memo::new(Some(&cache), &store);
        assert!(memo.holds_families(&manifest) && memo.families(&manifest).is_some());

        // The picture appears: no entity file changed, but the link now resolves to it.
        fs::write(dir.path().join("pic.png"), b"png").unwrap();
        let store = load(dir.path());
        let want = lint::lint(&store, &LintConfig::default());
        assert!(!want.findings.iter().any(|f| f.rule == "broken-link" && f.path.as_deref() == Some("note-3.md")));
        // The links now resolve otherwise: neither question is answered from the memo.
        let memo = Memo::new(Some(&cache), &store);
        assert!(!memo.holds_families(&manifest) && memo.families(&manifest).is_none());
        let (third, asked, _) = lint_counting(&cache, &store);
        assert_eq!((third == want, asked), (true, 1));

        // One note edited (an mtime the memo's pass can trust): its duplicate goes.
        let edited = dir.path().join("note-2.md");
        fs::write(&edited, "---\ntitle: Tides\n---\nNow about zanzibar and its spice markets.\n").unwrap();
        fs::File::options()
            .write(true)
            .open(&edited)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(1800))
            .unwrap();
        let store = load(dir.path());
        let want = lint::lint(&store, &LintConfig::default());
        assert!(!want.findings.iter().any(|f| f.rule == near_duplicate::RULE));
        let (fourth, asked, _) = lint_counting(&cache, &store);
        assert_eq!((fourth == want, asked), (true, 1));
        let (fifth, asked, _) = lint_counting(&cache, &store);
        assert_eq!((fifth == want, asked), (true, 0));
    }

    #[test]
    fn a_file_written_just_before_the_memo_was_made_is_not_trusted() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        // Written just now, then linted: its mtime is within the slack of the memo's reads.
        // First a third copy of the EXIF note, then other words of the same length.
        let p = dir.path().join("note-5.md");
        let copy = fs::read_to_string(dir.path().join("note-1.md")).unwrap();
        let other = format!(
            "{:<w$}\n",
            "---\ntitle: Corn\n---\nGrind the corn with butter; butter melts quicker.",
            w = copy.len() - 1
        );
        assert_eq!(copy.len(), other.len());
        fs::write(&p, &copy).unwrap();
        let written = fs::metadata(&p).unwrap().modified().unwrap();
        let store = load(dir.path());
        let (report, _, _) = lint_counting(&cache, &store);
        assert!(
            report.findings.iter().any(|f| f.rule == near_duplicate::RULE && f.path.as_deref() == Some("note-5.md"))
        );
        // Written again within the same mtime tick, the same size: only the mtime's age tells.
        fs::write(&p, &other).unwrap();
        fs::File::options().write(true).open(&p).unwrap().set_modified(written).unwrap();
        let store = load(dir.path());
        let (report, asked, _) = lint_counting(&cache, &store);
        assert_eq!((report == lint::lint(&store, &LintConfig::default()), asked), (true, 1));
    }

    #[test]
    fn a_corrupt_memo_is_ignored_with_a_warning_and_cleared_with_the_cache() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let want = lint::lint(&store, &LintConfig::default());
        lint_counting(&cache, &store);
        let file = cache.side_file(&store.root, store.kind(), LINT_EXT);
        let bytes = fs::read(&file).unwrap();
        let mut flipped = bytes.clone();
        let at = flipped.len() - 3;
        flipped[at] ^= 1;
        for (bad, why) in [(flipped, "checksum"), (bytes[..bytes.len() / 2].to_vec(), "truncated"), (b"x".to_vec(), "")]
        {
            fs::write(&file, &bad).unwrap();
            let (report, asked, warnings) = lint_counting(&cache, &store);
            assert_eq!((report == want, asked), (true, 1));
            assert!(warnings.len() == 1 && warnings[0].contains(why), "{warnings:?}");
        }
        cache.save(&store).unwrap();
        assert_eq!(cache.clear(Some((&store.root, store.kind()))).unwrap(), 1);
        assert!(!file.exists());
    }
}
