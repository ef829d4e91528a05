//! OKF's path-valued fields (SPEC v0.2 §6.2): `sources[].resource`, `executor.resource`,
//! `attester.resource`, `computation` and `resource`. One that names a concept of the bundle
//! is an edge of the bundle graph (§5: "the derivation edge already exists"), so a policy only
//! cited as a source is not an orphan, and a merge or move repoints it.
use crate::store::model::entity::Edge;
use crate::store::read::frontmatter::{Val, View};
use crate::store::read::resolve::normalize;

/// Edges for the concept at `rel` from its path-valued fields that name markdown files.
pub fn edges(fields: &View, rel: &str) -> Vec<Edge> {
    let mut out = Vec::new();
    let mut add = |kind: &str, v: Option<&Val>| {
        if let Some(Val::Str(s)) = v
            && let Some(target) = concept_path(s, rel)
        {
            out.push(Edge { kind: kind.to_string(), target, resolved: None });
        }
    };
    if let Some(Val::List(items)) = fields.get("sources") {
        for item in items {
            if let Val::Map(m) = item {
                add("source", m.get("resource"));
            }
        }
    }
    for key in ["executor", "attester"] {
        if let Some(Val::Map(m)) = fields.get(key) {
            add(key, m.get("resource"));
        }
    }
    add("computation", fields.get("computation"));
    add("resource", fields.get("resource"));
    out
}

/// The bundle path a field's value names, when it is a markdown file inside the bundle:
/// `/x.md` is bundle-absolute, `./x.md` and `../x.md` are relative to the concept's folder,
/// and a bare `x/y.md` is taken from the bundle root, as bundles write it (acme_retail's
/// `sources[].resource: policies/revenue-recognition.md` from `metrics/`).
fn concept_path(value: &str, rel: &str) -> Option<String> {
    let v = value.trim();
    let path = v.split(['#', '?']).next().unwrap_or(v);
    if !path.ends_with(".md") || path.contains("://") || path.contains(':') {
        return None;
    }
    if let Some(abs) = path.strip_prefix('/') {
        return normalize(abs);
    }
    if path.starts_with("./") || path.starts_with("../") {
        let dir = crate::store::model::relpath::parent(rel);
        return normalize(&if dir.is_empty() { path.to_string() } else { format!("{dir}/{path}") });
    }
    normalize(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges_of(yaml: &str, rel: &str) -> Vec<(String, String)> {
        let view = crate::store::read::frontmatter::parse_yaml_view(yaml).unwrap();
        edges(&view, rel).into_iter().map(|e| (e.kind, e.target)).collect()
    }

    #[test]
    fn path_valued_fields_naming_concepts_are_edges() {
        let yaml = "resource: https://console.cloud.google.com/x\nexecutor:\n  resource: skills/run-on-bq.md\n\
                    attester:\n  resource: attesters/check.py\ncomputation: ../computations/revenue.md\n\
                    sources:\n  - id: policy\n    resource: policies/revenue-recognition.md\n\
                    \x20 - { id: abs, resource: /tables/orders.md#cols }\n  - { id: web, resource: https://wiki/x.md }\n\
                    \x20 - { id: scope, resource: \"bigquery:acme.sales\" }\n  - plain-string.md\n";
        assert_eq!(
            edges_of(yaml, "metrics/gross-margin.md"),
            [
                ("source".to_string(), "policies/revenue-recognition.md".to_string()),
                ("source".into(), "tables/orders.md".into()),
                ("executor".into(), "skills/run-on-bq.md".into()),
                ("computation".into(), "computations/revenue.md".into()),
            ]
        );
    }
}
