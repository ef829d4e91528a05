//! awareness-framework's `~/.agents` home: `memory/long-term.md` and its event log (docs/formats/awareness.md).
use crate::store::dialect::spec::{AUTHOR_FIELDS, Detection, FOLIO_STATE, FormatSpec, INACTIVE_STATUSES, INDEX_PAGES, ROOT_INDEX_HUB, SESSION_FIELDS};

pub const SPEC: FormatSpec = FormatSpec {
    name: "awareness",
    plural: "stores",
    markers: &["`memory/long-term.md` in the framework's sections"],
    detection: Detection {
        marker_rank: Some(2),
        sniff_rank: None,
        chosen_by_sniffing: true,
        fallback: false,
    },
    store_is_folder: true,
    catalog_files: &[],
    log_files: &["events.jsonl"],
    reserved_names: &[],
    folder_pages: INDEX_PAGES,
    hub_pages: ROOT_INDEX_HUB,
    inactive_statuses: INACTIVE_STATUSES,
    author_fields: AUTHOR_FIELDS,
    session_fields: SESSION_FIELDS,
    field_labels: ("section", "status"),
    state_folder: FOLIO_STATE,
    migrations: &[],
};
