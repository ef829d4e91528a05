//! What folio knows about a format before (or without) opening a store of it: the facts generic
//! code needs — where folio keeps its state, how frontmatter is written, which paths are
//! read-only, how the catalog tree groups entities, what the review ladder's next step is.
//!
//! Each format answers in its own folder (`<format>/format.rs`); generic code asks through
//! `DialectKind::format()` and never matches on which format it is.
use std::path::{Path, PathBuf};

use super::spec::FormatSpec;
use super::{Dialect, DialectKind, Grammar};
use crate::store::model::entity::{Entity, LinkSyntax};
use crate::store::read::frontmatter::{self, Fields};
use crate::store::read::resolve::LinkRules;
use crate::store::review::rules::{LogOnly, ReviewRules};
use crate::store::write::audit::AuditEvent;
use time::OffsetDateTime;

/// Label used when an entity lacks the field its format groups the catalog tree by.
pub const UNSORTED: &str = "(none)";

/// A store found by a format's marker: its root and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub root: PathBuf,
    pub reason: String,
}

impl Marker {
    pub fn new(root: impl Into<PathBuf>, reason: impl Into<String>) -> Marker {
        Marker { root: root.into(), reason: reason.into() }
    }
}

/// A marker file whose content must also be the format's (a doctype, a layout): many tools
/// keep files under the same names. Answers `Format::marker` and `Format::look_alike` alike.
pub struct CheckedMarker {
    /// The file, relative to the store's root.
    pub file: &'static str,
    /// Why the file's content is not the format's, if it is not.
    pub check: fn(&Path) -> Result<(), String>,
    /// What a folder with the file but not the content is not ("an AIP-10 wiki").
    pub store: &'static str,
}

impl CheckedMarker {
    pub fn marker(&self, path: &Path) -> Option<Marker> {
        let file = path.join(self.file);
        (file.is_file() && (self.check)(&file).is_ok()).then(|| Marker::new(path, format!("{} found", self.file)))
    }

    pub fn look_alike(&self, path: &Path) -> Option<(String, String)> {
        let file = path.join(self.file);
        if !file.is_file() {
            return None;
        }
        let why = (self.check)(&file).err()?;
        Some((self.file.to_string(), format!("{} {why}, so this folder is not {}", self.file, self.store)))
    }
}

/// One sampled markdown file's frontmatter, as detection's sniffing sees it.
pub struct Sniffed<'a> {
    pub fields: &'a Fields,
    /// The frontmatter's raw text (keys that did not parse still show here).
    pub raw: &'a str,
    pub body: &'a str,
}

impl Sniffed<'_> {
    /// Whether the frontmatter has `key` (parsed, or as a `key:` line when it did not parse).
    pub fn has(&self, key: &str) -> bool {
        self.fields.contains_key(key)
            || self.raw.lines().any(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))
    }

    /// The string value of `key` ("" when absent).
    pub fn str(&self, key: &str) -> String {
        frontmatter::get_str(self.fields, key).unwrap_or_default()
    }
}

/// A format opened on a part of its store (`Format::open_part`), and why it was chosen.
pub type Part = (Box<dyn Dialect>, String);

pub trait Format: Sync {
    /// The format's standing facts (`<format>/spec.rs`).
    fn spec(&self) -> &'static FormatSpec;

    fn kind(&self) -> DialectKind {
        DialectKind::of(self.spec())
    }

    /// Open the dialect on a store root (reads manifests where the format has them).
    fn open(&self, root: &Path) -> Box<dyn Dialect>;

    /// A file or folder at `path` that only this format uses, with the store root it implies.
    fn marker(&self, _path: &Path) -> Option<Marker> {
        None
    }

    /// A folder that holds this format's marker file but is not one of its stores (the file
    /// is there, its content is not the format's): the marker file, relative to `path`, and
    /// why, for the person. Such a folder is never opened as this format on a guess
    /// (`detect`: a plain vault, warned about; `--dialect` still opens it as this format).
    fn look_alike(&self, _path: &Path) -> Option<(String, String)> {
        None
    }

