//! The toy format's facts: a store marked by `TOY.md`, one note per file.
use crate::store::dialect::spec::{
    AUTHOR_FIELDS, Detection, FOLIO_STATE, FormatSpec, INACTIVE_STATUSES, INDEX_PAGES, SESSION_FIELDS,
};

pub const SPEC: FormatSpec = FormatSpec {
    name: "toy",
    plural: "toy boxes",
    markers: &["`TOY.md`"],
    detection: Detection { marker_rank: Some(100), sniff_rank: None, chosen_by_sniffing: false, fallback: false },
    store_is_folder: true,
    catalog_files: &[],
    log_files: &["TOY.log"],
    reserved_names: &["TOY.md"],
    folder_pages: INDEX_PAGES,
    hub_pages: &["TOY.md"],
    inactive_statuses: INACTIVE_STATUSES,
    author_fields: AUTHOR_FIELDS,
    session_fields: SESSION_FIELDS,
    field_labels: ("kind", "status"),
    state_folder: FOLIO_STATE,
    migrations: &[],
};
