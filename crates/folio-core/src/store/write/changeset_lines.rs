//! Lines of folio's append-only state files that a changeset carried (each names it in a
//! `"changeset"` field, e.g. the review verdicts): undoing the changeset drops them in the same
//! journaled write as its files, so what it decided is undone with what it wrote.
use std::io;
use std::path::{Path, PathBuf};

use crate::store::model::digest;

/// A state file with the carried lines dropped, for undo to write in its own changeset.
pub struct Rewrite {
    pub path: PathBuf,
    /// Digest of the bytes the new content was made from.
    pub expected: String,
    pub bytes: Vec<u8>,
}

/// `path` without the JSON lines whose `changeset` is `id`; every other line, damaged ones
/// included, is kept byte for byte. None: the file is missing or names no such changeset.
pub fn without_changeset(path: &Path, id: &str) -> io::Result<Option<Rewrite>> {
    let old = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let carried = |line: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(line)
            .is_ok_and(|v| v.get("changeset").and_then(|c| c.as_str()) == Some(id))
    };
    let mut bytes = Vec::with_capacity(old.len());
    for line in old.split_inclusive(|&b| b == b'\n') {
        if !carried(line.trim_ascii_end()) {
            bytes.extend_from_slice(line);
        }
    }
    if bytes.len() == old.len() {
        return Ok(None);
    }
    Ok(Some(Rewrite { path: path.to_path_buf(), expected: digest::of(&old), bytes }))
}
