//! Finding and parsing the frontmatter block at the top of a markdown file.
//!
//! A block exists only when line 1 is `---` (a UTF-8 BOM and trailing blanks allowed); it ends at
//! the first later line that is `---`. This is what OKF's reference reader, evolve and
//! EloPhanto's indexer accept: a `---` further down the file is just a thematic break.
use serde_json::{Map, Value};

pub mod simple_yaml;
pub mod view;
pub mod yaml_limits;

pub use view::{Val, View};

/// Frontmatter fields in file order, YAML values mapped onto JSON values.
pub type Fields = Map<String, Value>;

/// Where the block sits in the file. Offsets are bytes into the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// The file does not start with `---`.
    None,
    /// `---` on line 1 but no closing line: the whole file is treated as body.
    Unterminated,
    Closed {
        /// The text between the delimiter lines.
        inner: std::ops::Range<usize>,
        /// First byte after the closing delimiter line.
        body_start: usize,
        /// 1-based line of the closing delimiter.
        close_line: u32,
    },
}

const BOM: &str = "\u{feff}";

/// Locate the frontmatter block.
pub fn locate(text: &str) -> Block {
    let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
    let first_end = match memchr::memchr(b'\n', &text.as_bytes()[start..]) {
        Some(i) => start + i,
        None => return Block::None,
    };
    if text[start..first_end].trim_end() != "---" {
        return Block::None;
    }
    let inner_start = first_end + 1;
    let mut line_start = inner_start;
    let mut line_no = 2u32;
    while line_start <= text.len() {
        let line_end =
            memchr::memchr(b'\n', &text.as_bytes()[line_start..]).map(|i| line_start + i).unwrap_or(text.len());
        if text[line_start..line_end].trim_end() == "---" {
            let body_start = (line_end + 1).min(text.len());
            return Block::Closed { inner: inner_start..line_start, body_start, close_line: line_no };
        }
        if line_end == text.len() {
            break;
        }
        line_start = line_end + 1;
        line_no += 1;
    }
    Block::Unterminated
}

/// A YAML parse failure, positioned relative to the start of the block's inner text.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    pub message: String,
    /// 1-based line inside the YAML text (add the block's first line to place it in the file).
    pub line: u32,
    pub col: u32,
}

/// Byte range of the top-level key `key` (the name alone) in the closed frontmatter block of
/// `text`, when exactly one line there starts with it: what a fix renaming the key edits.
pub fn top_level_key(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let Block::Closed { inner, .. } = locate(text) else { return None };
    let mut found = None;
    let mut at = inner.start;
    for line in crate::store::model::lines::split_lines(&text[inner.clone()]) {
        if let Some(rest) = line.strip_prefix(key)
            && rest.trim_start_matches([' ', '\t']).starts_with(':')
        {
            if found.is_some() {
                return None;
            }
            found = Some(at..at + key.len());
        }
        at += line.len();
    }
    found
}

/// Parse YAML frontmatter into an ordered mapping. An empty block is an empty mapping.
pub fn parse_yaml(yaml: &str) -> Result<Fields, YamlError> {
    if yaml.trim().is_empty() {
        return Ok(Fields::new());
    }
    if let Some(view) = simple_yaml::parse_view(yaml) {
        return Ok(view.into_fields());
    }
    parse_with_serde(yaml)
}

/// The same fields as `parse_yaml`, as a view borrowing the block's text where it can: the
/// load path's reader (see `view`).
pub fn parse_yaml_view(yaml: &str) -> Result<View<'_>, YamlError> {
    if yaml.trim().is_empty() {
        return Ok(View::new());
    }
    if let Some(view) = simple_yaml::parse_view(yaml) {
        return Ok(view);
    }
    parse_with_serde(yaml).map(View::from_fields)
}

/// What the simple reader cannot take: serde_yaml_ng, behind the YAML bomb guard.
fn parse_with_serde(yaml: &str) -> Result<Fields, YamlError> {
    // The simple reader has no anchors and no nesting, so only the YAML parser needs the bomb
    // guard (which costs as much as the simple reader itself: docs/benchmarks.md, "Load figures").
    yaml_limits::check(yaml).map_err(|message| YamlError { message, line: 1, col: 1 })?;
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).map_err(|e| {
        let (line, col) = e.location().map(|l| (l.line() as u32, l.column() as u32)).unwrap_or((1, 1));
        YamlError { message: first_line(&e.to_string()), line, col }
    })?;
    match yaml_to_json(value) {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Fields::new()),
        other => Err(YamlError {
            message: format!("frontmatter is a {}, not a mapping", json_type_name(&other)),
            line: 1,
            col: 1,
        }),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_string()
}

