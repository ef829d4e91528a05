//! The common model every dialect maps its files onto.
use std::ops::Range;
use std::sync::Arc;

mod link_wire;

/// Index of an entity inside `Store::entities`.
pub type EntityIdx = u32;

/// One unit of knowledge: a concept file, a wiki page, a graph node, a memory entry line.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Entity {
    /// Concept id as the dialect defines it (path minus `.md`, slug, node id, entry hash…).
    pub id: String,
    /// File holding the entity, relative to the store root, `/`-separated.
    pub path: String,
    /// `type` / `kind` / section: how the dialect classifies it.
    /// Shared: the few distinct kinds, statuses and tags of a store are one allocation each
    /// (see `Shared`), not one per entity.
    pub kind: Option<Arc<str>>,
    pub title: String,
    pub description: Option<Box<str>>,
    /// Review state as the dialect spells it (OKF `status`, opendray `maturity`, …).
    pub status: Option<Arc<str>>,
    pub created: Option<Box<str>>,
    pub updated: Option<Box<str>>,
    pub tags: Vec<Arc<str>>,
    pub aliases: Vec<String>,
    /// Provenance / sources, as written (paths, ids or resources).
    pub sources: Vec<String>,
    pub confidence: Option<f64>,
    /// Typed relations from frontmatter (supersedes, contradicts, uses, …).
    pub edges: Vec<Edge>,
    /// Links found in the body (and for some dialects in frontmatter values).
    #[serde(with = "link_wire")]
    pub links: Vec<Link>,
    /// What is wrong with this entity as read (see `Problem`).
    pub problems: Vec<Problem>,
    /// 1-based line of the entity inside its file (entries that share a file start later).
    pub line: u32,
    /// Byte range of the entity inside its file (whole file for file-per-entity dialects).
    pub span: Range<u32>,
    /// Byte offset where the markdown body starts (after the frontmatter block).
    pub body_start: u32,
    /// Size and modification time of the file when read (for cache and conflict checks).
    pub file_size: u64,
    /// Nanoseconds since the epoch: i64 lasts until 2262, and an i128 made `Entity` 16-aligned.
    pub mtime_ns: i64,
}

/// A typed edge declared in frontmatter.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Edge {
    pub kind: String,
    pub target: String,
    pub resolved: Option<EntityIdx>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum LinkSyntax {
    /// `[label](target)`
    Markdown,
    /// `[[target]]` or `[[target|alias]]`
    Wiki,
}

/// Where a link goes, decided after every entity is loaded.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Resolution {
    /// Not resolved yet (only during loading).
    #[default]
    Pending,
    Entity(EntityIdx),
    /// An existing file in the store that is not an entity (a source, an image, a catalog).
    /// Boxed: a `String` payload made every `Resolution` (one per link) 24 bytes, not 16.
    File(Box<String>),
    /// `http:`, `mailto:` and other schemes: never checked.
    External,
    /// `#anchor` inside the same document.
    Anchor,
    /// Points inside the store at nothing.
    Broken,
    /// Resolves outside the store root (`../..`, absolute path, `file://`): never followed.
    Escapes,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Link {
    /// The target as written, then the label (a separate label `String` cost 24 bytes plus its
    /// own block), in a text the links of one body share (`Link::in_shared`).
    text: LinkText,
    /// Where the target ends in `text`.
    target_len: u32,
    pub syntax: LinkSyntax,
    /// Byte span of the whole link in the file.
    pub span: Range<u32>,
    /// 1-based line and column (in bytes) of the link start.
    pub line: u32,
    pub col: u32,
    pub resolution: Resolution,
}

impl Resolution {
    pub fn file(path: impl Into<String>) -> Resolution {
        Resolution::File(Box::new(path.into()))
    }
}

impl Link {
    /// A link not resolved yet; an empty label is no label.
    pub fn new(syntax: LinkSyntax, target: &str, label: Option<&str>, span: Range<u32>, line: u32, col: u32) -> Link {
        let label = label.unwrap_or_default();
        let text = if label.is_empty() { LinkText::own(target) } else { LinkText::own(&[target, label].concat()) };
        Link { text, target_len: target.len() as u32, syntax, span, line, col, resolution: Resolution::Pending }
    }

