//! Incremental reload: re-read only the files that changed on disk, then re-resolve links.
//!
//! Entity indices shift when files appear or vanish, so callers keep selections by id or path
//! and look them up again after a refresh.
use std::collections::HashSet;
use std::fs;
use std::path::Path;

use super::Store;
use super::dialect::FileRole;
use super::load::{self, FoundFile};

/// What a refresh changed, by relative path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RefreshReport {
    pub changed: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

impl RefreshReport {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }
}

impl Store {
    /// A refreshed copy, leaving `self` untouched (the UI keeps drawing the old one meanwhile).
    pub fn refreshed<P: AsRef<Path>>(&self, paths: &[P]) -> (Store, RefreshReport) {
        let mut copy = Store {
            root: self.root.clone(),
            dialect: self.kind().open(&self.root),
            detected_by: self.detected_by.clone(),
            entities: self.entities.clone(),
            other_files: self.other_files.clone(),
            walk_warnings: self.walk_warnings.clone(),
            backlinks: self.backlinks.clone(),
            load_ms: self.load_ms,
            by_id: self.by_id.clone(),
        };
        let report = copy.refresh(paths);
        (copy, report)
    }

    /// Re-read the given paths (absolute, or relative to the root). Paths outside the root,
    /// hidden paths and directories are ignored; a path that no longer exists drops its entities.
    pub fn refresh<P: AsRef<Path>>(&mut self, paths: &[P]) -> RefreshReport {
        let canonical_root = fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        let mut rels: Vec<String> = Vec::new();
        for p in paths {
            let p = p.as_ref();
            let rel = p.strip_prefix(&self.root).or_else(|_| p.strip_prefix(&canonical_root)).unwrap_or(p);
            if rel.is_absolute() {
                continue;
            }
            let Some(rel) = super::relpath::from_path(rel) else { continue };
            if rel.is_empty() || rel.split('/').any(|c| c.starts_with('.')) || self.root.join(&rel).is_dir() {
                continue;
            }
            if super::relpath::ancestors(&rel).any(|d| self.dialect.skip_dir(d)) {
                continue;
            }
            if !rels.contains(&rel) {
                rels.push(rel);
            }
        }
        let mut report = RefreshReport::default();
        if rels.is_empty() {
            return report;
        }
        let targets: HashSet<&str> = rels.iter().map(String::as_str).collect();
        let had_entities: HashSet<String> =
            self.entities.iter().filter(|e| targets.contains(e.path.as_str())).map(|e| e.path.clone()).collect();
        let had_other: HashSet<String> =
            self.other_files.iter().filter(|(p, _)| targets.contains(p.as_str())).map(|(p, _)| p.clone()).collect();
        self.entities.retain(|e| !targets.contains(e.path.as_str()));
        self.other_files.retain(|(p, _)| !targets.contains(p.as_str()));

        let mut found = Vec::new();
        for rel in &rels {
            let abs = self.root.join(rel);
            let Ok(meta) = fs::symlink_metadata(&abs) else {
                if had_entities.contains(rel) || had_other.contains(rel) {
                    report.removed.push(rel.clone());
                }
                continue;
            };
            let symlink_inside = if meta.file_type().is_symlink() {
                match fs::canonicalize(&abs) {
                    Ok(t) if t.is_dir() => continue,
                    Ok(t) => Some(t.starts_with(&canonical_root)),
                    Err(_) => Some(true),
                }
            } else {
                None
            };
            let role = self.dialect.role(rel);
            if had_entities.contains(rel) || had_other.contains(rel) {
                report.changed.push(rel.clone());
            } else {
                report.added.push(rel.clone());
            }
            if role == FileRole::Entity {
                found.push(FoundFile { rel: rel.clone(), role, symlink_inside });
            } else {
                self.other_files.push((rel.clone(), role));
            }
        }
        let fresh = load::read_entities(&self.root, &found, self.dialect.as_ref(), None);
        self.entities.extend(fresh);
        self.entities.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
        self.other_files.sort_by(|a, b| a.0.cmp(&b.0));
        self.link();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::dialect::DialectKind;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn refresh_adds_changes_and_removes_only_named_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a.md", "# Alpha\n\nSee [[b]].\n");
        write(root, "b.md", "# Beta\n");
        let store = Store::load(root, DialectKind::Vault, "test".into());
        assert_eq!(store.entities.len(), 2);
        let a = store.find("a").unwrap();
        assert!(store.entity(a).links[0].entity().is_some());

        write(root, "b.md", "# Beta renamed\n");
        write(root, "c.md", "# Gamma\n\n[[a]]\n");
        let (copy, report) = store.refreshed(&[root.join("b.md"), root.join("c.md")]);
        assert_eq!(store.entities.len(), 2, "the original is untouched");
        let mut store = copy;
        assert_eq!(report.changed, vec!["b.md"]);
        assert_eq!(report.added, vec!["c.md"]);
        assert_eq!(store.entities.len(), 3);
        assert_eq!(store.entity(store.find("b").unwrap()).title, "Beta renamed");
        // Backlinks are recomputed: c now links to a.
        let a = store.find("a").unwrap();
        assert_eq!(store.backlinks[a as usize], vec![store.find("c").unwrap()]);

        fs::remove_file(root.join("b.md")).unwrap();
        let report = store.refresh(&["b.md"]);
        assert_eq!(report.removed, vec!["b.md"]);
        assert_eq!(store.entities.len(), 2);
        let a = store.find("a").unwrap();
        assert!(store.entity(a).links[0].is_unresolved());
    }

    #[test]
    fn refresh_ignores_hidden_outside_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a.md", "# A\n");
        write(root, ".git/x.md", "# hidden\n");
        let mut store = Store::load(root, DialectKind::Vault, "test".into());
        let report = store.refresh(&[root.join(".git/x.md"), root.to_path_buf(), "/etc/passwd".into()]);
        assert!(report.is_empty());
        assert_eq!(store.entities.len(), 1);
    }
}
