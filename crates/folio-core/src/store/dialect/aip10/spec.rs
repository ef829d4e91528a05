//! AIP-10 wikis: the `KNOWLEDGE.md` workspace, pages by slug, the generated `_index.md` and `_log.md` (docs/formats/aip10.md).
use crate::store::dialect::spec::{Detection, FormatSpec};

/// The generated catalog, at the root.
pub const CATALOG: &str = "_index.md";
/// The generated log, at the root.
pub const LOG: &str = "_log.md";

pub const SPEC: FormatSpec = FormatSpec {
    name: "aip10",
    markers: &["`KNOWLEDGE.md`"],
    detection: Detection::ranked(Some(1), Some(0)),
    catalog_files: &[CATALOG],
    log_files: &[LOG],
    reserved_names: &[CATALOG, LOG],
    ..FormatSpec::FOLDER
};
