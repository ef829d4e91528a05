//! Per-file checks of one evolve entity, made while its fields are in hand. Each problem points
//! at the frontmatter line it is about (line 1 when the line is missing altogether).
use crate::store::model::entity::{Problem, rule};
use crate::store::read::frontmatter::view::View;
use crate::store::read::frontmatter::{self, Block};

/// One frontmatter line as evolve's reader sees it.
struct FmLine<'a> {
    /// 1-based line in the file.
    line: u32,
    text: &'a str,
}

/// The problems of an entity file whose text is `text` and whose fields are `fields`.
pub fn check(text: &str, fields: &View) -> Vec<Problem> {
    let fm = frontmatter_lines(text);
    let mut problems = malformed_lines(&fm);
    let key_line = |key: &str| last_line_of(&fm, key).unwrap_or((1, 1));

    // Presence alone is asked here: `has_text` answers without copying the value.
    if !fields.has_text("type") {
        let (line, col) = key_line("type");
        let why = if fm.is_empty() { "no frontmatter with a `type`" } else { "no `type` (or an empty one)" };
        problems.push(Problem::new(
            rule::MISSING_TYPE,
            format!("{why}: evolve's recall skips entities without one"),
            line,
            col,
        ));
    }

    match (fields.has_text("description"), fields.has_text("trigger")) {
        (false, false) => {
            let (line, col) =
                last_line_of(&fm, "description").or_else(|| last_line_of(&fm, "trigger")).unwrap_or((1, 1));
            problems.push(Problem::new(
                rule::MISSING_DESCRIPTION,
                "neither `description` nor the legacy `trigger`: nothing says when a future session should recall this",
                line,
                col,
            ));
        }
        (false, true) => {
            let (line, col) = key_line("trigger");
            problems.push(
                Problem::new(
                    rule::LEGACY_TRIGGER,
                    "`trigger` is evolve's legacy name for `description` (the OKF alignment renames it)",
                    line,
                    col,
                )
                .at_bytes(frontmatter::top_level_key(text, "trigger")),
            );
        }
        _ => {}
    }

    if let Some(flagged_at) = fields.str("retention_flagged_at") {
        let (line, col) = key_line("retention_flagged_at");
        let mut why = Vec::new();
        if let Some(reason) = fields.str("retention_reason") {
            why.push(format!("reason: {reason}"));
        }
        if let Some(rule_name) = fields.str("retention_rule") {
            why.push(format!("rule: {rule_name}"));
        }
        let why = if why.is_empty() { String::new() } else { format!(" ({})", why.join(", ")) };
        problems.push(Problem::new(
            rule::STALE,
            format!("flagged by evolve's retention on {flagged_at}{why}"),
            line,
            col,
        ));
    }

    for key in ["published_at", "retention_flagged_at"] {
        if let Some(value) = fields.str(key).filter(|v| !is_iso_timestamp(v)) {
            let (line, _) = key_line(key);
            let col = value_column(&fm, line);
            problems.push(Problem::new(
                rule::INVALID_FIELD,
                format!("`{key}` is `{value}`, not an ISO 8601 timestamp (evolve writes e.g. 2026-04-27T18:55:21Z)"),
                line,
                col,
            ));
        }
    }
    problems
}

/// The lines inside the frontmatter block, numbered as in the file.
fn frontmatter_lines(text: &str) -> Vec<FmLine<'_>> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return Vec::new() };
    // The block's inner text starts on file line 2 (line 1 is the opening `---`).
    crate::store::model::lines::lines(&text[inner])
        .enumerate()
        .map(|(i, t)| FmLine { line: i as u32 + 2, text: t })
        .collect()
}

/// The key of a `key: value` line, as evolve's `partition(":")` splits it.
fn key_of(line: &str) -> Option<&str> {
    crate::store::model::lines::split_once_ascii(line, b':').map(|(k, _)| k.trim())
}

/// Line and column of the last line setting `key` (the one evolve keeps).
fn last_line_of(fm: &[FmLine], key: &str) -> Option<(u32, u32)> {
    fm.iter().rev().find(|l| key_of(l.text) == Some(key)).map(|l| (l.line, 1))
}

/// Column where the value of the `key: value` line at `line` starts.
fn value_column(fm: &[FmLine], line: u32) -> u32 {
    let Some(l) = fm.iter().find(|l| l.line == line) else { return 1 };
    let Some(colon) = l.text.find(':') else { return 1 };
    let after = &l.text[colon + 1..];
    (colon + 1 + (after.len() - after.trim_start().len())) as u32 + 1
}

/// Lines evolve's reader does not read as intended: no colon or no key (it drops them
/// silently), an indented line or a key with spaces (a wrapped value read as a field), or a
/// key set twice.
fn malformed_lines(fm: &[FmLine]) -> Vec<Problem> {
    let mut problems = Vec::new();
    // foldhash: a table per file, its keys the file's few field names (SipHash was most of it).
    let mut first_seen: std::collections::HashMap<&str, u32, foldhash::fast::RandomState> = Default::default();
    for l in fm {
        if crate::store::model::lines::is_blank(l.text) {
            continue;
        }
        let message = match key_of(l.text) {
            None => Some(format!("`{}` is not a `key: value` line; evolve's reader silently drops it", l.text.trim())),
            Some("") => Some("a value without a key; evolve's reader silently drops it".to_string()),
            // An indented line or a key with spaces is a value wrapped onto a new line.
            Some(key) if key.contains(char::is_whitespace) || l.text.starts_with([' ', '\t']) => Some(format!(
                "`{}` looks like a value wrapped onto a new line; evolve reads it as a field named `{key}`",
                l.text.trim()
            )),
            Some(key) => match first_seen.get(key) {
                Some(first) => Some(format!("`{key}` is set again (first on line {first}); evolve keeps this one")),
                None => {
                    first_seen.insert(key, l.line);
                    None
                }
            },
        };
        if let Some(message) = message {
            problems.push(Problem::new(rule::INVALID_FRONTMATTER, message, l.line, 1));
        }
    }
    problems
}

