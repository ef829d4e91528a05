//! Per-file field checks of one EloPhanto knowledge file: dates and `scope`.
use crate::store::model::entity::{Problem, rule};
use crate::store::read::frontmatter::view::{Val, View};
use crate::store::read::frontmatter::{self, Block};

/// The `scope` values EloPhanto's writer accepts.
pub const SCOPES: &[&str] = &["system", "user", "learned", "plugin"];

/// Problems with the fields of the file whose text is `text` (frontmatter already parsed into
/// `fields`; a frontmatter that does not parse is reported by `parse_markdown`).
pub fn check(text: &str, fields: &View) -> Vec<Problem> {
    let mut problems = Vec::new();
    for key in ["created", "updated"] {
        let Some(value) = fields.get(key).filter(|v| !matches!(v, Val::Null)) else { continue };
        let ok = match value {
            Val::Str(s) => is_iso_date(s.trim()),
            _ => false,
        };
        if !ok {
            let (line, col) = value_position(text, key);
            problems.push(Problem::new(
                rule::INVALID_FIELD,
                format!("`{key}` is {}, not an ISO date (EloPhanto writes YYYY-MM-DD)", shown(value)),
                line,
                col,
            ));
        }
    }
    if let Some(value) = fields.get("scope").filter(|v| !matches!(v, Val::Null)) {
        let known = value.as_str().is_some_and(|s| SCOPES.contains(&s.trim()));
        if !known {
            let (line, col) = value_position(text, "scope");
            problems.push(Problem::new(
                rule::INVALID_FIELD,
                format!("`scope` is {}, not one of {}", shown(value), SCOPES.join(", ")),
                line,
                col,
            ));
        }
    }
    problems
}

/// A value as a message shows it: strings quoted in backticks, other types named.
fn shown(value: &Val) -> String {
    match value {
        Val::Str(s) => format!("`{s}`"),
        Val::Num(n) => format!("`{n}`"),
        other => format!("a {}", other.type_name()),
    }
}

/// `YYYY-MM-DD`, or a full ISO 8601 date-time (EloPhanto's design doc asks for those; its
/// writers emit dates).
pub fn is_iso_date(value: &str) -> bool {
    crate::store::model::timestamp::is_date(value) || crate::store::model::timestamp::is_datetime(value)
}

/// 1-based line and column of the value of a top-level `key:` in the frontmatter block
/// (line 1 when the key is not found as written, e.g. inside a flow mapping).
fn value_position(text: &str, key: &str) -> (u32, u32) {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return (1, 1) };
    for (i, line) in text[inner].lines().enumerate() {
        if let Some(rest) = line.strip_prefix(key).and_then(|r| r.strip_prefix(':')) {
            let col = key.len() + 1 + (rest.len() - rest.trim_start().len()) + 1;
            return (i as u32 + 2, col as u32);
        }
    }
    (1, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::read::frontmatter::Fields;

    fn problems(text: &str) -> Vec<(&'static str, u32, u32)> {
        let fields = match frontmatter::locate(text) {
            Block::Closed { inner, .. } => frontmatter::parse_yaml(&text[inner]).unwrap(),
            _ => Fields::new(),
        };
        check(text, &View::of(&fields)).into_iter().map(|p| (p.rule, p.line, p.col)).collect()
    }

    #[test]
    fn dates_and_scope_as_written_by_elophanto_are_fine() {
        assert_eq!(problems("---\ntitle: A\ncreated: 2026-02-17\nupdated: '2026-03-11'\nscope: learned\n---\n"), []);
        assert_eq!(problems("---\nupdated: 2026-03-11T10:00:00Z\n---\n"), []);
        assert_eq!(problems("# no frontmatter\n"), []);
        assert_eq!(problems("---\ntitle: no dates or scope\n---\n"), []);
    }

    #[test]
    fn dates_that_are_not_iso() {
        assert_eq!(problems("---\ntitle: A\ncreated: 17/02/2026\n---\n"), [("invalid-field", 3, 10)]);
        assert_eq!(problems("---\nupdated: 2026-02-30\n---\n"), [("invalid-field", 2, 10)]);
        assert_eq!(problems("---\ncreated: [2026-02-17]\n---\n"), [("invalid-field", 2, 10)]);
        assert_eq!(problems("---\ncreated: 2026\n---\n"), [("invalid-field", 2, 10)]);
    }

    #[test]
    fn scope_outside_the_enum() {
        assert_eq!(problems("---\nscope: identity\n---\n"), [("invalid-field", 2, 8)]);
        assert_eq!(problems("---\nscope: [user]\n---\n"), [("invalid-field", 2, 8)]);
        for scope in SCOPES {
            assert_eq!(problems(&format!("---\nscope: {scope}\n---\n")), []);
        }
    }

    #[test]
    fn iso_dates() {
        assert!(is_iso_date("2026-02-17"));
        assert!(is_iso_date("2024-02-29"));
        assert!(!is_iso_date("2026-02-29"));
        assert!(!is_iso_date("2026-2-17"));
        assert!(!is_iso_date("Feb 17, 2026"));
    }
}
