//! The domain: a knowledge store loaded into one model. No terminal code lives here.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

pub mod dialect;
#[cfg(test)]
pub(crate) mod fixture_stores;
/// An entity's history and blame from git, and restoring an old version.
pub mod history;
pub mod keep;
pub mod lint;
pub mod model;
mod opening;
pub mod read;
pub mod review;
pub mod write;

use dialect::{Dialect, DialectKind, FileRole};
use entity::{Entity, EntityIdx, LinkSyntax};
use frontmatter::Fields;
use keep::cache;
use model::{entity, id_index, prefetch};
use read::{detect, frontmatter, load, resolve};

pub use opening::Reads;

/// Why a store could not be opened at all (single files never stop a load).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}: no such directory")]
    NotFound(PathBuf),
    #[error("{0}: not a directory")]
    NotADirectory(PathBuf),
    #[error("no knowledge store found in {0} or any parent (looked for {markers})", markers = dialect::markers_looked_for())]
    NoStoreFound(PathBuf),
    #[error("{path}: {err}")]
    Io { path: PathBuf, err: std::io::Error },
    #[error("{} holds {} {what} ({}): each is a store of its own; open one with `--bundle NAME` or by its folder", .path.display(), .names.len(), .names.join(", "))]
    SeveralStores { path: PathBuf, what: &'static str, names: Vec<String> },
    /// A database that could not be read (unreachable, refused, not opendray's schema): one
    /// line, never the password.
    #[error("{0}")]
    Database(String),
    #[error("{}: no bundle `{name}` here{known}", .path.display())]
    NoSuchBundle { path: PathBuf, name: String, known: String },
}

/// The folder to open for `path` and `--bundle NAME`: `path` itself, or the named store among
/// several side by side in it. Several stores and no name is an error naming them, so that a
/// folder of bundles is never read (and written) as one store.
pub fn choose_store(path: &Path, bundle: Option<&str>) -> Result<PathBuf, StoreError> {
    let Some((what, found)) = detect::stores_within(path) else {
        return match bundle {
            Some(name) if path.join(name).is_dir() => Ok(path.join(name)),
            Some(name) => {
                Err(StoreError::NoSuchBundle { path: path.to_path_buf(), name: name.into(), known: String::new() })
            }
            None => Ok(path.to_path_buf()),
        };
    };
    let names: Vec<String> =
        found.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
    match bundle {
        Some(name) => match names.iter().position(|n| n == name) {
            Some(i) => Ok(found[i].clone()),
            None => Err(StoreError::NoSuchBundle {
                path: path.to_path_buf(),
                name: name.into(),
                known: format!(" (there are: {})", names.join(", ")),
            }),
        },
        None => Err(StoreError::SeveralStores { path: path.to_path_buf(), what, names }),
    }
}

/// A loaded store: every entity, its links resolved, backlinks computed.
pub struct Store {
    /// The folder the dialect treats as the root; every relative path is relative to it.
    pub root: PathBuf,
    pub dialect: Box<dyn Dialect>,
    /// Why this dialect was chosen (`--dialect`, or the marker that was found).
    pub detected_by: String,
    /// Sorted by path and line. Each entity is shared with the store's refreshed copies, which
    /// replace only the ones they re-read (a copy costs a pointer per entity, not a deep clone).
    pub entities: Vec<Arc<Entity>>,
    /// Every file under the root that is not an entity file, with its role.
    pub other_files: Vec<(String, FileRole)>,
    /// Folders that could not be listed (permissions, I/O errors), each named.
    pub walk_warnings: Vec<dialect::StoreWarning>,
    /// For each entity, the entities that link to it or name it in a typed edge (sorted, unique);
    /// rows are shared with refreshed copies like the entities, and the table itself too
    /// until a refresh changes a row: most agents' edits change no link, and sharing every row
    /// one by one was much of a refresh's cost (docs/benchmarks.md, "Thirty-seventh session").
    pub backlinks: Arc<Vec<Arc<[EntityIdx]>>>,
    pub load_ms: u128,
    /// No entity was read before this instant (what the cache's mtime check is relative to).
    pub read_since: SystemTime,
    /// Opened from the persistent cache, not yet checked against the files (`cache::validate`).
    pub from_cache: bool,
    /// Shared between a store and its refreshed copies (ids rarely change).
    by_id: Arc<id_index::IdIndex>,
    /// A previewed store (`overlaid`): the files its writes create (true) or remove (false),
    /// which the disk does not show yet. Empty for a store read from disk.
    overlay: Arc<std::collections::HashMap<String, bool>>,
    /// The catalogs' states as the cache remembered them (`catalog::remembered`): dropped by
    /// anything that changes the entities.
    catalog_memo: write::catalog::remembered::Memo,
    /// What the load made of the bodies while it held each file's bytes (`Reads`), until the
    /// first feature that reads them takes it (`Content::build`, a text query); never kept once
    /// the entities change (`refresh`).
    loaded_terms: std::sync::Mutex<Option<LoadedBodies>>,
    /// Each entity's text facts, in the entities' order, when the load took them
    /// (`Reads::EntitiesForInbox`), until the inbox takes them; dropped as `loaded_terms` is.
    loaded_facts: std::sync::Mutex<Option<Vec<Option<review::queue::TextFacts>>>>,
}

