//! evolve stores (AgentToolkit/altk-evolve): the `.evolve/entities` folder of a project, or a
//! published / subscribed guideline repository. Entities are `<type>/<slug>.md` files with
//! evolve's `key: value` frontmatter (not YAML); id = path minus `.md`; links are `[[slug]]`;
//! the project's `.evolve/audit.log` is the history.
use crate::store::model::shared_values::shared_list;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{Dialect, DialectKind, FileRole, Grammar, SourceFile, StoreWarning, first_paragraph, shorten};
use super::{parse_key_values, parse_markdown_view};
use crate::store::model::entity::Entity;
use crate::store::model::history::HistoryEvent;
use crate::store::read::frontmatter::view::View;
use crate::store::read::frontmatter::{self, Block, Fields};

mod audit;
mod checks;
pub mod format;
pub mod spec;
pub mod log_writer;
pub mod review;
pub mod vetoed;
pub use format::KIND;

/// Titles derived from the fact sentence are cut to this many characters.
const TITLE_MAX_CHARS: usize = 100;

/// How much of an `index.md` / `log.md` is read to see whether it declares a `type`.
const ROLE_PROBE_BYTES: u64 = 8 * 1024;

pub struct Evolve {
    root: PathBuf,
    /// `audit.log`, read once on first use (both `history` and `warnings` need it).
    audit: OnceLock<audit::AuditLog>,
}

impl Evolve {
    pub fn open(root: &Path) -> Self {
        Evolve { root: root.to_path_buf(), audit: OnceLock::new() }
    }

    fn audit(&self) -> &audit::AuditLog {
        self.audit.get_or_init(|| audit::read(&self.root))
    }

    /// Whether the file at `rel` has evolve frontmatter with a non-empty `type`: then an
    /// `index.md` / `log.md` is an entity evolve's slugify happened to name so, not a catalog.
    fn declares_type(&self, rel: &str) -> bool {
        let Ok((bytes, _)) = crate::store::read::fsio::read_capped_inside(&self.root, rel, ROLE_PROBE_BYTES) else {
            return false;
        };
        let text = String::from_utf8_lossy(&bytes);
        key_value_fields(&text).get("type").is_some_and(|v| !frontmatter::scalar_text(v).trim().is_empty())
    }
}

/// Whether `dir` is the top of a store: the root, or the top of a subscribed clone
/// (`subscribed/<repo>`), or the `subscribed` folder itself. evolve writes entities only into
/// `<type>/` folders, so a markdown file directly at a top is the repository's own (README…).
fn is_store_top(dir: &str) -> bool {
    match dir.strip_prefix("subscribed") {
        _ if dir.is_empty() => true,
        Some("") => true,
        Some(rest) => rest.strip_prefix('/').is_some_and(|repo| !repo.is_empty() && !repo.contains('/')),
        None => false,
    }
}

impl Dialect for Evolve {
    fn kind(&self) -> DialectKind {
        crate::store::dialect::evolve::KIND
    }

    fn role(&self, rel: &str) -> FileRole {
        if !rel.ends_with(".md") {
            return FileRole::Other;
        }
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        match name {
            "index.md" if !self.declares_type(rel) => FileRole::Catalog,
            "log.md" if !self.declares_type(rel) => FileRole::Log,
            _ if is_store_top(dir) && !self.declares_type(rel) => FileRole::Other,
            _ => FileRole::Entity,
        }
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        // The fields as a view of the file's text, not an owned map per entity (see `View`).
        let p = parse_markdown_view(file, Grammar::KeyValue);
        let mut e = p.entity;
        if !file.parseable {
            return vec![e];
        }
        let f = &p.fields;
        let body = file.text.get(e.body_start as usize..).unwrap_or("");
        // The title field, else the first heading (both already found by `parse_markdown_view`:
        // searching the heading again here doubled its cost), else the fact's first sentence,
        // else the stem.
        if !p.titled
            && let Some(title) = fact_title(body)
        {
            e.title = title;
        }
        map_fields(&mut e, f);
        e.problems.extend(checks::check(file.text, f));
        vec![e]
    }

    fn history(&self, root: &Path) -> Vec<HistoryEvent> {
        if root == self.root { self.audit().events.clone() } else { audit::read(root).events }
    }

    fn warnings(&self) -> Vec<StoreWarning> {
        self.audit().warnings.clone()
    }

    fn fields(&self, _entity: &Entity, text: &str) -> Fields {
        key_value_fields(text)
    }

    // -- write gate (issue 16): `.evolve/vetoed/` beside a project's bundle (see `vetoed`).
    fn write_areas(&self) -> Vec<PathBuf> {
        vec![vetoed::folder(&self.root)]
    }
}

