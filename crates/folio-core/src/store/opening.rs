//! Opening a store: which format reads a path, through the persistent cache or by loading
//! its files, and what a load reads besides the entities (`Reads`).
use super::*;

/// What a load reads besides the entities.
#[derive(Clone, Copy, Default)]
pub enum Reads<'a> {
    #[default]
    Entities,
    /// Also every entity's description and body as words, into the term table that lint's
    /// content rules and the text index start from: tokenised while the loader holds each
    /// file's bytes, where building it afterwards would read every body a second time
    /// (docs/benchmarks.md, "Text index figures").
    EntitiesAndTerms,
    /// Also every entity's near-duplicate profile (lint's content rules), made while the loader
    /// holds each file's bytes, without the term table: lint needs no more of the bodies
    /// (docs/benchmarks.md, "Lint without the cache, eighth session").
    EntitiesAndProfiles,
    /// `EntitiesAndProfiles` when the function, asked with the store's root and format, says
    /// the profiles will be used (lint: unless the store's config turns the content rules off).
    ProfilesIf(&'a (dyn Fn(&Path, DialectKind) -> bool + Sync)),
    /// Also each entity's counts of these words (lower case) in its description and body, for
    /// a text query answered once without a cache: counted while the loader holds each file's
    /// bytes, where counting afterwards would read every body a second time
    /// (docs/benchmarks.md, "Round: issue 44").
    EntitiesCountingWords(&'a [String]),
    /// `ProfilesIf`, and also each entity's text facts for the review inbox
    /// (`queue::TextFacts`: the hash of its text, its reasons, author, evidence), taken while the
    /// loader holds each file's bytes, where taking them afterwards would open and read every
    /// queued file a second time (docs/benchmarks.md, "The inbox without the cache").
    EntitiesForInbox(&'a (dyn Fn(&Path, DialectKind) -> bool + Sync)),
}

impl std::fmt::Debug for Reads<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reads::Entities => "Entities",
            Reads::EntitiesAndTerms => "EntitiesAndTerms",
            Reads::EntitiesAndProfiles => "EntitiesAndProfiles",
            Reads::ProfilesIf(_) => "ProfilesIf",
            Reads::EntitiesCountingWords(_) => "EntitiesCountingWords",
            Reads::EntitiesForInbox(_) => "EntitiesForInbox",
        })
    }
}

impl<'a> Reads<'a> {
    fn body_pass(self, root: &Path, kind: DialectKind) -> load::BodyPass<'a> {
        match self {
            Reads::Entities => load::BodyPass::None,
            Reads::EntitiesAndTerms => load::BodyPass::Terms,
            Reads::EntitiesAndProfiles => load::BodyPass::Profiles,
            Reads::ProfilesIf(wanted) | Reads::EntitiesForInbox(wanted) if wanted(root, kind) => {
                load::BodyPass::Profiles
            }
            Reads::ProfilesIf(_) | Reads::EntitiesForInbox(_) => load::BodyPass::None,
            Reads::EntitiesCountingWords(words) => load::BodyPass::CountWords(words),
        }
    }
}

impl Store {
    /// Detect the store at `path` (or `--dialect`) and load it.
    pub fn open(path: &Path, dialect: Option<DialectKind>) -> Result<Store, StoreError> {
        Store::open_with(path, dialect, None, Reads::Entities).map(|(store, _)| store)
    }

