//! Edge lists after a merge repointed A's links to B: a list may now name B twice, and B's own
//! edges to A name B itself (`supersedes: [B]`; opendray allows no self-edges). The repeats and
//! the self-references go; a block-style list loses only those lines, keeping its style.
use serde_json::Value;

use super::plan::Plan;
use super::{ReviewError, fields};
use crate::store::Store;
use crate::store::read::frontmatter::{self, Block};

/// Tidy the edge lists of `path`; `own` is B's id when `path` is B itself.
pub fn tidy(store: &Store, plan: &mut Plan, path: &str, own: Option<&str>) -> Result<(), ReviewError> {
    let f = fields::read(&mut plan.draft, store, path)?;
    // opendray's `relations: {runs_on: [..], …}` mapping (opendray allows no self-edges).
    if let Some(Value::Object(rel)) = f.get("relations") {
        let mut tidy = rel.clone();
        for targets in tidy.values_mut() {
            if let Value::Array(items) = targets {
                *items = kept_items(items, own);
            }
        }
        tidy.retain(|_, v| !matches!(v, Value::Array(a) if a.is_empty()));
        if tidy != *rel && tidy.is_empty() {
            fields::remove(&mut plan.draft, store, path, "relations")?;
        } else if tidy != *rel {
            fields::set(&mut plan.draft, store, path, "relations", Value::Object(tidy))?;
        }
    }
    for key in crate::store::dialect::EDGE_KEYS.iter().chain(&["links"]) {
        let Some(Value::Array(items)) = f.get(*key) else { continue };
        let kept = kept_items(items, own);
        if kept.len() == items.len() {
            continue;
        }
        if kept.is_empty() {
            fields::remove(&mut plan.draft, store, path, key)?;
        } else if let Some(new) = drop_block_items(plan.draft.text(store, path)?, key, own) {
            *plan.draft.text(store, path)? = new;
        } else {
            fields::set(&mut plan.draft, store, path, key, Value::Array(kept))?;
        }
    }
    Ok(())
}

/// An edge list without repeats and without `own` (`[[own]]` too).
fn kept_items(items: &[Value], own: Option<&str>) -> Vec<Value> {
    let mut kept: Vec<Value> = Vec::new();
    for item in items {
        let name = frontmatter::scalar_text(item);
        if !kept.contains(item) && own != Some(name.trim_start_matches("[[").trim_end_matches("]]")) {
            kept.push(item.clone());
        }
    }
    kept
}

/// A block-style list (`key:` then `  - item` lines) loses its repeated items and `own` by
/// deleting their lines, so the list keeps its style; None for any other form.
fn drop_block_items(text: &str, key: &str, own: Option<&str>) -> Option<String> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return None };
    let block = &text[inner.clone()];
    let (_, range) = crate::store::write::edit::key_ranges(block).into_iter().find(|(k, _)| k == key)?;
    let region = &block[range.clone()];
    let (head, items) = region.split_once('\n')?;
    if !head.trim_end().ends_with(':') {
        return None;
    }
    let mut seen: Vec<String> = Vec::new();
    let mut out = format!("{head}\n");
    for line in items.split_inclusive('\n') {
        let item = line.trim().strip_prefix("- ")?.trim().trim_matches(['"', '\'']);
        let name = item.trim_start_matches("[[").trim_end_matches("]]").to_string();
        if own != Some(name.as_str()) && !seen.contains(&name) {
            out += line;
        }
        seen.push(name);
    }
    let at = inner.start + range.start;
    Some(format!("{}{out}{}", &text[..at], &text[at + region.len()..]))
}
