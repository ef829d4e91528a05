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
}

impl LinkRules {
    pub const OBSIDIAN: LinkRules = LinkRules { files_by_name: true, path_suffixes: true, hidden_folders: true };
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
}

impl Default for LinkContext {
    fn default() -> LinkContext {
        LinkContext {
            rules: LinkRules::default(),
            folder_pages: crate::store::dialect::spec::INDEX_PAGES,
            root: None,
            below: String::new(),
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
