//! A folder of markdown notes as Obsidian reads it: the fallback for a folder with no format's marks (docs/formats/vault.md).
use crate::store::dialect::spec::{Detection, FormatSpec, Migration};

pub const SPEC: FormatSpec = FormatSpec {
    name: "vault",
    detection: Detection { marker_rank: None, sniff_rank: Some(4), chosen_by_sniffing: false, fallback: true },
    migrations: &[Migration { to: "okf", entries_named_by_stem: false }],
    ..FormatSpec::FOLDER
};
