//! AIP-10's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{Format, Marker, Sniffed, label};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::model::entity::{Entity, LinkSyntax};

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
    fn marker(&self, path: &Path) -> Option<Marker> {
        path.join("KNOWLEDGE.md").is_file().then(|| Marker::new(path, "KNOWLEDGE.md found"))
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
