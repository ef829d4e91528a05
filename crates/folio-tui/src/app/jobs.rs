//! Side effects requested by `update`, run off the UI thread; results come back as `Event`s.
//! In inline mode (tests, screenshots) they run in the caller and nothing touches the system
//! clipboard, so flows are deterministic.
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use crate::markdown::doc;
use folio_core::store::Reads;
use folio_core::store::dialect::DialectKind;
use folio_core::store::keep::cache::{Cache, Miss};
use folio_core::store::keep::watch::{self, StoreWatcher};
use folio_core::store::lint::Finding;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::read::load::LoadProgress;
use folio_core::store::{Store, read::detect, read::fsio};

use super::event::Event;
use super::lint::jobs as lint_effects;
use super::model::Body;
use super::platform::clipboard;

pub enum Effect {
    /// Open the store and load it, updating the progress counters; `true`: through the
    /// persistent cache (the store shown at once, its files checked afterwards).
    Load(Arc<LoadProgress>, bool),
    /// `Load`, of the store `name` among several in the folder (from then on, as `--bundle`).
    LoadBundle(Arc<LoadProgress>, bool, String),
    /// Write the store's snapshot to the persistent cache.
    /// Write the store's cache; `Some(at)`: it reads as of `at` (after a cache check's re-reads).
    SaveCache(Arc<Store>, Option<std::time::SystemTime>),
    /// Free a replaced store off the UI thread (100k entities take a while to drop).
    Discard(Arc<Store>),
    /// Start watching the loaded store's root.
    Watch(PathBuf),
    /// Re-read changed paths into a copy of the store.
    Refresh(Arc<Store>, Vec<PathBuf>),
    /// Read and parse an entity's body (`span` within the file, after `body_start`).
    ReadBody { rel: String, abs: PathBuf, start: u32, end: u32, limit: u64, embeds: Vec<EmbedSource> },
    /// Put text on the clipboard; `what` names it in the status bar.
    Copy { text: String, what: String },
    /// Give the terminal back to the shell until resumed (handled by the terminal loop).
    Suspend,
    /// Review work on the disk (queue, plans, writes), answered by `Event::Review`.
    Review(Box<super::review::jobs::Job>),
    /// Edit an entity in $EDITOR (or the given command): the terminal loop runs it.
    ExternalEdit(Box<super::review::jobs::EditSeed>, Option<String>),
    /// Run the lint engine over the store with its store-local config.
    Lint(Arc<Store>),
    /// Re-lint `store`, which is `base` with the files `changed` read again, from `linted`.
    Relint { base: Arc<Store>, linted: Arc<folio_core::store::lint::Linted>, store: Arc<Store>, changed: Vec<String> },
    /// Add an `[[ignore]]` entry for the finding's rule on its entity, with the reason.
    /// With `other`, a pair finding is dismissed for that pair alone.
    Ignore { store: Arc<Store>, rule: &'static str, entity: String, other: Option<String>, reason: String, by: String },
    /// Remove the `[[ignore]]` entry of `rule` on the entity with id `entity`.
    Unignore { store: Arc<Store>, rule: &'static str, entity: String, by: String },
    /// Lay out the neighbourhood of an entity for the graph canvas.
    LayoutGraph { store: Arc<Store>, center: EntityIdx, depth: u8 },
    /// Read the history of the entity at `idx` (git, the store's log) and blame its lines.
    ReadHistory { store: Arc<Store>, idx: EntityIdx },
    /// The diff restoring version `rev` of the entity would make, to confirm.
    PreviewRestore { store: Arc<Store>, idx: EntityIdx, rev: String, by: String },
    /// Write a confirmed restore (the changeset the dialog showed).
    ApplyRestore { store: Arc<Store>, cs: Box<folio_core::store::write::changeset::Changeset> },
    /// Read the lines around a finding.
    ReadContext { store: Arc<Store>, path: String, line: u32 },
    /// Compute the diff the fixes of these findings would make.
    PreviewFix { store: Arc<Store>, title: String, findings: Vec<Finding> },
    /// Write the fixes of these findings through the changeset path.
    ApplyFix { store: Arc<Store>, findings: Vec<Finding> },
    /// Write the neighbourhood of `center` as DOT into the store's folio dir.
    ExportGraph { store: Arc<Store>, center: EntityIdx, depth: u8 },
    /// Read the recent recall queries of the store at `root`, from the person's state folder
    /// `state` (never from inside the store).
    LoadRecallHistory { state: PathBuf, root: PathBuf },
    /// Remember recent recall queries of the store at `root` in the person's state folder.
    SaveRecallHistory { state: PathBuf, root: PathBuf, recent: Vec<String> },
    /// Build `store`'s text index for recall; with `base`, by updating that index of an earlier
    /// store, reading only the files at `changed` again. Answered by `Event::TextIndexed`.
    IndexText {
        store: Arc<Store>,
        base: Option<(Arc<Store>, Arc<folio_core::recall::text::TextRecall>)>,
        changed: Vec<String>,
    },
    /// Remember who reviews (asked once when $USER is unset) in this file.
    RememberReviewer { file: PathBuf, actor: String },
    /// Remember the catalog's width (percent) in this file.
    RememberSidebar { file: PathBuf, percent: u16 },
}

/// Which store to open.
#[derive(Debug, Clone, Default)]
pub struct Source {
    pub path: Option<PathBuf>,
    pub dialect: Option<DialectKind>,
    pub demo: bool,
    /// `--no-cache`: never use the persistent cache.
    pub no_cache: bool,
    /// `--bundle NAME`: one store among several in the folder.
    pub bundle: Option<String>,
}

impl Source {
    pub fn label(&self) -> String {
        match (&self.path, self.demo) {
            (_, true) => "demo".into(),
            (Some(p), _) => detect::shown(p),
            (None, _) => ".".into(),
        }
    }
}

pub struct Runner {
    tx: Sender<Event>,
    source: Source,
    inline: bool,
    /// The store's watcher, once the thread setting it up has made it.
    watcher: Arc<Mutex<Option<StoreWatcher>>>,
    /// Texts copied in inline mode (what a test can check instead of the clipboard).
    pub copied: Vec<String>,
    /// An $EDITOR session waiting for the terminal loop (or a test) to run it.
    pub external_edit: Option<(Box<super::review::jobs::EditSeed>, Option<String>)>,
}

impl Runner {
    pub fn new(tx: Sender<Event>, source: Source, inline: bool) -> Runner {
        Runner { tx, source, inline, watcher: Arc::default(), copied: Vec::new(), external_edit: None }
    }

    /// Run effects; returns `true` when the terminal loop must suspend.
    pub fn run(&mut self, effects: Vec<Effect>) -> bool {
        let mut suspend = false;
        for effect in effects {
            match effect {
                Effect::Suspend => suspend = true,
                Effect::ExternalEdit(seed, command) => self.external_edit = Some((seed, command)),
                Effect::Watch(root) => {
                    if self.inline {
                        continue;
                    }
                    // Setting up a recursive watch walks the whole tree: 0.4 s of waiting at 100k
                    // files, so not on the UI thread. The watcher is kept in the slot once made.
                    let (tx, slot) = (self.tx.clone(), self.watcher.clone());
                    std::thread::spawn(move || {
                        let changes = tx.clone();
                        match watch::watch(&root, move |paths| {
                            let _ = changes.send(Event::FilesChanged(paths));
                        }) {
                            Ok(w) => {
                                if let Ok(mut slot) = slot.lock() {
                                    *slot = Some(w);
                                }
                            }
                            Err(e) => {
                                let _ = tx.send(Event::Copied(Err(format!(
                                    "{}: cannot watch for changes ({e})",
                                    root.display()
                                ))));
                            }
                        }
                    });
                }
                Effect::LoadBundle(progress, use_cache, name) => {
                    self.source.bundle = Some(name);
                    self.run(vec![Effect::Load(progress, use_cache)]);
                }
                Effect::Load(progress, use_cache) => {
                    let tx = self.tx.clone();
                    let source = self.source.clone();
                    let job = move || load_and_check(&source, &progress, use_cache, &tx);
                    if self.inline {
                        job();
                    } else {
                        std::thread::spawn(job);
                    }
                }
                Effect::ReadHistory { store, idx } => {
                    // It reports the versions as the walk finds them, so it holds the sender.
                    let tx = self.tx.clone();
                    let job = move || super::history::jobs::read(&store, idx, &tx);
                    if self.inline {
                        job();
                    } else {
                        std::thread::spawn(job);
                    }
                }
                Effect::Copy { text, what } => {
                    if self.inline {
                        self.copied.push(text);
                        let _ = self.tx.send(Event::Copied(Ok(what)));
                    } else {
                        let tx = self.tx.clone();
                        std::thread::spawn(move || {
                            let _ = tx.send(Event::Copied(clipboard::copy(&text).map(|how| format!("{what} ({how})"))));
                        });
                    }
                }
                other => {
                    let tx = self.tx.clone();
                    let source = self.source.clone();
                    let job = move || {
                        if let Some(ev) = background(other, &source) {
                            let _ = tx.send(ev);
                        }
                    };
                    if self.inline {
                        job();
                    } else {
                        std::thread::spawn(job);
                    }
                }
            }
        }
        suspend
    }
}

/// The effects that only compute: they may take long and never touch the terminal.
fn background(effect: Effect, source: &Source) -> Option<Event> {
    match effect {
        Effect::SaveCache(store, as_of) => {
            let cache = if source.no_cache { None } else { Cache::from_env() }?;
            cache.save_as_of(&store, as_of).err().map(|e| Event::Copied(Err(format!("cache: {e}"))))
        }
        Effect::Discard(store) => {
            drop(store);
            None
        }
        Effect::Refresh(store, paths) => {
            let (fresh, report) = store.refreshed(&paths);
            let found: Vec<String> =
                report.changed.iter().chain(&report.added).chain(&report.removed).cloned().collect();
            let found = super::platform::own_writes::fingerprints(&fresh.root, &found);
            Some(Event::Refreshed(Box::new(fresh), report, found))
        }
        Effect::ReadBody { rel, abs, start, end, limit, embeds } => {
            let mut body = read_body(&rel, &abs, start, end, limit);
            if let Ok(b) = body.as_mut() {
                fill_embeds(b, &embeds);
            }
            Some(Event::BodyRead { body, path: rel })
        }
        Effect::Review(job) => Some(Event::Review(super::review::jobs::run(*job))),
        Effect::Lint(store) => {
            let cache = if source.no_cache { None } else { Cache::from_env() };
            Some(Event::Linted(lint_effects::lint(&store, cache.as_ref()).map(|l| (store, Box::new(l)))))
        }
        Effect::Relint { base, linted, store, changed } => {
            let cache = if source.no_cache { None } else { Cache::from_env() };
            let linted = lint_effects::relint(&base, &linted, &store, &changed, cache.as_ref());
            Some(Event::Linted(linted.map(|l| (store, Box::new(l)))))
        }
        Effect::Ignore { store, rule, entity, other, reason, by } => {
            Some(Event::IgnoreChanged(lint_effects::ignore(&store, rule, &entity, other.as_deref(), &reason, &by)))
        }
        Effect::Unignore { store, rule, entity, by } => {
            Some(Event::IgnoreChanged(lint_effects::unignore(&store, rule, &entity, &by)))
        }
        Effect::LayoutGraph { store, center, depth } => {
            Some(Event::GraphLaid(Arc::new(crate::app::graph::neighbourhood::layout(&store, center, depth))))
        }
        Effect::PreviewRestore { store, idx, rev, by } => {
            Some(Event::RestorePreview(super::history::jobs::preview(&store, idx, &rev, &by)))
        }
        Effect::ApplyRestore { store, cs } => Some(Event::FixesApplied(super::history::jobs::apply(&store, *cs))),
        Effect::ReadContext { store, path, line } => {
            Some(Event::ContextRead(lint_effects::context(&store, &path, line)))
        }
        Effect::PreviewFix { store, title, findings } => {
            Some(Event::FixPreview(lint_effects::diff(&store, &findings).map(|diff| (title, diff, findings))))
        }
        Effect::ApplyFix { store, findings } => Some(Event::FixesApplied(lint_effects::apply(&store, findings))),
        Effect::ExportGraph { store, center, depth } => {
            Some(Event::Exported(lint_effects::export_graph(&store, center, depth)))
        }
        Effect::LoadRecallHistory { state, root } => {
            let dir = folio_core::store::keep::personal::store_dir(&state, &root);
            Some(Event::RecallHistory(folio_core::recall::history::load(&dir)))
        }
        Effect::SaveRecallHistory { state, root, recent } => {
            let dir = folio_core::store::keep::personal::store_dir(&state, &root);
            folio_core::recall::history::save(&dir, &recent)
                .err()
                .map(|e| Event::Copied(Err(format!("{}: cannot remember recall queries ({e})", dir.display()))))
        }
        Effect::IndexText { store, base, changed } => {
            let text = match base {
                Some((old, index)) => index.update(&old, &store, &changed),
                // From the persistent cache where the files are unchanged; a bad cache file is
                // rewritten, never a reason to go without the index.
                None => {
                    let cache = if source.no_cache { None } else { Cache::from_env() };
                    folio_core::recall::text::TextRecall::open(cache.as_ref(), &store).0
                }
            };
            Some(Event::TextIndexed(store, Arc::new(text)))
        }
        Effect::RememberReviewer { file, actor } => {
            super::settings::reviewer::save(&file, &actor).err().map(|e| Event::Copied(Err(e)))
        }
        Effect::RememberSidebar { file, percent } => {
            super::settings::sidebar::save(&file, percent).err().map(|e| Event::Copied(Err(e)))
        }
        Effect::Load(..)
        | Effect::LoadBundle(..)
        | Effect::ReadHistory { .. }
        | Effect::Watch(_)
        | Effect::Copy { .. }
        | Effect::Suspend
        | Effect::ExternalEdit(..) => None,
    }
}

/// Load the store, from the persistent cache when allowed and usable: then the cached store
/// is posted at once and its files are checked afterwards (a stat walk), the paths that
/// changed posted as `CacheChecked` to be re-read like any change the watcher reports.
fn load_and_check(source: &Source, progress: &LoadProgress, use_cache: bool, tx: &Sender<Event>) {
    let cache = if use_cache && !source.no_cache { Cache::from_env() } else { None };
    let (store, warning) = match load(source, progress, cache.as_ref()) {
        Ok(loaded) => loaded,
        Err(LoadFailure::Several { what, names }) => {
            let _ = tx.send(Event::ChooseStore { what, names });
            return;
        }
        Err(LoadFailure::Message(e)) => {
            let _ = tx.send(Event::Loaded(Err(e)));
            return;
        }
    };
    if let Some(w) = warning {
        let _ = tx.send(Event::Copied(Err(format!("cache: {w}"))));
    }
    let store = Arc::new(store);
    // The catalog tree for the default filter is built here, off the UI thread (tens of ms at 100k).
    let tree = folio_core::store::read::tree::build(&store, &folio_core::store::read::tree::TreeFilter::default());
    let _ = tx.send(Event::Loaded(Ok(Box::new(super::event::LoadedStore { store: store.clone(), tree }))));
    if !store.from_cache {
        return;
    }
    let at = std::time::SystemTime::now();
    let checked = folio_core::store::keep::cache::validate::validate(&store);
    let root = store.root.clone();
    drop(store);
    let _ = tx.send(Event::CacheChecked(checked.paths.iter().map(|p| root.join(p)).collect(), at));
}

/// The store, and a warning when a cache file had to be ignored.
/// Why a store could not be loaded.
enum LoadFailure {
    /// The folder holds several stores: one is to be chosen.
    Several {
        what: String,
        names: Vec<String>,
    },
    Message(String),
}

impl From<String> for LoadFailure {
    fn from(message: String) -> Self {
        LoadFailure::Message(message)
    }
}

fn load(
    source: &Source,
    progress: &LoadProgress,
    cache: Option<&Cache>,
) -> Result<(Store, Option<String>), LoadFailure> {
    let start = if source.demo {
        folio_core::demo::materialize().map_err(|e| format!("cannot unpack the demo store: {e}"))?
    } else {
        match &source.path {
            Some(p) => p.clone(),
            None if detect::database_from_env().is_some() => detect::database_from_env().unwrap_or_default(),
            None => {
                let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
                detect::find_upward(&cwd).ok_or_else(|| folio_core::store::StoreError::NoStoreFound(cwd).to_string())?
            }
        }
    };
    // A connection string: read into a folder of its own by the format that claims it.
    let located = detect::locate(&start, source.dialect).transpose().map_err(LoadFailure::Message)?;
    if located.is_none() {
        match std::fs::metadata(&start) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(format!("{}: not a directory", start.display()).into()),
            Err(e) => return Err(format!("{}: {e}", start.display()).into()),
        }
    }
    let start = if located.is_some() {
        start
    } else if source.dialect.is_none() || source.bundle.is_some() {
        folio_core::store::choose_store(&start, source.bundle.as_deref()).map_err(|e| match e {
            folio_core::store::StoreError::SeveralStores { what, names, .. } => {
                LoadFailure::Several { what: what.to_string(), names }
            }
            other => LoadFailure::Message(other.to_string()),
        })?
    } else {
        start
    };
    let detection = match (located, source.dialect) {
        (Some(found), _) => found,
        (None, Some(kind)) => {
            detect::Detection { kind, root: detect::root_for(kind, &start), reason: format!("--dialect {kind}") }
        }
        (None, None) => detect::detect(&start),
    };
    let mut warning = None;
    if let Some(cache) = cache {
        match cache.load(&detection.root, detection.kind, detection.reason.clone()) {
            Ok(store) => return Ok((store, None)),
            Err(Miss::Invalid(why)) => warning = Some(why),
            Err(Miss::Absent) => {}
        }
    }
    Ok((Store::load_with(&detection.root, detection.kind, detection.reason, Some(progress), Reads::Entities), warning))
}

/// Where a link of the entity being read leads, for embeds to read it (resolved by the store
/// before the read: the worker does no link resolution).
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedSource {
    /// The link's target as written (`Incident#Timeline`).
    pub target: String,
    pub rel: String,
    pub abs: PathBuf,
    /// The body's byte range in the file.
    pub start: u32,
    pub end: u32,
}

/// An embedded note is read up to this much (a reader's box, not a second preview).
const EMBED_LIMIT: u64 = 64 * 1024;

/// Fill the note embeds of a body from the entities its links resolve to.
fn fill_embeds(body: &mut Body, sources: &[EmbedSource]) {
    crate::markdown::embeds::fill(&mut body.doc, &mut |target: &str| {
        let Some(s) = sources.iter().find(|s| s.target == target) else {
            return Err("not a note in this store".to_string());
        };
        let end = s.end.min(s.start.saturating_add(EMBED_LIMIT as u32));
        let (bytes, _) = fsio::read_capped(&s.abs, u64::from(end)).map_err(|e| format!("{}: {e}", s.rel))?;
        if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
            return Err(format!("{}: binary content; not shown", s.rel));
        }
        let from = (s.start as usize).min(bytes.len());
        let to = (end as usize).min(bytes.len()).max(from);
        Ok(String::from_utf8_lossy(&bytes[from..to]).into_owned())
    });
}

/// Read at most `limit` bytes of an entity's body and parse it.
pub fn read_body(rel: &str, abs: &std::path::Path, start: u32, end: u32, limit: u64) -> Result<Body, String> {
    let cap = (end as u64).min(start as u64 + limit).max(start as u64);
    let (bytes, _) = fsio::read_capped(abs, cap).map_err(|e| format!("{rel}: {e}"))?;
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Ok(Body { doc: doc::parse(""), notice: Some(format!("{rel}: binary content; not shown")) });
    }
    let from = (start as usize).min(bytes.len());
    let to = (end as usize).min(bytes.len());
    let slice = &bytes[from..to.max(from)];
    let text = String::from_utf8_lossy(slice);
    let notice = (end as u64 - start as u64 > limit).then(|| {
        format!("large entity: only the first {} KiB of {} KiB are shown", limit / 1024, (end - start) / 1024)
    });
    Ok(Body { doc: doc::parse(&text), notice })
}
