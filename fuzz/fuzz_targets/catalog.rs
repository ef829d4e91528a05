//! Catalog generation is idempotent on arbitrary stores: after `catalog::write`, a reload finds
//! every catalog fresh and a second write changes nothing. Up to eight files (split on 0xFF,
//! the first byte of each picking its folder) form an OKF bundle and an AIP-10 wiki.
#![no_main]
use std::path::Path;
use std::sync::OnceLock;

use folio_core::store::Store;
use folio_core::store::write::catalog::{self, CatalogState};
use folio_core::store::dialect::DialectKind;
use libfuzzer_sys::fuzz_target;

const FOLDERS: &[&str] = &["", "tables", "tables/archive", "metrics", "wiki", "Other Stuff"];
const NAMES: &[&str] = &["a.md", "b.md", "index.md", "c d.md", "log.md", "é.md", "KNOWLEDGE.md", "z.txt"];

fn scratch() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temp dir")).path()
}

fn build(root: &Path, data: &[u8]) {
    for (i, chunk) in data.split(|&b| b == 0xff).take(NAMES.len()).enumerate() {
        let (folder, text) = match chunk.split_first() {
            Some((f, rest)) => (FOLDERS[usize::from(*f) % FOLDERS.len()], rest),
            None => ("", chunk),
        };
        let dir = root.join(folder);
        std::fs::create_dir_all(&dir).expect("folder");
        std::fs::write(dir.join(NAMES[i]), text).expect("file");
    }
}

fn idempotent(root: &Path, kind: DialectKind) {
    let store = Store::load(root, kind, "fuzz".into());
    if catalog::write(&store).is_err() {
        // A file in a catalog's place that is not a catalog: refused before anything is written.
        return;
    }
    let reloaded = Store::load(root, kind, "fuzz".into());
    for s in catalog::status(&reloaded) {
        assert!(
            matches!(s.state, CatalogState::Fresh | CatalogState::Refused(_)),
            "{kind:?}: {} is {:?} right after writing it",
            s.path,
            s.state
        );
    }
    let again = catalog::write(&reloaded).expect("second write");
    assert!(again.written.is_empty(), "{kind:?}: second write rewrote {:?}", again.written);
}

fuzz_target!(|data: &[u8]| {
    for kind in [folio_core::store::dialect::okf::KIND, folio_core::store::dialect::aip10::KIND] {
        let root = scratch().join(kind.name());
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("root");
        build(&root, data);
        idempotent(&root, kind);
    }
});
