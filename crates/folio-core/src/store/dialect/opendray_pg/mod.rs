//! opendray's live brain: the knowledge graph in PostgreSQL (`knowledge_nodes`,
//! `knowledge_edges`, `knowledge_fact_sources`; docs/opendray-database.md, the schema's
//! migrations in tests/corpora/opendray-pg).
//! Opened by a connection string (`folio postgres://user@host/db`, `FOLIO_DATABASE_URL`),
//! each visible node read as the export would write it into one snapshot in folio's state
//! folder (`mirror`, `snapshot`; no file per node), and parsed from memory as the markdown
//! export's files are (`Dialect::memory_files`), so that it is read, linted and reviewed as
//! the export is — save for the rows an open just fetched, made entities from their columns
//! without parsing their renderings back (`direct`); written back by `storage::PgStorage`,
//! one transaction per decision.
use std::path::Path;

use serde_json::json;

use super::opendray::Opendray;
use super::{Dialect, DialectKind, FileRole, SourceFile, StoreWarning};
use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::read::frontmatter::view::View;

mod checks;
pub mod conn;
pub mod direct;
pub mod format;
pub mod inbound;
pub mod spec;
pub mod mirror;
pub mod part;
mod quiet;
pub mod review;
pub mod rows;
pub mod schema;
pub mod settle;
pub mod since;
pub mod snapshot;
mod staging;
pub mod timestamp;
pub mod storage;
pub mod translate;
mod writing;
mod yaml;

pub use format::KIND;

pub struct OpendrayPg {
    export: Opendray,
    root: std::path::PathBuf,
    marker: Option<mirror::Marker>,
    /// Opened for a decision on a few nodes (`part`): those nodes' renderings, the only
    /// entities the store loads.
    part: Option<std::sync::Arc<super::MemoryFiles>>,
}

impl OpendrayPg {
    pub fn open(root: &Path) -> Self {
        OpendrayPg {
            export: Opendray::open(root),
            root: root.to_path_buf(),
            marker: mirror::Marker::read(root),
            part: None,
        }
    }

    /// Opened on these nodes' renderings alone (`part::open`).
    fn open_on(root: &Path, files: super::MemoryFiles) -> Self {
        OpendrayPg { part: Some(std::sync::Arc::new(files)), ..OpendrayPg::open(root) }
    }
}

impl OpendrayPg {
    /// A node's file as an entity, its frontmatter's fields `given` when they are known
    /// (`direct`: built from the row the text was rendered from), else parsed from it.
    fn parse_given(&self, file: &SourceFile, given: Option<View<'static>>) -> Vec<Entity> {
        let (mut e, fields) = self.export.parse_node_given(file, given, super::opendray::Keys::Exact);
        if let Some(scope) = fields.str("scope") {
            e.tags.push(format!("scope:{scope}").into());
        }
        e.problems.extend(checks::node(&fields));
        vec![e]
    }
}

impl Dialect for OpendrayPg {
    fn kind(&self) -> DialectKind {
        KIND
    }

    fn role(&self, rel: &str) -> FileRole {
        self.export.role(rel)
    }

    /// As the export reads a node, plus the brain's own guards (`checks`) and the scope as a
    /// `scope:<scope>` tag (the catalog groups by it).
    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        self.parse_given(file, None)
    }

    /// A node just read from its row was made an entity then (`direct`): its YAML is not
    /// parsed back.
    fn held_entities(&self, rel: &str, text: &str) -> Option<Vec<Entity>> {
        self.marker.as_ref()?;
        direct::take(&self.root, rel, text)
    }

    fn warnings(&self) -> Vec<StoreWarning> {
        // Read now, not at open: the open's sync writes it after the cached store was opened.
        let rebuilt = snapshot::rebuilt_note(&self.root).into_iter().map(|why| StoreWarning {
            code: "database-snapshot".into(),
            message: why,
            path: Some(".folio/snapshot.bin".into()),
        });
        match &self.marker {
            Some(_) => rebuilt.collect(),
            None => vec![StoreWarning {
                code: "database-marker".into(),
                message: format!(
                    "{} is missing: this folder names no database, and folio will not write it",
                    mirror::MARKER
                ),
                path: Some(mirror::MARKER.into()),
            }],
        }
    }

    fn info(&self) -> serde_json::Value {
        match &self.marker {
            Some(m) => json!({"database": m.database, "archived_shown": m.archived}),
            None => serde_json::Value::Null,
        }
    }

    fn storage<'s>(&self, store: &'s Store) -> Option<Box<dyn crate::store::write::storage::Storage + 's>> {
        Some(Box::new(storage::PgStorage::new(store, self.marker.clone())))
    }

    /// The nodes as the snapshot holds them: no file per node (`snapshot`).
    fn memory_files(&self) -> Option<std::sync::Arc<super::MemoryFiles>> {
        self.marker.as_ref()?;
        Some(self.part.clone().unwrap_or_else(|| snapshot::files_of(&self.root)))
    }

    fn in_memory(&self) -> bool {
        self.marker.is_some()
    }

    /// One node's text by its offset in the snapshot (`snapshot::text_at`); one that does not
    /// check is read with all of them (`files_of`, which reads the database again).
    fn memory_file(&self, rel: &str) -> Option<Option<String>> {
        self.marker.as_ref()?;
        if let Some(text) = self.part.as_ref().and_then(|p| p.get(rel)) {
            return Some(Some(text.clone()));
        }
        Some(match snapshot::text_at(&self.root, rel) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(_) => snapshot::files_of(&self.root).get(rel).cloned(),
        })
    }
}
