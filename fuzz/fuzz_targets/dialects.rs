//! Every dialect's parser on arbitrary bytes, read the way the loader reads a file (lossy
//! UTF-8): never a panic, every entity's span inside the text.
#![no_main]
use std::sync::OnceLock;

use folio_core::store::dialect::{Dialect, DialectKind, SourceFile};
use folio_core::store::model::lines::LineIndex;
use libfuzzer_sys::fuzz_target;

fn dialects() -> &'static Vec<(Box<dyn Dialect>, &'static str)> {
    static D: OnceLock<Vec<(Box<dyn Dialect>, &'static str)>> = OnceLock::new();
    D.get_or_init(|| {
        let root = std::env::temp_dir().join("folio-fuzz-empty-root");
        let _ = std::fs::create_dir_all(&root);
        // A path each dialect treats as an entity file.
        let rel = |k: DialectKind| match k {
            folio_core::store::dialect::evolve::KIND => "guideline/a.md",
            folio_core::store::dialect::elophanto::KIND => "learned/a.md",
            folio_core::store::dialect::awareness::KIND => "memory/a.md",
            _ => "notes/a.md",
        };
        DialectKind::all().map(|k| (k.open(&root), rel(k))).collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = LineIndex::new(&text);
    for (dialect, rel) in dialects() {
        let source = SourceFile { rel, text: &text, lines: &lines, problems: &[], parseable: true };
        for e in dialect.parse(&source) {
            assert!(e.span.start <= e.span.end && e.span.end as usize <= text.len());
        }
    }
});
