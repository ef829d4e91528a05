//! Frontmatter edits inside a draft: read a file's fields as the draft has them, set or remove
//! one key surgically (`store::edit`), so every verdict changes only the bytes it means to.
use serde_json::{Map, Value};

use super::ReviewError;
use super::draft::Draft;
use crate::store::Store;
use crate::store::dialect::{Grammar, parse_key_values, yaml_fields};
use crate::store::read::frontmatter::{self, Block, Fields};
use crate::store::write::edit::{self, FieldEdit};

pub fn grammar(store: &Store) -> Grammar {
    store.kind().format().grammar()
}

/// The fields of `path` as the draft currently has them.
pub fn read(draft: &mut Draft, store: &Store, path: &str) -> Result<Fields, ReviewError> {
    let text = draft.text(store, path)?;
    Ok(match grammar(store) {
        Grammar::Yaml => yaml_fields(text),
        Grammar::KeyValue => match frontmatter::locate(text) {
            Block::Closed { inner, .. } => parse_key_values(&text[inner]),
            _ => Fields::new(),
        },
    })
}

pub fn set(draft: &mut Draft, store: &Store, path: &str, key: &str, value: Value) -> Result<(), ReviewError> {
    // evolve's one-line `key: value` grammar has no lists: they are written comma-separated.
    let value = match (grammar(store), value) {
        (Grammar::KeyValue, Value::Array(items)) => {
            Value::String(items.iter().map(frontmatter::scalar_text).collect::<Vec<_>>().join(", "))
        }
        (_, v) => v,
    };
    edit_one(draft, store, path, FieldEdit::set(key, value))
}

/// Add `items` not already there to the list `key`, in the list's own style (`FieldEdit::Append`);
/// a value written some other way (a scalar, evolve's comma-separated line) is set whole.
pub fn append(draft: &mut Draft, store: &Store, path: &str, key: &str, items: &[Value]) -> Result<(), ReviewError> {
    let f = read(draft, store, path)?;
    let existing = match f.get(key) {
        Some(Value::Array(list)) => Some(list),
        _ => None,
    };
    let new: Vec<Value> = items.iter().filter(|i| existing.is_none_or(|l| !l.contains(i))).cloned().collect();
    if new.is_empty() && existing.is_some() {
        return Ok(());
    }
    if grammar(store) == Grammar::Yaml && (existing.is_some() || !f.contains_key(key)) {
        let text = draft.text(store, path)?;
        if let Ok(out) = edit::apply(text, Grammar::Yaml, &FieldEdit::append(key, new)) {
            *text = out;
            return Ok(());
        }
    }
    set(draft, store, path, key, with_items(&f, key, items))
}

pub fn remove(draft: &mut Draft, store: &Store, path: &str, key: &str) -> Result<(), ReviewError> {
    if read(draft, store, path)?.contains_key(key) {
        edit_one(draft, store, path, FieldEdit::remove(key))?;
    }
    Ok(())
}

fn edit_one(draft: &mut Draft, store: &Store, path: &str, e: FieldEdit) -> Result<(), ReviewError> {
    let grammar = grammar(store);
    let text = draft.text(store, path)?;
    let new = edit::apply(text, grammar, &e).map_err(|err| ReviewError::refused(format!("{path}: {err}")))?;
    *text = new;
    Ok(())
}

/// A mapping field with `key` set inside it (`provenance.lifecycle`, `metadata.folio`) of the
/// file at `path` (`record_mapping`).
pub fn with_entry(path: &str, fields: &Fields, field: &str, key: &str, value: Value) -> Result<Value, ReviewError> {
    let mut map = record_mapping(path, fields, field, key)?;
    map.insert(key.to_string(), value);
    Ok(Value::Object(map))
}

/// The mapping field `field` of the file at `path`, for a verdict to record `key` in: empty
/// when the field is absent, `null` or blank. A field that holds something else (an agent's
/// `provenance: "imported from the wiki"`) is refused: made a mapping, what the agent wrote
/// there would be gone.
pub fn record_mapping(path: &str, fields: &Fields, field: &str, key: &str) -> Result<Map<String, Value>, ReviewError> {
    match fields.get(field) {
        Some(Value::Object(m)) => Ok(m.clone()),
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Map::new()),
        Some(other) => Err(ReviewError::refused(format!(
            "{path}: `{field}` is {}, not a mapping, and folio records this decision inside it \
             (`{field}.{key}`): that would replace what is there; nothing was written",
            frontmatter::json_kind(other)
        ))),
    }
}

/// A list field with `items` added (a bare scalar or mapping becomes the first item), no
/// item twice.
pub fn with_items(fields: &Fields, field: &str, items: &[Value]) -> Value {
    let mut list = match fields.get(field) {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Null) | None => Vec::new(),
        Some(Value::String(s)) if s.trim().is_empty() => Vec::new(),
        // evolve's comma-separated lists.
        Some(Value::String(s)) if s.contains(',') => {
            frontmatter::split_commas(s).into_iter().map(Value::String).collect()
        }
        Some(other) => vec![other.clone()],
    };
    for item in items {
        if !list.contains(item) {
            list.push(item.clone());
        }
    }
    Value::Array(list)
}

/// A nested string (`provenance.lifecycle`).
pub fn nested_str(fields: &Fields, field: &str, key: &str) -> Option<String> {
    fields.get(field)?.get(key).map(frontmatter::scalar_text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn list_and_mapping_helpers() {
        let f: Fields = serde_json::from_value(json!({"v": {"by": "a"}, "p": {"source": "x"}, "l": "a, b"})).unwrap();
        assert_eq!(with_items(&f, "v", &[json!({"by": "b"})]), json!([{"by": "a"}, {"by": "b"}]));
        assert_eq!(with_items(&f, "l", &[json!("b"), json!("c")]), json!(["a", "b", "c"]));
        assert_eq!(with_items(&f, "none", &[json!("z")]), json!(["z"]));
        let entry = |f: &Fields, field: &str| with_entry("a.md", f, field, "lifecycle", json!("active"));
        assert_eq!(entry(&f, "p").ok(), Some(json!({"source": "x", "lifecycle": "active"})));
        assert_eq!(entry(&f, "none").ok(), Some(json!({"lifecycle": "active"})));
        // What an agent wrote in the field's place is never replaced by the mapping.
        let odd: Fields =
            serde_json::from_value(json!({"s": "from the wiki", "l": ["r1"], "n": 3, "z": null, "b": " "})).unwrap();
        assert_eq!(entry(&odd, "z").ok(), Some(json!({"lifecycle": "active"})));
        assert_eq!(entry(&odd, "b").ok(), Some(json!({"lifecycle": "active"})));
        for (field, kind) in [("s", "a string"), ("l", "a list"), ("n", "a number")] {
            let Err(ReviewError::Refused(why)) = entry(&odd, field) else { panic!("`{field}` replaced") };
            assert_eq!(
                why,
                format!(
                    "a.md: `{field}` is {kind}, not a mapping, and folio records this decision inside it \
                     (`{field}.lifecycle`): that would replace what is there; nothing was written"
                )
            );
        }
        assert_eq!(nested_str(&f, "p", "source").as_deref(), Some("x"));
    }
}
