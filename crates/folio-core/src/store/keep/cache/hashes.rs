//! What the review inbox takes from each entity's text, kept in folio's persistent cache beside
//! its snapshot (issue 44): the hash of its text (the inbox names every queued item by it) and
//! what the format reads in its fields (`queue::TextFacts`: its own reasons, author, agent run,
//! evidence). Opening and hashing every file of a large store on each `review list` cost more
//! than loading it. An entity's facts are kept while its file has the size and mtime it had when
//! they were taken (the store cache's per-file check, `side::kept`) and the entity parses as it
//! did then (`queue::fingerprint`); the others are read again and the file is rewritten when any
//! was.
use std::path::Path;
use std::time::SystemTime;

use super::side::{self, Key};
use super::{Cache, HASHES_EXT};
use crate::store::Store;
use crate::store::history::attribution;
use crate::store::model::entity::EntityIdx;
use crate::store::review::listing::Listing;
use crate::store::review::queue::{self, QueueItem, TextFacts};

const MAGIC: &[u8; 8] = b"FOLIOH2\n";
/// Bumped whenever the layout or what is kept changes.
pub const FORMAT: u32 = 4;
const WHAT: &str = "inbox facts";
const LAYOUT: side::Layout = side::Layout { magic: MAGIC, format: FORMAT, what: WHAT };

/// The entities' text facts as the cache knew them (and, once the inbox is built, as they are
/// now), for one store.
pub struct Facts {
    path: Option<std::path::PathBuf>,
    /// Entity `i`'s facts, `None` where they are to be read from its file.
    pub slots: Vec<Option<TextFacts>>,
    /// Files read for their facts this run (set by whoever completes `slots`).
    pub computed: usize,
    /// Facts taken from the file.
    pub reused: usize,
    /// Why the file was ignored or could not be written.
    pub warnings: Vec<String>,
    started: SystemTime,
    /// The saved facts were every entity's, in the store's order (their file's fast path).
    in_order: bool,
}

/// At most one entity in this many read again, the facts file is left as it is: those few are
/// read again next time rather than the whole file written for them (12 MB at 100k entities, a
/// twentieth of the brain's `review list` after one changed row; docs/benchmarks.md).
const FEW_READ_OF: usize = 1000;

impl Facts {
    /// The saved facts of every entity of `store` whose file is unchanged since they were taken
    /// (none without a cache, or for a store the store cache does not keep).
    pub fn open(cache: Option<&Cache>, store: &Store) -> Facts {
        let mut out = Facts::open_saved(cache, store);
        // Those the load took from the bytes it held (`Reads::EntitiesForInbox`) are as the
        // files are now: they stand in for the saved ones, which are written back with them.
        if let Some(loaded) = store.take_loaded_facts() {
            for (slot, facts) in out.slots.iter_mut().zip(loaded) {
                if let Some(facts) = facts {
                    out.computed += usize::from(slot.as_ref() != Some(&facts));
                    *slot = Some(facts);
                }
            }
        }
        out
    }

    /// The facts saved in the cache, as `open` gives them before the load's.
    fn open_saved(cache: Option<&Cache>, store: &Store) -> Facts {
        let n = store.entities.len();
        let started = SystemTime::now();
        let mut out = Facts {
            path: None,
            slots: Vec::new(),
            computed: 0,
            reused: 0,
            warnings: Vec::new(),
            started,
            in_order: false,
        };
        let Some(cache) = cache.filter(|_| super::cacheable(store.kind()) && n >= super::MIN_ENTITIES) else {
            out.slots.resize(n, None);
            return out;
        };
        let path = cache.side_file(&store.root, store.kind(), HASHES_EXT);
        match read(&path, store, cache.lean_keys_digest()) {
            Ok(Some((kept, mut saved))) => {
                if kept.len() == n && kept.iter().enumerate().all(|(i, k)| k.is_none_or(|to| to as usize == i)) {
                    // Each saved entry is its own entity's or stale: the saved table is the
                    // slots, cleared where stale, rather than a second table of 100k entries
                    // (issue 44: the inbox's peak).
                    for (slot, k) in saved.iter_mut().zip(&kept) {
                        if k.is_none() {
                            *slot = None;
                        }
                    }
                    out.slots = saved;
                    out.in_order = true;
                } else {
                    out.slots.resize(n, None);
                    for (old, to) in kept.into_iter().enumerate() {
                        if let (Some(to), Some(facts)) = (to, saved.get_mut(old).and_then(Option::take)) {
                            out.slots[to as usize] = Some(facts);
                        }
                    }
                }
            }
            Ok(None) => out.slots.resize(n, None),
            Err(why) => {
                out.slots.resize(n, None);
                out.warnings.push(format!("{}: {why}; ignored", path.display()));
            }
        }
        out.reused = out.slots.iter().flatten().count();
        out.path = Some(path);
        out
    }

