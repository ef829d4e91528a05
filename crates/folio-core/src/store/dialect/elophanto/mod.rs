//! EloPhanto's `knowledge/` folder: `system/`, `user/`, `learned/<kind>/`, `plugins/` and
//! `organization-roles/` markdown files with optional YAML frontmatter (`title, created,
//! updated, tags, scope, covers`), id = path minus `.md`, `[[relative/path.md]]` links from the
//! knowledge root, and `system/changelog.md` as the store's log.
use crate::store::model::shared_values::shared_list;
use std::path::Path;

use super::{Dialect, DialectKind, FileRole, Grammar, SourceFile, derived_description, parse_markdown_view};
use crate::store::model::entity::Entity;
use crate::store::model::history::HistoryEvent;
use crate::store::read::frontmatter::view::View;

mod changelog;
mod checks;
pub mod format;
pub mod spec;
pub use format::KIND;

pub use changelog::CHANGELOG;

/// Bytes of a body looked at for its summary (the first paragraph is near the top).
const SUMMARY_PROBE_BYTES: usize = 8 * 1024;

pub struct Elophanto;

impl Dialect for Elophanto {
    fn kind(&self) -> DialectKind {
        crate::store::dialect::elophanto::KIND
    }

    fn role(&self, rel: &str) -> FileRole {
        // `system/changelog.md` is also a knowledge file the agent's own search indexes: an
        // entity as well as the log (`history` reads it by path, not by role).
        if rel.ends_with(".md") { FileRole::Entity } else { FileRole::Other }
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        // parse_markdown_view reads frontmatter only when `---` is on line 1, as EloPhanto's indexer
        // does: an organization role's `name/description` block below its preamble is body.
        let p = parse_markdown_view(file, Grammar::Yaml);
        let mut e = p.entity;
        let f = &p.fields;
        e.kind = kind_of(&e.path, f).map(Into::into);
        if !file.parseable {
            return vec![e];
        }
        e.created = f.str("created").map(Into::into);
        e.updated = f.str("updated").map(Into::into);
        e.tags = shared_list(f.list("tags"));
        let body = file.text.get(e.body_start as usize..).unwrap_or("");
        e.description = summary(body).map(Into::into);
        e.problems.extend(checks::check(file.text, f));
        vec![e]
    }

    fn history(&self, root: &Path) -> Vec<HistoryEvent> {
        changelog::read(root)
    }
}

/// What a reviewer groups EloPhanto knowledge by: where it lives, which is who wrote it —
/// `system`, `user`, `plugins`, `organization-roles`, and `learned/<kind>` (`learned/lessons`,
/// `learned/patterns`, `learned/failures`…) since the learner files each kind apart. A file
/// directly in `knowledge/` is grouped by its `scope`.
fn kind_of(rel: &str, fields: &View) -> Option<String> {
    let mut dirs: Vec<&str> = rel.split('/').collect();
    dirs.pop();
    match dirs.as_slice() {
        [] => fields.str("scope"),
        ["learned", sub, ..] => Some(format!("learned/{sub}")),
        [top, ..] => Some(top.to_string()),
    }
}

/// A one-line summary for a format without a description field: the first paragraph that is
/// not a blockquote (EloPhanto files open with `> Source:` / `> Inspired by` notes) or a rule.
fn summary(body: &str) -> Option<String> {
    let mut end = body.len().min(SUMMARY_PROBE_BYTES);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    let prose: Vec<&str> = body[..end]
        .lines()
        .map(|l| {
            let t = l.trim();
            let is_rule = t.len() >= 3 && (t.chars().all(|c| c == '-') || t.chars().all(|c| c == '*'));
            if t.starts_with('>') || is_rule { "" } else { l }
        })
        .collect();
    derived_description(&prose.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::lines::LineIndex;

    fn parse(rel: &str, text: &str) -> Entity {
        let lines = LineIndex::new(text);
        Elophanto.parse(&SourceFile { rel, text, lines: &lines, problems: &[], parseable: true }).remove(0)
    }

    #[test]
    fn system_file_fields() {
        let e = parse(
            "system/identity.md",
            "---\ntitle: Agent Identity\ncreated: 2026-02-17\nupdated: 2026-05-18\ntags: identity, self, agent\nscope: system\n---\n\n# Who I Am\n\nI am a self-evolving AI agent.\n",
        );
        assert_eq!(e.id, "system/identity");
        assert_eq!(e.title, "Agent Identity");
        assert_eq!(e.kind.as_deref(), Some("system"));
        assert_eq!(e.tags, shared_list(vec!["identity".into(), "self".into(), "agent".into()]));
        assert_eq!((e.created.as_deref(), e.updated.as_deref()), (Some("2026-02-17"), Some("2026-05-18")));
        assert_eq!(e.description.as_deref(), Some("I am a self-evolving AI agent."));
        assert!(e.problems.is_empty());
    }

    #[test]
    fn organization_roles_have_no_frontmatter() {
        let e = parse(
            "organization-roles/api-tester.md",
            "# Organization Role: API Tester\n> Source: x\n\n---\nname: API Tester\ndescription: Expert\n---\n\n# API Tester Agent\n",
        );
        assert_eq!(e.title, "Organization Role: API Tester");
        assert_eq!(e.kind.as_deref(), Some("organization-roles"));
        assert_eq!(e.description.as_deref(), Some("name: API Tester description: Expert"));
        assert_eq!(e.body_start, 0);
        assert!(e.problems.is_empty());
    }

    #[test]
    fn kinds_follow_the_folder() {
        let f = View::new();
        assert_eq!(kind_of("learned/lessons/a.md", &f).as_deref(), Some("learned/lessons"));
        assert_eq!(kind_of("learned/a.md", &f).as_deref(), Some("learned"));
        assert_eq!(kind_of("user/projects/a.md", &f).as_deref(), Some("user"));
        assert_eq!(kind_of("a.md", &f), None);
        let scoped = crate::store::read::frontmatter::parse_yaml("scope: user").unwrap();
        assert_eq!(kind_of("a.md", &View::of(&scoped)).as_deref(), Some("user"));
    }

    #[test]
    fn changelog_is_an_entity_and_the_log() {
        assert_eq!(Elophanto.role("system/changelog.md"), FileRole::Entity);
        assert_eq!(Elophanto.role("learned/changelog.md"), FileRole::Entity);
        assert_eq!(Elophanto.role("learned/images/a.png"), FileRole::Other);
    }

    #[test]
    fn summary_skips_quotes_and_rules() {
        assert_eq!(summary("# T\n\n> Inspired by x\n\n---\n\nThe point.\n").as_deref(), Some("The point."));
        assert_eq!(summary("# Only a heading\n"), None);
        // Probed up to a character boundary, then cut like every derived description.
        let long = summary(&"é".repeat(SUMMARY_PROBE_BYTES + 1)).unwrap();
        assert_eq!(long.chars().count(), super::super::DERIVED_DESCRIPTION_MAX_CHARS + 1, "{long}");
        assert!(long.ends_with('…'));
    }
}
