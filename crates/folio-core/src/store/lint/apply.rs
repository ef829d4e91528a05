//! `lint --fix` and `lint --log` through the shared write path: every fix is a changeset
//! (hash-checked, journaled, logged), and a lint pass is an audit event in the store's log.
use std::collections::{BTreeMap, HashSet};

use super::fix::{OnDisk, content_hash};
use super::{Fix, Report};
use crate::store::Store;
use crate::store::model::entity::{Severity, rule};
use crate::store::write::audit::AuditEvent;
use crate::store::write::catalog::{self, CatalogState};
use crate::store::write::changeset::{Applied, Changeset, WriteError, WriteOptions};

/// What `apply_fixes` wrote.
#[derive(Debug, Default)]
pub struct FixOutcome {
    /// Files the fixes edited, catalogs included.
    pub files: Vec<String>,
    /// How many findings the applied fixes addressed.
    pub fixed: usize,
    /// Where the fix events were logged.
    pub logs: Vec<String>,
}

/// Apply the safe fixes of `report` as one changeset: the entity edits and, when the report had
/// `catalog-stale` fixes, every catalog that is stale once those edits are in (read from the
/// store as the edits leave it), so a crash or a failing disk keeps the whole pass or none.
pub fn apply_fixes(store: &Store, report: &Report, by: &str, opts: &WriteOptions) -> Result<FixOutcome, WriteError> {
    let (cs, fixed) = fixes_changeset(store, report, by)?;
    let mut outcome = FixOutcome { fixed, ..FixOutcome::default() };
    let Some(cs) = cs else { return Ok(outcome) };
    let applied = store.apply(cs, opts)?;
    record(&mut outcome, applied);
    Ok(outcome)
}

/// The one changeset `apply_fixes` writes (None: nothing to change) and how many findings it
/// fixes; a preview shows it (`write::preview::also_written`) before anything is written.
pub fn fixes_changeset(store: &Store, report: &Report, by: &str) -> Result<(Option<Changeset>, usize), WriteError> {
    let catalog_paths: HashSet<String> = store.dialect.catalogs(store).into_iter().map(|p| p.path).collect();
    let mut outcome = FixOutcome::default();
    let entity_findings: Vec<_> =
        report.findings.iter().filter(|f| f.fix.as_ref().is_some_and(|x| !catalog_paths.contains(&x.path))).collect();
    let wants_catalogs = report.findings.iter().any(|f| f.rule == rule::CATALOG_STALE && f.fix.is_some());
    // Every fix of the pass is one changeset: a crash or a failing disk keeps all or none.
    let mut rules: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &entity_findings {
        *rules.entry(f.rule).or_default() += 1;
    }
    let mut what: Vec<String> = rules.iter().map(|(r, n)| format!("{n} {r}")).collect();
    let mut edits: Vec<(String, Option<String>, Vec<u8>)> = Vec::new();
    if !entity_findings.is_empty() {
        let fixes: Vec<&Fix> = entity_findings.iter().filter_map(|f| f.fix.as_deref()).collect();
        for fix in super::fix::merge_per_file(&fixes) {
            let current = OnDisk::of(store, &fix.path).ok().flatten();
            let new = fix.apply(current.as_ref()).map_err(|e| WriteError::Invalid(e.to_string()))?;
            // The fix accepted these bytes: the write path checks the file still holds them.
            edits.push((fix.path.clone(), current.as_ref().map(|d| content_hash(&d.bytes)), new));
        }
        outcome.fixed += entity_findings.len();
    }
    // Fixes are worked out from the whole store (which catalogs are stale, where links lead):
    // a read that failed would have them differ from what the report shows.
    if let Some((path, why)) = store.unread_file() {
        return Err(WriteError::Invalid(format!(
            "{path}: {why}; fixes worked out from an incomplete read are not applied, so nothing was written"
        )));
    }
    if wants_catalogs {
        // The catalogs as the store reads once the entity fixes are in.
        let fixed_writes: Vec<_> = edits
            .iter()
            .map(|(path, expected, after)| crate::store::write::changeset::Write {
                path: path.clone(),
                expected: expected.clone(),
                after: Some(after.clone()),
                role: crate::store::write::journal::Role::Edit,
            })
            .collect();
        let fixed = store.overlaid(&fixed_writes);
        let statuses = catalog::status(&fixed);
        if let Some((path, why)) = catalog::unread(&statuses) {
            return Err(WriteError::Invalid(format!("{path}: {why}; nothing was written")));
        }
        let stale: Vec<_> =
            statuses.into_iter().filter(|s| matches!(s.state, CatalogState::Stale | CatalogState::Missing)).collect();
        if !stale.is_empty() {
            what.push(format!("regenerated {} catalogs", stale.len()));
        }
        for s in stale {
            let on_disk = store.storage().read(&s.path).ok();
            edits.push((
                s.path.clone(),
                on_disk.as_deref().map(crate::store::model::digest::of),
                s.expected.clone().into(),
            ));
        }
        outcome.fixed += report.findings.iter().filter(|f| f.rule == rule::CATALOG_STALE && f.fix.is_some()).count();
    }
    if edits.is_empty() {
        return Ok((None, outcome.fixed));
    }
    let mut event = AuditEvent::new("fix", by, format!("lint --fix: {}", what.join(", ")));
    for f in &entity_findings {
        if let Some(i) = f.entity {
            let e = store.entity(i);
            if !event.entities.iter().any(|x| x.id == e.id) {
                event = event.entity(&e.id, &e.title, &e.path);
            }
        }
    }
    let mut cs = Changeset::new(event);
    for (path, expected, after) in edits {
        cs = match expected {
            Some(d) => cs.replace(&path, d, after),
            None => cs.create(&path, after),
        };
    }
    Ok((Some(cs), outcome.fixed))
}

