//! The whole state of the interactive UI. Plain data: `update` changes it, views read it.
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

use crate::app::graph::neighbourhood::GraphLayout;
use crate::markdown::doc::Doc;
use crate::markdown::highlight::Highlighter;
use crate::markdown::layout::{self, Laid};
use folio_core::recall::engine::Engine;
use folio_core::store::Store;
use folio_core::store::lint::marks::RowMarks;
use folio_core::store::lint::{Finding, Linted, Report};
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::model::entity::Severity;
use folio_core::store::read::load::LoadProgress;
use folio_core::store::read::tree::{Group, TreeFilter};

use super::settings::config::Config;
use super::settings::keymap::{Context, Key, Keymap};
use super::settings::theme::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Tree,
    Preview,
    /// The open entity's link neighbourhood, in the preview's place.
    Graph,
    /// Every lint finding of the store, in the preview's place.
    Lint,
    /// The open entity's versions and blame, in the preview's place.
    History,
}

impl Pane {
    pub fn context(self) -> Context {
        match self {
            Pane::Tree => Context::Catalog,
            Pane::Preview => Context::Preview,
            Pane::Graph => Context::Graph,
            Pane::Lint => Context::Lint,
            Pane::History => Context::History,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    /// Every binding of `context` (and global), filtered by typed text.
    Help { context: Context, filter: String, cursor: usize },
    /// Every action by description, filtered by typed text.
    Palette { query: String, cursor: usize },
    /// Fuzzy recall: typed text is the query; results come from `Model::recall`.
    Recall { query: String, cursor: usize },
    /// A write waiting for a yes: the diff it would make, scrolled; the lint fixes it makes, or
    /// the restore of a past version (the changeset shown).
    Confirm {
        title: String,
        diff: Vec<String>,
        scroll: usize,
        findings: Vec<Finding>,
        restore: Option<Box<folio_core::store::write::changeset::Changeset>>,
        /// Whose files a fix writes when they are not the store's own (a subscribed clone, a
        /// read-only source): the first `y` only says so, a second one writes.
        second: Option<String>,
    },
    /// Why ignore `rule` on the entity `entity` (its id): typed text is the reason.
    /// `other`: a pair finding (`possible-contradiction`) is dismissed for that pair alone.
    Reason { rule: &'static str, entity: String, other: Option<String>, text: String },
    /// The open entity's properties, each whole (wrapped), one of them selected.
    Properties { cursor: usize },
}

/// Which side of the graph pane's lists the cursor is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Backlinks,
    Outbound,
}

/// The graph pane's state; the drawn neighbourhood is laid out by a worker.
#[derive(Debug, Clone)]
pub struct GraphView {
    /// Hops drawn on the canvas, 1–3.
    pub depth: u8,
    pub side: Side,
    /// Row in the active side's list.
    pub cursor: usize,
    pub laid: Option<Arc<GraphLayout>>,
}

/// The lint panel's state.
#[derive(Debug, Clone, Default)]
pub struct LintView {
    /// Group findings by file instead of by rule.
    pub by_file: bool,
    pub severity: Option<Severity>,
    pub rule: Option<&'static str>,
    /// Entity kind of the findings shown.
    pub kind: Option<String>,
    /// Row in the panel's list (group headers included).
    pub cursor: usize,
    /// The selected finding's lines, read by a worker: (path, line, lines around it).
    pub context: Option<FindingContext>,
    /// List the findings the store's config ignores too (in their own group, last).
    pub show_ignored: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FindingContext {
    pub path: String,
    pub line: u32,
    /// 1-based number of the first line in `lines`.
    pub first: u32,
    pub lines: Vec<String>,
}

/// One visible row of the catalog tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    Group { key: String, label: String, depth: usize, count: usize, open: bool },
    Entity { idx: EntityIdx, depth: usize },
}

/// The body of the open entity as read by a worker.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub doc: Doc,
    /// Shown above the body (e.g. "only the first 512 KiB are shown").
    pub notice: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub id: String,
    pub path: String,
    /// `None` once the entity has disappeared from the store.
    pub idx: Option<EntityIdx>,
    /// `None` while the worker reads it; `Err` names the file and the reason.
    pub body: Option<Result<Body, String>>,
    pub scroll: usize,
    /// Index into the document's links.
    pub link: Option<usize>,
    /// A finding jumped to: the offending source line, marked and scrolled to once laid out.
    pub mark: Option<Mark>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The offending line's text, found again among the laid-out rows; for an anchor, a link's
    /// fragment (`Some Heading`, `^block-id`).
    pub text: String,
    /// `text` names a heading or block id (a followed link's `#fragment`), not a line's text.
    pub anchor: bool,
    /// The body row it was found at (`None` until the body is laid out).
    pub row: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub text: String,
    pub warn: bool,
}

/// The laid-out body of the open entity for one width, reused until something changes.
struct LayoutCache {
    key: (String, u16, String, u64),
    laid: Rc<Laid>,
}

/// Several stores side by side in the opened folder, one to pick.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreChoice {
    /// What they are ("OKF bundles").
    pub what: String,
    pub names: Vec<String>,
    pub selected: usize,
}

