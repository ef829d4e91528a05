//! evolve's `.evolve/entities`: key-value entities by type, the home's `audit.log` (docs/formats/evolve.md).
use crate::store::dialect::spec::{Detection, FormatSpec, Migration};

pub const SPEC: FormatSpec = FormatSpec {
    name: "evolve",
    markers: &["`.evolve/entities/`"],
    detection: Detection::ranked(Some(0), Some(1)),
    log_files: &["audit.log"],
    migrations: &[Migration { to: "okf", entries_named_by_stem: true }],
    ..FormatSpec::FOLDER
};
