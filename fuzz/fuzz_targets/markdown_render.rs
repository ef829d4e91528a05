//! The preview renderer on arbitrary bytes: never a panic, nothing from the input reaches the
//! terminal raw (no control character, escape, bidi override or zero-width character survives
//! into the laid-out text), every line fits the width it was laid out for, and the output is
//! bounded by the input's size.
#![no_main]
use folio_tui::markdown::doc;
use folio_tui::markdown::highlight::Highlighter;
use folio_tui::markdown::layout::{self, Options};
use folio_core::store::read::hostile::is_hostile;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use unicode_width::UnicodeWidthStr;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the pane width (the layout clamps anything under 8).
    let (width, body) = match data.split_first() {
        Some((w, rest)) => (u16::from(*w % 120) + 1, rest),
        None => (40, data),
    };
    let text = String::from_utf8_lossy(body);
    let parsed = doc::parse(&text);
    // Syntax highlighting (syntect, seconds per new language under the sanitisers) is left out:
    // its runs go through the same sanitiser as plain code, which this target exercises.
    static HIGHLIGHTER: OnceLock<Highlighter> = OnceLock::new();
    let highlighter = HIGHLIGHTER.get_or_init(Highlighter::synchronous);
    let opts = Options { width, highlighter, syntax_theme: "none" };
    let laid = layout::layout(&parsed, &opts);
    let width = usize::from(width).max(8);
    let mut cells = 0usize;
    for line in &laid.lines {
        let shown = line.text();
        if let Some(c) = shown.chars().find(|&c| is_hostile(c) || matches!(c, '\t' | '\r' | '\n')) {
            panic!("raw {c:?} in rendered line {shown:?}");
        }
        assert!(shown.width() <= width, "line of width {} in a {width}-column pane: {shown:?}", shown.width());
        cells += width;
    }
    // Every input byte may become a visible stand-in (`⟨U+202E⟩`) and nesting repeats prefixes,
    // but the screen area stays proportional to the input.
    assert!(cells <= 64 * (text.len() + 1) * width.max(8), "{cells} cells for {} bytes", text.len());
    assert_eq!(laid.link_rows.len(), parsed.links.len());
});