    /// Write the file back when any entity's facts were read this run, unless they were a few
    /// (`FEW_READ_OF`) and the file held every other entity's in order.
    pub fn save(&mut self, cache: Option<&Cache>, store: &Store) {
        let (Some(cache), Some(path)) = (cache, self.path.as_deref()) else { return };
        if self.computed == 0 || (self.in_order && self.computed * FEW_READ_OF <= self.slots.len()) {
            return;
        }
        // Entities read now were read after `started`, their keys are the store's stat of
        // them: the older of the two instants is what the next run may trust mtimes against.
        if let Err(e) = write(cache, path, store, &self.slots, self.started.min(store.read_since)) {
            self.warnings.push(e);
        }
    }
}

/// The review inbox (`attribution::inbox`) with the near-duplicate profiles and the text facts
/// of unchanged files from the cache, the facts written back when any file was read (issue 44).
pub fn inbox(cache: Option<&Cache>, store: &Store) -> (Vec<QueueItem>, Vec<String>) {
    use crate::store::lint::{self, LintConfig};
    // Lint first: its near-duplicate profiles are freed before the facts are read in, so the
    // two are never held at once.
    // The pairs and the model's own findings come from `folio lint`'s memo when no entity
    // file changed since the last pass (of either command), as for `folio lint`.
    let config = LintConfig::load(&store.root, store.kind()).unwrap_or_default();
    let memo = super::lint_memo::Memo::new(cache, store);
    let report = lint::lint_entities_remembering(store, &config, &|| super::profiles::open(cache, store).0, &memo);
    memo.save();
    let mut facts = Facts::open(cache, store);
    let (mut items, read) = queue::build_with_facts(store, &report, &mut facts.slots);
    drop(report);
    let _ = attribution::from_git(store, &mut items);
    facts.computed += read;
    facts.save(cache, store);
    let mut warnings = memo.warnings();
    warnings.append(&mut facts.warnings);
    (items, warnings)
}

/// What `inbox_listed` used: the store (without its links), the lint report and every
/// entity's text facts. Dropping it frees them, a few hundred thousand allocations at 100k
/// entities; a command about to exit may leave that to the exit.
pub struct Spent {
    _store: Store,
    _report: crate::store::lint::Report,
    _facts: Facts,
}