/// What the load made of the entities' descriptions and bodies (`Reads`).
enum LoadedBodies {
    Terms(read::content::Content),
    /// Every entity's near-duplicate profile, in the entities' order.
    Profiles(Vec<read::content_words::Profile>),
    /// The counts of `words` in each entity's, in the entities' order.
    WordCounts {
        words: Vec<String>,
        counts: Vec<read::query_words::WordCounts>,
    },
}

impl Store {
    /// Resolve every link and edge, then compute backlinks. With `verdict`, a format whose
    /// catalogs read only the entities' fields has its catalogs' verdict computed meanwhile and
    /// remembered (`catalog::remembered`): every full load of a cached store computes it for
    /// the snapshot, and `stats` asks for it; after the resolution, on its own, a large curated
    /// catalog's lines would be fed on one thread (docs/benchmarks.md, "Catalog figures").
    fn link(&mut self, verdict: bool) {
        use rayon::prelude::*;
        // The resolver borrows the entities (their folders) and the id index reads their ids
        // meanwhile, so links and edges are moved out while they are filled in, and its maps are dropped before backlinks are built (peak memory).
        // Freshly loaded entities are not shared, so `make_mut` copies nothing then.
        // Moving them out and back touches every entity: in parallel, as one thread it is
        // serial time that grows with the store (docs/benchmarks.md, "Link resolution figures").
        let mut outgoing: Vec<_> = self
            .entities
            .par_iter_mut()
            .map(Arc::make_mut)
            .map(|e| (std::mem::take(&mut e.links), std::mem::take(&mut e.edges)))
            .collect();
        // Names (ids, stems, titles, aliases) are looked up only for wikilinks and typed edges:
        // a store with neither (an OKF bundle links by path) skips building their table, work
        // on every core that grows with the store (docs/benchmarks.md, "Link resolution figures").
        // Edges naming a store path (OKF's `sources[].resource`) are looked up by path, unless
        // edges name ids alone (`LinkRules::edges_by_id`: `a/b.md` is a node's id there).
        let by_id = self.link_context().rules.edges_by_id;
        let needs_names = outgoing.par_iter().any(|(links, edges)| {
            edges.iter().any(|e| by_id || !resolve::is_path_target(&e.target))
                || links.iter().any(|l| l.syntax == LinkSyntax::Wiki)
        });
        let this = &*self;
        let files = || this.other_files.iter().map(|(p, _)| p.as_str());
        let catalogs_beside = verdict && this.dialect.catalogs_read_fields_only();
        // The id index needs no link: built beside the resolution, whose parallel work hides
        // it (after it, it would be serial time on one thread).
        let ((by_id, remembered), ()) = rayon::join(
            || {
                rayon::join(
                    || id_index::IdIndex::build(&this.entities),
                    || catalogs_beside.then(|| write::catalog::remembered::remember(this)).flatten(),
                )
            },
            || {
                let resolver = resolve::Resolver::with_names(&this.entities, files(), needs_names, this.link_context());
                // A handful of entities at a time: their links are looked up as one batch.
                outgoing
                    .par_chunks_mut(RESOLVE_CHUNK)
                    .zip(this.entities.par_chunks(RESOLVE_CHUNK))
                    .for_each(|(outgoing, entities)| resolver.resolve_all(entities, outgoing));
            },
        );
        if remembered.is_some() {
            self.set_catalog_memo(remembered);
        }
        self.entities.par_iter_mut().zip(outgoing).for_each(|(e, (links, edges))| {
            let e = Arc::make_mut(e);
            e.links = links;
            e.edges = edges;
        });
        self.backlinks = Arc::new(backlinks_of(&self.entities));
        self.by_id = Arc::new(by_id);
    }

