//! For the crate's own tests: every store under `tests/fixtures`, loaded as detection finds it
//! (formats, entries sharing a file, CRLF, frontmatter), for checks that must hold on all of them.
use std::path::{Path, PathBuf};

use super::Store;
use super::read::detect;

/// Each fixture's folder with its store.
pub fn all() -> Vec<(PathBuf, Store)> {
    let fixtures = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&fixtures).unwrap().map(|d| d.unwrap().path()).collect();
    dirs.sort();
    dirs.into_iter()
        .map(|root| {
            let found = detect::detect(&root);
            (root, Store::load(&found.root, found.kind, found.reason))
        })
        .collect()
}