/// The review inbox as `inbox` gives it, the items `filter` takes, handed to `with` as a listing
/// that builds each item as it is read rather than holding them (`listing::Listing`; a store in
/// a git repository, whose items are attributed all at once, is held) with the cache's
/// warnings. Returns what `with` returns and what the listing used.
pub fn inbox_listed<R>(
    cache: Option<&Cache>,
    store: Store,
    filter: &crate::store::review::filter::Filter,
    with: impl FnOnce(&Listing<'_>, &[String]) -> R,
) -> (R, Spent) {
    list_linted(cache, lint_whole(cache, store), filter, with)
}

/// A store linted for the inbox: the store, lint's report, the cache's warnings so far.
pub struct Linted {
    store: Store,
    report: crate::store::lint::Report,
    warnings: Vec<String>,
    /// Every entity's text facts, when they were taken beside lint.
    facts: Option<Facts>,
}

/// Lint for the inbox of a store opened whole.
///
/// After a cached open, once lint has read the links they are dropped (the queue reads none),
/// and the pages freed are handed back to the system, so the listing's peak is the open's
/// rather than the open's plus the facts and the report (issue 44).
pub fn lint_whole(cache: Option<&Cache>, mut store: Store) -> Linted {
    use crate::store::lint::{self, LintConfig};
    // Only after a cached open: after a full load, lint's content rules fault back in more
    // pages than were handed back (0.4 s of CPU at 100k), and their own peak is the listing's.
    let trim = store.from_cache;
    // The open's scratch, freed on rayon's threads, back to the system before lint allocates.
    if trim {
        release_freed_memory();
    }
    let config = LintConfig::load(&store.root, store.kind()).unwrap_or_default();
    let (report, warnings, facts) = std::thread::scope(|beside| {
        let store = &store;
        // The facts are taken on a thread of their own while lint runs (as in `lint_lean`): the
        // saved ones decoded and those of changed files read, a fifth of the brain's
        // `review list` after one changed row when taken after lint (docs/benchmarks.md).
        let facts = beside.spawn(|| complete(cache, store));
        let memo = super::lint_memo::Memo::new(cache, store);
        let report = lint::lint_entities_remembering(store, &config, &|| super::profiles::open(cache, store).0, &memo);
        memo.save();
        let facts = facts.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (report, memo.warnings(), facts)
    });
    if trim {
        shed_links(&mut store);
        // Beside the listing rather than before it: walking malloc's free lists is a single
        // thread's 50–60 ms at 100k entities, with the listing's threads idle meanwhile.
        drop(std::thread::spawn(release_freed_memory));
    }
    Linted { store, report, warnings, facts: Some(facts) }
}

/// Lint for the inbox of a store `cache` opened without its links (`Cache::for_inbox`): from
/// lint's memo alone, which must hold every finding that reads links (the link, graph and
/// duplicate families, and the near-duplicate pairs when the content rules run). None when it
/// does not, or the store was opened whole: then the inbox needs the store opened whole
/// (`lint_whole`), since lint would read the links this store lacks.
pub fn lint_lean(cache: &Cache, store: Store) -> Option<Linted> {
    use crate::store::lint::{self, LintConfig, LintMemo, near_duplicate};
    let digest = cache.lean_digest()?;
    // The open's scratch, freed on rayon's threads, back to the system before lint allocates.
    release_freed_memory();
    let config = LintConfig::load(&store.root, store.kind()).unwrap_or_default();
    let (report, warnings, facts) = std::thread::scope(|beside| {
        let store = &store;
        // The facts are taken on a thread of their own while lint answers from its memo: each
        // takes about a tenth of a second at 100k entities, and neither needs the other.
        let facts = beside.spawn(|| complete(Some(cache), store));
        let memo = super::lint_memo::Memo::new(Some(cache), store).with_digest(digest);
        let manifest = store.dialect.manifest_lints();
        let threshold = config.near_duplicate_threshold.unwrap_or(near_duplicate::DEFAULT_THRESHOLD);
        // The memo reads its file once: what is asked here is what lint is answered below.
        let holds =
            memo.holds_families(&manifest) && (!config.reads_bodies() || memo.pairs(&manifest, threshold).is_some());
        if !holds {
            return None;
        }
        let report =
            lint::lint_entities_remembering(store, &config, &|| super::profiles::open(Some(cache), store).0, &memo);
        memo.save();
        let facts = facts.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Some((report, memo.warnings(), facts))
    })?;
    Some(Linted { store, report, warnings, facts: Some(facts) })
}

/// Every entity's text facts: the cache's where the file is unchanged, the others read.
fn complete(cache: Option<&Cache>, store: &Store) -> Facts {
    let mut facts = Facts::open(cache, store);
    facts.computed += queue::complete_facts(store, &mut facts.slots, 0..store.entities.len());
    facts
}

/// The listing of a linted store (`inbox_listed` after lint).
pub fn list_linted<R>(
    cache: Option<&Cache>,
    linted: Linted,
    filter: &crate::store::review::filter::Filter,
    with: impl FnOnce(&Listing<'_>, &[String]) -> R,
) -> (R, Spent) {
    let Linted { store, report, mut warnings, facts } = linted;
    let (out, facts) = {
        let store = &store;
        let mut facts = facts.unwrap_or_else(|| complete(cache, store));
        facts.save(cache, store);
        warnings.append(&mut facts.warnings);
        let verdicts = queue::Verdicts::open(store);
        let out = {
            let builder = queue::Builder::new(store, &report, &verdicts);
            let in_git = matches!(crate::store::history::git::open(&store.root), Ok(Some(_)));
            let attribute = |items: &mut [QueueItem]| {
                let _ = attribution::from_git(store, items);
            };
            let listing = Listing::new(&builder, &facts.slots, filter, in_git.then_some(&attribute as _));
            with(&listing, &warnings)
        };
        (out, facts)
    };
    (out, Spent { _store: store, _report: report, _facts: facts })
}

/// Drops every entity's links and the backlinks: what lint reads and the queue does not. On
/// every core: freeing half a million links was a tenth of a second with the others idle.
fn shed_links(store: &mut Store) {
    use rayon::prelude::*;
    store.entities.par_iter_mut().for_each(|e| {
        // An entity shared elsewhere keeps them (none is, in a store just opened).
        if let Some(e) = std::sync::Arc::get_mut(e) {
            e.links = Vec::new();
        }
    });
    store.backlinks = Default::default();
}

/// Hands the pages malloc holds free back to the system. The snapshot is decoded on rayon's
/// threads, whose arenas keep what they freed and which this thread's allocations never reuse:
/// at 100k entities the inbox's peak sat ≈ 40 MB above its live heap without it
/// (docs/benchmarks.md, "The inbox, fourth pass").
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; nothing of ours is touched.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// One batch of the inbox built in batches (`inbox_in_batches`).
pub struct Batch {
    /// The batch's items, in `queue::order`.
    pub items: Vec<QueueItem>,
    /// Entities looked at so far, of `total`.
    pub done: usize,
    pub total: usize,
}

/// The review inbox with `report` (the TUI's current lint report), built in batches of
/// entities in store order — `first` entities, then each batch twice the last, so the first
/// items show at once and later batches merge into few, larger ones (`queue::merge`). The text
/// facts of unchanged files come from the cache and are written back when any file was read.
/// `send` gets each batch and answers whether to go on (false: the queue is no longer wanted).
/// Returns the cache's warnings.
pub fn inbox_in_batches(
    cache: Option<&Cache>,
    store: &Store,
    report: &crate::store::lint::Report,
    first: usize,
    send: &mut dyn FnMut(Batch) -> bool,
) -> Vec<String> {
    let (mut facts, wanted) = batches(cache, store, report, first, send);
    if wanted {
        facts.save(cache, store);
    }
    facts.warnings
}

/// The review inbox while `lint` makes the report it needs: the queue without lint's reasons
/// is sent in batches as `inbox_in_batches` sends them (`send`'s second argument true: a
/// provisional list), lint running beside it on its own thread; then the whole queue with
/// lint's reasons from the same facts, in one batch (false). At 100k entities lint from a
/// cold memo reads and tokenises every file, seconds during which the inbox showed nothing
/// (issue 44: its first items within 300 ms of the store being ready). Returns the cache's
/// warnings; stops when `send` answers false.
pub fn inbox_while_linting(
    cache: Option<&Cache>,
    store: &Store,
    first: usize,
    lint: &(dyn Fn() -> crate::store::lint::Report + Sync),
    send: &mut dyn FnMut(Batch, bool) -> bool,
) -> Vec<String> {
    let empty = crate::store::lint::Report::default();
    let (report, (mut facts, wanted)) = std::thread::scope(|s| {
        let linting = s.spawn(lint);
        let built = batches(cache, store, &empty, first, &mut |b| send(b, true));
        (linting.join(), built)
    });
    let report = report.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    if wanted {
        let verdicts = queue::Verdicts::open(store);
        let builder = queue::Builder::new(store, &report, &verdicts);
        let total = store.entities.len();
        let mut items: Vec<QueueItem> =
            (0..total).filter_map(|i| builder.item(i as EntityIdx, facts.slots.get(i)?.as_ref()?)).collect();
        let _ = attribution::from_git(store, &mut items);
        queue::order(&mut items);
        if send(Batch { items, done: total, total }, false) {
            facts.save(cache, store);
        }
    }
    facts.warnings
}

/// The batches of `inbox_in_batches`; returns the facts (complete unless stopped) and whether
/// `send` wanted every batch.
fn batches(
    cache: Option<&Cache>,
    store: &Store,
    report: &crate::store::lint::Report,
    first: usize,
    send: &mut dyn FnMut(Batch) -> bool,
) -> (Facts, bool) {
    let verdicts = queue::Verdicts::open(store);
    let builder = queue::Builder::new(store, report, &verdicts);
    let total = store.entities.len();
    let (mut start, mut size): (usize, usize) = (0, first.max(1));
    // A first batch smaller than the store is read from its files before the cache's facts are
    // decoded (all of them at once, 12 MB at 100k): the first items show sooner.
    let mut deferred = size < total && cache.is_some();
    let mut facts = Facts::open(if deferred { None } else { cache }, store);
    loop {
        let end = start.saturating_add(size).min(total);
        if deferred && start > 0 {
            deferred = false;
            let (early, read_from) = (std::mem::take(&mut facts.slots), facts.started);
            facts = Facts::open(cache, store);
            // What is saved reads as of the first reads.
            facts.started = facts.started.min(read_from);
            for (i, fresh) in early.into_iter().enumerate().take(start) {
                // Read from the file: counted as computed only where the cache had other facts.
                if fresh.is_some() && facts.slots[i] != fresh {
                    facts.computed += 1;
                    facts.slots[i] = fresh;
                }
            }
        }
        // The first batch is read on this thread: a lint pass may hold every rayon thread.
        let complete = if start == 0 && end < total { queue::complete_facts_here } else { queue::complete_facts };
        facts.computed += complete(store, &mut facts.slots, start..end);
        let mut items: Vec<QueueItem> =
            (start..end).filter_map(|i| builder.item(i as EntityIdx, facts.slots.get(i)?.as_ref()?)).collect();
        let _ = attribution::from_git(store, &mut items);
        queue::order(&mut items);
        if !send(Batch { items, done: end, total }) {
            return (facts, false);
        }
        if end >= total {
            return (facts, true);
        }
        (start, size) = (end, size.saturating_mul(2));
    }
}

/// Which saved facts hold for the store (`side::kept`: by the saved entity's number, the store's
/// entity number where they hold), and the saved facts; `None` when there is no file; an error
/// says why a file present cannot be used.
type Saved = (Vec<Option<EntityIdx>>, Vec<Option<TextFacts>>);

/// `known`: `store`'s `side::keys_digest` where it is known already.
fn read(path: &Path, store: &Store, known: Option<u64>) -> Result<Option<Saved>, String> {
    let Some(mut r) = LAYOUT.open(path, store)? else { return Ok(None) };
    let same: side::SameKeys = r.next("same keys")?;
    let at_most = usize::try_from(r.header.entities).unwrap_or(usize::MAX);
    let facts = r.next_streamed_seed("facts", side::Exactly::<Option<TextFacts>>::at_most(at_most))?;
    // A store whose keys all match the saved ones needs no key read (100k paths and ids
    // decoded and compared: a third of the facts' read at 100k entities).
    let Some(kept) = LAYOUT.kept(path, store, same, known, &mut r, 1)? else { return Ok(None) };
    if facts.len() != kept.len() || kept.len() as u64 != r.header.entities {
        return Err(format!("{} entities' facts, {} entities listed", facts.len(), kept.len()));
    }
    Ok(Some((kept, facts)))
}

/// The file: its header, whether its facts hold for a store with the same keys
/// (`side::SameKeys`), the facts, then the keys (read only when the first says nothing).
fn write(
    cache: &Cache,
    path: &Path,
    store: &Store,
    slots: &[Option<TextFacts>],
    as_of: SystemTime,
) -> Result<(), String> {
    let keys = Key::all(store);
    let same = side::SameKeys::of(store, &keys, side::header(store, FORMAT, as_of).read_since_ns);
    LAYOUT.write(cache, path, store, as_of, &[&side::encode(&same)?, &side::encode(slots)?, &side::encode(&keys)?])
}

#[cfg(test)]
mod tests;
