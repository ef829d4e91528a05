//! Setting a block mapping (`metadata:` with its keys on the indented lines below) entry by
//! entry: an unchanged entry keeps its bytes, a changed one is rewritten alone (a nested block
//! mapping by the same rule, a one-line flow mapping by `flow_map`), a new one goes on one line
//! after the last entry at the entries' indentation. One key changed is one line changed (a
//! veto once rewrote a page's 16-line `metadata:` block as one flow line). Anything else (a
//! removed entry, a mapping that is not indented uniformly, quoted keys) is left to the
//! whole-value rewrite.
use std::ops::Range;

use serde_json::{Map, Value};

use super::{flow_map, quote};
use crate::store::read::frontmatter;

/// `extent` (one key's lines; its name ends at `value_at`) with its block mapping set to `new`,
/// or None when the value is not a block mapping `new` only adds to or changes.
pub fn set(extent: &str, value_at: usize, new: &Map<String, Value>, nl: &str) -> Option<String> {
    let first_end = extent.find('\n').map_or(extent.len(), |i| i + 1);
    let head = extent.get(value_at..first_end)?.trim_end_matches(['\n', '\r']);
    let after_colon = head.trim_start().strip_prefix(':')?.trim();
    // `key:` alone (a comment may follow) opens a block value; anything else is not ours.
    if !(after_colon.is_empty() || after_colon.starts_with('#')) {
        return None;
    }
    let body = &extent[first_end..];
    let old = parsed(extent)?;
    let out = format!("{}{}", &extent[..first_end], entries_set(body, &old, new, nl)?);
    (parsed(&out)? == *new).then_some(out)
}

/// The mapping a one-key extent holds.
fn parsed(extent: &str) -> Option<Map<String, Value>> {
    let back = frontmatter::parse_yaml(extent).ok()?;
    back.values().next()?.as_object().cloned()
}

/// One entry of a block mapping: its key, its lines (the key's line and every deeper or list
/// line under it), and where its name ends within them.
struct Entry {
    key: String,
    range: Range<usize>,
    value_at: usize,
}

/// `body` (the lines of a block mapping, all at one indentation) with its entries set to `new`.
fn entries_set(body: &str, old: &Map<String, Value>, new: &Map<String, Value>, nl: &str) -> Option<String> {
    if old.keys().any(|k| !new.contains_key(k)) {
        return None;
    }
    let (indent, entries) = entries(body)?;
    if entries.len() != old.len() || entries.iter().any(|e| !old.contains_key(&e.key)) {
        return None;
    }
    let mut out = body.to_string();
    // Added entries go after the last entry's lines, before trailing blank or comment lines.
    let added: String = new
        .iter()
        .filter(|(k, _)| !old.contains_key(*k))
        .map(|(k, v)| format!("{}{}: {}{nl}", " ".repeat(indent), quote::string(k, false), quote::render(v)))
        .collect();
    let last = entries.last()?;
    let mut insert_at = last.range.end;
    if !added.is_empty() && !body[..insert_at].ends_with('\n') {
        out.insert_str(insert_at, nl);
        insert_at += nl.len();
    }
    out.insert_str(insert_at, &added);
    // Changed entries are replaced from the last, so earlier ranges stay valid.
    for e in entries.iter().rev() {
        let (was, now) = (&old[&e.key], &new[&e.key]);
        if was == now {
            continue;
        }
        let lines = &body[e.range.clone()];
        let replaced = entry_set(lines, e.value_at, was, now, indent, nl)?;
        out.replace_range(e.range.clone(), &replaced);
    }
    Some(out)
}

/// One entry's lines with its value set to `now`.
fn entry_set(lines: &str, value_at: usize, was: &Value, now: &Value, indent: usize, nl: &str) -> Option<String> {
    if let (Value::Object(w), Value::Object(n)) = (was, now) {
        let first_end = lines.find('\n').map_or(lines.len(), |i| i + 1);
        let head = lines[value_at..first_end].trim_end_matches(['\n', '\r']);
        let value = head.trim_start().strip_prefix(':')?.trim();
        if (value.is_empty() || value.starts_with('#')) && first_end < lines.len() {
            return Some(format!("{}{}", &lines[..first_end], entries_set(&lines[first_end..], w, n, nl)?));
        }
        if value.starts_with('{') && first_end == lines.len() {
            // `flow_map` reads its line as a document of its own: without the indentation.
            let line = &lines[indent..];
            return flow_map::set(line, value_at - indent, n).map(|l| format!("{}{l}", &lines[..indent]));
        }
    }
    let ending = if lines.ends_with("\r\n") {
        "\r\n"
    } else if lines.ends_with('\n') {
        "\n"
    } else {
        ""
    };
    Some(format!("{}: {}{ending}", &lines[..value_at], quote::render(now)))
}

