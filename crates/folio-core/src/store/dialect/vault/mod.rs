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
mod templates;
pub use format::KIND;

pub struct Vault {
    ignored: ignore_filters::IgnoreFilters,
    /// Template folders, whose `[[{{title}}]]` placeholders are no links.
    templates: templates::TemplateFolders,
    /// The Obsidian vault around the root, when the root is one of its subfolders.
    enclosing: Option<Enclosing>,
    /// The vault's files outside the root, listed the first time a link asks.
    outside: Option<std::sync::Arc<crate::store::read::resolve::LazyOutside>>,
}

impl Vault {
    pub fn open(root: &Path) -> Vault {
        let Some((vault, below)) = vault_root(root) else {
            return Vault {
                ignored: Default::default(),
                templates: templates::TemplateFolders::of(None, ""),
                enclosing: None,
                outside: None,
            };
        };
        let ignored = ignore_filters::IgnoreFilters::of(&vault, &below);
        let templates = templates::TemplateFolders::of(Some(&vault), &below);
        let enclosing = (!below.is_empty()).then_some(Enclosing { what: "Obsidian vault", root: vault, below });
        let outside = enclosing.as_ref().map(|e| {
            let (root, below) = (e.root.clone(), e.below.clone());
            std::sync::Arc::new(crate::store::read::resolve::LazyOutside::new(&e.below, move || {
                outside_files(&root, &below)
            }))
        });
        Vault { ignored, templates, enclosing, outside }
    }
}

/// The files of the vault at `vault` outside the store `below` it (`wiki/`), relative to the
/// vault root: Obsidian resolves a note's name across the whole vault. Hidden files and
/// folders (`.obsidian/`, `.git/`) are no part of a vault.
fn outside_files(vault: &Path, below: &str) -> Vec<String> {
    let skip = below.trim_end_matches('/');
    let mut out = Vec::new();
    let mut stack = vec![(vault.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            match e.file_type() {
                Ok(t) if t.is_dir() && path != skip => stack.push((e.path(), path)),
                Ok(t) if t.is_file() => out.push(path),
                _ => {}
            }
        }
    }
    out
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

    /// Hubs are hubs by their path (`index.md`, `_index.md`).
    fn catalog_names(&self) -> Option<fn(&str) -> bool> {
        Some(hubs::is_hub)
    }

    fn catalog_status_among(
        &self,
        store: &crate::store::Store,
        named: &[String],
    ) -> Vec<crate::store::write::catalog::CatalogStatus> {
        hubs::status_among(store, named)
    }

    fn enclosing(&self) -> Option<Enclosing> {
        self.enclosing.clone()
    }

    /// Opened at a folder of an Obsidian vault: the vault's other notes and files, which
    /// Obsidian's names reach from here.
    fn outside(&self) -> Option<std::sync::Arc<crate::store::read::resolve::LazyOutside>> {
        self.outside.clone()
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
        if self.templates.holds(file.rel) {
            e.links.retain(|l| l.syntax != crate::store::entity::LinkSyntax::Wiki || !templates::is_placeholder(l.target()));
        }
        vec![e]
    }
}