pub fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

/// YAML → JSON: non-string keys become their YAML text, tags are dropped.
pub fn yaml_to_json(v: serde_yaml_ng::Value) -> Value {
    use serde_yaml_ng::Value as Y;
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number)
                    .unwrap_or_else(|| Value::String(n.to_string()))
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(seq) => Value::Array(seq.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(m) => {
            let mut out = Map::with_capacity(m.len());
            for (k, v) in m {
                let key = match k {
                    Y::String(s) => s,
                    other => scalar_text(&yaml_to_json(other)),
                };
                out.insert(key, yaml_to_json(v));
            }
            Value::Object(out)
        }
        Y::Tagged(t) => yaml_to_json(t.value),
    }
}

/// A scalar as display text (strings without quotes).
pub fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// What kind of value `v` is, as a message names it ("a string", "a list").
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Object(_) => "a mapping",
    }
}

/// A field as a single string: strings, numbers and booleans; not lists or mappings.
pub fn get_str(fields: &Fields, key: &str) -> Option<String> {
    match fields.get(key)? {
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A field as a list of strings: a YAML list of scalars, or a comma-separated string
/// (EloPhanto writes `tags: a, b, c`).
pub fn get_list(fields: &Fields, key: &str) -> Vec<String> {
    match fields.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .filter(|v| !v.is_object() && !v.is_array())
            .map(scalar_text)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(s)) => split_commas(s),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => vec![scalar_text(v)],
        _ => Vec::new(),
    }
}

pub fn split_commas(s: &str) -> Vec<String> {
    s.split(',').map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect()
}

/// A numeric field (also a number written as a string).
pub fn get_f64(fields: &Fields, key: &str) -> Option<f64> {
    match fields.get(key)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_closed_block() {
        let t = "---\ntype: X\n---\nbody\n";
        match locate(t) {
            Block::Closed { inner, body_start, close_line } => {
                assert_eq!(&t[inner], "type: X\n");
                assert_eq!(&t[body_start..], "body\n");
                assert_eq!(close_line, 3);
            }
            b => panic!("{b:?}"),
        }
    }

    #[test]
    fn bom_crlf_and_trailing_blanks() {
        let t = "\u{feff}---  \r\na: 1\r\n---\r\nbody";
        let Block::Closed { inner, body_start, .. } = locate(t) else { panic!() };
        assert_eq!(&t[inner], "a: 1\r\n");
        assert_eq!(&t[body_start..], "body");
    }

    #[test]
    fn block_must_start_on_line_one() {
        assert_eq!(locate("# Title\n---\na: 1\n---\n"), Block::None);
        assert_eq!(locate("---"), Block::None);
        assert_eq!(locate(""), Block::None);
    }

    #[test]
    fn unterminated_block() {
        assert_eq!(locate("---\na: 1\nbody\n"), Block::Unterminated);
    }

    #[test]
    fn empty_block_at_end_of_file() {
        let t = "---\n---";
        let Block::Closed { inner, body_start, .. } = locate(t) else { panic!() };
        assert!(inner.is_empty());
        assert_eq!(body_start, t.len());
    }

    #[test]
    fn yaml_mapping_keeps_order_and_types() {
        let f = parse_yaml("b: 1\na: [x, y]\nc: '2026-01-01'\n").unwrap();
        assert_eq!(f.keys().collect::<Vec<_>>(), ["b", "a", "c"]);
        assert_eq!(get_list(&f, "a"), ["x", "y"]);
        assert_eq!(get_str(&f, "c").as_deref(), Some("2026-01-01"));
        assert_eq!(get_str(&f, "b").as_deref(), Some("1"));
    }

    #[test]
    fn yaml_errors_are_positioned_and_non_mappings_rejected() {
        let e = parse_yaml("a: [1, 2\nb: c\n").unwrap_err();
        assert!(e.line >= 1);
        assert!(parse_yaml("- a\n- b\n").unwrap_err().message.contains("list"));
        assert!(parse_yaml("just text").unwrap_err().message.contains("string"));
    }

    #[test]
    fn comma_string_tags() {
        let f = parse_yaml("tags: identity, self ,agent\n").unwrap();
        assert_eq!(get_list(&f, "tags"), ["identity", "self", "agent"]);
    }

    #[test]
    fn billion_laughs_is_refused_not_expanded() {
        let bomb = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n\
            b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n\
            d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n\
            f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n\
            h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
        assert!(parse_yaml(bomb).is_err());
    }
}
