//! opendray's live brain in PostgreSQL, named by a connection string (docs/opendray-database.md).
use crate::store::dialect::spec::{AUTHOR_FIELDS, Detection, FOLIO_STATE, FormatSpec, INACTIVE_STATUSES, SESSION_FIELDS};

pub const SPEC: FormatSpec = FormatSpec {
    name: "opendray-pg",
    plural: "stores",
    markers: &["a PostgreSQL connection string to opendray's brain"],
    detection: Detection {
        marker_rank: None,
        sniff_rank: None,
        chosen_by_sniffing: true,
        fallback: false,
    },
    store_is_folder: false,
    catalog_files: &[],
    log_files: &[],
    reserved_names: &[],
    folder_pages: &[],
    hub_pages: &[],
    inactive_statuses: INACTIVE_STATUSES,
    author_fields: AUTHOR_FIELDS,
    session_fields: SESSION_FIELDS,
    field_labels: ("kind", "maturity"),
    state_folder: FOLIO_STATE,
    migrations: &[],
};
