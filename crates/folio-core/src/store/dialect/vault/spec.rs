//! A folder of markdown notes as Obsidian reads it: the fallback for a folder with no format's marks (docs/formats/vault.md).
use crate::store::dialect::spec::{AUTHOR_FIELDS, Detection, FOLIO_STATE, FormatSpec, INACTIVE_STATUSES, INDEX_PAGES, Migration, ROOT_INDEX_HUB, SESSION_FIELDS};

pub const SPEC: FormatSpec = FormatSpec {
    name: "vault",
    plural: "stores",
    markers: &[],
    detection: Detection {
        marker_rank: None,
        sniff_rank: Some(4),
        chosen_by_sniffing: false,
        fallback: true,
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
    migrations: &[Migration { to: "okf", entries_named_by_stem: false }],
};
