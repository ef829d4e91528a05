//! Catalog rules: `reserved-name` (a catalog or log name holding a concept, which regeneration
//! would destroy), `reserved-file` (a reserved file breaking the structure its format gives it,
//! `Format::reserved_file_problems`) and `catalog-stale` (a catalog missing or not what
//! `folio index` writes, with the regenerated file as its fix).
use std::collections::HashSet;

use super::Finding;
use super::fix::{Change, Expected, Fix, content_hash};
use crate::store::dialect::DialectKind;
use crate::store::model::entity::rule;
use crate::store::read::frontmatter::{self, Block};
use crate::store::write::catalog::{self, CatalogState, CatalogStatus};
use crate::store::{Store, read::load};

/// Keys that make frontmatter a concept's rather than a catalog's (`okf_version` is allowed).
const CONCEPT_KEYS: &[&str] = &["type", "kind", "slug", "title", "description"];

/// File names the dialect reserves for its catalogs and logs.
pub fn reserved_names(kind: DialectKind) -> &'static [&'static str] {
    kind.spec().reserved_names
}

pub fn check(store: &Store, out: &mut Vec<Finding>) {
    let reserved = reserved_names(store.kind());
    let mut seen = HashSet::new();
    let mut reported = HashSet::new();
    let files = store.other_files.iter().map(|(p, _)| p.as_str()).chain(store.entities.iter().map(|e| e.path.as_str()));
    for path in files {
        if is_reserved(reserved, path) && seen.insert(path) {
            reserved_check(store, path, &mut reported, out);
        }
    }
    // A verdict remembered from the load or the cache that every catalog is fresh holds no
    // finding: the catalogs are neither rendered nor compared again (rendering a large
    // wiki's `_index.md` is a good share of its full load: docs/benchmarks.md, "Lint figures").
    let all_fresh = catalog::remembered::recalled(store)
        .is_some_and(|states| states.iter().all(|(_, state)| *state == CatalogState::Fresh));
    if !all_fresh {
        statuses(store, catalog::status(store), &reported, out);
    }
}

fn is_reserved(reserved: &[&str], path: &str) -> bool {
    reserved.contains(&path.rsplit('/').next().unwrap_or(path))
}

/// `reserved-name` for one file with a reserved name holding a concept (noted in `reported`
/// when found), else `reserved-file` for each break of the structure its format gives it.
pub fn reserved_check(store: &Store, path: &str, reported: &mut HashSet<String>, out: &mut Vec<Finding>) {
    let name = path.rsplit('/').next().unwrap_or(path);
    if !reserved_names(store.kind()).contains(&name) {
        return;
    }
    // Catalogs and logs are small; a huge one is not parsed for this check.
    let Ok((bytes, _)) = store.storage().read_capped(path, 1024 * 1024) else { return };
    let text = String::from_utf8_lossy(&bytes);
    if let Some(keys) = concept_keys(store, path, &text) {
        reported.insert(path.to_string());
        // A catalog in that place would be regenerated over it; a log is only appended to,
        // so a concept-like log is a warning.
        let is_log = store.kind().spec().is_log_file(name);
        let finding = Finding::on_file(
            path,
            rule::RESERVED_NAME,
            1,
            format!("`{name}` is reserved for the store's catalog/log but holds concept frontmatter ({keys})"),
        );
        out.push(finding.with_severity(is_log.then_some(crate::store::model::entity::Severity::Warn)));
        return;
    }
    for (line, message) in store.kind().format().reserved_file_problems(path, &text) {
        out.push(Finding::on_file(path, rule::RESERVED_FILE, line, message));
    }
}

/// Findings for catalogs that are refused, missing or stale (a refusal already reported as
/// `reserved-name` is not reported twice).
pub fn statuses(store: &Store, statuses: Vec<CatalogStatus>, reported: &HashSet<String>, out: &mut Vec<Finding>) {
    for s in statuses {
        match s.state {
            CatalogState::Fresh => {}
            CatalogState::Refused(reason) => {
                if !reported.contains(&s.path) {
                    out.push(Finding::on_file(
                        &s.path,
                        rule::RESERVED_NAME,
                        1,
                        format!("not a catalog: {reason}; regenerating catalogs would destroy it"),
                    ));
                }
            }
            CatalogState::Missing => {
                let mut f = Finding::on_file(&s.path, rule::CATALOG_STALE, 0, "catalog is missing".into());
                f.fix = Some(Box::new(Fix {
                    path: s.path.clone(),
                    description: "create it as `folio index` would".into(),
                    expected: Expected::Absent,
                    change: Change::Replace(s.expected),
                }));
                out.push(f);
            }
            CatalogState::Stale => {
                let message = if s.notes.is_empty() {
                    "catalog differs from what `folio index` would write".to_string()
                } else {
                    format!("catalog entries are wrong: {}", s.notes.join("; "))
                };
                let mut f = Finding::on_file(&s.path, rule::CATALOG_STALE, 1, message);
                if let Ok((bytes, false)) = store.storage().read_capped(&s.path, load::MAX_READ) {
                    f.fix = Some(Box::new(Fix {
                        path: s.path.clone(),
                        description: "update its entries as `folio index` would".into(),
                        expected: Expected::Hash(content_hash(&bytes)),
                        change: Change::Replace(s.expected),
                    }));
                }
                out.push(f);
            }
        }
    }
}

/// The concept keys in a file's frontmatter (`text`), comma-separated; `None` when it has none.
fn concept_keys(store: &Store, path: &str, text: &str) -> Option<String> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return None };
    let fields = frontmatter::parse_yaml(&text[inner]).ok()?;
    // `type: Log` on a log (acme_retail's `log.md`), `type: Index` on a catalog: the file says
    // what it is, and a title beside that is the log's own, not a concept's (its format may
    // still forbid the frontmatter: `reserved-file`).
    let name = path.rsplit('/').next().unwrap_or(path);
    let declared = fields.get("type").and_then(|v| v.as_str()).map(str::to_ascii_lowercase);
    let own_type = if store.kind().spec().is_log_file(name) { "log" } else { "index" };
    if declared.as_deref() == Some(own_type) {
        return None;
    }
    let keys: Vec<&str> = fields.keys().map(String::as_str).filter(|k| CONCEPT_KEYS.contains(k)).collect();
    (!keys.is_empty()).then(|| keys.join(", "))
}
