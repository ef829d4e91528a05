//! What a write adds beyond its own file edits, computed without writing: the catalogs it
//! regenerates (the same choice `file_storage` makes, over the store as it would read
//! afterwards), the exact bytes its audit event puts into the format's log, the git rules
//! folio adds in a git work tree (`team`) and, for a review plan, the ledger it appends to.
use time::OffsetDateTime;

use super::audit::{self, AuditEvent};
use super::catalog_writes;
use super::changeset::{Changeset, Write, relative_to, unified_diff};
use crate::store::Store;

#[derive(Debug, Clone)]
pub struct Preview {
    /// Each regenerated catalog: its path, its bytes now (None: it is new) and afterwards.
    pub catalogs: Vec<(String, Option<String>, String)>,
    /// The log the event goes to, relative to the root.
    pub log: String,
    pub log_before: String,
    pub log_after: String,
    /// Files folio writes in a git work tree so its state merges (`team::writes`): the path and
    /// whether it is new.
    pub git_rules: Vec<(String, bool)>,
    /// What the review ledger gains (a review plan's verdicts), one line each.
    pub ledger: Vec<String>,
}

/// The catalogs and log bytes that applying `writes` with `event` at `at` would add.
pub fn of(store: &Store, writes: &[Write], event: &AuditEvent, at: OffsetDateTime) -> Preview {
    over(store, &store.overlaid(writes), writes, event, at)
}

/// `of`, with the store as it reads after the writes already built (`Store::overlaid`).
pub fn over(store: &Store, after: &Store, writes: &[Write], event: &AuditEvent, at: OffsetDateTime) -> Preview {
    // A catalog that cannot be read is refused by the write itself; the preview shows none.
    let catalogs = catalog_writes::after_edits(store, writes, || after)
        .unwrap_or_default()
        .into_iter()
        .map(|w| {
            let before = store.storage().read(&w.path).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
            let after = String::from_utf8_lossy(w.after.as_deref().unwrap_or_default()).into_owned();
            (w.path, before, after)
        })
        .collect();
    let log_abs = audit::log_path(&store.root, store.kind());
    let log = relative_to(&store.root, &log_abs);
    // The event goes after the writes: onto the log as they leave it, should one of them be it.
    let log_before = match writes.iter().find(|w| w.path == log) {
        Some(w) => String::from_utf8_lossy(w.after.as_deref().unwrap_or_default()).into_owned(),
        None => std::fs::read(&log_abs).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default(),
    };
    let git_rules = super::team::writes(&store.root, store.kind())
        .unwrap_or_default()
        .into_iter()
        .map(|w| (w.path, w.expected.is_none()))
        .collect();
    let mut p = Preview { catalogs, log, log_before, log_after: String::new(), git_rules, ledger: Vec::new() };
    p.relog(store, event, at);
    p
}

/// What applying `cs` writes beyond its own file edits, as the lines a dialog or `--dry-run`
/// shows under its diff: "also written:", then the preview's lines (catalogs, git rules, the
/// log and its bytes), then the catalogs' diff.
pub fn also_written(store: &Store, cs: &Changeset) -> Vec<String> {
    let at = cs.event.at.unwrap_or_else(super::audit::now);
    let extra = of(store, &cs.writes(), &cs.event, at);
    let mut out = vec!["also written:".to_string()];
    out.extend(extra.lines().into_iter().map(|l| format!("  {l}")));
    out.extend(extra.catalog_diff().lines().map(str::to_string));
    out
}

impl Preview {
    /// The log's bytes for `event` (an event changed after the preview was made).
    pub fn relog(&mut self, store: &Store, event: &AuditEvent, at: OffsetDateTime) {
        self.log_after = audit::append(store.kind(), Some(&self.log_before), event, at);
    }

    /// The bytes the event adds to the log when it is appended at the end (every format's log
    /// but one that inserts); otherwise None and `log_diff` shows where it goes.
    pub fn log_appended(&self) -> Option<&str> {
        self.log_after.strip_prefix(self.log_before.as_str())
    }

