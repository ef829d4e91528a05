//! EloPhanto's `knowledge/` folder (docs/formats/elophanto.md).
use crate::store::dialect::spec::{AUTHOR_FIELDS, Detection, FOLIO_STATE, FormatSpec, INACTIVE_STATUSES, INDEX_PAGES, ROOT_INDEX_HUB, SESSION_FIELDS};

pub const SPEC: FormatSpec = FormatSpec {
    name: "elophanto",
    plural: "stores",
    markers: &["`knowledge/system/`"],
    detection: Detection {
        marker_rank: Some(3),
        sniff_rank: Some(3),
        chosen_by_sniffing: true,
        fallback: false,
    },
    store_is_folder: true,
    catalog_files: &[],
    log_files: &[],
    reserved_names: &[],
    folder_pages: INDEX_PAGES,
    hub_pages: ROOT_INDEX_HUB,
    inactive_statuses: INACTIVE_STATUSES,
    author_fields: AUTHOR_FIELDS,
    session_fields: SESSION_FIELDS,
    field_labels: ("kind", "status"),
    state_folder: FOLIO_STATE,
    migrations: &[],
};
