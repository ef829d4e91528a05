//! The jobs `update` asks for, run off the UI thread; results come back as `Event`s. Each
//! feature's work is in its own `jobs` (`review::jobs`, `lint::jobs`, …); this file holds the
//! `Job` vocabulary and the runner. In inline mode (tests, screenshots) they run in the caller
//! and nothing touches the system clipboard, so flows are deterministic.
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use folio_core::store::Store;
use folio_core::store::dialect::DialectKind;
use folio_core::store::keep::cache::Cache;
use folio_core::store::keep::watch::{self, StoreWatcher};
use folio_core::store::lint::Finding;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::read::detect;
use folio_core::store::read::load::LoadProgress;

use super::event::Event;
use super::outbox::Outbox;
use super::platform::clipboard;
use super::reader::jobs::EmbedSource;
use super::{graph, history, lint, reader, recall, review, settings, store};

pub enum Job {
    /// Open the store and load it, updating the progress counters; `true`: through the
    /// persistent cache (the store shown at once, its files checked afterwards).
    Load(Arc<LoadProgress>, bool),
    /// `Load`, of the store `name` among several in the folder (from then on, as `--bundle`).
    LoadBundle(Arc<LoadProgress>, bool, String),
    /// Write the store's snapshot to the persistent cache.
    /// Write the store's cache; `Some(at)`: it reads as of `at` (after a cache check's re-reads).
    /// The snapshot the store was loaded from comes along when its chunks may be copied.
    SaveCache(Arc<Store>, Option<std::time::SystemTime>, Option<Arc<folio_core::store::keep::cache::codec::Earlier>>),
    /// Free a replaced store off the UI thread (100k entities take a while to drop).
    Discard(Arc<Store>),
    /// Start watching the loaded store's root.
    Watch(PathBuf),
    /// Build the catalog tree for a filter or sort (a large store's takes longer than a frame).
    BuildTree(Arc<Store>, folio_core::store::read::tree::TreeFilter),
    /// Re-read changed paths into a copy of the store; the catalog shown, for its next tree
    /// (made beside the store).
    Refresh(Arc<Store>, Vec<PathBuf>, crate::app::tree::built::Catalog),
    /// Read and parse an entity's body (`span` within the file, after `body_start`).
    ReadBody {
        rel: String,
        abs: PathBuf,
        start: u32,
        end: u32,
        limit: u64,
        embeds: Vec<EmbedSource>,
        /// The store's entity files when it holds them in memory (a database's snapshot).
        memory: Option<std::sync::Arc<folio_core::store::dialect::MemoryFiles>>,
    },
    /// Put text on the clipboard; `what` names it in the status bar.
    Copy { text: String, what: String },
    /// Give the terminal back to the shell until resumed (handled by the terminal loop).
    Suspend,
    /// Review work on the disk (queue, plans, writes), answered by `Event::Review`.
    Review(Box<review::jobs::ReviewJob>),
    /// Edit an entity in $EDITOR (or the given command): the terminal loop runs it.
    ExternalEdit(Box<review::jobs::EditSeed>, Option<String>),
    /// Run the lint engine over the store with its store-local config.
    Lint(Arc<Store>),
    /// Build the state a first relint of `linted` (a full pass over `store`) would build, so that
    /// the first change an agent makes costs what later ones do. Answers nothing.
    PrepareRelint { store: Arc<Store>, linted: Arc<folio_core::store::lint::Linted> },
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
    ReadHistory { store: Arc<Store>, idx: EntityIdx, asked: u64 },
    /// The diff restoring version `rev` of the entity would make, to confirm.
    PreviewRestore { store: Arc<Store>, idx: EntityIdx, rev: String, by: String },
    /// Write a confirmed restore (the changeset the dialog showed).
    ApplyRestore { store: Arc<Store>, cs: Box<folio_core::store::write::changeset::Changeset> },
    /// Read the lines around a finding.
    ReadContext { store: Arc<Store>, path: String, line: u32 },
    /// Compute the diff the fixes of these findings would make.
    /// `notes` go above the diff (what a bulk fix left out, and whose files those are).
    PreviewFix { store: Arc<Store>, title: String, findings: Vec<Finding>, notes: Vec<String> },
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
    tx: Outbox,
    source: Source,
    inline: bool,
    /// The store's watcher, once the thread setting it up has made it.
    watcher: Arc<Mutex<Option<StoreWatcher>>>,
    /// Texts copied in inline mode (what a test can check instead of the clipboard).
    pub copied: Vec<String>,
    /// An $EDITOR session waiting for the terminal loop (or a test) to run it.
    pub external_edit: Option<(Box<review::jobs::EditSeed>, Option<String>)>,
}