    /// `open`, through the persistent cache when one is given (`cache::open`), a load from the
    /// files reading what `reads` asks; the strings are warnings about the cache for the person.
    pub fn open_with(
        path: &Path,
        dialect: Option<DialectKind>,
        cache: Option<&cache::Cache>,
        reads: Reads<'_>,
    ) -> Result<(Store, Vec<String>), StoreError> {
        // A connection string: the format that claims it reads it into a folder of its own,
        // while the store cached for that folder is decoded.
        if let Some((kind, root)) = detect::located_root(path, dialect) {
            // The folder named beforehand is a hint (a database's is keyed by who the server
            // says it is): when the read went elsewhere, the store is opened there.
            let mut elsewhere = None;
            let refresh = || match detect::locate(path, dialect) {
                Some(Ok(d)) if d.root == root && d.kind == kind => Ok(d.reason),
                Some(Ok(d)) => {
                    let why = format!("{} was read into {}", d.reason, d.root.display());
                    elsewhere = Some(d);
                    Err(StoreError::Database(why))
                }
                Some(Err(e)) => Err(StoreError::Database(e)),
                None => Err(StoreError::Database(format!("{}: no format reads it", detect::shown(path)))),
            };
            let opened = cache::open_after(cache, &root, kind, refresh, reads);
            return match (opened, elsewhere) {
                (Err(_), Some(d)) => Ok(cache::open(cache, &d.root, d.kind, d.reason, reads)),
                (opened, _) => opened,
            };
        }
        if let Some(found) = detect::locate(path, dialect) {
            let d = found.map_err(StoreError::Database)?;
            return Ok(cache::open(cache, &d.root, d.kind, d.reason, reads));
        }
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StoreError::NotFound(path.to_path_buf()),
            _ => StoreError::Io { path: path.to_path_buf(), err: e },
        })?;
        if !meta.is_dir() {
            return Err(StoreError::NotADirectory(path.to_path_buf()));
        }
        if dialect.is_none()
            && let Err(e) = choose_store(path, None)
        {
            return Err(e);
        }
        let detection = match dialect {
            Some(kind) => {
                detect::Detection { kind, root: detect::root_for(kind, path), reason: format!("--dialect {kind}") }
            }
            None => detect::detect(path),
        };
        Ok(cache::open(cache, &detection.root, detection.kind, detection.reason, reads))
    }

    /// The part of the store at `path` that a decision about the entities `names` gives (ids or
    /// paths, told the store's root and format), when its format opens such parts (a database,
    /// whose whole cached store is 100k entities: `Format::open_part`), read as it is now; with
    /// `inbound`, and the entities that may link into them (a verdict taking them away). None:
    /// open the whole store (a folder store, a database not opened here before).
    /// The cached store is not brought up to the decision; once it lags by more than its
    /// format lets it (`Format::cached_may_lag`) the whole store is opened instead, which
    /// brings it up, so that it never falls behind what the format remembers since it.
    pub fn open_part(
        path: &Path,
        dialect: Option<DialectKind>,
        cache: Option<&cache::Cache>,
        names: impl FnOnce(&Path, DialectKind) -> Vec<String>,
        inbound: bool,
    ) -> Result<Option<Store>, StoreError> {
        let (Some((kind, root)), Some(locator)) = (detect::located_root(path, dialect), path.to_str()) else {
            return Ok(None);
        };
        let format = kind.format();
        format.reach_ahead(locator);
        let cached = cache.and_then(|c| cache::read_header(&c.file_for(&root, kind)).ok());
        let now = format.files_token(&root);
        if cached
            .and_then(|h| h.files_token)
            .is_some_and(|t| Some(t) != now && !format.cached_may_lag(&root, t, DECISION_AHEAD))
        {
            return Ok(None);
        }
        let names = names(&root, kind);
        let Some(part) = format.open_part(locator, detect::show_archived(), &root, &names, inbound) else {
            return Ok(None);
        };
        let (part, reason) = part.map_err(StoreError::Database)?;
        Ok(Some(Store::load_opened(&root, part, reason, None, Reads::Entities)))
    }

    /// Find the store from `start` upward (the default when no PATH is given) and load it.
    pub fn discover(start: &Path, dialect: Option<DialectKind>) -> Result<Store, StoreError> {
        Store::discover_with(start, dialect, None, Reads::Entities).map(|(store, _)| store)
    }

    /// `discover`, through the persistent cache when one is given.
    pub fn discover_with(
        start: &Path,
        dialect: Option<DialectKind>,
        cache: Option<&cache::Cache>,
        reads: Reads<'_>,
    ) -> Result<(Store, Vec<String>), StoreError> {
        if let Some(db) = detect::database_from_env() {
            return Store::open_with(&db, dialect, cache, reads);
        }
        match detect::find_upward(start) {
            Some(found) => Store::open_with(&found, dialect, cache, reads),
            None => Err(StoreError::NoStoreFound(start.to_path_buf())),
        }
    }

    /// Load `root` as `kind`. Never fails: unreadable parts become problems.
    pub fn load(root: &Path, kind: DialectKind, detected_by: String) -> Store {
        Store::load_with(root, kind, detected_by, None, Reads::Entities)
    }

    /// `load`, updating `progress` as files are read (for a UI loading on another thread) and
    /// reading what `reads` asks.
    pub fn load_with(
        root: &Path,
        kind: DialectKind,
        detected_by: String,
        progress: Option<&load::LoadProgress>,
        reads: Reads<'_>,
    ) -> Store {
        Store::load_opened(root, kind.open(root), detected_by, progress, reads)
    }

    /// `load_with`, the format already opened on `root` (one opened on a part of a database for
    /// a decision about it: `Store::open_part`).
    fn load_opened(
        root: &Path,
        dialect: Box<dyn Dialect>,
        detected_by: String,
        progress: Option<&load::LoadProgress>,
        reads: Reads<'_>,
    ) -> Store {
        let started = Instant::now();
        let read_since = SystemTime::now();
        let kind = dialect.kind();
        let facts_of = |e: &Entity, text: &str| -> load::Made {
            review::queue::TextFacts::of(dialect.as_ref(), e, text).map(|f| Box::new(f) as _)
        };
        let from_text: Option<load::FromText<'_>> = match reads {
            Reads::EntitiesForInbox(_) => Some(&facts_of),
            _ => None,
        };
        let loaded = load::walk_and_read(root, dialect.as_ref(), progress, reads.body_pass(root, kind), from_text);
        let loaded_facts = loaded
            .made
            .map(|made| made.into_iter().map(|m| m.and_then(|m| m.downcast().ok()).map(|f: Box<_>| *f)).collect());
        let entities = loaded.entities;
        let walk_warnings = loaded.warnings;
        let other_files: Vec<(String, FileRole)> = loaded.other_files.into_iter().map(|f| (f.rel, f.role)).collect();
        let mut store = Store {
            root: root.to_path_buf(),
            dialect,
            detected_by,
            entities,
            other_files,
            walk_warnings,
            backlinks: Arc::default(),
            load_ms: 0,
            read_since,
            from_cache: false,
            by_id: Arc::default(),
            overlay: Arc::default(),
            catalog_memo: Default::default(),
            loaded_facts: std::sync::Mutex::new(loaded_facts),
            loaded_terms: std::sync::Mutex::new(match (loaded.terms, loaded.word_counts) {
                _ if loaded.profiles.is_some() => loaded.profiles.map(LoadedBodies::Profiles),
                (Some(terms), _) => Some(LoadedBodies::Terms(terms)),
                (None, Some(counts)) => match reads {
                    Reads::EntitiesCountingWords(words) => {
                        Some(LoadedBodies::WordCounts { words: words.to_vec(), counts })
                    }
                    _ => None,
                },
                (None, None) => None,
            }),
        };
        store.link(true);
        store.load_ms = started.elapsed().as_millis();
        store
    }

    /// A store from entities whose links are already resolved (the cache) and its format opened
    /// on `root`: only the derived indexes (backlinks, ids) are built. Entities decoded without
    /// their links (`Links::Dropped`: the review inbox's lean open, which reads none) get the id
    /// index only, every backlink row empty, as after the inbox sheds a whole store's links.
    pub(crate) fn from_parts(
        root: &Path,
        dialect: Box<dyn Dialect>,
        detected_by: String,
        entities: Vec<Arc<Entity>>,
        other_files: Vec<(String, FileRole)>,
        walk_warnings: Vec<dialect::StoreWarning>,
        links: Links,
    ) -> Store {
        let mut store = Store {
            root: root.to_path_buf(),
            dialect,
            detected_by,
            entities,
            other_files,
            walk_warnings,
            backlinks: Arc::default(),
            load_ms: 0,
            read_since: SystemTime::now(),
            from_cache: false,
            by_id: Arc::default(),
            overlay: Arc::default(),
            catalog_memo: Default::default(),
            loaded_terms: Default::default(),
            loaded_facts: Default::default(),
        };
        match links {
            Links::Resolved => store.index(),
            Links::Dropped => {
                let none: Arc<[EntityIdx]> = Arc::from([]);
                store.backlinks = Arc::new(vec![none; store.entities.len()]);
                store.by_id = Arc::new(id_index::IdIndex::build(&store.entities));
            }
        }
        store
    }
}