    /// Whether the format links its entities to each other at all. One that does not (an
    /// awareness home's memory files) has no orphans: nothing is expected to link to anything.
    fn has_links(&self) -> bool {
        true
    }

    /// A store named by `locator` (a connection string) rather than a folder: the format that
    /// claims it reads it into a folder folio keeps, and answers that folder as the root. The
    /// error is one line for the person (never the password). `archived`: `--archived`.
    fn locate(&self, _locator: &str, _archived: bool) -> Option<Result<(DialectKind, Marker), String>> {
        None
    }

    /// The format opened on the part of the store `locator` names (read into `root`) that a
    /// decision about `names` (ids or paths) reads — those entities as they are now — instead
    /// of every entity (`Store::open_part`), with why it was chosen (as `locate`'s marker says);
    /// with `inbound`, and the entities that may link into them (a decision taking them away
    /// lists those links). None: the decision opens the whole store; an error says why the
    /// store cannot be read.
    fn open_part(
        &self,
        _locator: &str,
        _archived: bool,
        _root: &Path,
        _names: &[String],
        _inbound: bool,
    ) -> Option<Result<Part, String>> {
        None
    }

    /// Begin reaching the store `locator` names (a database: its connection) while folio
    /// reads what it keeps of it; the read that follows takes what this began.
    fn reach_ahead(&self, _locator: &str) {}

    /// Where `locate` will read `locator` into, known before anything is read (so a cached
    /// copy of the store can be decoded while the source is being read). None for a locator
    /// this format does not claim.
    fn located_root(&self, _locator: &str, _archived: bool) -> Option<(DialectKind, PathBuf)> {
        None
    }

    /// How a locator this format claims is shown to the person before it is read (the
    /// loading screen): without its password. None for a locator it does not claim.
    fn shown(&self, _locator: &str) -> Option<String> {
        None
    }

    /// For a root this format read from elsewhere (a database's folder): a call that
    /// re-reads what changed at the source, made every `watch::POLL` while the store is
    /// watched; it gives the paths of the entities that changed (the watch reports them as
    /// changed files). None: a plain folder.
    fn poll_source(&self, _root: &Path) -> Option<Box<dyn FnMut() -> Vec<PathBuf> + Send>> {
        None
    }

    /// For a root whose entities only folio writes (a database's snapshot): a value that
    /// changes whenever any of them may have changed, read before they are. The store
    /// cache keeps it with its snapshot and trusts the snapshot without a stat per file
    /// while it is the same. None: unknown or changing now (the files are checked).
    fn files_token(&self, _root: &Path) -> Option<u64> {
        None
    }

    /// For a root whose entities are held in memory (`Dialect::memory_files`): the entity
    /// paths that changed since its `files_token` was `token`, when known — a store cached
    /// then is brought up to date by re-reading those alone. None: read it whole.
    fn changed_since(&self, _root: &Path, _token: u64) -> Option<Vec<String>> {
        None
    }

    /// Whether a store cached at `token` and brought up by `changed_since` may stay cached as
    /// it is (the format still remembers the changes since it for `ahead` more writes): the
    /// next open then re-reads those few again instead of the cache being written whole.
    fn cached_may_lag(&self, _root: &Path, _token: u64, _ahead: usize) -> bool {
        false
    }

    /// Whether a sampled file's frontmatter carries this format's marks (detection without a
    /// marker; the formats are asked in the registry's sniffing order, the first claims it).
    fn sniff(&self, _file: &Sniffed) -> bool {
        false
    }

    /// The root used when the format is named with `--dialect` on `path`.
    fn root_for(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }

    /// The store root when searching upward from a folder found by this format's marker.
    fn upward_root(&self, found: &Path) -> PathBuf {
        found.to_path_buf()
    }

    /// A store that `dir` sits inside of, known from `dir` alone (searching upward).
    fn enclosing_store(&self, _dir: &Path) -> Option<PathBuf> {
        None
    }

