//! Fixes as data: what a safe fix would change, bound to the exact bytes it was computed from.
//!
//! A fix is either surgical byte edits or a whole new file (catalogs). It carries what the file
//! must be for it to apply (its hash, or the size and mtime the store loaded it with), so a
//! writer can refuse when the file changed in between. Fixes here only replace or insert text;
//! none deletes content.
use std::io::{self, Read as _};
use std::ops::Range;
use std::path::Path;

use crate::store::Store;
use crate::store::model::entity::EntityIdx;

/// Replace `range` (bytes of the original file) with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteEdit {
    pub range: Range<usize>,
    pub replacement: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Non-overlapping edits into the current file.
    Edits(Vec<ByteEdit>),
    /// The file's new content, whole (a regenerated catalog).
    Replace(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// File the fix changes, relative to the store root.
    pub path: String,
    /// What the fix does, in one line (the JSON `fix` field).
    pub description: String,
    /// What the file must be for the fix to apply.
    pub expected: Expected,
    pub change: Change,
}

/// What a file must be for a fix to apply: anything else means it changed since the lint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// The file must not exist (a catalog to create).
    Absent,
    /// `sha256:<hex>` of the bytes the fix was computed from.
    Hash(String),
    /// The file as the store loaded it, by size and mtime: the fix was computed from what the
    /// loader found (a problem's located bytes), and the file is read and hashed only when the
    /// fix is applied: an evolve store can need a `legacy-trigger` fix in every file, and
    /// reading and hashing them all again would be a large share of a cold `folio lint`
    /// (docs/benchmarks.md, "Lint figures"). Only files last changed well before the store's
    /// reads began get one (`loaded_stamp`).
    Loaded(Stamp),
}

/// A file's size and modification time, in nanoseconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i64,
}

/// A file as read just before a fix applies to it: its bytes and, when read from disk, its stamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnDisk {
    pub bytes: Vec<u8>,
    pub stamp: Option<Stamp>,
}

impl OnDisk {
    /// Read `path`; `None` when it does not exist. The stamp is taken after the bytes, so a
    /// write during the read shows as another size or mtime.
    pub fn read(path: &Path) -> io::Result<Option<OnDisk>> {
        let mut file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let meta = file.metadata()?;
        let stamp = Stamp { size: meta.len(), mtime_ns: crate::store::read::fsio::mtime_ns(&meta) };
        Ok(Some(OnDisk { bytes, stamp: Some(stamp) }))
    }

    /// The entity file `rel` of `store` as a fix reads it: from the store's folder, or, for a
    /// store whose entity files are held in memory (a database's snapshot,
    /// `Dialect::memory_files`), its text there, with no stamp.
    pub fn of(store: &crate::store::Store, rel: &str) -> io::Result<Option<OnDisk>> {
        match store.dialect.memory_files() {
            Some(files) => Ok(files.get(rel).map(|text| OnDisk::bytes(text.as_bytes()))),
            None => OnDisk::read(&store.abs_path(rel)),
        }
    }

    /// Bytes held in memory, with no stamp: only a fix bound to their hash applies to them.
    pub fn bytes(bytes: impl Into<Vec<u8>>) -> OnDisk {
        OnDisk { bytes: bytes.into(), stamp: None }
    }
}

/// A file modified this close before the store's reads began may have changed again within
/// the same mtime tick (coarse on some file systems): its stamp does not prove it unchanged.
/// (The persistent cache trusts stamps by the same rule.)
const MTIME_SLACK_NS: i128 = 2_000_000_000;

