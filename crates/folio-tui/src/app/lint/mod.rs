//! The lint pane: every finding of the store, grouped and filtered, the selected one's context,
//! fixes and ignores. `update` changes the view; `jobs` lint, read context, fix and ignore.
//! This file: the rows the pane lists and the finding under its cursor, which the view draws
//! and `update` moves through.
pub mod jobs;
pub mod update;

use std::collections::BTreeMap;

use ratatui::layout::Rect;

use crate::app::model::{LintView, Model};
use folio_core::store::Store;
use folio_core::store::lint::{Finding, Report};

/// Lines the context box takes (header included) when the pane is tall enough.
const CONTEXT_ROWS: u16 = 8;

#[derive(Debug, Clone, PartialEq)]
pub enum LintRow {
    Group {
        label: String,
        count: usize,
    },
    /// Index into the report's findings.
    Finding(usize),
    /// Index into the report's ignored findings (shown with `show_ignored`).
    Ignored(usize),
}

/// Whether the panel's filters let a finding through.
pub fn shown(view: &LintView, store: &Store, f: &Finding) -> bool {
    view.severity.is_none_or(|s| f.severity == s)
        && view.rule.is_none_or(|r| f.rule == r)
        && view.kind.as_ref().is_none_or(|k| f.entity.and_then(|i| store.entity(i).kind.as_deref()) == Some(k.as_str()))
}

/// The panel's rows: a header per group, then its findings in report order.
pub fn rows(view: &LintView, store: &Store, report: &Report) -> Vec<LintRow> {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (n, f) in report.findings.iter().enumerate().filter(|(_, f)| shown(view, store, f)) {
        let key =
            if view.by_file { f.path.as_deref().unwrap_or("(the store)").to_string() } else { f.rule.to_string() };
        groups.entry(key).or_default().push(n);
    }
    let mut out = Vec::new();
    for (label, members) in groups {
        out.push(LintRow::Group { label, count: members.len() });
        out.extend(members.into_iter().map(LintRow::Finding));
    }
    if view.show_ignored {
        let ignored: Vec<usize> = report
            .suppressed
            .iter()
            .enumerate()
            .filter(|(_, s)| shown(view, store, &s.finding))
            .map(|(n, _)| n)
            .collect();
        if !ignored.is_empty() {
            out.push(LintRow::Group { label: "(ignored)".into(), count: ignored.len() });
            out.extend(ignored.into_iter().map(LintRow::Ignored));
        }
    }
    out
}

/// The list area of the panel (below the filter line, above the context box).
pub fn list_area(area: Rect) -> Rect {
    let inner = Rect {
        x: area.x + 1,
        y: area.y + 1,
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    };
    let context = if inner.height >= CONTEXT_ROWS + 6 { CONTEXT_ROWS } else { 0 };
    Rect { y: inner.y + 1, height: inner.height.saturating_sub(1 + context), ..inner }
}

/// The finding under the panel's cursor (an ignored one included).
pub fn selected_finding(model: &Model) -> Option<&Finding> {
    let (store, report) = (model.store.as_ref()?, model.lint.as_ref()?);
    match rows(&model.lint_view, store, report).get(model.lint_view.cursor)? {
        LintRow::Finding(i) => report.findings.get(*i),
        LintRow::Ignored(i) => report.suppressed.get(*i).map(|s| &s.finding),
        LintRow::Group { .. } => None,
    }
}

/// The finding under the cursor and whether it is one the config ignores.
pub fn selected(model: &Model) -> Option<(Finding, bool)> {
    let (store, report) = (model.store.as_ref()?, model.lint.as_ref()?);
    match rows(&model.lint_view, store, report).get(model.lint_view.cursor)? {
        LintRow::Finding(i) => report.findings.get(*i).map(|f| (f.clone(), false)),
        LintRow::Ignored(i) => report.suppressed.get(*i).map(|s| (s.finding.clone(), true)),
        LintRow::Group { .. } => None,
    }
}
