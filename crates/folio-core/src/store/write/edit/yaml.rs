//! Editing a YAML frontmatter block by top-level key extents, never by re-serialising.
use std::ops::Range;

use serde_json::Value;

use super::{EditError, FieldEdit, quote};

/// A top-level key and the bytes it owns: its line and every continuation line (indented
/// lines and `- ` items), without trailing blank or comment lines.
struct KeyExtent {
    key: String,
    /// The whole extent, including its final line ending.
    range: Range<usize>,
    /// The key name as written on the line (possibly quoted).
    name: Range<usize>,
}

/// Every top-level key of a YAML block with the byte range it owns.
pub fn key_ranges(block: &str) -> Vec<(String, Range<usize>)> {
    extents(block).into_iter().map(|e| (e.key, e.range)).collect()
}

fn extents(block: &str) -> Vec<KeyExtent> {
    let mut out: Vec<KeyExtent> = Vec::new();
    let mut pos = 0;
    for line in block.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let first = content.chars().next();
        let is_continuation = matches!(first, Some(' ' | '\t'))
            || content == "-"
            || content.starts_with("- ")
            || content.starts_with("...");
        let is_filler = content.trim().is_empty() || content.starts_with('#');
        if is_continuation {
            if let Some(last) = out.last_mut() {
                last.range.end = pos;
            }
            continue;
        }
        if is_filler {
            continue;
        }
        if let Some((name, key)) = key_of(content) {
            out.push(KeyExtent { key, range: start..pos, name: start + name.start..start + name.end });
        }
    }
    out
}

/// The key of a `key: value` line: the name's byte range and its unquoted text.
fn key_of(line: &str) -> Option<(Range<usize>, String)> {
    if let Some(q) = line.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let end = line[1..].find(q)? + 1;
        let rest = line[end + 1..].trim_start();
        if !rest.starts_with(':') {
            return None;
        }
        return Some((0..end + 1, line[1..end].to_string()));
    }
    let colon = line
        .char_indices()
        .find(|&(i, c)| c == ':' && line[i + 1..].chars().next().is_none_or(|n| n == ' ' || n == '\t' || n == '\r'))?;
    let name = line[..colon.0].trim_end();
    Some((0..name.len(), name.to_string()))
}

/// One `key: value` line.
pub fn line(key: &str, value: &Value, nl: &str) -> Result<String, EditError> {
    Ok(format!("{key}: {}{nl}", quote::render(value)))
}

pub fn edit(block: &str, edit: &FieldEdit, nl: &str) -> Result<String, EditError> {
    let ext = extents(block);
    let find = |k: &str| ext.iter().find(|e| e.key == k);
    match edit {
        FieldEdit::Set { key, value } => {
            let new_line = line(key, value, nl)?;
            match find(key) {
                Some(e)
                    if let Value::Object(map) = value
                        && let Some(out) =
                            super::flow_map::set(&block[e.range.clone()], e.name.end - e.range.start, map).or_else(
                                || super::block_map::set(&block[e.range.clone()], e.name.end - e.range.start, map, nl),
                            ) =>
                {
                    Ok(format!("{}{out}{}", &block[..e.range.start], &block[e.range.end..]))
                }
                Some(e) => {
                    // Keep the extent's own line ending (the last line of a block may have none).
                    let old = &block[e.range.clone()];
                    let new_line =
                        if old.ends_with('\n') { new_line } else { new_line.trim_end_matches(['\n', '\r']).into() };
                    Ok(format!("{}{new_line}{}", &block[..e.range.start], &block[e.range.end..]))
                }
                None => {
                    let sep = if block.is_empty() || block.ends_with('\n') { "" } else { nl };
                    Ok(format!("{block}{sep}{new_line}"))
                }
            }
        }
        FieldEdit::Remove { key } => {
            let e = find(key).ok_or_else(|| EditError::KeyMissing(key.clone()))?;
            Ok(format!("{}{}", &block[..e.range.start], &block[e.range.end..]))
        }
        FieldEdit::Rename { from, to } => {
            let e = find(from).ok_or_else(|| EditError::KeyMissing(from.clone()))?;
            Ok(format!("{}{to}{}", &block[..e.name.start], &block[e.name.end..]))
        }
        FieldEdit::Append { key, items } => match find(key) {
            None => self::edit(block, &FieldEdit::Set { key: key.clone(), value: Value::Array(items.clone()) }, nl),
            Some(e) => {
                let extent = &block[e.range.clone()];
                let value_at = e.name.end - e.range.start;
                let added = super::list_append::added(extent, value_at, items, nl)
                    .ok_or_else(|| EditError::NotAList(key.clone()))?;
                Ok(format!("{}{added}{}", &block[..e.range.start], &block[e.range.end..]))
            }
        },
    }
}
