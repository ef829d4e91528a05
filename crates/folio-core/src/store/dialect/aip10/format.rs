//! AIP-10's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{CheckedMarker, Format, Marker, Sniffed, label};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::model::entity::{Entity, LinkSyntax};
use crate::store::read::frontmatter;

/// The workspace manifest at a wiki's root, declaring the workspace doctype.
const WORKSPACE_MARKER: CheckedMarker =
    CheckedMarker { file: super::WORKSPACE, check: declares_workspace, store: "an AIP-10 wiki" };

/// Whether `file` declares the workspace doctype: a closed frontmatter block with a `schema:`
/// line naming one of AIP-10's schemas (`knowledge.workspace/v1`; a block that does not parse
/// as YAML still counts, its problems are the wiki's `workspace-invalid` warning). Why not,
/// else.
pub fn declares_workspace(file: &Path) -> Result<(), String> {
    let (bytes, _) = crate::store::read::fsio::read_capped(file, 64 * 1024).map_err(|e| format!("cannot be read ({e})"))?;
    let text = String::from_utf8_lossy(&bytes);
    let frontmatter::Block::Closed { inner, .. } = frontmatter::locate(&text) else {
        return Err(format!("has no frontmatter declaring `schema: {}`", super::spec::WORKSPACE_SCHEMA));
    };
    let schema = text[inner].lines().find_map(|l| l.strip_prefix("schema:")).map(|v| v.trim().trim_matches(['"', '\'']));
    match schema {
        Some(s) if super::spec::SCHEMA_PREFIXES.iter().any(|p| s.starts_with(p)) => Ok(()),
        Some(s) => Err(format!("declares `schema: {s}`, not AIP-10's `{}`", super::spec::WORKSPACE_SCHEMA)),
        None => Err(format!("has frontmatter without `schema: {}`", super::spec::WORKSPACE_SCHEMA)),
    }
}

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

pub struct Aip10Format;

impl Format for Aip10Format {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    /// A page depends on its own bytes, the workspace policy (a snapshot parsed under another
    /// is not used: `Dialect::parse_inputs`) and the clock (pages whose `max-age` findings the
    /// clock changed are read again: `Dialect::outdated`); tombstones only change roles, which
    /// the cache's walk compares.
    fn cacheable(&self) -> bool {
        true
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Aip10::open(root))
    }
    /// A `KNOWLEDGE.md` that declares AIP-10's workspace doctype in its frontmatter: many
    /// repositories keep notes under that name, and read as a wiki they get lint findings for
    /// every page and an `_index.md` written into them.
    fn marker(&self, path: &Path) -> Option<Marker> {
        WORKSPACE_MARKER.marker(path)
    }
    fn look_alike(&self, path: &Path) -> Option<(String, String)> {
        WORKSPACE_MARKER.look_alike(path)
    }
    /// AIP-10 pages declare a `schema: knowledge.…`.
    fn sniff(&self, file: &Sniffed) -> bool {
        file.str("schema").starts_with("knowledge")
    }
    /// AIP-10 `sources/` are immutable by the format's rules.
    fn read_only_reason(&self, rel: &str) -> Option<String> {
        (rel.starts_with("sources/") || rel == "sources")
            .then(|| format!("{rel}: AIP-10 sources/ are immutable; folio never writes there (nothing was written)"))
    }
    /// Sources are cited by id in `sources:`, never linked inline.
    fn forbidden_link(&self, syntax: LinkSyntax, _target: &str, path: Option<&str>) -> Option<(&'static str, String)> {
        let path = path.filter(|p| syntax == LinkSyntax::Markdown && p.starts_with("sources/"))?;
        Some((
            super::spec::LINK_INTO_SOURCES,
            format!("inline link into `{path}`; cite the source by id in `sources:` instead"),
        ))
    }
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        vec![label(e.kind.as_deref())]
    }
    fn promotion_step(&self, status: &str) -> Option<&'static str> {
        (status == "shadow").then_some("playbook shadow → active")
    }
    fn review(&self) -> &'static dyn crate::store::review::rules::ReviewRules {
        &super::review::Aip10Review
    }
    fn log_path(&self, root: &Path) -> std::path::PathBuf {
        root.join("_log.md")
    }
    fn append_event(
        &self,
        old: &str,
        event: &crate::store::write::audit::AuditEvent,
        at: time::OffsetDateTime,
    ) -> String {
        super::log_writer::append(old, event, at)
    }
}
