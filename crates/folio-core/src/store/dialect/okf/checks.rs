//! The per-file lint checks on an OKF concept, made while its fields are in hand (lint never
//! reads a file twice): `missing-type`, `missing-description`, `legacy-trigger`,
//! `invalid-field` (status, ISO 8601 timestamps) and `stale` (`stale_after` in the past).
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
    fn nothing_is_checked_when_the_frontmatter_is_broken() {
        let p = [Problem::new(rule::INVALID_FRONTMATTER, "x", 1, 1)];
        let now = OffsetDateTime::now_utc();
        assert!(
            check(&Concept { text: "---\n[", fields: &View::new(), has_frontmatter: false, problems: &p }, now)
                .is_empty()
        );
    }
}
