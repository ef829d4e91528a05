//! Fixes as data: what a safe fix would change, bound to the exact bytes it was computed from.
//!
//! A fix is either surgical byte edits or a whole new file (catalogs). It carries the hash of
//! the content it applies to, so a writer can refuse when the file changed in between. Fixes
//! here only replace or insert text; none deletes content.
use std::ops::Range;

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
    /// `sha256:<hex>` of the file the fix was computed from; `None` when the file must not exist.
    pub expected_hash: Option<String>,
    pub change: Change,
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
    pub fn apply(&self, current: Option<&[u8]>) -> Result<Vec<u8>, FixError> {
        let matches = match (current, &self.expected_hash) {
            (None, None) => true,
            (Some(bytes), Some(h)) => content_hash(bytes) == *h,
            _ => false,
        };
        if !matches {
            return Err(FixError::Changed(self.path.clone()));
        }
        match &self.change {
            Change::Replace(text) => Ok(text.as_bytes().to_vec()),
            Change::Edits(edits) => apply_edits(&self.path, current.unwrap_or_default(), edits),
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
/// overlap an earlier one are dropped, so the result always applies.
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
            expected_hash: group[0].expected_hash.clone(),
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
            expected_hash: Some(content_hash(b"trigger: x\n")),
            change: Change::Edits(vec![edit(0..7, "description")]),
        };
        assert_eq!(fix.apply(Some(b"trigger: x\n")).unwrap(), b"description: x\n");
        assert_eq!(fix.apply(Some(b"trigger: y\n")), Err(FixError::Changed("a.md".into())));
        assert_eq!(fix.apply(None), Err(FixError::Changed("a.md".into())));
        let create = Fix { expected_hash: None, change: Change::Replace("new".into()), ..fix };
        assert_eq!(create.apply(None).unwrap(), b"new");
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(content_hash(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    #[test]
    fn merged_fixes_combine_edits_per_file() {
        let h = Some(content_hash(b"x"));
        let a = Fix {
            path: "a.md".into(),
            description: "one".into(),
            expected_hash: h.clone(),
            change: Change::Edits(vec![edit(0..1, "1")]),
        };
        let b = Fix {
            path: "a.md".into(),
            description: "two".into(),
            expected_hash: h.clone(),
            change: Change::Edits(vec![edit(2..3, "2")]),
        };
        let clash = Fix {
            path: "a.md".into(),
            description: "three".into(),
            expected_hash: h,
            change: Change::Edits(vec![edit(0..2, "3")]),
        };
        let merged = merge_per_file(&[&a, &b, &clash]);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].change, Change::Edits(vec![edit(0..1, "1"), edit(2..3, "2")]));
        assert_eq!(merged[0].description, "one; two");
    }

    #[test]
    fn diff_has_headers_and_hunks() {
        let d = unified_diff("a.md", "one\ntwo\n", "one\nthree\n");
        assert_eq!(d, "--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n");
    }
}
