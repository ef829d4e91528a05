//! evolve's standing facts (see `format::Format`).
use std::path::{Path, PathBuf};

use crate::store::dialect::format::{Format, OkfAlignment, label};
use crate::store::dialect::{Dialect, DialectKind, Grammar};
use crate::store::entity::Entity;
use crate::store::state::evolve_home;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::Evolve;

pub struct EvolveFormat;

impl Format for EvolveFormat {
    fn kind(&self) -> DialectKind {
        KIND
    }
    fn name(&self) -> &'static str {
        "evolve"
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Evolve::open(root))
    }
    /// Beside `entities/` in a project's `.evolve/` (evolve's recall scans `entities/` only);
    /// a bare published repository keeps it in its own `.folio/`.
    fn state_dir(&self, root: &Path) -> PathBuf {
        match evolve_home(root) {
            Some(home) => home.join("folio"),
            None => root.join(".folio"),
        }
    }
    fn grammar(&self) -> Grammar {
        Grammar::KeyValue
    }
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        vec![label(e.kind.as_deref())]
    }
    fn okf_alignment(&self) -> Option<OkfAlignment> {
        Some(OkfAlignment { entries_named_by_stem: true })
    }
}
