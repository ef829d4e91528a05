//! Surgical frontmatter edits: set, add, rename or remove one key, changing only that key's
//! bytes. Everything else — BOM, CRLF line endings, comments, key order, quoting, unknown keys
//! and the body — survives byte for byte. Every result is re-parsed and must equal exactly the
//! intended change, or the edit is refused.
use serde_json::Value;

use crate::store::dialect::{Grammar, parse_key_values};
use crate::store::read::frontmatter::{self, Block, Fields};

mod block_map;
mod flow_map;
mod keyvalue;
mod list_append;
pub mod quote;
mod yaml;

pub use yaml::key_ranges;

/// One change to one frontmatter key.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldEdit {
    /// Set (or add, when absent) `key` to `value`.
    Set {
        key: String,
        value: Value,
    },
    Remove {
        key: String,
    },
    Rename {
        from: String,
        to: String,
    },
    /// Add `items` at the end of the list `key` in the list's own style: one `- item` line per
    /// item in a block list (a mapping item as a block or flow mapping like the items already
    /// there), `, item` inside a one-line flow list. Never rewrites the items already there.
    Append {
        key: String,
        items: Vec<Value>,
    },
}

impl FieldEdit {
    pub fn set(key: &str, value: impl Into<Value>) -> Self {
        FieldEdit::Set { key: key.to_string(), value: value.into() }
    }
    pub fn remove(key: &str) -> Self {
        FieldEdit::Remove { key: key.to_string() }
    }
    pub fn rename(from: &str, to: &str) -> Self {
        FieldEdit::Rename { from: from.to_string(), to: to.to_string() }
    }
    pub fn append(key: &str, items: Vec<Value>) -> Self {
        FieldEdit::Append { key: key.to_string(), items }
    }