    /// A link not resolved yet whose target then label are `all[text]`, the target
    /// `target_len` bytes long: the links of a body share `all`, one allocation for them all
    /// (one per link would be an allocation per link, and a store has several links per entity:
    /// docs/benchmarks.md, "Link scan figures").
    pub fn in_shared(
        syntax: LinkSyntax,
        all: &Arc<str>,
        text: Range<u32>,
        target_len: u32,
        span: Range<u32>,
        line: u32,
        col: u32,
    ) -> Link {
        let text = LinkText { all: Arc::clone(all), start: text.start, end: text.end };
        Link { text, target_len, syntax, span, line, col, resolution: Resolution::Pending }
    }

    /// The target as written (wikilink target without alias, markdown URL as written).
    pub fn target(&self) -> &str {
        self.parts().0
    }

    /// Label / alias text when present.
    pub fn label(&self) -> Option<&str> {
        Some(self.parts().1).filter(|l| !l.is_empty())
    }

    /// `text` split at `target_len`; a length that does not fit (a damaged cache) gives the
    /// whole text as the target rather than a panic.
    fn parts(&self) -> (&str, &str) {
        let text = self.text.as_str();
        text.split_at_checked(self.target_len as usize).unwrap_or((text, ""))
    }

    pub fn is_internal(&self) -> bool {
        !matches!(self.resolution, Resolution::External | Resolution::Anchor)
    }
    pub fn is_unresolved(&self) -> bool {
        matches!(self.resolution, Resolution::Broken | Resolution::Escapes)
    }
    pub fn entity(&self) -> Option<EntityIdx> {
        match self.resolution {
            Resolution::Entity(i) => Some(i),
            _ => None,
        }
    }
}

/// A range of a text that may be shared with other links (`Link::in_shared`). Compared,
/// printed and stored (the cache) as the text it covers.
#[derive(Clone)]
struct LinkText {
    all: Arc<str>,
    start: u32,
    end: u32,
}

impl LinkText {
    fn own(text: &str) -> LinkText {
        LinkText { all: Arc::from(text), start: 0, end: text.len() as u32 }
    }

    /// The text; a range that does not fit (never made here) gives the empty text.
    fn as_str(&self) -> &str {
        self.all.get(self.start as usize..self.end as usize).unwrap_or_default()
    }
}

impl PartialEq for LinkText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl std::fmt::Debug for LinkText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

impl serde::Serialize for LinkText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for LinkText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LinkText::own(&String::deserialize(d)?))
    }
}

/// Something wrong with an entity found while reading it: reading problems (non-UTF-8,
/// broken frontmatter…) and the per-file checks a dialect makes while it has the fields in
/// hand. The lint layer reports these next to its cross-entity rules; `rule` is a lint rule id.
/// (`Deserialize` is in `cache::codec`: `rule` is read back as the matching constant.)
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Problem {
    pub rule: &'static str,
    /// Overrides the rule's default severity (e.g. an AIP-10 manifest lint's own severity).
    pub severity: Option<Severity>,
    pub message: String,
    /// 1-based position in the file.
    pub line: u32,
    pub col: u32,
    /// The bytes of the file the problem is about, when its check located them exactly: what
    /// a safe fix edits, known without reading the file again (`legacy-trigger`'s key).
    pub bytes: Option<Range<u32>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum Severity {
    Info,
    Warn,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warn => "warn",
            Severity::Error => "error",
        }
    }
    pub fn from_name(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warn" | "warning" => Some(Severity::Warn),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// Lint rule ids: the public contract (`folio lint --explain ID`). Dialects attach the per-file
/// ones to entities while parsing; the lint engine adds the cross-entity ones.
pub mod rule {
    // Found while reading a file (load.rs / every dialect).
    pub const INVALID_FRONTMATTER: &str = "invalid-frontmatter";
    pub const NON_UTF8: &str = "non-utf8";
    /// Larger than the read limit: only the first part was read.
    pub const TOO_LARGE: &str = "too-large";
    /// NUL bytes: not parsed as markdown.
    pub const BINARY: &str = "binary";
    /// Could not be read at all (permissions, vanished, symlink loop…).
    pub const UNREADABLE: &str = "unreadable";
    /// A link (or a symlinked file) whose target leaves the store root.
    pub const LINK_ESCAPES_ROOT: &str = "link-escapes-root";
    /// Terminal control characters, escape sequences, bidi overrides, zero-width characters.
    pub const CONTROL_CHARS: &str = "control-chars";
    // Per-file field checks made by dialects while parsing.
    pub const MISSING_TYPE: &str = "missing-type";
    pub const MISSING_DESCRIPTION: &str = "missing-description";
    pub const LEGACY_TRIGGER: &str = "legacy-trigger";
    pub const INVALID_FIELD: &str = "invalid-field";
    pub const STALE: &str = "stale";
    pub const UNSOURCED: &str = "unsourced";
    pub const LOW_CONFIDENCE: &str = "low-confidence";
    // Cross-entity rules (the lint engine) and store-level warnings (`StoreWarning::code`).
    pub const WIKILINK_SYNTAX: &str = "wikilink-syntax";
    pub const BROKEN_LINK: &str = "broken-link";
    pub const ORPHAN: &str = "orphan";
    pub const DUPLICATE_ID: &str = "duplicate-id";
    pub const DUPLICATE_TITLE: &str = "duplicate-title";
    pub const RESERVED_NAME: &str = "reserved-name";
    /// A reserved file (OKF's `log.md`) that does not keep to the structure its format gives it
    /// (`Format::reserved_file_problems`).
    pub const RESERVED_FILE: &str = "reserved-file";
    pub const CATALOG_STALE: &str = "catalog-stale";
    pub const CONTRADICTION: &str = "contradiction";
}

impl Problem {
    pub fn new(rule: &'static str, message: impl Into<String>, line: u32, col: u32) -> Self {
        Problem { rule, severity: None, message: message.into(), line, col, bytes: None }
    }

    /// The problem with the byte range it is about (`None` leaves it unlocated).
    pub fn at_bytes(mut self, range: Option<Range<usize>>) -> Self {
        self.bytes = range.and_then(|r| Some(u32::try_from(r.start).ok()?..u32::try_from(r.end).ok()?));
        self
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = Some(severity);
        self
    }
}

/// An id as a reader is shown it (before a face escapes it for the terminal): quoted as JSON
/// quotes it where a reader could not otherwise see where it starts and ends or what it holds —
/// empty, with white space at an end, or holding a tab or a line break (opendray's key takes
/// any text: `' pb-deploy '` and `pb-deploy` are two nodes).
pub fn id_as_shown(id: &str) -> std::borrow::Cow<'_, str> {
    if id.is_empty() || id.trim() != id || id.contains(['\t', '\n']) {
        return serde_json::Value::from(id).to_string().into();
    }
    id.into()
}

