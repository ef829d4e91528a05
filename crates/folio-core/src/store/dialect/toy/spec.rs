//! The toy format's facts: a store marked by `TOY.md`, one note per file.
use crate::store::dialect::spec::{Detection, FormatSpec};

pub const SPEC: FormatSpec = FormatSpec {
    name: "toy",
    plural: "toy boxes",
    markers: &["`TOY.md`"],
    detection: Detection { marker_rank: Some(100), sniff_rank: None, chosen_by_sniffing: false, fallback: false },
    log_files: &["TOY.log"],
    reserved_names: &["TOY.md"],
    hub_pages: &["TOY.md"],
    ..FormatSpec::FOLDER
};
