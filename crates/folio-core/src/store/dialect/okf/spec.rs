//! OKF bundles: a root catalog `index.md`, one concept per file, the `log.md` event log (docs/formats/okf.md).
use crate::store::dialect::spec::{AUTHOR_FIELDS, Detection, FOLIO_STATE, FormatSpec, INACTIVE_STATUSES, INDEX_PAGES, ROOT_INDEX_HUB, SESSION_FIELDS};

/// Each folder's catalog.
pub const CATALOG: &str = "index.md";
/// The bundle's event log, at the root.
pub const LOG: &str = "log.md";

pub const SPEC: FormatSpec = FormatSpec {
    name: "okf",
    plural: "OKF bundles",
    markers: &["a catalog `index.md` at the root"],
    detection: Detection {
        marker_rank: Some(5),
        sniff_rank: Some(5),
        chosen_by_sniffing: true,
        fallback: false,
    },
    store_is_folder: true,
    catalog_files: &[CATALOG],
    log_files: &[LOG],
    reserved_names: &[CATALOG, LOG],
    folder_pages: INDEX_PAGES,
    hub_pages: ROOT_INDEX_HUB,
    inactive_statuses: INACTIVE_STATUSES,
    author_fields: AUTHOR_FIELDS,
    session_fields: SESSION_FIELDS,
    field_labels: ("type", "status"),
    state_folder: FOLIO_STATE,
    migrations: &[],
};