    /// Backlinks and the id index, from the resolved links and edges.
    pub(crate) fn index(&mut self) {
        let (backlinks, by_id) =
            rayon::join(|| backlinks_of(&self.entities), || id_index::IdIndex::build(&self.entities));
        self.backlinks = Arc::new(backlinks);
        self.by_id = Arc::new(by_id);
    }

    pub fn kind(&self) -> DialectKind {
        self.dialect.kind()
    }

    /// Where and by which rules this store's links resolve: the format's rules, from the root
    /// the format's own tool resolves from (an enclosing Obsidian vault's).
    pub fn link_context(&self) -> resolve::LinkContext {
        resolve::LinkContext {
            rules: self.kind().format().link_rules(),
            folder_pages: self.kind().spec().folder_pages,
            root: Some(self.root.clone()),
            below: self.dialect.enclosing().map(|e| e.below).unwrap_or_default(),
            outside: self.dialect.outside(),
        }
    }

    pub fn entity(&self, idx: EntityIdx) -> &Entity {
        &self.entities[idx as usize]
    }

    /// The entity whose id is exactly `id`.
    pub fn by_id(&self, id: &str) -> Option<EntityIdx> {
        self.by_id.get(&self.entities, id)
    }

    /// An entity by id: exact, then case-insensitive, then by path, then by name (stem/title).
    pub fn find(&self, id: &str) -> Option<EntityIdx> {
        if let Some(i) = self.by_id(id) {
            return Some(i);
        }
        let lower = id.to_lowercase();
        if let Some(i) = self.entities.iter().position(|e| e.id.to_lowercase() == lower) {
            return Some(i as EntityIdx);
        }
        let path = id.trim_start_matches("./");
        if let Some(i) = self.entities.iter().position(|e| e.path == path) {
            return Some(i as EntityIdx);
        }
        self.entities.iter().position(|e| e.title.to_lowercase() == lower).map(|i| i as EntityIdx)
    }

    /// Whether the file `rel` exists, as this store sees it (a preview's writes included).
    pub fn file_exists(&self, rel: &str) -> bool {
        let exists = self.overlay.get(rel).copied().unwrap_or_else(|| self.root.join(rel).exists());
        self.catalog_memo.note(rel, exists);
        exists
    }

    pub(crate) fn catalog_memo(&self) -> &write::catalog::remembered::Memo {
        &self.catalog_memo
    }

    /// Remember the catalogs' verdict (`catalog::remembered`), or forget it (`None`).
    pub(crate) fn set_catalog_memo(&mut self, saved: Option<write::catalog::remembered::Remembered>) {
        self.catalog_memo.set(saved);
    }

    /// The term table the load made (`Reads::EntitiesAndTerms`), once: a second caller builds
    /// its own.
    pub fn take_loaded_terms(&self) -> Option<read::content::Content> {
        let mut made = self.loaded_terms.lock().unwrap_or_else(|e| e.into_inner());
        match made.take() {
            Some(LoadedBodies::Terms(terms)) => Some(terms),
            other => {
                *made = other;
                None
            }
        }
    }

    /// The text facts the load took (`Reads::EntitiesForInbox`), once, in the entities' order.
    pub fn take_loaded_facts(&self) -> Option<Vec<Option<review::queue::TextFacts>>> {
        let mut made = self.loaded_facts.lock().unwrap_or_else(|e| e.into_inner());
        made.take().filter(|facts| facts.len() == self.entities.len())
    }

