//! evolve's standing facts (see `format::Format`).
use std::path::{Path, PathBuf};

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{Format, Marker, Sniffed, label};
use crate::store::dialect::{Dialect, DialectKind, Grammar};
use crate::store::model::entity::Entity;
use super::evolve_home;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

pub struct EvolveFormat;

impl Format for EvolveFormat {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    /// An entity depends on its own file's bytes alone (a `log.md`/`index.md`'s role on its own
    /// frontmatter); `audit.log` is read by the dialect when opened, never into the snapshot.
    fn cacheable(&self) -> bool {
        true
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Evolve::open(root))
    }
    /// A project's `.evolve/entities`, from the project, from `.evolve` or from `entities/`.
    fn marker(&self, path: &Path) -> Option<Marker> {
        if path.join(".evolve/entities").is_dir() {
            return Some(Marker::new(path.join(".evolve/entities"), ".evolve/entities/ found"));
        }
        if path.file_name().is_some_and(|n| n == ".evolve") && path.join("entities").is_dir() {
            return Some(Marker::new(path.join("entities"), "entities/ inside .evolve"));
        }
        let in_evolve = path.parent().and_then(Path::file_name).is_some_and(|n| n == ".evolve");
        if path.file_name().is_some_and(|n| n == "entities") && in_evolve {
            return Some(Marker::new(path, "an .evolve/entities folder"));
        }
        // A folder inside a project's entities (a type folder, a subscribed clone) is part of
        // that store: opened on its own it would be a bare folder (or a plain vault) whose
        // writes land inside the tree evolve recalls.
        let entities = path.ancestors().skip(1).find(|a| {
            a.file_name().is_some_and(|n| n == "entities")
                && a.parent().and_then(Path::file_name).is_some_and(|n| n == ".evolve")
        })?;
        Some(Marker::new(entities, "inside an .evolve/entities folder"))
    }
    /// A subscribed clone (`subscribed/<repo>/…`) is someone else's published guidelines:
    /// evolve's `sync` pulls it again over any local edit.
    fn foreign_source(&self, rel: &str) -> Option<String> {
        let repo = rel.strip_prefix("subscribed/")?.split('/').next().filter(|r| !r.is_empty())?;
        let whose = "someone else's published guidelines, not yours (evolve sync overwrites it)";
        Some(format!("subscribed/{repo}: a subscribed clone of {whose}"))
    }
    /// evolve entities carry a `trigger` beside their `type`.
    fn sniff(&self, file: &Sniffed) -> bool {
        file.has("trigger") && file.has("type")
    }
    fn root_for(&self, path: &Path) -> PathBuf {
        if path.join(".evolve/entities").is_dir() {
            path.join(".evolve/entities")
        } else if path.join("entities").is_dir() && path.ends_with(".evolve") {
            path.join("entities")
        } else {
            path.to_path_buf()
        }
    }
    /// Inside an evolve entities tree: the project folder holding `.evolve`.
    fn enclosing_store(&self, dir: &Path) -> Option<PathBuf> {
        dir.file_name().is_some_and(|n| n == ".evolve").then(|| dir.parent().map(Path::to_path_buf)).flatten()
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
    fn review(&self) -> &'static dyn crate::store::review::rules::ReviewRules {
        &super::review::EvolveReview
    }
    /// The evolve home's `audit.log` (beside the entities), else one in folio's state folder.
    fn log_path(&self, root: &Path) -> PathBuf {
        match super::evolve_home(root) {
            Some(home) => home.join("audit.log"),
            None => crate::store::write::state::State::for_store(root, KIND).dir.join("audit.log"),
        }
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
