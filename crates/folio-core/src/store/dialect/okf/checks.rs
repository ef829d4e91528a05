//! The per-file lint checks on an OKF concept, made while its fields are in hand (lint never
//! reads a file twice): `missing-type`, `missing-description`, `legacy-trigger`,
//! `invalid-field` (status, ISO 8601 timestamps) and `stale` (`stale_after` in the past); and
//! `reserved-file`, the structure OKF gives a `log.md` (§9).
use std::borrow::Cow;

use time::OffsetDateTime;

use crate::store::model::entity::{Problem, rule};
use crate::store::read::frontmatter::{self, Block, Val, View};

/// OKF v0.2 `status` values (absent means `stable`).
pub const STATUSES: &[&str] = &["draft", "stable", "deprecated"];

/// What the checks need to know about one concept file.
pub struct Concept<'a> {
    /// The whole file text.
    pub text: &'a str,
    pub fields: &'a View<'a>,
    pub has_frontmatter: bool,
    /// Problems already found reading it: without readable frontmatter, field checks are moot.
    pub problems: &'a [Problem],
}

/// Every per-file finding for an OKF concept, positioned at the key it is about.
pub fn check(c: &Concept, now: OffsetDateTime) -> Vec<Problem> {
    let unreadable = c.problems.iter().any(|p| {
        matches!(p.rule, rule::INVALID_FRONTMATTER | rule::BINARY | rule::UNREADABLE | rule::LINK_ESCAPES_ROOT)
    });
    if unreadable {
        return Vec::new();
    }
    let mut out = Vec::new();
    if !c.has_frontmatter {
        out.push(Problem::new(
            rule::MISSING_TYPE,
            "no frontmatter block: an OKF concept needs one with a `type`",
            1,
            1,
        ));
        return out;
    }
    let at = |key: &str| key_position(c.text, key);
    let f = c.fields;
    match f.get("type") {
        Some(v @ (Val::List(_) | Val::Map(_))) => {
            let (l, col) = at("type");
            out.push(Problem::new(rule::INVALID_FIELD, format!("`type` is a {}, not a string", v.type_name()), l, col));
        }
        _ if !f.has_text("type") => {
            let (l, col) = at("type");
            out.push(Problem::new(rule::MISSING_TYPE, "`type` is missing or empty (the one key OKF requires)", l, col));
        }
        _ => {}
    }
    match (f.has_text("description"), f.has_text("trigger")) {
        (false, false) => {
            let (l, col) = at("description");
            out.push(Problem::new(rule::MISSING_DESCRIPTION, "no `description` (nor a legacy `trigger`)", l, col));
        }
        (false, true) => {
            let (l, col) = at("trigger");
            let key = frontmatter::top_level_key(c.text, "trigger");
            out.push(
                Problem::new(rule::LEGACY_TRIGGER, "`trigger` is the legacy name of `description`", l, col)
                    .at_bytes(key),
            );
        }
        _ => {}
    }
    if let Some(v) = f.get("status") {
        let ok = matches!(v, Val::Str(s) if STATUSES.contains(&s.trim()));
        if !ok {
            let (l, col) = at("status");
            out.push(Problem::new(
                rule::INVALID_FIELD,
                format!("`status` is `{}`; OKF v0.2 defines draft, stable, deprecated", v.scalar_text()),
                l,
                col,
            ));
        }
    }
    each_timestamp(f, |key, value| {
        if parse_timestamp(value).is_none() {
            let top = key.split(['.', '[']).next().unwrap_or(&key);
            let (l, col) = at(top);
            out.push(Problem::new(
                rule::INVALID_FIELD,
                format!("`{key}` is `{}`, not an ISO 8601 date or datetime", value.scalar_text()),
                l,
                col,
            ));
        }
    });
    if let Some(when) = f.get("stale_after").and_then(parse_timestamp)
        && when <= now
    {
        let (l, col) = at("stale_after");
        let shown = f.get("stale_after").map(Val::scalar_text).unwrap_or_default();
        out.push(Problem::new(rule::STALE, format!("stale since {shown} (`stale_after` is in the past)"), l, col));
    }
    out
}

