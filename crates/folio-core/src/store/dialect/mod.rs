//! Dialects: how each store format maps its files onto the common model.
//!
//! A dialect is opened on a store root (it may read manifests there), classifies every file
//! by its path, turns entity files into entities, and knows its catalogs and its event log.
use std::path::Path;

use super::Store;
use crate::store::model::entity::{Entity, Problem};
use crate::store::model::history::HistoryEvent;
use crate::store::model::lines::LineIndex;
use crate::store::read::frontmatter::Fields;
use crate::store::write::catalog::{self, CatalogPlan, CatalogState, CatalogStatus};

pub mod format;
mod markdown;
mod registry;
pub mod spec;

pub use markdown::{
    DERIVED_DESCRIPTION_MAX_CHARS, EDGE_KEYS, Grammar, Parsed, ParsedView, derived_description, edges_from_fields,
    edges_from_view, first_heading, first_paragraph, nth_char_start, parse_key_values, parse_markdown,
    parse_markdown_view, parse_markdown_view_given, shorten, yaml_fields,
};
pub use registry::{
    DialectKind, by_marker_order, by_name, by_sniff_order, fallback, formats, markers_looked_for, names,
};

/// Declares each format's folder and lists its `Format`: one line per format.
macro_rules! registry {
    ($($(#[$attr:meta])* $folder:ident => $format:ident),* $(,)?) => {
        $($(#[$attr])* pub mod $folder;)*
        /// Every format, in the order `--dialect` lists them.
        static FORMATS: &[&dyn format::Format] = &[$($(#[$attr])* &$folder::format::$format),*];
    };
}

// The registry. Adding a format is its folder and a line here (docs/ARCHITECTURE.md).
registry! {
    okf => OkfFormat,
    evolve => EvolveFormat,
    aip10 => Aip10Format,
    elophanto => ElophantoFormat,
    opendray => OpendrayFormat,
    awareness => AwarenessFormat,
    vault => VaultFormat,
    opendray_pg => OpendrayPgFormat,
    #[cfg(test)]
    toy => ToyFormat,
}

/// What a file is to its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    /// Holds one or more entities.
    Entity,
    /// A generated catalog (`index.md`, `_index.md`).
    Catalog,
    /// A log or audit file.
    Log,
    /// Part of the store but not knowledge: manifests, sources, images, templates.
    Other,
}

/// One file as read from disk, handed to a dialect to parse.
pub struct SourceFile<'a> {
    /// Path relative to the store root, `/`-separated.
    pub rel: &'a str,
    /// The content, decoded lossily when it was not valid UTF-8.
    pub text: &'a str,
    pub lines: &'a LineIndex<'a>,
    /// Problems found while reading (non-UTF-8, too large, binary, unreadable).
    pub problems: &'a [Problem],
    /// Whether the content may be parsed as markdown at all (false for binary/unreadable).
    pub parseable: bool,
}

/// Entity files held in memory (`Dialect::memory_files`): each file's text by its path
/// relative to the root, in path order.
pub type MemoryFiles = std::collections::BTreeMap<String, String>;

/// A store-level message (not tied to one entity): manifest warnings, chain warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreWarning {
    /// Stable code, e.g. `extends-cycle`.
    pub code: String,
    pub message: String,
    /// File the warning is about, relative to the store root when inside it.
    pub path: Option<String>,
}

pub trait Dialect: Send + Sync {
    fn kind(&self) -> DialectKind;

    /// What `rel` (relative to the root, `/`-separated) is to this store. Only `.md` files and
    /// the dialect's own non-markdown files reach the dialect; hidden directories never do.
    fn role(&self, rel: &str) -> FileRole;

    /// Entities held by an `Entity` file. Must never panic, whatever the bytes.
    fn parse(&self, file: &SourceFile) -> Vec<Entity>;

    /// A digest of what `parse` reads besides each file's own bytes (AIP-10's merged workspace
    /// policy); 0 when nothing. A cached snapshot parsed under another is not reused, and a live
    /// reload that changes it re-reads every entity file.
    fn parse_inputs(&self) -> u64 {
        0
    }

    /// A digest of what `role` reads besides the path (AIP-10's tombstones); 0 when nothing. A
    /// live reload that changes it looks again at the role of every file it knows: a marker
    /// written beside a page hides that page, which is not among the paths that changed.
    fn role_inputs(&self) -> u64 {
        0
    }

    /// Whether `e`, parsed from bytes that have not changed since, would read differently now
    /// (AIP-10: a `max-age` finding counts days, and the clock moved on). The store cache
    /// re-reads such files when it opens, so a cached open answers as a full load.
    fn outdated(&self, _e: &Entity) -> bool {
        false
    }

    /// Whether `outdated` may hold for any entity of this store (it reads the clock): an
    /// answer kept for an unchanged store is then not trusted (`keep::cache::inbox_memo`).
    fn may_outdate(&self) -> bool {
        false
    }

    /// Catalog files this store keeps, as they should be (empty when the format has none).
    fn catalogs(&self, _store: &Store) -> Vec<CatalogPlan> {
        Vec::new()
    }

    /// Whether `catalog_states` reads only the entities' own fields, the store's file list and
    /// the disk — never resolved links, backlinks or ids — so that a load can compute the
    /// verdict beside the link resolution (`Store::link`) instead of after it.
    fn catalogs_read_fields_only(&self) -> bool {
        false
    }

    /// Each catalog's path and state (`catalog::states`). The default compares `catalogs`
    /// with the disk; a dialect with large catalogs checks each as it is built.
    fn catalog_states(&self, store: &Store) -> Vec<(String, CatalogState)> {
        self.catalog_status(store).into_iter().map(|s| (s.path, s.state)).collect()
    }

    /// Each catalog's path, state and expected content (`catalog::status`). The default
    /// compares `catalogs` with the disk; a dialect that reads each catalog to plan it may
    /// compare with those bytes instead of reading it again.
    fn catalog_status(&self, store: &Store) -> Vec<CatalogStatus> {
        catalog::status_of(store, self.catalogs(store))
    }

    /// The catalogs a change to the files `paths` can affect, so that re-linting recomputes
    /// only those: `(covered, plans)`, where `covered` are catalog paths this answer speaks for
    /// and `plans` what `catalogs` would return for those among them that should exist.
    /// `None` (the default): the dialect cannot tell, and every catalog is recomputed.
    fn catalogs_touched(&self, _store: &Store, _paths: &[String]) -> Option<(Vec<String>, Vec<CatalogPlan>)> {
        None
    }

    /// The test that tells by its path alone whether an entity file may be one of the catalogs
    /// `catalog_status` checks (a vault's hubs), when the format has one: re-linting then keeps
    /// those files from one pass to the next, patched by the changed paths, and asks
    /// `catalog_status_among` instead of looking at every path again.
    fn catalog_names(&self) -> Option<fn(&str) -> bool> {
        None
    }

    /// `catalog_status`, given the store's entity files that `catalog_names` accepts (sorted).
    fn catalog_status_among(&self, store: &Store, _named: &[String]) -> Vec<CatalogStatus> {
        self.catalog_status(store)
    }

    /// The store's own event history (audit log), oldest first.
    fn history(&self, _root: &Path) -> Vec<HistoryEvent> {
        Vec::new()
    }

    /// How many events `history` holds (a dialect that keeps its log in memory counts it
    /// without copying every event).
    fn history_len(&self, root: &Path) -> usize {
        self.history(root).len()
    }

    /// Warnings about the store as a whole (manifests, view chains).
    fn warnings(&self) -> Vec<StoreWarning> {
        Vec::new()
    }

    /// The store of the format's own tool that this root sits inside of, when it was opened at
    /// a subfolder (an Obsidian vault opened at its `wiki/` folder): links resolve from there.
    fn enclosing(&self) -> Option<Enclosing> {
        None
    }

    /// The files of the tool's store around this root that lie outside it, when its tool
    /// resolves names across all of it (an Obsidian vault opened at `wiki/`): links reach them.
    fn outside(&self) -> Option<std::sync::Arc<crate::store::read::resolve::LazyOutside>> {
        None
    }

    /// What the format's own manifest says of the cross-entity rules' severities (AIP-10's
    /// `lints:`); nothing for most formats.
    fn manifest_lints(&self) -> crate::store::lint::manifest::ManifestLints {
        crate::store::lint::manifest::ManifestLints::default()
    }

    /// Dialect-specific facts for `folio stats --json` / `show` (e.g. the merged AIP-10 config).
    fn info(&self) -> serde_json::Value {
        serde_json::Value::Null
    }

    // -- write gate (issue 16): where besides the root and folio's state folder the format
    // itself writes (whole folders, resolved by `write_gate`). Most formats: nowhere.
    fn write_areas(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }

    // -- storage seam (issue 16): a format whose store is not a folder (a database) returns
    // its own backend; None is the journaled folder engine.
    fn storage<'s>(&self, _store: &'s Store) -> Option<Box<dyn crate::store::write::storage::Storage + 's>> {
        None
    }

    /// The entity files of a store kept in memory instead of a folder (a database's
    /// snapshot, `opendray_pg::snapshot`): the loader parses these and reads no entity file
    /// from the folder, and the store's `storage()` reads from them. None: read the folder.
    fn memory_files(&self) -> Option<std::sync::Arc<MemoryFiles>> {
        None
    }

    /// The entities of the file `rel` held in memory, when this dialect built them already for
    /// this very `text` (a database's rows read straight into the model): the loader takes them
    /// instead of parsing the text. Asked once per file; None: parse it.
    fn held_entities(&self, _rel: &str, _text: &str) -> Option<Vec<Entity>> {
        None
    }

    /// Whether the entities are held in memory (`memory_files`), asked without taking them.
    fn in_memory(&self) -> bool {
        self.memory_files().is_some()
    }

    /// One entity file held in memory (`memory_files`; inner None: not there), without taking
    /// every one: a refresh of a few files reads those alone (a database's snapshot reads one
    /// text by its offset). None: the entities are files.
    fn memory_file(&self, rel: &str) -> Option<Option<String>> {
        self.memory_files().map(|f| f.get(rel).cloned())
    }

    /// The entity's fields from its file text (frontmatter for most formats).
    fn fields(&self, _entity: &Entity, text: &str) -> Fields {
        yaml_fields(text)
    }
}

/// The tool's own store around a root opened at one of its subfolders (`Dialect::enclosing`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enclosing {
    /// What it is, for people: "Obsidian vault".
    pub what: &'static str,
    /// Its root (absolute).
    pub root: std::path::PathBuf,
    /// The opened root relative to it, with a trailing `/` (`wiki/`).
    pub below: String,
}
