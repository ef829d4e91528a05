//! The common model every dialect maps its files onto.
use std::ops::Range;

/// Index of an entity inside `Store::entities`.
pub type EntityIdx = u32;

/// One unit of knowledge: a concept file, a wiki page, a graph node, a memory entry line.
#[derive(Debug, Clone, Default)]
pub struct Entity {
    /// Concept id as the dialect defines it (path minus `.md`, slug, node id, entry hash…).
    pub id: String,
    /// File holding the entity, relative to the store root, `/`-separated.
    pub path: String,
    /// `type` / `kind` / section: how the dialect classifies it.
    pub kind: Option<String>,
    pub title: String,
    pub description: Option<String>,
    /// Review state as the dialect spells it (OKF `status`, opendray `maturity`, …).
    pub status: Option<String>,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    /// Provenance / sources, as written (paths, ids or resources).
    pub sources: Vec<String>,
    pub confidence: Option<f64>,
    /// Typed relations from frontmatter (supersedes, contradicts, uses, …).
    pub edges: Vec<Edge>,
    /// Links found in the body (and for some dialects in frontmatter values).
    pub links: Vec<Link>,
    /// What went wrong reading this entity; the lint layer reports these.
    pub problems: Vec<Problem>,
    /// 1-based line of the entity inside its file (entries that share a file start later).
    pub line: u32,
    /// Byte range of the entity inside its file (whole file for file-per-entity dialects).
    pub span: Range<u32>,
    /// Byte offset where the markdown body starts (after the frontmatter block).
    pub body_start: u32,
    /// Size and modification time of the file when read (for cache and conflict checks).
    pub file_size: u64,
    pub mtime_ns: i128,
}

/// A typed edge declared in frontmatter.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub kind: String,
    pub target: String,
    pub resolved: Option<EntityIdx>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkSyntax {
    /// `[label](target)`
    Markdown,
    /// `[[target]]` or `[[target|alias]]`
    Wiki,
}

/// Where a link goes, decided after every entity is loaded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Resolution {
    /// Not resolved yet (only during loading).
    #[default]
    Pending,
    Entity(EntityIdx),
    /// An existing file in the store that is not an entity (a source, an image, a catalog).
    File(String),
    /// `http:`, `mailto:` and other schemes: never checked.
    External,
    /// `#anchor` inside the same document.
    Anchor,
    /// Points inside the store at nothing.
    Broken,
    /// Resolves outside the store root (`../..`, absolute path, `file://`): never followed.
    Escapes,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub syntax: LinkSyntax,
    /// The target as written (wikilink target without alias, markdown URL as written).
    pub target: String,
    /// Label / alias text when present.
    pub label: Option<String>,
    /// Byte span of the whole link in the file.
    pub span: Range<u32>,
    /// 1-based line and column (in bytes) of the link start.
    pub line: u32,
    pub col: u32,
    pub resolution: Resolution,
}

impl Link {
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

/// Something that went wrong while reading a file, kept for lint.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub message: String,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// Frontmatter unterminated, unparseable or not a mapping.
    InvalidFrontmatter,
    NonUtf8,
    /// Larger than the read limit: only the first part was read.
    TooLarge,
    /// Contains NUL bytes: not parsed as markdown.
    Binary,
    /// Could not be read at all (permissions, vanished, symlink loop, …).
    Unreadable,
    /// A symlink whose target leaves the store root: not read.
    SymlinkEscapes,
}

impl Problem {
    pub fn new(kind: ProblemKind, message: impl Into<String>, line: u32, col: u32) -> Self {
        Problem { kind, message: message.into(), line, col }
    }
}

impl Entity {
    /// The file stem of the entity's file (`tables/users.md` → `users`).
    pub fn stem(&self) -> &str {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        name.strip_suffix(".md").unwrap_or(name)
    }
}
