//! opendray's knowledge brain exported as files, marked by `opendray-export.json` (docs/formats/opendray.md).
use crate::store::dialect::spec::{Detection, FormatSpec};

pub const SPEC: FormatSpec = FormatSpec {
    name: "opendray",
    markers: &["`opendray-export.json`"],
    detection: Detection::ranked(Some(4), Some(2)),
    field_labels: ("kind", "maturity"),
    ..FormatSpec::FOLDER
};