    /// The fields as they must read after the edit (order kept; an added key goes last).
    fn expected(&self, before: &Fields) -> Result<Fields, EditError> {
        let mut out = Fields::new();
        match self {
            FieldEdit::Set { key, value } => {
                out = before.clone();
                out.insert(key.clone(), value.clone());
            }
            FieldEdit::Remove { key } => {
                if !before.contains_key(key) {
                    return Err(EditError::KeyMissing(key.clone()));
                }
                out.extend(before.iter().filter(|(k, _)| *k != key).map(|(k, v)| (k.clone(), v.clone())));
            }
            FieldEdit::Rename { from, to } => {
                if !before.contains_key(from) {
                    return Err(EditError::KeyMissing(from.clone()));
                }
                if from != to && before.contains_key(to) {
                    return Err(EditError::KeyExists(to.clone()));
                }
                for (k, v) in before {
                    out.insert(if k == from { to.clone() } else { k.clone() }, v.clone());
                }
            }
            FieldEdit::Append { key, items } => {
                out = before.clone();
                let mut list = match before.get(key) {
                    Some(Value::Array(list)) => list.clone(),
                    None => Vec::new(),
                    Some(_) => return Err(EditError::NotAList(key.clone())),
                };
                list.extend(items.iter().cloned());
                out.insert(key.clone(), Value::Array(list));
            }
        }
        Ok(out)
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EditError {
    #[error("no key `{0}` in the frontmatter")]
    KeyMissing(String),
    #[error("key `{0}` already exists")]
    KeyExists(String),
    #[error("`{0}` is not a usable key name")]
    BadKey(String),
    #[error("the frontmatter block is never closed; refusing to edit it")]
    Unterminated,
    #[error("the frontmatter does not parse ({0}); refusing to edit it")]
    Unparseable(String),
    #[error("this format keeps one line per key: {0}")]
    NotOneLine(String),
    #[error("`{0}` is not a list to add items to")]
    NotAList(String),
    #[error("the edit would not read back as intended ({0}); nothing changed")]
    Verify(String),
}

/// The line ending a file uses (its first line decides).
pub fn newline_of(text: &str) -> &'static str {
    match memchr::memchr(b'\n', text.as_bytes()) {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Apply one edit to a whole file's text.
pub fn apply(text: &str, grammar: Grammar, edit: &FieldEdit) -> Result<String, EditError> {
    check_key(edit)?;
    let nl = newline_of(text);
    let (inner, before) = match frontmatter::locate(text) {
        Block::Unterminated => return Err(EditError::Unterminated),
        Block::None => (None, Fields::new()),
        Block::Closed { inner, .. } => {
            let fields = parse(&text[inner.clone()], grammar)?;
            (Some(inner), fields)
        }
    };
    let expected = edit.expected(&before)?;
    let out = match inner {
        Some(inner) => {
            let block = &text[inner.clone()];
            let new_block = match grammar {
                Grammar::Yaml => yaml::edit(block, edit, nl)?,
                Grammar::KeyValue => keyvalue::edit(block, edit, nl)?,
            };
            format!("{}{}{}", &text[..inner.start], new_block, &text[inner.end..])
        }
        None => {
            let (key, value) = match edit {
                FieldEdit::Set { key, value } => (key, value.clone()),
                FieldEdit::Append { key, items } => (key, Value::Array(items.clone())),
                _ => return Err(EditError::KeyMissing(edit_key(edit))),
            };
            let value = &value;
            let line = match grammar {
                Grammar::Yaml => yaml::line(key, value, nl)?,
                Grammar::KeyValue => keyvalue::line(key, value, nl)?,
            };
            let bom = if text.starts_with('\u{feff}') { "\u{feff}".len() } else { 0 };
            format!("{}---{nl}{line}---{nl}{}", &text[..bom], &text[bom..])
        }
    };
    verify(&out, grammar, &expected)?;
    Ok(out)
}

fn edit_key(edit: &FieldEdit) -> String {
    match edit {
        FieldEdit::Set { key, .. } | FieldEdit::Remove { key } | FieldEdit::Append { key, .. } => key.clone(),
        FieldEdit::Rename { from, .. } => from.clone(),
    }
}

fn check_key(edit: &FieldEdit) -> Result<(), EditError> {
    let keys: Vec<&String> = match edit {
        FieldEdit::Set { key, .. } | FieldEdit::Remove { key } | FieldEdit::Append { key, .. } => vec![key],
        FieldEdit::Rename { from, to } => vec![from, to],
    };
    for k in keys {
        let bad = k.is_empty()
            || k.trim() != k
            || k.contains([
                ':', '#', '\n', '\r', '"', '\'', '{', '}', '[', ']', ',', '&', '*', '!', '|', '>', '%', '@', '`',
            ])
            || k.starts_with(['-', '?'])
            || k.chars().any(char::is_control);
        if bad {
            return Err(EditError::BadKey(k.clone()));
        }
    }
    Ok(())
}

fn parse(block: &str, grammar: Grammar) -> Result<Fields, EditError> {
    match grammar {
        Grammar::Yaml => frontmatter::parse_yaml(block).map_err(|e| EditError::Unparseable(e.message)),
        Grammar::KeyValue => Ok(parse_key_values(block)),
    }
}

/// The edited text must re-parse to exactly the intended fields.
fn verify(out: &str, grammar: Grammar, expected: &Fields) -> Result<(), EditError> {
    let Block::Closed { inner, .. } = frontmatter::locate(out) else {
        return Err(EditError::Verify("the frontmatter block was lost".into()));
    };
    let got = parse(&out[inner], grammar).map_err(|e| EditError::Verify(e.to_string()))?;
    // evolve's grammar reads every value back as a string.
    let expected = match grammar {
        Grammar::Yaml => expected.clone(),
        Grammar::KeyValue => expected
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(frontmatter::scalar_text(v).trim().to_string())))
            .collect(),
    };
    if got != expected {
        let keys: Vec<String> = got.keys().cloned().collect();
        return Err(EditError::Verify(format!("keys read back: {}", keys.join(", "))));
    }
    if got.keys().collect::<Vec<_>>() != expected.keys().collect::<Vec<_>>() {
        return Err(EditError::Verify("key order changed".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn yaml(text: &str, e: FieldEdit) -> Result<String, EditError> {
        apply(text, Grammar::Yaml, &e)
    }

    #[test]
    fn set_changes_only_that_key() {
        let t = "---\n# keep me\ntitle: 'Quoted'\nstatus: draft\nzz_unknown: {a: 1}\n---\nbody [[x]]\n";
        let out = yaml(t, FieldEdit::set("status", "stable")).unwrap();
        assert_eq!(out, "---\n# keep me\ntitle: 'Quoted'\nstatus: stable\nzz_unknown: {a: 1}\n---\nbody [[x]]\n");
    }

    #[test]
    fn add_goes_last_and_keeps_crlf_and_bom() {
        let t = "\u{feff}---\r\ntype: Table\r\n---\r\nbody\r\n";
        let out = yaml(t, FieldEdit::set("description", "Has: a colon")).unwrap();
        assert_eq!(out, "\u{feff}---\r\ntype: Table\r\ndescription: \"Has: a colon\"\r\n---\r\nbody\r\n");
    }

    #[test]
    fn multi_line_values_are_replaced_whole() {
        let t = "---\ntags:\n  - a\n  - b\n# trailing comment\nx: 1\n---\n";
        let out = yaml(t, FieldEdit::set("tags", json!(["c", "d e"]))).unwrap();
        assert_eq!(out, "---\ntags: [c, d e]\n# trailing comment\nx: 1\n---\n");
        let out = yaml(t, FieldEdit::remove("tags")).unwrap();
        assert_eq!(out, "---\n# trailing comment\nx: 1\n---\n");
    }

    #[test]
    fn rename_keeps_value_bytes() {
        let t = "---\ntrigger:   \"When x\"  # why\nb: 2\n---\n";
        let out = yaml(t, FieldEdit::rename("trigger", "description")).unwrap();
        assert_eq!(out, "---\ndescription:   \"When x\"  # why\nb: 2\n---\n");
        assert_eq!(yaml(t, FieldEdit::rename("trigger", "b")), Err(EditError::KeyExists("b".into())));
        assert_eq!(yaml(t, FieldEdit::remove("nope")), Err(EditError::KeyMissing("nope".into())));
    }

    #[test]
    fn values_are_quoted_as_yaml_needs() {
        let t = "---\na: 1\n---\n";
        for (value, written) in [
            (json!("yes"), "\"yes\""),
            (json!("1.0"), "\"1.0\""),
            (json!("plain words"), "plain words"),
            (json!("# not a comment"), "\"# not a comment\""),
            (json!("line\nbreak"), "\"line\\nbreak\""),
            (json!(0.5), "0.5"),
            (json!(true), "true"),
            (json!({"by": "human:ann"}), "{by: \"human:ann\"}"),
        ] {
            let out = yaml(t, FieldEdit::set("k", value)).unwrap();
            assert_eq!(out, format!("---\na: 1\nk: {written}\n---\n"));
        }
    }

    #[test]
    fn file_without_frontmatter_gets_a_block() {
        assert_eq!(yaml("# Title\n", FieldEdit::set("type", "Note")).unwrap(), "---\ntype: Note\n---\n# Title\n");
        assert_eq!(yaml("# T\n", FieldEdit::remove("type")), Err(EditError::KeyMissing("type".into())));
    }

    #[test]
    fn broken_frontmatter_is_refused() {
        assert!(matches!(yaml("---\na: [1\n---\n", FieldEdit::set("b", 1)), Err(EditError::Unparseable(_))));
        assert_eq!(yaml("---\na: 1\n", FieldEdit::set("b", 1)), Err(EditError::Unterminated));
        assert!(matches!(yaml("---\na: 1\n---\n", FieldEdit::set("a: b", 1)), Err(EditError::BadKey(_))));
    }

    #[test]
    fn evolve_key_values_are_edited_in_their_own_grammar() {
        let t = "---\ntype: guideline\ntrigger: When a: b happens\n---\nbody\n";
        let out = apply(t, Grammar::KeyValue, &FieldEdit::rename("trigger", "description")).unwrap();
        assert_eq!(out, "---\ntype: guideline\ndescription: When a: b happens\n---\nbody\n");
        let out = apply(t, Grammar::KeyValue, &FieldEdit::set("owner", "ann: x")).unwrap();
        assert_eq!(out, "---\ntype: guideline\ntrigger: When a: b happens\nowner: ann: x\n---\nbody\n");
        assert!(matches!(apply(t, Grammar::KeyValue, &FieldEdit::set("owner", "a\nb")), Err(EditError::NotOneLine(_))));
    }
}
