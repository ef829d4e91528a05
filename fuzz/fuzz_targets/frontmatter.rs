//! Frontmatter location and both grammars on arbitrary bytes: never a panic, and a closed
//! block's inner range always lies inside the text on character boundaries.
#![no_main]
use folio_core::store::dialect::parse_key_values;
use folio_core::store::read::frontmatter::{self, Block};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Block::Closed { inner, .. } = frontmatter::locate(&text) {
        let block = text.get(inner.clone()).expect("inner range on char boundaries");
        let _ = frontmatter::parse_yaml(block);
        let _ = parse_key_values(block);
    }
    let _ = frontmatter::parse_yaml(&text);
});
