//! Golden-file helpers shared by the verdict suites (`review_golden`, `verdict_conformance`):
//! every file of a scratch tree, the change between two trees as unified diffs, the entry a
//! verdict added to a store's log, and timestamps of today made stable.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use folio::store::write::changeset::unified_diff;

pub fn normalise(s: &str) -> String {
    let ts = regex_lite(s);
    ts.replace(env!("CARGO_MANIFEST_DIR"), "<REPO>")
}

/// Replace ISO timestamps and dates of the pinned day (folio's clock in every test) with
/// placeholders.
pub fn regex_lite(s: &str) -> String {
    let today = &super::PINNED_NOW[..10];
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find(today) {
        out += &rest[..at];
        let after = &rest[at + today.len()..];
        // `THH:MM:SS[.ffffff]Z` or ` HH:MM +00:00` follow a full timestamp.
        let tail = after
            .strip_prefix('T')
            .map(|t| t.find('Z').map(|z| z + 2).unwrap_or(0))
            .or_else(|| after.strip_prefix(' ').filter(|t| t.get(5..12) == Some(" +00:00")).map(|_| 13))
            .unwrap_or(0);
        out += if tail > 0 { "<TS>" } else { "<DATE>" };
        rest = &after[tail..];
    }
    out + rest
}

/// What the verdict added to the store's log: OKF's entry right under today's heading (its log
/// is newest first), everything appended for the others.
pub fn logged(before: &str, after: &str, log: &str) -> String {
    if log.ends_with("log.md") && !log.ends_with("_log.md") {
        return after.lines().find(|l| l.starts_with("* **") || l.starts_with("- **")).unwrap().to_string();
    }
    let added = after.strip_prefix(before).unwrap_or_else(|| panic!("{log}: not appended to"));
    added.trim_start_matches('\n').trim_end().to_string()
}

/// Every file of the scratch tree with its bytes, except folio's state and the store's log.
pub fn store_files(root: &Path, log: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            if e.file_name() == ".folio" || rel == ".evolve/folio" || p == log {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The change from `before` to `after` as unified diffs; a file that appears where another
/// with the same name left is shown as a move.
pub fn applied(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) -> String {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let name = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let gone: Vec<&String> = before.keys().filter(|p| !after.contains_key(*p)).collect();
    let added: Vec<&String> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    let mut moved_from = Vec::new();
    let mut out = String::new();
    for (p, now) in after {
        match before.get(p) {
            Some(old) if old != now => {
                out += &unified_diff(&text(old), &text(now), &format!("a/{p}"), &format!("b/{p}"))
            }
            Some(_) => {}
            None => match gone.iter().find(|g| name(g) == name(p) && !moved_from.contains(*g)) {
                Some(from) => {
                    moved_from.push(*from);
                    out += &unified_diff(&text(&before[*from]), &text(now), &format!("a/{from}"), &format!("b/{p}"));
                }
                None => out += &unified_diff("", &text(now), "/dev/null", &format!("b/{p}")),
            },
        }
    }
    for g in gone.iter().filter(|g| !moved_from.contains(*g)) {
        let bytes = &before[*g];
        out += &format!("removed {g} ({} bytes, {})\n", bytes.len(), folio::store::model::digest::of(bytes));
    }
    assert!(added.len() >= moved_from.len());
    out
}

/// `a/b/../c` → `a/c` (the evolve log sits beside the `entities/` root).
pub fn normalize_path(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
