//! The lint engine: every finding about a loaded store, for the CLI and the TUI's lint panel.
//!
//! Per-file findings were made by the loader and the dialects while parsing (entity
//! `problems`); store-level ones come from `Dialect::warnings`; the cross-entity rules run here
//! over the model, one module per rule family. Nothing here reads an entity file a second time,
//! except the few files a safe fix would change.
use std::collections::BTreeMap;

use crate::store::Store;
use crate::store::entity::{EntityIdx, Severity};

pub mod apply;
pub mod catalogs;
pub mod config;
pub mod duplicates;
pub mod export;
pub mod fix;
pub mod graph;
pub mod links;
pub mod manifest;
pub mod rules;
pub mod trigger_fix;

pub use config::LintConfig;
pub use fix::Fix;

/// One thing wrong with the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// A rule id from `rules::RULES`.
    pub rule: &'static str,
    pub severity: Severity,
    pub entity: Option<EntityIdx>,
    /// File relative to the store root; `None` for findings about the store as a whole.
    pub path: Option<String>,
    /// 1-based position; 0 when the finding is about the whole file.
    pub line: u32,
    pub col: u32,
    pub message: String,
    /// The safe fix, when there is one.
    pub fix: Option<Fix>,
}

impl Finding {
    /// A finding about an entity at the rule's default severity.
    pub fn on_entity(store: &Store, idx: EntityIdx, rule: &'static str, line: u32, col: u32, message: String) -> Self {
        Finding {
            rule,
            severity: default_severity(rule),
            entity: Some(idx),
            path: Some(store.entity(idx).path.clone()),
            line,
            col,
            message,
            fix: None,
        }
    }

    /// A finding about a file that is not an entity (a catalog, a log).
    pub fn on_file(path: &str, rule: &'static str, line: u32, message: String) -> Self {
        Finding {
            rule,
            severity: default_severity(rule),
            entity: None,
            path: Some(path.to_string()),
            line,
            col: if line == 0 { 0 } else { 1 },
            message,
            fix: None,
        }
    }

    pub fn with_severity(mut self, severity: Option<Severity>) -> Self {
        if let Some(s) = severity {
            self.severity = s;
        }
        self
    }
}

fn default_severity(rule: &str) -> Severity {
    rules::lookup(rule).map(|r| r.severity).unwrap_or(Severity::Warn)
}

/// The result of a lint pass, findings sorted by file, position and rule.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
}

/// Lint the whole store with its store-local configuration applied.
pub fn lint(store: &Store, config: &LintConfig) -> Report {
    let manifest = manifest::ManifestLints::from_info(&store.dialect.info());
    // Three independent groups of rules on the two cores: the duplicate and catalog rules
    // were 93 M of the 105 M instructions `lint` spent on the main thread after loading
    // (callgrind, 10k OKF). Findings are concatenated in the sequential order before sorting.
    let in_order = |checks: &dyn Fn(&mut Vec<Finding>)| {
        let mut found = Vec::new();
        checks(&mut found);
        found
    };
    let ((mut findings, duplicated), catalogs) = rayon::join(
        || {
            rayon::join(
                || {
                    in_order(&|f| {
                        entity_problems(store, f);
                        store_warnings(store, f);
                        links::check(store, &manifest, f);
                        graph::check(store, &manifest, f);
                    })
                },
                || in_order(&|f| duplicates::check(store, f)),
            )
        },
        || in_order(&|f| catalogs::check(store, f)),
    );
    findings.extend(duplicated);
    findings.extend(catalogs);
    findings.retain(|f| !config.disabled.contains(f.rule));
    for f in &mut findings {
        if let Some(&s) = config.severity.get(f.rule) {
            f.severity = s;
        }
    }
    trigger_fix::attach(store, &mut findings);
    findings.sort_by(|a, b| {
        (a.path.is_some(), &a.path, a.line, a.col, a.rule).cmp(&(b.path.is_some(), &b.path, b.line, b.col, b.rule))
    });
    Report { findings }
}

/// What the loader and the dialect found while reading each entity.
fn entity_problems(store: &Store, out: &mut Vec<Finding>) {
    for (i, e) in store.entities.iter().enumerate() {
        for p in &e.problems {
            let rule = rules::lookup(p.rule).map(|r| r.id).unwrap_or(rules::STORE_WARNING);
            out.push(
                Finding::on_entity(store, i as EntityIdx, rule, p.line, p.col, p.message.clone())
                    .with_severity(p.severity),
            );
        }
    }
}

