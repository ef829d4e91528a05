//! Duplicate rules: `duplicate-id` (two files, one concept id or slug, case ignored) and
//! `duplicate-title` (titles equal once case and punctuation are set aside: merge candidates).
use std::collections::HashMap;

use super::Finding;
use crate::store::Store;
use crate::store::entity::{EntityIdx, rule};

pub fn check(store: &Store, out: &mut Vec<Finding>) {
    // Case-insensitive: `Users.md` and `users.md` are one concept on macOS and Windows.
    report(
        store,
        out,
        rule::DUPLICATE_ID,
        |e| Some(e.id.to_lowercase()),
        |e, others| format!("concept id `{}` is also the id of {others}", e.id),
    );
    report(
        store,
        out,
        rule::DUPLICATE_TITLE,
        |e| Some(title_key(&e.title)).filter(|k| !k.is_empty()),
        |e, others| format!("title \"{}\" matches {others}: a merge candidate", e.title),
    );
}

/// Group entities by `key`; every entity in a group spanning more than one file gets a
/// finding naming the others. Entities of one file (memory entries) never clash with each other.
fn report(
    store: &Store,
    out: &mut Vec<Finding>,
    rule: &'static str,
    key: impl Fn(&crate::store::entity::Entity) -> Option<String>,
    message: impl Fn(&crate::store::entity::Entity, &str) -> String,
) {
    let mut groups: HashMap<String, Vec<EntityIdx>> = HashMap::new();
    for (i, e) in store.entities.iter().enumerate() {
        if let Some(k) = key(e) {
            groups.entry(k).or_default().push(i as EntityIdx);
        }
    }
    let mut clashing: Vec<Vec<EntityIdx>> = groups
        .into_values()
        .map(|mut g| {
            // One entity per file: the first.
            g.dedup_by_key(|i| store.entity(*i).path.as_str());
            g
        })
        .filter(|g| g.len() > 1)
        .collect();
    clashing.sort();
    for group in clashing {
        for &i in &group {
            let others: Vec<String> =
                group.iter().filter(|&&o| o != i).map(|&o| format!("`{}`", store.entity(o).path)).collect();
            let shown = if others.len() > 3 {
                format!("{} and {} more", others[..3].join(", "), others.len() - 3)
            } else {
                others.join(", ")
            };
            let e = store.entity(i);
            out.push(Finding::on_entity(store, i, rule, e.line, 1, message(e, &shown)));
        }
    }
}

/// A title for comparison: case-folded, punctuation and whitespace runs collapsed to one space.
pub fn title_key(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    let mut gap = false;
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            out.push(c);
            gap = false;
        } else {
            gap = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_compare_without_case_or_punctuation() {
        assert_eq!(title_key("  Gross   Margin!"), "gross margin");
        assert_eq!(title_key("gross-margin"), "gross margin");
        assert_eq!(title_key("Gross_Margin (v2)"), "gross margin v2");
        assert_ne!(title_key("Gross Margin"), title_key("Gross Margins"));
        assert_eq!(title_key("—"), "");
        assert_eq!(title_key("ÉTÉ"), "été");
    }
}
