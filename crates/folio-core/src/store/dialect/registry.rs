//! Reading the registry (`dialect/mod.rs`, one line per format): kinds, lookups by name, the
//! detection orders. Everything about a format (its name, markers, detection ranks, file
//! names) is in its folder's `spec.rs` and `format.rs`.
use std::path::Path;
use std::sync::OnceLock;

use super::Dialect;
use super::FORMATS;
use super::format::Format;
use super::spec::FormatSpec;

/// A format folio reads, named by its spec's `name` (the `--dialect` value). Each format's
/// folder holds its own as `KIND`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DialectKind(&'static str);

impl DialectKind {
    /// The kind a format's spec names.
    pub const fn of(spec: &FormatSpec) -> DialectKind {
        DialectKind(spec.name)
    }

    /// What folio knows about this format.
    pub fn format(self) -> &'static dyn Format {
        // A handful of formats: a scan is as quick as a map (names differ in their first bytes).
        FORMATS.iter().copied().find(|f| f.spec().name == self.0).expect("every kind is a registered format")
    }

    /// The format's standing facts.
    pub fn spec(self) -> &'static FormatSpec {
        self.format().spec()
    }

    pub fn name(self) -> &'static str {
        self.0
    }

    pub fn from_name(name: &str) -> Option<DialectKind> {
        by_name(name)
    }

    /// Every format folio reads, in the order `--dialect` lists them.
    pub fn all() -> impl Iterator<Item = DialectKind> {
        formats().map(|f| f.kind())
    }

    /// Open the dialect on a store root (reads manifests where the format has them).
    pub fn open(self, root: &Path) -> Box<dyn Dialect> {
        self.format().open(root)
    }
}

impl std::fmt::Debug for DialectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::fmt::Display for DialectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// The formats that rank in `rank` (a detection order), lowest rank first.
fn ranked(rank: fn(&FormatSpec) -> Option<u8>) -> Vec<&'static dyn Format> {
    let mut ranked: Vec<(u8, &'static dyn Format)> = formats().filter_map(|f| rank(f.spec()).map(|r| (r, f))).collect();
    ranked.sort_by_key(|(r, _)| *r);
    ranked.into_iter().map(|(_, f)| f).collect()
}

/// The format of a folder with no marks at all.
pub fn fallback() -> &'static dyn Format {
    formats().find(|f| f.spec().detection.fallback).expect("one format is the fallback")
}

/// Formats in the order their markers are tried: the first whose marker is found wins (a
/// folder with both a `KNOWLEDGE.md` and a catalog `index.md` is an AIP-10 wiki).
pub fn by_marker_order() -> impl Iterator<Item = &'static dyn Format> {
    static ORDER: OnceLock<Vec<&'static dyn Format>> = OnceLock::new();
    ORDER.get_or_init(|| ranked(|s| s.detection.marker_rank)).iter().copied()
}

/// Formats in the order sampled files are offered to them: the most specific marks first.
pub fn by_sniff_order() -> impl Iterator<Item = &'static dyn Format> {
    static ORDER: OnceLock<Vec<&'static dyn Format>> = OnceLock::new();
    ORDER.get_or_init(|| ranked(|s| s.detection.sniff_rank)).iter().copied()
}

/// What detection looks for, every format's markers in the order they are tried (for the
/// message when nothing is found).
pub fn markers_looked_for() -> String {
    by_marker_order().flat_map(|f| f.spec().markers.iter().copied()).collect::<Vec<_>>().join(", ")
}

/// Every format folio reads.
pub fn formats() -> impl Iterator<Item = &'static dyn Format> {
    FORMATS.iter().copied()
}

/// The format named `name` (a `--dialect` value), if folio reads it.
pub fn by_name(name: &str) -> Option<DialectKind> {
    formats().find(|f| f.spec().name == name).map(|f| f.kind())
}

/// Every format's name, in the order `--dialect` lists them.
pub fn names() -> Vec<&'static str> {
    formats().map(|f| f.spec().name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_finds_its_own_format() {
        for kind in DialectKind::all() {
            assert_eq!(kind.format().kind(), kind);
            assert_eq!(DialectKind::from_name(kind.name()), Some(kind));
        }
        let mut names = names();
        assert!(names.iter().all(|n| !n.is_empty()), "every spec names its format: {names:?}");
        names.sort();
        names.dedup();
        assert_eq!(names.len(), FORMATS.len(), "format names are unique");
    }

    #[test]
    fn detection_orders_and_the_fallback_come_from_the_specs() {
        let ranks = |rank: fn(&FormatSpec) -> Option<u8>| -> Vec<u8> {
            let mut r: Vec<u8> = formats().filter_map(|f| rank(f.spec())).collect();
            r.sort();
            r
        };
        for r in [ranks(|s| s.detection.marker_rank), ranks(|s| s.detection.sniff_rank)] {
            let mut unique = r.clone();
            unique.dedup();
            assert_eq!(unique, r, "two formats share a detection rank");
        }
        assert_eq!(formats().filter(|f| f.spec().detection.fallback).count(), 1);
        assert_eq!(by_marker_order().next().map(|f| f.spec().name), Some("evolve"));
        assert_eq!(by_sniff_order().next().map(|f| f.spec().name), Some("aip10"));
        assert_eq!(fallback().spec().name, "vault");
    }
}
