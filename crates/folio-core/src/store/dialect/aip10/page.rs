//! One AIP-10 wiki page (`knowledge.entry/v1`) onto the model, with the per-page checks the
//! spec and the workspace's lints ask for while the fields are in hand.
use crate::store::model::shared_values::shared_list;
use time::OffsetDateTime;

use super::policy::{Lint, Policy};
use crate::store::dialect::{EDGE_KEYS, Grammar, SourceFile, edges_from_view, parse_markdown_view};
use crate::store::model::entity::{Entity, Problem, Severity, rule};
use crate::store::model::lines::{find_double, find_pair};
use crate::store::read::frontmatter::view::{Val, View};
use crate::store::write::catalog;

/// Both spellings in use: the spec text's and the JSON schema's (and every fixture's).
pub const PAGE_SCHEMAS: &[&str] = &["knowledge/v1", "knowledge.entry/v1"];
/// Kinds ADAPTER.md lets go unsourced (derived, synthetic pages).
pub const UNSOURCED_EXEMPT: &[&str] = &["comparison", "timeline"];
/// Longest slug the JSON schema allows.
const MAX_SLUG: usize = 96;
/// Longest catalog summary, in characters.
const MAX_SUMMARY: usize = 200;

/// What the checks need beyond the file: the merged workspace policy and the current time.
pub struct Context<'a> {
    pub policy: &'a Policy,
    pub now: OffsetDateTime,
}

pub fn parse_page(file: &SourceFile, cx: &Context) -> Entity {
    // The fields as a view of the file's text: an owned `serde_json` map per page would copy
    // every key and value of every page (docs/benchmarks.md, "Load figures").
    let p = parse_markdown_view(file, Grammar::Yaml);
    let mut e = p.entity;
    e.id = e.stem().to_string();
    if !file.parseable {
        return e;
    }
    let body = &file.text[(e.body_start as usize).min(file.text.len())..];
    e.description = first_block(body).map(|s| summary(&s)).map(Into::into);
    if !p.has_frontmatter {
        if !e.problems.iter().any(|x| x.rule == rule::INVALID_FRONTMATTER) {
            e.problems.push(Problem::new(
                rule::INVALID_FRONTMATTER,
                "no frontmatter: a wiki page needs schema, slug, kind, title and updated_at",
                1,
                1,
            ));
        }
        return e;
    }
    let f = &p.fields;
    let at = |key: &str| (field_line(file.text, key), 1);
    let mut problems = Vec::new();
    let invalid = |problems: &mut Vec<Problem>, key: &str, message: String| {
        let (line, col) = at(key);
        problems.push(Problem::new(rule::INVALID_FIELD, message, line, col));
    };

    match f.str("slug") {
        Some(slug) => {
            if !valid_slug(&slug) {
                invalid(
                    &mut problems,
                    "slug",
                    format!("slug `{slug}` is not kebab-case ([a-z0-9-], at most {MAX_SLUG} characters)"),
                );
            }
            e.id = slug;
        }
        None => invalid(&mut problems, "slug", format!("no `slug`; the file stem `{}` stands in for it", e.stem())),
    }
    match f.str("schema") {
        Some(s) if PAGE_SCHEMAS.contains(&s.as_str()) => {}
        Some(s) => invalid(&mut problems, "schema", format!("schema `{s}` is not a page schema (knowledge.entry/v1)")),
        None => invalid(&mut problems, "schema", "no `schema` (knowledge.entry/v1)".into()),
    }
    e.kind = f.str("kind").map(Into::into);
    match e.kind.as_deref() {
        None => problems.push(Problem::new(rule::MISSING_TYPE, "no `kind`", 1, 1)),
        Some(k) if cx.policy.declares_types() && !cx.policy.knows_kind(k) => invalid(
            &mut problems,
            "kind",
            format!("kind `{k}` is not one of the workspace's entityTypes ({})", cx.policy.type_names().join(", ")),
        ),
        Some(_) => {}
    }
    e.tags = shared_list(f.list("tags"));
    e.sources = f.list("sources");
    e.confidence = match f.get("confidence") {
        None | Some(Val::Null) => None,
        Some(v) => match f.f64("confidence") {
            Some(c) if (0.0..=1.0).contains(&c) => Some(c),
            Some(c) => {
                invalid(&mut problems, "confidence", format!("confidence {c} is outside 0..1"));
                None
            }
            None => {
                invalid(&mut problems, "confidence", format!("confidence `{}` is not a number", v.scalar_text()));
                None
            }
        },
    };
    e.updated = f.str("updated_at").map(Into::into);
    let updated = match e.updated.as_deref() {
        Some(u) => {
            let parsed = parse_time(u);
            if parsed.is_none() {
                invalid(&mut problems, "updated_at", format!("updated_at `{u}` is not an ISO 8601 date-time"));
            }
            parsed
        }
        None => {
            invalid(&mut problems, "updated_at", "no `updated_at` (it must be set on every write)".into());
            None
        }
    };
    let mut edge_keys: Vec<&str> = EDGE_KEYS.to_vec();
    edge_keys.push("links");
    e.edges = edges_from_view(f, &edge_keys);

    let kind = e.kind.as_deref();
    check_sources(&e, f, cx, &at, &mut problems);
    check_age(f, updated, cx, kind, &at, &mut problems);
    for lint in cx.policy.lints_for("min-confidence", kind) {
        let (Some(min), Some(c)) = (lint.number("min"), e.confidence) else { continue };
        if c < min {
            let (line, col) = at("confidence");
            problems.push(with_lint_severity(
                Problem::new(
                    rule::LOW_CONFIDENCE,
                    format!("confidence {c} is below {min} (lint `{}`)", lint.id),
                    line,
                    col,
                ),
                lint,
            ));
        }
    }
    e.problems.extend(problems);
    e
}

