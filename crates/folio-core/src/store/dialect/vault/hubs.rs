//! An LLM wiki's hub pages (claude-obsidian's root `index.md` and each folder's `_index.md`):
//! catalogs a person or an agent keeps by hand. folio checks that they list every page of their
//! folder — the root hub every page of the vault — and keeping them current only adds the
//! missing `- [[page]]` lines after the hub's last entry, in its own list style (issue 22).
//! Dead entries are broken links, which `lint` reports as such; a hub's order, headings, prose
//! and wording are never touched.
//!
//! A folder's `_index.md` is a hub by its name; a root `index.md` only when it already reaches
//! more than half the vault's pages, and at least three (one that is an introduction rather
//! than a catalog is left alone).
use std::collections::{HashMap, HashSet};

use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::model::relpath::{file_name, parent};
use crate::store::write::catalog::{CatalogState, CatalogStatus};

/// Each hub's state: fresh, or stale with the missing pages appended.
pub fn status(store: &Store) -> Vec<CatalogStatus> {
    let hubs: Vec<EntityIdx> = (0..store.entities.len() as EntityIdx)
        .filter(|&i| {
            let p = &store.entity(i).path;
            p == "index.md" || file_name(p) == "_index.md"
        })
        .collect();
    if hubs.is_empty() {
        return Vec::new();
    }
    // Built once for every hub: the pages of each folder, and how many pages share a stem.
    let mut by_dir: HashMap<&str, Vec<EntityIdx>> = HashMap::new();
    let mut all = Vec::new();
    let mut stems: HashMap<String, usize> = HashMap::new();
    let mut last_path = None;
    for (i, e) in store.entities.iter().enumerate() {
        // Files holding several entities are one page.
        if last_path == Some(e.path.as_str()) {
            continue;
        }
        last_path = Some(e.path.as_str());
        *stems.entry(e.stem().to_lowercase()).or_default() += 1;
        if !matches!(file_name(&e.path), "index.md" | "_index.md" | "log.md") {
            by_dir.entry(parent(&e.path)).or_default().push(i as EntityIdx);
            all.push(i as EntityIdx);
        }
    }
    let mut out = Vec::new();
    for hub in hubs {
        let e = store.entity(hub);
        let root_hub = e.path == "index.md";
        let scope: &[EntityIdx] = if root_hub { &all } else { by_dir.get(parent(&e.path)).map_or(&[], Vec::as_slice) };
        if scope.is_empty() {
            continue;
        }
        let linked: HashSet<EntityIdx> = e.links.iter().filter_map(|l| l.entity()).collect();
        let missing: Vec<EntityIdx> = scope.iter().copied().filter(|p| !linked.contains(p)).collect();
        // A root `index.md` listing half of the vault or less (or under three pages) is an
        // introduction, not a catalog; a `_index.md` is a folder's catalog by its name.
        let listed = scope.len() - missing.len();
        if root_hub && (listed * 2 <= scope.len() || listed < 3) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(store.abs_path(&e.path)) else { continue };
        if missing.is_empty() {
            out.push(CatalogStatus {
                path: e.path.clone(),
                state: CatalogState::Fresh,
                expected: text,
                notes: Vec::new(),
            });
            continue;
        }
        let names: Vec<String> = missing.iter().map(|&m| link_name(store, m, &stems)).collect();
        let notes = names.iter().map(|n| format!("missing [[{n}]]")).collect();
        let expected = with_entries(&text, &names);
        out.push(CatalogStatus { path: e.path.clone(), state: CatalogState::Stale, expected, notes });
    }
    out
}

/// How a wikilink names the page: its file name when no other page has it, else its path.
fn link_name(store: &Store, i: EntityIdx, stems: &HashMap<String, usize>) -> String {
    let e = store.entity(i);
    let stem = e.stem();
    let shared = stems.get(&stem.to_lowercase()).copied().unwrap_or(0) > 1;
    if shared { e.path.trim_end_matches(".md").to_string() } else { stem.to_string() }
}

/// `text` with `- [[name]]` lines after its last list item that holds a wikilink, in that
/// item's marker and indent and the file's line ending (at the end when it has none).
fn with_entries(text: &str, names: &[String]) -> String {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let last_entry = lines.iter().rposition(|l| list_marker(l).is_some() && l.contains("[["));
    let marker = last_entry.and_then(|i| list_marker(lines[i])).unwrap_or_else(|| "- ".to_string());
    let added: String = names.iter().map(|n| format!("{marker}[[{n}]]{eol}")).collect();
    match last_entry {
        Some(i) => {
            let mut out: String = lines[..=i].concat();
            if !out.ends_with('\n') {
                out.push_str(eol);
            }
            out.push_str(&added);
            out.extend(lines[i + 1..].iter().copied());
            out
        }
        None => {
            let mut out = text.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(eol);
            }
            out.push_str(&added);
            out
        }
    }
}

/// The list marker a line starts with, with its indent (`  - `, `* `, `1. `).
fn list_marker(line: &str) -> Option<String> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    for m in ["- ", "* ", "+ "] {
        if body.starts_with(m) {
            return Some(format!("{indent}{m}"));
        }
    }
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && body[digits..].starts_with(". ")).then(|| format!("{indent}1. "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_join_the_last_list_in_its_style() {
        let hub = "# Entities\n\nIntro.\n\n* [[Alice]] — a person\n* [[Bob]]\n\nSee also the map.\n";
        assert_eq!(
            with_entries(hub, &["Carol".into()]),
            "# Entities\n\nIntro.\n\n* [[Alice]] — a person\n* [[Bob]]\n* [[Carol]]\n\nSee also the map.\n"
        );
        assert_eq!(with_entries("# Hub\r\n  - [[a]]\r\n", &["b".into()]), "# Hub\r\n  - [[a]]\r\n  - [[b]]\r\n");
        assert_eq!(with_entries("# Hub", &["b".into()]), "# Hub\n- [[b]]\n");
    }
}
