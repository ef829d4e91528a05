//! What a row of the catalog marks about an entity's findings, so the mark tells rows apart
//! (issue 41: in an evolve store 14 of 15 rows carried `!`). A row is marked for a warning or
//! an error; infos (an orphan) get a dimmer mark; a rule that fires on most of the store (a
//! legacy field name in every file) says something about the store, not about one row, so it
//! is named once (`store_wide`) and marks its rows as infos do.
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
}

impl RowMarks {
    pub fn get(&self, idx: EntityIdx) -> Mark {
        self.marks.get(idx as usize).copied().unwrap_or_default()
    }
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
    let store_wide: Vec<(String, usize)> = per_rule
        .iter()
        .map(|(rule, rows)| (rule.to_string(), rows.iter().filter(|&&r| r).count()))
        .filter(|&(_, n)| n >= STORE_WIDE_MIN && n * 2 > entities)
        .collect();
    let mut marks = vec![Mark::None; entities];
    for (idx, rule, severity) in findings {
        let wide = store_wide.iter().any(|(r, _)| r == rule);
        let mark = if severity >= Severity::Warn && !wide { Mark::Issue } else { Mark::Note };
        if let Some(m) = marks.get_mut(idx as usize) {
            *m = (*m).max(mark);
        }
    }
    RowMarks { marks, store_wide }
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
    fn a_rule_on_half_the_store_or_on_few_rows_still_marks() {
        let half: Vec<_> = (0..5).map(|i| (i, "legacy-trigger", Severity::Warn)).collect();
        assert!(of(10, half.iter().copied()).store_wide.is_empty(), "five of ten is not most");
        let few: Vec<_> = (0..4).map(|i| (i, "broken-link", Severity::Warn)).collect();
        let m = of(4, few.iter().copied());
        assert!(m.store_wide.is_empty() && (0..4).all(|i| m.get(i) == Mark::Issue), "a small store");
    }
}
