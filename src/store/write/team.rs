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

use super::state::State;
use crate::store::dialect::DialectKind;

/// `.gitignore` in folio's state folder: what is one person's.
pub const GITIGNORE: &str = "# folio: personal state (undo journal and records, snapshots, archive, exports)\n\
journal.jsonl\nundo/\nobjects/\narchive/\nexports/\n*.tmp\n.*.folio-*\n";

/// Append-only files in folio's state folder that merge line by line.
pub const UNION: &[&str] = &["review/verdicts.jsonl", "audit.jsonl"];

/// Write the git rules for the store at `root` when it sits in a git work tree.
pub fn ensure(root: &Path, kind: DialectKind) -> io::Result<()> {
    if !in_git_work_tree(root) {
        return Ok(());
    }
    let state = State::for_store(root, kind);
    super::fs_ops::create_dir_all(&state.dir)?;
    let ignore = state.dir.join(".gitignore");
    if !ignore.exists() {
        super::fs_ops::write_atomic(&ignore, GITIGNORE.as_bytes())?;
    }
    for rel in UNION {
        add_union_rule(&state.dir, rel)?;
    }
    let log = kind.format().log_path(root);
    if let (Some(dir), Some(name)) = (log.parent(), log.file_name()) {
        // A log in folio's own folder is covered above; one outside the repository is not ours.
        if dir != state.dir && in_git_work_tree(dir) {
            add_union_rule(dir, &name.to_string_lossy())?;
        }
    }
    Ok(())
}

/// `<rel> merge=union` in `dir/.gitattributes`, unless a line already gives `rel` a rule.
fn add_union_rule(dir: &Path, rel: &str) -> io::Result<()> {
    let path = dir.join(".gitattributes");
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    if old.lines().any(|l| l.split_whitespace().next() == Some(rel)) {
        return Ok(());
    }
    let sep = if old.is_empty() || old.ends_with('\n') { "" } else { "\n" };
    let new = format!("{old}{sep}{rel} merge=union\n");
    super::fs_ops::write_atomic(&path, new.as_bytes())
}

/// Whether `dir` or a folder above it holds a `.git` (folder or worktree file).
fn in_git_work_tree(dir: &Path) -> bool {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().any(|d| d.join(".git").exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_written_once_in_a_git_tree_and_nowhere_else() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("wiki");
        std::fs::create_dir_all(&root).unwrap();
        let okf = crate::store::dialect::okf::KIND;
        ensure(&root, okf).unwrap();
        assert!(!root.join(".folio").exists() && !root.join(".gitattributes").exists(), "not a git tree");
        std::fs::create_dir(t.path().join(".git")).unwrap();
        std::fs::write(root.join(".gitattributes"), "*.png binary").unwrap();
        ensure(&root, okf).unwrap();
        ensure(&root, okf).unwrap();
        assert_eq!(std::fs::read_to_string(root.join(".gitattributes")).unwrap(), "*.png binary\nlog.md merge=union\n");
        let attrs = std::fs::read_to_string(root.join(".folio/.gitattributes")).unwrap();
        assert_eq!(attrs, "review/verdicts.jsonl merge=union\naudit.jsonl merge=union\n");
        assert_eq!(std::fs::read_to_string(root.join(".folio/.gitignore")).unwrap(), GITIGNORE);
    }
}
