//! opendray's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{Format, Marker, Sniffed, label};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::model::entity::Entity;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

/// The opendray export's root marker (folio's export format; see the README).
pub const MARKER: &str = "opendray-export.json";

/// The format that reads opendray's brain from its database.
const LIVE_BRAIN: &str = "opendray-pg";

pub struct OpendrayFormat;

impl Format for OpendrayFormat {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    /// A node depends on its own file's bytes alone; the export's marker only gives the
    /// dialect's warnings and info, read again whenever the dialect is opened.
    fn cacheable(&self) -> bool {
        true
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Opendray::open(root))
    }
    fn marker(&self, path: &Path) -> Option<Marker> {
        path.join(MARKER).is_file().then(|| Marker::new(path, format!("{MARKER} found")))
    }
    /// `--dialect opendray` with a connection string opens the live brain (the registry's
    /// `opendray-pg`: the export does not import the database's code).
    fn locate(&self, locator: &str, archived: bool) -> Option<Result<(DialectKind, Marker), String>> {
        crate::store::dialect::by_name(LIVE_BRAIN)?.format().locate(locator, archived)
    }
    fn located_root(&self, locator: &str, archived: bool) -> Option<(DialectKind, std::path::PathBuf)> {
        crate::store::dialect::by_name(LIVE_BRAIN)?.format().located_root(locator, archived)
    }
    /// opendray nodes carry an `id` and one of its four node kinds.
    fn sniff(&self, file: &Sniffed) -> bool {
        ["entity", "fact", "playbook", "skill"].contains(&file.str("kind").as_str()) && file.has("id")
    }
    /// By node kind, then maturity (opendray's own two axes).
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        vec![label(e.kind.as_deref()), label(e.status.as_deref())]
    }
    fn promotion_step(&self, status: &str) -> Option<&'static str> {
        (status == "candidate").then_some("maturity candidate → fact")
    }
    fn review(&self) -> &'static dyn crate::store::review::rules::ReviewRules {
        &super::review::OpendrayReview
    }
}
