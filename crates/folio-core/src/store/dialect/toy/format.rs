//! The toy format's behaviour: found by its marker, opened as its own dialect.
use std::path::Path;

use crate::store::dialect::format::{Format, Marker};
use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::{Dialect, DialectKind};

pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

pub struct ToyFormat;

impl Format for ToyFormat {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    fn open(&self, _root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Toy)
    }
    fn marker(&self, path: &Path) -> Option<Marker> {
        path.join("TOY.md").is_file().then(|| Marker::new(path, "TOY.md found"))
    }
}