pub struct Model {
    /// What the person asked to open (path or "demo"), shown until the store is loaded.
    pub source_label: String,
    pub store: Option<Arc<Store>>,
    pub progress: Arc<LoadProgress>,
    pub load_error: Option<String>,
    /// The stores to choose from when the folder holds several (`--bundle` was not given).
    pub store_choice: Option<StoreChoice>,
    pub tree: Group,
    /// The filter `tree` was built for (the filter may have changed since: `tree_building`).
    pub tree_filter: TreeFilter,
    pub rows: Vec<Row>,
    /// Group keys (`a/b`) the person collapsed; new groups start open.
    pub collapsed: HashSet<String>,
    pub cursor: usize,
    pub catalog_scroll: usize,
    pub filter: TreeFilter,
    /// Typing goes into the filter.
    pub filtering: bool,
    /// The tree for a new filter or sort is being built in the background (`Job::BuildTree`);
    /// `refilter`: the filter changed again since it started, so another is to follow.
    pub tree_building: bool,
    pub refilter: bool,
    pub focus: Pane,
    pub preview: Option<Preview>,
    /// Entity ids visited before / after the open one.
    pub back: Vec<String>,
    pub forward: Vec<String>,
    pub overlays: Vec<Overlay>,
    /// Keys of an unfinished sequence (`g` of `gg`): the which-key popup shows what follows.
    pub pending_keys: Vec<Key>,
    pub message: Option<Message>,
    pub mouse: bool,
    pub theme: Theme,
    pub keymap: Keymap,
    pub config: Config,
    pub quit: bool,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// Changed paths waiting while a refresh runs.
    pub queued_changes: Vec<std::path::PathBuf>,
    pub refreshing: bool,
    /// The store came from the persistent cache and files changed since: rewrite the cache
    /// once the refresh that re-reads them is done.
    pub cache_stale: bool,
    /// When the cached store's check began (the rewritten cache reads as of then).
    pub cache_checked_at: Option<std::time::SystemTime>,
    /// The snapshot the cached store was decoded from, for that rewrite (`Earlier::noted_for`).
    pub cache_earlier: Option<Arc<folio_core::store::keep::cache::codec::Earlier>>,
    pub highlighter: Arc<Highlighter>,
    /// Bumped when highlighted code arrives, so layouts are redone.
    pub generation: u64,
    /// The review inbox and its dialogs.
    pub review: super::review::ReviewPane,
    /// The in-app editor, while open (it takes every key).
    pub editor: Option<super::review::editor::Editor>,
    layout_cache: RefCell<Option<LayoutCache>>,
    /// What the right-hand area shows: the preview, the graph or the lint panel.
    pub main: Pane,
    /// The recall engine, created when recall first opens on a loaded store.
    pub recall: Option<Engine>,
    /// Called from the matcher's threads when results are ready (posts an event).
    pub recall_notify: Arc<dyn Fn() + Sync + Send>,
    /// Run the matcher to completion on each change (tests, screenshots).
    pub recall_synchronous: bool,
    /// Match H2 body sections as well as entities.
    pub recall_sections: bool,
    /// Recent recall queries of this store, newest first.
    pub recall_recent: Vec<String>,
    /// Enter was pressed while the matcher was still answering the query: the result under
    /// the cursor opens as soon as it is in (`recall::update::tick`), not never.
    pub recall_open_when_ready: bool,
    /// The text index (bodies searched by recall) and the store it was built on; asked for when
    /// recall first opens, then kept current as the store changes.
    pub text_index: Option<(Arc<Store>, Arc<folio_core::recall::text::TextRecall>)>,
    /// Recall has opened on this store: its text index is built and kept current.
    pub text_wanted: bool,
    /// Paths changed since `text_index`'s store: what the next index update reads again.
    pub text_changes: Vec<String>,
    /// The person's state folder (recall history per store); none: nothing is remembered.
    pub state_dir: Option<std::path::PathBuf>,
    /// The catalog's share of the width, in percent (`sidebar`).
    pub sidebar: u16,
    /// A mouse drag of the catalog's border is under way.
    pub dragging_sidebar: bool,
    /// The lint engine's latest report and, per entity, whether it has findings.
    pub lint: Option<Arc<Report>>,
    pub lint_flags: Arc<Vec<bool>>,
    /// The catalog's mark per entity from that report (`lint::marks`).
    pub lint_marks: Arc<RowMarks>,
    pub linting: bool,
    /// The store the latest report was computed on, with what re-linting it needs.
    pub lint_base: Option<(Arc<Store>, Arc<Linted>)>,
    /// Paths changed since `lint_base`'s store: what the next re-lint recomputes.
    pub lint_changes: Vec<String>,
    /// Lint again when the running pass finishes (the store or the config changed meanwhile).
    pub lint_again: bool,
    pub lint_view: LintView,
    pub graph: GraphView,
    pub history: super::history::HistoryView,
    /// The files folio wrote itself, so the watcher's echo is not announced as an outside change.
    pub own_writes: super::platform::own_writes::OwnWrites,
}

