//! awareness-framework's `~/.agents` home: `memory/long-term.md` and its event log (docs/formats/awareness.md).
use crate::store::dialect::spec::{Detection, FormatSpec};

pub const SPEC: FormatSpec = FormatSpec {
    name: "awareness",
    markers: &["`memory/long-term.md` in the framework's sections"],
    detection: Detection::ranked(Some(2), None),
    log_files: &["events.jsonl"],
    field_labels: ("section", "status"),
    ..FormatSpec::FOLDER
};
