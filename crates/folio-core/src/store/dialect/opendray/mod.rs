//! opendray exports: one markdown file per knowledge node (entity, fact, playbook, skill) with
//! the node as YAML frontmatter, under a root marked by `opendray-export.json`. The layout
//! and keys are folio's definition of opendray's open "markdown export" decision; see
//! `docs/opendray-export.md`.
use crate::store::model::shared_values::shared_list;
use std::path::Path;

use serde_json::Value;

use super::{Dialect, DialectKind, FileRole, Grammar, SourceFile, StoreWarning, edges_from_view, parse_markdown_view_given};
use crate::store::model::entity::{Edge, Entity};
use crate::store::read::frontmatter::view::{Val, View};

mod checks;
pub mod format;
pub mod spec;
pub mod review;
pub use format::KIND;
mod marker;

pub use marker::{EXPORT_FORMAT, Marker};

/// The closed edge vocabulary of opendray's `knowledge_edges` table.
pub const EDGE_TYPES: &[&str] =
    &["runs_on", "uses", "about", "part_of", "depends_on", "supersedes", "derived_from", "used_by"];

/// Folders of the export that hold node files.
pub const NODE_DIRS: &[&str] = &["entities", "facts", "playbooks", "skills"];

pub struct Opendray {
    marker: Marker,
}

impl Opendray {
    /// Open an export: reads its marker file (a missing or odd marker is a store warning).
    pub fn open(root: &Path) -> Self {
        Opendray { marker: Marker::read(root) }
    }
}

impl Dialect for Opendray {
    fn kind(&self) -> DialectKind {
        crate::store::dialect::opendray::KIND
    }

    fn role(&self, rel: &str) -> FileRole {
        let top = rel.split('/').next().unwrap_or(rel);
        if rel.ends_with(".md") && rel.contains('/') && NODE_DIRS.contains(&top) {
            FileRole::Entity
        } else {
            FileRole::Other
        }
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        vec![node(file, None, Keys::Trimmed).0]
    }

    fn warnings(&self) -> Vec<StoreWarning> {
        self.marker.warnings.clone()
    }

    fn info(&self) -> Value {
        self.marker.fields.clone()
    }
}

/// How a node's own id and its edges' ends are read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Keys {
    /// Trimmed, as any frontmatter value is: an export's file, which a person may edit.
    Trimmed,
    /// Exactly as written: the live brain's tables take any text as a key (`' x '` and `x`
    /// are two nodes, `''` is one), and its renderings quote such a key.
    Exact,
}

impl Opendray {
    /// One node file as an entity, with its frontmatter fields (for a reader that looks at
    /// more of them without parsing the YAML again), already known when `given`
    /// (`parse_markdown_view_given`): a database's node rendered from its row is not parsed back.
    pub fn parse_node_given<'a>(&self, file: &SourceFile<'a>, given: Option<View<'a>>, keys: Keys) -> (Entity, View<'a>) {
        node(file, given, keys)
    }
}

/// One node file as an entity, with its fields as a view of the file's text: loading reads
/// them without building a JSON map of every node (`View::into_fields` and the checks over it
/// would copy every key and value of every node: docs/benchmarks.md, "opendray figures").
fn node<'a>(file: &SourceFile<'a>, given: Option<View<'a>>, keys: Keys) -> (Entity, View<'a>) {
    let p = parse_markdown_view_given(file, Grammar::Yaml, given);
    let mut e = p.entity;
    let f = &p.fields;
    let id = match keys {
        Keys::Trimmed => f.str("id"),
        Keys::Exact => f.get("id").and_then(Val::as_str).map(str::to_string),
    };
    e.id = id.unwrap_or_else(|| fallback_id(file.rel));
    let body = file.text.get(e.body_start as usize..).unwrap_or("");
    map_node(&mut e, f, body);
    e.edges = match keys {
        Keys::Trimmed => edges_from_view(f, EDGE_TYPES),
        Keys::Exact => exact_edges(f),
    };
    if p.has_frontmatter {
        e.problems.extend(checks::check_node(f, &e.id, &e.edges, file.text, p.fm_first_line));
    }
    (e, p.fields)
}

/// The node id when the frontmatter has none: the file stem, or the skill's folder name for
/// `skills/<name>/SKILL.md`.
fn fallback_id(rel: &str) -> String {
    let mut parts = rel.rsplit('/');
    let name = parts.next().unwrap_or(rel);
    if name == "SKILL.md"
        && let Some(dir) = parts.next()
    {
        return dir.to_string();
    }
    name.strip_suffix(".md").unwrap_or(name).to_string()
}

/// The node's fields onto the model, but its edges (`node` reads them as its keys say).
fn map_node(e: &mut Entity, f: &View, body: &str) {
    e.kind = grouping_kind(f).map(Into::into);
    if let Some(t) = f.str("title").or_else(|| f.str("name")) {
        e.title = t;
    }
    e.description = f
        .str("description")
        .or_else(|| f.str("assertion"))
        .or_else(|| f.str("applies_when"))
        .or_else(|| f.str("when_to_use"))
        .or_else(|| super::derived_description(body))
        .map(Into::into);
    e.status = review_status(f).map(Into::into);
    e.aliases = f.list("aliases");
    e.tags = shared_list(f.list("tags"));
    e.sources = f.list("sources");
    e.confidence = f.f64("confidence");
    e.created = f.str("created_at").map(Into::into);
    e.updated = f.str("updated_at").map(Into::into);
}