fn record(outcome: &mut FixOutcome, applied: Applied) {
    for f in applied.files.into_iter().chain(applied.catalogs) {
        if !outcome.files.contains(&f) {
            outcome.files.push(f);
        }
    }
    if !outcome.logs.contains(&applied.log) {
        outcome.logs.push(applied.log);
    }
}

/// The audit event that records a lint pass. For AIP-10 it is the spec's
/// `## [ISO] lint | full-pass` with its count bullets (orphans, broken-ref, stale,
/// unresolved-contradictions, unsourced); other logs get the counts as a summary and details.
pub fn pass_event(store: &Store, report: &Report, subject: &str, by: &str) -> AuditEvent {
    let s = report.summary();
    let summary =
        format!("{subject}: {} errors, {} warnings, {} infos in {} files", s.errors, s.warnings, s.infos, s.files);
    let mut event = AuditEvent::new("lint", by, summary)
        .heading("lint", subject)
        .detail("errors", s.errors)
        .detail("warnings", s.warnings)
        .detail("infos", s.infos)
        .detail("by_rule", serde_json::to_value(&s.by_rule).unwrap_or_default());
    let names = |r: &str| -> Vec<String> {
        report
            .findings
            .iter()
            .filter(|f| f.rule == r)
            .map(|f| match f.entity {
                Some(i) => store.entity(i).id.clone(),
                None => f.path.as_deref().unwrap_or(".").to_string(),
            })
            .collect()
    };
    let counted = |n: usize, label: &str, items: &[String]| {
        if items.is_empty() { format!("{n} {label}") } else { format!("{n} {label}: {}", items.join(", ")) }
    };
    let orphans = names(rule::ORPHAN);
    event = event.bullet(counted(orphans.len(), "orphans", &orphans));
    let broken: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.rule == rule::BROKEN_LINK)
        .map(|f| format!("{} → {}", f.path.as_deref().unwrap_or("."), broken_target(&f.message)))
        .collect();
    event = event.bullet(counted(broken.len(), "broken-ref", &broken));
    let stale = names(rule::STALE);
    event = event.bullet(counted(stale.len(), "stale", &stale));
    let contradictions = names(rule::CONTRADICTION);
    event = event.bullet(counted(contradictions.len(), "unresolved-contradictions", &contradictions));
    let unsourced = names(rule::UNSOURCED);
    event = event.bullet(counted(unsourced.len(), "unsourced", &unsourced));
    let shown = [rule::ORPHAN, rule::BROKEN_LINK, rule::STALE, rule::CONTRADICTION, rule::UNSOURCED];
    let others: Vec<String> =
        s.by_rule.iter().filter(|(r, _)| !shown.contains(r)).map(|(r, n)| format!("{n} {r}")).collect();
    if !others.is_empty() {
        event = event.bullet(format!("other findings: {}", others.join(", ")));
    }
    if report.findings.iter().any(|f| f.severity == Severity::Error) {
        event = event.detail("result", "errors");
    }
    event
}

/// The link target quoted at the start of a broken-link message (`` `x.md` does not … ``).
fn broken_target(message: &str) -> String {
    message
        .strip_prefix('`')
        .and_then(|m| m.split_once('`'))
        .map(|(t, _)| t.to_string())
        .unwrap_or_else(|| message.to_string())
}

/// Record a lint pass in the store's own log (a changeset with no file edits but its event).
/// `subject` is `full-pass`, or `filtered-pass` when only some rules or severities were asked.
pub fn log_pass(
    store: &Store,
    report: &Report,
    subject: &str,
    by: &str,
    opts: &WriteOptions,
) -> Result<Applied, WriteError> {
    store.apply(Changeset::new(pass_event(store, report, subject, by)), opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_targets_come_from_the_message() {
        assert_eq!(broken_target("`../x.md` does not resolve inside the store"), "../x.md");
        assert_eq!(broken_target("odd"), "odd");
    }
}
