//! A fast reader for the frontmatter agents actually write: top-level `key: value` lines with
//! plain or simply quoted scalars, one-line flow lists and maps, block lists of scalars, of
//! flow maps and of one-level mappings, and folded plain continuation lines.
//!
//! It answers only when it is certain to give exactly what serde_yaml_ng (plus
//! `frontmatter::yaml_to_json`) gives; anything else — anchors, tags, comments, escapes,
//! numbers other than plain decimals, nesting, odd characters, duplicate keys — returns `None`
//! and the caller parses the block with serde_yaml_ng. It exists because building a
//! `serde_yaml_ng::Value` and converting it is many times its cost, for every file of a load
//! (docs/benchmarks.md, "Load figures"). Its strings are slices of the block (`View`), copied
//! only when a caller asks for owned `Fields`.
use std::borrow::Cow;

use serde_json::Number;

use super::{Fields, Val, View};
use crate::store::model::lines::{is_blank, trim};

/// The block as owned fields, or `None` when it holds anything outside the simple subset.
pub fn parse(yaml: &str) -> Option<Fields> {
    parse_view(yaml).map(View::into_fields)
}

/// The block as a view over its text, or `None` when it holds anything outside the subset.
pub fn parse_view(yaml: &str) -> Option<View<'_>> {
    if has_unsafe_bytes(yaml.as_bytes()) {
        return None;
    }
    // Room for the usual handful of keys: growing from empty was two reallocations a file.
    let mut fields = View::with_capacity(8);
    let mut lines = crate::store::model::lines::split_lines(yaml)
        .map(|l| l.strip_suffix('\n').unwrap_or(l))
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .peekable();
    while let Some(line) = lines.next() {
        if is_blank(line) {
            continue;
        }
        let (key, rest) = split_key(line)?;
        let value = if rest.is_empty() {
            block_value(&mut lines)?
        } else {
            let mut value = inline_value(rest)?;
            if let Val::Str(s) = &mut value
                && is_plain(rest)
            {
                // Folded continuation lines of a plain scalar join with single spaces.
                while let Some(next) = lines.peek() {
                    if !next.starts_with(' ') || is_blank(next) {
                        break;
                    }
                    let part = trim(next);
                    if part.starts_with(['-', '#']) || !plain_ok(part) {
                        return None;
                    }
                    let s = s.to_mut();
                    s.push(' ');
                    s.push_str(part);
                    lines.next();
                }
            }
            value
        };
        if !fields.insert(key, value) {
            // Duplicate keys are an error in serde_yaml_ng: let it report it.
            return None;
        }
    }
    Some(fields)
}

/// Bytes libyaml treats specially or rejects: tabs and control characters, C1 controls and NEL,
/// the Unicode line/paragraph separators, a BOM, and the non-characters U+FFFE/U+FFFF — and the
/// other Unicode spaces (NBSP, U+2000–U+200A, …), which YAML keeps in a scalar but this
/// reader's trimming (`char::is_whitespace`) would cut.
fn has_unsafe_bytes(b: &[u8]) -> bool {
    // Printable ASCII and newlines only (almost every block): nothing to look at closely. This
    // test vectorises; the exact one below goes byte by byte.
    if b.iter().fold(true, |ok, &c| ok & ((0x20..0x7f).contains(&c) | (c == b'\n'))) {
        return false;
    }
    b.iter().enumerate().any(|(i, &c)| match c {
        b'\n' => false,
        // A lone CR is a line break to YAML; only CRLF endings are handled here.
        b'\r' => b.get(i + 1) != Some(&b'\n'),
        0..=0x1f | 0x7f => true,
        0xc2 => b.get(i + 1).is_some_and(|n| (0x80..=0xa0).contains(n)),
        0xe1 => b.get(i + 1) == Some(&0x9a) && b.get(i + 2) == Some(&0x80),
        0xe2 => match b.get(i + 1) {
            Some(0x80) => matches!(b.get(i + 2), Some(0x80..=0x8a | 0xa8 | 0xa9 | 0xaf)),
            Some(0x81) => b.get(i + 2) == Some(&0x9f),
            _ => false,
        },
        0xe3 => b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0x80),
        0xef => matches!((b.get(i + 1), b.get(i + 2)), (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xbe | 0xbf))),
        _ => false,
    })
}

/// `key: rest` at column 0, the key a plain word that YAML reads as a string.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let colon = memchr::memchr(b':', line.as_bytes())?;
    let key = &line[..colon];
    let after = &line[colon + 1..];
    if !is_simple_key(key) || !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    Some((key, trim(after)))
}