/// `unsourced`: the workspace's `require-source` lints decide where it runs; without any,
/// the ADAPTER floor rule runs on every kind but comparison and timeline.
fn check_sources(e: &Entity, f: &View, cx: &Context, at: &dyn Fn(&str) -> (u32, u32), out: &mut Vec<Problem>) {
    if !e.sources.is_empty() {
        return;
    }
    let kind = e.kind.as_deref().map(str::to_lowercase);
    let exempt = kind.as_deref().is_some_and(|k| UNSOURCED_EXEMPT.contains(&k));
    let (line, col) = if f.get("sources").is_some() { at("sources") } else { (1, 1) };
    if cx.policy.configures("require-source") {
        for lint in cx.policy.lints_for("require-source", e.kind.as_deref()) {
            if exempt && lint.applies_to.trim() == "*" {
                continue;
            }
            let message = format!("no sources (lint `{}`)", lint.id);
            out.push(with_lint_severity(Problem::new(rule::UNSOURCED, message, line, col), lint));
        }
    } else if !exempt {
        out.push(Problem::new(
            rule::UNSOURCED,
            "no sources: every page but comparisons and timelines cites one",
            line,
            col,
        ));
    }
}

/// `key` of a mapping value; `None` for any other value (as `serde_json::Value::get`).
fn field<'v, 'a>(value: Option<&'v Val<'a>>, key: &str) -> Option<&'v Val<'a>> {
    match value? {
        Val::Map(m) => m.get(key),
        _ => None,
    }
}

