//! Per-file checks of an opendray node against the enums of opendray's schema
//! (`0036_knowledge_nodes.sql`, `knowledge.go`): what the database would have refused.
use super::EDGE_TYPES;
use crate::store::model::entity::{Edge, Problem, rule};
use crate::store::read::frontmatter::view::{Val, View};

pub const KINDS: &[&str] = &["entity", "fact", "playbook", "skill"];
pub const ENTITY_TYPES: &[&str] = &["service", "host", "project", "tool", "decision", "tech", "person"];
pub const SCOPES: &[&str] = &["project", "domain", "global"];
pub const MATURITIES: &[&str] = &["candidate", "fact", "playbook", "skill"];
pub const LIFECYCLES: &[&str] = &["pending-review", "active", "stale", "auto-disabled"];

/// Problems of one node's frontmatter, whose typed edges are `edges` (`edges_from_view`).
/// `text` is the whole file; the frontmatter's inner text starts on line `fm_first_line`,
/// which is where problems are positioned.
pub fn check_node(f: &View, id: &str, edges: &[Edge], text: &str, fm_first_line: u32) -> Vec<Problem> {
    let mut r = Report { text, fm_first_line, at: None, out: Vec::new() };
    let kind = f.str("kind");
    match kind.as_deref() {
        None => r.push(rule::MISSING_TYPE, "id", None, format!("node has no kind (one of {})", KINDS.join(", "))),
        Some(k) if !KINDS.contains(&k) => r.invalid("kind", None, not_one_of("kind", k, KINDS)),
        Some(_) => {}
    }
    match (kind.as_deref(), f.str("entity_type").as_deref()) {
        (Some("entity"), None) => r.invalid("kind", None, "kind is entity but entity_type is missing".into()),
        (Some("entity"), Some(t)) if !ENTITY_TYPES.contains(&t) => {
            r.invalid("entity_type", None, not_one_of("entity_type", t, ENTITY_TYPES))
        }
        (Some(k), Some(_)) if k != "entity" => {
            r.invalid("entity_type", None, format!("entity_type is only allowed on kind entity, not {k}"))
        }
        _ => {}
    }
    if let Some(s) = f.str("scope") {
        // Appendix A writes `scope: domain:go+proxmox`; the schema splits it into scope + scope_key.
        let (scope, key) = match s.split_once(':') {
            Some((scope, key)) => (scope, Some(key)),
            None => (s.as_str(), None),
        };
        if !SCOPES.contains(&scope) {
            r.invalid("scope", None, not_one_of("scope", scope, SCOPES));
        } else if key.is_some_and(|k| k.trim().is_empty()) {
            r.invalid("scope", None, format!("scope `{s}` names no scope key after the colon"));
        }
    }
    if let Some(m) = f.str("maturity")
        && !MATURITIES.contains(&m.as_str())
    {
        r.invalid("maturity", None, not_one_of("maturity", &m, MATURITIES));
    }
    if let Some(Val::Map(p)) = f.get("provenance")
        && let Some(l) = p.get("lifecycle").map(Val::scalar_text)
        && !LIFECYCLES.contains(&l.as_str())
    {
        r.invalid("lifecycle", Some("provenance"), not_one_of("provenance.lifecycle", &l, LIFECYCLES));
    }
    if let Some(v) = f.get("confidence") {
        match f.f64("confidence") {
            Some(c) if (0.0..=1.0).contains(&c) => {}
            Some(c) => r.invalid("confidence", None, format!("confidence {c} is outside 0..1")),
            None => r.invalid("confidence", None, format!("confidence is a {}, not a number", v.type_name())),
        }
    }
    match f.get("relations") {
        None => {}
        Some(Val::Map(rel)) => {
            for key in rel.keys().filter(|k| !EDGE_TYPES.contains(k)) {
                r.invalid(key, Some("relations"), not_one_of("edge type", key, EDGE_TYPES));
            }
        }
        Some(other) => r.invalid("relations", None, format!("relations is a {}, not a mapping", other.type_name())),
    }
    // The edge table's primary key forbids self-edges.
    for edge in edges {
        if edge.target == id {
            r.invalid(&edge.kind, None, format!("{} edge points at the node itself", edge.kind));
        }
    }
    r.out
}

/// Problems found so far, positioned at the key they are about.
struct Report<'a> {
    text: &'a str,
    fm_first_line: u32,
    /// Made for the first problem: most nodes have none, and splitting every node's
    /// frontmatter into lines would be paid by all of them.
    at: Option<KeyLocator<'a>>,
    out: Vec<Problem>,
}

impl Report<'_> {
    fn push(&mut self, rule: &'static str, key: &str, parent: Option<&str>, message: String) {
        let (text, first) = (self.text, self.fm_first_line);
        let (line, col) = self.at.get_or_insert_with(|| KeyLocator::new(text, first)).find(key, parent);
        self.out.push(Problem::new(rule, message, line, col));
    }

    fn invalid(&mut self, key: &str, parent: Option<&str>, message: String) {
        self.push(rule::INVALID_FIELD, key, parent, message);
    }
}

fn not_one_of(what: &str, value: &str, allowed: &[&str]) -> String {
    format!("{what} `{value}` is not one of {}", allowed.join(", "))
}

/// Finds where a key is written in the frontmatter, to position problems.
struct KeyLocator<'a> {
    /// (1-based file line, line text) of each frontmatter line.
    lines: Vec<(u32, &'a str)>,
    first_line: u32,
}

impl<'a> KeyLocator<'a> {
    fn new(text: &'a str, fm_first_line: u32) -> Self {
        let lines = text
            .lines()
            .enumerate()
            .skip(fm_first_line.saturating_sub(1) as usize)
            .take_while(|(_, l)| l.trim_end() != "---")
            .map(|(i, l)| (i as u32 + 1, l))
            .collect();
        KeyLocator { lines, first_line: fm_first_line }
    }