impl Runner {
    pub fn new(tx: Outbox, source: Source, inline: bool) -> Runner {
        Runner { tx, source, inline, watcher: Arc::default(), copied: Vec::new(), external_edit: None }
    }

    /// Run jobs; returns `true` when the terminal loop must suspend.
    pub fn run(&mut self, jobs: Vec<Job>) -> bool {
        let mut suspend = false;
        for job in jobs {
            match job {
                Job::Suspend => suspend = true,
                Job::ExternalEdit(seed, command) => self.external_edit = Some((seed, command)),
                Job::Watch(root) => {
                    if self.inline {
                        continue;
                    }
                    // Setting up a recursive watch walks the whole tree, a wait that grows with the
                    // store, so not on the UI thread. The watcher is kept in the slot once made.
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
                Job::LoadBundle(progress, use_cache, name) => {
                    self.source.bundle = Some(name);
                    self.run(vec![Job::Load(progress, use_cache)]);
                }
                Job::Load(progress, use_cache) => {
                    let tx = self.tx.clone();
                    let source = self.source.clone();
                    let job = move || store::jobs::load_and_check(&source, &progress, use_cache, &tx);
                    if self.inline {
                        job();
                    } else {
                        std::thread::spawn(job);
                    }
                }
                Job::ReadHistory { store, idx, asked } => {
                    // It reports the versions as the walk finds them, so it holds the sender.
                    let tx = self.tx.clone();
                    let job = move || history::jobs::read(&store, idx, asked, &tx);
                    if self.inline {
                        job();
                    } else {
                        std::thread::spawn(job);
                    }
                }
                Job::Review(job) if matches!(*job, review::jobs::ReviewJob::Queue { .. }) => {
                    // The queue reports its batches as they are built, so it holds the sender.
                    let (tx, no_cache) = (self.tx.clone(), self.source.no_cache);
                    let job = move || {
                        let review::jobs::ReviewJob::Queue { store, lint, generation, stream } = *job else { return };
                        let cache = if no_cache { None } else { Cache::from_env() };
                        let warnings =
                            review::jobs::stream_queue(&store, lint, generation, stream, cache.as_ref(), &mut |o| {
                                tx.send(Event::Review(o)).is_ok()
                            });
                        for w in warnings {
                            let _ = tx.send(Event::Copied(Err(format!("cache: {w}"))));
                        }
                    };
                    if self.inline {
                        job();
                    } else {
                        std::thread::spawn(job);
                    }
                }
                Job::Copy { text, what } => {
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

/// The jobs that only compute: they may take long and never touch the terminal. Each
/// feature's work is in its `jobs`.
fn background(job: Job, source: &Source) -> Option<Event> {
    let cache = || if source.no_cache { None } else { Cache::from_env() };
    match job {
        Job::SaveCache(store, as_of, earlier) => store::jobs::save_cache(&store, as_of, earlier.as_deref(), source),
        Job::Discard(store) => {
            drop(store);
            None
        }
        Job::Refresh(store, paths, catalog) => Some(store::jobs::refresh(&store, &paths, &catalog)),
        Job::BuildTree(store, filter) => {
            let tree = folio_core::store::read::tree::build(&store, &filter);
            Some(Event::TreeBuilt(store, Box::new(crate::app::tree::built::BuiltTree { filter, tree })))
        }
        Job::ReadBody { rel, abs, start, end, limit, embeds, memory } => {
            let body = reader::jobs::read(&rel, &abs, (start, end), limit, &embeds, memory.as_deref());
            Some(Event::BodyRead { body, path: rel })
        }
        Job::Review(job) => Some(Event::Review(review::jobs::run(*job))),
        Job::Lint(store) => {
            Some(Event::Linted(lint::jobs::lint(&store, cache().as_ref()).map(|l| (store, Box::new(l)))))
        }
        Job::PrepareRelint { store, linted } => {
            lint::jobs::prepare_relint(&store, &linted, cache().as_ref());
            None
        }
        Job::Relint { base, linted, store, changed } => {
            let linted = lint::jobs::relint(&base, &linted, &store, &changed, cache().as_ref());
            Some(Event::Linted(linted.map(|l| (store, Box::new(l)))))
        }
        Job::Ignore { store, rule, entity, other, reason, by } => {
            Some(Event::IgnoreChanged(lint::jobs::ignore(&store, rule, &entity, other.as_deref(), &reason, &by)))
        }
        Job::Unignore { store, rule, entity, by } => {
            Some(Event::IgnoreChanged(lint::jobs::unignore(&store, rule, &entity, &by)))
        }
        Job::LayoutGraph { store, center, depth } => {
            Some(Event::GraphLaid(Arc::new(graph::neighbourhood::layout(&store, center, depth))))
        }
        Job::PreviewRestore { store, idx, rev, by } => {
            // Under the restore's diff, every other file it writes (the log, git rules).
            let preview = history::jobs::preview(&store, idx, &rev, &by).map(|(title, mut diff, cs)| {
                diff.extend(folio_core::store::write::preview::also_written(&store, &cs));
                (title, diff, cs)
            });
            Some(Event::RestorePreview(preview))
        }
        Job::ApplyRestore { store, cs } => Some(Event::FixesApplied(history::jobs::apply(&store, *cs))),
        Job::ReadContext { store, path, line } => Some(Event::ContextRead(lint::jobs::context(&store, &path, line))),
        Job::PreviewFix { store, title, findings, notes } => {
            let diff = lint::jobs::diff(&store, &findings).map(|diff| notes.into_iter().chain(diff).collect());
            Some(Event::FixPreview(diff.map(|diff| (title, diff, findings))))
        }
        Job::ApplyFix { store, findings } => Some(Event::FixesApplied(lint::jobs::apply(&store, findings))),
        Job::ExportGraph { store, center, depth } => {
            Some(Event::Exported(graph::jobs::export_graph(&store, center, depth)))
        }
        Job::LoadRecallHistory { state, root } => Some(Event::RecallHistory(recall::jobs::load_history(&state, &root))),
        Job::SaveRecallHistory { state, root, recent } => {
            recall::jobs::save_history(&state, &root, &recent).err().map(|e| Event::Copied(Err(e)))
        }
        Job::IndexText { store, base, changed } => {
            let text = recall::jobs::index_text(&store, base, &changed, source.no_cache);
            Some(Event::TextIndexed(store, Arc::new(text)))
        }
        Job::RememberReviewer { file, actor } => {
            settings::reviewer::save(&file, &actor).err().map(|e| Event::Copied(Err(e)))
        }
        Job::RememberSidebar { file, percent } => {
            settings::sidebar::save(&file, percent).err().map(|e| Event::Copied(Err(e)))
        }
        Job::Load(..)
        | Job::LoadBundle(..)
        | Job::ReadHistory { .. }
        | Job::Watch(_)
        | Job::Copy { .. }
        | Job::Suspend
        | Job::ExternalEdit(..) => None,
    }
}