/// `stale`: older than a `max-age` lint allows, or marked stale by the wiki's own lint pass.
fn check_age(
    f: &View,
    updated: Option<OffsetDateTime>,
    cx: &Context,
    kind: Option<&str>,
    at: &dyn Fn(&str) -> (u32, u32),
    out: &mut Vec<Problem>,
) {
    let before = out.len();
    for (message, severity) in updated.map(|u| overdue(u, cx, kind)).unwrap_or_default() {
        let (line, col) = at("updated_at");
        let p = Problem::new(rule::STALE, message, line, col);
        out.push(match severity {
            Some(s) => p.with_severity(s),
            None => p,
        });
    }
    let marked = field(field(f.get("metadata"), "lint"), "stale");
    if out.len() == before && marked == Some(&Val::Bool(true)) {
        let since = field(f.get("metadata"), "lint").and_then(|l| field(Some(l), "stale_since")).map(Val::scalar_text);
        let message = match since {
            Some(s) => format!("{MARKED_STALE} (since {s})"),
            None => MARKED_STALE.to_string(),
        };
        let (line, col) = at("metadata");
        out.push(Problem::new(rule::STALE, message, line, col));
    }
}

/// How the finding for a page the wiki's own lint pass marked stale begins.
const MARKED_STALE: &str = "marked stale by the wiki's lint pass";

/// The `max-age` lints a page of `kind` updated at `updated` breaks at `cx.now`, with their
/// messages: the only part of a page's problems that the clock alone changes.
fn overdue(updated: OffsetDateTime, cx: &Context, kind: Option<&str>) -> Vec<(String, Option<Severity>)> {
    let age_seconds = (cx.now - updated).whole_seconds();
    let age_days = age_seconds / 86_400;
    cx.policy
        .lints_for("max-age", kind)
        .filter_map(|lint| {
            let days = lint.number("days")?;
            (age_seconds as f64 > days * 86_400.0).then(|| {
                (format!("last updated {age_days} days ago, more than {days} (lint `{}`)", lint.id), lint.severity)
            })
        })
        .collect()
}

/// Whether `e` (a page parsed from bytes that have not changed since) would break other
/// `max-age` lints at `cx.now`, or the same ones by another number of days: its `stale`
/// findings other than the marked one are compared with those `overdue` gives now.
pub fn outdated(e: &Entity, cx: &Context) -> bool {
    if !cx.policy.configures("max-age") {
        return false;
    }
    let Some(updated) = e.updated.as_deref().and_then(parse_time) else { return false };
    let now = overdue(updated, cx, e.kind.as_deref());
    let then = e.problems.iter().filter(|p| p.rule == rule::STALE && !p.message.starts_with(MARKED_STALE));
    !now.iter().map(|(m, _)| m.as_str()).eq(then.map(|p| p.message.as_str()))
}

fn with_lint_severity(p: Problem, lint: &Lint) -> Problem {
    match lint.severity {
        Some(s) => p.with_severity(s),
        None => p,
    }
}

/// Kebab-case per the spec: `[a-z0-9-]+`, no `/`, bounded as the JSON schema bounds it.
pub fn valid_slug(slug: &str) -> bool {
    !slug.is_empty()
        && slug.len() <= MAX_SLUG
        && slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// An ISO 8601 instant: with an offset or `Z`, or without (read as UTC), or a bare date.
pub fn parse_time(s: &str) -> Option<OffsetDateTime> {
    crate::store::model::timestamp::parse_instant(s)
}

/// 1-based file line of a top-level frontmatter key (line 1 when not found).
fn field_line(text: &str, key: &str) -> u32 {
    let prefix = format!("{key}:");
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim_end() == "---" {
            break;
        }
        if line.starts_with(&prefix) {
            return i as u32 + 1;
        }
    }
    1
}

/// The body's first block of prose, for the summary: a paragraph, or when the body opens
/// with a list or a quote, its first item (markers removed). Headings and code are skipped.
pub fn first_block(body: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    let mut in_fence = false;
    for line in crate::store::model::lines::lines(body) {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            if out.is_empty() {
                continue;
            }
            break;
        }
        if in_fence || t.starts_with("<!--") || t.starts_with('#') || t.is_empty() {
            if out.is_empty() {
                continue;
            }
            break;
        }
        let item = list_item(t);
        if let Some(text) = item {
            if !out.is_empty() {
                break;
            }
            out.push(text);
            continue;
        }
        out.push(t.strip_prefix('>').map(str::trim_start).unwrap_or(t));
    }
    let joined = out.join(" ");
    (!joined.trim().is_empty()).then_some(joined)
}

