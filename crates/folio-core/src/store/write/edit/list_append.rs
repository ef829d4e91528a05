//! Adding items to a YAML list in the style it is already written in: a block list gains one
//! `- item` line per item at its indentation (a mapping item as a block or `{ flow }` mapping
//! like the items there), a one-line flow list gains `, item` before its `]`. The items
//! already there keep their bytes (an approval once rewrote a block list of `verified:` stamps
//! as one flow line).
use serde_json::Value;

use super::quote;

/// `extent` (one top-level key's lines; the key name ends at `value_at`) with `items` added,
/// or None when its value is not a block list or a one-line flow list.
pub fn added(extent: &str, value_at: usize, items: &[Value], nl: &str) -> Option<String> {
    let first_end = extent.find('\n').map_or(extent.len(), |i| i + 1);
    let value = extent.get(value_at..first_end)?.trim_end_matches(['\n', '\r']);
    let value = value.trim_start().strip_prefix(':')?.trim();
    let rest = &extent[first_end..];
    if value.is_empty() || value.starts_with('#') {
        block_list(extent, rest, items, nl)
    } else if rest.trim().is_empty() {
        flow_list(extent, first_end, value, items)
    } else {
        None
    }
}

/// How the items of a block list are written.
enum ItemStyle {
    Scalar,
    /// `- { by: x, at: y }` (`spaced`) or `- {by: x, at: y}`.
    FlowMap {
        spaced: bool,
    },
    /// `- id: x` with the other keys on the lines below, `indent` spaces in.
    BlockMap {
        indent: usize,
    },
}

fn block_list(extent: &str, rest: &str, items: &[Value], nl: &str) -> Option<String> {
    let lines: Vec<&str> = rest.lines().collect();
    let first_item = lines.iter().find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))?;
    let dash_at = first_item.len() - first_item.trim_start().len();
    let after_dash = first_item.trim_start().strip_prefix('-')?;
    if !(after_dash.is_empty() || after_dash.starts_with([' ', '\t'])) {
        return None;
    }
    let item_text = after_dash.trim_start();
    let text_at = first_item.len() - item_text.len();
    let style = if item_text.starts_with('{') {
        ItemStyle::FlowMap { spaced: item_text.starts_with("{ ") }
    } else if is_key_line(item_text) {
        ItemStyle::BlockMap { indent: text_at }
    } else {
        ItemStyle::Scalar
    };
    // Every other line of the list must be an item at the same column or deeper text.
    if lines.iter().any(|l| !l.trim().is_empty() && l.len() - l.trim_start().len() < dash_at) {
        return None;
    }
    let prefix = format!("{}- ", &first_item[..dash_at]);
    let mut out = extent.to_string();
    if !out.ends_with('\n') {
        out.push_str(nl);
    }
    for item in items {
        out.push_str(&prefix);
        match (item, &style) {
            (Value::Object(map), ItemStyle::BlockMap { indent }) if !map.is_empty() => {
                for (n, (k, v)) in map.iter().enumerate() {
                    if n > 0 {
                        out.push_str(&" ".repeat(*indent));
                    }
                    out.push_str(&format!("{}: {}{nl}", quote::string(k, false), block_value(v)));
                }
                continue;
            }
            (Value::Object(_), ItemStyle::FlowMap { spaced: true }) => {
                let flow = quote::render(item);
                out.push_str(&format!("{{ {} }}", &flow[1..flow.len() - 1]));
            }
            _ => out.push_str(&block_value(item)),
        }
        out.push_str(nl);
    }
    if !extent.ends_with('\n') {
        out.truncate(out.len() - nl.len());
    }
    Some(out)
}