/// The stamp a fix computed from entity `idx` as loaded can be bound to: its file's size and
/// mtime when the file was read from disk and last modified more than `MTIME_SLACK_NS` before
/// the store's reads began; `None` when only the file's bytes can tell.
pub fn loaded_stamp(store: &Store, idx: EntityIdx) -> Option<Stamp> {
    let e = store.entity(idx);
    let read_since = store.read_since.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos() as i128;
    // An mtime of 0 is one the loader did not read (an entity previewed from memory).
    (e.mtime_ns > 0 && i128::from(e.mtime_ns) < read_since - MTIME_SLACK_NS)
        .then_some(Stamp { size: e.file_size, mtime_ns: e.mtime_ns })
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FixError {
    #[error("{0}: the file changed since it was linted; lint again")]
    Changed(String),
    #[error("{0}: overlapping fixes")]
    Overlap(String),
    #[error("{0}: a fix does not fit the file")]
    OutOfRange(String),
}

/// `sha256:<hex>` of some bytes: how fixes name the content they apply to (the changeset's
/// digest, so a fix's expected hash is what the write path checks).
pub use crate::store::model::digest::of as content_hash;

impl Fix {
    /// The file's content after the fix. `current` is `None` when the file does not exist.
    pub fn apply(&self, current: Option<&OnDisk>) -> Result<Vec<u8>, FixError> {
        let matches = match (current, &self.expected) {
            (None, Expected::Absent) => true,
            (Some(d), Expected::Hash(h)) => content_hash(&d.bytes) == *h,
            (Some(d), Expected::Loaded(s)) => d.stamp == Some(*s) && d.bytes.len() as u64 == s.size,
            _ => false,
        };
        if !matches {
            return Err(FixError::Changed(self.path.clone()));
        }
        match &self.change {
            Change::Replace(text) => Ok(text.as_bytes().to_vec()),
            Change::Edits(edits) => {
                apply_edits(&self.path, current.map(|d| d.bytes.as_slice()).unwrap_or_default(), edits)
            }
        }
    }
}

/// Apply non-overlapping edits (in any order) to `bytes`.
pub fn apply_edits(path: &str, bytes: &[u8], edits: &[ByteEdit]) -> Result<Vec<u8>, FixError> {
    let mut sorted: Vec<&ByteEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut at = 0;
    for e in sorted {
        if e.range.start < at {
            return Err(FixError::Overlap(path.to_string()));
        }
        if e.range.end > bytes.len() || e.range.start > e.range.end {
            return Err(FixError::OutOfRange(path.to_string()));
        }
        out.extend_from_slice(&bytes[at..e.range.start]);
        out.extend_from_slice(e.replacement.as_bytes());
        at = e.range.end;
    }
    out.extend_from_slice(&bytes[at..]);
    Ok(out)
}

/// Every fix for one file merged into one: edits are combined, a whole-file replacement wins
/// over edits (it is computed from the entities, not from the old bytes). Fixes that would
/// overlap an earlier one, or expect the file otherwise, are dropped, so the result always applies.
pub fn merge_per_file(fixes: &[&Fix]) -> Vec<Fix> {
    let mut by_path: std::collections::BTreeMap<&str, Vec<&Fix>> = std::collections::BTreeMap::new();
    for f in fixes {
        by_path.entry(f.path.as_str()).or_default().push(f);
    }
    let mut out = Vec::new();
    for (path, group) in by_path {
        if let Some(whole) = group.iter().find(|f| matches!(f.change, Change::Replace(_))) {
            out.push((*whole).clone());
            continue;
        }
        let mut edits: Vec<ByteEdit> = Vec::new();
        let mut descriptions = Vec::new();
        for f in &group {
            let Change::Edits(more) = &f.change else { continue };
            if f.expected != group[0].expected {
                continue;
            }
            let clashes =
                more.iter().any(|m| edits.iter().any(|e| m.range.start < e.range.end && e.range.start < m.range.end));
            if !clashes {
                edits.extend(more.iter().cloned());
                descriptions.push(f.description.clone());
            }
        }
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        out.push(Fix {
            path: path.to_string(),
            description: descriptions.join("; "),
            expected: group[0].expected.clone(),
            change: Change::Edits(edits),
        });
    }
    out
}

/// A unified diff (`--- a/path`, `+++ b/path`, 3 lines of context) between two texts.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let (a, b) = if old.is_empty() {
        ("/dev/null".to_string(), format!("b/{path}"))
    } else {
        (format!("a/{path}"), format!("b/{path}"))
    };
    diff.unified_diff().context_radius(3).header(&a, &b).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(range: Range<usize>, s: &str) -> ByteEdit {
        ByteEdit { range, replacement: s.to_string() }
    }

    #[test]
    fn edits_apply_in_place_and_leave_the_rest_alone() {
        let old = b"abc [[x]] def [[y]]\n";
        let out = apply_edits("f", old, &[edit(14..19, "[y](/y.md)"), edit(4..9, "[x](/x.md)")]).unwrap();
        assert_eq!(out, b"abc [x](/x.md) def [y](/y.md)\n");
        assert_eq!(apply_edits("f", old, &[edit(0..5, "a"), edit(4..6, "b")]), Err(FixError::Overlap("f".into())));
        assert_eq!(apply_edits("f", old, &[edit(10..99, "a")]), Err(FixError::OutOfRange("f".into())));
    }

    #[test]
    fn a_fix_refuses_content_it_was_not_computed_from() {
        let fix = Fix {
            path: "a.md".into(),
            description: "d".into(),
            expected: Expected::Hash(content_hash(b"trigger: x\n")),
            change: Change::Edits(vec![edit(0..7, "description")]),
        };
        assert_eq!(fix.apply(Some(&OnDisk::bytes(*b"trigger: x\n"))).unwrap(), b"description: x\n");
        assert_eq!(fix.apply(Some(&OnDisk::bytes(*b"trigger: y\n"))), Err(FixError::Changed("a.md".into())));
        assert_eq!(fix.apply(None), Err(FixError::Changed("a.md".into())));
        let create = Fix { expected: Expected::Absent, change: Change::Replace("new".into()), ..fix };
        assert_eq!(create.apply(None).unwrap(), b"new");
    }

    #[test]
    fn a_fix_bound_to_the_loaded_file_checks_its_size_and_mtime() {
        let stamp = Stamp { size: 11, mtime_ns: 1_700_000_000_000_000_000 };
        let fix = Fix {
            path: "a.md".into(),
            description: "d".into(),
            expected: Expected::Loaded(stamp),
            change: Change::Edits(vec![edit(0..7, "description")]),
        };
        let on_disk = |bytes: &[u8], stamp| OnDisk { bytes: bytes.to_vec(), stamp: Some(stamp) };
        assert_eq!(fix.apply(Some(&on_disk(b"trigger: x\n", stamp))).unwrap(), b"description: x\n");
        let later = Stamp { mtime_ns: stamp.mtime_ns + 1, ..stamp };
        assert_eq!(fix.apply(Some(&on_disk(b"trigger: y\n", later))), Err(FixError::Changed("a.md".into())));
        let longer = Stamp { size: 12, ..stamp };
        assert_eq!(fix.apply(Some(&on_disk(b"trigger: xy\n", longer))), Err(FixError::Changed("a.md".into())));
        // Bytes read while the file grew: the stamp matches, the length does not.
        assert_eq!(fix.apply(Some(&on_disk(b"trigger: xy\n", stamp))), Err(FixError::Changed("a.md".into())));
        // Bytes with no stamp (held in memory) never match a stamp.
        assert_eq!(fix.apply(Some(&OnDisk::bytes(*b"trigger: x\n"))), Err(FixError::Changed("a.md".into())));
        assert_eq!(fix.apply(None), Err(FixError::Changed("a.md".into())));
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(content_hash(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    #[test]
    fn merged_fixes_combine_edits_per_file() {
        let h = Expected::Hash(content_hash(b"x"));
        let a = Fix {
            path: "a.md".into(),
            description: "one".into(),
            expected: h.clone(),
            change: Change::Edits(vec![edit(0..1, "1")]),
        };
        let b = Fix {
            path: "a.md".into(),
            description: "two".into(),
            expected: h.clone(),
            change: Change::Edits(vec![edit(2..3, "2")]),
        };
        let clash = Fix {
            path: "a.md".into(),
            description: "three".into(),
            expected: h,
            change: Change::Edits(vec![edit(0..2, "3")]),
        };
        // Computed from other bytes than the first fix: it would not apply to the same file.
        let elsewhere = Fix {
            description: "four".into(),
            expected: Expected::Loaded(Stamp { size: 1, mtime_ns: 9 }),
            change: Change::Edits(vec![edit(4..5, "4")]),
            ..b.clone()
        };
        let merged = merge_per_file(&[&a, &b, &clash, &elsewhere]);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].change, Change::Edits(vec![edit(0..1, "1"), edit(2..3, "2")]));
        assert_eq!(merged[0].description, "one; two");
        assert_eq!(merged[0].expected, a.expected);
    }

    #[test]
    fn diff_has_headers_and_hunks() {
        let d = unified_diff("a.md", "one\ntwo\n", "one\nthree\n");
        assert_eq!(d, "--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n");
    }
}