/// Warnings about the store as a whole; codes that are not rule ids keep their code in the text.
fn store_warnings(store: &Store, out: &mut Vec<Finding>) {
    // The format's own warnings, and folders the walk could not read (`unreadable`).
    for w in store.dialect.warnings().into_iter().chain(store.walk_warnings.iter().cloned()) {
        let (rule, message) = match rules::lookup(&w.code) {
            Some(r) => (r.id, w.message),
            None => (rules::STORE_WARNING, format!("{}: {}", w.code, w.message)),
        };
        out.push(Finding {
            rule,
            severity: default_severity(rule),
            entity: None,
            path: w.path,
            line: 0,
            col: 0,
            message,
            fix: None,
        });
    }
}

/// Counts for the summary line and the JSON `summary`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub files: usize,
    pub fixable: usize,
    pub by_rule: BTreeMap<&'static str, usize>,
}

impl Report {
    /// Keep only findings of the given rules (all when empty) at or above `min` severity.
    pub fn filter(&mut self, rules: &[&str], min: Severity) {
        self.findings.retain(|f| f.severity >= min && (rules.is_empty() || rules.contains(&f.rule)));
    }

    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        let mut files = std::collections::HashSet::new();
        for f in &self.findings {
            match f.severity {
                Severity::Error => s.errors += 1,
                Severity::Warn => s.warnings += 1,
                Severity::Info => s.infos += 1,
            }
            if f.fix.is_some() {
                s.fixable += 1;
            }
            *s.by_rule.entry(f.rule).or_insert(0) += 1;
            files.insert(f.path.as_deref());
        }
        s.files = files.into_iter().flatten().count();
        s
    }

    /// The fixes of every finding that has one, merged per file (what `--fix` would apply).
    pub fn fixes(&self) -> Vec<Fix> {
        let all: Vec<&Fix> = self.findings.iter().filter_map(|f| f.fix.as_ref()).collect();
        fix::merge_per_file(&all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::dialect::{self, Dialect, DialectKind, FileRole, SourceFile, StoreWarning};
    use crate::store::entity::{Entity, rule};

    /// An AIP-10-like dialect with store warnings and a manifest that makes broken refs errors
    /// and orphans of kind `concept` warnings.
    struct Fake;

    impl Dialect for Fake {
        fn kind(&self) -> DialectKind {
            DialectKind::Aip10
        }
        fn role(&self, _rel: &str) -> FileRole {
            FileRole::Entity
        }
        fn parse(&self, file: &SourceFile) -> Vec<Entity> {
            let mut e = dialect::parse_markdown(file, dialect::Grammar::Yaml).entity;
            e.kind = crate::store::frontmatter::get_str(&dialect::yaml_fields(file.text), "kind");
            vec![e]
        }
        fn warnings(&self) -> Vec<StoreWarning> {
            vec![
                StoreWarning {
                    code: "extends-cycle".into(),
                    message: "a → b → a".into(),
                    path: Some("KNOWLEDGE.md".into()),
                },
                StoreWarning { code: "manifest-unreadable".into(), message: "bad JSON".into(), path: None },
            ]
        }
        fn info(&self) -> serde_json::Value {
            serde_json::json!({"merged": {"lints": [
                {"id": "r", "kind": "broken-ref", "appliesTo": "*", "severity": "error"},
                {"id": "o", "kind": "orphan", "appliesTo": "Concept", "severity": "warn"}
            ]}, "chain": []})
        }
    }

    #[test]
    fn store_warnings_and_manifest_lints_shape_the_findings() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "---\nkind: concept\n---\nSee [gone](gone.md).\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "---\nkind: entity\n---\nSee [a](a.md).\n").unwrap();
        let mut store = Store::load(dir.path(), DialectKind::Vault, "test".into());
        store.dialect = Box::new(Fake);
        let report = lint(&store, &LintConfig::default());
        let got: Vec<(&str, Severity, Option<&str>)> =
            report.findings.iter().map(|f| (f.rule, f.severity, f.path.as_deref())).collect();
        assert_eq!(
            got,
            [
                (rules::STORE_WARNING, Severity::Warn, None),
                (rule::EXTENDS_CYCLE, Severity::Warn, Some("KNOWLEDGE.md")),
                (rule::BROKEN_LINK, Severity::Error, Some("a.md")),
                // `b` is an entity, not a concept: the manifest's orphan lint does not apply.
                (rule::ORPHAN, Severity::Info, Some("b.md")),
            ]
        );
        assert_eq!(report.findings[0].message, "manifest-unreadable: bad JSON");
        assert!(report.has_errors());
    }
}
