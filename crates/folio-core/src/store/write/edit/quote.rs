//! Writing a value as YAML: plain where YAML reads it back unchanged, double-quoted otherwise.
use serde_json::Value;

use crate::store::read::frontmatter;

/// A value as YAML text on one line (flow style for lists and mappings).
pub fn render(value: &Value) -> String {
    match value {
        Value::String(s) => string(s, false),
        Value::Array(items) => format!("[{}]", items.iter().map(flow_item).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter().map(|(k, v)| format!("{}: {}", string(k, true), flow_item(v))).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

fn flow_item(v: &Value) -> String {
    match v {
        Value::String(s) => string(s, true),
        other => render(other),
    }
}

/// A string, plain when that reads back as the same string, else JSON-escaped double quotes
/// (a JSON string is a valid YAML double-quoted scalar).
pub fn string(s: &str, in_flow: bool) -> String {
    if plain_is_safe(s, in_flow) { s.to_string() } else { serde_json::to_string(s).unwrap_or_default() }
}

fn plain_is_safe(s: &str, in_flow: bool) -> bool {
    let Some(first) = s.chars().next() else { return false };
    if s.trim() != s || !(first.is_alphanumeric() || "/._~(".contains(first)) {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') || s.chars().any(|c| c.is_control()) {
        return false;
    }
    if in_flow && s.contains([',', '[', ']', '{', '}', ':']) {
        return false;
    }
    // YAML 1.1 readers (PyYAML, which OKF's tools use) take these as booleans.
    const YAML11_BOOLS: &[&str] = &["yes", "no", "on", "off", "y", "n", "true", "false", "null", "~"];
    if YAML11_BOOLS.contains(&s.to_ascii_lowercase().as_str()) {
        return false;
    }
    // `1.0`, `0x1f`, `.inf` … read back as something other than this string.
    matches!(frontmatter::parse_yaml(&format!("k: {s}\n")).ok().and_then(|f| f.get("k").cloned()),
        Some(Value::String(back)) if back == s)
}
