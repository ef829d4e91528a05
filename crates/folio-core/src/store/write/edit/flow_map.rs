//! Setting a one-line flow mapping (`provenance: { source: reflection, lifecycle: pending-review }`)
//! entry by entry: a changed entry's value is replaced in place, a new entry goes before the
//! closing brace with the separator the mapping already uses, so its padding and spacing stay
//! (a veto once rewrote `{ a: b }` as `{a: b}`). Anything else (nested braces, quoted keys,
//! removed entries, comments) is left to the whole-line rewrite.
use serde_json::{Map, Value};

use super::quote;
use crate::store::read::frontmatter;

/// `extent` (one key's line, the name ending at `value_at`) with its flow mapping set to
/// `new`, or None when the value is not a simple one-line flow mapping `new` only adds to or
/// changes.
pub fn set(extent: &str, value_at: usize, new: &Map<String, Value>) -> Option<String> {
    let line_end = extent.find('\n').map_or(extent.len(), |i| i + 1);
    if line_end != extent.len() {
        return None;
    }
    let after_name = &extent[value_at..];
    let colon = after_name.find(':')?;
    let open = value_at + colon + 1 + after_name[colon + 1..].find('{')?;
    if !extent[value_at + colon + 1..open].trim().is_empty() {
        return None;
    }
    let close = open + extent[open..].find('}')?;
    let inner = &extent[open + 1..close];
    if inner.contains(['{', '[', '"', '\'', '#']) || !extent[close + 1..].trim().is_empty() {
        return None;
    }
    // Entries with the byte range of each value.
    let mut entries: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    let mut at = open + 1;
    for part in inner.split(',') {
        let (k, _) = part.split_once(':')?;
        let v_start = at + part.find(':')? + 1;
        let v_lead = extent[v_start..at + part.len()].len() - extent[v_start..at + part.len()].trim_start().len();
        let v_end = at + part.trim_end().len();
        entries.push((k.trim().to_string(), v_start + v_lead..v_end.max(v_start + v_lead)));
        at += part.len() + 1;
    }
    if new.len() < entries.len() || entries.iter().any(|(k, _)| !new.contains_key(k)) {
        return None;
    }
    let sep = inner.split(',').nth(1).map(|p| &p[..p.len() - p.trim_start().len()]).unwrap_or(" ");
    let mut out = extent.to_string();
    let pad_end = close - (inner.len() - inner.trim_end().len());
    // A mapping written `{ a: b }` has its nested mappings written the same way.
    let padded = inner.starts_with(' ');
    let flow = |v: &Value| match (v, padded) {
        (Value::Object(m), true) if !m.is_empty() => {
            let f = flow(v);
            format!("{{ {} }}", &f[1..f.len() - 1])
        }
        _ => flow(v),
    };
    let added: String = new
        .iter()
        .filter(|(k, _)| !entries.iter().any(|(e, _)| e == *k))
        .map(|(k, v)| format!(",{sep}{}: {}", quote::string(k, true), flow(v)))
        .collect();
    out.insert_str(pad_end, &added);
    for (k, range) in entries.iter().rev() {
        out.replace_range(range.clone(), &flow(&new[k]));
    }
    // Only a result that reads back as exactly `new` (entries beyond the old ones last).
    let back = frontmatter::parse_yaml(&out).ok()?;
    let got = back.values().next()?.as_object()?;
    (got == new).then_some(out)
}

fn flow(v: &Value) -> String {
    match v {
        Value::String(s) => quote::string(s, true),
        other => quote::render(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn keeps_padding_and_spacing() {
        let line = "provenance: { source: reflection, lifecycle: pending-review }\n";
        let new = obj(json!({"source": "reflection", "lifecycle": "active"}));
        assert_eq!(set(line, 10, &new).unwrap(), "provenance: { source: reflection, lifecycle: active }\n");
        let nested = obj(json!({"source": "x", "veto": {"by": "h", "reason": "r"}}));
        assert_eq!(set("p: { source: x }\n", 1, &nested).unwrap(), "p: { source: x, veto: { by: h, reason: r } }\n");
        let tight = "p: {source: x}\n";
        let new = obj(json!({"source": "x", "merged_from": ["a", "b"]}));
        assert_eq!(set(tight, 1, &new).unwrap(), "p: {source: x, merged_from: [a, b]}\n");
    }

    #[test]
    fn declines_what_it_cannot_keep() {
        let new = obj(json!({"a": "1"}));
        assert_eq!(set("p: { a: 1, b: 2 }\n", 1, &new), None, "a removed entry");
        assert_eq!(set("p: { a: \"x,y\" }\n", 1, &new), None, "a quoted value");
        assert_eq!(set("p:\n  a: 1\n", 1, &new), None, "a block mapping");
    }
}