fn is_simple_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && parse_keyword(key).is_none()
}

/// A value written on the key's own line.
fn inline_value(v: &str) -> Option<Val<'_>> {
    if let Some(inner) = v.strip_prefix('[') {
        let inner = inner.strip_suffix(']')?;
        let mut items = Vec::new();
        for item in flow_items(inner, false)? {
            items.push(scalar(item?, true)?);
        }
        return Some(Val::List(items));
    }
    if v.starts_with('{') {
        return flow_map(v).map(Val::Map);
    }
    scalar(v, false)
}

/// What follows `key:` on the next lines: a block list or a one-level mapping; nothing is null.
fn block_value<'a>(lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>) -> Option<Val<'a>> {
    // Blank lines before the value (or the next key) mean nothing.
    while lines.peek().is_some_and(|l| is_blank(l)) {
        lines.next();
    }
    let Some(first) = lines.peek().copied() else { return Some(Val::Null) };
    let indent = first.len() - first.trim_start_matches(' ').len();
    let trimmed = first.trim_start_matches(' ');
    if !(trimmed.starts_with("- ") || trimmed == "-") {
        // A top-level key next: this one's value is null; else an indented one-level mapping
        // (opendray's `provenance:` as its export and folio's rendering of a row write it).
        return if indent == 0 { Some(Val::Null) } else { block_mapping(indent, lines).map(Val::Map) };
    }
    let mut items = Vec::new();
    while let Some(line) = lines.peek().copied() {
        let this_indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[this_indent..];
        if body.is_empty() || this_indent < indent || (this_indent == indent && !body.starts_with('-')) {
            break;
        }
        if this_indent != indent {
            return None;
        }
        let item = trim(body.strip_prefix("- ")?);
        lines.next();
        if item.starts_with('{') {
            items.push(Val::Map(flow_map(item)?));
        } else if let Some((k, rest)) = split_key(item).filter(|_| !item.starts_with(['"', '\''])) {
            items.push(Val::Map(item_mapping(k, rest, indent + 2, lines)?));
        } else {
            items.push(scalar(item, false)?);
        }
    }
    Some(Val::List(items))
}

/// `- k: v` followed by `  k2: v2` lines indented to the first key.
fn item_mapping<'a>(
    key: &'a str,
    rest: &'a str,
    indent: usize,
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> Option<View<'a>> {
    let mut map = View::new();
    if rest.is_empty() {
        return None;
    }
    map.insert(key, inline_value(rest)?);
    while let Some(line) = lines.peek().copied() {
        let this_indent = line.len() - line.trim_start_matches(' ').len();
        if this_indent < indent || is_blank(line) {
            break;
        }
        if this_indent != indent {
            return None;
        }
        let (k, rest) = split_key(&line[indent..])?;
        if rest.is_empty() || !map.insert(k, inline_value(rest)?) {
            return None;
        }
        lines.next();
    }
    Some(map)
}

/// `  k: v` lines, all indented alike, each value on its key's line or a block list below it:
/// the mapping under a top-level key. Any other deeper line (a nested mapping, a folded
/// scalar) or a blank line inside is left to serde_yaml_ng.
fn block_mapping<'a>(
    indent: usize,
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> Option<View<'a>> {
    let mut map = View::new();
    while let Some(line) = lines.peek().copied() {
        let this_indent = line.len() - line.trim_start_matches(' ').len();
        if this_indent == 0 {
            break;
        }
        if this_indent != indent {
            return None;
        }
        let (k, rest) = split_key(&line[indent..])?;
        lines.next();
        let value = if rest.is_empty() { list_under(indent, lines)? } else { inline_value(rest)? };
        if !map.insert(k, value) {
            return None;
        }
    }
    Some(map)
}

/// The block list right below a key of a mapping indented by `indent`, its dashes at the
/// key's own indent (as serde_yaml_ng writes them: opendray's `relations:`) or deeper;
/// anything else under the key (null, a deeper mapping) is left to serde_yaml_ng.
fn list_under<'a>(indent: usize, lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>) -> Option<Val<'a>> {
    let next = lines.peek()?;
    let body = next.trim_start_matches(' ');
    let list = next.len() - body.len() >= indent && (body.starts_with("- ") || body == "-");
    if list { block_value(lines) } else { None }
}

