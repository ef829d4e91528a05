//! AIP-10 wikis: the `KNOWLEDGE.md` workspace, pages by slug, the generated `_index.md` and `_log.md` (docs/formats/aip10.md).
use crate::store::dialect::spec::{AUTHOR_FIELDS, Detection, FOLIO_STATE, FormatSpec, INACTIVE_STATUSES, INDEX_PAGES, ROOT_INDEX_HUB, SESSION_FIELDS};

/// The generated catalog, at the root.
pub const CATALOG: &str = "_index.md";
/// The generated log, at the root.
pub const LOG: &str = "_log.md";
/// The doctype `KNOWLEDGE.md` declares (`schema:` in its frontmatter) to make a folder a wiki.
pub const WORKSPACE_SCHEMA: &str = "knowledge.workspace/v1";
/// `schema:` values that are AIP-10's (its doctypes `knowledge.workspace/v1`, `knowledge/v1` as
/// the spec's text writes it, and the spec's own name `agentknowledge/v1`).
pub const SCHEMA_PREFIXES: &[&str] = &["knowledge", "agentknowledge/"];

pub const SPEC: FormatSpec = FormatSpec {
    name: "aip10",
    plural: "stores",
    markers: &["`KNOWLEDGE.md` with `schema: knowledge.workspace/v1`"],
    detection: Detection {
        marker_rank: Some(1),
        sniff_rank: Some(0),
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
    field_labels: ("kind", "status"),
    state_folder: FOLIO_STATE,
    migrations: &[],
};
