//! The store as it would read after a plan's writes, built in memory without touching a file:
//! what a preview (`preview`) needs to tell which catalogs the writes regenerate, and what the
//! engine derives its catalogs and ledger from after a plan's writes.
use std::collections::HashSet;
use std::sync::Arc;

use super::changeset::Write;
use super::overlaid::Overlaid;
use crate::store::Store;
use crate::store::dialect::{FileRole, SourceFile};
use crate::store::model::lines::LineIndex;
use crate::store::read::relink::{Plan, RefreshReport};

impl Store {
    /// A copy of the store with `writes` laid over it (a removed file drops its entities, a
    /// written one is parsed from its new bytes), resolved as a refresh resolves re-read files
    /// (`read::relink`): when the written entities keep what links resolve by (a verdict, a
    /// field set), only theirs are resolved again and every other entity is shared with `self`;
    /// else every link is resolved again.
    pub fn overlaid(&self, writes: &[Write]) -> Store {
        self.overlaid_reporting(writes).store
    }

    /// `overlaid`, with what laying the writes over the store changed (`RefreshReport`).
    pub(crate) fn overlaid_reporting(&self, writes: &[Write]) -> Overlaid {
        let mut store =
            self.copy_to_patch(Arc::new(writes.iter().map(|w| (w.path.clone(), w.after.is_some())).collect()));
        let plan = store.plan_writes(writes);
        let report = store.apply_plan(plan);
        Overlaid { store, report }
    }

    /// What laying `writes` over the store re-reads: each written entity file parsed from its
    /// new bytes, the others by their role.
    fn plan_writes(&self, writes: &[Write]) -> Plan {
        let mut plan =
            Plan { targets: HashSet::new(), fresh: Vec::new(), other: Vec::new(), report: RefreshReport::default() };
        for w in writes {
            if !plan.targets.insert(w.path.clone()) {
                continue;
            }
            let had = self.has_file(&w.path);
            let Some(after) = &w.after else {
                if had {
                    plan.report.removed.push(w.path.clone());
                }
                continue;
            };
            match had {
                true => plan.report.changed.push(w.path.clone()),
                false => plan.report.added.push(w.path.clone()),
            }
            match self.dialect.role(&w.path) {
                FileRole::Entity => {
                    let text = String::from_utf8_lossy(after);
                    let lines = LineIndex::new(&text);
                    let file = SourceFile { rel: &w.path, text: &text, lines: &lines, problems: &[], parseable: true };
                    plan.report.parsed += 1;
                    plan.fresh.extend(self.dialect.parse(&file).into_iter().map(|mut e| {
                        e.file_size = after.len() as u64;
                        e
                    }));
                }
                role => plan.other.push((w.path.clone(), role)),
            }
        }
        plan.fresh.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)).then(a.span.start.cmp(&b.span.start)));
        plan
    }
}

/// Whether the store read again after `writes` is the store they were laid over: not when one
/// goes where a read does not look (a hidden path such as `.gitattributes`, a file moved out of
/// the store's folder as evolve's veto does), which the overlay holds and a read would not.
pub(crate) fn read_again(writes: &[Write]) -> bool {
    writes.iter().all(|w| !w.path.split('/').any(|c| c.starts_with('.')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::entity::EntityIdx;
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

    #[test]
    fn a_written_entity_that_keeps_its_names_is_resolved_alone_and_as_a_fresh_load_would() {
        let dir = tempfile::tempdir().unwrap();
        let put = |root: &std::path::Path, rel: &str, text: &str| std::fs::write(root.join(rel), text).unwrap();
        put(dir.path(), "a.md", "# A\n\n[[b]]\n");
        put(dir.path(), "b.md", "# B\n");
        put(dir.path(), "c.md", "# C\n\n[[a]]\n");
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let after = "# B\n\nNow see [[c]] and [[missing]].\n";
        let w = Write { path: "b.md".into(), expected: None, after: Some(after.as_bytes().to_vec()), role: Role::Edit };
        let over = store.overlaid(&[w]);
        // The entities not written are the very ones of `self`, not copies.
        for rel in ["a.md", "c.md"] {
            let i = store.entities.iter().position(|e| e.path == rel).unwrap();
            assert!(Arc::ptr_eq(&store.entities[i], &over.entities[i]), "{rel} was copied");
        }
        // As a load of the folder with the write made reads it.
        let made = tempfile::tempdir().unwrap();
        for (rel, text) in [("a.md", "# A\n\n[[b]]\n"), ("b.md", after), ("c.md", "# C\n\n[[a]]\n")] {
            put(made.path(), rel, text);
        }
        let fresh = Store::load(made.path(), crate::store::dialect::vault::KIND, "test".into());
        let links = |s: &Store| -> Vec<(String, Vec<String>)> {
            s.entities
                .iter()
                .map(|e| (e.path.clone(), e.links.iter().map(|l| format!("{:?}", l.resolution)).collect()))
                .collect()
        };
        assert_eq!(links(&over), links(&fresh));
        let backlinks = |s: &Store| -> Vec<Vec<EntityIdx>> { s.backlinks.iter().map(|b| b.to_vec()).collect() };
        assert_eq!(backlinks(&over), backlinks(&fresh));
        assert_eq!(over.find("c").map(|c| over.backlinks[c as usize].len()), Some(1));
    }
}