/// An ISO 8601 date and time, with or without an offset (evolve writes UTC with `Z`).
pub fn is_iso_timestamp(value: &str) -> bool {
    crate::store::model::timestamp::is_datetime(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::dialect::parse_key_values;
    use crate::store::read::frontmatter::Fields;

    fn problems(text: &str) -> Vec<(&'static str, u32)> {
        let fields = match frontmatter::locate(text) {
            Block::Closed { inner, .. } => parse_key_values(&text[inner]),
            _ => Fields::new(),
        };
        check(text, &View::of(&fields)).into_iter().map(|p| (p.rule, p.line)).collect()
    }

    const GOOD: &str = "---\ntype: guideline\ndescription: When x\npublished_at: 2026-04-27T18:55:21Z\n---\nfact\n";

    #[test]
    fn a_clean_entity_has_no_problems() {
        assert_eq!(problems(GOOD), []);
    }

    #[test]
    fn missing_type() {
        assert_eq!(problems("---\ndescription: d\n---\n"), [("missing-type", 1)]);
        assert_eq!(problems("---\ndescription: d\ntype:\n---\n"), [("missing-type", 3)]);
        assert_eq!(problems("no frontmatter\n"), [("missing-type", 1), ("missing-description", 1)]);
        assert!(!problems(GOOD).iter().any(|p| p.0 == "missing-type"));
    }

    #[test]
    fn missing_description() {
        assert_eq!(problems("---\ntype: guideline\n---\n"), [("missing-description", 1)]);
        assert_eq!(problems("---\ntype: guideline\ntrigger:  \n---\n"), [("missing-description", 3)]);
        assert!(!problems(GOOD).iter().any(|p| p.0 == "missing-description"));
    }

    #[test]
    fn legacy_trigger_points_at_the_trigger_line() {
        assert_eq!(problems("---\ntype: guideline\ntrigger: When a: b\n---\n"), [("legacy-trigger", 3)]);
        // The key's bytes are located for the fix, which then need not read the file.
        let text = "---\ntype: guideline\ntrigger: When a: b\n---\n";
        let Block::Closed { inner, .. } = frontmatter::locate(text) else { panic!("no frontmatter") };
        let fields = parse_key_values(&text[inner]);
        let located: Vec<_> = check(text, &View::of(&fields)).into_iter().map(|p| p.bytes).collect();
        assert_eq!(located, [Some(20..27)]);
        assert_eq!(problems("---\ntype: g\ndescription: d\ntrigger: t\n---\n"), []);
    }

    #[test]
    fn stale_when_retention_flagged() {
        let t = "---\ntype: g\ndescription: d\nretention_flagged_at: 2026-07-01T00:00:00Z\nretention_reason: age\nretention_rule: stale-guidelines\n---\n";
        let fields = parse_key_values(&t[4..t.len() - 4]);
        let found = check(t, &View::of(&fields));
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].rule, found[0].line), ("stale", 4));
        assert_eq!(
            found[0].message,
            "flagged by evolve's retention on 2026-07-01T00:00:00Z (reason: age, rule: stale-guidelines)"
        );
        assert_eq!(problems(GOOD), []);
    }

    #[test]
    fn malformed_frontmatter_lines() {
        let t = "---\ntype: g\ndescription: When the build\n  fails: retry once\n- a list item\n: orphan value\ntype: h\n---\n";
        assert_eq!(
            problems(t),
            [
                ("invalid-frontmatter", 4),
                ("invalid-frontmatter", 5),
                ("invalid-frontmatter", 6),
                ("invalid-frontmatter", 7)
            ]
        );
        // Blank lines and colons inside values are fine.
        assert_eq!(problems("---\ntype: g\n\ndescription: When a: b: c\n---\n"), []);
    }

    #[test]
    fn published_at_must_be_iso_8601() {
        let t = "---\ntype: g\ndescription: d\npublished_at: 27/04/2026\n---\n";
        let fields = parse_key_values(&t[4..t.len() - 4]);
        let found = check(t, &View::of(&fields));
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].rule, found[0].line, found[0].col), ("invalid-field", 4, 15));
        assert!(is_iso_timestamp("2026-04-27T18:55:21Z"));
        assert!(is_iso_timestamp("2026-08-19T18:23:34.123456Z"));
        assert!(is_iso_timestamp("2026-04-27T18:55:21+02:00"));
        assert!(!is_iso_timestamp("2026-04-27"));
        assert!(!is_iso_timestamp("2026-13-01T00:00:00Z"));
        assert!(!is_iso_timestamp("yesterday"));
    }
}