    /// The separate stores of this format side by side in `dir` when `dir` is not one itself
    /// (a folder of OKF bundles): opened one at a time, never read as one store.
    fn stores_within(&self, _dir: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Where folio keeps its own state for a store at `root` (never inside what the format's own
    /// readers scan).
    fn state_dir(&self, root: &Path) -> PathBuf {
        root.join(self.spec().state_folder)
    }

    /// How entity files write their frontmatter.
    fn grammar(&self) -> Grammar {
        Grammar::Yaml
    }

    /// Whether entities depend only on their own file's bytes, so a per-file size and mtime
    /// check can tell when the store cache is current — or on the dialect's own inputs too, which
    /// it names (`Dialect::parse_inputs`, `Dialect::outdated`). Other formats that read
    /// manifests, event logs or the clock when they open are always read.
    fn cacheable(&self) -> bool {
        false
    }

    /// Why folio must never write `rel` (relative to the root), when the format forbids it.
    fn read_only_reason(&self, _rel: &str) -> Option<String> {
        None
    }

    /// Whose file `rel` is when it is not the store's own: a copy of someone else's source
    /// the format keeps in the store (evolve's subscribed clones), which a sync overwrites.
    /// Bulk writes name it and leave it out (a person fixes such a file one at a time).
    fn foreign_source(&self, _rel: &str) -> Option<String> {
        None
    }

    /// The labels from the root down to the catalog-tree group `e` belongs in (empty: the root).
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        folders(&e.path)
    }

    /// The step on the format's review ladder that approving an item in `status` takes
    /// (docs/review.md, "Per format"), for the inbox's detail line.
    fn promotion_step(&self, _status: &str) -> Option<&'static str> {
        None
    }

    /// A link the format's own rules forbid: `(rule, message)`. `path` is the file the link
    /// resolves to, when it resolves.
    fn forbidden_link(
        &self,
        _syntax: LinkSyntax,
        _target: &str,
        _path: Option<&str>,
    ) -> Option<(&'static str, String)> {
        None
    }

    /// What breaks the structure the format gives its reserved file `rel` (a log or a catalog,
    /// whose text is `text`): `(line, message)` each, reported as `reserved-file`.
    fn reserved_file_problems(&self, _rel: &str, _text: &str) -> Vec<(u32, String)> {
        Vec::new()
    }

    /// What the format's own tools resolve beyond paths and names (Obsidian: files by name,
    /// partial paths, hidden folders).
    fn link_rules(&self) -> LinkRules {
        LinkRules::default()
    }

    /// Where a store's event log lives: folio's own `audit.jsonl` for formats without one.
    fn log_path(&self, root: &Path) -> PathBuf {
        crate::store::write::audit::own_log_path(root, self.kind())
    }

    /// Whether undoing a changeset takes its lines back out of the log rather than adding an
    /// event (a log whose own tools know no undo event: awareness). The undo record then keeps
    /// the log as the changeset found and left it (`AuditEvent::undone_log`); other formats
    /// keep nothing of their log there.
    fn undo_withdraws_log_lines(&self) -> bool {
        false
    }

    /// The log's new text with `event` added at `at`, in the format's grammar.
    fn append_event(&self, old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
        crate::store::write::audit::json_line(old, crate::store::write::audit::json_record(event, at))
    }

    /// What review verdicts and merges write in this format (`<format>/review.rs`).
    fn review(&self) -> &'static dyn ReviewRules {
        &LogOnly
    }
}

/// The folders of a path, root first (the catalog tree of folder-shaped formats).
pub fn folders(path: &str) -> Vec<&str> {
    // memchr's SIMD search: std's memrchr is slower, and every entity's path passes here when the
    // tree is built (docs/benchmarks.md, "TUI figures").
    match memchr::memrchr(b'/', path.as_bytes()) {
        Some(end) => path[..end].split('/').collect(),
        None => Vec::new(),
    }
}

/// A field's value as a tree label (`UNSORTED` when absent or blank).
pub fn label(v: Option<&str>) -> &str {
    v.filter(|s| !s.trim().is_empty()).unwrap_or(UNSORTED)
}
