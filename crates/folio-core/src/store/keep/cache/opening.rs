//! Opening a store through the cache: the snapshot checked against the store's files and
//! brought up to date, or the store loaded from its files and the cache written.
use super::*;

/// The store at `root`: from the cache brought up to date (only files whose size or mtime
/// changed, and added or removed ones, are read), or loaded from its files when there is no
/// usable cache. The cache is written when it was missing or anything changed. The strings
/// are warnings for the person (an ignored cache file, one that could not be written).
/// A load from the files reads what `reads` asks.
pub fn open(
    cache: Option<&Cache>,
    root: &Path,
    kind: DialectKind,
    detected_by: String,
    reads: Reads<'_>,
) -> (Store, Vec<String>) {
    let Some(cache) = cache.filter(|_| cacheable(kind)) else {
        return (Store::load_with(root, kind, detected_by, None, reads), Vec::new());
    };
    let started = Instant::now();
    let mut checked = None;
    if let Some(lean) = &cache.lean {
        match open_lean(cache, root, kind, &detected_by, &AtomicBool::new(false)) {
            Lean::Open(store, digests, key) => {
                let _ = lean.set(digests);
                cache.keyed(key);
                return (*store, Vec::new());
            }
            Lean::Answered(store, listing) => {
                cache.answered(listing);
                return (*store, Vec::new());
            }
            Lean::Changed(check) => checked = Some(check),
            Lean::Whole => {}
        }
    }
    // Most of the files changed since the snapshot: read from the files, the snapshot not
    // decoded (`Validation::names_most_files`); `finish` writes the cache again.
    if checked.take_if(|c| c.validation.names_most_files()).is_some() {
        return finish(cache, Err(Miss::Absent), started, root, kind, detected_by, reads, None);
    }
    let cached = cache.load_tokened(root, kind, detected_by.clone());
    finish(cache, cached, started, root, kind, detected_by, reads, checked)
}

/// A cached store as decoded, the files token its snapshot was taken at, and the snapshot.
pub(super) type Cached = (Store, Option<u64>, codec::Earlier);

/// What the inbox's open without links (`open_lean`) came to.
pub(super) enum Lean {
    /// The store, unchanged since its snapshot, the snapshot's digests of it and the key its
    /// review listing may be kept under (`inbox_memo`).
    Open(Box<Store>, codec::LintDigest, Option<inbox_memo::Key>),
    /// The store unchanged since its snapshot, its listing for the cache's request kept: the
    /// listing, and a store without entities standing in for the one not decoded.
    Answered(Box<Store>, Vec<u8>),
    /// Files changed since the snapshot: the check that found them, which the whole open of
    /// the same snapshot takes instead of walking and stating every file again.
    Changed(Check),
    /// Not for this store or snapshot: the whole open, as usual.
    Whole,
}

/// A check of a snapshot's files against the disk (`validate`), and which snapshot it was of.
pub(super) struct Check {
    validation: validate::Validation,
    /// When the check began: the store reads as of then once what it names is read again.
    began: std::time::SystemTime,
    /// The snapshot's own `read_since` and entity count, which tell it from another written
    /// meanwhile.
    snapshot: (std::time::SystemTime, usize),
}

/// The store at `root` from its cache without its entities' links and lint's memo digest of
/// it, when that store is exactly what `open` would give — no file changed since the snapshot,
/// which needs no write, its catalogs' verdict holding — and the snapshot kept the digest under
/// the manifest rules the format has now. The files are checked against the snapshot's file
/// stamps (`codec::Front`) before any entity is decoded (`codec::decode_file_lean_entities`):
/// when one changed, nothing else is decoded and the check goes to the whole open of the same
/// snapshot, which does not walk and stat every file again (docs/benchmarks.md, "The inbox,
/// sixth pass"). Anything else takes `open`'s usual way (which reads, warns and rewrites as it
/// must). Once `stop` is set, no more of the snapshot is decoded (`Lean::Whole`).
pub(super) fn open_lean(cache: &Cache, root: &Path, kind: DialectKind, detected_by: &str, stop: &AtomicBool) -> Lean {
    open_lean_checked(cache, root, kind, detected_by, stop).unwrap_or_else(Lean::Changed)
}

