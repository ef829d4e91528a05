//! The registry: the formats folio reads, each with its standing facts. Adding a format adds
//! its folder and one line in each list here; nothing else names the formats.
use std::path::Path;

use super::Dialect;
use super::format::Format;
use super::{aip10, awareness, elophanto, evolve, okf, opendray, vault};

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
}

/// Every format, in the order `--dialect` lists them.
static FORMATS: [&dyn Format; 7] = [
    &okf::format::OkfFormat,
    &evolve::format::EvolveFormat,
    &aip10::format::Aip10Format,
    &elophanto::format::ElophantoFormat,
    &opendray::format::OpendrayFormat,
    &awareness::format::AwarenessFormat,
    &vault::format::VaultFormat,
];

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
    pub const ALL: [DialectKind; 7] = [
        DialectKind::Okf,
        DialectKind::Evolve,
        DialectKind::Aip10,
        DialectKind::Elophanto,
        DialectKind::Opendray,
        DialectKind::Awareness,
        DialectKind::Vault,
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
