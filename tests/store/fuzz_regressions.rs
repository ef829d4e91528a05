//! Inputs the fuzz targets (`fuzz/`) found, kept as ordinary tests so `cargo test` guards
//! them without a nightly toolchain. Each checks the same property as its target.
use folio::store::dialect::Grammar;
use folio::store::read::frontmatter::{self, Block, Fields};
use folio::store::write::edit::{self, FieldEdit};
use serde_json::Value;

fn fields(text: &str) -> Option<Fields> {
    match frontmatter::locate(text) {
        Block::Closed { inner, .. } => frontmatter::parse_yaml(&text[inner]).ok(),
        Block::None => Some(Fields::new()),
        Block::Unterminated => None,
    }
}

/// The text after the frontmatter (a leading BOM belongs to the file, not the body).
fn body(text: &str) -> &str {
    match frontmatter::locate(text) {
        Block::Closed { body_start, .. } => &text[body_start..],
        _ => text.strip_prefix('\u{feff}').unwrap_or(text),
    }
}

/// The `surgical_edit` property: setting a key re-parses to exactly the old fields plus it,
/// and the body is untouched.
fn set_reparses_exactly(text: &str, key: &str, value: &str) {
    let Some(before) = fields(text) else { return };
    let value = Value::String(value.to_string());
    let Ok(after) = edit::apply(text, Grammar::Yaml, &FieldEdit::set(key, value.clone())) else { return };
    let mut want = before;
    want.insert(key.to_string(), value);
    assert_eq!(fields(&after), Some(want), "{text:?} set {key:?}: got {after:?}");
    assert_eq!(body(&after), body(text), "{text:?} set {key:?}: got {after:?}");
}

#[test]
fn setting_a_key_on_a_file_that_is_only_a_bom() {
    // fuzz/regressions/surgical_edit/crash-997f369ac091e1c159229bac7dbfa1318f6f24a1
    // A file holding only a BOM: the BOM stays first, the new block follows it.
    set_reparses_exactly("\u{feff}", "\u{fffd}8\u{fffd}", "");
    let after = edit::apply("\u{feff}", Grammar::Yaml, &FieldEdit::set("k", "v")).unwrap();
    assert_eq!(after, "\u{feff}---\nk: v\n---\n");
}

/// The `markdown_render` property: nothing hostile or wider than the pane in the laid-out text.
fn renders_within_the_pane(data: &[u8]) {
    use folio::markdown::{doc, highlight::Highlighter, layout};
    use unicode_width::UnicodeWidthStr;
    let (width, body) = match data.split_first() {
        Some((w, rest)) => (u16::from(*w % 120) + 1, rest),
        None => (40, data),
    };
    let text = String::from_utf8_lossy(body);
    let parsed = doc::parse(&text);
    let highlighter = Highlighter::synchronous();
    let laid = layout::layout(&parsed, &layout::Options { width, highlighter: &highlighter, syntax_theme: "none" });
    for line in &laid.lines {
        let shown = line.text();
        assert!(!shown.chars().any(|c| folio::store::read::hostile::is_hostile(c) || matches!(c, '\t' | '\r' | '\n')));
        assert!(shown.width() <= usize::from(width).max(8), "{shown:?} wider than {width}");
    }
}

#[test]
fn every_markdown_render_crasher_stays_fixed() {
    // A six-column table narrower than six three-letter columns; a fence info string wider
    // than the pane.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/markdown_render");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        renders_within_the_pane(&std::fs::read(entry.unwrap().path()).unwrap());
        seen += 1;
    }
    assert!(seen >= 2, "crashers missing from {}", dir.display());
}