/// `{ k: v, k: [a, b] }` on one line: scalars, or flow lists of scalars (opendray's
/// `relations: { uses: [a], used_by: [b] }`).
fn flow_map(v: &str) -> Option<View<'_>> {
    let inner = v.strip_prefix('{')?.strip_suffix('}')?;
    let mut map = View::new();
    for item in flow_items(inner, true)? {
        let item = item?;
        // Items are a few bytes: a plain loop beats setting up a substring searcher.
        let at = item.as_bytes().windows(2).position(|w| w == b": ")?;
        let (k, val) = (&item[..at], trim(&item[at + 2..]));
        if !is_simple_key(k.trim_end()) || k != k.trim_end() {
            return None;
        }
        let value = match val.strip_prefix('[') {
            Some(list) => {
                let mut items = Vec::new();
                for item in flow_items(list.strip_suffix(']')?, false)? {
                    items.push(scalar(item?, true)?);
                }
                Val::List(items)
            }
            None => scalar(val, true)?,
        };
        if !map.insert(k, value) {
            return None;
        }
    }
    Some(map)
}

/// The comma-separated items of a flow collection's inside, trimmed (`None`: an empty item,
/// which the caller refuses). A quoted scalar — an item, or a flow map's value after `: ` —
/// may hold commas and brackets (a vault's `related: ["[[Note]]"]`); outside quotes, a flow
/// map's value may be one flow list (`lists`: opendray's `{ uses: [a, b] }`) and any other
/// nesting is refused.
fn flow_items(inner: &str, lists: bool) -> Option<Vec<Option<&str>>> {
    let b = inner.as_bytes();
    let mut parts = Vec::new();
    let (mut depth, mut from, mut i) = (0u8, 0usize, 0usize);
    // Whether a quote here opens a quoted scalar: nothing but spaces since an item began.
    let mut value_start = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' | b'\'' if value_start => {
                i += 1 + memchr::memchr(c, &b[i + 1..])?;
                value_start = false;
            }
            b' ' => {}
            b'[' if lists && depth == 0 => {
                depth = 1;
                value_start = true;
            }
            b']' if depth == 1 => {
                depth = 0;
                value_start = false;
            }
            b'{' | b'}' | b'[' | b']' => return None,
            b',' => {
                if depth == 0 {
                    parts.push(&inner[from..i]);
                    from = i + 1;
                }
                value_start = true;
            }
            b':' if b.get(i + 1) == Some(&b' ') => value_start = true,
            _ => value_start = false,
        }
        i += 1;
    }
    if depth != 0 {
        return None;
    }
    if !inner.trim().is_empty() {
        parts.push(&inner[from..]);
    }
    Some(parts.into_iter().map(str::trim).map(|i| (!i.is_empty()).then_some(i)).collect())
}

/// One scalar: simply quoted (no escapes) or plain.
fn scalar(v: &str, in_flow: bool) -> Option<Val<'_>> {
    if let Some(inner) = v.strip_prefix('\'') {
        let inner = inner.strip_suffix('\'')?;
        return memchr::memchr(b'\'', inner.as_bytes()).is_none().then_some(Val::Str(Cow::Borrowed(inner)));
    }
    if let Some(inner) = v.strip_prefix('"') {
        let inner = inner.strip_suffix('"')?;
        return memchr::memchr2(b'"', b'\\', inner.as_bytes()).is_none().then_some(Val::Str(Cow::Borrowed(inner)));
    }
    if !plain_ok(v) || (in_flow && memchr::memchr(b',', v.as_bytes()).is_some()) {
        return None;
    }
    plain_value(v)
}