/// The edges of `relations` with their ends exactly as written, each a row of
/// `knowledge_edges` (whose `dst_id` takes any text). A node written with edge keys at its top
/// level (a person's shape, never a rendering's) is read as an export's.
fn exact_edges(f: &View) -> Vec<Edge> {
    if EDGE_TYPES.iter().any(|k| f.get(k).is_some()) {
        return edges_from_view(f, EDGE_TYPES);
    }
    let Some(Val::Map(relations)) = f.get("relations") else { return Vec::new() };
    let mut edges = Vec::new();
    for (kind, targets) in relations.iter() {
        let mut push = |target: &Val| match target {
            Val::Str(t) => edges.push(Edge { kind: kind.to_string(), target: t.to_string(), resolved: None }),
            Val::Num(_) | Val::Bool(_) => {
                edges.push(Edge { kind: kind.to_string(), target: target.scalar_text(), resolved: None })
            }
            Val::Null | Val::List(_) | Val::Map(_) => {}
        };
        match targets {
            Val::List(items) => items.iter().for_each(&mut push),
            one => push(one),
        }
    }
    edges
}

/// `entity/<entity_type>` for graph hubs (so `stats` groups hosts apart from services), the
/// bare `kind` otherwise.
fn grouping_kind(f: &View) -> Option<String> {
    let kind = f.str("kind")?;
    match f.str("entity_type") {
        Some(t) if kind == "entity" => Some(format!("entity/{t}")),
        _ => Some(kind),
    }
}

/// What a reviewer acts on: `archived` once archived, else a lifecycle other than `active`
/// (`pending-review`, `stale`, `auto-disabled`), else the maturity rung.
fn review_status(f: &View) -> Option<String> {
    if f.has_text("archived_at") {
        return Some("archived".into());
    }
    let lifecycle = provenance(f, "lifecycle");
    match lifecycle {
        Some(l) if l != "active" => Some(l),
        _ => f.str("maturity").or(lifecycle),
    }
}

/// A string inside the `provenance` mapping.
fn provenance(f: &View, key: &str) -> Option<String> {
    match f.get("provenance")? {
        Val::Map(m) => m.str(key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::lines::LineIndex;
    use crate::store::read::frontmatter::parse_yaml_view;

    fn parse(rel: &str, text: &str) -> Entity {
        let lines = LineIndex::new(text);
        let file = SourceFile { rel, text, lines: &lines, problems: &[], parseable: true };
        Opendray { marker: Marker::default() }.parse(&file).remove(0)
    }

    #[test]
    fn entity_node_maps_onto_the_model() {
        let e = parse(
            "entities/service/svc-postgres-dev.md",
            "---\nid: svc-postgres-dev\nkind: entity\nentity_type: service\nname: PostgreSQL (Dev)\n\
             aliases: [dev-db, 192.168.3.88:5432]\nrelations: { runs_on: [host-a], used_by: [p1, p2] }\n\
             scope: global\nmaturity: fact\nconfidence: 0.9\n---\nThe shared dev database. See [[host-a]].\n",
        );
        assert_eq!(e.id, "svc-postgres-dev");
        assert_eq!(e.kind.as_deref(), Some("entity/service"));
        assert_eq!(e.title, "PostgreSQL (Dev)");
        assert_eq!(e.description.as_deref(), Some("The shared dev database. See [[host-a]]."));
        assert_eq!(e.aliases, ["dev-db", "192.168.3.88:5432"]);
        assert_eq!(e.status.as_deref(), Some("fact"));
        assert_eq!(e.confidence, Some(0.9));
        let edges: Vec<_> = e.edges.iter().map(|d| (d.kind.as_str(), d.target.as_str())).collect();
        assert_eq!(edges, [("runs_on", "host-a"), ("used_by", "p1"), ("used_by", "p2")]);
        assert_eq!(e.links.len(), 1);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
    }

    #[test]
    fn skill_id_falls_back_to_its_folder() {
        let e = parse("skills/provision-lxc/SKILL.md", "---\nkind: skill\nname: provision-lxc\n---\nbody\n");
        assert_eq!(e.id, "provision-lxc");
        assert_eq!(fallback_id("facts/fact-a.md"), "fact-a");
    }

    #[test]
    fn status_prefers_archive_then_lifecycle_then_maturity() {
        let s = |y: &str| review_status(&parse_yaml_view(y).unwrap());
        assert_eq!(
            s("maturity: playbook\nprovenance: { lifecycle: pending-review }").as_deref(),
            Some("pending-review")
        );
        assert_eq!(s("maturity: skill\nprovenance: { lifecycle: active }").as_deref(), Some("skill"));
        assert_eq!(s("provenance: { lifecycle: active }").as_deref(), Some("active"));
        assert_eq!(s("maturity: fact\narchived_at: 2026-01-01").as_deref(), Some("archived"));
        assert_eq!(s("scope: global"), None);
    }

    #[test]
    fn roles_follow_the_layout() {
        let d = Opendray { marker: Marker::default() };
        assert_eq!(d.role("entities/host/host-kv01.md"), FileRole::Entity);
        assert_eq!(d.role("skills/provision-lxc/SKILL.md"), FileRole::Entity);
        assert_eq!(d.role("facts/fact-a.md"), FileRole::Entity);
        assert_eq!(d.role("README.md"), FileRole::Other);
        assert_eq!(d.role("opendray-export.json"), FileRole::Other);
        assert_eq!(d.role("notes/x.md"), FileRole::Other);
    }
}
