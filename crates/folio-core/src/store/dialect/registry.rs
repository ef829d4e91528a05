//! The registry: the formats folio reads, each with its standing facts. Adding a format adds
//! its folder and one line in each list here; nothing else names the formats.
use std::path::Path;

use super::Dialect;
use super::format::Format;
use super::{aip10, awareness, elophanto, evolve, okf, opendray, opendray_pg, vault};

/// The formats folio reads. The names are the `--dialect` values and the JSON `dialect` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DialectKind {
    Okf,
    Evolve,
    Aip10,
    Elophanto,
    Opendray,
    Awareness,
    Vault,
    OpendrayPg,
}

/// Every format, in the order `--dialect` lists them.
static FORMATS: [&dyn Format; 8] = [
    &okf::format::OkfFormat,
    &evolve::format::EvolveFormat,
    &aip10::format::Aip10Format,
    &elophanto::format::ElophantoFormat,
    &opendray::format::OpendrayFormat,
    &awareness::format::AwarenessFormat,
    &vault::format::VaultFormat,
    &opendray_pg::format::OpendrayPgFormat,
];

/// The order formats' markers are tried in: the first whose marker is found wins (a folder with
/// both a `KNOWLEDGE.md` and a catalog `index.md` is an AIP-10 wiki).
static MARKER_ORDER: [&dyn Format; 6] = [
    &evolve::format::EvolveFormat,
    &aip10::format::Aip10Format,
    &awareness::format::AwarenessFormat,
    &elophanto::format::ElophantoFormat,
    &opendray::format::OpendrayFormat,
    &okf::format::OkfFormat,
];

/// The order formats are asked whether a sampled file is theirs: the most specific marks
/// first; typed pages are OKF concepts only when no wikilink says they are a vault's.
static SNIFF_ORDER: [&dyn Format; 6] = [
    &aip10::format::Aip10Format,
    &evolve::format::EvolveFormat,
    &opendray::format::OpendrayFormat,
    &elophanto::format::ElophantoFormat,
    &vault::format::VaultFormat,
    &okf::format::OkfFormat,
];

/// The format of a folder with no marks at all.
pub fn fallback() -> &'static dyn Format {
    &vault::format::VaultFormat
}

/// Formats in the order their markers are tried.
pub fn by_marker_order() -> impl Iterator<Item = &'static dyn Format> {
    MARKER_ORDER.iter().copied()
}

/// Formats in the order sampled files are offered to them.
pub fn by_sniff_order() -> impl Iterator<Item = &'static dyn Format> {
    SNIFF_ORDER.iter().copied()
}

/// Every format folio reads.
pub fn formats() -> impl Iterator<Item = &'static dyn Format> {
    FORMATS.iter().copied()
}

/// The format named `name` (a `--dialect` value), if folio reads it.
pub fn by_name(name: &str) -> Option<DialectKind> {
    formats().find(|f| f.name() == name).map(|f| f.kind())
}

/// Every format's name, in the order `--dialect` lists them.
pub fn names() -> Vec<&'static str> {
    formats().map(|f| f.name()).collect()
}

impl DialectKind {
    pub const ALL: [DialectKind; 8] = [
        DialectKind::Okf,
        DialectKind::Evolve,
        DialectKind::Aip10,
        DialectKind::Elophanto,
        DialectKind::Opendray,
        DialectKind::Awareness,
        DialectKind::Vault,
        DialectKind::OpendrayPg,
    ];

    /// What folio knows about this format.
    pub fn format(self) -> &'static dyn Format {
        FORMATS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.format().name()
    }

    pub fn from_name(name: &str) -> Option<DialectKind> {
        by_name(name)
    }

    /// Open the dialect on a store root (reads manifests where the format has them).
    pub fn open(self, root: &Path) -> Box<dyn Dialect> {
        self.format().open(root)
    }
}

impl std::fmt::Display for DialectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_finds_its_own_format() {
        for kind in DialectKind::ALL {
            assert_eq!(kind.format().kind(), kind);
            assert_eq!(DialectKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(formats().count(), DialectKind::ALL.len());
    }
}