    /// (line, column) of `key:` at the top level (else anywhere), or after its `parent:` line
    /// when nested. Falls back to the parent's line, then to the first frontmatter line.
    fn find(&self, key: &str, parent: Option<&str>) -> (u32, u32) {
        let top = |k: &str| self.lines.iter().position(|(_, l)| is_key_line(l, k));
        match parent {
            None => top(key)
                .map(|i| (self.lines[i].0, 1))
                .or_else(|| self.lines.iter().find_map(|(n, l)| find_key_in(l, key).map(|c| (*n, c as u32 + 1))))
                .unwrap_or((self.first_line, 1)),
            Some(p) => match top(p) {
                Some(start) => self.lines[start..]
                    .iter()
                    .find_map(|(n, l)| find_key_in(l, key).map(|c| (*n, c as u32 + 1)))
                    .unwrap_or((self.lines[start].0, 1)),
                None => (self.first_line, 1),
            },
        }
    }
}

fn is_key_line(line: &str, key: &str) -> bool {
    line.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with(':'))
}

/// Byte column of `key:` inside a line (block or flow style), not as part of a longer word.
fn find_key_in(line: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = line[from..].find(key).map(|i| i + from) {
        let before_ok = line[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        let after = line[i + key.len()..].trim_start();
        if before_ok && after.starts_with(':') {
            return Some(i);
        }
        from = i + key.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::read::frontmatter::parse_yaml_view;

    /// Rules and lines of the problems of a node written as a whole file.
    fn problems(file: &str) -> Vec<(&'static str, u32)> {
        let inner = file.strip_prefix("---\n").unwrap().split("\n---\n").next().unwrap();
        let f = parse_yaml_view(inner).unwrap();
        let id = f.str("id").unwrap_or_default();
        let edges = crate::store::dialect::edges_from_view(&f, EDGE_TYPES);
        check_node(&f, &id, &edges, file, 2).into_iter().map(|p| (p.rule, p.line)).collect()
    }

    #[test]
    fn a_valid_node_of_every_kind_has_no_problem() {
        for node in [
            "---\nid: h\nkind: entity\nentity_type: host\nscope: global\nmaturity: fact\n---\n",
            "---\nid: f\nkind: fact\nabout: [h]\nconfidence: 0.95\nscope: project\nscope_key: x\n---\n",
            "---\nid: p\nkind: playbook\nscope: domain:go+proxmox\nprovenance: { lifecycle: pending-review }\n---\n",
            "---\nid: s\nkind: skill\nmaturity: skill\nrelations: { derived_from: [p] }\nconfidence: 1\n---\n",
        ] {
            assert_eq!(problems(node), [], "{node}");
        }
    }

    #[test]
    fn missing_and_unknown_kind() {
        assert_eq!(problems("---\nscope: global\nid: x\n---\n"), [(rule::MISSING_TYPE, 3)]);
        assert_eq!(problems("---\nid: x\nkind: note\n---\n"), [(rule::INVALID_FIELD, 3)]);
    }

    #[test]
    fn entity_type_required_iff_entity() {
        assert_eq!(problems("---\nid: x\nkind: entity\n---\n"), [(rule::INVALID_FIELD, 3)]);
        assert_eq!(problems("---\nid: x\nkind: entity\nentity_type: server\n---\n"), [(rule::INVALID_FIELD, 4)]);
        assert_eq!(problems("---\nid: x\nkind: fact\nentity_type: host\n---\n"), [(rule::INVALID_FIELD, 4)]);
    }

    #[test]
    fn enums_and_ranges() {
        assert_eq!(problems("---\nid: x\nkind: fact\nscope: team\n---\n"), [(rule::INVALID_FIELD, 4)]);
        assert_eq!(problems("---\nid: x\nkind: fact\nscope: 'domain:'\n---\n"), [(rule::INVALID_FIELD, 4)]);
        assert_eq!(problems("---\nid: x\nkind: fact\nmaturity: confirmed\n---\n"), [(rule::INVALID_FIELD, 4)]);
        assert_eq!(problems("---\nid: x\nkind: fact\nconfidence: 1.2\n---\n"), [(rule::INVALID_FIELD, 4)]);
        assert_eq!(problems("---\nid: x\nkind: fact\nconfidence: -0.1\n---\n"), [(rule::INVALID_FIELD, 4)]);
        assert_eq!(problems("---\nid: x\nkind: fact\nconfidence: high\n---\n"), [(rule::INVALID_FIELD, 4)]);
        let p = problems("---\nid: x\nkind: fact\nprovenance:\n  source: human\n  lifecycle: retired\n---\n");
        assert_eq!(p, [(rule::INVALID_FIELD, 6)]);
    }

    #[test]
    fn unknown_relation_types_and_self_edges() {
        let p = problems("---\nid: x\nkind: fact\nrelations:\n  uses: [a]\n  mentions: [b]\n---\n");
        assert_eq!(p, [(rule::INVALID_FIELD, 6)]);
        assert_eq!(problems("---\nid: x\nkind: fact\nrelations: [a, b]\n---\n"), [(rule::INVALID_FIELD, 4)]);
        assert_eq!(problems("---\nid: x\nkind: fact\nsupersedes: [x]\n---\n"), [(rule::INVALID_FIELD, 4)]);
    }

    #[test]
    fn keys_are_found_in_flow_maps_and_not_inside_longer_words() {
        assert_eq!(find_key_in("relations: { uses: [a], reuses: [b] }", "uses"), Some(13));
        assert_eq!(find_key_in("  reuses: [b]", "uses"), None);
    }
}
