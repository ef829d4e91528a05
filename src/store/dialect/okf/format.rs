//! OKF's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::format::Format;
use crate::store::dialect::{Dialect, DialectKind};

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::Okf;

pub struct OkfFormat;

impl Format for OkfFormat {
    fn kind(&self) -> DialectKind {
        KIND
    }
    fn name(&self) -> &'static str {
        "okf"
    }
    fn open(&self, _root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Okf)
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn field_labels(&self) -> (&'static str, &'static str) {
        ("type", "status")
    }
    fn promotion_step(&self, status: &str) -> Option<&'static str> {
        (status == "draft").then_some("status draft → stable")
    }
}