/// `open_lean`'s work; Err: files changed, with the check that found them.
pub(super) fn open_lean_checked(
    cache: &Cache,
    root: &Path,
    kind: DialectKind,
    detected_by: &str,
    stop: &AtomicBool,
) -> Result<Lean, Check> {
    let started = Instant::now();
    let Ok((file, _, header, read_since)) = cache.open_file(root, kind) else { return Ok(Lean::Whole) };
    // As `finish`: the token read before any file is checked.
    let token = kind.format().files_token(root);
    // A database's changed rows, or a token to record: `open`'s way, which may write.
    if token.is_some() && header.files_token != token {
        return Ok(Lean::Whole);
    }
    // The format vouches that no file changed since the snapshot: the files' stamps, one path
    // per entity, are not needed.
    let stamps = if token.is_some() { codec::Stamps::Checked } else { codec::Stamps::Decoded };
    // The format opens while the snapshot's front is decoded, as in `load_as`.
    let (front, dialect) = rayon::join(|| codec::decode_file_front(&file, stamps), || kind.open(root));
    let Ok(front) = front else { return Ok(Lean::Whole) };
    // Parsed under another workspace policy (AIP-10): `load_as` refuses the snapshot.
    if dialect.parse_inputs() != front.parse_inputs {
        return Ok(Lean::Whole);
    }
    let Some(lint) = front.lint.filter(|l| l.manifest == codec::manifest_key(&dialect.manifest_lints())) else {
        return Ok(Lean::Whole);
    };
    // None: the format vouches that no file changed since the snapshot.
    let mut checked = None;
    if token.is_none() {
        // A token to forget, or entities with no files to check: `open`'s way.
        if dialect.in_memory() || header.files_token.is_some() {
            return Ok(Lean::Whole);
        }
        // As `Store::revalidate`, from the stamps alone.
        let began = std::time::SystemTime::now();
        let stamps = front.stamps.iter().map(|s| (s.path.as_str(), s.size, s.mtime_ns));
        let v = validate::validate_files(root, dialect.as_ref(), read_since, stamps, &front.other_files);
        if !v.paths.is_empty() {
            return Err(Check { validation: v, began, snapshot: (read_since, front.stamps.len()) });
        }
        checked = Some((v, began));
    }
    // Nothing changed since the snapshot (but what only its entities tell): the listing kept
    // for it answers, when nothing else moves it (`inbox_memo`).
    let key =
        cache.inbox.as_deref().filter(|_| inbox_memo::answerable(root, dialect.as_ref(), front.catalogs.as_ref()));
    let key = key.and_then(|ask| inbox_memo::key(root, kind, &file, &header, &lint, ask.request()));
    if let Some(listing) = key.and_then(|k| inbox_memo::kept(&cache.side_file(root, kind, INBOX_EXT), &k)) {
        let stand_in = Store::from_parts(
            root,
            dialect,
            detected_by.to_string(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            crate::store::Links::Dropped,
        );
        return Ok(Lean::Answered(Box::new(stand_in), listing));
    }
    let Ok(entities) = codec::decode_file_lean_entities(&file, &front, stop) else { return Ok(Lean::Whole) };
    let codec::Front { other_files, walk_warnings, catalogs, .. } = front;
    let mut store = Store::from_parts(
        root,
        dialect,
        detected_by.to_string(),
        entities,
        other_files,
        walk_warnings,
        crate::store::Links::Dropped,
    );
    store.set_catalog_memo(catalogs);
    store.read_since = read_since;
    store.from_cache = false;
    if let Some((mut v, began)) = checked {
        // Unchanged files the clock has made parse otherwise (`Dialect::outdated`), which only
        // the entities tell.
        validate::add_outdated(&store, &mut v);
        if !v.paths.is_empty() {
            return Err(Check { validation: v, began, snapshot: (read_since, store.entities.len()) });
        }
        store.walk_warnings = v.walk_warnings;
        store.read_since = began;
    }
    // A verdict that no longer holds is computed and written by `finish`.
    if store.catalog_memo().saved().is_some() && catalog::remembered::recalled(&store).is_none() {
        return Ok(Lean::Whole);
    }
    store.load_ms = started.elapsed().as_millis();
    Ok(Lean::Open(Box::new(store), lint, key))
}

/// `open` for a store whose files `refresh` first brings up to date (a database read into
/// its snapshot; it answers how the store was found): the cached snapshot is decoded
/// on another thread meanwhile, then checked against the files as `open` does.
pub fn open_after<E>(
    cache: Option<&Cache>,
    root: &Path,
    kind: DialectKind,
    refresh: impl FnOnce() -> Result<String, E>,
    reads: Reads<'_>,
) -> Result<(Store, Vec<String>), E> {
    let Some(cache) = cache.filter(|_| cacheable(kind)) else {
        return Ok((Store::load_with(root, kind, refresh()?, None, reads), Vec::new()));
    };
    let started = Instant::now();
    // The inbox's open without links, when the snapshot was taken at the generation the
    // database's folder was last left at: tried beside the refresh, kept only when the
    // refresh found the database as it was (docs/benchmarks.md, "pglist, tenth session").
    let before = cache.lean.as_ref().and_then(|_| kind.format().files_token(root));
    if let (Some(lean), Some(before)) = (&cache.lean, before)
        && read_header(&cache.file_for(root, kind)).is_ok_and(|h| h.files_token == Some(before))
    {
        let stop = AtomicBool::new(false);
        let (refreshed, leaned) = std::thread::scope(|s| {
            let leaned = s.spawn(|| open_lean(cache, root, kind, "", &stop));
            let refreshed = refresh();
            // A generation is new on every write: the same one after the refresh is the same
            // database the snapshot was taken of. Else the store without links is of no use:
            // its decode stops where it is, rather than hold both cores while the whole open
            // waits (docs/benchmarks.md, "Twenty-third session").
            let same = refreshed.is_ok() && kind.format().files_token(root) == Some(before);
            stop.store(!same, Ordering::Relaxed);
            (refreshed.map(|r| (r, same)), leaned.join())
        });
        let (detected_by, same) = refreshed?;
        match (leaned, same) {
            (Ok(Lean::Open(mut store, digests, key)), true) => {
                store.detected_by = detected_by;
                let _ = lean.set(digests);
                cache.keyed(key);
                return Ok((*store, Vec::new()));
            }
            (Ok(Lean::Answered(mut store, listing)), true) => {
                store.detected_by = detected_by;
                cache.answered(listing);
                return Ok((*store, Vec::new()));
            }
            // Decoded whole before the refresh ended: freed beside the whole open.
            (Ok(Lean::Open(store, ..)), false) => drop(std::thread::spawn(move || drop(store))),
            _ => {}
        }
        let cached = cache.load_tokened(root, kind, detected_by.clone());
        return Ok(finish(cache, cached, started, root, kind, detected_by, reads, None));
    }
    let (refreshed, cached) = std::thread::scope(|s| {
        let cached = s.spawn(|| cache.load_tokened(root, kind, String::new()));
        (refresh(), cached.join())
    });
    let detected_by = refreshed?;
    let cached = cached.unwrap_or(Err(Miss::Absent)).map(|(mut store, token, earlier)| {
        store.detected_by = detected_by.clone();
        (store, token, earlier)
    });
    Ok(finish(cache, cached, started, root, kind, detected_by, reads, None))
}

/// The cached store brought up to date (or loaded, when there is none), the cache written
/// again where it must be; `checked`: a check of the same snapshot's files already made
/// (`open_lean`'s), taken instead of walking and stating them again.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    cache: &Cache,
    cached: Result<Cached, Miss>,
    started: Instant,
    root: &Path,
    kind: DialectKind,
    detected_by: String,
    reads: Reads<'_>,
    checked: Option<Check>,
) -> (Store, Vec<String>) {
    let mut warnings = Vec::new();
    // Read before any file is checked or read: a change after it makes it differ next time.
    let token = kind.format().files_token(root);
    let mut earlier = None;
    let (mut store, mut dirty) = match cached {
        // The format vouches that no file changed since the snapshot: no stat per file.
        Ok((mut store, saved, _)) if token.is_some() && saved == token => {
            store.from_cache = false;
            store.load_ms = started.elapsed().as_millis();
            (store, false)
        }
        // Entities held in memory (a database's snapshot) have no file to check one by one:
        // those the open found changed since the cached generation are re-read, or else the
        // snapshot is read whole.
        Ok((mut store, saved, was)) if store.dialect.in_memory() => {
            match saved.and_then(|s| kind.format().changed_since(root, s)) {
                Some(paths) => {
                    earlier = was.noted_for(&store, &paths);
                    store.refresh(&paths);
                    store.load_ms = started.elapsed().as_millis();
                    // A few rows changed: not the whole cache written again for them
                    // (docs/benchmarks.md, "Round: issue 43 … seventh session").
                    let lag = paths.len() <= LAG_PATHS
                        && saved.is_some_and(|s| kind.format().cached_may_lag(root, s, OPEN_AHEAD));
                    // The inbox: written, so that the next list opens without links — its lint
                    // leaves the memo for these very rows (docs/benchmarks.md, "Thirty-sixth
                    // session").
                    let lag = lag && cache.lean.is_none();
                    (store, !lag)
                }
                None => (Store::load_with(root, kind, detected_by, None, reads), true),
            }
        }
        // A sample of the files says most of them changed: no walk and stat of every file to
        // confirm it (`validate::sample_names_most_files`).
        Ok((store, _, _)) if checked.is_none() && validate::sample_names_most_files(&store) => {
            (read_whole(store, started, root, kind, detected_by, reads), true)
        }
        Ok((mut store, saved, was)) => {
            let (validation, began) = match checked {
                Some(mut c) if c.snapshot == (store.read_since, store.entities.len()) => {
                    // The check was made from the file stamps: what the entities tell is added.
                    validate::add_outdated(&store, &mut c.validation);
                    (c.validation, c.began)
                }
                _ => {
                    // As `Store::revalidate`: the store reads as of when the check began.
                    let began = std::time::SystemTime::now();
                    (validate::validate(&store), began)
                }
            };
            if validation.names_most_files() {
                (read_whole(store, started, root, kind, detected_by, reads), true)
            } else {
                // The entities as decoded, before the files re-read change any: the write below
                // takes the earlier bytes of the chunks none of them is in.
                earlier = was.noted_for(&store, &validation.paths);
                let report = store.revalidate_checked(validation, began);
                store.load_ms = started.elapsed().as_millis();
                (store, !report.is_empty() || saved != token)
            }
        }
        Err(miss) => {
            if let Miss::Invalid(why) = miss {
                warnings.push(why);
            }
            let store = Store::load_with(root, kind, detected_by, None, reads);
            let big = store.entities.len() >= MIN_ENTITIES;
            (store, big)
        }
    };
    // The catalogs' verdict, kept with the snapshot (and by this store, for the command that
    // opened it): computed for a snapshot about to be written, and when the one the snapshot
    // remembers no longer holds (then written even if none can be kept now, a catalog having
    // changed just now: the next open does not try again).
    let remembered = store.catalog_memo().saved().is_some();
    if (dirty || remembered) && catalog::remembered::recalled(&store).is_none() {
        let verdict = catalog::remembered::remember(&store);
        store.set_catalog_memo(verdict);
        dirty = true;
    }
    if dirty && let Err(e) = cache.write(&store, None, token, earlier.as_ref()) {
        warnings.push(e);
    }
    (store, warnings)
}

/// The store read from its files, as if there were no snapshot, when most of them changed since
/// `decoded` was taken: patching them one by one costs more (`Validation::names_most_files`).
/// The decoded store is freed beside the load.
fn read_whole(
    decoded: Store,
    started: Instant,
    root: &Path,
    kind: DialectKind,
    detected_by: String,
    reads: Reads<'_>,
) -> Store {
    drop(std::thread::spawn(move || drop(decoded)));
    let mut whole = Store::load_with(root, kind, detected_by, None, reads);
    whole.load_ms = started.elapsed().as_millis();
    whole
}

/// At most this many paths re-read over a cached store that may lag (`Format::cached_may_lag`)
/// and it is not written again.
pub(super) const LAG_PATHS: usize = 64;

/// An open keeps a lagging cached store only while the format remembers the changes since
/// it for this many more writes than a decision needs (`store::DECISION_AHEAD`): the
/// decisions made after any open all open their parts, none the whole store (one in every
/// 32 did: docs/benchmarks.md, "Sixteenth session").
pub(super) const OPEN_AHEAD: usize = crate::store::DECISION_AHEAD + 16;
