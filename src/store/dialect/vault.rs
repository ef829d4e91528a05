//! Plain markdown vaults (the fallback): any `.md` tree with optional YAML frontmatter —
//! Claude-style memory folders, Obsidian-style LLM wikis. Wikilinks resolve by path, file
//! stem, title or alias, as Obsidian does.
use super::{Dialect, DialectKind, FileRole, Grammar, SourceFile, edges_from_fields, parse_markdown};
use crate::store::entity::Entity;
use crate::store::frontmatter::{get_list, get_str};

pub struct Vault;

impl Dialect for Vault {
    fn kind(&self) -> DialectKind {
        DialectKind::Vault
    }

    fn role(&self, rel: &str) -> FileRole {
        if rel.ends_with(".md") { FileRole::Entity } else { FileRole::Other }
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        let p = parse_markdown(file, Grammar::Yaml);
        let mut e = p.entity;
        let f = &p.fields;
        e.kind = get_str(f, "type").or_else(|| get_str(f, "kind"));
        e.description = get_str(f, "description").or_else(|| get_str(f, "summary"));
        e.status = get_str(f, "status");
        e.tags = get_list(f, "tags");
        e.aliases = get_list(f, "aliases");
        e.created = get_str(f, "created");
        e.updated = get_str(f, "updated").or_else(|| get_str(f, "updated_at"));
        e.sources = get_list(f, "sources");
        e.confidence = crate::store::frontmatter::get_f64(f, "confidence");
        e.edges = edges_from_fields(f, super::EDGE_KEYS);
        vec![e]
    }
}