/// evolve's fields onto the model. `owner` and `visibility` have no place in it and stay in
/// the fields (`folio show`).
fn map_fields(e: &mut Entity, f: &View) {
    e.kind = f.str("type").map(Into::into);
    e.description = f.str("description").or_else(|| f.str("trigger")).map(Into::into);
    e.updated = f.str("published_at").map(Into::into);
    e.created = f.str("created").map(Into::into);
    if f.str("retention_flagged_at").is_some() {
        e.status = Some("retention-flagged".into());
    }
    e.tags = shared_list(f.str("tags").map(|t| inline_list(&t)).unwrap_or_default());
    // Where the entity came from: the trajectory it was learned in, the native memory file it
    // mirrors, the repository it was published to, and the ad-hoc `sources:` some stores add.
    for key in ["trajectory", "native_path", "source"] {
        e.sources.extend(f.str(key));
    }
    e.sources.extend(f.str("sources").map(|s| inline_list(&s)).unwrap_or_default());
}

/// A `key: value` value written as a list: `[a, b]` or `a, b` (quotes around items removed).
fn inline_list(value: &str) -> Vec<String> {
    let v = value.trim();
    let v = v.strip_prefix('[').and_then(|v| v.strip_suffix(']')).unwrap_or(v);
    v.split(',').map(|s| s.trim().trim_matches(['"', '\'']).trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// The frontmatter of a text read with evolve's grammar (empty when there is none).
fn key_value_fields(text: &str) -> Fields {
    match frontmatter::locate(text) {
        Block::Closed { inner, .. } => parse_key_values(&text[inner]),
        _ => Fields::new(),
    }
}

/// The title of an entity without a heading: its fact, i.e. the first sentence of the first
/// paragraph, cut at a word boundary when long.
fn fact_title(body: &str) -> Option<String> {
    let paragraph = first_paragraph(body)?;
    Some(shorten(first_sentence(&paragraph), TITLE_MAX_CHARS))
}

/// Abbreviations whose dot does not end a sentence.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "etc", "vs", "cf", "approx"];

fn first_sentence(text: &str) -> &str {
    for (i, _) in text.match_indices(['.', '!', '?']) {
        let after = &text[i + 1..];
        if !(after.is_empty() || after.starts_with(' ')) {
            continue;
        }
        let word = text[..i].rsplit(' ').next().unwrap_or("");
        if !ABBREVIATIONS.contains(&word.to_lowercase().as_str()) {
            let end = if text[i..].starts_with('.') { i } else { i + 1 };
            return &text[..end];
        }
    }
    text
}


/// evolve's `.evolve/` folder when the root is its `entities/` bundle.
pub fn evolve_home(root: &std::path::Path) -> Option<std::path::PathBuf> {
    let parent = root.parent()?;
    let is_layout =
        root.file_name().is_some_and(|n| n == "entities") && parent.file_name().is_some_and(|n| n == ".evolve");
    is_layout.then(|| parent.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::lines::LineIndex;
    use crate::store::read::frontmatter::get_str;

    fn parse(rel: &str, text: &str) -> Entity {
        let lines = LineIndex::new(text);
        let file = SourceFile { rel, text, lines: &lines, problems: &[], parseable: true };
        Evolve::open(Path::new("/nonexistent")).parse(&file).remove(0)
    }

    const PUBLISHED: &str = "---\ntype: guideline\ntrigger: When running tests: with uv\ntrajectory: .evolve/trajectories/t.json\nowner: vinodmut\nsource: vinodmut/test-evolve-guidelines\nvisibility: public\npublished_at: 2026-04-27T18:55:21Z\n---\n\nFor uv-managed Python projects, use `uv run pytest` instead of `python3 -m pytest`. It is faster.\n\n## Rationale\n\nSee [[other-guideline]].\n";

    #[test]
    fn maps_published_entity() {
        let e = parse("guideline/use-uv.md", PUBLISHED);
        assert_eq!(e.id, "guideline/use-uv");
        assert_eq!(e.kind.as_deref(), Some("guideline"));
        assert_eq!(e.description.as_deref(), Some("When running tests: with uv"));
        assert_eq!(e.updated.as_deref(), Some("2026-04-27T18:55:21Z"));
        assert_eq!(e.title, "For uv-managed Python projects, use `uv run pytest` instead of `python3 -m pytest`");
        assert_eq!(e.sources, [".evolve/trajectories/t.json", "vinodmut/test-evolve-guidelines"]);
        assert_eq!(e.status, None);
        assert_eq!(e.links.len(), 1);
        assert_eq!(e.links[0].target(), "other-guideline");
        assert_eq!(e.links[0].line, 15);
        // Only the legacy trigger is worth reporting here.
        let rules: Vec<_> = e.problems.iter().map(|p| (p.rule, p.line)).collect();
        assert_eq!(rules, [("legacy-trigger", 3)]);
    }

    #[test]
    fn title_prefers_a_heading_and_shortens_long_facts() {
        assert_eq!(parse("g/a.md", "---\ntype: g\n---\n# Use mdls\n\nfact.\n").title, "Use mdls");
        let long = format!("---\ntype: g\n---\n{}\n", "word ".repeat(40));
        let title = parse("g/a.md", &long).title;
        assert!(title.ends_with("word…"), "{title}");
        assert!(title.chars().count() <= TITLE_MAX_CHARS + 1);
        assert_eq!(parse("g/empty-fact.md", "---\ntype: g\n---\n").title, "empty-fact");
        assert_eq!(first_sentence("Use e.g. uv here. Then more."), "Use e.g. uv here");
        assert_eq!(first_sentence("Is it? Yes"), "Is it?");
        assert_eq!(shorten("On macOS — use mdls", 12), "On macOS…");
    }

    #[test]
    fn description_wins_over_trigger_and_retention_sets_status() {
        let e = parse(
            "guideline/x.md",
            "---\ntype: guideline\ndescription: When X\ntrigger: old\nretention_flagged_at: 2026-07-01T00:00:00Z\nretention_reason: age\n---\nfact\n",
        );
        assert_eq!(e.description.as_deref(), Some("When X"));
        assert_eq!(e.status.as_deref(), Some("retention-flagged"));
        assert!(e.problems.iter().all(|p| p.rule != "legacy-trigger"));
        assert!(e.problems.iter().any(|p| p.rule == "stale"));
    }

    #[test]
    fn inline_lists_for_ad_hoc_keys() {
        let e =
            parse("g/a.md", "---\ntype: g\ndescription: d\ntags: [exif, macos]\nsources: [trajectories/a.json]\n---\n");
        assert_eq!(e.tags, shared_list(vec!["exif".into(), "macos".into()]));
        assert_eq!(e.sources, ["trajectories/a.json"]);
    }

    #[test]
    fn store_tops_hold_no_entities() {
        let d = Evolve::open(Path::new("/nonexistent"));
        assert_eq!(d.role("guideline/a.md"), FileRole::Entity);
        assert_eq!(d.role("subscribed/alice/guideline/a.md"), FileRole::Entity);
        assert_eq!(d.role("subscribed/alice/README.md"), FileRole::Other);
        assert_eq!(d.role("subscribed/README.md"), FileRole::Other);
        assert_eq!(d.role("README.md"), FileRole::Other);
        assert_eq!(d.role("subscribed/alice/LICENSE"), FileRole::Other);
        assert_eq!(d.role("index.md"), FileRole::Catalog);
        assert_eq!(d.role("guideline/index.md"), FileRole::Catalog);
        assert_eq!(d.role("log.md"), FileRole::Log);
    }

    #[test]
    fn an_index_with_a_type_is_an_entity() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("guideline")).unwrap();
        std::fs::write(t.path().join("guideline/index.md"), "---\ntype: guideline\ntrigger: x\n---\nfact\n").unwrap();
        std::fs::write(t.path().join("index.md"), "---\nokf_version: 0.1\n---\n# guideline\n").unwrap();
        let d = Evolve::open(t.path());
        assert_eq!(d.role("guideline/index.md"), FileRole::Entity);
        assert_eq!(d.role("index.md"), FileRole::Catalog);
    }

    #[test]
    fn fields_are_key_values_with_colons() {
        let d = Evolve::open(Path::new("/nonexistent"));
        let f = d.fields(&Entity::default(), PUBLISHED);
        assert_eq!(f.len(), 7);
        assert_eq!(get_str(&f, "trigger").as_deref(), Some("When running tests: with uv"));
        assert_eq!(get_str(&f, "published_at").as_deref(), Some("2026-04-27T18:55:21Z"));
    }

    #[test]
    fn unparseable_files_get_no_field_checks() {
        let lines = LineIndex::new("");
        let file = SourceFile { rel: "g/bin.md", text: "", lines: &lines, problems: &[], parseable: false };
        let e = Evolve::open(Path::new("/x")).parse(&file).remove(0);
        assert!(e.problems.is_empty());
        assert_eq!(e.title, "bin");
    }
}