    /// The near-duplicate profiles the load made (`Reads::EntitiesAndProfiles`), once.
    pub fn take_loaded_profiles(&self) -> Option<Vec<read::content_words::Profile>> {
        let mut made = self.loaded_terms.lock().unwrap_or_else(|e| e.into_inner());
        match made.take() {
            Some(LoadedBodies::Profiles(profiles)) if profiles.len() == self.entities.len() => Some(profiles),
            other => {
                *made = other;
                None
            }
        }
    }

    /// The counts of a query's words the load made (`Reads::EntitiesCountingWords`), once, when
    /// they are of `words`.
    pub fn take_loaded_word_counts(&self, words: &[String]) -> Option<Vec<read::query_words::WordCounts>> {
        let mut made = self.loaded_terms.lock().unwrap_or_else(|e| e.into_inner());
        match made.take() {
            Some(LoadedBodies::WordCounts { words: counted, counts })
                if counted == words && counts.len() == self.entities.len() =>
            {
                Some(counts)
            }
            other => {
                *made = other;
                None
            }
        }
    }

    pub fn abs_path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The entity's file text (bodies are not kept in memory; they are read on demand).
    pub fn read_text(&self, idx: EntityIdx) -> Result<String, StoreError> {
        let e = self.entity(idx);
        if e.escapes_root() {
            return Ok(String::new());
        }
        let (bytes, _) = self
            .storage()
            .read_capped(&e.path, load::MAX_READ)
            .map_err(|err| StoreError::Io { path: self.abs_path(&e.path), err })?;
        if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
            return Ok(String::new());
        }
        // Valid UTF-8 (nearly every file) is taken as read, not copied.
        Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    /// Before reading many entities' texts (`read_text`): a store held in memory takes them
    /// all at once (a database's snapshot read whole, not one text by its offset at a time);
    /// a folder's files are read as asked.
    pub fn hold_texts(&self) {
        if self.dialect.in_memory() {
            let _ = self.dialect.memory_files();
        }
    }

    /// A file the load could not read (an I/O error, not a parse problem), with why: what is
    /// derived from the whole store (its catalogs) must not be written from such a read.
    pub fn unread_file(&self) -> Option<(String, String)> {
        let in_entity = self.entities.iter().find_map(|e| {
            e.problems
                .iter()
                .find(|p| p.rule == model::entity::rule::UNREADABLE)
                .map(|p| (e.path.clone(), p.message.clone()))
        });
        in_entity.or_else(|| {
            self.walk_warnings
                .iter()
                .find(|w| w.code == "unreadable")
                .map(|w| (w.path.clone().unwrap_or_default(), w.message.clone()))
        })
    }

    /// The entity's own text: its byte span within the file (the whole file for most dialects).
    pub fn read_entity_text(&self, idx: EntityIdx) -> Result<String, StoreError> {
        let text = self.read_text(idx)?;
        let span = &self.entity(idx).span;
        Ok(text.get(span.start as usize..span.end as usize).map(str::to_string).unwrap_or(text))
    }

    /// The entity's fields, read from disk on demand (frontmatter, or what the dialect stores
    /// in place of it).
    pub fn fields(&self, idx: EntityIdx) -> Result<Fields, StoreError> {
        let text = self.read_text(idx)?;
        Ok(self.dialect.fields(self.entity(idx), &text))
    }