impl Model {
    pub fn new(
        source_label: String,
        config: Config,
        theme: Theme,
        keymap: Keymap,
        highlighter: Arc<Highlighter>,
    ) -> Model {
        Model {
            source_label,
            store: None,
            progress: Arc::default(),
            load_error: None,
            store_choice: None,
            tree: Group::default(),
            tree_filter: TreeFilter::default(),
            rows: Vec::new(),
            collapsed: HashSet::new(),
            cursor: 0,
            catalog_scroll: 0,
            filter: TreeFilter::default(),
            filtering: false,
            tree_building: false,
            refilter: false,
            focus: Pane::Tree,
            preview: None,
            back: Vec::new(),
            forward: Vec::new(),
            overlays: Vec::new(),
            pending_keys: Vec::new(),
            message: None,
            mouse: config.mouse,
            theme,
            keymap,
            config,
            quit: false,
            size: (80, 24),
            queued_changes: Vec::new(),
            refreshing: false,
            cache_stale: false,
            cache_checked_at: None,
            cache_earlier: None,
            highlighter,
            generation: 0,
            review: Default::default(),
            editor: None,
            layout_cache: RefCell::new(None),
            main: Pane::Preview,
            recall: None,
            recall_notify: Arc::new(|| {}),
            recall_synchronous: true,
            recall_sections: false,
            recall_recent: Vec::new(),
            recall_open_when_ready: false,
            text_index: None,
            text_wanted: false,
            text_changes: Vec::new(),
            state_dir: None,
            sidebar: super::settings::sidebar::DEFAULT,
            dragging_sidebar: false,
            lint: None,
            lint_flags: Arc::new(Vec::new()),
            lint_marks: Arc::default(),
            linting: false,
            lint_base: None,
            lint_changes: Vec::new(),
            lint_again: false,
            lint_view: LintView::default(),
            graph: GraphView { depth: 1, side: Side::Outbound, cursor: 0, laid: None },
            history: Default::default(),
            own_writes: Default::default(),
        }
    }

    /// The keymap contexts that apply now, in priority order.
    pub fn contexts(&self) -> Vec<Context> {
        if self.editor.is_some() {
            return vec![Context::Editor];
        }
        if self.review.confirm.is_some() {
            return vec![Context::Confirm];
        }
        match self.overlays.last() {
            Some(Overlay::Recall { .. }) => vec![Context::Recall, Context::Overlay, Context::Global],
            Some(Overlay::Confirm { .. }) => vec![Context::Confirm, Context::Global],
            Some(Overlay::Properties { .. }) => vec![Context::Properties, Context::Global],
            Some(_) => vec![Context::Overlay, Context::Global],
            None if self.review.open => vec![Context::Review, Context::Global],
            None => vec![self.focus.context(), Context::Global],
        }
    }

    /// The mode named in the status bar.
    pub fn mode(&self) -> &'static str {
        if self.editor.is_some() {
            return "EDIT";
        }
        if self.review.confirm.is_some() {
            return "CONFIRM";
        }
        match self.overlays.last() {
            Some(Overlay::Help { .. }) => "HELP",
            Some(Overlay::Palette { .. }) => "PALETTE",
            Some(Overlay::Recall { .. }) => "RECALL",
            Some(Overlay::Confirm { .. }) => "CONFIRM",
            Some(Overlay::Reason { .. }) => "REASON",
            Some(Overlay::Properties { .. }) => "PROPERTIES",
            None if self.filtering => "FILTER",
            None if !self.pending_keys.is_empty() => "KEYS",
            None if self.review.open => "REVIEW",
            None => "BROWSE",
        }
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.rows.get(self.cursor)
    }

    /// The entity shown in the preview, when it still exists.
    pub fn open_entity(&self) -> Option<EntityIdx> {
        self.preview.as_ref().and_then(|p| p.idx)
    }

    /// The open entity's body laid out for `width`, computed once per (entity, width, theme).
    pub fn laid_body(&self, width: u16) -> Rc<Laid> {
        let Some(Preview { path, body: Some(Ok(body)), .. }) = &self.preview else {
            return Rc::new(Laid::default());
        };
        let key = (path.clone(), width, self.theme.syntax.clone(), self.generation);
        if let Some(c) = self.layout_cache.borrow().as_ref().filter(|c| c.key == key) {
            return c.laid.clone();
        }
        let opts = layout::Options { width, highlighter: &self.highlighter, syntax_theme: &self.theme.syntax };
        let laid = Rc::new(layout::layout(&body.doc, &opts));
        *self.layout_cache.borrow_mut() = Some(LayoutCache { key, laid: laid.clone() });
        laid
    }

    /// Drop the cached layout (the body changed).
    pub fn invalidate_layout(&mut self) {
        *self.layout_cache.get_mut() = None;
    }
}
