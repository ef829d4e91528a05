//! The whole state of the interactive UI. Plain data: `update` changes it, views read it.
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

use crate::markdown::doc::Doc;
use crate::markdown::highlight::Highlighter;
use crate::markdown::layout::{self, Laid};
use crate::store::Store;
use crate::store::entity::EntityIdx;
use crate::store::load::LoadProgress;
use crate::store::tree::{Group, TreeFilter};

use super::config::Config;
use super::keymap::{Context, Key, Keymap};
use super::theme::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Catalog,
    Preview,
}

impl Pane {
    pub fn context(self) -> Context {
        match self {
            Pane::Catalog => Context::Catalog,
            Pane::Preview => Context::Preview,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    /// Every binding of `context` (and global), filtered by typed text.
    Help { context: Context, filter: String, cursor: usize },
    /// Every action by description, filtered by typed text.
    Palette { query: String, cursor: usize },
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

pub struct Model {
    /// What the person asked to open (path or "demo"), shown until the store is loaded.
    pub source_label: String,
    pub store: Option<Arc<Store>>,
    pub progress: Arc<LoadProgress>,
    pub load_error: Option<String>,
    pub tree: Group,
    pub rows: Vec<Row>,
    /// Group keys (`a/b`) the person collapsed; new groups start open.
    pub collapsed: HashSet<String>,
    pub cursor: usize,
    pub catalog_scroll: usize,
    pub filter: TreeFilter,
    /// Typing goes into the filter.
    pub filtering: bool,
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
    pub highlighter: Arc<Highlighter>,
    /// Bumped when highlighted code arrives, so layouts are redone.
    pub generation: u64,
    /// The review inbox and its dialogs.
    pub review: super::review::ReviewPane,
    /// The in-app editor, while open (it takes every key).
    pub editor: Option<super::editor::Editor>,
    layout_cache: RefCell<Option<LayoutCache>>,
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
            tree: Group::default(),
            rows: Vec::new(),
            collapsed: HashSet::new(),
            cursor: 0,
            catalog_scroll: 0,
            filter: TreeFilter::default(),
            filtering: false,
            focus: Pane::Catalog,
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
            highlighter,
            generation: 0,
            review: Default::default(),
            editor: None,
            layout_cache: RefCell::new(None),
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
        if self.overlays.is_empty() && self.review.open {
            return vec![Context::Review, Context::Global];
        }
        if self.overlays.is_empty() {
            vec![self.focus.context(), Context::Global]
        } else {
            vec![Context::Overlay, Context::Global]
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