impl Entity {
    /// Whether its status says a person still has to look at it (the catalog's pending mark
    /// and recall's `pending` filter).
    pub fn is_pending(&self) -> bool {
        self.status.as_deref().is_some_and(|s| {
            matches!(
                s.to_lowercase().as_str(),
                "draft" | "pending" | "proposed" | "candidate" | "review" | "unreviewed" | "needs-review" | "tentative"
            )
        })
    }

    /// Whether the entity's file is a symlink leading out of the store (never read).
    pub fn escapes_root(&self) -> bool {
        self.problems.iter().any(|p| p.rule == rule::LINK_ESCAPES_ROOT && p.line == 0)
    }

    /// Gives back the room the lists grew into while the entity was parsed.
    pub fn shrink_to_fit(&mut self) {
        self.tags.shrink_to_fit();
        self.aliases.shrink_to_fit();
        self.sources.shrink_to_fit();
        self.edges.shrink_to_fit();
        self.links.shrink_to_fit();
        self.problems.shrink_to_fit();
    }

    /// The file stem of the entity's file (`tables/users.md` → `users`).
    pub fn stem(&self) -> &str {
        let name = super::relpath::file_name(&self.path);
        name.strip_suffix(".md").unwrap_or(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_link_texts_read_compare_and_store_as_their_own() {
        let all: Arc<str> = Arc::from("a.mdLabelb/c.md[[x]]");
        let a = Link::in_shared(LinkSyntax::Markdown, &all, 0..9, 4, 3..20, 2, 5);
        let b = Link::in_shared(LinkSyntax::Markdown, &all, 9..15, 6, 30..40, 3, 1);
        assert_eq!((a.target(), a.label()), ("a.md", Some("Label")));
        assert_eq!((b.target(), b.label()), ("b/c.md", None));
        assert_eq!(a, Link::new(LinkSyntax::Markdown, "a.md", Some("Label"), 3..20, 2, 5));
        assert_ne!(a, Link::new(LinkSyntax::Markdown, "a.md", Some("Label!"), 3..20, 2, 5));
        // Stored (the cache) as its own text, read back equal.
        let bytes = bincode::serialize(&b).unwrap();
        assert_eq!(bincode::deserialize::<Link>(&bytes).unwrap(), b);
        assert_eq!(format!("{:?}", b.text), "\"b/c.md\"");
    }
}
