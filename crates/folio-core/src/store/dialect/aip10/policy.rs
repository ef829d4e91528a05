//! The parts of the merged workspace config that decide per-page checks: the declared entity
//! types and the `lints` list (which rule runs on which kind, at which severity).
use serde_json::Value;

use crate::store::model::entity::Severity;
use crate::store::read::frontmatter::{self, Fields};

/// One manifest lint, as declared (`{id, kind, appliesTo, severity, params}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Lint {
    pub id: String,
    /// `require-source`, `max-age`, `min-confidence`, `broken-ref`, `orphan`, `custom`.
    pub kind: String,
    /// An entity type name, or `*`.
    pub applies_to: String,
    pub severity: Option<Severity>,
    pub params: Value,
}

impl Lint {
    /// A numeric parameter (also written as a string).
    pub fn number(&self, key: &str) -> Option<f64> {
        match self.params.get(key)? {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
}

/// Entity type names are PascalCase, page kinds lower-case: both are compared lower-cased.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Declared types: (name, parent), lower-cased.
    types: Vec<(String, Option<String>)>,
    lints: Vec<Lint>,
}

impl Policy {
    pub fn from_config(merged: &Fields) -> Policy {
        let items = |key: &str| match merged.get(key) {
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_object).cloned().collect(),
            _ => Vec::new(),
        };
        let types = items("entityTypes")
            .iter()
            .filter_map(|t| {
                let name = frontmatter::get_str(t, "name")?.to_lowercase();
                Some((name, frontmatter::get_str(t, "parent").map(|p| p.to_lowercase())))
            })
            .collect();
        let lints = items("lints")
            .iter()
            .filter_map(|l| {
                Some(Lint {
                    id: frontmatter::get_str(l, "id")?,
                    kind: frontmatter::get_str(l, "kind")?,
                    applies_to: frontmatter::get_str(l, "appliesTo").unwrap_or_else(|| "*".into()),
                    severity: frontmatter::get_str(l, "severity").and_then(|s| Severity::from_name(&s)),
                    params: l.get("params").cloned().unwrap_or(Value::Null),
                })
            })
            .collect();
        Policy { types, lints }
    }

    /// Whether the workspace declares entity types at all (then every page kind must be one).
    pub fn declares_types(&self) -> bool {
        !self.types.is_empty()
    }

    pub fn knows_kind(&self, kind: &str) -> bool {
        let k = kind.to_lowercase();
        self.types.iter().any(|(name, _)| *name == k)
    }

    pub fn type_names(&self) -> Vec<&str> {
        self.types.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// Whether any lint of this kind is declared (then it alone decides where the rule runs).
    pub fn configures(&self, lint_kind: &str) -> bool {
        self.lints.iter().any(|l| l.kind == lint_kind)
    }

    /// Lints of `lint_kind` that apply to a page of `kind`.
    pub fn lints_for<'a>(&'a self, lint_kind: &'a str, kind: Option<&'a str>) -> impl Iterator<Item = &'a Lint> + 'a {
        self.lints.iter().filter(move |l| l.kind == lint_kind && self.applies(&l.applies_to, kind))
    }

    /// `*` applies to every page; a type name to pages of that kind or of a subtype of it
    /// (`parent:`), followed a bounded number of steps so a parent cycle cannot hang.
    fn applies(&self, applies_to: &str, kind: Option<&str>) -> bool {
        if applies_to.trim() == "*" {
            return true;
        }
        let target = applies_to.trim().to_lowercase();
        let mut current = kind.map(str::to_lowercase);
        for _ in 0..=self.types.len() {
            let Some(k) = current else { return false };
            if k == target {
                return true;
            }
            current = self.types.iter().find(|(n, _)| *n == k).and_then(|(_, p)| p.clone());
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy() -> Policy {
        let v = json!({
            "entityTypes": [{"name": "Person"}, {"name": "Investor", "parent": "Person"}, {"name": "Concept"}],
            "lints": [
                {"id": "src", "kind": "require-source", "appliesTo": "Person", "severity": "error"},
                {"id": "age", "kind": "max-age", "appliesTo": "*", "params": {"days": "90"}},
                {"kind": "max-age"},
            ]
        });
        Policy::from_config(v.as_object().unwrap())
    }

    #[test]
    fn kinds_match_types_case_insensitively() {
        let p = policy();
        assert!(p.declares_types());
        assert!(p.knows_kind("investor"));
        assert!(!p.knows_kind("deal"));
        assert_eq!(p.type_names(), ["person", "investor", "concept"]);
    }

    #[test]
    fn lints_apply_to_subtypes_and_everything_with_star() {
        let p = policy();
        let ids = |lint: &'static str, kind: Option<&'static str>| -> Vec<String> {
            p.lints_for(lint, kind).map(|l| l.id.clone()).collect()
        };
        assert_eq!(ids("require-source", Some("investor")), ["src"]);
        assert_eq!(ids("require-source", Some("person")), ["src"]);
        assert!(ids("require-source", Some("concept")).is_empty());
        assert!(ids("require-source", None).is_empty());
        assert_eq!(ids("max-age", Some("concept")), ["age"], "a lint without an id is ignored");
        assert_eq!(p.lints_for("max-age", None).next().unwrap().number("days"), Some(90.0));
        assert_eq!(p.lints_for("require-source", Some("person")).next().unwrap().severity, Some(Severity::Error));
        assert!(p.configures("require-source") && !p.configures("min-confidence"));
    }
}
