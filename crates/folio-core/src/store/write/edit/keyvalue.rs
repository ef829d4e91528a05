//! Editing evolve's `key: value` frontmatter: one line per key, split at the first colon,
//! values written raw (evolve's reader does not unquote).
use serde_json::Value;

use super::{EditError, FieldEdit};
use crate::store::read::frontmatter::scalar_text;

/// One `key: value` line; the value must fit on one line and carry no surrounding blanks.
pub fn line(key: &str, value: &Value, nl: &str) -> Result<String, EditError> {
    let text = match value {
        Value::Array(items) => items.iter().map(scalar_text).collect::<Vec<_>>().join(", "),
        other => scalar_text(other),
    };
    if text.contains(['\n', '\r']) {
        return Err(EditError::NotOneLine(format!("the value for `{key}` spans several lines")));
    }
    Ok(format!("{key}: {}{nl}", text.trim()))
}

/// Byte range of the (last) line holding `key`, as evolve's reader keeps the last one.
fn find(block: &str, key: &str) -> Option<(std::ops::Range<usize>, usize)> {
    let mut pos = 0;
    let mut found = None;
    for l in block.split_inclusive('\n') {
        if let Some((k, _)) = l.split_once(':')
            && k.trim() == key
        {
            found = Some((pos..pos + l.len(), pos + l.find(key).unwrap_or(0)));
        }
        pos += l.len();
    }
    found
}

pub fn edit(block: &str, edit: &FieldEdit, nl: &str) -> Result<String, EditError> {
    match edit {
        FieldEdit::Set { key, value } => {
            let new_line = line(key, value, nl)?;
            match find(block, key) {
                Some((range, _)) => {
                    let old = &block[range.clone()];
                    let new_line =
                        if old.ends_with('\n') { new_line } else { new_line.trim_end_matches(['\n', '\r']).into() };
                    Ok(format!("{}{new_line}{}", &block[..range.start], &block[range.end..]))
                }
                None => {
                    let sep = if block.is_empty() || block.ends_with('\n') { "" } else { nl };
                    Ok(format!("{block}{sep}{new_line}"))
                }
            }
        }
        FieldEdit::Remove { key } => {
            let (range, _) = find(block, key).ok_or_else(|| EditError::KeyMissing(key.clone()))?;
            Ok(format!("{}{}", &block[..range.start], &block[range.end..]))
        }
        // One line per key: the caller writes the whole comma-separated value with `Set`.
        FieldEdit::Append { key, .. } => Err(EditError::NotAList(key.clone())),
        FieldEdit::Rename { from, to } => {
            let (_, at) = find(block, from).ok_or_else(|| EditError::KeyMissing(from.clone()))?;
            Ok(format!("{}{to}{}", &block[..at], &block[at + from.len()..]))
        }
    }
}
