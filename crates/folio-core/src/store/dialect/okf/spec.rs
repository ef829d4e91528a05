//! OKF bundles: a root catalog `index.md`, one concept per file, the `log.md` event log (docs/formats/okf.md).
use crate::store::dialect::spec::{Detection, FormatSpec};

/// Each folder's catalog.
pub const CATALOG: &str = "index.md";
/// The bundle's event log, at the root.
pub const LOG: &str = "log.md";

pub const SPEC: FormatSpec = FormatSpec {
    name: "okf",
    plural: "OKF bundles",
    markers: &["a catalog `index.md` at the root"],
    detection: Detection::ranked(Some(5), Some(5)),
    catalog_files: &[CATALOG],
    log_files: &[LOG],
    reserved_names: &[CATALOG, LOG],
    field_labels: ("type", "status"),
    ..FormatSpec::FOLDER
};
