//! Surgical edit then re-parse: setting one key yields exactly the old fields plus that key,
//! and the body after the frontmatter is byte-identical. Input: key line, value line, text.
#![no_main]
use folio_core::store::dialect::Grammar;
use folio_core::store::write::edit::{self, FieldEdit};
use folio_core::store::read::frontmatter::{self, Block, Fields};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn fields(text: &str) -> Option<Fields> {
    match frontmatter::locate(text) {
        Block::Closed { inner, .. } => frontmatter::parse_yaml(&text[inner]).ok(),
        Block::None => Some(Fields::new()),
        Block::Unterminated => None,
    }
}

fn body(text: &str) -> &str {
    match frontmatter::locate(text) {
        Block::Closed { body_start, .. } => &text[body_start..],
        // A leading BOM belongs to the file, not the body: the new block goes after it.
        _ => text.strip_prefix('\u{feff}').unwrap_or(text),
    }
}

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let mut parts = input.splitn(3, '\n');
    let (Some(key), Some(value), Some(text)) = (parts.next(), parts.next(), parts.next()) else { return };
    let Some(before) = fields(text) else { return };
    let value = Value::String(value.to_string());
    let Ok(after_text) = edit::apply(text, Grammar::Yaml, &FieldEdit::set(key, value.clone())) else { return };
    let mut want = before;
    want.insert(key.to_string(), value);
    assert_eq!(fields(&after_text), Some(want), "the edit re-parses to exactly the intended change");
    assert_eq!(body(&after_text), body(text), "the body is untouched");
});
