//! opendray's live brain in PostgreSQL, named by a connection string (docs/opendray-database.md).
use crate::store::dialect::spec::{FormatSpec};

pub const SPEC: FormatSpec = FormatSpec {
    name: "opendray-pg",
    markers: &["a PostgreSQL connection string to opendray's brain"],
    store_is_folder: false,
    folder_pages: &[],
    hub_pages: &[],
    field_labels: ("kind", "maturity"),
    ..FormatSpec::FOLDER
};
