//! The recall query: fuzzy text plus field filters (`kind:`/`type:`, `tag:`, `status:`/`maturity:`,
//! `scope:`, `has:lint`, `has:pending`). Filters of one field are alternatives (`tag:a tag:b` is
//! either tag); different fields must all hold.
use crate::store::model::entity::Entity;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// What is left for the fuzzy matcher (fzf syntax).
    pub text: String,
    pub kinds: Vec<String>,
    pub tags: Vec<String>,
    pub statuses: Vec<String>,
    pub scopes: Vec<String>,
    pub has_lint: bool,
    pub has_pending: bool,
}

/// What recall knows about an entity besides the entity itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Facts {
    pub has_lint: bool,
}

impl Query {
    pub fn parse(input: &str) -> Query {
        let mut q = Query::default();
        let mut text = Vec::new();
        for word in input.split_whitespace() {
            let Some((key, value)) = word.split_once(':').filter(|(_, v)| !v.is_empty()) else {
                text.push(word);
                continue;
            };
            let value = value.to_lowercase();
            match key.to_lowercase().as_str() {
                "kind" | "type" => q.kinds.push(value),
                "tag" => q.tags.push(value),
                "status" | "maturity" => q.statuses.push(value),
                "scope" => q.scopes.push(value),
                "has" if value == "lint" => q.has_lint = true,
                "has" if value == "pending" => q.has_pending = true,
                _ => text.push(word),
            }
        }
        q.text = text.join(" ");
        q
    }

    pub fn has_filters(&self) -> bool {
        !(self.kinds.is_empty() && self.tags.is_empty() && self.statuses.is_empty() && self.scopes.is_empty())
            || self.has_lint
            || self.has_pending
    }

    /// Nothing to search for: recall lists no results (the overlay shows recent queries).
    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty() && !self.has_filters()
    }

    /// The filter part only, to tell whether a new query needs a new item set.
    pub fn filters_equal(&self, other: &Query) -> bool {
        Query { text: String::new(), ..self.clone() } == Query { text: String::new(), ..other.clone() }
    }

    pub fn accepts(&self, e: &Entity, facts: Facts) -> bool {
        let eq = |wanted: &[String], have: Option<&str>| {
            wanted.is_empty() || have.is_some_and(|h| wanted.iter().any(|w| h.eq_ignore_ascii_case(w)))
        };
        eq(&self.kinds, e.kind.as_deref())
            && eq(&self.statuses, e.status.as_deref())
            && (self.tags.is_empty() || e.tags.iter().any(|t| self.tags.iter().any(|w| t.eq_ignore_ascii_case(w))))
            && (self.scopes.is_empty() || self.scopes.iter().any(|s| in_scope(e, s)))
            && (!self.has_lint || facts.has_lint)
            && (!self.has_pending || e.is_pending())
    }
}

/// A scope is a folder of the store (`scope:computations`) or the first segment of the kind
/// (EloPhanto groups top-level documents by their `scope`, opendray kinds read `entity/…`).
fn in_scope(e: &Entity, scope: &str) -> bool {
    let scope = scope.trim_matches('/');
    let folder = e.path.to_lowercase();
    folder.starts_with(&format!("{scope}/"))
        || e.kind.as_deref().is_some_and(|k| k.split('/').next().is_some_and(|s| s.eq_ignore_ascii_case(scope)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(path: &str, kind: &str, status: &str, tags: &[&str]) -> Entity {
        Entity {
            id: path.trim_end_matches(".md").into(),
            path: path.into(),
            kind: Some(kind.into()),
            status: Some(status.into()),
            tags: tags.iter().map(|&t| t.into()).collect(),
            ..Entity::default()
        }
    }

    #[test]
    fn splits_filters_from_text() {
        let q =
            Query::parse("gross Type:Metric tag:core tag:kpi maturity:draft scope:finance has:lint has:pending x:y");
        assert_eq!(q.text, "gross x:y");
        assert_eq!(q.kinds, ["metric"]);
        assert_eq!(q.tags, ["core", "kpi"]);
        assert_eq!(q.statuses, ["draft"]);
        assert_eq!(q.scopes, ["finance"]);
        assert!(q.has_lint && q.has_pending);
        assert!(Query::parse("  ").is_empty());
        assert!(!Query::parse("kind:a").is_empty());
        assert_eq!(Query::parse("kind:").text, "kind:");
    }

    #[test]
    fn filters_combine() {
        let e = entity("finance/margin.md", "Metric", "draft", &["core", "KPI"]);
        let yes = |q: &str, lint| Query::parse(q).accepts(&e, Facts { has_lint: lint });
        assert!(yes("kind:metric tag:kpi", false));
        assert!(yes("tag:other tag:core", false), "tags of one filter are alternatives");
        assert!(!yes("kind:metric tag:other", false));
        assert!(yes("scope:finance status:draft has:pending", false));
        assert!(!yes("scope:fin", false), "a scope is a whole folder");
        assert!(!yes("has:lint", false));
        assert!(yes("has:lint", true));
        let opendray = entity("x.md", "entity/person", "active", &[]);
        assert!(Query::parse("scope:entity").accepts(&opendray, Facts::default()));
        assert!(!Query::parse("has:pending").accepts(&opendray, Facts::default()));
    }
}
