//! What a row of the catalog marks about an entity's findings, so the mark tells rows apart
//! (issue 41: in an evolve store 14 of 15 rows carried `!`). A row is marked for a warning or
//! an error; infos (an orphan) get a dimmer mark; a rule that fires on most of the store (a
//! legacy field name in every file) says something about the store, not about one row, so it
//! is named once (`store_wide`) and marks its rows as infos do.
use std::collections::BTreeMap;

use super::Finding;
use crate::store::Store;
use crate::store::model::entity::{EntityIdx, Severity, rule};

/// A rule is store-wide when it marks more than half the entities, and at least this many.
pub const STORE_WIDE_MIN: usize = 5;

/// The mark of one row, ordered by weight.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    #[default]
    None,
    /// Only infos, or only store-wide rules: a dim mark.
    Note,
    /// A warning or an error of its own.
    Issue,
}

/// Each entity's mark, and the rules set apart as store-wide with how many entities they mark.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowMarks {
    pub marks: Vec<Mark>,
    pub store_wide: Vec<(String, usize)>,
    /// Per rule that warns, how many entities it marks: what `store_wide` is decided from, kept
    /// so that `patched` can tell whether a change moved a rule across the line.
    rule_rows: BTreeMap<String, usize>,
}

impl RowMarks {
    pub fn get(&self, idx: EntityIdx) -> Mark {
        self.marks.get(idx as usize).copied().unwrap_or_default()
    }

    /// These marks with the entities `touched` (ascending) marked again: `before` are their
    /// findings these marks were made from, `after` their findings now (every other entity's
    /// findings the same). Equal to `of` over all the findings now, at the cost of the change
    /// rather than of the store; `None` when the change moves a rule into or out of
    /// `store_wide` (every row's mark may change: make them again).
    pub fn patched<'a>(
        &self,
        touched: &[EntityIdx],
        before: impl Iterator<Item = (EntityIdx, &'a str, Severity)>,
        after: impl Iterator<Item = (EntityIdx, &'a str, Severity)> + Clone,
    ) -> Option<RowMarks> {
        let entities = self.marks.len();
        if touched.last().is_some_and(|&t| t as usize >= entities) {
            return None;
        }
        let warned = |it: &mut dyn Iterator<Item = (EntityIdx, &'a str, Severity)>| {
            let mut set: Vec<(&'a str, EntityIdx)> =
                it.filter(|&(_, _, s)| s >= Severity::Warn).map(|(i, r, _)| (r, i)).collect();
            set.sort_unstable();
            set.dedup();
            set
        };
        let (was, now) = (warned(&mut before.into_iter()), warned(&mut after.clone()));
        let mut rule_rows = self.rule_rows.clone();
        for (rule, _) in was.iter().filter(|x| now.binary_search(x).is_err()) {
            if let Some(n) = rule_rows.get_mut(*rule) {
                *n = n.saturating_sub(1);
            }
        }
        for (rule, _) in now.iter().filter(|x| was.binary_search(x).is_err()) {
            *rule_rows.entry(rule.to_string()).or_default() += 1;
        }
        rule_rows.retain(|_, n| *n > 0);
        if wide(&rule_rows, entities) != self.store_wide {
            return None;
        }
        let mut marks = self.marks.clone();
        for &t in touched {
            marks[t as usize] = Mark::None;
        }
        for (idx, rule, severity) in after {
            if let Some(m) = marks.get_mut(idx as usize) {
                *m = (*m).max(mark(&self.store_wide, rule, severity));
            }
        }
        Some(RowMarks { marks, store_wide: self.store_wide.clone(), rule_rows })
    }
}

/// The rules among `rule_rows` that mark most of a store of `entities` entities.
fn wide(rule_rows: &BTreeMap<String, usize>, entities: usize) -> Vec<(String, usize)> {
    rule_rows.iter().filter(|&(_, &n)| n >= STORE_WIDE_MIN && n * 2 > entities).map(|(r, &n)| (r.clone(), n)).collect()
}

/// The mark one finding gives its row.
fn mark(store_wide: &[(String, usize)], rule: &str, severity: Severity) -> Mark {
    let wide = store_wide.iter().any(|(r, _)| r == rule);
    if severity >= Severity::Warn && !wide { Mark::Issue } else { Mark::Note }
}

/// The findings of the entities `touched` (ascending) as the marks take them
/// (`RowMarks::patched` after a relint that names them, `Linted::changed_from`).
pub fn of_touched<'a>(
    findings: &'a [Finding],
    touched: &'a [EntityIdx],
) -> impl Iterator<Item = (EntityIdx, &'a str, Severity)> + Clone + 'a {
    findings.iter().filter_map(|f| {
        let i = f.entity?;
        touched.binary_search(&i).is_ok().then_some((i, f.rule, f.severity))
    })
}

/// The marks of a lint report's findings.
pub fn of_report(store: &Store, findings: &[Finding]) -> RowMarks {
    of(store.entities.len(), findings.iter().filter_map(|f| Some((f.entity?, f.rule, f.severity))))
}

/// The marks of `(entity, rule, severity)` findings over a store of `entities` entities.
pub fn of<'a>(entities: usize, findings: impl Iterator<Item = (EntityIdx, &'a str, Severity)> + Clone) -> RowMarks {
    let mut per_rule: std::collections::BTreeMap<&str, Vec<bool>> = Default::default();
    // Infos mark dimly anyway: only a rule that warns can be set apart.
    for (idx, rule, _) in findings.clone().filter(|&(_, _, s)| s >= Severity::Warn) {
        let rows = per_rule.entry(rule).or_insert_with(|| vec![false; entities]);
        if let Some(r) = rows.get_mut(idx as usize) {
            *r = true;
        }
    }
    let rule_rows: BTreeMap<String, usize> =
        per_rule.iter().map(|(rule, rows)| (rule.to_string(), rows.iter().filter(|&&r| r).count())).collect();
    let store_wide = wide(&rule_rows, entities);
    let mut marks = vec![Mark::None; entities];
    for (idx, rule, severity) in findings {
        if let Some(m) = marks.get_mut(idx as usize) {
            *m = (*m).max(mark(&store_wide, rule, severity));
        }
    }
    RowMarks { marks, store_wide, rule_rows }
}