/// Whether `v` is a plain scalar that cannot be read as YAML syntax.
fn plain_ok(v: &str) -> bool {
    let b = v.as_bytes();
    let Some(&first) = b.first() else { return false };
    // A `match`, not a search of the indicator list (std's memchr per scalar showed up).
    if matches!(first, b'-' | b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>')
        || matches!(first, b'\'' | b'"' | b'%' | b'@' | b'`')
        || v.ends_with(':')
    {
        return false;
    }
    // One test that vectorises says which of the bytes the checks look at occur; then only
    // the few `:` and `#` are looked at (a byte loop over every scalar with a `:` — each
    // URL — was the largest cost of this reader).
    let seen = b.iter().fold(0u8, |acc, &c| {
        acc | u8::from(matches!(c, b'[' | b']' | b'{' | b'}')) | u8::from(c == b':') << 1 | u8::from(c == b'#') << 2
    });
    if seen & 1 != 0 {
        return false;
    }
    // `: ` starts a mapping and ` #` a comment.
    let colon_space = seen & 2 != 0 && memchr::memchr_iter(b':', b).any(|i| b.get(i + 1) == Some(&b' '));
    let space_hash = seen & 4 != 0 && memchr::memchr_iter(b'#', b).any(|i| i > 0 && b[i - 1] == b' ');
    !colon_space && !space_hash
}

fn is_plain(v: &str) -> bool {
    !v.starts_with(['\'', '"', '[', '{'])
}

/// How serde_yaml_ng types a plain scalar, for the cases decided without its number parser:
/// null and boolean words, plain decimal integers, and text that no numeric syntax accepts.
fn plain_value(v: &str) -> Option<Val<'_>> {
    if let Some(k) = parse_keyword(v) {
        return Some(k);
    }
    let first = v.as_bytes()[0];
    if !(first.is_ascii_digit() || first == b'+' || first == b'-' || first == b'.') {
        // Numbers start with a digit, a sign or a dot; letters first only spell `inf`/`nan`,
        // which are not finite, and serde_yaml_ng keeps those as strings.
        return Some(Val::Str(Cow::Borrowed(v)));
    }
    if v.bytes().all(|b| b.is_ascii_digit()) && v.len() <= 18 && (v.len() == 1 || first != b'0') {
        return v.parse::<i64>().ok().map(|n| Val::Num(Number::from(n)));
    }
    if is_plain_decimal(v) {
        // `confidence: 0.85`: serde_yaml_ng reads it with Rust's own float parser, as here
        // (AIP-10 pages all carry one, so falling back would send every page to the YAML parser).
        return v.parse::<f64>().ok().and_then(Number::from_f64).map(Val::Num);
    }
    if first.is_ascii_digit() && !could_be_number(v) {
        return Some(Val::Str(Cow::Borrowed(v)));
    }
    None
}

/// `-?DIGITS.DIGITS`, short enough to be finite: a float serde_yaml_ng reads as Rust does.
fn is_plain_decimal(v: &str) -> bool {
    let digits = v.strip_prefix('-').unwrap_or(v);
    let Some((whole, fraction)) = digits.split_once('.') else { return false };
    v.len() <= 32
        && !whole.is_empty()
        && !fraction.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// Whether any YAML/Rust numeric syntax (ints in bases 2/8/10/16, floats) could accept `v`:
/// false when a character no number holds is present, or a sign sits where only an exponent's
/// sign may (`2026-06-30`).
fn could_be_number(v: &str) -> bool {
    let b = v.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        let ok = c.is_ascii_alphanumeric() || c == b'.' || c == b'_';
        let sign = c == b'-' || c == b'+';
        if !ok && !sign {
            return false;
        }
        if sign && i > 0 && !matches!(b[i - 1], b'e' | b'E') {
            return false;
        }
    }
    true
}

