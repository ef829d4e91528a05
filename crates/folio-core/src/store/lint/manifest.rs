//! AIP-10 manifest `lints:` that configure the cross-entity rules: `broken-ref` and `orphan`,
//! each with a severity and an `appliesTo` (an entity type, a list of them, or `*`). The
//! per-file kinds (require-source, max-age, min-confidence) are applied by the AIP-10 dialect.
use serde_json::Value;

use crate::store::model::entity::Severity;

/// One manifest lint of a kind lint cares about.
#[derive(Debug, Clone, PartialEq)]
struct Scoped {
    /// Lower-cased entity types it applies to; empty means every type (`*`).
    applies_to: Vec<String>,
    severity: Option<Severity>,
}

/// The merged manifest's lints, by kind.
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
    /// From `Dialect::info()`: `{"merged": {"lints": [...]}, "chain": [...]}`. Anything else
    /// (other dialects, no manifest) configures nothing.
    pub fn from_info(info: &Value) -> ManifestLints {
        let mut out = ManifestLints::default();
        let Some(Value::Array(lints)) = info.get("merged").and_then(|m| m.get("lints")) else { return out };
        for lint in lints {
            let scoped =
                Scoped { applies_to: applies_to(lint.get("appliesTo")), severity: severity(lint.get("severity")) };
            match lint.get("kind").and_then(Value::as_str) {
                Some("broken-ref") => out.broken_ref.push(scoped),
                Some("orphan") => out.orphan.push(scoped),
                _ => {}
            }
        }
        out
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

fn applies_to(v: Option<&Value>) -> Vec<String> {
    let names: Vec<String> = match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    if names.iter().any(|n| n.trim() == "*") {
        return Vec::new();
    }
    names.into_iter().map(|n| n.trim().to_lowercase()).collect()
}

fn severity(v: Option<&Value>) -> Option<Severity> {
    v.and_then(Value::as_str).and_then(Severity::from_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_broken_ref_and_orphan_lints_by_type() {
        let info = json!({"merged": {"lints": [
            {"id": "refs", "kind": "broken-ref", "appliesTo": "*", "severity": "error"},
            {"id": "lonely", "kind": "orphan", "appliesTo": "Concept", "severity": "warn"},
            {"id": "src", "kind": "require-source", "appliesTo": "*", "severity": "error"}
        ]}, "chain": []});
        let m = ManifestLints::from_info(&info);
        assert_eq!(m.severity(Kind::BrokenRef, Some("entity")), Some(Severity::Error));
        assert_eq!(m.severity(Kind::Orphan, Some("concept")), Some(Severity::Warn));
        assert_eq!(m.severity(Kind::Orphan, Some("entity")), None);
        assert_eq!(m.severity(Kind::Orphan, None), None);
    }

    #[test]
    fn no_manifest_configures_nothing() {
        let m = ManifestLints::from_info(&Value::Null);
        assert_eq!(m, ManifestLints::default());
        assert_eq!(m.severity(Kind::BrokenRef, Some("x")), None);
    }
}