/// The text of a list item line (`- x`, `* x`, `+ x`, `1. x`, `1) x`).
fn list_item(line: &str) -> Option<&str> {
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return Some(rest.trim_start());
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 10 {
        let rest = &line[digits..];
        return rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")).map(str::trim_start);
    }
    None
}

/// A body's first paragraph as a plain one-line summary: link syntax reduced to its text,
/// control characters dropped, cut at a word boundary.
pub fn summary(paragraph: &str) -> String {
    let mut out = String::with_capacity(paragraph.len());
    let mut rest = paragraph;
    while !rest.is_empty() {
        // A run without `[` or a control character (C1 ones start with 0xC2) is copied whole:
        // a character at a time, this was most of the summary's cost at every load.
        let plain = plain_run(rest.as_bytes());
        if plain > 0 {
            out.push_str(&rest[..plain]);
            rest = &rest[plain..];
            continue;
        }
        if let Some(after) = rest.strip_prefix("[[")
            && let Some(end) = find_double(after, 0, b']')
        {
            let inner = &after[..end];
            out.push_str(inner.rsplit('|').next().unwrap_or(inner));
            rest = &after[end + 2..];
            continue;
        }
        if let Some(after) = rest.strip_prefix('[')
            && let Some(close) = find_pair(after, 0, b']', b'(')
            && let Some(end) = memchr::memchr(b')', &after.as_bytes()[close..])
        {
            out.push_str(&after[..close]);
            rest = &after[close + end + 1..];
            continue;
        }
        let c = rest.chars().next().expect("rest is not empty");
        if !c.is_control() {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    // Most summaries are one line already: kept, not copied (100k pages at every load).
    let one = if catalog::is_one_line(&out) { out } else { catalog::one_line(&out) };
    // The first `MAX_SUMMARY` characters as a slice of `one`, found without counting the rest
    // (collecting them char by char decodes and copies each one, for every page).
    let Some(end) = crate::store::dialect::nth_char_start(&one, MAX_SUMMARY) else {
        return one;
    };
    let cut = &one[..end];
    let cut = cut.rsplit_once(' ').map(|(head, _)| head).unwrap_or(cut);
    let mut short = String::with_capacity(cut.len() + '…'.len_utf8());
    short.push_str(cut.trim_end_matches([',', ';', ':', ' ']));
    short.push('…');
    short
}

/// The length of the run at the start of `bytes` that holds no `[`, no control character and
/// no 0xC2 byte: `memchr2` finds the next `[` or 0xC2, and a fold that vectorises checks the
/// run before it for control bytes, where testing four conditions a byte costs more than the
/// copy it guards (docs/benchmarks.md, "Load figures").
fn plain_run(bytes: &[u8]) -> usize {
    let end = memchr::memchr2(b'[', 0xc2, bytes).unwrap_or(bytes.len());
    let head = &bytes[..end];
    let control = |b: u8| b < 0x20 || b == 0x7f;
    if head.iter().fold(false, |any, &b| any | control(b)) {
        head.iter().position(|&b| control(b)).unwrap_or(end)
    } else {
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::lines::LineIndex;
    use serde_json::{Value, json};

    fn parse_with(text: &str, config: Value, now: &str) -> Entity {
        let lines = LineIndex::new(text);
        let file = SourceFile { rel: "concepts/page.md", text, lines: &lines, problems: &[], parseable: true };
        let policy = Policy::from_config(config.as_object().unwrap());
        parse_page(
            &file,
            &Context { policy: &policy, now: crate::store::model::timestamp::parse_instant(now).unwrap() },
        )
    }

    fn rules(e: &Entity) -> Vec<&str> {
        e.problems.iter().map(|p| p.rule).collect()
    }

    const GOOD: &str = "---\nschema: knowledge.entry/v1\nslug: runway\nkind: concept\ntitle: Runway\n\
        sources: [board-deck]\nconfidence: 0.9\nupdated_at: 2026-04-27T15:30:00Z\n\
        supersedes: [old-runway]\nlinks: [alex-park]\n---\n# Runway\n\nSee [[alex-park]] and [deck](../sources/d.md).\n";

    #[test]
    fn a_clean_page_maps_every_field() {
        let e = parse_with(GOOD, json!({}), "2026-05-01T00:00:00Z");
        assert_eq!(e.id, "runway");
        assert_eq!(e.kind.as_deref(), Some("concept"));
        assert_eq!(e.sources, ["board-deck"]);
        assert_eq!(e.confidence, Some(0.9));
        assert_eq!(e.description.as_deref(), Some("See alex-park and deck."));
        let edges: Vec<_> = e.edges.iter().map(|d| (d.kind.as_str(), d.target.as_str())).collect();
        assert_eq!(edges, [("supersedes", "old-runway"), ("links", "alex-park")]);
        assert_eq!(e.links.len(), 2);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
    }

    #[test]
    fn invalid_fields_are_positioned() {
        let t = "---\nschema: knowledge.entry/v1\nslug: Bad_Slug\nkind: deal\ntitle: T\nsources: [s]\n\
            confidence: 1.5\nupdated_at: last tuesday\n---\nbody\n";
        let e = parse_with(t, json!({"entityTypes": [{"name": "Concept"}]}), "2026-05-01T00:00:00Z");
        let found: Vec<(u32, &str)> = e.problems.iter().map(|p| (p.line, p.message.as_str())).collect();
        assert_eq!(found.len(), 4, "{found:?}");
        assert_eq!(e.problems.iter().filter(|p| p.rule == rule::INVALID_FIELD).count(), 4);
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [3, 4, 7, 8]);
        assert!(found[1].1.contains("`deal`") && found[1].1.contains("concept"));
        assert_eq!(e.id, "Bad_Slug");
    }

    #[test]
    fn page_without_frontmatter_or_slug() {
        let e = parse_with("# Just prose\n\nText.\n", json!({}), "2026-05-01T00:00:00Z");
        assert_eq!((e.id.as_str(), rules(&e)), ("page", vec![rule::INVALID_FRONTMATTER]));
        let e = parse_with(
            "---\nschema: knowledge/v1\nkind: timeline\ntitle: T\nupdated_at: 2026-04-01\n---\n",
            json!({}),
            "2026-05-01T00:00:00Z",
        );
        assert_eq!(e.id, "page");
        assert_eq!(rules(&e), [rule::INVALID_FIELD], "timelines may go unsourced; the slug is missing");
    }

    #[test]
    fn unsourced_follows_the_floor_rule_or_the_lints() {
        let t = "---\nschema: knowledge.entry/v1\nslug: p\nkind: person\ntitle: P\nupdated_at: 2026-04-01\n---\n";
        assert_eq!(rules(&parse_with(t, json!({}), "2026-05-01T00:00:00Z")), [rule::UNSOURCED]);
        let lints =
            json!({"lints": [{"id": "rs", "kind": "require-source", "appliesTo": "Concept", "severity": "error"}]});
        assert!(parse_with(t, lints.clone(), "2026-05-01T00:00:00Z").problems.is_empty());
        let concept = t.replace("kind: person", "kind: concept");
        let e = parse_with(&concept, lints, "2026-05-01T00:00:00Z");
        assert_eq!(rules(&e), [rule::UNSOURCED]);
        assert_eq!(e.problems[0].severity, Some(crate::store::model::entity::Severity::Error));
        let comparison = t.replace("kind: person", "kind: comparison");
        assert!(parse_with(&comparison, json!({}), "2026-05-01T00:00:00Z").problems.is_empty());
    }

    #[test]
    fn stale_and_low_confidence_come_from_lints() {
        let config = json!({"lints": [
            {"id": "age", "kind": "max-age", "appliesTo": "*", "severity": "warn", "params": {"days": 90}},
            {"id": "conf", "kind": "min-confidence", "appliesTo": "Concept", "severity": "info", "params": {"min": 0.95}},
        ]});
        let fresh = parse_with(GOOD, config.clone(), "2026-07-25T00:00:00Z");
        assert_eq!(rules(&fresh), [rule::LOW_CONFIDENCE]);
        assert_eq!(fresh.problems[0].line, 7);
        let old = parse_with(GOOD, config.clone(), "2026-07-27T00:00:00Z");
        assert_eq!(rules(&old), [rule::STALE, rule::LOW_CONFIDENCE]);
        assert_eq!(old.problems[0].line, 8);
        assert!(old.problems[0].message.contains("90 days ago"));
        let confident = GOOD.replace("confidence: 0.9", "confidence: 0.96");
        assert!(parse_with(&confident, config, "2026-05-01T00:00:00Z").problems.is_empty());
        let marked = GOOD.replace("links:", "metadata: {lint: {stale: true, stale_since: 2026-01-29}}\nlinks:");
        let e = parse_with(&marked, json!({}), "2026-05-01T00:00:00Z");
        assert_eq!(rules(&e), [rule::STALE]);
        assert!(e.problems[0].message.contains("2026-01-29"));
    }

    /// `outdated` says a page parsed at one instant reads otherwise at another exactly when
    /// parsing it again then gives other problems: across three weeks in 5-hour steps, for two
    /// `max-age` lints, a page the wiki marked stale, one without a date and one of no kind.
    #[test]
    fn outdated_is_exactly_a_different_parse_later() {
        let config = json!({"lints": [
            {"id": "week", "kind": "max-age", "appliesTo": "*", "severity": "warn", "params": {"days": 7}},
            {"id": "fortnight", "kind": "max-age", "appliesTo": "Concept", "params": {"days": 14.5}},
        ]});
        let policy = Policy::from_config(config.as_object().unwrap());
        let at = |s: &str| crate::store::model::timestamp::parse_instant(s).unwrap();
        let parse_at = |text: &str, now: OffsetDateTime| {
            let lines = LineIndex::new(text);
            let file = SourceFile { rel: "concepts/page.md", text, lines: &lines, problems: &[], parseable: true };
            parse_page(&file, &Context { policy: &policy, now })
        };
        let marked = GOOD.replace("links:", "metadata: {lint: {stale: true}}\nlinks:");
        let undated = GOOD.replace("updated_at: 2026-04-27T15:30:00Z\n", "");
        let kindless = GOOD.replace("kind: concept\n", "");
        let start = at("2026-04-30T00:00:00Z");
        let (mut changes, mut steps) = (0, 0);
        for text in [GOOD, marked.as_str(), undated.as_str(), kindless.as_str()] {
            for first in 0..12 {
                let then = start + time::Duration::hours(first * 5);
                let parsed = parse_at(text, then);
                for later in first..first + 100 {
                    let now = start + time::Duration::hours(later * 5);
                    let differs = parse_at(text, now).problems != parsed.problems;
                    assert_eq!(outdated(&parsed, &Context { policy: &policy, now }), differs, "{then} → {now}");
                    changes += usize::from(differs);
                    steps += 1;
                }
            }
        }
        assert!(changes > 100 && changes < steps - 100, "{changes} of {steps}: both answers are checked");
        let none = Policy::from_config(json!({}).as_object().unwrap());
        let e = parse_with(GOOD, json!({}), "2026-05-01T00:00:00Z");
        assert!(!outdated(&e, &Context { policy: &none, now: at("2027-05-01T00:00:00Z") }));
    }

    #[test]
    fn times_and_slugs() {
        assert!(parse_time("2026-04-27T15:00:00Z").is_some());
        assert!(parse_time("2026-04-27T15:00:00+02:00").is_some());
        assert!(parse_time("2026-04-27T15:00:00").is_some());
        assert!(parse_time("2026-04-27").is_some());
        assert!(parse_time("27/04/2026").is_none());
        assert!(valid_slug("2026-04-15-paper"));
        assert!(!valid_slug("entities/foo") && !valid_slug("Foo") && !valid_slug(""));
    }

    #[test]
    fn first_block_prefers_prose_and_takes_one_list_item() {
        assert_eq!(first_block("# T\n\n```\nx\n```\nOne\ntwo.\n\nThree.").as_deref(), Some("One two."));
        assert_eq!(
            first_block("# T\n\n- 2026-04: a\n  continued\n- 2026-05: b\n").as_deref(),
            Some("2026-04: a continued")
        );
        assert_eq!(first_block("1. first\n2. second\n").as_deref(), Some("first"));
        assert_eq!(first_block("> quoted\n> more\n").as_deref(), Some("quoted more"));
        assert_eq!(first_block("# Only a heading\n"), None);
    }

    /// Summaries copy runs of plain text whole: the same as a character at a time, for
    /// control characters (C0, DEL, C1), non-ASCII text around them and links.
    #[test]
    fn summaries_equal_a_character_at_a_time() {
        // Without links a summary is the text's non-control characters on one line.
        let by_char =
            |p: &str| -> String { catalog::one_line(&p.chars().filter(|c| !c.is_control()).collect::<String>()) };
        for p in [
            "caf\u{e9} \u{a0}x\u{85}y\u{9f}z \u{a9}",
            "a\u{7f}b\tc\u{1}d",
            "\u{c2}\u{80}",
            "plain words only",
            "\u{2028}\u{fffd}ok",
        ] {
            assert_eq!(summary(p), by_char(p), "{p:?}");
        }
        assert_eq!(summary("\u{85}[[a|b]]\u{a0}[c](d) e"), "b c e");
    }

    #[test]
    fn summaries_are_plain_and_bounded() {
        assert_eq!(summary("A [[x|Ex]] and [y](y.md) \u{1b}[31m."), "A Ex and y [31m.");
        let long = "word ".repeat(100);
        let s = summary(&long);
        assert!(s.ends_with('…') && s.chars().count() <= MAX_SUMMARY + 1);
    }

    /// `plain_run` stops where testing each byte stops, wherever in a long run the stop lies.
    #[test]
    fn a_plain_run_ends_at_the_first_bracket_control_or_c2_byte() {
        let by_byte = |b: &[u8]| b.iter().position(|&b| b == b'[' || b < 0x20 || b == 0x7f || b == 0xc2);
        for stop in ["[", "\t", "\u{7f}", "\u{85}", "\u{1}", "é", ""] {
            for at in [0, 1, 31, 32, 33, 100] {
                let text = format!("{}{stop}{}", "w".repeat(at), "x[y\u{2}".repeat(2));
                let b = text.as_bytes();
                assert_eq!(plain_run(b), by_byte(b).unwrap_or(b.len()), "{text:?}");
            }
        }
        assert_eq!(plain_run(b"plain"), 5);
    }

    /// The cut by character index is the cut of the first `MAX_SUMMARY` characters collected,
    /// at every length around the bound, with multi-byte characters and punctuation at the cut.
    #[test]
    fn summaries_are_cut_at_the_same_character() {
        let collected = |one: &str| -> String {
            if one.chars().count() <= MAX_SUMMARY {
                return one.to_string();
            }
            let cut: String = one.chars().take(MAX_SUMMARY).collect();
            let cut = cut.rsplit_once(' ').map(|(head, _)| head).unwrap_or(&cut);
            format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
        };
        for n in MAX_SUMMARY - 3..MAX_SUMMARY + 4 {
            for unit in ["é", "a", "ab, ", "日本; ", "x:"] {
                let text: String = unit.chars().cycle().take(n).collect();
                assert_eq!(summary(&text), collected(&catalog::one_line(&text)), "{n} {unit:?}");
            }
        }
    }
}
