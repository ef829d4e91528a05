//! What folio knows about a format before (or without) opening a store of it: the facts generic
//! code needs — where folio keeps its state, how frontmatter is written, which paths are
//! read-only, how the catalog tree groups entities, what the review ladder's next step is.
//!
//! Each format answers in its own folder (`<format>/format.rs`); generic code asks through
//! `DialectKind::format()` and never matches on which format it is.
use std::path::{Path, PathBuf};

use super::{Dialect, DialectKind, Grammar};
use crate::store::entity::Entity;

/// Label used when an entity lacks the field its format groups the catalog tree by.
pub const UNSORTED: &str = "(none)";

/// How `migrate --to okf` treats a store of this format (`None`: the format is not migrated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OkfAlignment {
    /// Catalog entries are named by file stem (evolve's slugs) rather than by title.
    pub entries_named_by_stem: bool,
}

pub trait Format: Sync {
    fn kind(&self) -> DialectKind;

    /// The `--dialect` value and the JSON `dialect` field.
    fn name(&self) -> &'static str;

    /// Open the dialect on a store root (reads manifests where the format has them).
    fn open(&self, root: &Path) -> Box<dyn Dialect>;

    /// Where folio keeps its own state for a store at `root` (never inside what the format's own
    /// readers scan).
    fn state_dir(&self, root: &Path) -> PathBuf {
        root.join(".folio")
    }

    /// How entity files write their frontmatter.
    fn grammar(&self) -> Grammar {
        Grammar::Yaml
    }

    /// Whether entities depend only on their own file's bytes, so a per-file size and mtime
    /// check can tell when the store cache is current. Formats that read manifests, event logs
    /// or the clock when they open are always read.
    fn cacheable(&self) -> bool {
        false
    }

    /// Why folio must never write `rel` (relative to the root), when the format forbids it.
    fn read_only_reason(&self, _rel: &str) -> Option<String> {
        None
    }

    /// The labels from the root down to the catalog-tree group `e` belongs in (empty: the root).
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        folders(&e.path)
    }

    /// What the preview calls an entity's `kind` and `status` fields in this format.
    fn field_labels(&self) -> (&'static str, &'static str) {
        ("kind", "status")
    }

    /// The step on the format's review ladder that approving an item in `status` takes
    /// (REVIEW.md "Per dialect"), for the inbox's detail line.
    fn promotion_step(&self, _status: &str) -> Option<&'static str> {
        None
    }

    /// How `migrate --to okf` aligns a store of this format, if it does.
    fn okf_alignment(&self) -> Option<OkfAlignment> {
        None
    }
}

/// The folders of a path, root first (the catalog tree of folder-shaped formats).
pub fn folders(path: &str) -> Vec<&str> {
    // memchr's SIMD search: std's memrchr was a quarter of the tree build at 100k entities.
    match memchr::memrchr(b'/', path.as_bytes()) {
        Some(end) => path[..end].split('/').collect(),
        None => Vec::new(),
    }
}

/// A field's value as a tree label (`UNSORTED` when absent or blank).
pub fn label(v: Option<&str>) -> &str {
    v.filter(|s| !s.trim().is_empty()).unwrap_or(UNSORTED)
}
