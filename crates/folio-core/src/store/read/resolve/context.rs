//! Where and by which rules a store's links resolve: the format's own tools' rules
//! (`LinkRules`), the root, and the enclosing store a root opened at a subfolder sits in
//! (`LinkContext`), with the small path tests they need.
use std::path::{Path, PathBuf};

use super::paths::lower;

/// What a format's own tools resolve beyond paths and names (`Format::link_rules`). Obsidian
/// does all three; the other formats' readers none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkRules {
    /// Wikilinks reach the store's other files by file name or stem: `[[dashboard.base]]`,
    /// `[[Wiki Map]]` (a canvas) when no note claims the name.
    pub files_by_name: bool,
    /// A wikilink path found neither from the root nor from the linking file lands on the file
    /// whose path ends with it: `[[entities/_index]]` → `wiki/entities/_index.md`.
    pub path_suffixes: bool,
    /// Links may land in hidden folders that exist on disk (`.github/`, `.claude-plugin/`),
    /// which the walk skips.
    pub hidden_folders: bool,
    /// Wikilinks name a note by its path or file name only: never through a `title:` or
    /// `aliases:` field (Obsidian's aliases only feed its link suggestions).
    pub names_are_files: bool,
    /// Typed edges name their target by its id exactly, as a table's key does (opendray's
    /// brain: `knowledge_edges.dst_id` is a node's `id`, any text): never by stem, title or
    /// alias, trimmed or case-folded — an edge to a hidden node reaches nothing, not the
    /// node whose title it spells.
    pub edges_by_id: bool,
}

impl LinkRules {
    pub const OBSIDIAN: LinkRules = LinkRules {
        files_by_name: true,
        path_suffixes: true,
        hidden_folders: true,
        names_are_files: true,
        edges_by_id: false,
    };
}

/// The files of the tool's store that lie outside a store opened at one of its subfolders (an
/// Obsidian vault opened at `wiki/`): what a wikilink may still reach from there. Paths are
/// relative to the tool's root.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outside {
    /// `../` once per folder the store root sits below the tool's root.
    up: String,
    /// Lower-cased path → the path as written.
    by_path: std::collections::HashMap<String, String>,
    /// Lower-cased name → the first path in path order claiming it: a note's file name with
    /// and without `.md`, another file's full name (Obsidian's names).
    by_name: std::collections::HashMap<String, String>,
}

/// `Outside`, listed the first time a link needs it: most stores opened inside a vault resolve
/// every link without walking the rest of the vault.
pub struct LazyOutside {
    below: String,
    list: Box<dyn Fn() -> Vec<String> + Send + Sync>,
    found: std::sync::OnceLock<Outside>,
}

impl LazyOutside {
    /// The files `list` returns (relative to the tool's root), for a store `below` it.
    pub fn new(below: &str, list: impl Fn() -> Vec<String> + Send + Sync + 'static) -> LazyOutside {
        LazyOutside { below: below.to_string(), list: Box::new(list), found: std::sync::OnceLock::new() }
    }

    pub fn get(&self) -> &Outside {
        self.found.get_or_init(|| Outside::new(&self.below, (self.list)()))
    }
}

/// One listing is equal only to itself (two stores' contexts never share one).
impl PartialEq for LazyOutside {
    fn eq(&self, other: &LazyOutside) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for LazyOutside {}

impl std::fmt::Debug for LazyOutside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyOutside").field("below", &self.below).field("found", &self.found.get()).finish()
    }
}

impl Outside {
    /// `paths` (relative to the tool's root, outside the store), for a store `below` it.
    pub fn new(below: &str, paths: impl IntoIterator<Item = String>) -> Outside {
        let mut paths: Vec<String> = paths.into_iter().collect();
        paths.sort_by(|a, b| (a.matches('/').count(), a).cmp(&(b.matches('/').count(), b)));
        let mut out =
            Outside { up: "../".repeat(below.split('/').filter(|s| !s.is_empty()).count()), ..Default::default() };
        for p in paths {
            let name = super::paths::file_name(&p);
            let mut names = vec![lower(name).into_owned()];
            if let Some(note) = name.strip_suffix(".md") {
                names.push(lower(note).into_owned());
            }
            for n in names {
                out.by_name.entry(n).or_insert_with(|| p.clone());
            }
            out.by_path.insert(lower(&p).into_owned(), p);
        }
        out
    }

    /// The file a wikilink naming `key` (lower-cased, without a path) reaches, from the store
    /// root (`../docs/guide.md`).
    pub fn named(&self, key: &str) -> Option<String> {
        self.by_name.get(key).map(|p| format!("{}{p}", self.up))
    }

    /// The file at `path` (relative to the tool's root, lower-cased; a note with or without
    /// `.md`), from the store root.
    pub fn at(&self, path: &str) -> Option<String> {
        let found = self.by_path.get(path).or_else(|| self.by_path.get(&format!("{path}.md")))?;
        Some(format!("{}{found}", self.up))
    }
}

/// Where and by which rules a store's links resolve (`Store::link_context`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkContext {
    pub rules: LinkRules,
    /// A link to a folder lands on the first of these in it (the format's `folder_pages`).
    pub folder_pages: &'static [&'static str],
    /// The store root: hidden folders are looked for there (`LinkRules::hidden_folders`).
    pub root: Option<PathBuf>,
    /// Where the store root sits below the root the format's own tool resolves paths from
    /// (`wiki/` for an Obsidian vault opened at its `wiki/` folder; empty when they are one).
    pub below: String,
    /// The files of that enclosing store outside the store root, when the format's tool
    /// resolves names across it (`Dialect::outside`), listed when a link first asks.
    pub outside: Option<std::sync::Arc<LazyOutside>>,
}

impl Default for LinkContext {
    fn default() -> LinkContext {
        LinkContext {
            rules: LinkRules::default(),
            folder_pages: crate::store::dialect::spec::INDEX_PAGES,
            root: None,
            below: String::new(),
            outside: None,
        }
    }
}

impl LinkContext {
    pub fn of_rules(rules: LinkRules) -> LinkContext {
        LinkContext { rules, ..Default::default() }
    }
}

/// Whether a typed edge's target is a store path rather than a name: `dir/file.md`.
pub fn is_path_target(target: &str) -> bool {
    target.ends_with(".md") && target.contains('/')
}

/// A markdown destination written from the root of the tool's store (`/metrics/a.md`).
pub(super) fn bundle_absolute(target: &str) -> bool {
    let t = crate::store::model::lines::trim(target).trim_start_matches('<');
    t.starts_with('/') && !t.starts_with("//")
}

/// Whether some folder or file along `path` is hidden (`.github/…`).
pub(super) fn has_hidden_component(path: &str) -> bool {
    path.split('/').any(|c| c.starts_with('.') && c != "." && c != "..")
}

/// Whether `rel` exists under `root` and, with symlinks followed, stays inside it.
pub(super) fn exists_inside(root: &Path, rel: &str) -> bool {
    let (Ok(root), Ok(target)) = (root.canonicalize(), root.join(rel).canonicalize()) else { return false };
    target.starts_with(&root)
}

/// The shortest path, then the first in path order, among `found` files whose lower-cased path
/// is `tail` or ends with `/tail`.
pub(crate) fn shortest_ending<'p, T: Copy>(
    found: impl Iterator<Item = (&'p str, T)>,
    tail: &str,
) -> Option<(&'p str, T)> {
    found
        .filter(|(p, _)| {
            let p = lower(p);
            p == tail || p.strip_suffix(tail).is_some_and(|head| head.ends_with('/'))
        })
        .min_by_key(|(p, _)| (p.matches('/').count(), p.len()))
}