/// The marks from what loading found (each entity's problems and broken links), until the lint
/// engine's report arrives: the same rows as the report would mark, but for the rules that
/// need the whole store (orphans, duplicates).
pub fn of_loaded(store: &Store) -> RowMarks {
    let found = store.entities.iter().enumerate().flat_map(|(i, e)| {
        let problems =
            e.problems.iter().map(|p| (p.rule, p.severity.unwrap_or_else(|| super::default_severity(p.rule))));
        let broken = e.links.iter().filter(|l| l.is_unresolved()).map(|_| (rule::BROKEN_LINK, Severity::Warn));
        problems.chain(broken).map(move |(r, s)| (i as EntityIdx, r, s))
    });
    of(store.entities.len(), found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infos_and_store_wide_rules_mark_dimly() {
        let mut f = vec![(0, "orphan", Severity::Info), (1, "broken-link", Severity::Warn)];
        f.extend((3..9).map(|i| (i, "orphan", Severity::Info)));
        f.extend((2..8).map(|i| (i, "legacy-trigger", Severity::Warn)));
        f.push((2, "invalid-field", Severity::Error));
        let m = of(10, f.iter().copied());
        assert_eq!(m.store_wide, [("legacy-trigger".to_string(), 6)]);
        let got: Vec<Mark> = (0..10).map(|i| m.get(i)).collect();
        use Mark::*;
        assert_eq!(got, [Note, Issue, Issue, Note, Note, Note, Note, Note, Note, None], "orphan is no store-wide rule");
        assert_eq!(m.get(99), None, "an index past the store is unmarked");
    }

    #[test]
    fn patched_marks_equal_marks_made_again() {
        let before: Vec<(EntityIdx, &str, Severity)> = vec![
            (0, "broken-link", Severity::Warn),
            (1, "orphan", Severity::Info),
            (2, "broken-link", Severity::Warn),
            (2, "invalid-field", Severity::Error),
        ];
        let legacy: Vec<_> = (3..8).map(|i| (i, "legacy-trigger", Severity::Warn)).collect();
        let old = of(10, before.iter().chain(&legacy).copied());
        // Entity 2 loses its broken link, 9 gains one, 1 becomes an issue.
        let after: Vec<(EntityIdx, &str, Severity)> = vec![
            (1, "invalid-field", Severity::Error),
            (2, "invalid-field", Severity::Error),
            (9, "broken-link", Severity::Warn),
        ];
        let touched = [1, 2, 9];
        let of_touched = |list: &[(EntityIdx, &'static str, Severity)]| {
            list.iter().copied().filter(|(i, _, _)| touched.contains(i)).collect::<Vec<_>>()
        };
        let now: Vec<_> = [before[0]].into_iter().chain(after.iter().copied()).chain(legacy.iter().copied()).collect();
        let patched = old.patched(&touched, of_touched(&before).into_iter(), of_touched(&now).into_iter());
        assert_eq!(patched, Some(of(10, now.iter().copied())));
        // A sixth entity with the legacy rule makes it store-wide: every row is marked again.
        let wider: Vec<_> = now.iter().copied().chain([(9, "legacy-trigger", Severity::Warn)]).collect();
        assert_eq!(old.patched(&[9], [].into_iter(), of_touched(&wider).into_iter().filter(|f| f.0 == 9)), None);
    }

    #[test]
    fn a_rule_on_half_the_store_or_on_few_rows_still_marks() {
        let half: Vec<_> = (0..5).map(|i| (i, "legacy-trigger", Severity::Warn)).collect();
        assert!(of(10, half.iter().copied()).store_wide.is_empty(), "five of ten is not most");
        let few: Vec<_> = (0..4).map(|i| (i, "broken-link", Severity::Warn)).collect();
        let m = of(4, few.iter().copied());
        assert!(m.store_wide.is_empty() && (0..4).all(|i| m.get(i) == Mark::Issue), "a small store");
    }
}
