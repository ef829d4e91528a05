//! awareness-framework's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{CheckedMarker, Format, Marker, label};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::model::entity::Entity;

/// Whether the file at `file` follows the framework's layout (`long_term::layout`); why not.
fn layout(file: &Path) -> Result<(), String> {
    let (bytes, _) = crate::store::read::fsio::read_capped(file, crate::store::read::fsio::MAX_READ)
        .map_err(|e| format!("cannot be read ({e})"))?;
    super::long_term::layout(&String::from_utf8_lossy(&bytes))
}

/// `memory/long-term.md`, laid out as the framework writes it.
const LONG_TERM_MARKER: CheckedMarker =
    CheckedMarker { file: super::LONG_TERM_PATH, check: layout, store: "an awareness-framework home" };

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
    /// A `memory/long-term.md` laid out as the framework writes it (`long_term::layout`):
    /// other agents keep memories under that name too, and read as the framework's they
    /// vanish (folio shows only the framework's sections).
    fn marker(&self, path: &Path) -> Option<Marker> {
        LONG_TERM_MARKER.marker(path)
    }
    fn look_alike(&self, path: &Path) -> Option<(String, String)> {
        LONG_TERM_MARKER.look_alike(path)
    }
    /// The framework's files hold no links between them.
    fn has_links(&self) -> bool {
        false
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
    /// The framework has no undo event: an undo takes the decision's lines back out.
    fn undo_withdraws_log_lines(&self) -> bool {
        true
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
