//! EloPhanto's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::format::Format;
use crate::store::dialect::{Dialect, DialectKind};

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::Elophanto;

pub struct ElophantoFormat;

impl Format for ElophantoFormat {
    fn kind(&self) -> DialectKind {
        KIND
    }
    fn name(&self) -> &'static str {
        "elophanto"
    }
    fn open(&self, _root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Elophanto)
    }
    fn cacheable(&self) -> bool {
        true
    }
}
