//! Store-local folio state, where the store's format puts it (`Format::state_dir`). Holds the
//! write journal, undo records, content-addressed objects (before/after images) and the
//! archive. Nothing in it ends in `.md`, so no format's reader mistakes it for content.
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::fs_ops;
use crate::store::dialect::DialectKind;
use crate::store::model::digest;

/// Undo records kept when `config.json` does not say otherwise.
pub const DEFAULT_UNDO_DEPTH: usize = 20;

#[derive(Debug, Clone)]
pub struct State {
    pub dir: PathBuf,
}

impl State {
    pub fn for_store(root: &Path, kind: DialectKind) -> State {
        State { dir: kind.format().state_dir(root) }
    }

    pub fn journal_path(&self) -> PathBuf {
        self.dir.join("journal.jsonl")
    }

    /// The review verdicts (`review/verdicts.jsonl`), one JSON line each.
    pub fn verdicts_path(&self) -> PathBuf {
        self.dir.join("review").join("verdicts.jsonl")
    }

    /// The append-only files whose lines name the changeset that carried them (undo drops those).
    pub fn changeset_tagged_files(&self) -> Vec<PathBuf> {
        vec![self.verdicts_path()]
    }

    pub fn undo_dir(&self) -> PathBuf {
        self.dir.join("undo")
    }

    fn object_path(&self, digest: &str) -> PathBuf {
        self.dir.join("objects").join(digest::hex(digest))
    }

    /// Keep `bytes` under their digest (idempotent); returns the digest.
    pub fn put_object(&self, bytes: &[u8]) -> io::Result<String> {
        let d = digest::of(bytes);
        let p = self.object_path(&d);
        if !p.exists() {
            fs_ops::write_atomic(&p, bytes)?;
        }
        Ok(d)
    }

    pub fn object(&self, digest: &str) -> io::Result<Vec<u8>> {
        let bytes = fs::read(self.object_path(digest))?;
        if digest::of(&bytes) != digest {
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("object {digest} is corrupt")));
        }
        Ok(bytes)
    }

    /// Remove every object not named in `keep`.
    pub fn collect_garbage(&self, keep: &std::collections::HashSet<String>) {
        let Ok(entries) = fs::read_dir(self.dir.join("objects")) else { return };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !keep.contains(&format!("sha256:{name}")) && !name.starts_with('.') {
                let _ = fs::remove_file(e.path());
            }
        }
    }

    /// How many applied changesets undo remembers (`{"undo_depth": N}` in `config.json`).
    pub fn undo_depth(&self) -> usize {
        fs::read(self.dir.join("config.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get("undo_depth").and_then(|d| d.as_u64()))
            .map(|d| d as usize)
            .unwrap_or(DEFAULT_UNDO_DEPTH)
    }

    /// Keep an archived file's bytes for good (outside the object garbage collection).
    pub fn archive(&self, rel: &str, bytes: &[u8]) -> io::Result<String> {
        let d = digest::of(bytes);
        let dir = self.dir.join("archive");
        fs_ops::write_atomic(&dir.join(digest::hex(&d)), bytes)?;
        let line =
            serde_json::json!({"path": rel, "object": d, "ts": crate::store::model::timestamp::now_iso()}).to_string();
        append_line(&dir.join("index.jsonl"), &line)?;
        Ok(d)
    }
}

/// Append one line and fsync (the journal and JSON-lines indexes).
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        fs_ops::create_dir_all(dir)?;
    }
    fs_ops::append_synced(path, format!("{line}\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evolve_state_sits_beside_the_bundle() {
        let s = State::for_store(Path::new("/p/.evolve/entities"), crate::store::dialect::evolve::KIND);
        assert_eq!(s.dir, Path::new("/p/.evolve/folio"));
        let s = State::for_store(Path::new("/p/wiki"), crate::store::dialect::vault::KIND);
        assert_eq!(s.dir, Path::new("/p/wiki/.folio"));
    }

    #[test]
    fn objects_round_trip_and_are_collected() {
        let dir = tempfile::tempdir().unwrap();
        let s = State { dir: dir.path().join(".folio") };
        let a = s.put_object(b"one").unwrap();
        let b = s.put_object(b"two").unwrap();
        assert_eq!(s.object(&a).unwrap(), b"one");
        s.collect_garbage(&[b.clone()].into_iter().collect());
        assert!(s.object(&a).is_err());
        assert_eq!(s.object(&b).unwrap(), b"two");
        assert_eq!(s.undo_depth(), DEFAULT_UNDO_DEPTH);
    }
}