/// What breaks the structure OKF v0.2 gives the reserved `log.md` (§9; §11 makes it part of
/// conformance): no frontmatter (okf-cli's `okf validate` rejects one: "log.md must not contain
/// frontmatter"), date headings `## YYYY-MM-DD` (a MUST), the groups newest first. `index.md`
/// frontmatter is `reserved-name`'s (a catalog folio would write over).
pub fn reserved_file(rel: &str, text: &str) -> Vec<(u32, String)> {
    if crate::store::model::relpath::file_name(rel) != super::spec::LOG {
        return Vec::new();
    }
    let mut out = Vec::new();
    let body_from = match frontmatter::locate(text) {
        Block::Closed { body_start, inner, .. } => {
            let keys: Vec<String> = frontmatter::parse_yaml(&text[inner]).map(|f| f.keys().cloned().collect()).unwrap_or_default();
            let keys = if keys.is_empty() { String::new() } else { format!(" ({})", keys.join(", ")) };
            out.push((1, format!("`log.md` carries frontmatter{keys}: an OKF log is date headings and entries only (§9)")));
            body_start
        }
        _ => 0,
    };
    let first_line = text[..body_from].lines().count() as u32 + 1;
    let mut previous: Option<(time::Date, &str)> = None;
    let mut in_fence = false;
    for (n, line) in (first_line..).zip(text[body_from..].lines()) {
        let l = line.trim_end();
        if l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
        }
        let Some(heading) = l.strip_prefix("## ").filter(|_| !in_fence) else { continue };
        let heading = heading.trim();
        let Ok(date) = time::Date::parse(heading, time::macros::format_description!("[year]-[month]-[day]")) else {
            out.push((n, format!("`## {heading}`: an OKF log's date headings are `YYYY-MM-DD` (§9)")));
            continue;
        };
        if let Some((before, shown)) = previous
            && date > before
        {
            out.push((n, format!("`## {heading}` follows `## {shown}`: an OKF log's date groups go newest first (§9)")));
        }
        previous = Some((date, heading));
    }
    out
}

/// The timestamp-valued keys OKF defines, as (display name, value), handed to `each` (not
/// collected: a `Vec` per concept was one allocation of every load).
fn each_timestamp<'v>(f: &'v View, mut each: impl FnMut(Cow<'static, str>, &'v Val<'v>)) {
    for key in ["timestamp", "stale_after"] {
        if let Some(v) = f.get(key) {
            each(Cow::Borrowed(key), v);
        }
    }
    if let Some(Val::Map(g)) = f.get("generated")
        && let Some(v) = g.get("at")
    {
        each(Cow::Borrowed("generated.at"), v);
    }
    // A bare `verified` mapping counts as a one-element list (v0.2 §5.3).
    let verified: &[Val] = match f.get("verified") {
        Some(Val::List(items)) => items,
        Some(one @ Val::Map(_)) => std::slice::from_ref(one),
        _ => &[],
    };
    for (i, v) in verified.iter().enumerate() {
        if let Val::Map(m) = v
            && let Some(at) = m.get("at")
        {
            each(Cow::Owned(format!("verified[{i}].at")), at);
        }
    }
}

/// An ISO 8601 date or datetime as an instant. A date is its midnight UTC and a datetime
/// without an offset is read as UTC, so an imprecise `stale_after` still ages.
pub fn parse_timestamp(v: &Val) -> Option<OffsetDateTime> {
    crate::store::model::timestamp::parse_instant(v.as_str()?)
}

