//! EloPhanto's `knowledge/` folder (docs/formats/elophanto.md).
use crate::store::dialect::spec::{Detection, FormatSpec};

pub const SPEC: FormatSpec = FormatSpec {
    name: "elophanto",
    markers: &["`knowledge/system/`"],
    detection: Detection::ranked(Some(3), Some(3)),
    ..FormatSpec::FOLDER
};
