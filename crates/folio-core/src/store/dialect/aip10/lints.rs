//! The workspace manifest's `lints:` for the cross-entity rules: `broken-ref` and `orphan`,
//! each with a severity and an `appliesTo` (an entity type, a list of them, or `*`).
use serde_json::Value;

use crate::store::lint::manifest::{Kind, ManifestLints};
use crate::store::model::entity::Severity;
use crate::store::read::frontmatter::Fields;

/// The lints of a merged workspace manifest (its `lints:` list); anything else sets nothing.
pub fn from_manifest(merged: &Fields) -> ManifestLints {
    let mut out = ManifestLints::default();
    let Some(Value::Array(lints)) = merged.get("lints") else { return out };
    for lint in lints {
        let kind = match lint.get("kind").and_then(Value::as_str) {
            Some("broken-ref") => Kind::BrokenRef,
            Some("orphan") => Kind::Orphan,
            _ => continue,
        };
        let severity = lint.get("severity").and_then(Value::as_str).and_then(Severity::from_name);
        out.add(kind, applies_to(lint.get("appliesTo")), severity);
    }
    out
}

/// The types an `appliesTo` names; empty for `*` (every type).
fn applies_to(v: Option<&Value>) -> Vec<String> {
    let names: Vec<String> = match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    if names.iter().any(|n| n.trim() == "*") {
        return Vec::new();
    }
    names.into_iter().map(|n| n.trim().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_broken_ref_and_orphan_lints_by_type() {
        let merged: Fields = serde_json::from_value(json!({"lints": [
            {"id": "refs", "kind": "broken-ref", "appliesTo": "*", "severity": "error"},
            {"id": "lonely", "kind": "orphan", "appliesTo": "Concept", "severity": "warn"},
            {"id": "src", "kind": "require-source", "appliesTo": "*", "severity": "error"}
        ]}))
        .unwrap();
        let m = from_manifest(&merged);
        assert_eq!(m.severity(Kind::BrokenRef, Some("entity")), Some(Severity::Error));
        assert_eq!(m.severity(Kind::Orphan, Some("concept")), Some(Severity::Warn));
        assert_eq!(m.severity(Kind::Orphan, Some("entity")), None);
        assert_eq!(from_manifest(&Fields::new()), ManifestLints::default());
    }
}
