//! What a format's own manifest says of the cross-entity rules (`Dialect::manifest_lints`):
//! `broken-ref` and `orphan`, each with a severity for the entity types it applies to. AIP-10's
//! manifest `lints:` is the one that does (dialect/aip10/lints.rs reads it); the per-file kinds
//! (require-source, max-age, min-confidence) are the format's own checks.
use crate::store::model::entity::Severity;

/// One manifest lint of a kind lint cares about.
#[derive(Debug, Clone, PartialEq)]
struct Scoped {
    /// Lower-cased entity types it applies to; empty means every type.
    applies_to: Vec<String>,
    severity: Option<Severity>,
}

/// The manifest's lints, by kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManifestLints {
    broken_ref: Vec<Scoped>,
    orphan: Vec<Scoped>,
}

/// A manifest lint kind the engine applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    BrokenRef,
    Orphan,
}

impl ManifestLints {
    /// Adds a lint of `kind` for the entity types `applies_to` (empty: every type).
    pub fn add(&mut self, kind: Kind, applies_to: Vec<String>, severity: Option<Severity>) {
        let scoped = Scoped { applies_to: applies_to.into_iter().map(|t| t.to_lowercase()).collect(), severity };
        match kind {
            Kind::BrokenRef => self.broken_ref.push(scoped),
            Kind::Orphan => self.orphan.push(scoped),
        }
    }

    /// The severity the manifest gives a finding of `kind` on an entity of `entity_kind`:
    /// `None` when no manifest lint of that kind applies (the rule's default stands). When
    /// several apply, the most severe wins.
    pub fn severity(&self, kind: Kind, entity_kind: Option<&str>) -> Option<Severity> {
        let lints = match kind {
            Kind::BrokenRef => &self.broken_ref,
            Kind::Orphan => &self.orphan,
        };
        let ty = entity_kind.map(str::to_lowercase);
        lints
            .iter()
            .filter(|l| l.applies_to.is_empty() || ty.as_ref().is_some_and(|t| l.applies_to.contains(t)))
            .filter_map(|l| l.severity)
            .max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_severe_lint_that_applies_wins() {
        let mut m = ManifestLints::default();
        m.add(Kind::BrokenRef, Vec::new(), Some(Severity::Error));
        m.add(Kind::Orphan, vec!["Concept".into()], Some(Severity::Warn));
        m.add(Kind::Orphan, vec!["concept".into()], Some(Severity::Info));
        assert_eq!(m.severity(Kind::BrokenRef, Some("entity")), Some(Severity::Error));
        assert_eq!(m.severity(Kind::Orphan, Some("concept")), Some(Severity::Warn));
        assert_eq!(m.severity(Kind::Orphan, Some("entity")), None);
        assert_eq!(m.severity(Kind::Orphan, None), None);
    }

    #[test]
    fn no_manifest_configures_nothing() {
        let m = ManifestLints::default();
        assert_eq!(m.severity(Kind::BrokenRef, Some("x")), None);
    }
}