fn parse_keyword(v: &str) -> Option<Val<'static>> {
    match v {
        "null" | "Null" | "NULL" | "~" => Some(Val::Null),
        "true" | "True" | "TRUE" => Some(Val::Bool(true)),
        "false" | "False" | "FALSE" => Some(Val::Bool(false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::read::frontmatter::parse_yaml;
    use proptest::prelude::*;
    use serde_json::Value;

    fn slow(yaml: &str) -> Result<Fields, String> {
        let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).map_err(|e| e.to_string())?;
        match crate::store::read::frontmatter::yaml_to_json(v) {
            Value::Object(m) => Ok(m),
            Value::Null => Ok(Fields::new()),
            other => Err(format!("not a mapping: {other}")),
        }
    }

    #[test]
    fn okf_v02_frontmatter() {
        let y = "type: Metric\ntitle: Gross Margin\ndescription: Gross margin for a period.\n\
            tags: [finance, margin, headline-metric]\n\
            generated: { by: reference_agent/gemini-2.5-pro, at: 2026-06-30T14:00:00Z }\n\
            verified:\n  - { by: human:jsmith@acme, at: 2026-07-01T09:00:00Z }\nstatus: stable\n\
            sources:\n  - id: margin-standard\n    resource: policies/margin-standard.md\n    title: Standard (FY2026)\n";
        let fast = parse(y).expect("simple");
        assert_eq!(fast, slow(y).unwrap());
        assert_eq!(fast["sources"][0]["resource"], "policies/margin-standard.md");
        assert_eq!(fast["generated"]["at"], "2026-06-30T14:00:00Z");
    }

    #[test]
    fn okf_v01_frontmatter_with_folded_description() {
        let y = "type: BigQuery Table\ntitle: Users\ndescription: A long description that\n  continues here.\n\
            tags:\n- users\n- core\ntimestamp: '2026-05-28T22:53:05+00:00'\ncount: 42\nempty:\n";
        assert_eq!(parse(y).expect("simple"), slow(y).unwrap());
    }

    #[test]
    fn hard_cases_fall_back() {
        for y in [
            "a: &x 1\nb: *x\n",
            "a: !tag x\n",
            "a: 1.5e3\n",
            "a: 0x1F\n",
            "a: \"esc\\n\"\n",
            "a: 1\na: 2\n",
            "a: [1, [2]]\n",
            "a: b # comment\n",
            "a:\n  b:\n    c: d\n",
            "a:\n  b: c\n    d: e\n",
            "a:\n  b: c\n\n  d: e\n",
            "a:\n  b: c\n  b: d\n",
            "a: x\n\tb: y\n",
            "? complex\n",
            "a: 'it''s'\n",
        ] {
            assert_eq!(parse(y), None, "{y:?}");
        }
    }

    fn token() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("plain".to_string()),
            Just("Two Words".to_string()),
            Just("true".to_string()),
            Just("Yes".to_string()),
            Just("null".to_string()),
            Just("~".to_string()),
            Just("nan".to_string()),
            Just("inf".to_string()),
            Just("e5".to_string()),
            Just("1e5".to_string()),
            Just("0".to_string()),
            Just("007".to_string()),
            Just("42".to_string()),
            Just("-3".to_string()),
            Just("+4".to_string()),
            Just("1.5".to_string()),
            Just("0.85".to_string()),
            Just("-0.5".to_string()),
            Just("00.5".to_string()),
            Just("1.0".to_string()),
            Just("10.".to_string()),
            Just("3.14159265358979323846264338".to_string()),
            Just("2026-06-30".to_string()),
            Just("2026-06-30T14:00:00Z".to_string()),
            Just("human:jsmith@acme".to_string()),
            Just("a: b".to_string()),
            Just("'quoted'".to_string()),
            Just("\"dq\"".to_string()),
            Just("it's".to_string()),
            Just("x#y".to_string()),
            Just("x #y".to_string()),
            Just("a,b".to_string()),
            Just("-dash".to_string()),
            Just("&anchor".to_string()),
            Just("\"[[Cold Warehouse 78487]]\"".to_string()),
            Just("'[[a, b]]'".to_string()),
            Just("\"a, [b]\"".to_string()),
            Just("a\"b".to_string()),
            Just("\"open".to_string()),
            Just("é ünïcödé".to_string()),
            Just("\u{a0}".to_string()),
            Just("x\u{a0}".to_string()),
            Just("\u{2009}y z\u{3000}".to_string()),
            Just("\u{1680}\u{200a}\u{202f}\u{205f}".to_string()),
            "[a-z0-9:./ -]{0,12}".prop_map(|s| s),
        ]
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            token().prop_map(|t| format!(" {t}")),
            prop::collection::vec(token(), 0..4).prop_map(|v| format!(" [{}]", v.join(", "))),
            (token(), token()).prop_map(|(a, b)| format!(" {{ by: {a}, at: {b} }}")),
            (prop::collection::vec(token(), 0..3), token())
                .prop_map(|(v, b)| format!(" {{ uses: [{}], at: {b} }}", v.join(", "))),
            (token(), prop::collection::vec(token(), 0..3))
                .prop_map(|(a, v)| format!(" {{ by: {a}, used_by: [{}]}}", v.join(","))),
            prop::collection::vec(token(), 1..3).prop_map(|v| v.iter().map(|t| format!("\n- {t}")).collect()),
            prop::collection::vec(token(), 1..3).prop_map(|v| v.iter().map(|t| format!("\n  - {t}")).collect()),
            (token(), token()).prop_map(|(a, b)| format!("\n  - id: {a}\n    resource: {b}")),
            (token(), token()).prop_map(|(a, b)| format!(" {a}\n  {b}")),
            prop::collection::vec((key(), token(), 1..4usize), 1..4)
                .prop_map(|v| v.iter().map(|(k, t, n)| format!("\n{}{k}: {t}", " ".repeat(*n))).collect()),
            (key(), token(), key(), token()).prop_map(|(k, a, j, b)| format!("\n  {k}: {a}\n  {j}: [{b}, {a}]")),
            (key(), token(), key(), token()).prop_map(|(k, a, j, b)| format!("\n  {k}: {a}\n  {j}: {{ by: {b} }}")),
            (key(), prop::collection::vec(token(), 1..3), 0..5usize, key(), token()).prop_map(|(k, v, n, j, b)| {
                let items: String = v.iter().map(|t| format!("\n{}- {t}", " ".repeat(n))).collect();
                format!("\n  {k}:{items}\n  {j}: {b}")
            }),
            (key(), key(), token()).prop_map(|(k, j, b)| format!("\n  {k}:\n  {j}: {b}")),
            (key(), key(), token()).prop_map(|(k, j, b)| format!("\n  {k}:\n  - {j}: {b}\n    {k}: {b}")),
            Just(String::new()),
        ]
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("type".to_string()),
            Just("title".to_string()),
            Just("tags".to_string()),
            Just("true".to_string()),
            Just("a-b_c".to_string()),
            "[a-z]{1,6}".prop_map(|s| s),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Whenever the fast reader answers, serde_yaml_ng agrees exactly.
        #[test]
        fn agrees_with_serde_yaml_ng(entries in prop::collection::vec((key(), value()), 0..6)) {
            let yaml: String = entries.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
            if let Some(fast) = parse(&yaml) {
                prop_assert_eq!(Ok(fast), slow(&yaml), "{:?}", yaml);
            }
        }

        /// Arbitrary text never panics and, when accepted, agrees too.
        #[test]
        fn arbitrary_text(yaml in "[a-z:\\-\\[\\]{}, '\"#\n]{0,60}") {
            if let Some(fast) = parse(&yaml) {
                prop_assert_eq!(Ok(fast), slow(&yaml), "{:?}", yaml);
            }
        }
    }

    #[test]
    fn plain_decimals_are_read_here_as_serde_yaml_ng_reads_them() {
        let long = "a: 0.1000000000000000055511151231257827\n";
        for (y, fast_path) in [("confidence: 0.5\n", true), ("a: 1.0\n", true), ("a: 00.5\n", true), (long, false)] {
            let fast = parse(y);
            assert_eq!(fast.is_some(), fast_path, "{y:?}");
            if let Some(fast) = fast {
                assert_eq!(Ok(fast), slow(y), "{y:?}");
            }
        }
    }

    #[test]
    fn flow_maps_of_flow_lists_are_read_here_as_serde_yaml_ng_reads_them() {
        let y = "relations: { used_by: [en-a-1, en-b-2], uses: [sk-c-3] }\nevidence: { applied: 2, ok: 1 }\nx: {}\n";
        assert_eq!(Ok(parse(y).expect("the fast path reads opendray's relations")), slow(y));
        let y = "related: [\"[[Cold Warehouse 78487]]\", '[[a, b]]']\nby: { who: \"x, y\" }\n";
        assert_eq!(Ok(parse(y).expect("the fast path reads quoted wikilinks in a list")), slow(y));
        for hard in ["a: { b: [c, [d]] }\n", "a: { b: { c: d } }\n", "a: { b: [c }\n", "a: { b: [c], }\n"] {
            assert_eq!(parse(hard), None, "{hard:?}");
        }
    }

    #[test]
    fn an_indented_mapping_of_scalars_is_read_here_as_serde_yaml_ng_reads_it() {
        let y = "id: en-a\nprovenance:\n  source: distiller\n  run: 42\n  seen: [a, b]\ntitle: A\n";
        let fast = parse(y).expect("the fast path reads a one-level mapping");
        assert_eq!(Ok(fast.clone()), slow(y));
        assert_eq!(fast["provenance"]["run"], 42);
        let y = "relations:\n  part_of:\n  - sk-a\n  - sk-b\n  uses:\n    - t\nprovenance:\n  source: gen\n";
        let fast = parse(y).expect("lists under the mapping's keys");
        assert_eq!(Ok(fast.clone()), slow(y));
        assert_eq!(fast["relations"]["part_of"][1], "sk-b");
        let y = "generated:\r\n    by: agent\r\n    at: 2026-06-30T14:00:00Z\r\n";
        assert_eq!(Ok(parse(y).expect("CRLF and a deeper indent")), slow(y));
    }

    #[test]
    fn parse_yaml_uses_fast_path_with_same_result() {
        let y = "type: Metric\ntags: [a, b]\n";
        assert_eq!(parse_yaml(y).unwrap(), slow(y).unwrap());
    }
}
