//! AIP-10's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::format::{Format, label};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::entity::Entity;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::Aip10;

pub struct Aip10Format;

impl Format for Aip10Format {
    fn kind(&self) -> DialectKind {
        KIND
    }
    fn name(&self) -> &'static str {
        "aip10"
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Aip10::open(root))
    }
    /// AIP-10 `sources/` are immutable by the format's rules.
    fn read_only_reason(&self, rel: &str) -> Option<String> {
        (rel.starts_with("sources/") || rel == "sources")
            .then(|| format!("{rel}: AIP-10 sources/ are immutable; folio never writes there (nothing was written)"))
    }
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        vec![label(e.kind.as_deref())]
    }
    fn promotion_step(&self, status: &str) -> Option<&'static str> {
        (status == "shadow").then_some("playbook shadow → active")
    }
}
