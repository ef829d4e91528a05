//! Link extraction on arbitrary text: never a panic, every span inside the text on character
//! boundaries and opening with `[` (links, wikilinks), `![` (embeds) or `<` (autolinks), lines
//! counted from 1.
#![no_main]
use folio_core::store::model::lines::LineIndex;
use folio_core::store::read::links;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = LineIndex::new(&text);
    for link in links::extract(&text, 0, &lines) {
        let (start, end) = (link.span.start as usize, link.span.end as usize);
        assert!(start <= end && end <= text.len(), "span {start}..{end} in {} bytes", text.len());
        let written = text.get(start..end).expect("span on character boundaries");
        assert!(
            written.starts_with('[') || written.starts_with("![") || written.starts_with('<'),
            "span {written:?}"
        );
        assert!(link.line >= 1 && link.col >= 1);
        let _ = links::percent_decode(link.target());
    }
});
