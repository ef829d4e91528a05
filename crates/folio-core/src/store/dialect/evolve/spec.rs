//! evolve's `.evolve/entities`: key-value entities by type, the home's `audit.log` (docs/formats/evolve.md).
use crate::store::dialect::spec::{AUTHOR_FIELDS, Detection, FOLIO_STATE, FormatSpec, INACTIVE_STATUSES, INDEX_PAGES, Migration, ROOT_INDEX_HUB, SESSION_FIELDS};

pub const SPEC: FormatSpec = FormatSpec {
    name: "evolve",
    plural: "stores",
    markers: &["`.evolve/entities/`"],
    detection: Detection {
        marker_rank: Some(0),
        sniff_rank: Some(1),
        chosen_by_sniffing: true,
        fallback: false,
    },
    store_is_folder: true,
    catalog_files: &[],
    log_files: &["audit.log"],
    reserved_names: &[],
    folder_pages: INDEX_PAGES,
    hub_pages: ROOT_INDEX_HUB,
    inactive_statuses: INACTIVE_STATUSES,
    author_fields: AUTHOR_FIELDS,
    session_fields: SESSION_FIELDS,
    field_labels: ("kind", "status"),
    state_folder: FOLIO_STATE,
    migrations: &[Migration { to: "okf", entries_named_by_stem: true }],
};
