//! folio's own writes, remembered so the watcher's echo of them is not announced as an outside
//! change: the review jobs record each file they wrote with the digest of the bytes now on disk,
//! and a refresh that finds exactly those bytes is folio's own write (the model still reloads
//! from it; only the "reloaded … changed file(s)" message is left out).
use std::collections::HashMap;

/// A file's path (relative to the store root) and the digest of its bytes (None: no such file).
pub type Fingerprint = (String, Option<String>);

/// The digest of each relative path as it is on disk now (background work: reads the files).
pub fn fingerprints(root: &std::path::Path, paths: &[String]) -> Vec<Fingerprint> {
    paths
        .iter()
        .map(|p| (p.clone(), std::fs::read(root.join(p)).ok().map(|b| folio_core::store::model::digest::of(&b))))
        .collect()
}

#[derive(Debug, Default, Clone)]
pub struct OwnWrites {
    written: HashMap<String, Option<String>>,
}

impl OwnWrites {
    /// folio wrote these files (their bytes after the write).
    pub fn record(&mut self, files: Vec<Fingerprint>) {
        self.written.extend(files);
    }

    /// How many of the files a refresh found are not folio's own last write of them.
    pub fn outside(&self, found: &[Fingerprint]) -> usize {
        found.iter().filter(|(path, digest)| self.written.get(path) != Some(digest)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bytes_folio_wrote_are_its_own() {
        let mut own = OwnWrites::default();
        own.record(vec![("a.md".into(), Some("sha256:1".into())), ("gone.md".into(), None)]);
        assert_eq!(own.outside(&[("a.md".into(), Some("sha256:1".into())), ("gone.md".into(), None)]), 0);
        // An agent rewrote the file after folio: that is an outside change.
        assert_eq!(own.outside(&[("a.md".into(), Some("sha256:2".into()))]), 1);
        assert_eq!(own.outside(&[("b.md".into(), Some("sha256:1".into()))]), 1);
    }
}