/// The entries of a block mapping's lines and their common indentation; None when the lines
/// are not one mapping at one indentation.
fn entries(body: &str) -> Option<(usize, Vec<Entry>)> {
    let mut indent = None;
    let mut out: Vec<Entry> = Vec::new();
    let mut pos = 0;
    for line in body.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let text = content.trim_start_matches(' ');
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if text.starts_with('\t') {
            return None;
        }
        let at = content.len() - text.len();
        let this = *indent.get_or_insert(at);
        // Deeper lines, and a list written at the key's own column, belong to the entry above.
        if at > this || (at == this && (text == "-" || text.starts_with("- "))) {
            out.last_mut()?.range.end = pos;
            continue;
        }
        if at < this || text.starts_with(['&', '*', '!', '?', '"', '\'']) {
            return None;
        }
        let colon = text
            .char_indices()
            .find(|&(i, c)| c == ':' && text[i + 1..].chars().next().is_none_or(|n| n == ' ' || n == '\t'))?;
        let key = text[..colon.0].trim_end();
        out.push(Entry { key: key.to_string(), range: start..pos, value_at: at + key.len() });
    }
    // The entries' ranges end at their last line of content (blank and comment lines after
    // them stay where they are).
    Some((indent?, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    const META: &str = "metadata:\n  lint:\n    stale: true\n    stale_since: 2026-01-01\n  fork:\n    parent_wiki: a\n    parent_slug: b\n  tags:\n    - x\n    - y\n";

    #[test]
    fn an_added_entry_is_one_line() {
        let mut new = parsed(META).unwrap();
        new.insert(
            "folio".into(),
            json!({"vetoed": {"by": "human:ann", "at": "2026-11-27T12:00:00Z", "reason": "wrong"}}),
        );
        let out = set(META, 8, &new, "\n").unwrap();
        assert_eq!(
            out,
            format!("{META}  folio: {{vetoed: {{by: \"human:ann\", at: \"2026-11-27T12:00:00Z\", reason: wrong}}}}\n")
        );
    }

    #[test]
    fn a_nested_entry_changes_alone() {
        let mut new = parsed(META).unwrap();
        new["lint"]["stale"] = json!(false);
        let out = set(META, 8, &new, "\n").unwrap();
        assert_eq!(out, META.replace("stale: true", "stale: false"));
        let mut deeper = parsed(META).unwrap();
        deeper["lint"].as_object_mut().unwrap().insert("stale_reason".into(), json!("old"));
        let out = set(META, 8, &deeper, "\n").unwrap();
        assert_eq!(out, META.replace("2026-01-01\n", "2026-01-01\n    stale_reason: old\n"));
    }

    #[test]
    fn a_flow_entry_keeps_its_style_and_crlf_is_kept() {
        let t = "metadata:\r\n  folio: { kept_both: x }\r\n  other: 1\r\n";
        let new = obj(json!({"folio": {"kept_both": "x", "vetoed": "z"}, "other": 1}));
        assert_eq!(
            set(t, 8, &new, "\r\n").unwrap(),
            "metadata:\r\n  folio: { kept_both: x, vetoed: z }\r\n  other: 1\r\n"
        );
        let added = obj(json!({"folio": {"kept_both": "x"}, "other": 1, "z": true}));
        assert_eq!(set(t, 8, &added, "\r\n").unwrap(), format!("{t}  z: true\r\n"));
    }

    #[test]
    fn declines_what_it_cannot_keep() {
        let fewer = obj(json!({"lint": {"stale": true, "stale_since": "2026-01-01"}}));
        assert_eq!(set(META, 8, &fewer, "\n"), None, "a removed entry");
        assert_eq!(set("metadata: {a: 1}\n", 8, &obj(json!({"a": 2})), "\n"), None, "a flow mapping");
        assert_eq!(set("metadata:\n  \"a\": 1\n", 8, &obj(json!({"a": 2})), "\n"), None, "a quoted key");
    }
}
