//! EloPhanto's standing facts (see `format::Format`).
use std::path::{Path, PathBuf};

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{Format, Marker, Sniffed};
use crate::store::dialect::{Dialect, DialectKind};

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

pub struct ElophantoFormat;

impl Format for ElophantoFormat {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    fn open(&self, _root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Elophanto)
    }
    /// An agent's `knowledge/` folder with its `system/` part.
    fn marker(&self, path: &Path) -> Option<Marker> {
        if path.join("knowledge/system").is_dir() {
            return Some(Marker::new(path.join("knowledge"), "knowledge/system/ found"));
        }
        (path.file_name().is_some_and(|n| n == "knowledge") && path.join("system").is_dir())
            .then(|| Marker::new(path, "a knowledge/ folder with system/"))
    }
    /// EloPhanto files carry one of its four scopes.
    fn sniff(&self, file: &Sniffed) -> bool {
        ["system", "user", "learned", "plugin"].contains(&file.str("scope").as_str())
    }
    fn root_for(&self, path: &Path) -> PathBuf {
        if path.join("knowledge/system").is_dir() { path.join("knowledge") } else { path.to_path_buf() }
    }
    fn cacheable(&self) -> bool {
        true
    }
}
