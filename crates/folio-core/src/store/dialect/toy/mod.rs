//! A toy format, compiled for the tests only: it shows that adding a format is this folder
//! and one line in the registry (docs/ARCHITECTURE.md, "Adding a format"). Its store is a
//! folder marked by `TOY.md`; every other `.md` file is one note with YAML frontmatter.
use super::{Dialect, DialectKind, FileRole, Grammar, SourceFile, parse_markdown};
use crate::store::model::entity::Entity;

pub mod format;
pub mod spec;
pub use format::KIND;

pub struct Toy;

impl Dialect for Toy {
    fn kind(&self) -> DialectKind {
        KIND
    }
    fn role(&self, rel: &str) -> FileRole {
        if rel.ends_with(".md") && rel != "TOY.md" { FileRole::Entity } else { FileRole::Other }
    }
    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        vec![parse_markdown(file, Grammar::Yaml).entity]
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use crate::store::Store;
    use crate::store::dialect::{DialectKind, by_name, names};
    use crate::store::lint::{self, config::LintConfig};
    use crate::store::review::queue;

    /// Everything generic folio does works on a format the rest of the code never names.
    #[test]
    fn a_format_added_as_a_folder_and_a_registry_line_works_everywhere() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("TOY.md"), "# A toy box\n").unwrap();
        fs::write(root.join("a.md"), "---\ntitle: Alpha\nstatus: draft\n---\nSee [b](b.md) and [gone](gone.md).\n").unwrap();
        fs::write(root.join("b.md"), "---\ntitle: Beta\nstatus: retired\n---\nBack to [a](a.md).\n").unwrap();

        assert_eq!(by_name("toy"), Some(super::KIND));
        assert!(names().contains(&"toy"));
        assert_eq!(DialectKind::all().filter(|k| *k == super::KIND).count(), 1);

        // Detection finds it by its marker, through the registry alone.
        let store = Store::open(root, None).unwrap();
        assert_eq!(store.kind(), super::KIND);
        assert_eq!(store.kind().spec().plural, "toy boxes");
        let titles: Vec<&str> = store.entities.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(titles, ["Alpha", "Beta"]);

        // Links resolve, lint finds the broken one, the inbox queues the draft.
        let report = lint::lint(&store, &LintConfig::default());
        let broken: Vec<&str> =
            report.findings.iter().filter(|f| f.rule == "broken-link").filter_map(|f| f.path.as_deref()).collect();
        assert_eq!(broken, ["a.md"]);
        let queued = queue::build(&store);
        assert!(queued.iter().any(|q| q.title == "Alpha"), "the draft is queued");
    }
}