fn flow_list(extent: &str, first_end: usize, value: &str, items: &[Value]) -> Option<String> {
    let inner = value.strip_prefix('[')?.strip_suffix(']')?;
    // Nested brackets or quotes holding `]` are left to a whole-value rewrite.
    if inner.contains(['[', ']']) {
        return None;
    }
    let close = extent[..first_end].rfind(']')?;
    let new: Vec<String> = items.iter().map(flow_value).collect();
    let sep = if inner.trim().is_empty() { "" } else { ", " };
    let before = extent[..close].trim_end_matches([' ', '\t']);
    let before = if inner.trim().is_empty() { extent[..close].trim_end() } else { before };
    Some(format!("{before}{sep}{}{}", new.join(", "), &extent[close..]))
}

/// Whether an item's first line is a `key: value` pair (a block mapping item).
fn is_key_line(text: &str) -> bool {
    !text.starts_with(['"', '\'', '[', '{'])
        && text
            .char_indices()
            .any(|(i, c)| c == ':' && text[i + 1..].chars().next().is_none_or(|n| n == ' ' || n == '\t'))
}

fn block_value(v: &Value) -> String {
    match v {
        Value::String(s) => quote::string(s, false),
        other => quote::render(other),
    }
}

fn flow_value(v: &Value) -> String {
    match v {
        Value::String(s) => quote::string(s, true),
        other => quote::render(other),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FieldEdit, apply};
    use crate::store::dialect::Grammar;
    use serde_json::json;

    fn append(text: &str, key: &str, items: serde_json::Value) -> String {
        let items = items.as_array().unwrap().clone();
        apply(text, Grammar::Yaml, &FieldEdit::append(key, items)).unwrap()
    }

    #[test]
    fn a_block_list_of_flow_mappings_gains_one_line_in_its_style() {
        let text = "---\ntitle: T\nverified:\n  - { by: human:jsmith@acme, at: 2026-07-01T09:00:00Z }\nstatus: stable\n---\nbody\n";
        let out = append(text, "verified", json!([{"by": "human:ceo", "at": "2026-11-25T10:00:00Z"}]));
        assert_eq!(
            out,
            "---\ntitle: T\nverified:\n  - { by: human:jsmith@acme, at: 2026-07-01T09:00:00Z }\n  - { by: \"human:ceo\", at: \"2026-11-25T10:00:00Z\" }\nstatus: stable\n---\nbody\n"
        );
    }

    #[test]
    fn a_block_list_of_block_mappings_gains_a_block_mapping() {
        let text = "---\nsources:\n  - id: a\n    resource: a.md\n# kept\ntags: [x]\n---\n";
        let out = append(text, "sources", json!([{"id": "b", "resource": "b.md"}]));
        assert_eq!(
            out,
            "---\nsources:\n  - id: a\n    resource: a.md\n  - id: b\n    resource: b.md\n# kept\ntags: [x]\n---\n"
        );
    }

    #[test]
    fn scalars_flow_lists_crlf_and_unindented_items() {
        let out = append("---\naliases:\n- One\n---\n", "aliases", json!(["Two words"]));
        assert_eq!(out, "---\naliases:\n- One\n- Two words\n---\n");
        let out = append("---\ntags: [a, b]  \nx: 1\n---\n", "tags", json!(["c", "d"]));
        assert_eq!(out, "---\ntags: [a, b, c, d]  \nx: 1\n---\n");
        let out = append("---\ntags: []\n---\n", "tags", json!(["c"]));
        assert_eq!(out, "---\ntags: [c]\n---\n");
        let out = append("---\r\nl:\r\n  - a\r\n---\r\n", "l", json!(["b"]));
        assert_eq!(out, "---\r\nl:\r\n  - a\r\n  - b\r\n---\r\n");
        let out = append("---\nx: 1\n---\n", "l", json!(["b"]));
        assert_eq!(out, "---\nx: 1\nl: [b]\n---\n");
    }

    #[test]
    fn a_value_that_is_not_a_list_is_refused() {
        let text = "---\nl: plain\n---\n";
        assert!(apply(text, Grammar::Yaml, &FieldEdit::append("l", vec![json!("b")])).is_err());
    }
}
