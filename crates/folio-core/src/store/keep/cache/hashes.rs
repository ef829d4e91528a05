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
pub const FORMAT: u32 = 3;
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
        match read(&path, store) {
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
    let report = lint::lint_remembering(store, &config, &|| super::profiles::open(cache, store).0, &memo);
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
    // As `inbox`: lint first, so its near-duplicate profiles are freed before the facts are read.
    let config = LintConfig::load(&store.root, store.kind()).unwrap_or_default();
    let (report, warnings) = {
        let store = &store;
        let memo = super::lint_memo::Memo::new(cache, store);
        let report = lint::lint_remembering(store, &config, &|| super::profiles::open(cache, store).0, &memo);
        memo.save();
        (report, memo.warnings())
    };
    if trim {
        shed_links(&mut store);
        release_freed_memory();
    }
    Linted { store, report, warnings, facts: None }
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
        let report = lint::lint_remembering(store, &config, &|| super::profiles::open(Some(cache), store).0, &memo);
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

/// Drops every entity's links and the backlinks: what lint reads and the queue does not.
fn shed_links(store: &mut Store) {
    for e in &mut store.entities {
        // An entity shared elsewhere keeps them (none is, in a store just opened).
        if let Some(e) = std::sync::Arc::get_mut(e) {
            e.links = Vec::new();
        }
    }
    store.backlinks = Vec::new();
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

fn read(path: &Path, store: &Store) -> Result<Option<Saved>, String> {
    let Some(mut r) = LAYOUT.open(path, store)? else { return Ok(None) };
    let same: side::SameKeys = r.next("same keys")?;
    let at_most = usize::try_from(r.header.entities).unwrap_or(usize::MAX);
    let facts = r.next_streamed_seed("facts", side::Exactly::<Option<TextFacts>>::at_most(at_most))?;
    // A store whose keys all match the saved ones needs no key read (100k paths and ids
    // decoded and compared: a third of the facts' read at 100k entities).
    let Some(kept) = LAYOUT.kept(path, store, same, &mut r, 1)? else { return Ok(None) };
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
mod tests {
    use super::*;
    use crate::store::model::digest;
    use std::fs;
    use std::time::Duration;

    /// A vault of `MIN_ENTITIES` + 1 notes written an hour ago.
    fn vault() -> tempfile::TempDir {
        side::fixture::aged_vault(|i| (format!("Note {i}"), format!("Body of note {i}.")))
    }

    fn load_vault(dir: &tempfile::TempDir) -> Store {
        Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into())
    }

    /// A cache in a folder of its own (kept while the folder is).
    fn temp_cache() -> (tempfile::TempDir, Cache) {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        (dir, cache)
    }

    /// Every entity's facts, through `Facts` and `queue::complete_facts`: (facts, read, reused).
    fn all(cache: Option<&Cache>, store: &Store) -> (Vec<Option<TextFacts>>, usize, usize) {
        let mut f = Facts::open(cache, store);
        f.computed += queue::complete_facts(store, &mut f.slots, 0..store.entities.len());
        f.save(cache, store);
        (f.slots.clone(), f.computed, f.reused)
    }

    /// A listing as `review list --json` would see it: every item's debug form, in order.
    fn listed(cache: Option<&Cache>, linted: Linted) -> Vec<String> {
        let filter = crate::store::review::filter::Filter::parse("").unwrap();
        let (items, spent) = list_linted(cache, linted, &filter, |l, _| {
            l.collect().iter().map(|i| format!("{i:?}")).collect::<Vec<_>>()
        });
        drop(spent);
        items
    }

    /// An unchanged cached store whose lint memo holds opens for the inbox without its links
    /// (`Cache::for_inbox`) and lists the same items as the store opened whole; a changed file,
    /// a memo that does not hold or a cache without the inbox's flag open it whole.
    #[test]
    fn the_inbox_opens_an_unchanged_store_without_links_and_lists_the_same() {
        let dir = side::fixture::aged_vault(|i| {
            let link = if i % 7 == 0 { " See [[Nowhere]]." } else { " See [[note-1]]." };
            (format!("Note {i}"), format!("Body of note {i}.{link}"))
        });
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let kind = crate::store::dialect::vault::KIND;
        let open =
            |c: &Cache| super::super::open(Some(c), dir.path(), kind, "t".into(), crate::store::Reads::Entities).0;
        // The first open writes the snapshot, the first listing lints and keeps the memo.
        let want = listed(Some(&cache), lint_whole(Some(&cache), open(&cache)));
        assert!(want.iter().any(|i| i.contains("broken-link")), "lint's findings are listed");
        let lean = cache.for_inbox();
        let store = open(&lean);
        assert!(lean.lean_digest().is_some(), "opened without links");
        assert!(store.entities.iter().all(|e| e.links.is_empty()) && store.backlinks.iter().all(|b| b.is_empty()));
        assert!(lean.save(&store).is_err(), "a store without its links is never written");
        let linted = lint_lean(&lean, store).expect("the memo holds");
        assert_eq!(listed(Some(&cache), linted), want);
        // The memo damaged: it does not hold, the inbox must open the store whole.
        let memo = cache.side_file(dir.path(), kind, super::super::LINT_EXT);
        let kept = fs::read(&memo).unwrap();
        fs::write(&memo, b"not a memo").unwrap();
        let lean = cache.for_inbox();
        let store = open(&lean);
        assert!(lean.lean_digest().is_some());
        assert!(lint_lean(&lean, store).is_none());
        fs::write(&memo, &kept).unwrap();
        // A note changed: opened whole (its links read), by `open`'s own way.
        let p = dir.path().join("note-3.md");
        fs::write(&p, "---\ntitle: Note 3\n---\nNow [[Elsewhere]].\n").unwrap();
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(1800))
            .unwrap();
        let lean = cache.for_inbox();
        let store = open(&lean);
        assert!(lean.lean_digest().is_none());
        assert!(store.entities.iter().any(|e| !e.links.is_empty()));
        assert!(lint_lean(&lean, store).is_none(), "a whole store is not linted as a lean one");
        // A plain cache never opens without links.
        let plain = Cache::new(cdir.path());
        let store = open(&plain);
        assert!(plain.lean_digest().is_none() && store.entities.iter().any(|e| !e.links.is_empty()));
    }

    /// While lint runs, the queue streams without lint's reasons (provisional, in batches, the
    /// first read on the calling thread); then the whole queue with them, as `inbox` builds it.
    #[test]
    fn the_queue_streams_while_lint_runs_then_arrives_whole_with_lint_reasons() {
        // Every seventh note links nowhere: a broken link, lint's own reason to queue it.
        let dir = side::fixture::aged_vault(|i| {
            let link = if i % 7 == 0 { " See [[Nowhere]]." } else { "" };
            (format!("Note {i}"), format!("Body of note {i}.{link}"))
        });
        let (_cdir, cache) = temp_cache();
        let store = load_vault(&dir);
        let (want, _) = inbox(None, &store);
        let ids = |items: &[QueueItem]| items.iter().map(|i| format!("{} {:?}", i.id, i.reasons)).collect::<Vec<_>>();
        let lint = || {
            let config = crate::store::lint::LintConfig::load(&store.root, store.kind()).unwrap_or_default();
            crate::store::lint::lint(&store, &config)
        };
        let findings = |items: &[QueueItem]| items.iter().map(|i| i.findings.len()).sum::<usize>();
        let mut provisional_sizes = Vec::new();
        let (mut provisional, mut whole) = (Vec::new(), None);
        inbox_while_linting(Some(&cache), &store, 100, &lint, &mut |b, early| {
            if early {
                provisional_sizes.push(b.done);
                queue::merge(&mut provisional, b.items);
            } else {
                assert_eq!((b.done, b.total), (store.entities.len(), store.entities.len()));
                assert!(whole.replace(b.items).is_none(), "one whole queue");
            }
            true
        });
        let whole = whole.unwrap();
        assert_eq!(ids(&whole), ids(&want));
        assert_eq!(format!("{whole:?}"), format!("{want:?}"));
        assert_eq!(provisional_sizes.first(), Some(&100));
        assert_eq!(provisional_sizes.last(), Some(&store.entities.len()));
        let mut without_lint = Vec::new();
        inbox_in_batches(None, &store, &Default::default(), usize::MAX, &mut |b| {
            without_lint = b.items;
            true
        });
        assert_eq!(ids(&provisional), ids(&without_lint));
        // Lint's findings (the broken links) are the whole queue's, not the provisional list's.
        assert!(findings(&want) > 0);
        assert_eq!(findings(&provisional), 0);
        // The facts were saved: a second run reads no file.
        let (_, read, reused) = all(Some(&cache), &store);
        assert_eq!((read, reused), (0, store.entities.len()));
        // The first batch's facts, read on this thread, are those read in parallel.
        let (mut here, mut there) = (Vec::new(), Vec::new());
        assert_eq!(queue::complete_facts_here(&store, &mut here, 0..50), 50);
        assert_eq!(queue::complete_facts(&store, &mut there, 0..50), 50);
        assert_eq!(here, there);
    }

    #[test]
    fn a_second_run_reads_nothing_and_an_edited_file_is_read_again() {
        let dir = vault();
        let (_cdir, cache) = temp_cache();
        let load = || load_vault(&dir);
        let store = load();
        let n = store.entities.len();
        let want: Vec<Option<TextFacts>> = (0..n as EntityIdx).map(|i| TextFacts::read(&store, i)).collect();
        assert!(want.iter().all(Option::is_some));
        assert_eq!(all(None, &store), (want.clone(), n, 0), "without a cache every file is read");
        assert_eq!(all(Some(&cache), &store), (want.clone(), n, 0));
        assert_eq!(all(Some(&cache), &store), (want, 0, n), "the second run takes every entity's facts from the file");

        // Same size, another author and mtime: read again, and the new author is what counts.
        let edited = dir.path().join("note-3.md");
        fs::write(&edited, "---\ntitle: Note 3\nauthor: bob\n---\nBod\n").unwrap();
        let earlier = SystemTime::now() - Duration::from_secs(1800);
        fs::File::options().write(true).open(&edited).unwrap().set_modified(earlier).unwrap();
        let store = load();
        let (facts, computed, reused) = all(Some(&cache), &store);
        assert_eq!((computed, reused), (1, n - 1));
        let i = store.entities.iter().position(|e| e.path == "note-3.md").unwrap();
        let f = facts[i].as_ref().unwrap();
        assert_eq!(f.author.as_deref(), Some("bob"));
        assert_eq!(f.hash_text(), digest::of(store.read_entity_text(i as EntityIdx).unwrap().as_bytes()));

        // A corrupt file is ignored with a warning naming it, and every entity is read again.
        let file = cache.side_file(&store.root, store.kind(), HASHES_EXT);
        fs::write(&file, b"FOLIOH2\nbroken").unwrap();
        let f = Facts::open(Some(&cache), &store);
        assert_eq!(f.reused, 0);
        assert!(f.warnings.len() == 1 && f.warnings[0].contains(&file.display().to_string()), "{:?}", f.warnings);
    }

    #[test]
    fn a_damaged_facts_section_is_ignored_and_rebuilt() {
        let dir = vault();
        let (_cdir, cache) = temp_cache();
        let store = load_vault(&dir);
        let n = store.entities.len();
        let (want, _, _) = all(Some(&cache), &store);
        let file = cache.side_file(&store.root, store.kind(), HASHES_EXT);
        let bytes = fs::read(&file).unwrap();
        // A byte of the facts (decoded as they are read) flipped: its checksum fails, nothing
        // decoded from it is used, and the next run writes the file again.
        let mut bad = bytes.clone();
        let at = side::fixture::sections(&bad)[FACTS].end - 10;
        bad[at] ^= 0x5a;
        fs::write(&file, &bad).unwrap();
        let f = Facts::open(Some(&cache), &store);
        assert_eq!(f.reused, 0);
        assert!(f.warnings.len() == 1 && f.warnings[0].contains("checksum"), "{:?}", f.warnings);
        assert_eq!(all(Some(&cache), &store), (want.clone(), n, 0), "every entity read again");
        assert_eq!(Facts::open(Some(&cache), &store).reused, n, "written again whole");
        // Cut short in the facts: truncated, ignored the same way.
        let good = fs::read(&file).unwrap();
        fs::write(&file, &good[..side::fixture::sections(&good)[FACTS].end - 3]).unwrap();
        let f = Facts::open(Some(&cache), &store);
        assert!(f.reused == 0 && f.warnings[0].contains("truncated"), "{:?}", f.warnings);
    }

    /// The facts' section and the keys' (after the header's and `side::SameKeys`'s).
    const FACTS: usize = 2;
    const KEYS: usize = 3;

    /// A store whose every key is as saved takes the facts without reading the keys (the keys'
    /// section damaged goes unnoticed); one file changed, the keys are read (and their damage
    /// found); and so they are when a file was written within the slack of the saved reads.
    #[test]
    fn the_keys_are_read_only_when_the_store_differs_from_the_saved_digest() {
        let dir = vault();
        let (_cdir, cache) = temp_cache();
        let load = || load_vault(&dir);
        let store = load();
        let n = store.entities.len();
        let (want, _, _) = all(Some(&cache), &store);
        let file = cache.side_file(&store.root, store.kind(), HASHES_EXT);
        let damage_keys = || {
            let mut bytes = fs::read(&file).unwrap();
            let keys = side::fixture::sections(&bytes)[KEYS].clone();
            assert_eq!(keys.end, bytes.len(), "the keys come last");
            bytes[keys.start + 3] ^= 0x5a;
            fs::write(&file, &bytes).unwrap();
        };
        damage_keys();
        let f = Facts::open(Some(&cache), &store);
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
        assert_eq!((f.reused, f.slots), (n, want));
        // Another mtime for one note: the digest differs, the keys are read, the damage found.
        let touched = dir.path().join("note-3.md");
        let earlier = SystemTime::now() - Duration::from_secs(1800);
        fs::File::options().write(true).open(&touched).unwrap().set_modified(earlier).unwrap();
        let f = Facts::open(Some(&cache), &load());
        assert!(f.reused == 0 && f.warnings.len() == 1 && f.warnings[0].contains("checksum"), "{:?}", f.warnings);
        // A note written just now: the facts saved with it are not all trusted, so even the same
        // store weighs its keys one by one (the one note read again each time).
        fs::write(dir.path().join("note-4.md"), "---\ntitle: Note 4\n---\nNew.\n").unwrap();
        let store = load();
        assert_eq!(all(Some(&cache), &store).1, n, "the damaged file is written again whole");
        damage_keys();
        let f = Facts::open(Some(&cache), &store);
        assert!(f.reused == 0 && f.warnings[0].contains("checksum"), "{:?}", f.warnings);
    }

    /// The saved keys weighed as they are decoded (`side::KeptInOrder`) when the store holds the
    /// same entities in the same order; otherwise held and matched by path and id (`side::kept`).
    #[test]
    fn facts_are_kept_by_entity_when_the_store_holds_others_in_another_order() {
        let dir = vault();
        let (_cdir, cache) = temp_cache();
        let load = || load_vault(&dir);
        let store = load();
        let n = store.entities.len();
        assert_eq!(all(Some(&cache), &store).1, n);
        // A note sorted before every other: each saved entry's entity is one further on.
        let first = dir.path().join("a-first.md");
        fs::write(&first, "---\ntitle: First\n---\nFirst.\n").unwrap();
        fs::File::options()
            .write(true)
            .open(&first)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        let store = load();
        assert_eq!(store.entities[0].path, "a-first.md");
        let want: Vec<Option<TextFacts>> =
            (0..store.entities.len() as EntityIdx).map(|i| TextFacts::read(&store, i)).collect();
        let (facts, computed, reused) = all(Some(&cache), &store);
        assert_eq!((computed, reused), (1, n), "only the new note is read");
        assert_eq!(facts, want);
        // In order again (the file was rewritten): taken as decoded.
        assert_eq!(all(Some(&cache), &store), (want, 0, n + 1));
    }

    #[test]
    fn facts_made_for_another_parse_of_the_entity_are_read_again() {
        let dir = vault();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let mut facts: Vec<Option<TextFacts>> = (0..3).map(|i| TextFacts::read(&store, i)).collect();
        let right = facts[1].clone();
        if let Some(f) = facts[1].as_mut() {
            f.entity ^= 1;
            f.author = Some("stale".into());
        }
        assert_eq!(queue::complete_facts(&store, &mut facts, 0..3), 1);
        assert_eq!(facts[1], right);
        assert_eq!(facts.len(), store.entities.len(), "grown to the store's size, the rest left to read");
        assert!(facts[3..].iter().all(Option::is_none));
    }

    /// What the load takes while it holds each file (`Reads::EntitiesForInbox`) is what
    /// reading the file afterwards gives, entity by entity, on every fixture store and on a vault
    /// of awkward files; a file it could not take them from is left to be read, and the inbox is
    /// the same either way.
    #[test]
    fn facts_taken_while_loading_are_those_read_afterwards() {
        use crate::store::Reads;
        use crate::store::model::entity::rule;
        use crate::store::read::detect;
        let awkward = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| fs::write(awkward.path().join(name), bytes).unwrap();
        for i in 0..40 {
            write(&format!("n{i}.md"), format!("---\ntitle: N{i}\nauthor: ann\n---\nSee [[n{}]].\n", i + 1).as_bytes());
        }
        write("crlf.md", b"---\r\ntitle: CRLF\r\nauthor: bob\r\nstatus: draft\r\n---\r\nBody\r\n");
        write("latin1.md", b"---\ntitle: Caf\xe9\n---\nna\xefve body\n");
        write("binary.md", b"---\ntitle: B\n---\n\x00\x01\x02");
        write("broken-yaml.md", b"---\ntitle: [unclosed\n---\nBody\n");
        let mut huge = b"---\ntitle: Huge\n---\n".to_vec();
        huge.resize(MAX_READ_FOR_TEST + 4096, b'x');
        write("huge.md", &huge);
        let mut stores: Vec<(std::path::PathBuf, crate::store::dialect::DialectKind)> =
            crate::store::fixture_stores::all()
                .into_iter()
                .map(|(root, _)| {
                    let found = detect::detect(&root);
                    (found.root, found.kind)
                })
                .collect();
        stores.push((awkward.path().to_path_buf(), crate::store::dialect::vault::KIND));
        let everything = |_: &std::path::Path, _| true;
        for (root, kind) in stores {
            let store = Store::load_with(&root, kind, "test".into(), None, Reads::EntitiesForInbox(&everything));
            let loaded = store.take_loaded_facts().expect("the load took the facts");
            assert!(store.take_loaded_facts().is_none(), "taken once");
            assert_eq!(loaded.len(), store.entities.len());
            let mut taken = 0;
            for (i, facts) in loaded.iter().enumerate() {
                let read = TextFacts::read(&store, i as EntityIdx);
                let e = store.entity(i as EntityIdx);
                match facts {
                    Some(facts) => {
                        taken += 1;
                        assert_eq!(Some(facts), read.as_ref(), "{}: {}", root.display(), e.path);
                    }
                    // Left to be read: only a file the load could not parse.
                    None => assert!(
                        e.escapes_root()
                            || e.problems.iter().any(|p| [rule::BINARY, rule::UNREADABLE].contains(&p.rule)),
                        "{}: {} has no facts",
                        root.display(),
                        e.path
                    ),
                }
            }
            assert!(taken > 0, "{}", root.display());
            let plain = Store::load(&root, kind, "test".into());
            let with_facts = Store::load_with(&root, kind, "test".into(), None, Reads::EntitiesForInbox(&everything));
            assert_eq!(format!("{:?}", inbox(None, &with_facts).0), format!("{:?}", inbox(None, &plain).0));
        }
    }

    const MAX_READ_FOR_TEST: usize = crate::store::read::load::MAX_READ as usize;
}