    /// Entities that nothing else links to (none in a format without links).
    pub fn orphans(&self) -> impl Iterator<Item = EntityIdx> + '_ {
        let links = self.kind().format().has_links();
        self.backlinks.iter().enumerate().filter(move |(_, b)| links && b.is_empty()).map(|(i, _)| i as EntityIdx)
    }

    /// Warnings about the store as a whole from its format (`Dialect::warnings`) and, for a
    /// folder read as the plain vault, from detection: a format's marker file here that is not
    /// that format's (`detect::look_alikes`), so nothing is written here as that format.
    pub fn format_warnings(&self) -> Vec<dialect::StoreWarning> {
        let mut out = self.dialect.warnings();
        if self.kind() == dialect::fallback().kind() {
            out.extend(detect::look_alikes(&self.root).into_iter().map(|l| dialect::StoreWarning {
                code: LOOK_ALIKE.into(),
                message: format!(
                    "{}; read as a plain vault, and nothing is written here as {} (`--dialect {}` opens it as one)",
                    l.why, l.kind, l.kind
                ),
                path: Some(l.file),
            }));
        }
        out
    }

    /// Counts of links: (internal, unresolved). External URLs and anchors are not counted.
    /// In parallel: the links are scattered over the heap, and one thread's pass over them all
    /// shows in `stats` (docs/benchmarks.md, "Load figures").
    pub fn link_counts(&self) -> (usize, usize) {
        use rayon::prelude::*;
        self.entities
            .par_iter()
            .map(|e| {
                e.links.iter().fold((0, 0), |(internal, unresolved), l| {
                    (internal + usize::from(l.is_internal()), unresolved + usize::from(l.is_unresolved()))
                })
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Entities per kind (entities without a kind count under `(none)`). Counted in parallel
    /// under borrowed names: a `String` per entity would be an allocation each, on one thread.
    pub fn by_kind(&self) -> std::collections::BTreeMap<String, usize> {
        use rayon::prelude::*;
        let counts = self
            .entities
            .par_iter()
            .fold(std::collections::BTreeMap::<&str, usize>::new, |mut m, e| {
                *m.entry(e.kind.as_deref().unwrap_or("(none)")).or_insert(0) += 1;
                m
            })
            .reduce(std::collections::BTreeMap::new, |mut a, b| {
                for (k, n) in b {
                    *a.entry(k).or_insert(0) += n;
                }
                a
            });
        counts.into_iter().map(|(k, n)| (k.to_string(), n)).collect()
    }

    /// Entities with reading problems and problems in all: (entities, problems).
    pub fn problem_counts(&self) -> (usize, usize) {
        use rayon::prelude::*;
        self.entities
            .par_iter()
            .map(|e| (usize::from(!e.problems.is_empty()), e.problems.len()))
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }
}

/// Entities resolved together (`Resolver::resolve_all`): about 5 links each, so batches of
/// lookups long enough for their cache misses to overlap, and entities enough to load each
/// a few ahead of resolving it.
const RESOLVE_CHUNK: usize = 32;

/// A decision opens its part while the format remembers the changes since the cached store
/// for this many more writes (`Format::cached_may_lag`), else the whole store, which brings
/// the cache up.
pub(crate) const DECISION_AHEAD: usize = 32;

/// The store warning for a format's marker file in a folder that is not that format's store.
pub const LOOK_ALIKE: &str = "look-alike";

/// Whether the entities a store is made from (`Store::from_parts`) hold their links.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    Resolved,
    Dropped,
}

/// Per entity, the entities linking to it (sorted, each once, never itself). Built from
/// (target, source) pairs collected and sorted in parallel: pushing half a million sources
/// into per-target lists was one thread's work between two parallel phases.
fn backlinks_of(entities: &[Arc<Entity>]) -> Vec<Arc<[EntityIdx]>> {
    use rayon::prelude::*;
    let mut pairs: Vec<(EntityIdx, EntityIdx)> = entities
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, e)| {
            prefetch::entity_ahead(entities, i, |e| e.links.as_slice());
            let i = i as EntityIdx;
            let targets = e.links.iter().filter_map(|l| l.entity()).chain(e.edges.iter().filter_map(|d| d.resolved));
            targets.filter(move |&t| t != i).map(move |t| (t, i))
        })
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    let none: Arc<[EntityIdx]> = Arc::from([]);
    // Each target finds its run by binary search, so the lists are built in parallel too.
    (0..entities.len() as EntityIdx)
        .into_par_iter()
        .map(|target| {
            let start = pairs.partition_point(|&(t, _)| t < target);
            let these = &pairs[start..start + pairs[start..].partition_point(|&(t, _)| t == target)];
            if these.is_empty() { Arc::clone(&none) } else { these.iter().map(|&(_, s)| s).collect() }
        })
        .collect()
}
