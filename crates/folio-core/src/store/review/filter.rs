//! Bulk selection: `status:draft kind:table older:30d reason:candidate path:runbooks/` — every
//! term must hold (AND). Applied to queue items, so a bulk verdict only ever touches the inbox.
use super::queue::QueueItem;

#[derive(Debug, Clone, PartialEq)]
enum Term {
    Status(String),
    Kind(String),
    OlderThanDays(i64),
    Reason(String),
    PathPrefix(String),
    /// Who wrote it (`QueueItem::author`), by part: `author:scout` takes `agent:scout`.
    Author(String),
    /// The agent run that wrote it (`QueueItem::session`), by part.
    Session(String),
    Text(String),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    terms: Vec<Term>,
}

impl Filter {
    /// Parse space-separated terms; a word without `key:` matches id or title.
    pub fn parse(text: &str) -> Result<Filter, String> {
        let mut terms = Vec::new();
        for word in text.split_whitespace() {
            let term = match word.split_once(':') {
                Some(("status", v)) => Term::Status(v.to_lowercase()),
                Some(("kind" | "type", v)) => Term::Kind(v.to_lowercase()),
                Some(("reason", v)) => Term::Reason(v.to_lowercase()),
                Some(("path", v)) => Term::PathPrefix(v.to_string()),
                Some(("author" | "by", v)) => Term::Author(v.to_lowercase()),
                Some(("session" | "run", v)) => Term::Session(v.to_lowercase()),
                Some(("older", v)) => Term::OlderThanDays(
                    days(v).ok_or_else(|| format!("`{word}`: expected a number of days, e.g. older:30d"))?,
                ),
                Some((k, _)) if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphabetic()) => {
                    return Err(format!(
                        "`{word}`: unknown filter (status, kind, reason, path, older, author, session)"
                    ));
                }
                _ => Term::Text(word.to_lowercase()),
            };
            terms.push(term);
        }
        Ok(Filter { terms })
    }

    pub fn matches(&self, item: &QueueItem) -> bool {
        self.terms.iter().all(|t| match t {
            Term::Status(s) => item.status.as_deref().is_some_and(|v| v.eq_ignore_ascii_case(s)),
            Term::Kind(k) => item.kind.as_deref().is_some_and(|v| v.eq_ignore_ascii_case(k)),
            Term::OlderThanDays(d) => item.age_days.is_some_and(|a| a > *d),
            Term::Reason(r) => item.reasons.iter().any(|x| x.code() == r),
            Term::PathPrefix(p) => item.path.starts_with(p.as_str()),
            Term::Author(a) => item.author.as_deref().is_some_and(|v| v.to_lowercase().contains(a.as_str())),
            Term::Session(s) => item.session.as_deref().is_some_and(|v| v.to_lowercase().contains(s.as_str())),
            Term::Text(w) => item.id.to_lowercase().contains(w) || item.title.to_lowercase().contains(w),
        })
    }
}

impl Filter {
    /// Whether `matches` reads only where an item goes in the queue (its reasons and age, what
    /// `Builder::decide_into` gives): then a listing picks its items without building them
    /// whole (issue 44).
    pub fn reads_only_placement(&self) -> bool {
        self.terms.iter().all(|t| matches!(t, Term::Reason(_) | Term::OlderThanDays(_)))
    }
}

fn days(v: &str) -> Option<i64> {
    v.strip_suffix('d').unwrap_or(v).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::review::Reason;

    #[test]
    fn every_term_must_hold() {
        let item = QueueItem {
            id: "tables/users".into(),
            title: "Users".into(),
            path: "tables/users.md".into(),
            kind: Some("Table".into()),
            status: Some("draft".into()),
            age_days: Some(45),
            reasons: vec![Reason::Draft],
            ..Default::default()
        };
        assert!(Filter::parse("status:draft kind:table older:30d").unwrap().matches(&item));
        assert!(Filter::parse("reason:draft path:tables/ users").unwrap().matches(&item));
        assert!(!Filter::parse("status:draft older:60d").unwrap().matches(&item));
        assert!(!Filter::parse("reason:candidate").unwrap().matches(&item));
        assert!(Filter::parse("older:soon").is_err());
        let by_scout = QueueItem { author: Some("agent:Scout".into()), ..item.clone() };
        assert!(Filter::parse("author:agent:scout").unwrap().matches(&by_scout));
        assert!(Filter::parse("by:scout").unwrap().matches(&by_scout));
        assert!(!Filter::parse("author:scout").unwrap().matches(&item), "no author, no match");
        let in_run = QueueItem { session: Some("trajectory_2026-04-27T16-17-15.json".into()), ..item.clone() };
        assert!(Filter::parse("session:2026-04-27T16").unwrap().matches(&in_run));
        assert!(!Filter::parse("run:2026-05").unwrap().matches(&in_run));
        assert!(!Filter::parse("session:x").unwrap().matches(&item), "no session, no match");
        assert!(Filter::parse("colour:red").is_err());
        assert!(Filter::parse("").unwrap().matches(&item));
    }

    #[test]
    fn reads_only_placement_when_every_term_is_a_reason_or_an_age() {
        for (text, only) in [
            ("", true),
            ("reason:draft older:30d", true),
            ("reason:draft kind:table", false),
            ("users", false),
            ("author:scout", false),
        ] {
            assert_eq!(Filter::parse(text).unwrap().reads_only_placement(), only, "{text:?}");
        }
    }
}
