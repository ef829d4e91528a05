//! What of folio's per-store state a team shares through git, and what stays on one machine.
//! Shared, committed with the store: the review ledger (`review/verdicts.jsonl`, append-only,
//! `merge=union` so two reviewers' lines merge without a conflict), the approved texts
//! (`review/approved/<sha256>`, one file per text), the store config (`config.toml`) and, for
//! formats without a log of their own, `audit.jsonl` (append-only, `merge=union`). Personal,
//! listed in the `.gitignore` folio writes in its folder: the write journal, undo records,
//! object snapshots, the archive and exports. The store's own log gets a `merge=union` rule in
//! a `.gitattributes` beside it, so two clones' events merge too. Only in a git work tree, and
//! never over a rule a person wrote: files are created when missing, a missing rule appended.
use std::io;
use std::path::Path;

use super::changeset::Write;
use super::journal::Role;
use super::state::State;
use crate::store::dialect::DialectKind;
use crate::store::model::digest;

/// `.gitignore` in folio's state folder: what is one person's.
pub const GITIGNORE: &str = "# folio: personal state (undo journal and records, snapshots, archive, exports)\n\
journal.jsonl\nundo/\nobjects/\narchive/\nexports/\n*.tmp\n.*.folio-*\n";

/// Append-only files in folio's state folder that merge line by line.
pub const UNION: &[&str] = &["review/verdicts.jsonl", "audit.jsonl"];

/// The writes that put the git rules in place for the store at `root` when it sits in a git
/// work tree: files created when missing, a missing rule appended. They go into the changeset
/// that needs them, so a crash or an undo takes them back with it. Paths are relative to `root`.
pub fn writes(root: &Path, kind: DialectKind) -> io::Result<Vec<Write>> {
    if !in_git_work_tree(root) {
        return Ok(Vec::new());
    }
    let state = State::for_store(root, kind);
    let mut out = Vec::new();
    let ignore = state.dir.join(".gitignore");
    if !ignore.exists() {
        out.push(write(root, &ignore, None, GITIGNORE.as_bytes().to_vec()));
    }
    out.extend(union_rules(root, &state.dir.join(".gitattributes"), UNION)?);
    let log = kind.format().log_path(root);
    if let (Some(dir), Some(name)) = (log.parent(), log.file_name()) {
        // A log in folio's own folder is covered above; one outside the repository is not ours.
        if dir != state.dir && in_git_work_tree(dir) {
            out.extend(union_rules(root, &dir.join(".gitattributes"), &[&name.to_string_lossy()])?);
        }
    }
    Ok(out)
}

fn write(root: &Path, abs: &Path, expected: Option<String>, after: Vec<u8>) -> Write {
    let path = crate::store::model::relpath::from_root(root, abs);
    Write { path, expected, after: Some(after), role: Role::Edit }
}

/// `<rel> merge=union` in the `.gitattributes` at `path` for each of `rels` that no line gives a
/// rule yet; None when every one has one.
fn union_rules(root: &Path, path: &Path, rels: &[&str]) -> io::Result<Option<Write>> {
    let old = match std::fs::read(path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let text = String::from_utf8_lossy(old.as_deref().unwrap_or_default()).into_owned();
    let mut new = text.clone();
    for rel in rels {
        if new.lines().any(|l| l.split_whitespace().next() == Some(*rel)) {
            continue;
        }
        if !new.is_empty() && !new.ends_with('\n') {
            new.push('\n');
        }
        new.push_str(&format!("{rel} merge=union\n"));
    }
    if new == text {
        return Ok(None);
    }
    Ok(Some(write(root, path, old.as_deref().map(digest::of), new.into_bytes())))
}

/// Whether `dir` or a folder above it holds a `.git` (folder or worktree file).
fn in_git_work_tree(dir: &Path) -> bool {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().any(|d| d.join(".git").exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Apply the writes as the engine would (the test has no journal to run them through).
    fn ensure(root: &Path, kind: DialectKind) {
        for w in writes(root, kind).unwrap() {
            let p = root.join(&w.path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, w.after.unwrap()).unwrap();
        }
    }

    #[test]
    fn rules_are_written_once_in_a_git_tree_and_nowhere_else() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("wiki");
        std::fs::create_dir_all(&root).unwrap();
        let okf = crate::store::dialect::okf::KIND;
        assert!(writes(&root, okf).unwrap().is_empty(), "not a git tree");
        std::fs::create_dir(t.path().join(".git")).unwrap();
        std::fs::write(root.join(".gitattributes"), "*.png binary").unwrap();
        ensure(&root, okf);
        assert!(writes(&root, okf).unwrap().is_empty(), "written once");
        assert_eq!(std::fs::read_to_string(root.join(".gitattributes")).unwrap(), "*.png binary\nlog.md merge=union\n");
        let attrs = std::fs::read_to_string(root.join(".folio/.gitattributes")).unwrap();
        assert_eq!(attrs, "review/verdicts.jsonl merge=union\naudit.jsonl merge=union\n");
        assert_eq!(std::fs::read_to_string(root.join(".folio/.gitignore")).unwrap(), GITIGNORE);
    }
}
