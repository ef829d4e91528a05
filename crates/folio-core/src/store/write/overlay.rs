//! The store as it would read after a plan's writes, built in memory without touching a file:
//! what a preview (`preview`) needs to tell which catalogs the writes regenerate.
use std::sync::Arc;

use super::changeset::Write;
use crate::store::Store;
use crate::store::dialect::{FileRole, SourceFile};
use crate::store::model::lines::LineIndex;

impl Store {
    /// A copy of the store with `writes` laid over it (a removed file drops its entities, a
    /// written one is parsed from its new bytes); every link is resolved again.
    pub fn overlaid(&self, writes: &[Write]) -> Store {
        let mut copy = Store {
            root: self.root.clone(),
            dialect: self.kind().open(&self.root),
            detected_by: self.detected_by.clone(),
            entities: self.entities.clone(),
            other_files: self.other_files.clone(),
            walk_warnings: self.walk_warnings.clone(),
            backlinks: Vec::new(),
            load_ms: self.load_ms,
            read_since: self.read_since,
            from_cache: false,
            by_id: Arc::default(),
            overlay: Arc::new(writes.iter().map(|w| (w.path.clone(), w.after.is_some())).collect()),
            catalog_memo: Default::default(),
            loaded_terms: Default::default(),
        };
        for w in writes {
            copy.entities.retain(|e| e.path != w.path);
            copy.other_files.retain(|(p, _)| *p != w.path);
            let Some(after) = &w.after else { continue };
            match copy.dialect.role(&w.path) {
                FileRole::Entity => {
                    let text = String::from_utf8_lossy(after);
                    let lines = LineIndex::new(&text);
                    let file = SourceFile { rel: &w.path, text: &text, lines: &lines, problems: &[], parseable: true };
                    let parsed = copy.dialect.parse(&file);
                    copy.entities.extend(parsed.into_iter().map(|mut e| {
                        e.file_size = after.len() as u64;
                        Arc::new(e)
                    }));
                }
                role => copy.other_files.push((w.path.clone(), role)),
            }
        }
        copy.entities
            .sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)).then(a.span.start.cmp(&b.span.start)));
        copy.other_files.sort_by(|a, b| a.0.cmp(&b.0));
        copy.link(false);
        copy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write::journal::Role;

    #[test]
    fn writes_are_seen_without_touching_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n\n[b](b.md)\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "# B\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let w = |path: &str, after: Option<&str>| Write {
            path: path.into(),
            expected: None,
            after: after.map(|a| a.as_bytes().to_vec()),
            role: Role::Edit,
        };
        let over = store.overlaid(&[w("b.md", None), w("c.md", Some("# C\n"))]);
        let ids: Vec<&str> = over.entities.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(ids, ["A", "C"]);
        assert!(dir.path().join("b.md").exists() && !dir.path().join("c.md").exists());
        let a = over.find("a").unwrap();
        assert_eq!(over.entity(a).links[0].resolution, crate::store::model::entity::Resolution::Broken);
    }
}