/// 1-based (line, column) of a top-level `key:` inside the frontmatter block; the block's
/// first line when the key is absent.
fn key_position(text: &str, key: &str) -> (u32, u32) {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return (1, 1) };
    for (line, l) in (2..).zip(text[inner].lines()) {
        if let Some(rest) = l.strip_prefix(key)
            && rest.trim_start().starts_with(':')
        {
            return (line, 1);
        }
    }
    (1, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Vec<(&'static str, u32)> {
        let (fields, has) = match frontmatter::locate(text) {
            Block::Closed { inner, .. } => (frontmatter::parse_yaml_view(&text[inner]).unwrap(), true),
            _ => (View::new(), false),
        };
        let now = crate::store::model::timestamp::parse_instant("2026-06-01T00:00:00Z").unwrap();
        check(&Concept { text, fields: &fields, has_frontmatter: has, problems: &[] }, now)
            .into_iter()
            .map(|p| (p.rule, p.line))
            .collect()
    }

    #[test]
    fn a_complete_concept_has_no_findings() {
        let t = "---\ntype: Metric\ndescription: d\nstatus: stable\ntimestamp: '2026-05-28T22:53:05+00:00'\n\
                 generated: { by: x, at: 2026-06-30T14:00:00Z }\nverified: { by: human:a, at: 2026-07-01 }\n\
                 stale_after: 2026-12-31T00:00:00Z\n---\nbody\n";
        assert_eq!(run(t), []);
    }

    #[test]
    fn missing_type_and_description() {
        assert_eq!(run("---\ntitle: x\n---\n"), [(rule::MISSING_TYPE, 1), (rule::MISSING_DESCRIPTION, 1)]);
        assert_eq!(run("---\ntype: ''\ndescription: d\n---\n"), [(rule::MISSING_TYPE, 2)]);
        assert_eq!(run("no frontmatter\n"), [(rule::MISSING_TYPE, 1)]);
        assert_eq!(run("---\ntype: [a]\ndescription: d\n---\n"), [(rule::INVALID_FIELD, 2)]);
    }

    #[test]
    fn legacy_trigger_is_its_own_finding() {
        assert_eq!(run("---\ntype: T\ntrigger: when x\n---\n"), [(rule::LEGACY_TRIGGER, 3)]);
        // The key's bytes are located for the fix, which then need not read the file.
        let text = "---\ntype: T\ntrigger: when x\n---\n";
        let fields = frontmatter::parse_yaml_view(&text[4..28]).unwrap();
        let now = crate::store::model::timestamp::parse_instant("2026-06-01T00:00:00Z").unwrap();
        let found = check(&Concept { text, fields: &fields, has_frontmatter: true, problems: &[] }, now);
        assert_eq!(found.iter().map(|p| p.bytes.clone()).collect::<Vec<_>>(), [Some(12..19)]);
        assert_eq!(run("---\ntype: T\ntrigger: when x\ndescription: d\n---\n"), []);
    }

    #[test]
    fn unknown_status_and_bad_timestamps_are_invalid_fields() {
        assert_eq!(run("---\ntype: T\ndescription: d\nstatus: final\n---\n"), [(rule::INVALID_FIELD, 4)]);
        let t = "---\ntype: T\ndescription: d\ntimestamp: yesterday\ngenerated: {at: 12}\n\
                 verified:\n  - {by: a, at: '2026-07-01 09:00'}\n---\n";
        assert_eq!(run(t), [(rule::INVALID_FIELD, 4), (rule::INVALID_FIELD, 5), (rule::INVALID_FIELD, 6)]);
    }

    #[test]
    fn stale_after_in_the_past_is_stale() {
        assert_eq!(run("---\ntype: T\ndescription: d\nstale_after: 2026-01-01T00:00:00Z\n---\n"), [(rule::STALE, 4)]);
        assert_eq!(run("---\ntype: T\ndescription: d\nstale_after: 2026-01-01\n---\n"), [(rule::STALE, 4)]);
        assert_eq!(run("---\ntype: T\ndescription: d\nstale_after: 2027-01-01T00:00:00+02:00\n---\n"), []);
    }

    #[test]
    fn a_log_is_date_headings_newest_first_without_frontmatter() {
        let good = "# Bundle history\n\n## 2026-07-01\n\n- **Verified** x\n\n## 2026-06-30\n* **Update**: y\n";
        assert_eq!(reserved_file("log.md", good), []);
        assert_eq!(reserved_file("tables/log.md", good), [], "a log.md at any level");
        assert_eq!(reserved_file("index.md", "---\ntype: Index\n---\n"), [], "index.md is reserved-name's");
        // acme_retail's log.md: `okf validate` says "log.md must not contain frontmatter".
        let acme = "---\ntype: Log\ntitle: Acme Retail bundle history\n---\n\n# Bundle history\n\n## 2026-07-01\n\n- x\n";
        let found = reserved_file("log.md", acme);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 1);
        assert!(found[0].1.contains("frontmatter (type, title)"), "{found:?}");
        let bad = "# Log\n\n## 2026-05-01\n- a\n\n## May 3rd\n- b\n\n## 2026-06-01\n- c\n\n```\n## not a heading\n```\n";
        let found: Vec<u32> = reserved_file("log.md", bad).into_iter().map(|(l, _)| l).collect();
        assert_eq!(found, [6, 9], "a heading that is no date, then a group older-first");
    }

    #[test]
    fn nothing_is_checked_when_the_frontmatter_is_broken() {
        let p = [Problem::new(rule::INVALID_FRONTMATTER, "x", 1, 1)];
        let now = OffsetDateTime::now_utc();
        assert!(
            check(&Concept { text: "---\n[", fields: &View::new(), has_frontmatter: false, problems: &p }, now)
                .is_empty()
        );
    }
}
