//! Plain markdown vaults (the fallback): any `.md` tree with optional YAML frontmatter —
//! Claude-style memory folders, Obsidian-style LLM wikis. Wikilinks resolve by path, file
//! stem, title or alias, as Obsidian does.
use crate::store::model::shared_values::shared_list;
use std::path::{Path, PathBuf};

use super::{Dialect, DialectKind, Enclosing, FileRole, Grammar, SourceFile, edges_from_view, parse_markdown_view};
use crate::store::model::entity::Entity;

pub mod format;
pub mod spec;
mod frontmatter_links;
mod hubs;
mod ignore_filters;
mod log_reader;
pub mod review;
pub use format::KIND;

pub struct Vault {
    ignored: ignore_filters::IgnoreFilters,
    /// The Obsidian vault around the root, when the root is one of its subfolders.
    enclosing: Option<Enclosing>,
}

impl Vault {
    pub fn open(root: &Path) -> Vault {
        let Some((vault, below)) = vault_root(root) else {
            return Vault { ignored: Default::default(), enclosing: None };
        };
        let ignored = ignore_filters::IgnoreFilters::of(&vault, &below);
        let enclosing = (!below.is_empty()).then_some(Enclosing { what: "Obsidian vault", root: vault, below });
        Vault { ignored, enclosing }
    }
}

/// The Obsidian vault holding `root` — the nearest folder at or above it with `.obsidian/` —
/// and where `root` sits below it (`wiki/`, or empty).
fn vault_root(root: &Path) -> Option<(PathBuf, String)> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let vault = root.ancestors().find(|dir| dir.join(".obsidian").is_dir())?;
    let below = root
        .strip_prefix(vault)
        .ok()
        .and_then(crate::store::model::relpath::from_path)
        .filter(|b| !b.is_empty())
        .map(|b| format!("{b}/"))
        .unwrap_or_default();
    Some((vault.to_path_buf(), below))
}

impl Dialect for Vault {
    fn kind(&self) -> DialectKind {
        crate::store::dialect::vault::KIND
    }

    fn role(&self, rel: &str) -> FileRole {
        if rel.ends_with(".md") && !self.ignored.excludes(rel) { FileRole::Entity } else { FileRole::Other }
    }

    /// An LLM wiki's `log.md` (`## [date] op | subject`); the file stays a note as well.
    /// Hub pages (`index.md`, `_index.md`) are checked to list their folder's pages.
    fn catalog_status(&self, store: &crate::store::Store) -> Vec<crate::store::write::catalog::CatalogStatus> {
        hubs::status(store)
    }

    fn catalog_states(&self, store: &crate::store::Store) -> Vec<(String, crate::store::write::catalog::CatalogState)> {
        hubs::status(store).into_iter().map(|s| (s.path, s.state)).collect()
    }

    fn enclosing(&self) -> Option<Enclosing> {
        self.enclosing.clone()
    }

    fn history(&self, root: &Path) -> Vec<crate::store::model::history::HistoryEvent> {
        log_reader::history(root)
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        let p = parse_markdown_view(file, Grammar::Yaml);
        let mut e = p.entity;
        let f = &p.fields;
        e.kind = f.str("type").or_else(|| f.str("kind")).map(Into::into);
        e.description = f.str("description").or_else(|| f.str("summary")).map(Into::into);
        e.status = f.str("status").map(Into::into);
        e.tags = shared_list(f.list("tags"));
        e.aliases = f.list("aliases");
        e.created = f.str("created").map(Into::into);
        e.updated = f.str("updated").or_else(|| f.str("updated_at")).map(Into::into);
        e.sources = f.list("sources");
        e.confidence = f.f64("confidence");
        e.edges = edges_from_view(f, super::EDGE_KEYS);
        if p.has_frontmatter {
            let mut links = frontmatter_links::scan(file.text, e.body_start as usize);
            if !links.is_empty() {
                links.append(&mut e.links);
                e.links = links;
            }
        }
        vec![e]
    }
}