    pub fn log_diff(&self) -> String {
        unified_diff(&self.log_before, &self.log_after, &format!("a/{}", self.log), &format!("b/{}", self.log))
    }

    /// Every regenerated catalog as a unified diff.
    pub fn catalog_diff(&self) -> String {
        let mut out = String::new();
        for (path, before, after) in &self.catalogs {
            let a = if before.is_some() { format!("a/{path}") } else { "/dev/null".into() };
            out += &unified_diff(before.as_deref().unwrap_or_default(), after, &a, &format!("b/{path}"));
        }
        out
    }

    /// The lines a confirm dialog or `--dry-run` prints: the catalogs, folio's git rules, the
    /// review ledger, then the log's bytes. Every file the write touches is named.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.catalogs.is_empty() {
            out.push(format!("{} regenerated:", crate::store::model::count::count(self.catalogs.len(), "catalog")));
            out.extend(self.catalogs.iter().map(|(p, _, _)| format!("  {p}")));
        }
        if !self.git_rules.is_empty() {
            out.push("git rules folio adds so its state merges (undo takes them back):".into());
            for (path, new) in &self.git_rules {
                let how = if *new { "new file" } else { "a line appended" };
                out.push(format!("  {path} ({how})"));
            }
        }
        if !self.ledger.is_empty() {
            out.push("review ledger (folio's state, shared through git):".into());
            out.extend(self.ledger.iter().map(|l| format!("  {l}")));
        }
        match self.log_appended() {
            Some(added) => {
                out.push(format!("{} gains these bytes:", self.log));
                out.extend(added.lines().map(|l| format!("  | {l}")));
            }
            None => {
                out.push(format!("{} changes:", self.log));
                out.extend(self.log_diff().lines().map(|l| format!("  {l}")));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write::changeset::{Changeset, WriteOptions};
    use crate::store::write::journal::Role;

    /// The preview names exactly the catalogs and log bytes the write then produces.
    #[test]
    fn the_preview_is_what_the_write_writes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let put = |rel: &str, text: &str| {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        };
        put("KNOWLEDGE.md", "---\nokf_version: \"0.2\"\n---\n# K\n");
        put("tables/orders.md", "---\ntype: Table\ntitle: Orders\n---\nOrders.\n");
        let kind = crate::store::dialect::okf::KIND;
        let store = Store::load(root, kind, "test".into());
        crate::store::write::catalog::write(&store).unwrap();
        let store = Store::load(root, kind, "test".into());
        let new = "---\ntype: Table\ntitle: Refunds\n---\nRefunds.\n";
        let writes =
            vec![Write { path: "tables/refunds.md".into(), expected: None, after: Some(new.into()), role: Role::Edit }];
        let at = audit::now();
        let event = AuditEvent { at: Some(at), ..AuditEvent::new("set", "human:ann", "a new table") };
        let p = of(&store, &writes, &event, at);
        let names: Vec<&str> = p.catalogs.iter().map(|(p, _, _)| p.as_str()).collect();
        assert!(names.contains(&"tables/index.md"), "{names:?}");
        assert!(p.catalog_diff().contains("+") && p.catalog_diff().contains("refunds.md"), "{}", p.catalog_diff());
        let added = p.log_appended().unwrap().to_string();
        assert!(added.contains("a new table"), "{added}");
        let cs = Changeset { event, edits: Vec::new() }.create("tables/refunds.md", new);
        let applied = store.apply(cs, &WriteOptions::default()).unwrap();
        let mut written = applied.catalogs.clone();
        written.sort();
        let mut previewed: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        previewed.sort();
        assert_eq!(written, previewed);
        for (path, _, after) in &p.catalogs {
            assert_eq!(&std::fs::read_to_string(root.join(path)).unwrap(), after, "{path}");
        }
        assert_eq!(std::fs::read_to_string(root.join(&p.log)).unwrap(), p.log_after);
    }

    /// In a git work tree the preview names the git rules folio adds and a review plan the
    /// ledger lines; `also_written` lists them with the log; the undo takes the rules away.
    #[test]
    fn git_rules_and_the_ledger_are_named_and_undo_takes_the_rules_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("apis")).unwrap();
        let kind = crate::store::dialect::okf::KIND;
        std::fs::write(audit::log_path(root, kind), "# Bundle Update Log\n").unwrap();
        std::fs::write(root.join("apis/a.md"), "---\ntype: API\ntitle: A\nstatus: draft\n---\nA.\n").unwrap();
        let store = Store::load(root, crate::store::dialect::okf::KIND, "test".into());
        let a = store.find("apis/a").unwrap();
        let reviewer = crate::store::review::Reviewer::now("human:ann");
        let verdict = crate::store::review::Verdict::approve();
        let plan = crate::store::review::verdict::plan(&store, &[a], &verdict, &reviewer, true).unwrap();
        let p = plan.preview(&store);
        assert!(p.git_rules.contains(&(".gitattributes".to_string(), true)), "{:?}", p.git_rules);
        assert!(p.ledger[0].starts_with(".folio/review/verdicts.jsonl gains 1 verdict line"), "{:?}", p.ledger);
        let lines = p.lines().join("\n");
        assert!(lines.contains("  .gitattributes (new file)") && lines.contains(&p.log), "{lines}");
        plan.apply(&store, &WriteOptions::default()).unwrap();
        assert_eq!(std::fs::read_to_string(root.join(".gitattributes")).unwrap(), "log.md merge=union\n");
        let store = Store::load(root, crate::store::dialect::okf::KIND, "test".into());
        let cs = Changeset::new(AuditEvent::new("set", "human:ann", "retitle"));
        let text = std::fs::read_to_string(root.join("apis/a.md")).unwrap();
        let cs = cs.replace(
            "apis/a.md",
            crate::store::model::digest::of(text.as_bytes()),
            text.replace("title: A", "title: B"),
        );
        let also = also_written(&store, &cs).join("\n");
        assert!(also.starts_with("also written:") && also.contains(&p.log), "{also}");
        assert!(!also.contains(".gitattributes"), "the rules are in place: none to add\n{also}");
        crate::store::write::undo::undo(&store, "human:ann", &WriteOptions::default()).unwrap();
        assert!(!root.join(".gitattributes").exists(), "the undo left the .gitattributes the verdict created");
    }

    /// A hand-curated catalog whose entry dies with a merged file is updated in the preview
    /// as in the write (the preview's store knows the file is gone though the disk still has it).
    #[test]
    fn a_curated_catalog_losing_an_entry_is_previewed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let put = |rel: &str, text: &str| {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        };
        put("KNOWLEDGE.md", "---\nokf_version: \"0.2\"\n---\n# K\n");
        put("metrics/a.md", "---\ntype: Metric\ntitle: A\n---\nA.\n");
        put("metrics/b.md", "---\ntype: Metric\ntitle: B\n---\nB.\n");
        put("metrics/index.md", "# Our metrics\n\nKept by hand.\n\n- [A](a.md) - the old one\n- [B](b.md) - the one\n");
        let store = Store::load(root, crate::store::dialect::okf::KIND, "test".into());
        let (a, b) = (store.find("metrics/a").unwrap(), store.find("metrics/b").unwrap());
        let reviewer = crate::store::review::Reviewer::now("human:ann");
        let plan = crate::store::review::merge::plan(&store, a, b, None, &reviewer).unwrap();
        let p = plan.preview(&store);
        let names: Vec<&str> = p.catalogs.iter().map(|(p, _, _)| p.as_str()).collect();
        assert_eq!(names, ["metrics/index.md"]);
        let applied = plan.apply(&store, &WriteOptions::default()).unwrap();
        assert_eq!(applied.catalogs, ["metrics/index.md"]);
        let written = std::fs::read_to_string(root.join("metrics/index.md")).unwrap();
        assert_eq!(written, p.catalogs[0].2);
        assert!(!written.contains("a.md") && written.contains("Kept by hand."), "{written}");
        assert_eq!(std::fs::read_to_string(root.join(&p.log)).unwrap(), p.log_after);
    }
}
