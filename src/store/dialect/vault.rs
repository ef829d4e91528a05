//! Plain markdown vaults (the fallback): any `.md` tree with optional YAML frontmatter —
//! Claude-style memory folders, Obsidian-style LLM wikis. Wikilinks resolve by path, file
//! stem, title or alias, as Obsidian does.
use super::{Dialect, DialectKind, FileRole, Grammar, SourceFile, edges_from_view, parse_markdown_view};
use crate::store::model::entity::Entity;

pub mod format;
mod frontmatter_links;
mod ignore_filters;
mod log_reader;
pub use format::KIND;

pub struct Vault {
    ignored: ignore_filters::IgnoreFilters,
}

impl Vault {
    pub fn open(root: &std::path::Path) -> Vault {
        Vault { ignored: ignore_filters::IgnoreFilters::of(root) }
    }
}

impl Dialect for Vault {
    fn kind(&self) -> DialectKind {
        DialectKind::Vault
    }

    fn role(&self, rel: &str) -> FileRole {
        if rel.ends_with(".md") && !self.ignored.excludes(rel) { FileRole::Entity } else { FileRole::Other }
    }

    /// An LLM wiki's `log.md` (`## [date] op | subject`); the file stays a note as well.
    fn history(&self, root: &std::path::Path) -> Vec<crate::store::model::history::HistoryEvent> {
        log_reader::history(root)
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        let p = parse_markdown_view(file, Grammar::Yaml);
        let mut e = p.entity;
        let f = &p.fields;
        e.kind = f.str("type").or_else(|| f.str("kind"));
        e.description = f.str("description").or_else(|| f.str("summary")).map(Into::into);
        e.status = f.str("status").map(Into::into);
        e.tags = f.list("tags");
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
