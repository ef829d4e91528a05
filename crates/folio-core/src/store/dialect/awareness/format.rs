//! awareness-framework's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{Format, Marker, label};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::model::entity::Entity;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

pub struct AwarenessFormat;

impl Format for AwarenessFormat {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    /// Entries depend on their own file's bytes alone (a changed `long-term.md` is read
    /// again whole); the event log is read by the dialect when opened, never into the snapshot.
    fn cacheable(&self) -> bool {
        true
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Awareness::open(root))
    }
    fn marker(&self, path: &Path) -> Option<Marker> {
        path.join("memory/long-term.md").is_file().then(|| Marker::new(path, "memory/long-term.md found"))
    }
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        vec![label(e.kind.as_deref())]
    }
    fn promotion_step(&self, status: &str) -> Option<&'static str> {
        (status == "candidate").then_some("candidate → active entry")
    }
    fn review(&self) -> &'static dyn crate::store::review::rules::ReviewRules {
        &super::review::AwarenessReview
    }
    fn log_path(&self, root: &Path) -> std::path::PathBuf {
        root.join("memory/events.jsonl")
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
