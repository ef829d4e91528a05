//! Recent recall queries, per store, in `recall-history` in the person's state folder for the
//! store (`store::keep::personal`), one query a line, newest last. Never inside the store.
use std::path::{Path, PathBuf};

/// How many queries are kept.
pub const KEEP: usize = 20;

pub fn path(dir: &Path) -> PathBuf {
    dir.join("recall-history")
}

/// The remembered queries, newest first. A missing or unreadable file is no history.
pub fn load(dir: &Path) -> Vec<String> {
    let Ok((bytes, _)) = crate::store::read::fsio::read_capped(&path(dir), 64 * 1024) else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes);
    let mut out: Vec<String> = Vec::new();
    for line in text.lines().rev().map(str::trim).filter(|l| !l.is_empty()) {
        if !out.iter().any(|q| q == line) {
            out.push(line.to_string());
        }
    }
    out.truncate(KEEP);
    out
}

/// `recent` with `query` moved to the front.
pub fn remember(recent: &[String], query: &str) -> Vec<String> {
    let query: String = query.chars().filter(|c| !c.is_control()).collect();
    let query = query.trim();
    let mut out = vec![query.to_string()];
    out.extend(recent.iter().filter(|q| q.as_str() != query).cloned());
    out.retain(|q| !q.is_empty());
    out.truncate(KEEP);
    out
}

/// Write the history (newest last) through a temporary file, so a crash never leaves half.
pub fn save(dir: &Path, recent: &[String]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut text = String::new();
    for q in recent.iter().rev() {
        text.push_str(q);
        text.push('\n');
    }
    let tmp = dir.join("recall-history.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(tmp, path(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_newest_first_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join(".folio");
        assert!(load(&d).is_empty());
        let mut recent = Vec::new();
        for q in ["margin", "kind:metric", "margin", " ", "a\x1bb"] {
            recent = remember(&recent, q);
        }
        assert_eq!(recent, ["ab", "margin", "kind:metric"]);
        save(&d, &recent).unwrap();
        assert_eq!(std::fs::read_to_string(path(&d)).unwrap(), "kind:metric\nmargin\nab\n");
        assert_eq!(load(&d), recent);
        let many: Vec<String> = (0..30).map(|n| n.to_string()).collect();
        let mut r = Vec::new();
        for q in &many {
            r = remember(&r, q);
        }
        assert_eq!(r.len(), KEEP);
        assert_eq!(r[0], "29");
    }
}
