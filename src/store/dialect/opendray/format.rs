//! opendray's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::format::{Format, label};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::entity::Entity;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::Opendray;

pub struct OpendrayFormat;

impl Format for OpendrayFormat {
    fn kind(&self) -> DialectKind {
        KIND
    }
    fn name(&self) -> &'static str {
        "opendray"
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Opendray::open(root))
    }
    /// By node kind, then maturity (opendray's own two axes).
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        vec![label(e.kind.as_deref()), label(e.status.as_deref())]
    }
    fn field_labels(&self) -> (&'static str, &'static str) {
        ("kind", "maturity")
    }
    fn promotion_step(&self, status: &str) -> Option<&'static str> {
        (status == "candidate").then_some("maturity candidate → fact")
    }
}
