//! Fuzzy recall over entities (and, switchable, their H2 sections) with nucleo: the streaming
//! engine the TUI types into (`engine`) and the headless ranking `folio recall` prints
//! (`recall`), both over the same items, filters and order (`rank`).
pub mod bound;
pub mod engine;
pub mod history;
pub mod item;
pub mod item_list;
pub mod query;
pub mod rank;
pub mod text;
pub mod worker;

use crate::store::Store;
use crate::store::model::entity::EntityIdx;

pub use item::{RecallItem, Section};
pub use query::{Facts, Query};

/// One ranked result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub idx: EntityIdx,
    pub score: u32,
    pub section: Option<Section>,
}

/// Which entities have lint findings, by index (`has:lint`); empty when lint has not run.
pub type LintFlags = [bool];

fn facts(flags: &LintFlags, i: usize) -> Facts {
    Facts { has_lint: flags.get(i).copied().unwrap_or(false) }
}

/// Which entities the lint report has findings for, by entity index.
pub fn lint_flags(store: &Store, report: &crate::store::lint::Report) -> Vec<bool> {
    let mut flags = vec![false; store.entities.len()];
    for i in report.findings.iter().filter_map(|f| f.entity) {
        if let Some(f) = flags.get_mut(i as usize) {
            *f = true;
        }
    }
    flags
}

/// Call `push` with every item the query's filters accept, in store order: an entity's own item,
/// then (with `sections`) one per H2 section of its body. Stops early when `push` says so.
pub fn for_each_item(
    store: &Store,
    query: &Query,
    flags: &LintFlags,
    sections: bool,
    mut push: impl FnMut(RecallItem) -> bool,
) {
    for (i, e) in store.entities.iter().enumerate() {
        if !query.accepts(e, facts(flags, i)) {
            continue;
        }
        let idx = i as EntityIdx;
        if !push(RecallItem::entity(idx, e)) {
            return;
        }
        if sections {
            for item in section_items(store, idx) {
                if !push(item) {
                    return;
                }
            }
        }
    }
}

/// The H2 sections of one entity's body, read from disk (unreadable or escaping files: none).
pub fn section_items(store: &Store, idx: EntityIdx) -> Vec<RecallItem> {
    let Some(body) = crate::store::read::body_text::body(store, idx) else { return Vec::new() };
    let e = store.entity(idx);
    item::h2_sections(&body.text, body.first_line)
        .into_iter()
        .map(|(s, text)| RecallItem::section(idx, e, s, &text))
        .collect()
}

/// Rank the store against `query` (fzf syntax plus filters). Best first. An empty query
/// matches nothing.
pub fn recall(store: &Store, query: &str, limit: usize) -> Vec<Hit> {
    recall_with(store, &Query::parse(query), &[], false, limit)
}

/// `recall` with lint flags (for `has:lint`) and optionally section items.
pub fn recall_with(store: &Store, query: &Query, flags: &LintFlags, sections: bool, limit: usize) -> Vec<Hit> {
    if query.is_empty() {
        return Vec::new();
    }
    let mut items = Vec::new();
    for_each_item(store, query, flags, sections, |item| {
        items.push(item);
        true
    });
    rank::rank(&items, &query.text, limit)
        .into_iter()
        .map(|(n, score)| Hit { idx: items[n].idx, score, section: items[n].section.clone() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
        w(
            "margin.md",
            "---\ntitle: Gross margin\ntags: [finance]\n---\n# Gross margin\n\n## Formula\nrevenue minus cogs\n",
        );
        w(
            "churn.md",
            "---\ntitle: Churn\ntags: [growth]\nstatus: draft\n---\n# Churn\n\n## Cohorts\nmonthly cohorts\n",
        );
        w("marginal.md", "---\ntitle: Marginal cost\n---\n# Marginal cost\n");
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        (dir, store)
    }

    #[test]
    fn ranks_and_filters() {
        let (_d, s) = store();
        let ids = |hits: Vec<Hit>| hits.iter().map(|h| s.entity(h.idx).id.clone()).collect::<Vec<_>>();
        // Equal scores: the shorter haystack first (nucleo's own tie-break).
        assert_eq!(ids(recall(&s, "margin", 10)), ["marginal", "margin"]);
        assert_eq!(ids(recall(&s, "gross marg", 10)), ["margin"]);
        assert_eq!(ids(recall(&s, "margin tag:finance", 10)), ["margin"]);
        assert_eq!(ids(recall(&s, "has:pending", 10)), ["churn"]);
        assert!(recall(&s, "", 10).is_empty());
        let churn = s.find("churn").unwrap() as usize;
        let mut flags = vec![false; s.entities.len()];
        flags[churn] = true;
        assert_eq!(ids(recall_with(&s, &Query::parse("has:lint"), &flags, false, 10)), ["churn"]);
    }

    #[test]
    fn sections_are_items_with_their_heading_line() {
        let (_d, s) = store();
        let hits = recall_with(&s, &Query::parse("cohorts"), &[], true, 10);
        let sec = hits.iter().find_map(|h| h.section.clone()).expect("a section hit");
        assert_eq!((sec.heading.as_str(), sec.line), ("Cohorts", 8));
        assert!(recall_with(&s, &Query::parse("cohorts"), &[], false, 10).iter().all(|h| h.section.is_none()));
    }
}
